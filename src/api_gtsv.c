/*
 * api_gtsv.c -- the public tridiagonal entry points (gtsv, gttrf, gttrs):
 * argument checking and dispatch, in the style of api.c.  Backends receive
 * only valid arguments.
 */
#include "api_check.h"
#include "block.h"
#include "gtsv_cpu.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

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

/* A gtsv call's arguments, for its column blocks (block.h). */
typedef struct {
    bsolve_precision prec;
    bsolve_gtsv_method method;
    int64_t m, batch;
    const void *dl, *d, *du;
    bsolve_tlayout lt;
    char *B;
    bsolve_tlayout lb;
    bsi_strides sb;
    size_t es;
} gtsv_args;

static bsolve_status gtsv_run(bsolve_ctx *ctx, const gtsv_args *g, void *B, int64_t nrhs, int32_t *info)
{
    if (ctx->backend == BSOLVE_BACKEND_CUDA)
        return bsi_cuda_gtsv(ctx, g->prec, g->method, g->m, nrhs, g->batch, g->dl, g->d, g->du, g->lt, B, g->lb, info);
    return bsi_cpu_gtsv(ctx, g->prec, g->method, g->m, nrhs, g->batch, g->dl, g->d, g->du, g->lt, B, g->lb, info);
}

static bsolve_status gtsv_block(bsolve_ctx *ctx, void *arg, int64_t j0, int64_t nb, int32_t *info)
{
    const gtsv_args *g = arg;
    return gtsv_run(ctx, g, g->B + j0 * g->sb.js * (int64_t)g->es, nb, info);
}

static bsolve_status gtsv(bsolve_ctx *ctx, bsolve_precision prec, const char *fn, bsolve_gtsv_method method,
                          int64_t m, int64_t nrhs, int64_t batch, const void *dl, const void *d, const void *du,
                          bsolve_tlayout lt, void *B, bsolve_tlayout lb, int32_t *info)
{
    if (!ctx) return BSOLVE_ENULL;
    const size_t es = bsi_elem_size(prec);
    TRY(check_method(ctx, fn, method));
    TRY(check_m(ctx, fn, m));
    TRY(bsi_check_nrhs(ctx, fn, nrhs));
    TRY(bsi_check_batch(ctx, fn, batch));
    TRY(bsi_check_tlayout(ctx, fn, "lt", lt, m, 1, batch, es));
    TRY(bsi_check_tlayout(ctx, fn, "lb", lb, m, nrhs, batch, es));
    if (batch > 0) {
        TRY(bsi_check_ptr(ctx, fn, "dl", dl));
        TRY(bsi_check_ptr(ctx, fn, "d", d));
        TRY(bsi_check_ptr(ctx, fn, "du", du));
        TRY(bsi_check_ptr(ctx, fn, "B", B));
        TRY(bsi_check_ptr(ctx, fn, "info", info));
    }
    ctx->msg[0] = '\0';
    if (batch == 0) return BSOLVE_SUCCESS;
    const gtsv_args g = {prec, method, m, batch, dl, d, du, lt, B, lb, bsi_tlayout_strides(lb, m), es};
    /* The CUDA backend stages B whole and sizes nothing by nrhs: one call. */
    const int64_t nblk = ctx->backend == BSOLVE_BACKEND_CUDA ? 1 : bsi_rhs_blocks(ctx, m, nrhs, es);
    if (nblk == 1) return gtsv_run(ctx, &g, B, nrhs, info);
    return bsi_rhs_blocked(ctx, fn, nblk, nrhs, batch, B, g.sb, m, es, NULL, info, gtsv_block, (void *)&g);
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
    TRY(bsi_check_ptr(ctx, fn, "gt", out));
    *out = NULL;
    if (prec != BSOLVE_PREC_S && prec != BSOLVE_PREC_D)
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: prec = %d is not a bsolve_precision", fn, (int)prec);
    TRY(check_method(ctx, fn, method));
    TRY(check_m(ctx, fn, m));
    TRY(bsi_check_batch(ctx, fn, batch));
    /* BSI_GT_NF reals per equation, and info */
    char what[48];
    snprintf(what, sizeof what, "of %lld equations", (long long)m);
    TRY(bsi_check_storage(ctx, fn, batch, BSI_GT_NF * m * (int64_t)bsi_elem_size(prec) + 4, what));
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
    TRY(bsi_check_tlayout(ctx, fn, "lt", lt, gt->m, 1, gt->batch, bsi_elem_size(gt->prec)));
    if (gt->batch > 0) {
        TRY(bsi_check_ptr(ctx, fn, "dl", dl));
        TRY(bsi_check_ptr(ctx, fn, "d", d));
        TRY(bsi_check_ptr(ctx, fn, "du", du));
        TRY(bsi_check_ptr(ctx, fn, "info", info));
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

/* A gttrs call's arguments, for its column blocks. */
typedef struct {
    const bsolve_gt *gt;
    char *B;
    bsolve_tlayout lb;
    bsi_strides sb;
    size_t es;
} gttrs_args;

static bsolve_status gttrs_run(bsolve_ctx *ctx, const bsolve_gt *gt, int64_t nrhs, void *B, bsolve_tlayout lb,
                               int32_t *info)
{
    return ctx->backend == BSOLVE_BACKEND_CUDA ? bsi_cuda_gttrs(ctx, gt, nrhs, B, lb, info)
                                               : bsi_cpu_gttrs(ctx, gt, nrhs, B, lb, info);
}

static bsolve_status gttrs_block(bsolve_ctx *ctx, void *arg, int64_t j0, int64_t nb, int32_t *info)
{
    const gttrs_args *g = arg;
    return gttrs_run(ctx, g->gt, nb, g->B + j0 * g->sb.js * (int64_t)g->es, g->lb, info);
}

static bsolve_status gttrs(bsolve_ctx *ctx, bsolve_precision prec, const char *fn, const bsolve_gt *gt,
                           int64_t nrhs, void *B, bsolve_tlayout lb, int32_t *info)
{
    if (!ctx) return BSOLVE_ENULL;
    TRY(check_gt(ctx, fn, gt, prec, 1));
    const size_t es = bsi_elem_size(gt->prec);
    TRY(bsi_check_nrhs(ctx, fn, nrhs));
    TRY(bsi_check_tlayout(ctx, fn, "lb", lb, gt->m, nrhs, gt->batch, es));
    if (gt->batch > 0) TRY(bsi_check_ptr(ctx, fn, "B", B));
    ctx->msg[0] = '\0';
    if (gt->batch == 0) return BSOLVE_SUCCESS;
    const gttrs_args g = {gt, B, lb, bsi_tlayout_strides(lb, gt->m), es};
    const int64_t nblk = ctx->backend == BSOLVE_BACKEND_CUDA ? 1 : bsi_rhs_blocks(ctx, gt->m, nrhs, es);
    if (nblk == 1) return gttrs_run(ctx, gt, nrhs, B, lb, info);
    return bsi_rhs_blocked(ctx, fn, nblk, nrhs, gt->batch, B, g.sb, gt->m, es, NULL, info, gttrs_block, (void *)&g);
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
