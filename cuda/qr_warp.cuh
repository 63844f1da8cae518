/*
 * qr_warp.cuh -- column-per-lane QR kernel: gels with one right-hand side
 * and m <= 64, n <= 32 outside the register kernel's buckets (qr_reg.cuh),
 * e.g. 16 x 8, 16 x 16, 32 x 16, 32 x 32, 64 x 32 (qr.cu's bsq_warp_bucket
 * decides).  Rotation formula (bsq_rot), scaling, rank test and non-finite
 * handling are those of the team kernel (qr_team.cuh), which stays the
 * reference and takes every other shape, geqrf and nrhs > 1 included.
 *
 * A team of L lanes (L = 8, 16 or 32: 4, 2 or 1 systems per warp) owns
 * one system.  Lane k holds column k of A (rows 0..M-1, M = 16, 32 or 64 a
 * compile-time bucket, rows m..M-1 zero) in registers (M = 64: about 170
 * registers in FP64, 3 blocks of 4 warps per SM).  (Teams of 64 lanes, two
 * warps, took n = 49..64 until 2026-11-26: the team kernel's blocks of
 * warps then ran 1.14-1.37x faster at every such shape measured, see
 * qr.cu.)  b
 * needs no lane of its own (n = L columns plus b fit the team): it flows
 * through the lanes with the rotations, two rows in each lane at a time
 * (see the step loop).
 *
 * Rotations in the Sameh-Kuck order of qr_team.cuh, with the steps numbered
 * from the bucket: rotation (i, j) (rows i-1, i, zeroing A(i,j)) runs at
 * step t = (M-1-i) + 2j; rotations of padded rows (i >= m) or columns
 * (j >= n) are skipped by warp-uniform guards, so that exactly the rotations
 * of the m x n system run, each meeting the operands it meets in column
 * order (qr_team.cuh argues this).  At M <= 32 the general copy applies
 * the padded rotations as identities instead (IDN: no branch per rotation);
 * at M = 64 a shape equal to its bucket (m = M, n = L) runs a copy with
 * the guards compiled out (FULL, see bsq_launch_warp_t).  One step, fully
 * unrolled so that every row index is a compile-time register index:
 *   1. lane j picks f, the upper entry of its rotation, out of its column
 *      (row M-2+2j-t: a compile-time row for each j, chosen by a select
 *      tree on the lane index; g, the lower one, is the r of its previous
 *      step, see below)
 *      and computes (c, s, r) with bsq_rot -- the step's reciprocal square
 *      roots run in parallel over the lanes (at 8 lanes per system,
 *      bsq_rot_warp: the same rotation without the rare cases' code when a
 *      warp vote finds none);
 *   2. lane j stores (c, s) in shared memory (one 16-byte store; two
 *      buffers by step parity, so one __syncwarp per step suffices);
 *   3. lane j rotates the two rows of b it holds (one more shuffle);
 *   4. for each rotation j of the step, every lane reads (c, s) with one
 *      16-byte broadcast load and rotates the two rows of its column: 2
 *      multiplies and 2 fused multiply-adds, no selects (lanes k < j rotate
 *      dead rows, see the step loop).
 * A warp thus covers all columns of a rotation at once: no shared-memory
 * copy of the matrix, no per-column loop, no barrier per rotation.
 *
 * Rank test as the team kernel, lane j on its column (rows 0..j by
 * predicated compile-time rows), the first negligible column by a team
 * minimum.  Back substitution row by row: x_i = (b_i - sum_{j>i} R(i,j)
 * x_j) / R(i,i) with lane j contributing R(i,j) x_j (row i of column j: a
 * compile-time register) and a butterfly sum over the team; lane i keeps
 * x_i.  (The sum is taken in another order than the team kernel's column
 * sweep: the solutions agree to rounding, not bit for bit.)
 *
 * Memory: straight global loads through bsi_view (lane k of a team reads
 * column k and rows k, k+L, .. of b, which go to shared memory for lane 0),
 * all issued before the first use; each lane writes x_k, the residual rows
 * (from shared memory) are spread over the lanes.
 */
