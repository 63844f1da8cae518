/*
 * test_threads.c -- determinism and thread safety.
 *   - gesv and getrf/getrs/export give bit-identical results with 1, 2, 3
 *     threads and the OpenMP default (bsolve_ctx_set_threads), and on
 *     repeated calls on one context;
 *   - two contexts used from two pthreads at the same time give the results
 *     of a sequential run, bit for bit (and those results are right).
 */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    bsolve_precision prec;
    bsolve_pivot pivot;
    int n, nrhs;
    int64_t batch;
    bsolve_layout la, lb;
    tl_buf A, B0; /* inputs */
} job;

static void job_init(job *j, bsolve_precision p, bsolve_pivot pv, int n, int nrhs, int64_t batch,
                     bsolve_layout_kind ka, bsolve_layout_kind kb, uint64_t seed)
{
    j->prec = p;
    j->pivot = pv;
    j->n = n;
    j->nrhs = nrhs;
    j->batch = batch;
    j->la = tl_layout(ka, 1, n, n, batch);
    j->lb = tl_layout(kb, 0, n, nrhs, batch);
    tl_buf_alloc(&j->A, p, j->la, n, n, batch, 0);
    tl_buf_alloc(&j->B0, p, j->lb, n, nrhs, batch, 0);
    tl_rng r;
    tl_rng_seed(&r, seed);
    double *a = malloc((size_t)n * n * sizeof *a), *b = malloc((size_t)n * nrhs * sizeof *b);
    for (int64_t k = 0; k < batch; k++) {
        tl_gen_matrix(&r, pv == BSOLVE_PIVOT_NONE ? TL_FAM_DIAGDOM : (k % 3 ? TL_FAM_RANDOM : TL_FAM_ZEROLEAD), n, a);
        if (k % 101 == 50) a[0] = NAN; /* some NaN systems too */
        if (k % 101 == 70) memset(a, 0, (size_t)n * n * sizeof *a); /* and singular ones */
        tl_gen_uniform(&r, (int64_t)n * nrhs, b);
        tl_buf_put(&j->A, k, a);
        tl_buf_put(&j->B0, k, b);
    }
    free(a);
    free(b);
}

static void job_free(job *j)
{
    tl_buf_free(&j->A);
    tl_buf_free(&j->B0);
}

/* Runs gesv; the result (B and info) into out/info (fresh copies). */
static bsolve_status job_run(bsolve_ctx *ctx, const job *j, tl_buf *out, int32_t *info)
{
    tl_buf_clone(&j->B0, out);
    return tl_gesv(ctx, j->prec, j->pivot, j->n, j->nrhs, j->batch, j->A.data, j->la, out->data, j->lb, info);
}

/* Every solved system of the result is right (so that "identical" means identical and right). */
static void job_verify(const job *j, const tl_buf *X, const int32_t *info, const char *desc)
{
    int n = j->n, nrhs = j->nrhs;
    double *a = malloc((size_t)n * n * sizeof *a), *b = malloc((size_t)n * nrhs * sizeof *b);
    double *x = malloc((size_t)n * nrhs * sizeof *x);
    tl_reset();
    for (int64_t k = 0; k < j->batch; k++) {
        int want = k % 101 == 50 ? BSOLVE_INFO_NONFINITE : k % 101 == 70 ? 1 : 0;
        TL_EXPECT(info[k] == want, "system %lld: info %d, expected %d", (long long)k, info[k], want);
        if (want) continue;
        tl_buf_getm(&j->A, k, a);
        tl_buf_getm(&j->B0, k, b);
        tl_buf_getm(X, k, x);
        double q = tl_backward_ratio(n, nrhs, a, b, x, tl_eps(j->prec));
        TL_EXPECT(q < TL_BWD_MAX, "system %lld: backward ratio %.3g", (long long)k, q);
    }
    TL_CLEAN("%s", desc);
    free(a);
    free(b);
    free(x);
}

static const struct { int n; int64_t batch; } shapes[] = {{4, 10007}, {17, 2003}, {64, 131}, {1, 999}};

