/*
 * test_getrf.c -- bsolve_lu_create, bsolve_?getrf, bsolve_?getrs, bsolve_lu_export.
 *
 * One factorization, several solves with fresh right-hand sides (nrhs and
 * layouts varied), each checked by the backward-error ratio; exported factors
 * reconstruct P A Q = L U; exported pivots equal LAPACK's (dgetrf for
 * PARTIAL, dgetc2 for FULL, identity for NONE) on random matrices without
 * ties; factorization objects are reused for a second matrix; a factorization
 * used with the other precision's routine, or with another context, is
 * refused with BSOLVE_EMISMATCH.
 */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    bsolve_precision prec;
    bsolve_pivot pivot;
    int n;
    int64_t batch;
    bsolve_layout_kind ka, kl; /* A's layout, the export layout */
    int pad;
    uint64_t seed;
    int dominant; /* diagonally dominant systems but one row-permuted system in 32 */
} fcase;

static tl_family fam_of(const fcase *c, int64_t k)
{
    bsolve_pivot p = c->pivot;
    if (c->dominant) return k % 32 == 5 ? TL_FAM_PERMDOM : TL_FAM_DIAGDOM;
    if (p == BSOLVE_PIVOT_NONE) return (k % 2) ? TL_FAM_DIAGDOM_ROWSCALED : TL_FAM_DIAGDOM;
    static const tl_family f[] = {TL_FAM_RANDOM, TL_FAM_RANDOM, TL_FAM_ZEROLEAD, TL_FAM_PERMDOM,
                                  TL_FAM_ROWSCALED};
    return f[k % 5];
}

/* Fills A with a fresh batch; returns the dense copies (batch * n * n). */
static double *fill_A(tl_buf *A, const fcase *c, tl_rng *rng)
{
    int n = c->n;
    double *all = malloc((size_t)c->batch * n * n * sizeof *all);
    ck_assert(all != NULL);
    for (int64_t k = 0; k < c->batch; k++) {
        double *a = all + (size_t)k * n * n;
        tl_gen_matrix(rng, fam_of(c, k), n, a);
        tl_buf_put(A, k, a);
        tl_buf_getm(A, k, a); /* the values as stored (float-rounded for s) */
    }
    return all;
}

/* Solves `rounds` times with fresh B on lu; checks every system. */
static void check_solves(bsolve_ctx *ctx, const fcase *c, bsolve_lu *lu, const double *Aall,
                         tl_rng *rng, const char *desc, int rounds)
{
    int n = c->n;
    double eps = tl_eps(c->prec);
    static const int nrhs_list[] = {1, 3, 8, 2, 5};
    for (int t = 0; t < rounds; t++) {
        int nrhs = nrhs_list[(t + c->n) % 5];
        bsolve_layout_kind kb = (bsolve_layout_kind)((t + c->ka + 1) % 3);
        bsolve_layout lb = tl_layout(kb, (t + c->pad) % 2, n, nrhs, c->batch);
        tl_buf B, B0;
        tl_buf_alloc(&B, c->prec, lb, n, nrhs, c->batch, t % 2);
        double *b = malloc((size_t)n * nrhs * sizeof *b), *x = malloc((size_t)n * nrhs * sizeof *x);
        for (int64_t k = 0; k < c->batch; k++) {
            tl_gen_uniform(rng, (int64_t)n * nrhs, b);
            tl_buf_put(&B, k, b);
        }
        tl_buf_clone(&B, &B0);
        int use_info = t != 1; /* info may be NULL */
        int32_t *info = tl_i32_alloc(c->batch);
        bsolve_status st = tl_getrs(ctx, c->prec, lu, nrhs, B.data, lb, use_info ? info : NULL);
        char sb[64], where[200];
        tl_layout_str(lb, sb, sizeof sb);
        ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] getrs #%d nrhs=%d B=%s: status %s (%s)", desc, t,
                      nrhs, sb, tl_status_name(st), bsolve_ctx_message(ctx));
        ck_assert_msg(!strcmp(bsolve_ctx_message(ctx), ""), "[%s] message after success: \"%s\"",
                      desc, bsolve_ctx_message(ctx));
        int64_t bad = tl_buf_bad_padding(&B, where, sizeof where);
        ck_assert_msg(bad == 0, "[%s] getrs #%d B=%s: %lld padding elements overwritten; %s", desc,
                      t, sb, (long long)bad, where);
        ck_assert_msg(tl_i32_guards_ok(info, c->batch), "[%s] getrs wrote outside info", desc);
        tl_reset();
        for (int64_t k = 0; k < c->batch; k++) {
            if (use_info)
                TL_EXPECT(info[k] == 0, "getrs #%d: system %lld info %d", t, (long long)k, info[k]);
            else
                TL_EXPECT(info[k] == TL_I32_POISON, "getrs with info=NULL wrote info");
            tl_buf_getm(&B0, k, b);
            tl_buf_getm(&B, k, x);
            double r = tl_backward_ratio(n, nrhs, Aall + (size_t)k * n * n, b, x, eps);
            TL_EXPECT(r < TL_BWD_MAX, "getrs #%d nrhs=%d B=%s: system %lld (%s) backward ratio %.3g",
                      t, nrhs, sb, (long long)k, tl_family_name(fam_of(c, k)), r);
        }
        TL_CLEAN("%s, getrs #%d nrhs=%d B=%s", desc, t, nrhs, sb);
        free(b);
        free(x);
        tl_i32_free(info);
        tl_buf_free(&B);
        tl_buf_free(&B0);
    }
}

