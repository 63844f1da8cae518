/*
 * chem_ensemble.c -- ignition of many independent reactors (cells): the
 * stiff-chemistry workload batchsolve is for.
 *
 * Each cell is an adiabatic constant-pressure reactor of fuel and air (CH4
 * with GRI-Mech 3.0, or H2 with the h2o2 mechanism), started from one of the
 * reference cases of samples/chem/<mech>.ref (3 temperatures x 2 pressures x
 * 3 equivalence ratios, repeated to fill the ensemble) and integrated by a
 * variable-order BDF method with Newton iterations on I - gamma J, the
 * Jacobian frozen across iterations and steps (samples/chem/bdf.h); every
 * sweep over the cells factors the iteration matrices that changed in one
 * bsolve_dgetrf_masked and solves each Newton iteration of the cells still
 * iterating in one bsolve_dgetrs_masked (samples/chem/ensemble.h).  It prints each case's ignition delay (time
 * of the largest dT/dt) against Cantera's, the throughput in cell-steps per
 * second, and where the time went.  Exit status 1 if a cell failed or a
 * delay is off by more than the tolerance (-e).
 *
 * On the CUDA backend (-b cuda, or -b auto finding a GPU) the whole ensemble
 * lives on the GPU (samples/chem/ensemble_cuda.cu): kinetics, BDF stages and
 * the batched LU on device arrays; -l cublas replaces bsolve_dgetrf/dgetrs
 * with cuBLAS's batched getrf/getrs there, for the comparison; -k thread
 * evaluates the kinetics one thread per cell instead of a team per cell.
 *
 *   chem_ensemble [-m gri30|h2o2] [-c cells] [-t threads] [-r rtol] [-a atol]
 *                 [-e max relative delay error] [-l bsolve|cublas] [-L il|cm]
 *                 [-k team|thread] [-b cpu|cuda|auto] [-d data dir] [-q]
 */
#include "batchsolve.h"
#include "cases.h"
#include "ensemble.h"
#include "kinetics.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CHEM_DATA_DIR
#define CHEM_DATA_DIR "samples/chem"
#endif

static void usage(void)
{
    fprintf(stderr, "usage: chem_ensemble [-m gri30|h2o2] [-c cells] [-t threads] [-r rtol] [-a atol] [-e maxerr]\n"
                    "                     [-l bsolve|cublas] [-L il|cm] [-k team|thread] [-b cpu|cuda|auto]\n"
                    "                     [-d datadir] [-q]\n");
}

