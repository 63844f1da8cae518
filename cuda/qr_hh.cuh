/*
 * qr_hh.cuh -- least squares by Householder reflections, one lane per
 * column: FP64 gels with one right-hand side, m <= 128 (qr_dispatch.cuh's
 * bsq_hh_takes gives it m <= 64 and 80 <= m <= 128, 72 <= m with n > 16,
 * outside the register kernel's buckets).
 *
 * Why reflections here, where the other kernels rotate: the column-per-lane
 * Givens kernel (qr_warp.cuh) must unroll its Sameh-Kuck steps (a step's
 * rows are register indices), 70-520 KB of straight-line code that the
 * instruction caches cannot hold, and it rotates each row pair of a column
 * once per column to its left: ~4 FP64 operations per entry and column;
 * the shared-memory kernels (qr_team.cuh, qr_pair.cuh) load and store each
 * rotated entry.
 * A reflection touches each entry of the trailing columns with two fused
 * multiply-adds (the dot product, the update), and its step is a rolled
 * loop: the column shifts up one register per step (below), so every
 * register index is a compile-time constant while the step index is not.
 *
 * A team of L lanes (L = 8, 16 or 32: 4, 2 or 1 systems per warp; L = 64:
 * two warps, synchronized by a named barrier) owns a system; lane k holds
 * column k, rows 0..M-1 of a compile-time bucket M = 16, 32 or 64 (rows
 * m..M-1 zero; m > 64: H = 2 halves of a warp or two each, the top half's
 * lane k holding rows 0..63 of column k, the bottom half's rows 64..127,
 * see below), scaled by a power of two to a largest
 * magnitude in [1, 2): no sum of squares below can overflow, and one that
 * underflows belongs to a column negligible against its own norm (which the
 * rank test then reports).  x is returned times the scalings, exact powers
 * of two.  At step j (j = 0..n-1) a lane's registers 0..r-1 hold rows
 * j..m-1 of its column (r = m - j), zeros below:
 *   1. lane j publishes its column (rows j..m-1) in shared memory;
 *   2. every lane reads it (16-byte broadcast loads) and forms the dot
 *      product d of its rows 1..r-1 with it; b's rows, in shared memory,
 *      are spread over the lanes of each of the team's warps, whose partial
 *      sums of x_i^2 and x_i b_i meet in a butterfly (both warps of a team
 *      of 64 form the same sums: no exchange between them);
 *   3. the reflector as LAPACK's dlarfg: beta = -sign(alpha) ||(alpha, x)||,
 *      tau = (beta - alpha) / beta, v = (1, x / (alpha - beta)); tau = 0
 *      (no reflection) where x = 0;
 *   4. each lane updates its column, a -= tau (v^T a) v, writing row i into
 *      register i - 1: row 0 (R(j,k)) leaves for shared memory (lane j
 *      stores beta = R(j,j) there), and the next step again finds its rows
 *      from register 0.
 * Two columns per lane (C = 2: lane k holds columns k and k + L; teams of
 * 8 lanes for n <= 16 with interleaved A at 16 < m <= 32 or any A at
 * m <= 16, of 4 lanes for n <= 8 at m <= 16, qr_dispatch.cuh) share a step's
 * broadcast loads, butterfly and reflector between twice the systems per
 * warp.
 * RB, registers for b (M = 16 with C = 2): there the shared memory, not
 * arithmetic, set the pace (Nsight, 8 x 16: L1/shared 85% busy, issue
 * slots 33%): each step's broadcast column read twice, b's rows read and
 * written in shared memory, a butterfly.  So every lane keeps a copy of b
 * in registers, shifting up with its columns like a column of its own (row
 * j leaving as row j of Q^T b), and reads the pivot column once into
 * registers, forming x_i^2 and x_i b_i over all rows itself: per step one
 * broadcast store and read, no butterfly, at 168 registers instead of 128
 * (3 blocks per SM instead of 4).
 * Chunks of 8 registers (4 at M = 16) past the live rows are skipped by
 * warp-uniform branches.  Lanes of finished columns (k < j) compute along
 * unused, except a lane's first column slot with C = 2, skipped from step
 * L on; the first warp of a team of 64 sits out the steps after its last
 * column.
 *
 * Halves: the dot product of column k is the top lane's part plus the
 * bottom lane's, added after a second team barrier per step (both lanes
 * forming the same sum); the bottom lane's row 0 moves up into the top
 * lane's register 63 through shared memory (the carry, read after the next
 * step's first barrier; the next pivot's bottom lane also stores it as
 * that step's published row 63, since its top lane publishes before the
 * barrier).  The top half's lanes own R, the rank test and x.
 *
 * The rank test (bsq_rank_col) and the back substitution read R from
 * shared memory, packed by columns (lane k writes R(j,k) at step j; 16.6
 * KB for a 64 x 64 system).  Back substitution by columns: lane k computes
 * x_k, broadcast by a shuffle (through shared memory in a team of 64), and
 * lanes i < k take R(i,k) x_k off their b_i.
 *
 * The rows n..m-1 of B receive the residual part in the canonical form of
 * every kernel (bsq_tail_nrm2): its 2-norm in row n, zeros below, so that
 * this Q's residual entries (LAPACK dgels's, which differ from the Givens
 * kernels' by the signs and basis of that part) never reach the user.
 */
