/*
 * lu_getrs.cuh -- getrs with a thread per system (9 <= n <= 128, one
 * right-hand side; lu_dispatch.cuh's table says when): the solve of a
 * Newton iteration with a frozen Jacobian, which reads the factors of the
 * last getrf every time.
 *
 * Why: getrs moves n^2 factor entries for 2 n^2 flops, so it should run at
 * the memory's speed; the kernels that factor (a team or a block per
 * system) read the interleaved factors one element per 32-byte sector and
 * then solve in a few lanes.  The factors are stored interleaved (common.cuh:
 * entry (i, j) of system s at (i + j n) ld + s), so consecutive threads on
 * consecutive systems read whole sectors: every factor load of a warp is
 * 32 consecutive entries.  A thread keeps b in shared memory (a column per
 * thread: conflict-free; the row interchanges need run-time indices), and
 * the loops over a column keep LV = 16 loads in flight (32 above n = 64 ran
 * 0.45-0.94x: their registers cut the blocks per SM that b's shared memory
 * allows).
 *
 * Numerics are the other kernels' getrs: interchange k, then elimination
 * with column k of L (LINPACK form), then U x = y with the reciprocal of
 * U's diagonal (subnormal pivots scaled by 2^64, 2^32 in FP32), then the
 * column interchanges of FULL; a factorization that failed, or a
 * non-finite b, gives NaN.
 */
#ifndef BSI_LU_GETRS_CUH
#define BSI_LU_GETRS_CUH

#include "lu_warp.cuh" /* bsw_lim */

#define BSG_NT 64 /* threads per block */

/* Shared memory of a block for order n: b, a column per thread. */
template <typename R> constexpr size_t bsg_smem(int n) { return (size_t)BSG_NT * n * sizeof(R); }

template <typename R> __device__ __forceinline__ R bsg_recip(R d, bool &tiny)
{
    using L = bsw_lim<R>;
    tiny = fabs(d) < L::minnorm() && d != R(0);
    return R(1) / (d == R(0) ? R(1) : (tiny ? d * L::up() : d));
}

/* Blocks per SM asked of ptxas: FP64 1.1-1.3x at n = 20..128 with 10
 * (FP32 0.94x above n = 32 with it; 0 leaves it to ptxas, as no bound). */
template <typename R> __host__ __device__ constexpr int bsg_minb() { return sizeof(R) == 8 ? 10 : 0; }

