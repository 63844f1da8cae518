/*
 * layout.h -- moving systems between a user layout and CPU tiles.
 *
 * A tile holds W systems interleaved: entry (i, j) of lane l at
 * tile[(i + j*r)*W + l].  The CPU kernels move a chunk of consecutive tiles
 * at a time (a few hundred KiB): large enough that reading interleaved input
 * streams long contiguous runs (one TLB entry and many cache lines per
 * entry (i, j)), small enough to stay in cache between packing, solving and
 * unpacking -- the layout is converted on the way, never in an extra pass.
 */
#ifndef BSOLVE_LAYOUT_H
#define BSOLVE_LAYOUT_H

#include "internal.h"

/* Most systems one chunk may hold (bounds per-chunk stack arrays). */
#define BSI_CHUNK_MAX 1024

/* Systems per chunk for r x c matrices of elements of `esize` bytes packed W
 * to a tile: a multiple of W, at most BSI_CHUNK_MAX. */
int bsi_chunk_systems(int r, int c, int W, size_t esize);

/* Copies systems k0 .. k0+count-1 (r x c each, count <= BSI_CHUNK_MAX) from
 * src (layout ls) into consecutive tiles `ts` elements apart; lanes past
 * `count` in the last tile get the identity (pad_identity) or zeros.
 * nonfinite[s] is set to 1 when system k0+s holds a NaN or an infinity. */
void bsi_pack_d(double *tiles, int64_t ts, const double *src, bsolve_layout ls, int r, int c, int64_t k0,
                int count, int pad_identity, int32_t *nonfinite);
void bsi_pack_s(float *tiles, int64_t ts, const float *src, bsolve_layout ls, int r, int c, int64_t k0,
                int count, int pad_identity, int32_t *nonfinite);

/* Copies the first `count` lanes of consecutive tiles back to systems
 * k0 .. k0+count-1 of dst. */
void bsi_unpack_d(const double *tiles, int64_t ts, double *dst, bsolve_layout ld, int r, int c, int64_t k0,
                  int count);
void bsi_unpack_s(const float *tiles, int64_t ts, float *dst, bsolve_layout ld, int r, int c, int64_t k0,
                  int count);

#endif
