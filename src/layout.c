/*
 * layout.c -- tile packing for the CPU backend and bsolve_?convert.
 */
#include "layout.h"
#include "lu_cpu.h"
#include "simd.h"

#include <string.h>

#include <omp.h>

/* Tiles packed together from interleaved input (pack_il_tiles); the rest
 * of a chunk goes as 4 + 2 + 1 tiles, so this is 8. */
#define BSI_PACK_TB 8

#define BSI_IMPL "layout_impl.h"
#include "tmpl_each.h"

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

int bsi_chunk_systems(int r, int c, int W, size_t esize, int il)
{
    /* ~128 KiB of tiles: room in L2 for the matrices and right sides.
     * Interleaved input is read entry by entry, entries ld elements apart
     * (a page or more for large batches): at least BSI_CHUNK_IL_TILES tiles
     * there, so that each entry is a run of that many W*esize-byte vectors
     * rather than one (64 bytes per 4 KiB-strided entry left the pack as
     * long as the factorization itself at n = 128); 8 and 16 tiles ran no
     * faster (LU, n = 48..128). */
    size_t tile = (size_t)r * c * W * esize;
    size_t tiles = (128u << 10) / (tile ? tile : 1);
    if (tiles < 1) tiles = 1;
    if (il && tiles < BSI_CHUNK_IL_TILES) tiles = BSI_CHUNK_IL_TILES;
    if (tiles > (size_t)(BSI_CHUNK_MAX / W)) tiles = BSI_CHUNK_MAX / W;
    return (int)tiles * W;
}

int bsi_chunk_cap(int S, int W, int64_t batch, size_t bytes)
{
    const int64_t fill = (batch / W + (batch % W != 0)) * W; /* no overflow near INT64_MAX */
    if (fill < S) S = (int)fill;
    if (bytes > 0 && BSI_CHUNK_BYTES / bytes / W * W < (size_t)S) S = (int)(BSI_CHUNK_BYTES / bytes / W * W);
    return S < W ? W : S;
}
