/*
 * test_growth.c -- Wilkinson's growth matrix W_n (1 on the diagonal, -1
 * below it, 1 in the last column): partial pivoting makes no interchange
 * (ties go to the diagonal, as in LAPACK) and the last column doubles at
 * every step, growth 2^(n-1); complete pivoting has no such growth.  W_n is
 * well conditioned (cond_inf(W_n) = O(n)), so the loss is the algorithm's.
 *
 * For n = 20..60 the test asserts both sides:
 *   - FULL: backward-error ratio < 30 and forward error < 100 n eps, always;
 *   - PARTIAL: accurate (forward error < 1e-3) while 2^(n-1) eps < 1e-6;
 *     from n >= 50 (double; float: n >= 25) a backward ratio > 1e3 and a
 *     forward error > 1e-3, from n >= 55 (float: 30) > 5e-2 -- with a tie-free variant
 *     (-(1 - 2^-10) below the diagonal) so the result does not hinge on the
 *     tie rule, and the exact W_n with LAPACK's tie rule (ipiv = identity).
 * BSOLVE_TEST_VERBOSE=1 prints the table.
 */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NSYS 16

static int verbose(void)
{
    const char *e = getenv("BSOLVE_TEST_VERBOSE");
    return e && *e && strcmp(e, "0");
}

typedef struct {
    double fwd, bwd; /* worst forward error and backward ratio over the batch */
    int info_bad;
} result;

/* Solves NSYS systems W x = b (b = W x_true) with gesv; measures errors. */
static result solve(bsolve_ctx *ctx, bsolve_precision prec, bsolve_pivot pv, int n, double delta,
                    uint64_t seed)
{
    double *w = malloc((size_t)n * n * sizeof *w), *xt = malloc((size_t)n * NSYS * sizeof *xt);
    double *b = malloc((size_t)n * NSYS * sizeof *b), *x = malloc((size_t)n * sizeof *x);
    tl_gen_wilkinson(n, delta, w);
    tl_rng rng;
    tl_rng_seed(&rng, seed);
    bsolve_layout la = tl_layout(BSOLVE_INTERLEAVED, 0, n, n, NSYS);
    bsolve_layout lb = tl_layout(BSOLVE_COL_MAJOR, 0, n, 1, NSYS);
    tl_buf A, B;
    tl_buf_alloc(&A, prec, la, n, n, NSYS, 0);
    tl_buf_alloc(&B, prec, lb, n, 1, NSYS, 0);
    for (int k = 0; k < NSYS; k++) {
        double *xk = xt + (size_t)k * n, *bk = b + (size_t)k * n;
        tl_gen_uniform(&rng, n, xk);
        if (prec == BSOLVE_PREC_S) tl_round_float(n, xk);
        for (int i = 0; i < n; i++) {
            long double s = 0;
            for (int j = 0; j < n; j++) s += (long double)w[i + (size_t)j * n] * xk[j];
            bk[i] = (double)s;
        }
        if (prec == BSOLVE_PREC_S) tl_round_float(n, bk);
        tl_buf_put(&A, k, w);
        tl_buf_put(&B, k, bk);
    }
    if (prec == BSOLVE_PREC_S) tl_round_float((int64_t)n * n, w); /* as stored */
    int32_t info[NSYS];
    bsolve_status st = tl_gesv(ctx, prec, pv, n, 1, NSYS, A.data, la, B.data, lb, info);
    ck_assert_msg(st == BSOLVE_SUCCESS, "%sgesv n=%d: %s (%s)", tl_prec_name(prec), n,
                  tl_status_name(st), bsolve_ctx_message(ctx));
    result r = {0, 0, 0};
    for (int k = 0; k < NSYS; k++) {
        if (info[k] != 0) r.info_bad = 1;
        tl_buf_getm(&B, k, x);
        double q = tl_backward_ratio(n, 1, w, b + (size_t)k * n, x, tl_eps(prec));
        double f = tl_rel_diff(n, 1, x, xt + (size_t)k * n);
        if (!(q <= r.bwd)) r.bwd = q;
        if (!(f <= r.fwd)) r.fwd = f;
    }
    tl_buf_free(&A);
    tl_buf_free(&B);
    free(w);
    free(xt);
    free(b);
    free(x);
    return r;
}

