/*
 * test_isa.c -- the CPU kernels of every instruction-set level this machine
 * runs (src/cpu_isa.h: 1 base x86-64, 2 AVX2, 3 AVX-512), forced on a
 * context through the test-only knob BSI_FORCE_CPU_ISA, on representative
 * cases: gesv and getrf + getrs (every pivoting, s and d, n = 1..128, every
 * pair of layouts, nrhs 1 and 3), gels and geqrf + geqrs, gtsv and gttrf +
 * gttrs (every method, both layouts), convert.  On each level every system
 * is checked against the reference (GSL, LAPACK's dgetc2, LAPACKE_dgels,
 * LAPACKE_dgtsv) by backward error and elementwise, and elementwise against
 * the best level's answer; the split calls must give the fused call's bits
 * on each level, and the unforced context the best level's bits.  A
 * factorization keeps the level it was made with when its context's level
 * changes.  Forcing a level the build or the CPU lacks fails the call with
 * a status and a message and writes nothing.
 *
 * The elementwise bounds (c n eps times max|x|, on well-conditioned
 * systems) are loose enough for a different order of the same operations
 * (FMA contraction, the AVX-512 reciprocal square-root estimate) and tight
 * enough to catch a lane or a row mixed up.
 */
#include "testlib.h"

#include "cpu_isa.h"  /* BSI_CPU_ISA_*, bsi_cpu_isa_runs */
#include "cpu_kernels.h" /* struct bsi_cpu_kernels: the level an object was made with */
#include "internal.h"    /* bsi_test_force, BSI_FORCE_CPU_ISA */

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOL_REF 32.0  /* |x - xref| <= TOL_REF n eps max|xref| (well-conditioned) */
#define TOL_LEVEL 8.0 /* |x_level - x_best| <= TOL_LEVEL n eps max|x_best| */

static const char *const lname[] = {"default", "base", "avx2", "avx512"};

/* Levels to run: 0 (the context as created), then every level this build
 * has and this CPU runs, best last. */
static int levels[BSI_CPU_ISA_MAX + 1], nlev;
static void find_levels(void)
{
    nlev = 0;
    levels[nlev++] = 0;
    for (int l = 1; l <= BSI_CPU_ISA_MAX; l++)
        if (bsi_cpu_isa_runs(l)) levels[nlev++] = l;
}
static int best(void) { return levels[nlev - 1]; }

/* An object made on a context at `level` holds that level's kernels: tiles
 * of 2, 4 or 8 double lanes (16-, 32-, 64-byte vectors) for base, avx2,
 * avx512; the default context the best level's. */
static void check_kernels(const struct bsi_cpu_kernels *k, int level, const char *what)
{
    const int l = level ? level : best();
    ck_assert_msg(k && !strcmp(k->name, lname[l]) && k->lanes_d == 1 << l && k->lanes_s == 2 << l,
                  "%s made at level %s holds the %s kernels (%d lanes)", what, lname[level], k ? k->name : "no",
                  k ? k->lanes_d : 0);
}

static bsolve_ctx *ctx_at(int level)
{
    bsolve_ctx *ctx = tl_ctx();
    ck_assert_int_eq(bsi_test_force(ctx, BSI_FORCE_CPU_ISA, level), BSOLVE_SUCCESS);
    return ctx;
}

static double maxabs(int64_t count, const double *x)
{
    double m = 0;
    for (int64_t i = 0; i < count; i++) m = fabs(x[i]) > m ? fabs(x[i]) : m;
    return m;
}

/* max |x - y| / max |y|, inf when x holds a non-finite value. */
static double rdiff(int64_t count, const double *x, const double *y)
{
    double d = 0, s = maxabs(count, y);
    for (int64_t i = 0; i < count; i++) {
        if (!isfinite(x[i])) return INFINITY;
        d = fabs(x[i] - y[i]) > d ? fabs(x[i] - y[i]) : d;
    }
    return s > 0 ? d / s : d;
}

/* Checks a level's answers X (per system `per` reals) against the best
 * level's (Xb): within scale times the system's condition number (cond
 * NULL: 1); records the worst ratio to the bound.  The unforced context
 * must have run the best level exactly. */
static double worst_level;
static void check_levels(int level, int64_t batch, int64_t per, const double *X, const double *Xb, double scale,
                         const double *cond, const char *what)
{
    for (int64_t k = 0; k < batch; k++) {
        const double *x = X + k * per, *xb = Xb + k * per;
        if (level == 0) {
            TL_EXPECT(!memcmp(x, xb, sizeof *x * per), "%s system %lld: the default level is not bitwise the %s level",
                      what, (long long)k, lname[best()]);
            continue;
        }
        const double q = rdiff(per, x, xb) / (scale * (cond ? cond[k] : 1));
        if (q > worst_level) worst_level = q;
        TL_EXPECT(q <= 1, "%s system %lld: level %s differs from %s by %.3g of the bound (x[0] = %.17g, %.17g)",
                  what, (long long)k, lname[level], lname[best()], q, x[0], xb[0]);
    }
}

