/*
 * test_masked.c -- bsolve_?getrf_masked and bsolve_?getrs_masked.
 *
 * Against the unmasked calls on the same data, on the backend under test:
 *   - a flagged system's info, solution and exported factors (L, U, ipiv,
 *     jpiv) are bit for bit those of ?getrf / ?getrs (the same arithmetic
 *     on each system wherever it sits in a tile or a launch);
 *   - a system with mask 0 keeps everything: its info entry keeps the
 *     poison, its B entries their values (and every gap and guard of the
 *     arrays its sentinel); A is never written;
 *   - factors are kept per system across calls: after a masked getrf of a
 *     first batch with mask m1 and of a second batch with m2, an unmasked
 *     getrs solves the systems of m2 with the second batch's factors, those
 *     of m1 only with the first's, and reports BSOLVE_INFO_NONFINITE with a
 *     NaN solution for the systems that no call factored;
 *   - masks of every density (none, a few, half, most, all; flags of any
 *     nonzero value), every layout of A and B with and without gaps, NONE,
 *     PARTIAL and FULL pivoting, n over the kernels' size classes
 *     (1..128), singular and NaN matrices and an infinity in B among both
 *     the flagged and the other systems, right-hand sides solved in column
 *     blocks (the front end's, forced small);
 *   - bad input (a NULL mask, a factorization that was never factored, the
 *     other precision's routine, a layout too small): the documented
 *     status, a message naming the argument, nothing written;
 *   - on another backend than the CPU's, against the CPU backend's masked
 *     calls: every info entry equal, the flagged systems' exported factors
 *     and pivots the same to rounding (or factors of A all the same) and
 *     their solutions the same to rounding (or both good); the CUDA
 *     backend's gathered masked getrf (cuda/lu_dispatch.cuh's GATHER) on
 *     interleaved A, in the table's segments and in segments of 5 systems.
 * A flagged singular and a flagged NaN system are in every mask that is
 * neither empty nor full.
 */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include "internal.h" /* bsi_test_force */

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bsolve_status getrf_m(bsolve_ctx *ctx, bsolve_precision p, const void *A, bsolve_layout la, bsolve_lu *lu,
                             const uint8_t *mask, int32_t *info)
{
    return p == BSOLVE_PREC_D ? bsolve_dgetrf_masked(ctx, A, la, lu, mask, info)
                              : bsolve_sgetrf_masked(ctx, A, la, lu, mask, info);
}

static bsolve_status getrs_m(bsolve_ctx *ctx, bsolve_precision p, const bsolve_lu *lu, int64_t nrhs, void *B,
                             bsolve_layout lb, const uint8_t *mask, int32_t *info)
{
    return p == BSOLVE_PREC_D ? bsolve_dgetrs_masked(ctx, lu, nrhs, B, lb, mask, info)
                              : bsolve_sgetrs_masked(ctx, lu, nrhs, B, lb, mask, info);
}

/* x and y are the same value (signed zeros apart), or both NaN. */
static int same(double x, double y) { return (x == y && signbit(x) == signbit(y)) || (isnan(x) && isnan(y)); }

/* A mask of density q: 0 none, 1 all, in between random; flags are random
 * nonzero bytes, so that "nonzero" is what counts. */
static uint8_t *make_mask(tl_rng *rng, int64_t batch, double q)
{
    uint8_t *m = malloc(batch > 0 ? (size_t)batch : 1);
    ck_assert(m != NULL);
    for (int64_t k = 0; k < batch; k++) {
        const int on = q >= 1 || (q > 0 && tl_rng_unit(rng) < q);
        m[k] = on ? (uint8_t)tl_rng_int(rng, 1, 255) : 0;
    }
    return m;
}

typedef struct {
    bsolve_precision prec;
    bsolve_pivot pivot;
    int n, nrhs;
    int64_t batch;
    bsolve_layout_kind ka, kb;
    int pad;
    double q1, q2; /* densities of the two factorizations' masks */
    int rhs_block; /* > 0: the front end solves in blocks of that many columns */
    uint64_t seed;
} mcase;

/* A fresh batch of matrices in A (families that pivoting needs or not),
 * with singular (a zero column) and NaN systems among them; returns the
 * dense copies as stored. */
