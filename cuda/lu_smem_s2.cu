/* lu_smem_s2.cu -- FP32 instantiations of the shared-memory LU kernel, n = 13..16. */
#include "lu_smem.cuh"
BSM_BUCKETS_HI(BSM_INSTANTIATE, float)
