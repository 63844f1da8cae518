/*
 * test_singular.c -- exactly singular systems and NaN/Inf entries injected at
 * random positions of large batches.
 *
 * Singular systems are built so that the first exactly-zero pivot is known
 * whatever the rounding of the solver (zero matrix, zero column, zero row,
 * duplicated rows whose shared leading entry is a power of two, and
 * rank-deficient L*U products in dyadic arithmetic where every elimination
 * step is exact).  Expected info (1-based step), checked also against
 * LAPACK dgetrf (PARTIAL) and dgetc2 (FULL) on the same matrix:
 *
 *                  NONE      PARTIAL   FULL
 *   zero matrix    1         1         1
 *   zero column c  c+1       c+1       n
 *   zero row r     r+1       n         n
 *   dup rows       2         n         n
 *   dyadic L*U     j+1       j+1       --   (U(j,j) = 0, |L| < 1: no interchange)
 *
 * Non-finite systems (a NaN or +-Inf in A or in B) give BSOLVE_INFO_NONFINITE.
 * Every failed system's solution is all NaN; every other system is solved
 * (info 0, backward-error ratio < 30).
 */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    SYS_OK = 0,
    SYS_ZERO_MATRIX,
    SYS_ZERO_COL,
    SYS_ZERO_ROW,
    SYS_DUP_ROWS,
    SYS_DYADIC,
    SYS_NAN_A,
    SYS_INF_A,
    SYS_NAN_B,
    SYS_INF_B,
    SYS_NTYPES
} systype;

static const char *type_name(systype t)
{
    static const char *n[] = {"ok", "zero-matrix", "zero-column", "zero-row", "duplicated-rows",
                              "dyadic-rank-deficient", "NaN-in-A", "Inf-in-A", "NaN-in-B",
                              "Inf-in-B"};
    return n[t];
}


/* A random type for system k: ~10% singular, ~6% non-finite. */
static systype pick_type(tl_rng *r, int n, bsolve_pivot pv)
{
    double u = tl_rng_unit(r);
    if (u >= 0.16) return SYS_OK;
    if (u >= 0.10) return (systype)(SYS_NAN_A + tl_rng_int(r, 0, 3));
    for (;;) {
        systype t = (systype)tl_rng_int(r, SYS_ZERO_MATRIX, SYS_DYADIC);
        if (t == SYS_DUP_ROWS && n < 2) continue;
        if (t == SYS_DYADIC && pv == BSOLVE_PIVOT_FULL) continue;
        return t;
    }
}

/* Builds A (and returns the expected info, 0 for SYS_OK and for B-side
 * non-finite types, BSOLVE_INFO_NONFINITE for A-side ones). */
