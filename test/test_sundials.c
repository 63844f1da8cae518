/*
 * test_sundials.c -- the SUNDIALS adapter (include/batchsolve_sundials.h):
 *
 *   - the block-diagonal SUNMatrix: its index map is a bijection onto the
 *     array in every layout; clone, zero, copy, scaleadd, scaleaddi and
 *     matvec against a dense per-block reference, every entry; operands of
 *     another shape or layout, vectors of another length refused;
 *   - the linear solver on seeded random blocks of several families and
 *     orders 1..128, every layout: setup and solve against LAPACKE's dgetrf
 *     and dgetrs and by the backward error of every block; in place (x = b)
 *     the same bits; the matrix left as it was;
 *   - a singular block, a NaN block and an infinite one: setup returns
 *     SUNLS_LUFACT_FAIL (recoverable) with each block's info, the solve
 *     after it solves every other block and NaN-fills the failed ones; a
 *     NaN right-hand side gives SUNLS_PACKAGE_FAIL_REC; argument errors
 *     are negative returns;
 *   - CVODE (BDF, Newton) on the h2o2 mechanism, a few cells as one system
 *     through the adapter (each layout), against CVODE per cell with
 *     SUNDIALS' dense solver: final states and ignition delays within the
 *     integrations' tolerance of each other, delays within 1% of Cantera's;
 *     a singular block (and a NaN Jacobian block) in one setup makes CVODE
 *     retry the step with h cut to at most a quarter, and it still gets the
 *     answer; ARKODE (implicit, also with a mass matrix of the adapter's
 *     type) and IDA on the same cells agree with CVODE per cell;
 *   - samples/chem_cvode runs and exits 0 on a small ensemble, 1 when its
 *     tolerance cannot be met.
 * The linear algebra runs on the backend of BSOLVE_TEST_BACKEND (host
 * arrays).  Data files: CHEM_DATA_DIR; the sample: CHEM_CVODE_BIN.
 */
#include "testlib.h"

#include "batchsolve_sundials.h"
#include "cases.h"
#include "kinetics.h"
#include "sunsys.h"

#include <arkode/arkode_arkstep.h>
#include <cvode/cvode.h>
#include <ida/ida.h>
#include <lapacke.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_config.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#ifndef CHEM_DATA_DIR
#define CHEM_DATA_DIR "samples/chem"
#endif

/* ARKODE's generic ARKode* functions, from SUNDIALS 7.1 */
#if SUNDIALS_VERSION_MAJOR > 7 || (SUNDIALS_VERSION_MAJOR == 7 && SUNDIALS_VERSION_MINOR >= 1)
#define ARK(fn) ARKode##fn
#else
#define ARK(fn) ARKStep##fn
#endif

static SUNContext sun_ctx(void)
{
    SUNContext s = NULL;
    ck_assert_int_eq(sunsys_context(&s), 0);
    return s;
}

static const bsolve_layout_kind KINDS[] = {BSOLVE_COL_MAJOR, BSOLVE_ROW_MAJOR, BSOLVE_INTERLEAVED};

/* entry (i, j) of block k */
static double *at(SUNMatrix A, int64_t k, int64_t i, int64_t j)
{
    return bsolve_sunmatrix_data(A) + bsolve_sunmatrix_index(A, k, i, j);
}

static void fill_random(tl_rng *r, SUNMatrix A)
{
    const int64_t n = bsolve_sunmatrix_n(A), nb = bsolve_sunmatrix_nblocks(A);
    for (int64_t k = 0; k < nb; k++)
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) *at(A, k, i, j) = tl_rng_uniform(r);
}

/* the blocks as dense column-major matrices, block k at k n^2 */
static double *dense_of(SUNMatrix A)
{
    const int64_t n = bsolve_sunmatrix_n(A), nb = bsolve_sunmatrix_nblocks(A);
    double *d = malloc((size_t)(n * n * nb) * sizeof *d);
    ck_assert_ptr_nonnull(d);
    for (int64_t k = 0; k < nb; k++)
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) d[k * n * n + i + j * n] = *at(A, k, i, j);
    return d;
}

/* ------------------------------------------------------------------ matrix */

START_TEST(t_matrix_create)
{
    SUNContext sc = sun_ctx();
    SUNMatrix A = (SUNMatrix)1;
    ck_assert_int_eq(bsolve_sunmatrix_create(sc, 0, 4, BSOLVE_COL_MAJOR, &A), BSOLVE_EINVAL);
    ck_assert_ptr_null(A);
    ck_assert_int_eq(bsolve_sunmatrix_create(sc, BSOLVE_MAX_N + 1, 4, BSOLVE_COL_MAJOR, &A), BSOLVE_EINVAL);
    ck_assert_int_eq(bsolve_sunmatrix_create(sc, 3, 0, BSOLVE_COL_MAJOR, &A), BSOLVE_EINVAL);
    ck_assert_int_eq(bsolve_sunmatrix_create(sc, 3, 4, (bsolve_layout_kind)7, &A), BSOLVE_EINVAL);
    ck_assert_int_eq(bsolve_sunmatrix_create(sc, 128, INT64_MAX / 1000, BSOLVE_COL_MAJOR, &A), BSOLVE_EINVAL);
    ck_assert_int_eq(bsolve_sunmatrix_create(NULL, 3, 4, BSOLVE_COL_MAJOR, &A), BSOLVE_ENULL);
    ck_assert_int_eq(bsolve_sunmatrix_create(sc, 3, 4, BSOLVE_COL_MAJOR, NULL), BSOLVE_ENULL);
    /* a SUNDIALS matrix of another type is not one of ours */
    SUNMatrix D = SUNDenseMatrix(3, 3, sc);
    ck_assert(!bsolve_sunmatrix_is(D) && !bsolve_sunmatrix_is(NULL));
    ck_assert_ptr_null(bsolve_sunmatrix_data(D));
    ck_assert_int_eq(bsolve_sunmatrix_n(D), 0);
    SUNMatDestroy(D);
    SUNContext_Free(&sc);
}
END_TEST

