/*
 * qr_warp.cuh -- column-per-lane QR kernel: gels with one right-hand side
 * and m <= 64, n <= 32 outside the register kernel's buckets (qr_reg.cuh),
 * e.g. 16 x 8, 16 x 16, 32 x 16, 32 x 32, 64 x 32 (qr_dispatch.cuh's
 * bsq_warp_bucket decides); in FP64 only where the Householder kernel of
 * qr_hh.cuh, which takes FP64's m <= 64, is forced off.
 * Rotation formula (bsq_rot), scaling, rank test and non-finite handling
 * are those of the team kernel (qr_team.cuh), which stays the reference and
 * takes every other shape, geqrf and nrhs > 1 included.
 *
 * A team of L lanes (L = 8, 16 or 32: 4, 2 or 1 systems per warp) owns
 * one system.  Lane k holds column k of A (rows 0..M-1, M = 16, 32 or 64 a
 * compile-time bucket, rows m..M-1 zero) in registers (M = 64: about 170
 * registers in FP64, 3 blocks of 4 warps per SM).  n > 32 is the team
 * kernel's (qr_dispatch.cuh says why).  b needs no lane of its own (n = L
 * columns plus b fit the team): it flows through the lanes with the
 * rotations, two rows in each lane at a time (see the step loop).
 *
 * A lane may hold C = 2 columns instead of one (columns 2k and 2k+1, teams
 * of half the lanes for the same n): each step then has two independent
 * rotations per lane, and the step's lane-uniform work (the select tree's
 * bit tests, the b shuffle, the __syncwarp) is shared by twice the
 * systems; b passes from a lane's first column to its second in
 * registers.  Below, "lane j" is "the lane holding column j".
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
 *      roots run in parallel over the lanes (at 8 columns per team,
 *      bsq_rot_unscaled, the same rotation without the rare cases' code,
 *      when a warp vote finds none);
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
 * column k -- two rows per load for suitable column-major A, LD =
 * BSQ_LD_PAIR, see qr_dispatch.cuh -- and rows k, k+L, .. of b, which
 * go to shared memory for lane 0),
 * all issued before the first use; each lane writes x_k, the residual rows
 * (from shared memory) are spread over the lanes.
 */
#ifndef BSI_QR_WARP_CUH
#define BSI_QR_WARP_CUH

#include <type_traits>

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
 * block's warps (SY, 0: none), per (M, L, C) bucket.  The straight-line step
 * code is 70-520 KB, far beyond the instruction caches: warps that run it
 * in step with each other share their fetches.  NW 8 with SY 8 ran 1.06x
 * NW 4 without a barrier at M = 16, L = 16 (16x16, 13x16), and SY 8 1.03x
 * at M = 64 (32x64; the FULL copy then takes 182 registers instead of 255,
 * with the same 8 warps per SM); elsewhere other NW and SY ran within 2% or
 * slower, and so did register bounds (small spills).  Two columns per lane
 * (124 registers): NW 8 with SY 8 ran 0.75x, a bound of 96 registers 0.92x
 * on an H100 (1.04x on an H200), so neither. */
template <int M, int L, int C> __host__ __device__ constexpr int bsq_warp_nw() { return M == 16 && L == 16 && C == 1 ? 8 : 4; }
template <int M, int L, int C> __host__ __device__ constexpr int bsq_warp_sy() { return C > 1 ? 0 : M == 16 && L == 16 ? 8 : M == 64 ? 8 : 0; }

/* How a lane gets its columns of A (the LD parameter): */
enum {
    BSQ_LD_ROW = 0, /* a row per load, any layout */
    BSQ_LD_PAIR = 1 /* column-major A (unit row stride), m and the strides even,
                       A 16-byte aligned: two rows per load */
};
/* whether a launch's A allows BSQ_LD_PAIR (the kernels that have such
 * copies decide where they use them) */
