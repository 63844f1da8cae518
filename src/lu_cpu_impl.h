/*
 * lu_cpu_impl.h -- precision-generic LU on tiles of BSI_W systems, included
 * by lu_cpu.c once per precision between tmpl_on.h and tmpl_off.h.
 *
 * Every loop runs innermost over the BSI_W lanes of a tile, so each
 * arithmetic statement is one SIMD instruction over BSI_W independent
 * systems.  Pivot choices are per lane and selected without branches; only
 * the row/column interchange moves data per lane, which costs O(n^2) against
 * the O(n^3) elimination.
 *
 * Tile of factors: entry (i, j) of lane l at T[(i + j*n)*W + l], followed by
 * the n reciprocal pivots rd[i*W + l] (getrs multiplies instead of dividing).
 */

#define IX(i, j) (((i) + (j) * n) * BSI_W)

static inline __attribute__((always_inline)) void FN(swap_lane)(real *a, real *b)
{
    real t = *a;
    *a = *b;
    *b = t;
}

/* Factors the tile T in place: P A Q = L U.  With B (nrhs columns), applies
 * the row interchanges and the elimination to B as it goes (fused gesv);
 * keep_l swaps whole rows so that L is exported in LAPACK form (getrf).
 * rp/cp receive the pivot row/column of each step and lane, pinfo the first
 * zero-pivot step (1-based) or 0. */
static inline __attribute__((always_inline)) void
FN(factor)(const int n, const bsolve_pivot pivot, real *restrict T, real *restrict rd, uint8_t *restrict rp,
           uint8_t *restrict cp, int32_t *restrict pinfo, real *restrict B, const int nrhs, const int keep_l)
{
    for (int l = 0; l < BSI_W; l++) pinfo[l] = 0;
    for (int k = 0; k < n; k++) {
        if (pivot != BSOLVE_PIVOT_NONE) {
            int32_t pi[BSI_W], pj[BSI_W];
            real best[BSI_W];
            for (int l = 0; l < BSI_W; l++) {
                best[l] = -1; /* so that a zero column still picks row k */
                pi[l] = k;
                pj[l] = k;
            }
            /* Strict '>' keeps the first maximum in column-major scan order,
             * as LAPACK's idamax does within a column. */
            for (int j = k; j < (pivot == BSOLVE_PIVOT_FULL ? n : k + 1); j++)
                for (int i = k; i < n; i++)
                    for (int l = 0; l < BSI_W; l++) {
                        real v = T[IX(i, j) + l];
                        v = v < 0 ? -v : v;
                        int m = v > best[l];
                        best[l] = m ? v : best[l];
                        pi[l] = m ? i : pi[l];
                        pj[l] = m ? j : pj[l];
                    }
            if (pivot == BSOLVE_PIVOT_FULL) {
                for (int l = 0; l < BSI_W; l++) {
                    int q = pj[l];
                    cp[k * BSI_W + l] = (uint8_t)q;
                    if (q != k)
                        for (int i = 0; i < n; i++) FN(swap_lane)(&T[IX(i, k) + l], &T[IX(i, q) + l]);
                }
            }
            const int j0 = keep_l ? 0 : k;
            for (int l = 0; l < BSI_W; l++) {
                int p = pi[l];
                rp[k * BSI_W + l] = (uint8_t)p;
                if (p != k) {
                    for (int j = j0; j < n; j++) FN(swap_lane)(&T[IX(k, j) + l], &T[IX(p, j) + l]);
                    if (B)
                        for (int c = 0; c < nrhs; c++) FN(swap_lane)(&B[IX(k, c) + l], &B[IX(p, c) + l]);
                }
            }
        }
        real *restrict r = rd + k * BSI_W;
        for (int l = 0; l < BSI_W; l++) {
            real d = T[IX(k, k) + l];
            int z = d == 0;
            pinfo[l] = (z && pinfo[l] == 0) ? k + 1 : pinfo[l];
            /* A zero pivot is skipped (reciprocal 1), as LAPACK skips the
             * scaling; the system is reported and its solution NaN-filled. */
            r[l] = 1 / (z ? 1 : d);
        }
        for (int i = k + 1; i < n; i++)
            for (int l = 0; l < BSI_W; l++) T[IX(i, k) + l] *= r[l];
        for (int j = k + 1; j < n; j++)
            for (int i = k + 1; i < n; i++)
                for (int l = 0; l < BSI_W; l++) T[IX(i, j) + l] -= T[IX(i, k) + l] * T[IX(k, j) + l];
        if (B)
            for (int c = 0; c < nrhs; c++)
                for (int i = k + 1; i < n; i++)
                    for (int l = 0; l < BSI_W; l++) B[IX(i, c) + l] -= T[IX(i, k) + l] * B[IX(k, c) + l];
    }
}

