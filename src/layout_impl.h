/*
 * layout_impl.h -- precision-generic tile packing (see layout.h), included
 * by layout.c once per precision between tmpl_on.h and tmpl_off.h.
 */

void FN(bsi_pack)(real *restrict tile, const real *restrict src, bsolve_layout ls, int r, int c,
                  int64_t k0, int nl, int pad_identity, int32_t *restrict nonfinite)
{
    /* x * 0 is 0 for every finite x and NaN for NaN and +-Inf: summing it per
     * lane detects non-finite input without a branch per entry. */
    real probe[BSI_W];
    for (int l = 0; l < BSI_W; l++) probe[l] = 0;
    if (ls.kind == BSOLVE_INTERLEAVED) {
        for (int e = 0; e < r * c; e++) {
            const real *s = src + (int64_t)e * ls.ld + k0;
            real *d = tile + (int64_t)e * BSI_W;
            if (nl == BSI_W) {
                for (int l = 0; l < BSI_W; l++) {
                    d[l] = s[l];
                    probe[l] += s[l] * 0;
                }
            } else {
                for (int l = 0; l < nl; l++) {
                    d[l] = s[l];
                    probe[l] += s[l] * 0;
                }
            }
        }
    } else {
        /* Each matrix is contiguous: read it in storage order, write strided
         * into the (cache-resident) tile. */
        int col = ls.kind == BSOLVE_COL_MAJOR;
        int64_t si = col ? 1 : ls.ld, sj = col ? ls.ld : 1;
        for (int l = 0; l < nl; l++) {
            const real *s = src + (k0 + l) * ls.stride;
            real p = 0;
            if (col) {
                for (int j = 0; j < c; j++)
                    for (int i = 0; i < r; i++) {
                        real v = s[i * si + j * sj];
                        tile[(i + j * r) * BSI_W + l] = v;
                        p += v * 0;
                    }
            } else {
                for (int i = 0; i < r; i++)
                    for (int j = 0; j < c; j++) {
                        real v = s[i * si + j * sj];
                        tile[(i + j * r) * BSI_W + l] = v;
                        p += v * 0;
                    }
            }
            probe[l] = p;
        }
    }
    for (int l = nl; l < BSI_W; l++)
        for (int j = 0; j < c; j++)
            for (int i = 0; i < r; i++) tile[(i + j * r) * BSI_W + l] = (pad_identity && i == j) ? 1 : 0;
    for (int l = 0; l < BSI_W; l++) nonfinite[l] = probe[l] != probe[l];
}

void FN(bsi_unpack)(const real *restrict tile, real *restrict dst, bsolve_layout ld, int r, int c, int64_t k0,
                    int nl)
{
    if (ld.kind == BSOLVE_INTERLEAVED) {
        for (int e = 0; e < r * c; e++) {
            real *d = dst + (int64_t)e * ld.ld + k0;
            const real *s = tile + (int64_t)e * BSI_W;
            for (int l = 0; l < nl; l++) d[l] = s[l];
        }
        return;
    }
    int col = ld.kind == BSOLVE_COL_MAJOR;
    int64_t si = col ? 1 : ld.ld, sj = col ? ld.ld : 1;
    for (int l = 0; l < nl; l++) {
        real *d = dst + (k0 + l) * ld.stride;
        if (col) {
            for (int j = 0; j < c; j++)
                for (int i = 0; i < r; i++) d[i * si + j * sj] = tile[(i + j * r) * BSI_W + l];
        } else {
            for (int i = 0; i < r; i++)
                for (int j = 0; j < c; j++) d[i * si + j * sj] = tile[(i + j * r) * BSI_W + l];
        }
    }
}

static bsolve_status FN(convert)(bsolve_ctx *ctx, int64_t r, int64_t c, int64_t batch, const real *src,
                                 bsolve_layout ls, real *dst, bsolve_layout ld)
{
    int64_t ntiles = (batch + BSI_W - 1) / BSI_W;
    size_t per = ((size_t)r * c * BSI_W * sizeof(real) + 63) / 64 * 64;
    int nth = bsi_cpu_threads(ctx, ntiles);
    char *ws = bsi_workspace(ctx, per * nth);
    if (!ws) return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_convert: out of memory for the workspace");
#pragma omp parallel num_threads(nth)
    {
        real *tile = (real *)(ws + per * omp_get_thread_num());
        int32_t nf[BSI_W];
#pragma omp for schedule(static)
        for (int64_t t = 0; t < ntiles; t++) {
            int64_t k0 = t * BSI_W;
            int nl = batch - k0 < BSI_W ? (int)(batch - k0) : BSI_W;
            FN(bsi_pack)(tile, src, ls, (int)r, (int)c, k0, nl, 0, nf);
            FN(bsi_unpack)(tile, dst, ld, (int)r, (int)c, k0, nl);
        }
    }
    return BSOLVE_SUCCESS;
}
