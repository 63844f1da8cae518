/*
 * lu_cpu_impl.h -- precision-generic LU on tiles of BSI_W systems, included
 * by lu_cpu.c once per precision between tmpl_on.h and tmpl_off.h.
 *
 * Every statement works on a vreal: entry (i, j) of the BSI_W systems of a
 * tile, one SIMD vector (simd.h).  Pivot choices differ from lane to lane and
 * are made with compares and selects, never branches.
 *
 * Tile of factors: entry (i, j) of lane l at T[(i + j*n)*W + l]; the n
 * reciprocal pivots are kept beside it (rd) so that solves multiply instead
 * of dividing; row and column pivots as one byte per step and lane.
 */

#define IX(i, j) (((ptrdiff_t)(i) + (ptrdiff_t)(j) * n) * BSI_W)
#define V(M, i, j) (*(vreal *)((M) + IX(i, j)))

static inline vreal FN(splat)(real x) { return FN(bsi_set1)(x); }

/* Exchanges, in each lane l, entity k with entity p[l] of `count` lines
 * `step` apart (rows: pstride W, step n*W; columns: pstride n*W, step W). */
static inline __attribute__((always_inline)) void FN(swap)(real *base, vreal p, int k, int32_t pstride, int count,
                                                           int64_t step)
{
    for (int it = 0; it < count; it++) {
        real *P = base + it * step;
        vreal u = FN(bsi_gather)(P, p, pstride);
        vreal o = *(vreal *)(P + (int64_t)k * pstride);
        FN(bsi_scatter)(P, p, pstride, o); /* lanes with p == k then get u, which equals o */
        *(vreal *)(P + (int64_t)k * pstride) = u;
    }
}

static inline vreal FN(load_piv)(const uint8_t *p)
{
    vreal v;
    for (int l = 0; l < BSI_W; l++) v[l] = p[l];
    return v;
}

/* Applies elimination step k (pivot rows pk, multipliers in column k of T)
 * to one column `col` (n vectors) of the matrix or of B: the pivot row is
 * gathered, and the interchange is fused into the update -- row i takes
 * (i == pk ? old row k : row i) minus l_ik u, one select beside the FMA,
 * instead of a separate swap pass with per-lane addresses. */
static inline __attribute__((always_inline)) void FN(apply_step)(const int n, const bsolve_pivot pivot,
                                                                 const real *restrict T, int k, vreal pk,
                                                                 real *restrict col)
{
#define C(i) (*(vreal *)(col + (ptrdiff_t)(i) * BSI_W))
    if (pivot != BSOLVE_PIVOT_NONE) {
        const vreal u = FN(bsi_gather)(col, pk, BSI_W), o = C(k);
        C(k) = u;
        for (int i = k + 1; i < n; i++) C(i) = FN(bsi_sel)(FN(bsi_eq)(pk, FN(splat)(i)), o, C(i)) - V(T, i, k) * u;
    } else {
        const vreal u = C(k);
        for (int i = k + 1; i < n; i++) C(i) -= V(T, i, k) * u;
    }
#undef C
}

/* Columns per panel of the blocked factorization (n > 16; smaller tiles
 * run step by step with compile-time n).  Each pass of a panel over the
 * trailing matrix loads and stores every trailing entry once: a tile of W
 * systems of order n is n*n vectors (1 MiB at n = 128 in double with
 * AVX-512), beyond L1 and at or beyond L2, so the passes, n/BSI_NB of
 * them, are what the trailing update costs in cache traffic.  Wider panels
 * cut the passes but make the left-looking factorization of the panel
 * itself (load, select, FMA, store per entry and step) a larger share of
 * the flops: about n*n*BSI_NB/2 of n^3/3. */
#define BSI_NB 16
/* Register tile of the trailing update: BSI_MR rows x BSI_NR columns of
 * accumulators stay in registers over the panel's BSI_NB steps, fed per
 * step by BSI_MR vectors of L and BSI_NR of U (MR*NR FMAs for MR+NR
 * loads, where a column at a time needs a load of L per FMA).  With 32
 * vector registers (AVX-512) 4 x 4: 16 accumulators + 4 + 4 operands;
 * with 16 (AVX2, SSE2) 2 x 4: 8 + 2 + 4.  Wide in columns rather than rows
 * because L (the panel's columns below it) is re-read once per group of
 * BSI_NR trailing columns and comes from further away (L2) than U (the
 * group's rows of the panel, a few KiB in L1). */
#if BSI_AVX512
#define BSI_MR 4
#else
#define BSI_MR 2
#endif
#define BSI_NR 4

/* Rows i..i+mr-1 of nc columns take the rank-nbk update by the columns
 * k0..k0+nbk-1 of L (mr, nc, tri compile-time after inlining); with tri,
 * the rows are the next mr rows of U (i = k0 + nbk) and then take the
 * steps i..i+mr-2 among themselves, in registers.  Each entry sees the
 * same operations in the same order (one FMA per step, steps ascending)
 * as apply_step and forward_solve, so gesv and getrf + getrs give bitwise
 * the same solutions. */
