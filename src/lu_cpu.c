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

bsolve_status bsi_cpu_getrf(bsolve_ctx *ctx, const void *A, bsolve_layout la, bsolve_lu *lu, int32_t *info)
{
    return IS_D(lu->prec) ? getrf_d(ctx, A, la, lu, info) : getrf_s(ctx, A, la, lu, info);
}

bsolve_status bsi_cpu_getrs(bsolve_ctx *ctx, const bsolve_lu *lu, int64_t nrhs, void *B, bsolve_layout lb,
                            int32_t *info)
{
    if (nrhs > INT32_MAX / BSOLVE_MAX_N)
        return bsi_fail(ctx, BSOLVE_EINVAL, "bsolve_getrs: nrhs = %lld is too large", (long long)nrhs);
    return IS_D(lu->prec) ? getrs_d(ctx, lu, (int)nrhs, B, lb, info) : getrs_s(ctx, lu, (int)nrhs, B, lb, info);
}

bsolve_status bsi_cpu_lu_export(bsolve_ctx *ctx, const bsolve_lu *lu, void *LU, bsolve_layout l, int32_t *ipiv,
                                int32_t *jpiv)
{
    return IS_D(lu->prec) ? lu_export_d(ctx, lu, LU, l, ipiv, jpiv) : lu_export_s(ctx, lu, LU, l, ipiv, jpiv);
}

