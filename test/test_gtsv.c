/*
 * test_gtsv.c -- batched tridiagonal solvers (bsolve_?gtsv, ?gttrf, ?gttrs)
 * against LAPACKE_dgtsv and GSL's gsl_linalg_solve_tridiag, by backward
 * error, on every method, precision and layout; matrices that need
 * pivoting (zero or tiny diagonals), badly scaled and huge ones (Givens
 * without overflow), singular and non-finite systems among good ones,
 * m = 1, 2, 3 up to 4096, nrhs 1..4, gttrf + gttrs, untouched padding and
 * fully written outputs, bad arguments, and (CPU) GIVENS' unscaled and
 * scaled rotations giving the same bits.  Runs on the backend of
 * BSOLVE_TEST_BACKEND (host pointers on CUDA).
 */
#include "testlib.h"

#include <gsl/gsl_linalg.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

enum { F_DIAGDOM, F_RANDOM, F_ZERODIAG, F_TINYDIAG, F_SCALED, F_HUGE, F_NFAM };
static const char *fam_name[] = {"diagdom", "random", "zerodiag", "tinydiag", "scaled", "huge"};
static const char *meth_name[] = {"thomas", "partial", "givens"};

/* Families a method must solve to backward-error accuracy. */
static int fam_ok(int fam, int method, int64_t m)
{
    /* odd order with a zero diagonal is singular, with a tiny one nearly so */
    if ((fam == F_ZERODIAG || fam == F_TINYDIAG) && m % 2) return 0;
    if (method == BSOLVE_GTSV_THOMAS) return fam == F_DIAGDOM || fam == F_HUGE;
    return 1;
}

static int64_t t_span(bsolve_tlayout l, int64_t m, int64_t cols, int64_t batch)
{
    if (l.kind == BSOLVE_TCONTIGUOUS) return (batch - 1) * l.stride + (cols - 1) * l.ld + m;
    return (cols * m - 1) * l.ld + batch;
}

static int64_t t_off(bsolve_tlayout l, int64_t m, int64_t i, int64_t j, int64_t k)
{
    if (l.kind == BSOLVE_TCONTIGUOUS) return k * l.stride + j * l.ld + i;
    return (i + j * m) * l.ld + k;
}

static bsolve_tlayout t_layout(bsolve_tlayout_kind kind, int64_t m, int64_t cols, int64_t batch, int pad)
{
    if (kind == BSOLVE_TCONTIGUOUS) {
        const int64_t ld = m + (pad ? 2 : 0);
        return bsolve_tlayout_contiguous(ld, ld * (cols - 1) + m + (pad ? 3 : 0));
    }
    return bsolve_tlayout_interleaved(batch + (pad ? 3 : 0));
}

#define SENT_D 0x7ff4deaddeadbeefULL
#define SENT_S 0x7fadbeefU

/* A host array of `span` reals of precision p, every element the sentinel. */
static void *t_alloc(bsolve_precision p, int64_t span)
{
    const size_t n = (size_t)(span > 0 ? span : 1);
    void *x = malloc(n * (p == BSOLVE_PREC_D ? 8 : 4));
    ck_assert(x != NULL);
    for (size_t i = 0; i < n; i++) {
        if (p == BSOLVE_PREC_D) memcpy((char *)x + 8 * i, &(uint64_t){SENT_D}, 8);
        else memcpy((char *)x + 4 * i, &(uint32_t){SENT_S}, 4);
    }
    return x;
}

static void t_set(bsolve_precision p, void *x, int64_t o, double v)
{
    if (p == BSOLVE_PREC_D) ((double *)x)[o] = v;
    else ((float *)x)[o] = (float)v;
}

static double t_get(bsolve_precision p, const void *x, int64_t o)
{
    return p == BSOLVE_PREC_D ? ((const double *)x)[o] : (double)((const float *)x)[o];
}

static int t_is_sent(bsolve_precision p, const void *x, int64_t o)
{
    if (p == BSOLVE_PREC_D) return !memcmp((const double *)x + o, &(uint64_t){SENT_D}, 8);
    return !memcmp((const float *)x + o, &(uint32_t){SENT_S}, 4);
}

static bsolve_status t_gtsv(bsolve_ctx *ctx, bsolve_precision p, int method, int64_t m, int64_t nrhs, int64_t batch,
                            const void *dl, const void *d, const void *du, bsolve_tlayout lt, void *B,
                            bsolve_tlayout lb, int32_t *info)
{
    if (p == BSOLVE_PREC_D)
        return bsolve_dgtsv(ctx, (bsolve_gtsv_method)method, m, nrhs, batch, dl, d, du, lt, B, lb, info);
    return bsolve_sgtsv(ctx, (bsolve_gtsv_method)method, m, nrhs, batch, dl, d, du, lt, B, lb, info);
}

static bsolve_status t_gttrf(bsolve_ctx *ctx, bsolve_precision p, const void *dl, const void *d, const void *du,
                             bsolve_tlayout lt, bsolve_gt *gt, int32_t *info)
{
    return p == BSOLVE_PREC_D ? bsolve_dgttrf(ctx, dl, d, du, lt, gt, info) : bsolve_sgttrf(ctx, dl, d, du, lt, gt, info);
}

static bsolve_status t_gttrs(bsolve_ctx *ctx, bsolve_precision p, const bsolve_gt *gt, int64_t nrhs, void *B,
                             bsolve_tlayout lb, int32_t *info)
{
    return p == BSOLVE_PREC_D ? bsolve_dgttrs(ctx, gt, nrhs, B, lb, info) : bsolve_sgttrs(ctx, gt, nrhs, B, lb, info);
}

/* Generates system k (m entries per diagonal, b m x nrhs col-major). */
static void gen_system(tl_rng *r, int fam, int64_t m, int64_t nrhs, int prec_s, double *dl, double *d, double *du,
                       double *b)
{
    for (int64_t i = 0; i < m; i++) {
        dl[i] = i > 0 ? tl_rng_uniform(r) : 0;
        du[i] = i + 1 < m ? tl_rng_uniform(r) : 0;
        switch (fam) {
        case F_DIAGDOM:
        case F_HUGE: {
            const double s = fabs(dl[i]) + fabs(du[i]) + 1 + tl_rng_unit(r);
            d[i] = tl_rng_u64(r) & 1 ? s : -s;
            break;
        }
        case F_ZERODIAG:
        case F_TINYDIAG:
            /* the zero-diagonal system splits into two recurrences, over even
             * rows forwards and odd rows backwards; |dl| <= |du|/2 on even
             * rows and |du| <= |dl|/2 on odd ones make both well conditioned,
             * yet every step needs an interchange */
            if (i % 2 == 0) {
                dl[i] *= 0.5;
                if (i + 1 < m) du[i] = du[i] < 0 ? du[i] - 1 : du[i] + 1;
            } else {
                du[i] *= 0.5;
                dl[i] = dl[i] < 0 ? dl[i] - 1 : dl[i] + 1;
            }
            d[i] = fam == F_ZERODIAG ? 0 : tl_rng_uniform(r) * (prec_s ? 1e-30 : 1e-200);
            break;
        default: d[i] = tl_rng_uniform(r); break;
        }
    }
    if (fam == F_SCALED)
        for (int64_t i = 0; i < m; i++) {
            const double sc = ldexp(1.0, (int)tl_rng_int(r, prec_s ? -20 : -60, prec_s ? 20 : 60));
            dl[i] *= sc, d[i] *= sc, du[i] *= sc;
        }
    if (fam == F_HUGE)
        for (int64_t i = 0; i < m; i++) {
            const double sc = prec_s ? 1e36 : 1e300;
            dl[i] *= sc, d[i] *= sc, du[i] *= sc;
        }
    for (int64_t i = 0; i < m * nrhs; i++) b[i] = tl_rng_uniform(r);
    if (prec_s) {
        tl_round_float(m, dl);
        tl_round_float(m, d);
        tl_round_float(m, du);
        tl_round_float(m * nrhs, b);
    }
}

