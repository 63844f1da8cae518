/* lu_small_sc.cu -- instantiations of the team kernel (float, buckets 20 24 28 32);
 * split so that make -j compiles them in parallel. */
#include "lu_small.cuh"
BSI_SMALL_INSTANTIATE(float, 20)
BSI_SMALL_INSTANTIATE(float, 24)
BSI_SMALL_INSTANTIATE(float, 28)
BSI_SMALL_INSTANTIATE(float, 32)
