/*
 * api.c -- the public dense-LU entry points: argument checking and dispatch.
 *
 * Each public s/d routine is a one-line wrapper around a precision-generic
 * function here, so every rule is checked in one place for every precision
 * and backend; backends receive only valid arguments, and many right-hand
 * sides (or large matrices to convert) a block of columns at a time
 * (block.h).
 */
#include "api_check.h"
#include "block.h"
#include "internal.h"
#include "lu_cpu.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- checks (the shared ones are in api_check.c) ------------------------ */

static int pivot_ok(bsolve_pivot p)
{
    return p == BSOLVE_PIVOT_NONE || p == BSOLVE_PIVOT_PARTIAL || p == BSOLVE_PIVOT_FULL;
}

static bsolve_status check_n(bsolve_ctx *ctx, const char *fn, int64_t n)
{
    if (n < 1 || n > BSOLVE_MAX_N)
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: n = %lld must be >= 1 and <= %d", fn, (long long)n,
                        BSOLVE_MAX_N);
    return BSOLVE_SUCCESS;
}

/* Checks that lu may be used by ctx with precision prec. */
static bsolve_status check_lu(bsolve_ctx *ctx, const char *fn, const bsolve_lu *lu,
                              bsolve_precision prec, int must_be_factored)
{
    if (!lu) return bsi_fail(ctx, BSOLVE_ENULL, "%s: lu is NULL", fn);
    /* The factors live in memory the creating context manages (device
     * allocations, streams): another context must not touch them. */
    if (lu->owner != ctx)
        return bsi_fail(ctx, BSOLVE_EMISMATCH, "%s: lu was created with another context", fn);
    if (lu->backend != ctx->backend)
        return bsi_fail(ctx, BSOLVE_EMISMATCH, "%s: lu was made on the %s backend, the context is %s", fn,
                        bsolve_backend_name(lu->backend), bsolve_backend_name(ctx->backend));
    if (bsi_prec_ok(prec) && lu->prec != prec)
        return bsi_fail(ctx, BSOLVE_EMISMATCH, "%s: lu holds %s factors; use the %c routine", fn,
                        lu->prec == BSOLVE_PREC_D ? "double" : "float", lu->prec == BSOLVE_PREC_D ? 'd' : 's');
    if (must_be_factored && !lu->factored)
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: lu has not been factored yet (call ?getrf first)", fn);
    return BSOLVE_SUCCESS;
}

/* ---- gesv ------------------------------------------------------------- */

/* A gesv call's arguments, for its column blocks (block.h). */
typedef struct {
    bsolve_precision prec;
    bsolve_pivot pivot;
    int64_t n, batch;
    const void *A;
    bsolve_layout la;
    char *B;
    bsolve_layout lb;
    bsi_strides sb;
    size_t es;
} gesv_args;

static bsolve_status gesv_run(bsolve_ctx *ctx, const gesv_args *g, void *B, int64_t nrhs, int32_t *info)
{
    if (ctx->backend == BSOLVE_BACKEND_CUDA)
        return bsi_cuda_gesv(ctx, g->prec, g->pivot, g->n, nrhs, g->batch, g->A, g->la, B, g->lb, info);
    return bsi_cpu_gesv(ctx, g->prec, g->pivot, g->n, nrhs, g->batch, g->A, g->la, B, g->lb, info);
}

static bsolve_status gesv_block(bsolve_ctx *ctx, void *arg, int64_t j0, int64_t nb, int32_t *info)
{
    const gesv_args *g = arg;
    return gesv_run(ctx, g, g->B + j0 * g->sb.js * (int64_t)g->es, nb, info);
}

