/*
 * api_gtsv.c -- the public tridiagonal entry points (gtsv, gttrf, gttrs):
 * argument checking and dispatch, in the style of api.c.  Backends receive
 * only valid arguments.
 */
#include "gtsv_cpu.h"
#include "internal.h"

#include <stdlib.h>

#define TRY(expr)                                    \
    do {                                             \
        bsolve_status try_s_ = (expr);               \
        if (try_s_ != BSOLVE_SUCCESS) return try_s_; \
    } while (0)

static int method_ok(bsolve_gtsv_method me)
{
    return me == BSOLVE_GTSV_THOMAS || me == BSOLVE_GTSV_PARTIAL || me == BSOLVE_GTSV_GIVENS;
}

static bsolve_status check_method(bsolve_ctx *ctx, const char *fn, bsolve_gtsv_method me)
{
    if (!method_ok(me))
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: method = %d is not a bsolve_gtsv_method", fn, (int)me);
    return BSOLVE_SUCCESS;
}

static bsolve_status check_m(bsolve_ctx *ctx, const char *fn, int64_t m)
{
    if (m < 1 || m > INT32_MAX)
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: m = %lld must be >= 1 and <= %d", fn, (long long)m, INT32_MAX);
    return BSOLVE_SUCCESS;
}

static bsolve_status check_batch(bsolve_ctx *ctx, const char *fn, int64_t batch)
{
    if (batch < 0) return bsi_fail(ctx, BSOLVE_EINVAL, "%s: batch = %lld must be >= 0", fn, (long long)batch);
    return BSOLVE_SUCCESS;
}

static bsolve_status check_nrhs(bsolve_ctx *ctx, const char *fn, int64_t nrhs)
{
    if (nrhs < 1 || nrhs > INT32_MAX)
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: nrhs = %lld must be >= 1 and <= %d", fn, (long long)nrhs,
                        INT32_MAX);
    return BSOLVE_SUCCESS;
}

static bsolve_status check_ptr(bsolve_ctx *ctx, const char *fn, const char *name, const void *p)
{
    return p ? BSOLVE_SUCCESS : bsi_fail(ctx, BSOLVE_ENULL, "%s: %s is NULL", fn, name);
}

/* Checks that `cols` vectors of m entries per system, batch systems, fit
 * layout l; `name` names the layout argument ("lt", "lb"). */
static bsolve_status check_tlayout(bsolve_ctx *ctx, const char *fn, const char *name, bsolve_tlayout l, int64_t m,
                                   int64_t cols, int64_t batch)
{
    switch (l.kind) {
    case BSOLVE_TCONTIGUOUS:
        if (l.ld < m)
            return bsi_fail(ctx, BSOLVE_EINVAL, "%s: %s ld = %lld must be >= m = %lld for the contiguous layout", fn,
                            name, (long long)l.ld, (long long)m);
        if (l.stride < 0)
            return bsi_fail(ctx, BSOLVE_EINVAL, "%s: %s stride = %lld must be >= 0", fn, name, (long long)l.stride);
        if (batch > 1 && l.stride < l.ld * (cols - 1) + m)
            return bsi_fail(ctx, BSOLVE_EINVAL,
                            "%s: %s stride = %lld must be >= %lld (ld * (columns - 1) + m) so that systems do not "
                            "overlap",
                            fn, name, (long long)l.stride, (long long)(l.ld * (cols - 1) + m));
        return BSOLVE_SUCCESS;
    case BSOLVE_TINTERLEAVED:
        if (l.ld < batch || l.ld < 1)
            return bsi_fail(ctx, BSOLVE_EINVAL,
                            "%s: %s ld = %lld must be >= batch = %lld (and >= 1) for the interleaved layout", fn,
                            name, (long long)l.ld, (long long)batch);
        return BSOLVE_SUCCESS;
    }
    return bsi_fail(ctx, BSOLVE_EINVAL, "%s: %s kind = %d is not a bsolve_tlayout_kind", fn, name, (int)l.kind);
}

static bsolve_status check_gt(bsolve_ctx *ctx, const char *fn, const bsolve_gt *gt, bsolve_precision prec,
                              int must_be_factored)
{
    if (!gt) return bsi_fail(ctx, BSOLVE_ENULL, "%s: gt is NULL", fn);
    if (gt->owner != ctx) return bsi_fail(ctx, BSOLVE_EMISMATCH, "%s: gt was created with another context", fn);
    if (gt->backend != ctx->backend)
        return bsi_fail(ctx, BSOLVE_EMISMATCH, "%s: gt was made on the %s backend, the context is %s", fn,
                        bsolve_backend_name(gt->backend), bsolve_backend_name(ctx->backend));
    if (gt->prec != prec)
        return bsi_fail(ctx, BSOLVE_EMISMATCH, "%s: gt holds %s factors; use the %c routine", fn,
                        gt->prec == BSOLVE_PREC_D ? "double" : "float", gt->prec == BSOLVE_PREC_D ? 'd' : 's');
    if (must_be_factored && !gt->factored)
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: gt has not been factored yet (call ?gttrf first)", fn);
    return BSOLVE_SUCCESS;
}

