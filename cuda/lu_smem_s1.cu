/* lu_smem_s1.cu -- FP32 instantiations of the shared-memory LU kernel, n = 9..12. */
#include "lu_smem.cuh"
BSM_BUCKETS_LO(BSM_INSTANTIATE, float)
