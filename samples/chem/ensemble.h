/*
 * ensemble.h -- many independent constant-pressure reactors (cells), each
 * with its own pressure and initial state, integrated together by the BDF
 * method of bdf.h until each has ignited (ignition.h).
 *
 * The cells advance in sweeps: each sweep makes one step attempt for every
 * cell still running, stage by stage (bdf.h), each stage a loop over cells
 * with no dependence between cells (OpenMP here; one GPU thread per cell in
 * a port).  The linear algebra of a sweep is batched over the running cells:
 *   - one bsolve_dgetrf_masked of the iteration matrices M = I - gamma J
 *     when any cell needs a new one: the mask flags the cells whose M
 *     changed, the others keep their factors in the factorization object
 *     (all of them are factored again when the object shrinks, which
 *     moves the cells to other slots);
 *   - one bsolve_dgetrs_masked per Newton iteration, flagging the cells
 *     still iterating.
 * A cell whose factorization or solve reports info != 0 (singular, NaN or
 * infinite) fails its Newton iteration: its step is retried with a fresh
 * Jacobian or cut, never stopping the other cells.
 *
 * Memory per cell: its Jacobian (n^2, kept between steps), the Nordsieck
 * array and work vectors (11 n), and its share of the batched M, B and the
 * factorization (n^2 + n each).
 *
 * ens_run_cuda (ensemble_cuda.cu, in builds with CUDA) runs the same sweeps
 * entirely on the GPU: every stage a kernel over device-resident cells, the
 * integrator's one thread per cell, the kinetics' a team per cell.
 */
#ifndef CHEM_ENSEMBLE_H
#define CHEM_ENSEMBLE_H

#include "batchsolve.h"
#include "mech.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The linear solver of the Newton iterations. */
typedef enum {
    ENS_LS_BSOLVE = 0, /* bsolve_dgetrf_masked / bsolve_dgetrs_masked, partial pivoting */
    ENS_LS_CUBLAS      /* ens_run_cuda only: cublasDgetrfBatched / cublasDgetrsBatched on the
                          systems that need them (pointer arrays), column-major */
} ens_linsolve;

/* ens_run_cuda's kinetics kernels (kinetics_cuda.h). */
typedef enum {
    ENS_KIN_TEAM = 0, /* a team per cell (a warp for f, a block for J), where the mechanism's fits */
    ENS_KIN_THREAD    /* one thread per cell, its arrays in local memory */
} ens_kinetics;

typedef struct ens_opts {
    double rtol;         /* relative tolerance */
    double atol;         /* absolute tolerance of the mass fractions */
    double atol_T;       /* ... of the temperature (K) */
    double t_max;        /* a cell not ignited by then fails (s) */
    long max_steps;      /* a cell needing more steps fails */
    int qmax;            /* highest BDF order, 1..5 */
    int nthreads;        /* OpenMP threads of the per-cell loops; 0: OpenMP's default */
    ens_linsolve ls;
    ens_kinetics kinetics; /* ens_run_cuda only */
    bsolve_layout_kind layout; /* of the batched M and right-hand sides: INTERLEAVED or COL_MAJOR */
    /* Tests only: called after each Jacobian evaluation of a cell (J: n x n,
     * column-major), e.g. to make it singular; NULL for none. */
    void (*jac_hook)(void *arg, int cell, long nje, int n, double *J);
    void *hook_arg;
    /* Tests only, ens_run_cuda (whose kernels call no host hook): evaluation
     * number poison_nje (from 1) of cell poison_cell's Jacobian is made all
     * NaN; 0: none. */
    long poison_nje;
    int poison_cell;
} ens_opts;

/* Defaults: rtol 1e-6, atol 1e-12, atol_T 1e-6, t_max 100 s, 10^5 steps,
 * order 5, interleaved. */
void ens_default_opts(ens_opts *o);

enum ens_cell_status {
    ENS_RUNNING = 0,
    ENS_DONE,          /* ignited and burnt */
    ENS_FAIL_KINETICS, /* f undefined at the initial state */
    ENS_FAIL_ERRTEST,  /* 7 error-test failures on one step */
    ENS_FAIL_CONV,     /* 10 Newton failures on one step */
    ENS_FAIL_STEP,     /* the step became too small to change t */
    ENS_FAIL_STEPS,    /* more than max_steps steps */
    ENS_FAIL_TMAX      /* no ignition before t_max */
};
const char *ens_status_name(int status);

typedef struct ens_cell_result {
    int status;
    double tau;  /* ignition delay (time of the largest dT/dt), s */
    double peak; /* that dT/dt, K/s */
    double t;    /* time reached */
    long nst, nfe, nje, nsetup, nni, ncfn, netf;
    long nfactor_fail; /* factorizations (or solves) of this cell with info != 0 */
} ens_cell_result;

typedef struct ens_stats {
    /* seconds of wall time in each part of the sweeps; t_bdf: the
     * integrator's own kernels (ens_run_cuda only; 0 on the CPU) */
    double t_rhs, t_jac, t_form, t_factor, t_solve, t_bdf, t_total;
    long sweeps, getrf_calls, getrs_calls;
    long factors_needed, factors_done; /* cells that needed a new M; systems factored */
    long solves_needed, solves_done;   /* cells iterating; systems solved */
} ens_stats;

enum { ENS_OK = 0, ENS_EINVAL, ENS_ENOMEM, ENS_EBSOLVE, ENS_EDEVICE };

/* Integrates ncell cells (state x0 + c n, n = nsp + 1: Y then T; pressure
 * P[c]) from t = 0 on the context's backend (whose thread count the caller
 * sets).  res: ncell results; st: the run's figures.  Returns ENS_OK when
 * the run completed, whatever the cells' statuses; otherwise an error with
 * a message in msg. */
int ens_run(const chem_mech *m, int ncell, const double *P, const double *x0, const ens_opts *o, bsolve_ctx *ctx,
            ens_cell_result *res, ens_stats *st, char *msg, size_t msglen);

/* The same on the GPU of ctx, a CUDA context (host arrays in and out; the
 * cells live in device memory, the linear algebra is bsolve_dgetrf_masked
 * and bsolve_dgetrs_masked on device arrays on a stream of the run, or
 * cuBLAS's with ENS_LS_CUBLAS).
 * st's times are the device's (CUDA events), t_total the host's wall time.
 * ENS_EDEVICE: a CUDA error (message in msg); jac_hook is not supported. */
int ens_run_cuda(const chem_mech *m, int ncell, const double *P, const double *x0, const ens_opts *o, bsolve_ctx *ctx,
                 ens_cell_result *res, ens_stats *st, char *msg, size_t msglen);

#ifdef __cplusplus
}
#endif

#endif
