/*
 * gpu_dense.h -- what the dense GPU tests (test/gpu_lu.c, test/gpu_lu_masked.c,
 * test/gpu_qr.c) share: a seeded generator of entries, the element offsets
 * of the dense layouts (bsolve_layout), with and without gaps, and the LU
 * tests' backward-error ratio.
 */
#ifndef BSI_GPU_DENSE_H
#define BSI_GPU_DENSE_H

#include <math.h>
#include <stdint.h>

#include "batchsolve.h"

static uint64_t rs = 0x9e3779b97f4a7c15ULL;
static inline double urand(void) /* [-1, 1], never 0 */
{
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    double u = (double)(rs >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    return u == 0 ? 0.5 : u;
}

static const char *const kname[] = {"col", "row", "il"};

/* offset of entry (i, j) of system k of an r-row matrix in layout l */
static inline int64_t idx(bsolve_layout l, int64_t r, int64_t i, int64_t j, int64_t k)
{
    switch (l.kind) {
    case BSOLVE_COL_MAJOR: return k * l.stride + i + j * l.ld;
    case BSOLVE_ROW_MAJOR: return k * l.stride + i * l.ld + j;
    default: return (i + j * r) * l.ld + k;
    }
}
/* A layout with gaps when pad != 0. */
static inline bsolve_layout mk(bsolve_layout_kind kind, int pad, int64_t r, int64_t c, int64_t batch)
{
    bsolve_layout l = {kind, 0, 0};
    if (kind == BSOLVE_COL_MAJOR) { l.ld = r + pad; l.stride = l.ld * c + 3 * pad; }
    else if (kind == BSOLVE_ROW_MAJOR) { l.ld = c + pad; l.stride = l.ld * r + 3 * pad; }
    else l.ld = batch + 5 * pad;
    return l;
}
static inline size_t span(bsolve_layout l, int64_t r, int64_t c, int64_t batch)
{
    return l.kind == BSOLVE_INTERLEAVED ? (size_t)(l.ld * r * c) : (size_t)(l.stride * batch);
}
static inline double get(const void *p, int dbl, int64_t o)
{
    return dbl ? ((const double *)p)[o] : ((const float *)p)[o];
}
static inline void put(void *p, int dbl, int64_t o, double v)
{
    if (dbl) ((double *)p)[o] = v;
    else ((float *)p)[o] = (float)v;
}

/* Backward-error ratio ||b - A x|| / (n eps ||A|| ||x||) of system k of the
 * n x n A (layout la) and n x nrhs B, X (layout lb), the worst column, in
 * long double; +inf when x holds a non-finite entry. */
static inline double bwd(int n, int nrhs, int dbl, const void *A, bsolve_layout la, const void *B, const void *X,
                         bsolve_layout lb, int64_t k)
{
    const double eps = dbl ? 2.220446049250313e-16 : 1.1920929e-07;
    long double an = 0;
    for (int i = 0; i < n; i++) {
        long double s = 0;
        for (int j = 0; j < n; j++) s += fabsl((long double)get(A, dbl, idx(la, n, i, j, k)));
        if (s > an) an = s;
    }
    double worst = 0;
    for (int c = 0; c < nrhs; c++) {
        long double xn = 0, rn = 0;
        for (int i = 0; i < n; i++) {
            long double x = get(X, dbl, idx(lb, n, i, c, k));
            if (!isfinite((double)x)) return INFINITY;
            if (fabsl(x) > xn) xn = fabsl(x);
        }
        for (int i = 0; i < n; i++) {
            long double r = get(B, dbl, idx(lb, n, i, c, k));
            for (int j = 0; j < n; j++)
                r -= (long double)get(A, dbl, idx(la, n, i, j, k)) * get(X, dbl, idx(lb, n, j, c, k));
            if (fabsl(r) > rn) rn = fabsl(r);
        }
        double q = (an * xn == 0) ? (rn == 0 ? 0 : INFINITY) : (double)(rn / (n * eps * an * xn));
        if (q > worst) worst = q;
    }
    return worst;
}

#endif