static int gen_system(tl_rng *r, systype t, int n, bsolve_pivot pv, double *a)
{
    tl_family base = pv == BSOLVE_PIVOT_NONE ? TL_FAM_DIAGDOM : TL_FAM_RANDOM;
    size_t nn = (size_t)n * n;
    switch (t) {
    case SYS_ZERO_MATRIX: /* +0 and -0: both are exactly zero */
        for (size_t e = 0; e < nn; e++) a[e] = tl_rng_u64(r) & 1 ? 0.0 : -0.0;
        return 1;
    case SYS_ZERO_COL: {
        int c = (int)tl_rng_int(r, 0, n - 1);
        tl_gen_matrix(r, base, n, a);
        for (int i = 0; i < n; i++) a[i + (size_t)c * n] = tl_rng_u64(r) & 1 ? 0.0 : -0.0;
        return pv == BSOLVE_PIVOT_FULL ? n : c + 1;
    }
    case SYS_ZERO_ROW: {
        int rr = (int)tl_rng_int(r, 0, n - 1);
        tl_gen_matrix(r, base, n, a);
        for (int j = 0; j < n; j++) a[rr + (size_t)j * n] = 0;
        return pv == BSOLVE_PIVOT_NONE ? rr + 1 : n;
    }
    case SYS_DUP_ROWS: {
        tl_gen_matrix(r, base, n, a);
        int r1, r2;
        if (pv == BSOLVE_PIVOT_NONE) {
            r1 = 0;
            r2 = 1;
            for (int j = 0; j < n; j++) a[1 + (size_t)j * n] = a[(size_t)j * n];
            /* rows 0 and 1 equal; the first pivot, a power of two, dominates
             * its column: step 1 eliminates row 1 exactly (multiplier 1) */
            a[0] = a[1] = ldexp(1.0, 2 + (int)ceil(log2((double)n * n)));
        } else {
            /* entries are in (-1, 1); the duplicated rows hold the global
             * maximum 2 in column 0, so PARTIAL and FULL eliminate one twin
             * with the other as pivot and multiplier exactly 1 */
            r1 = (int)tl_rng_int(r, 0, n - 1);
            do r2 = (int)tl_rng_int(r, 0, n - 1); while (r2 == r1);
            for (int j = 0; j < n; j++) a[r2 + (size_t)j * n] = a[r1 + (size_t)j * n];
            a[r1] = a[r2] = 2.0;
        }
        (void)r1;
        return pv == BSOLVE_PIVOT_NONE ? 2 : n;
    }
    case SYS_DYADIC: {
        /* A = L U exactly; L unit lower with |l_ij| <= 7/8 (multiples of 1/8),
         * U upper with U(k,k) = +-2^e, e in 0..2, U(j,j) = 0, off-diagonal
         * integers in [-4, 4].  Elimination reproduces L and U exactly (no
         * interchange, every operation exact) up to the zero pivot at step j+1. */
        int j0 = (int)tl_rng_int(r, 0, n - 1);
        double *L = calloc(nn, sizeof *L), *U = calloc(nn, sizeof *U);
        for (int j = 0; j < n; j++) {
            L[j + (size_t)j * n] = 1;
            for (int i = j + 1; i < n; i++) L[i + (size_t)j * n] = (double)tl_rng_int(r, -7, 7) / 8;
            for (int i = 0; i < j; i++) U[i + (size_t)j * n] = (double)tl_rng_int(r, -4, 4);
            double d = ldexp(1.0, (int)tl_rng_int(r, 0, 2));
            U[j + (size_t)j * n] = j == j0 ? 0.0 : (tl_rng_u64(r) & 1 ? d : -d);
        }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int k = 0; k <= (i < j ? i : j); k++) s += L[i + (size_t)k * n] * U[k + (size_t)j * n];
                a[i + (size_t)j * n] = s;
            }
        free(L);
        free(U);
        return j0 + 1;
    }
    case SYS_NAN_A:
    case SYS_INF_A:
        tl_gen_matrix(r, base, n, a);
        a[tl_rng_int(r, 0, (int64_t)nn - 1)] =
            t == SYS_NAN_A ? NAN : (tl_rng_u64(r) & 1 ? INFINITY : -INFINITY);
        return BSOLVE_INFO_NONFINITE;
    default:
        tl_gen_matrix(r, base, n, a);
        return 0;
    }
}

/* The reference's info for a singular construction (sanity of the table above). */
static int ref_info(int n, bsolve_pivot pv, const double *a)
{
    if (pv == BSOLVE_PIVOT_FULL) {
        double *lu = malloc((size_t)n * n * sizeof *lu);
        int32_t *ip = malloc((size_t)n * sizeof *ip), *jp = malloc((size_t)n * sizeof *jp);
        int info = tl_ref_getc2_factor(n, a, lu, ip, jp);
        free(lu);
        free(ip);
        free(jp);
        return info;
    }
    return tl_ref_getrf(n, a, NULL, NULL);
}

typedef struct {
    bsolve_precision prec;
    bsolve_pivot pivot;
    int n, nrhs;
    int64_t batch;
    bsolve_layout_kind ka, kb;
    int pad;
    uint64_t seed;
} scase;

typedef struct {
    double *A;      /* batch * n * n, as stored */
    systype *type;
    int *expect;    /* expected info */
} batchdata;

