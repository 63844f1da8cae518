/*
 * bdf.h -- one cell's variable-step, variable-order (1..5) BDF method in
 * Nordsieck form, as CVODE implements it (cvode.c: prediction, coefficients,
 * error test, step and order selection, with its constants), split into the
 * per-cell stages of a step attempt so that a driver can run each stage for
 * many cells at once and batch the linear algebra in between:
 *
 *   bdf_begin        new step: error weights, pending order/step change;
 *                    predict, set the coefficients; say whether this
 *                    attempt needs a new iteration matrix M = I - gamma J
 *                    and whether a new Jacobian J;
 *   (driver)         f(zn[0]) (and J where asked), M formed with gamma_m,
 *                    factored; bdf_setup_done for the cells that needed it;
 *   bdf_newton_rhs   the Newton right-hand side gamma f(y) - rl1 zn[1] - acor;
 *   (driver)         delta = M^-1 rhs;
 *   bdf_newton_update  acor += delta, y = zn[0] + acor, convergence test;
 *                    f(y) again while it says CONTINUE;
 *   bdf_conv_fail    Newton diverged, or M was singular, or f failed;
 *   bdf_error_test   converged: local error test, accept (order and step for
 *                    the next step chosen) or reject (step reduced).
 *
 * The iteration matrix is frozen as CVODE's lsetup rules say: re-formed and
 * re-factored only on the first step, after a failure, when gamma has moved
 * more than 30% from the gamma it was formed with, or 20 steps after the
 * last; J itself re-evaluated only on the first step, after a convergence
 * failure, or 51 steps after the last evaluation.  A Newton failure with a
 * J from an earlier step retries the same step with a fresh J; with a fresh
 * J it cuts the step by 4.
 *
 * No state outside the cell: every function touches one cell's scalars
 * (bdf_cell) and vectors (bdf_vec_len doubles, bdf_vecs), so cells may be
 * advanced in parallel, and each stage maps to one GPU thread per cell
 * (the functions compile for the device too, hd.h; a batch on the GPU
 * stores the vectors interleaved by cell, bdf_vecs_interleaved).
 */
#ifndef CHEM_BDF_H
#define CHEM_BDF_H

#include <stddef.h>

#include "hd.h"

#define BDF_QMAX 5
#define BDF_VEC_N (BDF_QMAX + 6) /* vectors of a cell: zn[0..QMAX], acor, ewt, y, f, tmp */

typedef struct bdf_opts {
    double rtol;         /* relative tolerance */
    const double *atol;  /* n absolute tolerances, one per component */
    int qmax;            /* highest order, 1..BDF_QMAX */
} bdf_opts;

/* What the next attempt of a cell is (bdf_cell.next). */
enum bdf_next {
    BDF_NEW_STEP = 0,   /* a new step */
    BDF_AFTER_CONV_FAIL, /* the step again, h cut after a Newton failure */
    BDF_AFTER_ERR_FAIL,  /* the step again, h cut after an error-test failure */
    BDF_RETRY_JAC,       /* the same prediction again, with a fresh J */
    BDF_RELOAD           /* order 1 restarted: zn[1] = h f(zn[0]) first (bdf_reload) */
};

/* bdf_begin's answer, a bit set */
enum { BDF_NEED_SETUP = 1, BDF_NEED_JAC = 2 };

/* bdf_newton_update's answer */
enum { BDF_CONVERGED = 0, BDF_CONTINUE = 1, BDF_DIVERGED = 2 };

/* bdf_error_test's and bdf_conv_fail's answers */
enum { BDF_ACCEPTED = 0, BDF_RETRY = 1, BDF_FAILED = 2 };

typedef struct bdf_cell {
    double t;             /* time of zn (the predicted time during an attempt) */
    double t_saved;       /* time of the last accepted step */
    double h, hscale, hprime, eta, etamax;
    double tau[BDF_QMAX + 2]; /* tau[1..]: the last step sizes, newest first */
    double l[BDF_QMAX + 1], tq[6];
    double gamma, gamma_m; /* h / l[1] now, and that M was formed with */
    double gamrat, rl1, crate, delp, acnrm, saved_tq5;
    int q, qprime, qwait, next, m; /* m: Newton iteration of this attempt */
    int nef, ncf;         /* error-test and Newton failures of this step */
    int jcur;             /* J was evaluated for this attempt */
    long nst, nst_m, nst_j; /* steps; step of the last M, of the last J */
    /* counters */
    long nfe, nje, nsetup, nni, ncfn, netf;
} bdf_cell;

