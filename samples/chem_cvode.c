/*
 * chem_cvode.c -- the reactor ensemble of chem_ensemble integrated by CVODE
 * (BDF, Newton), two ways:
 *
 *   block  all cells as ONE system of cells x n unknowns, its linear
 *          algebra through the batchsolve SUNDIALS adapter
 *          (include/batchsolve_sundials.h): the Jacobian into the
 *          block-diagonal matrix, every setup one bsolve_dgetrf of all the
 *          blocks, every Newton iteration one bsolve_dgetrs;
 *   dense  CVODE per cell (one CVODE instance per thread, re-initialized
 *          for each cell) with SUNDIALS' own dense matrix and solver.
 *
 * Both get the same right-hand side and analytic Jacobian
 * (samples/chem/sunsys.h), the same tolerances, and the cells of
 * chem_ensemble (samples/chem/<mech>.ref's cases, repeated).  Each cell's
 * ignition delay (time of the largest dT/dt, from CVODE's dense output)
 * is compared with Cantera's and between the two ways; then the
 * throughput in cell-steps per second and where the time went.  The one
 * system's steps are shared by all its cells, so every cell takes as many
 * steps as the stiffest moment of any cell needs, and the error test is
 * the norm over all cells: both show in the cell-steps.
 *
 * Exit status 1 when a cell fails or a delay is further than -e from
 * Cantera's, 2 on a usage or setup error.
 *
 *   chem_cvode [-m gri30|h2o2] [-c cells] [-t threads] [-r rtol] [-a atol]
 *              [-e max relative delay error] [-s both|block|dense]
 *              [-L il|cm|rm] [-b cpu|cuda|auto] [-d data dir] [-q]
 */
#include "batchsolve.h"
#include "batchsolve_sundials.h"
#include "cases.h"
#include "ignition.h"
#include "kinetics.h"
#include "sunsys.h"

#include <cvode/cvode.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_config.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <unistd.h>

#ifndef CHEM_DATA_DIR
#define CHEM_DATA_DIR "samples/chem"
#endif

#define T_MAX 100.0      /* s: a cell not ignited by then fails */
#define MAX_STEPS 500000 /* CVODE steps of one integration */
#define ATOL_T 1e-6      /* K */

static void usage(void)
{
    fprintf(stderr, "usage: chem_cvode [-m gri30|h2o2] [-c cells] [-t threads] [-r rtol] [-a atol] [-e maxerr]\n"
                    "                  [-s both|block|dense] [-L il|cm|rm] [-b cpu|cuda|auto] [-d datadir] [-q]\n");
}

/* ------------------------------------------------------------------ timing
 * Where CVODE's time goes inside its linear-solver interface: the matrix
 * operations that form M = I - gamma J (zero, copy, scaleaddi) and the
 * solver's setup (factor) and solve, timed by wrapping the operations of
 * the objects the sample makes (and of the matrices CVODE clones from
 * them).  Per thread: the dense runs go in parallel. */
typedef struct timing {
    double form, factor, solve;
} timing;
static _Thread_local timing tm;

/* the wrapped operations of each kind of object: [0] the adapter's, [1] the dense ones */
static struct {
    SUNMatrix (*clone)(SUNMatrix);
    int (*zero)(SUNMatrix);
    int (*copy)(SUNMatrix, SUNMatrix);
    int (*scaleaddi)(sunrealtype, SUNMatrix);
    int (*setup)(SUNLinearSolver, SUNMatrix);
    int (*solve)(SUNLinearSolver, SUNMatrix, N_Vector, N_Vector, sunrealtype);
} orig[2];

static int kind_of_mat(SUNMatrix A)
{
    return bsolve_sunmatrix_is(A) ? 0 : 1;
}
static int kind_of_ls(SUNLinearSolver S)
{
    return bsolve_sunlinsol_is(S) ? 0 : 1;
}

static void wrap_matrix(SUNMatrix A);

