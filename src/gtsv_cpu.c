/*
 * gtsv_cpu.c -- the CPU backend of gtsv/gttrf/gttrs: gtsv_cpu_impl.h
 * generated for each precision, and the precision dispatch.
 */
#include "gtsv_cpu.h"
#include "lu_cpu.h"
#include "simd.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define BSI_IMPL "gtsv_cpu_impl.h"
#include "tmpl_each.h"

#define IS_D(prec) ((prec) == BSOLVE_PREC_D)

bsolve_status bsi_cpu_gtsv(bsolve_ctx *ctx, bsolve_precision prec, bsolve_gtsv_method method, int64_t m,
                           int64_t nrhs, int64_t batch, const void *dl, const void *d, const void *du,
                           bsolve_tlayout lt, void *B, bsolve_tlayout lb, int32_t *info)
{
    return IS_D(prec) ? gtsv_cpu_d(ctx, method, m, (int)nrhs, batch, dl, d, du, lt, B, lb, info)
                      : gtsv_cpu_s(ctx, method, m, (int)nrhs, batch, dl, d, du, lt, B, lb, info);
}

bsolve_status bsi_cpu_gt_alloc(bsolve_ctx *ctx, bsolve_gt *gt)
{
    const int64_t W = BSI_LANES(gt->prec) * BSI_GT_NT, ntiles = (gt->batch + W - 1) / W;
    size_t bytes = (size_t)ntiles * BSI_GT_NF * (size_t)gt->m * W * bsi_elem_size(gt->prec);
    bytes = (bytes + 63) / 64 * 64;
    gt->f = aligned_alloc(64, bytes ? bytes : 64);
    gt->info = malloc((size_t)(gt->batch > 0 ? gt->batch : 1) * sizeof(int32_t));
    if (!gt->f || !gt->info) {
        bsi_cpu_gt_free(gt);
        return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_gt_create: cannot allocate %zu bytes of factors", bytes);
    }
    return BSOLVE_SUCCESS;
}

void bsi_cpu_gt_free(bsolve_gt *gt)
{
    free(gt->f);
    free(gt->info);
    gt->f = NULL;
    gt->info = NULL;
}

bsolve_status bsi_cpu_gttrf(bsolve_ctx *ctx, const void *dl, const void *d, const void *du, bsolve_tlayout lt,
                            bsolve_gt *gt, int32_t *info)
{
    return IS_D(gt->prec) ? gttrf_cpu_d(ctx, dl, d, du, lt, gt, info) : gttrf_cpu_s(ctx, dl, d, du, lt, gt, info);
}

bsolve_status bsi_cpu_gttrs(bsolve_ctx *ctx, const bsolve_gt *gt, int64_t nrhs, void *B, bsolve_tlayout lb,
                            int32_t *info)
{
    return IS_D(gt->prec) ? gttrs_cpu_d(ctx, gt, (int)nrhs, B, lb, info) : gttrs_cpu_s(ctx, gt, (int)nrhs, B, lb, info);
}
