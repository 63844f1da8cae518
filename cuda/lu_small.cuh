/*
 * lu_small.cuh -- the register ("team") LU kernel for n <= BSI_LU_TEAM_MAX_N.
 *
 * One system is owned by a team of T consecutive lanes of a warp (T = 1,
 * 2, ..., 32, a compile-time function of the instantiated order N): lane l
 * of the team holds rows l, l+T, l+2T, ... of the matrix, all N columns, in
 * registers (S = ceil(N/T) slots).  T = 1 is the classic thread-per-matrix
 * kernel (n <= 8).  Beyond, T grows with N so that a lane holds at most 48
 * doubles (64 floats) of the matrix: more spills (-Xptxas -v).  Every loop over rows,
 * columns and steps is unrolled with compile-time bounds, so register
 * arrays are indexed only by constants; the data-dependent pivot row and
 * column are handled with select chains (no divergence), and cross-lane
 * traffic inside a team (pivot search, pivot-row broadcast, row swaps) uses
 * shuffles of width T.
 *
 * N is a compile-time bucket; the run-time order n <= N is padded to N with
 * the identity in registers (never read from or written to memory), which
 * keeps the number of instantiations small.  Padded rows and columns are
 * excluded from the pivot searches, so pivots and info are those of the
 * n x n system.
 *
 * Memory: INTERLEAVED data are loaded and stored directly (lane k reads
 * A[(i + j*n)*ld + k]: a warp instruction covers 32/T consecutive systems
 * of T rows), every load of the matrix issued before the first use.
 * Column-major and row-major data go through a per-warp shared memory tile: the warp reads whole lines (columns, or rows for row-major)
 * of its systems with consecutive lanes on consecutive addresses, then each
 * lane picks its entries from the tile.  No uncoalesced per-thread gather,
 * but with a list of systems (the masked calls, common.cuh), whose warps'
 * systems are not consecutive: there each lane reads and writes its own
 * system's entries directly.
 */
#ifndef BSI_LU_SMALL_CUH
#define BSI_LU_SMALL_CUH

#include <float.h>
#include "common.cuh"
#include "lu_dispatch.cuh"

#define BSI_WARPS 4        /* warps per block of the team kernel */
#define BSI_TILE 1024      /* elements of the per-warp staging tile */

template <typename R> struct bsi_lim;
template <> struct bsi_lim<double> {
    static __device__ __forceinline__ double maxv() { return DBL_MAX; }
    static __device__ __forceinline__ double minnorm() { return DBL_MIN; }
    static __device__ __forceinline__ double up() { return 18446744073709551616.0; } /* 2^64 */
    static __device__ __forceinline__ double nan() { return __longlong_as_double(0x7ff8000000000000LL); }
};
template <> struct bsi_lim<float> {
    static __device__ __forceinline__ float maxv() { return FLT_MAX; }
    static __device__ __forceinline__ float minnorm() { return FLT_MIN; }
    static __device__ __forceinline__ float up() { return 4294967296.0f; } /* 2^32 */
    static __device__ __forceinline__ float nan() { return __int_as_float(0x7fc00000); }
};

template <int T, typename V> __device__ __forceinline__ V bsi_shfl(V v, int src)
{
    if constexpr (T == 1) return v;
    else return __shfl_sync(0xffffffffu, v, src, T);
}
template <int T, typename V> __device__ __forceinline__ V bsi_shfl_xor(V v, int m)
{
    if constexpr (T == 1) return v;
    else return __shfl_xor_sync(0xffffffffu, v, m, T);
}

/* Exchanges entries k and p >= k of a column spread over the team (entry r
 * in register slot r / T of lane r % T; at(s) is slot s of this lane's
 * part, l this lane; k a compile-time constant where this is inlined, so
 * that its slot is a register).  Two shuffles whatever the lanes; returns
 * the new entry k (the old entry p). */