/* Ends a case: its failures, and with BSOLVE_TEST_VERBOSE=1 how close the
 * levels came to their bound. */
static void end_case(const char *desc)
{
    const char *e = getenv("BSOLVE_TEST_VERBOSE");
    if (e && *e && strcmp(e, "0")) printf("  [%s] levels within %.3g of the bound\n", desc, worst_level);
    worst_level = 0;
    TL_CLEAN("%s", desc);
}

/* ==================================================================== LU */

static const bsolve_layout_kind KINDS[] = {BSOLVE_COL_MAJOR, BSOLVE_ROW_MAJOR, BSOLVE_INTERLEAVED};

static tl_family lu_family(bsolve_pivot pivot, int64_t k)
{
    static const tl_family piv[] = {TL_FAM_PERMDOM, TL_FAM_DIAGDOM, TL_FAM_RANDOM, TL_FAM_ZEROLEAD};
    if (pivot == BSOLVE_PIVOT_NONE) return k % 2 ? TL_FAM_DIAGDOM_ROWSCALED : TL_FAM_DIAGDOM;
    return piv[k % 4];
}

static void lu_case(bsolve_precision p, bsolve_pivot pivot, int n, int nrhs, int64_t batch, bsolve_layout_kind ka,
                    bsolve_layout_kind kb, uint64_t seed)
{
    const double eps = tl_eps(p);
    const bsolve_layout la = tl_layout(ka, 1, n, n, batch), lb = tl_layout(kb, 1, n, nrhs, batch);
    char desc[300], sa[64], sb[64];
    tl_layout_str(la, sa, sizeof sa);
    tl_layout_str(lb, sb, sizeof sb);
    snprintf(desc, sizeof desc, "%sgesv pivot=%s n=%d nrhs=%d batch=%lld A=%s B=%s seed=%llu", tl_prec_name(p),
             tl_pivot_name(pivot), n, nrhs, (long long)batch, sa, sb, (unsigned long long)seed);

    const int64_t nn = (int64_t)n * n, nb = (int64_t)n * nrhs;
    double *a = malloc(sizeof *a * nn * batch), *b = malloc(sizeof *b * nb * batch);
    double *xr = malloc(sizeof *xr * nb * batch), *xb = malloc(sizeof *xb * nb * batch);
    double *x = malloc(sizeof *x * nb * batch);
    tl_rng rng;
    tl_rng_seed(&rng, seed);
    tl_buf A, B0;
    tl_buf_alloc(&A, p, la, n, n, batch, 0);
    tl_buf_alloc(&B0, p, lb, n, nrhs, batch, 0);
    for (int64_t k = 0; k < batch; k++) {
        tl_gen_matrix(&rng, lu_family(pivot, k), n, a + k * nn);
        tl_gen_uniform(&rng, nb, b + k * nb);
        if (p == BSOLVE_PREC_S) {
            tl_round_float(nn, a + k * nn);
            tl_round_float(nb, b + k * nb);
        }
        tl_buf_put(&A, k, a + k * nn);
        tl_buf_put(&B0, k, b + k * nb);
        const int r = pivot == BSOLVE_PIVOT_FULL ? tl_ref_getc2(n, nrhs, a + k * nn, b + k * nb, xr + k * nb)
                                                 : tl_ref_gsl(n, nrhs, a + k * nn, b + k * nb, xr + k * nb);
        ck_assert_msg(r == 0, "[%s] system %lld: the reference finds it singular", desc, (long long)k);
    }
    int32_t *info = tl_i32_alloc(batch);

    /* best level first: the others are compared with it */
    for (int li = nlev - 1; li >= 0; li--) {
        const int level = levels[li];
        bsolve_ctx *ctx = ctx_at(level);
        tl_buf B, Bs;
        tl_buf_clone(&B0, &B);
        tl_buf_clone(&B0, &Bs);
        bsolve_status st = tl_gesv(ctx, p, pivot, n, nrhs, batch, A.data, la, B.data, lb, info);
        ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] level %s: gesv status %s (%s)", desc, lname[level],
                      tl_status_name(st), bsolve_ctx_message(ctx));
        char where[200];
        ck_assert_msg(tl_buf_bad_padding(&B, where, sizeof where) == 0, "[%s] level %s: padding of B written: %s",
                      desc, lname[level], where);
        /* getrf + getrs: the fused call's bits */
        bsolve_lu *lu = NULL;
        ck_assert_int_eq(bsolve_lu_create(ctx, p, pivot, n, batch, &lu), BSOLVE_SUCCESS);
        if (level || nlev > 1) check_kernels(lu->cpu, level, "bsolve_lu");
        ck_assert_int_eq(tl_getrf(ctx, p, A.data, la, lu, info), BSOLVE_SUCCESS);
        ck_assert_int_eq(tl_getrs(ctx, p, lu, nrhs, Bs.data, lb, info), BSOLVE_SUCCESS);
        ck_assert_msg(tl_buf_same(&B, &Bs), "[%s] level %s: getrf + getrs differ from gesv", desc, lname[level]);
        if (level == best() && nlev > 2) {
            /* the object keeps its level when the context's changes */
            tl_buf Bo;
            tl_buf_clone(&B0, &Bo);
            ck_assert_int_eq(bsi_test_force(ctx, BSI_FORCE_CPU_ISA, levels[1]), BSOLVE_SUCCESS);
            ck_assert_int_eq(tl_getrs(ctx, p, lu, nrhs, Bo.data, lb, info), BSOLVE_SUCCESS);
            ck_assert_msg(tl_buf_same(&B, &Bo), "[%s] getrs with a level-%s object on a level-%s context differs",
                          desc, lname[level], lname[levels[1]]);
            tl_buf_free(&Bo);
        }
        bsolve_lu_destroy(lu);
        for (int64_t k = 0; k < batch; k++) {
            TL_EXPECT(info[k] == 0, "level %s system %lld: info %d", lname[level], (long long)k, info[k]);
            tl_buf_getm(&B, k, x + k * nb);
            const double r = tl_backward_ratio(n, nrhs, a + k * nn, b + k * nb, x + k * nb, eps);
            TL_EXPECT(r < TL_BWD_MAX, "level %s system %lld: backward error ratio %.3g", lname[level], (long long)k, r);
            if (tl_family_wellcond(lu_family(pivot, k))) {
                const double q = tl_rel_diff(n, nrhs, x + k * nb, xr + k * nb) / (n * eps);
                TL_EXPECT(q <= TOL_REF, "level %s system %lld: %.3g n eps from the reference", lname[level],
                          (long long)k, q);
            }
        }
        if (level == best()) memcpy(xb, x, sizeof *x * nb * batch);
        else
            for (int64_t k = 0; k < batch; k++)
                if (tl_family_wellcond(lu_family(pivot, k)))
                    check_levels(level, 1, nb, x + k * nb, xb + k * nb, TOL_LEVEL * n * eps, NULL, "gesv");
        tl_buf_free(&B);
        tl_buf_free(&Bs);
        bsolve_ctx_destroy(ctx);
    }
    end_case(desc);
    tl_i32_free(info);
    tl_buf_free(&A);
    tl_buf_free(&B0);
    free(a), free(b), free(x), free(xr), free(xb);
}

