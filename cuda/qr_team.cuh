/*
 * qr_team.cuh -- the CUDA QR kernels (Givens rotations), one C++ template
 * for float and double.
 *
 * Factor storage (struct bsolve_qr on the CUDA backend, device memory),
 * INTERLEAVED: entry e of system k at F[e*ld + k], ld = batch rounded up to
 * a multiple of 32, FE = n*n + 2*nrot + n + 1 entries per system:
 *   e = i + j*n                R(i,j), i <= j, of A scaled by sa (below the
 *                              diagonal: never written, never read);
 *   e = RO + 2g, RO + 2g + 1   c and s of rotation g, g numbering the
 *                              rotations in COLUMN ORDER (column j, then row
 *                              i = m-1 down to j+1): g = j(m-1) - j(j-1)/2 +
 *                              (m-1-i), RO = n*n, nrot = n(m-1) - n(n-1)/2;
 *   e = RD + j, RD + n         1/R(j,j) (1 where R(j,j) is negligible), then
 *                              sa, the power of two undoing A's scaling.
 *
 * Team kernel (gels, geqrf).  A team of T lanes (T = 1, 2, ..., 32, a
 * compile-time parameter; a warp holds 32/T teams) owns one system, held in
 * shared memory with its right-hand sides as extra columns.  The rotations
 * are applied in the Sameh-Kuck order: rotation (i, j) (rows i-1, i; it
 * zeroes A(i,j)) runs at step t = (m-1-i) + 2j, m + min(n-1, m-2) - 1 steps
 * in all (2n-3 for a square matrix), and the rotations of one step touch
 * disjoint row pairs.  Every rotation that column order puts before
 * rotation (i, j) and that shares a row with it runs at an earlier step, so
 * each rotation meets exactly the operands it meets in column order: the
 * factors, the rotations and the solutions are those of column order (the
 * order the header documents, and the CPU backend's), only scheduled with
 * more parallelism.  A step is two phases separated by the team's barrier
 * (bsq_tsync): the step's rotations are computed (lanes over the
 * rotations; each lane rotates B's rows with its own), then applied to A
 * (lanes over the columns; in a column the step's row pairs are one
 * contiguous band).  All teams of a warp have the same m, n, so every loop
 * is warp-uniform; a team's lanes never diverge from the other teams'.
 *
 * Why shared memory and teams rather than registers: m x n goes up to
 * 128 x 64 (64 KiB in FP64), and a register-resident thread-per-matrix
 * kernel would need the whole matrix (plus b) in registers, which fits only
 * for m*(n+1) <~ 80 doubles.  One kernel over every shape, with T chosen on
 * the host so that a warp's teams fill about 12 KiB of shared memory
 * (T = 1 for the smallest systems: thread per matrix, no idle lanes; T = 32
 * from about 32 x 32), keeps ~16 warps per SM busy for small systems and
 * gives large ones 32 lanes of parallel rotations.  Systems so large that
 * a warp each leaves few warps per SM (128 x 64: 68 KiB, 3 per SM) get a
 * team of T = 128 or 256 lanes (64 by force), a whole block: its barriers are the block's,
 * its reductions meet in shared memory, and in the apply phase the lanes
 * of each warp take the columns while the warps share out the step's
 * row pairs.
 * (The shapes that do fit -- gels with nrhs = 1 and geqrf for m <= 16,
 * n <= 4 and 8 x 8, more in FP32 -- go to the register kernel of
 * qr_reg.cuh instead.  gels with nrhs = 1 and m <= 64, n <= 32 outside
 * those goes to the column-per-lane kernel of qr_warp.cuh; FP64 gels with
 * nrhs = 1 at m <= 64 and 80 <= m <= 128 (72 <= m with n > 16) to the
 * Householder kernel of qr_hh.cuh, and at 65 <= m <= 71 with 40 <= n <= 56
 * to this kernel's steps taken in pairs, qr_pair.cuh.  qr_dispatch.cuh
 * decides, and says why.)
 *
 * geqrs: a thread per system, b in (thread-local, L1-cached) memory, the
 * rotations and R read from the interleaved factors with coalesced loads.
 */
#ifndef BSI_QR_TEAM_CUH
#define BSI_QR_TEAM_CUH

#include <float.h>

#include "common.cuh"
#include "qr_dispatch.cuh" /* BSQ_GELS, BSQ_GEQRF, struct bsq_choice */

