/*
 * test_args.c -- argument checking, statuses, messages, contexts, and the
 * layout conversions bsolve_?convert.
 *
 * Every bad argument must return its status, write nothing (B, info, the
 * destination keep their contents), and leave a message that names the
 * argument (checked as a whole word, with alternatives: the message
 * "bsolve_dgesv: A ld = 2 must be >= 3" names A's layout by "A", "la" or
 * "lda").  A successful call resets the message to "".
 */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
/* The huge lu_create requests below must fail with ENOMEM, not abort ASan. */
const char *__asan_default_options(void);
__attribute__((visibility("default"), used)) const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }
#endif

/* words: groups separated by ';', alternatives by '|'; every group must match. */
static void expect_status(bsolve_ctx *ctx, bsolve_status got, bsolve_status want, const char *what,
                          const char *words)
{
    ck_assert_msg(got == want, "%s: status %s (%d), expected %s; message \"%s\"", what,
                  tl_status_name(got), (int)got, tl_status_name(want), ctx ? bsolve_ctx_message(ctx) : "");
    if (!ctx || want == BSOLVE_SUCCESS) return;
    const char *msg = bsolve_ctx_message(ctx);
    ck_assert_msg(msg != NULL && strlen(msg) > 0, "%s: status %s but empty message", what,
                  tl_status_name(got));
    char buf[256];
    snprintf(buf, sizeof buf, "%s", words ? words : "");
    char *save1 = NULL;
    for (char *g = strtok_r(buf, ";", &save1); g; g = strtok_r(NULL, ";", &save1)) {
        char alt[128];
        snprintf(alt, sizeof alt, "%s", g);
        int found = 0;
        char *save2 = NULL;
        for (char *w = strtok_r(alt, "|", &save2); w && !found; w = strtok_r(NULL, "|", &save2))
            found = tl_has_word(msg, w);
        ck_assert_msg(found, "%s: message \"%s\" does not name the argument (expected one of the "
                      "words \"%s\")", what, msg, g);
    }
}

/* ----------------------------------------------------------------- gesv */

#define N 3
#define NRHS 2
#define BATCH 5

typedef struct {
    double A[BATCH * 129 * 129]; /* big enough for every shape tried */
    double B[BATCH * 129 * 8], B0[BATCH * 129 * 8];
    float As[BATCH * N * N], Bs[BATCH * N * NRHS], Bs0[BATCH * N * NRHS];
    int32_t info[BATCH + 4];
} gdata;

static gdata *gd_new(void)
{
    gdata *g = calloc(1, sizeof *g);
    tl_rng r;
    tl_rng_seed(&r, tl_seed(50, 0));
    for (int k = 0; k < BATCH; k++) tl_gen_matrix(&r, TL_FAM_DIAGDOM, N, g->A + k * N * N);
    for (int t = 0; t < BATCH * N * N; t++) g->As[t] = (float)g->A[t];
    tl_gen_uniform(&r, BATCH * N * NRHS, g->B);
    for (int t = 0; t < BATCH * N * NRHS; t++) g->Bs[t] = (float)g->B[t];
    memcpy(g->B0, g->B, sizeof g->B);
    memcpy(g->Bs0, g->Bs, sizeof g->Bs);
    for (int k = 0; k < BATCH + 4; k++) g->info[k] = TL_I32_POISON;
    return g;
}

static void gd_untouched(const gdata *g, const char *what)
{
    ck_assert_msg(memcmp(g->B, g->B0, sizeof g->B) == 0, "%s: a failed call wrote B", what);
    ck_assert_msg(memcmp(g->Bs, g->Bs0, sizeof g->Bs) == 0, "%s: a failed call wrote B", what);
    for (int k = 0; k < BATCH + 4; k++)
        ck_assert_msg(g->info[k] == TL_I32_POISON, "%s: a failed call wrote info[%d]", what, k);
}

/* Calls dgesv and sgesv with the given arguments. */
static void gesv_bad(bsolve_ctx *ctx, gdata *g, bsolve_pivot pv, int64_t n, int64_t nrhs, int64_t batch,
                     int nullA, bsolve_layout la, int nullB, bsolve_layout lb, int nullinfo,
                     bsolve_status want, const char *what, const char *words)
{
    char w[200];
    snprintf(w, sizeof w, "bsolve_dgesv, %s", what);
    bsolve_status st = bsolve_dgesv(ctx, pv, n, nrhs, batch, nullA ? NULL : g->A, la, nullB ? NULL : g->B,
                                    lb, nullinfo ? NULL : g->info);
    expect_status(ctx, st, want, w, words);
    gd_untouched(g, w);
    snprintf(w, sizeof w, "bsolve_sgesv, %s", what);
    st = bsolve_sgesv(ctx, pv, n, nrhs, batch, nullA ? NULL : g->As, la, nullB ? NULL : g->Bs, lb,
                      nullinfo ? NULL : g->info);
    expect_status(ctx, st, want, w, words);
    gd_untouched(g, w);
}

static const char *WA = "A|la|lda", *WB = "B|lb|ldb";