static SUNMatrix timed_clone(SUNMatrix A)
{
    SUNMatrix B = orig[kind_of_mat(A)].clone(A);
    if (B) wrap_matrix(B);
    return B;
}
static int timed_zero(SUNMatrix A)
{
    const double t0 = omp_get_wtime();
    const int r = orig[kind_of_mat(A)].zero(A);
    tm.form += omp_get_wtime() - t0;
    return r;
}
static int timed_copy(SUNMatrix A, SUNMatrix B)
{
    const double t0 = omp_get_wtime();
    const int r = orig[kind_of_mat(A)].copy(A, B);
    tm.form += omp_get_wtime() - t0;
    return r;
}
static int timed_scaleaddi(sunrealtype c, SUNMatrix A)
{
    const double t0 = omp_get_wtime();
    const int r = orig[kind_of_mat(A)].scaleaddi(c, A);
    tm.form += omp_get_wtime() - t0;
    return r;
}
static int timed_setup(SUNLinearSolver S, SUNMatrix A)
{
    const double t0 = omp_get_wtime();
    const int r = orig[kind_of_ls(S)].setup(S, A);
    tm.factor += omp_get_wtime() - t0;
    return r;
}
static int timed_solve(SUNLinearSolver S, SUNMatrix A, N_Vector x, N_Vector b, sunrealtype tol)
{
    const double t0 = omp_get_wtime();
    const int r = orig[kind_of_ls(S)].solve(S, A, x, b, tol);
    tm.solve += omp_get_wtime() - t0;
    return r;
}

/* (the originals are the same for every object of a kind: written once,
 * before any thread starts) */
static void wrap_matrix(SUNMatrix A)
{
    const int k = kind_of_mat(A);
    if (A->ops->clone == timed_clone) return;
    if (!orig[k].clone) {
        orig[k].clone = A->ops->clone;
        orig[k].zero = A->ops->zero;
        orig[k].copy = A->ops->copy;
        orig[k].scaleaddi = A->ops->scaleaddi;
    }
    A->ops->clone = timed_clone;
    A->ops->zero = timed_zero;
    A->ops->copy = timed_copy;
    A->ops->scaleaddi = timed_scaleaddi;
}

static void wrap_solver(SUNLinearSolver S)
{
    const int k = kind_of_ls(S);
    if (!orig[k].setup) {
        orig[k].setup = S->ops->setup;
        orig[k].solve = S->ops->solve;
    }
    S->ops->setup = timed_setup;
    S->ops->solve = timed_solve;
}

/* ------------------------------------------------------------------ runs */

typedef struct opts {
    double rtol, atol;
    int nthreads;
    bsolve_layout_kind layout;
} opts;

typedef struct outcome {
    double *tau;        /* per cell; -1 where it failed */
    int *ok;            /* per cell: ignited and burnt */
    long nst, cell_steps, nfe_cells, nje_cells, nsetups, nni, ncfn, netf;
    double t_total, t_rhs, t_jac, t_form, t_factor, t_solve, thread_s;
    char msg[256];
} outcome;

static void set_atol(N_Vector atol, int ncell, int n, double a)
{
    double *d = N_VGetArrayPointer(atol);
    for (int c = 0; c < ncell; c++)
        for (int i = 0; i < n; i++) d[(size_t)c * n + i] = i == n - 1 ? ATOL_T : a;
}

/* CVODE on the cells of s from x0 (their rows) until each is done (or
 * T_MAX), with the linear solver LS on matrix A; ign/done: per cell.
 * 0, or -1 with a message when CVODE stops with an error */
static int integrate(void *cv, sunsys *s, N_Vector y, N_Vector dky, N_Vector atol, const opts *o, SUNMatrix A,
                     SUNLinearSolver LS, int reinit, ign_track *ign, int *done, char *msg, size_t len)
{
    const int n = s->n;
    int r = reinit ? CVodeReInit(cv, 0.0, y) : CVodeInit(cv, sunsys_rhs, 0.0, y);
    if (!reinit && !r) r = CVodeSVtolerances(cv, o->rtol, atol);
    if (!reinit && !r) r = CVodeSetLinearSolver(cv, LS, A);
    if (!reinit && !r) r = CVodeSetJacFn(cv, sunsys_jac);
    if (!reinit && !r) r = CVodeSetMaxNumSteps(cv, MAX_STEPS);
    if (!r) r = CVodeSetUserData(cv, s);
    if (!r) r = CVodeSetStopTime(cv, T_MAX);
    if (r) {
        snprintf(msg, len, "CVODE setup: %s", CVodeGetReturnFlagName(r));
        return -1;
    }
    /* dT/dt at the start, for the ignition trackers */
    if (sunsys_rhs(0, y, dky, s)) {
        snprintf(msg, len, "kinetics undefined at the initial state");
        return -1;
    }
    const double *y0 = N_VGetArrayPointer(y), *f0 = N_VGetArrayPointer(dky);
    for (int c = 0; c < s->ncell; c++) {
        ign_start(&ign[c], y0[(size_t)c * n + n - 1], f0[(size_t)c * n + n - 1]);
        done[c] = 0;
    }
    double t = 0;
    int ndone = 0;
    while (ndone < s->ncell && t < T_MAX) {
        const int flag = CVode(cv, T_MAX, y, &t, CV_ONE_STEP);
        if (flag < 0) {
            snprintf(msg, len, "CVode: %s at t = %g", CVodeGetReturnFlagName(flag), t);
            return -1;
        }
        ndone = sunsys_track(s, cv, ign, done, dky);
        if (ndone < 0) {
            snprintf(msg, len, "CVodeGetDky failed at t = %g", t);
            return -1;
        }
    }
    return 0;
}

