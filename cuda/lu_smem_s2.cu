/* lu_smem_s2.cu -- FP32 instantiations of the shared-memory LU kernel, n = 13..16. */
#include "lu_smem.cuh"
BSM_INSTANTIATE(float, 13) BSM_INSTANTIATE(float, 14) BSM_INSTANTIATE(float, 15) BSM_INSTANTIATE(float, 16)