#ifndef BSI_QR_WARP_CUH
#define BSI_QR_WARP_CUH

#include "qr_team.cuh"

template <typename R> struct bsq_v2;
template <> struct bsq_v2<double> { typedef double2 type; };
template <> struct bsq_v2<float> { typedef float2 type; };

/* butterfly sum over width-L lane groups */
template <int L, typename V> __device__ __forceinline__ V bsq_sum(V v)
{
#pragma unroll
    for (int o = L / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o, L);
    return v;
}

/* Warps per block (NW) and the period, in steps, of a barrier over the
 * block's warps (SY, 0: none), per (M, L) bucket.  The straight-line step
 * code is 70-520 KB, far beyond the instruction caches: warps that run it
 * in step with each other share their fetches.  H100, 2026-11-26, ours
 * IL systems/s, three alternating runs, NW 4 SY 0 -> NW 8 SY 8: 16x16
 * 2.63-2.68e8 -> 2.82-2.86e8, 13x16 2.89-2.92e8 -> 3.07-3.1e8; SY 8 at
 * M = 64: 32x64 1.09-1.12e7 -> 1.13e7 (the FULL copy then takes 182
 * registers instead of 255, with the same 8 warps per SM).  Within 2%
 * either way or slower elsewhere (8x16, 16x32, 32x32 with NW 4, 7, 8, 14
 * or 16 and SY 2, 4 or 8), so those keep NW 4 and no barrier.  Register
 * bounds measured no better either: M = 16 at 8 blocks per SM (64
 * registers instead of 70-72) and M = 32 at 5 (96 instead of 122), each
 * within 2% either way, with small spills (H100, 2026-11-25). */
template <int M, int L> __host__ __device__ constexpr int bsq_warp_nw() { return M == 16 && L == 16 ? 8 : 4; }
template <int M, int L> __host__ __device__ constexpr int bsq_warp_sy() { return M == 16 && L == 16 ? 8 : M == 64 ? 8 : 0; }

