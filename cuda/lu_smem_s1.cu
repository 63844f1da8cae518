/* lu_smem_s1.cu -- FP32 instantiations of the shared-memory LU kernel, n = 9..12. */
#include "lu_smem.cuh"
BSM_INSTANTIATE(float, 9) BSM_INSTANTIATE(float, 10) BSM_INSTANTIATE(float, 11) BSM_INSTANTIATE(float, 12)