static double *fill_A(tl_buf *A, const mcase *c, tl_rng *rng)
{
    const int n = c->n;
    double *all = malloc((size_t)c->batch * n * n * sizeof *all);
    ck_assert(all != NULL);
    for (int64_t k = 0; k < c->batch; k++) {
        double *a = all + (size_t)k * n * n;
        const tl_family f = c->pivot == BSOLVE_PIVOT_NONE ? TL_FAM_DIAGDOM : (k % 3 ? TL_FAM_RANDOM : TL_FAM_ZEROLEAD);
        tl_gen_matrix(rng, f, n, a);
        if (k % 11 == 3)
            for (int i = 0; i < n; i++) a[i] = 0;
        if (k % 13 == 5) a[n - 1 + (size_t)(n / 2) * n] = NAN;
        tl_buf_put(A, k, a);
        tl_buf_getm(A, k, a);
    }
    return all;
}

static void fill_B(tl_buf *B, const mcase *c, tl_rng *rng)
{
    double *b = malloc((size_t)c->n * c->nrhs * sizeof *b);
    ck_assert(b != NULL);
    for (int64_t k = 0; k < c->batch; k++) {
        tl_gen_uniform(rng, (int64_t)c->n * c->nrhs, b);
        if (k % 17 == 6) b[(size_t)c->n * c->nrhs - 1] = INFINITY;
        tl_buf_put(B, k, b);
    }
    free(b);
}

static bsolve_lu *new_lu(bsolve_ctx *ctx, const mcase *c, const char *desc)
{
    bsolve_lu *lu = NULL;
    bsolve_status st = bsolve_lu_create(ctx, c->prec, c->pivot, c->n, c->batch, &lu);
    ck_assert_msg(st == BSOLVE_SUCCESS && lu, "[%s] lu_create: %s (%s)", desc, tl_status_name(st),
                  bsolve_ctx_message(ctx));
    return lu;
}

/* Unmasked getrf of A into lu; its info. */
static int32_t *factor_all(bsolve_ctx *ctx, const mcase *c, const tl_buf *A, bsolve_lu *lu, const char *desc)
{
    int32_t *info = tl_i32_alloc(c->batch);
    bsolve_status st = tl_getrf(ctx, c->prec, A->data, A->lay, lu, info);
    ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] getrf: %s (%s)", desc, tl_status_name(st), bsolve_ctx_message(ctx));
    return info;
}

/* Unmasked getrs of a copy of B with lu: X and info. */
static int32_t *solve_all(bsolve_ctx *ctx, const mcase *c, const tl_buf *B, const bsolve_lu *lu, tl_buf *X,
                          const char *desc)
{
    int32_t *info = tl_i32_alloc(c->batch);
    tl_buf_clone(B, X);
    bsolve_status st = tl_getrs(ctx, c->prec, lu, c->nrhs, X->data, X->lay, info);
    ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] getrs: %s (%s)", desc, tl_status_name(st), bsolve_ctx_message(ctx));
    return info;
}

/* Every entry of system k of X equals that of Y. */
static int same_system(const tl_buf *X, const tl_buf *Y, int64_t k)
{
    for (int64_t j = 0; j < X->c; j++)
        for (int64_t i = 0; i < X->r; i++)
            if (!same(tl_buf_get(X, i, j, k), tl_buf_get(Y, i, j, k))) return 0;
    return 1;
}

/* The exports of lu: factors (column-major), ipiv, jpiv. */
static void export_all(bsolve_ctx *ctx, const mcase *c, const bsolve_lu *lu, tl_buf *L, int32_t **ip, int32_t **jp,
                       const char *desc)
{
    const int n = c->n;
    bsolve_layout ll = bsolve_layout_col_major(n, (int64_t)n * n);
    tl_buf_alloc(L, c->prec, ll, n, n, c->batch, 0);
    *ip = tl_i32_alloc(c->batch * n);
    *jp = tl_i32_alloc(c->batch * n);
    bsolve_status st = bsolve_lu_export(ctx, lu, L->data, ll, *ip, *jp);
    ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] export: %s (%s)", desc, tl_status_name(st), bsolve_ctx_message(ctx));
}

/* Round 1 against the CPU backend's masked calls on the same A, m1 and B:
 * every system's info of both calls (where m1 flags, the masked getrf's ia
 * and the masked getrs's isa, as run_case checked; elsewhere the poison);
 * for the flagged systems with info 0 the exported factors and pivots
 * (tl_lu_agree against A), and the solutions in X, each entry within
 * rounding of the CPU's or the system's backward-error ratio below
 * TL_BWD_MAX (failed systems: NaN, checked by run_case). */
