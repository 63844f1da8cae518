/*
 * api_check.h -- argument checkers shared by the front ends of the dense
 * routines (src/api.c: LU and convert; src/api_qr.c: QR), so that a rule and
 * its message are written once.  Each returns BSOLVE_SUCCESS or records a
 * message naming the function `fn` and the argument, and returns the status.
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

/* 1 when p is a bsolve_precision. */
int bsi_prec_ok(bsolve_precision p);

/* A batch of r x c matrices fits layout l; `name` is the array's name in
 * the caller's signature ("A", "B", ...). */
bsolve_status bsi_check_layout(bsolve_ctx *ctx, const char *fn, const char *name, bsolve_layout l, int64_t r,
                               int64_t c, int64_t batch);
bsolve_status bsi_check_nrhs(bsolve_ctx *ctx, const char *fn, int64_t nrhs);   /* >= 1 */
bsolve_status bsi_check_batch(bsolve_ctx *ctx, const char *fn, int64_t batch); /* >= 0 */
bsolve_status bsi_check_ptr(bsolve_ctx *ctx, const char *fn, const char *name, const void *p); /* ENULL */

#endif
