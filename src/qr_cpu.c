/*
 * qr_cpu.c -- the CPU backend of gels/geqrf/geqrs/qr_export: qr_cpu_impl.h
 * generated for each precision, and the precision dispatch.
 */
#include "qr_cpu.h"
#include "layout.h"
#include "lu_cpu.h" /* BSI_LANES_*, bsi_cpu_threads */
#include "simd.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>

#define BSI_IMPL "qr_cpu_impl.h"
#include "tmpl_each.h"

#define IS_D(prec) ((prec) == BSOLVE_PREC_D)

/* Tiles hold m * nrhs * lanes reals indexed with int arithmetic in places. */
static bsolve_status check_nrhs_size(bsolve_ctx *ctx, const char *fn, int64_t nrhs)
{
    if (nrhs > INT32_MAX / (BSOLVE_QR_MAX_M * 16))
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: nrhs = %lld is too large", fn, (long long)nrhs);
    return BSOLVE_SUCCESS;
}

bsolve_status bsi_cpu_gels(bsolve_ctx *ctx, bsolve_precision prec, int64_t m, int64_t n, int64_t nrhs,
                           int64_t batch, const void *A, bsolve_layout la, void *B, bsolve_layout lb,
                           int32_t *info)
{
    bsolve_status s = check_nrhs_size(ctx, "bsolve_gels", nrhs);
    if (s != BSOLVE_SUCCESS) return s;
    return IS_D(prec) ? qr_gels_d(ctx, (int)m, (int)n, (int)nrhs, batch, A, la, B, lb, info)
                      : qr_gels_s(ctx, (int)m, (int)n, (int)nrhs, batch, A, la, B, lb, info);
}

bsolve_status bsi_cpu_qr_alloc(bsolve_ctx *ctx, bsolve_qr *qr)
{
    return IS_D(qr->prec) ? qr_alloc_d(ctx, qr) : qr_alloc_s(ctx, qr);
}

void bsi_cpu_qr_free(bsolve_qr *qr)
{
    free(qr->f);
    free(qr->info);
    qr->f = NULL;
    qr->info = NULL;
}

bsolve_status bsi_cpu_geqrf(bsolve_ctx *ctx, const void *A, bsolve_layout la, bsolve_qr *qr, int32_t *info)
{
    return IS_D(qr->prec) ? qr_geqrf_d(ctx, A, la, qr, info) : qr_geqrf_s(ctx, A, la, qr, info);
}

bsolve_status bsi_cpu_geqrs(bsolve_ctx *ctx, const bsolve_qr *qr, int64_t nrhs, void *B, bsolve_layout lb,
                            int32_t *info)
{
    bsolve_status s = check_nrhs_size(ctx, "bsolve_geqrs", nrhs);
    if (s != BSOLVE_SUCCESS) return s;
    return IS_D(qr->prec) ? qr_geqrs_d(ctx, qr, (int)nrhs, B, lb, info) : qr_geqrs_s(ctx, qr, (int)nrhs, B, lb, info);
}

bsolve_status bsi_cpu_qr_export(bsolve_ctx *ctx, const bsolve_qr *qr, void *Q, bsolve_layout lq, void *R,
                                bsolve_layout lr)
{
    return IS_D(qr->prec) ? qr_export_d(ctx, qr, Q, lq, R, lr) : qr_export_s(ctx, qr, Q, lq, R, lr);
}