static void check_vs_cpu(bsolve_ctx *ctx, const mcase *c, const tl_buf *A, const double *Aall, const bsolve_lu *lu,
                         const uint8_t *m1, const int32_t *ia, const int32_t *isa, const tl_buf *B, const tl_buf *X,
                         const char *desc)
{
    const int n = c->n;
    const double eps = tl_eps(c->prec), tol = c->prec == BSOLVE_PREC_D ? 1e-9 : 1e-3;
    bsolve_ctx *cpu = NULL;
    ck_assert(bsolve_ctx_create(&cpu, BSOLVE_BACKEND_CPU) == BSOLVE_SUCCESS);
    bsolve_lu *lc = new_lu(cpu, c, desc);
    int32_t *ic = tl_i32_alloc(c->batch);
    bsolve_status st = getrf_m(cpu, c->prec, A->data, A->lay, lc, m1, ic);
    ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] cpu getrf_masked: %s", desc, tl_status_name(st));
    tl_buf Xc;
    tl_buf_clone(B, &Xc);
    int32_t *isc = tl_i32_alloc(c->batch);
    st = getrs_m(cpu, c->prec, lc, c->nrhs, Xc.data, Xc.lay, m1, isc);
    ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] cpu getrs_masked: %s", desc, tl_status_name(st));
    tl_buf L[2];
    int32_t *ip[2], *jp[2];
    export_all(ctx, c, lu, &L[0], &ip[0], &jp[0], desc);
    export_all(cpu, c, lc, &L[1], &ip[1], &jp[1], desc);
    double *x = malloc((size_t)n * n * sizeof *x), *y = malloc((size_t)n * n * sizeof *y);
    double *b = malloc((size_t)n * c->nrhs * sizeof *b), *s = malloc((size_t)n * c->nrhs * sizeof *s);
    tl_reset();
    for (int64_t k = 0; k < c->batch; k++) {
        const int32_t want = m1[k] ? ia[k] : TL_I32_POISON;
        const int32_t wants = m1[k] ? isa[k] : TL_I32_POISON;
        TL_EXPECT(ic[k] == want && isc[k] == wants,
                  "system %lld (flag %d): getrf_masked info %d, getrs_masked %d; the CPU backend's %d, %d", (long long)k,
                  m1[k], want, wants, ic[k], isc[k]);
        if (!m1[k] || ia[k] != 0) continue;
        tl_buf_getm(&L[0], k, x);
        tl_buf_getm(&L[1], k, y);
        TL_EXPECT(tl_lu_agree(n, Aall + (size_t)k * n * n, x, ip[0] + k * n, jp[0] + k * n, y, ip[1] + k * n,
                              jp[1] + k * n, tol, eps),
                  "system %lld: exported factors off the CPU backend's, and not factors of A", (long long)k);
        if (isa[k] != 0) continue;
        int close = 1;
        for (int64_t j = 0; j < c->nrhs; j++)
            for (int i = 0; i < n; i++) {
                const double u = tl_buf_get(X, i, j, k), v = tl_buf_get(&Xc, i, j, k);
                close &= fabs(u - v) <= tol * (1 + fabs(v));
            }
        if (!close) {
            tl_buf_getm(B, k, b);
            tl_buf_getm(X, k, s);
            TL_EXPECT(tl_backward_ratio(n, c->nrhs, Aall + (size_t)k * n * n, b, s, eps) < TL_BWD_MAX,
                      "system %lld: solution off the CPU backend's and not a solution", (long long)k);
        }
    }
    TL_CLEAN("%s, against the CPU backend", desc);
    free(x);
    free(y);
    free(b);
    free(s);
    for (int t = 0; t < 2; t++) {
        tl_buf_free(&L[t]);
        tl_i32_free(ip[t]);
        tl_i32_free(jp[t]);
    }
    tl_buf_free(&Xc);
    tl_i32_free(ic);
    tl_i32_free(isc);
    bsolve_lu_destroy(lc);
    bsolve_ctx_destroy(cpu);
}

/* Exports of lu and of the references ra (systems of m1 only) and rb
 * (systems of m2): equal entry for entry on the factored systems. */