/* Exports and checks factors and pivots. */
static void check_export(bsolve_ctx *ctx, const fcase *c, bsolve_lu *lu, const double *Aall,
                         const char *desc)
{
    int n = c->n;
    double eps = tl_eps(c->prec);
    bsolve_layout ll = tl_layout(c->kl, !c->pad, n, n, c->batch);
    tl_buf LU;
    tl_buf_alloc(&LU, c->prec, ll, n, n, c->batch, c->pad);
    int64_t np = c->batch * n;
    int32_t *ipiv = tl_i32_alloc(np), *jpiv = tl_i32_alloc(np);
    char sl[64], where[200];
    tl_layout_str(ll, sl, sizeof sl);
    bsolve_status st = bsolve_lu_export(ctx, lu, LU.data, ll, ipiv, jpiv);
    ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] export to %s: status %s (%s)", desc, sl,
                  tl_status_name(st), bsolve_ctx_message(ctx));
    int64_t bad = tl_buf_unwritten(&LU, where, sizeof where);
    ck_assert_msg(bad == 0, "[%s] export to %s: %lld entries not written; %s", desc, sl,
                  (long long)bad, where);
    bad = tl_buf_bad_padding(&LU, where, sizeof where);
    ck_assert_msg(bad == 0, "[%s] export to %s: %lld padding elements overwritten; %s", desc, sl,
                  (long long)bad, where);
    ck_assert_msg(tl_i32_guards_ok(ipiv, np) && tl_i32_guards_ok(jpiv, np),
                  "[%s] export wrote outside ipiv/jpiv[0..batch*n)", desc);

    /* the pivots alone, LU and jpiv skipped */
    int32_t *ipiv2 = tl_i32_alloc(np);
    st = bsolve_lu_export(ctx, lu, NULL, ll, ipiv2, NULL);
    ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] export(LU=NULL, jpiv=NULL): status %s (%s)", desc,
                  tl_status_name(st), bsolve_ctx_message(ctx));
    ck_assert_msg(memcmp(ipiv, ipiv2, (size_t)np * sizeof *ipiv) == 0,
                  "[%s] ipiv differs between two exports", desc);

    double *f = malloc((size_t)n * n * sizeof *f), *ref = malloc((size_t)n * n * sizeof *ref);
    int32_t *rip = malloc((size_t)n * sizeof *rip), *rjp = malloc((size_t)n * sizeof *rjp);
    tl_reset();
    for (int64_t k = 0; k < c->batch; k++) {
        const double *a = Aall + (size_t)k * n * n;
        const int32_t *ip = ipiv + k * n, *jp = jpiv + k * n;
        tl_buf_getm(&LU, k, f);
        for (int i = 0; i < n; i++) {
            TL_EXPECT(ip[i] >= i + 1 && ip[i] <= n, "system %lld: ipiv[%d] = %d not in %d..%d",
                      (long long)k, i, ip[i], i + 1, n);
            TL_EXPECT(jp[i] >= i + 1 && jp[i] <= n, "system %lld: jpiv[%d] = %d not in %d..%d",
                      (long long)k, i, jp[i], i + 1, n);
            if (c->pivot != BSOLVE_PIVOT_FULL)
                TL_EXPECT(jp[i] == i + 1, "system %lld: pivot %s but jpiv[%d] = %d", (long long)k,
                          tl_pivot_name(c->pivot), i, jp[i]);
            if (c->pivot == BSOLVE_PIVOT_NONE)
                TL_EXPECT(ip[i] == i + 1, "system %lld: pivot none but ipiv[%d] = %d",
                          (long long)k, i, ip[i]);
        }
        if (tl_nfail()) break;
        double q = tl_lu_ratio(n, a, f, ip, jp, eps);
        TL_EXPECT(q < TL_BWD_MAX, "system %lld (%s): ||P A Q - L U|| / (n eps ||A||) = %.3g",
                  (long long)k, tl_family_name(fam_of(c, k)), q);
        if (c->pivot != BSOLVE_PIVOT_NONE) {
            /* partial and complete pivoting: every multiplier |l_ij| <= 1 */
            double lmax = 0;
            for (int j = 0; j < n; j++)
                for (int i = j + 1; i < n; i++) lmax = fmax(lmax, fabs(f[i + (size_t)j * n]));
            TL_EXPECT(lmax <= 1.0, "system %lld: pivot %s but max |L(i,j)| = %.17g > 1",
                      (long long)k, tl_pivot_name(c->pivot), lmax);
        }
        if (c->pivot == BSOLVE_PIVOT_FULL)
            for (int i = 0; i < n; i++)
                for (int j = i + 1; j < n; j++)
                    TL_EXPECT(fabs(f[i + (size_t)j * n]) <= fabs(f[i + (size_t)i * n]),
                              "system %lld: full pivoting but |U(%d,%d)| = %.6g > |U(%d,%d)| = %.6g",
                              (long long)k, i, j, fabs(f[i + (size_t)j * n]), i, i,
                              fabs(f[i + (size_t)i * n]));
        /* pivot choice against LAPACK (double: no near-ties at the reference's rounding) */
        if (c->prec == BSOLVE_PREC_D && c->pivot == BSOLVE_PIVOT_PARTIAL) {
            int rinfo = tl_ref_getrf(n, a, ref, rip);
            TL_EXPECT(rinfo == 0, "dgetrf info %d", rinfo);
            for (int i = 0; i < n; i++)
                TL_EXPECT(ip[i] == rip[i], "system %lld (%s): ipiv[%d] = %d, LAPACK dgetrf: %d",
                          (long long)k, tl_family_name(fam_of(c, k)), i, ip[i], rip[i]);
        }
        if (c->prec == BSOLVE_PREC_D && c->pivot == BSOLVE_PIVOT_FULL) {
            int rinfo = tl_ref_getc2_factor(n, a, ref, rip, rjp);
            TL_EXPECT(rinfo == 0, "dgetc2 info %d", rinfo);
            for (int i = 0; i < n; i++) {
                TL_EXPECT(ip[i] == rip[i], "system %lld (%s): ipiv[%d] = %d, LAPACK dgetc2: %d",
                          (long long)k, tl_family_name(fam_of(c, k)), i, ip[i], rip[i]);
                TL_EXPECT(jp[i] == rjp[i], "system %lld (%s): jpiv[%d] = %d, LAPACK dgetc2: %d",
                          (long long)k, tl_family_name(fam_of(c, k)), i, jp[i], rjp[i]);
            }
        }
    }
    TL_CLEAN("%s, export to %s", desc, sl);
    free(f);
    free(ref);
    free(rip);
    free(rjp);
    tl_i32_free(ipiv);
    tl_i32_free(ipiv2);
    tl_i32_free(jpiv);
    tl_buf_free(&LU);
}