static bsolve_status gesv(bsolve_ctx *ctx, bsolve_precision prec, const char *fn, bsolve_pivot pivot,
                          int64_t n, int64_t nrhs, int64_t batch, const void *A, bsolve_layout la,
                          void *B, bsolve_layout lb, int32_t *info)
{
    if (!ctx) return BSOLVE_ENULL;
    const size_t es = bsi_elem_size(prec);
    if (!pivot_ok(pivot))
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: pivot = %d is not a bsolve_pivot", fn, (int)pivot);
    TRY(check_n(ctx, fn, n));
    TRY(bsi_check_nrhs(ctx, fn, nrhs));
    TRY(bsi_check_batch(ctx, fn, batch));
    TRY(bsi_check_layout(ctx, fn, "A", la, n, n, batch, es));
    TRY(bsi_check_layout(ctx, fn, "B", lb, n, nrhs, batch, es));
    if (batch > 0) {
        TRY(bsi_check_ptr(ctx, fn, "A", A));
        TRY(bsi_check_ptr(ctx, fn, "B", B));
        TRY(bsi_check_ptr(ctx, fn, "info", info));
    }
    ctx->msg[0] = '\0';
    if (batch == 0) return BSOLVE_SUCCESS;
    const gesv_args g = {prec, pivot, n, batch, A, la, B, lb, bsi_layout_strides(lb, n), es};
    int64_t nblk = bsi_rhs_blocks(ctx, n, nrhs, es);
    const void *const p[3] = {A, B, info};
    if (nblk > 1 && !bsi_host_arrays(ctx, p, 3)) nblk = 1; /* device memory: no workspace grows with nrhs */
    if (nblk == 1) return gesv_run(ctx, &g, B, nrhs, info);
    return bsi_rhs_blocked(ctx, fn, nblk, nrhs, batch, B, g.sb, n, es, NULL, info, gesv_block, (void *)&g);
}

bsolve_status bsolve_dgesv(bsolve_ctx *ctx, bsolve_pivot pivot, int64_t n, int64_t nrhs, int64_t batch,
                           const double *A, bsolve_layout la, double *B, bsolve_layout lb, int32_t *info)
{
    return gesv(ctx, BSOLVE_PREC_D, "bsolve_dgesv", pivot, n, nrhs, batch, A, la, B, lb, info);
}

bsolve_status bsolve_sgesv(bsolve_ctx *ctx, bsolve_pivot pivot, int64_t n, int64_t nrhs, int64_t batch,
                           const float *A, bsolve_layout la, float *B, bsolve_layout lb, int32_t *info)
{
    return gesv(ctx, BSOLVE_PREC_S, "bsolve_sgesv", pivot, n, nrhs, batch, A, la, B, lb, info);
}

/* ---- factorization objects --------------------------------------------- */

bsolve_status bsolve_lu_create(bsolve_ctx *ctx, bsolve_precision prec, bsolve_pivot pivot, int64_t n,
                               int64_t batch, bsolve_lu **out)
{
    static const char fn[] = "bsolve_lu_create";
    if (!ctx) return BSOLVE_ENULL;
    TRY(bsi_check_ptr(ctx, fn, "lu", out));
    *out = NULL;
    if (!bsi_prec_ok(prec))
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: prec = %d is not a bsolve_precision", fn, (int)prec);
    if (!pivot_ok(pivot))
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: pivot = %d is not a bsolve_pivot", fn, (int)pivot);
    TRY(check_n(ctx, fn, n));
    TRY(bsi_check_batch(ctx, fn, batch));
    /* factors and reciprocal pivots, row and column pivots, info */
    char what[40];
    snprintf(what, sizeof what, "of order %lld", (long long)n);
    TRY(bsi_check_storage(ctx, fn, batch, (n * n + n) * (int64_t)bsi_elem_size(prec) + 2 * n + 4, what));
    bsolve_lu *lu = calloc(1, sizeof *lu);
    if (!lu) return bsi_fail(ctx, BSOLVE_ENOMEM, "%s: out of host memory", fn);
    lu->backend = ctx->backend;
    lu->owner = ctx;
    lu->prec = prec;
    lu->pivot = pivot;
    lu->n = n;
    lu->batch = batch;
    bsolve_status s = ctx->backend == BSOLVE_BACKEND_CUDA ? bsi_cuda_lu_alloc(ctx, lu) : bsi_cpu_lu_alloc(ctx, lu);
    if (s != BSOLVE_SUCCESS) {
        free(lu);
        return s;
    }
    ctx->msg[0] = '\0';
    *out = lu;
    return BSOLVE_SUCCESS;
}

