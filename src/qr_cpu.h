/*
 * qr_cpu.h -- the CPU backend of the dense QR routines (qr_cpu.c).
 *
 * Like the LU backend (lu_cpu.h) it works on tiles of BSI_LANES(prec)
 * systems, one per SIMD lane: entry (i, j) of lane l of an m-row matrix at
 * tile[(i + j*m)*lanes + l].  A factorization object holds, per tile, the
 * tile of R (m x n, R on and above the diagonal), the (c, s) pair of every
 * rotation in the order applied, and 1/R(j,j).  Arguments are checked by
 * src/api_qr.c.
 */
#ifndef BSOLVE_QR_CPU_H
#define BSOLVE_QR_CPU_H

#include "cpu_isa.h" /* names this file's symbols per instruction-set level */
#include "internal.h"

bsolve_status bsi_cpu_gels(bsolve_ctx *ctx, bsolve_precision prec, int64_t m, int64_t n, int64_t nrhs,
                           int64_t batch, const void *A, bsolve_layout la, void *B, bsolve_layout lb,
                           int32_t *info);
bsolve_status bsi_cpu_qr_alloc(bsolve_ctx *ctx, bsolve_qr *qr);
void bsi_cpu_qr_free(bsolve_qr *qr);
bsolve_status bsi_cpu_geqrf(bsolve_ctx *ctx, const void *A, bsolve_layout la, bsolve_qr *qr, int32_t *info);
bsolve_status bsi_cpu_geqrs(bsolve_ctx *ctx, const bsolve_qr *qr, int64_t nrhs, void *B, bsolve_layout lb,
                            int32_t *info);
bsolve_status bsi_cpu_qr_export(bsolve_ctx *ctx, const bsolve_qr *qr, void *Q, bsolve_layout lq, void *R,
                                bsolve_layout lr);

#endif
