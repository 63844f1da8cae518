/*
 * sunlinsol_bsolve.c -- the direct SUNLinearSolver of the SUNDIALS adapter
 * (include/batchsolve_sundials.h): setup = one bsolve_dgetrf of every block
 * of the block-diagonal matrix, solve = one bsolve_dgetrs on the vector's
 * data, the blocks' right-hand sides column-major with stride n.
 *
 * Per-block failures must reach the integrator as a recoverable failure:
 * SUNDIALS' own GPU dense solvers lose them (the MAGMA one skips its info
 * array in asynchronous mode), and a NaN block that "solves" gives the
 * integrator a NaN correction it may accept.  Here every setup and solve
 * reads the whole info array before answering.
 */
#include "batchsolve_sundials.h"

#include "sun_compat.h"

#include <stdlib.h>
#include <string.h>

typedef struct bsi_sunls {
    bsolve_ctx *ctx; /* borrowed */
    bsolve_lu *lu;
    int64_t n, nblocks;
    int32_t *info;          /* of the last setup or solve */
    int64_t nfailed;        /* blocks with info != 0 there */
    int64_t setup_failed;   /* ... in the last setup */
    int factored;           /* a setup has made lu */
    sunindextype last_flag;
    bsolve_status status;   /* of the last batchsolve call */
} bsi_sunls;

static bsi_sunls *content(SUNLinearSolver S)
{
    return (bsi_sunls *)S->content;
}

static SUNLinearSolver_Type ls_gettype(SUNLinearSolver S)
{
    (void)S;
    return SUNLINEARSOLVER_DIRECT;
}

static SUNLinearSolver_ID ls_getid(SUNLinearSolver S)
{
    (void)S;
    return SUNLINEARSOLVER_CUSTOM;
}

static bsi_sun_err ls_initialize(SUNLinearSolver S)
{
    bsi_sunls *c = content(S);
    c->last_flag = 0;
    return BSI_SUN_OK;
}

/* blocks with info != 0, and last_flag for them */
static int64_t count_failed(bsi_sunls *c)
{
    int64_t failed = 0, first = -1;
    for (int64_t k = 0; k < c->nblocks; k++)
        if (c->info[k] != 0) {
            if (first < 0) first = k;
            failed++;
        }
    c->nfailed = failed;
    c->last_flag = (sunindextype)(first + 1);
    return failed;
}

/* an argument error or a failed batchsolve call */
static int unrecoverable(bsi_sunls *c, bsolve_status s)
{
    c->status = s;
    c->last_flag = -(sunindextype)s;
    return s == BSOLVE_EINVAL || s == BSOLVE_ENULL || s == BSOLVE_EMISMATCH ? BSI_SUNLS_EINPUT : BSI_SUNLS_EPACKAGE;
}

static int ls_setup(SUNLinearSolver S, SUNMatrix A)
{
    bsi_sunls *c = content(S);
    if (!bsolve_sunmatrix_is(A) || bsolve_sunmatrix_n(A) != c->n || bsolve_sunmatrix_nblocks(A) != c->nblocks)
        return unrecoverable(c, BSOLVE_EINVAL);
    const bsolve_status s = bsolve_dgetrf(c->ctx, bsolve_sunmatrix_data(A), bsolve_sunmatrix_layout(A), c->lu, c->info);
    c->factored = s == BSOLVE_SUCCESS;
    if (s != BSOLVE_SUCCESS) return unrecoverable(c, s);
    c->status = BSOLVE_SUCCESS;
    c->setup_failed = count_failed(c);
    return c->setup_failed ? SUNLS_LUFACT_FAIL : 0;
}

static int ls_solve(SUNLinearSolver S, SUNMatrix A, N_Vector x, N_Vector b, sunrealtype tol)
{
    (void)A; /* the factorization of the last setup is what is solved with */
    (void)tol;
    bsi_sunls *c = content(S);
    const int64_t len = c->n * c->nblocks;
    if (!c->factored || !x || !b || (int64_t)N_VGetLength(x) != len || (int64_t)N_VGetLength(b) != len)
        return unrecoverable(c, BSOLVE_EINVAL);
    double *xd = N_VGetArrayPointer(x);
    const double *bd = N_VGetArrayPointer(b);
    if (!xd || !bd) return unrecoverable(c, BSOLVE_EINVAL);
    if (xd != bd) memcpy(xd, bd, (size_t)len * sizeof *xd);
    const bsolve_status s = bsolve_dgetrs(c->ctx, c->lu, 1, xd, bsolve_layout_col_major(c->n, c->n), c->info);
    if (s != BSOLVE_SUCCESS) return unrecoverable(c, s);
    c->status = BSOLVE_SUCCESS;
    if (!count_failed(c)) return 0;
    return c->setup_failed ? SUNLS_LUFACT_FAIL : SUNLS_PACKAGE_FAIL_REC;
}

