/* lu_warp_s3.cu -- instantiations of the row-per-lane kernel (float, buckets 40 48 64). */
#include "lu_warp.cuh"
BSW_INSTANTIATE(float, 40)
BSW_INSTANTIATE(float, 48)
BSW_INSTANTIATE(float, 64)