static const int LU_N[] = {1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 24, 31, 33, 48, 64, 100, 128};
#define N_LU_N ((int)(sizeof LU_N / sizeof LU_N[0]))

START_TEST(t_lu)
{
    find_levels();
    const bsolve_precision p = _i % 2 ? BSOLVE_PREC_S : BSOLVE_PREC_D;
    const int ni = _i / 2;
    const int n = LU_N[ni];
    for (int piv = 0; piv < 3; piv++) {
        const int v = ni + piv; /* every layout pair and both nrhs over the sizes */
        const int64_t batch = n >= 64 ? 19 : n >= 16 ? 45 : 101;
        lu_case(p, (bsolve_pivot)piv, n, v % 2 ? 3 : 1, batch, KINDS[v % 3], KINDS[(v / 3) % 3],
                tl_seed(1000 + _i, piv));
    }
}
END_TEST

/* ==================================================================== QR */

static bsolve_status gels(bsolve_ctx *ctx, bsolve_precision p, int64_t m, int64_t n, int64_t nrhs, int64_t batch,
                          const void *A, bsolve_layout la, void *B, bsolve_layout lb, int32_t *info)
{
    return p == BSOLVE_PREC_D ? bsolve_dgels(ctx, m, n, nrhs, batch, A, la, B, lb, info)
                              : bsolve_sgels(ctx, m, n, nrhs, batch, A, la, B, lb, info);
}

