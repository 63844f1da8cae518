/* lu_smem_d1.cu -- FP64 instantiations of the shared-memory LU kernel, n = 9..12. */
#include "lu_smem.cuh"
BSM_BUCKETS_LO(BSM_INSTANTIATE, double)