template <typename R> struct bsq_args {
    const R *A; bsi_view va;
    R *B;       bsi_view vb;
    int32_t *info;             /* user info (geqrs: may be NULL) */
    R *F;       int64_t fld;   /* factors, already offset to the launch's first system */
    int32_t *finfo;            /* the object's info, same offset */
    int64_t count;             /* systems in this launch */
    int m, n, nrhs;
    int nbp;                   /* right-hand sides per pass (gels) */
    int ldm, mstride;          /* shared-memory geometry of a system */
    int a_il, b_il;            /* A, B INTERLEAVED (qr_dispatch.cuh) */
    int nsm;                   /* the device's SMs (gels: qr_hh.cuh's order of systems) */
};

/* Limits and dlartg's safe range as exact powers of two. */
template <typename R> struct bsq_lim;
template <> struct bsq_lim<double> {
    static __device__ __forceinline__ double rtmin() { return 0x1p-511; }
    static __device__ __forceinline__ double rtmax() { return 0x1p+511; }
    static __device__ __forceinline__ double safelo() { return 0x1p-64; }
    static __device__ __forceinline__ double safehi() { return 0x1p+64; }
    static __device__ __forceinline__ double eps() { return DBL_EPSILON; }
    static __device__ __forceinline__ double tiny() { return DBL_MIN; }
    static __device__ __forceinline__ double nan() { return __longlong_as_double(0x7ff8000000000000LL); }
    /* rsqrt(x) for a normal x > 0 (all bsq_rot asks for): the math
     * library's fast path -- the hardware estimate and the same refinement,
     * bit for bit -- without its range check, a branch around an out-of-line
     * call that fences the step's scheduling. */
    static __device__ __forceinline__ double rsqrt(double x)
    {
        double y;
        asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
        const double e = fma(-(y * y), x, 1.0);
        return fma(fma(e, 0.375, 0.5), y * e, y);
    }
    /* down = 2^-e, up = 2^e for u in [2^e, 2^(e+1)), e clamped so both are normal */
    static __device__ __forceinline__ void pow2(double u, double &down, double &up)
    {
        long long eb = __double_as_longlong(u) >> 52;
        eb = eb < 1 ? 1 : eb > 2045 ? 2045 : eb;
        down = __longlong_as_double((2046 - eb) << 52);
        up = __longlong_as_double(eb << 52);
    }
};
template <> struct bsq_lim<float> {
    static __device__ __forceinline__ float rtmin() { return 0x1p-63f; }
    static __device__ __forceinline__ float rtmax() { return 0x1p+63f; }
    static __device__ __forceinline__ float safelo() { return 0x1p-16f; }
    static __device__ __forceinline__ float safehi() { return 0x1p+16f; }
    static __device__ __forceinline__ float eps() { return FLT_EPSILON; }
    static __device__ __forceinline__ float tiny() { return FLT_MIN; }
    static __device__ __forceinline__ float nan() { return __int_as_float(0x7fc00000); }
    static __device__ __forceinline__ float rsqrt(float x) { return rsqrtf(x); }
    static __device__ __forceinline__ void pow2(float u, float &down, float &up)
    {
        int eb = __float_as_int(u) >> 23;
        eb = eb < 1 ? 1 : eb > 253 ? 253 : eb;
        down = __int_as_float((254 - eb) << 23);
        up = __int_as_float(eb << 23);
    }
};

/* The power-of-two scaling (down, up) of data whose largest magnitude is
 * mx: pow2's pair outside dlartg's safe range [safelo, safehi], down and up
 * left as they are (1 and 1) inside it. */
template <typename R> __device__ __forceinline__ void bsq_scaling(R mx, R &down, R &up)
{
    typedef bsq_lim<R> L;
    if (!(mx >= L::safelo() && mx <= L::safehi())) L::pow2(mx, down, up);
}

/* The rotation [c s; -s c] taking (f, g) to (r, 0) as dlartg (and the CPU
 * backend's qr_rot): r of the sign of f, f = g = 0 gives (1, 0, 0); entries
 * outside [rtmin, rtmax] are scaled by an exact power of two first, so that
 * f*f + g*g neither overflows nor underflows.
 *
 * c, s and r come from one reciprocal square root (rsqrt: 1 ulp) rather than
 * dlartg's square root and division: each of those is an approximation, a
 * Newton sequence and a call to a slow path, and this function runs once per
 * rotation on the warp kernel's critical path (qr_warp.cuh).  c and s are
 * within 2 ulps of dlartg's, so c^2 + s^2 = 1 to a few ulps and the QR stays
 * backward stable; results agree with the CPU backend to rounding, not bit
 * for bit (which no test asks of them). */
