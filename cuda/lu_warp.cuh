/*
 * lu_warp.cuh -- row-per-lane LU kernel (gesv with one right-hand side, and
 * getrf; lu_dispatch.cuh's table says for which n), after MAGMA's register
 * "smallsq" kernels.
 *
 * A team of T lanes owns one system; lane l holds row l of the matrix (and
 * for gesv the right-hand side as column N) in registers, all columns at
 * compile-time indices.  T = 16 (two systems per warp) or 32 for n <= 32;
 * beyond, the team is the whole block (W = T/32 warps, one system per
 * block), since a second row per lane would not fit in registers.
 *
 * Row interchanges are logical: a lane never moves its row, it remembers
 * the row's current position `pos` (LAPACK's row order after the
 * interchanges so far).  Step k: pivot search over the lanes whose pos >= k
 * (ties to the lowest position, as idamax), the pivot lane takes pos = k and
 * the lane at position k takes the pivot's old position; the pivot row is
 * broadcast through shared memory (one 16-byte store per two doubles by the
 * pivot lane, one broadcast 16-byte load per two doubles by the others:
 * half the MIO work of 64-bit shuffles) and every lane below does its own
 * n-k FMAs.  So the per-step chain has no row copy and no select chain.
 *
 * Full pivoting swaps columns physically (columns are compile-time register
 * indices; a logical column map would need run-time register indexing).
 *
 * Data are staged through shared memory: a block loads its SB systems with
 * consecutive threads on consecutive addresses (interleaved: SB consecutive
 * systems of one entry = 8*SB contiguous bytes; column/row-major: a whole
 * matrix is contiguous), every load of a round in flight before the first
 * store; factors and solutions go out the same way.  With a list of
 * systems (masked getrf, common.cuh) the block's systems are not
 * consecutive: each is read from and written to its own place.
 *
 * Factors (getrf) keep the format of common.cuh (L in LINPACK form): the
 * multiplier of step k is written at the row's position after step k, U at
 * the end at the final positions.
 */
#ifndef BSI_LU_WARP_CUH
#define BSI_LU_WARP_CUH

#include <float.h>
#include "common.cuh"
#include "lu_dispatch.cuh"

template <typename R> struct bsw_lim;
template <> struct bsw_lim<double> {
    static constexpr int V = 2; /* elements per 16-byte vector */
    typedef double2 vec;
    static __device__ __forceinline__ double maxv() { return DBL_MAX; }
    static __device__ __forceinline__ double minnorm() { return DBL_MIN; }
    static __device__ __forceinline__ double up() { return 18446744073709551616.0; } /* 2^64 */
    static __device__ __forceinline__ double nan() { return __longlong_as_double(0x7ff8000000000000LL); }
    static __device__ __forceinline__ uint32_t hi(double v) { return (uint32_t)__double2hiint(v) & 0x7fffffffu; }
    static __device__ __forceinline__ uint32_t lo(double v) { return (uint32_t)__double2loint(v); }
    static __device__ __forceinline__ unsigned long long key(double v)
    {
        return (unsigned long long)__double_as_longlong(v) & 0x7fffffffffffffffULL;
    }
};
template <> struct bsw_lim<float> {
    static constexpr int V = 4;
    typedef float4 vec;
    static __device__ __forceinline__ float maxv() { return FLT_MAX; }
    static __device__ __forceinline__ float minnorm() { return FLT_MIN; }
    static __device__ __forceinline__ float up() { return 4294967296.0f; } /* 2^32 */
    static __device__ __forceinline__ float nan() { return __int_as_float(0x7fc00000); }
    static __device__ __forceinline__ uint32_t hi(float v) { return __float_as_uint(v) & 0x7fffffffu; }
    static __device__ __forceinline__ uint32_t lo(float) { return 0; }
    static __device__ __forceinline__ unsigned long long key(float v) { return __float_as_uint(v) & 0x7fffffffu; }
};

/* Register cap per thread for bucket N (see bsw_shape::MINB). */
__host__ __device__ constexpr int bsw_regs(int N, int es)
{
    return N <= 16 ? (es == 8 ? 96 : 64) : N <= 20 ? 128 : N <= 32 ? (es == 8 ? 168 : 128) : 255;
}

