/* lu_small_db.cu -- instantiations of the team kernel (double, buckets 10 12 14 16);
 * split so that make -j compiles them in parallel. */
#include "lu_small.cuh"
BSI_SMALL_INSTANTIATE(double, 10)
BSI_SMALL_INSTANTIATE(double, 12)
BSI_SMALL_INSTANTIATE(double, 14)
BSI_SMALL_INSTANTIATE(double, 16)