/* layout, index map, clone, zero, copy, scaleadd, scaleaddi, matvec, space */
START_TEST(t_matrix_ops)
{
    static const int64_t shapes[][2] = {{1, 1}, {1, 9}, {3, 5}, {10, 7}, {54, 3}, {128, 2}};
    SUNContext sc = sun_ctx();
    tl_rng r;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t kk = 0; kk < 3; kk++) {
            const int64_t n = shapes[s][0], nb = shapes[s][1], nn = n * n, len = nn * nb;
            const bsolve_layout_kind kind = KINDS[kk];
            tl_rng_seed(&r, tl_seed(s, kk));
            SUNMatrix A, B, C;
            ck_assert_int_eq(bsolve_sunmatrix_create(sc, n, nb, kind, &A), BSOLVE_SUCCESS);
            ck_assert(bsolve_sunmatrix_is(A));
            ck_assert_int_eq(SUNMatGetID(A), SUNMATRIX_CUSTOM);
            ck_assert_int_eq(bsolve_sunmatrix_n(A), n);
            ck_assert_int_eq(bsolve_sunmatrix_nblocks(A), nb);
            const bsolve_layout l = bsolve_sunmatrix_layout(A);
            ck_assert_int_eq(l.kind, kind);
            /* the layout is the packed one the header gives, and a zero matrix */
            unsigned char *seen = calloc((size_t)len, 1);
            for (int64_t k = 0; k < nb; k++)
                for (int64_t j = 0; j < n; j++)
                    for (int64_t i = 0; i < n; i++) {
                        const int64_t e = bsolve_sunmatrix_index(A, k, i, j);
                        const int64_t want = kind == BSOLVE_INTERLEAVED ? (i + j * n) * nb + k
                                             : kind == BSOLVE_ROW_MAJOR ? k * nn + i * n + j
                                                                        : k * nn + i + j * n;
                        TL_EXPECT(e == want && !seen[e], "n %lld kind %d: (%lld,%lld,%lld) at %lld", (long long)n,
                                  (int)kind, (long long)k, (long long)i, (long long)j, (long long)e);
                        if (e >= 0 && e < len) seen[e] = 1;
                        TL_EXPECT(tl_off(l, n, i, j, k) == e, "layout of (%lld,%lld,%lld)", (long long)k,
                                  (long long)i, (long long)j);
                        TL_EXPECT(*at(A, k, i, j) == 0, "new matrix not zero");
                    }
            free(seen);
            long lrw = 0, liw = 0;
            ck_assert_int_eq(A->ops->space(A, &lrw, &liw), 0); /* (SUNMatSpace: deprecated in SUNDIALS 7) */
            ck_assert_int_eq(lrw, len);

            /* clone: same shape and layout, own storage */
            B = SUNMatClone(A);
            C = SUNMatClone(A);
            ck_assert(B && C && bsolve_sunmatrix_is(B));
            ck_assert_int_eq(bsolve_sunmatrix_layout(B).kind, kind);
            ck_assert_int_eq(bsolve_sunmatrix_n(B) * bsolve_sunmatrix_nblocks(B), n * nb);
            ck_assert_ptr_ne(bsolve_sunmatrix_data(B), bsolve_sunmatrix_data(A));
            fill_random(&r, A);
            fill_random(&r, B);
            double *a = dense_of(A), *b = dense_of(B);

            /* copy */
            ck_assert_int_eq(SUNMatCopy(A, C), 0);
            ck_assert(memcmp(bsolve_sunmatrix_data(A), bsolve_sunmatrix_data(C), (size_t)len * sizeof(double)) == 0);

            /* scaleadd: C = c C + B */
            const double c1 = -0.37 - tl_rng_unit(&r);
            ck_assert_int_eq(SUNMatScaleAdd(c1, C, B), 0);
            double *cd = dense_of(C);
            for (int64_t e = 0; e < len; e++) {
                const double want = c1 * a[e] + b[e];
                TL_EXPECT(fabs(cd[e] - want) <= 2 * DBL_EPSILON * (fabs(c1 * a[e]) + fabs(b[e])),
                          "scaleadd entry %lld: %.17g, want %.17g", (long long)e, cd[e], want);
            }
            free(cd);

            /* scaleaddi: C = c C + I, from a copy of A */
            ck_assert_int_eq(SUNMatCopy(A, C), 0);
            const double c2 = 0.5 + tl_rng_unit(&r);
            ck_assert_int_eq(SUNMatScaleAddI(c2, C), 0);
            cd = dense_of(C);
            for (int64_t k = 0; k < nb; k++)
                for (int64_t j = 0; j < n; j++)
                    for (int64_t i = 0; i < n; i++) {
                        const int64_t e = k * nn + i + j * n;
                        const double want = c2 * a[e] + (i == j);
                        TL_EXPECT(fabs(cd[e] - want) <= 2 * DBL_EPSILON * (fabs(c2 * a[e]) + (i == j)),
                                  "scaleaddi block %lld (%lld,%lld): %.17g, want %.17g", (long long)k, (long long)i,
                                  (long long)j, cd[e], want);
                    }
            free(cd);

            /* matvec: y = A x block by block, against a long double product */
            N_Vector x = N_VNew_Serial((sunindextype)(n * nb), sc), y = N_VClone(x);
            double *xd = N_VGetArrayPointer(x), *yd = N_VGetArrayPointer(y);
            for (int64_t e = 0; e < n * nb; e++) xd[e] = tl_rng_uniform(&r), yd[e] = NAN;
            ck_assert_int_eq(SUNMatMatvec(A, x, y), 0);
            for (int64_t k = 0; k < nb; k++)
                for (int64_t i = 0; i < n; i++) {
                    long double s = 0, mag = 0;
                    for (int64_t j = 0; j < n; j++) {
                        s += (long double)a[k * nn + i + j * n] * xd[k * n + j];
                        mag += fabsl((long double)a[k * nn + i + j * n] * xd[k * n + j]);
                    }
                    TL_EXPECT(fabsl(yd[k * n + i] - s) <= 2 * n * DBL_EPSILON * mag,
                              "matvec block %lld row %lld: %.17g, want %.17Lg", (long long)k, (long long)i,
                              yd[k * n + i], s);
                }

            /* zero */
            ck_assert_int_eq(SUNMatZero(C), 0);
            for (int64_t e = 0; e < len; e++) TL_EXPECT(bsolve_sunmatrix_data(C)[e] == 0, "zero: entry %lld", (long long)e);

            /* refused operands: another layout, another shape, a dense
             * matrix, vectors of another length, y = x; nothing written */
            SUNMatrix O, S;
            ck_assert_int_eq(bsolve_sunmatrix_create(sc, n, nb, KINDS[(kk + 1) % 3], &O), BSOLVE_SUCCESS);
            ck_assert_int_eq(bsolve_sunmatrix_create(sc, n, nb + 1, kind, &S), BSOLVE_SUCCESS);
            SUNMatrix D = SUNDenseMatrix((sunindextype)n, (sunindextype)n, sc);
            ck_assert_int_ne(SUNMatCopy(A, O), 0);
            ck_assert_int_ne(SUNMatCopy(A, S), 0);
            ck_assert_int_ne(SUNMatScaleAdd(1.0, A, O), 0);
            ck_assert_int_ne(SUNMatScaleAdd(1.0, A, D), 0);
            N_Vector x2 = N_VNew_Serial((sunindextype)(n * nb + 1), sc);
            ck_assert_int_ne(SUNMatMatvec(A, x2, y), 0);
            ck_assert_int_ne(SUNMatMatvec(A, x, x), 0);
            double *ad = dense_of(A);
            ck_assert(memcmp(ad, a, (size_t)len * sizeof *a) == 0);
            free(ad);

            TL_CLEAN("matrix ops n %lld, %lld blocks, %s", (long long)n, (long long)nb, tl_kind_name(kind));
            N_VDestroy(x);
            N_VDestroy(x2);
            N_VDestroy(y);
            SUNMatDestroy(D);
            SUNMatDestroy(O);
            SUNMatDestroy(S);
            free(a);
            free(b);
            SUNMatDestroy(A);
            SUNMatDestroy(B);
            SUNMatDestroy(C);
        }
    SUNContext_Free(&sc);
}
END_TEST

