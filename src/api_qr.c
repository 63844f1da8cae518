/*
 * api_qr.c -- the public dense-QR entry points (gels, qr_create, geqrf,
 * geqrs, qr_export): argument checking and dispatch, in the style of api.c
 * and with its checkers (api_check.h).  Backends receive only valid
 * arguments.
 */
#include "api_check.h"
#include "block.h"
#include "internal.h"
#include "qr_cpu.h"

#include <stdio.h>
#include <stdlib.h>

/* 1 <= n <= BSOLVE_QR_MAX_N, n <= m <= BSOLVE_QR_MAX_M. */
static bsolve_status check_mn(bsolve_ctx *ctx, const char *fn, int64_t m, int64_t n)
{
    if (n < 1 || n > BSOLVE_QR_MAX_N)
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: n = %lld must be >= 1 and <= %d", fn, (long long)n,
                        BSOLVE_QR_MAX_N);
    if (m < n)
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: m = %lld must be >= n = %lld (least squares needs m >= n)", fn,
                        (long long)m, (long long)n);
    if (m > BSOLVE_QR_MAX_M)
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: m = %lld must be <= %d", fn, (long long)m, BSOLVE_QR_MAX_M);
    return BSOLVE_SUCCESS;
}

/* Checks that qr may be used by ctx with precision prec (any precision when
 * prec is not a bsolve_precision). */
static bsolve_status check_qr(bsolve_ctx *ctx, const char *fn, const bsolve_qr *qr, bsolve_precision prec,
                              int must_be_factored)
{
    if (!qr) return bsi_fail(ctx, BSOLVE_ENULL, "%s: qr is NULL", fn);
    /* The factors live in memory the creating context manages. */
    if (qr->owner != ctx) return bsi_fail(ctx, BSOLVE_EMISMATCH, "%s: qr was created with another context", fn);
    if (qr->backend != ctx->backend)
        return bsi_fail(ctx, BSOLVE_EMISMATCH, "%s: qr was made on the %s backend, the context is %s", fn,
                        bsolve_backend_name(qr->backend), bsolve_backend_name(ctx->backend));
    if (bsi_prec_ok(prec) && qr->prec != prec)
        return bsi_fail(ctx, BSOLVE_EMISMATCH, "%s: qr holds %s factors; use the %c routine", fn,
                        qr->prec == BSOLVE_PREC_D ? "double" : "float", qr->prec == BSOLVE_PREC_D ? 'd' : 's');
    if (must_be_factored && !qr->factored)
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: qr has not been factored yet (call ?geqrf first)", fn);
    return BSOLVE_SUCCESS;
}

/* ---- gels --------------------------------------------------------------- */

/* A gels call's arguments, for its column blocks (block.h). */
typedef struct {
    bsolve_precision prec;
    int64_t m, n, batch;
    const void *A;
    bsolve_layout la;
    char *B;
    bsolve_layout lb;
    bsi_strides sb;
    size_t es;
} gels_args;

static bsolve_status gels_run(bsolve_ctx *ctx, const gels_args *g, void *B, int64_t nrhs, int32_t *info)
{
    if (ctx->backend == BSOLVE_BACKEND_CUDA)
        return bsi_cuda_gels(ctx, g->prec, g->m, g->n, nrhs, g->batch, g->A, g->la, B, g->lb, info);
    return bsi_cpu_gels(ctx, g->prec, g->m, g->n, nrhs, g->batch, g->A, g->la, B, g->lb, info);
}

static bsolve_status gels_block(bsolve_ctx *ctx, void *arg, int64_t j0, int64_t nb, int32_t *info)
{
    const gels_args *g = arg;
    return gels_run(ctx, g, g->B + j0 * g->sb.js * (int64_t)g->es, nb, info);
}

static bsolve_status gels(bsolve_ctx *ctx, bsolve_precision prec, const char *fn, int64_t m, int64_t n,
                          int64_t nrhs, int64_t batch, const void *A, bsolve_layout la, void *B, bsolve_layout lb,
                          int32_t *info)
{
    if (!ctx) return BSOLVE_ENULL;
    const size_t es = bsi_elem_size(prec);
    TRY(check_mn(ctx, fn, m, n));
    TRY(bsi_check_nrhs(ctx, fn, nrhs));
    TRY(bsi_check_batch(ctx, fn, batch));
    TRY(bsi_check_layout(ctx, fn, "A", la, m, n, batch, es));
    TRY(bsi_check_layout(ctx, fn, "B", lb, m, nrhs, batch, es));
    if (batch > 0) {
        TRY(bsi_check_ptr(ctx, fn, "A", A));
        TRY(bsi_check_ptr(ctx, fn, "B", B));
        TRY(bsi_check_ptr(ctx, fn, "info", info));
    }
    ctx->msg[0] = '\0';
    const gels_args g = {prec, m, n, batch, A, la, B, lb, bsi_layout_strides(lb, m), es};
    if (ctx->backend != BSOLVE_BACKEND_CUDA && batch == 0) return BSOLVE_SUCCESS;
    int64_t nblk = batch > 0 ? bsi_rhs_blocks(ctx, m, nrhs, es) : 1;
    const void *const p[3] = {A, B, info};
    if (nblk > 1 && !bsi_host_arrays(ctx, p, 3)) nblk = 1; /* device memory: no workspace grows with nrhs */
    if (nblk == 1) return gels_run(ctx, &g, B, nrhs, info);
    return bsi_rhs_blocked(ctx, fn, nblk, nrhs, batch, B, g.sb, m, es, NULL, info, gels_block, (void *)&g);
}