static void qr_case(bsolve_precision p, int m, int n, int nrhs, int64_t batch, bsolve_layout_kind ka,
                    bsolve_layout_kind kb, uint64_t seed)
{
    const double eps = tl_eps(p);
    const bsolve_layout la = tl_layout(ka, 1, m, n, batch), lb = tl_layout(kb, 1, m, nrhs, batch);
    char desc[300], sa[64], sb[64];
    tl_layout_str(la, sa, sizeof sa);
    tl_layout_str(lb, sb, sizeof sb);
    snprintf(desc, sizeof desc, "%sgels m=%d n=%d nrhs=%d batch=%lld A=%s B=%s seed=%llu", tl_prec_name(p), m, n,
             nrhs, (long long)batch, sa, sb, (unsigned long long)seed);

    const int64_t mn = (int64_t)m * n, mb = (int64_t)m * nrhs, xn = (int64_t)n * nrhs;
    double *a = malloc(sizeof *a * mn * batch), *b = malloc(sizeof *b * mb * batch);
    double *xr = malloc(sizeof *xr * xn * batch), *xb = malloc(sizeof *xb * xn * batch);
    double *x = malloc(sizeof *x * xn * batch), *w = malloc(sizeof *w * mb);
    tl_rng rng;
    tl_rng_seed(&rng, seed);
    tl_buf A, B0;
    tl_buf_alloc(&A, p, la, m, n, batch, 0);
    tl_buf_alloc(&B0, p, lb, m, nrhs, batch, 0);
    for (int64_t k = 0; k < batch; k++) {
        /* uniform plus 3 sqrt(m) + 2 on the diagonal: condition below ~6 */
        double *ak = a + k * mn;
        tl_gen_uniform(&rng, mn, ak);
        for (int j = 0; j < n; j++) ak[j + (int64_t)j * m] += 3 * sqrt(m) + 2;
        tl_gen_uniform(&rng, mb, b + k * mb);
        if (p == BSOLVE_PREC_S) {
            tl_round_float(mn, ak);
            tl_round_float(mb, b + k * mb);
        }
        tl_buf_put(&A, k, ak);
        tl_buf_put(&B0, k, b + k * mb);
        double *aw = malloc(sizeof *aw * mn);
        memcpy(aw, ak, sizeof *aw * mn);
        memcpy(w, b + k * mb, sizeof *w * mb);
        ck_assert_int_eq(LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', m, n, nrhs, aw, m, w, m), 0);
        free(aw);
        for (int c = 0; c < nrhs; c++)
            for (int i = 0; i < n; i++) xr[k * xn + i + (int64_t)c * n] = w[i + (int64_t)c * m];
    }
    int32_t *info = tl_i32_alloc(batch);

    for (int li = nlev - 1; li >= 0; li--) {
        const int level = levels[li];
        bsolve_ctx *ctx = ctx_at(level);
        tl_buf B, Bs;
        tl_buf_clone(&B0, &B);
        tl_buf_clone(&B0, &Bs);
        bsolve_status st = gels(ctx, p, m, n, nrhs, batch, A.data, la, B.data, lb, info);
        ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] level %s: gels status %s (%s)", desc, lname[level],
                      tl_status_name(st), bsolve_ctx_message(ctx));
        bsolve_qr *qr = NULL;
        ck_assert_int_eq(bsolve_qr_create(ctx, p, m, n, batch, &qr), BSOLVE_SUCCESS);
        if (level || nlev > 1) check_kernels(qr->cpu, level, "bsolve_qr");
        if (p == BSOLVE_PREC_D) {
            ck_assert_int_eq(bsolve_dgeqrf(ctx, A.data, la, qr, info), BSOLVE_SUCCESS);
            ck_assert_int_eq(bsolve_dgeqrs(ctx, qr, nrhs, Bs.data, lb, info), BSOLVE_SUCCESS);
        } else {
            ck_assert_int_eq(bsolve_sgeqrf(ctx, A.data, la, qr, info), BSOLVE_SUCCESS);
            ck_assert_int_eq(bsolve_sgeqrs(ctx, qr, nrhs, Bs.data, lb, info), BSOLVE_SUCCESS);
        }
        bsolve_qr_destroy(qr);
        for (int64_t k = 0; k < batch; k++) {
            TL_EXPECT(info[k] == 0, "level %s system %lld: info %d", lname[level], (long long)k, info[k]);
            double *xk = x + k * xn;
            tl_buf_getm(&B, k, w);
            for (int c = 0; c < nrhs; c++)
                for (int i = 0; i < n; i++) xk[i + (int64_t)c * n] = w[i + (int64_t)c * m];
            tl_buf_getm(&Bs, k, w);
            for (int c = 0; c < nrhs; c++)
                for (int i = 0; i < n; i++)
                    TL_EXPECT(w[i + (int64_t)c * m] == xk[i + (int64_t)c * n],
                              "level %s system %lld: geqrf + geqrs x(%d,%d) = %.17g, gels %.17g", lname[level],
                              (long long)k, i, c, w[i + (int64_t)c * m], xk[i + (int64_t)c * n]);
            const double q = rdiff(xn, xk, xr + k * xn) / (m * eps);
            TL_EXPECT(q <= TOL_REF, "level %s system %lld: %.3g m eps from LAPACKE_dgels", lname[level],
                      (long long)k, q);
        }
        if (level == best()) memcpy(xb, x, sizeof *x * xn * batch);
        else check_levels(level, batch, xn, x, xb, TOL_LEVEL * m * eps, NULL, "gels");
        tl_buf_free(&B);
        tl_buf_free(&Bs);
        bsolve_ctx_destroy(ctx);
    }
    end_case(desc);
    tl_i32_free(info);
    tl_buf_free(&A);
    tl_buf_free(&B0);
    free(a), free(b), free(x), free(xr), free(xb), free(w);
}

static const int QR_MN[][2] = {{1, 1}, {2, 1}, {3, 3}, {5, 2}, {8, 8}, {12, 7}, {16, 16}, {17, 9},
                               {24, 12}, {32, 32}, {40, 17}, {64, 48}, {100, 64}, {128, 64}};
#define N_QR ((int)(sizeof QR_MN / sizeof QR_MN[0]))

