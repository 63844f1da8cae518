/* lu_small_sb.cu -- instantiations of the team kernel (float, buckets 10 12 14 16);
 * split so that make -j compiles them in parallel. */
#include "lu_small.cuh"
BSI_SMALL_INSTANTIATE(float, 10)
BSI_SMALL_INSTANTIATE(float, 12)
BSI_SMALL_INSTANTIATE(float, 14)
BSI_SMALL_INSTANTIATE(float, 16)