/* The vectors of a cell, views into one block of bdf_vec_len(n) doubles or
 * into a batch interleaved by cell; entry i of each at [i inc]. */
typedef struct bdf_vecs {
    double *zn[BDF_QMAX + 1]; /* Nordsieck array: zn[j] = h^j y^(j) / j! */
    double *acor;             /* the correction of this attempt */
    double *ewt;              /* error weights 1 / (rtol |y| + atol) */
    double *y;                /* the current iterate zn[0] + acor */
    double *f;                /* f(y) */
    double *tmp;
    size_t inc;
} bdf_vecs;

CHEM_API size_t bdf_vec_len(int n);
/* A cell's own block (inc 1). */
CHEM_API bdf_vecs bdf_vecs_of(double *block, int n);
/* Cell `cell` of a batch of ncell cells stored interleaved: entry i of the
 * cell's vector b (0..BDF_VEC_N-1) at base[(b n + i) ncell + cell]. */
CHEM_API bdf_vecs bdf_vecs_interleaved(double *base, int n, size_t ncell, size_t cell);

/* Weighted root-mean-square norm sqrt(sum (v_i w_i)^2 / n) (entries [i inc]). */
CHEM_API double bdf_wrms(int n, const double *v, const double *w, size_t inc);

/* Starts a cell at (t0, y0) with f0 = f(y0) (both strided as v) and first step h0. */
CHEM_API void bdf_init(bdf_cell *c, const bdf_opts *o, int n, bdf_vecs v, double t0, const double *y0,
                       const double *f0, double h0);

/* A first step size after CVODE's cvHin: the second derivative estimated
 * by differences of f along f0, h0 = sqrt(2 / ||y''||) / 2 within
 * [100 eps tdist, tdist / 10].  rhs(arg, y, f) returns 0 or an error, in
 * which case a shorter difference step is tried.  ewt: the weights at y0;
 * y1, f1: n doubles of scratch.  y0, f0, ewt, y1, f1 (and rhs's y and f)
 * strided by inc; atol contiguous. */
typedef int (*bdf_rhs_fn)(void *arg, const double *y, double *f);
CHEM_API double bdf_initial_step(int n, const double *y0, const double *f0, const double *ewt, const double *atol,
                                 double tdist, bdf_rhs_fn rhs, void *arg, double *y1, double *f1, size_t inc);

/* Order 1 restarted after repeated error-test failures: zn[1] = h f, f =
 * f(zn[0]) (strided as v); call before bdf_begin when c->next == BDF_RELOAD. */
CHEM_API void bdf_reload(bdf_cell *c, int n, bdf_vecs v, const double *f);

/* Begins a step attempt (see above): BDF_NEED_SETUP / BDF_NEED_JAC bits,
 * or -1 when the step has become too small to change t. */
CHEM_API int bdf_begin(bdf_cell *c, const bdf_opts *o, int n, bdf_vecs v);

/* M = I - gamma J was formed with the current gamma and factored; jac: J
 * was evaluated for it. */
CHEM_API void bdf_setup_done(bdf_cell *c, int jac);

/* rhs[i inc] = gamma f_i - rl1 zn[1]_i - acor_i, f = f(y) (y = zn[0] on
 * the first iteration). */
CHEM_API void bdf_newton_rhs(const bdf_cell *c, int n, bdf_vecs v, double *rhs, size_t inc);

/* delta[i inc] = M^-1 rhs: acor, y and the convergence test (CONVERGED,
 * CONTINUE: evaluate f(y) and iterate, DIVERGED). */
CHEM_API int bdf_newton_update(bdf_cell *c, int n, bdf_vecs v, const double *delta, size_t inc);

/* The attempt's Newton iteration failed (or its M was singular, or f could
 * not be evaluated): RETRY (with a fresh J, or a step cut by 4) or FAILED
 * (10 failures on one step). */
CHEM_API int bdf_conv_fail(bdf_cell *c, int n, bdf_vecs v);

/* After convergence: ACCEPTED (zn updated, next step and order chosen),
 * RETRY (step reduced) or FAILED (7 error-test failures on one step). */
CHEM_API int bdf_error_test(bdf_cell *c, const bdf_opts *o, int n, bdf_vecs v);

#endif
