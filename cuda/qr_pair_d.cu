/* qr_pair_d.cu -- launches of the paired-step QR kernel (qr_pair.cuh),
 * FP64; compiled apart from qr.cu so that make -j builds them in parallel. */
#include "qr_pair.cuh"

/* BSOLVE_QR_PAIR_SEG=1, 2 or 4: threads per column band (A/B comparisons) */
static int bsq_pair_seg_env()
{
    static const int r = bsi_env_int("BSOLVE_QR_PAIR_SEG", 0);
    return r;
}

template <typename R, int TC, int SEG> static cudaError_t bsq_launch_pair_t(const bsq_args<R> &a, size_t smem, cudaStream_t st)
{
    if (smem > (48 << 10)) {
        const cudaError_t e = cudaFuncSetAttribute(bsq_k_pair<R, TC, SEG>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess) return e;
    }
    bsq_k_pair<R, TC, SEG><<<(unsigned)a.count, TC * SEG, smem, st>>>(a);
    return cudaGetLastError();
}

/* TC column slots, the band split of BSOLVE_QR_PAIR_SEG; by default two
 * threads per band at m <= 64 and four beyond, where a band is twice as
 * long (H100, 2026-11-27 03:30 UTC, two runs, ours IL / CM, systems/s,
 * team kernel -> four threads per band: 40x128 2.37e6 / 2.44e6 -> 2.72e6 /
 * 2.78e6, 48x128 2.05e6 / 2.25e6 -> 2.2e6 / 2.4e6, 56x128 1.7e6 / 1.75e6 ->
 * 1.78e6 / 1.83e6; two threads: 48x128 -3..-5%, attempt 25) */
template <typename R, int TC> static cudaError_t bsq_launch_pair_tc(const bsq_args<R> &a, size_t smem, cudaStream_t st)
{
    const int seg = bsq_pair_seg_env();
    switch (seg ? seg : a.m > 64 ? 4 : 2) {
    case 1: return bsq_launch_pair_t<R, TC, 1>(a, smem, st);
    case 4: return bsq_launch_pair_t<R, TC, 4>(a, smem, st);
    default: return bsq_launch_pair_t<R, TC, 2>(a, smem, st);
    }
}

template <typename R> cudaError_t bsq_launch_pair(const bsq_args<R> &a, cudaStream_t st)
{
    if (a.m < 2 || a.m > 128 || a.n < 1 || a.n > 64 || a.n > a.m || a.nrhs != 1) return cudaErrorNotSupported;
    if (a.count > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
    bsq_args<R> b = a;
    b.ldm = a.m | 1; /* odd: lanes striding by columns hit distinct banks */
    const size_t smem = ((size_t)b.ldm * (a.n + 1) + a.n) * sizeof(R);
    return a.n <= 32 ? bsq_launch_pair_tc<R, 32>(b, smem, st) : bsq_launch_pair_tc<R, 64>(b, smem, st);
}

template cudaError_t bsq_launch_pair<double>(const bsq_args<double> &, cudaStream_t);
