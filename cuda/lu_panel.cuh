/*
 * lu_panel.cuh -- blocked right-looking LU for 33 <= n <= 128 (gesv with one
 * right-hand side, and getrf; PARTIAL and NONE pivoting; lu_dispatch.cuh's
 * table says for which n): LAPACK's getrf as getf2 + laswp + trsm + gemm on
 * panels of eight columns, one block per system, the matrix in shared
 * memory.
 *
 * Why: the kernels that eliminate a column per step over the whole trailing
 * matrix (lu_tile.cuh, lu_large.cu) spend ten instructions of search,
 * broadcast and bookkeeping per FMA at these sizes, and a barrier per
 * column.  Here the per-column work is confined to an n x 8 panel, factored
 * by one warp in registers (rows per lane and slot: the pivot search as
 * warp reductions, the interchange and the rank-1 update without a
 * barrier); the rest of the matrix is touched once per panel, by all warps:
 * the panel's interchanges and the triangular solve for U's block row (a
 * thread per column), then the trailing update A22 -= L21 U12 as 8 x 8
 * tiles, each a pair of FP64 tensor-core products (mma.m8n8k4, sm_80 on) or
 * the same arithmetic on the FMA pipes (FP32, and FP64 before sm_80).
 * Three barriers per eight columns instead of one or more per column, and
 * a lookahead: the next panel's tile column is updated first, then warp 0
 * factors that panel while the other warps finish the update.
 *
 * Shared memory holds A column-major with leading dimension nn + 4 (nn = n
 * rounded up to whole tiles, the padding zero): eight-byte fragment loads
 * of four columns by a half-warp then fall into distinct banks (the leading
 * dimension times 8 is 32 or 96 mod 128).  gesv keeps b as column nn and
 * the panel warp carries it as a ninth panel column, so the forward
 * substitution (interchanges and L's multipliers) is done with the
 * factorization; the back substitution runs in one warp from U.
 *
 * Numerics: pivots as in lu_large.cu (largest |a|, ties to the lowest row,
 * NaN below every number), the same reciprocal and tiny-pivot scaling of
 * the multipliers.  In the panel the interchanges are logical (a row keeps
 * its lane and slot and knows its position); the panel's rows go back to
 * shared memory at their final positions, so that L11 and L21 are in the
 * panel's final row order (LAPACK's getf2), as the blocked update needs;
 * getrf's output is brought back to LINPACK form
 * (common.cuh's factor storage: a column of L in the row order of its own
 * step) column by column.  The trailing update sums the eight products of a
 * panel in the tensor core's order rather than one step at a time, so the
 * factors agree with the other kernels' to rounding, not bit for bit.
 */
#ifndef BSI_LU_PANEL_CUH
#define BSI_LU_PANEL_CUH

#include "lu_warp.cuh" /* bsw_lim */

/* Shape of bucket N (the largest n it takes; the kernel works on nn = n
 * rounded up to whole tiles): NW warps per block, RT panel rows per lane;
 * shared memory for nn: A and b (column nn) with leading dimension
 * bsp_ld(nn), reciprocal pivots, tiny flags, pivot rows. */
template <int N> struct bsp_shape {
    static constexpr int RT = (N + 31) / 32;   /* panel rows per lane */
    static constexpr int NW = N <= 64 ? 2 : 4; /* warps per block */
    static constexpr int NT = 32 * NW;
    /* blocks per SM the registers must allow, about what the shared memory
     * allows at the bucket's orders (FP64 n = 64: 36 KB, n = 80: 54 KB),
     * with registers enough for the panel not to spill (128 spilled at
     * N = 64 and 96) */
    static constexpr int MINB = N == 64 ? 6 : N == 96 ? 3 : 2;
    static_assert(N % 32 == 0 && N <= 128, "bucket");
};
__host__ __device__ constexpr int bsp_ld(int nn) { return nn + 4; }
template <typename R> constexpr size_t bsp_smem(int nn) { return (size_t)(nn + 1) * bsp_ld(nn) * sizeof(R) + nn * sizeof(R) + 2 * nn; }

