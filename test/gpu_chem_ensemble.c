/*
 * gpu_chem_ensemble.c -- the reactor ensemble on the GPU (ens_run_cuda,
 * samples/chem/ensemble_cuda.cu) on small ensembles, against Cantera's
 * delays and the CPU path (ens_run):
 *
 *   - every reference case of h2o2 and gri30 ignites, each cell within
 *     DELAY_RTOL of Cantera's delay, in a plausible number of steps, with
 *     batchsolve (interleaved and column-major) and with cuBLAS as the
 *     linear solver, with the kinetics by teams (the default) and by one
 *     thread per cell (ENS_KIN_THREAD);
 *   - the cells' delays within CPU_RTOL of the CPU path's (the two differ
 *     by the math library's rounding only, which the step sequence
 *     amplifies to the integrator's own error), the ensemble's steps within
 *     STEPS_RTOL of the CPU's;
 *   - cells are independent: cells of the same case give bit-identical
 *     delays and steps wherever they sit in the batch (also in a batch of
 *     2000 gri30 cells, 16 thread blocks and a partial one), the
 *     column-major layout gives the interleaved one's results (the kernels
 *     read every layout with the same arithmetic), and a cell whose
 *     Jacobian is made NaN on the device (ens_opts.poison_*) fails that
 *     factorization (batchsolve's info) or Newton iteration (cuBLAS), retries
 *     and still ignites correctly while no other cell's result changes;
 *   - the sample program runs on the GPU with either solver and exits 0.
 * Prints "SKIP: no CUDA device" and exits 0 without a GPU.  The data files
 * are found in CHEM_DATA_DIR, the sample at CHEM_ENSEMBLE_BIN.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "batchsolve.h"
#include "gpu_check.h"

#ifndef HAVE_CUDART
int main(void) { return gpu_check_skip_main(); }
#else

#include "cases.h"
#include "ensemble.h"
#include "kinetics.h"

#ifndef CHEM_DATA_DIR
#define CHEM_DATA_DIR "samples/chem"
#endif

#define DELAY_RTOL 0.01
#define CPU_RTOL 3e-3
#define STEPS_RTOL 0.05
#define MAX_STEPS_PER_CELL 1500

typedef struct run {
    chem_mech *m;
    chem_case *cs;
    int ncase, ncell;
    ens_cell_result *res;
    ens_stats st;
} run;

/* ncell cells of mechanism `name`, cell c from case c mod ncase, on ctx
 * (the GPU path when gpu) */
static int run_ensemble(run *r, const char *name, int ncell, const ens_opts *o, bsolve_ctx *ctx, int gpu)
{
    char path[1024], msg[512];
    memset(r, 0, sizeof *r);
    snprintf(path, sizeof path, "%s/%s.mech", CHEM_DATA_DIR, name);
    if (chem_mech_load(path, &r->m, msg, sizeof msg) != CHEM_OK) {
        CHECK(0, "%s", msg);
        return -1;
    }
    snprintf(path, sizeof path, "%s/%s.ref", CHEM_DATA_DIR, name);
    if (chem_cases_load(path, r->m, &r->cs, &r->ncase, msg, sizeof msg) != CHEM_OK) {
        CHECK(0, "%s", msg);
        return -1;
    }
    const int n = r->m->nsp + 1;
    r->ncell = ncell;
    double *x0 = malloc((size_t)ncell * n * sizeof *x0), *P = malloc((size_t)ncell * sizeof *P);
    r->res = malloc((size_t)ncell * sizeof *r->res);
    if (!x0 || !P || !r->res) {
        fprintf(stderr, "gpu_chem_ensemble: out of memory\n");
        exit(1);
    }
    for (int c = 0; c < ncell; c++) {
        const chem_case *k = &r->cs[c % r->ncase];
        CHECK(chem_fresh_mixture(r->m, k->fuel, k->phi, x0 + (size_t)c * n) == CHEM_OK, "mixture");
        x0[(size_t)c * n + n - 1] = k->T0;
        P[c] = k->P0;
    }
    const int rc = gpu ? ens_run_cuda(r->m, ncell, P, x0, o, ctx, r->res, &r->st, msg, sizeof msg)
                       : ens_run(r->m, ncell, P, x0, o, ctx, r->res, &r->st, msg, sizeof msg);
    CHECK(rc == ENS_OK, "%s: %s, %d cells: %d: %s", gpu ? "ens_run_cuda" : "ens_run", name, ncell, rc, msg);
    free(x0);
    free(P);
    return rc;
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
        CHECK(x->status == ENS_DONE, "%s cell %d: %s at t = %g", what, c, ens_status_name(x->status), x->t);
        const double e = fabs(x->tau - k->tau) / k->tau;
        CHECK(e <= DELAY_RTOL, "%s cell %d (phi %g, T0 %g, P0 %g): delay %.9g, Cantera %.9g", what, c, k->phi, k->T0,
              k->P0, x->tau, k->tau);
        CHECK(x->nst > 0 && x->nst <= MAX_STEPS_PER_CELL, "%s cell %d: %ld steps", what, c, x->nst);
        CHECK(x->nje > 0 && x->nje < x->nst && x->nsetup < x->nst, "%s cell %d: %ld J, %ld M for %ld steps", what, c,
              x->nje, x->nsetup, x->nst);
        if (e > worst || isnan(e)) worst = isnan(e) ? INFINITY : e;
    }
    return worst;
}