static void make_batch(const scase *c, tl_buf *A, tl_buf *B, batchdata *d, int getrs_mode)
{
    int n = c->n, nrhs = c->nrhs;
    tl_rng rng;
    tl_rng_seed(&rng, c->seed);
    d->A = malloc((size_t)c->batch * n * n * sizeof *d->A);
    d->type = malloc((size_t)c->batch * sizeof *d->type);
    d->expect = malloc((size_t)c->batch * sizeof *d->expect);
    double *b = malloc((size_t)n * nrhs * sizeof *b);
    int nsing = 0, nnonf = 0;
    for (int64_t k = 0; k < c->batch; k++) {
        systype t = pick_type(&rng, n, c->pivot);
        if (getrs_mode && (t == SYS_NAN_B || t == SYS_INF_B)) t = SYS_OK; /* B comes later */
        double *a = d->A + (size_t)k * n * n;
        int e = gen_system(&rng, t, n, c->pivot, a);
        if (c->prec == BSOLVE_PREC_S) tl_round_float((int64_t)n * n, a);
        tl_gen_uniform(&rng, (int64_t)n * nrhs, b);
        if (t == SYS_NAN_B || t == SYS_INF_B) {
            b[tl_rng_int(&rng, 0, (int64_t)n * nrhs - 1)] =
                t == SYS_NAN_B ? NAN : (tl_rng_u64(&rng) & 1 ? INFINITY : -INFINITY);
            e = BSOLVE_INFO_NONFINITE;
        }
        d->type[k] = t;
        d->expect[k] = e;
        nsing += e > 0;
        nnonf += e < 0;
        tl_buf_put(A, k, a);
        if (B) tl_buf_put(B, k, b);
    }
    free(b);
    /* the batch must exercise both kinds when it is large enough */
    if (c->batch >= 200) ck_assert_msg(nsing > 0 && nnonf > 0, "generator produced no failures");
}

static void free_batch(batchdata *d)
{
    free(d->A);
    free(d->type);
    free(d->expect);
}

static void case_desc(const scase *c, char *buf, size_t len, const char *op)
{
    snprintf(buf, len, "%s%s pivot=%s n=%d nrhs=%d batch=%lld A=%s B=%s pad=%d seed=%llu",
             tl_prec_name(c->prec), op, tl_pivot_name(c->pivot), c->n, c->nrhs,
             (long long)c->batch, tl_kind_name(c->ka), tl_kind_name(c->kb), c->pad,
             (unsigned long long)c->seed);
}

/* Checks a solved batch: info as expected, failed systems all NaN, the others accurate. */
static void check_solutions(const scase *c, const batchdata *d, const tl_buf *B0, const tl_buf *B,
                            const int32_t *info, const int *expect)
{
    int n = c->n, nrhs = c->nrhs;
    double *b = malloc((size_t)n * nrhs * sizeof *b), *x = malloc((size_t)n * nrhs * sizeof *x);
    for (int64_t k = 0; k < c->batch; k++) {
        systype t = d->type[k];
        TL_EXPECT(info[k] == expect[k], "system %lld (%s): info = %d, expected %d", (long long)k,
                  type_name(t), info[k], expect[k]);
        tl_buf_getm(B, k, x);
        if (expect[k] != 0) {
            TL_EXPECT(tl_all_nan((int64_t)n * nrhs, x),
                      "system %lld (%s, info %d): solution not all NaN (x[0] = %g)", (long long)k,
                      type_name(t), info[k], x[0]);
        } else {
            tl_buf_getm(B0, k, b);
            double q = tl_backward_ratio(n, nrhs, d->A + (size_t)k * n * n, b, x, tl_eps(c->prec));
            TL_EXPECT(q < TL_BWD_MAX, "system %lld (%s): backward ratio %.3g", (long long)k,
                      type_name(t), q);
        }
    }
    free(b);
    free(x);
}

static void check_refs(const scase *c, const batchdata *d)
{
    int n = c->n;
    /* sanity of the constructions: LAPACK agrees (double values; for s they are float-exact) */
    for (int64_t k = 0; k < c->batch; k++) {
        int e = d->expect[k];
        if (e <= 0 || d->type[k] >= SYS_NAN_A) continue;
        if (c->pivot == BSOLVE_PIVOT_NONE) continue; /* LAPACK always pivots */
        /* dgetc2 perturbs a tiny pivot and goes on, reporting the last such
         * step: comparable only where the zero pivot is the last step */
        if (c->pivot == BSOLVE_PIVOT_FULL && e != n) continue;
        int ri = ref_info(n, c->pivot, d->A + (size_t)k * n * n);
        TL_EXPECT(ri == e, "system %lld (%s): the reference (%s) gives info %d, the test expects %d",
                  (long long)k, type_name(d->type[k]),
                  c->pivot == BSOLVE_PIVOT_FULL ? "dgetc2" : "dgetrf", ri, e);
    }
}