/* C -= A B for one 8 x 8 tile in the fragments of mma.m8n8k4 (FP64): lane
 * holds a = A[lane / 4][lane % 4], b = B[lane % 4][lane / 4] and c[i] =
 * C[lane / 4][2 (lane % 4) + i].  Off the tensor cores (FP32, FP64 before
 * sm_80) each lane gathers its row of A and its columns of B by shuffles. */
template <typename R> __device__ __forceinline__ void bsp_mma(R &c0, R &c1, R a, R b)
{
    const int lane = threadIdx.x & 31, r4 = lane & ~3, c2 = 8 * (lane & 3);
#pragma unroll
    for (int m = 0; m < 4; m++) {
        const R am = __shfl_sync(0xffffffffu, a, r4 | m);
        c0 = fma(-am, __shfl_sync(0xffffffffu, b, c2 | m), c0);
        c1 = fma(-am, __shfl_sync(0xffffffffu, b, (c2 + 4) | m), c1);
    }
}
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
template <> __device__ __forceinline__ void bsp_mma<double>(double &c0, double &c1, double a, double b)
{
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
        : "+d"(c0), "+d"(c1)
        : "d"(-a), "d"(b));
}
#endif

/* 1 / x for the panel's pivot candidates, x normal and within 2^+-1020 or
 * not: the division's fast path (the reciprocal estimate and two Newton
 * steps) as straight-line code, so that it overlaps the warp's pivot
 * reduction; x outside that range (huge, infinite, NaN: never a scaled
 * subnormal pivot) is done again by the division itself after the
 * reduction (bsp_rcp_fix). */
template <typename R> __device__ __forceinline__ R bsp_rcp(R x) { return R(1) / x; }
template <typename R> __device__ __forceinline__ R bsp_rcp_fix(R x, R r) { return r; }
template <> __device__ __forceinline__ double bsp_rcp<double>(double x)
{
    double r;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
    double t = fma(-x, r, 1.0);
    t = fma(t, t, t);
    t = fma(r, t, r);
    return fma(t, fma(-x, t, 1.0), t);
}
template <> __device__ __forceinline__ double bsp_rcp_fix<double>(double x, double r)
{
    return fabs(x) >= 0x1p-1020 && fabs(x) <= 0x1p1020 ? r : 1.0 / x;
}

/* Rank of a pivot candidate as an unsigned integer: |a|'s bits (ordered as
 * the values for non-negative doubles and floats) + 2; NaN 1, below every
 * number; 0 is left for rows that are not candidates. */
__device__ __forceinline__ unsigned long long bsp_rank(double v)
{
    return v == v ? ((unsigned long long)__double_as_longlong(v) & 0x7fffffffffffffffULL) + 2 : 1;
}
__device__ __forceinline__ unsigned long long bsp_rank(float v)
{
    return v == v ? (unsigned long long)((unsigned)__float_as_int(v) & 0x7fffffffu) + 2 : 1;
}

/* The warp's pivot row: the largest rank, ties to the lowest row; every lane
 * gets it.  From sm_80 three warp reductions (redux.sync: the high and low
 * words of the rank, then the row among the lanes that hold the maximum),
 * before it a shuffle butterfly. */
__device__ __forceinline__ int bsp_argmax(unsigned long long best, int row)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned hi = (unsigned)(best >> 32), lo = (unsigned)best;
    const unsigned mhi = __reduce_max_sync(0xffffffffu, hi);
    const unsigned mlo = __reduce_max_sync(0xffffffffu, hi == mhi ? lo : 0u);
    return (int)__reduce_min_sync(0xffffffffu, (hi == mhi && lo == mlo) ? (unsigned)row : 0xffffffffu);
