/*
 * test_gesv.c -- bsolve_dgesv / bsolve_sgesv: every pivoting mode, every
 * layout of A and of B, n = 1..40 and a spread up to 128, nrhs 1..8, batch
 * sizes 1, 7, 1000 and 100003.  Every system is checked against
 *   - the LAPACK backward-error ratio (< 30) from the original A, B;
 *   - GSL's LU solve (partial pivoting, also the reference for NONE) or
 *     LAPACK dgetc2/dgesc2 (full pivoting), elementwise to n*eps scale on
 *     well-conditioned families and to a condition-scaled bound otherwise;
 * and the call must leave A bit-identical, write every info entry, and leave
 * every gap (ld > n, stride > ld*n, interleaved ld > batch) and guard zone
 * untouched.
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Elementwise tolerance on well-conditioned families (cond_inf <= ~4):
 * |x_i - xref_i| <= TOL_WELL * n * eps * max|xref|.  Measured maxima are far
 * below (see BSOLVE_TEST_VERBOSE=1 output). */
#define TOL_WELL 32.0

typedef struct {
    bsolve_precision prec;
    bsolve_pivot pivot;
    int n, nrhs;
    int64_t batch;
    bsolve_layout_kind ka, kb;
    int pada, padb, misalign;
    uint64_t seed;
} gcase;

static void case_str(const gcase *c, bsolve_layout la, bsolve_layout lb, char *buf, size_t len)
{
    char sa[64], sb[64];
    tl_layout_str(la, sa, sizeof sa);
    tl_layout_str(lb, sb, sizeof sb);
    snprintf(buf, len, "%sgesv pivot=%s n=%d nrhs=%d batch=%lld A=%s B=%s misalign=%d seed=%llu",
             tl_prec_name(c->prec), tl_pivot_name(c->pivot), c->n, c->nrhs, (long long)c->batch,
             sa, sb, c->misalign, (unsigned long long)c->seed);
}

static int verbose(void)
{
    const char *e = getenv("BSOLVE_TEST_VERBOSE");
    return e && *e && strcmp(e, "0");
}

static tl_family pick_family(bsolve_pivot pivot, int64_t k, uint64_t seed)
{
    if (pivot == BSOLVE_PIVOT_NONE)
        return ((k + (int64_t)(seed % 2)) % 2) ? TL_FAM_DIAGDOM_ROWSCALED : TL_FAM_DIAGDOM;
    static const tl_family fams[] = {TL_FAM_RANDOM, TL_FAM_DIAGDOM, TL_FAM_ROWSCALED,
                                     TL_FAM_PERMDOM, TL_FAM_ZEROLEAD};
    return fams[(k + (int64_t)(seed % 5)) % 5];
}

