/*
 * test_qr.c -- bsolve_?gels, ?geqrf / ?geqrs and bsolve_qr_export (QR by
 * Givens rotations, least squares): n = 1..16 and a spread up to 64, m in
 * {n, n+1, 2n, up to 128}, nrhs 1..4, batch 1, 7, 1000, every layout of A
 * and of B, both precisions.  Every system is checked against
 *   - the least-squares optimality condition, from the original A and b in
 *     long double: ||A^T (b - A x)||_2 <= 30 m eps ||A||_F (||r||_2 +
 *     ||A||_F ||x||_2) (the second term covers r ~ 0);
 *   - LAPACKE_dgels and GSL (gsl_linalg_QR_decomp + QR_lssolve, or
 *     QR_solve when m == n), to a bound set by the condition number of R;
 *   - the residual rows n..m-1 of B, whose norm must be ||b - A x||_2;
 * and factorizations by their export: ||Q^T Q - I||, ||Q(:,0:n-1) R - A||
 * small, R upper triangular.  Each call must leave A bit-identical, write
 * every info entry and every exported entry (outputs are poisoned with a
 * sentinel first), and leave gaps and guard zones untouched.  Then: rank
 * deficiency (a zero column, two equal columns: info = the column),
 * matrices scaled by 1e-300 and 1e300 (1e-35, 1e35 in float), NaN and
 * infinities injected at random places of a batch of 1000, bad arguments.
 */
#include "testlib.h"

#include <gsl/gsl_linalg.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOL_C 30.0 /* the constant of every "c m eps" bound */

/* ---- calls by precision ------------------------------------------------ */

static bsolve_status gels(bsolve_ctx *ctx, bsolve_precision p, int64_t m, int64_t n, int64_t nrhs, int64_t batch,
                          const void *A, bsolve_layout la, void *B, bsolve_layout lb, int32_t *info)
{
    return p == BSOLVE_PREC_D ? bsolve_dgels(ctx, m, n, nrhs, batch, A, la, B, lb, info)
                              : bsolve_sgels(ctx, m, n, nrhs, batch, A, la, B, lb, info);
}

static bsolve_status geqrf(bsolve_ctx *ctx, bsolve_precision p, const void *A, bsolve_layout la, bsolve_qr *qr,
                           int32_t *info)
{
    return p == BSOLVE_PREC_D ? bsolve_dgeqrf(ctx, A, la, qr, info) : bsolve_sgeqrf(ctx, A, la, qr, info);
}

static bsolve_status geqrs(bsolve_ctx *ctx, bsolve_precision p, const bsolve_qr *qr, int64_t nrhs, void *B,
                           bsolve_layout lb, int32_t *info)
{
    return p == BSOLVE_PREC_D ? bsolve_dgeqrs(ctx, qr, nrhs, B, lb, info) : bsolve_sgeqrs(ctx, qr, nrhs, B, lb, info);
}

/* ---- references and measures ------------------------------------------- */

/* LAPACKE_dgels on copies: X (m x nrhs, ld m) as dgels leaves B. */
static int ref_dgels(int m, int n, int nrhs, const double *a, const double *b, double *x)
{
    double *w = malloc(sizeof *w * m * n);
    memcpy(w, a, sizeof *w * m * n);
    memcpy(x, b, sizeof *x * m * nrhs);
    int r = LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', m, n, nrhs, w, m, x, m);
    free(w);
    return r;
}

/* GSL's Householder QR least squares, column c of b, x receives n entries. */
static int ref_gsl(int m, int n, const double *a, const double *b, double *x)
{
    gsl_matrix *qr = gsl_matrix_alloc(m, n);
    gsl_vector *tau = gsl_vector_alloc(n), *res = gsl_vector_alloc(m);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) gsl_matrix_set(qr, i, j, a[i + j * m]);
    gsl_vector_const_view vb = gsl_vector_const_view_array(b, m);
    gsl_vector_view vx = gsl_vector_view_array(x, n);
    int r = gsl_linalg_QR_decomp(qr, tau);
    if (!r)
        r = m == n ? gsl_linalg_QR_solve(qr, tau, &vb.vector, &vx.vector)
                   : gsl_linalg_QR_lssolve(qr, tau, &vb.vector, &vx.vector, res);
    gsl_matrix_free(qr);
    gsl_vector_free(tau);
    gsl_vector_free(res);
    return r;
}

/* inf-norm condition number of A's R factor (LAPACK dgeqrf + dtrcon). */
static double cond_r(int m, int n, const double *a)
{
    double *w = malloc(sizeof *w * m * n), *tau = malloc(sizeof *tau * n), rc = 0;
    memcpy(w, a, sizeof *w * m * n);
    if (LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, w, m, tau) == 0)
        LAPACKE_dtrcon(LAPACK_COL_MAJOR, 'I', 'U', 'N', n, w, m, &rc);
    free(w);
    free(tau);
    return rc > 0 ? 1 / rc : INFINITY;
}

static long double frob(int r, int c, const double *a, int ld)
{
    long double s = 0;
    for (int j = 0; j < c; j++)
        for (int i = 0; i < r; i++) s += (long double)a[i + j * ld] * a[i + j * ld];
    return sqrtl(s);
}

/* For column c: ||A^T r|| / (m eps ||A||_F (||r|| + ||A||_F ||x||)) with
 * r = b - A x, in long double; also ||r|| (into *rn). +inf for a NaN. */