#else
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        const unsigned long long ob = __shfl_xor_sync(0xffffffffu, best, off);
        const int orow = __shfl_xor_sync(0xffffffffu, row, off);
        const bool take = (ob > best) | ((ob == best) & (orow < row));
        best = take ? ob : best;
        row = take ? orow : row;
    }
    return row;
#endif
}

/* Panel k0 .. k0 + 7 (and b, column nn, for gesv) factored by one warp:
 * rows k0 + lane + 32 t in P[t].  Interchanges are logical: a row stays in
 * its lane and slot, pos[t] is its position in the interchanged order, and
 * the rows are written back to shared memory at their final positions once,
 * after the panel, so that L11 and L21 come out in the panel's final row
 * order (LAPACK's getf2; the trailing update needs them so) without an
 * exchange per step and column.  A step: each lane's best candidate (largest
 * |a|, ties to the lowest position, as the physical order would give) and
 * its reciprocal, computed while the warp reduces; the row holding the
 * pivot writes its columns from the step's on and the reciprocal to ub (two
 * buffers by the step's parity, so one __syncwarp per step suffices); every
 * lane reads them back (broadcast loads), forms its multipliers and
 * updates.  The pivot rows to rp (positions, LAPACK's ipiv), reciprocal
 * pivots to rd, tiny flags to tf; pinfo: the first zero pivot's step + 1.
 * The eight steps are free of branches (steps past
 * n do nothing through predicates), so that the compiler can start a step's
 * search while the previous step's other columns are still being updated. */
