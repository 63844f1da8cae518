/* lu_warp_s2.cu -- instantiations of the row-per-lane kernel (float, buckets 20 24 28 32);
 * split so that make -j compiles them in parallel. */
#include "lu_warp.cuh"
BSW_INSTANTIATE(float, 20)
BSW_INSTANTIATE(float, 24)
BSW_INSTANTIATE(float, 28)
BSW_INSTANTIATE(float, 32)