/* B <- U^{-1} B, then B <- Q B for full pivoting. */
static inline __attribute__((always_inline)) void
FN(back_solve)(const int n, const bsolve_pivot pivot, const real *restrict T, const real *restrict rd,
               const uint8_t *restrict cp, real *restrict B, const int nrhs)
{
    for (int c = 0; c < nrhs; c++)
        for (int i = n - 1; i >= 0; i--) {
            real acc[BSI_W];
            for (int l = 0; l < BSI_W; l++) acc[l] = B[IX(i, c) + l];
            for (int j = i + 1; j < n; j++)
                for (int l = 0; l < BSI_W; l++) acc[l] -= T[IX(i, j) + l] * B[IX(j, c) + l];
            for (int l = 0; l < BSI_W; l++) B[IX(i, c) + l] = acc[l] * rd[i * BSI_W + l];
        }
    if (pivot == BSOLVE_PIVOT_FULL)
        for (int k = n - 1; k >= 0; k--)
            for (int l = 0; l < BSI_W; l++) {
                int q = cp[k * BSI_W + l];
                if (q != k)
                    for (int c = 0; c < nrhs; c++) FN(swap_lane)(&B[IX(k, c) + l], &B[IX(q, c) + l]);
            }
}

/* B <- L^{-1} P B with the factors of a getrf tile. */
static inline __attribute__((always_inline)) void
FN(forward_solve)(const int n, const bsolve_pivot pivot, const real *restrict T, const uint8_t *restrict rp,
                  real *restrict B, const int nrhs)
{
    if (pivot != BSOLVE_PIVOT_NONE)
        for (int k = 0; k < n; k++)
            for (int l = 0; l < BSI_W; l++) {
                int p = rp[k * BSI_W + l];
                if (p != k)
                    for (int c = 0; c < nrhs; c++) FN(swap_lane)(&B[IX(k, c) + l], &B[IX(p, c) + l]);
            }
    for (int c = 0; c < nrhs; c++)
        for (int k = 0; k < n; k++)
            for (int i = k + 1; i < n; i++)
                for (int l = 0; l < BSI_W; l++) B[IX(i, c) + l] -= T[IX(i, k) + l] * B[IX(k, c) + l];
}

#undef IX

/* Final per-lane verdict: non-finite input wins over a zero pivot; a failed
 * system's solution is NaN so that it cannot be mistaken for a solved one. */
static inline void FN(verdict)(int n, int nrhs, const int32_t *nonfinite, const int32_t *pinfo, real *B,
                               int32_t *linfo)
{
    for (int l = 0; l < BSI_W; l++) {
        linfo[l] = nonfinite[l] ? BSOLVE_INFO_NONFINITE : pinfo[l];
        if (linfo[l] != 0)
            for (int e = 0; e < n * nrhs; e++) B[(int64_t)e * BSI_W + l] = (real)NAN;
    }
}

/* The three tile operations, instantiated with a compile-time n for small
 * systems (fully unrolled loops) and a run-time n otherwise. */
#define BSI_SMALL_N_SWITCH(n, call)                                                              \
    switch (n) {                                                                                 \
    case 1: call(1); break;   case 2: call(2); break;   case 3: call(3); break;                  \
    case 4: call(4); break;   case 5: call(5); break;   case 6: call(6); break;                  \
    case 7: call(7); break;   case 8: call(8); break;   case 9: call(9); break;                  \
    case 10: call(10); break; case 11: call(11); break; case 12: call(12); break;                \
    case 13: call(13); break; case 14: call(14); break; case 15: call(15); break;                \
    case 16: call(16); break; default: call(n); break;                                           \
    }

static void FN(gesv_tile)(int n, bsolve_pivot pivot, real *T, real *rd, uint8_t *rp, uint8_t *cp, int32_t *pinfo,
                          real *B, int nrhs)
{
#define CALL(N)                                                 \
    do {                                                        \
        FN(factor)(N, pivot, T, rd, rp, cp, pinfo, B, nrhs, 0); \
        FN(back_solve)(N, pivot, T, rd, cp, B, nrhs);           \
    } while (0)
    BSI_SMALL_N_SWITCH(n, CALL)
#undef CALL
}