START_TEST(t_gesv_args)
{
    bsolve_ctx *ctx = tl_ctx();
    gdata *g = gd_new();
    const bsolve_pivot P = BSOLVE_PIVOT_PARTIAL;
    bsolve_layout la = bsolve_layout_col_major(N, N * N), lb = bsolve_layout_col_major(N, N * NRHS);
    char words[64];

    /* n */
    gesv_bad(ctx, g, P, 0, NRHS, BATCH, 0, la, 0, lb, 0, BSOLVE_EINVAL, "n = 0", "n");
    gesv_bad(ctx, g, P, -3, NRHS, BATCH, 0, la, 0, lb, 0, BSOLVE_EINVAL, "n = -3", "n");
    gesv_bad(ctx, g, P, 129, NRHS, BATCH, 0, bsolve_layout_col_major(129, 129 * 129), 0,
             bsolve_layout_col_major(129, 129 * NRHS), 0, BSOLVE_EINVAL, "n = 129", "n");
    /* nrhs, batch */
    gesv_bad(ctx, g, P, N, 0, BATCH, 0, la, 0, lb, 0, BSOLVE_EINVAL, "nrhs = 0", "nrhs");
    gesv_bad(ctx, g, P, N, -1, BATCH, 0, la, 0, lb, 0, BSOLVE_EINVAL, "nrhs = -1", "nrhs");
    gesv_bad(ctx, g, P, N, NRHS, -1, 0, la, 0, lb, 0, BSOLVE_EINVAL, "batch = -1", "batch");
    /* pivot */
    gesv_bad(ctx, g, (bsolve_pivot)99, N, NRHS, BATCH, 0, la, 0, lb, 0, BSOLVE_EINVAL, "pivot = 99", "pivot");
    gesv_bad(ctx, g, (bsolve_pivot)-1, N, NRHS, BATCH, 0, la, 0, lb, 0, BSOLVE_EINVAL, "pivot = -1", "pivot");
    /* NULL pointers */
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 1, la, 0, lb, 0, BSOLVE_ENULL, "A = NULL", "A");
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 0, la, 1, lb, 0, BSOLVE_ENULL, "B = NULL", "B");
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 0, la, 0, lb, 1, BSOLVE_ENULL, "info = NULL", "info");
    ck_assert_int_eq(bsolve_dgesv(NULL, P, N, NRHS, BATCH, g->A, la, g->B, lb, g->info), BSOLVE_ENULL);
    ck_assert_int_eq(bsolve_sgesv(NULL, P, N, NRHS, BATCH, g->As, la, g->Bs, lb, g->info), BSOLVE_ENULL);
    gd_untouched(g, "ctx = NULL");

    /* A's layout, every kind's rule (A is n x n) */
    snprintf(words, sizeof words, "%s;ld", WA);
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 0, bsolve_layout_col_major(N - 1, N * N), 0, lb, 0, BSOLVE_EINVAL,
             "col-major A ld = n-1", words);
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 0, bsolve_layout_row_major(N - 1, N * N), 0, lb, 0, BSOLVE_EINVAL,
             "row-major A ld = n-1", words);
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 0, bsolve_layout_col_major(0, N * N), 0, lb, 0, BSOLVE_EINVAL,
             "col-major A ld = 0", words);
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 0, bsolve_layout_col_major(-N, N * N), 0, lb, 0, BSOLVE_EINVAL,
             "col-major A ld = -n", words);
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 0, bsolve_layout_interleaved(BATCH - 1), 0, lb, 0, BSOLVE_EINVAL,
             "interleaved A ld = batch-1", words);
    snprintf(words, sizeof words, "%s;stride", WA);
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 0, bsolve_layout_col_major(N, N * N - 1), 0, lb, 0, BSOLVE_EINVAL,
             "col-major A stride = ld*n-1", words);
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 0, bsolve_layout_col_major(N + 1, (N + 1) * N - 1), 0, lb, 0,
             BSOLVE_EINVAL, "col-major A ld = n+1, stride = ld*n-1", words);
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 0, bsolve_layout_row_major(N + 2, (N + 2) * N - 1), 0, lb, 0,
             BSOLVE_EINVAL, "row-major A ld = n+2, stride = ld*n-1", words);
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 0, bsolve_layout_col_major(N, -1), 0, lb, 0, BSOLVE_EINVAL,
             "col-major A stride = -1", words);
    snprintf(words, sizeof words, "%s", WA);
    bsolve_layout weird = {(bsolve_layout_kind)99, N, N * N};
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 0, weird, 0, lb, 0, BSOLVE_EINVAL, "A layout kind = 99", words);
    weird.kind = (bsolve_layout_kind)-1;
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 0, weird, 0, lb, 0, BSOLVE_EINVAL, "A layout kind = -1", words);

    /* B's layout (B is n x nrhs: col-major ld >= n, row-major ld >= nrhs) */
    snprintf(words, sizeof words, "%s;ld", WB);
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 0, la, 0, bsolve_layout_col_major(N - 1, N * NRHS), 0, BSOLVE_EINVAL,
             "col-major B ld = n-1", words);
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 0, la, 0, bsolve_layout_row_major(NRHS - 1, N * NRHS), 0,
             BSOLVE_EINVAL, "row-major B ld = nrhs-1", words);
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 0, la, 0, bsolve_layout_interleaved(BATCH - 1), 0, BSOLVE_EINVAL,
             "interleaved B ld = batch-1", words);
    snprintf(words, sizeof words, "%s;stride", WB);
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 0, la, 0, bsolve_layout_col_major(N, N * NRHS - 1), 0, BSOLVE_EINVAL,
             "col-major B stride = ld*nrhs-1", words);
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 0, la, 0, bsolve_layout_row_major(NRHS, NRHS * N - 1), 0,
             BSOLVE_EINVAL, "row-major B stride = ld*n-1", words);
    weird.kind = (bsolve_layout_kind)7;
    gesv_bad(ctx, g, P, N, NRHS, BATCH, 0, la, 0, weird, 0, BSOLVE_EINVAL, "B layout kind = 7", WB);

    /* a failure, then a success: the message is "" again */
    ck_assert(strlen(bsolve_ctx_message(ctx)) > 0);
    /* the boundary values are valid: row-major B with ld = nrhs < n, interleaved ld = batch */
    bsolve_status st = bsolve_dgesv(ctx, P, N, NRHS, BATCH, g->A, bsolve_layout_interleaved(BATCH), g->B,
                                    bsolve_layout_row_major(NRHS, N * NRHS), g->info);
    ck_assert_msg(st == BSOLVE_SUCCESS, "row-major B ld = nrhs = %d < n = %d, interleaved A ld = batch: "
                  "%s (%s)", NRHS, N, tl_status_name(st), bsolve_ctx_message(ctx));
    ck_assert_msg(strcmp(bsolve_ctx_message(ctx), "") == 0, "message after success: \"%s\"",
                  bsolve_ctx_message(ctx));
    for (int k = 0; k < BATCH; k++) ck_assert_int_eq(g->info[k], 0);
    ck_assert_msg(memcmp(g->B, g->B0, sizeof(double) * BATCH * N * NRHS) != 0, "B not overwritten");

    /* batch == 1: the stride is not used, and a minimal one is fine */
    st = bsolve_dgesv(ctx, P, N, 1, 1, g->A, bsolve_layout_col_major(N, N * N), g->B,
                      bsolve_layout_col_major(N, N), g->info);
    ck_assert_msg(st == BSOLVE_SUCCESS, "batch 1: %s (%s)", tl_status_name(st), bsolve_ctx_message(ctx));
    free(g);
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* batch == 0 is a valid no-op: nothing read or written. */
START_TEST(t_batch_zero)
{
    bsolve_ctx *ctx = tl_ctx();
    gdata *g = gd_new();
    for (int pv = 0; pv < 3; pv++)
        for (int kind = 0; kind < 3; kind++) {
            bsolve_layout l = tl_layout((bsolve_layout_kind)kind, 0, N, N, 0);
            bsolve_layout lb = tl_layout((bsolve_layout_kind)kind, 0, N, NRHS, 0);
            /* make the message non-empty first */
            bsolve_dgesv(ctx, (bsolve_pivot)pv, -1, NRHS, 0, g->A, l, g->B, lb, g->info);
            bsolve_status st = bsolve_dgesv(ctx, (bsolve_pivot)pv, N, NRHS, 0, g->A, l, g->B, lb, g->info);
            ck_assert_msg(st == BSOLVE_SUCCESS, "dgesv batch=0 pivot %d layout %d: %s (%s)", pv, kind,
                          tl_status_name(st), bsolve_ctx_message(ctx));
            ck_assert_msg(!strcmp(bsolve_ctx_message(ctx), ""), "message after success: \"%s\"",
                          bsolve_ctx_message(ctx));
            st = bsolve_sgesv(ctx, (bsolve_pivot)pv, N, NRHS, 0, g->As, l, g->Bs, lb, g->info);
            ck_assert_msg(st == BSOLVE_SUCCESS, "sgesv batch=0: %s (%s)", tl_status_name(st),
                          bsolve_ctx_message(ctx));
            gd_untouched(g, "batch = 0");
        }
    /* a factorization of 0 systems */
    bsolve_lu *lu = NULL;
    ck_assert_int_eq(bsolve_lu_create(ctx, BSOLVE_PREC_D, BSOLVE_PIVOT_FULL, N, 0, &lu), BSOLVE_SUCCESS);
    ck_assert_int_eq(bsolve_dgetrf(ctx, g->A, bsolve_layout_col_major(N, N * N), lu, g->info), BSOLVE_SUCCESS);
    ck_assert_int_eq(bsolve_dgetrs(ctx, lu, NRHS, g->B, bsolve_layout_col_major(N, N * NRHS), g->info),
                     BSOLVE_SUCCESS);
    gd_untouched(g, "batch = 0 getrf/getrs");
    bsolve_lu_destroy(lu);
    free(g);
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* ----------------------------------------------------------------- lu */

START_TEST(t_lu_args)
{
    bsolve_ctx *ctx = tl_ctx();
    gdata *g = gd_new();
    bsolve_lu *lu = NULL;
    const bsolve_precision D = BSOLVE_PREC_D;
    const bsolve_pivot P = BSOLVE_PIVOT_PARTIAL;
    bsolve_status st;

    st = bsolve_lu_create(ctx, D, P, 0, BATCH, &lu);
    expect_status(ctx, st, BSOLVE_EINVAL, "lu_create n = 0", "n");
    st = bsolve_lu_create(ctx, D, P, 129, BATCH, &lu);
    expect_status(ctx, st, BSOLVE_EINVAL, "lu_create n = 129", "n");
    st = bsolve_lu_create(ctx, D, P, N, -2, &lu);
    expect_status(ctx, st, BSOLVE_EINVAL, "lu_create batch = -2", "batch");
    st = bsolve_lu_create(ctx, D, (bsolve_pivot)99, N, BATCH, &lu);
    expect_status(ctx, st, BSOLVE_EINVAL, "lu_create pivot = 99", "pivot");
    st = bsolve_lu_create(ctx, (bsolve_precision)99, P, N, BATCH, &lu);
    expect_status(ctx, st, BSOLVE_EINVAL, "lu_create prec = 99", "prec|precision");
    st = bsolve_lu_create(ctx, (bsolve_precision)-1, P, N, BATCH, &lu);
    expect_status(ctx, st, BSOLVE_EINVAL, "lu_create prec = -1", "prec|precision");
    st = bsolve_lu_create(ctx, D, P, N, BATCH, NULL);
    expect_status(ctx, st, BSOLVE_ENULL, "lu_create lu = NULL", "lu");
    ck_assert_int_eq(bsolve_lu_create(NULL, D, P, N, BATCH, &lu), BSOLVE_ENULL);
    ck_assert_msg(lu == NULL, "failed lu_create wrote *lu");

    st = bsolve_lu_create(ctx, D, P, N, BATCH, &lu);
    expect_status(ctx, st, BSOLVE_SUCCESS, "lu_create", NULL);
    ck_assert_msg(!strcmp(bsolve_ctx_message(ctx), ""), "message after success: \"%s\"", bsolve_ctx_message(ctx));
    bsolve_layout la = bsolve_layout_col_major(N, N * N), lb = bsolve_layout_col_major(N, N * NRHS);

    /* getrs before any getrf must not read garbage: either refused, or (if
     * accepted) it is undefined; only the refusal is checked when it happens */
    st = bsolve_dgetrf(ctx, NULL, la, lu, g->info);
    expect_status(ctx, st, BSOLVE_ENULL, "dgetrf A = NULL", "A");
    st = bsolve_dgetrf(ctx, g->A, la, NULL, g->info);
    expect_status(ctx, st, BSOLVE_ENULL, "dgetrf lu = NULL", "lu");
    st = bsolve_dgetrf(ctx, g->A, la, lu, NULL);
    expect_status(ctx, st, BSOLVE_ENULL, "dgetrf info = NULL", "info");
    st = bsolve_dgetrf(ctx, g->A, bsolve_layout_col_major(N - 1, N * N), lu, g->info);
    expect_status(ctx, st, BSOLVE_EINVAL, "dgetrf A ld = n-1", "A|la|lda;ld");
    st = bsolve_dgetrf(ctx, g->A, bsolve_layout_interleaved(BATCH - 1), lu, g->info);
    expect_status(ctx, st, BSOLVE_EINVAL, "dgetrf interleaved A ld = batch-1", "A|la|lda;ld");
    st = bsolve_dgetrf(ctx, g->A, bsolve_layout_row_major(N, N * N - 2), lu, g->info);
    expect_status(ctx, st, BSOLVE_EINVAL, "dgetrf row-major A stride = ld*n-2", "A|la|lda;stride");
    ck_assert_int_eq(bsolve_dgetrf(NULL, g->A, la, lu, g->info), BSOLVE_ENULL);
    gd_untouched(g, "failed getrf");

    st = bsolve_dgetrf(ctx, g->A, la, lu, g->info);
    expect_status(ctx, st, BSOLVE_SUCCESS, "dgetrf", NULL);
    for (int k = 0; k < BATCH + 4; k++) g->info[k] = TL_I32_POISON;

    st = bsolve_dgetrs(ctx, lu, 0, g->B, lb, g->info);
    expect_status(ctx, st, BSOLVE_EINVAL, "dgetrs nrhs = 0", "nrhs");
    st = bsolve_dgetrs(ctx, lu, -4, g->B, lb, g->info);
    expect_status(ctx, st, BSOLVE_EINVAL, "dgetrs nrhs = -4", "nrhs");
    st = bsolve_dgetrs(ctx, NULL, NRHS, g->B, lb, g->info);
    expect_status(ctx, st, BSOLVE_ENULL, "dgetrs lu = NULL", "lu");
    st = bsolve_dgetrs(ctx, lu, NRHS, NULL, lb, g->info);
    expect_status(ctx, st, BSOLVE_ENULL, "dgetrs B = NULL", "B");
    st = bsolve_dgetrs(ctx, lu, NRHS, g->B, bsolve_layout_col_major(N - 1, N * NRHS), g->info);
    expect_status(ctx, st, BSOLVE_EINVAL, "dgetrs col-major B ld = n-1", "B|lb|ldb;ld");
    st = bsolve_dgetrs(ctx, lu, NRHS, g->B, bsolve_layout_row_major(NRHS - 1, N * NRHS), g->info);
    expect_status(ctx, st, BSOLVE_EINVAL, "dgetrs row-major B ld = nrhs-1", "B|lb|ldb;ld");
    st = bsolve_dgetrs(ctx, lu, NRHS, g->B, bsolve_layout_col_major(N, N * NRHS - 1), g->info);
    expect_status(ctx, st, BSOLVE_EINVAL, "dgetrs B stride = ld*nrhs-1", "B|lb|ldb;stride");
    bsolve_layout weird = {(bsolve_layout_kind)3, N, N * NRHS};
    st = bsolve_dgetrs(ctx, lu, NRHS, g->B, weird, g->info);
    expect_status(ctx, st, BSOLVE_EINVAL, "dgetrs B layout kind = 3", "B|lb|ldb");
    ck_assert_int_eq(bsolve_dgetrs(NULL, lu, NRHS, g->B, lb, g->info), BSOLVE_ENULL);
    gd_untouched(g, "failed getrs");

    double LU[BATCH * N * N];
    int32_t ipiv[BATCH * N];
    st = bsolve_lu_export(ctx, NULL, LU, la, ipiv, NULL);
    expect_status(ctx, st, BSOLVE_ENULL, "lu_export lu = NULL", "lu");
    st = bsolve_lu_export(ctx, lu, LU, bsolve_layout_col_major(N - 1, N * N), ipiv, NULL);
    expect_status(ctx, st, BSOLVE_EINVAL, "lu_export LU ld = n-1", "LU|l|ld");
    st = bsolve_lu_export(ctx, lu, LU, bsolve_layout_interleaved(BATCH - 1), ipiv, NULL);
    expect_status(ctx, st, BSOLVE_EINVAL, "lu_export interleaved ld = batch-1", "LU|l|ld");
    ck_assert_int_eq(bsolve_lu_export(NULL, lu, LU, la, ipiv, NULL), BSOLVE_ENULL);
    st = bsolve_lu_export(ctx, lu, NULL, la, NULL, NULL);
    expect_status(ctx, st, BSOLVE_SUCCESS, "lu_export with everything NULL", NULL);

    bsolve_lu_destroy(lu);
    free(g);
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* Batches whose storage does not fit in memory (or in size_t): refused
 * with ENOMEM (or EINVAL), never a success with a wrapped-around size. */
START_TEST(t_lu_huge)
{
    bsolve_ctx *ctx = tl_ctx();
    bsolve_lu *lu = NULL;
    bsolve_status st;
    const bsolve_precision D = BSOLVE_PREC_D;
    static const int64_t huge[] = {INT64_C(1) << 60, INT64_C(1) << 57, INT64_MAX / 2, INT64_MAX - 7, INT64_MAX,
                                   INT64_C(1) << 62, (INT64_C(1) << 62) + 8};
    static const int hn[] = {1, 4, 8, 128};
    for (int h = 0; h < 7; h++)
        for (int in = 0; in < 4; in++) {
            const int nn = hn[in];
            lu = NULL;
            st = bsolve_lu_create(ctx, h % 2 ? BSOLVE_PREC_S : D, BSOLVE_PIVOT_FULL, nn, huge[h], &lu);
            ck_assert_msg(st == BSOLVE_ENOMEM || st == BSOLVE_EINVAL,
                          "lu_create(n=%d, batch=%lld): %s, expected ENOMEM (or EINVAL)", nn,
                          (long long)huge[h], tl_status_name(st));
            ck_assert_msg(lu == NULL, "failed lu_create set *lu");
            ck_assert_msg(strlen(bsolve_ctx_message(ctx)) > 0, "lu_create(batch=%lld) failed without a message",
                          (long long)huge[h]);
        }

    bsolve_ctx_destroy(ctx);
}
END_TEST

/* ----------------------------------------------------------------- contexts, strings */

START_TEST(t_contexts)
{
    bsolve_ctx *ctx = NULL;
    bsolve_status st;
    ck_assert_int_eq(bsolve_ctx_create(NULL, BSOLVE_BACKEND_CPU), BSOLVE_ENULL);
    st = bsolve_ctx_create(&ctx, (bsolve_backend)99);
    ck_assert_msg(st == BSOLVE_EINVAL, "ctx_create(backend 99): %s", tl_status_name(st));
    bsolve_ctx_destroy(ctx); /* NULL, or whatever it set */
    ctx = NULL;
    st = bsolve_ctx_create(&ctx, (bsolve_backend)-1);
    ck_assert_msg(st == BSOLVE_EINVAL, "ctx_create(backend -1): %s", tl_status_name(st));
    bsolve_ctx_destroy(ctx);
    ctx = NULL;

    /* CPU */
    ck_assert_int_eq(bsolve_ctx_create(&ctx, BSOLVE_BACKEND_CPU), BSOLVE_SUCCESS);
    ck_assert_int_eq(bsolve_ctx_backend(ctx), BSOLVE_BACKEND_CPU);
    ck_assert_str_eq(bsolve_ctx_message(ctx), "");
    st = bsolve_ctx_set_threads(ctx, -1);
    expect_status(ctx, st, BSOLVE_EINVAL, "set_threads(-1)", "nthreads|threads");
    ck_assert_int_eq(bsolve_ctx_set_threads(ctx, 0), BSOLVE_SUCCESS);
    ck_assert_str_eq(bsolve_ctx_message(ctx), "");
    ck_assert_int_eq(bsolve_ctx_set_threads(ctx, 2), BSOLVE_SUCCESS);
    ck_assert_int_eq(bsolve_ctx_set_threads(NULL, 2), BSOLVE_ENULL);
    st = bsolve_ctx_set_stream(ctx, NULL);
    expect_status(ctx, st, BSOLVE_ENOTSUP, "set_stream on the CPU backend", NULL);
    ck_assert_int_eq(bsolve_ctx_synchronize(ctx), BSOLVE_SUCCESS);
    bsolve_ctx_destroy(ctx);
    bsolve_ctx_destroy(NULL);

    /* CUDA: on a machine (or build) without a GPU, ENODEVICE and *ctx = NULL */
    int have_gpu;
    ctx = (bsolve_ctx *)&have_gpu; /* garbage that must be overwritten */
    st = bsolve_ctx_create(&ctx, BSOLVE_BACKEND_CUDA);
    if (tl_backend() != BSOLVE_BACKEND_CUDA) {
        /* the CPU test runs assume no usable GPU on this machine, unless one is there */
        if (st == BSOLVE_ENODEVICE) {
            ck_assert_msg(ctx == NULL, "ctx_create(CUDA) = ENODEVICE but *ctx was not set to NULL");
        } else {
            ck_assert_msg(st == BSOLVE_SUCCESS && ctx != NULL, "ctx_create(CUDA): %s", tl_status_name(st));
            ck_assert_int_eq(bsolve_ctx_backend(ctx), BSOLVE_BACKEND_CUDA);
        }
    }
    have_gpu = st == BSOLVE_SUCCESS;
    if (st == BSOLVE_SUCCESS) bsolve_ctx_destroy(ctx);

    /* AUTO never fails for want of a GPU and reports the backend it took */
    ctx = NULL;
    st = bsolve_ctx_create(&ctx, BSOLVE_BACKEND_AUTO);
    ck_assert_msg(st == BSOLVE_SUCCESS && ctx, "ctx_create(AUTO): %s", tl_status_name(st));
    bsolve_backend b = bsolve_ctx_backend(ctx);
    ck_assert_msg(b == (have_gpu ? BSOLVE_BACKEND_CUDA : BSOLVE_BACKEND_CPU),
                  "AUTO context runs on backend %d (GPU usable: %d)", (int)b, have_gpu);
    bsolve_ctx_destroy(ctx);

    ck_assert_str_eq(bsolve_backend_name(BSOLVE_BACKEND_AUTO), "auto");
    ck_assert_str_eq(bsolve_backend_name(BSOLVE_BACKEND_CPU), "cpu");
    ck_assert_str_eq(bsolve_backend_name(BSOLVE_BACKEND_CUDA), "cuda");
}
END_TEST

START_TEST(t_strerror)
{
    const char *s[8];
    for (int i = 0; i < 8; i++) {
        s[i] = bsolve_strerror((bsolve_status)i);
        ck_assert_msg(s[i] != NULL && strlen(s[i]) > 0, "strerror(%d) is NULL or empty", i);
        for (int j = 0; j < i; j++)
            ck_assert_msg(strcmp(s[i], s[j]) != 0, "strerror(%d) == strerror(%d) = \"%s\"", i, j, s[i]);
    }
    ck_assert_msg(bsolve_strerror((bsolve_status)99) != NULL, "strerror(99) is NULL");
    ck_assert_msg(bsolve_strerror((bsolve_status)-5) != NULL, "strerror(-5) is NULL");
}
END_TEST

/* ----------------------------------------------------------------- convert */

static void fill_special(tl_buf *b, tl_rng *r)
{
    static const uint64_t dspecial[] = {0x8000000000000000ULL /* -0 */, 0x0000000000000001ULL /* min subnormal */,
                                        0x7ff0000000000000ULL /* inf */, 0xfff0000000000000ULL,
                                        0x7ff8000000012345ULL /* qNaN with payload */, 0x000fffffffffffffULL};
    static const uint32_t sspecial[] = {0x80000000U, 0x00000001U, 0x7f800000U, 0xff800000U, 0x7fc01234U,
                                        0x007fffffU};
    for (int64_t k = 0; k < b->batch; k++)
        for (int64_t j = 0; j < b->c; j++)
            for (int64_t i = 0; i < b->r; i++) {
                int64_t o = tl_off(b->lay, b->r, i, j, k);
                if (tl_rng_unit(r) < 0.05) {
                    int t = (int)tl_rng_int(r, 0, 5);
                    if (b->prec == BSOLVE_PREC_D)
                        memcpy((double *)b->data + o, &dspecial[t], 8);
                    else
                        memcpy((float *)b->data + o, &sspecial[t], 4);
                } else {
                    tl_buf_set(b, i, j, k, tl_rng_uniform(r) * 1e3);
                }
            }
}

/* entries of x and y (same shape, any layouts) bit-identical? */
static int64_t entry_mismatches(const tl_buf *x, const tl_buf *y, char *where, size_t len)
{
    int64_t bad = 0;
    size_t es = x->prec == BSOLVE_PREC_D ? 8 : 4;
    for (int64_t k = 0; k < x->batch; k++)
        for (int64_t j = 0; j < x->c; j++)
            for (int64_t i = 0; i < x->r; i++) {
                const char *p = (const char *)x->data + es * (size_t)tl_off(x->lay, x->r, i, j, k);
                const char *q = (const char *)y->data + es * (size_t)tl_off(y->lay, y->r, i, j, k);
                if (memcmp(p, q, es) != 0 && bad++ == 0)
                    snprintf(where, len, "entry (%lld,%lld) of matrix %lld differs", (long long)i,
                             (long long)j, (long long)k);
            }
    return bad;
}

START_TEST(t_convert_roundtrip)
{
    bsolve_ctx *ctx = tl_ctx();
    static const struct { int64_t r, c, batch; } shapes[] = {{3, 5, 37}, {1, 1, 9}, {7, 2, 1000}, {16, 16, 33},
                                                             {2, 130, 5}, {5, 3, 1}};
    bsolve_layout_kind ks = (bsolve_layout_kind)(_i / 3), kd = (bsolve_layout_kind)(_i % 3);
    for (unsigned si = 0; si < sizeof shapes / sizeof *shapes; si++)
        for (int ip = 0; ip < 2; ip++)
            for (int pad = 0; pad < 2; pad++) {
                int64_t r = shapes[si].r, c = shapes[si].c, batch = shapes[si].batch;
                bsolve_precision p = ip ? BSOLVE_PREC_S : BSOLVE_PREC_D;
                bsolve_layout ls = tl_layout(ks, pad, r, c, batch), ld = tl_layout(kd, !pad, r, c, batch);
                char sls[64], sld[64], desc[256], where[200];
                tl_layout_str(ls, sls, sizeof sls);
                tl_layout_str(ld, sld, sizeof sld);
                snprintf(desc, sizeof desc, "%sconvert %lldx%lld batch=%lld %s -> %s", tl_prec_name(p),
                         (long long)r, (long long)c, (long long)batch, sls, sld);
                tl_rng rng;
                tl_rng_seed(&rng, tl_seed(60, (uint64_t)(_i * 100 + si * 4 + ip * 2 + pad)));
                tl_buf S, S0, D, R;
                tl_buf_alloc(&S, p, ls, r, c, batch, pad);
                fill_special(&S, &rng);
                tl_buf_clone(&S, &S0);
                tl_buf_alloc(&D, p, ld, r, c, batch, !pad);
                tl_buf_alloc(&R, p, ls, r, c, batch, pad);
                bsolve_status st = tl_convert(ctx, p, r, c, batch, S.data, ls, D.data, ld);
                ck_assert_msg(st == BSOLVE_SUCCESS, "[%s]: %s (%s)", desc, tl_status_name(st),
                              bsolve_ctx_message(ctx));
                ck_assert_msg(tl_buf_same(&S, &S0), "[%s]: the source was modified", desc);
                int64_t bad = tl_buf_unwritten(&D, where, sizeof where);
                ck_assert_msg(bad == 0, "[%s]: %lld destination entries not written; %s", desc, (long long)bad, where);
                bad = tl_buf_bad_padding(&D, where, sizeof where);
                ck_assert_msg(bad == 0, "[%s]: %lld destination padding elements overwritten; %s", desc,
                              (long long)bad, where);
                bad = entry_mismatches(&S, &D, where, sizeof where);
                ck_assert_msg(bad == 0, "[%s]: %lld entries not bit-exact; %s", desc, (long long)bad, where);
                /* and back */
                st = tl_convert(ctx, p, r, c, batch, D.data, ld, R.data, ls);
                ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] back: %s (%s)", desc, tl_status_name(st),
                              bsolve_ctx_message(ctx));
                ck_assert_msg(tl_buf_same(&R, &S), "[%s]: round trip is not bit-identical "
                              "(entries and padding)", desc);
                tl_buf_free(&S);
                tl_buf_free(&S0);
                tl_buf_free(&D);
                tl_buf_free(&R);
            }
    bsolve_ctx_destroy(ctx);
}
END_TEST