/* ||b - T x||_inf / (m eps ||T||_inf ||x||_inf), in long double. */
static double bwd_ratio(int64_t m, const double *dl, const double *d, const double *du, const double *b,
                        const double *x, double eps)
{
    long double rmax = 0, anorm = 0, xnorm = 0;
    for (int64_t i = 0; i < m; i++) {
        if (!isfinite(x[i])) return INFINITY;
        long double s = (long double)d[i] * x[i];
        long double a = fabsl((long double)d[i]);
        if (i > 0) s += (long double)dl[i] * x[i - 1], a += fabsl((long double)dl[i]);
        if (i + 1 < m) s += (long double)du[i] * x[i + 1], a += fabsl((long double)du[i]);
        const long double res = fabsl((long double)b[i] - s);
        if (res > rmax) rmax = res;
        if (a > anorm) anorm = a;
        if (fabsl((long double)x[i]) > xnorm) xnorm = fabsl((long double)x[i]);
    }
    if (rmax == 0) return 0;
    return (double)(rmax / ((long double)m * eps * anorm * xnorm));
}

static double rel_diff(int64_t n, const double *x, const double *y)
{
    double dm = 0, ym = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(x[i])) return INFINITY;
        if (fabs(x[i] - y[i]) > dm) dm = fabs(x[i] - y[i]);
        if (fabs(y[i]) > ym) ym = fabs(y[i]);
    }
    return ym > 0 ? dm / ym : dm;
}

/* A batch of systems: reference copies (double) and the library's arrays. */
typedef struct {
    bsolve_precision p;
    int64_t m, nrhs, batch;
    bsolve_tlayout lt, lb;
    double *rdl, *rd, *rdu, *rb; /* system k at [k*m], b at [k*m*nrhs] */
    void *dl, *d, *du, *B, *dl0, *d0, *du0;
    int64_t tspan, bspan;
    int32_t *info;
} batch_t;

static void batch_make(batch_t *t, bsolve_precision p, int64_t m, int64_t nrhs, int64_t batch,
                       bsolve_tlayout_kind ltk, bsolve_tlayout_kind lbk, int pad)
{
    memset(t, 0, sizeof *t);
    t->p = p, t->m = m, t->nrhs = nrhs, t->batch = batch;
    t->lt = t_layout(ltk, m, 1, batch, pad);
    t->lb = t_layout(lbk, m, nrhs, batch, pad);
    t->rdl = malloc(sizeof(double) * m * batch);
    t->rd = malloc(sizeof(double) * m * batch);
    t->rdu = malloc(sizeof(double) * m * batch);
    t->rb = malloc(sizeof(double) * m * nrhs * batch);
    t->tspan = t_span(t->lt, m, 1, batch);
    t->bspan = t_span(t->lb, m, nrhs, batch);
    t->dl = t_alloc(p, t->tspan), t->d = t_alloc(p, t->tspan), t->du = t_alloc(p, t->tspan);
    t->B = t_alloc(p, t->bspan);
    t->info = tl_i32_alloc(batch);
}

/* Copies the reference into the library's arrays (and keeps copies of the diagonals). */
static void batch_load(batch_t *t)
{
    const int64_t m = t->m;
    for (int64_t k = 0; k < t->batch; k++) {
        for (int64_t i = 0; i < m; i++) {
            const int64_t o = t_off(t->lt, m, i, 0, k);
            t_set(t->p, t->dl, o, t->rdl[k * m + i]);
            t_set(t->p, t->d, o, t->rd[k * m + i]);
            t_set(t->p, t->du, o, t->rdu[k * m + i]);
        }
        for (int64_t j = 0; j < t->nrhs; j++)
            for (int64_t i = 0; i < m; i++)
                t_set(t->p, t->B, t_off(t->lb, m, i, j, k), t->rb[(k * t->nrhs + j) * m + i]);
    }
    const size_t es = t->p == BSOLVE_PREC_D ? 8 : 4, tb = (size_t)t->tspan * es;
    free(t->dl0), free(t->d0), free(t->du0);
    t->dl0 = malloc(tb), t->d0 = malloc(tb), t->du0 = malloc(tb);
    memcpy(t->dl0, t->dl, tb), memcpy(t->d0, t->d, tb), memcpy(t->du0, t->du, tb);
    tl_i32_poison(t->info, t->batch);
}

static void batch_free(batch_t *t)
{
    free(t->rdl), free(t->rd), free(t->rdu), free(t->rb);
    free(t->dl), free(t->d), free(t->du), free(t->B);
    free(t->dl0), free(t->d0), free(t->du0);
    tl_i32_free(t->info);
}

/* Solution of system k, column j, into x (m entries). */
static void batch_x(const batch_t *t, int64_t k, int64_t j, double *x)
{
    for (int64_t i = 0; i < t->m; i++) x[i] = t_get(t->p, t->B, t_off(t->lb, t->m, i, j, k));
}

/* Diagonals untouched; B's gaps still the sentinel, every entry written;
 * info written with its guards intact. */
static void batch_check_memory(const batch_t *t, const char *what)
{
    const size_t tb = (size_t)t->tspan * (t->p == BSOLVE_PREC_D ? 8 : 4);
    TL_EXPECT(!memcmp(t->dl, t->dl0, tb) && !memcmp(t->d, t->d0, tb) && !memcmp(t->du, t->du0, tb),
              "%s: a diagonal was modified", what);
    char *mask = calloc((size_t)t->bspan, 1);
    for (int64_t k = 0; k < t->batch; k++)
        for (int64_t j = 0; j < t->nrhs; j++)
            for (int64_t i = 0; i < t->m; i++) mask[t_off(t->lb, t->m, i, j, k)] = 1;
    int64_t bad_gap = 0, unwritten = 0;
    for (int64_t o = 0; o < t->bspan; o++) {
        if (!mask[o] && !t_is_sent(t->p, t->B, o)) bad_gap++;
        if (mask[o] && t_is_sent(t->p, t->B, o)) unwritten++;
    }
    free(mask);
    TL_EXPECT(bad_gap == 0, "%s: %lld gap elements of B were written", what, (long long)bad_gap);
    TL_EXPECT(unwritten == 0, "%s: %lld entries of B still hold the poison", what, (long long)unwritten);
    TL_EXPECT(tl_i32_guards_ok(t->info, t->batch), "%s: info guards overwritten", what);
    for (int64_t k = 0; k < t->batch; k++)
        if (t->info[k] == TL_I32_POISON) {
            TL_EXPECT(0, "%s: info[%lld] not written", what, (long long)k);
            break;
        }
}

