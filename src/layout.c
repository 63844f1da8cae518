/*
 * layout.c -- tile packing for the CPU backend and bsolve_?convert.
 */
#include "layout.h"
#include "lu_cpu.h"

#include <omp.h>

#define BSI_REAL double
#define BSI_SFX d
#define BSI_W BSI_LANES_D
#include "tmpl_on.h"
#include "layout_impl.h"
#include "tmpl_off.h"

#define BSI_REAL float
#define BSI_SFX s
#define BSI_W BSI_LANES_S
#include "tmpl_on.h"
#include "layout_impl.h"
#include "tmpl_off.h"

bsolve_status bsi_cpu_convert(bsolve_ctx *ctx, bsolve_precision prec, int64_t r, int64_t c, int64_t batch,
                              const void *src, bsolve_layout ls, void *dst, bsolve_layout ld)
{
    if (prec == BSOLVE_PREC_D) return convert_d(ctx, r, c, batch, src, ls, dst, ld);
    return convert_s(ctx, r, c, batch, src, ls, dst, ld);
}

int bsi_cpu_threads(const bsolve_ctx *ctx, int64_t units)
{
    int64_t nth = ctx->nthreads > 0 ? ctx->nthreads : omp_get_max_threads();
    if (nth > units) nth = units;
    return nth < 1 ? 1 : (int)nth;
}
