/*
 * test_rhsblock.c -- many right-hand sides: solved in blocks of columns
 * (src/block.h) with memory that does not grow with nrhs, and with the
 * answer of a single pass.
 *
 *   t_many_*      one system (n = 1, 2; gels m = 2, n = 1; gtsv m = 2) with
 *                 3 million right-hand sides on the backend under test,
 *                 every entry of the solution checked against its exact
 *                 value (or, for the rotations of QR, against the exact
 *                 value within a few ulps); the CPU workspace stays small.
 *   t_blocked_*   blocks forced to 2..7 columns (bsi_test_force) against
 *                 the single pass, bit for bit: B (gaps untouched), info
 *                 with singular systems and NaNs in B in one block only
 *                 (NONFINITE and the NaN fill must reach every block), info
 *                 NULL; on the CPU also the split routines against the
 *                 fused ones (getrf + getrs = gesv, geqrf + geqrs = gels).
 */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* bsi_test_force, BSI_FORCE_RHS_BLOCK, the context's workspace size */

#define MANY 3000000
/* The CPU workspace of a call on one system: a few tiles and blocks of
 * columns, whatever nrhs (it was 24.6 GB for n = 1 before blocking). */
#define WORK_MAX ((size_t)64 << 20)

static double vval(int64_t j, int which) /* integers in [-1000, 1000] */
{
    const uint64_t h = (uint64_t)j * 0x9e3779b97f4a7c15ULL + (uint64_t)which * 0xd1342543de82ef95ULL;
    return (double)(int64_t)((h >> 33) % 2001) - 1000;
}

static void *rl(bsolve_precision p, size_t n) { return malloc(n * (p == BSOLVE_PREC_D ? 8 : 4)); }
static double rget(bsolve_precision p, const void *x, int64_t o)
{
    return p == BSOLVE_PREC_D ? ((const double *)x)[o] : ((const float *)x)[o];
}
static void rset(bsolve_precision p, void *x, int64_t o, double v)
{
    if (p == BSOLVE_PREC_D) ((double *)x)[o] = v;
    else ((float *)x)[o] = (float)v;
}

static void check_work(bsolve_ctx *ctx, const char *what)
{
    ck_assert_msg(ctx->work_bytes <= WORK_MAX, "%s: the CPU workspace grew to %zu bytes", what, ctx->work_bytes);
}

/* x = v (exact) from B = A v for n = 1 (A = 2) and n = 2 (A = [1 2; 4 0],
 * which partial pivoting swaps; every multiplier and pivot a power of two). */
static void make_b(bsolve_precision p, int n, bsolve_layout lb, int64_t nrhs, void *B)
{
    for (int64_t j = 0; j < nrhs; j++) {
        const double v0 = vval(j, 0), v1 = vval(j, 1);
        if (n == 1) {
            rset(p, B, tl_off(lb, 1, 0, j, 0), 2 * v0);
        } else {
            rset(p, B, tl_off(lb, 2, 0, j, 0), v0 + 2 * v1);
            rset(p, B, tl_off(lb, 2, 1, j, 0), 4 * v0);
        }
    }
}

static void check_x(bsolve_precision p, int n, bsolve_layout lb, int64_t nrhs, const void *B, const char *what)
{
    for (int64_t j = 0; j < nrhs; j++)
        for (int i = 0; i < n; i++) {
            const double x = rget(p, B, tl_off(lb, n, i, j, 0)), want = vval(j, i);
            TL_EXPECT(x == want, "%s: x(%d, %lld) = %.17g, expected %.17g", what, i, (long long)j, x, want);
        }
}

