/*
 * bench_gtsv_cpu.c -- batched tridiagonal solves on one CPU core: the CPU
 * backend (THOMAS, PARTIAL, GIVENS; interleaved and contiguous layouts)
 * against a loop over LAPACKE_dgtsv and a loop over GSL's
 * gsl_linalg_solve_tridiag, side by side, double precision, one right-hand
 * side, m in {8, 16, ..., 4096}, about 2^20 equations per call.
 *
 * LAPACKE_dgtsv overwrites its diagonals, so its loop copies each system's
 * three diagonals first (the library's diagonals are read-only; the copy
 * is counted: it is what a caller must do to keep them).  GSL allocates a
 * workspace on every call; that is counted too.  Times are the minimum over
 * repetitions (the machine may be shared).
 *
 *   build/perf/bench_gtsv_cpu [csv-file]     (default perf/bench_gtsv_cpu.csv; the plot
 *   beside it as .png, perf/plot_gtsv_cpu.gp, when gnuplot is installed)
 * Environment: BENCH_EQ=<equations per call> (default 2^20), BENCH_REPS.
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
    const char *csv = argc > 1 ? argv[1] : "perf/bench_gtsv_cpu.csv";
    const char *e = getenv("BENCH_EQ");
    const long long total = e ? atoll(e) : (1LL << 20);
    e = getenv("BENCH_REPS");
    const int reps = e ? atoi(e) : 5;
    gsl_set_error_handler_off();
    bsolve_ctx *ctx;
    if (bsolve_ctx_create(&ctx, BSOLVE_BACKEND_CPU) != BSOLVE_SUCCESS) return 1;
    bsolve_ctx_set_threads(ctx, 1);
    FILE *f = fopen(csv, "w");
    if (f) fprintf(f, "m,batch,solver,layout,seconds,meq_per_s,speedup_vs_lapacke\n");
    printf("batched tridiagonal solves, double, nrhs = 1, one core; million equations per second (min of %d)\n", reps);
    printf("%6s %7s | %8s %8s | %8s %8s %8s | %8s %8s %8s | %7s %7s %7s\n", "m", "batch", "LAPACKE", "GSL",
           "thom-il", "part-il", "givn-il", "thom-ct", "part-ct", "givn-ct", "part/L", "thom/L", "givn/L");
    for (long long m = 8; m <= 4096; m *= 2) {
        const long long batch = total / m, n = m * batch;
        double *dl = malloc(8 * n), *d = malloc(8 * n), *du = malloc(8 * n), *b = malloc(8 * n), *x = malloc(8 * n);
        double *il = malloc(8 * n), *id = malloc(8 * n), *iu = malloc(8 * n), *ib = malloc(8 * n);
        double *wl = malloc(8 * m), *wd = malloc(8 * m), *wu = malloc(8 * m);
        int32_t *info = malloc(4 * batch);
        unsigned long long s = 42;
        for (long long i = 0; i < n; i++) {
            dl[i] = urand(&s), du[i] = urand(&s), b[i] = urand(&s);
            d[i] = 3 + urand(&s);
        }
        for (long long k = 0; k < batch; k++)
            for (long long i = 0; i < m; i++) {
                il[i * batch + k] = dl[k * m + i], id[i * batch + k] = d[k * m + i];
                iu[i * batch + k] = du[k * m + i], ib[i * batch + k] = b[k * m + i];
            }
        double t[8];
        for (int c = 0; c < 8; c++) t[c] = INFINITY;
        for (int r = 0; r < reps; r++) {
            double t0 = now();
            memcpy(x, b, 8 * n);
            for (long long k = 0; k < batch; k++) {
                memcpy(wl, dl + k * m + 1, 8 * (m - 1));
                memcpy(wd, d + k * m, 8 * m);
                memcpy(wu, du + k * m, 8 * (m - 1));
                LAPACKE_dgtsv(LAPACK_COL_MAJOR, (lapack_int)m, 1, wl, wd, wu, x + k * m, (lapack_int)m);
            }
            double t1 = now();
            if (t1 - t0 < t[0]) t[0] = t1 - t0;
            t0 = now();
            for (long long k = 0; k < batch; k++) {
                gsl_vector_const_view vd = gsl_vector_const_view_array(d + k * m, m);
                gsl_vector_const_view vu = gsl_vector_const_view_array(du + k * m, m - 1);
                gsl_vector_const_view vl = gsl_vector_const_view_array(dl + k * m + 1, m - 1);
                gsl_vector_const_view vb = gsl_vector_const_view_array(b + k * m, m);
                gsl_vector_view vx = gsl_vector_view_array(x + k * m, m);
                gsl_linalg_solve_tridiag(&vd.vector, &vu.vector, &vl.vector, &vb.vector, &vx.vector);
            }
            t1 = now();
            if (t1 - t0 < t[1]) t[1] = t1 - t0;
            for (int me = 0; me < 3; me++) {
                memcpy(x, ib, 8 * n);
                t0 = now();
                bsolve_dgtsv(ctx, (bsolve_gtsv_method)me, m, 1, batch, il, id, iu, bsolve_tlayout_interleaved(batch), x,
                             bsolve_tlayout_interleaved(batch), info);
                t1 = now();
                if (t1 - t0 < t[2 + me]) t[2 + me] = t1 - t0;
                memcpy(x, b, 8 * n);
                t0 = now();
                bsolve_dgtsv(ctx, (bsolve_gtsv_method)me, m, 1, batch, dl, d, du, bsolve_tlayout_contiguous(m, m), x,
                             bsolve_tlayout_contiguous(m, m), info);
                t1 = now();
                if (t1 - t0 < t[5 + me]) t[5 + me] = t1 - t0;
            }
        }
        double r[8];
        for (int c = 0; c < 8; c++) r[c] = n / t[c] * 1e-6;
        printf("%6lld %7lld | %8.1f %8.1f | %8.1f %8.1f %8.1f | %8.1f %8.1f %8.1f | %6.1fx %6.1fx %6.1fx\n", m, batch,
               r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[3] / r[0], r[2] / r[0], r[4] / r[0]);
        fflush(stdout);
        static const char *name[8] = {"lapacke_dgtsv_loop", "gsl_solve_tridiag_loop", "bsolve_thomas", "bsolve_partial",
                                      "bsolve_givens", "bsolve_thomas", "bsolve_partial", "bsolve_givens"};
        if (f)
            for (int c = 0; c < 8; c++)
                fprintf(f, "%lld,%lld,%s,%s,%.6g,%.4g,%.3f\n", m, batch, name[c],
                        c < 2 ? "contiguous" : c < 5 ? "interleaved" : "contiguous", t[c], r[c], r[c] / r[0]);
        free(dl), free(d), free(du), free(b), free(x), free(il), free(id), free(iu), free(ib);
        free(wl), free(wd), free(wu), free(info);
    }
    if (f) fclose(f);
    printf("(ratios: bsolve interleaved over the LAPACKE loop; CSV in %s)\n", csv);
    if (f) bench_plot("perf/plot_gtsv_cpu.gp", csv, NULL, NULL);
    bsolve_ctx_destroy(ctx);
    return 0;
}