/* Compile-time shape of one instantiation. */
template <typename R, int N, int T, int OP> struct bsw_shape {
    static constexpr int W = T > 32 ? T / 32 : 1;          /* warps per team */
    static constexpr int NW = W > 1 ? W : 4;               /* warps per block */
    static constexpr int NT = NW * 32;                     /* threads per block */
    static constexpr int MPW = T >= 32 ? 1 : 32 / T;       /* teams per warp */
    static constexpr int SB = W > 1 ? 1 : NW * MPW;        /* systems per block */
    static constexpr int NC = N + (OP == BSI_OP_GESV ? 1 : 0); /* register columns */
    /* resident blocks asked of ptxas: caps the registers (the pivot row's
     * loads are otherwise all hoisted, -Xptxas -v: spills at n = 64) */
    static constexpr int MINB = 65536 / (NT * bsw_regs(N, sizeof(R)));
    static constexpr int V = bsw_lim<R>::V;
    static constexpr int RBV = (NC + V - 1) / V * V;       /* pivot-row buffer, vector multiple */
    static constexpr int TBS = 2 * RBV + V;                /* per team: two buffers; odd in vectors (banks) */
    static constexpr int SBS = N * N + N + 1;              /* staging per system (odd: banks) */
    /* shared memory, in elements of R (the int arrays of W > 1 after it) */
    static constexpr int ROWB = SB * TBS;
    static constexpr size_t IOFF = ((size_t)(ROWB + SB * SBS + N + V) * sizeof(R) + 15) / 16 * 16; /* 8-byte keys */
    static constexpr size_t bytes = IOFF + (W > 1 ? 2 * W * 16 : 0);
};

/* Quotient e / n for 0 <= e < 2^16, 1 <= n <= 128 (float error far below 0.5/n). */
__device__ __forceinline__ int bsw_div(int e, float inv_n) { return (int)((e + 0.5f) * inv_n); }

template <int T> __device__ __forceinline__ uint32_t bsw_tmax(uint32_t v)
{
#pragma unroll
    for (int o = T / 2; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o, T));
    return v;
}
template <int T> __device__ __forceinline__ uint32_t bsw_tmin(uint32_t v)
{
#pragma unroll
    for (int o = T / 2; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(0xffffffffu, v, o, T));
    return v;
}

/* Tuple arg-max over width-T lane groups: larger key, then smaller col,
 * then smaller pos.  (Exact; used by full pivoting and by W > 1.) */
template <int T>
__device__ __forceinline__ void bsw_targmax(unsigned long long &key, int &col, int &pos)
{
#pragma unroll
    for (int o = T / 2; o > 0; o >>= 1) {
        const unsigned long long ok = __shfl_xor_sync(0xffffffffu, key, o, T);
        const int oc = __shfl_xor_sync(0xffffffffu, col, o, T);
        const int op = __shfl_xor_sync(0xffffffffu, pos, o, T);
        const bool take = ok > key || (ok == key && (oc < col || (oc == col && op < pos)));
        key = take ? ok : key;
        col = take ? oc : col;
        pos = take ? op : pos;
    }
}

/* PARTIAL pivot search of a team of T lanes (one row each; cand: the row
 * is a candidate, pos its position): the largest |entry| by the high word,
 * then the low word, ties to the lowest position.  Returns the pivot row's
 * position in every lane of the team; isp: this lane holds it.  From sm_80
 * three reductions over the team's lanes (redux.sync; the position comes out
 * of the last, so nothing is shuffled after the search); before, the
 * maximum of the high words by a shuffle butterfly, with the exact tie path
 * only when a ballot sees a tie. */