static inline __attribute__((always_inline)) void FN(rank_tile)(const int n, const real *restrict T, const int k0,
                                                                const int nbk, real *const *col, const int i,
                                                                const int mr, const int nc, const int tri)
{
#define C(c, i) (*(vreal *)(col[c] + (ptrdiff_t)(i) * BSI_W))
    vreal acc[BSI_MR][BSI_NR];
    for (int r = 0; r < mr; r++)
        for (int c = 0; c < nc; c++) acc[r][c] = C(c, i + r);
    for (int q = 0; q < nbk; q++) {
        vreal l[BSI_MR], u[BSI_NR];
        for (int r = 0; r < mr; r++) l[r] = V(T, i + r, k0 + q);
        for (int c = 0; c < nc; c++) u[c] = C(c, k0 + q);
        for (int r = 0; r < mr; r++)
            for (int c = 0; c < nc; c++) acc[r][c] -= l[r] * u[c];
    }
    if (tri)
        for (int s = 0; s < mr; s++)
            for (int r = s + 1; r < mr; r++)
                for (int c = 0; c < nc; c++) acc[r][c] -= V(T, i + r, i + s) * acc[s][c];
    for (int r = 0; r < mr; r++)
        for (int c = 0; c < nc; c++) C(c, i + r) = acc[r][c];
#undef C
}

/* Steps k0..k0+nbk-1 applied to nc columns (1 or BSI_NR, compile-time),
 * with L in LAPACK form (each step's interchange applied to the panel's
 * earlier columns): the interchanges, the unit-lower triangular solve for
 * the panel's rows of U and the rank-nbk update of the rows below, all by
 * register tiles.  Serves both the panel's own columns (left-looking, nbk
 * = the steps done so far) and the columns right of it.  The solve goes by
 * tiles of rows, not row by row: a row at a time is one chain of dependent
 * FMAs per column, latency- rather than throughput-bound. */
static inline __attribute__((always_inline)) void FN(panel_update)(const int n, const bsolve_pivot pivot,
                                                                   const real *restrict T, const int k0,
                                                                   const int nbk, const vreal *restrict piv,
                                                                   const uint8_t *restrict moved,
                                                                   real *const *col, const int nc)
{
    /* The interchanges of rows >= k0 + q commute with the solve for rows
     * < k0 + q, so all of them go first; a step whose pivot is row k0 + q
     * in every lane (moved[k0 + q] == 0) has none to apply, as LAPACK's
     * laswp skips ipiv(i) == i. */
    if (pivot != BSOLVE_PIVOT_NONE)
        for (int q = 0; q < nbk; q++)
            if (moved[k0 + q])
                for (int c = 0; c < nc; c++) FN(swap)(col[c], piv[k0 + q], k0 + q, BSI_W, 1, 0);
    const int ke = k0 + nbk;
    int i = k0;
    for (; i + BSI_MR <= ke; i += BSI_MR) FN(rank_tile)(n, T, k0, i - k0, col, i, BSI_MR, nc, 1);
    for (; i < ke; i++) FN(rank_tile)(n, T, k0, i - k0, col, i, 1, nc, 0);
    for (; i + BSI_MR <= n; i += BSI_MR) FN(rank_tile)(n, T, k0, nbk, col, i, BSI_MR, nc, 0);
    for (; i < n; i++) FN(rank_tile)(n, T, k0, nbk, col, i, 1, nc, 0);
}

/* The pivot row of column k: the first row i >= k of largest |a_ik|, per
 * lane.  Strict '>' keeps the first maximum, as LAPACK's idamax does; NaN
 * entries never win, and a column without a number picks row k (-1 is
 * below every |a|). */
static inline __attribute__((always_inline)) vreal FN(pivot_row)(const int n, const real *restrict T, const int k)
{
    vreal best = FN(splat)(-1), pi = FN(splat)(k);
    for (int i = k; i < n; i++) {
        const vreal v = FN(bsi_abs)(V(T, i, k));
        const vmask m = FN(bsi_gt)(v, best);
        best = FN(bsi_sel)(m, v, best);
        pi = FN(bsi_sel)(m, FN(splat)(i), pi);
    }
    return pi;
}

/* Column k once its pivot rows pi are known: the pivot moves to row k, its
 * reciprocal goes to rd[k] and the multipliers below it replace the
 * column.  Returns zinfo with the first zero-pivot step (1-based) added. */
static inline __attribute__((always_inline)) vreal FN(eliminate_column)(const int n, const bsolve_pivot pivot,
                                                                        real *restrict T, const int k, const vreal pi,
                                                                        vreal *restrict rd, vreal zinfo)
{
    const vreal u = pivot == BSOLVE_PIVOT_NONE ? V(T, k, k) : FN(bsi_gather)(T + IX(0, k), pi, BSI_W);
    const vmask z = FN(bsi_eq)(u, FN(splat)(0));
    zinfo = FN(bsi_sel)(z & FN(bsi_eq)(zinfo, FN(splat)(0)), FN(splat)(k + 1), zinfo);
    /* A zero pivot is skipped (reciprocal 1), as LAPACK skips the
     * scaling; the system is reported and its solution NaN-filled. */
    const vreal r = 1 / FN(bsi_sel)(z, FN(splat)(1), u);
    rd[k] = r;
    /* A pivot below 1/REAL_MAX has an infinite reciprocal: such
     * lanes divide, as LAPACK's dgetf2 does below sfmin.  Rare, so
     * tested once per column and the common path stays a multiply. */
    const vmask tiny = FN(bsi_eq)(FN(bsi_abs)(r), FN(splat)(INFINITY));
    const int any_tiny = FN(bsi_any)(tiny);
    const vreal o = V(T, k, k);
    V(T, k, k) = u;
    for (int i = k + 1; i < n; i++) {
        vreal t = V(T, i, k);
        if (pivot != BSOLVE_PIVOT_NONE) t = FN(bsi_sel)(FN(bsi_eq)(pi, FN(splat)(i)), o, t);
        V(T, i, k) = any_tiny ? FN(bsi_sel)(tiny, t / u, t * r) : t * r;
    }
    return zinfo;
}