static void check_export(bsolve_ctx *ctx, const mcase *c, const bsolve_lu *lu, const bsolve_lu *ra,
                         const bsolve_lu *rb, const uint8_t *m1, const uint8_t *m2, const char *desc)
{
    const int n = c->n;
    const int64_t np = c->batch * n;
    bsolve_layout ll = bsolve_layout_col_major(n, (int64_t)n * n);
    tl_buf L[3];
    int32_t *ip[3], *jp[3];
    const bsolve_lu *src[3] = {lu, ra, rb};
    for (int t = 0; t < 3; t++) {
        tl_buf_alloc(&L[t], c->prec, ll, n, n, c->batch, 0);
        ip[t] = tl_i32_alloc(np);
        jp[t] = tl_i32_alloc(np);
        bsolve_status st = bsolve_lu_export(ctx, src[t], L[t].data, ll, ip[t], jp[t]);
        ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] export %d: %s (%s)", desc, t, tl_status_name(st),
                      bsolve_ctx_message(ctx));
    }
    tl_reset();
    for (int64_t k = 0; k < c->batch; k++) {
        const int r = m2[k] ? 2 : m1[k] ? 1 : 0;
        if (!r) continue;
        TL_EXPECT(same_system(&L[0], &L[r], k), "system %lld (mask %s): exported factors differ from getrf's",
                  (long long)k, r == 2 ? "m2" : "m1 only");
        TL_EXPECT(!memcmp(ip[0] + k * n, ip[r] + k * n, (size_t)n * 4) && !memcmp(jp[0] + k * n, jp[r] + k * n, (size_t)n * 4),
                  "system %lld (mask %s): exported pivots differ from getrf's", (long long)k, r == 2 ? "m2" : "m1 only");
    }
    TL_CLEAN("%s, export", desc);
    for (int t = 0; t < 3; t++) {
        tl_buf_free(&L[t]);
        tl_i32_free(ip[t]);
        tl_i32_free(jp[t]);
    }
}