static void growth_case(bsolve_precision prec, double delta)
{
    bsolve_ctx *ctx = tl_ctx();
    double eps = tl_eps(prec);
    int nbad = prec == BSOLVE_PREC_D ? 50 : 25; /* from here on PARTIAL must have failed */
    tl_reset();
    if (verbose())
        printf("%s, delta=%g:\n   n  partial fwd  partial bwd     full fwd     full bwd\n",
               prec == BSOLVE_PREC_D ? "double" : "float", delta);
    for (int n = 20; n <= 60; n++) {
        uint64_t seed = tl_seed(20 + prec, (uint64_t)n);
        result p = solve(ctx, prec, BSOLVE_PIVOT_PARTIAL, n, delta, seed);
        result f = solve(ctx, prec, BSOLVE_PIVOT_FULL, n, delta, seed);
        if (verbose())
            printf("  %2d  %11.3g  %11.3g  %11.3g  %11.3g\n", n, p.fwd, p.bwd, f.fwd, f.bwd);
        TL_EXPECT(!p.info_bad && !f.info_bad, "n=%d: info != 0 for a nonsingular matrix", n);
        TL_EXPECT(f.bwd < TL_BWD_MAX, "n=%d seed=%llu: FULL backward ratio %.3g >= 30", n,
                  (unsigned long long)seed, f.bwd);
        TL_EXPECT(f.fwd < 100 * n * eps, "n=%d seed=%llu: FULL forward error %.3g >= 100 n eps", n,
                  (unsigned long long)seed, f.fwd);
        /* growth 2^(n-1): PARTIAL is fine while that times eps is tiny ... */
        if (ldexp(eps, n - 1) < 1e-6)
            TL_EXPECT(p.fwd < 1e-3, "n=%d seed=%llu: PARTIAL already inaccurate (fwd %.3g) "
                      "although 2^(n-1) eps = %.3g", n, (unsigned long long)seed, p.fwd,
                      ldexp(eps, n - 1));
        /* ... and wrong once it is large: the backward error is enormous, the
         * forward error large (where FULL's are ~eps) */
        if (n >= nbad) {
            TL_EXPECT(p.fwd > 1e-3, "n=%d seed=%llu: PARTIAL forward error %.3g <= 1e-3: no sign of "
                      "the 2^(n-1) growth (did partial pivoting interchange rows?)", n,
                      (unsigned long long)seed, p.fwd);
            TL_EXPECT(p.bwd > 1e3, "n=%d seed=%llu: PARTIAL backward ratio %.3g <= 1e3: no sign of "
                      "the 2^(n-1) growth", n, (unsigned long long)seed, p.bwd);
        }
        if (n >= nbad + 5)
            TL_EXPECT(p.fwd > 5e-2, "n=%d seed=%llu: PARTIAL forward error %.3g <= 5e-2 at growth "
                      "2^%d", n, (unsigned long long)seed, p.fwd, n - 1);
    }
    TL_CLEAN("%sgesv on Wilkinson's growth matrix, delta=%g", tl_prec_name(prec), delta);
    bsolve_ctx_destroy(ctx);
}

START_TEST(t_growth_double) { growth_case(BSOLVE_PREC_D, _i ? 0x1p-10 : 0.0); }
END_TEST

START_TEST(t_growth_float) { growth_case(BSOLVE_PREC_S, _i ? 0x1p-10 : 0.0); }
END_TEST

/* Exact W_n: partial pivoting breaks the ties as LAPACK dgetrf (ipiv = 1..n,
 * the first maximum), complete pivoting as dgetc2; the exported U shows the
 * growth: U(n,n) = 2^(n-1) for PARTIAL. */