/* ------------------------------------------------------------------ solver */

/* A block-diagonal system: the matrix, a right-hand side, a solution vector */
typedef struct sys {
    SUNContext sc;
    bsolve_ctx *ctx;
    SUNMatrix A;
    SUNLinearSolver LS;
    N_Vector b, x;
    int64_t n, nb;
} sys;

static void sys_make(sys *s, int64_t n, int64_t nb, bsolve_layout_kind kind)
{
    s->sc = sun_ctx();
    s->ctx = tl_ctx();
    s->n = n;
    s->nb = nb;
    ck_assert_int_eq(bsolve_sunmatrix_create(s->sc, n, nb, kind, &s->A), BSOLVE_SUCCESS);
    s->b = N_VNew_Serial((sunindextype)(n * nb), s->sc);
    s->x = N_VClone(s->b);
    ck_assert_int_eq(bsolve_sunlinsol_create(s->ctx, BSOLVE_PIVOT_PARTIAL, s->b, s->A, s->sc, &s->LS), BSOLVE_SUCCESS);
    ck_assert(bsolve_sunlinsol_is(s->LS));
    ck_assert_int_eq(SUNLinSolGetType(s->LS), SUNLINEARSOLVER_DIRECT);
    ck_assert_int_eq(SUNLinSolInitialize(s->LS), 0);
}

static void sys_free(sys *s)
{
    SUNLinSolFree(s->LS);
    SUNMatDestroy(s->A);
    N_VDestroy(s->b);
    N_VDestroy(s->x);
    bsolve_ctx_destroy(s->ctx);
    SUNContext_Free(&s->sc);
}

/* block k of the system solved: backward error, and LAPACKE's dgetrf +
 * dgetrs agreeing within what the condition allows */
static void check_block(const sys *s, const double *a, int64_t k, const double *x, const char *what)
{
    const int n = (int)s->n;
    const double *A = a + k * n * n, *b = N_VGetArrayPointer(s->b) + k * n, *xk = x + k * n;
    const double ratio = tl_backward_ratio(n, 1, A, b, xk, DBL_EPSILON);
    TL_EXPECT(ratio <= TL_BWD_MAX, "%s n %d block %lld: backward error ratio %g", what, n, (long long)k, ratio);
    double *lu = malloc((size_t)n * n * sizeof *lu), *xl = malloc((size_t)n * sizeof *xl);
    lapack_int *lpiv = malloc((size_t)n * sizeof *lpiv);
    memcpy(lu, A, (size_t)n * n * sizeof *lu);
    memcpy(xl, b, (size_t)n * sizeof *xl);
    const lapack_int info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, lu, n, lpiv);
    TL_EXPECT(info == 0, "%s n %d block %lld: LAPACKE_dgetrf info %d", what, n, (long long)k, (int)info);
    LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', n, 1, lu, n, lpiv, xl, n);
    const double rcond = tl_rcond_inf(n, A), diff = tl_rel_diff(n, 1, xk, xl);
    TL_EXPECT(diff <= 8.0 * n * DBL_EPSILON / rcond, "%s n %d block %lld: %.3g from LAPACK's x (rcond %.3g)", what, n,
              (long long)k, diff, rcond);
    free(lu);
    free(xl);
    free(lpiv);
}

START_TEST(t_solver_random)
{
    static const int64_t ns[] = {1, 2, 5, 10, 17, 33, 54, 128};
    static const tl_family fams[] = {TL_FAM_RANDOM, TL_FAM_DIAGDOM, TL_FAM_ROWSCALED, TL_FAM_PERMDOM,
                                     TL_FAM_DIAGDOM_ROWSCALED};
    tl_rng r;
    for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++)
        for (size_t kk = 0; kk < 3; kk++) {
            const int64_t n = ns[in], nb = n <= 17 ? 41 : n <= 54 ? 9 : 3;
            sys s;
            sys_make(&s, n, nb, KINDS[kk]);
            tl_rng_seed(&r, tl_seed(100 + in, kk));
            double *a = malloc((size_t)(n * n * nb) * sizeof *a);
            for (int64_t k = 0; k < nb; k++) {
                /* a family that keeps A(0,0) nonzero when n = 1 */
                const tl_family f = n == 1 ? TL_FAM_RANDOM : fams[k % (sizeof fams / sizeof fams[0])];
                tl_gen_matrix(&r, f, (int)n, a + k * n * n);
                for (int64_t j = 0; j < n; j++)
                    for (int64_t i = 0; i < n; i++) *at(s.A, k, i, j) = a[k * n * n + i + j * n];
            }
            double *bd = N_VGetArrayPointer(s.b);
            for (int64_t e = 0; e < n * nb; e++) bd[e] = tl_rng_uniform(&r);
            double *before = dense_of(s.A);

            ck_assert_int_eq(SUNLinSolSetup(s.LS, s.A), 0);
            ck_assert_int_eq(bsolve_sunlinsol_nfailed(s.LS), 0);
            ck_assert_int_eq(SUNLinSolLastFlag(s.LS), 0);
            ck_assert_int_eq(SUNLinSolSolve(s.LS, s.A, s.x, s.b, 0.0), 0);
            const int32_t *info = bsolve_sunlinsol_info(s.LS);
            for (int64_t k = 0; k < nb; k++) {
                TL_EXPECT(info[k] == 0, "block %lld: info %d", (long long)k, (int)info[k]);
                check_block(&s, a, k, N_VGetArrayPointer(s.x), "solve");
            }
            /* in place: the same bits */
            N_Vector w = N_VClone(s.b);
            N_VScale(1.0, s.b, w);
            ck_assert_int_eq(SUNLinSolSolve(s.LS, s.A, w, w, 0.0), 0);
            ck_assert(memcmp(N_VGetArrayPointer(w), N_VGetArrayPointer(s.x), (size_t)(n * nb) * sizeof(double)) == 0);
            /* setup only reads the matrix */
            double *after = dense_of(s.A);
            ck_assert(memcmp(before, after, (size_t)(n * n * nb) * sizeof *after) == 0);
            TL_CLEAN("random blocks n %lld, %s", (long long)n, tl_kind_name(KINDS[kk]));
            N_VDestroy(w);
            free(before);
            free(after);
            free(a);
            sys_free(&s);
        }
}
END_TEST