template <typename R, int PIV, bool LIST>
__global__ void __launch_bounds__(BSG_NT, bsg_minb<R>()) bsg_k(const bsi_lu_args<R> a)
{
    using L = bsw_lim<R>;
    constexpr int LV = 16;
    extern __shared__ __align__(16) unsigned char bsg_sm[];
    const int tid = threadIdx.x, n = a.n;
    const int64_t i = (int64_t)blockIdx.x * BSG_NT + tid;
    if (i >= bsi_lu_count<LIST>(a)) return; /* no barriers below */
    const int64_t sys = bsi_lu_sys<LIST>(a, i);
    R *bs = reinterpret_cast<R *>(bsg_sm) + tid;
#define BSG_B(i) bs[(i) * BSG_NT]
    const R *F = a.F + sys;
    const uint8_t *rp = a.rp + sys, *cp = a.cp + sys;
    const int64_t fs = a.fld, cs = (int64_t)n * a.fld; /* row and column strides of the factors */
    const int finfo = a.finfo[sys];
    const int64_t ks = a.vb.ks, is = a.vb.is, js = a.vb.js;
    int badb = 0, firstbad = -1;
    for (int c = 0; c < a.nrhs; c++) {
        R *B = a.B + sys * ks + c * js;
        int nb = 0;
        for (int i0 = 0; i0 < n; i0 += LV) {
            R v[LV];
#pragma unroll
            for (int u = 0; u < LV; u++) v[u] = i0 + u < n ? B[(i0 + u) * is] : R(0);
#pragma unroll
            for (int u = 0; u < LV; u++) {
                nb |= !(fabs(v[u]) <= L::maxv());
                if (i0 + u < n) BSG_B(i0 + u) = v[u];
            }
        }
        if (nb && !badb) firstbad = c;
        badb |= nb;
        /* forward: interchange k, then b_i -= l_ik b_k below (LV loads of
         * the column in flight, the last group masked; the next pivot
         * loaded one step ahead) */
        int pn = PIV != BSOLVE_PIVOT_NONE ? rp[0] : 0;
        for (int k = 0; k < n; k++) {
            const int p = PIV != BSOLVE_PIVOT_NONE ? pn : k;
            if (PIV != BSOLVE_PIVOT_NONE && k + 1 < n) pn = rp[(k + 1) * fs];
            const R bk = BSG_B(p);
            if (p != k) BSG_B(p) = BSG_B(k);
            BSG_B(k) = bk;
            const R *col = F + k * cs;
            for (int i = k + 1; i < n; i += LV) {
                R f[LV];
#pragma unroll
                for (int u = 0; u < LV; u++) f[u] = i + u < n ? col[(i + u) * fs] : R(0);
#pragma unroll
                for (int u = 0; u < LV; u++)
                    if (i + u < n) BSG_B(i + u) = fma(-f[u], bk, BSG_B(i + u));
            }
        }
        /* backward: x_i = y_i / u_ii, then b_r -= u_ri x_i above; the next
         * diagonal entry is loaded one column ahead */
        R dn = F[(int64_t)(n - 1) * (cs + fs)];
        for (int i = n - 1; i >= 0; i--) {
            const R d = dn;
            if (i > 0) dn = F[(int64_t)(i - 1) * (cs + fs)];
            bool tiny;
            const R rinv = bsg_recip(d, tiny);
            const R xi = (BSG_B(i) * (tiny ? L::up() : R(1))) * rinv;
            BSG_B(i) = xi;
            const R *col = F + i * cs;
            for (int r = 0; r < i; r += LV) {
                R f[LV];
#pragma unroll
                for (int u = 0; u < LV; u++) f[u] = r + u < i ? col[(r + u) * fs] : R(0);
#pragma unroll
                for (int u = 0; u < LV; u++)
                    if (r + u < i) BSG_B(r + u) = fma(-f[u], xi, BSG_B(r + u));
            }
        }
        /* x <- Q x */
        if (PIV == BSOLVE_PIVOT_FULL)
            for (int k = n - 1; k >= 0; k--) {
                const int q = cp[k * fs];
                const R t = BSG_B(k);
                BSG_B(k) = BSG_B(q);
                BSG_B(q) = t;
            }
        const bool nanfill = finfo != 0 || badb;
        for (int i = 0; i < n; i++) B[i * is] = nanfill ? L::nan() : BSG_B(i);
    }
    /* a non-finite B found after good columns were stored: NaN them too */
    if (finfo == 0 && firstbad > 0)
        for (int c = 0; c < firstbad; c++)
            for (int i = 0; i < n; i++) a.B[sys * ks + i * is + c * js] = L::nan();
    if (a.info) a.info[sys] = badb ? BSOLVE_INFO_NONFINITE : finfo;
#undef BSG_B
}

template <typename R, int PIV, bool LIST> cudaError_t bsg_launch_l(const bsi_lu_args<R> &a, cudaStream_t st)
{
    const int64_t blocks = (a.count + BSG_NT - 1) / BSG_NT;
    if (blocks > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
    const size_t smem = bsg_smem<R>(a.n);
    if (!bsi_smem_optin(bsg_k<R, PIV, LIST>, smem)) {
        /* beyond this device's shared memory per block: the block kernel */
        return bsi_launch_large<R>(BSI_OP_GETRS, a, st);
    }
    bsg_k<R, PIV, LIST><<<(unsigned)blocks, BSG_NT, smem, st>>>(a);
    return cudaGetLastError();
}

template <typename R, int PIV> cudaError_t bsg_launch_t(const bsi_lu_args<R> &a, cudaStream_t st)
{
    return a.nsel ? bsg_launch_l<R, PIV, true>(a, st) : bsg_launch_l<R, PIV, false>(a, st);
}

/* Launch (getrs, any pivoting, 1 <= n <= 128). */
template <typename R> cudaError_t bsg_launch(const bsi_lu_args<R> &a, cudaStream_t st)
{
    switch (a.pivot) {
    case BSOLVE_PIVOT_NONE: return bsg_launch_t<R, BSOLVE_PIVOT_NONE>(a, st);
    case BSOLVE_PIVOT_PARTIAL: return bsg_launch_t<R, BSOLVE_PIVOT_PARTIAL>(a, st);
    default: return bsg_launch_t<R, BSOLVE_PIVOT_FULL>(a, st);
    }
}

extern template cudaError_t bsg_launch<double>(const bsi_lu_args<double> &, cudaStream_t);
extern template cudaError_t bsg_launch<float>(const bsi_lu_args<float> &, cudaStream_t);

#endif