template <typename R> __device__ __forceinline__ R bsq_rot(R f, R g, R &c, R &s)
{
    typedef bsq_lim<R> L;
    const R af = fabs(f), ag = fabs(g), u = af > ag ? af : ag;
    R fs = f, gs = g, up = R(1);
    const bool scaled = !((u >= L::rtmin() && u <= L::rtmax()) || u == R(0));
    if (scaled) {
        R down;
        L::pow2(u, down, up);
        fs = f * down;
        gs = g * down;
    }
    const R d2 = fma(fs, fs, gs * gs);
    const bool z = d2 == R(0); /* f = g = 0: the scaling leaves no other way to 0 */
    const R rinv = copysign(L::rsqrt(z ? R(1) : d2), f); /* d2 normal: see the scaling */
    c = z ? R(1) : fs * rinv;
    s = z ? R(0) : gs * rinv;
    const R r = z ? f : d2 * rinv;
    return scaled ? r * up : r;
}

/* bsq_rot's unscaled path, for max(|f|, |g|) = u in [rtmin, rtmax]: f*f + g*g
 * is then a normal number (u^2 >= rtmin^2); Z: u = 0 too (bsq_rot's
 * selects for f = g = 0 kept) */
template <typename R, bool Z = false> __device__ __forceinline__ R bsq_rot_unscaled(R f, R g, R &c, R &s)
{
    const R d2 = fma(f, f, g * g);
    if constexpr (Z) {
        const bool z = d2 == R(0);
        const R rinv = copysign(bsq_lim<R>::rsqrt(z ? R(1) : d2), f);
        c = z ? R(1) : f * rinv;
        s = z ? R(0) : g * rinv;
        return z ? f : d2 * rinv;
    }
    const R rinv = copysign(bsq_lim<R>::rsqrt(d2), f);
    c = f * rinv;
    s = g * rinv;
    return d2 * rinv;
}

/* 1/R(j,j) unusable as a multiplier (infinite, or so small that the product
 * would lose the answer): divide by R(j,j) instead. */
template <typename R> __device__ __forceinline__ bool bsq_rd_bad(R rd)
{
    const R a = fabs(rd);
    return isinf(a) || a < bsq_lim<R>::tiny();
}

/* The rank test of column j of R (cj: rows 0..j): whether |R(j,j)| <= m eps
 * ||R(0:j,j)||, the squares taken after a power-of-two scaling of the
 * column; rd = 1/R(j,j), or 1 where R(j,j) is negligible. */
template <typename R> __device__ __forceinline__ bool bsq_rank_col(const R *cj, int j, int m, R &rd)
{
    typedef bsq_lim<R> L;
    R mx = R(0);
    for (int i = 0; i <= j; i++) mx = fmax(mx, fabs(cj[i]));
    R down, up;
    L::pow2(mx, down, up);
    R ss = R(0);
    for (int i = 0; i <= j; i++) {
        const R q = cj[i] * down;
        ss += q * q;
    }
    const R d = cj[j] * down, tol = (R)m * L::eps();
    const bool neg = d * d <= tol * tol * ss;
    rd = R(1) / (neg ? R(1) : cj[j]);
    (void)up;
    return neg;
}

/* Team-wide reductions and broadcast (width T shuffles; every lane of the
 * warp takes part, the loops around them being warp-uniform).  A team of
 * more than 32 lanes is a whole block (bsq_k_team with T > 32): the warps'
 * results meet in shared memory, every thread of the block taking part. */