/* ---- gtsv --------------------------------------------------------------- */

static bsolve_status gtsv(bsolve_ctx *ctx, bsolve_precision prec, const char *fn, bsolve_gtsv_method method,
                          int64_t m, int64_t nrhs, int64_t batch, const void *dl, const void *d, const void *du,
                          bsolve_tlayout lt, void *B, bsolve_tlayout lb, int32_t *info)
{
    if (!ctx) return BSOLVE_ENULL;
    TRY(check_method(ctx, fn, method));
    TRY(check_m(ctx, fn, m));
    TRY(check_nrhs(ctx, fn, nrhs));
    TRY(check_batch(ctx, fn, batch));
    TRY(check_tlayout(ctx, fn, "lt", lt, m, 1, batch));
    TRY(check_tlayout(ctx, fn, "lb", lb, m, nrhs, batch));
    if (batch > 0) {
        TRY(check_ptr(ctx, fn, "dl", dl));
        TRY(check_ptr(ctx, fn, "d", d));
        TRY(check_ptr(ctx, fn, "du", du));
        TRY(check_ptr(ctx, fn, "B", B));
        TRY(check_ptr(ctx, fn, "info", info));
    }
    ctx->msg[0] = '\0';
    if (batch == 0) return BSOLVE_SUCCESS;
    if (ctx->backend == BSOLVE_BACKEND_CUDA)
        return bsi_cuda_gtsv(ctx, prec, method, m, nrhs, batch, dl, d, du, lt, B, lb, info);
    return bsi_cpu_gtsv(ctx, prec, method, m, nrhs, batch, dl, d, du, lt, B, lb, info);
}

bsolve_status bsolve_dgtsv(bsolve_ctx *ctx, bsolve_gtsv_method method, int64_t m, int64_t nrhs, int64_t batch,
                           const double *dl, const double *d, const double *du, bsolve_tlayout lt, double *B,
                           bsolve_tlayout lb, int32_t *info)
{
    return gtsv(ctx, BSOLVE_PREC_D, "bsolve_dgtsv", method, m, nrhs, batch, dl, d, du, lt, B, lb, info);
}

bsolve_status bsolve_sgtsv(bsolve_ctx *ctx, bsolve_gtsv_method method, int64_t m, int64_t nrhs, int64_t batch,
                           const float *dl, const float *d, const float *du, bsolve_tlayout lt, float *B,
                           bsolve_tlayout lb, int32_t *info)
{
    return gtsv(ctx, BSOLVE_PREC_S, "bsolve_sgtsv", method, m, nrhs, batch, dl, d, du, lt, B, lb, info);
}

/* ---- factorization objects ------------------------------------------------ */

bsolve_status bsolve_gt_create(bsolve_ctx *ctx, bsolve_precision prec, bsolve_gtsv_method method, int64_t m,
                               int64_t batch, bsolve_gt **out)
{
    static const char fn[] = "bsolve_gt_create";
    if (!ctx) return BSOLVE_ENULL;
    TRY(check_ptr(ctx, fn, "gt", out));
    *out = NULL;
    if (prec != BSOLVE_PREC_S && prec != BSOLVE_PREC_D)
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: prec = %d is not a bsolve_precision", fn, (int)prec);
    TRY(check_method(ctx, fn, method));
    TRY(check_m(ctx, fn, m));
    TRY(check_batch(ctx, fn, batch));
    /* Factor storage is BSI_GT_NF reals per equation, with the batch padded
     * to whole tiles; a count past the address space is ENOMEM, not a wrap. */
    if ((double)BSI_GT_NF * (double)m * ((double)batch + 256) * (double)bsi_elem_size(prec) > 9.0e18)
        return bsi_fail(ctx, BSOLVE_ENOMEM, "%s: %lld systems of %lld equations exceed the address space", fn,
                        (long long)batch, (long long)m);
    bsolve_gt *gt = calloc(1, sizeof *gt);
    if (!gt) return bsi_fail(ctx, BSOLVE_ENOMEM, "%s: out of host memory", fn);
    gt->backend = ctx->backend;
    gt->owner = ctx;
    gt->prec = prec;
    gt->method = method;
    gt->m = m;
    gt->batch = batch;
    bsolve_status s = ctx->backend == BSOLVE_BACKEND_CUDA ? bsi_cuda_gt_alloc(ctx, gt) : bsi_cpu_gt_alloc(ctx, gt);
    if (s != BSOLVE_SUCCESS) {
        free(gt);
        return s;
    }
    ctx->msg[0] = '\0';
    *out = gt;
    return BSOLVE_SUCCESS;
}