static void run_case(bsolve_ctx *ctx, const fcase *c)
{
    int n = c->n;
    bsolve_layout la = tl_layout(c->ka, c->pad, n, n, c->batch);
    char desc[300], sa[64];
    tl_layout_str(la, sa, sizeof sa);
    snprintf(desc, sizeof desc, "%sgetrf pivot=%s n=%d batch=%lld A=%s seed=%llu",
             tl_prec_name(c->prec), tl_pivot_name(c->pivot), n, (long long)c->batch, sa,
             (unsigned long long)c->seed);
    tl_rng rng;
    tl_rng_seed(&rng, c->seed);

    bsolve_lu *lu = NULL;
    bsolve_status st = bsolve_lu_create(ctx, c->prec, c->pivot, n, c->batch, &lu);
    ck_assert_msg(st == BSOLVE_SUCCESS && lu, "[%s] lu_create: %s (%s)", desc, tl_status_name(st),
                  bsolve_ctx_message(ctx));
    ck_assert_msg(bsolve_lu_n(lu) == n && bsolve_lu_batch(lu) == c->batch &&
                      bsolve_lu_pivot(lu) == c->pivot && bsolve_lu_precision(lu) == c->prec,
                  "[%s] lu shape queries: n=%lld batch=%lld pivot=%d prec=%d", desc,
                  (long long)bsolve_lu_n(lu), (long long)bsolve_lu_batch(lu), (int)bsolve_lu_pivot(lu),
                  (int)bsolve_lu_precision(lu));

    for (int round = 0; round < 2; round++) { /* the second round reuses lu for a new A */
        tl_buf A, A0;
        tl_buf_alloc(&A, c->prec, la, n, n, c->batch, round);
        double *Aall = fill_A(&A, c, &rng);
        tl_buf_clone(&A, &A0);
        int32_t *info = tl_i32_alloc(c->batch);
        st = tl_getrf(ctx, c->prec, A.data, la, lu, info);
        ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] getrf round %d: %s (%s)", desc, round,
                      tl_status_name(st), bsolve_ctx_message(ctx));
        ck_assert_msg(!strcmp(bsolve_ctx_message(ctx), ""), "[%s] message after success: \"%s\"",
                      desc, bsolve_ctx_message(ctx));
        ck_assert_msg(tl_buf_same(&A, &A0), "[%s] getrf modified A", desc);
        ck_assert_msg(tl_i32_guards_ok(info, c->batch), "[%s] getrf wrote outside info", desc);
        tl_reset();
        for (int64_t k = 0; k < c->batch; k++)
            TL_EXPECT(info[k] == 0, "system %lld: getrf info %d", (long long)k, info[k]);
        TL_CLEAN("%s, getrf round %d", desc, round);

        check_solves(ctx, c, lu, Aall, &rng, desc, round == 0 ? 3 : 1);
        check_export(ctx, c, lu, Aall, desc);
        free(Aall);
        tl_i32_free(info);
        tl_buf_free(&A);
        tl_buf_free(&A0);
    }
    bsolve_lu_destroy(lu);
}

