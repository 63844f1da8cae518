/*
 * api_check.h -- argument checkers shared by the front ends (src/api.c: LU
 * and convert; src/api_qr.c: QR; src/api_gtsv.c: tridiagonal), so that a
 * rule and its message are written once.  Each returns BSOLVE_SUCCESS or
 * records a message naming the function `fn` and the argument, and returns
 * the status.
 *
 * Size arithmetic on user-supplied counts goes through bsi_mul64 /
 * bsi_add64: a layout or a factorization whose size does not fit in int64_t
 * is refused with BSOLVE_EINVAL before anything is read or written, so that
 * no backend ever forms a wrapped-around offset.
 */
#ifndef BSOLVE_API_CHECK_H
#define BSOLVE_API_CHECK_H

#include "internal.h"

/* Returns from the calling function when `expr` is not BSOLVE_SUCCESS. */
#define TRY(expr)                                    \
    do {                                             \
        bsolve_status try_s_ = (expr);               \
        if (try_s_ != BSOLVE_SUCCESS) return try_s_; \
    } while (0)

/* *r = a * b and 1, or 0 when the product does not fit in int64_t. */
static inline int bsi_mul64(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }
/* *r = a + b and 1, or 0 when the sum does not fit in int64_t. */
static inline int bsi_add64(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }

/* 1 when p is a bsolve_precision. */
int bsi_prec_ok(bsolve_precision p);

/* A batch of r x c matrices of elements of es bytes fits layout l (the
 * layout rules of batchsolve.h, and every offset it defines, in bytes, fits
 * in int64_t); `name` is the array's name in the caller's signature ("A",
 * "B", ...). */
bsolve_status bsi_check_layout(bsolve_ctx *ctx, const char *fn, const char *name, bsolve_layout l, int64_t r,
                               int64_t c, int64_t batch, size_t es);
/* The same for `cols` vectors of m entries per system in a tridiagonal
 * layout; `name` names the layout argument ("lt", "lb"). */
bsolve_status bsi_check_tlayout(bsolve_ctx *ctx, const char *fn, const char *name, bsolve_tlayout l, int64_t m,
                                int64_t cols, int64_t batch, size_t es);
bsolve_status bsi_check_nrhs(bsolve_ctx *ctx, const char *fn, int64_t nrhs);   /* 1 .. INT32_MAX */
bsolve_status bsi_check_batch(bsolve_ctx *ctx, const char *fn, int64_t batch); /* >= 0 */
bsolve_status bsi_check_ptr(bsolve_ctx *ctx, const char *fn, const char *name, const void *p); /* ENULL */
/* A factorization object of `batch` systems, `per` bytes each, fits in
 * int64_t bytes with the batch padded to whole tiles of any backend (CPU
 * tiles and super-tiles, CUDA's multiples of 32): the backends then size
 * and index it without overflow.  `what` describes a system ("of order 8"). */
bsolve_status bsi_check_storage(bsolve_ctx *ctx, const char *fn, int64_t batch, int64_t per, const char *what);

#endif