template <typename R> static inline bool bsq_ld_pair_ok(const bsq_args<R> &a)
{
    return !a.a_il && a.va.is == 1 && !((uintptr_t)a.A & 15) && !((a.va.ks | a.va.js | a.m) & 1);
}
template <typename R, int M, int L, int C, bool FULL, int LD>
__global__ void __launch_bounds__(bsq_warp_nw<M, L, C>() * 32) bsq_k_warp(const bsq_args<R> a)
{
    typedef bsq_lim<R> Lim;
    typedef typename bsq_v2<R>::type V2;
    static_assert(L == 4 || L == 8 || L == 16 || L == 32, "team of 4, 8, 16 or 32 lanes");
    static_assert(C == 1 || C == 2, "one or two columns per lane");
    constexpr int NC = L * C; /* columns of the bucket */
    static_assert(NC <= M, "no more columns than rows in the bucket");
    constexpr int NW = bsq_warp_nw<M, L, C>();
    constexpr int NT = NW * 32 / L; /* teams (systems) per block */
    constexpr int NST = M - 1 + (NC - 1 < M - 2 ? NC - 1 : M - 2); /* steps of the M x NC bucket */
    __shared__ V2 cs[2][NW * 32 * C]; /* (c, s) of the step's rotations, by column */
    __shared__ R bsh[NT][M];          /* b as loaded, then the residual rows */

    const int tib = threadIdx.x / L, tb = tib * NC;
    const int k = threadIdx.x & (L - 1);
    /* the warp's first system; all of it returns together (no shuffle
     * partner or barrier member is left behind) */
    const int64_t wsys0 = (int64_t)blockIdx.x * NT + (int)(threadIdx.x & ~31u) / L;
    if (wsys0 >= a.count) return;
    const int64_t sys = (int64_t)blockIdx.x * NT + tib;
    const bool valid = sys < a.count;
    const int m = a.m, n = a.n;

    constexpr int BQ = M / L; /* rows of b per lane at load time: k, k + L, ... */
    /* lane k holds columns C*k + e, e < C */
    R col[C][M], bq[BQ], g[C];
    /* WHOLE: the factorization runs first with every rotation on bsq_rot's
     * unscaled path (bsq_rot_unscaled<R, true>: the same operations, so the
     * same results, without the scaling code that bsq_rot runs on every lane
     * at every step); a lane that meets operands outside [rtmin, rtmax]
     * (other than f = g = 0) clears ok, and the warp then factors its
     * systems again from the loads with bsq_rot (FASTP false).  No branch
     * per step, where a per-step vote (as at L * C = 8 below) cost the
     * straight-line code 4-7% at 16 and 32 columns.  It ran 1.01-1.1x
     * (16x32, 12x32, 32x32 and down to 17x32) at M = 32 and 1.05x on the
     * FULL 64 x 32 copy (which spills about 100 bytes with it and is still
     * faster); 0.97-0.98x at M = 16 with 16 columns, 0.95-0.97x on the
     * general 64 x 32 and the FULL 64 x 16 copies, and 0.84x in place of
     * the per-step vote at 8 columns: so only where WHOLE says. */
    constexpr bool WHOLE = L * C >= 16 && (M == 32 || (M == 64 && FULL && L * C == 32));
    int nf, ok = 1;
    R sa, sb, bg[C], bo[C];
    auto factor = [&](auto fastc) __attribute__((always_inline)) {
    constexpr bool FASTP = decltype(fastc)::value;
    {
#pragma unroll
        for (int e = 0; e < C; e++) {
            const int c = C * k + e;
            const bool ld = valid && c < n;
            const R *Ap = a.A + (ld ? sys * a.va.ks + c * a.va.js : 0);
            if constexpr (LD == BSQ_LD_PAIR) {
#pragma unroll
                for (int i = 0; i < M; i += 2) {
                    const V2 v = (ld && i < m) ? __ldg(reinterpret_cast<const V2 *>(Ap + i)) : V2{R(0), R(0)};
                    col[e][i] = v.x;
                    col[e][i + 1] = v.y;
                }
            } else {
#pragma unroll
                for (int i = 0; i < M; i++) col[e][i] = (ld && i < m) ? __ldg(Ap + i * a.va.is) : R(0);
            }
            g[e] = (ld && c == 0) ? __ldg(Ap + (m - 1) * a.va.is) : R(0);
        }
        const R *Bp = a.B + (valid ? sys * a.vb.ks : 0);
#pragma unroll
        for (int q = 0; q < BQ; q++) bq[q] = (valid && k + q * L < m) ? Bp[(k + q * L) * a.vb.is] : R(0);
    }

    /* non-finite entries and the power-of-two scalings (as qr_team.cuh) */
    nf = 0;
    R mxa = R(0), mxb = R(0);
#pragma unroll
    for (int e = 0; e < C; e++)
#pragma unroll
        for (int i = 0; i < M; i++) {
            nf |= !isfinite(col[e][i]);
            mxa = fmax(mxa, fabs(col[e][i]));
        }
#pragma unroll
    for (int q = 0; q < BQ; q++) {
        nf |= !isfinite(bq[q]);
        mxb = fmax(mxb, fabs(bq[q]));
    }
    nf = bsq_or<L>(nf);
    mxa = bsq_max<L>(mxa);
    mxb = bsq_max<L>(mxb);
    sa = R(1), sb = R(1);
    R da = R(1), db = R(1);
    bsq_scaling<R>(mxa, da, sa);
    bsq_scaling<R>(mxb, db, sb);
    if (da != R(1)) {
#pragma unroll
        for (int e = 0; e < C; e++) {
#pragma unroll
            for (int i = 0; i < M; i++) col[e][i] *= da;
            g[e] *= da;
        }
    }
#pragma unroll
    for (int q = 0; q < BQ; q++) bsh[tib][k + q * L] = bq[q] * db;
    __syncwarp();

    /* Sameh-Kuck steps; steps before the first rotation of a real row
     * (t < M-m) and after the last one are skipped whole (warp-uniform).
     *
     * Column c's rotations move up the column one row per step: at step t
     * they rotate rows (i-1, i), i = M-1+2c-t, and at step t+1 rows (i-2, i-1).
     * Row i-1's new value r is therefore the next step's g, kept in a
     * register (no other rotation touches rows i-1, i of column c between
     * the two steps: the step's other rotations are two or more rows away),
     * and only f is picked out of the column each step; g is picked once,
     * at the column's first step.  A rotation of a padded row (i >= m) or
     * column (c >= n) is the identity (r = f).  Rows that column c has
     * eliminated are dead: nothing reads them again, so the applies of
     * step t rotate them too (column c's own pair included, with garbage left
     * behind) rather than spending selects to keep them; only the diagonal,
     * r of the column's last rotation (c+1, c) at step M-2+c, is written back.
     * In column c, the rotations of columns j > c touch only dead rows (at
     * or below i+1 at step t), those of columns j < c only live rows above
     * column c's pair (rotated as they must be). */
    /* FULL: the shape is the bucket (m = M, n = NC): the guards of the step
     * loop are decided at compile time and drop out of the straight-line code */
    const int jmax = FULL ? min(NC - 1, M - 2) : min(n - 1, m - 2), tfirst = FULL ? 0 : M - m, tlast = M - 2 + jmax;
    /* IDN: a rotation of a padded row or column is published as the
     * identity (c, s) = (1, 0), and every lane applies all rotations
     * jlo..jhi of the bucket's step, real or not, with no branch per
     * rotation.  Otherwise the applies stop at the last real rotation (a
     * warp-uniform break per rotation: it costs the branch and, at the
     * loop's exit, register moves).  IDN ran 1.11-1.13x on the general
     * copies at M = 32 (32x32, 17x32, 16x20), but 0.83x at M = 64 (24x48:
     * 210 registers instead of 168, 8 warps per SM). */
    constexpr bool IDN = !FULL && M <= 32;
    /* b flows through the team instead of being replicated (which cost M
     * registers and 4 operations per rotation in every lane).  At step t
     * column c rotates rows (i-1, i) of b, i = M-1+2c-t: row i is the upper
     * row of its own rotation at step t-1, kept in bg; row i-1 is the lower
     * row of column c-1's rotation at step t-1, handed over in bo (by a
     * shuffle from lane k-1 for a lane's first column, in registers for the
     * others).  Column 0 takes its upper rows, never rotated before, from
     * bsh (as loaded); its first lower row is row m-1.  A column not yet
     * started keeps what it is handed (its first lower row, M-1, is column
     * c-1's first lower row); a column done keeps bg, row c of Q^T b.
     * Column n-1's lower rows are final: they go to bsh, the residual rows
     * n..m-1, where column 0 has read the originals steps before.  Identity
     * rotations (padded rows and columns) pass b on unchanged, so padding (0)
     * flows as zeros. */
#pragma unroll
    for (int e = 0; e < C; e++) {
        bg[e] = k == 0 && e == 0 ? bsh[tib][m - 1] : R(0);
        bo[e] = R(0);
    }
    /* g of column 0 at the first step is row m-1 (loaded on its own above:
     * a run-time register index would send col to local memory); every
     * other column c starts at row M-1 (step 2c, in the step code below),
     * which is padding (0) when m < M. */
    /* one step; t is a compile-time constant at each call below */
    auto step = [&](const int t) __attribute__((always_inline)) {
        if (t < tfirst || t > tlast) return;
        const int jlo = t - M + 2 > 0 ? t - M + 2 : 0, jhi = (t >> 1) < NC - 1 ? (t >> 1) : NC - 1;
        if ((t & 1) == 0 && (t >> 1) <= NC - 1)
            if (k == (t >> 1) / C) g[(t >> 1) % C] = col[(t >> 1) % C][M - 1]; /* column t/2 starts at row M-1 */
        R f[C], cc[C], ss[C], r[C];
        bool act[C];
#pragma unroll
        for (int e = 0; e < C; e++) {
            f[e] = R(0);
            /* the lanes whose column e falls in jlo..jhi: klo..khi */
            const int klo = jlo - e > 0 ? (jlo - e + C - 1) / C : 0, khi = jhi - e >= 0 ? (jhi - e) / C : -1;
            if (khi < klo) {
                act[e] = false;
                continue;
            }
            if (!FULL) {
                /* f by a select tree on the bits of k - klo: nk - 1 selects for
                 * the step's nk candidates, not a compare and a select for each
                 * (lanes outside klo..khi get one of them, unused): 1.02-1.07x
                 * on the general copies.  The FULL copies (M = 64) keep the
                 * compares, which ptxas merges with the previous step's
                 * applies (as in a FULL copy's SASS). */
                /* nk <= M/(2C): a step's rotations are two rows apart */
                constexpr int NK = L < M / (2 * C) ? L : M / (2 * C);
                const int nk = khi - klo + 1, d = k - klo;
                R v[NK];
#pragma unroll
                for (int i = 0; i < NK; i++) {
                    const int ii = M - 2 + 2 * (C * (klo + i) + e) - t;
                    v[i] = i < nk ? col[e][ii < 0 ? 0 : ii > M - 1 ? M - 1 : ii] : R(0);
                }
#pragma unroll
                for (int w = 1; w < NK; w <<= 1) {
                    if (w >= nk) break;
                    const bool bit = (d & w) != 0;
#pragma unroll
                    for (int i = 0; i + w < NK; i += 2 * w)
                        if (i + w < nk) v[i] = bit ? v[i + w] : v[i];
                }
                f[e] = v[0];
            } else {
#pragma unroll
                for (int kk = 0; kk < L; kk++)
                    if (kk >= klo && kk <= khi && k == kk) f[e] = col[e][M - 2 + 2 * (C * kk + e) - t];
            }
            const int c = C * k + e;
            act[e] = k >= klo && k <= khi && (FULL || (c < n && M - 1 + 2 * c - t < m));
        }
        /* The warp-uniform fast path: where every used rotation's f and g
         * lie in the unscaled range and are not both zero (one vote over the
         * warp for all of a lane's C rotations), bsq_rot_unscaled, the same
         * operations on the same operands as bsq_rot's, without the
         * predicated scaling and zero-case code that bsq_rot runs on every
         * lane whether needed or not; otherwise bsq_rot.  At 8 columns per
         * team only, where it ran 1.02-1.15x bsq_rot (8x16, 8x32, 6x24,
         * 5x32; two columns per lane 1.05x); on the larger buckets
         * 0.9-0.96x: a branch per step splits the straight-line code that
         * ptxas schedules across steps (WHOLE instead, above). */
        if constexpr (M <= 32 && L * C == 8) {
            bool in = true;
#pragma unroll
            for (int e = 0; e < C; e++) {
                const R af = fabs(f[e]), ag = fabs(g[e]), u = af > ag ? af : ag;
                in = in && (!act[e] || (u >= Lim::rtmin() && u <= Lim::rtmax()));
            }
            if (__all_sync(0xffffffffu, in)) {
#pragma unroll
                for (int e = 0; e < C; e++) r[e] = bsq_rot_unscaled<R>(f[e], g[e], cc[e], ss[e]);
            } else {
#pragma unroll
                for (int e = 0; e < C; e++) r[e] = bsq_rot<R>(f[e], g[e], cc[e], ss[e]);
            }
        } else if constexpr (FASTP) {
            /* WHOLE's first pass (see factor): the unscaled path for every
             * rotation, ok cleared where bsq_rot would have scaled */
#pragma unroll
            for (int e = 0; e < C; e++) {
                const R af = fabs(f[e]), ag = fabs(g[e]), u = af > ag ? af : ag;
                ok &= !act[e] || nf || (u >= Lim::rtmin() && u <= Lim::rtmax()) || u == R(0);
                r[e] = bsq_rot_unscaled<R, true>(f[e], g[e], cc[e], ss[e]);
            }
        } else {
#pragma unroll
            for (int e = 0; e < C; e++) r[e] = bsq_rot<R>(f[e], g[e], cc[e], ss[e]);
        }
#pragma unroll
        for (int e = 0; e < C; e++) {
            V2 q;
            q.x = IDN && !act[e] ? R(1) : cc[e];
            q.y = IDN && !act[e] ? R(0) : ss[e];
            cs[t & 1][threadIdx.x * C + e] = q; /* column C*k + e of team tib */
            g[e] = act[e] ? r[e] : f[e];
        }
        R bu[C], b0 = __shfl_up_sync(0xffffffffu, bo[C - 1], 1, L);
        if (t <= M - 2) {
            const R top = bsh[tib][M - 2 - t];
            if (k == 0) b0 = top;
        }
        bu[0] = b0;
#pragma unroll
        for (int e = 1; e < C; e++) bu[e] = bo[e - 1];
#pragma unroll
        for (int e = 0; e < C; e++) {
            const int c = C * k + e;
            if (c >= jlo && c <= jhi) {
                const R cb = act[e] ? cc[e] : R(1), sn = act[e] ? ss[e] : R(0);
                bo[e] = fma(cb, bg[e], -(sn * bu[e]));
                bg[e] = fma(cb, bu[e], sn * bg[e]);
                if (act[e] && c == n - 1) bsh[tib][M - 1 + 2 * c - t] = bo[e];
            } else if (c > jhi) {
                bg[e] = bu[e];
            }
        }
        __syncwarp();
        /* rotations jlo..jtop of the step are real (column < n, row < m) */
        const int jtop = FULL ? jhi : min(n - 1, (t + m - M) >> 1);
#pragma unroll
        for (int j = 0; j < NC; j++) {
            if (j < jlo || j > jhi) continue;
            if (!IDN && !FULL && j > jtop) break; /* warp-uniform */
            const int i = M - 1 + 2 * j - t;
            const V2 w = cs[t & 1][tb + j];
#pragma unroll
            for (int e = 0; e < C; e++) {
                const R x = col[e][i - 1], y = col[e][i];
                col[e][i - 1] = fma(w.x, x, w.y * y);
                col[e][i] = fma(w.x, y, -(w.y * x));
            }
        }
        /* the diagonal */
        if (t >= M - 2 && t - M + 2 <= NC - 1 && k == (t - M + 2) / C) col[(t - M + 2) % C][t - M + 2] = g[(t - M + 2) % C];
    };
    /* Fully unrolled: beyond ~100 steps (the 125 of a 64 x 64 bucket) the
     * compiler falls back to a partial unroll that indexes col at run time
     * (col then lives in local memory). */
    static_assert(NST <= 96, "one fully unrolled loop");
    constexpr int SY = bsq_warp_sy<M, L, C>();
    int nbar = 0; /* threads of the block's warps that did not return above */
    if (SY) {
        const int64_t left = a.count - (int64_t)blockIdx.x * NT;
        nbar = left >= NT ? NW * 32 : (int)((left * L + 31) / 32) * 32;
    }
#pragma unroll
    for (int t = 0; t < NST; t++) {
        step(t);
        /* (a pass redone by one warp has no barrier: the block's other warps
         * are past the first pass's, or at them with this warp's) */
        if (SY && (FASTP || !WHOLE) && t % (SY ? SY : 1) == SY - 1) asm volatile("bar.sync 1, %0;" ::"r"(nbar) : "memory");
    }
    {   /* square systems: row n-1 of Q^T b is column n-2's last lower row */
        const R bu0 = __shfl_up_sync(0xffffffffu, bo[C - 1], 1, L);
#pragma unroll
        for (int e = 0; e < C; e++) {
            const int c = C * k + e;
            if (c > 0 && c == jmax + 1 && c < n) bg[e] = e == 0 ? bu0 : bo[e == 0 ? 0 : e - 1];
        }
    }
    __syncwarp(); /* bsh: the residual rows */
    };
    if constexpr (WHOLE) {
        factor(std::true_type{});
        if (!__all_sync(0xffffffffu, ok)) factor(std::false_type{});
    } else {
        factor(std::false_type{});
    }

    /* rank: the first column j with |R(j,j)| <= m eps ||R(0:j,j)||, the
     * squares taken after a power-of-two scaling of the column */
    int zc = 0x7fffffff;
    R rd[C], dg[C];
#pragma unroll
    for (int e = 0; e < C; e++) {
        const int c = C * k + e;
        R mx = R(0);
        dg[e] = R(0);
#pragma unroll
        for (int i = 0; i < NC; i++) {
            if (i <= c) mx = fmax(mx, fabs(col[e][i]));
            if (i == c) dg[e] = col[e][i];
        }
        R down, up;
        Lim::pow2(mx, down, up);
        R sq = R(0);
#pragma unroll
        for (int i = 0; i < NC; i++) {
            const R qq = col[e][i] * down;
            if (i <= c) sq += qq * qq;
        }
        const R d = dg[e] * down, tol = (R)m * Lim::eps();
        const bool neg = d * d <= tol * tol * sq;
        if (neg && c < n) zc = min(zc, c + 1);
        rd[e] = R(1) / (neg ? R(1) : dg[e]);
        (void)up;
    }
    const int zl = bsq_min<L>(zc);
    const int32_t inf = nf ? BSOLVE_INFO_NONFINITE : (zl == 0x7fffffff ? 0 : zl);

    /* back substitution, row by row (column j holds R(i,j) at register i
     * and, once known, x_j) */
    R x[C];
#pragma unroll
    for (int e = 0; e < C; e++) x[e] = R(0);
#pragma unroll
    for (int i = NC - 1; i >= 0; i--) {
        if (i >= n) continue;
        R pp = C * k > i ? col[0][i] * x[0] : R(0);
#pragma unroll
        for (int e = 1; e < C; e++) pp += C * k + e > i ? col[e][i] * x[e] : R(0);
        const R p = bsq_sum<L>(pp);
        if (k == i / C) {
            const int e = i % C;
            const R bi = bg[e] - p;
            x[e] = bsq_rd_bad(rd[e]) ? bi / dg[e] : bi * rd[e];
        }
    }

    if (valid) {
        R *Bp = a.B + sys * a.vb.ks;
        const R sx = sb / sa;
#pragma unroll
        for (int e = 0; e < C; e++)
            if (C * k + e < n) Bp[(C * k + e) * a.vb.is] = inf != 0 ? Lim::nan() : x[e] * sx;
#pragma unroll
        for (int i = 0; i < M; i++)
            if (i > n && i < m && (i & (L - 1)) == k) Bp[i * a.vb.is] = inf != 0 ? Lim::nan() : R(0);
        /* row n: the residual rows' norm (canonical form, bsq_tail_nrm2),
         * by one lane from shared memory: shuffles among the lanes made
         * ptxas keep up to 30 more registers live in the back substitution */
        if (k == 0 && n < m) {
            const R rn = bsq_tail_nrm2<1, R>(m > n, [&](auto f) __attribute__((always_inline)) {
                for (int i = n; i < m; i++) f(bsh[tib][i]);
            });
            Bp[n * a.vb.is] = inf != 0 ? Lim::nan() : rn * sb;
        }
        if (k == 0) a.info[sys] = inf;
    }
}

