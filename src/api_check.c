/*
 * api_check.c -- the argument checkers of api_check.h: layouts and their
 * sizes, counts, pointers, the storage of factorization objects.
 */
#include "api_check.h"

int bsi_prec_ok(bsolve_precision p)
{
    return p == BSOLVE_PREC_S || p == BSOLVE_PREC_D;
}

/* The byte extent of a batch: `last` entries (the offset one past the last
 * entry) of es bytes; 0 when it overflows int64_t. */
static int bytes_fit(int64_t last, size_t es)
{
    int64_t b;
    return bsi_mul64(last, (int64_t)es, &b);
}

bsolve_status bsi_check_layout(bsolve_ctx *ctx, const char *fn, const char *name, bsolve_layout l, int64_t r,
                               int64_t c, int64_t batch, size_t es)
{
    switch (l.kind) {
    case BSOLVE_COL_MAJOR:
    case BSOLVE_ROW_MAJOR: {
        /* `lines` columns (col-major) or rows (row-major) of `len` entries, ld apart */
        const int col = l.kind == BSOLVE_COL_MAJOR;
        const int64_t len = col ? r : c, lines = col ? c : r;
        const char *what = col ? "columns" : "rows";
        if (l.ld < len || l.ld < 1)
            return bsi_fail(ctx, BSOLVE_EINVAL, "%s: %s ld = %lld must be >= %lld (the %s) for a %s layout", fn,
                            name, (long long)l.ld, (long long)len, col ? "rows" : "columns",
                            col ? "column-major" : "row-major");
        int64_t span;
        const int span_ok = bsi_mul64(l.ld, lines, &span);
        if (batch > 1 && !span_ok)
            return bsi_fail(ctx, BSOLVE_EINVAL,
                            "%s: %s stride must be >= ld * %s, but ld = %lld times %lld %s overflows int64", fn,
                            name, what, (long long)l.ld, (long long)lines, what);
        if (batch > 1 && l.stride < span)
            return bsi_fail(ctx, BSOLVE_EINVAL,
                            "%s: %s stride = %lld must be >= ld * %s = %lld so that matrices do not overlap", fn,
                            name, (long long)l.stride, what, (long long)span);
        if (l.stride < 0)
            return bsi_fail(ctx, BSOLVE_EINVAL, "%s: %s stride = %lld must be >= 0", fn, name,
                            (long long)l.stride);
        if (batch == 0) return BSOLVE_SUCCESS;
        /* one past the last entry: (batch-1)*stride + (lines-1)*ld + len */
        int64_t a, b, e;
        if (!bsi_mul64(batch - 1, l.stride, &a))
            return bsi_fail(ctx, BSOLVE_EINVAL,
                            "%s: %s stride = %lld times batch - 1 = %lld overflows int64: the batch cannot be "
                            "addressed",
                            fn, name, (long long)l.stride, (long long)(batch - 1));
        if (!bsi_mul64(lines - 1, l.ld, &b) || !bsi_add64(a, b, &e) || !bsi_add64(e, len, &e) ||
            !bytes_fit(e, es))
            return bsi_fail(ctx, BSOLVE_EINVAL,
                            "%s: %s ld = %lld, stride = %lld, batch = %lld: the last entry's byte offset "
                            "overflows int64",
                            fn, name, (long long)l.ld, (long long)l.stride, (long long)batch);
        return BSOLVE_SUCCESS;
    }
    case BSOLVE_INTERLEAVED: {
        if (l.ld < batch || l.ld < 1)
            return bsi_fail(ctx, BSOLVE_EINVAL,
                            "%s: %s ld = %lld must be >= batch = %lld (and >= 1) for the interleaved layout", fn,
                            name, (long long)l.ld, (long long)batch);
        if (batch == 0) return BSOLVE_SUCCESS;
        /* r*c*ld bounds the extent (r*c - 1)*ld + batch and the backends'
         * column step r*ld */
        int64_t rc, e;
        if (!bsi_mul64(r, c, &rc) || !bsi_mul64(rc, l.ld, &e) || !bytes_fit(e, es))
            return bsi_fail(ctx, BSOLVE_EINVAL,
                            "%s: %s ld = %lld times %lld x %lld entries per system overflows int64 (in bytes)", fn,
                            name, (long long)l.ld, (long long)r, (long long)c);
        return BSOLVE_SUCCESS;
    }
    }
    return bsi_fail(ctx, BSOLVE_EINVAL, "%s: %s layout kind = %d is not a bsolve_layout_kind", fn, name,
                    (int)l.kind);
}