template <typename R, int N, int OP, int PIV>
__device__ __forceinline__ void bsp_panel(R *S, int k0, int n, int nn, R *rd, uint8_t *tf, uint8_t *rp, R *ub, int &pinfo)
{
    using SH = bsp_shape<N>;
    using L = bsw_lim<R>;
    constexpr int RT = SH::RT, NC = OP == BSI_OP_GESV ? 9 : 8, UR = 15; /* ub[UR]: the reciprocal */
    static_assert(NC < UR, "pivot-row buffer");
    const int lane = threadIdx.x & 31, LD = bsp_ld(nn);
    R P[RT][NC];
    int pos[RT];
    bool done[RT]; /* the row was an earlier step's pivot row */
#pragma unroll
    for (int t = 0; t < RT; t++) {
        const int r = k0 + lane + 32 * t;
        pos[t] = r;
        done[t] = false;
#pragma unroll
        for (int c = 0; c < NC; c++) P[t][c] = r < nn ? S[r + (c < 8 ? k0 + c : nn) * LD] : R(0);
    }
    R my_rd = R(1); /* lane kk keeps step kk's results, stored after the panel */
    int my_p = k0 + lane, my_tf = 0;
#pragma unroll
    for (int kk = 0; kk < 8; kk++) {
        const int k = k0 + kk;
        const bool live = k < n;
        /* rows not yet pivot rows hold positions k and up; positions n and
         * up are the padding, never candidates */
        int p = k;
        R dv = P[0][kk];
        unsigned long long best = 0;
        int bp = 0x7fffffff;
        if (PIV == BSOLVE_PIVOT_PARTIAL) {
#pragma unroll
            for (int t = 0; t < RT; t++) {
                const unsigned long long c = (!done[t] && pos[t] < n) ? bsp_rank(P[t][kk]) : 0ULL;
                const bool take = (c > best) | ((c == best) & (pos[t] < bp));
                best = take ? c : best;
                bp = take ? pos[t] : bp;
                dv = take ? P[t][kk] : dv;
            }
        } else {
#pragma unroll
            for (int t = 1; t < RT; t++) dv = pos[t] == k ? P[t][kk] : dv;
        }
        /* every lane's candidate's reciprocal, started before the
         * reduction so that the two chains overlap (the division's
         * range check and slow path, a branch, had kept them in turn) */
        const bool z = dv == R(0);
        const bool tiny = fabs(dv) < L::minnorm() && !z;
        const R rx = z ? R(1) : dv * (tiny ? L::up() : R(1));
        R rv = bsp_rcp(rx);
        if (PIV == BSOLVE_PIVOT_PARTIAL) {
            const int am = bsp_argmax(best, bp);
            p = live ? am : k;
        }
        rv = bsp_rcp_fix(rx, rv);
        bool mine[RT], any = false;
#pragma unroll
        for (int t = 0; t < RT; t++) {
            mine[t] = !done[t] && pos[t] == p;
            any |= mine[t];
        }
        /* every lane stores, the others to a slot of their own (17 words
         * on: other banks), so that the store needs no branch */
        R *u = ub + (kk & 1) * 48, *dst = any ? u : u + 17;
#pragma unroll
        for (int c = kk; c < NC; c++) {
            R v = P[0][c];
#pragma unroll
            for (int t = 1; t < RT; t++) v = mine[t] ? P[t][c] : v;
            dst[c] = v;
        }
        dst[UR] = rv;
        __syncwarp();
        const R d = u[kk], rinv = u[UR];
        const bool zp = d == R(0);
        const bool tp = fabs(d) < L::minnorm() && !zp;
        const R sc = tp ? L::up() : R(1);
        pinfo = (live && zp && pinfo == 0) ? k + 1 : pinfo;
        my_rd = lane == kk ? rinv : my_rd;
        my_tf = lane == kk ? (int)tp : my_tf;
        my_p = lane == kk ? p : my_p;
        /* multipliers for the rows below the pivot; the others get 0, which
         * leaves them unchanged (the pivot row's entries are finite unless
         * the system has overflowed already) */
        R l[RT];
#pragma unroll
        for (int t = 0; t < RT; t++) {
            const bool below = !done[t] && !mine[t] && pos[t] < n;
            l[t] = below ? (P[t][kk] * sc) * rinv : R(0);
            P[t][kk] = below ? l[t] : P[t][kk];
        }
#pragma unroll
        for (int c = kk + 1; c < NC; c++) {
            const R uc = u[c];
#pragma unroll
            for (int t = 0; t < RT; t++) P[t][c] = fma(-l[t], uc, P[t][c]);
        }
        /* interchange of positions k and p */
#pragma unroll
        for (int t = 0; t < RT; t++) {
            pos[t] = mine[t] ? k : pos[t] == k ? p : pos[t];
            done[t] = done[t] || mine[t];
        }
    }
    if (lane < 8 && k0 + lane < n) {
        rd[k0 + lane] = my_rd;
        tf[k0 + lane] = (uint8_t)my_tf;
        rp[k0 + lane] = (uint8_t)my_p;
    }
#pragma unroll
    for (int t = 0; t < RT; t++) {
        if (k0 + lane + 32 * t < nn)
#pragma unroll
            for (int c = 0; c < NC; c++) S[pos[t] + (c < 8 ? k0 + c : nn) * LD] = P[t][c];
    }
}

/* A22 -= L21 U12 (panel k0) on the 8 x 8 tiles (ti, tj) with tj = tj0,
 * tj0 + tjs, ... < tj1 and ti = ti0, ti0 + tis, ... < tn, by one warp:
 * U12's fragments loaded once per tile column, two tiles in flight. */
