/*
 * qr_pair.cuh -- the team kernel's Sameh-Kuck steps taken two at a time:
 * FP64 gels with one right-hand side, 2 <= m <= 128, n <= 64
 * (qr_dispatch.cuh gives it m = 65..71 with 40 <= n <= 56, outside the
 * Householder kernel of qr_hh.cuh, and m <= 64 with n >= 33 where that is
 * forced off: where it ran faster than the team kernel), whose
 * (qr_team.cuh) steps load and store every rotated entry once per step.
 *
 * A block of TC * SEG threads (TC = 32 or 64 column slots, SEG = 1, 2 or 4
 * threads per column) owns one system, [A b] in shared memory as in the
 * team kernel, and runs the steps in pairs (t, t + 1), t even:
 *
 * Rotation phase: lane j - lo (lo: the step's first rotation) computes
 * rotation (j, t) (rows p, p + 1, p = m - 2 + 2j - t; f and g from its
 * column as the team kernel) and then
 * rotation (j, t + 1) (rows p - 1, p): its g is r of (j, t), its f is row
 * p - 1 of column j after rotation (j - 1, t), which lane j obtains by
 * computing rotation (j - 1, t) itself from the same operands as lane j - 1
 * (bit for bit the same (c, s)) and applying it to its two entries -- no
 * barrier between the two steps' rotations.  The (c, s) pairs and the r's
 * go to shared memory.
 *
 * Apply phase: a column slot takes one column (b, then A's from the right:
 * the columns with the longest bands share the first warp), and its SEG
 * threads sweep consecutive segments of the pair's band once, rotation j
 * ascending: rotation (j, t) on rows (p, p + 1), then (j, t + 1) on rows
 * (p - 1, p), where row p - 1 is the lower row of (j - 1, t), carried in a
 * register from the previous rotation (a segment computes its first one
 * from rows read before a barrier).  Rows p - 1 and p are then final for
 * the pair and stored; each row is loaded and stored once per two steps
 * (the team kernel: twice each).  At the band's end the column's own
 * rotations leave r2 (or r1 where its last rotation was at step t) as the
 * team kernel's col[i - 1] = r does.
 *
 * The rotations and their order are those of the team kernel (rotation (j,
 * t + 1) only meets its operands earlier), so are the factors and
 * solutions, to rounding.  Scaling, rotation formula, rank test and
 * non-finite handling are the team kernel's.
 */
#ifndef BSI_QR_PAIR_CUH
#define BSI_QR_PAIR_CUH

#include <type_traits>

#include "qr_team.cuh"