static double opt_ratio(int m, int n, const double *a, const double *b, const double *x, double eps, double *rn)
{
    long double *r = malloc(sizeof *r * m), s = 0, an = frob(m, n, a, m), xn = 0;
    for (int i = 0; i < m; i++) {
        long double v = b[i];
        for (int j = 0; j < n; j++) v -= (long double)a[i + j * m] * x[j];
        r[i] = v;
    }
    long double rr = 0;
    for (int i = 0; i < m; i++) rr += r[i] * r[i];
    for (int j = 0; j < n; j++) {
        long double v = 0;
        for (int i = 0; i < m; i++) v += (long double)a[i + j * m] * r[i];
        s += v * v;
        xn += (long double)x[j] * x[j];
    }
    free(r);
    *rn = (double)sqrtl(rr);
    long double den = (long double)m * eps * an * (sqrtl(rr) + an * sqrtl(xn));
    double q = (double)(sqrtl(s) / (den > 0 ? den : LDBL_MIN));
    return isfinite(q) ? q : INFINITY;
}

static double maxabs(int count, const double *x)
{
    double v = 0;
    for (int i = 0; i < count; i++) v = fmax(v, fabs(x[i]));
    return v;
}

/* The bound on the residual entry B(n) against ||b - A x||_2 (and between
 * two answers): c m eps (||b|| + ||A||_F max|x|), the second term for the
 * rounding of x itself. */
static double res_tol(int m, int n, double eps, const double *a, const double *b, const double *x)
{
    return TOL_C * m * eps * ((double)frob(m, 1, b, m) + (double)frob(m, n, a, m) * maxabs(n, x));
}

/* ---- matrices ------------------------------------------------------------ */

typedef enum { F_RANDOM, F_COLSCALED, F_DIAGBOOST, F_NFAM } family;

/* Uniform [-1, 1]; COLSCALED: column j times 2^e_j (|e_j| <= 8 in double,
 * 3 in float: the rank test is per column, so scaling never flags);
 * DIAGBOOST: A(j,j) += 2 sqrt(m) (well conditioned even when m == n). */
static void gen_a(tl_rng *rng, family f, bsolve_precision p, int m, int n, double *a)
{
    tl_gen_uniform(rng, (int64_t)m * n, a);
    for (int j = 0; j < n; j++) {
        if (f == F_COLSCALED) {
            int e = (int)tl_rng_int(rng, p == BSOLVE_PREC_D ? -8 : -3, p == BSOLVE_PREC_D ? 8 : 3);
            for (int i = 0; i < m; i++) a[i + j * m] = ldexp(a[i + j * m], e);
        } else if (f == F_DIAGBOOST) {
            a[j + j * m] += (a[j + j * m] < 0 ? -2 : 2) * sqrt((double)m);
        }
    }
    if (p == BSOLVE_PREC_S) tl_round_float((int64_t)m * n, a);
}

/* ---- one case of gels or geqrf+geqrs ------------------------------------ */

typedef struct {
    bsolve_precision prec;
    int m, n, nrhs;
    int64_t batch;
    bsolve_layout_kind ka, kb;
    int pada, padb, misalign;
    int factored;     /* geqrf + geqrs + export instead of gels */
    double scale;     /* entries of A and B multiplied by it (1, tiny, huge) */
    int rankdef;      /* 1: a zero column; 2: two equal columns (in every system) */
    int nonfinite;    /* inject NaN/Inf into some systems */
    uint64_t seed;
} qcase;

static void case_str(const qcase *c, bsolve_layout la, bsolve_layout lb, char *buf, size_t len)
{
    char sa[64], sb[64];
    tl_layout_str(la, sa, sizeof sa);
    tl_layout_str(lb, sb, sizeof sb);
    snprintf(buf, len, "%s%s m=%d n=%d nrhs=%d batch=%lld A=%s B=%s misalign=%d scale=%g rankdef=%d nonfinite=%d seed=%llu",
             tl_prec_name(c->prec), c->factored ? "geqrf+geqrs" : "gels", c->m, c->n, c->nrhs, (long long)c->batch, sa,
             sb, c->misalign, c->scale, c->rankdef, c->nonfinite, (unsigned long long)c->seed);
}

/* Checks the exported factors of every system against A: Q orthogonal, R
 * upper triangular, Q(:,0:n-1) R = A, every entry written. */
static void check_export(bsolve_ctx *ctx, const qcase *c, bsolve_qr *qr, const tl_buf *A0, const int32_t *info,
                         const char *desc)
{
    const int m = c->m, n = c->n;
    const double eps = tl_eps(c->prec);
    bsolve_layout lq = tl_layout(c->kb, c->padb, m, m, c->batch), lr = tl_layout(c->ka, c->pada, n, n, c->batch);
    tl_buf Q, R;
    tl_buf_alloc(&Q, c->prec, lq, m, m, c->batch, c->misalign);
    tl_buf_alloc(&R, c->prec, lr, n, n, c->batch, 0);
    bsolve_status st = bsolve_qr_export(ctx, qr, Q.data, lq, R.data, lr);
    ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] export: %s (%s)", desc, tl_status_name(st), bsolve_ctx_message(ctx));
    char where[200];
    int64_t un = tl_buf_unwritten(&Q, where, sizeof where);
    ck_assert_msg(un == 0, "[%s] export: %lld entries of Q left unwritten; first %s", desc, (long long)un, where);
    un = tl_buf_unwritten(&R, where, sizeof where);
    ck_assert_msg(un == 0, "[%s] export: %lld entries of R left unwritten; first %s", desc, (long long)un, where);
    ck_assert_msg(tl_buf_bad_padding(&Q, where, sizeof where) == 0, "[%s] export: Q padding written: %s", desc, where);
    ck_assert_msg(tl_buf_bad_padding(&R, where, sizeof where) == 0, "[%s] export: R padding written: %s", desc, where);
    double *q = malloc(sizeof *q * m * m), *r = malloc(sizeof *r * n * n), *a = malloc(sizeof *a * m * n);
    tl_reset();
    for (int64_t k = 0; k < c->batch; k++) {
        if (info[k] == BSOLVE_INFO_NONFINITE) continue;
        tl_buf_getm(&Q, k, q);
        tl_buf_getm(&R, k, r);
        tl_buf_getm(A0, k, a);
        double worst = 0, lower = 0, fit = 0;
        for (int i = 0; i < m; i++)
            for (int j = 0; j < m; j++) {
                long double s = 0;
                for (int l = 0; l < m; l++) s += (long double)q[l + i * m] * q[l + j * m];
                worst = fmax(worst, fabs((double)(s - (i == j))));
            }
        for (int j = 0; j < n; j++)
            for (int i = j + 1; i < n; i++) lower = fmax(lower, fabs(r[i + j * n]));
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                long double s = 0;
                for (int l = 0; l <= j; l++) s += (long double)q[i + l * m] * r[l + j * n];
                fit = fmax(fit, fabs((double)(s - a[i + j * m])));
            }
        const double an = (double)frob(m, n, a, m);
        /* The documented (dlartg) sign: column 0's last rotation has f =
         * A(0,0), so R(0,0) carries A(0,0)'s sign.  (Any sign makes a valid
         * QR; this one makes the two backends' Q, R and residual rows agree.) */
        if (m > 1 && a[0] != 0)
            TL_EXPECT((r[0] < 0) == (a[0] < 0), "system %lld: R(0,0) = %.3g has not the sign of A(0,0) = %.3g",
                      (long long)k, r[0], a[0]);
        TL_EXPECT(worst <= TOL_C * m * eps, "system %lld: ||Q^T Q - I||_max = %.3g > %g m eps", (long long)k, worst,
                  TOL_C);
        TL_EXPECT(lower == 0, "system %lld: R has %.3g below its diagonal", (long long)k, lower);
        TL_EXPECT(fit <= TOL_C * m * eps * an, "system %lld: ||QR - A||_max = %.3g > %g m eps ||A||_F (= %.3g)",
                  (long long)k, fit, TOL_C, an);
    }
    TL_CLEAN("%s (export)", desc);
    free(q);
    free(r);
    free(a);
    tl_buf_free(&Q);
    tl_buf_free(&R);
}

