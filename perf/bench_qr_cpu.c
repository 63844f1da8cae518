/*
 * bench_qr_cpu.c -- batched least squares on one CPU core: bsolve_dgels
 * (QR by Givens rotations, INTERLEAVED input) against a loop over
 * LAPACKE_dgels and a loop over GSL's Householder QR
 * (gsl_linalg_QR_decomp + QR_lssolve, or QR_solve when m == n), double,
 * one right-hand side, m in {n, 2n}, n in {2, 4, 8, 12, 16, 24, 32, 48, 64}.
 *
 * LAPACKE_dgels and gsl_linalg_QR_decomp overwrite A (and dgels B), so
 * their loops copy each system first; the copies are timed, since a caller
 * who keeps A must make them (ours only reads A).  GSL gets its own
 * row-major copy of the batch (gsl_matrix is row-major), made outside the
 * timer.  OpenBLAS runs on one thread.
 * Batches hold about 16 MB of matrices (at least 256 systems); a time is
 * the minimum over repetitions (the machine may be shared).
 *
 *   build/perf/bench_qr_cpu [csv-file]       (default perf/bench_qr_cpu.csv; the plot
 *   beside it as .png, perf/plot_qr_cpu.gp, when gnuplot is installed)
 * Environment: BENCH_REPS (default 5), BENCH_MB (default 16), BENCH_SHAPES
 * (only these shapes, e.g. "32x16,24x12,16x16": m x n, comma-separated;
 * default all).
 * Exit status 1 if a call of ours failed or disagreed with LAPACKE.
 */
#define _POSIX_C_SOURCE 200809L
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batchsolve.h"
#include "bench_plot.h"

extern void openblas_set_num_threads(int num_threads);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static double urand(unsigned long long *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return ((*s >> 11) + 0.5) * (2.0 / 9007199254740992.0) - 1;
}