static void run_gesv(bsolve_ctx *ctx, const scase *c)
{
    char desc[300];
    case_desc(c, desc, sizeof desc, "gesv");
    bsolve_layout la = tl_layout(c->ka, c->pad, c->n, c->n, c->batch);
    bsolve_layout lb = tl_layout(c->kb, c->pad, c->n, c->nrhs, c->batch);
    tl_buf A, B, B0;
    tl_buf_alloc(&A, c->prec, la, c->n, c->n, c->batch, 0);
    tl_buf_alloc(&B, c->prec, lb, c->n, c->nrhs, c->batch, 1);
    batchdata d;
    make_batch(c, &A, &B, &d, 0);
    tl_buf_clone(&B, &B0);
    int32_t *info = tl_i32_alloc(c->batch);
    bsolve_status st = tl_gesv(ctx, c->prec, c->pivot, c->n, c->nrhs, c->batch, A.data, la, B.data,
                               lb, info);
    ck_assert_msg(st == BSOLVE_SUCCESS, "[%s]: status %s (%s): singular systems must not fail the call",
                  desc, tl_status_name(st), bsolve_ctx_message(ctx));
    char where[200];
    int64_t bad = tl_buf_bad_padding(&B, where, sizeof where);
    ck_assert_msg(bad == 0, "[%s]: %lld padding elements of B overwritten; %s", desc, (long long)bad, where);
    ck_assert_msg(tl_i32_guards_ok(info, c->batch), "[%s]: info written out of bounds", desc);
    tl_reset();
    check_refs(c, &d);
    check_solutions(c, &d, &B0, &B, info, d.expect);
    TL_CLEAN("%s", desc);
    free_batch(&d);
    tl_i32_free(info);
    tl_buf_free(&A);
    tl_buf_free(&B);
    tl_buf_free(&B0);
}

/* getrf on a batch with singular and non-finite A; export (complete factors
 * for info > 0 under PARTIAL/FULL); getrs with NaN/Inf injected in B only. */