template <typename R>
__device__ __forceinline__ void bsp_gemm(R *S, int LD, int k0, int tn, int tj0, int tj1, int tjs, int ti0, int tis)
{
    const int lane = threadIdx.x & 31, r = lane >> 2, q = lane & 3;
    for (int tj = tj0; tj < tj1; tj += tjs) {
        const R b0 = S[(k0 + q) + (tj * 8 + r) * LD], b1 = S[(k0 + 4 + q) + (tj * 8 + r) * LD];
        R *Cc = S + r + (tj * 8 + 2 * q) * LD;
        const R *Ar = S + r + (k0 + q) * LD;
        int ti = ti0;
        for (; ti + tis < tn; ti += 2 * tis) {
            R *C0 = Cc + ti * 8, *C1 = Cc + (ti + tis) * 8;
            const R *A0 = Ar + ti * 8, *A1 = Ar + (ti + tis) * 8;
            R c00 = C0[0], c01 = C0[LD], c10 = C1[0], c11 = C1[LD];
            const R a00 = A0[0], a01 = A0[4 * LD], a10 = A1[0], a11 = A1[4 * LD];
            bsp_mma(c00, c01, a00, b0);
            bsp_mma(c10, c11, a10, b0);
            bsp_mma(c00, c01, a01, b1);
            bsp_mma(c10, c11, a11, b1);
            C0[0] = c00;
            C0[LD] = c01;
            C1[0] = c10;
            C1[LD] = c11;
        }
        if (ti < tn) {
            R *C0 = Cc + ti * 8;
            const R *A0 = Ar + ti * 8;
            R c00 = C0[0], c01 = C0[LD];
            bsp_mma(c00, c01, A0[0], b0);
            bsp_mma(c00, c01, A0[4 * LD], b1);
            C0[0] = c00;
            C0[LD] = c01;
        }
    }
}

