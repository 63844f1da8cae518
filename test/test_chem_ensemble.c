/*
 * test_chem_ensemble.c -- the reactor-ensemble sample (samples/chem/ensemble.c,
 * bdf.c, ignition.c; samples/chem_ensemble.c) on small ensembles:
 *
 *   - every reference case of h2o2 (twice) and of gri30 ignites, each cell
 *     within DELAY_RTOL of Cantera's delay (the target), in a
 *     plausible number of steps (a broken order selection takes thousands);
 *   - cells are independent: two cells of the same case give the same
 *     delay and step count wherever they sit in the batch, and poisoning
 *     one cell's Jacobian (NaN, infinity: the batched getrf reports info !=
 *     0 for it) makes that cell retry its step and still ignite correctly,
 *     while every other cell's result is unchanged;
 *   - the column-major batch layout gives the interleaved one's delays;
 *   - the sample program runs, exits 0 on a small ensemble and 1 when its
 *     delay tolerance cannot be met.
 * Runs on the backend of BSOLVE_TEST_BACKEND (host arrays).  The data files
 * are found in CHEM_DATA_DIR, the sample at CHEM_ENSEMBLE_BIN.
 */
#include "testlib.h"

#include "cases.h"
#include "ensemble.h"
#include "kinetics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef CHEM_DATA_DIR
#define CHEM_DATA_DIR "samples/chem"
#endif

#define DELAY_RTOL 0.01
#define MAX_STEPS_PER_CELL 1500

typedef struct run {
    chem_mech *m;
    chem_case *cs;
    int ncase, ncell;
    ens_cell_result *res;
    ens_stats st;
} run;

/* ncell cells of mechanism `name`, cell c from case c mod ncase */
static void run_ensemble(run *r, const char *name, int ncell, const ens_opts *o)
{
    char path[1024], msg[512];
    snprintf(path, sizeof path, "%s/%s.mech", CHEM_DATA_DIR, name);
    ck_assert_msg(chem_mech_load(path, &r->m, msg, sizeof msg) == CHEM_OK, "%s", msg);
    snprintf(path, sizeof path, "%s/%s.ref", CHEM_DATA_DIR, name);
    ck_assert_msg(chem_cases_load(path, r->m, &r->cs, &r->ncase, msg, sizeof msg) == CHEM_OK, "%s", msg);
    ck_assert_int_eq(r->ncase, 18);
    const int n = r->m->nsp + 1;
    r->ncell = ncell;
    double *x0 = malloc((size_t)ncell * n * sizeof *x0), *P = malloc((size_t)ncell * sizeof *P);
    r->res = malloc((size_t)ncell * sizeof *r->res);
    ck_assert(x0 && P && r->res);
    for (int c = 0; c < ncell; c++) {
        const chem_case *k = &r->cs[c % r->ncase];
        ck_assert_int_eq(chem_fresh_mixture(r->m, k->fuel, k->phi, x0 + (size_t)c * n), CHEM_OK);
        x0[(size_t)c * n + n - 1] = k->T0;
        P[c] = k->P0;
    }
    bsolve_ctx *ctx = tl_ctx();
    ck_assert_int_eq(bsolve_ctx_set_threads(ctx, o->nthreads), BSOLVE_SUCCESS);
    const int rc = ens_run(r->m, ncell, P, x0, o, ctx, r->res, &r->st, msg, sizeof msg);
    ck_assert_msg(rc == ENS_OK, "ens_run: %d: %s", rc, msg);
    bsolve_ctx_destroy(ctx);
    free(x0);
    free(P);
}

static void run_free(run *r)
{
    free(r->res);
    free(r->cs);
    chem_mech_free(r->m);
}

/* every cell done, within DELAY_RTOL of Cantera, in a plausible step count;
 * returns the worst relative difference */
static double check_delays(const run *r, const char *what)
{
    double worst = 0;
    for (int c = 0; c < r->ncell; c++) {
        const ens_cell_result *x = &r->res[c];
        const chem_case *k = &r->cs[c % r->ncase];
        TL_EXPECT(x->status == ENS_DONE, "%s cell %d: %s at t = %g", what, c, ens_status_name(x->status), x->t);
        const double e = fabs(x->tau - k->tau) / k->tau;
        TL_EXPECT(e <= DELAY_RTOL, "%s cell %d (phi %g, T0 %g, P0 %g): delay %.9g, Cantera %.9g", what, c, k->phi,
                  k->T0, k->P0, x->tau, k->tau);
        TL_EXPECT(x->nst > 0 && x->nst <= MAX_STEPS_PER_CELL, "%s cell %d: %ld steps", what, c, x->nst);
        TL_EXPECT(x->nje > 0 && x->nje < x->nst && x->nsetup < x->nst, "%s cell %d: %ld J, %ld M for %ld steps",
                  what, c, x->nje, x->nsetup, x->nst);
        if (e > worst || isnan(e)) worst = isnan(e) ? INFINITY : e;
    }
    return worst;
}

static ens_opts opts(void)
{
    ens_opts o;
    ens_default_opts(&o);
    o.nthreads = 1; /* a few cells: the threads would only wait for each other */
    return o;
}