static void add_counters(void *cv, long ncell, outcome *out)
{
    long nst = 0, nfe = 0, nje = 0, nsetups = 0, nni = 0, ncfn = 0, netf = 0;
    CVodeGetNumSteps(cv, &nst);
    CVodeGetNumRhsEvals(cv, &nfe);
    CVodeGetNumJacEvals(cv, &nje);
    CVodeGetNumLinSolvSetups(cv, &nsetups);
    CVodeGetNumNonlinSolvIters(cv, &nni);
    CVodeGetNumStepSolveFails(cv, &ncfn);
    CVodeGetNumErrTestFails(cv, &netf);
    out->nst += nst;
    out->cell_steps += nst * ncell;
    out->nfe_cells += nfe * ncell;
    out->nje_cells += nje * ncell;
    out->nsetups += nsetups;
    out->nni += nni;
    out->ncfn += ncfn;
    out->netf += netf;
}

/* all cells as one system through the adapter: 0, 1 when CVODE stopped
 * with an error, 2 on a setup error (a message in out->msg) */
static int run_block(const chem_mech *m, int ncell, const double *P, const double *x0, const opts *o, bsolve_ctx *ctx,
                     outcome *out)
{
    const int n = m->nsp + 1;
    const sunindextype len = (sunindextype)ncell * n;
    SUNContext sc;
    if (sunsys_context(&sc)) return snprintf(out->msg, sizeof out->msg, "no SUNContext"), 2;
    N_Vector y = N_VNew_Serial(len, sc), atol = N_VClone(y), dky = N_VClone(y);
    SUNMatrix A = NULL;
    SUNLinearSolver LS = NULL;
    sunsys s;
    ign_track *ign = malloc((size_t)ncell * sizeof *ign);
    int rc = 2;
    bsolve_status bs = BSOLVE_ENOMEM;
    if (!y || !atol || !dky || !ign || sunsys_init(&s, m, ncell, P, o->nthreads)) {
        snprintf(out->msg, sizeof out->msg, "out of memory");
        goto end;
    }
    bs = bsolve_sunmatrix_create(sc, n, ncell, o->layout, &A);
    if (bs == BSOLVE_SUCCESS) bs = bsolve_sunlinsol_create(ctx, BSOLVE_PIVOT_PARTIAL, y, A, sc, &LS);
    if (bs != BSOLVE_SUCCESS) {
        snprintf(out->msg, sizeof out->msg, "adapter: %s", bsolve_strerror(bs));
        goto free_sys;
    }
    wrap_matrix(A);
    wrap_solver(LS);
    memcpy(N_VGetArrayPointer(y), x0, (size_t)len * sizeof(double));
    set_atol(atol, ncell, n, o->atol);
    void *cv = CVodeCreate(CV_BDF, sc);
    tm = (timing){0, 0, 0};
    const double t0 = omp_get_wtime();
    rc = !cv ? 2 : integrate(cv, &s, y, dky, atol, o, A, LS, 0, ign, out->ok, out->msg, sizeof out->msg) ? 1 : 0;
    out->t_total = omp_get_wtime() - t0;
    if (cv) add_counters(cv, ncell, out);
    if (rc && bsolve_sunlinsol_status(LS) != BSOLVE_SUCCESS)
        snprintf(out->msg + strlen(out->msg), sizeof out->msg - strlen(out->msg), " (batchsolve: %s)",
                 bsolve_ctx_message(ctx));
    for (int c = 0; c < ncell; c++) out->tau[c] = out->ok[c] ? ign_delay(&ign[c], NULL) : -1;
    out->t_rhs = s.t_rhs;
    out->t_jac = s.t_jac;
    out->t_form = tm.form;
    out->t_factor = tm.factor;
    out->t_solve = tm.solve;
    out->thread_s = out->t_total;
    CVodeFree(&cv);
free_sys:
    sunsys_free(&s);
end:
    if (LS) SUNLinSolFree(LS);
    if (A) SUNMatDestroy(A);
    free(ign);
    N_VDestroy(y);
    N_VDestroy(atol);
    N_VDestroy(dky);
    SUNContext_Free(&sc);
    return rc;
}