/* cells of the same case: bit-identical results */
static void check_same_cases(const run *r, const char *what)
{
    for (int c = r->ncase; c < r->ncell; c++) {
        const ens_cell_result *a = &r->res[c % r->ncase], *b = &r->res[c];
        CHECK(a->tau == b->tau && a->nst == b->nst && a->nje == b->nje,
              "%s: cells %d and %d (one case): delays %.17g / %.17g, steps %ld / %ld", what, c % r->ncase, c, a->tau,
              b->tau, a->nst, b->nst);
    }
}

static long total_steps(const run *r)
{
    long s = 0;
    for (int c = 0; c < r->ncell; c++) s += r->res[c].nst;
    return s;
}

static ens_opts opts(void)
{
    ens_opts o;
    ens_default_opts(&o);
    o.nthreads = 1;
    return o;
}

/* each cell's delay on the GPU (g) within CPU_RTOL of the CPU's (c); the worst difference */
static double cpu_diff(const run *g, const run *c, const char *what)
{
    double w = 0;
    for (int i = 0; i < g->ncell; i++) {
        const double e = fabs(g->res[i].tau - c->res[i].tau) / c->res[i].tau;
        CHECK(e <= CPU_RTOL, "%s cell %d: delay %.17g, CPU %.17g", what, i, g->res[i].tau, c->res[i].tau);
        if (e > w || isnan(e)) w = isnan(e) ? INFINITY : e;
    }
    return w;
}

/* one mechanism, 36 cells: GPU (batchsolve IL and CM, cuBLAS; team and thread kinetics) against Cantera and the CPU */
static void mech_runs(const char *name, bsolve_ctx *gpu, bsolve_ctx *cpu)
{
    char what[128];
    run rc, ri, rm, rb;
    ens_opts o = opts();
    if (run_ensemble(&rc, name, 36, &o, cpu, 0)) return;
    if (run_ensemble(&ri, name, 36, &o, gpu, 1)) return;
    snprintf(what, sizeof what, "%s GPU batchsolve", name);
    const double wi = check_delays(&ri, what);
    check_same_cases(&ri, what);
    const double wc = cpu_diff(&ri, &rc, what);
    const long si = total_steps(&ri), sc = total_steps(&rc);
    CHECK(labs(si - sc) <= STEPS_RTOL * sc, "%s: %ld steps, CPU %ld", what, si, sc);
    CHECK(ri.st.getrf_calls > 0 && ri.st.getrs_calls > ri.st.getrf_calls && ri.st.factors_needed > 0,
          "%s: %ld getrf, %ld getrs calls, %ld factors needed", what, ri.st.getrf_calls, ri.st.getrs_calls,
          ri.st.factors_needed);
    /* masked calls: the cells that need them, not every slot every time */
    CHECK(ri.st.solves_done == ri.st.solves_needed && ri.st.factors_done >= ri.st.factors_needed &&
              ri.st.factors_done < 36 * ri.st.getrf_calls,
          "%s: %ld systems solved for %ld iterating, %ld factored for %ld needed in %ld calls", what,
          ri.st.solves_done, ri.st.solves_needed, ri.st.factors_done, ri.st.factors_needed, ri.st.getrf_calls);
    printf("%s, 36 cells: worst relative delay difference %.2e from Cantera, %.2e from the CPU; %ld steps (CPU %ld), "
           "%ld sweeps\n",
           what, wi, wc, si, sc, ri.st.sweeps);

    o.layout = BSOLVE_COL_MAJOR;
    if (run_ensemble(&rm, name, 36, &o, gpu, 1) == 0) {
        snprintf(what, sizeof what, "%s GPU batchsolve column-major", name);
        check_delays(&rm, what);
        for (int c = 0; c < 36; c++)
            CHECK(rm.res[c].tau == ri.res[c].tau && rm.res[c].nst == ri.res[c].nst,
                  "%s cell %d: delay %.17g, interleaved %.17g", what, c, rm.res[c].tau, ri.res[c].tau);
        run_free(&rm);
    }
    o.layout = BSOLVE_INTERLEAVED;
    o.kinetics = ENS_KIN_THREAD;
    if (run_ensemble(&rm, name, 36, &o, gpu, 1) == 0) {
        snprintf(what, sizeof what, "%s GPU batchsolve, kinetics a thread per cell", name);
        const double wt = check_delays(&rm, what);
        check_same_cases(&rm, what);
        const double wtc = cpu_diff(&rm, &rc, what);
        printf("%s, 36 cells: worst relative delay difference %.2e from Cantera, %.2e from the CPU\n", what, wt, wtc);
        run_free(&rm);
    }
    o.kinetics = ENS_KIN_TEAM;
    o.ls = ENS_LS_CUBLAS;
    if (run_ensemble(&rb, name, 36, &o, gpu, 1) == 0) {
        snprintf(what, sizeof what, "%s GPU cuBLAS", name);
        const double wb = check_delays(&rb, what);
        check_same_cases(&rb, what);
        printf("%s, 36 cells: worst relative delay difference %.2e from Cantera, %ld steps\n", what, wb,
               total_steps(&rb));
        run_free(&rb);
    }
    run_free(&rc);
    run_free(&ri);
}