static void run_getrf(bsolve_ctx *ctx, const scase *c)
{
    int n = c->n, nrhs = c->nrhs;
    char desc[300];
    case_desc(c, desc, sizeof desc, "getrf/getrs");
    bsolve_layout la = tl_layout(c->ka, c->pad, n, n, c->batch);
    tl_buf A;
    tl_buf_alloc(&A, c->prec, la, n, n, c->batch, 0);
    batchdata d;
    make_batch(c, &A, NULL, &d, 1);
    int32_t *info = tl_i32_alloc(c->batch);
    bsolve_lu *lu = NULL;
    ck_assert_int_eq(bsolve_lu_create(ctx, c->prec, c->pivot, n, c->batch, &lu), BSOLVE_SUCCESS);
    bsolve_status st = tl_getrf(ctx, c->prec, A.data, la, lu, info);
    ck_assert_msg(st == BSOLVE_SUCCESS, "[%s]: getrf status %s (%s)", desc, tl_status_name(st),
                  bsolve_ctx_message(ctx));
    tl_reset();
    for (int64_t k = 0; k < c->batch; k++)
        TL_EXPECT(info[k] == d.expect[k], "getrf: system %lld (%s): info = %d, expected %d",
                  (long long)k, type_name(d.type[k]), info[k], d.expect[k]);
    TL_CLEAN("%s: getrf info", desc);

    /* factors of singular systems are complete: P A Q = L U */
    if (c->pivot != BSOLVE_PIVOT_NONE) {
        bsolve_layout ll = tl_layout(BSOLVE_COL_MAJOR, 0, n, n, c->batch);
        tl_buf LU;
        tl_buf_alloc(&LU, c->prec, ll, n, n, c->batch, 0);
        int32_t *ipiv = tl_i32_alloc(c->batch * n), *jpiv = tl_i32_alloc(c->batch * n);
        st = bsolve_lu_export(ctx, lu, LU.data, ll, ipiv, jpiv);
        ck_assert_msg(st == BSOLVE_SUCCESS, "[%s]: export %s (%s)", desc, tl_status_name(st),
                      bsolve_ctx_message(ctx));
        double *f = malloc((size_t)n * n * sizeof *f);
        for (int64_t k = 0; k < c->batch; k++) {
            if (d.expect[k] <= 0) continue;
            tl_buf_getm(&LU, k, f);
            double q = tl_lu_ratio(n, d.A + (size_t)k * n * n, f, ipiv + k * n, jpiv + k * n,
                                   tl_eps(c->prec));
            TL_EXPECT(q < TL_BWD_MAX, "system %lld (%s, info %d): exported factors: ||PAQ - LU|| "
                      "ratio %.3g (factors of a singular system must be complete)",
                      (long long)k, type_name(d.type[k]), d.expect[k], q);
            int j = d.expect[k] - 1;
            TL_EXPECT(f[j + (size_t)j * n] == 0, "system %lld (%s): info %d but U(%d,%d) = %g != 0",
                      (long long)k, type_name(d.type[k]), d.expect[k], j + 1, j + 1, f[j + (size_t)j * n]);
        }
        TL_CLEAN("%s: export of singular factors", desc);
        free(f);
        tl_i32_free(ipiv);
        tl_i32_free(jpiv);
        tl_buf_free(&LU);
    }

    /* two solves: one clean B, one with NaN/Inf in B of some good systems */
    tl_rng rng;
    tl_rng_seed(&rng, c->seed ^ 0x5eed);
    for (int round = 0; round < 2; round++) {
        bsolve_layout lb = tl_layout((bsolve_layout_kind)((c->kb + round) % 3), round, n, nrhs, c->batch);
        tl_buf B, B0;
        tl_buf_alloc(&B, c->prec, lb, n, nrhs, c->batch, round);
        int *expect = malloc((size_t)c->batch * sizeof *expect);
        double *b = malloc((size_t)n * nrhs * sizeof *b);
        for (int64_t k = 0; k < c->batch; k++) {
            tl_gen_uniform(&rng, (int64_t)n * nrhs, b);
            expect[k] = d.expect[k];
            if (round == 1 && expect[k] == 0 && tl_rng_unit(&rng) < 0.1) {
                b[tl_rng_int(&rng, 0, (int64_t)n * nrhs - 1)] = tl_rng_u64(&rng) & 1 ? NAN : -INFINITY;
                expect[k] = BSOLVE_INFO_NONFINITE;
            }
            tl_buf_put(&B, k, b);
        }
        tl_buf_clone(&B, &B0);
        tl_i32_poison(info, c->batch);
        st = tl_getrs(ctx, c->prec, lu, nrhs, B.data, lb, info);
        ck_assert_msg(st == BSOLVE_SUCCESS, "[%s]: getrs round %d status %s (%s)", desc, round,
                      tl_status_name(st), bsolve_ctx_message(ctx));
        char where[200];
        int64_t bad = tl_buf_bad_padding(&B, where, sizeof where);
        ck_assert_msg(bad == 0, "[%s]: getrs: %lld padding elements overwritten; %s", desc,
                      (long long)bad, where);
        tl_reset();
        check_solutions(c, &d, &B0, &B, info, expect);
        TL_CLEAN("%s: getrs round %d (%s)", desc, round, round ? "NaN/Inf in B" : "clean B");
        free(expect);
        free(b);
        tl_buf_free(&B);
        tl_buf_free(&B0);
    }
    bsolve_lu_destroy(lu);
    free_batch(&d);
    tl_i32_free(info);
    tl_buf_free(&A);
}

static const struct { int n; int64_t batch; } shapes[] = {
    {1, 1000}, {2, 100003}, {3, 2000}, {4, 10007}, {5, 1000}, {8, 100003}, {13, 3001},
    {16, 2000}, {33, 1000}, {64, 300}, {128, 40}};

static scase make_case(int i, int ip, int ipv, int salt)
{
    scase c;
    int v = i + ip + ipv + salt;
    c.prec = ip ? BSOLVE_PREC_S : BSOLVE_PREC_D;
    c.pivot = (bsolve_pivot)ipv;
    c.n = shapes[i].n;
    c.batch = shapes[i].batch;
    if (salt && c.batch > 20000) c.batch = 20011; /* getrf rounds: keep them moderate */
    if (tl_quick() && c.batch > 500) c.batch = 500;
    c.nrhs = 1 + v % 3;
    c.ka = (bsolve_layout_kind)(v % 3);
    c.kb = (bsolve_layout_kind)((v / 3 + 1) % 3);
    c.pad = v % 2;
    c.seed = tl_seed(30 + (uint64_t)salt, (uint64_t)(i * 8 + ip * 3 + ipv));
    return c;
}

