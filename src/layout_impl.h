/*
 * layout_impl.h -- precision-generic tile packing (see layout.h), included
 * by layout.c once per precision between tmpl_on.h and tmpl_off.h.
 */

/* Interleaved input, `nt` whole tiles from tile t0 on: entry by entry, so
 * that each read is a run of nt*W contiguous reals, with the non-finite
 * probes of the nt tiles held in registers across all entries (a probe
 * array in memory cost a load and a store per entry: a third of the pack). */
static inline __attribute__((always_inline)) void FN(pack_il_tiles)(real *restrict tiles, int64_t ts,
                                                                    const real *restrict src, int64_t ld, int rc,
                                                                    int t0, int nt, real *restrict probe)
{
    vreal p[BSI_PACK_TB];
    for (int q = 0; q < nt; q++) p[q] = (vreal){0};
    for (int e = 0; e < rc; e++) {
        const real *s = src + (int64_t)e * ld + (int64_t)t0 * BSI_W;
        real *d = tiles + (int64_t)e * BSI_W + (int64_t)t0 * ts;
        for (int q = 0; q < nt; q++) {
            vreal v;
            memcpy(&v, s + q * BSI_W, sizeof v); /* src is not aligned in general */
            *(vreal *)(d + q * ts) = v;
            p[q] += v * 0;
        }
    }
    for (int q = 0; q < nt; q++) memcpy(probe + (t0 + q) * BSI_W, &p[q], sizeof p[q]);
}

void FN(bsi_pack)(real *restrict tiles, int64_t ts, const real *restrict src, bsolve_layout ls, int r, int c,
                  int64_t k0, int count, int pad_identity, int32_t *restrict nonfinite)
{
    /* x * 0 is 0 for every finite x and NaN for NaN and +-Inf: summing it per
     * system detects non-finite input without a branch per entry. */
    real probe[BSI_CHUNK_MAX];
    for (int s = 0; s < count; s++) probe[s] = 0;
    const int full = count / BSI_W, rem = count % BSI_W;
    if (ls.kind == BSOLVE_INTERLEAVED) {
        int t0 = 0;
        for (; t0 + BSI_PACK_TB <= full; t0 += BSI_PACK_TB)
            FN(pack_il_tiles)(tiles, ts, src + k0, ls.ld, r * c, t0, BSI_PACK_TB, probe);
        /* The last full - t0 < BSI_PACK_TB = 8 tiles as 4 + 2 + 1, each with a
         * constant nt that keeps the probes in registers (with a run-time nt
         * they were spilled: a third of QR's time at m = 32, n = 16, whose
         * chunks are 4 tiles). */
        if ((full - t0) & 4) FN(pack_il_tiles)(tiles, ts, src + k0, ls.ld, r * c, t0, 4, probe), t0 += 4;
        if ((full - t0) & 2) FN(pack_il_tiles)(tiles, ts, src + k0, ls.ld, r * c, t0, 2, probe), t0 += 2;
        if ((full - t0) & 1) FN(pack_il_tiles)(tiles, ts, src + k0, ls.ld, r * c, t0, 1, probe);
        for (int e = 0; e < r * c; e++) {
            const real *s = src + (int64_t)e * ls.ld + k0;
            real *d = tiles + (int64_t)e * BSI_W;
            for (int l = 0; l < rem; l++) {
                real v = s[full * BSI_W + l];
                d[full * ts + l] = v;
                probe[full * BSI_W + l] += v * 0;
            }
        }
    } else {
        /* Each matrix is contiguous: read it in storage order, write strided
         * into the (cache-resident) tile. */
        const int col = ls.kind == BSOLVE_COL_MAJOR;
        for (int sy = 0; sy < count; sy++) {
            const real *s = src + (k0 + sy) * ls.stride;
            real *d = tiles + (sy / BSI_W) * ts + sy % BSI_W;
            real p = 0;
            if (col) {
                for (int j = 0; j < c; j++)
                    for (int i = 0; i < r; i++) {
                        real v = s[i + j * ls.ld];
                        d[(i + j * r) * BSI_W] = v;
                        p += v * 0;
                    }
            } else {
                for (int i = 0; i < r; i++)
                    for (int j = 0; j < c; j++) {
                        real v = s[i * ls.ld + j];
                        d[(i + j * r) * BSI_W] = v;
                        p += v * 0;
                    }
            }
            probe[sy] = p;
        }
    }
    if (rem)
        for (int l = rem; l < BSI_W; l++)
            for (int j = 0; j < c; j++)
                for (int i = 0; i < r; i++)
                    tiles[full * ts + (i + j * r) * BSI_W + l] = (pad_identity && i == j) ? 1 : 0;
    for (int s = 0; s < count; s++) nonfinite[s] = probe[s] != probe[s];
}

