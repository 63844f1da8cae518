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
#include "simd.h"

/* Tiles of BSI_LANES(prec) systems swept together (independent chains):
 * 4 vectors of 64 bytes, 8 of 32, so that a super-tile row is 256 bytes in
 * both.  The interleaved layout reads its rows in place, in runs of one
 * row: with AVX2, 4 tiles of 32 bytes (128-byte runs) left THOMAS at
 * m = 16..64 about 1.6x slower than 8 tiles (256-byte runs).  Contiguous
 * systems lose at m = 8 with 8 tiles (the 8 chains' carried rows no longer
 * fit the 16 ymm registers, about 1.3x) and are even at m = 16..64. */
#define BSI_GT_NT (256 / BSI_VBYTES)

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