START_TEST(t_many_lu)
{
    bsolve_ctx *ctx = tl_ctx();
    static const double A1[1] = {2}, A2[4] = {1, 4, 2, 0};
    for (int t = 0; t < 5; t++) {
        /* gesv n = 1, 2 (d), gesv n = 2 (s), getrs n = 1, 2 (d) */
        const int n = t == 0 || t == 3 ? 1 : 2, use_getrs = t >= 3;
        const bsolve_precision p = t == 2 ? BSOLVE_PREC_S : BSOLVE_PREC_D;
        const int64_t nrhs = MANY;
        const bsolve_layout lb = t % 3 == 0   ? bsolve_layout_col_major(n, n * nrhs)
                                 : t % 3 == 1 ? bsolve_layout_row_major(nrhs, n * nrhs)
                                              : bsolve_layout_interleaved(1);
        void *A = rl(p, 4), *B = rl(p, (size_t)n * nrhs);
        for (int e = 0; e < n * n; e++) rset(p, A, e, n == 1 ? A1[e] : A2[e]);
        make_b(p, n, lb, nrhs, B);
        int32_t info[3] = {TL_I32_POISON, TL_I32_POISON, TL_I32_POISON};
        char what[96];
        snprintf(what, sizeof what, "%s%s n = %d, nrhs = %lld, %s B", tl_prec_name(p), use_getrs ? "getrs" : "gesv",
                 n, (long long)nrhs, tl_kind_name(lb.kind));
        bsolve_status st;
        if (use_getrs) {
            bsolve_lu *lu = NULL;
            ck_assert_int_eq(bsolve_lu_create(ctx, p, BSOLVE_PIVOT_PARTIAL, n, 1, &lu), BSOLVE_SUCCESS);
            ck_assert_int_eq(tl_getrf(ctx, p, A, bsolve_layout_col_major(n, n * n), lu, info + 1), BSOLVE_SUCCESS);
            ck_assert_int_eq(info[1], 0);
            info[1] = TL_I32_POISON;
            st = tl_getrs(ctx, p, lu, nrhs, B, lb, info + 1);
            bsolve_lu_destroy(lu);
        } else {
            st = tl_gesv(ctx, p, BSOLVE_PIVOT_PARTIAL, n, nrhs, 1, A, bsolve_layout_col_major(n, n * n), B, lb,
                         info + 1);
        }
        ck_assert_msg(st == BSOLVE_SUCCESS, "%s: %s (%s)", what, tl_status_name(st), bsolve_ctx_message(ctx));
        ck_assert_msg(info[1] == 0 && info[0] == TL_I32_POISON && info[2] == TL_I32_POISON, "%s: info %d %d %d",
                      what, info[0], info[1], info[2]);
        check_x(p, n, lb, nrhs, B, what);
        check_work(ctx, what);
        TL_CLEAN("%s", what);
        free(A);
        free(B);
    }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* min ||[3; 4] x - b||: x = (3 b0 + 4 b1) / 25, residual entry +-(4 b0 - 3 b1) / 5,
 * through rotations of c = 3/5, s = 4/5 (rounded): a few ulps off. */
START_TEST(t_many_qr)
{
    bsolve_ctx *ctx = tl_ctx();
    for (int t = 0; t < 2; t++) {
        const int64_t nrhs = MANY;
        const bsolve_layout lb = t ? bsolve_layout_row_major(nrhs, 2 * nrhs) : bsolve_layout_col_major(2, 2 * nrhs);
        double A[2] = {3, 4}, *B = malloc(sizeof(double) * 2 * nrhs);
        for (int64_t j = 0; j < nrhs; j++) {
            B[tl_off(lb, 2, 0, j, 0)] = vval(j, 0);
            B[tl_off(lb, 2, 1, j, 0)] = vval(j, 1);
        }
        int32_t info[3] = {TL_I32_POISON, TL_I32_POISON, TL_I32_POISON};
        bsolve_status st;
        if (t) {
            bsolve_qr *qr = NULL;
            ck_assert_int_eq(bsolve_qr_create(ctx, BSOLVE_PREC_D, 2, 1, 1, &qr), BSOLVE_SUCCESS);
            ck_assert_int_eq(bsolve_dgeqrf(ctx, A, bsolve_layout_col_major(2, 2), qr, info + 1), BSOLVE_SUCCESS);
            ck_assert_int_eq(info[1], 0);
            info[1] = TL_I32_POISON;
            st = bsolve_dgeqrs(ctx, qr, nrhs, B, lb, info + 1);
            bsolve_qr_destroy(qr);
        } else {
            st = bsolve_dgels(ctx, 2, 1, nrhs, 1, A, bsolve_layout_col_major(2, 2), B, lb, info + 1);
        }
        const char *what = t ? "dgeqrs m = 2, n = 1, row-major B" : "dgels m = 2, n = 1, col-major B";
        ck_assert_msg(st == BSOLVE_SUCCESS, "%s: %s (%s)", what, tl_status_name(st), bsolve_ctx_message(ctx));
        ck_assert_msg(info[1] == 0 && info[0] == TL_I32_POISON && info[2] == TL_I32_POISON, "%s: info", what);
        for (int64_t j = 0; j < nrhs; j++) {
            const double b0 = vval(j, 0), b1 = vval(j, 1), tol = 8 * DBL_EPSILON * (fabs(b0) + fabs(b1));
            const double x = B[tl_off(lb, 2, 0, j, 0)], r = B[tl_off(lb, 2, 1, j, 0)];
            const double xe = (3 * b0 + 4 * b1) / 25, re = (4 * b0 - 3 * b1) / 5;
            TL_EXPECT(fabs(x - xe) <= tol, "%s: x(%lld) = %.17g, expected %.17g", what, (long long)j, x, xe);
            TL_EXPECT(fabs(fabs(r) - fabs(re)) <= tol, "%s: residual(%lld) = %.17g, expected +-%.17g", what,
                      (long long)j, r, re);
        }
        check_work(ctx, what);
        TL_CLEAN("%s, nrhs = %lld", what, (long long)nrhs);
        free(B);
    }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* T = [4 0; 1 2] (d = 4, 2; du = 0; dl = 1): x = v exactly without pivoting
 * (|d0| >= |dl1|, so PARTIAL does not swap either). */
START_TEST(t_many_gtsv)
{
    bsolve_ctx *ctx = tl_ctx();
    const double dl[2] = {0, 1}, d[2] = {4, 2}, du[2] = {0, 0};
    const bsolve_tlayout lt = bsolve_tlayout_contiguous(2, 2);
    for (int t = 0; t < 2; t++) {
        const int64_t nrhs = MANY;
        /* contiguous, ld = 2 / interleaved, ld = 1: the same memory, two code paths */
        const bsolve_tlayout lb = t ? bsolve_tlayout_interleaved(1) : bsolve_tlayout_contiguous(2, 2 * nrhs);
        double *B = malloc(sizeof(double) * 2 * nrhs);
        for (int64_t j = 0; j < nrhs; j++) B[2 * j] = 4 * vval(j, 0), B[2 * j + 1] = vval(j, 0) + 2 * vval(j, 1);
        int32_t info[3] = {TL_I32_POISON, TL_I32_POISON, TL_I32_POISON};
        bsolve_status st;
        if (t) {
            bsolve_gt *gt = NULL;
            ck_assert_int_eq(bsolve_gt_create(ctx, BSOLVE_PREC_D, BSOLVE_GTSV_THOMAS, 2, 1, &gt), BSOLVE_SUCCESS);
            ck_assert_int_eq(bsolve_dgttrf(ctx, dl, d, du, lt, gt, info + 1), BSOLVE_SUCCESS);
            ck_assert_int_eq(info[1], 0);
            info[1] = TL_I32_POISON;
            st = bsolve_dgttrs(ctx, gt, nrhs, B, lb, info + 1);
            bsolve_gt_destroy(gt);
        } else {
            st = bsolve_dgtsv(ctx, BSOLVE_GTSV_PARTIAL, 2, nrhs, 1, dl, d, du, lt, B, lb, info + 1);
        }
        const char *what = t ? "dgttrs THOMAS m = 2, interleaved B" : "dgtsv PARTIAL m = 2, contiguous B";
        ck_assert_msg(st == BSOLVE_SUCCESS, "%s: %s (%s)", what, tl_status_name(st), bsolve_ctx_message(ctx));
        ck_assert_msg(info[1] == 0 && info[0] == TL_I32_POISON && info[2] == TL_I32_POISON, "%s: info", what);
        for (int64_t j = 0; j < nrhs; j++)
            for (int i = 0; i < 2; i++)
                TL_EXPECT(B[2 * j + i] == vval(j, i), "%s: x(%d, %lld) = %.17g, expected %.17g", what, i,
                          (long long)j, B[2 * j + i], vval(j, i));
        check_work(ctx, what);
        TL_CLEAN("%s, nrhs = %lld", what, (long long)nrhs);
        free(B);
    }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* ---- forced blocks against one pass --------------------------------------------- */

#define FB_BATCH 37
#define FB_NRHS 29

/* Entries of two B buffers: equal bits, or both NaN; row tol_row (>= 0) only
 * within tol relative (the CUDA QR kernels sum a residual norm in an order
 * that depends on how many right-hand sides one pass holds). */
static void same_b_tol(const tl_buf *x, const tl_buf *y, const char *what, int64_t tol_row, double tol)
{
    for (int64_t k = 0; k < x->batch; k++)
        for (int64_t j = 0; j < x->c; j++)
            for (int64_t i = 0; i < x->r; i++) {
                const double a = tl_buf_get(x, i, j, k), b = tl_buf_get(y, i, j, k);
                TL_EXPECT((isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0 ||
                              (i == tol_row && fabs(a - b) <= tol * fabs(b)),
                          "%s: system %lld entry (%lld, %lld): %.17g, one pass %.17g", what, (long long)k,
                          (long long)i, (long long)j, a, b);
            }
    char where[160];
    tl_buf *xx = (tl_buf *)x;
    TL_EXPECT(tl_buf_bad_padding(xx, where, sizeof where) == 0, "%s: gaps written (%s)", what, where);
}

static void same_b(const tl_buf *x, const tl_buf *y, const char *what) { same_b_tol(x, y, what, -1, 0); }

static void same_info(const int32_t *a, const int32_t *b, const char *what)
{
    for (int k = 0; k < FB_BATCH; k++)
        TL_EXPECT(a[k] == b[k], "%s: info[%d] = %d, one pass %d", what, k, a[k], b[k]);
}

/* B with NaNs in single columns of a few systems (column 0, the last, one in
 * the middle), so that blocks disagree. */
static void fill_b(tl_buf *b, tl_rng *r)
{
    for (int64_t k = 0; k < b->batch; k++)
        for (int64_t j = 0; j < b->c; j++)
            for (int64_t i = 0; i < b->r; i++) tl_buf_set(b, i, j, k, tl_rng_uniform(r));
    tl_buf_set(b, 0, b->c - 1, 5, NAN);
    tl_buf_set(b, b->r - 1, 0, 9, INFINITY);
    tl_buf_set(b, 0, b->c / 2, 17, NAN);
    tl_buf_set(b, b->r / 2, 3, 20, -INFINITY);
}

START_TEST(t_blocked_lu)
{
    bsolve_ctx *ctx = tl_ctx();
    tl_rng r;
    tl_rng_seed(&r, tl_seed(3401, (uint64_t)_i));
    const int n = _i % 2 ? 8 : 3;
    const bsolve_precision p = _i % 4 < 2 ? BSOLVE_PREC_D : BSOLVE_PREC_S;
    const bsolve_pivot pv = (bsolve_pivot)(1 + _i % 2);
    const bsolve_layout_kind kind = (bsolve_layout_kind)(_i % 3);
    tl_buf A, B0, B1, B2, B3;
    tl_buf_alloc(&A, p, tl_layout(BSOLVE_COL_MAJOR, 0, n, n, FB_BATCH), n, n, FB_BATCH, 0);
    double *m = malloc(sizeof(double) * n * n);
    for (int k = 0; k < FB_BATCH; k++) {
        tl_gen_matrix(&r, TL_FAM_RANDOM, n, m);
        if (k == 11 || k == 17)
            for (int i = 0; i < n; i++) m[i + 1 * n] = 0; /* singular: info 2 (NONFINITE wins for 17) */
        if (k == 13) m[n - 1] = NAN;
        tl_buf_put(&A, k, m);
    }
    free(m);
    tl_buf_alloc(&B0, p, tl_layout(kind, 1, n, FB_NRHS, FB_BATCH), n, FB_NRHS, FB_BATCH, 1);
    fill_b(&B0, &r);
    tl_buf_clone(&B0, &B1);
    tl_buf_clone(&B0, &B2);
    tl_buf_clone(&B0, &B3);
    int32_t i0[FB_BATCH], i1[FB_BATCH], i2[FB_BATCH], fi[FB_BATCH];
    bsolve_status st = tl_gesv(ctx, p, pv, n, FB_NRHS, FB_BATCH, A.data, A.lay, B0.data, B0.lay, i0);
    ck_assert_msg(st == BSOLVE_SUCCESS, "one pass: %s", bsolve_ctx_message(ctx));
    ck_assert_msg(i0[5] == BSOLVE_INFO_NONFINITE && i0[11] > 0 && i0[13] == BSOLVE_INFO_NONFINITE &&
                      i0[17] == BSOLVE_INFO_NONFINITE && i0[0] == 0,
                  "one pass: info %d %d %d %d", i0[5], i0[11], i0[13], i0[17]);
    const int nb = 2 + _i % 6;
    ck_assert_int_eq(bsi_test_force(ctx, BSI_FORCE_RHS_BLOCK, nb), BSOLVE_SUCCESS);
    char what[128];
    snprintf(what, sizeof what, "%sgesv n = %d %s, %s B, blocks of %d..%d columns", tl_prec_name(p), n,
             tl_pivot_name(pv), tl_kind_name(kind), nb, 2 * nb - 1);
    st = tl_gesv(ctx, p, pv, n, FB_NRHS, FB_BATCH, A.data, A.lay, B1.data, B1.lay, i1);
    ck_assert_msg(st == BSOLVE_SUCCESS, "%s: %s", what, bsolve_ctx_message(ctx));
    same_b(&B1, &B0, what);
    same_info(i1, i0, what);
    /* getrs in blocks (info given, and NULL) against getrs in one pass; on
     * the CPU, getrf + getrs also against gesv, bit for bit (the CUDA
     * backend's split-against-fused contract is the LU helper's) */
    bsolve_lu *lu = NULL;
    ck_assert_int_eq(bsolve_lu_create(ctx, p, pv, n, FB_BATCH, &lu), BSOLVE_SUCCESS);
    ck_assert_int_eq(tl_getrf(ctx, p, A.data, A.lay, lu, fi), BSOLVE_SUCCESS);
    tl_buf B4;
    tl_buf_clone(&B3, &B4); /* B3 still holds the input */
    int32_t i4[FB_BATCH];
    st = tl_getrs(ctx, p, lu, FB_NRHS, B2.data, B2.lay, i2);
    ck_assert_msg(st == BSOLVE_SUCCESS, "getrs: %s", bsolve_ctx_message(ctx));
    st = tl_getrs(ctx, p, lu, FB_NRHS, B3.data, B3.lay, NULL);
    ck_assert_msg(st == BSOLVE_SUCCESS, "getrs, info NULL: %s", bsolve_ctx_message(ctx));
    ck_assert_int_eq(bsi_test_force(ctx, BSI_FORCE_RHS_BLOCK, 0), BSOLVE_SUCCESS);
    st = tl_getrs(ctx, p, lu, FB_NRHS, B4.data, B4.lay, i4);
    ck_assert_msg(st == BSOLVE_SUCCESS, "getrs one pass: %s", bsolve_ctx_message(ctx));
    char w2[224];
    snprintf(w2, sizeof w2, "%s: getrs in blocks against one pass", what);
    same_b(&B2, &B4, w2);
    same_info(i2, i4, w2);
    snprintf(w2, sizeof w2, "%s: getrs in blocks, info NULL", what);
    same_b(&B3, &B4, w2);
    if (bsolve_ctx_backend(ctx) == BSOLVE_BACKEND_CPU) {
        snprintf(w2, sizeof w2, "%s: getrf + getrs against gesv", what);
        same_b(&B4, &B0, w2);
        same_info(i4, i0, w2);
    }
    TL_CLEAN("%s", what);
    bsolve_lu_destroy(lu);
    tl_buf_free(&B4);
    tl_buf_free(&A);
    tl_buf_free(&B0);
    tl_buf_free(&B1);
    tl_buf_free(&B2);
    tl_buf_free(&B3);
    bsolve_ctx_destroy(ctx);
}
END_TEST

START_TEST(t_blocked_qr)
{
    bsolve_ctx *ctx = tl_ctx();
    tl_rng r;
    tl_rng_seed(&r, tl_seed(3402, (uint64_t)_i));
    const int m = _i % 2 ? 7 : 12, n = _i % 2 ? 4 : 12;
    const bsolve_precision p = _i % 4 < 2 ? BSOLVE_PREC_D : BSOLVE_PREC_S;
    const bsolve_layout_kind kind = (bsolve_layout_kind)(_i % 3);
    tl_buf A, B0, B1, B2, B3;
    tl_buf_alloc(&A, p, tl_layout(BSOLVE_ROW_MAJOR, 1, m, n, FB_BATCH), m, n, FB_BATCH, 0);
    for (int k = 0; k < FB_BATCH; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++)
                tl_buf_set(&A, i, j, k, (k == 11 || k == 17) && j == 1 ? 0 : tl_rng_uniform(&r));
    tl_buf_set(&A, m - 1, n - 1, 13, NAN);
    tl_buf_alloc(&B0, p, tl_layout(kind, 1, m, FB_NRHS, FB_BATCH), m, FB_NRHS, FB_BATCH, 1);
    fill_b(&B0, &r);
    tl_buf_clone(&B0, &B1);
    tl_buf_clone(&B0, &B2);
    tl_buf_clone(&B0, &B3);
    int32_t i0[FB_BATCH], i1[FB_BATCH], i2[FB_BATCH], fi[FB_BATCH];
#define GELS(B, INFO)                                                                                           \
    (p == BSOLVE_PREC_D ? bsolve_dgels(ctx, m, n, FB_NRHS, FB_BATCH, A.data, A.lay, (B).data, (B).lay, INFO)     \
                        : bsolve_sgels(ctx, m, n, FB_NRHS, FB_BATCH, A.data, A.lay, (B).data, (B).lay, INFO))
#define GEQRS(B, INFO)                                                                                          \
    (p == BSOLVE_PREC_D ? bsolve_dgeqrs(ctx, qr, FB_NRHS, (B).data, (B).lay, INFO)                             \
                        : bsolve_sgeqrs(ctx, qr, FB_NRHS, (B).data, (B).lay, INFO))
    ck_assert_msg(GELS(B0, i0) == BSOLVE_SUCCESS, "one pass: %s", bsolve_ctx_message(ctx));
    ck_assert_msg(i0[5] == BSOLVE_INFO_NONFINITE && i0[11] == 2 && i0[13] == BSOLVE_INFO_NONFINITE &&
                      i0[17] == BSOLVE_INFO_NONFINITE && i0[0] == 0,
                  "one pass: info %d %d %d %d", i0[5], i0[11], i0[13], i0[17]);
    const int nb = 2 + _i % 6;
    ck_assert_int_eq(bsi_test_force(ctx, BSI_FORCE_RHS_BLOCK, nb), BSOLVE_SUCCESS);
    char what[128], w2[224];
    snprintf(what, sizeof what, "%sgels %d x %d, %s B, blocks of %d..%d columns", tl_prec_name(p), m, n,
             tl_kind_name(kind), nb, 2 * nb - 1);
    const int cuda = bsolve_ctx_backend(ctx) == BSOLVE_BACKEND_CUDA;
    const int64_t qtail = cuda && m > n ? n : -1;
    const double qtol = 4 * (p == BSOLVE_PREC_D ? DBL_EPSILON : FLT_EPSILON);
    ck_assert_msg(GELS(B1, i1) == BSOLVE_SUCCESS, "%s: %s", what, bsolve_ctx_message(ctx));
    same_b_tol(&B1, &B0, what, qtail, qtol);
    same_info(i1, i0, what);
    bsolve_qr *qr = NULL;
    ck_assert_int_eq(bsolve_qr_create(ctx, p, m, n, FB_BATCH, &qr), BSOLVE_SUCCESS);
    ck_assert_int_eq(p == BSOLVE_PREC_D ? bsolve_dgeqrf(ctx, A.data, A.lay, qr, fi)
                                        : bsolve_sgeqrf(ctx, A.data, A.lay, qr, fi),
                     BSOLVE_SUCCESS);
    /* geqrs in blocks against one pass; on the CPU also against gels */
    tl_buf B4;
    tl_buf_clone(&B3, &B4);
    int32_t i4[FB_BATCH];
    ck_assert_msg(GEQRS(B2, i2) == BSOLVE_SUCCESS, "geqrs: %s", bsolve_ctx_message(ctx));
    ck_assert_msg(GEQRS(B3, NULL) == BSOLVE_SUCCESS, "geqrs, info NULL: %s", bsolve_ctx_message(ctx));
    ck_assert_int_eq(bsi_test_force(ctx, BSI_FORCE_RHS_BLOCK, 0), BSOLVE_SUCCESS);
    ck_assert_msg(GEQRS(B4, i4) == BSOLVE_SUCCESS, "geqrs one pass: %s", bsolve_ctx_message(ctx));
    snprintf(w2, sizeof w2, "%s: geqrs in blocks against one pass", what);
    same_b_tol(&B2, &B4, w2, qtail, qtol);
    same_info(i2, i4, w2);
    snprintf(w2, sizeof w2, "%s: geqrs in blocks, info NULL", what);
    same_b_tol(&B3, &B4, w2, qtail, qtol);
    if (bsolve_ctx_backend(ctx) == BSOLVE_BACKEND_CPU) {
        snprintf(w2, sizeof w2, "%s: geqrf + geqrs against gels", what);
        same_b(&B4, &B0, w2);
        same_info(i4, i0, w2);
    }
#undef GELS
#undef GEQRS
    TL_CLEAN("%s", what);
    bsolve_qr_destroy(qr);
    tl_buf_free(&B4);
    tl_buf_free(&A);
    tl_buf_free(&B0);
    tl_buf_free(&B1);
    tl_buf_free(&B2);
    tl_buf_free(&B3);
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* tl_buf layouts stand for the tridiagonal ones: TCONTIGUOUS(ld, stride)
 * indexes as COL_MAJOR(ld, stride), TINTERLEAVED(ld) as INTERLEAVED(ld). */
static bsolve_tlayout tlay(bsolve_layout l)
{
    return l.kind == BSOLVE_INTERLEAVED ? bsolve_tlayout_interleaved(l.ld) : bsolve_tlayout_contiguous(l.ld, l.stride);
}

START_TEST(t_blocked_gtsv)
{
    bsolve_ctx *ctx = tl_ctx();
    tl_rng r;
    tl_rng_seed(&r, tl_seed(3403, (uint64_t)_i));
    const int m = _i % 2 ? 9 : 40;
    const bsolve_precision p = _i % 4 < 2 ? BSOLVE_PREC_D : BSOLVE_PREC_S;
    const bsolve_gtsv_method me = (bsolve_gtsv_method)(_i % 3);
    const bsolve_layout_kind kind = _i % 5 < 2 ? BSOLVE_INTERLEAVED : BSOLVE_COL_MAJOR;
    tl_buf D[3], B0, B1, B2, B3;
    for (int q = 0; q < 3; q++) {
        tl_buf_alloc(&D[q], p, tl_layout(kind, 1, m, 1, FB_BATCH), m, 1, FB_BATCH, 0);
        for (int k = 0; k < FB_BATCH; k++)
            for (int i = 0; i < m; i++) {
                double v = tl_rng_uniform(&r);
                if (q == 1) v += me == BSOLVE_GTSV_THOMAS ? 3 : 0; /* THOMAS: diagonally dominant */
                /* column 1 of T zero (du[0], d[1], dl[2]): singular */
                if ((k == 11 || k == 17) && ((q == 0 && i == 2) || (q == 1 && i == 1) || (q == 2 && i == 0))) v = 0;
                tl_buf_set(&D[q], i, 0, k, v);
            }
    }
    tl_buf_set(&D[1], m - 1, 0, 13, NAN);
    tl_buf_alloc(&B0, p, tl_layout(kind, 1, m, FB_NRHS, FB_BATCH), m, FB_NRHS, FB_BATCH, 1);
    fill_b(&B0, &r);
    tl_buf_clone(&B0, &B1);
    tl_buf_clone(&B0, &B2);
    tl_buf_clone(&B0, &B3);
    const bsolve_tlayout lt = tlay(D[0].lay), lb = tlay(B0.lay);
    int32_t i0[FB_BATCH], i1[FB_BATCH], i2[FB_BATCH], fi[FB_BATCH];
#define GTSV(B, INFO)                                                                                           \
    (p == BSOLVE_PREC_D ? bsolve_dgtsv(ctx, me, m, FB_NRHS, FB_BATCH, D[0].data, D[1].data, D[2].data, lt,        \
                                       (B).data, lb, INFO)                                                       \
                        : bsolve_sgtsv(ctx, me, m, FB_NRHS, FB_BATCH, D[0].data, D[1].data, D[2].data, lt,        \
                                       (B).data, lb, INFO))
#define GTTRS(B, INFO)                                                                                          \
    (p == BSOLVE_PREC_D ? bsolve_dgttrs(ctx, gt, FB_NRHS, (B).data, lb, INFO)                                  \
                        : bsolve_sgttrs(ctx, gt, FB_NRHS, (B).data, lb, INFO))
    ck_assert_msg(GTSV(B0, i0) == BSOLVE_SUCCESS, "one pass: %s", bsolve_ctx_message(ctx));
    ck_assert_msg(i0[5] == BSOLVE_INFO_NONFINITE && i0[11] > 0 && i0[13] == BSOLVE_INFO_NONFINITE &&
                      i0[17] == BSOLVE_INFO_NONFINITE,
                  "one pass: info %d %d %d %d", i0[5], i0[11], i0[13], i0[17]);
    const int nb = 2 + _i % 6;
    ck_assert_int_eq(bsi_test_force(ctx, BSI_FORCE_RHS_BLOCK, nb), BSOLVE_SUCCESS);
    char what[128], w2[224];
    snprintf(what, sizeof what, "%sgtsv m = %d method %d, %s, blocks of %d..%d columns", tl_prec_name(p), m, (int)me,
             tl_kind_name(kind), nb, 2 * nb - 1);
    ck_assert_msg(GTSV(B1, i1) == BSOLVE_SUCCESS, "%s: %s", what, bsolve_ctx_message(ctx));
    same_b(&B1, &B0, what);
    same_info(i1, i0, what);
    bsolve_gt *gt = NULL;
    ck_assert_int_eq(bsolve_gt_create(ctx, p, me, m, FB_BATCH, &gt), BSOLVE_SUCCESS);
    ck_assert_int_eq(p == BSOLVE_PREC_D ? bsolve_dgttrf(ctx, D[0].data, D[1].data, D[2].data, lt, gt, fi)
                                        : bsolve_sgttrf(ctx, D[0].data, D[1].data, D[2].data, lt, gt, fi),
                     BSOLVE_SUCCESS);
    /* gttrs in blocks (info given, and NULL) against gttrs in one pass */
    tl_buf B4;
    tl_buf_clone(&B3, &B4); /* B3 still holds the input */
    int32_t i4[FB_BATCH];
    ck_assert_msg(GTTRS(B2, i2) == BSOLVE_SUCCESS, "gttrs: %s", bsolve_ctx_message(ctx));
    ck_assert_msg(GTTRS(B3, NULL) == BSOLVE_SUCCESS, "gttrs, info NULL: %s", bsolve_ctx_message(ctx));
    ck_assert_int_eq(bsi_test_force(ctx, BSI_FORCE_RHS_BLOCK, 0), BSOLVE_SUCCESS);
    ck_assert_msg(GTTRS(B4, i4) == BSOLVE_SUCCESS, "gttrs one pass: %s", bsolve_ctx_message(ctx));
    snprintf(w2, sizeof w2, "%s: gttrs in blocks against one pass", what);
    same_b(&B2, &B4, w2);
    same_info(i2, i4, w2);
    snprintf(w2, sizeof w2, "%s: gttrs in blocks, info NULL", what);
    same_b(&B3, &B4, w2);
#undef GTSV
#undef GTTRS
    TL_CLEAN("%s", what);
    bsolve_gt_destroy(gt);
    for (int q = 0; q < 3; q++) tl_buf_free(&D[q]);
    tl_buf_free(&B0);
    tl_buf_free(&B1);
    tl_buf_free(&B2);
    tl_buf_free(&B3);
    tl_buf_free(&B4);
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* Convert in blocks: a matrix larger than a block (here 40000 x 3 and
 * 3 x 40000 doubles) comes out bit for bit. */
START_TEST(t_convert_large)
{
    bsolve_ctx *ctx = tl_ctx();
    tl_rng r;
    tl_rng_seed(&r, tl_seed(3404, (uint64_t)_i));
    const int64_t rr = _i % 2 ? 40000 : 3, cc = _i % 2 ? 3 : 40000, batch = 3;
    const bsolve_precision p = _i < 2 ? BSOLVE_PREC_D : BSOLVE_PREC_S;
    for (int ks = 0; ks < 3; ks++)
        for (int kd = 0; kd < 3; kd++) {
            tl_buf S, D;
            tl_buf_alloc(&S, p, tl_layout((bsolve_layout_kind)ks, 1, rr, cc, batch), rr, cc, batch, 0);
            tl_buf_alloc(&D, p, tl_layout((bsolve_layout_kind)kd, 1, rr, cc, batch), rr, cc, batch, 1);
            for (int64_t k = 0; k < batch; k++)
                for (int64_t j = 0; j < cc; j++)
                    for (int64_t i = 0; i < rr; i++) tl_buf_set(&S, i, j, k, tl_rng_uniform(&r));
            const bsolve_status st = tl_convert(ctx, p, rr, cc, batch, S.data, S.lay, D.data, D.lay);
            ck_assert_msg(st == BSOLVE_SUCCESS, "convert: %s", bsolve_ctx_message(ctx));
            char what[96];
            snprintf(what, sizeof what, "%sconvert %lld x %lld, %s -> %s", tl_prec_name(p), (long long)rr,
                     (long long)cc, tl_kind_name(S.lay.kind), tl_kind_name(D.lay.kind));
            same_b(&D, &S, what);
            check_work(ctx, what);
            TL_CLEAN("%s", what);
            tl_buf_free(&S);
            tl_buf_free(&D);
        }
    bsolve_ctx_destroy(ctx);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("rhsblock");
    TCase *tc = tl_tcase("many right-hand sides");
    tcase_add_test(tc, t_many_lu);
    tcase_add_test(tc, t_many_qr);
    tcase_add_test(tc, t_many_gtsv);
    suite_add_tcase(s, tc);
    tc = tl_tcase("blocks against one pass");
    tcase_add_loop_test(tc, t_blocked_lu, 0, 8);
    tcase_add_loop_test(tc, t_blocked_qr, 0, 8);
    tcase_add_loop_test(tc, t_blocked_gtsv, 0, 12);
    tcase_add_loop_test(tc, t_convert_large, 0, 4);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tl_main(suite()); }