template <int T, typename V> __device__ __forceinline__ V bsq_bcast(V v, int src)
{
    if constexpr (T == 1) return v;
    else return __shfl_sync(0xffffffffu, v, src, T);
}
template <int T, typename V, typename F> __device__ __forceinline__ V bsq_reduce(V v, F op)
{
    constexpr int W = T < 32 ? T : 32;
#pragma unroll
    for (int o = W / 2; o > 0; o /= 2) v = op(v, __shfl_xor_sync(0xffffffffu, v, o, W));
    if constexpr (T > 32) {
        __shared__ V part[T / 32];
        __syncthreads(); /* the previous reduction's readers are done */
        if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
        __syncthreads();
        v = part[0];
#pragma unroll
        for (int w = 1; w < T / 32; w++) v = op(v, part[w]);
    }
    return v;
}
template <int T, typename V> __device__ __forceinline__ V bsq_max(V v)
{
    return bsq_reduce<T>(v, [](V x, V y) { return y > x ? y : x; });
}
template <int T> __device__ __forceinline__ int bsq_min(int v)
{
    return bsq_reduce<T>(v, [](int x, int y) { return min(x, y); });
}
template <int T> __device__ __forceinline__ int bsq_or(int v)
{
    return bsq_reduce<T>(v, [](int x, int y) { return x | y; });
}
/* The team's barrier: a warp's, or the block's for a team of several warps. */
template <int T> __device__ __forceinline__ void bsq_tsync()
{
    if constexpr (T > 32) __syncthreads();
    else __syncwarp();
}

/* The residual part of a solved B in the header's canonical form, the same
 * on every backend and kernel: rows n..m-1 of a right-hand side (the last
 * m - n entries of Q^T b, whatever Q the kernel made) become their 2-norm,
 * the residual norm, in row n and zeros below.  each(f) calls f(v) for
 * every residual entry a lane holds (lanes of a team of W <= 32, whose
 * every lane of the warp calls this: the sums meet in shuffles); the
 * squares are taken after an exact power-of-two scaling by the largest
 * entry, so that neither 1e-300 nor 1e300 data loses the norm.  tail is
 * m > n, the same in every lane of a launch (so the shuffles stay
 * convergent): a square system has no residual rows, and skipping the
 * scaling and the square root keeps the smallest kernels at the copy floor. */
template <int W, typename R, typename F> __device__ __forceinline__ R bsq_tail_nrm2(bool tail, F each)
{
    static_assert(W <= 32, "a team within a warp");
    if (!tail) return R(0);
    R mx = R(0), ss = R(0), down, up;
    each([&](const R v) __attribute__((always_inline)) { mx = fmax(mx, fabs(v)); });
    mx = bsq_max<W>(mx);
    bsq_lim<R>::pow2(mx, down, up);
    each([&](const R v) __attribute__((always_inline)) {
        const R q = v * down;
        ss = fma(q, q, ss);
    });
    ss = bsq_reduce<W>(ss, [](R x, R y) { return x + y; });
    return sqrt(ss) * up;
}

/* e / r for e < 2^16, 1 <= r <= 128 without an integer division (the float
 * error is far below 0.5/r). */
__device__ __forceinline__ int bsq_div(int e, float inv_r) { return (int)((e + 0.5f) * inv_r); }

/* Moves columns gcol..gcol+nc-1 (rows 0..rows-1) of the warp's wcnt systems
 * between global memory (view v) and shared-memory columns scol.. of each
 * system (system s of the warp at wbase + s*mstride, column stride ldm).
 * The NT threads walk (column, system, row) triples with the system index
 * fastest when the global side is interleaved and the row fastest
 * otherwise, so that consecutive lanes touch consecutive addresses on the
 * global side, BSQ_IO_U of them per thread at a time with every load
 * issued before the first store: a column at a time, one load in flight
 * per thread, the copy of a 128 x 64 system was ~65 DRAM latencies in a
 * row.  Loads give 0 for systems past the end of the batch. */
