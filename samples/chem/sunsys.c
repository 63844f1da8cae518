/*
 * sunsys.c -- the reactors as a SUNDIALS problem (sunsys.h).
 */
#include "sunsys.h"

#include "batchsolve_sundials.h"
#include "kinetics.h"

#include <cvode/cvode.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_config.h>
#include <sunmatrix/sunmatrix_dense.h>

int sunsys_context(SUNContext *sc)
{
#if SUNDIALS_VERSION_MAJOR >= 7
    return SUNContext_Create(SUN_COMM_NULL, sc);
#else
    return SUNContext_Create(NULL, sc);
#endif
}

int sunsys_init(sunsys *s, const chem_mech *m, int ncell, const double *P, int nthreads)
{
    memset(s, 0, sizeof *s);
    s->m = m;
    s->ncell = ncell;
    s->n = m->nsp + 1;
    s->P = P;
    s->nthreads = nthreads > 0 ? nthreads : omp_get_max_threads();
    s->wlen = chem_work_len(m) + (size_t)s->n * s->n;
    s->work = malloc((size_t)s->nthreads * s->wlen * sizeof *s->work);
    s->z = malloc((size_t)ncell * (IGN_QMAX + 1) * sizeof *s->z);
    if (!s->work || !s->z) {
        sunsys_free(s);
        return -1;
    }
    return 0;
}

void sunsys_free(sunsys *s)
{
    free(s->work);
    free(s->z);
    s->work = s->z = NULL;
}

static double *thread_work(const sunsys *s)
{
    return s->work + (size_t)omp_get_thread_num() * s->wlen;
}

int sunsys_rhs(double t, N_Vector y, N_Vector f, void *user_data)
{
    (void)t;
    sunsys *s = user_data;
    const double *yd = N_VGetArrayPointer(y);
    double *fd = N_VGetArrayPointer(f);
    const int n = s->n;
    int bad = 0;
    const double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static) num_threads(s->nthreads) reduction(| : bad) if (s->ncell > 1)
    for (int c = 0; c < s->ncell; c++)
        bad |= chem_rhs(s->m, s->P[c], yd + (size_t)c * n, fd + (size_t)c * n, thread_work(s)) != CHEM_OK;
    s->t_rhs += omp_get_wtime() - t0;
    s->rhs_cells += s->ncell;
    return bad ? 1 : 0;
}

/* J = sign df/dy + diag I into the adapter's matrix or a dense one (one
 * cell): each cell's Jacobian is computed column-major n x n (in place
 * where the block is stored so), then written into its block */
static int jacobian(sunsys *s, N_Vector y, SUNMatrix J, double sign, double diag)
{
    const double *yd = N_VGetArrayPointer(y);
    const int n = s->n;
    const size_t nn = (size_t)n * n;
    double *data;
    bsolve_layout l;
    if (bsolve_sunmatrix_is(J)) {
        if (bsolve_sunmatrix_n(J) != n || bsolve_sunmatrix_nblocks(J) != s->ncell) return -1;
        data = bsolve_sunmatrix_data(J);
        l = bsolve_sunmatrix_layout(J);
    } else if (SUNMatGetID(J) == SUNMATRIX_DENSE && s->ncell == 1 && SUNDenseMatrix_Rows(J) == n &&
               SUNDenseMatrix_Columns(J) == n) {
        data = SUNDenseMatrix_Data(J);
        l = bsolve_layout_col_major(n, (int64_t)nn);
    } else {
        return -1;
    }
    int bad = 0;
    const double t0 = omp_get_wtime();
#pragma omp parallel for schedule(dynamic, 1) num_threads(s->nthreads) reduction(| : bad) if (s->ncell > 1)
    for (int c = 0; c < s->ncell; c++) {
        double *w = thread_work(s), *Jc = w + chem_work_len(s->m);
        const int in_place = l.kind == BSOLVE_COL_MAJOR;
        if (in_place) Jc = data + (size_t)c * nn;
        if (chem_jacobian(s->m, s->P[c], yd + (size_t)c * n, NULL, Jc, w) != CHEM_OK) {
            bad = 1;
            continue;
        }
        if (s->jac_hook) s->jac_hook(s->hook_arg, c, n, Jc);
        if (sign != 1.0 || diag != 0.0) {
            for (size_t e = 0; e < nn; e++) Jc[e] *= sign;
            for (int i = 0; i < n; i++) Jc[(size_t)i * (n + 1)] += diag;
        }
        if (in_place) continue;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                const int64_t at = l.kind == BSOLVE_INTERLEAVED ? ((int64_t)i + (int64_t)j * n) * l.ld + c
                                                                : (int64_t)c * l.stride + (int64_t)i * l.ld + j;
                data[at] = Jc[i + (size_t)j * n];
            }
    }
    s->t_jac += omp_get_wtime() - t0;
    s->jac_cells += s->ncell;
    return bad ? 1 : 0;
}

int sunsys_jac(double t, N_Vector y, N_Vector fy, SUNMatrix J, void *user_data, N_Vector t1, N_Vector t2,
               N_Vector t3)
{
    (void)t, (void)fy, (void)t1, (void)t2, (void)t3;
    return jacobian(user_data, y, J, 1.0, 0.0);
}

int sunsys_res(double t, N_Vector y, N_Vector yp, N_Vector r, void *user_data)
{
    const int bad = sunsys_rhs(t, y, r, user_data);
    N_VLinearSum(1.0, yp, -1.0, r, r);
    return bad;
}

int sunsys_ida_jac(double t, double cj, N_Vector y, N_Vector yp, N_Vector r, SUNMatrix J, void *user_data,
                   N_Vector t1, N_Vector t2, N_Vector t3)
{
    (void)t, (void)yp, (void)r, (void)t1, (void)t2, (void)t3;
    return jacobian(user_data, y, J, -1.0, cj);
}

int sunsys_track(sunsys *s, void *cvode_mem, ign_track *g, int *done, N_Vector dky)
{
    const int n = s->n, Q = IGN_QMAX + 1;
    int q;
    double t, h;
    if (CVodeGetLastOrder(cvode_mem, &q) || CVodeGetLastStep(cvode_mem, &h) || CVodeGetCurrentTime(cvode_mem, &t))
        return -1;
    if (q > IGN_QMAX) q = IGN_QMAX;
    const double *d = N_VGetArrayPointer(dky);
    /* z[j] = h^j T^(j)(t_n) / j!: the step's polynomial in s = (t - t_n) / h */
    double scale = 1;
    for (int j = 0; j <= q; j++) {
        if (CVodeGetDky(cvode_mem, t, j, dky)) return -1;
        if (j > 0) scale *= h / j;
        for (int c = 0; c < s->ncell; c++) s->z[(size_t)c * Q + j] = scale * d[(size_t)c * n + n - 1];
    }
    int ndone = 0;
    for (int c = 0; c < s->ncell; c++) {
        if (!done[c]) done[c] = ign_step(&g[c], t, h, q, s->z + (size_t)c * Q);
        ndone += done[c];
    }
    return ndone;
}
