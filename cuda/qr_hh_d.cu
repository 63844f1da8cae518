/* qr_hh_d.cu -- launches of the Householder column-per-lane kernel
 * (qr_hh.cuh), FP64; compiled apart from qr.cu so that make -j builds them
 * in parallel. */
#include "qr_hh.cuh"

template <typename R> cudaError_t bsq_launch_hh(const bsq_args<R> &a, const bsq_choice &c, cudaStream_t st)
{
    if (a.nrhs != 1 || a.n < 1 || a.n > 64 || a.n > a.m || a.m > 128) return cudaErrorNotSupported;
    const bool pair = c.ld_pair != 0;
    if (c.C == 2) {
        if (c.M == 32 && c.L == 8 && c.H == 1) return bsq_launch_hh_t<R, 32, 8, 1, 2>(a, pair, st);
        if (c.M == 16 && c.L == 4 && c.H == 1) return bsq_launch_hh_t<R, 16, 4, 1, 2>(a, pair, st);
        if (c.M == 16 && c.L == 8 && c.H == 1) return bsq_launch_hh_t<R, 16, 8, 1, 2>(a, pair, st);
        return cudaErrorNotSupported;
    }
    if (c.C != 1) return cudaErrorNotSupported;
    switch (c.H * 65536 + c.M * 256 + c.L) {
    case 65536 + 16 * 256 + 8: return bsq_launch_hh_t<R, 16, 8, 1>(a, pair, st);
    case 65536 + 16 * 256 + 16: return bsq_launch_hh_t<R, 16, 16, 1>(a, pair, st);
    case 65536 + 32 * 256 + 8: return bsq_launch_hh_t<R, 32, 8, 1>(a, pair, st);
    case 65536 + 32 * 256 + 16: return bsq_launch_hh_t<R, 32, 16, 1>(a, pair, st);
    case 65536 + 32 * 256 + 32: return bsq_launch_hh_t<R, 32, 32, 1>(a, pair, st);
    case 65536 + 64 * 256 + 8: return bsq_launch_hh_t<R, 64, 8, 1>(a, pair, st);
    case 65536 + 64 * 256 + 16: return bsq_launch_hh_t<R, 64, 16, 1>(a, pair, st);
    case 65536 + 64 * 256 + 32: return bsq_launch_hh_t<R, 64, 32, 1>(a, pair, st);
    case 65536 + 64 * 256 + 64: return bsq_launch_hh_t<R, 64, 64, 1>(a, pair, st);
    case 2 * 65536 + 64 * 256 + 32: return bsq_launch_hh_t<R, 64, 32, 2>(a, pair, st);
    case 2 * 65536 + 64 * 256 + 64: return bsq_launch_hh_t<R, 64, 64, 2>(a, pair, st);
    default: return cudaErrorNotSupported;
    }
}

template cudaError_t bsq_launch_hh<double>(const bsq_args<double> &, const bsq_choice &, cudaStream_t);
