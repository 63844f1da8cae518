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

#include "cpu_isa.h" /* names this file's symbols per instruction-set level */
#include "internal.h"

/* Most systems one chunk may hold (bounds per-chunk stack arrays). */
#define BSI_CHUNK_MAX 1024

/* Systems per chunk for r x c matrices of elements of `esize` bytes packed W
 * to a tile, il: read from interleaved input; a multiple of W, at most
 * BSI_CHUNK_MAX. */
#define BSI_CHUNK_IL_TILES 4
int bsi_chunk_systems(int r, int c, int W, size_t esize, int il);

/* A call's systems per chunk, from S = bsi_chunk_systems(): no more than
 * the batch fills (rounded up to whole tiles of W), and no more than keep
 * the chunk's share that grows with the right-hand sides (`bytes` per
 * system) within BSI_CHUNK_BYTES; never below one tile.  A workspace sized
 * by it grows with the work of the call, not with BSI_CHUNK_MAX. */
#define BSI_CHUNK_BYTES ((size_t)8 << 20)
int bsi_chunk_cap(int S, int W, int64_t batch, size_t bytes);

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

/* The same for chosen systems (the masked LU calls): lane s of the tiles
 * holds system idx[s] of src, s < count (<= BSI_CHUNK_MAX); idx[s] = -1
 * leaves lane s empty, filled like the lanes past count (identity or
 * zeros), its nonfinite[s] 0.  The other systems of src are not read; the
 * unpack writes only the systems listed. */
void bsi_pack_sel_d(double *tiles, int64_t ts, const double *src, bsolve_layout ls, int r, int c,
                    const int64_t *idx, int count, int pad_identity, int32_t *nonfinite);
void bsi_pack_sel_s(float *tiles, int64_t ts, const float *src, bsolve_layout ls, int r, int c,
                    const int64_t *idx, int count, int pad_identity, int32_t *nonfinite);
void bsi_unpack_sel_d(const double *tiles, int64_t ts, double *dst, bsolve_layout ld, int r, int c,
                      const int64_t *idx, int count);
void bsi_unpack_sel_s(const float *tiles, int64_t ts, float *dst, bsolve_layout ld, int r, int c,
                      const int64_t *idx, int count);

/* Software prefetch of a later chunk's interleaved input, a few entries at
 * a time while the current chunk is solved.  Each entry (i, j) of a chunk
 * is a run of chunk * esize bytes in another page, too short (a few cache
 * lines when matrices are large) for the hardware prefetcher to follow, so
 * the pack waits on every line, with few misses in flight at once (a
 * core's fill buffers; a burst of prefetches before the pack meets the same
 * bound).  Spread over the solve, the lines arrive while the FMA units
 * work.  Runs longer than BSI_PF_RUN bytes (4 KiB and more: 8 x 4 and
 * smaller double matrices) the hardware prefetcher follows: prefetching
 * them costs 3-5%.  Locality 2 (prefetcht1: into L2) rather than 3: the
 * chunk being solved is in L1, and lines prefetched there would evict it
 * (3-5% slower at m x n = 32 x 16, 24 x 12, 16 x 8).  NULL or left = 0:
 * nothing to do. */
#define BSI_PF_RUN 2048
#define BSI_PF_LOC 2
typedef struct {
    const char *p; /* the next entry's run */
    int64_t ld;    /* bytes from one entry's run to the next's */
    int64_t run;   /* bytes per run */
    int left;      /* entries still to prefetch */
    int per;       /* entries per bsi_pf_step */
} bsi_pf;

static inline void bsi_pf_init(bsi_pf *pf, const void *src, bsolve_layout ls, int entries, int64_t k0, int count,
                               size_t esize)
{
    pf->left = ls.kind == BSOLVE_INTERLEAVED && count > 0 && count * esize <= BSI_PF_RUN ? entries : 0;
    pf->p = pf->left ? (const char *)src + k0 * (int64_t)esize : NULL;
    pf->ld = ls.ld * (int64_t)esize;
    pf->run = count * (int64_t)esize;
    pf->per = 1;
}

static inline void bsi_pf_step(bsi_pf *pf)
{
    if (!pf) return;
    for (int e = 0; e < pf->per && pf->left > 0; e++, pf->left--, pf->p += pf->ld)
        for (const char *q = (const char *)((uintptr_t)pf->p & ~(uintptr_t)63); q < pf->p + pf->run; q += 64)
            __builtin_prefetch(q, 0, BSI_PF_LOC);
}

#endif
