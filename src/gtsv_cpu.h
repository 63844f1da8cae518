/*
 * gtsv_cpu.h -- the CPU backend of the tridiagonal routines (gtsv_cpu.c).
 *
 * Systems are solved BSI_GT_NT * BSI_LANES(prec) at a time, one per SIMD
 * lane, on interleaved super-tiles (equation i of lane l at tile[i*WW + l]).  Arguments are
 * checked by src/api_gtsv.c.
 */
#ifndef BSOLVE_GTSV_CPU_H
#define BSOLVE_GTSV_CPU_H

#include "internal.h"

/* Tiles of BSI_LANES(prec) systems swept together (independent chains). */
#define BSI_GT_NT 4

bsolve_status bsi_cpu_gtsv(bsolve_ctx *ctx, bsolve_precision prec, bsolve_gtsv_method method, int64_t m,
                           int64_t nrhs, int64_t batch, const void *dl, const void *d, const void *du,
                           bsolve_tlayout lt, void *B, bsolve_tlayout lb, int32_t *info);
bsolve_status bsi_cpu_gt_alloc(bsolve_ctx *ctx, bsolve_gt *gt);
void bsi_cpu_gt_free(bsolve_gt *gt);
bsolve_status bsi_cpu_gttrf(bsolve_ctx *ctx, const void *dl, const void *d, const void *du, bsolve_tlayout lt,
                            bsolve_gt *gt, int32_t *info);
bsolve_status bsi_cpu_gttrs(bsolve_ctx *ctx, const bsolve_gt *gt, int64_t nrhs, void *B, bsolve_tlayout lb,
                            int32_t *info);

#endif