/* One operation, one answer: the other path (gels for geqrf+geqrs, and the
 * reverse; single = 0) or gels with one right-hand side, the last column of
 * B (single = 1), on the same data must return the B of the call checked
 * (Bx, info): on the CPU backend the other path bitwise (the same rotations
 * in the same order, the same scaling); otherwise to rounding (the CUDA
 * backend's FP64 gels with nrhs = 1 may reflect where the others rotate,
 * and B's scaling is taken over all its columns): x within the forward
 * error bound of the references (kap: cond(R) per system), the residual
 * entry B(n) within res_tol, the rows below it 0. */
static void check_same(bsolve_ctx *ctx, const qcase *c, bsolve_layout la, const tl_buf *A0, const tl_buf *B0,
                       const tl_buf *Bx, const int32_t *info, const double *kap, int single, const char *desc)
{
    const int m = c->m, n = c->n, nrhs = c->nrhs, cols = single ? 1 : nrhs, col0 = single ? nrhs - 1 : 0;
    const int64_t batch = c->batch;
    const double eps = tl_eps(c->prec);
    const int fused = single || c->factored, bitwise = !single && tl_backend() == BSOLVE_BACKEND_CPU;
    bsolve_layout lb = tl_layout(c->kb, c->padb, m, cols, batch);
    tl_buf B2;
    tl_buf_alloc(&B2, c->prec, lb, m, cols, batch, c->misalign);
    double *a = malloc(sizeof *a * m * n), *b = malloc(sizeof *b * m * nrhs), *x = malloc(sizeof *x * m * nrhs),
           *y = malloc(sizeof *y * m * cols);
    for (int64_t k = 0; k < batch; k++) {
        tl_buf_getm(B0, k, b);
        tl_buf_put(&B2, k, b + (ptrdiff_t)col0 * m);
    }
    int32_t *info3 = tl_i32_alloc(batch);
    bsolve_status st;
    if (fused) {
        st = gels(ctx, c->prec, m, n, cols, batch, A0->data, la, B2.data, lb, info3);
    } else {
        bsolve_qr *qr = NULL;
        st = bsolve_qr_create(ctx, c->prec, m, n, batch, &qr);
        if (st == BSOLVE_SUCCESS) st = geqrf(ctx, c->prec, A0->data, la, qr, info3);
        if (st == BSOLVE_SUCCESS) st = geqrs(ctx, c->prec, qr, cols, B2.data, lb, info3);
        bsolve_qr_destroy(qr);
    }
    ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] %s: %s (%s)", desc,
                  single ? "gels, last column alone" : fused ? "gels" : "geqrf+geqrs", tl_status_name(st),
                  bsolve_ctx_message(ctx));
    tl_reset();
    for (int64_t k = 0; k < batch; k++) {
        /* (the last column alone: a NaN in another column is no concern of its) */
        if (single && info[k] == BSOLVE_INFO_NONFINITE && info3[k] == 0) continue;
        TL_EXPECT(info3[k] == info[k], "system %lld: info %d, %d before", (long long)k, info3[k], info[k]);
        tl_buf_getm(Bx, k, x);
        tl_buf_getm(&B2, k, y);
        if (info[k] != 0) {
            TL_EXPECT(tl_all_nan((int64_t)m * cols, y), "system %lld (info %d): B is not NaN-filled", (long long)k,
                      info[k]);
            continue;
        }
        if (bitwise) {
            TL_EXPECT(memcmp(x, y, sizeof *x * m * nrhs) == 0, "system %lld: B differs from the other path's (x[0] = %.17g, %.17g; B(n) = %.17g, %.17g)",
                      (long long)k, x[0], y[0], x[n < m ? n : 0], y[n < m ? n : 0]);
            continue;
        }
        tl_buf_getm(A0, k, a);
        tl_buf_getm(B0, k, b);
        for (int j = 0; j < cols; j++) {
            const double *xc = x + (ptrdiff_t)(col0 + j) * m, *yc = y + (ptrdiff_t)j * m, *bc = b + (ptrdiff_t)(col0 + j) * m;
            const double xn = maxabs(n, xc), an = (double)frob(m, n, a, m);
            double rn = 0;
            for (int i = n; i < m; i++) rn = fmax(rn, fabs(xc[i]));
            const double rho = xn > 0 ? rn / (an * xn) : 0, kp = kap[k];
            const double tol = TOL_C * m * eps * (kp + kp * kp * rho);
            double d = 0;
            for (int i = 0; i < n; i++) d = fmax(d, fabs(xc[i] - yc[i]));
            d /= xn > 0 ? xn : 1;
            TL_EXPECT(!(tol < 1e-2) || d <= tol, "system %lld rhs %d: max|dx|/max|x| = %.3g > %.3g from the other answer (kappa %.3g)",
                      (long long)k, col0 + j, d, tol, kp);
            if (m > n) {
                TL_EXPECT(fabs(xc[n] - yc[n]) <= res_tol(m, n, eps, a, bc, xc),
                          "system %lld rhs %d: B(n) = %.17g, %.17g in the other answer", (long long)k, col0 + j,
                          yc[n], xc[n]);
                for (int i = n + 1; i < m; i++)
                    TL_EXPECT(yc[i] == 0, "system %lld rhs %d: B(%d) = %.17g, not 0", (long long)k, col0 + j, i, yc[i]);
            }
        }
    }
    TL_CLEAN("%s (against %s)", desc, single ? "gels with its last right-hand side alone" : fused ? "gels" : "geqrf+geqrs");
    free(a), free(b), free(x), free(y);
    tl_i32_free(info3);
    tl_buf_free(&B2);
}