#define BSQ_IO_U 4
template <typename R, int SW, bool STORE, int NT = 32>
__device__ __forceinline__ void bsq_io(R *wbase, int mstride, int ldm, int scol, R *g, bsi_view v, int64_t wsys0,
                                       int wcnt, int rows, int gcol, int nc, float inv_rows, int lane)
{
    const int tot = SW * rows, all = nc * tot;
    /* floor(e / tot) by a multiply-high, exact for e * tot < 2^32 */
    const unsigned mag = tot > 1 ? 0xFFFFFFFFu / (unsigned)tot + 1 : 0;
    for (int e0 = lane; e0 < all; e0 += BSQ_IO_U * NT) {
        R val[BSQ_IO_U], *sp[BSQ_IO_U], *gp[BSQ_IO_U];
#pragma unroll
        for (int u = 0; u < BSQ_IO_U; u++) {
            const int e = e0 + u * NT, c = tot > 1 ? (int)__umulhi((unsigned)e, mag) : e, idx = e - c * tot;
            int s, i;
            if (v.ks == 1) { s = idx % SW; i = idx / SW; }
            else { s = bsq_div(idx, inv_rows); i = idx - s * rows; }
            sp[u] = e < all ? wbase + s * mstride + i + (scol + c) * ldm : nullptr;
            gp[u] = e < all && s < wcnt ? g + (wsys0 + s) * v.ks + i * v.is + (int64_t)(gcol + c) * v.js : nullptr;
            val[u] = R(0);
            if (gp[u]) val[u] = STORE ? *sp[u] : *gp[u]; /* gp set implies sp set */
        }
#pragma unroll
        for (int u = 0; u < BSQ_IO_U; u++) {
            if (STORE && gp[u]) *gp[u] = val[u];
            if (!STORE && sp[u]) *sp[u] = val[u];
        }
    }
}

/* (c, s) of the step's rotation j in the team kernel: one pair (CSP) or
 * two arrays */
template <typename R, bool CSP>
__device__ __forceinline__ void bsq_cs_get(const typename bsi_pair<R>::T *cs2, const R *rc, const R *rs, int j, R &c,
                                           R &s)
{
    if constexpr (CSP) {
        const typename bsi_pair<R>::T q = cs2[j];
        c = q.x, s = q.y;
    } else {
        c = rc[j], s = rs[j];
    }
}

/* The team kernel (see the top of the file).  SW systems per warp, or one
 * per block of T threads for T > 32; its copies (bsq_io) are walked by
 * the block's T threads then, by a warp's 32 otherwise. */
