/*
 * batchsolve_sundials.h -- batchsolve as the linear solver of SUNDIALS'
 * integrators (CVODE, ARKODE, IDA) for a system made of many independent
 * blocks, e.g. the chemistry of every cell of a flow solver integrated as
 * one ODE system: a block-diagonal SUNMatrix, and a direct SUNLinearSolver
 * whose setup factors every block in one bsolve_dgetrf and whose solve is
 * one bsolve_dgetrs.
 *
 * A companion library (libbatchsolve_sundials.a), built when SUNDIALS 6 or
 * 7 is found; it needs SUNDIALS configured for double precision
 * (sunrealtype = double).  Link it before libbatchsolve and SUNDIALS.
 *
 * The unknowns of block k are entries k*n .. k*n + n - 1 of the N_Vectors
 * (cell-major), and the vectors must give their data with
 * N_VGetArrayPointer (serial, OpenMP and pthreads vectors do): the solver
 * reads and writes them there, on any batchsolve backend (the CUDA backend
 * stages the host arrays through the GPU).
 *
 * Failures: a block whose iteration matrix is singular (an exactly zero
 * pivot) or holds a NaN or an infinity makes the setup return
 * SUNLS_LUFACT_FAIL, a recoverable failure, so that the integrator cuts its
 * step and forms the matrix again; it never passes as success.  The other
 * blocks are factored as usual, and a solve after such a setup solves them,
 * returns NaN in the failed blocks and SUNLS_LUFACT_FAIL again.  A solve
 * whose right-hand side holds a NaN or an infinity in some block returns
 * SUNLS_PACKAGE_FAIL_REC (recoverable), the other blocks solved.  What
 * each block reported is kept (bsolve_sunlinsol_info).  An argument error
 * or a failed batchsolve call (no memory, a GPU error) is unrecoverable: a
 * negative return, and bsolve_sunlinsol_status says which.
 *
 * With CVODE and ARKODE the integrator forms M = I - gamma J (copy and
 * scaleaddi, or scaleadd with a mass matrix) from the Jacobian the user's
 * function writes into the matrix; SUNDIALS has no difference-quotient
 * Jacobian for custom matrices, so a Jacobian function is required
 * (CVodeSetJacFn, ARKodeSetJacFn / ARKStepSetJacFn, IDASetJacFn).  With IDA
 * the Jacobian function writes dF/dy + cj dF/dy' itself.
 *
 * A minimal use with CVODE (error checks left out):
 *
 *     SUNMatrix A;
 *     SUNLinearSolver LS;
 *     bsolve_sunmatrix_create(sunctx, n, cells, BSOLVE_INTERLEAVED, &A);
 *     bsolve_sunlinsol_create(ctx, BSOLVE_PIVOT_PARTIAL, y, A, sunctx, &LS);
 *     CVodeSetLinearSolver(cvode_mem, LS, A);
 *     CVodeSetJacFn(cvode_mem, jac);  // fills block k's entry (i, j) at
 *                                     // bsolve_sunmatrix_data(J)[bsolve_sunmatrix_index(J, k, i, j)]
 *     ...
 *     SUNLinSolFree(LS);
 *     SUNMatDestroy(A);
 *     bsolve_ctx_destroy(ctx);        // after the solver that uses it
 */
#ifndef BATCHSOLVE_SUNDIALS_H
#define BATCHSOLVE_SUNDIALS_H

#include "batchsolve.h"

#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nvector.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * The block-diagonal matrix
 *
 * nblocks blocks of order n, stored in one array of n * n * nblocks
 * doubles in one of batchsolve's layouts (batchsolve.h, "Batch layouts"),
 * packed:
 *   BSOLVE_COL_MAJOR    entry (i, j) of block k at k*n*n + i + j*n
 *   BSOLVE_ROW_MAJOR    ... at k*n*n + i*n + j
 *   BSOLVE_INTERLEAVED  ... at (i + j*n)*nblocks + k
 * INTERLEAVED is the layout the CPU and GPU kernels factor fastest;
 * COL_MAJOR lets a Jacobian routine that writes one LAPACK-style n x n
 * matrix write each block in place.
 *
 * Its SUNMatrix operations are those the integrators call: clone (same
 * shape and layout, entries not copied), destroy, zero, copy, scaleadd
 * (A = c A + B), scaleaddi (A = c A + I), matvec (y = A x, per block) and
 * space.  Operands must have the same n, nblocks and layout, and vectors
 * n * nblocks entries; otherwise the operation fails with SUNDIALS'
 * "illegal input" code (SUNMAT_ILL_INPUT; SUN_ERR_ARG_INCOMPATIBLE in
 * SUNDIALS 7).  The ID is SUNMATRIX_CUSTOM.
 * ------------------------------------------------------------------------ */