/* Runs one case on `ctx` and checks everything. */
static void run_case(bsolve_ctx *ctx, const gcase *c)
{
    const int n = c->n, nrhs = c->nrhs;
    const int64_t batch = c->batch;
    const double eps = tl_eps(c->prec);
    bsolve_layout la = tl_layout(c->ka, c->pada, n, n, batch);
    bsolve_layout lb = tl_layout(c->kb, c->padb, n, nrhs, batch);
    char desc[400], where[200];
    case_str(c, la, lb, desc, sizeof desc);

    tl_rng rng;
    tl_rng_seed(&rng, c->seed);
    tl_buf A, B, A0, B0;
    tl_buf_alloc(&A, c->prec, la, n, n, batch, c->misalign);
    tl_buf_alloc(&B, c->prec, lb, n, nrhs, batch, c->misalign);
    double *a = malloc((size_t)n * n * sizeof *a), *b = malloc((size_t)n * nrhs * sizeof *b);
    double *x = malloc((size_t)n * nrhs * sizeof *x), *xr = malloc((size_t)n * nrhs * sizeof *xr);
    for (int64_t k = 0; k < batch; k++) {
        tl_gen_matrix(&rng, pick_family(c->pivot, k, c->seed), n, a);
        tl_gen_uniform(&rng, (int64_t)n * nrhs, b);
        tl_buf_put(&A, k, a);
        tl_buf_put(&B, k, b);
    }
    tl_buf_clone(&A, &A0);
    tl_buf_clone(&B, &B0);
    int32_t *info = tl_i32_alloc(batch);

    bsolve_status st = tl_gesv(ctx, c->prec, c->pivot, n, nrhs, batch, A.data, la, B.data, lb, info);
    ck_assert_msg(st == BSOLVE_SUCCESS, "[%s]: status %s, message \"%s\"", desc, tl_status_name(st),
                  bsolve_ctx_message(ctx));
    ck_assert_msg(strcmp(bsolve_ctx_message(ctx), "") == 0,
                  "[%s]: message after success is \"%s\", expected \"\"", desc, bsolve_ctx_message(ctx));
    ck_assert_msg(tl_buf_same(&A, &A0), "[%s]: A (read-only) was modified", desc);
    int64_t badpad = tl_buf_bad_padding(&B, where, sizeof where);
    ck_assert_msg(badpad == 0, "[%s]: B: %lld padding elements overwritten; first: %s", desc,
                  (long long)badpad, where);
    ck_assert_msg(tl_i32_guards_ok(info, batch), "[%s]: info written outside info[0..batch)", desc);

    tl_reset();
    double worst_bwd = 0, worst_well = 0, worst_gen = 0;
    for (int64_t k = 0; k < batch; k++) {
        tl_family fam = pick_family(c->pivot, k, c->seed);
        TL_EXPECT(info[k] == 0, "system %lld (%s): info = %d, expected 0", (long long)k,
                  tl_family_name(fam), info[k]);
        tl_buf_getm(&A0, k, a);
        tl_buf_getm(&B0, k, b);
        tl_buf_getm(&B, k, x);
        double r = tl_backward_ratio(n, nrhs, a, b, x, eps);
        if (r > worst_bwd) worst_bwd = r;
        TL_EXPECT(r < TL_BWD_MAX, "system %lld (%s): backward error ratio %.3g >= %g (x[0]=%.17g)",
                  (long long)k, tl_family_name(fam), r, TL_BWD_MAX, x[0]);
        int rinfo = c->pivot == BSOLVE_PIVOT_FULL ? tl_ref_getc2(n, nrhs, a, b, xr)
                                                  : tl_ref_gsl(n, nrhs, a, b, xr);
        TL_EXPECT(rinfo == 0, "system %lld: the reference reports a singular matrix (info %d)",
                  (long long)k, rinfo);
        double d = tl_rel_diff(n, nrhs, x, xr);
        if (tl_family_wellcond(fam)) {
            double q = d / (n * eps);
            if (q > worst_well) worst_well = q;
            TL_EXPECT(q <= TOL_WELL,
                      "system %lld (%s): max|x - xref|/max|xref| = %.3g = %.3g n eps > %g n eps "
                      "(x[0]=%.17g, xref[0]=%.17g)",
                      (long long)k, tl_family_name(fam), d, q, TOL_WELL, x[0], xr[0]);
        } else if (batch <= 2000 || k % 97 == 0) {
            /* forward error of both solvers <= cond * backward error, i.e.
             * <= 30 n eps cond each, times a margin for the estimate */
            double rc = tl_rcond_inf(n, a);
            double tol = rc > 0 ? 2 * 10 * TL_BWD_MAX * n * eps / rc : INFINITY;
            if (tol < 1e-2) {
                double q = d / tol;
                if (q > worst_gen) worst_gen = q;
                TL_EXPECT(d <= tol,
                          "system %lld (%s): max|x - xref|/max|xref| = %.3g > %.3g "
                          "(cond_inf ~ %.3g)", (long long)k, tl_family_name(fam), d, tol, 1 / rc);
            }
        }
    }
    if (verbose())
        printf("  [%s] max bwd ratio %.3g, well-cond diff %.3g n eps, general diff %.3g of tol\n",
               desc, worst_bwd, worst_well, worst_gen);
    TL_CLEAN("%s", desc);

    free(a);
    free(b);
    free(x);
    free(xr);
    tl_i32_free(info);
    tl_buf_free(&A);
    tl_buf_free(&B);
    tl_buf_free(&A0);
    tl_buf_free(&B0);
}

