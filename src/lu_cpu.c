/*
 * lu_cpu.c -- the CPU backend of gesv/getrf/getrs: lu_cpu_impl.h generated
 * for each precision, and the precision dispatch.
 */
#include "lu_cpu.h"
#include "layout.h"
#include "simd.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the flagged systems of a mask (the masked getrf) ----------------------
 * The masked getrf packs the flagged systems densely into tiles: the r-th
 * flagged system into lane r % W of tile r / W of the chunk of rank r.  A
 * chunk finds its systems from the counts of flagged systems per block of
 * the mask, made once per call, rather than from a list of every flagged
 * system: the workspace stays a few bytes per block whatever the batch. */
#define BSI_MASK_BLOCK 4096

static int64_t mask_blocks(int64_t batch) { return (batch + BSI_MASK_BLOCK - 1) / BSI_MASK_BLOCK; }

/* pre[b] = flagged systems before block b, b = 0 .. nb (pre: nb + 1
 * entries); returns their total. */
static int64_t mask_prefix(const uint8_t *mask, int64_t batch, int64_t *pre, int nth)
{
    const int64_t nb = mask_blocks(batch);
#pragma omp parallel for num_threads(nth) schedule(static)
    for (int64_t b = 0; b < nb; b++) {
        const int64_t k1 = batch - b * BSI_MASK_BLOCK < BSI_MASK_BLOCK ? batch : (b + 1) * BSI_MASK_BLOCK;
        int64_t c = 0;
        for (int64_t k = b * BSI_MASK_BLOCK; k < k1; k++) c += mask[k] != 0;
        pre[b + 1] = c;
    }
    pre[0] = 0;
    for (int64_t b = 0; b < nb; b++) pre[b + 1] += pre[b];
    return pre[nb];
}

/* idx[0 .. cnt) = the flagged systems of ranks r0 .. r0+cnt-1 (all exist). */
static void mask_ranks(const uint8_t *mask, const int64_t *pre, int64_t nb, int64_t r0, int cnt, int64_t *idx)
{
    /* the last block whose count before it is <= r0 holds rank r0 */
    int64_t lo = 0, hi = nb - 1;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo + 1) / 2;
        if (pre[mid] <= r0) lo = mid;
        else hi = mid - 1;
    }
    int64_t r = pre[lo];
    for (int64_t k = lo * BSI_MASK_BLOCK; cnt > 0; k++)
        if (mask[k]) {
            if (r >= r0) *idx++ = k, cnt--;
            r++;
        }
}

#define BSI_IMPL "lu_cpu_impl.h"
#include "tmpl_each.h"

#define IS_D(prec) ((prec) == BSOLVE_PREC_D)

bsolve_status bsi_cpu_gesv(bsolve_ctx *ctx, bsolve_precision prec, bsolve_pivot pivot, int64_t n, int64_t nrhs,
                           int64_t batch, const void *A, bsolve_layout la, void *B, bsolve_layout lb, int32_t *info)
{
    if (nrhs > INT32_MAX / BSOLVE_MAX_N)
        return bsi_fail(ctx, BSOLVE_EINVAL, "bsolve_gesv: nrhs = %lld is too large", (long long)nrhs);
    return IS_D(prec) ? gesv_d(ctx, pivot, (int)n, (int)nrhs, batch, A, la, B, lb, info)
                      : gesv_s(ctx, pivot, (int)n, (int)nrhs, batch, A, la, B, lb, info);
}

bsolve_status bsi_cpu_lu_alloc(bsolve_ctx *ctx, bsolve_lu *lu)
{
    return IS_D(lu->prec) ? lu_alloc_d(ctx, lu) : lu_alloc_s(ctx, lu);
}

void bsi_cpu_lu_free(bsolve_lu *lu)
{
    free(lu->factors);
    free(lu->rowpiv);
    free(lu->colpiv);
    free(lu->info);
    lu->factors = lu->rowpiv = lu->colpiv = NULL;
    lu->info = NULL;
}

bsolve_status bsi_cpu_getrf(bsolve_ctx *ctx, const void *A, bsolve_layout la, bsolve_lu *lu, const uint8_t *mask,
                            int32_t *info)
{
    if (mask) return IS_D(lu->prec) ? getrf_masked_d(ctx, A, la, lu, mask, info)
                                    : getrf_masked_s(ctx, A, la, lu, mask, info);
    return IS_D(lu->prec) ? getrf_d(ctx, A, la, lu, info) : getrf_s(ctx, A, la, lu, info);
}

bsolve_status bsi_cpu_getrs(bsolve_ctx *ctx, const bsolve_lu *lu, int64_t nrhs, void *B, bsolve_layout lb,
                            const uint8_t *mask, int32_t *info)
{
    if (nrhs > INT32_MAX / BSOLVE_MAX_N)
        return bsi_fail(ctx, BSOLVE_EINVAL, "bsolve_getrs: nrhs = %lld is too large", (long long)nrhs);
    return IS_D(lu->prec) ? getrs_d(ctx, lu, (int)nrhs, B, lb, mask, info)
                          : getrs_s(ctx, lu, (int)nrhs, B, lb, mask, info);
}

bsolve_status bsi_cpu_lu_export(bsolve_ctx *ctx, const bsolve_lu *lu, void *LU, bsolve_layout l, int32_t *ipiv,
                                int32_t *jpiv)
{
    return IS_D(lu->prec) ? lu_export_d(ctx, lu, LU, l, ipiv, jpiv) : lu_export_s(ctx, lu, LU, l, ipiv, jpiv);
}

