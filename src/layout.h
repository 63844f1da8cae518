/*
 * layout.h -- moving systems between a user layout and a CPU tile.
 *
 * A tile holds W systems interleaved: entry (i, j) of lane l at
 * tile[(i + j*r)*W + l].  Copying one tile at a time keeps the conversion
 * inside the cache instead of adding a pass over the whole batch.
 */
#ifndef BSOLVE_LAYOUT_H
#define BSOLVE_LAYOUT_H

#include "internal.h"

/* Copies systems k0 .. k0+nl-1 (r x c each) from src (layout ls) into lanes
 * 0..nl-1 of tile; lanes nl..W-1 get the identity (pad_identity) or zeros.
 * nonfinite[l] is set to 1 when lane l holds a NaN or an infinity, else 0. */
void bsi_pack_d(double *tile, const double *src, bsolve_layout ls, int r, int c, int64_t k0, int nl,
                int pad_identity, int32_t *nonfinite);
void bsi_pack_s(float *tile, const float *src, bsolve_layout ls, int r, int c, int64_t k0, int nl,
                int pad_identity, int32_t *nonfinite);

/* Copies lanes 0..nl-1 of tile back to systems k0 .. k0+nl-1 of dst. */
void bsi_unpack_d(const double *tile, double *dst, bsolve_layout ld, int r, int c, int64_t k0, int nl);
void bsi_unpack_s(const float *tile, float *dst, bsolve_layout ld, int r, int c, int64_t k0, int nl);

#endif
