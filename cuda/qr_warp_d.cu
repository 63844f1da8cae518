/* qr_warp_d.cu -- instantiations of the column-per-lane QR kernel (double);
 * split from qr.cu so that make -j compiles them in parallel. */
#include "qr_warp.cuh"
BSQ_WARP_BUCKETS(BSQ_WARP_INSTANTIATE, double)
BSQ_WARP_BUCKETS_D(BSQ_WARP_INSTANTIATE)