START_TEST(t_h2o2)
{
    run r;
    ens_opts o = opts();
    run_ensemble(&r, "h2o2", 36, &o);
    const double worst = check_delays(&r, "h2o2");
    /* two cells per case, at different places in the batch: the same answer */
    for (int c = 0; c < 18; c++) {
        TL_EXPECT(r.res[c].tau == r.res[c + 18].tau && r.res[c].nst == r.res[c + 18].nst,
                  "case %d: cells %d and %d: delays %.17g / %.17g, steps %ld / %ld", c, c, c + 18, r.res[c].tau,
                  r.res[c + 18].tau, r.res[c].nst, r.res[c + 18].nst);
    }
    TL_CLEAN("h2o2 ensemble");
    ck_assert_int_gt(r.st.getrf_calls, 0);
    ck_assert_int_gt(r.st.getrs_calls, r.st.getrf_calls);
    /* masked calls: the cells that need them, not every slot every time */
    ck_assert_msg(r.st.solves_done == r.st.solves_needed, "%ld systems solved for %ld iterating", r.st.solves_done,
                  r.st.solves_needed);
    ck_assert_msg(r.st.factors_done >= r.st.factors_needed && r.st.factors_done < 36 * r.st.getrf_calls,
                  "%ld systems factored for %ld needed in %ld calls of 36", r.st.factors_done, r.st.factors_needed,
                  r.st.getrf_calls);
    printf("h2o2, 36 cells: worst relative delay difference %.2e, %ld sweeps\n", worst, r.st.sweeps);
    run_free(&r);
}
END_TEST

START_TEST(t_gri30)
{
    run r;
    ens_opts o = opts();
    run_ensemble(&r, "gri30", 18, &o);
    const double worst = check_delays(&r, "gri30");
    TL_CLEAN("gri30 ensemble");
    printf("gri30, 18 cells: worst relative delay difference %.2e, %ld sweeps\n", worst, r.st.sweeps);
    run_free(&r);
}
END_TEST

/* poisons the Jacobian of cell 3 (NaN) and cell 11 (infinity) at their
 * second evaluation */
static void poison(void *arg, int cell, long nje, int n, double *J)
{
    int *count = arg;
    if (nje != 2) return;
    if (cell == 3) J[n + 2] = NAN, count[0]++;
    if (cell == 11) J[(size_t)n * n - 1] = -INFINITY, count[1]++;
}

START_TEST(t_failed_factor)
{
    run clean, bad;
    ens_opts o = opts();
    run_ensemble(&clean, "h2o2", 18, &o);
    int count[2] = {0, 0};
    o.jac_hook = poison;
    o.hook_arg = count;
    run_ensemble(&bad, "h2o2", 18, &o);
    ck_assert_int_eq(count[0], 1);
    ck_assert_int_eq(count[1], 1);
    check_delays(&bad, "poisoned h2o2");
    for (int c = 0; c < 18; c++) {
        const ens_cell_result *a = &clean.res[c], *b = &bad.res[c];
        if (c == 3 || c == 11) {
            /* the poisoned factorization failed, the step was retried with a
             * fresh Jacobian */
            TL_EXPECT(a->nfactor_fail == 0 && b->nfactor_fail >= 1, "cell %d: %ld / %ld failed factorizations", c,
                      a->nfactor_fail, b->nfactor_fail);
            TL_EXPECT(b->nje > a->nje || b->nst != a->nst, "cell %d: no retry seen", c);
        } else {
            TL_EXPECT(b->nfactor_fail == 0 && a->tau == b->tau && a->nst == b->nst && a->nje == b->nje,
                      "cell %d changed by another cell's failure: delay %.17g / %.17g, steps %ld / %ld", c, a->tau,
                      b->tau, a->nst, b->nst);
        }
    }
    TL_CLEAN("poisoned Jacobians");
    run_free(&clean);
    run_free(&bad);
}
END_TEST

START_TEST(t_layouts)
{
    run il, cm;
    ens_opts o = opts();
    run_ensemble(&il, "h2o2", 18, &o);
    o.layout = BSOLVE_COL_MAJOR;
    run_ensemble(&cm, "h2o2", 18, &o);
    check_delays(&cm, "column-major h2o2");
    for (int c = 0; c < 18; c++)
        TL_EXPECT(fabs(il.res[c].tau - cm.res[c].tau) <= 1e-6 * il.res[c].tau,
                  "cell %d: interleaved delay %.17g, column-major %.17g", c, il.res[c].tau, cm.res[c].tau);
    TL_CLEAN("layouts");
    run_free(&il);
    run_free(&cm);
}
END_TEST

#ifdef CHEM_ENSEMBLE_BIN
static int run_sample(const char *args)
{
    return tl_run(CHEM_ENSEMBLE_BIN, args);
}

START_TEST(t_sample)
{
    ck_assert_int_eq(run_sample("-m h2o2 -c 36 -t 1 -q"), 0);
    /* a tolerance no integration meets: the sample must say so */
    ck_assert_int_eq(run_sample("-m h2o2 -c 18 -t 1 -q -e 1e-12"), 1);
    ck_assert_int_eq(run_sample("-m h2o2 -c 18 -l nosuchsolver"), 2);
}
END_TEST
#endif

int main(void)
{
    Suite *s = suite_create("chem_ensemble");
    TCase *tc = tl_tcase("chem_ensemble");
    tcase_add_test(tc, t_h2o2);
    tcase_add_test(tc, t_gri30);
    tcase_add_test(tc, t_failed_factor);
    tcase_add_test(tc, t_layouts);
#ifdef CHEM_ENSEMBLE_BIN
    tcase_add_test(tc, t_sample);
#endif
    suite_add_tcase(s, tc);
    return tl_main(s);
}
