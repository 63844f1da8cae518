/* lu_warp_d1.cu -- instantiations of the row-per-lane kernel (double, buckets 10 12 14 16);
 * split so that make -j compiles them in parallel. */
#include "lu_warp.cuh"
BSW_INSTANTIATE(double, 10)
BSW_INSTANTIATE(double, 12)
BSW_INSTANTIATE(double, 14)
BSW_INSTANTIATE(double, 16)
