/* lu_warp_d3.cu -- instantiations of the row-per-lane kernel (double, buckets 40 48). */
#include "lu_warp.cuh"
BSW_INSTANTIATE(double, 40)
BSW_INSTANTIATE(double, 48)