/* CVODE per cell with SUNDIALS' dense solver, the cells shared among the
 * threads, one CVODE instance per thread; returns as run_block */
static int run_dense(const chem_mech *m, int ncell, const double *P, const double *x0, const opts *o, outcome *out)
{
    const int n = m->nsp + 1, nthr = o->nthreads > 0 ? o->nthreads : omp_get_max_threads();
    int failed = 0, cvode_failed = 0;
    const double t0 = omp_get_wtime();
#pragma omp parallel num_threads(nthr) reduction(| : failed, cvode_failed)
    {
        SUNContext sc = NULL;
        int bad = sunsys_context(&sc) != 0;
        N_Vector y = bad ? NULL : N_VNew_Serial(n, sc), atol = y ? N_VClone(y) : NULL, dky = y ? N_VClone(y) : NULL;
        SUNMatrix A = y ? SUNDenseMatrix(n, n, sc) : NULL;
        SUNLinearSolver LS = A ? SUNLinSol_Dense(y, A, sc) : NULL;
        void *cv = LS ? CVodeCreate(CV_BDF, sc) : NULL;
        sunsys s;
        bad = !cv || sunsys_init(&s, m, 1, P, 1);
        const double tt0 = omp_get_wtime();
        double rhs = 0, jac = 0;
        outcome mine = {0};
        char msg[256] = "";
        tm = (timing){0, 0, 0};
        if (!bad) {
            wrap_matrix(A);
            wrap_solver(LS);
            set_atol(atol, 1, n, o->atol);
        }
        int first = 1;
#pragma omp for schedule(dynamic, 1)
        for (int c = 0; c < ncell; c++) {
            if (bad) {
                out->ok[c] = 0;
                continue;
            }
            ign_track g;
            s.P = P + c;
            memcpy(N_VGetArrayPointer(y), x0 + (size_t)c * n, (size_t)n * sizeof(double));
            const int r = integrate(cv, &s, y, dky, atol, o, A, LS, !first, &g, &out->ok[c], msg, sizeof msg);
            first = 0;
            add_counters(cv, 1, &mine);
            if (r) {
                out->ok[c] = 0;
                cvode_failed = 1;
#pragma omp critical
                snprintf(out->msg, sizeof out->msg, "cell %d: %s", c, msg);
            }
            out->tau[c] = out->ok[c] ? ign_delay(&g, NULL) : -1;
        }
        if (!bad) rhs = s.t_rhs, jac = s.t_jac, sunsys_free(&s);
        const double busy = omp_get_wtime() - tt0;
#pragma omp critical
        {
            out->nst += mine.nst, out->cell_steps += mine.cell_steps, out->nfe_cells += mine.nfe_cells;
            out->nje_cells += mine.nje_cells, out->nsetups += mine.nsetups, out->nni += mine.nni;
            out->ncfn += mine.ncfn, out->netf += mine.netf;
            out->t_rhs += rhs, out->t_jac += jac, out->t_form += tm.form, out->t_factor += tm.factor;
            out->t_solve += tm.solve, out->thread_s += busy;
        }
        CVodeFree(&cv);
        if (LS) SUNLinSolFree(LS);
        if (A) SUNMatDestroy(A);
        if (y) N_VDestroy(y), N_VDestroy(atol), N_VDestroy(dky);
        if (sc) SUNContext_Free(&sc);
        failed |= bad;
    }
    out->t_total = omp_get_wtime() - t0;
    if (failed) snprintf(out->msg, sizeof out->msg, "out of memory");
    return failed ? 2 : cvode_failed;
}

