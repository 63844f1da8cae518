/*
 * sunmatrix_block.c -- the block-diagonal SUNMatrix of the SUNDIALS adapter
 * (include/batchsolve_sundials.h): n x n blocks in one of batchsolve's
 * layouts, packed, so that bsolve_dgetrf factors the matrix where it is.
 *
 * The operations are element-wise over the whole array except where the
 * diagonal or the vectors come in.  In every layout the diagonal is the
 * positions p = i (n + 1) of a block's n * n entries (p = i + j n in the
 * column-major and interleaved layouts, i n + j in the row-major one), so
 * one rule finds it.  Large matrices are swept by OpenMP threads (the
 * OpenMP default count): the operations are memory-bound, and a CVODE
 * setup copies and scales the whole matrix before every factorization.
 */
#include "batchsolve_sundials.h"

#include "sun_compat.h"

#include <stdlib.h>
#include <string.h>

/* below this many entries an operation runs on the calling thread */
#define BSI_SUNMAT_PAR_MIN (1 << 16)

typedef struct bsi_sunmat {
    int64_t n, nblocks, len; /* len = n * n * nblocks */
    bsolve_layout_kind kind;
    double *data;
} bsi_sunmat;

static bsi_sunmat *content(SUNMatrix A)
{
    return (bsi_sunmat *)A->content;
}

static SUNMatrix_ID mat_getid(SUNMatrix A)
{
    (void)A;
    return SUNMATRIX_CUSTOM;
}

static SUNMatrix mat_clone(SUNMatrix A);

static void mat_destroy(SUNMatrix A)
{
    if (!A) return;
    if (A->content) {
        free(content(A)->data);
        free(A->content);
        A->content = NULL;
    }
    SUNMatFreeEmpty(A);
}

/* same shape and layout */
static int same_shape(SUNMatrix A, SUNMatrix B)
{
    if (!bsolve_sunmatrix_is(A) || !bsolve_sunmatrix_is(B)) return 0;
    const bsi_sunmat *a = content(A), *b = content(B);
    return a->n == b->n && a->nblocks == b->nblocks && a->kind == b->kind;
}

static bsi_sun_err mat_zero(SUNMatrix A)
{
    bsi_sunmat *a = content(A);
    memset(a->data, 0, (size_t)a->len * sizeof *a->data);
    return BSI_SUN_OK;
}

static bsi_sun_err mat_copy(SUNMatrix A, SUNMatrix B)
{
    if (!same_shape(A, B)) return BSI_SUNMAT_EINPUT;
    const bsi_sunmat *a = content(A);
    double *restrict d = content(B)->data;
    const double *restrict s = a->data;
    const int64_t len = a->len;
#pragma omp parallel for schedule(static) if (len >= BSI_SUNMAT_PAR_MIN)
    for (int64_t e = 0; e < len; e++) d[e] = s[e];
    return BSI_SUN_OK;
}

/* A = c A + B */
static bsi_sun_err mat_scaleadd(sunrealtype c, SUNMatrix A, SUNMatrix B)
{
    if (!same_shape(A, B)) return BSI_SUNMAT_EINPUT;
    bsi_sunmat *a = content(A);
    double *restrict d = a->data;
    const double *restrict s = content(B)->data;
    const int64_t len = a->len;
#pragma omp parallel for schedule(static) if (len >= BSI_SUNMAT_PAR_MIN)
    for (int64_t e = 0; e < len; e++) d[e] = c * d[e] + s[e];
    return BSI_SUN_OK;
}

/* A = c A + I */
static bsi_sun_err mat_scaleaddi(sunrealtype c, SUNMatrix A)
{
    bsi_sunmat *a = content(A);
    const int64_t n = a->n, nn = n * n, nb = a->nblocks;
    double *restrict d = a->data;
    if (a->kind == BSOLVE_INTERLEAVED) {
        /* entry p of every block is one contiguous run of nb */
#pragma omp parallel for schedule(static) if (a->len >= BSI_SUNMAT_PAR_MIN)
        for (int64_t p = 0; p < nn; p++) {
            double *restrict r = d + p * nb;
            const double one = p % (n + 1) == 0 ? 1.0 : 0.0;
            for (int64_t k = 0; k < nb; k++) r[k] = c * r[k] + one;
        }
    } else {
#pragma omp parallel for schedule(static) if (a->len >= BSI_SUNMAT_PAR_MIN)
        for (int64_t k = 0; k < nb; k++) {
            double *restrict b = d + k * nn;
            for (int64_t p = 0; p < nn; p++) b[p] *= c;
            for (int64_t i = 0; i < n; i++) b[i * (n + 1)] += 1.0;
        }
    }
    return BSI_SUN_OK;
}

/* a vector the matrix can multiply: its length, a host array */
static double *vec_data(const bsi_sunmat *a, N_Vector v)
{
    if (!v || (int64_t)N_VGetLength(v) != a->n * a->nblocks) return NULL;
    return N_VGetArrayPointer(v);
}