template <typename R, int M, int L, int C, int LD> cudaError_t bsq_launch_warp_t(const bsq_args<R> &a, bool full, cudaStream_t st)
{
    constexpr int NW = bsq_warp_nw<M, L, C>();
    const int64_t per = (int64_t)NW * 32 / L;
    const int64_t blocks = (a.count + per - 1) / per;
    if (blocks > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
    /* Without its guards the compiler schedules more loads ahead, and the
     * FULL copy takes more registers (FP64: 16x16 128 instead of 72, 32x32
     * 168 / 120, 64x32 255 / 168): worth it at M = 64 only, where the
     * general copy keeps its per-rotation break (qr_dispatch.cuh). */
    constexpr bool has_full = M == 64 && LD == BSQ_LD_ROW;
    if constexpr (has_full) {
        if (full) {
            bsq_k_warp<R, M, L, C, true, LD><<<(unsigned)blocks, NW * 32, 0, st>>>(a);
            return cudaGetLastError();
        }
    }
    bsq_k_warp<R, M, L, C, false, LD><<<(unsigned)blocks, NW * 32, 0, st>>>(a);
    return cudaGetLastError();
}

/* The (M, L, C) buckets, instantiated in qr_warp_d.cu / qr_warp_s.cu (compiled
 * in parallel, and not again when only qr.cu changes); two columns per lane
 * in FP64 only, and the copies that read column-major A two rows per load
 * (LD = BSQ_LD_PAIR, qr_warp_dv.cu) in FP64 at M <= 32 only, where
 * qr_dispatch.cuh chooses them. */
#define BSQ_WARP_BUCKETS(X, R)                                                                                 \
    X(R, 16, 8, 1, 0) X(R, 16, 16, 1, 0) X(R, 32, 8, 1, 0) X(R, 32, 16, 1, 0) X(R, 32, 32, 1, 0) X(R, 64, 8, 1, 0) \
    X(R, 64, 16, 1, 0) X(R, 64, 32, 1, 0)
#define BSQ_WARP_BUCKETS_D(X) X(double, 16, 4, 2, 0)
#define BSQ_WARP_BUCKETS_DV(X)                                                                                 \
    X(double, 16, 8, 1, 1) X(double, 16, 16, 1, 1) X(double, 32, 8, 1, 1) X(double, 32, 16, 1, 1)             \
    X(double, 32, 32, 1, 1)
#define BSQ_WARP_EXTERN(R, M, L, C, V) \
    extern template cudaError_t bsq_launch_warp_t<R, M, L, C, V>(const bsq_args<R> &, bool, cudaStream_t);
#define BSQ_WARP_INSTANTIATE(R, M, L, C, V) \
    template cudaError_t bsq_launch_warp_t<R, M, L, C, V>(const bsq_args<R> &, bool, cudaStream_t);

#endif
