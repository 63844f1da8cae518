/* lu_smem_s4.cu -- FP32 instantiations of the shared-memory LU kernel, n = 20..22. */
#include "lu_smem.cuh"
BSM_INSTANTIATE(float, 20) BSM_INSTANTIATE(float, 21) BSM_INSTANTIATE(float, 22)
