/* lu_warp_d2.cu -- instantiations of the row-per-lane kernel (double, buckets 20 24 28 32);
 * split so that make -j compiles them in parallel. */
#include "lu_warp.cuh"
BSW_INSTANTIATE(double, 20)
BSW_INSTANTIATE(double, 24)
BSW_INSTANTIATE(double, 28)
BSW_INSTANTIATE(double, 32)