int main(int argc, char **argv)
{
    const char *mech = "gri30", *dir = CHEM_DATA_DIR, *backend = "cpu";
    int ncell = 1000, nthreads = 0, quiet = 0;
    double maxerr = 0.01;
    ens_opts o;
    ens_default_opts(&o);
    int opt;
    while ((opt = getopt(argc, argv, "m:c:t:r:a:e:l:L:k:b:d:qh")) != -1) {
        switch (opt) {
        case 'm': mech = optarg; break;
        case 'c': ncell = atoi(optarg); break;
        case 't': nthreads = atoi(optarg); break;
        case 'r': o.rtol = atof(optarg); break;
        case 'a': o.atol = atof(optarg); break;
        case 'e': maxerr = atof(optarg); break;
        case 'l':
            if (strcmp(optarg, "bsolve") == 0) {
                o.ls = ENS_LS_BSOLVE;
#ifdef CHEM_HAVE_CUDA
            } else if (strcmp(optarg, "cublas") == 0) {
                o.ls = ENS_LS_CUBLAS;
#endif
            } else {
                fprintf(stderr, "chem_ensemble: linear solver '%s' is not in this build (bsolve%s)\n", optarg,
#ifdef CHEM_HAVE_CUDA
                        ", cublas"
#else
                        ""
#endif
                );
                return 2;
            }
            break;
        case 'L':
            if (strcmp(optarg, "il") == 0)
                o.layout = BSOLVE_INTERLEAVED;
            else if (strcmp(optarg, "cm") == 0)
                o.layout = BSOLVE_COL_MAJOR;
            else
                return usage(), 2;
            break;
        case 'k':
            if (strcmp(optarg, "team") == 0)
                o.kinetics = ENS_KIN_TEAM;
            else if (strcmp(optarg, "thread") == 0)
                o.kinetics = ENS_KIN_THREAD;
            else
                return usage(), 2;
            break;
        case 'b': backend = optarg; break;
        case 'd': dir = optarg; break;
        case 'q': quiet = 1; break;
        default: return usage(), 2;
        }
    }
    if (ncell < 1 || optind != argc) return usage(), 2;
    o.nthreads = nthreads;

    char msg[512];
    chem_mech *m;
    chem_case *cs;
    int ncase;
    if (chem_load_with_cases(dir, mech, &m, &cs, &ncase, msg, sizeof msg) != CHEM_OK) {
        fprintf(stderr, "chem_ensemble: %s\n", msg);
        return 2;
    }

    bsolve_backend be = strcmp(backend, "cuda") == 0   ? BSOLVE_BACKEND_CUDA
                        : strcmp(backend, "auto") == 0 ? BSOLVE_BACKEND_AUTO
                                                       : BSOLVE_BACKEND_CPU;
    bsolve_ctx *ctx;
    if (bsolve_ctx_create(&ctx, be) != BSOLVE_SUCCESS) {
        char why[256];
        bsolve_backend_probe(be, why, sizeof why);
        fprintf(stderr, "chem_ensemble: no %s backend here: %s\n", backend, why);
        return 2;
    }
    bsolve_ctx_set_threads(ctx, nthreads);
    const int on_gpu = bsolve_ctx_backend(ctx) == BSOLVE_BACKEND_CUDA;
#ifndef CHEM_HAVE_CUDA
    if (on_gpu) {
        fprintf(stderr, "chem_ensemble: built without the GPU ensemble (samples/chem/ensemble_cuda.cu)\n");
        return 2;
    }
#endif
    if (o.ls == ENS_LS_CUBLAS && !on_gpu) {
        fprintf(stderr, "chem_ensemble: -l cublas needs the CUDA backend (-b cuda)\n");
        return 2;
    }

    /* cell c starts from case c mod ncase */
    const int n = m->nsp + 1;
    double *x0 = malloc((size_t)ncell * n * sizeof *x0), *P = malloc((size_t)ncell * sizeof *P);
    ens_cell_result *res = malloc((size_t)ncell * sizeof *res);
    if (!x0 || !P || !res) {
        fprintf(stderr, "chem_ensemble: out of memory\n");
        return 2;
    }
    if (chem_cells_from_cases(m, cs, ncase, ncell, x0, P, msg, sizeof msg) != CHEM_OK) {
        fprintf(stderr, "chem_ensemble: %s\n", msg);
        return 2;
    }

    printf("%s (n = %d), %d cells, %d threads, backend %s%s, linear solver %s, layout %s, rtol %g, atol %g\n",
           m->name, n, ncell, nthreads > 0 ? nthreads : omp_get_max_threads(),
           bsolve_backend_name(bsolve_ctx_backend(ctx)),
           !on_gpu ? "" : o.kinetics == ENS_KIN_THREAD ? " (cells on the device, kinetics a thread per cell)"
                                                       : " (cells on the device, kinetics a team per cell)",
           o.ls == ENS_LS_CUBLAS ? "cuBLAS batched" : "batchsolve",
           o.ls == ENS_LS_CUBLAS || o.layout == BSOLVE_COL_MAJOR ? "column-major" : "interleaved", o.rtol, o.atol);
    ens_stats st;
#ifdef CHEM_HAVE_CUDA
    const int rc = on_gpu ? ens_run_cuda(m, ncell, P, x0, &o, ctx, res, &st, msg, sizeof msg)
                          : ens_run(m, ncell, P, x0, &o, ctx, res, &st, msg, sizeof msg);
#else
    const int rc = ens_run(m, ncell, P, x0, &o, ctx, res, &st, msg, sizeof msg);
#endif
    if (rc != ENS_OK) {
        fprintf(stderr, "chem_ensemble: %s\n", msg);
        return 2;
    }

    /* delays against Cantera's, per case (the worst of its cells) */
    double worst = 0;
    long steps = 0, failed = 0;
    if (!quiet) printf(" case fuel phi    T0 K     P0 Pa   Cantera tau s   tau s           rel. diff  steps  J  M\n");
    for (int k = 0; k < ncase && k < ncell; k++) {
        double err = 0, tau = 0;
        for (int c = k; c < ncell; c += ncase) {
            if (res[c].status != ENS_DONE) continue;
            const double e = fabs(res[c].tau - cs[k].tau) / cs[k].tau;
            if (e >= err) err = e, tau = res[c].tau;
        }
        worst = fmax(worst, err);
        if (!quiet)
            printf(" %4d %-4s %-4g %6g %9g   %.9e %.9e %9.2e %6ld %2ld %2ld\n", k, cs[k].fuel, cs[k].phi, cs[k].T0,
                   cs[k].P0, cs[k].tau, tau, err, res[k].nst, res[k].nje, res[k].nsetup);
    }
    for (int c = 0; c < ncell; c++) {
        steps += res[c].nst;
        if (res[c].status != ENS_DONE) {
            if (failed++ < 10)
                fprintf(stderr, "cell %d (case %d) failed at t = %g: %s\n", c, c % ncase, res[c].t,
                        ens_status_name(res[c].status));
        }
    }
    long nfe = 0, nje = 0, nsetup = 0, nni = 0, ncfn = 0, netf = 0, nff = 0;
    for (int c = 0; c < ncell; c++) {
        nfe += res[c].nfe, nje += res[c].nje, nsetup += res[c].nsetup, nni += res[c].nni;
        ncfn += res[c].ncfn, netf += res[c].netf, nff += res[c].nfactor_fail;
    }
    printf("worst relative delay difference from Cantera: %.2e (tolerance %g); %ld of %d cells failed\n", worst,
           maxerr, failed, ncell);
    printf("%ld cell-steps in %.3f s: %.4g cell-steps/s (%.2f us per cell-step), %ld sweeps\n", steps, st.t_total,
           steps / st.t_total, 1e6 * st.t_total / (double)steps, st.sweeps);
    printf("per cell-step: %.2f f, %.3f J, %.3f M needed, %.2f Newton iterations; %.3f Newton and %.3f "
           "error-test failures, %ld failed factorizations or solves\n",
           (double)nfe / steps, (double)nje / steps, (double)nsetup / steps, (double)nni / steps,
           (double)ncfn / steps, (double)netf / steps, nff);
    const double other = st.t_total - st.t_rhs - st.t_jac - st.t_form - st.t_factor - st.t_solve;
    printf("time: kinetics rhs %.3f s (%.0f%%), Jacobian %.3f s (%.0f%%), forming M %.3f s (%.0f%%), "
           "factor %.3f s (%.0f%%), solve %.3f s (%.0f%%), integrator %.3f s (%.0f%%)\n",
           st.t_rhs, 100 * st.t_rhs / st.t_total, st.t_jac, 100 * st.t_jac / st.t_total, st.t_form,
           100 * st.t_form / st.t_total, st.t_factor, 100 * st.t_factor / st.t_total, st.t_solve,
           100 * st.t_solve / st.t_total, other, 100 * other / st.t_total);
    if (on_gpu)
        printf("integrator: its kernels %.3f s, the rest (launches, waits for counts, setup) %.3f s\n", st.t_bdf,
               other - st.t_bdf);
    printf("linear algebra (factor + solve) %.3f s of %.3f s end to end%s\n", st.t_factor + st.t_solve, st.t_total,
           on_gpu ? " (stage times from CUDA events on the device; end to end includes its setup)" : "");
    printf("linear algebra: %ld getrf calls, %ld systems factored for %ld needed; %ld getrs calls, %ld systems "
           "solved for %ld iterating\n",
           st.getrf_calls, st.factors_done, st.factors_needed, st.getrs_calls, st.solves_done, st.solves_needed);

    free(x0);
    free(P);
    free(res);
    free(cs);
    chem_mech_free(m);
    bsolve_ctx_destroy(ctx);
    return failed || !(worst <= maxerr) ? 1 : 0;
}