/* a singular block, a NaN block and an infinite one among solvable ones */
START_TEST(t_solver_failures)
{
    for (size_t kk = 0; kk < 3; kk++) {
        const int64_t n = 6, nb = 9;
        sys s;
        sys_make(&s, n, nb, KINDS[kk]);
        tl_rng r;
        tl_rng_seed(&r, tl_seed(200, kk));
        double *a = malloc((size_t)(n * n * nb) * sizeof *a);
        for (int64_t k = 0; k < nb; k++) tl_gen_matrix(&r, TL_FAM_RANDOM, (int)n, a + k * n * n);
        double *good = malloc((size_t)(n * n * nb) * sizeof *good);
        memcpy(good, a, (size_t)(n * n * nb) * sizeof *a);
        /* block 2: column 3 zero, which elimination keeps zero: the pivot
         * of step 4 is exactly zero; block 5: a NaN; block 7: -inf */
        double *b2 = a + 2 * n * n;
        for (int64_t i = 0; i < n; i++) b2[i + 3 * n] = 0;
        a[5 * n * n + 7] = NAN;
        a[7 * n * n + n * n - 1] = -INFINITY;
        for (int64_t k = 0; k < nb; k++)
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < n; i++) *at(s.A, k, i, j) = a[k * n * n + i + j * n];
        double *bd = N_VGetArrayPointer(s.b);
        for (int64_t e = 0; e < n * nb; e++) bd[e] = tl_rng_uniform(&r);

        /* the singular block's info is LAPACK's */
        double lu[36];
        int32_t ipiv[6];
        const int lapack_info = tl_ref_getrf((int)n, b2, lu, ipiv);
        ck_assert_int_eq(lapack_info, 4);

        ck_assert_int_eq(SUNLinSolSetup(s.LS, s.A), SUNLS_LUFACT_FAIL);
        const int32_t *info = bsolve_sunlinsol_info(s.LS);
        ck_assert_int_eq(bsolve_sunlinsol_nfailed(s.LS), 3);
        ck_assert_int_eq(SUNLinSolLastFlag(s.LS), 3); /* 1 + block 2 */
        ck_assert_int_eq(bsolve_sunlinsol_status(s.LS), BSOLVE_SUCCESS);
        for (int64_t k = 0; k < nb; k++) {
            const int32_t want = k == 2 ? lapack_info : k == 5 || k == 7 ? BSOLVE_INFO_NONFINITE : 0;
            TL_EXPECT(info[k] == want, "%s block %lld: info %d, want %d", tl_kind_name(KINDS[kk]), (long long)k,
                      (int)info[k], (int)want);
        }
        /* the solve after it: the others solved, the failed ones NaN, and
         * the failure said again */
        ck_assert_int_eq(SUNLinSolSolve(s.LS, s.A, s.x, s.b, 0.0), SUNLS_LUFACT_FAIL);
        const double *x = N_VGetArrayPointer(s.x);
        for (int64_t k = 0; k < nb; k++) {
            if (k == 2 || k == 5 || k == 7)
                TL_EXPECT(tl_all_nan(n, x + k * n), "failed block %lld not NaN-filled", (long long)k);
            else
                check_block(&s, a, k, x, "beside failed blocks");
        }
        TL_CLEAN("failed blocks, %s", tl_kind_name(KINDS[kk]));

        /* repaired: success again */
        for (int64_t k = 0; k < nb; k++)
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < n; i++) *at(s.A, k, i, j) = good[k * n * n + i + j * n];
        ck_assert_int_eq(SUNLinSolSetup(s.LS, s.A), 0);
        ck_assert_int_eq(SUNLinSolLastFlag(s.LS), 0);
        ck_assert_int_eq(SUNLinSolSolve(s.LS, s.A, s.x, s.b, 0.0), 0);
        for (int64_t k = 0; k < nb; k++) check_block(&s, good, k, N_VGetArrayPointer(s.x), "repaired");
        /* a NaN in block 4's right-hand side */
        bd[4 * n + 1] = NAN;
        ck_assert_int_eq(SUNLinSolSolve(s.LS, s.A, s.x, s.b, 0.0), SUNLS_PACKAGE_FAIL_REC);
        ck_assert_int_eq(SUNLinSolLastFlag(s.LS), 5);
        ck_assert_int_eq(bsolve_sunlinsol_nfailed(s.LS), 1);
        ck_assert_int_eq(bsolve_sunlinsol_info(s.LS)[4], BSOLVE_INFO_NONFINITE);
        ck_assert(tl_all_nan(n, N_VGetArrayPointer(s.x) + 4 * n));
        bd[4 * n + 1] = 0.25;
        TL_CLEAN("repaired blocks, %s", tl_kind_name(KINDS[kk]));

        /* argument errors are unrecoverable (negative) */
        SUNMatrix O;
        ck_assert_int_eq(bsolve_sunmatrix_create(s.sc, n + 1, nb, KINDS[kk], &O), BSOLVE_SUCCESS);
        ck_assert_int_lt(SUNLinSolSetup(s.LS, O), 0);
        ck_assert_int_eq(bsolve_sunlinsol_status(s.LS), BSOLVE_EINVAL);
        ck_assert_int_lt(SUNLinSolLastFlag(s.LS), 0);
        N_Vector v = N_VNew_Serial((sunindextype)(n * nb - 1), s.sc);
        ck_assert_int_lt(SUNLinSolSolve(s.LS, s.A, v, s.b, 0.0), 0);
        SUNLinearSolver L2 = (SUNLinearSolver)1;
        ck_assert_int_eq(bsolve_sunlinsol_create(s.ctx, BSOLVE_PIVOT_PARTIAL, v, s.A, s.sc, &L2), BSOLVE_EINVAL);
        ck_assert_ptr_null(L2);
        ck_assert_int_eq(bsolve_sunlinsol_create(s.ctx, BSOLVE_PIVOT_PARTIAL, s.b, s.A, NULL, &L2), BSOLVE_ENULL);
        ck_assert_int_eq(bsolve_sunlinsol_create(s.ctx, (bsolve_pivot)9, s.b, s.A, s.sc, &L2), BSOLVE_EINVAL);
        SUNMatrix D = SUNDenseMatrix((sunindextype)(n * nb), (sunindextype)(n * nb), s.sc);
        ck_assert_int_eq(bsolve_sunlinsol_create(s.ctx, BSOLVE_PIVOT_PARTIAL, s.b, D, s.sc, &L2), BSOLVE_EINVAL);
        /* a solve before any setup */
        ck_assert_int_eq(bsolve_sunlinsol_create(s.ctx, BSOLVE_PIVOT_PARTIAL, s.b, s.A, s.sc, &L2), BSOLVE_SUCCESS);
        ck_assert_int_lt(SUNLinSolSolve(L2, s.A, s.x, s.b, 0.0), 0);
        SUNLinSolFree(L2);
        SUNMatDestroy(D);
        N_VDestroy(v);
        SUNMatDestroy(O);
        free(a);
        free(good);
        sys_free(&s);
    }
}
END_TEST