bsolve_status bsolve_dgels(bsolve_ctx *ctx, int64_t m, int64_t n, int64_t nrhs, int64_t batch, const double *A,
                           bsolve_layout la, double *B, bsolve_layout lb, int32_t *info)
{
    return gels(ctx, BSOLVE_PREC_D, "bsolve_dgels", m, n, nrhs, batch, A, la, B, lb, info);
}

bsolve_status bsolve_sgels(bsolve_ctx *ctx, int64_t m, int64_t n, int64_t nrhs, int64_t batch, const float *A,
                           bsolve_layout la, float *B, bsolve_layout lb, int32_t *info)
{
    return gels(ctx, BSOLVE_PREC_S, "bsolve_sgels", m, n, nrhs, batch, A, la, B, lb, info);
}

/* ---- factorization objects ------------------------------------------------ */

bsolve_status bsolve_qr_create(bsolve_ctx *ctx, bsolve_precision prec, int64_t m, int64_t n, int64_t batch,
                               bsolve_qr **out)
{
    static const char fn[] = "bsolve_qr_create";
    if (!ctx) return BSOLVE_ENULL;
    TRY(bsi_check_ptr(ctx, fn, "qr", out));
    *out = NULL;
    if (!bsi_prec_ok(prec))
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: prec = %d is not a bsolve_precision", fn, (int)prec);
    TRY(check_mn(ctx, fn, m, n));
    TRY(bsi_check_batch(ctx, fn, batch));
    /* R, the rotations' (c, s) pairs and 1/R(j,j) (fewer than 3 m n + n + 1
     * reals), and info */
    char what[48];
    snprintf(what, sizeof what, "of %lld x %lld", (long long)m, (long long)n);
    TRY(bsi_check_storage(ctx, fn, batch, (3 * m * n + n + 1) * (int64_t)bsi_elem_size(prec) + 4, what));
    bsolve_qr *qr = calloc(1, sizeof *qr);
    if (!qr) return bsi_fail(ctx, BSOLVE_ENOMEM, "%s: out of host memory", fn);
    qr->backend = ctx->backend;
    qr->owner = ctx;
    qr->prec = prec;
    qr->m = m;
    qr->n = n;
    qr->batch = batch;
    bsolve_status s = ctx->backend == BSOLVE_BACKEND_CUDA ? bsi_cuda_qr_alloc(ctx, qr) : bsi_cpu_qr_alloc(ctx, qr);
    if (s != BSOLVE_SUCCESS) {
        free(qr);
        return s;
    }
    ctx->msg[0] = '\0';
    *out = qr;
    return BSOLVE_SUCCESS;
}

void bsolve_qr_destroy(bsolve_qr *qr)
{
    if (!qr) return;
    if (qr->backend == BSOLVE_BACKEND_CUDA)
        bsi_cuda_qr_free(qr);
    else
        bsi_cpu_qr_free(qr);
    free(qr);
}

int64_t bsolve_qr_m(const bsolve_qr *qr) { return qr ? qr->m : 0; }
int64_t bsolve_qr_n(const bsolve_qr *qr) { return qr ? qr->n : 0; }
int64_t bsolve_qr_batch(const bsolve_qr *qr) { return qr ? qr->batch : 0; }
bsolve_precision bsolve_qr_precision(const bsolve_qr *qr) { return qr ? qr->prec : BSOLVE_PREC_D; }

/* ---- geqrf / geqrs / export ------------------------------------------------ */

static bsolve_status geqrf(bsolve_ctx *ctx, bsolve_precision prec, const char *fn, const void *A, bsolve_layout la,
                           bsolve_qr *qr, int32_t *info)
{
    if (!ctx) return BSOLVE_ENULL;
    TRY(check_qr(ctx, fn, qr, prec, 0));
    TRY(bsi_check_layout(ctx, fn, "A", la, qr->m, qr->n, qr->batch, bsi_elem_size(qr->prec)));
    if (qr->batch > 0) {
        TRY(bsi_check_ptr(ctx, fn, "A", A));
        TRY(bsi_check_ptr(ctx, fn, "info", info));
    }
    ctx->msg[0] = '\0';
    bsolve_status s = BSOLVE_SUCCESS;
    if (qr->batch > 0)
        s = ctx->backend == BSOLVE_BACKEND_CUDA ? bsi_cuda_geqrf(ctx, A, la, qr, info)
                                                : bsi_cpu_geqrf(ctx, A, la, qr, info);
    if (s == BSOLVE_SUCCESS) qr->factored = 1;
    return s;
}