static const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 40, 47, 64, 65, 100, 127, 128};

START_TEST(t_getrf)
{
    int n = sizes[_i];
    if (tl_quick() && _i % 4 != 1 && n != 128) return;
    bsolve_ctx *ctx = tl_ctx();
    for (int ip = 0; ip < 2; ip++)
        for (int ipv = 0; ipv < 3; ipv++) {
            fcase c;
            int v = _i + ip + ipv;
            c.prec = ip ? BSOLVE_PREC_S : BSOLVE_PREC_D;
            c.pivot = (bsolve_pivot)ipv;
            c.n = n;
            c.batch = n <= 40 ? (v % 3 == 0 ? 7 : v % 3 == 1 ? 1000 : 1) : n <= 65 ? 150 : 24;
            if (n <= 4 && v % 3 == 2) c.batch = 10007;
            if (tl_quick() && c.batch > 50) c.batch = 50;
            c.ka = (bsolve_layout_kind)(v % 3);
            c.kl = (bsolve_layout_kind)((v / 3 + ip) % 3);
            c.pad = v % 2;
            c.seed = tl_seed(10, (uint64_t)(n * 8 + ip * 3 + ipv));
            c.dominant = 0;
            run_case(ctx, &c);
        }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* Partial pivoting where whole tiles of systems keep every pivot on the
 * diagonal (the kernels then skip the steps' row interchanges) and tiles
 * where one system of the tile needs interchanges at some steps: ipiv as
 * LAPACK's, every solve and export still right. */
static const int dominant_n[] = {24, 48, 64, 100, 128};

START_TEST(t_dominant)
{
    int n = dominant_n[_i];
    if (tl_quick() && n != 48) return;
    bsolve_ctx *ctx = tl_ctx();
    for (int ip = 0; ip < 2; ip++) {
        fcase c = {ip ? BSOLVE_PREC_S : BSOLVE_PREC_D, BSOLVE_PIVOT_PARTIAL, n, 70,
                   (bsolve_layout_kind)((_i + ip) % 3), (bsolve_layout_kind)(ip % 3), (_i + ip) % 2,
                   tl_seed(12, (uint64_t)(n * 2 + ip)), 1};
        run_case(ctx, &c);
    }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* Every export layout, tight and padded. */
START_TEST(t_export_layouts)
{
    bsolve_ctx *ctx = tl_ctx();
    for (int kl = 0; kl < 3; kl++)
        for (int pad = 0; pad < 2; pad++)
            for (int ip = 0; ip < 2; ip++) {
                fcase c = {ip ? BSOLVE_PREC_S : BSOLVE_PREC_D, (bsolve_pivot)((kl + pad) % 3), 11, 45,
                           (bsolve_layout_kind)((kl + 1) % 3), (bsolve_layout_kind)kl, pad,
                           tl_seed(11, (uint64_t)(kl * 4 + pad * 2 + ip)), 0};
                run_case(ctx, &c);
            }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* Precision of the factorization object vs the routine's letter; another context. */
START_TEST(t_mismatch)
{
    bsolve_ctx *ctx = tl_ctx();
    const int n = 4;
    const int64_t batch = 9;
    tl_rng rng;
    tl_rng_seed(&rng, tl_seed(12, 0));
    double Ad[9 * 16], Bd[9 * 4];
    float As[9 * 16], Bs[9 * 4];
    for (int k = 0; k < 9; k++) tl_gen_matrix(&rng, TL_FAM_DIAGDOM, n, Ad + k * 16);
    for (int t = 0; t < 9 * 16; t++) As[t] = (float)Ad[t];
    for (int t = 0; t < 9 * 4; t++) Bs[t] = (float)(Bd[t] = tl_rng_uniform(&rng));
    bsolve_layout la = bsolve_layout_col_major(n, n * n), lb = bsolve_layout_col_major(n, n);
    int32_t info[9];
    bsolve_lu *lus = NULL, *lud = NULL;
    for (int pv = 0; pv < 3; pv++) {
        ck_assert_int_eq(bsolve_lu_create(ctx, BSOLVE_PREC_S, (bsolve_pivot)pv, n, batch, &lus), BSOLVE_SUCCESS);
        ck_assert_int_eq(bsolve_lu_create(ctx, BSOLVE_PREC_D, (bsolve_pivot)pv, n, batch, &lud), BSOLVE_SUCCESS);
        bsolve_status st = bsolve_dgetrf(ctx, Ad, la, lus, info);
        ck_assert_msg(st == BSOLVE_EMISMATCH, "dgetrf on a PREC_S factorization: %s", tl_status_name(st));
        ck_assert_msg(strlen(bsolve_ctx_message(ctx)) > 0, "EMISMATCH without a message");
        st = bsolve_sgetrf(ctx, As, la, lud, info);
        ck_assert_msg(st == BSOLVE_EMISMATCH, "sgetrf on a PREC_D factorization: %s", tl_status_name(st));
        ck_assert_msg(strlen(bsolve_ctx_message(ctx)) > 0, "EMISMATCH without a message");
        /* correct letters factor fine; then getrs letters crossed */
        ck_assert_int_eq(bsolve_sgetrf(ctx, As, la, lus, info), BSOLVE_SUCCESS);
        ck_assert_int_eq(bsolve_dgetrf(ctx, Ad, la, lud, info), BSOLVE_SUCCESS);
        double Bd2[9 * 4];
        float Bs2[9 * 4];
        memcpy(Bd2, Bd, sizeof Bd2);
        memcpy(Bs2, Bs, sizeof Bs2);
        st = bsolve_dgetrs(ctx, lus, 1, Bd2, lb, info);
        ck_assert_msg(st == BSOLVE_EMISMATCH, "dgetrs with a PREC_S factorization: %s", tl_status_name(st));
        ck_assert_msg(memcmp(Bd2, Bd, sizeof Bd2) == 0, "failed dgetrs wrote B");
        st = bsolve_sgetrs(ctx, lud, 1, Bs2, lb, info);
        ck_assert_msg(st == BSOLVE_EMISMATCH, "sgetrs with a PREC_D factorization: %s", tl_status_name(st));
        ck_assert_msg(memcmp(Bs2, Bs, sizeof Bs2) == 0, "failed sgetrs wrote B");
        /* B with another batch count than the factorization: an interleaved ld too small */
        st = bsolve_dgetrs(ctx, lud, 1, Bd2, bsolve_layout_interleaved(batch - 1), info);
        ck_assert_msg(st == BSOLVE_EINVAL, "dgetrs with interleaved ld = batch-1: %s", tl_status_name(st));
        /* the good calls still work and solve */
        st = bsolve_dgetrs(ctx, lud, 1, Bd2, lb, info);
        ck_assert_msg(st == BSOLVE_SUCCESS, "dgetrs: %s (%s)", tl_status_name(st), bsolve_ctx_message(ctx));
        st = bsolve_sgetrs(ctx, lus, 1, Bs2, lb, info);
        ck_assert_msg(st == BSOLVE_SUCCESS, "sgetrs: %s (%s)", tl_status_name(st), bsolve_ctx_message(ctx));
        for (int k = 0; k < 9; k++) {
            double xs[4];
            for (int i = 0; i < 4; i++) xs[i] = Bs2[k * 4 + i];
            double bs[4];
            for (int i = 0; i < 4; i++) bs[i] = Bs[k * 4 + i];
            double as[16];
            for (int i = 0; i < 16; i++) as[i] = As[k * 16 + i];
            double r1 = tl_backward_ratio(n, 1, Ad + k * 16, Bd + k * 4, Bd2 + k * 4, DBL_EPSILON);
            double r2 = tl_backward_ratio(n, 1, as, bs, xs, FLT_EPSILON);
            ck_assert_msg(r1 < TL_BWD_MAX && r2 < TL_BWD_MAX, "pivot %d system %d: ratios %g %g",
                          pv, k, r1, r2);
        }
        bsolve_lu_destroy(lus);
        bsolve_lu_destroy(lud);
        lus = lud = NULL;
    }
    bsolve_lu_destroy(NULL); /* accepted */
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* The header: BSOLVE_EMISMATCH when "an object was made by another context". */
START_TEST(t_other_context)
{
    bsolve_ctx *ctx = tl_ctx(), *ctx2 = tl_ctx();
    const int n = 3;
    double A[2 * 9] = {4, 1, 0, 1, 4, 1, 0, 1, 4, 2, -1, 0, -1, 2, -1, 0, -1, 2};
    double B[2 * 3] = {1, 2, 3, 4, 5, 6}, B0[6];
    memcpy(B0, B, sizeof B);
    int32_t info[2];
    bsolve_lu *lu = NULL;
    ck_assert_int_eq(bsolve_lu_create(ctx, BSOLVE_PREC_D, BSOLVE_PIVOT_PARTIAL, n, 2, &lu), BSOLVE_SUCCESS);
    bsolve_layout la = bsolve_layout_col_major(n, n * n), lb = bsolve_layout_col_major(n, n);
    bsolve_status st = bsolve_dgetrf(ctx2, A, la, lu, info);
    ck_assert_msg(st == BSOLVE_EMISMATCH,
                  "dgetrf on ctx2 with a factorization made by ctx: %s, expected EMISMATCH", tl_status_name(st));
    ck_assert_msg(strlen(bsolve_ctx_message(ctx2)) > 0, "EMISMATCH without a message");
    ck_assert_int_eq(bsolve_dgetrf(ctx, A, la, lu, info), BSOLVE_SUCCESS);
    st = bsolve_dgetrs(ctx2, lu, 1, B, lb, info);
    ck_assert_msg(st == BSOLVE_EMISMATCH,
                  "dgetrs on ctx2 with a factorization made by ctx: %s, expected EMISMATCH", tl_status_name(st));
    ck_assert_msg(memcmp(B, B0, sizeof B) == 0, "failed dgetrs wrote B");
    int32_t ipiv[6];
    st = bsolve_lu_export(ctx2, lu, NULL, la, ipiv, NULL);
    ck_assert_msg(st == BSOLVE_EMISMATCH,
                  "lu_export on ctx2 of a factorization made by ctx: %s, expected EMISMATCH", tl_status_name(st));
    bsolve_lu_destroy(lu);
    bsolve_ctx_destroy(ctx);
    bsolve_ctx_destroy(ctx2);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("getrf");
    TCase *tc = tl_tcase("getrf_getrs_export");
    tcase_add_loop_test(tc, t_getrf, 0, (int)(sizeof sizes / sizeof *sizes));
    suite_add_tcase(s, tc);
    tc = tl_tcase("export_layouts");
    tcase_add_test(tc, t_export_layouts);
    tcase_add_loop_test(tc, t_dominant, 0, (int)(sizeof dominant_n / sizeof *dominant_n));
    suite_add_tcase(s, tc);
    tc = tl_tcase("mismatch");
    tcase_add_test(tc, t_mismatch);
    suite_add_tcase(s, tc);
    tc = tl_tcase("other_context");
    tcase_add_test(tc, t_other_context);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tl_main(suite()); }