/* Runs gtsv (trf = 0) or gttrf + gttrs (trf = 1) on the loaded batch. */
static bsolve_status batch_solve(bsolve_ctx *ctx, batch_t *t, int method, int trf)
{
    if (!trf)
        return t_gtsv(ctx, t->p, method, t->m, t->nrhs, t->batch, t->dl, t->d, t->du, t->lt, t->B, t->lb, t->info);
    bsolve_gt *gt = NULL;
    bsolve_status s = bsolve_gt_create(ctx, t->p, (bsolve_gtsv_method)method, t->m, t->batch, &gt);
    if (s != BSOLVE_SUCCESS) return s;
    int32_t *finfo = tl_i32_alloc(t->batch);
    s = t_gttrf(ctx, t->p, t->dl, t->d, t->du, t->lt, gt, finfo);
    if (s == BSOLVE_SUCCESS) s = t_gttrs(ctx, t->p, gt, t->nrhs, t->B, t->lb, t->info);
    if (s == BSOLVE_SUCCESS)
        for (int64_t k = 0; k < t->batch; k++)
            if (finfo[k] != 0 && t->info[k] != finfo[k] && t->info[k] != BSOLVE_INFO_NONFINITE) {
                TL_EXPECT(0, "gttrs info[%lld] = %d, gttrf gave %d", (long long)k, t->info[k], finfo[k]);
                break;
            }
    tl_i32_free(finfo);
    bsolve_gt_destroy(gt);
    return s;
}

/* LAPACKE_dgtsv on system k, column j: returns info, x in x. */
static int ref_lapack(const batch_t *t, int64_t k, int64_t j, double *x)
{
    const int64_t m = t->m;
    double *dl = malloc(sizeof(double) * (m + 1)), *d = malloc(sizeof(double) * m), *du = malloc(sizeof(double) * (m + 1));
    memcpy(dl, t->rdl + k * m + 1, sizeof(double) * (m - 1));
    memcpy(d, t->rd + k * m, sizeof(double) * m);
    memcpy(du, t->rdu + k * m, sizeof(double) * (m - 1));
    memcpy(x, t->rb + (k * t->nrhs + j) * m, sizeof(double) * m);
    const int info = LAPACKE_dgtsv(LAPACK_COL_MAJOR, (lapack_int)m, 1, dl, d, du, x, (lapack_int)m);
    free(dl), free(d), free(du);
    return info;
}

/* GSL's solver (no pivoting) on system k, column j. */
static int ref_gsl(const batch_t *t, int64_t k, int64_t j, double *x)
{
    const int64_t m = t->m;
    if (m == 1) {
        x[0] = t->rb[k * t->nrhs * m + j * m] / t->rd[k * m];
        return 0;
    }
    gsl_vector_const_view dg = gsl_vector_const_view_array(t->rd + k * m, m);
    gsl_vector_const_view ab = gsl_vector_const_view_array(t->rdu + k * m, m - 1);
    gsl_vector_const_view be = gsl_vector_const_view_array(t->rdl + k * m + 1, m - 1);
    gsl_vector_const_view rh = gsl_vector_const_view_array(t->rb + (k * t->nrhs + j) * m, m);
    gsl_vector_view xs = gsl_vector_view_array(x, m);
    return gsl_linalg_solve_tridiag(&dg.vector, &ab.vector, &be.vector, &rh.vector, &xs.vector);
}

/* ---------------------------------------------------------------- solution accuracy */

static const int64_t M_LIST[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 64, 100, 257, 1024, 4096};
#define N_M ((int)(sizeof M_LIST / sizeof M_LIST[0]))

static int64_t batch_for(int64_t m)
{
    int64_t b = 12000 / m;
    if (tl_quick()) b /= 4;
    if (b > 29) b = 29;
    if (b < 3) b = 3;
    return b;
}

static void run_accuracy(bsolve_precision p, int trf)
{
    bsolve_ctx *ctx = tl_ctx();
    const double eps = tl_eps(p);
    for (int im = 0; im < N_M; im++)
        for (int lk = 0; lk < 4; lk++) {
            const int64_t m = M_LIST[im], batch = batch_for(m), nrhs = 1 + (im + lk) % 4;
            const bsolve_tlayout_kind ltk = lk & 1 ? BSOLVE_TINTERLEAVED : BSOLVE_TCONTIGUOUS;
            const bsolve_tlayout_kind lbk = lk & 2 ? BSOLVE_TINTERLEAVED : BSOLVE_TCONTIGUOUS;
            batch_t t;
            batch_make(&t, p, m, nrhs, batch, ltk, lbk, (im + lk) & 1);
            double *x = malloc(sizeof(double) * m), *xr = malloc(sizeof(double) * m);
            for (int method = 0; method < 3; method++)
                for (int fam = 0; fam < F_NFAM; fam++) {
                    if (!fam_ok(fam, method, m)) continue;
                    tl_rng r;
                    tl_rng_seed(&r, tl_seed(m * 16 + fam, method * 8 + lk + 100 * p));
                    for (int64_t k = 0; k < batch; k++)
                        gen_system(&r, fam, m, nrhs, p == BSOLVE_PREC_S, t.rdl + k * m, t.rd + k * m, t.rdu + k * m,
                                   t.rb + k * m * nrhs);
                    batch_load(&t);
                    bsolve_status s = batch_solve(ctx, &t, method, trf);
                    TL_EXPECT(s == BSOLVE_SUCCESS, "status %s: %s", tl_status_name(s), bsolve_ctx_message(ctx));
                    if (s == BSOLVE_SUCCESS) {
                        batch_check_memory(&t, "solve");
                        double worst = 0;
                        for (int64_t k = 0; k < batch; k++) {
                            TL_EXPECT(t.info[k] == 0, "system %lld: info = %d", (long long)k, t.info[k]);
                            for (int64_t j = 0; j < nrhs; j++) {
                                batch_x(&t, k, j, x);
                                const double br = bwd_ratio(m, t.rdl + k * m, t.rd + k * m, t.rdu + k * m,
                                                            t.rb + (k * nrhs + j) * m, x, eps);
                                if (br > worst) worst = br;
                                TL_EXPECT(br < TL_BWD_MAX, "system %lld rhs %lld: backward error ratio %.3g",
                                          (long long)k, (long long)j, br);
                                if (p == BSOLVE_PREC_D && method == BSOLVE_GTSV_PARTIAL &&
                                    (fam == F_DIAGDOM || fam == F_ZERODIAG)) {
                                    const int li = ref_lapack(&t, k, j, xr);
                                    TL_EXPECT(li == 0, "LAPACKE_dgtsv info %d", li);
                                    const double rd = rel_diff(m, x, xr);
                                    TL_EXPECT(rd < 1e-11, "system %lld: differs from LAPACKE_dgtsv by %.3g",
                                              (long long)k, rd);
                                }
                                if (p == BSOLVE_PREC_D && method == BSOLVE_GTSV_THOMAS && fam == F_DIAGDOM) {
                                    ref_gsl(&t, k, j, xr);
                                    const double rd = rel_diff(m, x, xr);
                                    TL_EXPECT(rd < 1e-12, "system %lld: differs from GSL by %.3g", (long long)k, rd);
                                }
                            }
                        }
                        (void)worst;
                    }
                    TL_CLEAN("%s %s %s m=%lld nrhs=%lld batch=%lld lt=%s lb=%s %s", trf ? "gttrf+gttrs" : "gtsv",
                             tl_prec_name(p), meth_name[method], (long long)m, (long long)nrhs, (long long)batch,
                             ltk ? "inter" : "contig", lbk ? "inter" : "contig", fam_name[fam]);
                }
            free(x), free(xr);
            batch_free(&t);
        }
    bsolve_ctx_destroy(ctx);
}