#ifndef BSI_QR_HH_CUH
#define BSI_QR_HH_CUH

#include <type_traits>

#include "qr_team.cuh"
#include "qr_warp.cuh" /* BSQ_LD_* */

template <int M, int C> __host__ __device__ constexpr int bsq_hh_minb() { return M == 64 || C == 2 ? 3 : 4; }

template <typename R, int M, int L, int H, int LD, int C = 1>
__global__ void __launch_bounds__(128, bsq_hh_minb<M, C>()) bsq_k_hh(const bsq_args<R> a)
{
    typedef bsq_lim<R> Lim;
    typedef typename std::conditional<sizeof(R) == 8, double2, float2>::type V2;
    static_assert(L == 4 || L == 8 || L == 16 || L == 32 || L == 64, "team of 4, 8, 16, 32 or 64 lanes");
    static_assert(H == 1 || (H == 2 && M == 64 && L >= 32), "halves of 64 rows, a warp each");
    static_assert(M % 8 == 0 && L * C <= H * M, "chunks of 8 rows, no more columns than rows");
    static_assert(C == 1 || (H == 1 && L < 32), "two columns per lane: teams of a warp or less");
    constexpr int TT = H * L;           /* a team's threads: H halves of L lanes */
    constexpr int NT = 128 / TT;        /* teams (systems) per block */
    static_assert(TT <= 32 || NT <= 2, "teams of several warps: named barriers 1, 2 or the block's");
    constexpr int W = L < 32 ? L : 32;  /* a team's lanes in one warp */
    constexpr int MR = H * M;           /* rows of the bucket */
    constexpr int CH = M == 16 ? 4 : 8; /* rows per chunk: finer where the rows are few */
    constexpr int NCH = M / CH;         /* chunks of rows (of a half) */
    constexpr int XS = MR + 2;          /* a team's published column: 16-byte aligned, teams on distinct banks */
    constexpr int NC = L * C;           /* columns of the bucket: lane k holds k + e L, e < C */
    constexpr int RS = NC * (NC + 1) / 2; /* R packed by columns: R(i,c) at c(c+1)/2 + i */
    /* RB (M = 16, two columns per lane): every lane holds all of b, shifting
     * up with its columns, and a copy of the pivot column in registers; no
     * shared memory but the pivot column's broadcast and R (see the head
     * comment) */
    constexpr bool RB = M == 16 && C == 2;
    constexpr int BQ = RB ? M : MR / W; /* rows of b per lane (each warp of a team holds all of b) */
    constexpr int TX = TT > 32 ? NT : 1;
    __shared__ __align__(16) R xs[2][NT * XS];
    /* b: one copy per warp in a team of two warps without halves, whose
     * steps have no barrier between one warp's reads of b and the other's
     * updates */
    constexpr int BC = H == 1 && TT > 32 ? TT / 32 : 1;
    __shared__ R bs[NT][BC][RB ? 1 : MR];
    __shared__ R rs[NT][RS];
    __shared__ R xb[TX][L];                  /* several warps: the back substitution's x_k */
    __shared__ int red[TX][2][TT / 32 + 1];  /* several warps: their nf and rank */
    __shared__ R hx[H == 2 ? NT : 1][3][L];  /* halves: column maxima, then per step the top's */
                                             /* w part and the bottom's dot product, and the carry */

    const int tib = threadIdx.x / TT, tt = threadIdx.x % TT, h = tt / L, k = tt % L, kw = k & (W - 1);
    const int64_t wsys0 = (int64_t)blockIdx.x * NT + (int)(threadIdx.x & ~31u) / TT;
    if (wsys0 >= a.count) return; /* the whole team: no shuffle partner or barrier member left behind */
    int64_t blk = blockIdx.x;
    if constexpr (NT == 1) {
        /* blocks of one system: those that share an SM in a wave take
         * consecutive systems, whose entries of interleaved A share 32-byte
         * sectors, then fetched into that SM's L1 once rather than once per
         * block (the scheduler deals a wave's blocks to the SMs in turn, so
         * blocks b, b + nsm, b + 2 nsm meet).  A bijection on whole waves,
         * the identity on the last, partial one (1.03x at 64 x 128, IL). */
        constexpr int64_t BP = bsq_hh_minb<M, C>();
        const int64_t wv = BP * a.nsm, g = blk / wv, r = blk % wv;
        if (a.nsm > 0 && (g + 1) * wv <= a.count) blk = g * wv + r % a.nsm * BP + r / a.nsm;
    }
    const int64_t sys = blk * NT + tib;
    const bool valid = sys < a.count;
    const int m = a.m, n = a.n;
    /* the team's barrier: its warp's, its two warps' (named barrier 1 + tib)
     * or the block's */
    auto tsync = [&]() __attribute__((always_inline)) {
        if constexpr (TT == 128) {
            __syncthreads();
        } else if constexpr (TT == 64) {
            if (tib == 0) asm volatile("bar.sync 1, 64;" ::: "memory");
            else asm volatile("bar.sync 2, 64;" ::: "memory");
        } else {
            __syncwarp();
        }
    };
    /* a reduction over the team: over its warp, then over its warps */
    auto tred = [&](int v, int slot, auto op) __attribute__((always_inline)) {
        v = bsq_reduce<W>(v, op);
        if constexpr (TT > 32) {
            if (kw == 0) red[tib][slot][tt >> 5] = v;
            tsync();
#pragma unroll
            for (int w = 0; w < TT / 32; w++) v = op(v, red[tib][slot][w]);
        }
        return v;
    };

    R col[C][M], bq[BQ];
    {
        const int r0 = h * M; /* the half's first row */
#pragma unroll
        for (int e = 0; e < C; e++) {
            const bool ld = valid && k + e * L < n;
            const R *Ap = a.A + (ld ? sys * a.va.ks + (k + e * L) * a.va.js : 0);
            if constexpr (LD == BSQ_LD_PAIR) {
#pragma unroll
                for (int i = 0; i < M; i += 2) {
                    const V2 v = (ld && r0 + i < m) ? __ldg(reinterpret_cast<const V2 *>(Ap + r0 + i)) : V2{R(0), R(0)};
                    col[e][i] = v.x;
                    col[e][i + 1] = v.y;
                }
            } else {
#pragma unroll
                for (int i = 0; i < M; i++) col[e][i] = (ld && r0 + i < m) ? __ldg(Ap + (r0 + i) * a.va.is) : R(0);
            }
        }
        const R *Bp = a.B + (valid ? sys * a.vb.ks : 0);
#pragma unroll
        for (int q = 0; q < BQ; q++) {
            const int i = RB ? q : kw + q * W;
            bq[q] = (valid && i < m) ? Bp[i * a.vb.is] : R(0);
        }
    }
    int nf = 0;
    R mx[C], mxb = R(0);
#pragma unroll
    for (int e = 0; e < C; e++) {
        mx[e] = R(0);
#pragma unroll
        for (int i = 0; i < M; i++) {
            nf |= !isfinite(col[e][i]);
            mx[e] = fmax(mx[e], fabs(col[e][i]));
        }
    }
#pragma unroll
    for (int q = 0; q < BQ; q++) {
        nf |= !isfinite(bq[q]);
        mxb = fmax(mxb, fabs(bq[q]));
    }
    if constexpr (H == 2) hx[tib][h][k] = mx[0];
    nf = tred(nf, 0, [](int x, int y) { return x | y; }); /* (its barrier also publishes hx) */
    if constexpr (H == 2) mx[0] = fmax(hx[tib][0][k], hx[tib][1][k]);
    if constexpr (!RB) mxb = bsq_max<W>(mxb);
    R dn[C], upc, dnb, upb;
    Lim::pow2(mxb, dnb, upb);
#pragma unroll
    for (int e = 0; e < C; e++) {
        Lim::pow2(mx[e], dn[e], upc);
#pragma unroll
        for (int i = 0; i < M; i++) col[e][i] *= dn[e];
    }
    /* b's rows are written by the team's last warp (one whose columns last
     * longest, see `idle'), or by each warp into its own copy */
    const bool blast = tt >= TT - W, bw = BC > 1 || blast;
    R *bsw = bs[tib][BC > 1 ? tt >> 5 : 0];
#pragma unroll
    for (int q = 0; q < BQ; q++) {
        if constexpr (RB) bq[q] *= dnb;
        else if (bw) bsw[kw + q * W] = bq[q] * dnb;
    }
    R *rk[C], cb[C]; /* column k + e L of R (top half); row k + e L of Q^T b */
#pragma unroll
    for (int e = 0; e < C; e++) {
        const int c = k + e * L;
        rk[e] = &rs[tib][c * (c + 1) / 2];
        cb[e] = R(0);
    }
    if constexpr (H == 2) tsync();     /* hx's maxima read before the steps reuse it */

    for (int j = 0; j < n; j++) {
        const int r = m - j;
        /* live rows in this lane's registers */
        const int rh = H == 1 ? r : h == 0 ? min(r, M) : r - M;
        R *x = &xs[j & 1][tib * XS];
        R *xh = x + h * M;
        /* g(i0) for the first rows i0 of this half's live chunks, f(i) for
         * their row pairs (i, i + 1), i even; both compile-time constants in
         * each call */
        auto live_chunks = [&](auto g) __attribute__((always_inline)) {
#pragma unroll
            for (int c = 0; c < NCH; c++) {
                if (CH * c >= rh) break;
                g(CH * c);
            }
        };
        auto live_rows = [&](auto f) __attribute__((always_inline)) {
            live_chunks([&](const int i0) __attribute__((always_inline)) {
#pragma unroll
                for (int q = 0; q < CH; q += 2) f(i0 + q);
            });
        };
#pragma unroll
        for (int e = 0; e < C; e++) {
            if (k + e * L != j) continue;
            /* halves from step 1 on: row 63 of the top half is the bottom
             * half's row 0, which its lane stored at the previous step */
            const bool top63 = H == 2 && h == 0 && j > 0;
            live_rows([&](const int i) __attribute__((always_inline)) {
                if (i == M - 2 && top63) xh[M - 2] = col[e][M - 2];
                else *reinterpret_cast<V2 *>(xh + i) = V2{col[e][i], col[e][i + 1]};
            });
        }
        tsync(); /* also orders the previous step's b updates before the reads below */
        /* several warps: a warp whose columns are all done sits the step out */
        const bool idle = L > 32 && (k | 31) < j;
        if constexpr (H == 2)
            if (h == 0 && j > 0) col[0][M - 1] = hx[tib][2][k]; /* the carry */
        /* dot-product accumulators: 4 per lane, C columns sharing them out;
         * at M = 64 (columns of 64 rows, 168 registers) fewer, which frees
         * the registers for the pivot column's loads to run ahead of their
         * multiply-adds (live_pairs): 2 with halves, 1 without (this alone
         * 1.03-1.045x at 64 x 128 and 64 x 72; with live_pairs' loads
         * 1.045-1.1x at 64 x 64, 48 x 64, 32 x 64) */
        constexpr int DA = M == 64 && C == 1 ? (H == 2 ? 2 : 1) : 4 / C;
        R sg = R(0), db = R(0), d[C][DA], tau = R(0), scal = R(0), beta = R(0), b0 = R(0);
        /* f(i, (x_i, x_i+1)) over live_rows; RB: x from xv */
        R xv[RB ? M : 1];
        auto live_pairs = [&](auto f) __attribute__((always_inline)) {
            if constexpr (M == 64 && !RB) {
                /* a chunk's pairs loaded before the first is used: left to
                 * itself, ptxas reuses one register pair for every load */
                live_chunks([&](const int i0) __attribute__((always_inline)) {
                    V2 xq[CH / 2];
#pragma unroll
                    for (int q = 0; q < CH / 2; q++) xq[q] = *reinterpret_cast<const V2 *>(xh + i0 + 2 * q);
#pragma unroll
                    for (int q = 0; q < CH / 2; q++) f(i0 + 2 * q, xq[q]);
                });
            } else {
                live_rows([&](const int i) __attribute__((always_inline)) {
                    if constexpr (RB) f(i, V2{xv[i], xv[i + 1]});
                    else f(i, *reinterpret_cast<const V2 *>(xh + i));
                });
            }
        };
        /* X -= s v on the row pair (i, i + 1) of a register column, shifted
         * up a row as it goes (row i into register i - 1); a chunk's last
         * register is cleared, the next chunk's first row replacing it if
         * live */
        auto shift_update = [&](auto &X, const R s, const int i, const V2 v) __attribute__((always_inline)) {
            if (i > 0) X[i - 1] = fma(-s, v.x, X[i]);
            X[i] = fma(-s, v.y, X[i + 1]);
            if (i % CH == CH - 2) X[i + 1] = R(0);
        };
        /* f(E0) with E0 the first column slot still to factor, a
         * compile-time constant: with two columns per lane the first slot's
         * columns are all done from step L on (their lanes skip them) */
        auto live_slots = [&](auto f) __attribute__((always_inline)) {
            if constexpr (C == 2)
                if (j >= L) {
                    f(std::integral_constant<int, 1>());
                    return;
                }
            f(std::integral_constant<int, 0>());
        };
#pragma unroll
        for (int e = 0; e < C; e++)
#pragma unroll
            for (int u = 0; u < DA; u++) d[e][u] = R(0);
        if (!idle) {
            if constexpr (RB) {
                /* every lane: the pivot column's live rows into registers, its
                 * sums of x_i^2 and x_i b_i whole (no butterfly) */
                live_rows([&](const int i) __attribute__((always_inline)) {
                    const V2 v = *reinterpret_cast<const V2 *>(xh + i);
                    xv[i] = v.x;
                    xv[i + 1] = v.y;
                });
                R sg1 = R(0), db1 = R(0);
                live_pairs([&](const int i, const V2 v) __attribute__((always_inline)) {
                    if (i > 0) {
                        sg = fma(v.x, v.x, sg);
                        db = fma(v.x, bq[i], db);
                    }
                    sg1 = fma(v.y, v.y, sg1);
                    db1 = fma(v.y, bq[i + 1], db1);
                });
                sg += sg1;
                db += db1;
            } else {
#pragma unroll
                for (int q = 0; q < BQ; q++) {
                    const int i = kw + q * W;
                    if (i >= 1 && i < r) {
                        const R xi = x[i];
                        sg = fma(xi, xi, sg);
                        db = fma(xi, bsw[j + i], db);
                    }
                }
            }
            /* the top half's row 0 is the pivot row (v_0 = 1, apart) */
            live_slots([&](auto e0) __attribute__((always_inline)) {
                live_pairs([&](const int i, const V2 v) __attribute__((always_inline)) {
#pragma unroll
                    for (int e = decltype(e0)::value; e < C; e++) {
                        R &acc = d[e][((i & 7) >> 1) % DA];
                        if (i > 0 || h == 1) acc = fma(v.x, col[e][i], acc);
                        acc = fma(v.y, col[e][i + 1], acc);
                    }
                });
            });
            if constexpr (!RB) {
#pragma unroll
                for (int o = W / 2; o > 0; o /= 2) {
                    sg += __shfl_xor_sync(0xffffffffu, sg, o, W);
                    db += __shfl_xor_sync(0xffffffffu, db, o, W);
                }
            }
            R alpha;
            if constexpr (RB) {
                alpha = xv[0];
                b0 = bq[0];
            } else {
                alpha = x[0];
                b0 = bsw[j];
            }
            /* with ||(alpha, x)|| = nrm: tau = 1 + |alpha| / nrm and 1 / (alpha -
             * beta) = sign(alpha) / (|alpha| + nrm), from one reciprocal square
             * root and one reciprocal.  The clamp: a sum of squares below the
             * smallest normal (for which rsqrt has no fast path) makes a
             * diagonal entry under 2^-511 in a column of norm >= 1 (the scaling
             * above), which the rank test reports whatever its value. */
            const bool refl = sg > R(0);
            const R s2 = fma(alpha, alpha, sg), rn = Lim::rsqrt(fmax(s2, Lim::tiny())), nrm = s2 * rn, aa = fabs(alpha);
            beta = refl ? (alpha >= R(0) ? -nrm : nrm) : alpha;
            tau = refl ? fma(aa, rn, R(1)) : R(0);
            scal = refl ? copysign(__drcp_rn(aa + nrm), alpha) : R(0);
        }
        R w[C], ds[C];
#pragma unroll
        for (int e = 0; e < C; e++) {
            ds[e] = DA == 4   ? (d[e][0] + d[e][1]) + (d[e][2 % DA] + d[e][3 % DA])
                    : DA == 2 ? d[e][0] + d[e][1 % DA]
                              : d[e][0];
            w[e] = fma(scal, ds[e], col[e][0]);
        }
        if constexpr (H == 2) {
            /* w = A(j,k) + scal (the top's dot product + the bottom's): the
             * top's part and the bottom's dot product meet in shared memory,
             * both halves then forming the same sum */
            if (!idle) hx[tib][h][k] = h == 0 ? w[0] : ds[0];
            tsync();
            if (!idle) w[0] = fma(scal, hx[tib][1][k], hx[tib][0][k]);
        }
        if (!idle) {
            const R wb = fma(scal, db, b0), tb = tau * wb, tbs = tb * scal;
#pragma unroll
            for (int e = 0; e < C; e++)
                if (h == 0 && k + e * L == j) cb[e] = b0 - tb;
            if constexpr (RB) {
                /* b shifts up with the columns: its row j leaves as cb */
                live_pairs([&](const int i, const V2 v) __attribute__((always_inline)) { shift_update(bq, tbs, i, v); });
            } else if (bw) {
#pragma unroll
                for (int q = 0; q < BQ; q++) {
                    const int i = kw + q * W;
                    if (i >= 1 && i < r) bsw[j + i] = fma(-tbs, x[i], bsw[j + i]);
                }
            }
            R t[C];
#pragma unroll
            for (int e = 0; e < C; e++) {
                const R t0 = tau * w[e];
                t[e] = t0 * scal;
                if (h == 0 && k + e * L >= j) rk[e][j] = k + e * L == j ? beta : col[e][0] - t0;
            }
            /* the bottom half's row 0 moves up to the top half's row 63 (the
             * carry; the next pivot's lane also publishes it for the next step) */
            if (H == 2 && h == 1) {
                const R c0 = rh > 0 ? fma(-t[0], xh[0], col[0][0]) : R(0); /* (dead: x unpublished) */
                hx[tib][2][k] = c0;
                if (k == j + 1) xs[(j + 1) & 1][tib * XS + M - 1] = c0;
            }
            live_slots([&](auto e0) __attribute__((always_inline)) {
                live_pairs([&](const int i, const V2 v) __attribute__((always_inline)) {
#pragma unroll
                    for (int e = decltype(e0)::value; e < C; e++) shift_update(col[e], t[e], i, v);
                });
            });
        }
    }
    tsync(); /* R's columns and b's residual rows */

    R rd[C];
    int zc = 0x7fffffff;
#pragma unroll
    for (int e = 0; e < C; e++) {
        const int c = k + e * L;
        rd[e] = R(1);
        if (h == 0 && c < n && bsq_rank_col(rk[e], c, m, rd[e])) zc = min(zc, c + 1);
    }
    const int zl = tred(zc, 1, [](int x, int y) { return min(x, y); });
    const int32_t inf = nf ? BSOLVE_INFO_NONFINITE : (zl == 0x7fffffff ? 0 : zl);

    R xk[C];
#pragma unroll
    for (int e = 0; e < C; e++) xk[e] = R(0);
    for (int kk = n - 1; kk >= 0; kk--) {
        R v = R(0);
#pragma unroll
        for (int e = 0; e < C; e++)
            if (h == 0 && k + e * L == kk) v = bsq_rd_bad(rd[e]) ? cb[e] / rk[e][kk] : cb[e] * rd[e];
        if constexpr (TT > 32) {
            if (h == 0 && k == kk) xb[tib][kk] = v;
            tsync();
            v = xb[tib][kk];
        } else {
            v = __shfl_sync(0xffffffffu, v, kk % L, L);
        }
#pragma unroll
        for (int e = 0; e < C; e++) {
            const int c = k + e * L;
            if (c == kk) xk[e] = v;
            if (h == 0 && c < kk) cb[e] = fma(-rs[tib][kk * (kk + 1) / 2 + c], v, cb[e]);
        }
    }

    /* the residual rows' norm (canonical form, bsq_tail_nrm2), by the lanes
     * that write them: RB, every lane (rows n.. in registers 0..); otherwise
     * the writing warp, lane kw holding rows kw + q W */
    R rn = R(0);
    if constexpr (RB) {
        rn = bsq_tail_nrm2<1, R>(m > n, [&](auto f) __attribute__((always_inline)) {
#pragma unroll
            for (int q = 0; q < BQ; q++)
                if (n + q < m) f(bq[q]);
        });
    } else if (blast) {
        rn = bsq_tail_nrm2<W, R>(m > n, [&](auto f) __attribute__((always_inline)) {
#pragma unroll
            for (int q = 0; q < BQ; q++)
                if (kw + q * W >= n && kw + q * W < m) f(bsw[kw + q * W]);
        });
    }
    if (valid) {
        R *Bp = a.B + sys * a.vb.ks;
#pragma unroll
        for (int e = 0; e < C; e++)
            if (h == 0 && k + e * L < n) Bp[(k + e * L) * a.vb.is] = inf != 0 ? Lim::nan() : xk[e] * dn[e] * upb;
        if (RB ? k == 0 : blast) {
#pragma unroll
            for (int q = 0; q < BQ; q++) {
                /* RB: b's rows n.. have shifted up to registers 0.. */
                const int i = RB ? n + q : kw + q * W;
                if (i >= n && i < m) Bp[i * a.vb.is] = inf != 0 ? Lim::nan() : i == n ? rn * upb : R(0);
            }
        }
        if (tt == 0) a.info[sys] = inf;
    }
    (void)upc;
}

template <typename R, int M, int L, int H, int C = 1> cudaError_t bsq_launch_hh_t(const bsq_args<R> &a, bool pair, cudaStream_t st)
{
    const int64_t per = 128 / (H * L), blocks = (a.count + per - 1) / per;
    if (blocks > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
    if constexpr (M == 32 && C == 2) { /* interleaved A only (qr_dispatch.cuh): no copy with pair loads */
        if (pair) return cudaErrorNotSupported;
    } else if (pair) {
        bsq_k_hh<R, M, L, H, BSQ_LD_PAIR, C><<<(unsigned)blocks, 128, 0, st>>>(a);
        return cudaGetLastError();
    }
    bsq_k_hh<R, M, L, H, BSQ_LD_ROW, C><<<(unsigned)blocks, 128, 0, st>>>(a);
    return cudaGetLastError();
}

/* The launch of the bucket (M, L, H, C) and loads that qr_dispatch.cuh
 * chose for one gels call, qr_hh_d.cu */
template <typename R> cudaError_t bsq_launch_hh(const bsq_args<R> &a, const bsq_choice &c, cudaStream_t st);
extern template cudaError_t bsq_launch_hh<double>(const bsq_args<double> &, const bsq_choice &, cudaStream_t);

#endif