int main(int argc, char **argv)
{
    static const int ns[] = {2, 4, 8, 12, 16, 24, 32, 48, 64};
    const char *csv = argc > 1 ? argv[1] : "perf/bench_qr_cpu.csv";
    const char *e = getenv("BENCH_REPS");
    const int reps = e ? atoi(e) : 5;
    e = getenv("BENCH_MB");
    const double mb = e ? atof(e) : 16;
    /* ",32x16,24x12," so that a shape matches only as a whole item */
    char shapes_buf[1024], *shapes = NULL;
    if ((e = getenv("BENCH_SHAPES")) && *e) {
        snprintf(shapes_buf, sizeof shapes_buf, ",%s,", e);
        shapes = shapes_buf;
    }
    gsl_set_error_handler_off();
    openblas_set_num_threads(1);
    bsolve_ctx *ctx;
    if (bsolve_ctx_create(&ctx, BSOLVE_BACKEND_CPU) != BSOLVE_SUCCESS) return 1;
    bsolve_ctx_set_threads(ctx, 1);
    FILE *f = fopen(csv, "w");
    if (f) fprintf(f, "m,n,batch,bsolve_sys_per_s,lapacke_sys_per_s,gsl_sys_per_s,ratio_lapacke,ratio_gsl,maxreldiff\n");
    printf("batched least squares, double, nrhs = 1, one core; systems per second (min time of %d reps)\n", reps);
    printf("%4s %4s %7s | %12s %12s %12s | %8s %8s | %9s\n", "m", "n", "batch", "bsolve", "LAPACKE", "GSL", "vs LAPK",
           "vs GSL", "max diff");
    int fail = 0;
    for (int in = 0; in < (int)(sizeof ns / sizeof *ns); in++)
        for (int mm = 1; mm <= 2; mm++) {
            const int n = ns[in], m = mm * n;
            if (shapes) {
                char key[32];
                snprintf(key, sizeof key, ",%dx%d,", m, n);
                if (!strstr(shapes, key)) continue;
            }
            long long batch = (long long)(mb * 1e6 / (8.0 * m * n));
            if (batch < 256) batch = 256;
            const size_t sa = (size_t)m * n, na = sa * batch, nb = (size_t)m * batch;
            double *A = malloc(8 * na), *B = malloc(8 * nb), *IA = malloc(8 * na), *IB = malloc(8 * nb);
            double *GA = malloc(8 * na), *X = malloc(8 * nb), *Y = malloc(8 * nb), *W = malloc(8 * sa);
            double *Z = malloc(8 * nb);
            int32_t *info = malloc(4 * batch);
            unsigned long long s = 42 + (unsigned long long)m * 131 + n;
            for (size_t i = 0; i < na; i++) A[i] = urand(&s);
            for (size_t i = 0; i < nb; i++) B[i] = urand(&s);
            for (long long k = 0; k < batch; k++) {
                for (int j = 0; j < n; j++) A[k * sa + j + (size_t)j * m] += 2 * sqrt((double)m); /* well posed */
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < m; i++) {
                        IA[(i + (size_t)j * m) * batch + k] = A[k * sa + i + (size_t)j * m];
                        GA[k * sa + (size_t)i * n + j] = A[k * sa + i + (size_t)j * m];
                    }
                for (int i = 0; i < m; i++) IB[(size_t)i * batch + k] = B[k * m + i];
            }
            gsl_matrix *gq = gsl_matrix_alloc(m, n);
            gsl_vector *tau = gsl_vector_alloc(n), *res = gsl_vector_alloc(m);
            double t[3] = {INFINITY, INFINITY, INFINITY};
            for (int r = 0; r < reps; r++) {
                double t0 = now();
                for (long long k = 0; k < batch; k++) {
                    memcpy(W, A + k * sa, 8 * sa);
                    memcpy(Y + k * m, B + k * m, 8 * (size_t)m);
                    LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', m, n, 1, W, m, Y + k * m, m);
                }
                double t1 = now();
                if (t1 - t0 < t[1]) t[1] = t1 - t0;
                t0 = now();
                for (long long k = 0; k < batch; k++) {
                    memcpy(gq->data, GA + k * sa, 8 * sa);
                    gsl_vector_const_view vb = gsl_vector_const_view_array(B + k * m, m);
                    gsl_vector_view vx = gsl_vector_view_array(Z + k * m, n);
                    gsl_linalg_QR_decomp(gq, tau);
                    if (m == n)
                        gsl_linalg_QR_solve(gq, tau, &vb.vector, &vx.vector);
                    else
                        gsl_linalg_QR_lssolve(gq, tau, &vb.vector, &vx.vector, res);
                }
                t1 = now();
                if (t1 - t0 < t[2]) t[2] = t1 - t0;
                memcpy(X, IB, 8 * nb);
                t0 = now();
                bsolve_status st = bsolve_dgels(ctx, m, n, 1, batch, IA, bsolve_layout_interleaved(batch), X,
                                                bsolve_layout_interleaved(batch), info);
                t1 = now();
                if (st != BSOLVE_SUCCESS) {
                    fprintf(stderr, "bsolve_dgels: %s\n", bsolve_ctx_message(ctx));
                    return 1;
                }
                if (t1 - t0 < t[0]) t[0] = t1 - t0;
            }
            double diff = 0;
            for (long long k = 0; k < batch; k++) {
                double d = 0, mx = 0;
                for (int i = 0; i < n; i++) {
                    d = fmax(d, fabs(X[(size_t)i * batch + k] - Y[k * m + i]));
                    mx = fmax(mx, fabs(Y[k * m + i]));
                }
                if (info[k] != 0 || !(d <= 1e-10 * mx)) fail = 1;
                diff = fmax(diff, d / mx);
            }
            double rate[3];
            for (int c = 0; c < 3; c++) rate[c] = batch / t[c];
            printf("%4d %4d %7lld | %12.4g %12.4g %12.4g | %7.1fx %7.1fx | %9.2g\n", m, n, batch, rate[0], rate[1],
                   rate[2], rate[0] / rate[1], rate[0] / rate[2], diff);
            fflush(stdout);
            if (f)
                fprintf(f, "%d,%d,%lld,%.4g,%.4g,%.4g,%.3f,%.3f,%.3g\n", m, n, batch, rate[0], rate[1], rate[2],
                        rate[0] / rate[1], rate[0] / rate[2], diff);
            gsl_matrix_free(gq);
            gsl_vector_free(tau);
            gsl_vector_free(res);
            free(A), free(B), free(IA), free(IB), free(GA), free(X), free(Y), free(W), free(Z), free(info);
        }
    if (f) fclose(f);
    printf("(ratios: bsolve_dgels, interleaved, over the LAPACKE_dgels and GSL loops; CSV in %s)\n", csv);
    if (f) bench_plot("perf/plot_qr_cpu.gp", csv, NULL, NULL);
    bsolve_ctx_destroy(ctx);
    return fail;
}