START_TEST(t_gesv_singular)
{
    bsolve_ctx *ctx = tl_ctx();
    for (int ip = 0; ip < 2; ip++)
        for (int ipv = 0; ipv < 3; ipv++) {
            scase c = make_case(_i, ip, ipv, 0);
            run_gesv(ctx, &c);
        }
    bsolve_ctx_destroy(ctx);
}
END_TEST

START_TEST(t_getrf_singular)
{
    bsolve_ctx *ctx = tl_ctx();
    for (int ip = 0; ip < 2; ip++)
        for (int ipv = 0; ipv < 3; ipv++) {
            scase c = make_case(_i, ip, ipv, 1);
            run_getrf(ctx, &c);
        }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* Small hand-made cases: info of one system does not depend on its neighbours
 * (the first, the last, a lone bad system in a SIMD group). */
START_TEST(t_lone_failures)
{
    bsolve_ctx *ctx = tl_ctx();
    const int n = 3;
    const int64_t batch = 37;
    for (int ip = 0; ip < 2; ip++)
        for (int pv = 0; pv < 3; pv++)
            for (int64_t bad = 0; bad < batch; bad += 6) {
                scase c = {ip ? BSOLVE_PREC_S : BSOLVE_PREC_D, (bsolve_pivot)pv, n, 1, batch,
                           BSOLVE_INTERLEAVED, BSOLVE_INTERLEAVED, 0, tl_seed(40, (uint64_t)bad)};
                bsolve_layout la = tl_layout(c.ka, 0, n, n, batch), lb = tl_layout(c.kb, 0, n, 1, batch);
                tl_buf A, B, B0;
                tl_buf_alloc(&A, c.prec, la, n, n, batch, 0);
                tl_buf_alloc(&B, c.prec, lb, n, 1, batch, 0);
                batchdata d = {malloc(sizeof(double) * 9 * batch), malloc(sizeof(systype) * batch),
                               malloc(sizeof(int) * batch)};
                tl_rng rng;
                tl_rng_seed(&rng, c.seed);
                int64_t bad2 = (bad + 1 + (int64_t)(pv + ip) * 5) % batch; /* a second one, NaN */
                for (int64_t k = 0; k < batch; k++) {
                    double *a = d.A + k * 9, b[3];
                    systype t = k == bad ? SYS_ZERO_COL : k == bad2 ? SYS_NAN_A : SYS_OK;
                    d.type[k] = t;
                    d.expect[k] = gen_system(&rng, t, n, c.pivot, a);
                    if (c.prec == BSOLVE_PREC_S) tl_round_float(9, a);
                    tl_gen_uniform(&rng, 3, b);
                    tl_buf_put(&A, k, a);
                    tl_buf_put(&B, k, b);
                }
                tl_buf_clone(&B, &B0);
                int32_t *info = tl_i32_alloc(batch);
                bsolve_status st = tl_gesv(ctx, c.prec, c.pivot, n, 1, batch, A.data, la, B.data, lb, info);
                ck_assert_int_eq(st, BSOLVE_SUCCESS);
                tl_reset();
                check_solutions(&c, &d, &B0, &B, info, d.expect);
                TL_CLEAN("%sgesv pivot=%s n=3 batch=37, zero column in system %lld, NaN in %lld",
                         tl_prec_name(c.prec), tl_pivot_name(c.pivot), (long long)bad, (long long)bad2);
                free_batch(&d);
                tl_i32_free(info);
                tl_buf_free(&A);
                tl_buf_free(&B);
                tl_buf_free(&B0);
            }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* A pivot that is tiny but not zero is not singular (info = 0 means "solved";
 * info > 0 only for an exactly zero pivot).  Subnormal pivots: 1/pivot
 * overflows, so a solver that multiplies by reciprocals must divide instead
 * there (LAPACK's dgetf2 does, below sfmin).  System: row 0 and column 0 zero
 * but A(0,0) = t, the rest diagonally dominant; b(0) = 0.75 t, so x(0) = 0.75
 * exactly.  Under FULL pivoting t is the last pivot. */
START_TEST(t_tiny_pivots)
{
    bsolve_ctx *ctx = tl_ctx();
    static const int ns[] = {1, 2, 5, 16};
    for (int ip = 0; ip < 2; ip++)
        for (int pv = 0; pv < 3; pv++)
            for (unsigned in = 0; in < sizeof ns / sizeof *ns; in++) {
                bsolve_precision p = ip ? BSOLVE_PREC_S : BSOLVE_PREC_D;
                /* normal-but-tiny, then subnormal ones whose reciprocal overflows */
                const int exps_d[] = {-1000, -1022, -1030, -1050, -1070};
                const int exps_s[] = {-120, -126, -130, -140, -146};
                const int nt = 5;
                int n = ns[in];
                const int64_t batch = 23; /* tiny-pivot systems at k % 4 == 1 */
                bsolve_layout la = tl_layout(BSOLVE_COL_MAJOR, 0, n, n, batch);
                bsolve_layout lb = tl_layout(BSOLVE_INTERLEAVED, 0, n, 1, batch);
                tl_buf A, B, B0;
                tl_buf_alloc(&A, p, la, n, n, batch, 0);
                tl_buf_alloc(&B, p, lb, n, 1, batch, 0);
                double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n);
                double *Aall = malloc(sizeof(double) * n * n * batch);
                double *x = malloc(sizeof(double) * n), *tval = malloc(sizeof(double) * batch);
                tl_rng rng;
                tl_rng_seed(&rng, tl_seed(41, (uint64_t)(ip * 100 + pv * 10 + in)));
                for (int64_t k = 0; k < batch; k++) {
                    tl_gen_matrix(&rng, TL_FAM_DIAGDOM, n, a);
                    tl_gen_uniform(&rng, n, b);
                    tval[k] = 0;
                    if (k % 4 == 1) {
                        int e = ip ? exps_s[(k / 4) % nt] : exps_d[(k / 4) % nt];
                        double t = ldexp(tl_rng_u64(&rng) & 1 ? 1.0 : -1.0, e);
                        for (int i = 0; i < n; i++) a[i] = a[(size_t)i * n] = 0;
                        a[0] = t;
                        b[0] = 0.75 * t;
                        tval[k] = t;
                    }
                    tl_buf_put(&A, k, a);
                    tl_buf_put(&B, k, b);
                    tl_buf_getm(&A, k, Aall + (size_t)k * n * n);
                }
                tl_buf_clone(&B, &B0);
                int32_t *info = tl_i32_alloc(batch);
                bsolve_status st = tl_gesv(ctx, p, (bsolve_pivot)pv, n, 1, batch, A.data, la, B.data, lb, info);
                ck_assert_int_eq(st, BSOLVE_SUCCESS);
                tl_reset();
                for (int64_t k = 0; k < batch; k++) {
                    tl_buf_getm(&B, k, x);
                    tl_buf_getm(&B0, k, b);
                    double q = tl_backward_ratio(n, 1, Aall + (size_t)k * n * n, b, x, tl_eps(p));
                    TL_EXPECT(info[k] == 0 && q < TL_BWD_MAX,
                              "system %lld (pivot A(0,0) = %a, not zero): info %d (0 expected), "
                              "backward ratio %.3g (< 30 expected), x(0) = %g (0.75 expected)",
                              (long long)k, tval[k], info[k], q, x[0]);
                    if (tval[k] != 0)
                        TL_EXPECT(fabs(x[0] - 0.75) <= 8 * tl_eps(p),
                                  "system %lld (pivot A(0,0) = %a): x(0) = %.17g, expected 0.75", (long long)k,
                                  tval[k], x[0]);
                }
                TL_CLEAN("%sgesv pivot=%s n=%d with tiny pivots", tl_prec_name(p), tl_pivot_name((bsolve_pivot)pv), n);
                tl_i32_free(info);
                free(a);
                free(b);
                free(x);
                free(Aall);
                free(tval);
                tl_buf_free(&A);
                tl_buf_free(&B);
                tl_buf_free(&B0);
            }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* Badly scaled but harmless systems: A and b multiplied by 2^s with s far
 * from 0 (double +-600 and entries up to ~2^1020; float +-60).  The solution
 * is that of the unscaled system, the backward ratio < 30. */
START_TEST(t_scaled)
{
    bsolve_ctx *ctx = tl_ctx();
    const int n = 7;
    const int64_t batch = 101;
    for (int ip = 0; ip < 2; ip++)
        for (int pv = 0; pv < 3; pv++)
            for (int sv = 0; sv < 3; sv++) {
                bsolve_precision p = ip ? BSOLVE_PREC_S : BSOLVE_PREC_D;
                int s = ip ? (sv == 0 ? 60 : sv == 1 ? -60 : 120) : (sv == 0 ? 600 : sv == 1 ? -600 : 1012);
                bsolve_layout la = tl_layout((bsolve_layout_kind)sv, 1, n, n, batch);
                bsolve_layout lb = tl_layout((bsolve_layout_kind)pv, 0, n, 2, batch);
                tl_buf A, B, B0;
                tl_buf_alloc(&A, p, la, n, n, batch, 0);
                tl_buf_alloc(&B, p, lb, n, 2, batch, 0);
                double *a = malloc(sizeof(double) * n * n * batch), *b = malloc(sizeof(double) * n * 2 * batch);
                double x[14], xs[14], bb[14];
                tl_rng rng;
                tl_rng_seed(&rng, tl_seed(42, (uint64_t)(ip * 9 + pv * 3 + sv)));
                for (int64_t k = 0; k < batch; k++) {
                    double *ak = a + (size_t)k * n * n, *bk = b + (size_t)k * n * 2;
                    tl_gen_matrix(&rng, pv == BSOLVE_PIVOT_NONE || k % 2 ? TL_FAM_DIAGDOM : TL_FAM_PERMDOM, n, ak);
                    tl_gen_uniform(&rng, n * 2, bk);
                    /* entries below 2^(s+6): no overflow in double (s <= 1012) or float (s <= 120) */
                    for (int t = 0; t < n * n; t++) ak[t] = ldexp(ak[t] / (2.0 * n + 2), s);
                    for (int t = 0; t < n * 2; t++) bk[t] = ldexp(bk[t], s);
                    tl_buf_put(&A, k, ak);
                    tl_buf_put(&B, k, bk);
                    tl_buf_getm(&A, k, ak);
                    tl_buf_getm(&B, k, bk);
                }
                tl_buf_clone(&B, &B0);
                int32_t *info = tl_i32_alloc(batch);
                ck_assert_int_eq(tl_gesv(ctx, p, (bsolve_pivot)pv, n, 2, batch, A.data, la, B.data, lb, info),
                                 BSOLVE_SUCCESS);
                tl_reset();
                for (int64_t k = 0; k < batch; k++) {
                    double *ak = a + (size_t)k * n * n, *bk = b + (size_t)k * n * 2;
                    tl_buf_getm(&B, k, x);
                    double q = tl_backward_ratio(n, 2, ak, bk, x, tl_eps(p));
                    /* reference: the unscaled system in double with GSL */
                    double au[49];
                    for (int t = 0; t < n * n; t++) au[t] = ldexp(ak[t], -s);
                    for (int t = 0; t < n * 2; t++) bb[t] = ldexp(bk[t], -s);
                    tl_ref_gsl(n, 2, au, bb, xs);
                    double d = tl_rel_diff(n, 2, x, xs);
                    TL_EXPECT(info[k] == 0 && q < TL_BWD_MAX && d < 64 * n * tl_eps(p),
                              "system %lld: info %d, backward ratio %.3g, diff to the unscaled solution %.3g",
                              (long long)k, info[k], q, d);
                }
                TL_CLEAN("%sgesv pivot=%s n=%d, A and b scaled by 2^%d", tl_prec_name(p),
                         tl_pivot_name((bsolve_pivot)pv), n, s);
                tl_i32_free(info);
                free(a);
                free(b);
                tl_buf_free(&A);
                tl_buf_free(&B);
                tl_buf_free(&B0);
            }
    bsolve_ctx_destroy(ctx);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("singular");
    TCase *tc = tl_tcase("gesv");
    tcase_add_loop_test(tc, t_gesv_singular, 0, (int)(sizeof shapes / sizeof *shapes));
    suite_add_tcase(s, tc);
    tc = tl_tcase("getrf");
    tcase_add_loop_test(tc, t_getrf_singular, 0, (int)(sizeof shapes / sizeof *shapes));
    suite_add_tcase(s, tc);
    tc = tl_tcase("lone");
    tcase_add_test(tc, t_lone_failures);
    suite_add_tcase(s, tc);
    tc = tl_tcase("tiny_pivots");
    tcase_add_test(tc, t_tiny_pivots);
    suite_add_tcase(s, tc);
    tc = tl_tcase("scaled");
    tcase_add_test(tc, t_scaled);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tl_main(suite()); }