START_TEST(t_convert_args)
{
    bsolve_ctx *ctx = tl_ctx();
    double src[4 * 6 * 3], dst[4 * 6 * 3], dst0[4 * 6 * 3];
    for (int i = 0; i < 72; i++) src[i] = i + 0.5, dst[i] = dst0[i] = -1;
    const int64_t r = 4, c = 6, batch = 3;
    bsolve_layout l = bsolve_layout_col_major(r, r * c), li = bsolve_layout_interleaved(batch);
    bsolve_status st;
#define CONV_BAD(R, C, BT, S, LS, D, LD, WANT, WHAT, WORDS)                                      \
    do {                                                                                         \
        st = bsolve_dconvert(ctx, R, C, BT, S, LS, D, LD);                                       \
        expect_status(ctx, st, WANT, "dconvert " WHAT, WORDS);                                   \
        ck_assert_msg(memcmp(dst, dst0, sizeof dst) == 0, "failed dconvert (" WHAT ") wrote dst"); \
    } while (0)
    CONV_BAD(0, c, batch, src, l, dst, li, BSOLVE_EINVAL, "r = 0", "r");
    CONV_BAD(-1, c, batch, src, l, dst, li, BSOLVE_EINVAL, "r = -1", "r");
    CONV_BAD(r, 0, batch, src, l, dst, li, BSOLVE_EINVAL, "c = 0", "c");
    CONV_BAD(r, c, -1, src, l, dst, li, BSOLVE_EINVAL, "batch = -1", "batch");
    CONV_BAD(r, c, batch, NULL, l, dst, li, BSOLVE_ENULL, "src = NULL", "src");
    CONV_BAD(r, c, batch, src, l, NULL, li, BSOLVE_ENULL, "dst = NULL", "dst");
    CONV_BAD(r, c, batch, src, bsolve_layout_col_major(r - 1, r * c), dst, li, BSOLVE_EINVAL,
             "col-major src ld = r-1", "src|lsrc;ld");
    CONV_BAD(r, c, batch, src, bsolve_layout_row_major(c - 1, r * c), dst, li, BSOLVE_EINVAL,
             "row-major src ld = c-1", "src|lsrc;ld");
    CONV_BAD(r, c, batch, src, bsolve_layout_col_major(r, r * c - 1), dst, li, BSOLVE_EINVAL,
             "col-major src stride = ld*c-1", "src|lsrc;stride");
    CONV_BAD(r, c, batch, src, l, dst, bsolve_layout_interleaved(batch - 1), BSOLVE_EINVAL,
             "interleaved dst ld = batch-1", "dst|ldst;ld");
    CONV_BAD(r, c, batch, src, l, dst, bsolve_layout_row_major(c, r * c - 1), BSOLVE_EINVAL,
             "row-major dst stride = ld*r-1", "dst|ldst;stride");
    bsolve_layout weird = {(bsolve_layout_kind)5, r, r * c};
    CONV_BAD(r, c, batch, src, weird, dst, li, BSOLVE_EINVAL, "src kind = 5", "src|lsrc");
    CONV_BAD(r, c, batch, src, l, dst, weird, BSOLVE_EINVAL, "dst kind = 5", "dst|ldst");
    ck_assert_int_eq(bsolve_dconvert(NULL, r, c, batch, src, l, dst, li), BSOLVE_ENULL);
    float fs[72], fd[72];
    st = bsolve_sconvert(ctx, r, c, batch, fs, bsolve_layout_col_major(r - 1, r * c), fd, li);
    expect_status(ctx, st, BSOLVE_EINVAL, "sconvert src ld = r-1", "src|lsrc;ld");
    st = bsolve_sconvert(ctx, r, c, batch, NULL, l, fd, li);
    expect_status(ctx, st, BSOLVE_ENULL, "sconvert src = NULL", "src");
    /* batch 0: a no-op */
    st = bsolve_dconvert(ctx, r, c, 0, src, l, dst, li);
    expect_status(ctx, st, BSOLVE_SUCCESS, "dconvert batch = 0", NULL);
    ck_assert_str_eq(bsolve_ctx_message(ctx), "");
    ck_assert_msg(memcmp(dst, dst0, sizeof dst) == 0, "dconvert with batch 0 wrote dst");
    /* a good call: col-major -> interleaved */
    st = bsolve_dconvert(ctx, r, c, batch, src, l, dst, li);
    ck_assert_int_eq(st, BSOLVE_SUCCESS);
    for (int k = 0; k < batch; k++)
        for (int j = 0; j < c; j++)
            for (int i = 0; i < r; i++)
                ck_assert(dst[(i + j * r) * batch + k] == src[k * r * c + i + j * r]);
#undef CONV_BAD
    bsolve_ctx_destroy(ctx);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("args");
    TCase *tc = tl_tcase("args");
    tcase_add_test(tc, t_gesv_args);
    tcase_add_test(tc, t_batch_zero);
    tcase_add_test(tc, t_lu_args);
    tcase_add_test(tc, t_lu_huge);
    tcase_add_test(tc, t_contexts);
    tcase_add_test(tc, t_strerror);
    suite_add_tcase(s, tc);
    tc = tl_tcase("convert");
    tcase_add_loop_test(tc, t_convert_roundtrip, 0, 9);
    tcase_add_test(tc, t_convert_args);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tl_main(suite()); }