static void FN(getrf_tile)(int n, bsolve_pivot pivot, real *T, real *rd, uint8_t *rp, uint8_t *cp, int32_t *pinfo)
{
#define CALL(N) FN(factor)(N, pivot, T, rd, rp, cp, pinfo, NULL, 0, 1)
    BSI_SMALL_N_SWITCH(n, CALL)
#undef CALL
}

static void FN(getrs_tile)(int n, bsolve_pivot pivot, const real *T, const real *rd, const uint8_t *rp,
                           const uint8_t *cp, real *B, int nrhs)
{
#define CALL(N)                                               \
    do {                                                      \
        FN(forward_solve)(N, pivot, T, rp, B, nrhs);          \
        FN(back_solve)(N, pivot, T, rd, cp, B, nrhs);         \
    } while (0)
    BSI_SMALL_N_SWITCH(n, CALL)
#undef CALL
}

/* ---- batch drivers: tiles distributed over OpenMP threads ---------------- */

/* Bytes of one tile region rounded to a cache line, so per-thread slices of
 * the workspace never share a line. */
static size_t FN(tile_bytes)(size_t elems) { return (elems * sizeof(real) + 63) / 64 * 64; }

static bsolve_status FN(gesv)(bsolve_ctx *ctx, bsolve_pivot pivot, int n, int nrhs, int64_t batch, const real *A,
                              bsolve_layout la, real *B, bsolve_layout lb, int32_t *info)
{
    const int64_t ntiles = (batch + BSI_W - 1) / BSI_W;
    const size_t sa = FN(tile_bytes)((size_t)n * n * BSI_W), sb = FN(tile_bytes)((size_t)n * nrhs * BSI_W),
                 sr = FN(tile_bytes)((size_t)n * BSI_W), sp = ((size_t)2 * n * BSI_W + 63) / 64 * 64;
    const size_t per = sa + sb + sr + sp;
    const int nth = bsi_cpu_threads(ctx, ntiles);
    char *ws = bsi_workspace(ctx, per * nth);
    if (!ws) return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_gesv: out of memory for a %zu-byte workspace", per * nth);
#pragma omp parallel num_threads(nth)
    {
        char *my = ws + per * omp_get_thread_num();
        real *T = (real *)my, *X = (real *)(my + sa), *rd = (real *)(my + sa + sb);
        uint8_t *rp = (uint8_t *)(my + sa + sb + sr), *cp = rp + (size_t)n * BSI_W;
        int32_t nfa[BSI_W], nfb[BSI_W], pinfo[BSI_W], linfo[BSI_W];
#pragma omp for schedule(static)
        for (int64_t t = 0; t < ntiles; t++) {
            const int64_t k0 = t * BSI_W;
            const int nl = batch - k0 < BSI_W ? (int)(batch - k0) : BSI_W;
            FN(bsi_pack)(T, A, la, n, n, k0, nl, 1, nfa);
            FN(bsi_pack)(X, B, lb, n, nrhs, k0, nl, 0, nfb);
            FN(gesv_tile)(n, pivot, T, rd, rp, cp, pinfo, X, nrhs);
            for (int l = 0; l < BSI_W; l++) nfa[l] |= nfb[l];
            FN(verdict)(n, nrhs, nfa, pinfo, X, linfo);
            FN(bsi_unpack)(X, B, lb, n, nrhs, k0, nl);
            for (int l = 0; l < nl; l++) info[k0 + l] = linfo[l];
        }
    }
    return BSOLVE_SUCCESS;
}

/* Storage of a factorization: per tile, the factor tile and its reciprocal
 * pivots (FT reals), and n*W row and column pivots (uint8_t, n <= 128). */
#define FT(n) ((size_t)(n) * (n) * BSI_W + (size_t)(n) * BSI_W)

static bsolve_status FN(lu_alloc)(bsolve_ctx *ctx, bsolve_lu *lu)
{
    const int64_t ntiles = (lu->batch + BSI_W - 1) / BSI_W;
    const size_t nt = ntiles > 0 ? (size_t)ntiles : 1;
    lu->factors = aligned_alloc(64, (FT(lu->n) * sizeof(real) * nt + 63) / 64 * 64);
    lu->rowpiv = malloc((size_t)lu->n * BSI_W * nt);
    lu->colpiv = malloc((size_t)lu->n * BSI_W * nt);
    lu->info = malloc(sizeof(int32_t) * (lu->batch > 0 ? (size_t)lu->batch : 1));
    if (!lu->factors || !lu->rowpiv || !lu->colpiv || !lu->info) {
        bsi_cpu_lu_free(lu);
        return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_lu_create: out of memory for %lld systems of order %lld",
                        (long long)lu->batch, (long long)lu->n);
    }
    lu->ld = ntiles * BSI_W;
    return BSOLVE_SUCCESS;
}