START_TEST(t_qr)
{
    find_levels();
    const bsolve_precision p = _i % 2 ? BSOLVE_PREC_S : BSOLVE_PREC_D;
    const int si = _i / 2, m = QR_MN[si][0], n = QR_MN[si][1];
    const int64_t batch = m >= 64 ? 19 : 45;
    qr_case(p, m, n, si % 2 ? 2 : 1, batch, KINDS[si % 3], KINDS[(si / 3 + _i) % 3], tl_seed(2000 + _i, 0));
}
END_TEST

/* ============================================================= tridiagonal */

static bsolve_status gtsv(bsolve_ctx *ctx, bsolve_precision p, int method, int64_t m, int64_t nrhs, int64_t batch,
                          const void *dl, const void *d, const void *du, bsolve_tlayout lt, void *B,
                          bsolve_tlayout lb, int32_t *info)
{
    if (p == BSOLVE_PREC_D)
        return bsolve_dgtsv(ctx, (bsolve_gtsv_method)method, m, nrhs, batch, dl, d, du, lt, B, lb, info);
    return bsolve_sgtsv(ctx, (bsolve_gtsv_method)method, m, nrhs, batch, dl, d, du, lt, B, lb, info);
}

/* A host array of reals of precision p (entries set by tl_put). */
static void *t_alloc(bsolve_precision p, int64_t count)
{
    void *x = calloc((size_t)(count > 0 ? count : 1), p == BSOLVE_PREC_D ? 8 : 4);
    ck_assert(x != NULL);
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
static int64_t t_off(bsolve_tlayout l, int64_t m, int64_t i, int64_t j, int64_t k)
{
    return l.kind == BSOLVE_TCONTIGUOUS ? k * l.stride + j * l.ld + i : (i + j * m) * l.ld + k;
}
static bsolve_tlayout t_layout(bsolve_tlayout_kind kind, int64_t m, int64_t cols, int64_t batch)
{
    if (kind == BSOLVE_TCONTIGUOUS) return bsolve_tlayout_contiguous(m + 1, (m + 1) * cols + 2);
    return bsolve_tlayout_interleaved(batch + 3);
}
static int64_t t_span(bsolve_tlayout l, int64_t m, int64_t cols, int64_t batch)
{
    return l.kind == BSOLVE_TCONTIGUOUS ? batch * l.stride : cols * m * l.ld;
}

/* max over columns of ||b - T x||_inf / (m eps (||T||_inf ||x||_inf + ||b||_inf)), in long double;
 * T: m sub-diagonal (entry 0 unused), m diagonal, m super-diagonal entries. */
static double gt_bwd(int64_t m, int nrhs, const double *T, const double *b, const double *x, double eps)
{
    const double *l = T, *d = T + m, *u = T + 2 * m;
    long double tn = 0, worst = 0;
    for (int64_t i = 0; i < m; i++) {
        long double rs = fabsl((long double)d[i]) + (i ? fabsl((long double)l[i]) : 0) + (i + 1 < m ? fabsl((long double)u[i]) : 0);
        tn = rs > tn ? rs : tn;
    }
    for (int c = 0; c < nrhs; c++) {
        const double *xc = x + c * m, *bc = b + c * m;
        long double rn = 0, xn = 0, bn = 0;
        for (int64_t i = 0; i < m; i++) {
            if (!isfinite(xc[i])) return INFINITY;
            long double r = bc[i] - (long double)d[i] * xc[i];
            if (i) r -= (long double)l[i] * xc[i - 1];
            if (i + 1 < m) r -= (long double)u[i] * xc[i + 1];
            rn = fabsl(r) > rn ? fabsl(r) : rn;
            xn = fabsl((long double)xc[i]) > xn ? fabsl((long double)xc[i]) : xn;
            bn = fabsl((long double)bc[i]) > bn ? fabsl((long double)bc[i]) : bn;
        }
        const long double q = rn / (m * eps * (tn * xn + bn));
        worst = q > worst ? q : worst;
    }
    return (double)worst;
}

static void gt_case(bsolve_precision p, int method, int64_t m, int nrhs, int64_t batch, bsolve_tlayout_kind kind,
                    uint64_t seed)
{
    static const char *const meth[] = {"thomas", "partial", "givens"};
    const double eps = tl_eps(p);
    const bsolve_tlayout lt = t_layout(kind, m, 1, batch), lb = t_layout(kind, m, nrhs, batch);
    char desc[300];
    snprintf(desc, sizeof desc, "%sgtsv %s m=%lld nrhs=%d batch=%lld %s seed=%llu", tl_prec_name(p), meth[method],
             (long long)m, nrhs, (long long)batch, kind == BSOLVE_TCONTIGUOUS ? "contiguous" : "interleaved",
             (unsigned long long)seed);
    const int64_t mb = m * nrhs;
    void *dl = t_alloc(p, t_span(lt, m, 1, batch)), *d = t_alloc(p, t_span(lt, m, 1, batch));
    void *du = t_alloc(p, t_span(lt, m, 1, batch)), *B0 = t_alloc(p, t_span(lb, m, nrhs, batch));
    void *B = t_alloc(p, t_span(lb, m, nrhs, batch)), *Bs = t_alloc(p, t_span(lb, m, nrhs, batch));
    const size_t bbytes = (size_t)t_span(lb, m, nrhs, batch) * (p == BSOLVE_PREC_D ? 8 : 4);
    double *xr = malloc(sizeof *xr * mb * batch), *xb = malloc(sizeof *xb * mb * batch);
    double *x = malloc(sizeof *x * mb * batch);
    double *tl = malloc(sizeof *tl * m), *td = malloc(sizeof *td * m), *tu = malloc(sizeof *tu * m);
    double *T = malloc(sizeof *T * 3 * m * batch), *b = malloc(sizeof *b * mb * batch);
    double *cond = malloc(sizeof *cond * batch);
    tl_rng rng;
    tl_rng_seed(&rng, seed);
    for (int64_t k = 0; k < batch; k++) {
        /* diagonally dominant for THOMAS; the others get a small diagonal in
         * every third system, so that PARTIAL pivots and GIVENS rotates */
        const int weak = method != BSOLVE_GTSV_THOMAS && k % 3 == 1;
        for (int64_t i = 0; i < m; i++) {
            double l = i ? tl_rng_uniform(&rng) : 0, u = i < m - 1 ? tl_rng_uniform(&rng) : 0;
            double dd = weak ? 0.1 * tl_rng_uniform(&rng) : 1 + fabs(l) + fabs(u) + tl_rng_unit(&rng);
            t_set(p, dl, t_off(lt, m, i, 0, k), l);
            t_set(p, d, t_off(lt, m, i, 0, k), dd);
            t_set(p, du, t_off(lt, m, i, 0, k), u);
            tl[i] = t_get(p, dl, t_off(lt, m, i, 0, k));
            td[i] = t_get(p, d, t_off(lt, m, i, 0, k));
            tu[i] = t_get(p, du, t_off(lt, m, i, 0, k));
        }
        memcpy(T + 3 * m * k, tl, sizeof *tl * m);
        memcpy(T + 3 * m * k + m, td, sizeof *td * m);
        memcpy(T + 3 * m * k + 2 * m, tu, sizeof *tu * m);
        for (int c = 0; c < nrhs; c++)
            for (int64_t i = 0; i < m; i++) {
                t_set(p, B0, t_off(lb, m, i, c, k), tl_rng_uniform(&rng));
                xr[k * mb + i + c * m] = b[k * mb + i + c * m] = t_get(p, B0, t_off(lb, m, i, c, k));
            }
        /* the reference, and the condition number (1-norm) that scales the
         * forward-error bounds */
        double *sub = malloc(sizeof *sub * m), *dia = malloc(sizeof *dia * m), *sup = malloc(sizeof *sup * m);
        double *du2 = malloc(sizeof *du2 * m), anorm = 0, rcond = 0;
        lapack_int *ipiv = malloc(sizeof *ipiv * m);
        for (int64_t j = 0; j < m; j++) {
            const double cs = fabs(td[j]) + (j ? fabs(tu[j - 1]) : 0) + (j + 1 < m ? fabs(tl[j + 1]) : 0);
            anorm = cs > anorm ? cs : anorm;
        }
        for (int64_t i = 0; i < m; i++) sub[i] = i + 1 < m ? tl[i + 1] : 0, dia[i] = td[i], sup[i] = tu[i];
        ck_assert_int_eq(LAPACKE_dgttrf((int)m, sub, dia, sup, du2, ipiv), 0);
        ck_assert_int_eq(LAPACKE_dgtcon('1', (int)m, sub, dia, sup, du2, ipiv, anorm, &rcond), 0);
        cond[k] = rcond > 0 ? 1 / rcond : INFINITY;
        ck_assert_int_eq(LAPACKE_dgttrs(LAPACK_COL_MAJOR, 'N', (int)m, nrhs, sub, dia, sup, du2, ipiv, xr + k * mb,
                                        (int)m),
                         0);
        free(sub), free(dia), free(sup), free(du2), free(ipiv);
    }
    int32_t *info = tl_i32_alloc(batch);

    for (int li = nlev - 1; li >= 0; li--) {
        const int level = levels[li];
        bsolve_ctx *ctx = ctx_at(level);
        memcpy(B, B0, bbytes);
        memcpy(Bs, B0, bbytes);
        bsolve_status st = gtsv(ctx, p, method, m, nrhs, batch, dl, d, du, lt, B, lb, info);
        ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] level %s: gtsv status %s (%s)", desc, lname[level],
                      tl_status_name(st), bsolve_ctx_message(ctx));
        bsolve_gt *gt = NULL;
        ck_assert_int_eq(bsolve_gt_create(ctx, p, (bsolve_gtsv_method)method, m, batch, &gt), BSOLVE_SUCCESS);
        if (level || nlev > 1) check_kernels(gt->cpu, level, "bsolve_gt");
        if (p == BSOLVE_PREC_D) {
            ck_assert_int_eq(bsolve_dgttrf(ctx, dl, d, du, lt, gt, info), BSOLVE_SUCCESS);
            ck_assert_int_eq(bsolve_dgttrs(ctx, gt, nrhs, Bs, lb, info), BSOLVE_SUCCESS);
        } else {
            ck_assert_int_eq(bsolve_sgttrf(ctx, dl, d, du, lt, gt, info), BSOLVE_SUCCESS);
            ck_assert_int_eq(bsolve_sgttrs(ctx, gt, nrhs, Bs, lb, info), BSOLVE_SUCCESS);
        }
        bsolve_gt_destroy(gt);
        ck_assert_msg(!memcmp(B, Bs, bbytes), "[%s] level %s: gttrf + gttrs differ from gtsv", desc, lname[level]);
        for (int64_t k = 0; k < batch; k++) {
            TL_EXPECT(info[k] == 0, "level %s system %lld: info %d", lname[level], (long long)k, info[k]);
            for (int c = 0; c < nrhs; c++)
                for (int64_t i = 0; i < m; i++) x[k * mb + i + c * m] = t_get(p, B, t_off(lb, m, i, c, k));
            const double r = gt_bwd(m, nrhs, T + 3 * m * k, b + k * mb, x + k * mb, eps);
            TL_EXPECT(r < TL_BWD_MAX, "level %s system %lld: backward error ratio %.3g", lname[level], (long long)k,
                      r);
            const double q = rdiff(mb, x + k * mb, xr + k * mb) / (m * eps * cond[k]);
            TL_EXPECT(q <= TOL_REF, "level %s system %lld: %.3g m eps cond from LAPACK's dgttrf + dgttrs",
                      lname[level], (long long)k, q);
        }
        if (level == best()) memcpy(xb, x, sizeof *x * mb * batch);
        else check_levels(level, batch, mb, x, xb, TOL_LEVEL * m * eps, cond, "gtsv");
        bsolve_ctx_destroy(ctx);
    }
    end_case(desc);
    tl_i32_free(info);
    free(dl), free(d), free(du), free(B0), free(B), free(Bs);
    free(x), free(xr), free(xb), free(tl), free(td), free(tu), free(T), free(b), free(cond);
}