/* |x| > best ? |x| : best, lane by lane, as the pivot search compares (a
 * NaN x leaves best): x86's max instruction computes exactly this, where
 * gcc makes the compare and select of the vector form three instructions. */
static inline __attribute__((always_inline)) vreal FN(absmax)(const vreal x, const vreal best)
{
    const vreal a = FN(bsi_abs)(x);
#if BSI_AVX512
    if (sizeof(real) == 8) return (vreal)_mm512_max_pd((__m512d)a, (__m512d)best);
    return (vreal)_mm512_max_ps((__m512)a, (__m512)best);
#elif defined(__AVX__) && BSI_VBYTES == 32
    if (sizeof(real) == 8) return (vreal)_mm256_max_pd((__m256d)a, (__m256d)best);
    return (vreal)_mm256_max_ps((__m256)a, (__m256)best);
#elif defined(__SSE2__) && BSI_VBYTES == 16
    if (sizeof(real) == 8) return (vreal)_mm_max_pd((__m128d)a, (__m128d)best);
    return (vreal)_mm_max_ps((__m128)a, (__m128)best);
#else
    return FN(bsi_sel)(FN(bsi_gt)(a, best), a, best);
#endif
}

/* Columns of the full-pivoting update at once: they share each load of the
 * multipliers, and each column's running maximum stays in a register. */
#if BSI_AVX512
#define BSI_NF 8
#else
#define BSI_NF 4
#endif

/* Full pivoting, step k on the nc columns j..j+nc-1 (nc compile-time):
 * rows k and pk exchanged, then the rank-1 update of rows k+1..n-1, the
 * same FMA per entry as apply_step.  The next step's search rides along:
 * cmax[j + c] receives max |a| over the updated rows of column j + c (-1
 * where none is a number), so no separate pass reads the trailing matrix. */
static inline __attribute__((always_inline)) void FN(full_step)(const int n, real *restrict T, const int k,
                                                                const vreal pk, const int j, const int nc,
                                                                vreal *restrict cmax)
{
    vreal u[BSI_NF], mx[BSI_NF];
    for (int c = 0; c < nc; c++) {
        FN(swap)(T + IX(0, j + c), pk, k, BSI_W, 1, 0);
        u[c] = V(T, k, j + c);
        mx[c] = FN(splat)(-1);
    }
    /* A row's loads all go before its stores: the columns lie a multiple
     * of 4 KiB apart, and a load behind a store to the same address modulo
     * 4 KiB waits for it. */
    for (int i = k + 1; i < n; i++) {
        const vreal l = V(T, i, k);
        vreal x[BSI_NF];
        for (int c = 0; c < nc; c++) x[c] = V(T, i, j + c);
        for (int c = 0; c < nc; c++) {
            x[c] -= l * u[c];
            mx[c] = FN(absmax)(x[c], mx[c]);
        }
        for (int c = 0; c < nc; c++) V(T, i, j + c) = x[c];
    }
    for (int c = 0; c < nc; c++) cmax[j + c] = mx[c];
}

/* Full pivoting, right-looking one step at a time, as factor below (same
 * arguments).  The pivot is the first largest |a| of the trailing matrix in
 * column-major order (LAPACK's dgetc2 scan): its column is the first whose
 * maximum, cmax, is the largest, and its row that column's pivot_row.  The
 * update of step k leaves the cmax of step k + 1. */
static inline __attribute__((always_inline)) vreal FN(factor_full)(const int n, real *restrict T,
                                                                   vreal *restrict rd, uint8_t *restrict rp,
                                                                   uint8_t *restrict cp, real *restrict B,
                                                                   const int nrhs, const int keep_l)
{
    vreal zinfo = FN(splat)(0);
    vreal cmax[BSOLVE_MAX_N];
    for (int j = 0; j < n; j++) {
        vreal mx = FN(splat)(-1);
        for (int i = 0; i < n; i++) mx = FN(absmax)(V(T, i, j), mx);
        cmax[j] = mx;
    }
    for (int k = 0; k < n; k++) {
        vreal best = FN(splat)(-1), pj = FN(splat)(k);
        for (int j = k; j < n; j++) {
            const vmask m = FN(bsi_gt)(cmax[j], best);
            best = FN(bsi_sel)(m, cmax[j], best);
            pj = FN(bsi_sel)(m, FN(splat)(j), pj);
        }
        for (int l = 0; l < BSI_W; l++) cp[k * BSI_W + l] = (uint8_t)pj[l];
        FN(swap)(T, pj, k, n * BSI_W, n, BSI_W);
        const vreal pi = FN(pivot_row)(n, T, k);
        for (int l = 0; l < BSI_W; l++) rp[k * BSI_W + l] = (uint8_t)pi[l];
        /* The finished columns of L take the interchange for an exported L. */
        if (keep_l && k > 0) FN(swap)(T, pi, k, BSI_W, k, n * BSI_W);
        zinfo = FN(eliminate_column)(n, BSOLVE_PIVOT_FULL, T, k, pi, rd, zinfo);
        int j = k + 1;
        for (; j + BSI_NF <= n; j += BSI_NF) FN(full_step)(n, T, k, pi, j, BSI_NF, cmax);
#if BSI_NF > 4
        if (j + 4 <= n) {
            FN(full_step)(n, T, k, pi, j, 4, cmax);
            j += 4;
        }
#endif
        if (j + 2 <= n) {
            FN(full_step)(n, T, k, pi, j, 2, cmax);
            j += 2;
        }
        if (j < n) FN(full_step)(n, T, k, pi, j, 1, cmax);
        for (int c = 0; c < nrhs; c++) FN(apply_step)(n, BSOLVE_PIVOT_FULL, T, k, pi, B + IX(0, c));
    }
    return zinfo;
}