template <int T, int S, typename R, typename AT>
__device__ __forceinline__ R bsi_team_swap(AT at, int k, int p, int l)
{
    const int sk = k / T, ok = k % T, sp = p / T, op = p & (T - 1);
    const R vk = bsi_shfl<T>(at(sk), ok);
    R mine = at(sk);
#pragma unroll
    for (int s = sk + 1; s < S; s++) mine = (s == sp) ? at(s) : mine;
    const R vp = bsi_shfl<T>(mine, op);
    if (T == 1 || l == ok) at(sk) = vp;
#pragma unroll
    for (int s = sk; s < S; s++)
        if (T == 1 || l == op) at(s) = (s == sp) ? vk : at(s);
    return vp;
}

/* Quotient e / n for small e (< 2^16) and 1 <= n <= 128, without an integer
 * division: exact because the float error is far below 0.5/n. */
__device__ __forceinline__ int bsi_div(int e, float inv_n) { return (int)((e + 0.5f) * inv_n); }

/* ---- per-warp staging of lines (non-interleaved layouts) ------------------
 * A "line" of system k is m entries base[k*ks + e*es + line*ls], e < m
 * (contiguous when es == 1: a column of a column-major matrix, a row of a
 * row-major one).  stage_in copies lines l0..l0+nl-1 (nl <= GL) of the
 * warp's wcnt systems into tile[(g*SW + sw)*NP + e]; consecutive lanes read
 * consecutive entries, and every load of a round is issued before the first
 * shared-memory store (GL*Q loads in flight per lane). */
template <int SW, int N> struct bsi_stage_q { static constexpr int Q = (SW * N + 31) / 32; };

template <typename R, int SW, int NP, int N, int GL>
__device__ __forceinline__ void bsi_stage_in(R *tile, const R *base, int64_t ks, int64_t es, int64_t ls,
                                             int l0, int nl, int m, float inv_m, int wcnt, int lane)
{
    constexpr int Q = bsi_stage_q<SW, N>::Q;
    const int tot = wcnt * m;
    R v[GL][Q];
    int so[Q];
#pragma unroll
    for (int q = 0; q < Q; q++) {
        const int idx = lane + 32 * q;
        const int sw = bsi_div(idx, inv_m), e = idx - sw * m;
        so[q] = idx < tot ? (sw * NP + e) : -1;
#pragma unroll
        for (int g = 0; g < GL; g++)
            v[g][q] = (idx < tot && g < nl) ? base[sw * ks + e * es + (int64_t)(l0 + g) * ls] : R(0);
    }
    __syncwarp();
#pragma unroll
    for (int q = 0; q < Q; q++)
#pragma unroll
        for (int g = 0; g < GL; g++)
            if (so[q] >= 0 && g < nl) tile[g * SW * NP + so[q]] = v[g][q];
    __syncwarp();
}

template <typename R, int SW, int NP>
__device__ __forceinline__ void bsi_stage_out(const R *tile, R *base, int64_t ks, int64_t es, int64_t ls, int l0,
                                              int nl, int m, float inv_m, int wcnt, int lane)
{
    __syncwarp();
    const int tot = wcnt * m;
    for (int g = 0; g < nl; g++) {
        R *bl = base + (int64_t)(l0 + g) * ls;
        for (int idx = lane; idx < tot; idx += 32) {
            const int sw = bsi_div(idx, inv_m), e = idx - sw * m;
            bl[sw * ks + e * es] = tile[(g * SW + sw) * NP + e];
        }
    }
    __syncwarp();
}

/* ---- the kernel ----------------------------------------------------------- */
/* Minimum resident blocks per SM handed to ptxas: 3 (<= 168 registers, 12
 * warps per SM instead of 8) where -Xptxas -v shows that it costs no spills:
 * FP64 buckets 12..16 (T = 4, 8).  Elsewhere the register cap would spill. */
__host__ __device__ constexpr int bsi_minblocks(int N, int es) { return es == 8 && N >= 12 && N <= 16 ? 3 : 1; }