template <typename R, int T, int OP>
__global__ void __launch_bounds__(T > 128 ? T : 128) bsq_k_team(const bsq_args<R> a)
{
    typedef bsq_lim<R> L;
    constexpr int SW = T >= 32 ? 1 : 32 / T; /* systems per warp (per block for T > 32) */
    constexpr int NT = T > 32 ? T : 32;      /* threads walking those systems' copies */
    extern __shared__ __align__(16) unsigned char bsq_smem[];
    const int lane = T > 32 ? (int)threadIdx.x : (int)threadIdx.x & 31;
    const int warp = T > 32 ? 0 : threadIdx.x >> 5, nwarps = T > 32 ? 1 : blockDim.x >> 5;
    const int l = lane & (T - 1), tm = lane / T;
    const int64_t wsys0 = ((int64_t)blockIdx.x * nwarps + warp) * SW;
    if (wsys0 >= a.count) return; /* the whole warp (block for T > 32): no shuffle partner is left behind */
    const int wcnt = (int)min((int64_t)SW, a.count - wsys0);
    const int64_t sys = wsys0 + tm;
    const bool valid = tm < wcnt;
    const int m = a.m, n = a.n, ldm = a.ldm, nrhs = OP == BSQ_GELS ? a.nrhs : 0;
    const int nb = OP == BSQ_GELS ? a.nbp : 0, NCmax = n + nb;
    R *wbase = reinterpret_cast<R *>(bsq_smem) + (size_t)warp * SW * a.mstride;
    R *S = wbase + tm * a.mstride;
    /* CSP: (c, s) of the step's rotations as pairs, one broadcast load per
     * rotation and column chunk in the apply phase instead of two, aligned
     * (bsq_plan leaves the entry it may take); teams of a warp or more
     * only: smaller ones took 8 more registers */
    constexpr bool CSP = T >= 32;
    R *rcs = S + ldm * NCmax;
    if (CSP && (uintptr_t)rcs % (2 * sizeof(R))) rcs++;
    typedef typename bsi_pair<R>::T P2;
    P2 *const cs2 = reinterpret_cast<P2 *>(rcs);
    R *const rc = rcs, *const rs = rcs + n, *rdv = rcs + 2 * n;

    const float inv_m = 1.0f / (float)m;
    const int jmax = min(n - 1, m - 2), nsteps = m - 1 + jmax;
    const int RO = n * n, RD = RO + 2 * (n * (m - 1) - n * (n - 1) / 2);
    R *Fs = OP == BSQ_GEQRF ? a.F + sys : nullptr;
    const int64_t fld = a.fld;

    /* B's non-finite flag and scale are taken over all nrhs columns, as on
     * the CPU, even when the columns go through in several passes. */
    int nfb_all = 0;
    R mxb_all = R(0);
    if (OP == BSQ_GELS && nb < nrhs && valid) {
        for (int c = 0; c < nrhs; c++)
            for (int i = l; i < m; i += T) {
                const R v = a.B[sys * a.vb.ks + i * a.vb.is + c * a.vb.js];
                nfb_all |= !isfinite(v);
                mxb_all = fmax(mxb_all, fabs(v));
            }
    }

    const int npass = OP == BSQ_GELS ? (nrhs + nb - 1) / nb : 1;
    for (int pass = 0; pass < npass; pass++) {
        const int c0 = pass * nb, nbc = OP == BSQ_GELS ? min(nb, nrhs - c0) : 0, NC = n + nbc;
        bsq_io<R, SW, false, NT>(wbase, a.mstride, ldm, 0, const_cast<R *>(a.A), a.va, wsys0, wcnt, m, 0, n, inv_m, lane);
        if (OP == BSQ_GELS) bsq_io<R, SW, false, NT>(wbase, a.mstride, ldm, n, a.B, a.vb, wsys0, wcnt, m, c0, nbc, inv_m, lane);
        bsq_tsync<T>();

        /* non-finite entries and the scale factors (exact powers of two that
         * bring an extreme-scale A or B to [1, 2), as the CPU's qr_scale) */
        int nf = 0;
        R mxa = R(0), mxb = R(0);
#pragma unroll 1
        for (int j = 0; j < NC; j++)
            for (int i = l; i < m; i += T) {
                const R v = S[i + j * ldm];
                nf |= !isfinite(v);
                if (j < n) mxa = fmax(mxa, fabs(v));
                else mxb = fmax(mxb, fabs(v));
            }
        nf = bsq_or<T>(nf | nfb_all);
        mxa = bsq_max<T>(mxa);
        mxb = bsq_max<T>(fmax(mxb, mxb_all));
        R sa = R(1), sb = R(1), da = R(1), db = R(1);
        bsq_scaling<R>(mxa, da, sa);
        if (OP == BSQ_GELS) bsq_scaling<R>(mxb, db, sb);
        if (da != R(1) || db != R(1))
#pragma unroll 1
            for (int j = 0; j < NC; j++)
                for (int i = l; i < m; i += T) S[i + j * ldm] *= j < n ? da : db;
        bsq_tsync<T>();

        /* Sameh-Kuck steps.  The step loops are kept rolled (unroll 1): nvcc
         * 13.0 (ptxas, sm_90) miscompiled the trip count of the unrolled
         * rotation loop (bounds from min/max chains: a VIMNMX3 took n where
         * the PTX has -n), running rotations past jhi -- wrong results and
         * out-of-range shared-memory reads (found by compute-sanitizer). */
        /* The apply phase's lanes over columns (KW of them) take A's
         * columns only: B's rows are rotated in the rotation phase, by the
         * lane that has c and s.  As columns B's, the rightmost, had the
         * most rows to rotate, and at n = 64 a round of the column loop of
         * their own for one lane of each warp: 1.09-1.32x (gels nrhs = 1,
         * 16x128 .. 64x128), 0.97-0.98x at a few shapes (48x48, 24x128,
         * 48x128). */
        /* U: pairs per chunk of the column loop.  Teams of several warps
         * share a band out by chunks, so smaller chunks even out the warps'
         * shares before each barrier (U = 2 ran 1.08-1.13x U = 4 at 57x57
         * .. 64x128).  U = 1 for teams of 8 warps (1.02-1.04x U = 2 at
         * 48x128, 64x128), not for 4 (0.97-0.99x at 48x64). */
        constexpr int KW = T > 32 ? 32 : T, G = T / KW, U = T > 128 ? 1 : T > 32 ? 2 : 4;
#pragma unroll 1
        for (int t = 0; t < nsteps; t++) {
            const int jlo = max(0, t - m + 2), jhi = min(t >> 1, jmax);
#pragma unroll 1
            for (int j = jlo + l; j <= jhi; j += T) {
                const int i = m - 1 + 2 * j - t;
                R c, s;
                R *col = S + j * ldm;
                col[i - 1] = bsq_rot<R>(col[i - 1], col[i], c, s);
                if constexpr (CSP) cs2[j] = bsi_pair<R>::mk(c, s);
                else rc[j] = c, rs[j] = s;
                /* the right-hand sides' rows i-1, i: here, by the lane that
                 * has c and s, rather than as columns of the apply phase */
#pragma unroll 1
                for (int cb = 0; cb < nbc; cb++) {
                    R *b = S + (n + cb) * ldm;
                    const R x = b[i - 1], y = b[i];
                    b[i - 1] = c * x + s * y;
                    b[i] = c * y - s * x;
                }
                if (OP == BSQ_GEQRF && valid) {
                    const int g = j * (m - 1) - j * (j - 1) / 2 + (m - 1 - i);
                    Fs[(int64_t)(RO + 2 * g) * fld] = c;
                    Fs[(int64_t)(RO + 2 * g + 1) * fld] = s;
                }
            }
            bsq_tsync<T>();
            /* lanes over columns; in column k the step's row pairs form one
             * contiguous band (rotation j on rows m-2+2j-t, m-1+2j-t), taken
             * U pairs at a time with every load issued before the first
             * store: the pairs are disjoint, which the compiler cannot know.
             * A team of several warps: the lanes of each warp over columns,
             * the warps over the band's chunks of U pairs (the last partial
             * chunk to the warp next in turn). */
            const int kl = l % KW, gq = l / KW;
#pragma unroll 1
            for (int k = kl; k < n; k += KW) {
                const int je = min(jhi, k - 1), off = k * ldm + (m - 2 - t);
                const int nch = je >= jlo ? (je - jlo + 1) / U : 0;
                int j = jlo + gq * U;
#pragma unroll 1
                for (int q = gq; q < nch; q += G, j += G * U) {
                    R x[U], y[U], c[U], s[U];
#pragma unroll
                    for (int u = 0; u < U; u++) {
                        x[u] = S[off + 2 * (j + u)];
                        y[u] = S[off + 2 * (j + u) + 1];
                        bsq_cs_get<R, CSP>(cs2, rc, rs, j + u, c[u], s[u]);
                    }
#pragma unroll
                    for (int u = 0; u < U; u++) {
                        S[off + 2 * (j + u)] = c[u] * x[u] + s[u] * y[u];
                        S[off + 2 * (j + u) + 1] = c[u] * y[u] - s[u] * x[u];
                    }
                }
#pragma unroll 1
                for (j = jlo + nch * U; gq == nch % G && j <= je; j++) {
                    const R x = S[off + 2 * j], y = S[off + 2 * j + 1];
                    R c, s;
                    bsq_cs_get<R, CSP>(cs2, rc, rs, j, c, s);
                    S[off + 2 * j] = c * x + s * y;
                    S[off + 2 * j + 1] = c * y - s * x;
                }
            }
            bsq_tsync<T>();
        }

        /* rank: the first column j with |R(j,j)| <= m eps ||R(0:j,j)||, the
         * squares taken after a power-of-two scaling of the column */
        int zl = 0x7fffffff;
#pragma unroll 1
        for (int j = l; j < n; j += T)
            if (bsq_rank_col<R>(S + j * ldm, j, m, rdv[j])) zl = min(zl, j + 1);
        zl = bsq_min<T>(zl);
        const int32_t inf = nf ? BSOLVE_INFO_NONFINITE : (zl == 0x7fffffff ? 0 : zl);
        bsq_tsync<T>();

        if (OP == BSQ_GEQRF) {
            if (valid) {
                for (int j = 0; j < n; j++)
                    for (int i = l; i <= j; i += T) Fs[(int64_t)(i + j * n) * fld] = S[i + j * ldm];
                for (int j = l; j < n; j += T) Fs[(int64_t)(RD + j) * fld] = rdv[j];
                if (l == 0) {
                    Fs[(int64_t)(RD + n) * fld] = sa;
                    a.finfo[sys] = inf;
                    a.info[sys] = inf;
                }
            }
        } else {
            /* back substitution, column-oriented; row r belongs to lane r % TB
             * throughout, so only x_i crosses lanes (a shuffle).  A team of
             * several warps leaves it to its first: a chain of n dependent
             * steps of a few rows each, where barriers would cost more */
            constexpr int TB = T > 32 ? 32 : T;
#pragma unroll 1
            for (int c = 0; c < nbc && (T <= 32 || threadIdx.x < 32); c++) {
                R *b = S + (n + c) * ldm;
#pragma unroll 1
                for (int i = n - 1; i >= 0; i--) {
                    R x = R(0);
                    const int own = i & (TB - 1);
                    if (l == own) {
                        const R bi = b[i], rd = rdv[i];
                        x = bsq_rd_bad(rd) ? bi / S[i + i * ldm] : bi * rd;
                        b[i] = x;
                    }
                    x = bsq_bcast<TB>(x, own);
                    const R *ri = S + i * ldm;
                    for (int r = l; r < i; r += TB) b[r] -= ri[r] * x;
                }
                const R rn = bsq_tail_nrm2<TB, R>(m > n, [&](auto f) __attribute__((always_inline)) {
                    for (int r = n + ((l - n) & (TB - 1)); r < m; r += TB) f(b[r]);
                });
                const R sx = sb / sa;
                if (inf != 0)
                    for (int r = l; r < m; r += TB) b[r] = L::nan();
                else {
                    for (int r = l; r < n; r += TB) b[r] *= sx;
                    for (int r = n + ((l - n) & (TB - 1)); r < m; r += TB) b[r] = r == n ? rn * sb : R(0);
                }
            }
            if (pass == 0 && valid && l == 0) a.info[sys] = inf;
            bsq_tsync<T>();
            bsq_io<R, SW, true, NT>(wbase, a.mstride, ldm, n, a.B, a.vb, wsys0, wcnt, m, c0, nbc, inv_m, lane);
            bsq_tsync<T>();
        }
    }
}

