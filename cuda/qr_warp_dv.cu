/* qr_warp_dv.cu -- instantiations of the column-per-lane QR kernel (double)
 * that read column-major A two rows per load (LD = BSQ_LD_PAIR); split from qr_warp_d.cu
 * so that make -j compiles them in parallel. */
#include "qr_warp.cuh"
BSQ_WARP_BUCKETS_DV(BSQ_WARP_INSTANTIATE)
