/* lu_smem_s4.cu -- FP32 instantiations of the shared-memory LU kernel, n = 21..24. */
#include "lu_smem.cuh"
BSM_BUCKETS_S4(BSM_INSTANTIATE, float)
