/* lu_small_da.cu -- instantiations of the team kernel (double, buckets 1 2 3 4 5 6 7 8);
 * split so that make -j compiles them in parallel. */
#include "lu_small.cuh"
BSI_SMALL_INSTANTIATE(double, 1)
BSI_SMALL_INSTANTIATE(double, 2)
BSI_SMALL_INSTANTIATE(double, 3)
BSI_SMALL_INSTANTIATE(double, 4)
BSI_SMALL_INSTANTIATE(double, 5)
BSI_SMALL_INSTANTIATE(double, 6)
BSI_SMALL_INSTANTIATE(double, 7)
BSI_SMALL_INSTANTIATE(double, 8)