START_TEST(t_ties_like_lapack)
{
    bsolve_ctx *ctx = tl_ctx();
    static const int ns[] = {2, 5, 20, 40, 53, 60};
    for (unsigned t = 0; t < sizeof ns / sizeof *ns; t++) {
        int n = ns[t];
        double *w = malloc((size_t)n * n * sizeof *w), *lu = malloc((size_t)n * n * sizeof *lu);
        int32_t *rip = malloc((size_t)n * sizeof *rip), *ipiv = malloc((size_t)n * 3 * sizeof *ipiv);
        int32_t *jpiv = malloc((size_t)n * 3 * sizeof *jpiv);
        tl_gen_wilkinson(n, 0, w);
        ck_assert_int_eq(tl_ref_getrf(n, w, lu, rip), 0);
        for (int i = 0; i < n; i++) ck_assert_int_eq(rip[i], i + 1); /* the reference itself */
        ck_assert(lu[(n - 1) + (size_t)(n - 1) * n] == ldexp(1.0, n - 1));

        double A3[3 * 60 * 60];
        for (int k = 0; k < 3; k++) memcpy(A3 + (size_t)k * n * n, w, (size_t)n * n * sizeof *w);
        bsolve_layout la = bsolve_layout_col_major(n, (int64_t)n * n);
        bsolve_lu *f = NULL;
        int32_t info[3];
        ck_assert_int_eq(bsolve_lu_create(ctx, BSOLVE_PREC_D, BSOLVE_PIVOT_PARTIAL, n, 3, &f), BSOLVE_SUCCESS);
        ck_assert_int_eq(bsolve_dgetrf(ctx, A3, la, f, info), BSOLVE_SUCCESS);
        double *LU3 = malloc((size_t)3 * n * n * sizeof *LU3);
        ck_assert_int_eq(bsolve_lu_export(ctx, f, LU3, la, ipiv, jpiv), BSOLVE_SUCCESS);
        for (int k = 0; k < 3; k++) {
            ck_assert_int_eq(info[k], 0);
            for (int i = 0; i < n; i++)
                ck_assert_msg(ipiv[k * n + i] == rip[i],
                              "W_%d, PARTIAL: ipiv[%d] = %d; LAPACK dgetrf breaks the tie for the "
                              "first maximum: %d", n, i, ipiv[k * n + i], rip[i]);
            double unn = LU3[(size_t)k * n * n + (n - 1) + (size_t)(n - 1) * n];
            ck_assert_msg(unn == ldexp(1.0, n - 1), "W_%d, PARTIAL: U(n,n) = %.17g, expected 2^%d",
                          n, unn, n - 1);
        }
        bsolve_lu_destroy(f);

        /* complete pivoting: dgetc2's choice (it keeps the last maximum it meets) */
        int32_t *rjp = malloc((size_t)n * sizeof *rjp);
        ck_assert_int_eq(tl_ref_getc2_factor(n, w, lu, rip, rjp), 0);
        ck_assert_int_eq(bsolve_lu_create(ctx, BSOLVE_PREC_D, BSOLVE_PIVOT_FULL, n, 3, &f), BSOLVE_SUCCESS);
        ck_assert_int_eq(bsolve_dgetrf(ctx, A3, la, f, info), BSOLVE_SUCCESS);
        ck_assert_int_eq(bsolve_lu_export(ctx, f, LU3, la, ipiv, jpiv), BSOLVE_SUCCESS);
        for (int k = 0; k < 3; k++) {
            ck_assert_int_eq(info[k], 0);
            double q = tl_lu_ratio(n, w, LU3 + (size_t)k * n * n, ipiv + k * n, jpiv + k * n, DBL_EPSILON);
            ck_assert_msg(q < TL_BWD_MAX, "W_%d, FULL: ||PAQ - LU|| ratio %.3g", n, q);
            double umax = 0;
            for (int j = 0; j < n; j++)
                for (int i = 0; i <= j; i++)
                    umax = fmax(umax, fabs(LU3[(size_t)k * n * n + i + (size_t)j * n]));
            ck_assert_msg(umax <= 2.0 * n, "W_%d, FULL: max |U| = %.3g: growth under complete pivoting",
                          n, umax);
        }
        bsolve_lu_destroy(f);
        free(rjp);
        free(LU3);
        free(w);
        free(lu);
        free(rip);
        free(ipiv);
        free(jpiv);
    }
    bsolve_ctx_destroy(ctx);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("growth");
    TCase *tc = tl_tcase("wilkinson");
    tcase_add_loop_test(tc, t_growth_double, 0, 2);
    tcase_add_loop_test(tc, t_growth_float, 0, 2);
    tcase_add_test(tc, t_ties_like_lapack);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tl_main(suite()); }
