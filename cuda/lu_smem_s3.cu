/* lu_smem_s3.cu -- FP32 instantiation of the shared-memory LU kernel, n = 17. */
#include "lu_smem.cuh"
BSM_BUCKETS_S3(BSM_INSTANTIATE, float)