/* geqrs: thread per system; MB >= m bounds the thread's copy of b. */
template <typename R, int MB>
__global__ void __launch_bounds__(128) bsq_k_geqrs(const bsq_args<R> a)
{
    typedef bsq_lim<R> L;
    const int64_t sys = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (sys >= a.count) return;
    const int m = a.m, n = a.n, nrhs = a.nrhs;
    const int RO = n * n, RD = RO + 2 * (n * (m - 1) - n * (n - 1) / 2);
    const R *Fs = a.F + sys;
    const int64_t fld = a.fld;
    R *Bs = a.B + sys * a.vb.ks;
    int nf = 0;
    R mx = R(0);
    for (int c = 0; c < nrhs; c++)
        for (int i = 0; i < m; i++) {
            const R v = Bs[i * a.vb.is + c * a.vb.js];
            nf |= !isfinite(v);
            mx = fmax(mx, fabs(v));
        }
    const int32_t inf = nf ? BSOLVE_INFO_NONFINITE : a.finfo[sys];
    R sb = R(1), db = R(1);
    bsq_scaling<R>(mx, db, sb);
    const R sa = Fs[(int64_t)(RD + n) * fld], sx = sb / sa;
    R b[MB];
    for (int c = 0; c < nrhs; c++) {
        R *bc = Bs + c * a.vb.js;
        for (int i = 0; i < m; i++) b[i] = bc[i * a.vb.is] * db;
        const R *G = Fs + (int64_t)RO * fld;
        for (int j = 0; j < n; j++) {
            R y = b[m - 1];
            for (int i = m - 1; i > j; i--, G += 2 * fld) {
                const R cc = G[0], ss = G[fld], x = b[i - 1];
                b[i] = cc * y - ss * x;
                y = cc * x + ss * y;
            }
            b[j] = y;
        }
        for (int i = n - 1; i >= 0; i--) {
            const R rd = Fs[(int64_t)(RD + i) * fld];
            const R x = bsq_rd_bad(rd) ? b[i] / Fs[(int64_t)(i + i * n) * fld] : b[i] * rd;
            b[i] = x;
            const R *ri = Fs + (int64_t)i * n * fld;
            for (int r = 0; r < i; r++) b[r] -= ri[r * fld] * x;
        }
        const R rn = bsq_tail_nrm2<1, R>(m > n, [&](auto f) __attribute__((always_inline)) {
            for (int i = n; i < m; i++) f(b[i]);
        });
        for (int i = 0; i < m; i++)
            bc[i * a.vb.is] = inf != 0 ? L::nan() : i < n ? b[i] * sx : i == n ? rn * sb : R(0);
    }
    if (a.info) a.info[sys] = inf;
}

#endif