template <typename R, int N, int OP, int PIV, bool LIST>
__global__ void __launch_bounds__(bsp_shape<N>::NT, bsp_shape<N>::MINB) bsp_k(const bsi_lu_args<R> a)
{
    using SH = bsp_shape<N>;
    using L = bsw_lim<R>;
    constexpr int NT = SH::NT, NW = SH::NW;
    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
    const int n = a.n, nn = (n + 7) & ~7, LD = bsp_ld(nn); /* nn: rows and columns of whole tiles */
    extern __shared__ __align__(16) unsigned char bsp_sm[];
    R *S = reinterpret_cast<R *>(bsp_sm); /* A, then b as column nn */
    R *rd = S + (nn + 1) * LD;
    uint8_t *tf = reinterpret_cast<uint8_t *>(rd + nn), *rp = tf + nn;
    __shared__ int s_pinfo;
    __shared__ R s_ub[96]; /* the panel's pivot rows, two steps' worth */
    if constexpr (LIST)
        if (blockIdx.x >= bsi_lu_count<LIST>(a)) return; /* the whole block, before any barrier */
    const int64_t sys = bsi_lu_sys<LIST>(a, blockIdx.x);

    /* ---- load (entries of the padding tiles zero): a thread per row (per
     * column for row-major input, so that a warp reads runs), LV loads
     * in flight per thread ---- */
    constexpr int LV = 16;
    int bad = 0, badb = 0;
    {
        const R *src = a.A + sys * a.va.ks;
        const int64_t is = a.va.is, js = a.va.js;
        const bool rowmaj = js == 1 && is != 1;
        const int64_t ls = rowmaj ? is : js; /* stride along a thread's line */
        for (int x = tid; x < nn; x += NT) {
            const R *line = src + (rowmaj ? x : x * is);
            R *sl = S + (rowmaj ? x * LD : x);
            const int ss = rowmaj ? 1 : LD;
            const bool xin = x < n;
            for (int y0 = 0; y0 < nn; y0 += LV) {
                R v[LV];
#pragma unroll
                for (int u = 0; u < LV; u++) {
                    const int y = y0 + u;
                    v[u] = (xin && y < n) ? line[y * ls] : R(0);
                }
#pragma unroll
                for (int u = 0; u < LV; u++) {
                    bad |= !(fabs(v[u]) <= L::maxv());
                    if (y0 + u < nn) sl[(y0 + u) * ss] = v[u];
                }
            }
        }
        if (OP == BSI_OP_GESV) {
            const R *bsrc = a.B + sys * a.vb.ks;
            for (int i = tid; i < nn; i += NT) {
                const R v = i < n ? bsrc[i * a.vb.is] : R(0);
                badb |= !(fabs(v) <= L::maxv());
                S[i + nn * LD] = v;
            }
        }
    }
    bad = __syncthreads_or(bad);
    if (OP == BSI_OP_GESV) badb = __syncthreads_or(badb);

    int pinfo = 0; /* warp 0's */
    if (w == 0) bsp_panel<R, N, OP, PIV>(S, 0, n, nn, rd, tf, rp, s_ub, pinfo);
    __syncthreads();
    for (int k0 = 0; k0 + 8 < n; k0 += 8) {
        const int j0 = k0 + 8;
        /* the panel's interchanges and U12 = L11^-1 A12, a thread per column */
        for (int j = j0 + tid; j < nn; j += NT) {
            R *col = S + j * LD;
            R x[8];
#pragma unroll
            for (int kk = 0; kk < 8; kk++) {
                const int k = k0 + kk;
                if (PIV == BSOLVE_PIVOT_PARTIAL) {
                    const int p = rp[k];
                    const R xp = col[p];
                    x[kk] = xp;
                    if (p != k) col[p] = col[k];
                } else {
                    x[kk] = col[k];
                }
            }
#pragma unroll
            for (int i = 1; i < 8; i++)
#pragma unroll
                for (int m = 0; m < i; m++) x[i] = fma(-S[k0 + i + (k0 + m) * LD], x[m], x[i]);
#pragma unroll
            for (int kk = 0; kk < 8; kk++) col[k0 + kk] = x[kk];
        }
        __syncthreads();
        /* A22 -= L21 U12: first the next panel's tile column, by all warps;
         * then warp 0 factors the next panel while the others update the
         * rest (lookahead: the panel's chain of reductions, the critical
         * path, overlaps the bulk of the update) */
        const int t0 = j0 >> 3, tn = nn >> 3;
        bsp_gemm(S, LD, k0, tn, t0, t0 + 1, 1, t0 + w, NW);
        __syncthreads();
        if (w == 0) bsp_panel<R, N, OP, PIV>(S, j0, n, nn, rd, tf, rp, s_ub, pinfo);
        else bsp_gemm(S, LD, k0, tn, t0 + w, tn, NW - 1, t0, 1);
        __syncthreads();
    }
    if (w == 0 && lane == 0) s_pinfo = pinfo;
    __syncthreads();
    pinfo = s_pinfo;

    if constexpr (OP == BSI_OP_GETRF) {
        const int v = bad ? BSOLVE_INFO_NONFINITE : pinfo;
        if (tid == 0) {
            a.info[sys] = v;
            a.finfo[sys] = v;
        }
        for (int k = tid; k < n; k += NT) {
            a.rp[(int64_t)k * a.fld + sys] = PIV == BSOLVE_PIVOT_PARTIAL ? rp[k] : (uint8_t)k;
            a.cp[(int64_t)k * a.fld + sys] = (uint8_t)k;
        }
        /* L to LINPACK form (common.cuh's storage): a panel column keeps the
         * row order of its own step, so the interchanges of the later steps
         * of its panel are undone on it, a thread per column */
        if (PIV == BSOLVE_PIVOT_PARTIAL) {
            for (int j = tid; j < n; j += NT) {
                const int kend = min((j | 7) + 1, n);
                for (int k = kend - 1; k > j; k--) {
                    const int p = rp[k];
                    if (p != k) {
                        const R t = S[k + j * LD];
                        S[k + j * LD] = S[p + j * LD];
                        S[p + j * LD] = t;
                    }
                }
            }
            __syncthreads();
        }
        R *dst = a.F + sys;
        for (int e = tid; e < n * n; e += NT) {
            const int j = e / n, i = e - j * n;
            dst[(int64_t)e * a.fld] = S[i + j * LD];
        }
    } else {
        /* back substitution in warp 0: rows lane + 32 t of y in registers */
        if (w != 0) return;
        constexpr int BT = SH::RT;
        R bt[BT];
#pragma unroll
        for (int t = 0; t < BT; t++) bt[t] = lane + 32 * t < nn ? S[lane + 32 * t + nn * LD] : R(0);
        /* rows 32 t .. 32 t + 31 in turn (t at compile time: no local memory) */
#pragma unroll
        for (int t = BT - 1; t >= 0; t--)
            for (int i = min(n, 32 * t + 32) - 1; i >= 32 * t; i--) {
                const int il = i & 31;
                const R bi = __shfl_sync(0xffffffffu, bt[t], il);
                const R xi = (bi * (tf[i] ? L::up() : R(1))) * rd[i];
                if (lane == il) bt[t] = xi;
                else if (lane < il) bt[t] = fma(-S[lane + 32 * t + i * LD], xi, bt[t]);
#pragma unroll
                for (int t2 = 0; t2 < t; t2++) bt[t2] = fma(-S[lane + 32 * t2 + i * LD], xi, bt[t2]);
            }
        const int finfo = bad ? BSOLVE_INFO_NONFINITE : pinfo;
        const bool nanfill = finfo != 0 || badb;
        R *B = a.B + sys * a.vb.ks;
#pragma unroll
        for (int t = 0; t < BT; t++) {
            const int r = lane + 32 * t;
            if (r < n) B[r * a.vb.is] = nanfill ? L::nan() : bt[t];
        }
        if (a.info && lane == 0) a.info[sys] = badb ? BSOLVE_INFO_NONFINITE : finfo;
    }
}

