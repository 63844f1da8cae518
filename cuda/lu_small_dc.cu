/* lu_small_dc.cu -- instantiations of the team kernel (double, buckets 20 24 28 32);
 * split so that make -j compiles them in parallel. */
#include "lu_small.cuh"
BSI_SMALL_INSTANTIATE(double, 20)
BSI_SMALL_INSTANTIATE(double, 24)
BSI_SMALL_INSTANTIATE(double, 28)
BSI_SMALL_INSTANTIATE(double, 32)
