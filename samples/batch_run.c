/*
 * batch_run.c -- the main job (`make run`): one realistic batch-solve pass on
 * the default backend.
 *
 *   1. a context on BSOLVE_BACKEND_AUTO (the GPU if one is usable, else the CPU);
 *   2. three groups of systems, as a simulation would hand them over:
 *        - 1,000,000 systems of order 8, INTERLEAVED (implicit-ODE Newton
 *          matrices I - h J, one per cell); two of them are broken on purpose:
 *          one singular, one holding a NaN;
 *        - 100,000 general systems of order 32, INTERLEAVED;
 *        - 20,000 stiff combustion-like systems of order 60, COL_MAJOR
 *          (I - h J with reaction rates spanning eight orders of magnitude);
 *   3. bsolve_dgesv with partial pivoting on each group, timed;
 *   4. checks: the per-system info counts (exactly the two broken systems
 *      fail, with the right codes and NaN solutions) and the backward error
 *      ||b - A x|| / (n ||A|| ||x|| eps) of 2,000 sampled systems per group.
 *
 * Exit status 0 when every check passes, 1 otherwise.  About 2.2 GB of memory.
 */
#define _POSIX_C_SOURCE 200809L
#include "batchsolve.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Counter-based random numbers: value number `i` of stream `seed` is the same
 * whatever the number of threads that generate the data. */
static inline uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline double uniform(uint64_t seed, uint64_t i) /* [0, 1) */
{
    return (double)(mix(seed * 0x9E3779B97F4A7C15ull + i + 1) >> 11) * 0x1.0p-53;
}

typedef struct {
    const char *name;
    int n;
    int64_t batch;
    bsolve_layout la, lb;
    double *A, *B;
    int32_t *info;
} group;

/* Entry (i, j) of matrix k of a group, in its layout. */
static inline int64_t at(bsolve_layout l, int n, int i, int j, int64_t k)
{
    return l.kind == BSOLVE_INTERLEAVED ? (int64_t)(i + j * n) * l.ld + k : k * l.stride + i + (int64_t)j * l.ld;
}

static int alloc_group(group *g)
{
    size_t nA = (size_t)g->batch * g->n * g->n, nB = (size_t)g->batch * g->n;
    g->A = malloc(nA * sizeof(double));
    g->B = malloc(nB * sizeof(double));
    g->info = malloc((size_t)g->batch * sizeof(int32_t));
    if (!g->A || !g->B || !g->info) {
        fprintf(stderr, "batch_run: out of memory for %s\n", g->name);
        return -1;
    }
    return 0;
}

/* Group 1: Newton matrices of an implicit ODE step, I - h J, one per cell:
 * coupling terms in [-0.5, 0.5], a decay term of 0 to 2 on the diagonal
 * (not diagonally dominant: partial pivoting swaps rows now and then). */
static void fill_ode(group *g, uint64_t seed)
{
    const int n = g->n;
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < g->batch; k++) {
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                uint64_t e = (uint64_t)k * n * n + (uint64_t)(i + j * n);
                double v = 0.5 * (2.0 * uniform(seed, e) - 1.0);
                g->A[at(g->la, n, i, j, k)] = (i == j ? 1.0 + 2.0 * uniform(seed + 1, e) : 0.0) + v;
            }
        for (int i = 0; i < n; i++)
            g->B[at(g->lb, n, i, 0, k)] = 2.0 * uniform(seed + 2, (uint64_t)k * n + i) - 1.0;
    }
}

/* Group 2: general dense systems, entries uniform in [-1, 1]; partial
 * pivoting does real work here. */
static void fill_general(group *g, uint64_t seed)
{
    const int n = g->n;
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < g->batch; k++) {
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                g->A[at(g->la, n, i, j, k)] = 2.0 * uniform(seed, (uint64_t)k * n * n + (uint64_t)(i + j * n)) - 1.0;
        for (int i = 0; i < n; i++)
            g->B[at(g->lb, n, i, 0, k)] = 2.0 * uniform(seed + 2, (uint64_t)k * n + i) - 1.0;
    }
}

/* Group 3: combustion-like Newton matrices I - h J of a stiff mechanism:
 * about 30 % of the species pairs react, with rates from 1 to 1e6 per
 * second; every species is destroyed at least as fast as it feeds the
 * others, some of them at up to 1e8 per second; h = 1e-6 s. */
