/*
 * kinetics.h -- ideal-gas chemical kinetics on a mechanism (mech.h), double
 * precision: net production rates, the right-hand side of the adiabatic
 * constant-pressure reactor in (Y, T), and its analytic Jacobian.  CPU
 * functions, and the per-cell code of the CUDA kernels (kinetics_cuda.h).
 *
 * State of a cell: x = (Y_1 .. Y_K, T), n = K + 1, at a fixed pressure P.
 * The mass fractions are used as given, not renormalized (the functions are
 * then smooth in every Y_k, as an integrator and a finite-difference check
 * need): rho = P / (R T sum_k Y_k/W_k), C_k = rho Y_k / W_k.  For Y summing
 * to 1 this is Cantera's state.
 *
 * Every function takes a caller's workspace of chem_work_len(m) doubles (no
 * allocation, no shared state: cells may be evaluated in parallel, each
 * thread with its own workspace) and returns CHEM_OK, or CHEM_EDOMAIN for a
 * state outside the model (T or P not positive and finite, sum Y_k/W_k not
 * positive), leaving the outputs unspecified.
 */
#ifndef CHEM_KINETICS_H
#define CHEM_KINETICS_H

#include "hd.h"
#include "mech.h"

/* Doubles of workspace that every function below needs. */
CHEM_API size_t chem_work_len(const chem_mech *m);

/* NASA-7 thermo of every species at T: cp/R, h/RT, s/R (any may be NULL). */
CHEM_API void chem_thermo(const chem_mech *m, double T, double *cp_R, double *h_RT, double *s_R);

/* Net production rates wdot (kmol/m^3/s) at (T, P, Y); gross, unless NULL,
 * receives creation + destruction rates, the scale of the terms that cancel
 * in wdot. */
CHEM_API int chem_rates(const chem_mech *m, double T, double P, const double *Y, double *wdot, double *gross,
                        double *work);

/* f = dx/dt of the adiabatic constant-pressure reactor:
 *   dY_k/dt = wdot_k W_k / rho,   dT/dt = -sum_k h_k wdot_k / (rho cp),
 * h_k molar enthalpies, cp the mass heat capacity. */
CHEM_API int chem_rhs(const chem_mech *m, double P, const double *x, double *f, double *work);

/* J = df/dx, n x n, column-major with leading dimension n (J[i + j n] =
 * df_i/dx_j), and f too unless f is NULL. */
CHEM_API int chem_jacobian(const chem_mech *m, double P, const double *x, double *f, double *J, double *work);

/* The same with the vectors of a cell strided by inc, as in a batch stored
 * interleaved by cell (inc = the number of cells): Y[k inc], wdot[k inc],
 * gross[k inc], x[i inc], f[i inc], J[(i + j n) inc].  inc = 1 is the
 * functions above; the workspace stays contiguous. */
CHEM_API int chem_rates_inc(const chem_mech *m, double T, double P, const double *Y, double *wdot, double *gross,
                            size_t inc, double *work);
CHEM_API int chem_rhs_inc(const chem_mech *m, double P, const double *x, double *f, size_t inc, double *work);
CHEM_API int chem_jacobian_inc(const chem_mech *m, double P, const double *x, double *f, double *J, size_t inc,
                               double *work);

#endif
