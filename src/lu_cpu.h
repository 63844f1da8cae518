/*
 * lu_cpu.h -- the CPU backend of the dense routines.
 *
 * The CPU backend works on tiles of BSI_LANES(prec) systems stored
 * interleaved (entry (i, j) of lane l at tile[(i + j*n)*lanes + l]), so that
 * each arithmetic instruction serves one whole SIMD vector of systems: the
 * same thread-per-matrix idea as the GPU kernels.  A tile of n = 128 doubles
 * is 1 MiB with 8 lanes (AVX-512), 512 KiB with 4 (AVX2), 256 KiB with 2
 * (SSE2); smaller n stay in L1/L2.  The lane count is the kernels'
 * instruction-set level's (cpu_isa.h).  Arguments are checked by src/api.c.
 */
#ifndef BSOLVE_LU_CPU_H
#define BSOLVE_LU_CPU_H

#include "cpu_isa.h" /* names this file's symbols per instruction-set level */
#include "internal.h"

#ifdef BSI_ISA /* the kernel files: one vector of this level's width (simd.h) per tile */
#include "simd.h"
#define BSI_LANES(prec) ((prec) == BSOLVE_PREC_D ? BSI_LANES_D : BSI_LANES_S)
#endif

bsolve_status bsi_cpu_gesv(bsolve_ctx *ctx, bsolve_precision prec, bsolve_pivot pivot, int64_t n,
                           int64_t nrhs, int64_t batch, const void *A, bsolve_layout la, void *B,
                           bsolve_layout lb, int32_t *info);
bsolve_status bsi_cpu_lu_alloc(bsolve_ctx *ctx, bsolve_lu *lu);
void bsi_cpu_lu_free(bsolve_lu *lu);
/* getrf and getrs; with a mask (NULL: every system), only the flagged ones. */
bsolve_status bsi_cpu_getrf(bsolve_ctx *ctx, const void *A, bsolve_layout la, bsolve_lu *lu, const uint8_t *mask,
                            int32_t *info);
bsolve_status bsi_cpu_getrs(bsolve_ctx *ctx, const bsolve_lu *lu, int64_t nrhs, void *B, bsolve_layout lb,
                            const uint8_t *mask, int32_t *info);
bsolve_status bsi_cpu_lu_export(bsolve_ctx *ctx, const bsolve_lu *lu, void *LU, bsolve_layout l, int32_t *ipiv,
                                int32_t *jpiv);
bsolve_status bsi_cpu_convert(bsolve_ctx *ctx, bsolve_precision prec, int64_t r, int64_t c, int64_t batch,
                              const void *src, bsolve_layout ls, void *dst, bsolve_layout ld);

/* Number of OpenMP threads a call on ctx uses for `units` independent tiles. */
int bsi_cpu_threads(const bsolve_ctx *ctx, int64_t units);

#endif