static void run_case(bsolve_ctx *ctx, const qcase *c)
{
    const int m = c->m, n = c->n, nrhs = c->nrhs;
    const int64_t batch = c->batch;
    const double eps = tl_eps(c->prec);
    bsolve_layout la = tl_layout(c->ka, c->pada, m, n, batch), lb = tl_layout(c->kb, c->padb, m, nrhs, batch);
    char desc[512], where[200];
    case_str(c, la, lb, desc, sizeof desc);

    tl_rng rng;
    tl_rng_seed(&rng, c->seed);
    tl_buf A, B, A0, B0;
    tl_buf_alloc(&A, c->prec, la, m, n, batch, c->misalign);
    tl_buf_alloc(&B, c->prec, lb, m, nrhs, batch, c->misalign);
    double *a = malloc(sizeof *a * m * n), *b = malloc(sizeof *b * m * nrhs), *x = malloc(sizeof *x * m * nrhs);
    double *xr = malloc(sizeof *xr * m * nrhs), *xg = malloc(sizeof *xg * n);
    int32_t *want = malloc(sizeof *want * (batch > 0 ? batch : 1));
    double *kap = malloc(sizeof *kap * (batch > 0 ? batch : 1));
    for (int64_t k = 0; k < batch; k++) {
        gen_a(&rng, (family)((k + c->seed) % F_NFAM), c->prec, m, n, a);
        if (c->rankdef == 1 || c->rankdef == 2) {
            /* the other columns stay well conditioned: the flagged column
             * must be the first negligible one */
            for (int j = 0; j < n; j++) a[j + j * m] += 2 * sqrt((double)m);
        }
        want[k] = 0;
        if (c->rankdef == 1) {
            int j = (int)tl_rng_int(&rng, 0, n - 1);
            for (int i = 0; i < m; i++) a[i + j * m] = 0;
            want[k] = j + 1;
        } else if (c->rankdef == 2 && n >= 2) {
            int p = (int)tl_rng_int(&rng, 0, n - 2), q = (int)tl_rng_int(&rng, p + 1, n - 1);
            memcpy(a + q * m, a + p * m, sizeof *a * m);
            want[k] = q + 1;
        }
        tl_gen_uniform(&rng, (int64_t)m * nrhs, b);
        if (c->prec == BSOLVE_PREC_S) tl_round_float((int64_t)m * nrhs, b);
        for (int e = 0; e < m * n; e++) a[e] *= c->scale;
        for (int e = 0; e < m * nrhs; e++) b[e] *= c->scale;
        if (c->nonfinite && tl_rng_int(&rng, 0, 9) == 0) {
            static const double bad[] = {NAN, INFINITY, -INFINITY};
            double v = bad[tl_rng_int(&rng, 0, 2)];
            if (tl_rng_int(&rng, 0, 2) > 0 || c->factored)
                a[tl_rng_int(&rng, 0, (int64_t)m * n - 1)] = v;
            else
                b[tl_rng_int(&rng, 0, (int64_t)m * nrhs - 1)] = v;
            want[k] = BSOLVE_INFO_NONFINITE;
        }
        tl_buf_put(&A, k, a);
        tl_buf_put(&B, k, b);
    }
    tl_buf_clone(&A, &A0);
    tl_buf_clone(&B, &B0);
    int32_t *info = tl_i32_alloc(batch), *info2 = tl_i32_alloc(batch);

    bsolve_status st;
    bsolve_qr *qr = NULL;
    if (c->factored) {
        st = bsolve_qr_create(ctx, c->prec, m, n, batch, &qr);
        ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] qr_create: %s (%s)", desc, tl_status_name(st),
                      bsolve_ctx_message(ctx));
        st = geqrf(ctx, c->prec, A.data, la, qr, info2);
        ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] geqrf: %s (%s)", desc, tl_status_name(st), bsolve_ctx_message(ctx));
        ck_assert_msg(tl_i32_guards_ok(info2, batch), "[%s]: geqrf wrote info outside info[0..batch)", desc);
        st = geqrs(ctx, c->prec, qr, nrhs, B.data, lb, info);
    } else {
        st = gels(ctx, c->prec, m, n, nrhs, batch, A.data, la, B.data, lb, info);
    }
    ck_assert_msg(st == BSOLVE_SUCCESS, "[%s]: status %s, message \"%s\"", desc, tl_status_name(st),
                  bsolve_ctx_message(ctx));
    ck_assert_msg(strcmp(bsolve_ctx_message(ctx), "") == 0, "[%s]: message after success is \"%s\"", desc,
                  bsolve_ctx_message(ctx));
    ck_assert_msg(tl_buf_same(&A, &A0), "[%s]: A (read-only) was modified", desc);
    int64_t badpad = tl_buf_bad_padding(&B, where, sizeof where);
    ck_assert_msg(badpad == 0, "[%s]: B: %lld padding elements overwritten; first: %s", desc, (long long)badpad, where);
    ck_assert_msg(tl_i32_guards_ok(info, batch), "[%s]: info written outside info[0..batch)", desc);

    tl_reset();
    double worst_opt = 0, worst_ref = 0;
    for (int64_t k = 0; k < batch; k++) {
        TL_EXPECT(info[k] == want[k], "system %lld: info = %d, expected %d", (long long)k, info[k], want[k]);
        if (c->factored)
            TL_EXPECT(info2[k] == want[k], "system %lld: geqrf info = %d, expected %d", (long long)k, info2[k],
                      want[k]);
        tl_buf_getm(&B, k, x);
        if (want[k] != 0 || info[k] != 0) {
            TL_EXPECT(tl_all_nan((int64_t)m * nrhs, x), "system %lld (info %d): B is not NaN-filled", (long long)k,
                      info[k]);
            continue;
        }
        tl_buf_getm(&A0, k, a);
        tl_buf_getm(&B0, k, b);
        const int full_ref = batch <= 7 || k % 13 == 0;
        double kappa = -1;
        int rinfo = ref_dgels(m, n, nrhs, a, b, xr);
        TL_EXPECT(rinfo == 0, "system %lld: LAPACKE_dgels info %d", (long long)k, rinfo);
        for (int col = 0; col < nrhs; col++) {
            const double *xc = x + col * m, *bc = b + col * m, *rc = xr + col * m;
            double rn;
            const double q = opt_ratio(m, n, a, bc, xc, eps, &rn);
            worst_opt = fmax(worst_opt, q);
            TL_EXPECT(q <= TOL_C, "system %lld rhs %d: ||A^T r|| ratio %.3g > %g (x[0] = %.17g)", (long long)k, col,
                      q, TOL_C, xc[0]);
            /* rows n..m-1 in the canonical form: B(n) = ||r||_2 >= 0, zeros below */
            if (m > n) {
                TL_EXPECT(xc[n] >= 0 && fabs(xc[n] - rn) <= res_tol(m, n, eps, a, bc, xc),
                          "system %lld rhs %d: B(n) = %.17g, ||b - A x|| = %.17g", (long long)k, col, xc[n], rn);
                for (int i = n + 1; i < m; i++)
                    TL_EXPECT(xc[i] == 0, "system %lld rhs %d: B(%d) = %.17g, not 0", (long long)k, col, i, xc[i]);
            }
            /* forward error against the references: both solutions are
             * backward stable, so they differ by about
             * eps (kappa + kappa^2 ||r|| / (||A|| ||x||)) */
            if (kappa < 0) kappa = kap[k] = cond_r(m, n, a);
            const double xn = maxabs(n, rc), an = (double)frob(m, n, a, m);
            const double rho = xn > 0 ? rn / (an * xn) : 0;
            const double tol = TOL_C * m * eps * (kappa + kappa * kappa * rho);
            if (!(tol < 1e-2)) continue;
            double d = 0;
            for (int i = 0; i < n; i++) d = fmax(d, fabs(xc[i] - rc[i]));
            d /= xn > 0 ? xn : 1;
            worst_ref = fmax(worst_ref, d / tol);
            TL_EXPECT(d <= tol, "system %lld rhs %d: vs LAPACKE_dgels max|dx|/max|x| = %.3g > %.3g (kappa %.3g)",
                      (long long)k, col, d, tol, kappa);
            if (full_ref) {
                int g = ref_gsl(m, n, a, bc, xg);
                TL_EXPECT(g == 0, "system %lld: GSL QR reports %d", (long long)k, g);
                d = 0;
                for (int i = 0; i < n; i++) d = fmax(d, fabs(xc[i] - xg[i]));
                d /= xn > 0 ? xn : 1;
                TL_EXPECT(d <= tol, "system %lld rhs %d: vs GSL max|dx|/max|x| = %.3g > %.3g (kappa %.3g)",
                          (long long)k, col, d, tol, kappa);
            }
        }
    }
    if (getenv("BSOLVE_TEST_VERBOSE"))
        printf("  [%s] worst optimality ratio %.3g, worst reference diff %.3g of tol\n", desc, worst_opt, worst_ref);
    TL_CLEAN("%s", desc);
    check_same(ctx, c, la, &A0, &B0, &B, info, kap, 0, desc);
    if (nrhs > 1) check_same(ctx, c, la, &A0, &B0, &B, info, kap, 1, desc);
    if (c->factored) {
        check_export(ctx, c, qr, &A0, info2, desc);
        bsolve_qr_destroy(qr);
    }
    free(a), free(b), free(x), free(xr), free(xg), free(want), free(kap);
    tl_i32_free(info);
    tl_i32_free(info2);
    tl_buf_free(&A);
    tl_buf_free(&B);
    tl_buf_free(&A0);
    tl_buf_free(&B0);
}