static gcase derived_case(int n, int ip, int ipv, int64_t batch, uint64_t salt, int var)
{
    gcase c;
    int lp = (n + 3 * ip + 5 * ipv + 4 * var) % 9;
    c.prec = ip ? BSOLVE_PREC_S : BSOLVE_PREC_D;
    c.pivot = (bsolve_pivot)ipv;
    c.n = n;
    c.nrhs = 1 + (3 * n + 5 * ip + ipv + 3 * var) % 8;
    c.batch = batch;
    c.ka = (bsolve_layout_kind)(lp / 3);
    c.kb = (bsolve_layout_kind)(lp % 3);
    c.pada = (n / 2 + ipv + var) % 2;
    c.padb = (n / 3 + ip + var / 2) % 2;
    c.misalign = (n + ip + ipv + var) % 2;
    c.seed = tl_seed(salt, (uint64_t)(n * 64 + var * 16 + ip * 4 + ipv));
    return c;
}

/* n = 1..40, every precision, pivoting mode and batch size (1, 7, 1000);
 * the layout pair, paddings, alignment and nrhs rotate over the cases. */
START_TEST(t_small_n)
{
    int n = _i;
    if (tl_quick() && n % 7 != 1 && n != 40) return;
    bsolve_ctx *ctx = tl_ctx();
    static const int64_t batches[] = {1, 7, 1000};
    for (int ip = 0; ip < 2; ip++)
        for (int ipv = 0; ipv < 3; ipv++)
            for (int ib = 0; ib < 3; ib++) { /* every batch size, each with its own layouts and nrhs */
                if (tl_quick() && ib != (n + ip + 2 * ipv) % 3) continue;
                int64_t batch = batches[ib];
                if (tl_quick() && batch > 100) batch = 100;
                gcase c = derived_case(n, ip, ipv, batch, 1, ib);
                run_case(ctx, &c);
            }
    bsolve_ctx_destroy(ctx);
}
END_TEST

static const int spread_n[] = {48, 57, 64, 80, 96, 101, 127, 128};