void bsolve_lu_destroy(bsolve_lu *lu)
{
    if (!lu) return;
    if (lu->backend == BSOLVE_BACKEND_CUDA)
        bsi_cuda_lu_free(lu);
    else
        bsi_cpu_lu_free(lu);
    free(lu);
}

int64_t bsolve_lu_n(const bsolve_lu *lu) { return lu ? lu->n : 0; }
int64_t bsolve_lu_batch(const bsolve_lu *lu) { return lu ? lu->batch : 0; }
bsolve_pivot bsolve_lu_pivot(const bsolve_lu *lu) { return lu ? lu->pivot : BSOLVE_PIVOT_NONE; }
bsolve_precision bsolve_lu_precision(const bsolve_lu *lu) { return lu ? lu->prec : BSOLVE_PREC_D; }

/* ---- getrf / getrs / export -------------------------------------------- */

/* getrf, and getrf_masked with mask (NULL: every system). */
static bsolve_status getrf(bsolve_ctx *ctx, bsolve_precision prec, const char *fn, const void *A,
                           bsolve_layout la, bsolve_lu *lu, const uint8_t *mask, int masked, int32_t *info)
{
    if (!ctx) return BSOLVE_ENULL;
    TRY(check_lu(ctx, fn, lu, prec, 0));
    TRY(bsi_check_layout(ctx, fn, "A", la, lu->n, lu->n, lu->batch, bsi_elem_size(lu->prec)));
    if (lu->batch > 0) {
        TRY(bsi_check_ptr(ctx, fn, "A", A));
        if (masked) TRY(bsi_check_ptr(ctx, fn, "mask", mask));
        TRY(bsi_check_ptr(ctx, fn, "info", info));
    }
    ctx->msg[0] = '\0';
    bsolve_status s = BSOLVE_SUCCESS;
    if (lu->batch > 0)
        s = ctx->backend == BSOLVE_BACKEND_CUDA ? bsi_cuda_getrf(ctx, A, la, lu, mask, info)
                                                : bsi_cpu_getrf(ctx, A, la, lu, mask, info);
    if (s == BSOLVE_SUCCESS) lu->factored = 1;
    return s;
}

bsolve_status bsolve_dgetrf(bsolve_ctx *ctx, const double *A, bsolve_layout la, bsolve_lu *lu, int32_t *info)
{
    return getrf(ctx, BSOLVE_PREC_D, "bsolve_dgetrf", A, la, lu, NULL, 0, info);
}

bsolve_status bsolve_sgetrf(bsolve_ctx *ctx, const float *A, bsolve_layout la, bsolve_lu *lu, int32_t *info)
{
    return getrf(ctx, BSOLVE_PREC_S, "bsolve_sgetrf", A, la, lu, NULL, 0, info);
}

bsolve_status bsolve_dgetrf_masked(bsolve_ctx *ctx, const double *A, bsolve_layout la, bsolve_lu *lu,
                                   const uint8_t *mask, int32_t *info)
{
    return getrf(ctx, BSOLVE_PREC_D, "bsolve_dgetrf_masked", A, la, lu, mask, 1, info);
}

bsolve_status bsolve_sgetrf_masked(bsolve_ctx *ctx, const float *A, bsolve_layout la, bsolve_lu *lu,
                                   const uint8_t *mask, int32_t *info)
{
    return getrf(ctx, BSOLVE_PREC_S, "bsolve_sgetrf_masked", A, la, lu, mask, 1, info);
}

/* A getrs call's arguments, for its column blocks. */
typedef struct {
    const bsolve_lu *lu;
    char *B;
    bsolve_layout lb;
    bsi_strides sb;
    size_t es;
    const uint8_t *mask;
} getrs_args;

static bsolve_status getrs_run(bsolve_ctx *ctx, const bsolve_lu *lu, int64_t nrhs, void *B, bsolve_layout lb,
                               const uint8_t *mask, int32_t *info)
{
    return ctx->backend == BSOLVE_BACKEND_CUDA ? bsi_cuda_getrs(ctx, lu, nrhs, B, lb, mask, info)
                                               : bsi_cpu_getrs(ctx, lu, nrhs, B, lb, mask, info);
}