static qcase make_case(bsolve_precision p, int m, int n, int64_t batch, int var, uint64_t salt)
{
    qcase c;
    memset(&c, 0, sizeof c);
    const int lp = (n + 3 * m + 5 * var + (p == BSOLVE_PREC_S)) % 9;
    c.prec = p;
    c.m = m;
    c.n = n;
    c.nrhs = 1 + (n + m + var) % 4;
    c.batch = batch;
    c.ka = (bsolve_layout_kind)(lp / 3);
    c.kb = (bsolve_layout_kind)(lp % 3);
    c.pada = (n + var) % 2;
    c.padb = (m / 2 + var) % 2;
    c.misalign = (m + var) % 2;
    c.factored = (n + m / 2 + var) % 2;
    c.scale = 1;
    c.seed = tl_seed(salt, (uint64_t)(m * 4096 + n * 32 + var * 2 + (p == BSOLVE_PREC_S)));
    return c;
}


/* n = 1..16, m in {n, n+1, 2n, 128 or 8n}, both precisions, batch 1, 7, 1000 */
START_TEST(t_small_n)
{
    const int n = _i;
    if (tl_quick() && n % 5 != 1 && n != 16) return;
    bsolve_ctx *ctx = tl_ctx();
    const int ms[] = {n, n + 1, 2 * n, n >= 8 ? 128 : 8 * n};
    static const int64_t batches[] = {1, 7, 1000};
    for (int im = 0; im < 4; im++)
        for (int ip = 0; ip < 2; ip++) {
            const int var = im * 2 + ip;
            int64_t batch = batches[(n + var) % 3];
            if (ms[im] == 128 && batch == 1000) batch = 200;
            if (tl_quick() && batch > 100) batch = 100;
            qcase c = make_case(ip ? BSOLVE_PREC_S : BSOLVE_PREC_D, ms[im], n, batch, var, 1);
            run_case(ctx, &c);
        }
    bsolve_ctx_destroy(ctx);
}
END_TEST