template <typename R, int T>
__device__ __forceinline__ int bsw_team_argmax(R v, bool cand, int pos, int team, bool &isp)
{
    using L = bsw_lim<R>;
    const uint32_t tmask = T == 32 ? 0xffffffffu : ((1u << T) - 1);
    const uint32_t key = cand ? (L::hi(v) | 0x80000000u) : 0u;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const uint32_t gm = T == 32 ? 0xffffffffu : (tmask << (team * T));
    const uint32_t mhi = __reduce_max_sync(gm, key); /* every lane reduces: no && before a reduction */
    bool c = key == mhi;
    if constexpr (sizeof(R) == 8) {
        const uint32_t klo = c ? L::lo(v) : 0u;
        const uint32_t mlo = __reduce_max_sync(gm, klo);
        c = c & (klo == mlo);
    }
    const int p = (int)__reduce_min_sync(gm, c ? (uint32_t)pos : 0xffffu);
    isp = cand && pos == p;
    return p;
#else
    const uint32_t mx = bsw_tmax<T>(key);
    bool c = key == mx;
    uint32_t tb = (__ballot_sync(0xffffffffu, c) >> (team * T)) & tmask;
    if (__ballot_sync(0xffffffffu, __popc(tb) > 1)) { /* ties of the high words (or equal values) */
        if constexpr (sizeof(R) == 8) {
            const uint32_t klo = c ? L::lo(v) : 0u;
            const uint32_t mlo = bsw_tmax<T>(klo);
            c = c && klo == mlo;
        }
        const uint32_t kp = c ? (uint32_t)pos : 0xffffu;
        const uint32_t mp = bsw_tmin<T>(kp);
        c = c && kp == mp;
        tb = (__ballot_sync(0xffffffffu, c) >> (team * T)) & tmask;
    }
    const int pl = __ffs(tb) - 1;
    isp = (int)(threadIdx.x & (T - 1)) == pl;
    return __shfl_sync(0xffffffffu, pos, pl, T);
#endif
}

/* Team barrier: the warp (W = 1) or the block (W > 1). */
template <int W> __device__ __forceinline__ void bsw_tsync()
{
    if constexpr (W == 1) __syncwarp();
    else __syncthreads();
}