/* Creates a zero matrix of nblocks >= 1 blocks of order n (1..BSOLVE_MAX_N)
 * in layout kind.  BSOLVE_SUCCESS and *A, or BSOLVE_EINVAL (a size out of
 * range, or n * n * nblocks doubles beyond what int64_t or SUNDIALS'
 * sunindextype indexes), BSOLVE_ENULL (A or sunctx NULL), BSOLVE_ENOMEM,
 * with *A NULL.  Free it with SUNMatDestroy. */
BSOLVE_API bsolve_status bsolve_sunmatrix_create(SUNContext sunctx, int64_t n, int64_t nblocks,
                                                 bsolve_layout_kind kind, SUNMatrix *A);

/* Whether A was made by bsolve_sunmatrix_create (or cloned from one),
 * told by its getid operation: the others may be wrapped (e.g. to time
 * them) and the matrix still works with the solver. */
BSOLVE_API int bsolve_sunmatrix_is(SUNMatrix A);

/* The shape, the entries and their layout (for bsolve calls on them);
 * on a matrix that is not one of these: 0, NULL, and a zero layout. */
BSOLVE_API int64_t bsolve_sunmatrix_n(SUNMatrix A);
BSOLVE_API int64_t bsolve_sunmatrix_nblocks(SUNMatrix A);
BSOLVE_API double *bsolve_sunmatrix_data(SUNMatrix A);
BSOLVE_API bsolve_layout bsolve_sunmatrix_layout(SUNMatrix A);

/* Where entry (i, j) (0-based) of block k is in bsolve_sunmatrix_data(A);
 * no range checks. */
BSOLVE_API int64_t bsolve_sunmatrix_index(SUNMatrix A, int64_t k, int64_t i, int64_t j);

/* ------------------------------------------------------------------------
 * The linear solver
 *
 * Type SUNLINEARSOLVER_DIRECT, ID SUNLINEARSOLVER_CUSTOM.  setup(A) factors
 * every block of A (a matrix from bsolve_sunmatrix_create of the solver's
 * shape) into the solver's bsolve_lu; solve(A, x, b) sets x = A^-1 b with
 * that factorization (x and b may be the same vector).  Returns as above:
 * 0, SUNLS_LUFACT_FAIL or SUNLS_PACKAGE_FAIL_REC (> 0, recoverable), or < 0.
 * lastflag: 0 after a call with every block solved; 1 + the index of the
 * first block that failed; -(bsolve_status) after a failed batchsolve call
 * or an argument error (-BSOLVE_EINVAL).
 * ------------------------------------------------------------------------ */

/* Creates a solver for matrices shaped as A and vectors shaped as y
 * (n * nblocks entries, with N_VGetArrayPointer), factoring with `pivot`
 * (BSOLVE_PIVOT_PARTIAL is LAPACK's and SUNDIALS' dense solver's choice) on
 * ctx's backend.  ctx is borrowed: it must outlive the solver and not be
 * used by another thread during the solver's calls; the solver sets no
 * option on it (its thread count is the caller's).  BSOLVE_SUCCESS and
 * *LS, or BSOLVE_ENULL, BSOLVE_EINVAL (A not a block-diagonal matrix, y of
 * another length or without a host array), or the status of
 * bsolve_lu_create, with *LS NULL.  Free it with SUNLinSolFree. */
BSOLVE_API bsolve_status bsolve_sunlinsol_create(bsolve_ctx *ctx, bsolve_pivot pivot, N_Vector y, SUNMatrix A,
                                                 SUNContext sunctx, SUNLinearSolver *LS);

/* Whether LS was made by bsolve_sunlinsol_create (told by its getid
 * operation, as for the matrix). */
BSOLVE_API int bsolve_sunlinsol_is(SUNLinearSolver LS);

/* The per-block info of the last setup or solve (batchsolve.h, "Per-system
 * info values": 0, j > 0 singular at step j, BSOLVE_INFO_NONFINITE), nblocks
 * entries, valid until the next call on LS; NULL for a solver that is not
 * one of these. */
BSOLVE_API const int32_t *bsolve_sunlinsol_info(SUNLinearSolver LS);

/* Blocks with info != 0 in the last setup or solve. */
BSOLVE_API int64_t bsolve_sunlinsol_nfailed(SUNLinearSolver LS);

/* The status of the last batchsolve call the solver made (BSOLVE_SUCCESS,
 * or why a setup or solve returned a negative value); its message is
 * bsolve_ctx_message of the solver's context. */
BSOLVE_API bsolve_status bsolve_sunlinsol_status(SUNLinearSolver LS);

#ifdef __cplusplus
}
#endif

#endif /* BATCHSOLVE_SUNDIALS_H */