void FN(bsi_unpack)(const real *restrict tiles, int64_t ts, real *restrict dst, bsolve_layout ld, int r, int c,
                    int64_t k0, int count)
{
    const int full = count / BSI_W, rem = count % BSI_W;
    if (ld.kind == BSOLVE_INTERLEAVED) {
        for (int e = 0; e < r * c; e++) {
            real *d = dst + (int64_t)e * ld.ld + k0;
            const real *s = tiles + (int64_t)e * BSI_W;
            for (int t = 0; t < full; t++)
                for (int l = 0; l < BSI_W; l++) d[t * BSI_W + l] = s[t * ts + l];
            for (int l = 0; l < rem; l++) d[full * BSI_W + l] = s[full * ts + l];
        }
        return;
    }
    const int col = ld.kind == BSOLVE_COL_MAJOR;
    for (int sy = 0; sy < count; sy++) {
        real *d = dst + (k0 + sy) * ld.stride;
        const real *s = tiles + (sy / BSI_W) * ts + sy % BSI_W;
        if (col) {
            for (int j = 0; j < c; j++)
                for (int i = 0; i < r; i++) d[i + j * ld.ld] = s[(i + j * r) * BSI_W];
        } else {
            for (int i = 0; i < r; i++)
                for (int j = 0; j < c; j++) d[i * ld.ld + j] = s[(i + j * r) * BSI_W];
        }
    }
}

/* Chosen systems (layout.h).  Interleaved input entry by entry over the
 * lanes, so that lanes whose systems are neighbours share the cache lines
 * of each entry; the other layouts system by system, each contiguous. */
void FN(bsi_pack_sel)(real *restrict tiles, int64_t ts, const real *restrict src, bsolve_layout ls, int r, int c,
                      const int64_t *restrict idx, int count, int pad_identity, int32_t *restrict nonfinite)
{
    real probe[BSI_CHUNK_MAX];
    const int slots = (count + BSI_W - 1) / BSI_W * BSI_W;
#define LANE(sy) ((int64_t)((sy) / BSI_W) * ts + (sy) % BSI_W)
    for (int s = 0; s < slots; s++) probe[s] = 0;
    if (ls.kind == BSOLVE_INTERLEAVED) {
        for (int e = 0; e < r * c; e++) {
            const real *s = src + (int64_t)e * ls.ld;
            real *d = tiles + (int64_t)e * BSI_W;
            const real pad = pad_identity && e % r == e / r ? 1 : 0;
            for (int sy = 0; sy < slots; sy++) {
                const int64_t k = sy < count ? idx[sy] : -1;
                const real v = k >= 0 ? s[k] : pad;
                d[LANE(sy)] = v;
                probe[sy] += v * 0;
            }
        }
    } else {
        const int col = ls.kind == BSOLVE_COL_MAJOR;
        for (int sy = 0; sy < slots; sy++) {
            const int64_t k = sy < count ? idx[sy] : -1;
            real *d = tiles + LANE(sy);
            real p = 0;
            for (int j = 0; j < c; j++)
                for (int i = 0; i < r; i++) {
                    const real v = k < 0 ? ((pad_identity && i == j) ? 1 : 0)
                                         : src[k * ls.stride + (col ? i + j * ls.ld : i * ls.ld + j)];
                    d[(i + j * r) * BSI_W] = v;
                    p += v * 0;
                }
            probe[sy] = p;
        }
    }
    for (int s = 0; s < count; s++) nonfinite[s] = probe[s] != probe[s];
}

void FN(bsi_unpack_sel)(const real *restrict tiles, int64_t ts, real *restrict dst, bsolve_layout ld, int r, int c,
                        const int64_t *restrict idx, int count)
{
    if (ld.kind == BSOLVE_INTERLEAVED) {
        for (int e = 0; e < r * c; e++) {
            real *d = dst + (int64_t)e * ld.ld;
            const real *s = tiles + (int64_t)e * BSI_W;
            for (int sy = 0; sy < count; sy++)
                if (idx[sy] >= 0) d[idx[sy]] = s[LANE(sy)];
        }
        return;
    }
    const int col = ld.kind == BSOLVE_COL_MAJOR;
    for (int sy = 0; sy < count; sy++) {
        if (idx[sy] < 0) continue;
        real *d = dst + idx[sy] * ld.stride;
        const real *s = tiles + LANE(sy);
        for (int j = 0; j < c; j++)
            for (int i = 0; i < r; i++) d[col ? i + j * ld.ld : i * ld.ld + j] = s[(i + j * r) * BSI_W];
    }
#undef LANE
}

static bsolve_status FN(convert)(bsolve_ctx *ctx, int64_t r, int64_t c, int64_t batch, const real *src,
                                 bsolve_layout ls, real *dst, bsolve_layout ld)
{
    /* (the front end converts matrices of more than BSI_RHS_BYTES in blocks) */
    const int S = bsi_chunk_cap(bsi_chunk_systems((int)r, (int)c, BSI_W, sizeof(real), ls.kind == BSOLVE_INTERLEAVED), BSI_W, batch, 0);
    const int64_t nchunks = (batch + S - 1) / S, ts = r * c * BSI_W;
    const size_t per = ((size_t)S * r * c * sizeof(real) + 63) / 64 * 64;
    const int nth = bsi_cpu_threads(ctx, nchunks);
    char *ws = bsi_workspace(ctx, per * nth);
    if (!ws) return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_convert: out of memory for the workspace");
#pragma omp parallel num_threads(nth)
    {
        real *tiles = (real *)(ws + per * omp_get_thread_num());
        int32_t nf[BSI_CHUNK_MAX];
#pragma omp for schedule(static)
        for (int64_t ch = 0; ch < nchunks; ch++) {
            const int64_t k0 = ch * S;
            const int cnt = batch - k0 < S ? (int)(batch - k0) : S;
            FN(bsi_pack)(tiles, ts, src, ls, (int)r, (int)c, k0, cnt, 0, nf);
            FN(bsi_unpack)(tiles, ts, dst, ld, (int)r, (int)c, k0, cnt);
        }
    }
    return BSOLVE_SUCCESS;
}