bsolve_status bsolve_dgeqrf(bsolve_ctx *ctx, const double *A, bsolve_layout la, bsolve_qr *qr, int32_t *info)
{
    return geqrf(ctx, BSOLVE_PREC_D, "bsolve_dgeqrf", A, la, qr, info);
}

bsolve_status bsolve_sgeqrf(bsolve_ctx *ctx, const float *A, bsolve_layout la, bsolve_qr *qr, int32_t *info)
{
    return geqrf(ctx, BSOLVE_PREC_S, "bsolve_sgeqrf", A, la, qr, info);
}

/* A geqrs call's arguments, for its column blocks. */
typedef struct {
    const bsolve_qr *qr;
    char *B;
    bsolve_layout lb;
    bsi_strides sb;
    size_t es;
} geqrs_args;

static bsolve_status geqrs_run(bsolve_ctx *ctx, const bsolve_qr *qr, int64_t nrhs, void *B, bsolve_layout lb,
                               int32_t *info)
{
    return ctx->backend == BSOLVE_BACKEND_CUDA ? bsi_cuda_geqrs(ctx, qr, nrhs, B, lb, info)
                                               : bsi_cpu_geqrs(ctx, qr, nrhs, B, lb, info);
}

static bsolve_status geqrs_block(bsolve_ctx *ctx, void *arg, int64_t j0, int64_t nb, int32_t *info)
{
    const geqrs_args *g = arg;
    return geqrs_run(ctx, g->qr, nb, g->B + j0 * g->sb.js * (int64_t)g->es, g->lb, info);
}

static bsolve_status geqrs(bsolve_ctx *ctx, bsolve_precision prec, const char *fn, const bsolve_qr *qr,
                           int64_t nrhs, void *B, bsolve_layout lb, int32_t *info)
{
    if (!ctx) return BSOLVE_ENULL;
    TRY(check_qr(ctx, fn, qr, prec, 1));
    const size_t es = bsi_elem_size(qr->prec);
    TRY(bsi_check_nrhs(ctx, fn, nrhs));
    TRY(bsi_check_layout(ctx, fn, "B", lb, qr->m, nrhs, qr->batch, es));
    if (qr->batch > 0) TRY(bsi_check_ptr(ctx, fn, "B", B));
    ctx->msg[0] = '\0';
    if (qr->batch == 0) return BSOLVE_SUCCESS;
    const geqrs_args g = {qr, B, lb, bsi_layout_strides(lb, qr->m), es};
    int64_t nblk = bsi_rhs_blocks(ctx, qr->m, nrhs, es);
    const void *const p[2] = {B, info};
    if (nblk > 1 && !bsi_host_arrays(ctx, p, 2)) nblk = 1;
    if (nblk == 1) return geqrs_run(ctx, qr, nrhs, B, lb, info);
    return bsi_rhs_blocked(ctx, fn, nblk, nrhs, qr->batch, B, g.sb, qr->m, es, NULL, info, geqrs_block, (void *)&g);
}

bsolve_status bsolve_dgeqrs(bsolve_ctx *ctx, const bsolve_qr *qr, int64_t nrhs, double *B, bsolve_layout lb,
                            int32_t *info)
{
    return geqrs(ctx, BSOLVE_PREC_D, "bsolve_dgeqrs", qr, nrhs, B, lb, info);
}

bsolve_status bsolve_sgeqrs(bsolve_ctx *ctx, const bsolve_qr *qr, int64_t nrhs, float *B, bsolve_layout lb,
                            int32_t *info)
{
    return geqrs(ctx, BSOLVE_PREC_S, "bsolve_sgeqrs", qr, nrhs, B, lb, info);
}

bsolve_status bsolve_qr_export(bsolve_ctx *ctx, const bsolve_qr *qr, void *Q, bsolve_layout lq, void *R,
                               bsolve_layout lr)
{
    static const char fn[] = "bsolve_qr_export";
    if (!ctx) return BSOLVE_ENULL;
    TRY(check_qr(ctx, fn, qr, (bsolve_precision)-1, 1));
    if (Q) TRY(bsi_check_layout(ctx, fn, "Q", lq, qr->m, qr->m, qr->batch, bsi_elem_size(qr->prec)));
    if (R) TRY(bsi_check_layout(ctx, fn, "R", lr, qr->n, qr->n, qr->batch, bsi_elem_size(qr->prec)));
    ctx->msg[0] = '\0';
    if (qr->batch == 0 || (!Q && !R)) return BSOLVE_SUCCESS;
    return ctx->backend == BSOLVE_BACKEND_CUDA ? bsi_cuda_qr_export(ctx, qr, Q, lq, R, lr)
                                               : bsi_cpu_qr_export(ctx, qr, Q, lq, R, lr);
}