template <typename R, int N, int T, int OP, int PIV, bool LIST>
__global__ void __launch_bounds__(bsw_shape<R, N, T, OP>::NT, bsw_shape<R, N, T, OP>::MINB)
bsw_k(const bsi_lu_args<R> a)
{
    using SH = bsw_shape<R, N, T, OP>;
    using L = bsw_lim<R>;
    using VEC = typename L::vec;
    constexpr int W = SH::W, NT = SH::NT, SB = SH::SB, NC = SH::NC, V = SH::V, SBS = SH::SBS;
    constexpr int TL = T > 32 ? 32 : T; /* shuffle width */
    extern __shared__ __align__(16) unsigned char bsw_smem[];
    R *rowb = reinterpret_cast<R *>(bsw_smem);
    R *stg = rowb + SH::ROWB;
    R *xbuf = stg + SB * SBS; /* W > 1: the back-substitution's x */
    unsigned long long *redk = reinterpret_cast<unsigned long long *>(bsw_smem + SH::IOFF);
    int *redc = reinterpret_cast<int *>(redk + 2 * W), *redp = redc + 2 * W;

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int l = W > 1 ? tid : (lane & (T - 1));
    const int team = W > 1 ? 0 : lane / T;
    const int sb = W > 1 ? 0 : warp * SH::MPW + team;
    const int64_t sys0 = (int64_t)blockIdx.x * SB; /* logical systems (common.cuh) */
    const int nsys = (int)min((int64_t)SB, bsi_lu_count<LIST>(a) - sys0);
    if constexpr (LIST)
        if (nsys <= 0) return; /* past the list's end: the whole block, before any barrier */
    /* With a list, the block's systems are not consecutive: each is staged
     * from and to its own place (per-thread or per-entry addresses), never
     * as one run of SB systems.  gs(s): the block's system s. */
    auto gs = [&](int s) -> int64_t { return bsi_lu_sys<LIST>(a, sys0 + s); };
    [[maybe_unused]] const int64_t mysys = LIST && sb < nsys ? gs(sb) : 0; /* with a list: this team's system */
    const int n = a.n, nn = n * n;
    const float inv_n = 1.0f / (float)n;
    R *mys = stg + sb * SBS;
    R *myrow = rowb + sb * SH::TBS;

    /* ---- stage A (and b) in: system s, entry (i, j) -> stg[s*SBS + i + j*n] ---- */
    {
        const int64_t ks = a.va.ks, is = a.va.is, js = a.va.js;
        const R *A = a.A + sys0 * ks;
        const int tot = SB * nn;
        constexpr int Q = (SB * N * N + NT - 1) / NT;
        constexpr int QC = Q < 16 ? Q : 16; /* loads in flight per thread per round */
        if (ks == 1) { /* interleaved: entry e of SB consecutive systems is contiguous */
            /* thread tid takes system tid % SB, entries tid / SB + q * ES:
             * pointer steps, no division per entry */
            static_assert(NT % SB == 0, "systems per block divide the threads");
            constexpr int ES = NT / SB;
            const int s = tid % SB, e0 = tid / SB;
            const bool ok = s < nsys;
            const int64_t step = (int64_t)ES * is;
            const R *src;
            if constexpr (LIST) src = a.A + (ok ? gs(s) : 0) + (int64_t)e0 * is;
            else src = A + (int64_t)e0 * is + s;
            R *dst = stg + s * SBS + e0;
#pragma unroll
            for (int q0 = 0; q0 < Q; q0 += QC) {
                R v[QC];
#pragma unroll
                for (int q = 0; q < QC; q++) {
                    v[q] = (ok && q0 + q < Q && e0 + (q0 + q) * ES < nn) ? *src : R(0);
                    src += step;
                }
#pragma unroll
                for (int q = 0; q < QC; q++)
                    if (q0 + q < Q && e0 + (q0 + q) * ES < nn) dst[(q0 + q) * ES] = v[q];
            }
        } else {
            const float inv_nn = 1.0f / (float)nn;
            const bool rowlines = js == 1 && is != 1;
            for (int q0 = 0; q0 < Q; q0 += QC) {
                R v[QC];
                int d[QC];
#pragma unroll
                for (int q = 0; q < QC; q++) {
                    const int f = tid + (q0 + q) * NT;
                    const int s = bsw_div(f, inv_nn), e = f - s * nn;
                    const int c = bsw_div(e, inv_n), r = e - c * n; /* e = r + c*n in memory order */
                    const int i = rowlines ? c : r, j = rowlines ? r : c;
                    d[q] = (f < tot && s < nsys) ? s * SBS + i + j * n : -1;
                    /* whole matrices in memory order, each contiguous: with a
                     * list from each system's own place */
                    if constexpr (LIST) v[q] = d[q] >= 0 ? a.A[gs(s) * ks + i * is + j * js] : R(0);
                    else v[q] = d[q] >= 0 ? A[s * ks + i * is + j * js] : R(0);
                }
#pragma unroll
                for (int q = 0; q < QC; q++)
                    if (d[q] >= 0) stg[d[q]] = v[q];
            }
        }
        if (OP == BSI_OP_GESV) { /* b as column n of the staged matrix */
            const int64_t bks = a.vb.ks, bis = a.vb.is;
            const R *B = a.B + sys0 * bks;
            for (int f = tid; f < SB * n; f += NT) {
                const int s = bks == 1 ? f % SB : bsw_div(f, inv_n);
                const int i = bks == 1 ? f / SB : f - s * n;
                if (s < nsys) stg[s * SBS + nn + i] = B[s * bks + i * bis];
            }
        }
    }
    __syncthreads();

    const bool live = l < n && sb < nsys; /* a real row of a real system */
    R m[NC];
#pragma unroll
    for (int j = 0; j < N; j++) m[j] = (live && j < n) ? mys[l + j * n] : R(0);
    if constexpr (OP == BSI_OP_GESV) m[N] = live ? mys[l + nn] : R(0);
    int bad = 0;
#pragma unroll
    for (int j = 0; j < NC; j++) bad |= !(fabs(m[j]) <= L::maxv());
    if constexpr (W == 1) {
#pragma unroll
        for (int o = T / 2; o > 0; o >>= 1) bad |= __shfl_xor_sync(0xffffffffu, bad, o, T);
    } else {
        bad = __syncthreads_or(bad);
    }
    if constexpr (OP == BSI_OP_GETRF) bsw_tsync<W>(); /* the staging area is rewritten below */

    int pos = live ? l : 255; /* current position of this lane's row; 255: no row */
    int pinfo = 0;
    uint32_t tmk[(N + 31) / 32];  /* bit k: the pivot of step k is subnormal */
    uint32_t plk[(N + 3) / 4];    /* pivot lane of step k (W = 1 back substitution) */
    uint32_t qk[(N + 3) / 4];     /* pivot column of step k (FULL) */
#pragma unroll
    for (int t = 0; t < (N + 31) / 32; t++) tmk[t] = 0;
#pragma unroll
    for (int t = 0; t < (N + 3) / 4; t++) plk[t] = qk[t] = 0;

#pragma unroll
    for (int k = 0; k < N; k++) {
        if (k >= n) break;
        const bool cand = pos >= k && pos != 255;
        int pl = 0;      /* pivot lane (W = 1) */
        bool isp;        /* this lane holds the pivot row */
        int p;           /* the pivot row's position before the interchange */
        int q = k;       /* pivot column */
        if constexpr (PIV == BSOLVE_PIVOT_FULL || W > 1) {
            unsigned long long key = 0;
            int col = k;
            if constexpr (PIV == BSOLVE_PIVOT_FULL) {
#pragma unroll
                for (int j = k; j < N; j++) {
                    const unsigned long long kj = (cand && j < n) ? (L::key(m[j]) | (1ULL << 63)) : 0ULL;
                    col = kj > key ? j : col;
                    key = kj > key ? kj : key;
                }
            } else if constexpr (PIV == BSOLVE_PIVOT_PARTIAL) {
                key = cand ? (L::key(m[k]) | (1ULL << 63)) : 0ULL;
            } else {
                key = (cand && pos == k) ? 1ULL : 0ULL;
            }
            int wp = cand ? pos : 0x7fff;
            bsw_targmax<TL>(key, col, wp);
            if constexpr (W > 1) {
                if (lane == 0) {
                    redk[(k & 1) * W + warp] = key;
                    redc[(k & 1) * W + warp] = col;
                    redp[(k & 1) * W + warp] = wp;
                }
                __syncthreads();
                key = redk[(k & 1) * W];
                col = redc[(k & 1) * W];
                wp = redp[(k & 1) * W];
#pragma unroll
                for (int w = 1; w < W; w++) {
                    const unsigned long long ok = redk[(k & 1) * W + w];
                    const int oc = redc[(k & 1) * W + w], op = redp[(k & 1) * W + w];
                    const bool take = ok > key || (ok == key && (oc < col || (oc == col && op < wp)));
                    key = take ? ok : key;
                    col = take ? oc : col;
                    wp = take ? op : wp;
                }
            }
            p = wp;
            q = col;
            isp = cand && pos == p;
            if constexpr (W == 1) pl = __ffs(__ballot_sync(0xffffffffu, isp) >> (team * T) & (T == 32 ? 0xffffffffu : ((1u << T) - 1))) - 1;
        } else {
            const uint32_t tmask = T == 32 ? 0xffffffffu : ((1u << T) - 1);
            if constexpr (PIV == BSOLVE_PIVOT_PARTIAL) {
                p = bsw_team_argmax<R, T>(m[k], cand, pos, team, isp);
            } else {
                p = k;
                isp = cand && pos == k;
            }
            pl = __ffs((__ballot_sync(0xffffffffu, isp) >> (team * T)) & tmask) - 1;
        }
        if constexpr (PIV == BSOLVE_PIVOT_FULL) {
            /* column interchange k <-> q over every row (dgetc2 swaps whole columns) */
            R nk = m[k];
#pragma unroll
            for (int j = k + 1; j < N; j++) {
                const bool c = j == q;
                const R t = m[j];
                m[j] = c ? m[k] : t;
                nk = c ? t : nk;
            }
            m[k] = nk;
            qk[k / 4] |= (uint32_t)q << (8 * (k % 4));
        }
        plk[k / 4] |= (uint32_t)pl << (8 * (k % 4));
        if (OP == BSI_OP_GETRF && l == 0 && sb < nsys) {
            if constexpr (LIST) {
                a.rp[k * a.fld + mysys] = (uint8_t)p;
                a.cp[k * a.fld + mysys] = (uint8_t)q;
            } else {
                a.rp[k * a.fld + sys0 + sb] = (uint8_t)p;
                a.cp[k * a.fld + sys0 + sb] = (uint8_t)q;
            }
        }
        /* logical interchange k <-> p */
        pos = isp ? k : (pos == k ? p : pos);

        /* broadcast the pivot row, columns k..NC-1 (from the vector holding k) */
        const int KB = k / V * V;
        R *buf = (W > 1 ? rowb : myrow) + (k & 1) * SH::RBV;
        if (isp) {
#pragma unroll
            for (int j = KB; j < NC; j += V) {
                VEC t;
                R *tp = reinterpret_cast<R *>(&t);
#pragma unroll
                for (int e = 0; e < V; e++) tp[e] = j + e < NC ? m[j + e < NC ? j + e : 0] : R(0);
                *reinterpret_cast<VEC *>(buf + j) = t;
            }
        }
        bsw_tsync<W>();
        R u[NC];
#pragma unroll
        for (int j = KB; j < NC; j += V) {
            const VEC t = *reinterpret_cast<const VEC *>(buf + j);
            const R *tp = reinterpret_cast<const R *>(&t);
#pragma unroll
            for (int e = 0; e < V; e++)
                if (j + e < NC) u[j + e < NC ? j + e : 0] = tp[e];
        }
        const R d = u[k];
        const bool z = d == R(0);
        pinfo = (z && pinfo == 0) ? k + 1 : pinfo;
        /* a subnormal pivot: 1/d overflows; scale it and the column up by
         * 2^64 (2^32) first, exactly (dgetf2 divides below sfmin) */
        const bool tiny = fabs(d) < L::minnorm() && !z;
        const R sc = tiny ? L::up() : R(1);
        const R rinv = R(1) / (z ? R(1) : d * sc);
        tmk[k / 32] |= (uint32_t)tiny << (k % 32);
        const bool below = pos > k && pos != 255;
        const R lm = below ? (m[k] * sc) * rinv : R(0);
        if (below) m[k] = lm;
        if constexpr (OP == BSI_OP_GETRF)
            if (below) mys[pos + k * n] = lm; /* L, LINPACK form: the position after step k */
        /* rank-1 update; rows not below have lm = 0 (fma(-0, u, x) == x) */
#pragma unroll
        for (int j = k + 1; j < NC; j++) m[j] = fma(-lm, u[j], m[j]);
        if constexpr (OP == BSI_OP_GESV)
            if (isp) m[k] = rinv; /* the solve multiplies by the reciprocal */
    }

    if constexpr (OP == BSI_OP_GETRF) {
        const int v = bad ? BSOLVE_INFO_NONFINITE : pinfo;
        /* U at the final positions */
        if (pos != 255) {
#pragma unroll
            for (int j = 0; j < N; j++)
                if (j >= pos && j < n) mys[pos + j * n] = m[j];
        }
        if (l == 0 && sb < nsys) {
            a.info[LIST ? mysys : sys0 + sb] = v;
            a.finfo[LIST ? mysys : sys0 + sb] = v;
        }
        __syncthreads();
        const int tot = SB * nn;
        const int64_t fld = a.fld;
        if constexpr (LIST) { /* a thread's entries are all of system tid % SB (NT % SB == 0) */
            const int s = tid % SB;
            if (s < nsys) {
                R *F = a.F + gs(s);
                for (int f = tid; f < tot; f += NT) F[(int64_t)(f / SB) * fld] = stg[s * SBS + f / SB];
            }
            return;
        }
        R *F = a.F + sys0;
        for (int f = tid; f < tot; f += NT) {
            const int s = f % SB, e = f / SB;
            if (s < nsys) F[(int64_t)e * fld + s] = stg[s * SBS + e];
        }
        return;
    }

    if constexpr (OP == BSI_OP_GESV) {
        /* back substitution: x_i by the lane at position i, broadcast; rows above update */
        R b = m[N];
#pragma unroll
        for (int i = N - 1; i >= 0; i--) {
            if (i >= n) continue;
            const R sc = ((tmk[i / 32] >> (i % 32)) & 1u) ? L::up() : R(1);
            const R mine = (b * sc) * m[i];
            R xi;
            if constexpr (W == 1) {
                const int o = (plk[i / 4] >> (8 * (i % 4))) & 0xff;
                xi = __shfl_sync(0xffffffffu, mine, o, T);
            } else {
                if (pos == i) xbuf[i] = mine;
                __syncthreads();
                xi = xbuf[i];
            }
            b = pos == i ? xi : (pos < i ? fma(-m[i], xi, b) : b);
        }
        int idx = pos;
        if constexpr (PIV == BSOLVE_PIVOT_FULL) { /* x <- Q x */
#pragma unroll
            for (int k = N - 1; k >= 0; k--) {
                if (k >= n) continue;
                const int qq = (qk[k / 4] >> (8 * (k % 4))) & 0xff;
                idx = idx == k ? qq : (idx == qq ? k : idx);
            }
        }
        const int finfo = bad ? BSOLVE_INFO_NONFINITE : pinfo;
        if (finfo != 0) b = L::nan();
        if (pos != 255) mys[nn + idx] = b;
        if (l == 0 && sb < nsys && a.info) a.info[sys0 + sb] = finfo;
        __syncthreads();
        const int64_t bks = a.vb.ks, bis = a.vb.is;
        R *B = a.B + sys0 * bks;
        for (int f = tid; f < SB * n; f += NT) {
            const int s = bks == 1 ? f % SB : bsw_div(f, inv_n);
            const int i = bks == 1 ? f / SB : f - s * n;
            if (s < nsys) B[s * bks + i * bis] = stg[s * SBS + nn + i];
        }
    }
}