/* Factors the tile T in place: P A Q = L U.  With B (nrhs columns), applies
 * the row interchanges and the elimination to B as it goes (fused gesv);
 * keep_l also swaps the finished columns of L so that L is exported in
 * LAPACK form (getrf).  rp/cp receive the pivot row/column of each step and
 * lane, and the result is the first zero-pivot step (1-based) or 0 per lane.
 *
 * Blocked left-looking within a panel, right-looking between panels:
 * column k of a panel first receives the panel's earlier steps, then gives
 * its pivot; the columns right of the panel then receive all of its steps.
 * Full pivoting searches the whole trailing matrix at each step, which must
 * therefore be up to date: it goes step by step (factor_full). */
static inline __attribute__((always_inline)) vreal
FN(factor)(const int n, const bsolve_pivot pivot, real *restrict T, vreal *restrict rd, uint8_t *restrict rp,
           uint8_t *restrict cp, real *restrict B, const int nrhs, const int keep_l)
{
    if (pivot == BSOLVE_PIVOT_FULL) return FN(factor_full)(n, T, rd, rp, cp, B, nrhs, keep_l);
    vreal zinfo = FN(splat)(0);
    vreal piv[BSOLVE_MAX_N];
    uint8_t moved[BSOLVE_MAX_N]; /* step k exchanges rows in some lane */
    const int nb = n <= 16 ? 1 : BSI_NB;
    for (int k0 = 0; k0 < n; k0 += nb) {
        const int kend = k0 + nb < n ? k0 + nb : n;
        for (int k = k0; k < kend; k++) {
            if (k > k0) { /* only with panels wider than one column */
                real *ck = T + IX(0, k);
                FN(panel_update)(n, pivot, T, k0, k - k0, piv, moved, &ck, 1);
            }
            vreal pi = FN(splat)(k);
            moved[k] = 0;
            if (pivot != BSOLVE_PIVOT_NONE) {
                pi = FN(pivot_row)(n, T, k);
                for (int l = 0; l < BSI_W; l++) rp[k * BSI_W + l] = (uint8_t)pi[l];
                moved[k] = (uint8_t)FN(bsi_any)(FN(bsi_ne)(pi, FN(splat)(k)));
                /* The panel's earlier columns take the interchange now,
                 * which keeps its L in LAPACK form for panel_update; so do
                 * the columns of earlier panels for an exported L. */
                const int s0 = keep_l ? 0 : k0;
                if (k > s0 && moved[k]) FN(swap)(T + IX(0, s0), pi, k, BSI_W, k - s0, n * BSI_W);
            }
            piv[k] = pi;
            zinfo = FN(eliminate_column)(n, pivot, T, k, pi, rd, zinfo);
        }
        /* Columns right of the panel, then the right-hand sides.  The
         * step-by-step form (panels of one column) reads L as each step
         * left it; the blocked one, L in LAPACK form. */
        const int ncols = n + (B ? nrhs : 0);
        const int blocked = nb > 1;
        for (int j = kend; j < ncols;) {
            real *col[BSI_NR];
            const int nc = blocked && ncols - j >= BSI_NR ? BSI_NR : 1;
            for (int c = 0; c < nc; c++) col[c] = j + c < n ? T + IX(0, j + c) : B + IX(0, j + c - n);
            if (!blocked)
                for (int kk = k0; kk < kend; kk++) FN(apply_step)(n, pivot, T, kk, piv[kk], col[0]);
            else if (nc == BSI_NR)
                FN(panel_update)(n, pivot, T, k0, kend - k0, piv, moved, col, BSI_NR);
            else
                FN(panel_update)(n, pivot, T, k0, kend - k0, piv, moved, col, 1);
            j += nc;
        }
    }
    return zinfo;
}

/* B <- U^{-1} B, then B <- Q B for full pivoting. */
static inline __attribute__((always_inline)) void
FN(back_solve)(const int n, const bsolve_pivot pivot, const real *restrict T, const vreal *restrict rd,
               const uint8_t *restrict cp, real *restrict B, const int nrhs)
{
    /* An infinite reciprocal marks a pivot below 1/REAL_MAX (see factor):
     * tiles holding one divide by the diagonal instead. */
    int any_tiny = 0;
    for (int i = 0; i < n; i++) any_tiny |= FN(bsi_any)(FN(bsi_eq)(FN(bsi_abs)(rd[i]), FN(splat)(INFINITY)));
    for (int c = 0; c < nrhs; c++)
        for (int i = n - 1; i >= 0; i--) {
            vreal acc = V(B, i, c);
            for (int j = i + 1; j < n; j++) acc -= V(T, i, j) * V(B, j, c);
            V(B, i, c) = any_tiny ? FN(bsi_sel)(FN(bsi_eq)(FN(bsi_abs)(rd[i]), FN(splat)(INFINITY)),
                                                acc / V(T, i, i), acc * rd[i])
                                  : acc * rd[i];
        }
    if (pivot == BSOLVE_PIVOT_FULL)
        for (int k = n - 1; k >= 0; k--) FN(swap)(B, FN(load_piv)(cp + k * BSI_W), k, BSI_W, nrhs, n * BSI_W);
}

/* B <- L^{-1} P B with the factors of a getrf tile (all interchanges first:
 * the stored L has its rows in final order). */