/* per_thread: the times are sums over the threads (the dense runs) */
static void report(const char *name, int per_thread, const outcome *r)
{
    const double other = r->thread_s - r->t_rhs - r->t_jac - r->t_form - r->t_factor - r->t_solve;
    const double pc = 100 / r->thread_s;
    printf("%s: %ld CVODE steps, %ld cell-steps in %.3f s: %.4g cell-steps/s (%.2f us per cell-step)\n", name,
           r->nst, r->cell_steps, r->t_total, r->cell_steps / r->t_total, 1e6 * r->t_total / (double)r->cell_steps);
    printf("  per cell-step: %.2f f, %.3f J; %ld setups, %ld Newton iterations, %ld failed step solves, %ld "
           "error-test failures (all cells)\n",
           (double)r->nfe_cells / r->cell_steps, (double)r->nje_cells / r->cell_steps, r->nsetups, r->nni, r->ncfn,
           r->netf);
    printf("  time%s: kinetics rhs %.3f s (%.0f%%), Jacobian %.3f s (%.0f%%), forming M %.3f s (%.0f%%), factor "
           "%.3f s (%.0f%%), solve %.3f s (%.0f%%), integrator %.3f s (%.0f%%)\n",
           per_thread ? " (summed over threads)" : "", r->t_rhs, pc * r->t_rhs, r->t_jac,
           pc * r->t_jac, r->t_form, pc * r->t_form, r->t_factor, pc * r->t_factor, r->t_solve, pc * r->t_solve,
           other, pc * other);
}