START_TEST(t_thread_counts)
{
    int n = shapes[_i].n;
    int64_t batch = tl_quick() ? 203 : shapes[_i].batch;
    bsolve_ctx *ctx = tl_ctx();
    for (int ip = 0; ip < 2; ip++)
        for (int pv = 0; pv < 3; pv++) {
            job j;
            job_init(&j, ip ? BSOLVE_PREC_S : BSOLVE_PREC_D, (bsolve_pivot)pv, n, 1 + (pv + ip) % 3, batch,
                     (bsolve_layout_kind)((pv + _i) % 3), (bsolve_layout_kind)((ip + pv + 1) % 3),
                     tl_seed(70, (uint64_t)(_i * 8 + ip * 3 + pv)));
            char desc[160];
            snprintf(desc, sizeof desc, "%sgesv pivot=%s n=%d batch=%lld", tl_prec_name(j.prec),
                     tl_pivot_name(j.pivot), n, (long long)batch);
            tl_buf ref;
            int32_t *iref = tl_i32_alloc(batch), *info = tl_i32_alloc(batch);
            ck_assert_int_eq(bsolve_ctx_set_threads(ctx, 1), BSOLVE_SUCCESS);
            ck_assert_int_eq(job_run(ctx, &j, &ref, iref), BSOLVE_SUCCESS);
            job_verify(&j, &ref, iref, desc);
            static const int threads[] = {2, 3, 0, 1, 3, 2};
            for (unsigned t = 0; t < sizeof threads / sizeof *threads; t++) {
                tl_buf out;
                tl_i32_poison(info, batch);
                ck_assert_int_eq(bsolve_ctx_set_threads(ctx, threads[t]), BSOLVE_SUCCESS);
                ck_assert_int_eq(job_run(ctx, &j, &out, info), BSOLVE_SUCCESS);
                ck_assert_msg(tl_buf_same(&out, &ref),
                              "[%s]: solutions with %d threads (call %u) differ from 1 thread", desc,
                              threads[t], t);
                ck_assert_msg(memcmp(info, iref, (size_t)batch * sizeof *info) == 0,
                              "[%s]: info with %d threads differs from 1 thread", desc, threads[t]);
                tl_buf_free(&out);
            }
            tl_buf_free(&ref);
            tl_i32_free(iref);
            tl_i32_free(info);
            job_free(&j);
        }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* getrf/getrs/export: bit-identical for 1 and 3 threads. */
START_TEST(t_thread_counts_lu)
{
    bsolve_ctx *ctx = tl_ctx();
    const int n = 9;
    const int64_t batch = tl_quick() ? 101 : 4099;
    for (int ip = 0; ip < 2; ip++)
        for (int pv = 0; pv < 3; pv++) {
            job j;
            job_init(&j, ip ? BSOLVE_PREC_S : BSOLVE_PREC_D, (bsolve_pivot)pv, n, 2, batch,
                     (bsolve_layout_kind)pv, BSOLVE_ROW_MAJOR, tl_seed(71, (uint64_t)(ip * 3 + pv)));
            size_t es = ip ? 4 : 8;
            void *LU[2];
            int32_t *ipv[2], *jpv[2], *info[2];
            tl_buf X[2];
            for (int t = 0; t < 2; t++) {
                ck_assert_int_eq(bsolve_ctx_set_threads(ctx, t ? 3 : 1), BSOLVE_SUCCESS);
                bsolve_lu *lu = NULL;
                ck_assert_int_eq(bsolve_lu_create(ctx, j.prec, j.pivot, n, batch, &lu), BSOLVE_SUCCESS);
                info[t] = tl_i32_alloc(batch);
                ck_assert_int_eq(tl_getrf(ctx, j.prec, j.A.data, j.la, lu, info[t]), BSOLVE_SUCCESS);
                tl_buf_clone(&j.B0, &X[t]);
                ck_assert_int_eq(tl_getrs(ctx, j.prec, lu, j.nrhs, X[t].data, j.lb, NULL), BSOLVE_SUCCESS);
                LU[t] = malloc(es * (size_t)(batch * n * n));
                ipv[t] = malloc(sizeof(int32_t) * (size_t)(batch * n));
                jpv[t] = malloc(sizeof(int32_t) * (size_t)(batch * n));
                ck_assert_int_eq(bsolve_lu_export(ctx, lu, LU[t], bsolve_layout_interleaved(batch), ipv[t], jpv[t]),
                                 BSOLVE_SUCCESS);
                bsolve_lu_destroy(lu);
            }
            ck_assert_msg(memcmp(info[0], info[1], sizeof(int32_t) * (size_t)batch) == 0, "getrf info differs");
            ck_assert_msg(tl_buf_same(&X[0], &X[1]), "%sgetrs pivot %d: 1 vs 3 threads differ",
                          tl_prec_name(j.prec), pv);
            ck_assert_msg(memcmp(LU[0], LU[1], es * (size_t)(batch * n * n)) == 0,
                          "%sgetrf pivot %d: factors with 1 vs 3 threads differ", tl_prec_name(j.prec), pv);
            ck_assert_msg(memcmp(ipv[0], ipv[1], sizeof(int32_t) * (size_t)(batch * n)) == 0 &&
                              memcmp(jpv[0], jpv[1], sizeof(int32_t) * (size_t)(batch * n)) == 0,
                          "%sgetrf pivot %d: pivots with 1 vs 3 threads differ", tl_prec_name(j.prec), pv);
            for (int t = 0; t < 2; t++) {
                free(LU[t]);
                free(ipv[t]);
                free(jpv[t]);
                tl_i32_free(info[t]);
                tl_buf_free(&X[t]);
            }
            job_free(&j);
        }
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* ---- two contexts, two pthreads */

typedef struct {
    job *jobs;
    int njobs, reps, nthreads;
    tl_buf *refs;
    int32_t **irefs;
    int mismatches, failures;
    char first[200];
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    bsolve_ctx *ctx = NULL;
    if (bsolve_ctx_create(&ctx, tl_backend()) != BSOLVE_SUCCESS || tl_ctx_cpu_isa(ctx) != BSOLVE_SUCCESS) {
        w->failures++;
        snprintf(w->first, sizeof w->first, "ctx_create or BSOLVE_TEST_CPU_ISA failed in a thread");
        return NULL;
    }
    bsolve_ctx_set_threads(ctx, w->nthreads);
    for (int r = 0; r < w->reps; r++)
        for (int i = 0; i < w->njobs; i++) {
            const job *j = &w->jobs[i];
            tl_buf out;
            int32_t *info = tl_i32_alloc(j->batch);
            bsolve_status st = job_run(ctx, j, &out, info);
            if (st != BSOLVE_SUCCESS) {
                if (w->failures++ == 0)
                    snprintf(w->first, sizeof w->first, "job %d rep %d: %s (%s)", i, r, tl_status_name(st),
                             bsolve_ctx_message(ctx));
            } else if (!tl_buf_same(&out, &w->refs[i]) ||
                       memcmp(info, w->irefs[i], sizeof(int32_t) * (size_t)j->batch) != 0) {
                if (w->mismatches++ == 0)
                    snprintf(w->first, sizeof w->first, "job %d (n=%d) rep %d differs from the sequential run",
                             i, j->n, r);
            }
            tl_buf_free(&out);
            tl_i32_free(info);
        }
    bsolve_ctx_destroy(ctx);
    return NULL;
}

START_TEST(t_two_pthreads)
{
    enum { NJ = 3 };
    job jobs[2][NJ];
    tl_buf refs[2][NJ];
    int32_t *irefs[2][NJ];
    worker w[2];
    bsolve_ctx *ctx = tl_ctx();
    static const int ns[2][NJ] = {{3, 24, 8}, {16, 5, 40}};
    for (int t = 0; t < 2; t++) {
        for (int i = 0; i < NJ; i++) {
            int n = ns[t][i];
            int64_t batch = tl_quick() ? 97 : (n <= 8 ? 20011 : 1500);
            job_init(&jobs[t][i], (i + t) % 2 ? BSOLVE_PREC_S : BSOLVE_PREC_D, (bsolve_pivot)((i + t) % 3), n,
                     1 + i, batch, (bsolve_layout_kind)i, (bsolve_layout_kind)((i + t) % 3),
                     tl_seed(72, (uint64_t)(t * 10 + i)));
            irefs[t][i] = tl_i32_alloc(batch);
            ck_assert_int_eq(job_run(ctx, &jobs[t][i], &refs[t][i], irefs[t][i]), BSOLVE_SUCCESS);
            char desc[100];
            snprintf(desc, sizeof desc, "sequential reference, thread %d job %d (n=%d)", t, i, n);
            job_verify(&jobs[t][i], &refs[t][i], irefs[t][i], desc);
        }
        w[t] = (worker){jobs[t], NJ, tl_quick() ? 2 : 4, t + 1, refs[t], irefs[t], 0, 0, ""};
    }
    bsolve_ctx_destroy(ctx);
    pthread_t th[2];
    for (int t = 0; t < 2; t++) ck_assert_int_eq(pthread_create(&th[t], NULL, work, &w[t]), 0);
    for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < 2; t++) {
        ck_assert_msg(w[t].failures == 0 && w[t].mismatches == 0, "pthread %d: %d failed calls, %d mismatches; %s",
                      t, w[t].failures, w[t].mismatches, w[t].first);
        for (int i = 0; i < NJ; i++) {
            job_free(&jobs[t][i]);
            tl_buf_free(&refs[t][i]);
            tl_i32_free(irefs[t][i]);
        }
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tl_tcase("threads");
    tcase_add_loop_test(tc, t_thread_counts, 0, (int)(sizeof shapes / sizeof *shapes));
    tcase_add_test(tc, t_thread_counts_lu);
    tcase_add_test(tc, t_two_pthreads);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tl_main(suite()); }
