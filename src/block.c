/*
 * block.c -- column blocks of a batch (block.h): strides, the block plan,
 * and the merging of per-block info.
 */
#include "block.h"

#include <math.h>
#include <string.h>

bsi_strides bsi_layout_strides(bsolve_layout l, int64_t r)
{
    bsi_strides s;
    switch (l.kind) {
    case BSOLVE_COL_MAJOR: s.ks = l.stride, s.is = 1, s.js = l.ld; break;
    case BSOLVE_ROW_MAJOR: s.ks = l.stride, s.is = l.ld, s.js = 1; break;
    default: s.ks = 1, s.is = l.ld, s.js = r * l.ld; break;
    }
    return s;
}

bsi_strides bsi_tlayout_strides(bsolve_tlayout l, int64_t m)
{
    bsi_strides s;
    if (l.kind == BSOLVE_TCONTIGUOUS) s.ks = l.stride, s.is = 1, s.js = l.ld;
    else s.ks = 1, s.is = l.ld, s.js = m * l.ld;
    return s;
}

int64_t bsi_rhs_blocks(const bsolve_ctx *ctx, int64_t r, int64_t nrhs, size_t es)
{
    int64_t nb = BSI_RHS_BYTES / (r * (int64_t)es);
    if (nb < BSI_RHS_MIN) nb = BSI_RHS_MIN;
    if (ctx->force[BSI_FORCE_RHS_BLOCK] > 0) nb = ctx->force[BSI_FORCE_RHS_BLOCK];
    const int64_t q = nrhs / nb;
    return q > 1 ? q : 1;
}

int bsi_host_arrays(const bsolve_ctx *ctx, const void *const *p, int np)
{
    if (ctx->backend != BSOLVE_BACKEND_CUDA) return 1;
    for (int i = 0; i < np; i++)
        if (p[i] && !bsi_cuda_host_memory(p[i])) return 0;
    return 1;
}

/* One call's info from two blocks' (non-finite input wins, as in every
 * kernel; otherwise the blocks agree, the factorization being the same). */
static int32_t merge_info(int32_t a, int32_t b)
{
    if (a == BSOLVE_INFO_NONFINITE || b == BSOLVE_INFO_NONFINITE) return BSOLVE_INFO_NONFINITE;
    return a != 0 ? a : b;
}

static void nan_fill(void *B, bsi_strides sb, int64_t r, int64_t nrhs, size_t es, int64_t k)
{
    for (int64_t j = 0; j < nrhs; j++)
        for (int64_t i = 0; i < r; i++) {
            const int64_t o = k * sb.ks + i * sb.is + j * sb.js;
            if (es == sizeof(double)) ((double *)B)[o] = NAN;
            else ((float *)B)[o] = NAN;
        }
}

bsolve_status bsi_rhs_blocked(bsolve_ctx *ctx, const char *fn, int64_t nblocks, int64_t nrhs, int64_t batch,
                              void *B, bsi_strides sb, int64_t r, size_t es, const uint8_t *mask, int32_t *info,
                              bsi_rhs_fn solve, void *arg)
{
    /* per system: the merged info (unless the caller's info takes it), one
     * block's info, and whether some block solved it (info 0) */
    size_t need;
    if (__builtin_mul_overflow((size_t)batch, 2 * sizeof(int32_t) + 1, &need))
        return bsi_fail(ctx, BSOLVE_ENOMEM, "%s: batch = %lld is too large for per-system flags", fn,
                        (long long)batch);
    char *ws = bsi_front_workspace(ctx, need);
    if (!ws)
        return bsi_fail(ctx, BSOLVE_ENOMEM, "%s: out of memory for %zu bytes of per-system flags", fn, need);
    int32_t *acc = info ? info : (int32_t *)ws, *blk = (int32_t *)ws + batch;
    unsigned char *solved = (unsigned char *)(blk + batch);
    for (int64_t q = 0; q < nblocks; q++) {
        int64_t j0, nb;
        bsi_block_cols(nrhs, nblocks, q, &j0, &nb);
        int32_t *out = q == 0 ? acc : blk;
        const bsolve_status s = solve(ctx, arg, j0, nb, out);
        if (s != BSOLVE_SUCCESS) return s;
        if (q == 0)
            for (int64_t k = 0; k < batch; k++) solved[k] = (!mask || mask[k]) && acc[k] == 0;
        else
            for (int64_t k = 0; k < batch; k++) {
                if (mask && !mask[k]) continue;
                solved[k] |= blk[k] == 0;
                acc[k] = merge_info(acc[k], blk[k]);
            }
    }
    /* a system that failed in one block (a NaN in its B there) but was
     * solved in another: NaN-fill it whole, as one call would have */
    for (int64_t k = 0; k < batch; k++)
        if ((!mask || mask[k]) && acc[k] != 0 && solved[k]) nan_fill(B, sb, r, nrhs, es, k);
    return BSOLVE_SUCCESS;
}