#ifndef BSQ_WARP_FAST /* 0: bsq_rot on every bucket (A/B builds) */
#define BSQ_WARP_FAST 1
#endif
template <typename R, int M, int L, bool FULL>
__global__ void __launch_bounds__(bsq_warp_nw<M, L>() * 32) bsq_k_warp(const bsq_args<R> a)
{
    typedef bsq_lim<R> Lim;
    typedef typename bsq_v2<R>::type V2;
    static_assert(L == 8 || L == 16 || L == 32, "team of 8, 16 or 32 lanes");
    static_assert(L <= M, "no more columns than rows in the bucket");
    constexpr int NW = bsq_warp_nw<M, L>();
    constexpr int NT = NW * 32 / L; /* teams (systems) per block */
    constexpr int NST = M - 1 + (L - 1 < M - 2 ? L - 1 : M - 2); /* steps of the M x L bucket */
    __shared__ V2 cs[2][NW * 32]; /* (c, s) of the step's rotations, by thread */
    __shared__ R bsh[NT][M];      /* b as loaded, then the residual rows */

    const int tib = threadIdx.x / L, tb = tib * L;
    const int k = threadIdx.x & (L - 1);
    /* the warp's first system; all of it returns together (no shuffle
     * partner or barrier member is left behind) */
    const int64_t wsys0 = (int64_t)blockIdx.x * NT + (int)(threadIdx.x & ~31u) / L;
    if (wsys0 >= a.count) return;
    const int64_t sys = (int64_t)blockIdx.x * NT + tib;
    const bool valid = sys < a.count;
    const int m = a.m, n = a.n;

    constexpr int BQ = M / L; /* rows of b per lane at load time: k, k + L, ... */
    R col[M], bq[BQ], g;
    {
        const bool ld = valid && k < n;
        const R *Ap = a.A + (ld ? sys * a.va.ks + k * a.va.js : 0);
#pragma unroll
        for (int i = 0; i < M; i++) col[i] = (ld && i < m) ? __ldg(Ap + i * a.va.is) : R(0);
        g = (ld && k == 0) ? __ldg(Ap + (m - 1) * a.va.is) : R(0);
        const R *Bp = a.B + (valid ? sys * a.vb.ks : 0);
#pragma unroll
        for (int q = 0; q < BQ; q++) bq[q] = (valid && k + q * L < m) ? Bp[(k + q * L) * a.vb.is] : R(0);
    }

    /* non-finite entries and the power-of-two scalings (as qr_team.cuh) */
    int nf = 0;
    R mxa = R(0), mxb = R(0);
#pragma unroll
    for (int i = 0; i < M; i++) {
        nf |= !isfinite(col[i]);
        mxa = fmax(mxa, fabs(col[i]));
    }
#pragma unroll
    for (int q = 0; q < BQ; q++) {
        nf |= !isfinite(bq[q]);
        mxb = fmax(mxb, fabs(bq[q]));
    }
    nf = bsq_or<L>(nf);
    mxa = bsq_max<L>(mxa);
    mxb = bsq_max<L>(mxb);
    R sa = R(1), sb = R(1), da = R(1), db = R(1);
    if (!(mxa >= Lim::safelo() && mxa <= Lim::safehi())) Lim::pow2(mxa, da, sa);
    if (!(mxb >= Lim::safelo() && mxb <= Lim::safehi())) Lim::pow2(mxb, db, sb);
    if (da != R(1)) {
#pragma unroll
        for (int i = 0; i < M; i++) col[i] *= da;
        g *= da;
    }
#pragma unroll
    for (int q = 0; q < BQ; q++) bsh[tib][k + q * L] = bq[q] * db;
    __syncwarp();

    /* Sameh-Kuck steps; steps before the first rotation of a real row
     * (t < M-m) and after the last one are skipped whole (warp-uniform).
     *
     * Lane k's rotations move up its column one row per step: at step t it
     * rotates rows (i-1, i), i = M-1+2k-t, and at step t+1 rows (i-2, i-1).
     * Row i-1's new value r is therefore the next step's g, kept in a
     * register (no other rotation touches rows i-1, i of column k between
     * the two steps: the step's other rotations are two or more rows away),
     * and only f is picked out of the column each step; g is picked once,
     * at the lane's first step.  A rotation of a padded row (i >= m) or
     * column (k >= n) is the identity (r = f).  Rows that lane k has
     * eliminated are dead: nothing reads them again, so the applies of
     * step t rotate them too (lane k's own pair included, with garbage left
     * behind) rather than spending selects to keep them; only the diagonal,
     * r of the lane's last rotation (k+1, k) at step M-2+k, is written back.
     * In column k, the rotations of columns j > k touch only dead rows (at
     * or below i+1 at step t), those of columns j < k only live rows above
     * lane k's pair (rotated as they must be). */
    /* FULL: the shape is the bucket (m = M, n = L): the guards of the step
     * loop are decided at compile time and drop out of the straight-line code */
    const int jmax = FULL ? min(L - 1, M - 2) : min(n - 1, m - 2), tfirst = FULL ? 0 : M - m, tlast = M - 2 + jmax;
    /* IDN: a rotation of a padded row or column is published as the
     * identity (c, s) = (1, 0), and every lane applies all rotations
     * jlo..jhi of the bucket's step, real or not, with no branch per
     * rotation.  Otherwise the applies stop at the last real rotation (a
     * warp-uniform break per rotation: it costs the branch and, at the
     * loop's exit, register moves).  H100, general copies at M = 32: 1.11x
     * (32x32, 30x32), 1.13x (17x32), 1.12x (16x20) with IDN; at M = 64
     * (24x48) 0.83x: 210 registers instead of 168, 8 warps per SM. */
    constexpr bool IDN = !FULL && M <= 32;
    /* b flows through the team instead of being replicated (which cost M
     * registers and 4 operations per rotation in every lane).  At step t lane
     * k rotates rows (i-1, i) of b, i = M-1+2k-t: row i is the upper row of
     * its own rotation at step t-1, kept in bg; row i-1 is the lower row of
     * lane k-1's rotation at step t-1, handed over in bo by a shuffle.  Lane
     * 0 takes its upper rows, never rotated before, from bsh (as loaded);
     * its first lower row is row m-1.  A lane not yet started keeps what it
     * is handed (its first lower row, M-1, is lane k-1's first lower row); a
     * lane done keeps bg, row k of Q^T b.  Lane n-1's lower rows are final:
     * they go to bsh, the residual rows n..m-1, where lane 0 has read the
     * originals steps before.  Identity rotations (padded rows and columns)
     * pass b on unchanged, so padding (0) flows as zeros. */
    R bg = k == 0 ? bsh[tib][m - 1] : R(0), bo = R(0);
    /* g of lane 0 at the first step is row m-1 (loaded on its own above:
     * a run-time register index would send col to local memory); every
     * other lane k starts at row M-1 (step 2k, in the step code below),
     * which is padding (0) when m < M. */
    /* one step; t is a compile-time constant at each call below */
    auto step = [&](const int t) __attribute__((always_inline)) {
        if (t < tfirst || t > tlast) return;
        const int jlo = t - M + 2 > 0 ? t - M + 2 : 0, jhi = (t >> 1) < L - 1 ? (t >> 1) : L - 1;
        R f = R(0);
        if ((t & 1) == 0 && (t >> 1) <= L - 1)
            if (k == (t >> 1)) g = col[M - 1]; /* lane t/2 starts at row M-1 */
        if (!FULL) {
            /* f by a select tree on the bits of k - jlo: nc - 1 selects for
             * the step's nc candidates, not a compare and a select for each
             * (lanes outside jlo..jhi get one of them, unused).  H100,
             * general copies: 8x16 1.06x, 16x16 1.02x, 16x32 1.03x, 32x32
             * 1.03x, 24x48 1.07x.  The FULL copies (M = 64) keep the
             * compares, which ptxas merges with the previous step's applies
             * (as in a FULL copy's SASS; the tree is not measured there). */
            /* nc <= M/2: a step's rotations are two rows apart */
            constexpr int NC = L < M / 2 ? L : M / 2;
            const int nc = jhi - jlo + 1, d = k - jlo;
            R v[NC];
#pragma unroll
            for (int i = 0; i < NC; i++) {
                const int ii = M - 2 + 2 * (jlo + i) - t;
                v[i] = i < nc ? col[ii < 0 ? 0 : ii > M - 1 ? M - 1 : ii] : R(0);
            }
#pragma unroll
            for (int w = 1; w < NC; w <<= 1) {
                if (w >= nc) break;
                const bool bit = (d & w) != 0;
#pragma unroll
                for (int i = 0; i + w < NC; i += 2 * w)
                    if (i + w < nc) v[i] = bit ? v[i + w] : v[i];
            }
            f = v[0];
        } else {
#pragma unroll
            for (int j = 0; j < L; j++)
                if (j >= jlo && j <= jhi && k == j) f = col[M - 2 + 2 * j - t];
        }
        const bool act = k >= jlo && k <= jhi && (FULL || (k < n && M - 1 + 2 * k - t < m));
        R c, s, r;
        /* the warp-uniform fast path at 8 lanes per system only: H100,
         * 2026-11-26, ours IL systems/s, three alternating runs, bsq_rot ->
         * bsq_rot_warp: 8x16 7.4-7.5e8 -> 7.6-7.7e8, 8x32 3.0e8 -> 3.3e8,
         * 6x24 and 8x24 +11-12%, 5x32 +15%; on the other buckets 16x32
         * 1.10-1.15e8 -> 1.02-1.03e8 and 32x32, 30x32, 24x32, 17x32 4-7%
         * slower (a branch per step splits the straight-line code that
         * ptxas schedules across steps; perf/NOTES-qr-gpu.md attempt 11) */
        if constexpr (BSQ_WARP_FAST && M <= 32 && L == 8) r = bsq_rot_warp<R>(f, g, c, s, act);
        else r = bsq_rot<R>(f, g, c, s);
        V2 q;
        q.x = IDN && !act ? R(1) : c;
        q.y = IDN && !act ? R(0) : s;
        cs[t & 1][threadIdx.x] = q;
        g = act ? r : f;
        R bu = __shfl_up_sync(0xffffffffu, bo, 1, L);
        if (t <= M - 2) {
            const R top = bsh[tib][M - 2 - t];
            if (k == 0) bu = top;
        }
        if (k >= jlo && k <= jhi) {
            const R cb = act ? c : R(1), sn = act ? s : R(0);
            bo = fma(cb, bg, -(sn * bu));
            bg = fma(cb, bu, sn * bg);
            if (act && k == n - 1) bsh[tib][M - 1 + 2 * k - t] = bo;
        } else if (k > jhi) {
            bg = bu;
        }
        __syncwarp();
        /* rotations jlo..jtop of the step are real (column < n, row < m) */
        const int jtop = FULL ? jhi : min(n - 1, (t + m - M) >> 1);
#pragma unroll
        for (int j = 0; j < L; j++) {
            if (j < jlo || j > jhi) continue;
            if (!IDN && !FULL && j > jtop) break; /* warp-uniform */
            const int i = M - 1 + 2 * j - t;
            const V2 w = cs[t & 1][tb + j];
            const R x = col[i - 1], y = col[i];
            col[i - 1] = fma(w.x, x, w.y * y);
            col[i] = fma(w.x, y, -(w.y * x));
        }
        if (t >= M - 2 && t - M + 2 <= L - 1 && k == t - M + 2) col[t - M + 2] = g; /* the diagonal */
    };
    /* Fully unrolled: beyond ~100 steps (the 125 of a 64 x 64 bucket) the
     * compiler falls back to a partial unroll that indexes col at run time
     * (col then lives in local memory). */
    static_assert(NST <= 96, "one fully unrolled loop");
    constexpr int SY = bsq_warp_sy<M, L>();
    int nbar = 0; /* threads of the block's warps that did not return above */
    if (SY) {
        const int64_t left = a.count - (int64_t)blockIdx.x * NT;
        nbar = left >= NT ? NW * 32 : (int)((left * L + 31) / 32) * 32;
    }
#pragma unroll
    for (int t = 0; t < NST; t++) {
        step(t);
        if (SY && t % SY == SY - 1) asm volatile("bar.sync 1, %0;" ::"r"(nbar) : "memory");
    }
    {   /* square systems: row n-1 of Q^T b is lane n-2's last lower row */
        const R bu = __shfl_up_sync(0xffffffffu, bo, 1, L);
        if (k > 0 && k == jmax + 1 && k < n) bg = bu;
    }
    __syncwarp(); /* bsh: the residual rows */

    /* rank: the first column j with |R(j,j)| <= m eps ||R(0:j,j)||, the
     * squares taken after a power-of-two scaling of the column */
    R mx = R(0), dg = R(0);
#pragma unroll
    for (int i = 0; i < L; i++) {
        if (i <= k) mx = fmax(mx, fabs(col[i]));
        if (i == k) dg = col[i];
    }
    R down, up;
    Lim::pow2(mx, down, up);
    R ss = R(0);
#pragma unroll
    for (int i = 0; i < L; i++) {
        const R qq = col[i] * down;
        if (i <= k) ss += qq * qq;
    }
    const R d = dg * down, tol = (R)m * Lim::eps();
    const bool neg = d * d <= tol * tol * ss;
    const int zl = bsq_min<L>(neg && k < n ? k + 1 : 0x7fffffff);
    const R rd = R(1) / (neg ? R(1) : dg);
    const int32_t inf = nf ? BSOLVE_INFO_NONFINITE : (zl == 0x7fffffff ? 0 : zl);
    (void)up;

    /* back substitution, row by row (lane j holds R(i,j) at register i and,
     * once known, x_j) */
    R x = R(0);
#pragma unroll
    for (int i = L - 1; i >= 0; i--) {
        if (i >= n) continue;
        const R p = bsq_sum<L>(k > i ? col[i] * x : R(0));
        if (k == i) {
            const R bi = bg - p;
            x = bsq_rd_bad(rd) ? bi / dg : bi * rd;
        }
    }

    if (valid) {
        R *Bp = a.B + sys * a.vb.ks;
        const R sx = sb / sa;
        if (k < n) Bp[k * a.vb.is] = inf != 0 ? Lim::nan() : x * sx;
#pragma unroll
        for (int i = 0; i < M; i++)
            if (i >= n && i < m && (i & (L - 1)) == k) Bp[i * a.vb.is] = inf != 0 ? Lim::nan() : bsh[tib][i] * sb;
        if (k == 0) a.info[sys] = inf;
    }
}