static inline __attribute__((always_inline)) void
FN(forward_solve)(const int n, const bsolve_pivot pivot, const real *restrict T, const uint8_t *restrict rp,
                  real *restrict B, const int nrhs)
{
    if (pivot != BSOLVE_PIVOT_NONE)
        for (int k = 0; k < n; k++) FN(swap)(B, FN(load_piv)(rp + k * BSI_W), k, BSI_W, nrhs, n * BSI_W);
    for (int c = 0; c < nrhs; c++)
        for (int k = 0; k < n; k++) {
            const vreal b = V(B, k, c);
            for (int i = k + 1; i < n; i++) V(B, i, c) -= V(T, i, k) * b;
        }
}

#undef V
#undef IX

/* Final per-lane verdict: non-finite input wins over a zero pivot; a failed
 * system's solution is NaN so that it cannot be mistaken for a solved one. */
static inline void FN(verdict)(int n, int nrhs, const int32_t *nonfinite, vreal zinfo, real *B, int32_t *linfo)
{
    for (int l = 0; l < BSI_W; l++) {
        linfo[l] = nonfinite[l] ? BSOLVE_INFO_NONFINITE : (int32_t)zinfo[l];
        if (linfo[l] != 0)
            for (int e = 0; e < n * nrhs; e++) B[(int64_t)e * BSI_W + l] = (real)NAN;
    }
}

/* The three tile operations, instantiated for each pivoting mode with a
 * compile-time n for small systems (fully unrolled loops) and a run-time n
 * otherwise. */
#define BSI_SMALL_N_SWITCH(n, call, P)                                                           \
    switch (n) {                                                                                 \
    case 1: call(1, P); break;   case 2: call(2, P); break;   case 3: call(3, P); break;         \
    case 4: call(4, P); break;   case 5: call(5, P); break;   case 6: call(6, P); break;         \
    case 7: call(7, P); break;   case 8: call(8, P); break;   case 9: call(9, P); break;         \
    case 10: call(10, P); break; case 11: call(11, P); break; case 12: call(12, P); break;       \
    case 13: call(13, P); break; case 14: call(14, P); break; case 15: call(15, P); break;       \
    case 16: call(16, P); break; default: call(n, P); break;                                     \
    }
#define BSI_PIVOT_SWITCH(pivot, n, call)                                                         \
    switch (pivot) {                                                                             \
    case BSOLVE_PIVOT_NONE: BSI_SMALL_N_SWITCH(n, call, BSOLVE_PIVOT_NONE) break;                \
    case BSOLVE_PIVOT_PARTIAL: BSI_SMALL_N_SWITCH(n, call, BSOLVE_PIVOT_PARTIAL) break;          \
    default: BSI_SMALL_N_SWITCH(n, call, BSOLVE_PIVOT_FULL) break;                               \
    }

static vreal FN(gesv_tile)(int n, bsolve_pivot pivot, real *T, vreal *rd, uint8_t *rp, uint8_t *cp, real *B,
                           int nrhs)
{
    vreal zinfo;
#define CALL(N, P)                                                \
    do {                                                          \
        zinfo = FN(factor)(N, P, T, rd, rp, cp, B, nrhs, 0);      \
        FN(back_solve)(N, P, T, rd, cp, B, nrhs);                 \
    } while (0)
    BSI_PIVOT_SWITCH(pivot, n, CALL)
#undef CALL
    return zinfo;
}

static vreal FN(getrf_tile)(int n, bsolve_pivot pivot, real *T, vreal *rd, uint8_t *rp, uint8_t *cp)
{
    vreal zinfo;
#define CALL(N, P) zinfo = FN(factor)(N, P, T, rd, rp, cp, NULL, 0, 1)
    BSI_PIVOT_SWITCH(pivot, n, CALL)
#undef CALL
    return zinfo;
}

static void FN(getrs_tile)(int n, bsolve_pivot pivot, const real *T, const vreal *rd, const uint8_t *rp,
                           const uint8_t *cp, real *B, int nrhs)
{
#define CALL(N, P)                                          \
    do {                                                    \
        FN(forward_solve)(N, P, T, rp, B, nrhs);            \
        FN(back_solve)(N, P, T, rd, cp, B, nrhs);           \
    } while (0)
    BSI_PIVOT_SWITCH(pivot, n, CALL)
#undef CALL
}

/* ---- batch drivers: chunks of tiles distributed over OpenMP threads ------ */

/* Bytes of a workspace region rounded to a cache line, so that regions and
 * per-thread slices never share a line. */
static size_t FN(region)(size_t elems) { return (elems * sizeof(real) + 63) / 64 * 64; }

/* Chunk bookkeeping shared by the drivers. */
typedef struct {
    int S;           /* systems per chunk (multiple of W) */
    int64_t nchunks;
    int nth;         /* threads */
} FN(chunking);

/* bcols: columns of B per system in the chunk (0 for getrf); il: the
 * packed input (A, or B for getrs) is interleaved. */
static FN(chunking) FN(plan)(const bsolve_ctx *ctx, int n, int64_t batch, int bcols, int il)
{
    FN(chunking) c;
    c.S = bsi_chunk_cap(bsi_chunk_systems(n, n, BSI_W, sizeof(real), il), BSI_W, batch,
                        (size_t)n * bcols * sizeof(real));
    c.nchunks = (batch + c.S - 1) / c.S;
    c.nth = bsi_cpu_threads(ctx, c.nchunks);
    return c;
}