static const int64_t GT_M[] = {1, 2, 3, 8, 17, 64, 257};
#define N_GT_M ((int)(sizeof GT_M / sizeof GT_M[0]))

START_TEST(t_gtsv)
{
    find_levels();
    const bsolve_precision p = _i % 2 ? BSOLVE_PREC_S : BSOLVE_PREC_D;
    const int mi = _i / 2;
    const int64_t m = GT_M[mi];
    for (int method = 0; method < 3; method++)
        for (int kind = 0; kind < 2; kind++)
            gt_case(p, method, m, (mi + method) % 2 ? 2 : 1, m >= 64 ? 203 : 517, (bsolve_tlayout_kind)kind,
                    tl_seed(3000 + _i, method * 2 + kind));
}
END_TEST

/* ========================================================= convert, forcing */

START_TEST(t_convert)
{
    find_levels();
    const int r = 7, c = 5;
    const int64_t batch = 61;
    tl_rng rng;
    tl_rng_seed(&rng, tl_seed(4000, 0));
    for (int li = 0; li < nlev; li++) {
        bsolve_ctx *ctx = ctx_at(levels[li]);
        for (int pi = 0; pi < 2; pi++) {
            const bsolve_precision p = pi ? BSOLVE_PREC_S : BSOLVE_PREC_D;
            for (int ks = 0; ks < 3; ks++)
                for (int kd = 0; kd < 3; kd++) {
                    const bsolve_layout ls = tl_layout(KINDS[ks], 1, r, c, batch), ld = tl_layout(KINDS[kd], 1, r, c, batch);
                    tl_buf S, D;
                    tl_buf_alloc(&S, p, ls, r, c, batch, 0);
                    tl_buf_alloc(&D, p, ld, r, c, batch, 0);
                    double m[35], m2[35];
                    for (int64_t k = 0; k < batch; k++) {
                        tl_gen_uniform(&rng, r * c, m);
                        if (p == BSOLVE_PREC_S) tl_round_float(r * c, m);
                        tl_buf_put(&S, k, m);
                    }
                    ck_assert_int_eq(tl_convert(ctx, p, r, c, batch, S.data, ls, D.data, ld), BSOLVE_SUCCESS);
                    char where[200];
                    ck_assert_msg(tl_buf_bad_padding(&D, where, sizeof where) == 0, "convert wrote padding: %s",
                                  where);
                    for (int64_t k = 0; k < batch; k++) {
                        tl_buf_getm(&S, k, m);
                        tl_buf_getm(&D, k, m2);
                        ck_assert_msg(!memcmp(m, m2, sizeof m), "level %s %s convert %s -> %s: system %lld differs",
                                      lname[levels[li]], tl_prec_name(p), tl_kind_name(KINDS[ks]),
                                      tl_kind_name(KINDS[kd]), (long long)k);
                    }
                    tl_buf_free(&S);
                    tl_buf_free(&D);
                }
        }
        bsolve_ctx_destroy(ctx);
    }
}
END_TEST