template <typename R, int N, int OP, int PIV, bool LIST>
cudaError_t bsw_launch_l(const bsi_lu_args<R> &a, cudaStream_t st)
{
    constexpr int T = bsi_lu_warp_team(N); /* lu_dispatch.cuh */
    using SH = bsw_shape<R, N, T, OP>;
    const int64_t blocks = (a.count + SH::SB - 1) / SH::SB;
    if (blocks > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
    if (SH::bytes > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(bsw_k<R, N, T, OP, PIV, LIST>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SH::bytes);
        if (e != cudaSuccess) return e;
    }
    bsw_k<R, N, T, OP, PIV, LIST><<<(unsigned)blocks, SH::NT, SH::bytes, st>>>(a);
    return cudaGetLastError();
}

template <typename R, int N, int OP, int PIV> cudaError_t bsw_launch_t(const bsi_lu_args<R> &a, cudaStream_t st)
{
    if constexpr (OP != BSI_OP_GESV)
        if (a.nsel) return bsw_launch_l<R, N, OP, PIV, true>(a, st);
    return bsw_launch_l<R, N, OP, PIV, false>(a, st);
}

/* Launch of bucket N (gesv with nrhs == 1, or getrf). */
template <typename R, int N> cudaError_t bsw_launch_n(int op, const bsi_lu_args<R> &a, cudaStream_t st)
{
    if (op == BSI_OP_GESV) {
        if (a.pivot == BSOLVE_PIVOT_PARTIAL) return bsw_launch_t<R, N, BSI_OP_GESV, BSOLVE_PIVOT_PARTIAL>(a, st);
        if (a.pivot == BSOLVE_PIVOT_FULL) return bsw_launch_t<R, N, BSI_OP_GESV, BSOLVE_PIVOT_FULL>(a, st);
        return bsw_launch_t<R, N, BSI_OP_GESV, BSOLVE_PIVOT_NONE>(a, st);
    }
    if (a.pivot == BSOLVE_PIVOT_PARTIAL) return bsw_launch_t<R, N, BSI_OP_GETRF, BSOLVE_PIVOT_PARTIAL>(a, st);
    if (a.pivot == BSOLVE_PIVOT_FULL) return bsw_launch_t<R, N, BSI_OP_GETRF, BSOLVE_PIVOT_FULL>(a, st);
    return bsw_launch_t<R, N, BSI_OP_GETRF, BSOLVE_PIVOT_NONE>(a, st);
}

#define BSW_BUCKETS(X, R) X(R, 10) X(R, 12) X(R, 14) X(R, 16) X(R, 20) X(R, 24) X(R, 28) X(R, 32) X(R, 40) X(R, 48)
#define BSW_EXTERN(R, N) extern template cudaError_t bsw_launch_n<R, N>(int, const bsi_lu_args<R> &, cudaStream_t);

#define BSW_INSTANTIATE(R, N) template cudaError_t bsw_launch_n<R, N>(int, const bsi_lu_args<R> &, cudaStream_t);

#endif