static bsolve_status FN(gesv)(bsolve_ctx *ctx, bsolve_pivot pivot, int n, int nrhs, int64_t batch, const real *A,
                              bsolve_layout la, real *B, bsolve_layout lb, int32_t *info)
{
    const FN(chunking) pl = FN(plan)(ctx, n, batch, nrhs, la.kind == BSOLVE_INTERLEAVED);
    const int64_t tsa = (int64_t)n * n * BSI_W, tsb = (int64_t)n * nrhs * BSI_W;
    const size_t sa = FN(region)((size_t)pl.S * n * n), sb = FN(region)((size_t)pl.S * n * nrhs),
                 sr = FN(region)((size_t)n * BSI_W), sp = ((size_t)2 * n * BSI_W + 63) / 64 * 64;
    const size_t per = sa + sb + sr + sp;
    char *ws = bsi_workspace(ctx, per * pl.nth);
    if (!ws) return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_gesv: out of memory for a %zu-byte workspace", per * pl.nth);
#pragma omp parallel num_threads(pl.nth)
    {
        char *my = ws + per * omp_get_thread_num();
        real *TA = (real *)my, *TB = (real *)(my + sa);
        vreal *rd = (vreal *)(my + sa + sb);
        uint8_t *rp = (uint8_t *)(my + sa + sb + sr), *cp = rp + (size_t)n * BSI_W;
        int32_t nfa[BSI_CHUNK_MAX], nfb[BSI_CHUNK_MAX], linfo[BSI_W];
#pragma omp for schedule(static)
        for (int64_t ch = 0; ch < pl.nchunks; ch++) {
            const int64_t k0 = ch * pl.S;
            const int cnt = batch - k0 < pl.S ? (int)(batch - k0) : pl.S;
            FN(bsi_pack)(TA, tsa, A, la, n, n, k0, cnt, 1, nfa);
            FN(bsi_pack)(TB, tsb, B, lb, n, nrhs, k0, cnt, 0, nfb);
            for (int t = 0; t * BSI_W < cnt; t++) {
                real *X = TB + t * tsb;
                int32_t nf[BSI_W];
                const vreal zinfo = FN(gesv_tile)(n, pivot, TA + t * tsa, rd, rp, cp, X, nrhs);
                for (int l = 0; l < BSI_W; l++) {
                    int s = t * BSI_W + l;
                    nf[l] = s < cnt ? nfa[s] | nfb[s] : 0;
                }
                FN(verdict)(n, nrhs, nf, zinfo, X, linfo);
                for (int l = 0; l < BSI_W && t * BSI_W + l < cnt; l++) info[k0 + t * BSI_W + l] = linfo[l];
            }
            FN(bsi_unpack)(TB, tsb, B, lb, n, nrhs, k0, cnt);
        }
    }
    return BSOLVE_SUCCESS;
}

/* Storage of a factorization: per tile, the factor tile and its reciprocal
 * pivots (FT reals), and n*W row and column pivots (uint8_t, n <= 128). */
#define FT(n) ((int64_t)(n) * (n) * BSI_W + (int64_t)(n) * BSI_W)

static bsolve_status FN(lu_alloc)(bsolve_ctx *ctx, bsolve_lu *lu)
{
    const int64_t ntiles = lu->batch / BSI_W + (lu->batch % BSI_W != 0); /* no overflow near INT64_MAX */
    const size_t nt = ntiles > 0 ? (size_t)ntiles : 1;
    if (nt > (SIZE_MAX - 64) / ((size_t)FT(lu->n) * sizeof(real)))
        return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_lu_create: %lld systems of order %lld exceed the address space",
                        (long long)lu->batch, (long long)lu->n);
    lu->factors = aligned_alloc(64, (FT(lu->n) * sizeof(real) * nt + 63) / 64 * 64);
    lu->rowpiv = malloc((size_t)lu->n * BSI_W * nt);
    lu->colpiv = malloc((size_t)lu->n * BSI_W * nt);
    lu->info = malloc(sizeof(int32_t) * (lu->batch > 0 ? (size_t)lu->batch : 1));
    if (!lu->factors || !lu->rowpiv || !lu->colpiv || !lu->info) {
        bsi_cpu_lu_free(lu);
        return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_lu_create: out of memory for %lld systems of order %lld",
                        (long long)lu->batch, (long long)lu->n);
    }
    /* No system factored yet: getrs gives them info NONFINITE (and NaN)
     * until a getrf, masked or not, factors them; pivots in range, so that
     * solving such a tile reads nothing outside it. */
    memset(lu->rowpiv, 0, (size_t)lu->n * BSI_W * nt);
    memset(lu->colpiv, 0, (size_t)lu->n * BSI_W * nt);
    for (int64_t k = 0; k < lu->batch; k++) lu->info[k] = BSOLVE_INFO_NONFINITE;
    lu->ld = ntiles * BSI_W;
    return BSOLVE_SUCCESS;
}