/* y = A x, block by block */
static bsi_sun_err mat_matvec(SUNMatrix A, N_Vector x, N_Vector y)
{
    const bsi_sunmat *a = content(A);
    const double *restrict xd = vec_data(a, x);
    double *restrict yd = vec_data(a, y);
    if (!xd || !yd || xd == yd) return BSI_SUNMAT_EINPUT;
    const int64_t n = a->n, nn = n * n, nb = a->nblocks;
    const double *restrict d = a->data;
    if (a->kind == BSOLVE_INTERLEAVED) {
#pragma omp parallel for schedule(static) if (a->len >= BSI_SUNMAT_PAR_MIN)
        for (int64_t k = 0; k < nb; k++) {
            const double *xk = xd + k * n;
            double *yk = yd + k * n;
            for (int64_t i = 0; i < n; i++) {
                double s = 0;
                for (int64_t j = 0; j < n; j++) s += d[(i + j * n) * nb + k] * xk[j];
                yk[i] = s;
            }
        }
    } else {
        const int64_t si = a->kind == BSOLVE_COL_MAJOR ? 1 : n, sj = a->kind == BSOLVE_COL_MAJOR ? n : 1;
#pragma omp parallel for schedule(static) if (a->len >= BSI_SUNMAT_PAR_MIN)
        for (int64_t k = 0; k < nb; k++) {
            const double *b = d + k * nn, *xk = xd + k * n;
            double *yk = yd + k * n;
            for (int64_t i = 0; i < n; i++) {
                double s = 0;
                for (int64_t j = 0; j < n; j++) s += b[i * si + j * sj] * xk[j];
                yk[i] = s;
            }
        }
    }
    return BSI_SUN_OK;
}

static bsi_sun_err mat_space(SUNMatrix A, long int *lenrw, long int *leniw)
{
    if (lenrw) *lenrw = (long int)content(A)->len;
    if (leniw) *leniw = 4;
    return BSI_SUN_OK;
}

/* a matrix of the shape (zero entries), with the operations attached */
static bsolve_status make(SUNContext sunctx, int64_t n, int64_t nblocks, bsolve_layout_kind kind, SUNMatrix *out)
{
    SUNMatrix A = SUNMatNewEmpty(sunctx);
    bsi_sunmat *a = calloc(1, sizeof *a);
    double *data = calloc((size_t)(n * n * nblocks), sizeof *data);
    if (!A || !a || !data) {
        free(data);
        free(a);
        if (A) SUNMatFreeEmpty(A);
        return BSOLVE_ENOMEM;
    }
    a->n = n;
    a->nblocks = nblocks;
    a->len = n * n * nblocks;
    a->kind = kind;
    a->data = data;
    A->content = a;
    A->ops->getid = mat_getid;
    A->ops->clone = mat_clone;
    A->ops->destroy = mat_destroy;
    A->ops->zero = mat_zero;
    A->ops->copy = mat_copy;
    A->ops->scaleadd = mat_scaleadd;
    A->ops->scaleaddi = mat_scaleaddi;
    A->ops->matvec = mat_matvec;
    A->ops->space = mat_space;
    *out = A;
    return BSOLVE_SUCCESS;
}

static SUNMatrix mat_clone(SUNMatrix A)
{
    const bsi_sunmat *a = content(A);
    SUNMatrix B = NULL;
    return make(A->sunctx, a->n, a->nblocks, a->kind, &B) == BSOLVE_SUCCESS ? B : NULL;
}

bsolve_status bsolve_sunmatrix_create(SUNContext sunctx, int64_t n, int64_t nblocks, bsolve_layout_kind kind,
                                      SUNMatrix *A)
{
    if (!A) return BSOLVE_ENULL;
    *A = NULL;
    if (!sunctx) return BSOLVE_ENULL;
    if (n < 1 || n > BSOLVE_MAX_N || nblocks < 1) return BSOLVE_EINVAL;
    if (kind != BSOLVE_COL_MAJOR && kind != BSOLVE_ROW_MAJOR && kind != BSOLVE_INTERLEAVED) return BSOLVE_EINVAL;
    /* the entries, their bytes, the vectors' length in sunindextype */
    int64_t len, bytes;
    if (__builtin_mul_overflow(n * n, nblocks, &len) || __builtin_mul_overflow(len, (int64_t)sizeof(double), &bytes) ||
        (uint64_t)bytes > SIZE_MAX || (sunindextype)(n * nblocks) != n * nblocks || (long int)len != len)
        return BSOLVE_EINVAL;
    return make(sunctx, n, nblocks, kind, A);
}

/* by the getid operation: a program may wrap the others (to time them,
 * say), and a wrapped matrix is still one of these */
int bsolve_sunmatrix_is(SUNMatrix A)
{
    return A && A->ops && A->ops->getid == mat_getid && A->content;
}

int64_t bsolve_sunmatrix_n(SUNMatrix A)
{
    return bsolve_sunmatrix_is(A) ? content(A)->n : 0;
}

int64_t bsolve_sunmatrix_nblocks(SUNMatrix A)
{
    return bsolve_sunmatrix_is(A) ? content(A)->nblocks : 0;
}

double *bsolve_sunmatrix_data(SUNMatrix A)
{
    return bsolve_sunmatrix_is(A) ? content(A)->data : NULL;
}

bsolve_layout bsolve_sunmatrix_layout(SUNMatrix A)
{
    bsolve_layout l = {BSOLVE_COL_MAJOR, 0, 0};
    if (!bsolve_sunmatrix_is(A)) return l;
    const bsi_sunmat *a = content(A);
    switch (a->kind) {
    case BSOLVE_INTERLEAVED: return bsolve_layout_interleaved(a->nblocks);
    case BSOLVE_ROW_MAJOR: return bsolve_layout_row_major(a->n, a->n * a->n);
    default: return bsolve_layout_col_major(a->n, a->n * a->n);
    }
}

int64_t bsolve_sunmatrix_index(SUNMatrix A, int64_t k, int64_t i, int64_t j)
{
    const bsi_sunmat *a = content(A);
    switch (a->kind) {
    case BSOLVE_INTERLEAVED: return (i + j * a->n) * a->nblocks + k;
    case BSOLVE_ROW_MAJOR: return k * a->n * a->n + i * a->n + j;
    default: return k * a->n * a->n + i + j * a->n;
    }
}
