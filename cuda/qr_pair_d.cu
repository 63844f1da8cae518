/* qr_pair_d.cu -- launches of the paired-step QR kernel (qr_pair.cuh),
 * FP64; compiled apart from qr.cu so that make -j builds them in parallel. */
#include "qr_pair.cuh"

template <typename R, int TC, int SEG> static cudaError_t bsq_launch_pair_t(const bsq_args<R> &a, size_t smem, cudaStream_t st)
{
    if (smem > (48 << 10)) {
        const cudaError_t e = cudaFuncSetAttribute(bsq_k_pair<R, TC, SEG>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess) return e;
    }
    bsq_k_pair<R, TC, SEG><<<(unsigned)a.count, TC * SEG, smem, st>>>(a);
    return cudaGetLastError();
}

/* TC column slots, SEG threads per band (qr_dispatch.cuh) */
template <typename R, int TC> static cudaError_t bsq_launch_pair_tc(const bsq_args<R> &a, int seg, size_t smem, cudaStream_t st)
{
    switch (seg) {
    case 1: return bsq_launch_pair_t<R, TC, 1>(a, smem, st);
    case 2: return bsq_launch_pair_t<R, TC, 2>(a, smem, st);
    case 4: return bsq_launch_pair_t<R, TC, 4>(a, smem, st);
    default: return cudaErrorNotSupported;
    }
}

template <typename R> cudaError_t bsq_launch_pair(const bsq_args<R> &a, const bsq_choice &c, cudaStream_t st)
{
    if (a.m < 2 || a.m > 128 || a.n < 1 || a.n > 64 || a.n > a.m || a.nrhs != 1) return cudaErrorNotSupported;
    if (a.count > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
    bsq_args<R> b = a;
    b.ldm = a.m | 1; /* odd: lanes striding by columns hit distinct banks */
    const size_t smem = ((size_t)b.ldm * (a.n + 1) + a.n) * sizeof(R);
    switch (c.L) {
    case 32: return bsq_launch_pair_tc<R, 32>(b, c.seg, smem, st);
    case 64: return bsq_launch_pair_tc<R, 64>(b, c.seg, smem, st);
    default: return cudaErrorNotSupported;
    }
}

template cudaError_t bsq_launch_pair<double>(const bsq_args<double> &, const bsq_choice &, cudaStream_t);