/* ------------------------------------------------------------------ integrators */

#define RTOL 1e-8
#define ATOL_Y 1e-14
#define ATOL_T 1e-8
#define MAX_STEPS 200000

/* the h2o2 cells: the reference cases at 1 and 20 atm, 1200 and 1400 K,
 * phi 0.5..2 (delays 2 us .. 0.15 ms) */
static const int CELL_CASE[] = {3, 4, 5, 6, 7, 8, 12, 14, 15, 16};
#define NCELL ((int)(sizeof CELL_CASE / sizeof CELL_CASE[0]))

typedef struct problem {
    chem_mech *m;
    chem_case *cs;
    int ncase, n;
    double P[NCELL], *x0; /* NCELL x n */
} problem;

static void problem_load(problem *p)
{
    char path[1024], msg[512];
    snprintf(path, sizeof path, "%s/h2o2.mech", CHEM_DATA_DIR);
    ck_assert_msg(chem_mech_load(path, &p->m, msg, sizeof msg) == CHEM_OK, "%s", msg);
    snprintf(path, sizeof path, "%s/h2o2.ref", CHEM_DATA_DIR);
    ck_assert_msg(chem_cases_load(path, p->m, &p->cs, &p->ncase, msg, sizeof msg) == CHEM_OK, "%s", msg);
    p->n = p->m->nsp + 1;
    p->x0 = malloc((size_t)NCELL * p->n * sizeof *p->x0);
    for (int c = 0; c < NCELL; c++) {
        const chem_case *k = &p->cs[CELL_CASE[c]];
        ck_assert_int_eq(chem_fresh_mixture(p->m, k->fuel, k->phi, p->x0 + (size_t)c * p->n), CHEM_OK);
        p->x0[(size_t)c * p->n + p->n - 1] = k->T0;
        p->P[c] = k->P0;
    }
}

static void problem_free(problem *p)
{
    free(p->x0);
    free(p->cs);
    chem_mech_free(p->m);
}

/* what an integration of the cells [c0, c0 + ncell) needs: the contexts,
 * the state at the initial states, the tolerances, the reactors, a
 * scratch vector, and the linear solver: the adapter on a matrix of layout
 * kind, or (dense, one cell) SUNDIALS' dense solver */
typedef struct fixture {
    SUNContext sc;
    bsolve_ctx *ctx;
    sunindextype len;
    N_Vector y, atol, tmp;
    sunsys s;
    SUNMatrix A;
    SUNLinearSolver LS;
} fixture;

static void fixture_open(fixture *f, const problem *p, int c0, int ncell, int dense, bsolve_layout_kind kind)
{
    const int n = p->n;
    f->sc = sun_ctx();
    f->ctx = tl_ctx();
    f->len = (sunindextype)ncell * n;
    f->y = N_VNew_Serial(f->len, f->sc);
    f->atol = N_VClone(f->y);
    f->tmp = N_VClone(f->y);
    memcpy(N_VGetArrayPointer(f->y), p->x0 + (size_t)c0 * n, (size_t)f->len * sizeof(double));
    double *a = N_VGetArrayPointer(f->atol);
    for (int c = 0; c < ncell; c++)
        for (int i = 0; i < n; i++) a[(size_t)c * n + i] = i == n - 1 ? ATOL_T : ATOL_Y;
    ck_assert_int_eq(sunsys_init(&f->s, p->m, ncell, p->P + c0, 1), 0);
    if (dense) {
        ck_assert_int_eq(ncell, 1);
        f->A = SUNDenseMatrix(f->len, f->len, f->sc);
        f->LS = SUNLinSol_Dense(f->y, f->A, f->sc);
        ck_assert(f->A && f->LS);
    } else {
        ck_assert_int_eq(bsolve_sunmatrix_create(f->sc, n, ncell, kind, &f->A), BSOLVE_SUCCESS);
        ck_assert_int_eq(bsolve_sunlinsol_create(f->ctx, BSOLVE_PIVOT_PARTIAL, f->y, f->A, f->sc, &f->LS),
                         BSOLVE_SUCCESS);
    }
}

static void fixture_close(fixture *f)
{
    SUNLinSolFree(f->LS);
    SUNMatDestroy(f->A);
    N_VDestroy(f->y);
    N_VDestroy(f->atol);
    N_VDestroy(f->tmp);
    sunsys_free(&f->s);
    bsolve_ctx_destroy(f->ctx);
    SUNContext_Free(&f->sc);
}

/* what an integration gives */
typedef struct result {
    double y[NCELL * 16]; /* final states (n <= 16) */
    double tau[NCELL];    /* CVODE: ignition delays */
    long nst, nsetups, nsolvefails;
    int nh;
    double h[4096];       /* CVODE: the step of each accepted step, in order */
    long fails_at[4096];  /* ... and the step-solve failures until then */
} result;

/* the singular-block test's hook into the solver's setup: poisons the
 * matrix of the poison_at-th setup */
static struct {
    int (*setup)(SUNLinearSolver, SUNMatrix);
    int calls, poison_at, ret;
} wrap;

