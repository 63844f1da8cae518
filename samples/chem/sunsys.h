/*
 * sunsys.h -- the constant-pressure reactors of kinetics.h as a SUNDIALS
 * problem: ncell cells of n = nsp + 1 unknowns (Y, T), cell c's at
 * c n .. c n + n - 1 of one N_Vector (serial), each cell at its own
 * pressure.  The right-hand side and the Jacobian for CVODE and ARKODE,
 * the residual and its Jacobian for IDA (F = y' - f(y)), into the
 * batchsolve adapter's block-diagonal matrix (any layout) or, for one cell,
 * into SUNDIALS' dense matrix; and the ignition delay of every cell from
 * CVODE's steps (ignition.h).
 *
 * The cells are evaluated in parallel (OpenMP, nthreads threads, each with
 * its own workspace).  A state outside the model (kinetics.h: CHEM_EDOMAIN)
 * is a recoverable failure (return 1): the integrator cuts its step.
 */
#ifndef CHEM_SUNSYS_H
#define CHEM_SUNSYS_H

#include "ignition.h"
#include "mech.h"

#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nvector.h>

typedef struct sunsys {
    const chem_mech *m;
    int ncell, n, nthreads;
    const double *P; /* ncell pressures, Pa */
    double *work;    /* per thread: kinetics workspace, then n x n */
    size_t wlen;
    double *z;       /* sunsys_track's polynomials, ncell x (IGN_QMAX + 1) */
    /* seconds spent in the right-hand side and the Jacobian, and their counts (cells) */
    double t_rhs, t_jac;
    long rhs_cells, jac_cells;
    /* tests: called after each cell's Jacobian is written (column-major,
     * n x n), e.g. to poison it; NULL for none */
    void (*jac_hook)(void *arg, int cell, int n, double *J);
    void *hook_arg;
} sunsys;

/* A SUNContext without MPI, in SUNDIALS 6 (a NULL communicator) and 7
 * (SUN_COMM_NULL): 0, or SUNDIALS' error code. */
int sunsys_context(SUNContext *sc);

/* 0, or -1 when out of memory.  nthreads 0: OpenMP's default. */
int sunsys_init(sunsys *s, const chem_mech *m, int ncell, const double *P, int nthreads);
void sunsys_free(sunsys *s);

/* CVRhsFn / ARKRhsFn: f = dy/dt (user_data: the sunsys) */
int sunsys_rhs(double t, N_Vector y, N_Vector f, void *user_data);

/* CVLsJacFn / ARKLsJacFn: J = df/dy into the adapter's block-diagonal
 * matrix, or into a SUNDIALS dense matrix when ncell is 1 */
int sunsys_jac(double t, N_Vector y, N_Vector fy, SUNMatrix J, void *user_data, N_Vector t1, N_Vector t2,
               N_Vector t3);

/* IDAResFn: r = y' - f(y) */
int sunsys_res(double t, N_Vector y, N_Vector yp, N_Vector r, void *user_data);

/* IDALsJacFn: dF/dy + cj dF/dy' = cj I - J, block-diagonal matrix */
int sunsys_ida_jac(double t, double cj, N_Vector y, N_Vector yp, N_Vector r, SUNMatrix J, void *user_data,
                   N_Vector t1, N_Vector t2, N_Vector t3);

/* After a CVODE step (CV_ONE_STEP): passes each cell not yet done the T
 * component of the step's polynomial (ign_step: T(t_n + s h) for s in
 * [-1, 0], h the step just taken, from CVODE's dense output at t_n), using
 * dky (a vector of the system's length) as scratch; done[c] becomes 1 once
 * cell c is done.  Returns the number of cells done, or -1 when CVODE's
 * dense output fails. */
int sunsys_track(sunsys *s, void *cvode_mem, ign_track *g, int *done, N_Vector dky);

#endif