static bsolve_status getrs_block(bsolve_ctx *ctx, void *arg, int64_t j0, int64_t nb, int32_t *info)
{
    const getrs_args *g = arg;
    return getrs_run(ctx, g->lu, nb, g->B + j0 * g->sb.js * (int64_t)g->es, g->lb, g->mask, info);
}

/* getrs, and getrs_masked with mask (NULL: every system). */
static bsolve_status getrs(bsolve_ctx *ctx, bsolve_precision prec, const char *fn, const bsolve_lu *lu,
                           int64_t nrhs, void *B, bsolve_layout lb, const uint8_t *mask, int masked, int32_t *info)
{
    if (!ctx) return BSOLVE_ENULL;
    TRY(check_lu(ctx, fn, lu, prec, 1));
    const size_t es = bsi_elem_size(lu->prec);
    TRY(bsi_check_nrhs(ctx, fn, nrhs));
    TRY(bsi_check_layout(ctx, fn, "B", lb, lu->n, nrhs, lu->batch, es));
    if (lu->batch > 0) {
        TRY(bsi_check_ptr(ctx, fn, "B", B));
        if (masked) TRY(bsi_check_ptr(ctx, fn, "mask", mask));
    }
    ctx->msg[0] = '\0';
    if (lu->batch == 0) return BSOLVE_SUCCESS;
    const getrs_args g = {lu, B, lb, bsi_layout_strides(lb, lu->n), es, mask};
    int64_t nblk = bsi_rhs_blocks(ctx, lu->n, nrhs, es);
    const void *const p[3] = {B, info, mask};
    if (nblk > 1 && !bsi_host_arrays(ctx, p, 3)) nblk = 1;
    if (nblk == 1) return getrs_run(ctx, lu, nrhs, B, lb, mask, info);
    return bsi_rhs_blocked(ctx, fn, nblk, nrhs, lu->batch, B, g.sb, lu->n, es, mask, info, getrs_block,
                           (void *)&g);
}

bsolve_status bsolve_dgetrs(bsolve_ctx *ctx, const bsolve_lu *lu, int64_t nrhs, double *B, bsolve_layout lb,
                            int32_t *info)
{
    return getrs(ctx, BSOLVE_PREC_D, "bsolve_dgetrs", lu, nrhs, B, lb, NULL, 0, info);
}

bsolve_status bsolve_sgetrs(bsolve_ctx *ctx, const bsolve_lu *lu, int64_t nrhs, float *B, bsolve_layout lb,
                            int32_t *info)
{
    return getrs(ctx, BSOLVE_PREC_S, "bsolve_sgetrs", lu, nrhs, B, lb, NULL, 0, info);
}

bsolve_status bsolve_dgetrs_masked(bsolve_ctx *ctx, const bsolve_lu *lu, int64_t nrhs, double *B,
                                   bsolve_layout lb, const uint8_t *mask, int32_t *info)
{
    return getrs(ctx, BSOLVE_PREC_D, "bsolve_dgetrs_masked", lu, nrhs, B, lb, mask, 1, info);
}

bsolve_status bsolve_sgetrs_masked(bsolve_ctx *ctx, const bsolve_lu *lu, int64_t nrhs, float *B,
                                   bsolve_layout lb, const uint8_t *mask, int32_t *info)
{
    return getrs(ctx, BSOLVE_PREC_S, "bsolve_sgetrs_masked", lu, nrhs, B, lb, mask, 1, info);
}

bsolve_status bsolve_lu_export(bsolve_ctx *ctx, const bsolve_lu *lu, void *LU, bsolve_layout l, int32_t *ipiv,
                               int32_t *jpiv)
{
    static const char fn[] = "bsolve_lu_export";
    if (!ctx) return BSOLVE_ENULL;
    TRY(check_lu(ctx, fn, lu, (bsolve_precision)-1, 1));
    if (LU) TRY(bsi_check_layout(ctx, fn, "LU", l, lu->n, lu->n, lu->batch, bsi_elem_size(lu->prec)));
    ctx->msg[0] = '\0';
    if (lu->batch == 0) return BSOLVE_SUCCESS;
    return ctx->backend == BSOLVE_BACKEND_CUDA ? bsi_cuda_lu_export(ctx, lu, LU, l, ipiv, jpiv)
                                               : bsi_cpu_lu_export(ctx, lu, LU, l, ipiv, jpiv);
}