template <typename R, int M, int L> cudaError_t bsq_launch_warp_t(const bsq_args<R> &a, bool full, cudaStream_t st)
{
    constexpr int NW = bsq_warp_nw<M, L>();
    const int64_t per = (int64_t)NW * 32 / L;
    const int64_t blocks = (a.count + per - 1) / per;
    if (blocks > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
    /* Without its guards the compiler schedules more loads ahead, and the
     * FULL copy takes more registers (FP64: 16x16 128 instead of 72, 32x16
     * 138 / 122, 32x32 168 / 120, 64x32 255 / 168).  H100, FULL over the
     * general copy: 8x64 1.14x, 16x64 1.25x, 32x64 1.25x (M = 64, where the
     * general copy keeps its per-rotation break); at M <= 32, against the
     * branch-free general copy (IDN), 8x16 1.02x, 8x32 0.95x, 16x16 0.96x,
     * 16x32 0.86x, 32x32 0.8x: the registers cost warps (bounding them
     * spills: 260 bytes at 32x32 for 128 registers).  So FULL copies at
     * M = 64 only. */
    constexpr bool has_full = M == 64;
    if constexpr (has_full) {
        if (full) {
            bsq_k_warp<R, M, L, true><<<(unsigned)blocks, NW * 32, 0, st>>>(a);
            return cudaGetLastError();
        }
    }
    bsq_k_warp<R, M, L, false><<<(unsigned)blocks, NW * 32, 0, st>>>(a);
    return cudaGetLastError();
}

/* The (M, L) buckets, instantiated in qr_warp_d.cu / qr_warp_s.cu (compiled
 * in parallel, and not again when only qr.cu changes). */
#define BSQ_WARP_BUCKETS(X, R) \
    X(R, 16, 8) X(R, 16, 16) X(R, 32, 8) X(R, 32, 16) X(R, 32, 32) X(R, 64, 8) X(R, 64, 16) X(R, 64, 32)
#define BSQ_WARP_EXTERN(R, M, L) \
    extern template cudaError_t bsq_launch_warp_t<R, M, L>(const bsq_args<R> &, bool, cudaStream_t);
#define BSQ_WARP_INSTANTIATE(R, M, L) \
    template cudaError_t bsq_launch_warp_t<R, M, L>(const bsq_args<R> &, bool, cudaStream_t);

#endif