static int wrapped_setup(SUNLinearSolver S, SUNMatrix A)
{
    if (++wrap.calls == wrap.poison_at) {
        /* column 0 of block 1 zero: singular at elimination step 1 */
        for (int64_t i = 0; i < bsolve_sunmatrix_n(A); i++) *at(A, 1, i, 0) = 0;
        wrap.ret = wrap.setup(S, A);
        return wrap.ret;
    }
    return wrap.setup(S, A);
}

/* CVODE from 0 to t_end on the cells [c0, c0 + ncell) (fixture_open's
 * dense and kind); poison_at: the setup hook above; jac_hook: the
 * reactors' */
static void run_cvode(const problem *p, int c0, int ncell, int dense, bsolve_layout_kind kind, double t_end,
                      int poison_at, void (*jac_hook)(void *, int, int, double *), result *res)
{
    const int n = p->n;
    fixture f;
    fixture_open(&f, p, c0, ncell, dense, kind);
    f.s.jac_hook = jac_hook;
    if (poison_at) {
        wrap.setup = f.LS->ops->setup;
        wrap.calls = 0;
        wrap.poison_at = poison_at;
        wrap.ret = 0;
        f.LS->ops->setup = wrapped_setup;
    }
    void *cv = CVodeCreate(CV_BDF, f.sc);
    ck_assert_ptr_nonnull(cv);
    ck_assert_int_eq(CVodeInit(cv, sunsys_rhs, 0.0, f.y), CV_SUCCESS);
    ck_assert_int_eq(CVodeSVtolerances(cv, RTOL, f.atol), CV_SUCCESS);
    ck_assert_int_eq(CVodeSetUserData(cv, &f.s), CV_SUCCESS);
    ck_assert_int_eq(CVodeSetLinearSolver(cv, f.LS, f.A), CV_SUCCESS);
    ck_assert_int_eq(CVodeSetJacFn(cv, sunsys_jac), CV_SUCCESS);
    ck_assert_int_eq(CVodeSetMaxNumSteps(cv, MAX_STEPS), CV_SUCCESS);
    ck_assert_int_eq(CVodeSetStopTime(cv, t_end), CV_SUCCESS);

    /* the ignition trackers start from dT/dt at t = 0 */
    ign_track g[NCELL];
    int done[NCELL] = {0};
    ck_assert_int_eq(sunsys_rhs(0, f.y, f.tmp, &f.s), 0);
    const double *f0 = N_VGetArrayPointer(f.tmp);
    for (int c = 0; c < ncell; c++) ign_start(&g[c], p->x0[(size_t)(c0 + c) * n + n - 1], f0[(size_t)c * n + n - 1]);
    res->nh = 0;
    double t = 0;
    while (t < t_end) {
        const int flag = CVode(cv, t_end, f.y, &t, CV_ONE_STEP);
        ck_assert_msg(flag >= 0, "CVode: %s at t = %g", CVodeGetReturnFlagName(flag), t);
        ck_assert_int_ge(sunsys_track(&f.s, cv, g, done, f.tmp), 0);
        double h;
        long fails;
        CVodeGetLastStep(cv, &h);
        CVodeGetNumStepSolveFails(cv, &fails);
        if (res->nh < 4096) res->h[res->nh] = h, res->fails_at[res->nh] = fails, res->nh++;
    }
    memcpy(res->y, N_VGetArrayPointer(f.y), (size_t)f.len * sizeof(double));
    for (int c = 0; c < ncell; c++) res->tau[c] = ign_delay(&g[c], NULL);
    CVodeGetNumSteps(cv, &res->nst);
    CVodeGetNumLinSolvSetups(cv, &res->nsetups);
    CVodeGetNumStepSolveFails(cv, &res->nsolvefails);
    CVodeFree(&cv);
    fixture_close(&f);
}

/* CVODE per cell with the dense solver: the reference */
static void run_reference(const problem *p, double t_end, result *ref)
{
    const int n = p->n;
    result one;
    ref->nst = 0;
    for (int c = 0; c < NCELL; c++) {
        run_cvode(p, c, 1, 1, BSOLVE_COL_MAJOR, t_end, 0, NULL, &one);
        memcpy(ref->y + (size_t)c * n, one.y, (size_t)n * sizeof(double));
        ref->tau[c] = one.tau[0];
        ref->nst += one.nst;
    }
}

/* the largest difference of two final states, in units of the tolerance
 * RTOL |y| + atol */
static double state_diff(const problem *p, const double *a, const double *b)
{
    const int n = p->n;
    double worst = 0;
    for (int c = 0; c < NCELL; c++)
        for (int i = 0; i < n; i++) {
            const double y = b[(size_t)c * n + i], w = RTOL * fabs(y) + (i == n - 1 ? ATOL_T : ATOL_Y);
            const double d = fabs(a[(size_t)c * n + i] - y) / w;
            worst = isnan(d) ? INFINITY : fmax(worst, d);
        }
    return worst;
}

/* past the last ignition: the states are near equilibrium */
#define T_END 4e-4
/* two integrations of tolerance RTOL: final states within this many
 * tolerances (RTOL |y| + atol) of each other (25 seen), ignition delays
 * within this relative difference (8e-6 seen) */
#define STATE_AGREE 100
#define DELAY_AGREE 3e-5