static bsolve_status FN(getrf)(bsolve_ctx *ctx, const real *A, bsolve_layout la, bsolve_lu *lu, int32_t *info)
{
    const int n = (int)lu->n;
    const int64_t batch = lu->batch;
    const FN(chunking) pl = FN(plan)(ctx, n, batch, 0, la.kind == BSOLVE_INTERLEAVED);
    real *F = lu->factors;
    uint8_t *RP = lu->rowpiv, *CP = lu->colpiv;
#pragma omp parallel num_threads(pl.nth)
    {
        int32_t nf[BSI_CHUNK_MAX];
#pragma omp for schedule(static)
        for (int64_t ch = 0; ch < pl.nchunks; ch++) {
            const int64_t k0 = ch * pl.S, t0 = k0 / BSI_W;
            const int cnt = batch - k0 < pl.S ? (int)(batch - k0) : pl.S;
            /* Packed straight into the factorization's own tiles. */
            FN(bsi_pack)(F + FT(n) * t0, FT(n), A, la, n, n, k0, cnt, 1, nf);
            for (int t = 0; t * BSI_W < cnt; t++) {
                real *T = F + FT(n) * (t0 + t);
                const vreal zinfo = FN(getrf_tile)(n, lu->pivot, T, (vreal *)(T + (int64_t)n * n * BSI_W),
                                                   RP + (int64_t)n * BSI_W * (t0 + t), CP + (int64_t)n * BSI_W * (t0 + t));
                for (int l = 0; l < BSI_W && t * BSI_W + l < cnt; l++) {
                    int s = t * BSI_W + l;
                    int32_t v = nf[s] ? BSOLVE_INFO_NONFINITE : (int32_t)zinfo[l];
                    lu->info[k0 + s] = v;
                    info[k0 + s] = v;
                }
            }
        }
    }
    return BSOLVE_SUCCESS;
}

/* Lane l of the factor tile T and its pivots rp, cp (n*W each) to lane m of
 * the factorization's tile D and pivots drp, dcp: entries, reciprocal
 * pivots, and the pivots the mode keeps. */
static void FN(copy_lane)(int n, bsolve_pivot pivot, const real *T, const uint8_t *rp, const uint8_t *cp, int l,
                          real *D, uint8_t *drp, uint8_t *dcp, int m)
{
    const int64_t ne = FT(n) / BSI_W;
    for (int64_t e = 0; e < ne; e++) D[e * BSI_W + m] = T[e * BSI_W + l];
    for (int k = 0; k < n; k++) {
        if (pivot != BSOLVE_PIVOT_NONE) drp[k * BSI_W + m] = rp[k * BSI_W + l];
        if (pivot == BSOLVE_PIVOT_FULL) dcp[k * BSI_W + m] = cp[k * BSI_W + l];
    }
}

/* getrf of the flagged systems: chunks of them packed densely into tiles of
 * the workspace (mask_ranks), factored there, and each lane copied to its
 * system's slot in lu.  Factoring in place would factor whole tiles of lu,
 * most of whose lanes are not flagged when few are; the copy costs n^2 + n
 * loads and stores per system against the factorization's n^3/3 FMAs. */
static bsolve_status FN(getrf_masked)(bsolve_ctx *ctx, const real *A, bsolve_layout la, bsolve_lu *lu,
                                      const uint8_t *mask, int32_t *info)
{
    const int n = (int)lu->n;
    const int64_t batch = lu->batch, nb = mask_blocks(batch);
    const int S = bsi_chunk_cap(bsi_chunk_systems(n, n, BSI_W, sizeof(real), la.kind == BSOLVE_INTERLEAVED), BSI_W,
                                batch, 0);
    const int nt = S / BSI_W;
    const size_t spre = ((size_t)(nb + 1) * sizeof(int64_t) + 63) / 64 * 64,
                 sf = (size_t)nt * FT(n) * sizeof(real), per = sf + ((size_t)2 * n * BSI_W * nt + 63) / 64 * 64;
    const int nmax = bsi_cpu_threads(ctx, (batch + S - 1) / S);
    char *ws = bsi_workspace(ctx, spre + per * nmax);
    if (!ws)
        return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_getrf_masked: out of memory for a %zu-byte workspace",
                        spre + per * nmax);
    int64_t *pre = (int64_t *)ws;
    const int64_t nsel = mask_prefix(mask, batch, pre, bsi_cpu_threads(ctx, nb));
    const int64_t nchunks = (nsel + S - 1) / S;
    const int nth = bsi_cpu_threads(ctx, nchunks);
    real *F = lu->factors;
    uint8_t *RP = lu->rowpiv, *CP = lu->colpiv;
#pragma omp parallel num_threads(nth)
    {
        char *my = ws + spre + per * omp_get_thread_num();
        real *T = (real *)my;
        uint8_t *rp = (uint8_t *)(my + sf), *cp = rp + (size_t)n * BSI_W * nt;
        int64_t idx[BSI_CHUNK_MAX];
        int32_t nf[BSI_CHUNK_MAX];
#pragma omp for schedule(static)
        for (int64_t ch = 0; ch < nchunks; ch++) {
            const int64_t r0 = ch * S;
            const int cnt = nsel - r0 < S ? (int)(nsel - r0) : S;
            mask_ranks(mask, pre, nb, r0, cnt, idx);
            FN(bsi_pack_sel)(T, FT(n), A, la, n, n, idx, cnt, 1, nf);
            for (int t = 0; t * BSI_W < cnt; t++) {
                real *Tt = T + FT(n) * t;
                uint8_t *rpt = rp + (int64_t)n * BSI_W * t, *cpt = cp + (int64_t)n * BSI_W * t;
                const vreal zinfo = FN(getrf_tile)(n, lu->pivot, Tt, (vreal *)(Tt + (int64_t)n * n * BSI_W), rpt, cpt);
                for (int l = 0; l < BSI_W && t * BSI_W + l < cnt; l++) {
                    const int s = t * BSI_W + l;
                    const int64_t k = idx[s], tk = k / BSI_W;
                    FN(copy_lane)(n, lu->pivot, Tt, rpt, cpt, l, F + FT(n) * tk, RP + (int64_t)n * BSI_W * tk,
                                  CP + (int64_t)n * BSI_W * tk, (int)(k % BSI_W));
                    const int32_t v = nf[s] ? BSOLVE_INFO_NONFINITE : (int32_t)zinfo[l];
                    lu->info[k] = v;
                    info[k] = v;
                }
            }
        }
    }
    return BSOLVE_SUCCESS;
}

