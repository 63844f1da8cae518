/* lu_smem_s3.cu -- FP32 instantiations of the shared-memory LU kernel, n = 17..20. */
#include "lu_smem.cuh"
BSM_BUCKETS_S3(BSM_INSTANTIATE, float)