static const int spread_n[] = {17, 20, 24, 31, 32, 40, 48, 57, 64};

START_TEST(t_spread_n)
{
    const int n = spread_n[_i];
    if (tl_quick() && n != 17 && n != 64) return;
    bsolve_ctx *ctx = tl_ctx();
    const int ms[] = {n, n + 1, 2 * n > 128 ? 128 : 2 * n, 128};
    for (int im = 0; im < 4; im++) {
        const int ip = (im + _i) % 2;
        const int64_t batch = im == 1 ? 7 : im == 3 ? 1 : (n <= 32 ? 100 : 24);
        qcase c = make_case(ip ? BSOLVE_PREC_S : BSOLVE_PREC_D, ms[im], n, batch, im, 2);
        run_case(ctx, &c);
    }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* Every (A, B) layout pair, tight and padded, gels and geqrf+geqrs. */
START_TEST(t_layout_pairs)
{
    bsolve_ctx *ctx = tl_ctx();
    for (int ip = 0; ip < 2; ip++)
        for (int pad = 0; pad < 2; pad++)
            for (int fac = 0; fac < 2; fac++) {
                qcase c = make_case(ip ? BSOLVE_PREC_S : BSOLVE_PREC_D, pad ? 13 : 9, pad ? 6 : 9, pad ? 1000 : 37,
                                    pad, 3 + (uint64_t)_i);
                c.ka = (bsolve_layout_kind)(_i / 3);
                c.kb = (bsolve_layout_kind)(_i % 3);
                c.pada = c.padb = pad;
                c.factored = fac;
                c.nrhs = 1 + (pad + 2 * fac + ip) % 4;
                run_case(ctx, &c);
            }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* Rank deficiency: a zero column, two equal columns -> info = that column. */
START_TEST(t_rank_deficient)
{
    bsolve_ctx *ctx = tl_ctx();
    static const int mn[][2] = {{1, 1}, {2, 2}, {5, 3}, {8, 8}, {16, 9}, {33, 16}, {64, 64}, {128, 40}};
    for (unsigned t = 0; t < sizeof mn / sizeof *mn; t++)
        for (int kind = 1; kind <= 2; kind++)
            for (int ip = 0; ip < 2; ip++) {
                if (kind == 2 && mn[t][1] < 2) continue;
                qcase c = make_case(ip ? BSOLVE_PREC_S : BSOLVE_PREC_D, mn[t][0], mn[t][1],
                                    mn[t][1] > 32 ? 17 : 300, (int)t + kind, 4);
                c.rankdef = kind;
                run_case(ctx, &c);
            }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* Entries near the ends of the exponent range: the rotations must scale. */
START_TEST(t_extreme_scale)
{
    bsolve_ctx *ctx = tl_ctx();
    static const int mn[][2] = {{1, 1}, {3, 2}, {12, 12}, {32, 16}, {128, 64}};
    for (unsigned t = 0; t < sizeof mn / sizeof *mn; t++)
        for (int ip = 0; ip < 2; ip++)
            for (int huge = 0; huge < 2; huge++) {
                qcase c = make_case(ip ? BSOLVE_PREC_S : BSOLVE_PREC_D, mn[t][0], mn[t][1],
                                    mn[t][1] > 32 ? 9 : 100, (int)t + huge, 5);
                c.scale = ip ? (huge ? 1e35 : 1e-35) : (huge ? 1e300 : 1e-300);
                c.factored = (int)(t + huge) % 2;
                run_case(ctx, &c);
            }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* NaN and infinities in about 10% of a batch of 1000 (A or B): info -1 and
 * NaN output for them, the right answer for the others. */
START_TEST(t_nonfinite)
{
    bsolve_ctx *ctx = tl_ctx();
    static const int mn[][2] = {{4, 4}, {10, 7}, {24, 12}};
    for (unsigned t = 0; t < sizeof mn / sizeof *mn; t++)
        for (int ip = 0; ip < 2; ip++)
            for (int fac = 0; fac < 2; fac++) {
                qcase c = make_case(ip ? BSOLVE_PREC_S : BSOLVE_PREC_D, mn[t][0], mn[t][1], 1000, (int)t, 6);
                c.nonfinite = 1;
                c.factored = fac;
                run_case(ctx, &c);
            }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* One factorization, several solves with other right-hand sides and
 * layouts; geqrs with info = NULL; B with a NaN -> NONFINITE. */
START_TEST(t_reuse)
{
    bsolve_ctx *ctx = tl_ctx();
    const int m = 11, n = 5;
    const int64_t batch = 29;
    tl_rng rng;
    tl_rng_seed(&rng, tl_seed(7, 0));
    double *a = malloc(sizeof *a * m * n * batch), *b = malloc(sizeof *b * m * 3 * batch), x[11 * 3], xr[11 * 3];
    for (int64_t k = 0; k < batch; k++) gen_a(&rng, F_DIAGBOOST, BSOLVE_PREC_D, m, n, a + k * m * n);
    bsolve_qr *qr;
    int32_t info[29];
    ck_assert_int_eq(bsolve_qr_create(ctx, BSOLVE_PREC_D, m, n, batch, &qr), BSOLVE_SUCCESS);
    ck_assert_int_eq(bsolve_qr_m(qr), m);
    ck_assert_int_eq(bsolve_qr_n(qr), n);
    ck_assert_int_eq(bsolve_qr_batch(qr), batch);
    ck_assert_int_eq(bsolve_qr_precision(qr), BSOLVE_PREC_D);
    ck_assert_int_eq(bsolve_dgeqrf(ctx, a, bsolve_layout_col_major(m, m * n), qr, info), BSOLVE_SUCCESS);
    for (int rep = 0; rep < 3; rep++) {
        const int nrhs = 1 + rep;
        tl_gen_uniform(&rng, (int64_t)m * nrhs * batch, b);
        double *bb = malloc(sizeof *bb * m * nrhs * batch);
        memcpy(bb, b, sizeof *bb * m * nrhs * batch);
        if (rep == 2) bb[5] = NAN; /* system 0 */
        bsolve_layout lb = rep == 1 ? bsolve_layout_interleaved(batch) : bsolve_layout_col_major(m, m * nrhs);
        if (rep == 1) {
            for (int64_t k = 0; k < batch; k++)
                for (int e = 0; e < m * nrhs; e++) bb[e * batch + k] = b[k * m * nrhs + e];
        }
        ck_assert_int_eq(bsolve_dgeqrs(ctx, qr, nrhs, bb, lb, rep == 0 ? NULL : info), BSOLVE_SUCCESS);
        for (int64_t k = 0; k < batch; k++) {
            for (int e = 0; e < m * nrhs; e++)
                x[e] = rep == 1 ? bb[e * batch + k] : bb[k * m * nrhs + e];
            if (rep == 2 && k == 0) {
                ck_assert_int_eq(info[0], BSOLVE_INFO_NONFINITE);
                ck_assert(tl_all_nan((int64_t)m * nrhs, x));
                continue;
            }
            if (rep > 0) ck_assert_int_eq(info[k], 0);
            ref_dgels(m, n, nrhs, a + k * m * n, b + k * m * nrhs, xr);
            for (int col = 0; col < nrhs; col++)
                for (int i = 0; i < n; i++)
                    ck_assert_msg(fabs(x[i + col * m] - xr[i + col * m]) <= 1e-12 * (1 + fabs(xr[i + col * m])),
                                  "reuse %d system %lld: x = %.17g, LAPACK %.17g", rep, (long long)k,
                                  x[i + col * m], xr[i + col * m]);
        }
        free(bb);
    }
    bsolve_qr_destroy(qr);
    free(a);
    free(b);
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* Bad arguments: the status, a message naming the argument, nothing written. */
#define EXPECT_BAD(call, status, word)                                                                        \
    do {                                                                                                      \
        bsolve_status s_ = (call);                                                                            \
        ck_assert_msg(s_ == (status), "%s: status %s, expected %s", #call, tl_status_name(s_),               \
                      tl_status_name(status));                                                                \
        ck_assert_msg(tl_has_word(bsolve_ctx_message(ctx), word), "%s: message \"%s\" does not name %s", #call, \
                      bsolve_ctx_message(ctx), word);                                                         \
    } while (0)

START_TEST(t_bad_args)
{
    bsolve_ctx *ctx = tl_ctx();
    double A[16 * 8] = {0}, B[16 * 2] = {0};
    float Af[16] = {0};
    int32_t info[2] = {TL_I32_POISON, TL_I32_POISON};
    const bsolve_layout la = bsolve_layout_col_major(16, 16 * 8), lb = bsolve_layout_col_major(16, 16);
    EXPECT_BAD(bsolve_dgels(ctx, 3, 5, 1, 1, A, la, B, lb, info), BSOLVE_EINVAL, "m");
    EXPECT_BAD(bsolve_dgels(ctx, 128, 65, 1, 1, A, la, B, lb, info), BSOLVE_EINVAL, "n");
    EXPECT_BAD(bsolve_dgels(ctx, 16, 0, 1, 1, A, la, B, lb, info), BSOLVE_EINVAL, "n");
    EXPECT_BAD(bsolve_dgels(ctx, 129, 8, 1, 1, A, la, B, lb, info), BSOLVE_EINVAL, "m");
    EXPECT_BAD(bsolve_dgels(ctx, 16, 8, 0, 1, A, la, B, lb, info), BSOLVE_EINVAL, "nrhs");
    EXPECT_BAD(bsolve_dgels(ctx, 16, 8, 1, -1, A, la, B, lb, info), BSOLVE_EINVAL, "batch");
    EXPECT_BAD(bsolve_dgels(ctx, 16, 8, 1, 1, NULL, la, B, lb, info), BSOLVE_ENULL, "A");
    EXPECT_BAD(bsolve_dgels(ctx, 16, 8, 1, 1, A, la, NULL, lb, info), BSOLVE_ENULL, "B");
    EXPECT_BAD(bsolve_dgels(ctx, 16, 8, 1, 1, A, la, B, lb, NULL), BSOLVE_ENULL, "info");
    EXPECT_BAD(bsolve_dgels(ctx, 16, 8, 1, 1, A, bsolve_layout_col_major(15, 200), B, lb, info), BSOLVE_EINVAL, "A");
    EXPECT_BAD(bsolve_sgels(ctx, 16, 8, 1, 2, Af, la, (float *)B, bsolve_layout_row_major(0, 16), info),
               BSOLVE_EINVAL, "B");
    ck_assert(info[0] == TL_I32_POISON && info[1] == TL_I32_POISON);
    ck_assert_int_eq(bsolve_dgels(NULL, 16, 8, 1, 1, A, la, B, lb, info), BSOLVE_ENULL);
    /* batch 0 needs no arrays */
    ck_assert_int_eq(bsolve_dgels(ctx, 16, 8, 1, 0, NULL, la, NULL, lb, NULL), BSOLVE_SUCCESS);

    bsolve_qr *qr = (bsolve_qr *)1, *qs = NULL;
    EXPECT_BAD(bsolve_qr_create(ctx, BSOLVE_PREC_D, 4, 5, 1, &qr), BSOLVE_EINVAL, "m");
    ck_assert(qr == NULL);
    EXPECT_BAD(bsolve_qr_create(ctx, BSOLVE_PREC_D, 128, 65, 1, &qr), BSOLVE_EINVAL, "n");
    EXPECT_BAD(bsolve_qr_create(ctx, BSOLVE_PREC_D, 200, 5, 1, &qr), BSOLVE_EINVAL, "m");
    EXPECT_BAD(bsolve_qr_create(ctx, BSOLVE_PREC_D, 16, 8, -2, &qr), BSOLVE_EINVAL, "batch");
    EXPECT_BAD(bsolve_qr_create(ctx, (bsolve_precision)7, 16, 8, 1, &qr), BSOLVE_EINVAL, "prec");
    EXPECT_BAD(bsolve_qr_create(ctx, BSOLVE_PREC_D, 16, 8, 1, NULL), BSOLVE_ENULL, "qr");
    ck_assert_int_eq(bsolve_qr_create(ctx, BSOLVE_PREC_D, 16, 8, 1, &qr), BSOLVE_SUCCESS);
    ck_assert_int_eq(bsolve_qr_create(ctx, BSOLVE_PREC_S, 4, 4, 1, &qs), BSOLVE_SUCCESS);
    EXPECT_BAD(bsolve_dgeqrs(ctx, qr, 1, B, lb, info), BSOLVE_EINVAL, "qr");  /* not factored */
    EXPECT_BAD(bsolve_qr_export(ctx, qr, A, la, NULL, la), BSOLVE_EINVAL, "qr");
    EXPECT_BAD(bsolve_sgeqrf(ctx, Af, la, qr, info), BSOLVE_EMISMATCH, "qr"); /* double object */
    EXPECT_BAD(bsolve_dgeqrf(ctx, A, la, NULL, info), BSOLVE_ENULL, "qr");
    EXPECT_BAD(bsolve_dgeqrf(ctx, NULL, la, qr, info), BSOLVE_ENULL, "A");
    EXPECT_BAD(bsolve_dgeqrf(ctx, A, bsolve_layout_row_major(7, 200), qr, info), BSOLVE_EINVAL, "A");
    for (int i = 0; i < 16 * 8; i++) A[i] = (i % 17 == 0) ? 1 : 0; /* [I; 0] */
    ck_assert_int_eq(bsolve_dgeqrf(ctx, A, la, qr, info), BSOLVE_SUCCESS);
    ck_assert_int_eq(info[0], 0);
    EXPECT_BAD(bsolve_dgeqrs(ctx, qr, 0, B, lb, info), BSOLVE_EINVAL, "nrhs");
    EXPECT_BAD(bsolve_dgeqrs(ctx, qr, 1, NULL, lb, info), BSOLVE_ENULL, "B");
    EXPECT_BAD(bsolve_dgeqrs(ctx, qr, 1, B, bsolve_layout_col_major(8, 16), info), BSOLVE_EINVAL, "B");
    EXPECT_BAD(bsolve_qr_export(ctx, qr, A, bsolve_layout_col_major(15, 256), NULL, la), BSOLVE_EINVAL, "Q");
    EXPECT_BAD(bsolve_qr_export(ctx, qr, NULL, la, A, bsolve_layout_col_major(4, 64)), BSOLVE_EINVAL, "R");
    bsolve_ctx *other = tl_ctx();
    EXPECT_BAD(bsolve_dgeqrs(ctx, qs, 1, B, lb, info), BSOLVE_EMISMATCH, "qr");
    ck_assert_int_eq(bsolve_dgeqrs(other, qr, 1, B, lb, info), BSOLVE_EMISMATCH);
    ck_assert(tl_has_word(bsolve_ctx_message(other), "context"));
    bsolve_ctx_destroy(other);
    bsolve_qr_destroy(qr);
    bsolve_qr_destroy(qs);
    bsolve_qr_destroy(NULL);
    bsolve_ctx_destroy(ctx);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("qr");
    TCase *tc = tl_tcase("small_n");
    tcase_add_loop_test(tc, t_small_n, 1, 17);
    suite_add_tcase(s, tc);
    tc = tl_tcase("spread_n");
    tcase_add_loop_test(tc, t_spread_n, 0, (int)(sizeof spread_n / sizeof *spread_n));
    suite_add_tcase(s, tc);
    tc = tl_tcase("layout_pairs");
    tcase_add_loop_test(tc, t_layout_pairs, 0, 9);
    suite_add_tcase(s, tc);
    tc = tl_tcase("special");
    tcase_add_test(tc, t_rank_deficient);
    tcase_add_test(tc, t_extreme_scale);
    tcase_add_test(tc, t_nonfinite);
    tcase_add_test(tc, t_reuse);
    tcase_add_test(tc, t_bad_args);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tl_main(suite()); }