int main(int argc, char **argv)
{
    const char *mech = "gri30", *dir = CHEM_DATA_DIR, *backend = "cpu", *ways = "both";
    int ncell = 18, quiet = 0;
    double maxerr = 0.01;
    opts o = {1e-6, 1e-12, 0, BSOLVE_INTERLEAVED};
    int opt;
    while ((opt = getopt(argc, argv, "m:c:t:r:a:e:s:L:b:d:qh")) != -1) {
        switch (opt) {
        case 'm': mech = optarg; break;
        case 'c': ncell = atoi(optarg); break;
        case 't': o.nthreads = atoi(optarg); break;
        case 'r': o.rtol = atof(optarg); break;
        case 'a': o.atol = atof(optarg); break;
        case 'e': maxerr = atof(optarg); break;
        case 's': ways = optarg; break;
        case 'L':
            if (strcmp(optarg, "il") == 0)
                o.layout = BSOLVE_INTERLEAVED;
            else if (strcmp(optarg, "cm") == 0)
                o.layout = BSOLVE_COL_MAJOR;
            else if (strcmp(optarg, "rm") == 0)
                o.layout = BSOLVE_ROW_MAJOR;
            else
                return usage(), 2;
            break;
        case 'b': backend = optarg; break;
        case 'd': dir = optarg; break;
        case 'q': quiet = 1; break;
        default: return usage(), 2;
        }
    }
    const int do_block = strcmp(ways, "dense") != 0, do_dense = strcmp(ways, "block") != 0;
    if (ncell < 1 || optind != argc || (strcmp(ways, "both") && !(do_block ^ do_dense))) return usage(), 2;

    char msg[512];
    chem_mech *m;
    chem_case *cs;
    int ncase;
    if (chem_load_with_cases(dir, mech, &m, &cs, &ncase, msg, sizeof msg) != CHEM_OK) {
        fprintf(stderr, "chem_cvode: %s\n", msg);
        return 2;
    }
    const bsolve_backend be = strcmp(backend, "cuda") == 0   ? BSOLVE_BACKEND_CUDA
                              : strcmp(backend, "auto") == 0 ? BSOLVE_BACKEND_AUTO
                                                             : BSOLVE_BACKEND_CPU;
    bsolve_ctx *ctx;
    if (bsolve_ctx_create(&ctx, be) != BSOLVE_SUCCESS) {
        char why[256];
        bsolve_backend_probe(be, why, sizeof why);
        fprintf(stderr, "chem_cvode: no %s backend here: %s\n", backend, why);
        return 2;
    }
    bsolve_ctx_set_threads(ctx, o.nthreads);

    /* cell c starts from case c mod ncase, as in chem_ensemble */
    const int n = m->nsp + 1;
    double *x0 = malloc((size_t)ncell * n * sizeof *x0), *P = malloc((size_t)ncell * sizeof *P);
    outcome blk = {0}, den = {0};
    blk.tau = malloc((size_t)ncell * sizeof(double)), den.tau = malloc((size_t)ncell * sizeof(double));
    blk.ok = calloc((size_t)ncell, sizeof(int)), den.ok = calloc((size_t)ncell, sizeof(int));
    if (!x0 || !P || !blk.tau || !den.tau || !blk.ok || !den.ok) {
        fprintf(stderr, "chem_cvode: out of memory\n");
        return 2;
    }
    if (chem_cells_from_cases(m, cs, ncase, ncell, x0, P, msg, sizeof msg) != CHEM_OK) {
        fprintf(stderr, "chem_cvode: %s\n", msg);
        return 2;
    }
    const int nthr = o.nthreads > 0 ? o.nthreads : omp_get_max_threads();
    printf("%s (n = %d), %d cells, %d threads, CVODE %s (BDF, Newton), rtol %g, atol %g; block: backend %s, "
           "layout %s; dense: SUNDIALS' dense solver per cell\n",
           m->name, n, ncell, nthr, SUNDIALS_VERSION, o.rtol, o.atol, bsolve_backend_name(bsolve_ctx_backend(ctx)),
           o.layout == BSOLVE_INTERLEAVED ? "interleaved" : o.layout == BSOLVE_COL_MAJOR ? "column-major"
                                                                                         : "row-major");
    /* an integration that stops leaves its cells failed; a setup error ends the run */
    const int rb = do_block ? run_block(m, ncell, P, x0, &o, ctx, &blk) : 0;
    if (rb) fprintf(stderr, "chem_cvode: one system: %s\n", blk.msg);
    const int rd = rb != 2 && do_dense ? run_dense(m, ncell, P, x0, &o, &den) : 0;
    if (rd) fprintf(stderr, "chem_cvode: per cell: %s\n", den.msg);
    if (rb == 2 || rd == 2) return 2;

    /* delays: against Cantera's, and between the two ways (per case, the
     * worst of its cells) */
    double worst_blk = 0, worst_den = 0, worst_between = 0;
    long failed = 0;
    if (!quiet)
        printf(" case fuel phi    T0 K     P0 Pa   Cantera tau s   %-15s %-15s rel. diffs (block, dense, between)\n",
               do_block ? "block tau s" : "", do_dense ? "dense tau s" : "");
    for (int c = 0; c < ncell; c++) {
        const chem_case *k = &cs[c % ncase];
        if ((do_block && !blk.ok[c]) || (do_dense && !den.ok[c])) {
            if (failed++ < 10) fprintf(stderr, "cell %d (case %d) failed\n", c, c % ncase);
            continue;
        }
        const double eb = do_block ? fabs(blk.tau[c] - k->tau) / k->tau : 0;
        const double ed = do_dense ? fabs(den.tau[c] - k->tau) / k->tau : 0;
        const double bt = do_block && do_dense ? fabs(blk.tau[c] - den.tau[c]) / den.tau[c] : 0;
        worst_blk = fmax(worst_blk, eb), worst_den = fmax(worst_den, ed), worst_between = fmax(worst_between, bt);
        if (!quiet && c < ncase)
            printf(" %4d %-4s %-4g %6g %9g   %.9e %-15.9e %-15.9e %.2e %.2e %.2e\n", c, k->fuel, k->phi, k->T0, k->P0,
                   k->tau, do_block ? blk.tau[c] : 0.0, do_dense ? den.tau[c] : 0.0, eb, ed, bt);
    }
    printf("worst relative delay difference from Cantera: block %.2e, dense %.2e (tolerance %g); between the two "
           "%.2e; %ld of %d cells failed\n",
           worst_blk, worst_den, maxerr, worst_between, failed, ncell);
    if (do_block) report("block (one system, batchsolve adapter)", 0, &blk);
    if (do_dense) report("dense (CVODE per cell, SUNDIALS dense)", nthr > 1, &den);
    if (do_block && do_dense)
        printf("one system / per cell: %.2fx the cell-steps, %.2fx the time\n",
               (double)blk.cell_steps / den.cell_steps, blk.t_total / den.t_total);

    free(x0);
    free(P);
    free(blk.tau), free(den.tau), free(blk.ok), free(den.ok);
    free(cs);
    chem_mech_free(m);
    bsolve_ctx_destroy(ctx);
    return failed || !(worst_blk <= maxerr && worst_den <= maxerr) ? 1 : 0;
}
