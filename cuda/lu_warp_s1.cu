/* lu_warp_s1.cu -- instantiations of the row-per-lane kernel (float, buckets 10 12 14 16);
 * split so that make -j compiles them in parallel. */
#include "lu_warp.cuh"
BSW_INSTANTIATE(float, 10)
BSW_INSTANTIATE(float, 12)
BSW_INSTANTIATE(float, 14)
BSW_INSTANTIATE(float, 16)
