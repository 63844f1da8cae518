/* lu_smem_d1.cu -- FP64 instantiations of the shared-memory LU kernel, n = 9..12. */
#include "lu_smem.cuh"
BSM_INSTANTIATE(double, 9) BSM_INSTANTIATE(double, 10) BSM_INSTANTIATE(double, 11) BSM_INSTANTIATE(double, 12)