bsolve_status bsi_check_tlayout(bsolve_ctx *ctx, const char *fn, const char *name, bsolve_tlayout l, int64_t m,
                                int64_t cols, int64_t batch, size_t es)
{
    switch (l.kind) {
    case BSOLVE_TCONTIGUOUS: {
        if (l.ld < m)
            return bsi_fail(ctx, BSOLVE_EINVAL, "%s: %s ld = %lld must be >= m = %lld for the contiguous layout", fn,
                            name, (long long)l.ld, (long long)m);
        if (l.stride < 0)
            return bsi_fail(ctx, BSOLVE_EINVAL, "%s: %s stride = %lld must be >= 0", fn, name, (long long)l.stride);
        /* a system spans ld * (cols - 1) + m entries */
        int64_t span;
        const int span_ok = bsi_mul64(l.ld, cols - 1, &span) && bsi_add64(span, m, &span);
        if (batch > 1 && !span_ok)
            return bsi_fail(ctx, BSOLVE_EINVAL,
                            "%s: %s stride must be >= ld * (columns - 1) + m, but ld = %lld times %lld columns "
                            "overflows int64",
                            fn, name, (long long)l.ld, (long long)(cols - 1));
        if (batch > 1 && l.stride < span)
            return bsi_fail(ctx, BSOLVE_EINVAL,
                            "%s: %s stride = %lld must be >= %lld (ld * (columns - 1) + m) so that systems do not "
                            "overlap",
                            fn, name, (long long)l.stride, (long long)span);
        if (batch == 0) return BSOLVE_SUCCESS;
        int64_t a, e;
        if (!bsi_mul64(batch - 1, l.stride, &a))
            return bsi_fail(ctx, BSOLVE_EINVAL,
                            "%s: %s stride = %lld times batch - 1 = %lld overflows int64: the batch cannot be "
                            "addressed",
                            fn, name, (long long)l.stride, (long long)(batch - 1));
        if (!span_ok || !bsi_add64(a, span, &e) || !bytes_fit(e, es))
            return bsi_fail(ctx, BSOLVE_EINVAL,
                            "%s: %s ld = %lld, stride = %lld, batch = %lld: the last entry's byte offset "
                            "overflows int64",
                            fn, name, (long long)l.ld, (long long)l.stride, (long long)batch);
        return BSOLVE_SUCCESS;
    }
    case BSOLVE_TINTERLEAVED: {
        if (l.ld < batch || l.ld < 1)
            return bsi_fail(ctx, BSOLVE_EINVAL,
                            "%s: %s ld = %lld must be >= batch = %lld (and >= 1) for the interleaved layout", fn,
                            name, (long long)l.ld, (long long)batch);
        if (batch == 0) return BSOLVE_SUCCESS;
        /* cols*m*ld bounds the extent (cols*m - 1)*ld + batch and the
         * backends' column step m*ld */
        int64_t mc, e;
        if (!bsi_mul64(m, cols, &mc) || !bsi_mul64(mc, l.ld, &e) || !bytes_fit(e, es))
            return bsi_fail(ctx, BSOLVE_EINVAL,
                            "%s: %s ld = %lld times %lld equations x %lld columns overflows int64 (in bytes)", fn,
                            name, (long long)l.ld, (long long)m, (long long)cols);
        return BSOLVE_SUCCESS;
    }
    }
    return bsi_fail(ctx, BSOLVE_EINVAL, "%s: %s kind = %d is not a bsolve_tlayout_kind", fn, name, (int)l.kind);
}

bsolve_status bsi_check_nrhs(bsolve_ctx *ctx, const char *fn, int64_t nrhs)
{
    if (nrhs < 1 || nrhs > INT32_MAX)
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: nrhs = %lld must be >= 1 and <= %d", fn, (long long)nrhs,
                        INT32_MAX);
    return BSOLVE_SUCCESS;
}

bsolve_status bsi_check_batch(bsolve_ctx *ctx, const char *fn, int64_t batch)
{
    if (batch < 0)
        return bsi_fail(ctx, BSOLVE_EINVAL, "%s: batch = %lld must be >= 0", fn, (long long)batch);
    return BSOLVE_SUCCESS;
}

bsolve_status bsi_check_ptr(bsolve_ctx *ctx, const char *fn, const char *name, const void *p)
{
    return p ? BSOLVE_SUCCESS : bsi_fail(ctx, BSOLVE_ENULL, "%s: %s is NULL", fn, name);
}

/* Every backend pads a factorization's batch to a multiple of at most this
 * many systems (CPU super-tiles of 64 floats, CUDA's 32). */
#define BSI_PAD_SYSTEMS 256

bsolve_status bsi_check_storage(bsolve_ctx *ctx, const char *fn, int64_t batch, int64_t per, const char *what)
{
    int64_t padded, bytes;
    if (!bsi_add64(batch, BSI_PAD_SYSTEMS - 1, &padded) || !bsi_mul64(padded, per, &bytes))
        return bsi_fail(ctx, BSOLVE_EINVAL,
                        "%s: batch = %lld systems %s need more than INT64_MAX bytes of factors", fn,
                        (long long)batch, what);
    return BSOLVE_SUCCESS;
}
