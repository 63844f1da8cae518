/* lu_smem_d4.cu -- FP64 instantiations of the shared-memory LU kernel, n = 20..22. */
#include "lu_smem.cuh"
BSM_INSTANTIATE(double, 20) BSM_INSTANTIATE(double, 21) BSM_INSTANTIATE(double, 22)