template <typename R, int N, int T, int OP, bool LIST>
__global__ void __launch_bounds__(BSI_WARPS * 32, bsi_minblocks(N, sizeof(R))) bsi_k_small(const bsi_lu_args<R> a)
{
    constexpr int S = (N + T - 1) / T; /* register slots (rows) per lane */
    constexpr int SW = 32 / T;         /* systems per warp */
    constexpr int NP = N + (N % 2 == 0 ? 1 : 0);
    constexpr int G0 = BSI_TILE / (SW * NP) > 0 ? BSI_TILE / (SW * NP) : 1; /* lines the tile holds */
    constexpr int QL = bsi_stage_q<SW, N>::Q;
    constexpr int G = G0 < (16 / QL > 0 ? 16 / QL : 1) ? G0 : (16 / QL > 0 ? 16 / QL : 1); /* lines per round */
    constexpr int NPK = (N + 3) / 4;   /* packed byte pivots */
    extern __shared__ unsigned char bsi_smem_raw[];

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int l = lane & (T - 1), team = lane / T;
    const int64_t wsys0 = ((int64_t)blockIdx.x * BSI_WARPS + warp) * SW; /* logical systems (common.cuh) */
    const int64_t count = bsi_lu_count<LIST>(a);
    if (wsys0 >= count) return; /* whole warp: no shuffle partner left behind */
    const int wcnt = (int)min((int64_t)SW, count - wsys0);
    const bool valid = team < wcnt;
    /* with a list of systems, every lane reads and writes its own system's
     * entries: the staging through the tile below takes the warp's systems
     * as consecutive */
    const int64_t sys = LIST ? (valid ? bsi_lu_sys<LIST>(a, wsys0 + team) : 0) : wsys0 + team;
    const int n = a.n, pivot = a.pivot;
    const float inv_n = 1.0f / (float)n;
    R *tile = reinterpret_cast<R *>(bsi_smem_raw) + warp * BSI_TILE;

    R m[S][N];
#pragma unroll
    for (int s = 0; s < S; s++)
#pragma unroll
        for (int j = 0; j < N; j++) m[s][j] = (l + s * T == j) ? R(1) : R(0);

    bool bad = false; /* a non-finite entry seen by this lane */
    int pinfo = 0;    /* first zero pivot (1-based) */
    uint32_t tm = 0;  /* bit s: the pivot of slot s is subnormal; its stored reciprocal is 1/(d*up) */
    uint32_t pk[NPK], qk[NPK];
#pragma unroll
    for (int t = 0; t < NPK; t++) pk[t] = qk[t] = 0;

    /* ---- load the matrix: A (gesv, getrf) or the factors (getrs) ---- */
    {
        const R *src;
        int64_t ks, is, js;
        int rowlines;
        if (OP == BSI_OP_GETRS) {
            src = a.F; ks = 1; is = a.fld; js = (int64_t)n * a.fld; rowlines = 0;
        } else {
            src = a.A; ks = a.va.ks; is = a.va.is; js = a.va.js; rowlines = (js == 1 && is != 1);
        }
        /* direct, every load in flight at once */
        auto direct = [&](const R *p) {
#pragma unroll
            for (int j = 0; j < N; j++)
#pragma unroll
                for (int s = 0; s < S; s++) {
                    const int r = l + s * T;
                    if (valid && r < n && j < n) m[s][j] = p[r * is + j * js];
                }
        };
        if (ks == 1) { /* interleaved */
            direct(src + sys);
        } else if (LIST) { /* the lane's own system, wherever it is */
            direct(src + sys * ks);
        } else if (!rowlines) { /* column lines */
            const R *base = src + wsys0 * ks;
#pragma unroll
            for (int j0 = 0; j0 < N; j0 += G) {
                if (j0 < n) {
                    bsi_stage_in<R, SW, NP, N, G>(tile, base, ks, is, js, j0, min(G, n - j0), n, inv_n, wcnt, lane);
#pragma unroll
                    for (int g = 0; g < G; g++) {
                        const int j = j0 + g;
                        if (j < N && j < n)
#pragma unroll
                            for (int s = 0; s < S; s++) {
                                const int r = l + s * T;
                                if (valid && r < n) m[s][j < N ? j : 0] = tile[(g * SW + team) * NP + r];
                            }
                    }
                }
            }
        } else { /* row lines (row-major input): row i goes to its owner lane */
            const R *base = src + wsys0 * ks;
#pragma unroll
            for (int i0 = 0; i0 < N; i0 += G) {
                if (i0 < n) {
                    bsi_stage_in<R, SW, NP, N, G>(tile, base, ks, js, is, i0, min(G, n - i0), n, inv_n, wcnt, lane);
#pragma unroll
                    for (int g = 0; g < G; g++) {
                        const int i = i0 + g;
                        if (i < N && i < n && valid && l == i % T)
#pragma unroll
                            for (int j = 0; j < N; j++)
                                if (j < n) m[(i < N ? i : 0) / T][j] = tile[(g * SW + team) * NP + j];
                    }
                }
            }
        }
        if (OP != BSI_OP_GETRS) {
#pragma unroll
            for (int s = 0; s < S; s++)
#pragma unroll
                for (int j = 0; j < N; j++) bad |= !(fabs(m[s][j]) <= bsi_lim<R>::maxv());
        }
    }

    if (OP == BSI_OP_GETRS) {
        /* pivots, factor info, and reciprocal pivots on the diagonal */
        if (valid) pinfo = a.finfo[sys];
#pragma unroll
        for (int k = 0; k < N; k++) {
            const bool ld = valid && k < n;
            const uint32_t pv = (ld && pivot != BSOLVE_PIVOT_NONE) ? a.rp[k * a.fld + sys] : (uint32_t)k;
            const uint32_t qv = (ld && pivot == BSOLVE_PIVOT_FULL) ? a.cp[k * a.fld + sys] : (uint32_t)k;
            pk[k / 4] |= pv << (8 * (k % 4));
            qk[k / 4] |= qv << (8 * (k % 4));
        }
#pragma unroll
        for (int s = 0; s < S; s++) {
            R d = R(1);
#pragma unroll
            for (int t = 0; t < T; t++)
                if (s * T + t < N) d = (l == t) ? m[s][s * T + t < N ? s * T + t : 0] : d;
            const bool tiny = fabs(d) < bsi_lim<R>::minnorm() && d != R(0);
            const R rinv = R(1) / (d == R(0) ? R(1) : (tiny ? d * bsi_lim<R>::up() : d));
            tm |= (uint32_t)tiny << s;
#pragma unroll
            for (int t = 0; t < T; t++)
                if (s * T + t < N) m[s][s * T + t < N ? s * T + t : 0] = (l == t) ? rinv : m[s][s * T + t < N ? s * T + t : 0];
        }
    } else {
        /* ---- factorization: P A Q = L U, L in LINPACK form ---- */
#pragma unroll
        for (int k = 0; k < N; k++) {
            const int sk = k / T, ok = k % T;
            int p = k, q = k;
            if (pivot == BSOLVE_PIVOT_PARTIAL) {
                R best = R(-1);
                int bi = k;
#pragma unroll
                for (int s = 0; s < S; s++) {
                    if (s * T + T - 1 < k) continue;
                    const int r = l + s * T;
                    const R v = fabs(m[s][k]);
                    const bool take = r >= k && r < n && v > best;
                    best = take ? v : best;
                    bi = take ? r : bi;
                }
#pragma unroll
                for (int off = T / 2; off > 0; off >>= 1) {
                    const R ob = bsi_shfl_xor<T>(best, off);
                    const int oi = bsi_shfl_xor<T>(bi, off);
                    const bool take = ob > best || (ob == best && oi < bi);
                    best = take ? ob : best;
                    bi = take ? oi : bi;
                }
                p = bi;
            } else if (pivot == BSOLVE_PIVOT_FULL) {
                R best = R(-1);
                int bi = k, bj = k;
#pragma unroll
                for (int j = k; j < N; j++)
#pragma unroll
                    for (int s = 0; s < S; s++) {
                        if (s * T + T - 1 < k) continue;
                        const int r = l + s * T;
                        const R v = fabs(m[s][j]);
                        const bool take = r >= k && r < n && j < n && v > best;
                        best = take ? v : best;
                        bi = take ? r : bi;
                        bj = take ? j : bj;
                    }
#pragma unroll
                for (int off = T / 2; off > 0; off >>= 1) {
                    const R ob = bsi_shfl_xor<T>(best, off);
                    const int oi = bsi_shfl_xor<T>(bi, off), oj = bsi_shfl_xor<T>(bj, off);
                    const bool take = ob > best || (ob == best && (oj < bj || (oj == bj && oi < bi)));
                    best = take ? ob : best;
                    bi = take ? oi : bi;
                    bj = take ? oj : bj;
                }
                p = bi;
                q = bj;
                /* column interchange k <-> q over every row (dgetc2 swaps whole columns) */
#pragma unroll
                for (int s = 0; s < S; s++) {
                    const R tk = m[s][k];
                    R nk = tk;
#pragma unroll
                    for (int j = k + 1; j < N; j++) {
                        const bool c = j == q;
                        nk = c ? m[s][j] : nk;
                        m[s][j] = c ? tk : m[s][j];
                    }
                    m[s][k] = nk;
                }
                qk[k / 4] |= (uint32_t)q << (8 * (k % 4));
            }
            if (pivot != BSOLVE_PIVOT_FULL) qk[k / 4] |= (uint32_t)k << (8 * (k % 4));
            pk[k / 4] |= (uint32_t)p << (8 * (k % 4));
            if (OP == BSI_OP_GETRF && valid && l == 0 && k < n) {
                a.rp[k * a.fld + sys] = (uint8_t)p;
                a.cp[k * a.fld + sys] = (uint8_t)q;
            }
            /* Row interchange k <-> p over columns k..N-1 (LINPACK form).
             * (Fusing it with the update below, reusing the exchanged
             * pivot-row value as the broadcast, was measured slower: the
             * separate loops issue all shuffles of a step back to back.) */
            if (pivot != BSOLVE_PIVOT_NONE)
#pragma unroll
                for (int j = k; j < N; j++) bsi_team_swap<T, S, R>([&](int s) -> R & { return m[s][j]; }, k, p, l);
            /* pivot, reciprocal, multipliers, rank-1 update */
            const R d = bsi_shfl<T>(m[sk][k], ok);
            const bool z = d == R(0);
            pinfo = (z && pinfo == 0 && k < n) ? k + 1 : pinfo;
            /* a subnormal pivot: 1/d overflows; scale it (and the entries) up
             * by 2^64 (2^32) first, exactly, instead of dividing (dgetf2
             * divides below sfmin) */
            const bool tiny = fabs(d) < bsi_lim<R>::minnorm() && !z;
            const R sc = tiny ? bsi_lim<R>::up() : R(1);
            const R rinv = R(1) / (z ? R(1) : d * sc);
            R lm[S];
#pragma unroll
            for (int s = 0; s < S; s++) {
                if (s * T + T - 1 <= k) continue;
                const bool below = (s * T > k) || (l + s * T > k);
                lm[s] = below ? (m[s][k] * sc) * rinv : R(0);
                m[s][k] = below ? lm[s] : m[s][k];
            }
#pragma unroll
            for (int j = k + 1; j < N; j++) {
                const R u = bsi_shfl<T>(m[sk][j], ok);
#pragma unroll
                for (int s = 0; s < S; s++) {
                    if (s * T + T - 1 <= k) continue;
                    if (s * T > k) m[s][j] = fma(-lm[s], u, m[s][j]);
                    else m[s][j] = (l + s * T > k) ? fma(-lm[s], u, m[s][j]) : m[s][j];
                }
            }
            if (OP == BSI_OP_GESV) /* the solve multiplies by the reciprocal pivot (divides by a tiny one) */
                if (T == 1 || l == ok) {
                    m[sk][k] = rinv;
                    tm |= (uint32_t)tiny << sk;
                }
        }
    }

    /* team-wide verdict on A */
#pragma unroll
    for (int off = T / 2; off > 0; off >>= 1) bad |= bsi_shfl_xor<T>((int)bad, off) != 0;

    if (OP == BSI_OP_GETRF) {
        const int v = bad ? BSOLVE_INFO_NONFINITE : pinfo;
        if (valid && l == 0) {
            a.info[sys] = v;
            a.finfo[sys] = v;
        }
        /* store the factors, interleaved: direct */
        {
            R *p = a.F + sys;
#pragma unroll
            for (int j = 0; j < N; j++)
#pragma unroll
                for (int s = 0; s < S; s++) {
                    const int r = l + s * T;
                    if (valid && r < n && j < n) p[(int64_t)(r + j * n) * a.fld] = m[s][j];
                }
        }
        return;
    }

    /* ---- solve, one right-hand side at a time ---- */
    const int64_t ks = a.vb.ks, is = a.vb.is, js = a.vb.js;
    const bool bdirect = ks == 1 || LIST;
    const int64_t bsys = LIST ? sys * ks : sys; /* bdirect: this system's b, column 0 */
    int badb = 0;      /* a non-finite entry in B seen so far (team-uniform) */
    int firstbad = -1; /* column in which it was found */
    int finfo = OP == BSI_OP_GESV ? (bad ? BSOLVE_INFO_NONFINITE : pinfo) : pinfo;
    for (int c = 0; c < a.nrhs; c++) {
        R b[S];
#pragma unroll
        for (int s = 0; s < S; s++) b[s] = R(0);
        if (bdirect) {
            const R *p = a.B + bsys + c * js;
#pragma unroll
            for (int s = 0; s < S; s++) {
                const int r = l + s * T;
                if (valid && r < n) b[s] = p[r * is];
            }
        } else {
            bsi_stage_in<R, SW, NP, N, 1>(tile, a.B + wsys0 * ks + c * js, ks, is, 0, 0, 1, n, inv_n, wcnt, lane);
#pragma unroll
            for (int s = 0; s < S; s++) {
                const int r = l + s * T;
                if (valid && r < n) b[s] = tile[team * NP + r];
            }
        }
        int nb = 0;
#pragma unroll
        for (int s = 0; s < S; s++) nb |= !(fabs(b[s]) <= bsi_lim<R>::maxv());
#pragma unroll
        for (int off = T / 2; off > 0; off >>= 1) nb |= bsi_shfl_xor<T>(nb, off);
        if (nb && !badb) firstbad = c;
        badb |= nb;
        /* forward: interchange k, then eliminate with column k of L */
#pragma unroll
        for (int k = 0; k < N; k++) {
            const int sk = k / T, ok = k % T;
            R x;
            if (pivot != BSOLVE_PIVOT_NONE) {
                const int p = (pk[k / 4] >> (8 * (k % 4))) & 0xff;
                x = bsi_team_swap<T, S, R>([&](int s) -> R & { return b[s]; }, k, p, l);
            } else {
                x = bsi_shfl<T>(b[sk], ok);
            }
#pragma unroll
            for (int s = 0; s < S; s++) {
                if (s * T + T - 1 <= k) continue;
                if (s * T > k) b[s] = fma(-m[s][k], x, b[s]);
                else b[s] = (l + s * T > k) ? fma(-m[s][k], x, b[s]) : b[s];
            }
        }
        /* backward: x_i = (b_i - sum U_ij x_j) / U_ii, the diagonal holds 1/U_ii */
#pragma unroll
        for (int i = N - 1; i >= 0; i--) {
            const int si = i / T, oi = i % T;
            const R xi = bsi_shfl<T>((b[si] * ((tm >> si) & 1u ? bsi_lim<R>::up() : R(1))) * m[si][i], oi);
            if (T == 1 || l == oi) b[si] = xi;
#pragma unroll
            for (int s = 0; s < S; s++) {
                if (s * T >= i) continue;
                if (s * T + T - 1 < i) b[s] = fma(-m[s][i], xi, b[s]);
                else b[s] = (l + s * T < i) ? fma(-m[s][i], xi, b[s]) : b[s];
            }
        }
        /* x <- Q x */
        if (pivot == BSOLVE_PIVOT_FULL) {
#pragma unroll
            for (int k = N - 1; k >= 0; k--) {
                const int p = (qk[k / 4] >> (8 * (k % 4))) & 0xff;
                bsi_team_swap<T, S, R>([&](int s) -> R & { return b[s]; }, k, p, l);
            }
        }
        if (finfo != 0 || badb) {
#pragma unroll
            for (int s = 0; s < S; s++) b[s] = bsi_lim<R>::nan();
        }
        if (bdirect) {
            R *p = a.B + bsys + c * js;
#pragma unroll
            for (int s = 0; s < S; s++) {
                const int r = l + s * T;
                if (valid && r < n) p[r * is] = b[s];
            }
        } else {
            __syncwarp();
#pragma unroll
            for (int s = 0; s < S; s++) {
                const int r = l + s * T;
                if (valid && r < n) tile[team * NP + r] = b[s];
            }
            bsi_stage_out<R, SW, NP>(tile, a.B + wsys0 * ks + c * js, ks, is, 0, 0, 1, n, inv_n, wcnt, lane);
        }
    }
    /* a non-finite B found after good columns were stored: NaN them too (rare) */
    if (valid && finfo == 0 && firstbad > 0) {
        for (int c = 0; c < firstbad; c++)
#pragma unroll
            for (int s = 0; s < S; s++) {
                const int r = l + s * T;
                if (r < n) a.B[sys * ks + r * is + c * js] = bsi_lim<R>::nan();
            }
    }
    if (a.info && valid && l == 0) a.info[sys] = badb ? BSOLVE_INFO_NONFINITE : finfo;
}

