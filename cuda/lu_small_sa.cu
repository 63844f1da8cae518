/* lu_small_sa.cu -- instantiations of the team kernel (float, buckets 1 2 3 4 5 6 7 8);
 * split so that make -j compiles them in parallel. */
#include "lu_small.cuh"
BSI_SMALL_INSTANTIATE(float, 1)
BSI_SMALL_INSTANTIATE(float, 2)
BSI_SMALL_INSTANTIATE(float, 3)
BSI_SMALL_INSTANTIATE(float, 4)
BSI_SMALL_INSTANTIATE(float, 5)
BSI_SMALL_INSTANTIATE(float, 6)
BSI_SMALL_INSTANTIATE(float, 7)
BSI_SMALL_INSTANTIATE(float, 8)
