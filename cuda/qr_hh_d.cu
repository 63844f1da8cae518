/* qr_hh_d.cu -- launches of the Householder column-per-lane kernel
 * (qr_hh.cuh), FP64; compiled apart from qr.cu so that make -j builds them
 * in parallel. */
#include "qr_hh.cuh"

/* BSOLVE_QR_HH_C=1: one column per lane everywhere (A/B comparisons, tests) */
static int bsq_hh_c_env()
{
    static const int r = bsi_env_int("BSOLVE_QR_HH_C", -1);
    return r;
}

template <typename R> cudaError_t bsq_launch_hh(const bsq_args<R> &a, cudaStream_t st)
{
    if (a.nrhs != 1 || a.n < 1 || a.n > 64 || a.n > a.m || a.m > 128) return cudaErrorNotSupported;
    /* column-major A two rows per load wherever it allows them */
    const bool pair = bsq_ld_pair_ok(a);
    /* rows to 16, 32, 64 or 128 (two halves of 64), columns to 8, 16, 32 or 64
     * (32 or 64 with halves: a warp each) */
    const int M = a.m <= 16 ? 16 : a.m <= 32 ? 32 : a.m <= 64 ? 64 : 128;
    const int L = a.n <= 8 && M < 128 ? 8 : a.n <= 16 && M < 128 ? 16 : a.n <= 32 ? 32 : 64;
    /* Interleaved A with 8 < n <= 16 at 16 < m <= 32: teams of 8 lanes with
     * two columns each (4 systems per warp; a step's broadcast loads, b's
     * butterfly and the reflector shared by twice the systems; 168
     * registers, 3 blocks per SM instead of 4).  H100, 2026-11-27 04:45 UTC,
     * two alternating runs, systems/s, one -> two columns per lane, IL:
     * 16x32 1.37-1.38e8 -> 1.55-1.56e8, 13x32 +13%, 12x32 +12%, 12x24 +11%,
     * 16x20 +10.5%, 10x20 +7%, 9x18 +5.5%; CM: 16x32 and 13x32 +-0.5%, 12x24
     * -2.7%, 10x20 -2.8%, 9x18 -2.4% (perf/NOTES-qr-gpu.md attempt 26). */
    if (M == 32 && L == 16 && a.a_il && bsq_hh_c_env() != 1) return bsq_launch_hh_t<R, 32, 8, 1, 2>(a, pair, st);
    /* m <= 16: teams of 4 lanes (n <= 8) or 8 lanes (n <= 16) with two
     * columns each (8 or 4 systems per warp), b and the pivot column in
     * registers (RB in qr_hh.cuh).  H100, 2026-11-27 07:50-08:17 UTC, two
     * alternating runs, IL / CM, systems/s, the column-per-lane rotations
     * (qr_warp.cuh, the default there before) -> this: 8x16 8.1e8 / 7.6e8 ->
     * 8.6-8.7e8 / 9.0e8 (b in shared memory, the first version: 8.1e8 /
     * 7.8e8), 8x12 +6% / +12%, 8x9 +3% / 0, 7x16 +12% / +28%, 6x16 +20% /
     * +34%, 5x9 +18% / +13%; 16x16 2.73e8 / 3.05e8 -> 3.07e8 / 3.16e8 (one
     * column per lane, b in shared memory: 2.43e8 / 2.77e8), 14x14 +13% /
     * +12%, 12x16 +16%, 10x12 +25%, 9x16 +24% / +27%, 9x9 +29% / +32%; the
     * register kernel keeps its buckets (n <= 4 and m <= 8 measured the same
     * either way: they never reach this) (perf/NOTES-qr-gpu.md attempt 28). */
    if (M == 16 && L == 8 && bsq_hh_c_env() != 1) return bsq_launch_hh_t<R, 16, 4, 1, 2>(a, pair, st);
    if (M == 16 && L == 16 && bsq_hh_c_env() != 1) return bsq_launch_hh_t<R, 16, 8, 1, 2>(a, pair, st);
    switch (M * 256 + L) {
    case 16 * 256 + 8: return bsq_launch_hh_t<R, 16, 8, 1>(a, pair, st);
    case 16 * 256 + 16: return bsq_launch_hh_t<R, 16, 16, 1>(a, pair, st);
    case 32 * 256 + 8: return bsq_launch_hh_t<R, 32, 8, 1>(a, pair, st);
    case 32 * 256 + 16: return bsq_launch_hh_t<R, 32, 16, 1>(a, pair, st);
    case 32 * 256 + 32: return bsq_launch_hh_t<R, 32, 32, 1>(a, pair, st);
    case 64 * 256 + 8: return bsq_launch_hh_t<R, 64, 8, 1>(a, pair, st);
    case 64 * 256 + 16: return bsq_launch_hh_t<R, 64, 16, 1>(a, pair, st);
    case 64 * 256 + 32: return bsq_launch_hh_t<R, 64, 32, 1>(a, pair, st);
    case 64 * 256 + 64: return bsq_launch_hh_t<R, 64, 64, 1>(a, pair, st);
    case 128 * 256 + 32: return bsq_launch_hh_t<R, 64, 32, 2>(a, pair, st);
    case 128 * 256 + 64: return bsq_launch_hh_t<R, 64, 64, 2>(a, pair, st);
    default: return cudaErrorNotSupported;
    }
}

template cudaError_t bsq_launch_hh<double>(const bsq_args<double> &, cudaStream_t);