static void fill_combustion(group *g, uint64_t seed)
{
    const int n = g->n;
    const double h = 1e-6;
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < g->batch; k++) {
        for (int j = 0; j < n; j++) {
            double colsum = 0.0;
            for (int i = 0; i < n; i++) {
                uint64_t e = (uint64_t)k * n * n + (uint64_t)(i + j * n);
                double J = 0.0;
                if (i != j && uniform(seed, e) < 0.3)
                    J = (2.0 * uniform(seed + 1, e) - 1.0) * pow(10.0, 6.0 * uniform(seed + 2, e));
                colsum += fabs(J);
                g->A[at(g->la, n, i, j, k)] = -h * J;
            }
            double destroy = colsum + pow(10.0, 8.0 * uniform(seed + 3, (uint64_t)k * n + j));
            g->A[at(g->la, n, j, j, k)] = 1.0 + h * destroy;
        }
        for (int i = 0; i < n; i++)
            g->B[at(g->lb, n, i, 0, k)] = 2.0 * uniform(seed + 4, (uint64_t)k * n + i) - 1.0;
    }
}

int main(void)
{
    double t_start = now();
    int failures = 0;

    bsolve_ctx *ctx = NULL;
    bsolve_status st = bsolve_ctx_create(&ctx, BSOLVE_BACKEND_AUTO);
    if (st != BSOLVE_SUCCESS) {
        fprintf(stderr, "batch_run: bsolve_ctx_create: %s\n", bsolve_strerror(st));
        return 1;
    }
    bsolve_backend be = bsolve_ctx_backend(ctx);
    printf("batchsolve %d.%d.%d -- backend: %s", BSOLVE_VERSION_MAJOR, BSOLVE_VERSION_MINOR,
           BSOLVE_VERSION_PATCH, bsolve_backend_name(be));
    if (be == BSOLVE_BACKEND_CUDA) {
        printf(" (a GPU is used; these are host arrays, so each call includes the copies to and from it)\n");
    } else {
#ifdef _OPENMP
        printf(" (no usable GPU; %d OpenMP thread(s), the OpenMP default)\n", omp_get_max_threads());
#else
        printf(" (no usable GPU; built without OpenMP: 1 thread)\n");
#endif
    }

    group g[3] = {
        {"ODE Newton matrices, interleaved", 8, 1000000, bsolve_layout_interleaved(1000000),
         bsolve_layout_interleaved(1000000), NULL, NULL, NULL},
        {"general dense, interleaved", 32, 100000, bsolve_layout_interleaved(100000),
         bsolve_layout_interleaved(100000), NULL, NULL, NULL},
        {"stiff combustion, col-major", 60, 20000, bsolve_layout_col_major(60, 60 * 60),
         bsolve_layout_col_major(60, 60), NULL, NULL, NULL},
    };
    /* The two systems of group 1 broken on purpose. */
    const int64_t k_singular = 123457, k_nan = 765431;

    double t_gen = now();
    for (int gi = 0; gi < 3; gi++)
        if (alloc_group(&g[gi]) != 0) return 1;
    fill_ode(&g[0], 11);
    fill_general(&g[1], 22);
    fill_combustion(&g[2], 33);
    for (int i = 0; i < g[0].n; i++) g[0].A[at(g[0].la, g[0].n, i, 3, k_singular)] = 0.0; /* zero column 4 */
    g[0].B[at(g[0].lb, g[0].n, 5, 0, k_nan)] = NAN;
    printf("generated %lld systems (%.2f GB) in %.2f s\n\n",
           (long long)(g[0].batch + g[1].batch + g[2].batch),
           ((double)g[0].batch * 72 + g[1].batch * 1056.0 + g[2].batch * 3660.0) * 8 / 1e9, now() - t_gen);

    printf("%-34s %4s %8s %9s %12s %9s %6s %6s %9s %12s\n", "group", "n", "systems", "time", "systems/s",
           "GFLOP/s", "info=0", "info>0", "nonfinite", "max bkw err");

    const int nsample = 2000;
    for (int gi = 0; gi < 3; gi++) {
        group *G = &g[gi];
        const int n = G->n;

        /* Keep A and b of the sampled systems (the solve overwrites B). */
        int64_t *ks = malloc((nsample + 2) * sizeof *ks);
        double *As = malloc((size_t)(nsample + 2) * n * n * sizeof(double));
        double *bs = malloc((size_t)(nsample + 2) * n * sizeof(double));
        if (!ks || !As || !bs) return 1;
        int ns = 0;
        for (int s = 0; s < nsample; s++) ks[ns++] = (int64_t)(uniform(1000 + gi, s) * (double)G->batch);
        if (gi == 0) {
            ks[ns++] = k_singular;
            ks[ns++] = k_nan;
        }
        for (int s = 0; s < ns; s++)
            for (int j = 0; j < n; j++) {
                for (int i = 0; i < n; i++) As[(size_t)s * n * n + i + j * n] = G->A[at(G->la, n, i, j, ks[s])];
                bs[(size_t)s * n + j] = G->B[at(G->lb, n, j, 0, ks[s])];
            }

        double t0 = now();
        st = bsolve_dgesv(ctx, BSOLVE_PIVOT_PARTIAL, n, 1, G->batch, G->A, G->la, G->B, G->lb, G->info);
        double t = now() - t0;
        if (st != BSOLVE_SUCCESS) {
            fprintf(stderr, "batch_run: %s: bsolve_dgesv: %s: %s\n", G->name, bsolve_strerror(st),
                    bsolve_ctx_message(ctx));
            return 1;
        }

        int64_t ok = 0, sing = 0, nonfin = 0;
        for (int64_t k = 0; k < G->batch; k++) {
            if (G->info[k] == 0) ok++;
            else if (G->info[k] > 0) sing++;
            else if (G->info[k] == BSOLVE_INFO_NONFINITE) nonfin++;
        }

        /* Backward error of the sampled systems. */
        double worst = 0.0;
        for (int s = 0; s < ns; s++) {
            int64_t k = ks[s];
            if (G->info[k] != 0) continue;
            const double *A = As + (size_t)s * n * n, *b = bs + (size_t)s * n;
            double rmax = 0.0, xmax = 0.0, anorm = 0.0;
            for (int i = 0; i < n; i++) {
                double r = b[i], rowsum = 0.0;
                for (int j = 0; j < n; j++) {
                    r -= A[i + j * n] * G->B[at(G->lb, n, j, 0, k)];
                    rowsum += fabs(A[i + j * n]);
                }
                if (!(fabs(r) <= rmax)) rmax = fabs(r); /* NaN counts as worst */
                if (rowsum > anorm) anorm = rowsum;
                double x = fabs(G->B[at(G->lb, n, i, 0, k)]);
                if (!(x <= xmax)) xmax = x;
            }
            double e = rmax / (n * anorm * xmax * DBL_EPSILON);
            if (!(e <= worst)) worst = e;
        }

        double flops = (2.0 / 3.0 * n * n * n + 2.0 * n * n) * (double)G->batch;
        printf("%-34s %4d %8lld %8.3fs %12.4g %9.2f %6lld %6lld %9lld %12.3g\n", G->name, n, (long long)G->batch, t,
               (double)G->batch / t, flops / t / 1e9, (long long)ok, (long long)sing, (long long)nonfin, worst);

        /* Checks. */
        if (!(worst < 30.0)) {
            fprintf(stderr, "batch_run: %s: backward error %.3g exceeds 30\n", G->name, worst);
            failures++;
        }
        int64_t expect_fail = gi == 0 ? 2 : 0;
        if (G->batch - ok != expect_fail) {
            fprintf(stderr, "batch_run: %s: %lld systems failed, expected %lld\n", G->name,
                    (long long)(G->batch - ok), (long long)expect_fail);
            failures++;
        }
        if (gi == 0) {
            int all_nan = 1;
            for (int i = 0; i < n; i++)
                all_nan &= isnan(G->B[at(G->lb, n, i, 0, k_singular)]) && isnan(G->B[at(G->lb, n, i, 0, k_nan)]);
            if (G->info[k_singular] != 4 || G->info[k_nan] != BSOLVE_INFO_NONFINITE || !all_nan) {
                fprintf(stderr,
                        "batch_run: broken systems: info %d (expected 4: zero column 4) and %d (expected %d: NaN), "
                        "solutions %s\n",
                        G->info[k_singular], G->info[k_nan], BSOLVE_INFO_NONFINITE, all_nan ? "NaN" : "NOT all NaN");
                failures++;
            }
        }
        free(ks);
        free(As);
        free(bs);
        free(G->A);
        free(G->B);
        free(G->info);
    }

    printf("\nbroken on purpose: system %lld of group 1 (zero column: info 4), system %lld (NaN in b: info %d)\n",
           (long long)k_singular, (long long)k_nan, BSOLVE_INFO_NONFINITE);
    printf("backward error = ||b - A x||_inf / (n ||A||_inf ||x||_inf eps) over 2000 sampled systems per group; "
           "limit 30\n");
    printf("%s in %.1f s\n", failures ? "FAILED" : "all checks passed", now() - t_start);
    bsolve_ctx_destroy(ctx);
    return failures ? 1 : 0;
}