/* a NaN Jacobian on the device: that cell retries, the others are unchanged */
static void poisoned(bsolve_ctx *gpu, ens_linsolve ls)
{
    const int bad = 7;
    run clean, pois;
    ens_opts o = opts();
    o.ls = ls;
    const char *what = ls == ENS_LS_CUBLAS ? "poisoned h2o2, cuBLAS" : "poisoned h2o2, batchsolve";
    if (run_ensemble(&clean, "h2o2", 36, &o, gpu, 1)) return;
    o.poison_cell = bad;
    o.poison_nje = 2;
    if (run_ensemble(&pois, "h2o2", 36, &o, gpu, 1) == 0) {
        check_delays(&pois, what);
        for (int c = 0; c < 36; c++) {
            const ens_cell_result *a = &clean.res[c], *b = &pois.res[c];
            if (c == bad) {
                /* batchsolve's getrf reports the NaN (info); cuBLAS's does not, its
                 * solve gives a NaN correction, a Newton failure like others */
                if (ls == ENS_LS_BSOLVE)
                    CHECK(a->nfactor_fail == 0 && b->nfactor_fail >= 1, "%s cell %d: %ld / %ld failed factorizations",
                          what, c, a->nfactor_fail, b->nfactor_fail);
                CHECK(b->nje > a->nje || b->nst != a->nst, "%s cell %d: no retry seen", what, c);
            } else {
                CHECK(b->nfactor_fail == 0 && a->tau == b->tau && a->nst == b->nst && a->nje == b->nje,
                      "%s cell %d changed by another cell's failure: delay %.17g / %.17g, steps %ld / %ld", what, c,
                      a->tau, b->tau, a->nst, b->nst);
            }
        }
        run_free(&pois);
    }
    run_free(&clean);
}

#ifdef CHEM_ENSEMBLE_BIN
static int run_sample(const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s > /dev/null 2>&1", CHEM_ENSEMBLE_BIN, args);
    const int s = system(cmd);
    return WIFEXITED(s) ? WEXITSTATUS(s) : -1;
}
#endif

int main(void)
{
    bsolve_ctx *gpu = NULL, *cpu = NULL;
    const bsolve_status s = bsolve_ctx_create(&gpu, BSOLVE_BACKEND_CUDA);
    if (s == BSOLVE_ENODEVICE) {
        printf("SKIP: no CUDA device\n");
        return 0;
    }
    if (s != BSOLVE_SUCCESS || bsolve_ctx_create(&cpu, BSOLVE_BACKEND_CPU) != BSOLVE_SUCCESS) {
        fprintf(stderr, "FAIL: context creation: %s\n", bsolve_strerror(s));
        return 1;
    }
    mech_runs("h2o2", gpu, cpu);
    mech_runs("gri30", gpu, cpu);
    poisoned(gpu, ENS_LS_BSOLVE);
    poisoned(gpu, ENS_LS_CUBLAS);
    {
        run big;
        ens_opts o = opts();
        if (run_ensemble(&big, "gri30", 2000, &o, gpu, 1) == 0) {
            const double w = check_delays(&big, "gri30 GPU, 2000 cells");
            check_same_cases(&big, "gri30 GPU, 2000 cells");
            printf("gri30 GPU, 2000 cells: worst relative delay difference %.2e, %.3g cell-steps/s\n", w,
                   total_steps(&big) / big.st.t_total);
            run_free(&big);
        }
    }
#ifdef CHEM_ENSEMBLE_BIN
    CHECK(run_sample("-b cuda -m h2o2 -c 36 -q") == 0, "chem_ensemble -b cuda");
    CHECK(run_sample("-b cuda -l cublas -m h2o2 -c 36 -q") == 0, "chem_ensemble -b cuda -l cublas");
    CHECK(run_sample("-b cuda -L cm -m gri30 -c 18 -q") == 0, "chem_ensemble -b cuda -L cm");
    CHECK(run_sample("-b cuda -k thread -m gri30 -c 18 -q") == 0, "chem_ensemble -b cuda -k thread");
#endif
    bsolve_ctx_destroy(gpu);
    bsolve_ctx_destroy(cpu);
    printf("%s: %ld checks, %ld failed\n", nfail ? "FAIL" : "PASS", nchecks, nfail);
    return nfail ? 1 : 0;
}
#endif