template <typename R, int TC, int SEG>
__global__ void __launch_bounds__(TC * SEG) bsq_k_pair(const bsq_args<R> a)
{
    constexpr int T = TC * SEG;
    typedef bsq_lim<R> L;
    typedef typename bsi_pair<R>::T P2;
    extern __shared__ __align__(16) unsigned char bsq_smem[];
    __shared__ P2 cs1[TC], cs2[TC];
    __shared__ R rr1[TC], rr2[TC];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int m = a.m, n = a.n, ldm = a.ldm;
    R *const S = reinterpret_cast<R *>(bsq_smem);
    R *const rdv = S + ldm * (n + 1);
    const int64_t sys = blockIdx.x;
    const float inv_m = 1.0f / (float)m;

    int nf = 0, ok = 1;
    R sa = R(1), sb = R(1);
    /* FASTP: the rotations on bsq_rot's unscaled path (the same operations
     * where it applies); one outside [rtmin, rtmax] clears ok, and the block
     * factors its system again from the loads with bsq_rot (as qr_warp.cuh's
     * WHOLE copies) */
    auto factor = [&](auto fastc) __attribute__((always_inline)) {
        constexpr bool FASTP = decltype(fastc)::value;
        auto rot = [&](R f, R g, R &c, R &sn) __attribute__((always_inline)) -> R {
            if constexpr (FASTP) {
                const R af = fabs(f), ag = fabs(g), um = af > ag ? af : ag;
                ok &= nf || (um >= L::rtmin() && um <= L::rtmax()) || um == R(0);
                return bsq_rot_unscaled<R, true>(f, g, c, sn);
            } else {
                return bsq_rot<R>(f, g, c, sn);
            }
        };
        bsq_io<R, 1, false, T>(S, 0, ldm, 0, const_cast<R *>(a.A), a.va, sys, 1, m, 0, n, inv_m, tid);
        bsq_io<R, 1, false, T>(S, 0, ldm, n, a.B, a.vb, sys, 1, m, 0, 1, inv_m, tid);
        __syncthreads();

        /* non-finite entries and the scale factors, as the team kernel */
        nf = 0;
        R mxa = R(0), mxb = R(0);
        for (int j = 0; j <= n; j++)
            for (int i = tid; i < m; i += T) {
                const R v = S[i + j * ldm];
                nf |= !isfinite(v);
                if (j < n) mxa = fmax(mxa, fabs(v));
                else mxb = fmax(mxb, fabs(v));
            }
        nf = bsq_or<T>(nf);
        mxa = bsq_max<T>(mxa);
        mxb = bsq_max<T>(mxb);
        R da = R(1), db = R(1);
        sa = R(1), sb = R(1);
        bsq_scaling<R>(mxa, da, sa);
        bsq_scaling<R>(mxb, db, sb);
        if (da != R(1) || db != R(1))
            for (int j = 0; j <= n; j++)
                for (int i = tid; i < m; i += T) S[i + j * ldm] *= j < n ? da : db;
        __syncthreads();

        /* the apply phase's column: b, then A's columns from the right (column
         * 0 receives no rotation) */
        const int slot = tid % TC, seg = tid / TC;
        const int kc = slot == 0 ? n : n - slot;
        const bool kb = slot == 0, kact = slot < n;
        R *const ck = S + (kact ? kc : 0) * ldm;
        const int jmax = min(n - 1, m - 2), nsteps = m - 1 + jmax;
#pragma unroll 1
        for (int t = 0; t < nsteps; t += 2) {
            const int lo1 = max(0, t - m + 2), hi1 = min(t >> 1, jmax);
            const int lo2 = max(0, t + 1 - m + 2), hi2 = min((t + 1) >> 1, jmax);
            if (tid <= hi1 - lo1) { /* rotation phase: rotations (j, t) and (j, t + 1), j = lo1 + tid */
                const int j = lo1 + tid, p = m - 2 + 2 * j - t;
                R c1, s1, c2 = R(1), s2 = R(0), r2 = R(0);
                const R *cj = S + j * ldm;
                const R r1 = rot(cj[p], cj[p + 1], c1, s1);
                if (j >= lo2 && j <= hi2) {
                    R f = cj[p - 1];
                    if (j - 1 >= lo1) {
                        /* row p - 1 after rotation (j - 1, t), as lane j - 1
                         * and the apply phase compute it */
                        const R *cm = cj - ldm;
                        R c0, s0;
                        rot(cm[p - 2], cm[p - 1], c0, s0);
                        f = c0 * f - s0 * cj[p - 2];
                    }
                    r2 = rot(f, r1, c2, s2);
                }
                cs1[j] = bsi_pair<R>::mk(c1, s1);
                cs2[j] = bsi_pair<R>::mk(c2, s2);
                rr1[j] = r1;
                rr2[j] = r2;
            }
            __syncthreads();
            /* apply phase: column kc's band, rotations lo1 .. je, in SEG
             * segments [j0, j1) of about equal length, one thread each; a
             * segment's first carried row is the lower row of the previous
             * segment's last rotation at step t, which it computes itself from
             * rows read before the barrier below (the previous segment stores
             * one of them) */
            const int je = kb ? hi1 : min(hi1, kc - 1), len = je >= lo1 ? je - lo1 + 1 : 0;
            const int j0 = lo1 + len * seg / SEG, j1 = lo1 + len * (seg + 1) / SEG;
            const bool id2 = lo2 > lo1 && j0 == lo1; /* (lo1, t + 1) is not in the step */
            int p = m - 2 + 2 * j0 - t;
            /* cy: the carried row p - 1; xl: the last rotation's lower row,
             * which the next segment overwrites (read before the barrier too) */
            R cy = R(0), x0 = R(0), x1 = R(0), xl = R(0);
            if (kact && j1 > j0) {
                x0 = ck[p], x1 = ck[p + 1];
                xl = ck[p + 2 * (j1 - 1 - j0) + 1];
                if (j0 > lo1) {
                    const P2 q = cs1[j0 - 1];
                    cy = q.x * ck[p - 1] - q.y * ck[p - 2];
                } else if (!id2) {
                    cy = ck[p - 1]; /* rotation (lo1 - 1, t) is not in the step */
                }
            }
            if (SEG > 1) __syncthreads();
            if (kact && j1 > j0) {
                /* one rotation pair; the next rows are loaded before this
                 * rotation's stores (two rows further down).  Near the
                 * segment's end (EDGE) their addresses are kept inside the
                 * segment's rows, and the last lower row is xl: the next
                 * segment stores it. */
                auto one = [&](const int j, const bool first, const bool edge) __attribute__((always_inline)) {
                    const int pa = !edge || j + 1 < j1 ? p + 2 : p, pb = !edge || j + 2 < j1 ? p + 3 : p;
                    const R n0 = ck[pa], t1 = ck[pb];
                    const P2 q1 = cs1[j], q2 = cs2[j];
                    const R u = q1.x * x0 + q1.y * x1, v = q1.x * x1 - q1.y * x0;
                    if (!first || !id2) ck[p - 1] = q2.x * cy + q2.y * u;
                    ck[p] = q2.x * u - q2.y * cy;
                    cy = v;
                    x0 = n0, x1 = !edge || j + 2 < j1 ? t1 : xl;
                    p += 2;
                };
                one(j0, true, true);
                int j = j0 + 1;
#pragma unroll 2
                for (; j + 2 < j1; j++) one(j, false, false);
                for (; j < j1; j++) one(j, false, true);
            }
            if (kact && seg == SEG - 1) {
                /* the band's end, by the last segment (p: two rows past the
                 * last rotation's): the column's own rotations leave r as the
                 * team kernel's col[i - 1] = r does, or the carried row is
                 * final */
                const int pk = m - 2 + 2 * kc - t;
                if (!kb && kc >= lo2 && kc <= hi2) ck[pk - 1] = rr2[kc];
                else if (!kb && kc >= lo1 && kc <= hi1) ck[pk] = rr1[kc];
                else if (len > 0) ck[p - 1] = cy;
            }
            if (tid == 0) { /* column 0's own rotations (no thread sweeps it) */
                const int p0 = m - 2 - t;
                if (lo2 == 0) S[p0 - 1] = rr2[0];
                else if (lo1 == 0 && hi1 >= 0) S[p0] = rr1[0];
            }
            __syncthreads();
        }
    };
    factor(std::true_type{});
    if (!__syncthreads_and(ok)) factor(std::false_type{});

    /* rank: the first column j with |R(j,j)| <= m eps ||R(0:j,j)||, the
     * squares taken after a power-of-two scaling of the column */
    int zl = 0x7fffffff;
    for (int j = tid; j < n; j += T)
        if (bsq_rank_col<R>(S + j * ldm, j, m, rdv[j])) zl = min(zl, j + 1);
    zl = bsq_min<T>(zl);
    const int32_t inf = nf ? BSOLVE_INFO_NONFINITE : (zl == 0x7fffffff ? 0 : zl);
    __syncthreads();

    /* back substitution by the first warp, column-oriented (as the team
     * kernel): row r stays with lane r % 32, x_i crosses lanes by a shuffle */
    if (warp == 0) {
        R *b = S + n * ldm;
#pragma unroll 1
        for (int i = n - 1; i >= 0; i--) {
            R x = R(0);
            const int own = i & 31;
            if (lane == own) {
                const R bi = b[i], rd = rdv[i];
                x = bsq_rd_bad(rd) ? bi / S[i + i * ldm] : bi * rd;
                b[i] = x;
            }
            x = __shfl_sync(0xffffffffu, x, own);
            const R *ri = S + i * ldm;
            for (int r = lane; r < i; r += 32) b[r] -= ri[r] * x;
        }
        const R sx = sb / sa, rn = bsq_tail_nrm2<32, R>(m > n, [&](auto f) __attribute__((always_inline)) {
            for (int r = n + ((lane - n) & 31); r < m; r += 32) f(b[r]);
        });
        R *Bp = a.B + sys * a.vb.ks;
        for (int r = lane; r < m; r += 32)
            Bp[r * a.vb.is] = inf != 0 ? L::nan() : r < n ? b[r] * sx : r == n ? rn * sb : R(0);
        if (lane == 0) a.info[sys] = inf;
    }
}

/* Launches the pair kernel (FP64 gels, nrhs = 1, n <= 64, m <= 128) with
 * the column slots and threads per band of qr_dispatch.cuh's choice c;
 * cudaErrorNotSupported for shapes it cannot take. */
template <typename R> cudaError_t bsq_launch_pair(const bsq_args<R> &a, const bsq_choice &c, cudaStream_t st);
extern template cudaError_t bsq_launch_pair<double>(const bsq_args<double> &, const bsq_choice &, cudaStream_t);

#endif