/* A forced level that cannot run fails every kind of call, says why, and
 * writes nothing. */
static void expect_refused(int level, bsolve_status want)
{
    bsolve_ctx *ctx = tl_ctx();
    ck_assert_int_eq(bsi_test_force(ctx, BSI_FORCE_CPU_ISA, level), BSOLVE_SUCCESS);
    double A[4] = {2, 1, 1, 3}, B[2] = {1, 2};
    int32_t info[1] = {TL_I32_POISON};
    const bsolve_layout l = {BSOLVE_COL_MAJOR, 2, 4}, lb = {BSOLVE_COL_MAJOR, 2, 2};
    bsolve_status st = bsolve_dgesv(ctx, BSOLVE_PIVOT_PARTIAL, 2, 1, 1, A, l, B, lb, info);
    ck_assert_msg(st == want, "level %d: gesv status %s, expected %s", level, tl_status_name(st), tl_status_name(want));
    ck_assert_msg(tl_has_word(bsolve_ctx_message(ctx), "CPU"), "level %d: message \"%s\" does not say why", level,
                  bsolve_ctx_message(ctx));
    ck_assert_msg(B[0] == 1 && B[1] == 2 && info[0] == TL_I32_POISON, "level %d: a refused gesv wrote its output",
                  level);
    bsolve_lu *lu = (bsolve_lu *)1;
    ck_assert_int_eq(bsolve_lu_create(ctx, BSOLVE_PREC_D, BSOLVE_PIVOT_PARTIAL, 2, 1, &lu), want);
    ck_assert(lu == NULL);
    bsolve_qr *qr = (bsolve_qr *)1;
    ck_assert_int_eq(bsolve_qr_create(ctx, BSOLVE_PREC_D, 2, 2, 1, &qr), want);
    ck_assert(qr == NULL);
    bsolve_gt *gt = (bsolve_gt *)1;
    ck_assert_int_eq(bsolve_gt_create(ctx, BSOLVE_PREC_D, BSOLVE_GTSV_GIVENS, 2, 1, &gt), want);
    ck_assert(gt == NULL);
    double dl[2] = {0, 1}, d[2] = {2, 2}, du[2] = {1, 0};
    const bsolve_tlayout t = bsolve_tlayout_contiguous(2, 2);
    ck_assert_int_eq(bsolve_dgtsv(ctx, BSOLVE_GTSV_PARTIAL, 2, 1, 1, dl, d, du, t, B, t, info), want);
    ck_assert_int_eq(bsolve_dgels(ctx, 2, 2, 1, 1, A, l, B, lb, info), want);
    ck_assert_int_eq(bsolve_dconvert(ctx, 2, 2, 1, A, l, A, l), want);
    ck_assert(B[0] == 1 && B[1] == 2 && info[0] == TL_I32_POISON);
    bsolve_ctx_destroy(ctx);
}

