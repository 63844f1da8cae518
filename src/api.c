/*
 * api.c -- the public dense-LU entry points: argument checking and dispatch.
 *
 * Each public s/d routine is a one-line wrapper around a precision-generic
 * function here, so every rule is checked in one place for every precision
 * and backend; backends receive only valid arguments.
 */
#include "api_check.h"
#include "internal.h"
#include "lu_cpu.h"

#include <stdlib.h>

/* ---- checks shared by every routine (the bsi_ ones also by api_qr.c:
 * api_check.h) ----------------------------------------------------------- */

static int pivot_ok(bsolve_pivot p)
{
    return p == BSOLVE_PIVOT_NONE || p == BSOLVE_PIVOT_PARTIAL || p == BSOLVE_PIVOT_FULL;
}

int bsi_prec_ok(bsolve_precision p)
{
    return p == BSOLVE_PREC_S || p == BSOLVE_PREC_D;
}

/* Checks that a batch of r x c matrices fits layout l; `name` is the array's
 * name in the caller's signature ("A", "B", ...). */
bsolve_status bsi_check_layout(bsolve_ctx *ctx, const char *fn, const char *name,
                               bsolve_layout l, int64_t r, int64_t c, int64_t batch)
{
    switch (l.kind) {
    case BSOLVE_COL_MAJOR:
    case BSOLVE_ROW_MAJOR: {
        int col = l.kind == BSOLVE_COL_MAJOR;
        int64_t minld = col ? r : c, span = l.ld * (col ? c : r);
        if (l.ld < minld || l.ld < 1)
            return bsi_fail(ctx, BSOLVE_EINVAL, "%s: %s ld = %lld must be >= %lld (the %s) for a %s layout",
                            fn, name, (long long)l.ld, (long long)minld, col ? "rows" : "columns",
                            col ? "column-major" : "row-major");
        if (batch > 1 && l.stride < span)
            return bsi_fail(ctx, BSOLVE_EINVAL,
                            "%s: %s stride = %lld must be >= ld * %s = %lld so that matrices do not overlap",
                            fn, name, (long long)l.stride, col ? "columns" : "rows", (long long)span);
        if (l.stride < 0)
            return bsi_fail(ctx, BSOLVE_EINVAL, "%s: %s stride = %lld must be >= 0", fn, name,
                            (long long)l.stride);
        return BSOLVE_SUCCESS;
    }
    case BSOLVE_INTERLEAVED:
        if (l.ld < batch || l.ld < 1)
            return bsi_fail(ctx, BSOLVE_EINVAL,
                            "%s: %s ld = %lld must be >= batch = %lld (and >= 1) for the interleaved layout",
                            fn, name, (long long)l.ld, (long long)batch);
        return BSOLVE_SUCCESS;
    }
    return bsi_fail(ctx, BSOLVE_EINVAL, "%s: %s layout kind = %d is not a bsolve_layout_kind", fn, name,
                    (int)l.kind);
}

static bsolve_status check_n(bsolve_ctx *ctx, const char *fn, int64_t n)
{
    if (n < 1 || n > BSOLVE_MAX_N)
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: n = %lld must be >= 1 and <= %d", fn, (long long)n,
                        BSOLVE_MAX_N);
    return BSOLVE_SUCCESS;
}

bsolve_status bsi_check_nrhs(bsolve_ctx *ctx, const char *fn, int64_t nrhs)
{
    if (nrhs < 1)
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: nrhs = %lld must be >= 1", fn, (long long)nrhs);
    return BSOLVE_SUCCESS;
}

bsolve_status bsi_check_batch(bsolve_ctx *ctx, const char *fn, int64_t batch)
{
    if (batch < 0)
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: batch = %lld must be >= 0", fn, (long long)batch);
    return BSOLVE_SUCCESS;
}