/* ---- layout conversion ------------------------------------------------- */

static bsolve_status convert_run(bsolve_ctx *ctx, bsolve_precision prec, int64_t r, int64_t c, int64_t batch,
                                 const void *src, bsolve_layout ls, void *dst, bsolve_layout ld)
{
    if (ctx->backend == BSOLVE_BACKEND_CUDA) return bsi_cuda_convert(ctx, prec, r, c, batch, src, ls, dst, ld);
    return bsi_cpu_convert(ctx, prec, r, c, batch, src, ls, dst, ld);
}

static bsolve_status convert(bsolve_ctx *ctx, bsolve_precision prec, const char *fn, int64_t r, int64_t c,
                             int64_t batch, const void *src, bsolve_layout ls, void *dst, bsolve_layout ld)
{
    if (!ctx) return BSOLVE_ENULL;
    const int64_t es = (int64_t)bsi_elem_size(prec);
    if (r < 1 || c < 1)
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: r = %lld and c = %lld must be >= 1", fn, (long long)r,
                        (long long)c);
    TRY(bsi_check_batch(ctx, fn, batch));
    TRY(bsi_check_layout(ctx, fn, "src", ls, r, c, batch, (size_t)es));
    TRY(bsi_check_layout(ctx, fn, "dst", ld, r, c, batch, (size_t)es));
    if (batch > 0) {
        TRY(bsi_check_ptr(ctx, fn, "src", src));
        TRY(bsi_check_ptr(ctx, fn, "dst", dst));
    }
    ctx->msg[0] = '\0';
    if (batch == 0) return BSOLVE_SUCCESS;
    /* (the layout checks bound r * c * es) */
    if (r * c * es <= BSI_RHS_BYTES) return convert_run(ctx, prec, r, c, batch, src, ls, dst, ld);
    /* Large matrices in blocks (block.h) of at most BSI_RHS_BYTES per
     * matrix: whole columns, or pieces of one column where a column is
     * larger, so that the backends' tiles and staging stay small. */
    const bsi_strides ss = bsi_layout_strides(ls, r), sd = bsi_layout_strides(ld, r);
    const char *s8 = src;
    char *d8 = dst;
    const int64_t nbc = BSI_RHS_BYTES / (r * es), nbr = BSI_RHS_BYTES / es;
    for (int64_t j0 = 0; j0 < c; j0 += nbc > 0 ? nbc : 1) {
        if (nbc > 0) {
            const int64_t w = c - j0 < nbc ? c - j0 : nbc;
            TRY(convert_run(ctx, prec, r, w, batch, s8 + j0 * ss.js * es, ls, d8 + j0 * sd.js * es, ld));
            continue;
        }
        for (int64_t i0 = 0; i0 < r; i0 += nbr) {
            const int64_t h = r - i0 < nbr ? r - i0 : nbr;
            TRY(convert_run(ctx, prec, h, 1, batch, s8 + (j0 * ss.js + i0 * ss.is) * es, ls,
                            d8 + (j0 * sd.js + i0 * sd.is) * es, ld));
        }
    }
    return BSOLVE_SUCCESS;
}

bsolve_status bsolve_dconvert(bsolve_ctx *ctx, int64_t r, int64_t c, int64_t batch, const double *src,
                              bsolve_layout lsrc, double *dst, bsolve_layout ldst)
{
    return convert(ctx, BSOLVE_PREC_D, "bsolve_dconvert", r, c, batch, src, lsrc, dst, ldst);
}

bsolve_status bsolve_sconvert(bsolve_ctx *ctx, int64_t r, int64_t c, int64_t batch, const float *src,
                              bsolve_layout lsrc, float *dst, bsolve_layout ldst)
{
    return convert(ctx, BSOLVE_PREC_S, "bsolve_sconvert", r, c, batch, src, lsrc, dst, ldst);
}