START_TEST(t_cvode)
{
    problem p;
    problem_load(&p);
    static result ref, blk;
    run_reference(&p, T_END, &ref);
    for (int c = 0; c < NCELL; c++) {
        const chem_case *k = &p.cs[CELL_CASE[c]];
        TL_EXPECT(fabs(ref.tau[c] - k->tau) <= 0.01 * k->tau, "dense cell %d: delay %.9g, Cantera %.9g", c,
                  ref.tau[c], k->tau);
    }
    TL_CLEAN("CVODE per cell against Cantera");
    for (size_t kk = 0; kk < 3; kk++) {
        run_cvode(&p, 0, NCELL, 0, KINDS[kk], T_END, 0, NULL, &blk);
        const double d = state_diff(&p, blk.y, ref.y);
        double worst_tau = 0;
        for (int c = 0; c < NCELL; c++) {
            const chem_case *k = &p.cs[CELL_CASE[c]];
            const double e = fabs(blk.tau[c] - ref.tau[c]) / ref.tau[c];
            worst_tau = fmax(worst_tau, e);
            TL_EXPECT(e <= DELAY_AGREE, "%s cell %d: delay %.12g, per cell %.12g", tl_kind_name(KINDS[kk]), c,
                      blk.tau[c], ref.tau[c]);
            TL_EXPECT(fabs(blk.tau[c] - k->tau) <= 0.01 * k->tau, "%s cell %d: delay %.9g, Cantera %.9g",
                      tl_kind_name(KINDS[kk]), c, blk.tau[c], k->tau);
        }
        TL_EXPECT(d <= STATE_AGREE, "%s: final states %.3g tolerances from CVODE per cell", tl_kind_name(KINDS[kk]),
                  d);
        TL_EXPECT(blk.nsolvefails == 0, "%s: %ld failed solves", tl_kind_name(KINDS[kk]), blk.nsolvefails);
        TL_CLEAN("CVODE through the adapter, %s", tl_kind_name(KINDS[kk]));
        printf("CVODE, %d h2o2 cells, %s: %ld steps (per cell: %ld in all), final states within %.3g tolerances, "
               "delays within %.2e of CVODE per cell\n",
               NCELL, tl_kind_name(KINDS[kk]), blk.nst, ref.nst, d, worst_tau);
    }
    /* one cell alone: the same system as the dense solver's, so the
     * same error control (the steps still differ: rounding in the two LUs
     * grows into different step sizes) */
    for (int c = 0; c < NCELL; c += 3) {
        static result one_ref, one;
        run_cvode(&p, c, 1, 1, BSOLVE_COL_MAJOR, T_END, 0, NULL, &one_ref);
        run_cvode(&p, c, 1, 0, BSOLVE_INTERLEAVED, T_END, 0, NULL, &one);
        TL_EXPECT(fabs(one.tau[0] - one_ref.tau[0]) <= DELAY_AGREE * one_ref.tau[0], "cell %d alone: %.12g / %.12g",
                  c, one.tau[0], one_ref.tau[0]);
        for (int i = 0; i < p.n; i++) {
            const double w = RTOL * fabs(one_ref.y[i]) + (i == p.n - 1 ? ATOL_T : ATOL_Y);
            TL_EXPECT(fabs(one.y[i] - one_ref.y[i]) <= STATE_AGREE * w, "cell %d alone: y[%d] %.12g / %.12g", c, i,
                      one.y[i], one_ref.y[i]);
        }
    }
    TL_CLEAN("one cell: adapter and dense solver");
    problem_free(&p);
}
END_TEST

/* a NaN in cell 4's Jacobian at its 3rd evaluation */
static int nan_count;
static void nan_hook(void *arg, int cell, int n, double *J)
{
    (void)arg;
    if (cell == 4 && ++nan_count == 3) J[n + 1] = NAN;
}

/* the poisoned run's first failure: the step it took after it against the
 * step the clean run took there; both runs are identical until then */
static void check_step_cut(const result *clean, const result *bad, const char *what)
{
    int k = 0;
    while (k < bad->nh && bad->fails_at[k] == 0) k++;
    ck_assert_msg(k < bad->nh && k < clean->nh, "%s: no failed step seen", what);
    for (int i = 0; i < k; i++)
        TL_EXPECT(bad->h[i] == clean->h[i], "%s: step %d before the failure differs", what, i);
    TL_EXPECT(bad->h[k] <= 0.25 * clean->h[k] * (1 + 1e-12), "%s: step %d after the failure %.6g, clean run's %.6g",
              what, k, bad->h[k], clean->h[k]);
    TL_EXPECT(clean->nsolvefails == 0 && bad->nsolvefails >= 1, "%s: %ld / %ld failed step solves", what,
              clean->nsolvefails, bad->nsolvefails);
    printf("%s: step %d failed, retried with h = %.4g (clean run: %.4g); %ld steps (clean: %ld)\n", what, k,
           bad->h[k], clean->h[k], bad->nst, clean->nst);
}

START_TEST(t_cvode_failed_block)
{
    problem p;
    problem_load(&p);
    static result clean, bad, ref;
    run_reference(&p, T_END, &ref);
    run_cvode(&p, 0, NCELL, 0, BSOLVE_INTERLEAVED, T_END, 0, NULL, &clean);
    /* a singular block in the 5th setup */
    run_cvode(&p, 0, NCELL, 0, BSOLVE_INTERLEAVED, T_END, 5, NULL, &bad);
    ck_assert_int_eq(wrap.ret, SUNLS_LUFACT_FAIL);
    check_step_cut(&clean, &bad, "singular block");
    TL_EXPECT(state_diff(&p, bad.y, ref.y) <= STATE_AGREE, "singular block: final states %.3g tolerances off",
              state_diff(&p, bad.y, ref.y));
    TL_CLEAN("a singular block in one setup");
    /* a NaN in one cell's Jacobian */
    nan_count = 0;
    run_cvode(&p, 0, NCELL, 0, BSOLVE_COL_MAJOR, T_END, 0, nan_hook, &bad);
    ck_assert_int_ge(nan_count, 3);
    check_step_cut(&clean, &bad, "NaN Jacobian block");
    TL_EXPECT(state_diff(&p, bad.y, ref.y) <= STATE_AGREE, "NaN block: final states %.3g tolerances off",
              state_diff(&p, bad.y, ref.y));
    TL_CLEAN("a NaN Jacobian block");
    problem_free(&p);
}
END_TEST

/* ARKODE's mass matrix 2 I, and its right-hand side 2 f: the same ODE */
static int rhs2(double t, N_Vector y, N_Vector f, void *user)
{
    const int r = sunsys_rhs(t, y, f, user);
    N_VScale(2.0, f, f);
    return r;
}
static int jac2(double t, N_Vector y, N_Vector fy, SUNMatrix J, void *user, N_Vector t1, N_Vector t2, N_Vector t3)
{
    const int r = sunsys_jac(t, y, fy, J, user, t1, t2, t3);
    double *d = bsolve_sunmatrix_data(J);
    const int64_t len = bsolve_sunmatrix_n(J) * bsolve_sunmatrix_n(J) * bsolve_sunmatrix_nblocks(J);
    for (int64_t e = 0; e < len; e++) d[e] *= 2;
    return r;
}
static int mass2(double t, SUNMatrix M, void *user, N_Vector t1, N_Vector t2, N_Vector t3)
{
    (void)t, (void)user, (void)t1, (void)t2, (void)t3;
    SUNMatZero(M);
    for (int64_t k = 0; k < bsolve_sunmatrix_nblocks(M); k++)
        for (int64_t i = 0; i < bsolve_sunmatrix_n(M); i++) *at(M, k, i, i) = 2;
    return 0;
}