START_TEST(t_accuracy_d) { run_accuracy(BSOLVE_PREC_D, 0); }
END_TEST
START_TEST(t_accuracy_s) { run_accuracy(BSOLVE_PREC_S, 0); }
END_TEST
START_TEST(t_trf_d) { run_accuracy(BSOLVE_PREC_D, 1); }
END_TEST
START_TEST(t_trf_s) { run_accuracy(BSOLVE_PREC_S, 1); }
END_TEST

/* gttrs twice with one factorization equals gtsv. */
START_TEST(t_trf_reuse)
{
    bsolve_ctx *ctx = tl_ctx();
    const int64_t m = 50, batch = 21, nrhs = 2;
    for (int method = 0; method < 3; method++) {
        batch_t t, u;
        batch_make(&t, BSOLVE_PREC_D, m, nrhs, batch, BSOLVE_TCONTIGUOUS, BSOLVE_TINTERLEAVED, 1);
        batch_make(&u, BSOLVE_PREC_D, m, nrhs, batch, BSOLVE_TCONTIGUOUS, BSOLVE_TINTERLEAVED, 1);
        tl_rng r;
        tl_rng_seed(&r, tl_seed(7, method));
        for (int64_t k = 0; k < batch; k++)
            gen_system(&r, method ? F_RANDOM : F_DIAGDOM, m, nrhs, 0, t.rdl + k * m, t.rd + k * m, t.rdu + k * m,
                       t.rb + k * m * nrhs);
        memcpy(u.rdl, t.rdl, sizeof(double) * m * batch), memcpy(u.rd, t.rd, sizeof(double) * m * batch);
        memcpy(u.rdu, t.rdu, sizeof(double) * m * batch);
        bsolve_gt *gt = NULL;
        ck_assert_int_eq(bsolve_gt_create(ctx, BSOLVE_PREC_D, (bsolve_gtsv_method)method, m, batch, &gt), 0);
        ck_assert_int_eq(bsolve_gt_m(gt), m);
        ck_assert_int_eq(bsolve_gt_batch(gt), batch);
        ck_assert_int_eq(bsolve_gt_method(gt), method);
        ck_assert_int_eq(bsolve_gt_precision(gt), BSOLVE_PREC_D);
        batch_load(&t);
        ck_assert_int_eq(bsolve_dgttrf(ctx, t.dl, t.d, t.du, t.lt, gt, t.info), 0);
        for (int rep = 0; rep < 2; rep++) {
            for (int64_t i = 0; i < m * nrhs * batch; i++) u.rb[i] = t.rb[i] = tl_rng_uniform(&r);
            batch_load(&t);
            batch_load(&u);
            ck_assert_int_eq(bsolve_dgttrs(ctx, gt, nrhs, t.B, t.lb, NULL), 0);
            ck_assert_int_eq(batch_solve(ctx, &u, method, 0), 0);
            double *x = malloc(sizeof(double) * m), *y = malloc(sizeof(double) * m);
            for (int64_t k = 0; k < batch; k++)
                for (int64_t j = 0; j < nrhs; j++) {
                    batch_x(&t, k, j, x);
                    batch_x(&u, k, j, y);
                    TL_EXPECT(rel_diff(m, x, y) <= 1e-13, "gttrs and gtsv differ (system %lld)", (long long)k);
                }
            free(x), free(y);
        }
        TL_CLEAN("gttrs reuse %s", meth_name[method]);
        bsolve_gt_destroy(gt);
        batch_free(&t);
        batch_free(&u);
    }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* ---------------------------------------------------------------- singular and non-finite systems */

static void run_bad_systems(bsolve_precision p, int trf)
{
    bsolve_ctx *ctx = tl_ctx();
    const int64_t ms[] = {1, 2, 3, 5, 16, 33, 200};
    for (int im = 0; im < 7; im++)
        for (int lk = 0; lk < 2; lk++)
            for (int method = 0; method < 3; method++) {
                const int64_t m = ms[im], batch = 61, nrhs = 1 + im % 2;
                batch_t t;
                batch_make(&t, p, m, nrhs, batch, lk ? BSOLVE_TINTERLEAVED : BSOLVE_TCONTIGUOUS,
                           lk ? BSOLVE_TCONTIGUOUS : BSOLVE_TINTERLEAVED, 1);
                tl_rng r;
                tl_rng_seed(&r, tl_seed(1000 + m, method + 3 * lk));
                for (int64_t k = 0; k < batch; k++)
                    gen_system(&r, F_DIAGDOM, m, nrhs, p == BSOLVE_PREC_S, t.rdl + k * m, t.rd + k * m,
                               t.rdu + k * m, t.rb + k * m * nrhs);
                int32_t want[61];
                for (int64_t k = 0; k < batch; k++) want[k] = 0;
                /* singular: column j of the matrix is zero -> U(j,j) = 0 for every method */
                for (int64_t k = 3; k < batch; k += 11) {
                    const int64_t j = tl_rng_int(&r, 0, m - 1);
                    t.rd[k * m + j] = 0;
                    if (j + 1 < m) t.rdl[k * m + j + 1] = 0;
                    if (j > 0) t.rdu[k * m + j - 1] = 0;
                    want[k] = (int32_t)(j + 1);
                }
                /* non-finite entries that are read */
                for (int64_t k = 7; k < batch; k += 13) {
                    const double v = (k / 13) % 2 ? NAN : -INFINITY;
                    const int64_t i = tl_rng_int(&r, 0, m - 1);
                    switch (k % 4) {
                    case 0: if (i > 0) { t.rdl[k * m + i] = v; break; } /* fall through */
                    case 1: t.rd[k * m + i] = v; break;
                    case 2: if (i + 1 < m) { t.rdu[k * m + i] = v; break; } /* fall through */
                    default: t.rb[(k * nrhs + nrhs - 1) * m + i] = v; break;
                    }
                    want[k] = BSOLVE_INFO_NONFINITE;
                }
                /* non-finite entries that are never read: dl[0], du[m-1] */
                for (int64_t k = 5; k < batch; k += 17) {
                    if (want[k]) continue;
                    t.rdl[k * m] = NAN;
                    t.rdu[k * m + m - 1] = INFINITY;
                }
                batch_load(&t);
                bsolve_status s = batch_solve(ctx, &t, method, trf);
                TL_EXPECT(s == BSOLVE_SUCCESS, "status %s: %s", tl_status_name(s), bsolve_ctx_message(ctx));
                if (s == BSOLVE_SUCCESS) {
                    batch_check_memory(&t, "bad systems");
                    double *x = malloc(sizeof(double) * m), *xr = malloc(sizeof(double) * m);
                    for (int64_t k = 0; k < batch; k++) {
                        TL_EXPECT(t.info[k] == want[k], "system %lld: info = %d, expected %d", (long long)k,
                                  t.info[k], want[k]);
                        if (p == BSOLVE_PREC_D && method == BSOLVE_GTSV_PARTIAL && want[k] > 0)
                            TL_EXPECT(ref_lapack(&t, k, 0, xr) == want[k], "system %lld: LAPACKE_dgtsv info %d",
                                      (long long)k, ref_lapack(&t, k, 0, xr));
                        for (int64_t j = 0; j < nrhs; j++) {
                            batch_x(&t, k, j, x);
                            if (want[k] != 0) {
                                TL_EXPECT(tl_all_nan(m, x), "system %lld (info %d): solution not NaN-filled",
                                          (long long)k, want[k]);
                            } else {
                                double *dl = t.rdl + k * m, *du = t.rdu + k * m;
                                const double dl0 = dl[0], dum = du[m - 1];
                                dl[0] = du[m - 1] = 0;
                                const double br = bwd_ratio(m, dl, t.rd + k * m, du, t.rb + (k * nrhs + j) * m, x,
                                                            tl_eps(p));
                                dl[0] = dl0, du[m - 1] = dum;
                                TL_EXPECT(br < TL_BWD_MAX, "good system %lld: backward error ratio %.3g",
                                          (long long)k, br);
                            }
                        }
                    }
                    free(x), free(xr);
                }
                TL_CLEAN("%s bad systems %s %s m=%lld nrhs=%lld lt=%s", trf ? "gttrf+gttrs" : "gtsv",
                         tl_prec_name(p), meth_name[method], (long long)m, (long long)nrhs, lk ? "inter" : "contig");
                batch_free(&t);
            }
    bsolve_ctx_destroy(ctx);
}

START_TEST(t_bad_d) { run_bad_systems(BSOLVE_PREC_D, 0); }
END_TEST
START_TEST(t_bad_s) { run_bad_systems(BSOLVE_PREC_S, 0); }
END_TEST
START_TEST(t_bad_trf) { run_bad_systems(BSOLVE_PREC_D, 1); }
END_TEST

/* ---------------------------------------------------------------- arguments */

static void expect_fail(bsolve_ctx *ctx, bsolve_status got, bsolve_status want, const char *word, const char *what)
{
    TL_EXPECT(got == want, "%s: status %s, expected %s", what, tl_status_name(got), tl_status_name(want));
    TL_EXPECT(tl_has_word(bsolve_ctx_message(ctx), word), "%s: message \"%s\" does not name %s", what,
              bsolve_ctx_message(ctx), word);
}

START_TEST(t_args)
{
    bsolve_ctx *ctx = tl_ctx();
    const int64_t m = 10, batch = 5;
    double dl[50], d[50], du[50], B[50];
    int32_t info[5];
    for (int i = 0; i < 50; i++) dl[i] = du[i] = 0.25, d[i] = 2, B[i] = 1;
    const bsolve_tlayout lc = bsolve_tlayout_contiguous(m, m), li = bsolve_tlayout_interleaved(batch);
    const bsolve_gtsv_method P = BSOLVE_GTSV_PARTIAL;
    ck_assert_int_eq(bsolve_dgtsv(ctx, P, m, 1, batch, dl, d, du, lc, B, lc, info), BSOLVE_SUCCESS);
    ck_assert_str_eq(bsolve_ctx_message(ctx), "");
    expect_fail(ctx, bsolve_dgtsv(ctx, (bsolve_gtsv_method)7, m, 1, batch, dl, d, du, lc, B, lc, info), BSOLVE_EINVAL,
                "method", "bad method");
    expect_fail(ctx, bsolve_dgtsv(ctx, P, 0, 1, batch, dl, d, du, lc, B, lc, info), BSOLVE_EINVAL, "m", "m = 0");
    expect_fail(ctx, bsolve_dgtsv(ctx, P, -4, 1, batch, dl, d, du, lc, B, lc, info), BSOLVE_EINVAL, "m", "m < 0");
    expect_fail(ctx, bsolve_dgtsv(ctx, P, m, 0, batch, dl, d, du, lc, B, lc, info), BSOLVE_EINVAL, "nrhs", "nrhs");
    expect_fail(ctx, bsolve_dgtsv(ctx, P, m, 1, -1, dl, d, du, lc, B, lc, info), BSOLVE_EINVAL, "batch", "batch");
    expect_fail(ctx, bsolve_dgtsv(ctx, P, m, 1, batch, dl, d, du, bsolve_tlayout_contiguous(m - 1, m), B, lc, info),
                BSOLVE_EINVAL, "lt", "lt ld < m");
    expect_fail(ctx, bsolve_dgtsv(ctx, P, m, 1, batch, dl, d, du, bsolve_tlayout_contiguous(m, m - 1), B, lc, info),
                BSOLVE_EINVAL, "lt", "lt stride < m");
    expect_fail(ctx, bsolve_dgtsv(ctx, P, m, 2, batch, dl, d, du, lc, B, bsolve_tlayout_contiguous(m, m), info),
                BSOLVE_EINVAL, "lb", "lb stride too small for nrhs");
    expect_fail(ctx, bsolve_dgtsv(ctx, P, m, 1, batch, dl, d, du, lc, B, bsolve_tlayout_interleaved(batch - 1), info),
                BSOLVE_EINVAL, "lb", "lb interleaved ld < batch");
    bsolve_tlayout bad = lc;
    bad.kind = (bsolve_tlayout_kind)9;
    expect_fail(ctx, bsolve_dgtsv(ctx, P, m, 1, batch, dl, d, du, bad, B, lc, info), BSOLVE_EINVAL, "lt",
                "bad layout kind");
    expect_fail(ctx, bsolve_dgtsv(ctx, P, m, 1, batch, NULL, d, du, lc, B, lc, info), BSOLVE_ENULL, "dl", "dl NULL");
    expect_fail(ctx, bsolve_dgtsv(ctx, P, m, 1, batch, dl, NULL, du, lc, B, lc, info), BSOLVE_ENULL, "d", "d NULL");
    expect_fail(ctx, bsolve_dgtsv(ctx, P, m, 1, batch, dl, d, NULL, lc, B, lc, info), BSOLVE_ENULL, "du", "du NULL");
    expect_fail(ctx, bsolve_dgtsv(ctx, P, m, 1, batch, dl, d, du, lc, NULL, lc, info), BSOLVE_ENULL, "B", "B NULL");
    expect_fail(ctx, bsolve_dgtsv(ctx, P, m, 1, batch, dl, d, du, lc, B, lc, NULL), BSOLVE_ENULL, "info",
                "info NULL");
    ck_assert_int_eq(bsolve_dgtsv(NULL, P, m, 1, batch, dl, d, du, lc, B, lc, info), BSOLVE_ENULL);
    /* batch 0: nothing is touched, NULL pointers allowed */
    ck_assert_int_eq(bsolve_dgtsv(ctx, P, m, 1, 0, NULL, NULL, NULL, lc, NULL, lc, NULL), BSOLVE_SUCCESS);
    /* single batch: stride unchecked, interleaved works */
    ck_assert_int_eq(bsolve_dgtsv(ctx, P, m, 1, 1, dl, d, du, bsolve_tlayout_contiguous(m, 0), B, li, info), 0);

    bsolve_gt *gt = NULL;
    expect_fail(ctx, bsolve_gt_create(ctx, (bsolve_precision)5, P, m, batch, &gt), BSOLVE_EINVAL, "prec", "prec");
    expect_fail(ctx, bsolve_gt_create(ctx, BSOLVE_PREC_D, (bsolve_gtsv_method)-1, m, batch, &gt), BSOLVE_EINVAL,
                "method", "method");
    expect_fail(ctx, bsolve_gt_create(ctx, BSOLVE_PREC_D, P, 0, batch, &gt), BSOLVE_EINVAL, "m", "create m");
    expect_fail(ctx, bsolve_gt_create(ctx, BSOLVE_PREC_D, P, m, -2, &gt), BSOLVE_EINVAL, "batch", "create batch");
    expect_fail(ctx, bsolve_gt_create(ctx, BSOLVE_PREC_D, P, m, batch, NULL), BSOLVE_ENULL, "gt", "create NULL");
    ck_assert_int_eq(bsolve_gt_create(ctx, BSOLVE_PREC_D, P, m, batch, &gt), 0);
    expect_fail(ctx, bsolve_dgttrs(ctx, gt, 1, B, lc, info), BSOLVE_EINVAL, "gt", "gttrs before gttrf");
    expect_fail(ctx, bsolve_sgttrf(ctx, (float *)dl, (float *)d, (float *)du, lc, gt, info), BSOLVE_EMISMATCH, "gt",
                "precision mismatch");
    expect_fail(ctx, bsolve_dgttrf(ctx, dl, d, du, lc, NULL, info), BSOLVE_ENULL, "gt", "gttrf gt NULL");
    expect_fail(ctx, bsolve_dgttrf(ctx, dl, NULL, du, lc, gt, info), BSOLVE_ENULL, "d", "gttrf d NULL");
    expect_fail(ctx, bsolve_dgttrf(ctx, dl, d, du, lc, gt, NULL), BSOLVE_ENULL, "info", "gttrf info NULL");
    expect_fail(ctx, bsolve_dgttrf(ctx, dl, d, du, bsolve_tlayout_interleaved(2), gt, info), BSOLVE_EINVAL, "lt",
                "gttrf layout");
    ck_assert_int_eq(bsolve_dgttrf(ctx, dl, d, du, lc, gt, info), 0);
    expect_fail(ctx, bsolve_dgttrs(ctx, gt, 0, B, lc, info), BSOLVE_EINVAL, "nrhs", "gttrs nrhs");
    expect_fail(ctx, bsolve_dgttrs(ctx, gt, 1, NULL, lc, info), BSOLVE_ENULL, "B", "gttrs B NULL");
    expect_fail(ctx, bsolve_dgttrs(ctx, gt, 1, B, bsolve_tlayout_contiguous(m, 3), info), BSOLVE_EINVAL, "lb",
                "gttrs layout");
    ck_assert_int_eq(bsolve_dgttrs(ctx, gt, 1, B, lc, NULL), 0);
    bsolve_gt_destroy(gt);
    bsolve_gt_destroy(NULL);
    TL_CLEAN("bad arguments");

    /* an object made on another backend */
    if (bsolve_ctx_backend(ctx) == BSOLVE_BACKEND_CUDA) {
        bsolve_ctx *cpu = NULL;
        ck_assert_int_eq(bsolve_ctx_create(&cpu, BSOLVE_BACKEND_CPU), 0);
        ck_assert_int_eq(bsolve_gt_create(cpu, BSOLVE_PREC_D, P, m, batch, &gt), 0);
        expect_fail(ctx, bsolve_dgttrf(ctx, dl, d, du, lc, gt, info), BSOLVE_EMISMATCH, "gt", "backend mismatch");
        bsolve_gt_destroy(gt);
        bsolve_ctx_destroy(cpu);
        TL_CLEAN("backend mismatch");
    } else {
        bsolve_ctx *cu = NULL;
        const bsolve_status s = bsolve_ctx_create(&cu, BSOLVE_BACKEND_CUDA);
        TL_EXPECT(s == BSOLVE_SUCCESS || s == BSOLVE_ENODEVICE, "CUDA context: %s", tl_status_name(s));
        bsolve_ctx_destroy(cu);
        TL_CLEAN("cuda context");
    }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* Contiguous systems move through the CPU backend's super-tiles (32 double
 * or 64 float systems) in register-transposed blocks of 4..16 lanes and
 * equations, with the rest one by one: the answers must be bitwise those of
 * the same batch interleaved, for m and batch off every block size, several
 * whole super-tiles, stride > m and nrhs > 1.  The last three: batches of
 * whole super-tiles, so that the last one prefetches nothing, and m = 128,
 * 256, where nothing is prefetched at all (bsi_gt_pf_cap): its solution
 * still goes out inside the back substitution (with one right-hand side and
 * m a multiple of the transposes' 8 or 16); 2026-11-25 it did not, and x
 * was left as b. */
static void run_contig_tiles(bsolve_precision p, int trf)
{
    bsolve_ctx *ctx = tl_ctx();
    const int64_t ms[] = {7, 16, 17, 33, 100, 16, 128, 256};
    double *x = malloc(sizeof(double) * 256), *y = malloc(sizeof(double) * 256);
    for (int im = 0; im < 8; im++)
        for (int64_t nrhs = 1; nrhs <= 3; nrhs += 2)
            for (int method = 0; method < 3; method++) {
                const int64_t m = ms[im], batch = im < 5 ? 141 : 128;
                batch_t c, il;
                batch_make(&c, p, m, nrhs, batch, BSOLVE_TCONTIGUOUS, BSOLVE_TCONTIGUOUS, 1);
                batch_make(&il, p, m, nrhs, batch, BSOLVE_TINTERLEAVED, BSOLVE_TINTERLEAVED, 0);
                tl_rng r;
                tl_rng_seed(&r, tl_seed(2000 + m, method + 3 * (int)nrhs + 10 * trf));
                for (int64_t k = 0; k < batch; k++)
                    gen_system(&r, F_DIAGDOM, m, nrhs, p == BSOLVE_PREC_S, c.rdl + k * m, c.rd + k * m, c.rdu + k * m,
                               c.rb + k * m * nrhs);
                memcpy(il.rdl, c.rdl, sizeof(double) * m * batch), memcpy(il.rd, c.rd, sizeof(double) * m * batch);
                memcpy(il.rdu, c.rdu, sizeof(double) * m * batch);
                memcpy(il.rb, c.rb, sizeof(double) * m * nrhs * batch);
                batch_load(&c);
                batch_load(&il);
                bsolve_status s = batch_solve(ctx, &c, method, trf);
                TL_EXPECT(s == BSOLVE_SUCCESS, "status %s: %s", tl_status_name(s), bsolve_ctx_message(ctx));
                bsolve_status si = batch_solve(ctx, &il, method, trf);
                TL_EXPECT(si == BSOLVE_SUCCESS, "interleaved status %s", tl_status_name(si));
                if (s == BSOLVE_SUCCESS && si == BSOLVE_SUCCESS) {
                    batch_check_memory(&c, "contiguous tiles");
                    int64_t differ = 0;
                    for (int64_t k = 0; k < batch; k++) {
                        TL_EXPECT(c.info[k] == 0 && il.info[k] == 0, "system %lld: info = %d, interleaved %d",
                                  (long long)k, c.info[k], il.info[k]);
                        for (int64_t j = 0; j < nrhs; j++) {
                            batch_x(&c, k, j, x);
                            batch_x(&il, k, j, y);
                            differ += memcmp(x, y, sizeof(double) * m) != 0;
                            const double br = bwd_ratio(m, c.rdl + k * m, c.rd + k * m, c.rdu + k * m,
                                                        c.rb + (k * nrhs + j) * m, x, tl_eps(p));
                            TL_EXPECT(br < TL_BWD_MAX, "system %lld rhs %lld: backward error ratio %.3g",
                                      (long long)k, (long long)j, br);
                            if (p == BSOLVE_PREC_D && method == BSOLVE_GTSV_PARTIAL) {
                                TL_EXPECT(ref_lapack(&c, k, j, y) == 0, "LAPACKE_dgtsv failed");
                                const double rd = rel_diff(m, x, y);
                                TL_EXPECT(rd < 1e-11, "system %lld: differs from LAPACKE_dgtsv by %.3g",
                                          (long long)k, rd);
                            }
                        }
                    }
                    TL_EXPECT(differ == 0, "%lld solutions differ from the interleaved layout's", (long long)differ);
                }
                TL_CLEAN("%s %s %s m=%lld nrhs=%lld batch=%lld contiguous vs interleaved", trf ? "gttrf+gttrs" : "gtsv",
                         tl_prec_name(p), meth_name[method], (long long)m, (long long)nrhs, (long long)batch);
                batch_free(&c);
                batch_free(&il);
            }
    free(x), free(y);
    bsolve_ctx_destroy(ctx);
}

START_TEST(t_contig_d) { run_contig_tiles(BSOLVE_PREC_D, 0); run_contig_tiles(BSOLVE_PREC_D, 1); }
END_TEST
START_TEST(t_contig_s) { run_contig_tiles(BSOLVE_PREC_S, 0); run_contig_tiles(BSOLVE_PREC_S, 1); }
END_TEST

/* Threads: the same answers with 1 and 2 threads (bitwise). */
START_TEST(t_threads)
{
    bsolve_ctx *ctx = tl_ctx();
    const int64_t m = 33, batch = 1001;
    batch_t t, u;
    batch_make(&t, BSOLVE_PREC_D, m, 1, batch, BSOLVE_TCONTIGUOUS, BSOLVE_TCONTIGUOUS, 0);
    batch_make(&u, BSOLVE_PREC_D, m, 1, batch, BSOLVE_TCONTIGUOUS, BSOLVE_TCONTIGUOUS, 0);
    tl_rng r;
    tl_rng_seed(&r, tl_seed(99, 1));
    for (int64_t k = 0; k < batch; k++)
        gen_system(&r, F_RANDOM, m, 1, 0, t.rdl + k * m, t.rd + k * m, t.rdu + k * m, t.rb + k * m);
    memcpy(u.rdl, t.rdl, 8 * m * batch), memcpy(u.rd, t.rd, 8 * m * batch), memcpy(u.rdu, t.rdu, 8 * m * batch);
    memcpy(u.rb, t.rb, 8 * m * batch);
    batch_load(&t);
    batch_load(&u);
    ck_assert_int_eq(bsolve_ctx_set_threads(ctx, 1), 0);
    ck_assert_int_eq(batch_solve(ctx, &t, BSOLVE_GTSV_GIVENS, 0), 0);
    ck_assert_int_eq(bsolve_ctx_set_threads(ctx, 2), 0);
    ck_assert_int_eq(batch_solve(ctx, &u, BSOLVE_GTSV_GIVENS, 0), 0);
    ck_assert(!memcmp(t.B, u.B, 8 * (size_t)t.bspan));
    batch_free(&t);
    batch_free(&u);
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* GIVENS on the CPU rotates unscaled when every lane of a vector is within
 * range and scales the whole vector otherwise (src/gtsv_cpu_impl.h,
 * gt_step), claiming the same bits either way: systems sharing their tiles
 * with one of entries near 2^600 (its squares overflow) must come out
 * bitwise as without it, in both layouts and precisions, and that system
 * itself by backward error.  CPU backend only: the claim is about its
 * vectors. */
static void run_givens_range(bsolve_precision p, bsolve_tlayout_kind kind)
{
    bsolve_ctx *ctx = tl_ctx();
    const int64_t m = 29, batch = 67;
    const double big = p == BSOLVE_PREC_D ? 0x1p600 : 0x1p70;
    batch_t t, u;
    batch_make(&t, p, m, 1, batch, kind, kind, 0);
    batch_make(&u, p, m, 1, batch, kind, kind, 0);
    tl_rng r;
    tl_rng_seed(&r, tl_seed(77, (uint64_t)p * 2 + kind));
    for (int64_t k = 0; k < batch; k++)
        gen_system(&r, F_SCALED, m, 1, p == BSOLVE_PREC_S, t.rdl + k * m, t.rd + k * m, t.rdu + k * m, t.rb + k * m);
    const size_t n = sizeof(double) * m * batch;
    memcpy(u.rdl, t.rdl, n), memcpy(u.rd, t.rd, n), memcpy(u.rdu, t.rdu, n), memcpy(u.rb, t.rb, n);
    for (int64_t i = 0; i < m; i++) u.rdl[i] *= big, u.rd[i] *= big, u.rdu[i] *= big;
    batch_load(&t);
    batch_load(&u);
    ck_assert_int_eq(bsolve_ctx_set_threads(ctx, 1), 0);
    ck_assert_int_eq(batch_solve(ctx, &t, BSOLVE_GTSV_GIVENS, 0), 0);
    ck_assert_int_eq(batch_solve(ctx, &u, BSOLVE_GTSV_GIVENS, 0), 0);
    double *x = malloc(n), *y = malloc(sizeof(double) * m);
    for (int64_t k = 1; k < batch; k++) {
        batch_x(&t, k, 0, x), batch_x(&u, k, 0, y);
        TL_EXPECT(!memcmp(x, y, sizeof(double) * m), "system %lld: not bitwise the unscaled result", (long long)k);
        TL_EXPECT(t.info[k] == u.info[k], "system %lld: info %d vs %d", (long long)k, t.info[k], u.info[k]);
    }
    batch_x(&u, 0, 0, x);
    const double eps = p == BSOLVE_PREC_D ? 0x1p-53 : 0x1p-24, w = bwd_ratio(m, u.rdl, u.rd, u.rdu, u.rb, x, eps);
    TL_EXPECT(u.info[0] == 0 && w < TL_BWD_MAX, "the 2^600-scaled system: info %d, backward error ratio %g", u.info[0], w);
    TL_CLEAN("givens range, %s, %s", p == BSOLVE_PREC_D ? "d" : "s", kind == BSOLVE_TCONTIGUOUS ? "contig" : "inter");
    free(x), free(y);
    batch_free(&t);
    batch_free(&u);
    bsolve_ctx_destroy(ctx);
}

START_TEST(t_givens_range)
{
    if (tl_backend() != BSOLVE_BACKEND_CPU) return;
    for (int p = 0; p < 2; p++)
        for (int kind = 0; kind < 2; kind++)
            run_givens_range(p ? BSOLVE_PREC_S : BSOLVE_PREC_D, kind ? BSOLVE_TINTERLEAVED : BSOLVE_TCONTIGUOUS);
}
END_TEST

/* Every layout pair, with and without gaps (t_layout's pad), m and batch on
 * both sides of the CPU backend's block sizes (transposes of 8 or 16,
 * super-tiles of 32 or 64 systems, the 128 KiB prefetch cap), nrhs 1 and 2,
 * every method, s and d: each system's backward error ratio on diagonally
 * dominant systems, every output written (x != b) and nothing else
 * (batch_check_memory).  A sweep like this, run by hand, would have caught the
 * missing x of feae53a (285 of its 8640 cases failed). */
static void run_layout_sweep(bsolve_precision p)
{
    static const int64_t ms[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 120, 128, 136, 256};
    static const int64_t bs[] = {1, 31, 32, 33, 63, 64, 65, 128, 200};
    const int nm = (int)(sizeof ms / sizeof *ms), nb = (int)(sizeof bs / sizeof *bs);
    bsolve_ctx *ctx = tl_ctx();
    double *x = malloc(sizeof(double) * 256);
    for (int im = 0; im < nm; im++)
        for (int ib = 0; ib < nb; ib++)
            for (int lk = 0; lk < 4; lk++) {
                const int64_t m = ms[im], batch = bs[ib], nrhs = 1 + (im + ib + lk) % 2;
                const bsolve_tlayout_kind ltk = lk & 1 ? BSOLVE_TINTERLEAVED : BSOLVE_TCONTIGUOUS;
                const bsolve_tlayout_kind lbk = lk & 2 ? BSOLVE_TINTERLEAVED : BSOLVE_TCONTIGUOUS;
                batch_t t;
                batch_make(&t, p, m, nrhs, batch, ltk, lbk, (im + ib) % 2);
                tl_rng r;
                tl_rng_seed(&r, tl_seed(3000 + m, 16 * ib + 4 * lk + 100 * p));
                for (int64_t k = 0; k < batch; k++)
                    gen_system(&r, F_DIAGDOM, m, nrhs, p == BSOLVE_PREC_S, t.rdl + k * m, t.rd + k * m, t.rdu + k * m,
                               t.rb + k * m * nrhs);
                for (int method = 0; method < 3; method++) {
                    batch_load(&t);
                    const bsolve_status st = batch_solve(ctx, &t, method, 0);
                    TL_EXPECT(st == BSOLVE_SUCCESS, "status %s: %s", tl_status_name(st), bsolve_ctx_message(ctx));
                    if (st == BSOLVE_SUCCESS) {
                        batch_check_memory(&t, "layout sweep");
                        for (int64_t k = 0; k < batch; k++) {
                            TL_EXPECT(t.info[k] == 0, "system %lld: info %d", (long long)k, t.info[k]);
                            for (int64_t j = 0; j < nrhs; j++) {
                                const double *b = t.rb + (k * nrhs + j) * m;
                                batch_x(&t, k, j, x);
                                const double br = bwd_ratio(m, t.rdl + k * m, t.rd + k * m, t.rdu + k * m, b, x,
                                                            tl_eps(p));
                                TL_EXPECT(br < TL_BWD_MAX, "system %lld rhs %lld: backward error ratio %.3g",
                                          (long long)k, (long long)j, br);
                                int64_t same = 0;
                                for (int64_t i = 0; i < m; i++) same += x[i] == b[i];
                                TL_EXPECT(m == 1 || same < m, "system %lld rhs %lld: x equals b (not written)",
                                          (long long)k, (long long)j);
                            }
                        }
                    }
                    TL_CLEAN("gtsv %s %s m=%lld batch=%lld nrhs=%lld lt=%s lb=%s pad=%d", tl_prec_name(p),
                             meth_name[method], (long long)m, (long long)batch, (long long)nrhs,
                             ltk ? "inter" : "contig", lbk ? "inter" : "contig", (im + ib) % 2);
                }
                batch_free(&t);
            }
    free(x);
    bsolve_ctx_destroy(ctx);
}

START_TEST(t_layout_sweep)
{
    run_layout_sweep(BSOLVE_PREC_D);
    run_layout_sweep(BSOLVE_PREC_S);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gtsv");
    TCase *tc = tl_tcase("gtsv");
    tcase_add_test(tc, t_args);
    tcase_add_test(tc, t_accuracy_d);
    tcase_add_test(tc, t_givens_range);
    tcase_add_test(tc, t_accuracy_s);
    tcase_add_test(tc, t_trf_d);
    tcase_add_test(tc, t_trf_s);
    tcase_add_test(tc, t_trf_reuse);
    tcase_add_test(tc, t_bad_d);
    tcase_add_test(tc, t_bad_s);
    tcase_add_test(tc, t_bad_trf);
    tcase_add_test(tc, t_threads);
    tcase_add_test(tc, t_contig_d);
    tcase_add_test(tc, t_contig_s);
    tcase_add_test(tc, t_layout_sweep);
    suite_add_tcase(s, tc);
    return tl_main(s);
}