START_TEST(t_force)
{
    find_levels();
    printf("CPU levels run here: default");
    for (int li = 1; li < nlev; li++) printf(", %s", lname[levels[li]]);
    printf("\n");
    for (int l = 1; l <= BSI_CPU_ISA_MAX; l++)
        if (!bsi_cpu_isa_runs(l)) expect_refused(l, BSOLVE_ENOTSUP);
    /* values outside the levels: refused too (a build with one kernel set
     * refuses every value but 0 as unsupported) */
    expect_refused(BSI_CPU_ISA_MAX + 1, bsi_cpu_isa_runs(BSI_CPU_ISA_BASE) ? BSOLVE_EINVAL : BSOLVE_ENOTSUP);
    expect_refused(-1, bsi_cpu_isa_runs(BSI_CPU_ISA_BASE) ? BSOLVE_EINVAL : BSOLVE_ENOTSUP);
#if defined(__x86_64__)
    /* an x86-64 build has the three levels unless ARCH chose one set */
    if (!bsi_cpu_isa_runs(BSI_CPU_ISA_BASE)) printf("NOTE: a build with one CPU kernel set (ARCH)\n");
#endif
}
END_TEST

int main(void)
{
    if (tl_backend() != BSOLVE_BACKEND_CPU) {
        printf("SKIP: the CPU kernels' levels are tested on the CPU backend only\n");
        return 0;
    }
    Suite *s = suite_create("isa");
    TCase *tc = tl_tcase("isa");
    tcase_add_test(tc, t_force);
    tcase_add_test(tc, t_convert);
    tcase_add_loop_test(tc, t_lu, 0, 2 * N_LU_N);
    tcase_add_loop_test(tc, t_qr, 0, 2 * N_QR);
    tcase_add_loop_test(tc, t_gtsv, 0, 2 * N_GT_M);
    suite_add_tcase(s, tc);
    return tl_main(s);
}
