/* lu_smem_d3.cu -- FP64 instantiations of the shared-memory LU kernel, n = 16..19. */
#include "lu_smem.cuh"
BSM_INSTANTIATE(double, 16) BSM_INSTANTIATE(double, 17) BSM_INSTANTIATE(double, 18) BSM_INSTANTIATE(double, 19)
