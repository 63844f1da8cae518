/*
 * block.h -- a batch of matrices taken a block of columns (or of rows) at
 * a time.
 *
 * Columns j0 .. j0+nb-1 of a batch of r x c matrices are themselves a batch
 * of r x nb matrices in the same layout, j0 columns in: col-major +j0*ld,
 * row-major +j0, interleaved +j0*r*ld (r unchanged), tridiagonal contiguous
 * +j0*ld, tridiagonal interleaved +j0*m*ld.  Rows i0 .. i0+nr-1 of a single
 * column are a batch of nr x 1 matrices likewise (+i0, +i0*ld, +i0*ld).
 *
 * The front end solves a call with many right-hand sides as a sequence of
 * calls on column blocks of B, and converts large matrices in blocks, so
 * that no backend sizes a workspace, a tile or a staging buffer by nrhs:
 * memory grows with the systems in flight and a bounded block of columns,
 * never with nrhs.  The kernels treat the columns of B independently and no
 * block has a single column (which some kernels take as a case of its own),
 * so every column is computed exactly as in one call; per-system info and
 * the NaN-filling of failed systems are merged across the blocks as one
 * call reports them (bsi_rhs_blocked).
 */
#ifndef BSOLVE_BLOCK_H
#define BSOLVE_BLOCK_H

#include "internal.h"

/* Bytes of one system's block of B: with at least BSI_RHS_MIN columns per
 * block, a block's share of work that is repeated per block (gesv and gels
 * factor A again, gtsv eliminates again) stays small: at n = 128 in double,
 * 256 columns against the 128 / 3 column-equivalents of a factorization. */
#define BSI_RHS_BYTES ((int64_t)256 << 10)
#define BSI_RHS_MIN 16

/* Entry (i, j) of system k at k*ks + i*is + j*js. */
typedef struct {
    int64_t ks, is, js;
} bsi_strides;
bsi_strides bsi_layout_strides(bsolve_layout l, int64_t r);
bsi_strides bsi_tlayout_strides(bsolve_tlayout l, int64_t m);

/* Number of column blocks in which to solve nrhs columns of r entries of es
 * bytes (1: a single call).  Blocks hold between nb and 2*nb - 1 columns,
 * nb = BSI_RHS_BYTES / (r * es) but at least BSI_RHS_MIN (or, in tests, the
 * context's BSI_FORCE_RHS_BLOCK). */
int64_t bsi_rhs_blocks(const bsolve_ctx *ctx, int64_t r, int64_t nrhs, size_t es);

/* Block q of nblocks over n columns: first column *j0, *nb columns. */
static inline void bsi_block_cols(int64_t n, int64_t nblocks, int64_t q, int64_t *j0, int64_t *nb)
{
    const int64_t base = n / nblocks, rem = n % nblocks;
    *j0 = q * base + (q < rem ? q : rem);
    *nb = base + (q < rem);
}

/* 1 when the context's backend reaches every non-NULL pointer of p[0..np-1]
 * as host memory (always on the CPU backend). */
int bsi_host_arrays(const bsolve_ctx *ctx, const void *const *p, int np);

/* Solves columns j0 .. j0+nb-1 of B, writing each system's info to info
 * (never NULL). */
typedef bsolve_status (*bsi_rhs_fn)(bsolve_ctx *ctx, void *arg, int64_t j0, int64_t nb, int32_t *info);

/* Runs solve() on nblocks column blocks of the nrhs columns of B (r entries
 * each, es bytes, strides sb; host memory), then gives info (may be NULL)
 * and B what one call would: a system's info is BSOLVE_INFO_NONFINITE if a
 * block reported it, else the (common) info of the blocks, and every column
 * of a system whose info is not 0 is NaN.  mask (host memory, may be NULL):
 * solve() leaves the systems with mask 0 alone, and so does the merging.
 * Needs 9 bytes per system of the context's front-end scratch. */
bsolve_status bsi_rhs_blocked(bsolve_ctx *ctx, const char *fn, int64_t nblocks, int64_t nrhs, int64_t batch,
                              void *B, bsi_strides sb, int64_t r, size_t es, const uint8_t *mask, int32_t *info,
                              bsi_rhs_fn solve, void *arg);

#endif