START_TEST(t_spread_n)
{
    int n = spread_n[_i];
    if (tl_quick() && n != 57 && n != 128) return;
    bsolve_ctx *ctx = tl_ctx();
    int64_t mid = n <= 64 ? 1000 : n <= 101 ? 300 : 100;
    if (tl_quick()) mid = 20;
    int64_t batches[] = {1, 7, mid};
    for (int ip = 0; ip < 2; ip++)
        for (int ipv = 0; ipv < 3; ipv++) {
            gcase c = derived_case(n, ip, ipv, batches[(_i + ip + 2 * ipv) % 3], 2, 0);
            run_case(ctx, &c);
        }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* Every (A layout, B layout) pair, tight and padded, both precisions, every
 * pivoting mode, at batch sizes that are not multiples of any SIMD width. */
START_TEST(t_layout_pairs)
{
    bsolve_layout_kind ka = (bsolve_layout_kind)(_i / 3), kb = (bsolve_layout_kind)(_i % 3);
    bsolve_ctx *ctx = tl_ctx();
    for (int ip = 0; ip < 2; ip++)
        for (int ipv = 0; ipv < 3; ipv++)
            for (int pad = 0; pad < 2; pad++) {
                gcase c;
                c.prec = ip ? BSOLVE_PREC_S : BSOLVE_PREC_D;
                c.pivot = (bsolve_pivot)ipv;
                c.n = pad ? 13 : 6;
                c.nrhs = pad ? 3 : 1;
                c.batch = pad ? (tl_quick() ? 101 : 1000) : 37;
                c.ka = ka;
                c.kb = kb;
                c.pada = pad;
                c.padb = pad;
                c.misalign = pad ^ ip;
                c.seed = tl_seed(3, (uint64_t)(_i * 100 + ip * 10 + ipv * 2 + pad));
                run_case(ctx, &c);
            }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* 100003 systems of small order (a prime: no SIMD width or thread count divides it). */
static const int big_n[] = {2, 4, 8};

START_TEST(t_big_batch)
{
    int n = big_n[_i];
    bsolve_ctx *ctx = tl_ctx();
    for (int ip = 0; ip < 2; ip++)
        for (int ipv = 0; ipv < 3; ipv++) {
            gcase c;
            int v = _i + ip + ipv;
            c.prec = ip ? BSOLVE_PREC_S : BSOLVE_PREC_D;
            c.pivot = (bsolve_pivot)ipv;
            c.n = n;
            c.nrhs = 1 + (v * 3) % 4;
            c.batch = tl_quick() ? 2003 : 100003;
            c.ka = (bsolve_layout_kind)(v % 3);
            c.kb = (bsolve_layout_kind)((v + 1 + ip) % 3);
            c.pada = v % 2;
            c.padb = (v + 1) % 2;
            c.misalign = ip;
            c.seed = tl_seed(4, (uint64_t)(n * 16 + ip * 4 + ipv));
            run_case(ctx, &c);
        }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* One context, shapes that alternate between small and large (workspace
 * regrowth and reuse), the same shape repeated: every result still right. */
START_TEST(t_ctx_reuse)
{
    bsolve_ctx *ctx = tl_ctx();
    static const int ns[] = {5, 100, 3, 128, 5, 33, 33, 1};
    for (unsigned t = 0; t < sizeof ns / sizeof *ns; t++) {
        gcase c;
        c.prec = (t % 3 == 2) ? BSOLVE_PREC_S : BSOLVE_PREC_D;
        c.pivot = (bsolve_pivot)(1 + t % 2);
        c.n = ns[t];
        c.nrhs = 1 + (int)(t % 4) * 2;
        c.batch = ns[t] >= 100 ? 40 : (t % 2 ? 513 : 1000);
        c.ka = (bsolve_layout_kind)(t % 3);
        c.kb = (bsolve_layout_kind)((t + 2) % 3);
        c.pada = (int)(t % 2);
        c.padb = (int)((t / 2) % 2);
        c.misalign = 0;
        c.seed = tl_seed(5, t);
        run_case(ctx, &c);
    }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* nrhs beyond 8: 17, 64, 200 right-hand sides per system. */
START_TEST(t_many_rhs)
{
    bsolve_ctx *ctx = tl_ctx();
    static const int nrhs[] = {17, 64, 200};
    for (int t = 0; t < 3; t++)
        for (int ip = 0; ip < 2; ip++)
            for (int ipv = 0; ipv < 3; ipv++) {
                gcase c;
                c.prec = ip ? BSOLVE_PREC_S : BSOLVE_PREC_D;
                c.pivot = (bsolve_pivot)ipv;
                c.n = t == 1 ? 20 : 3;
                c.nrhs = nrhs[t];
                c.batch = tl_quick() ? 19 : 101;
                c.ka = (bsolve_layout_kind)((t + ipv) % 3);
                c.kb = (bsolve_layout_kind)((t + ip + ipv) % 3);
                c.pada = ip;
                c.padb = (t + ipv) % 2;
                c.misalign = 0;
                c.seed = tl_seed(6, (uint64_t)(t * 10 + ip * 3 + ipv));
                run_case(ctx, &c);
            }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* Offsets beyond 2^31 and 2^32 elements (the header: "counts, strides and
 * offsets are int64_t"): huge strides and interleaved leading dimensions in
 * a sparse virtual mapping of which only the entries are ever touched. */
static void *vmap(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

START_TEST(t_large_offsets)
{
    if (tl_quick()) return; /* sanitizers and valgrind dislike 16 GiB mappings */
    /* CPU backend only: a GPU host-pointer path may legitimately stage the
     * whole 16 GiB span through device memory, which is not what this tests */
    if (tl_backend() != BSOLVE_BACKEND_CPU) return;
    bsolve_ctx *ctx = tl_ctx();
    const int n = 2, nrhs = 1;
    const int64_t batch = 11;
    /* A interleaved with ld = 2^30 + 7 floats: entry (1,1) of system k at
     * 3 * ld + k > 2^31.  B column-major with stride 2^29 + 3 floats: system
     * 10 at 10 * stride > 2^32. */
    bsolve_layout la[2] = {bsolve_layout_interleaved((INT64_C(1) << 30) + 7),
                           bsolve_layout_col_major(n, (INT64_C(1) << 30) + 5)};
    bsolve_layout lb[2] = {bsolve_layout_col_major(n, (INT64_C(1) << 29) + 3),
                           bsolve_layout_interleaved((INT64_C(1) << 31) + 1)};
    for (int v = 0; v < 2; v++)
        for (int pv = 0; pv < 3; pv++) {
            size_t spa = (size_t)(la[v].kind == BSOLVE_INTERLEAVED ? la[v].ld * n * n : la[v].stride * batch);
            size_t spb = (size_t)(lb[v].kind == BSOLVE_INTERLEAVED ? lb[v].ld * n * nrhs : lb[v].stride * batch);
            float *A = vmap(spa * sizeof(float)), *B = vmap(spb * sizeof(float));
            if (!A || !B) {
                printf("t_large_offsets: cannot map %zu + %zu bytes of address space; skipped\n",
                       spa * sizeof(float), spb * sizeof(float));
                if (A) munmap(A, spa * sizeof(float));
                if (B) munmap(B, spb * sizeof(float));
                break;
            }
            tl_rng rng;
            tl_rng_seed(&rng, tl_seed(7, (uint64_t)(v * 3 + pv)));
            double a[4][11], b[2][11];
            for (int64_t k = 0; k < batch; k++) {
                double m[4];
                tl_gen_matrix(&rng, TL_FAM_DIAGDOM, n, m);
                for (int e = 0; e < 4; e++) {
                    a[e][k] = (float)m[e];
                    A[tl_off(la[v], n, e % 2, e / 2, k)] = (float)m[e];
                }
                for (int i = 0; i < 2; i++) {
                    b[i][k] = (float)tl_rng_uniform(&rng);
                    B[tl_off(lb[v], n, i, 0, k)] = (float)b[i][k];
                }
            }
            int32_t info[11];
            bsolve_status st = bsolve_sgesv(ctx, (bsolve_pivot)pv, n, nrhs, batch, A, la[v], B, lb[v], info);
            ck_assert_msg(st == BSOLVE_SUCCESS, "sgesv with 64-bit offsets (variant %d): %s (%s)", v,
                          tl_status_name(st), bsolve_ctx_message(ctx));
            for (int64_t k = 0; k < batch; k++) {
                double am[4] = {a[0][k], a[1][k], a[2][k], a[3][k]}, bm[2] = {b[0][k], b[1][k]};
                double x[2] = {B[tl_off(lb[v], n, 0, 0, k)], B[tl_off(lb[v], n, 1, 0, k)]};
                double q = tl_backward_ratio(n, 1, am, bm, x, FLT_EPSILON);
                ck_assert_msg(info[k] == 0 && q < TL_BWD_MAX,
                              "64-bit offsets, variant %d, pivot %s, system %lld: info %d, backward ratio %.3g",
                              v, tl_pivot_name((bsolve_pivot)pv), (long long)k, info[k], q);
            }
            /* the interleaved gaps right after the batch are untouched */
            if (lb[v].kind == BSOLVE_INTERLEAVED)
                for (int64_t k = batch; k < batch + 8; k++)
                    ck_assert_msg(B[tl_off(lb[v], n, 1, 0, k)] == 0, "gap after system %lld written", (long long)batch);
            munmap(A, spa * sizeof(float));
            munmap(B, spb * sizeof(float));
        }
    bsolve_ctx_destroy(ctx);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("gesv");
    TCase *tc = tl_tcase("small_n");
    tcase_add_loop_test(tc, t_small_n, 1, 41);
    suite_add_tcase(s, tc);
    tc = tl_tcase("spread_n");
    tcase_add_loop_test(tc, t_spread_n, 0, (int)(sizeof spread_n / sizeof *spread_n));
    suite_add_tcase(s, tc);
    tc = tl_tcase("layout_pairs");
    tcase_add_loop_test(tc, t_layout_pairs, 0, 9);
    suite_add_tcase(s, tc);
    tc = tl_tcase("big_batch");
    tcase_add_loop_test(tc, t_big_batch, 0, 3);
    suite_add_tcase(s, tc);
    tc = tl_tcase("ctx_reuse");
    tcase_add_test(tc, t_ctx_reuse);
    tcase_add_test(tc, t_many_rhs);
    tcase_add_test(tc, t_large_offsets);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tl_main(suite()); }