template <typename R, int N, int OP, int PIV, bool LIST>
cudaError_t bsp_launch_l(const bsi_lu_args<R> &a, cudaStream_t st)
{
    if (a.count > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
    const size_t smem = bsp_smem<R>((a.n + 7) & ~7);
    if (!bsi_smem_optin(bsp_k<R, N, OP, PIV, LIST>, smem)) {
        /* beyond this device's shared memory per block: the block kernel
         * takes the call */
        return bsi_launch_large<R>(OP, a, st);
    }
    bsp_k<R, N, OP, PIV, LIST><<<(unsigned)a.count, bsp_shape<N>::NT, smem, st>>>(a);
    return cudaGetLastError();
}

template <typename R, int N, int OP, int PIV> cudaError_t bsp_launch_t(const bsi_lu_args<R> &a, cudaStream_t st)
{
    if constexpr (OP != BSI_OP_GESV)
        if (a.nsel) return bsp_launch_l<R, N, OP, PIV, true>(a, st);
    return bsp_launch_l<R, N, OP, PIV, false>(a, st);
}

/* Launch of bucket N (gesv with nrhs == 1, or getrf; PARTIAL or NONE). */
template <typename R, int N> cudaError_t bsp_launch_n(int op, const bsi_lu_args<R> &a, cudaStream_t st)
{
    const bool piv = a.pivot == BSOLVE_PIVOT_PARTIAL;
    if (op == BSI_OP_GESV)
        return piv ? bsp_launch_t<R, N, BSI_OP_GESV, BSOLVE_PIVOT_PARTIAL>(a, st)
                   : bsp_launch_t<R, N, BSI_OP_GESV, BSOLVE_PIVOT_NONE>(a, st);
    return piv ? bsp_launch_t<R, N, BSI_OP_GETRF, BSOLVE_PIVOT_PARTIAL>(a, st)
               : bsp_launch_t<R, N, BSI_OP_GETRF, BSOLVE_PIVOT_NONE>(a, st);
}

#define BSP_BUCKETS(X, R) X(R, 64) X(R, 96) X(R, 128)
#define BSP_EXTERN(R, N) extern template cudaError_t bsp_launch_n<R, N>(int, const bsi_lu_args<R> &, cudaStream_t);
#define BSP_INSTANTIATE(R, N) template cudaError_t bsp_launch_n<R, N>(int, const bsi_lu_args<R> &, cudaStream_t);

#endif
