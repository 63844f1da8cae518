/* lu_smem_s3.cu -- FP32 instantiations of the shared-memory LU kernel, n = 17..19. */
#include "lu_smem.cuh"
BSM_INSTANTIATE(float, 17) BSM_INSTANTIATE(float, 18) BSM_INSTANTIATE(float, 19)