static void run_case(bsolve_ctx *ctx, const mcase *c)
{
    const int n = c->n;
    const double eps = tl_eps(c->prec);
    bsolve_layout la = tl_layout(c->ka, c->pad, n, n, c->batch), lb = tl_layout(c->kb, !c->pad, n, c->nrhs, c->batch);
    char desc[320], sa[64], sb[64], where[200];
    tl_layout_str(la, sa, sizeof sa);
    tl_layout_str(lb, sb, sizeof sb);
    snprintf(desc, sizeof desc, "%s pivot=%s n=%d nrhs=%d batch=%lld A=%s B=%s masks %.2f/%.2f%s seed=%llu",
             tl_prec_name(c->prec), tl_pivot_name(c->pivot), n, c->nrhs, (long long)c->batch, sa, sb, c->q1, c->q2,
             c->rhs_block ? " (rhs blocks)" : "", (unsigned long long)c->seed);
    tl_rng rng;
    tl_rng_seed(&rng, c->seed);
    ck_assert(bsi_test_force(ctx, BSI_FORCE_RHS_BLOCK, c->rhs_block) == BSOLVE_SUCCESS);
    uint8_t *m1 = make_mask(&rng, c->batch, c->q1), *m2 = make_mask(&rng, c->batch, c->q2);
    if (c->q1 > 0 && c->batch > 5) m1[3] = m1[5] = 7; /* fill_A's singular and NaN systems */

    /* round 1: the first batch, factored where m1 flags, then solved there */
    tl_buf A, A0, B, X, Xr;
    tl_buf_alloc(&A, c->prec, la, n, n, c->batch, c->pad);
    double *Aall = fill_A(&A, c, &rng);
    tl_buf_clone(&A, &A0);
    bsolve_lu *ra = new_lu(ctx, c, desc), *rb = new_lu(ctx, c, desc), *lu = new_lu(ctx, c, desc);
    int32_t *ia = factor_all(ctx, c, &A, ra, desc);
    int32_t *info = tl_i32_alloc(c->batch);
    bsolve_status st = getrf_m(ctx, c->prec, A.data, la, lu, m1, info);
    ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] getrf_masked: %s (%s)", desc, tl_status_name(st), bsolve_ctx_message(ctx));
    ck_assert_msg(!strcmp(bsolve_ctx_message(ctx), ""), "[%s] message after success: \"%s\"", desc,
                  bsolve_ctx_message(ctx));
    ck_assert_msg(tl_buf_same(&A, &A0), "[%s] getrf_masked modified A", desc);
    ck_assert_msg(tl_i32_guards_ok(info, c->batch), "[%s] getrf_masked wrote outside info", desc);
    tl_reset();
    for (int64_t k = 0; k < c->batch; k++)
        TL_EXPECT(m1[k] ? info[k] == ia[k] : info[k] == TL_I32_POISON, "system %lld (flag %d): info %d, getrf's %d",
                  (long long)k, m1[k], info[k], ia[k]);
    TL_CLEAN("%s, getrf_masked", desc);

    tl_buf_alloc(&B, c->prec, lb, n, c->nrhs, c->batch, !c->pad);
    fill_B(&B, c, &rng);
    int32_t *isa = solve_all(ctx, c, &B, ra, &Xr, desc);
    tl_buf_clone(&B, &X);
    tl_i32_poison(info, c->batch);
    st = getrs_m(ctx, c->prec, lu, c->nrhs, X.data, lb, m1, info);
    ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] getrs_masked: %s (%s)", desc, tl_status_name(st), bsolve_ctx_message(ctx));
    ck_assert_msg(tl_i32_guards_ok(info, c->batch), "[%s] getrs_masked wrote outside info", desc);
    int64_t bad = tl_buf_bad_padding(&X, where, sizeof where);
    ck_assert_msg(bad == 0, "[%s] getrs_masked: %lld gap or guard elements overwritten; %s", desc, (long long)bad, where);
    double *b = malloc((size_t)n * c->nrhs * sizeof *b), *x = malloc((size_t)n * c->nrhs * sizeof *x);
    tl_reset();
    for (int64_t k = 0; k < c->batch; k++) {
        if (!m1[k]) {
            TL_EXPECT(info[k] == TL_I32_POISON, "getrs_masked wrote info %d of unflagged system %lld", info[k],
                      (long long)k);
            TL_EXPECT(same_system(&X, &B, k), "getrs_masked changed B of unflagged system %lld", (long long)k);
            continue;
        }
        TL_EXPECT(info[k] == isa[k], "system %lld: getrs_masked info %d, getrs's %d", (long long)k, info[k], isa[k]);
        TL_EXPECT(same_system(&X, &Xr, k), "system %lld: getrs_masked solution differs from getrs's", (long long)k);
        if (isa[k] == 0) { /* and it solves the system */
            tl_buf_getm(&B, k, b);
            tl_buf_getm(&X, k, x);
            const double r = tl_backward_ratio(n, c->nrhs, Aall + (size_t)k * n * n, b, x, eps);
            TL_EXPECT(r < TL_BWD_MAX, "system %lld: backward ratio %.3g",
                      (long long)k, r);
        } else {
            tl_buf_getm(&X, k, x);
            TL_EXPECT(tl_all_nan((int64_t)n * c->nrhs, x), "system %lld: info %d but the solution is not NaN",
                      (long long)k, isa[k]);
        }
    }
    TL_CLEAN("%s, getrs_masked", desc);
    if (bsolve_ctx_backend(ctx) != BSOLVE_BACKEND_CPU) check_vs_cpu(ctx, c, &A, Aall, lu, m1, ia, isa, &B, &X, desc);

    /* round 2: a second batch factored where m2 flags; an unmasked solve
     * then meets both batches' factors and unfactored systems */
    tl_buf A2;
    tl_buf_alloc(&A2, c->prec, la, n, n, c->batch, 0);
    double *A2all = fill_A(&A2, c, &rng);
    int32_t *ib = factor_all(ctx, c, &A2, rb, desc);
    tl_i32_poison(info, c->batch);
    st = getrf_m(ctx, c->prec, A2.data, la, lu, m2, info);
    ck_assert_msg(st == BSOLVE_SUCCESS, "[%s] second getrf_masked: %s (%s)", desc, tl_status_name(st),
                  bsolve_ctx_message(ctx));
    tl_reset();
    for (int64_t k = 0; k < c->batch; k++)
        TL_EXPECT(m2[k] ? info[k] == ib[k] : info[k] == TL_I32_POISON, "second getrf_masked: system %lld info %d",
                  (long long)k, info[k]);
    TL_CLEAN("%s, second getrf_masked", desc);
    tl_buf B2, Xa, Xb, Y;
    tl_buf_alloc(&B2, c->prec, lb, n, c->nrhs, c->batch, 0);
    fill_B(&B2, c, &rng);
    int32_t *iya = solve_all(ctx, c, &B2, ra, &Xa, desc), *iyb = solve_all(ctx, c, &B2, rb, &Xb, desc);
    int32_t *iy = solve_all(ctx, c, &B2, lu, &Y, desc);
    tl_reset();
    for (int64_t k = 0; k < c->batch; k++) {
        if (m2[k] || m1[k]) {
            const int32_t want = m2[k] ? iyb[k] : iya[k];
            TL_EXPECT(iy[k] == want, "getrs after two masked getrf: system %lld (%s) info %d, expected %d",
                      (long long)k, m2[k] ? "m2" : "m1 only", iy[k], want);
            TL_EXPECT(same_system(&Y, m2[k] ? &Xb : &Xa, k),
                      "getrs after two masked getrf: system %lld (%s) solution differs", (long long)k,
                      m2[k] ? "m2" : "m1 only");
        } else {
            TL_EXPECT(iy[k] == BSOLVE_INFO_NONFINITE, "never factored system %lld: getrs info %d", (long long)k, iy[k]);
            tl_buf_getm(&Y, k, x);
            TL_EXPECT(tl_all_nan((int64_t)n * c->nrhs, x), "never factored system %lld: solution not NaN",
                      (long long)k);
        }
    }
    TL_CLEAN("%s, getrs after two masked getrf", desc);
    check_export(ctx, c, lu, ra, rb, m1, m2, desc);

    free(b);
    free(x);
    free(Aall);
    free(A2all);
    free(m1);
    free(m2);
    tl_i32_free(ia);
    tl_i32_free(ib);
    tl_i32_free(isa);
    tl_i32_free(iya);
    tl_i32_free(iyb);
    tl_i32_free(iy);
    tl_i32_free(info);
    tl_buf_free(&A);
    tl_buf_free(&A0);
    tl_buf_free(&A2);
    tl_buf_free(&B);
    tl_buf_free(&B2);
    tl_buf_free(&X);
    tl_buf_free(&Xr);
    tl_buf_free(&Xa);
    tl_buf_free(&Xb);
    tl_buf_free(&Y);
    bsolve_lu_destroy(ra);
    bsolve_lu_destroy(rb);
    bsolve_lu_destroy(lu);
    bsi_test_force(ctx, BSI_FORCE_RHS_BLOCK, 0);
}