/* getrs, of every system (mask NULL) or of the flagged ones.  The factors
 * stay where they are, a tile of W systems per SIMD vector: a masked solve
 * solves every tile that holds a flagged system, the other lanes' B read as
 * zeros and their results dropped.  Gathering flagged lanes into full tiles
 * would not save memory traffic (a tile's entry (i, j) is one cache line at
 * AVX-512's width, whichever lanes are wanted), which is what a solve
 * costs. */
static bsolve_status FN(getrs)(bsolve_ctx *ctx, const bsolve_lu *lu, int nrhs, real *B, bsolve_layout lb,
                               const uint8_t *mask, int32_t *info)
{
    const int n = (int)lu->n;
    const int64_t batch = lu->batch, tsb = (int64_t)n * nrhs * BSI_W;
    const FN(chunking) pl = FN(plan)(ctx, n, batch, nrhs, lb.kind == BSOLVE_INTERLEAVED);
    const size_t per = FN(region)((size_t)pl.S * n * nrhs);
    char *ws = bsi_workspace(ctx, per * pl.nth);
    if (!ws) return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_getrs: out of memory for a %zu-byte workspace", per * pl.nth);
    const real *F = lu->factors;
    const uint8_t *RP = lu->rowpiv, *CP = lu->colpiv;
#pragma omp parallel num_threads(pl.nth)
    {
        real *TB = (real *)(ws + per * omp_get_thread_num());
        int32_t nfb[BSI_CHUNK_MAX], nf[BSI_W], linfo[BSI_W];
        int64_t idx[BSI_CHUNK_MAX]; /* masked: the chunk's systems, -1 where not flagged */
        int live[BSI_CHUNK_MAX / BSI_W];
#pragma omp for schedule(static)
        for (int64_t ch = 0; ch < pl.nchunks; ch++) {
            const int64_t k0 = ch * pl.S, t0 = k0 / BSI_W;
            const int cnt = batch - k0 < pl.S ? (int)(batch - k0) : pl.S;
            if (mask) {
                int any = 0;
                for (int t = 0; t * BSI_W < cnt; t++) live[t] = 0;
                for (int s = 0; s < cnt; s++) {
                    idx[s] = mask[k0 + s] ? k0 + s : -1;
                    live[s / BSI_W] |= mask[k0 + s] != 0;
                    any |= mask[k0 + s] != 0;
                }
                if (!any) continue;
                FN(bsi_pack_sel)(TB, tsb, B, lb, n, nrhs, idx, cnt, 0, nfb);
            } else {
                FN(bsi_pack)(TB, tsb, B, lb, n, nrhs, k0, cnt, 0, nfb);
            }
            for (int t = 0; t * BSI_W < cnt; t++) {
                if (mask && !live[t]) continue;
                const real *T = F + FT(n) * (t0 + t);
                real *X = TB + t * tsb;
                FN(getrs_tile)(n, lu->pivot, T, (const vreal *)(T + (int64_t)n * n * BSI_W), RP + (int64_t)n * BSI_W * (t0 + t),
                               CP + (int64_t)n * BSI_W * (t0 + t), X, nrhs);
                vreal finfo;
                for (int l = 0; l < BSI_W; l++) {
                    int s = t * BSI_W + l;
                    nf[l] = s < cnt ? nfb[s] : 0;
                    finfo[l] = s < cnt ? lu->info[k0 + s] : 0;
                }
                FN(verdict)(n, nrhs, nf, finfo, X, linfo);
                if (info)
                    for (int l = 0; l < BSI_W && t * BSI_W + l < cnt; l++)
                        if (!mask || idx[t * BSI_W + l] >= 0) info[k0 + t * BSI_W + l] = linfo[l];
            }
            if (mask) FN(bsi_unpack_sel)(TB, tsb, B, lb, n, nrhs, idx, cnt);
            else FN(bsi_unpack)(TB, tsb, B, lb, n, nrhs, k0, cnt);
        }
    }
    return BSOLVE_SUCCESS;
}

static bsolve_status FN(lu_export)(bsolve_ctx *ctx, const bsolve_lu *lu, real *LU, bsolve_layout l, int32_t *ipiv,
                                   int32_t *jpiv)
{
    const int n = (int)lu->n;
    const int64_t batch = lu->batch, ntiles = (batch + BSI_W - 1) / BSI_W;
    const int nth = bsi_cpu_threads(ctx, ntiles);
    const real *F = lu->factors;
    const uint8_t *RP = lu->rowpiv, *CP = lu->colpiv;
#pragma omp parallel for num_threads(nth) schedule(static)
    for (int64_t t = 0; t < ntiles; t++) {
        const int64_t k0 = t * BSI_W;
        const int nl = batch - k0 < BSI_W ? (int)(batch - k0) : BSI_W;
        if (LU) FN(bsi_unpack)(F + FT(n) * t, FT(n), LU, l, n, n, k0, nl);
        for (int ln = 0; ln < nl; ln++)
            for (int i = 0; i < n; i++) {
                int64_t o = (k0 + ln) * n + i;
                if (ipiv)
                    ipiv[o] = lu->pivot == BSOLVE_PIVOT_NONE ? i + 1 : RP[(int64_t)n * BSI_W * t + i * BSI_W + ln] + 1;
                if (jpiv)
                    jpiv[o] = lu->pivot == BSOLVE_PIVOT_FULL ? CP[(int64_t)n * BSI_W * t + i * BSI_W + ln] + 1 : i + 1;
            }
    }
    return BSOLVE_SUCCESS;
}

#undef FT