static bsolve_status FN(getrf)(bsolve_ctx *ctx, const real *A, bsolve_layout la, bsolve_lu *lu, int32_t *info)
{
    const int n = (int)lu->n;
    const int64_t batch = lu->batch, ntiles = (batch + BSI_W - 1) / BSI_W;
    const int nth = bsi_cpu_threads(ctx, ntiles);
    real *F = lu->factors;
    uint8_t *RP = lu->rowpiv, *CP = lu->colpiv;
#pragma omp parallel for num_threads(nth) schedule(static)
    for (int64_t t = 0; t < ntiles; t++) {
        const int64_t k0 = t * BSI_W;
        const int nl = batch - k0 < BSI_W ? (int)(batch - k0) : BSI_W;
        real *T = F + FT(n) * t, *rd = T + (size_t)n * n * BSI_W;
        uint8_t *rp = RP + (size_t)n * BSI_W * t, *cp = CP + (size_t)n * BSI_W * t;
        int32_t nf[BSI_W], pinfo[BSI_W];
        FN(bsi_pack)(T, A, la, n, n, k0, nl, 1, nf);
        FN(getrf_tile)(n, lu->pivot, T, rd, rp, cp, pinfo);
        for (int l = 0; l < nl; l++) {
            int32_t v = nf[l] ? BSOLVE_INFO_NONFINITE : pinfo[l];
            lu->info[k0 + l] = v;
            info[k0 + l] = v;
        }
    }
    return BSOLVE_SUCCESS;
}

static bsolve_status FN(getrs)(bsolve_ctx *ctx, const bsolve_lu *lu, int nrhs, real *B, bsolve_layout lb,
                               int32_t *info)
{
    const int n = (int)lu->n;
    const int64_t batch = lu->batch, ntiles = (batch + BSI_W - 1) / BSI_W;
    const size_t per = FN(tile_bytes)((size_t)n * nrhs * BSI_W);
    const int nth = bsi_cpu_threads(ctx, ntiles);
    char *ws = bsi_workspace(ctx, per * nth);
    if (!ws) return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_getrs: out of memory for a %zu-byte workspace", per * nth);
    const real *F = lu->factors;
    const uint8_t *RP = lu->rowpiv, *CP = lu->colpiv;
#pragma omp parallel num_threads(nth)
    {
        real *X = (real *)(ws + per * omp_get_thread_num());
        int32_t nf[BSI_W], finfo[BSI_W], linfo[BSI_W];
#pragma omp for schedule(static)
        for (int64_t t = 0; t < ntiles; t++) {
            const int64_t k0 = t * BSI_W;
            const int nl = batch - k0 < BSI_W ? (int)(batch - k0) : BSI_W;
            const real *T = F + FT(n) * t, *rd = T + (size_t)n * n * BSI_W;
            FN(bsi_pack)(X, B, lb, n, nrhs, k0, nl, 0, nf);
            FN(getrs_tile)(n, lu->pivot, T, rd, RP + (size_t)n * BSI_W * t, CP + (size_t)n * BSI_W * t, X, nrhs);
            for (int l = 0; l < BSI_W; l++) finfo[l] = l < nl ? lu->info[k0 + l] : 0;
            FN(verdict)(n, nrhs, nf, finfo, X, linfo);
            FN(bsi_unpack)(X, B, lb, n, nrhs, k0, nl);
            if (info)
                for (int l = 0; l < nl; l++) info[k0 + l] = linfo[l];
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
        if (LU) FN(bsi_unpack)(F + FT(n) * t, LU, l, n, n, k0, nl);
        for (int ln = 0; ln < nl; ln++)
            for (int i = 0; i < n; i++) {
                int64_t o = (k0 + ln) * n + i;
                if (ipiv)
                    ipiv[o] = lu->pivot == BSOLVE_PIVOT_NONE ? i + 1 : RP[(size_t)n * BSI_W * t + i * BSI_W + ln] + 1;
                if (jpiv)
                    jpiv[o] = lu->pivot == BSOLVE_PIVOT_FULL ? CP[(size_t)n * BSI_W * t + i * BSI_W + ln] + 1 : i + 1;
            }
    }
    return BSOLVE_SUCCESS;
}

#undef FT