bsolve_status bsi_check_ptr(bsolve_ctx *ctx, const char *fn, const char *name, const void *p)
{
    return p ? BSOLVE_SUCCESS : bsi_fail(ctx, BSOLVE_ENULL, "%s: %s is NULL", fn, name);
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

static bsolve_status gesv(bsolve_ctx *ctx, bsolve_precision prec, const char *fn, bsolve_pivot pivot,
                          int64_t n, int64_t nrhs, int64_t batch, const void *A, bsolve_layout la,
                          void *B, bsolve_layout lb, int32_t *info)
{
    if (!ctx) return BSOLVE_ENULL;
    if (!pivot_ok(pivot))
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: pivot = %d is not a bsolve_pivot", fn, (int)pivot);
    TRY(check_n(ctx, fn, n));
    TRY(bsi_check_nrhs(ctx, fn, nrhs));
    TRY(bsi_check_batch(ctx, fn, batch));
    TRY(bsi_check_layout(ctx, fn, "A", la, n, n, batch));
    TRY(bsi_check_layout(ctx, fn, "B", lb, n, nrhs, batch));
    if (batch > 0) {
        TRY(bsi_check_ptr(ctx, fn, "A", A));
        TRY(bsi_check_ptr(ctx, fn, "B", B));
        TRY(bsi_check_ptr(ctx, fn, "info", info));
    }
    ctx->msg[0] = '\0';
    if (batch == 0) return BSOLVE_SUCCESS;
    if (ctx->backend == BSOLVE_BACKEND_CUDA)
        return bsi_cuda_gesv(ctx, prec, pivot, n, nrhs, batch, A, la, B, lb, info);
    return bsi_cpu_gesv(ctx, prec, pivot, n, nrhs, batch, A, la, B, lb, info);
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

static bsolve_status getrf(bsolve_ctx *ctx, bsolve_precision prec, const char *fn, const void *A,
                           bsolve_layout la, bsolve_lu *lu, int32_t *info)
{
    if (!ctx) return BSOLVE_ENULL;
    TRY(check_lu(ctx, fn, lu, prec, 0));
    TRY(bsi_check_layout(ctx, fn, "A", la, lu->n, lu->n, lu->batch));
    if (lu->batch > 0) {
        TRY(bsi_check_ptr(ctx, fn, "A", A));
        TRY(bsi_check_ptr(ctx, fn, "info", info));
    }
    ctx->msg[0] = '\0';
    bsolve_status s = BSOLVE_SUCCESS;
    if (lu->batch > 0)
        s = ctx->backend == BSOLVE_BACKEND_CUDA ? bsi_cuda_getrf(ctx, A, la, lu, info)
                                                : bsi_cpu_getrf(ctx, A, la, lu, info);
    if (s == BSOLVE_SUCCESS) lu->factored = 1;
    return s;
}

bsolve_status bsolve_dgetrf(bsolve_ctx *ctx, const double *A, bsolve_layout la, bsolve_lu *lu, int32_t *info)
{
    return getrf(ctx, BSOLVE_PREC_D, "bsolve_dgetrf", A, la, lu, info);
}

bsolve_status bsolve_sgetrf(bsolve_ctx *ctx, const float *A, bsolve_layout la, bsolve_lu *lu, int32_t *info)
{
    return getrf(ctx, BSOLVE_PREC_S, "bsolve_sgetrf", A, la, lu, info);
}

static bsolve_status getrs(bsolve_ctx *ctx, bsolve_precision prec, const char *fn, const bsolve_lu *lu,
                           int64_t nrhs, void *B, bsolve_layout lb, int32_t *info)
{
    if (!ctx) return BSOLVE_ENULL;
    TRY(check_lu(ctx, fn, lu, prec, 1));
    TRY(bsi_check_nrhs(ctx, fn, nrhs));
    TRY(bsi_check_layout(ctx, fn, "B", lb, lu->n, nrhs, lu->batch));
    if (lu->batch > 0) TRY(bsi_check_ptr(ctx, fn, "B", B));
    ctx->msg[0] = '\0';
    if (lu->batch == 0) return BSOLVE_SUCCESS;
    return ctx->backend == BSOLVE_BACKEND_CUDA ? bsi_cuda_getrs(ctx, lu, nrhs, B, lb, info)
                                               : bsi_cpu_getrs(ctx, lu, nrhs, B, lb, info);
}

bsolve_status bsolve_dgetrs(bsolve_ctx *ctx, const bsolve_lu *lu, int64_t nrhs, double *B, bsolve_layout lb,
                            int32_t *info)
{
    return getrs(ctx, BSOLVE_PREC_D, "bsolve_dgetrs", lu, nrhs, B, lb, info);
}

bsolve_status bsolve_sgetrs(bsolve_ctx *ctx, const bsolve_lu *lu, int64_t nrhs, float *B, bsolve_layout lb,
                            int32_t *info)
{
    return getrs(ctx, BSOLVE_PREC_S, "bsolve_sgetrs", lu, nrhs, B, lb, info);
}

bsolve_status bsolve_lu_export(bsolve_ctx *ctx, const bsolve_lu *lu, void *LU, bsolve_layout l, int32_t *ipiv,
                               int32_t *jpiv)
{
    static const char fn[] = "bsolve_lu_export";
    if (!ctx) return BSOLVE_ENULL;
    TRY(check_lu(ctx, fn, lu, (bsolve_precision)-1, 1));
    if (LU) TRY(bsi_check_layout(ctx, fn, "LU", l, lu->n, lu->n, lu->batch));
    ctx->msg[0] = '\0';
    if (lu->batch == 0) return BSOLVE_SUCCESS;
    return ctx->backend == BSOLVE_BACKEND_CUDA ? bsi_cuda_lu_export(ctx, lu, LU, l, ipiv, jpiv)
                                               : bsi_cpu_lu_export(ctx, lu, LU, l, ipiv, jpiv);
}

/* ---- layout conversion ------------------------------------------------- */

static bsolve_status convert(bsolve_ctx *ctx, bsolve_precision prec, const char *fn, int64_t r, int64_t c,
                             int64_t batch, const void *src, bsolve_layout ls, void *dst, bsolve_layout ld)
{
    if (!ctx) return BSOLVE_ENULL;
    if (r < 1 || c < 1)
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: r = %lld and c = %lld must be >= 1", fn, (long long)r,
                        (long long)c);
    TRY(bsi_check_batch(ctx, fn, batch));
    TRY(bsi_check_layout(ctx, fn, "src", ls, r, c, batch));
    TRY(bsi_check_layout(ctx, fn, "dst", ld, r, c, batch));
    if (batch > 0) {
        TRY(bsi_check_ptr(ctx, fn, "src", src));
        TRY(bsi_check_ptr(ctx, fn, "dst", dst));
    }
    ctx->msg[0] = '\0';
    if (batch == 0) return BSOLVE_SUCCESS;
    if (ctx->backend == BSOLVE_BACKEND_CUDA) return bsi_cuda_convert(ctx, prec, r, c, batch, src, ls, dst, ld);
    return bsi_cpu_convert(ctx, prec, r, c, batch, src, ls, dst, ld);
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