/* n over the kernels' size classes (CPU: compile-time n up to 16, panels
 * beyond; CUDA: every family of lu_dispatch.cuh's table) */
static const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 24, 32, 33, 40, 48, 54, 64, 65, 100, 128};
static const double densities[][2] = {{0.3, 0.6}, {1, 0.05}, {0, 0.5}, {0.9, 1}, {0.05, 0}, {0.5, 0.5}};

START_TEST(t_masked)
{
    const int n = sizes[_i];
    if (tl_quick() && _i % 4 != 1 && n != 54) return;
    bsolve_ctx *ctx = tl_ctx();
    for (int ip = 0; ip < 2; ip++)
        for (int ipv = 0; ipv < 3; ipv++) {
            const int v = _i + ip + ipv;
            mcase c;
            c.prec = ip ? BSOLVE_PREC_S : BSOLVE_PREC_D;
            c.pivot = (bsolve_pivot)ipv;
            c.n = n;
            c.nrhs = v % 4 == 1 ? 3 : 1;
            c.batch = n <= 16 ? (v % 2 ? 517 : 61) : n <= 64 ? 83 : 29;
            if (tl_quick() && c.batch > 61) c.batch = 61;
            c.ka = (bsolve_layout_kind)(v % 3);
            c.kb = (bsolve_layout_kind)((v + 1 + ip) % 3);
            c.pad = v % 2;
            c.q1 = densities[v % 6][0];
            c.q2 = densities[v % 6][1];
            c.rhs_block = 0;
            c.seed = tl_seed(40, (uint64_t)(n * 8 + ip * 3 + ipv));
            run_case(ctx, &c);
        }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* The gathered masked getrf of the CUDA backend: interleaved A at orders of
 * each kernel it gathers for (TILE 33, PANEL 54 and 100, BLOCK FULL 100,
 * WARP FULL 33), sparse and dense masks, the table's segments and segments
 * of 5 systems (the list's last segments then empty). */
START_TEST(t_gathered)
{
    static const int ns[] = {33, 54, 100};
    static const double qs[][2] = {{0.05, 0.6}, {0.25, 1}, {0.6, 0.05}, {1, 0.25}};
    const int n = ns[_i];
    if (tl_quick() && n != 54) return;
    bsolve_ctx *ctx = tl_ctx();
    for (int ip = 0; ip < 2; ip++)
        for (int ipv = 0; ipv < 3; ipv++) {
            const int v = _i + 2 * ip + ipv;
            ck_assert(bsi_test_force(ctx, BSI_FORCE_LU_GATHER, v % 2 ? 5 : 0) == BSOLVE_SUCCESS);
            mcase c = {ip ? BSOLVE_PREC_S : BSOLVE_PREC_D, (bsolve_pivot)ipv, n, v % 3 == 1 ? 2 : 1,
                       tl_quick() ? 41 : 83, BSOLVE_INTERLEAVED, (bsolve_layout_kind)(v % 3), v % 2, qs[v % 4][0],
                       qs[v % 4][1], 0, tl_seed(43, (uint64_t)(n * 8 + ip * 3 + ipv))};
            run_case(ctx, &c);
        }
    bsi_test_force(ctx, BSI_FORCE_LU_GATHER, 0);
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* Right-hand sides in column blocks of the front end (forced to 2 columns):
 * the blocks' info merged and failed systems NaN-filled on the flagged
 * systems only. */
START_TEST(t_rhs_blocks)
{
    bsolve_ctx *ctx = tl_ctx();
    static const int ns[] = {3, 12, 40};
    for (int t = 0; t < 3; t++)
        for (int ip = 0; ip < 2; ip++) {
            mcase c = {ip ? BSOLVE_PREC_S : BSOLVE_PREC_D, (bsolve_pivot)((t + ip) % 3), ns[t], 5, 77,
                       (bsolve_layout_kind)((t + ip) % 3), (bsolve_layout_kind)((t + 2) % 3), ip,
                       densities[t + ip][0], densities[t + ip][1], 2, tl_seed(41, (uint64_t)(t * 2 + ip))};
            run_case(ctx, &c);
        }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* Bad arguments: status, message, nothing written. */
START_TEST(t_args)
{
    bsolve_ctx *ctx = tl_ctx();
    const int n = 4;
    const int64_t batch = 9;
    tl_rng rng;
    tl_rng_seed(&rng, tl_seed(42, 0));
    double A[9 * 16], B[9 * 4], B0[9 * 4];
    float As[9 * 16];
    for (int k = 0; k < 9; k++) tl_gen_matrix(&rng, TL_FAM_DIAGDOM, n, A + k * 16);
    for (int t = 0; t < 9 * 16; t++) As[t] = (float)A[t];
    for (int t = 0; t < 9 * 4; t++) B[t] = B0[t] = tl_rng_uniform(&rng);
    bsolve_layout la = bsolve_layout_col_major(n, n * n), lb = bsolve_layout_col_major(n, n);
    uint8_t mask[9] = {1, 0, 1, 1, 0, 0, 1, 0, 1};
    int32_t *info = tl_i32_alloc(batch);
    bsolve_lu *lu = NULL, *lus = NULL;
    ck_assert_int_eq(bsolve_lu_create(ctx, BSOLVE_PREC_D, BSOLVE_PIVOT_PARTIAL, n, batch, &lu), BSOLVE_SUCCESS);
    ck_assert_int_eq(bsolve_lu_create(ctx, BSOLVE_PREC_S, BSOLVE_PIVOT_PARTIAL, n, batch, &lus), BSOLVE_SUCCESS);

    /* getrs_masked before any getrf */
    bsolve_status st = bsolve_dgetrs_masked(ctx, lu, 1, B, lb, mask, info);
    ck_assert_msg(st == BSOLVE_EINVAL && tl_has_word(bsolve_ctx_message(ctx), "bsolve_dgetrs_masked"),
                  "getrs_masked of an unfactored lu: %s (%s)", tl_status_name(st), bsolve_ctx_message(ctx));
    /* NULL mask */
    st = bsolve_dgetrf_masked(ctx, A, la, lu, NULL, info);
    ck_assert_msg(st == BSOLVE_ENULL && tl_has_word(bsolve_ctx_message(ctx), "mask"),
                  "getrf_masked with mask NULL: %s (%s)", tl_status_name(st), bsolve_ctx_message(ctx));
    st = bsolve_dgetrs(ctx, lu, 1, B, lb, info); /* the failed call factored nothing */
    ck_assert_msg(st == BSOLVE_EINVAL, "getrs after a failed getrf_masked: %s", tl_status_name(st));
    /* the other precision, an interleaved ld below the batch */
    st = bsolve_dgetrf_masked(ctx, A, la, lus, mask, info);
    ck_assert_msg(st == BSOLVE_EMISMATCH, "dgetrf_masked on a float lu: %s", tl_status_name(st));
    st = bsolve_sgetrf_masked(ctx, As, bsolve_layout_interleaved(batch - 1), lus, mask, info);
    ck_assert_msg(st == BSOLVE_EINVAL && tl_has_word(bsolve_ctx_message(ctx), "A"),
                  "sgetrf_masked with ld = batch - 1: %s (%s)", tl_status_name(st), bsolve_ctx_message(ctx));
    for (int64_t k = 0; k < batch; k++) ck_assert_msg(info[k] == TL_I32_POISON, "a refused call wrote info");

    ck_assert_int_eq(bsolve_dgetrf_masked(ctx, A, la, lu, mask, info), BSOLVE_SUCCESS);
    tl_i32_poison(info, batch);
    st = bsolve_dgetrs_masked(ctx, lu, 1, B, lb, NULL, info);
    ck_assert_msg(st == BSOLVE_ENULL && tl_has_word(bsolve_ctx_message(ctx), "mask"),
                  "getrs_masked with mask NULL: %s (%s)", tl_status_name(st), bsolve_ctx_message(ctx));
    st = bsolve_dgetrs_masked(ctx, lu, 0, B, lb, mask, info);
    ck_assert_msg(st == BSOLVE_EINVAL && tl_has_word(bsolve_ctx_message(ctx), "nrhs"), "getrs_masked nrhs = 0: %s",
                  tl_status_name(st));
    st = bsolve_sgetrs_masked(ctx, lu, 1, (float *)B, lb, mask, info);
    ck_assert_msg(st == BSOLVE_EMISMATCH, "sgetrs_masked on a double lu: %s", tl_status_name(st));
    st = bsolve_dgetrs_masked(ctx, lu, 1, B, bsolve_layout_interleaved(batch - 1), mask, info);
    ck_assert_msg(st == BSOLVE_EINVAL && tl_has_word(bsolve_ctx_message(ctx), "B"), "getrs_masked ld = batch - 1: %s",
                  tl_status_name(st));
    ck_assert_msg(memcmp(B, B0, sizeof B) == 0, "a refused getrs_masked wrote B");
    for (int64_t k = 0; k < batch; k++) ck_assert_msg(info[k] == TL_I32_POISON, "a refused call wrote info");

    /* info may be NULL, as for getrs; then every flagged system is solved */
    st = bsolve_dgetrs_masked(ctx, lu, 1, B, lb, mask, NULL);
    ck_assert_msg(st == BSOLVE_SUCCESS, "getrs_masked with info NULL: %s (%s)", tl_status_name(st),
                  bsolve_ctx_message(ctx));
    for (int k = 0; k < 9; k++) {
        if (!mask[k]) {
            ck_assert_msg(memcmp(B + 4 * k, B0 + 4 * k, 4 * sizeof *B) == 0, "unflagged system %d written", k);
            continue;
        }
        const double r = tl_backward_ratio(n, 1, A + 16 * k, B0 + 4 * k, B + 4 * k, DBL_EPSILON);
        ck_assert_msg(r < TL_BWD_MAX, "system %d: backward ratio %g", k, r);
    }
    /* an empty batch takes a NULL mask, as getrf takes NULL arrays */
    bsolve_lu *l0 = NULL;
    ck_assert_int_eq(bsolve_lu_create(ctx, BSOLVE_PREC_D, BSOLVE_PIVOT_PARTIAL, n, 0, &l0), BSOLVE_SUCCESS);
    ck_assert_int_eq(bsolve_dgetrf_masked(ctx, NULL, la, l0, NULL, NULL), BSOLVE_SUCCESS);
    ck_assert_int_eq(bsolve_dgetrs_masked(ctx, l0, 1, NULL, lb, NULL, NULL), BSOLVE_SUCCESS);
    bsolve_lu_destroy(l0);
    bsolve_lu_destroy(lu);
    bsolve_lu_destroy(lus);
    tl_i32_free(info);
    bsolve_ctx_destroy(ctx);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("masked");
    TCase *tc = tl_tcase("masked");
    tcase_add_loop_test(tc, t_masked, 0, (int)(sizeof sizes / sizeof *sizes));
    suite_add_tcase(s, tc);
    tc = tl_tcase("gathered");
    tcase_add_loop_test(tc, t_gathered, 0, 3);
    suite_add_tcase(s, tc);
    tc = tl_tcase("rhs_blocks");
    tcase_add_test(tc, t_rhs_blocks);
    suite_add_tcase(s, tc);
    tc = tl_tcase("args");
    tcase_add_test(tc, t_args);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tl_main(suite()); }