static sunindextype ls_lastflag(SUNLinearSolver S)
{
    return content(S)->last_flag;
}

static bsi_sun_err ls_space(SUNLinearSolver S, long int *lenrw, long int *leniw)
{
    const bsi_sunls *c = content(S);
    /* the factors and the pivots as LAPACK keeps them; the backend's own
     * layout may pad them */
    if (lenrw) *lenrw = (long int)(c->n * c->n * c->nblocks);
    if (leniw) *leniw = (long int)((c->n + 1) * c->nblocks);
    return BSI_SUN_OK;
}

static bsi_sun_err ls_free(SUNLinearSolver S)
{
    if (!S) return BSI_SUN_OK;
    if (S->content) {
        bsolve_lu_destroy(content(S)->lu);
        free(content(S)->info);
        free(S->content);
        S->content = NULL;
    }
    SUNLinSolFreeEmpty(S);
    return BSI_SUN_OK;
}

bsolve_status bsolve_sunlinsol_create(bsolve_ctx *ctx, bsolve_pivot pivot, N_Vector y, SUNMatrix A,
                                      SUNContext sunctx, SUNLinearSolver *LS)
{
    if (!LS) return BSOLVE_ENULL;
    *LS = NULL;
    if (!ctx || !y || !A || !sunctx) return BSOLVE_ENULL;
    if (!bsolve_sunmatrix_is(A)) return BSOLVE_EINVAL;
    const int64_t n = bsolve_sunmatrix_n(A), nb = bsolve_sunmatrix_nblocks(A);
    if ((int64_t)N_VGetLength(y) != n * nb || !N_VGetArrayPointer(y)) return BSOLVE_EINVAL;

    bsi_sunls *c = calloc(1, sizeof *c);
    int32_t *info = calloc((size_t)nb, sizeof *info);
    SUNLinearSolver S = SUNLinSolNewEmpty(sunctx);
    bsolve_lu *lu = NULL;
    bsolve_status s = c && info && S ? bsolve_lu_create(ctx, BSOLVE_PREC_D, pivot, n, nb, &lu) : BSOLVE_ENOMEM;
    if (s != BSOLVE_SUCCESS) {
        free(c);
        free(info);
        if (S) SUNLinSolFreeEmpty(S);
        return s;
    }
    c->ctx = ctx;
    c->lu = lu;
    c->n = n;
    c->nblocks = nb;
    c->info = info;
    c->status = BSOLVE_SUCCESS;
    S->content = c;
    S->ops->gettype = ls_gettype;
    S->ops->getid = ls_getid;
    S->ops->initialize = ls_initialize;
    S->ops->setup = ls_setup;
    S->ops->solve = ls_solve;
    S->ops->lastflag = ls_lastflag;
    S->ops->space = ls_space;
    S->ops->free = ls_free;
    *LS = S;
    return BSOLVE_SUCCESS;
}

/* by the getid operation, as bsolve_sunmatrix_is */
int bsolve_sunlinsol_is(SUNLinearSolver LS)
{
    return LS && LS->ops && LS->ops->getid == ls_getid && LS->content;
}

const int32_t *bsolve_sunlinsol_info(SUNLinearSolver LS)
{
    return bsolve_sunlinsol_is(LS) ? content(LS)->info : NULL;
}

int64_t bsolve_sunlinsol_nfailed(SUNLinearSolver LS)
{
    return bsolve_sunlinsol_is(LS) ? content(LS)->nfailed : 0;
}

bsolve_status bsolve_sunlinsol_status(SUNLinearSolver LS)
{
    return bsolve_sunlinsol_is(LS) ? content(LS)->status : BSOLVE_EINVAL;
}