void bsolve_gt_destroy(bsolve_gt *gt)
{
    if (!gt) return;
    if (gt->backend == BSOLVE_BACKEND_CUDA)
        bsi_cuda_gt_free(gt);
    else
        bsi_cpu_gt_free(gt);
    free(gt);
}

int64_t bsolve_gt_m(const bsolve_gt *gt) { return gt ? gt->m : 0; }
int64_t bsolve_gt_batch(const bsolve_gt *gt) { return gt ? gt->batch : 0; }
bsolve_gtsv_method bsolve_gt_method(const bsolve_gt *gt) { return gt ? gt->method : BSOLVE_GTSV_THOMAS; }
bsolve_precision bsolve_gt_precision(const bsolve_gt *gt) { return gt ? gt->prec : BSOLVE_PREC_D; }

/* ---- gttrf / gttrs ------------------------------------------------------- */

static bsolve_status gttrf(bsolve_ctx *ctx, bsolve_precision prec, const char *fn, const void *dl, const void *d,
                           const void *du, bsolve_tlayout lt, bsolve_gt *gt, int32_t *info)
{
    if (!ctx) return BSOLVE_ENULL;
    TRY(check_gt(ctx, fn, gt, prec, 0));
    TRY(check_tlayout(ctx, fn, "lt", lt, gt->m, 1, gt->batch));
    if (gt->batch > 0) {
        TRY(check_ptr(ctx, fn, "dl", dl));
        TRY(check_ptr(ctx, fn, "d", d));
        TRY(check_ptr(ctx, fn, "du", du));
        TRY(check_ptr(ctx, fn, "info", info));
    }
    ctx->msg[0] = '\0';
    bsolve_status s = BSOLVE_SUCCESS;
    if (gt->batch > 0)
        s = ctx->backend == BSOLVE_BACKEND_CUDA ? bsi_cuda_gttrf(ctx, dl, d, du, lt, gt, info)
                                                : bsi_cpu_gttrf(ctx, dl, d, du, lt, gt, info);
    if (s == BSOLVE_SUCCESS) gt->factored = 1;
    return s;
}

bsolve_status bsolve_dgttrf(bsolve_ctx *ctx, const double *dl, const double *d, const double *du, bsolve_tlayout lt,
                            bsolve_gt *gt, int32_t *info)
{
    return gttrf(ctx, BSOLVE_PREC_D, "bsolve_dgttrf", dl, d, du, lt, gt, info);
}

bsolve_status bsolve_sgttrf(bsolve_ctx *ctx, const float *dl, const float *d, const float *du, bsolve_tlayout lt,
                            bsolve_gt *gt, int32_t *info)
{
    return gttrf(ctx, BSOLVE_PREC_S, "bsolve_sgttrf", dl, d, du, lt, gt, info);
}

static bsolve_status gttrs(bsolve_ctx *ctx, bsolve_precision prec, const char *fn, const bsolve_gt *gt,
                           int64_t nrhs, void *B, bsolve_tlayout lb, int32_t *info)
{
    if (!ctx) return BSOLVE_ENULL;
    TRY(check_gt(ctx, fn, gt, prec, 1));
    TRY(check_nrhs(ctx, fn, nrhs));
    TRY(check_tlayout(ctx, fn, "lb", lb, gt->m, nrhs, gt->batch));
    if (gt->batch > 0) TRY(check_ptr(ctx, fn, "B", B));
    ctx->msg[0] = '\0';
    if (gt->batch == 0) return BSOLVE_SUCCESS;
    return ctx->backend == BSOLVE_BACKEND_CUDA ? bsi_cuda_gttrs(ctx, gt, nrhs, B, lb, info)
                                               : bsi_cpu_gttrs(ctx, gt, nrhs, B, lb, info);
}

bsolve_status bsolve_dgttrs(bsolve_ctx *ctx, const bsolve_gt *gt, int64_t nrhs, double *B, bsolve_tlayout lb,
                            int32_t *info)
{
    return gttrs(ctx, BSOLVE_PREC_D, "bsolve_dgttrs", gt, nrhs, B, lb, info);
}

bsolve_status bsolve_sgttrs(bsolve_ctx *ctx, const bsolve_gt *gt, int64_t nrhs, float *B, bsolve_tlayout lb,
                            int32_t *info)
{
    return gttrs(ctx, BSOLVE_PREC_S, "bsolve_sgttrs", gt, nrhs, B, lb, info);
}