static void run_arkode(const problem *p, int mass, bsolve_layout_kind kind, result *res)
{
    fixture f;
    fixture_open(&f, p, 0, NCELL, 0, kind);
    SUNMatrix M = NULL;
    SUNLinearSolver LSM = NULL;
    void *ark = ARKStepCreate(NULL, mass ? rhs2 : sunsys_rhs, 0.0, f.y, f.sc);
    ck_assert_ptr_nonnull(ark);
    ck_assert_int_eq(ARK(SVtolerances)(ark, RTOL, f.atol), 0);
    ck_assert_int_eq(ARK(SetUserData)(ark, &f.s), 0);
    ck_assert_int_eq(ARK(SetLinearSolver)(ark, f.LS, f.A), 0);
    ck_assert_int_eq(ARK(SetJacFn)(ark, mass ? jac2 : sunsys_jac), 0);
    if (mass) {
        ck_assert_int_eq(bsolve_sunmatrix_create(f.sc, p->n, NCELL, kind, &M), BSOLVE_SUCCESS);
        ck_assert_int_eq(bsolve_sunlinsol_create(f.ctx, BSOLVE_PIVOT_PARTIAL, f.y, M, f.sc, &LSM), BSOLVE_SUCCESS);
        ck_assert_int_eq(ARK(SetMassLinearSolver)(ark, LSM, M, SUNFALSE), 0);
        ck_assert_int_eq(ARK(SetMassFn)(ark, mass2), 0);
    }
    ck_assert_int_eq(ARK(SetMaxNumSteps)(ark, MAX_STEPS), 0);
    double t = 0;
    const int flag = ARK(Evolve)(ark, T_END, f.y, &t, ARK_NORMAL);
    ck_assert_msg(flag >= 0, "ARKODE: flag %d at t = %g", flag, t);
    ck_assert(t == T_END);
    memcpy(res->y, N_VGetArrayPointer(f.y), (size_t)f.len * sizeof(double));
    ARK(GetNumSteps)(ark, &res->nst);
    ARK(Free)(&ark);
    if (mass) SUNLinSolFree(LSM), SUNMatDestroy(M);
    fixture_close(&f);
}

static void run_ida(const problem *p, bsolve_layout_kind kind, result *res)
{
    fixture f;
    fixture_open(&f, p, 0, NCELL, 0, kind);
    N_Vector yp = f.tmp;
    ck_assert_int_eq(sunsys_rhs(0, f.y, yp, &f.s), 0); /* consistent y'(0) = f(y(0)) */
    void *ida = IDACreate(f.sc);
    ck_assert_ptr_nonnull(ida);
    ck_assert_int_eq(IDAInit(ida, sunsys_res, 0.0, f.y, yp), IDA_SUCCESS);
    ck_assert_int_eq(IDASVtolerances(ida, RTOL, f.atol), IDA_SUCCESS);
    ck_assert_int_eq(IDASetUserData(ida, &f.s), IDA_SUCCESS);
    ck_assert_int_eq(IDASetLinearSolver(ida, f.LS, f.A), IDA_SUCCESS);
    ck_assert_int_eq(IDASetJacFn(ida, sunsys_ida_jac), IDA_SUCCESS);
    ck_assert_int_eq(IDASetMaxNumSteps(ida, MAX_STEPS), IDA_SUCCESS);
    ck_assert_int_eq(IDASetStopTime(ida, T_END), IDA_SUCCESS);
    double t = 0;
    const int flag = IDASolve(ida, T_END, &t, f.y, yp, IDA_NORMAL);
    ck_assert_msg(flag >= 0, "IDA: flag %d at t = %g", flag, t);
    memcpy(res->y, N_VGetArrayPointer(f.y), (size_t)f.len * sizeof(double));
    IDAGetNumSteps(ida, &res->nst);
    IDAFree(&ida);
    fixture_close(&f);
}

START_TEST(t_arkode_ida)
{
    problem p;
    problem_load(&p);
    static result ref, r;
    run_reference(&p, T_END, &ref);
    run_arkode(&p, 0, BSOLVE_INTERLEAVED, &r);
    const double da = state_diff(&p, r.y, ref.y);
    TL_EXPECT(da <= STATE_AGREE, "ARKODE: final states %.3g tolerances from CVODE per cell", da);
    printf("ARKODE (implicit), %d h2o2 cells: %ld steps, final states within %.3g tolerances of CVODE per cell\n",
           NCELL, r.nst, da);
    run_arkode(&p, 1, BSOLVE_COL_MAJOR, &r);
    const double dm = state_diff(&p, r.y, ref.y);
    TL_EXPECT(dm <= STATE_AGREE, "ARKODE, mass matrix 2 I: final states %.3g tolerances from CVODE per cell", dm);
    printf("ARKODE, mass matrix: %ld steps, within %.3g tolerances\n", r.nst, dm);
    run_ida(&p, BSOLVE_ROW_MAJOR, &r);
    const double di = state_diff(&p, r.y, ref.y);
    TL_EXPECT(di <= STATE_AGREE, "IDA: final states %.3g tolerances from CVODE per cell", di);
    printf("IDA, %d h2o2 cells: %ld steps, final states within %.3g tolerances of CVODE per cell\n", NCELL, r.nst,
           di);
    TL_CLEAN("ARKODE and IDA through the adapter");
    problem_free(&p);
}
END_TEST

#ifdef CHEM_CVODE_BIN
static int run_sample(const char *args)
{
    return tl_run(CHEM_CVODE_BIN, args);
}

START_TEST(t_sample)
{
    ck_assert_int_eq(run_sample("-m h2o2 -c 18 -t 1 -q"), 0);
    /* a tolerance no integration meets: the sample must say so */
    ck_assert_int_eq(run_sample("-m h2o2 -c 18 -t 1 -q -e 1e-12"), 1);
    ck_assert_int_eq(run_sample("-m nosuchmech -c 18"), 2);
}
END_TEST
#endif

int main(void)
{
    Suite *s = suite_create("sundials");
    TCase *tc = tl_tcase("sundials");
    tcase_add_test(tc, t_matrix_create);
    tcase_add_test(tc, t_matrix_ops);
    tcase_add_test(tc, t_solver_random);
    tcase_add_test(tc, t_solver_failures);
    tcase_add_test(tc, t_cvode);
    tcase_add_test(tc, t_cvode_failed_block);
    tcase_add_test(tc, t_arkode_ida);
#ifdef CHEM_CVODE_BIN
    tcase_add_test(tc, t_sample);
#endif
    suite_add_tcase(s, tc);
    return tl_main(s);
}
