/*
 * gtsv_cpu.h -- the CPU backend of the tridiagonal routines (gtsv_cpu.c).
 *
 * Systems are solved BSI_GT_NT * BSI_LANES(prec) at a time, one per SIMD
 * lane, on interleaved super-tiles (equation i of lane l at tile[i*WW + l]).  Arguments are
 * checked by src/api_gtsv.c.
 */
#ifndef BSOLVE_GTSV_CPU_H
#define BSOLVE_GTSV_CPU_H

#include "cpu_isa.h" /* names this file's symbols per instruction-set level */
#include "internal.h"

#ifdef BSI_ISA /* the kernel files */
#include "simd.h"
/* Tiles of BSI_LANES(prec) systems swept together (independent chains):
 * 4 vectors of 64 bytes, 8 of 32, 16 of 16, so that a super-tile row is
 * 256 bytes in each.  The interleaved layout reads its rows in place, in
 * runs of one row: with 32-byte vectors, 4 tiles (128-byte runs) run THOMAS
 * at m = 16..64 at about two thirds of its speed with 8.  Contiguous
 * systems lose with 8 at m = 8 (the 8 chains' carried rows no longer fit
 * the 16 ymm registers) and are unchanged at m = 16..64. */
#define BSI_GT_NT (256 / BSI_VBYTES)
#endif

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