/* Launch of bucket N with team size T. */
template <typename R, int N, int T>
cudaError_t bsi_launch_small_nt(int op, const bsi_lu_args<R> &a, cudaStream_t st)
{
    constexpr int SW = 32 / T;
    const int64_t per_block = (int64_t)BSI_WARPS * SW;
    const int64_t blocks = (a.count + per_block - 1) / per_block;
    const bool need_tile = (op != BSI_OP_GETRF && a.vb.ks != 1) || (op != BSI_OP_GETRS && a.va.ks != 1);
    const size_t smem = need_tile ? (size_t)BSI_WARPS * BSI_TILE * sizeof(R) : 0;
    if (blocks > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
    const dim3 g((unsigned)blocks), b(BSI_WARPS * 32);
    switch (op) {
    case BSI_OP_GESV: bsi_k_small<R, N, T, BSI_OP_GESV, false><<<g, b, smem, st>>>(a); break;
    case BSI_OP_GETRF:
        if (a.nsel) bsi_k_small<R, N, T, BSI_OP_GETRF, true><<<g, b, smem, st>>>(a);
        else bsi_k_small<R, N, T, BSI_OP_GETRF, false><<<g, b, smem, st>>>(a);
        break;
    default:
        if (a.nsel) bsi_k_small<R, N, T, BSI_OP_GETRS, true><<<g, b, smem, st>>>(a);
        else bsi_k_small<R, N, T, BSI_OP_GETRS, false><<<g, b, smem, st>>>(a);
        break;
    }
    return cudaGetLastError();
}

/* Instantiates the launch of bucket N for precision R (the team size of
 * lu_dispatch.cuh's table). */
template <typename R, int N>
cudaError_t bsi_launch_small_n(int op, const bsi_lu_args<R> &a, cudaStream_t st)
{
    return bsi_launch_small_nt<R, N, bsi_lu_team(N, sizeof(R))>(op, a, st);
}

#define BSI_SMALL_INSTANTIATE(R, N) \
    template cudaError_t bsi_launch_small_n<R, N>(int, const bsi_lu_args<R> &, cudaStream_t);

#endif
