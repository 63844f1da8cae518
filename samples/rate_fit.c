/*
 * rate_fit.c -- a rate law fitted in every cell of a model by linear least
 * squares (bsolve_dgels): each cell measured its reaction rate k at m
 * temperatures, and the modified Arrhenius law
 *
 *     k(T) = A T^beta exp(-E / (R T)),  i.e.  ln k = ln A + beta ln T - (E/R) / T,
 *
 * is linear in x = (ln A, beta, E/R): row i of cell c's m x 3 matrix is
 * (1, ln T_i, -1/T_i) and its right-hand side ln k_i.  The columns differ in
 * scale by 10^3 and ln T and 1/T are nearly collinear over a narrow
 * temperature range, so the fit needs an orthogonal factorization rather
 * than the normal equations.
 *
 * 200,000 cells, m = 12, one matrix after another (COL_MAJOR, as a code
 * assembling cell by cell writes them).  Half of them measured exactly, half
 * with 2% noise.  Two are broken on purpose: cell 1 measured at a single
 * temperature (its three columns are proportional: info 2, the first
 * negligible column), cell 2 holds a NaN (info BSOLVE_INFO_NONFINITE).
 *
 * Checks: exactly those two cells fail, with NaN-filled results; exact cells
 * give back their true parameters (to 1e-6 relative: the worst-conditioned
 * fits lose 8 digits) with a backward error ||b - A x|| / (m eps ||A|| ||x||)
 * below 10; in noisy cells the residual r = b - A x is orthogonal to every
 * column (||A(:,j)^T r|| <= 1e-9 ||A(:,j)|| ||r||) and its norm is that of
 * rows 3..m-1 of the returned B (as LAPACK's dgels).
 * Exit status 0 when every check passes.
 */
#define _POSIX_C_SOURCE 200809L
#include "batchsolve.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define M 12 /* measurements per cell */
#define N 3  /* parameters */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* uniform in [0, 1), and a standard normal (Box-Muller), from a 64-bit LCG
 * so that the run is the same everywhere */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double uni(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) * 0x1p-53;
}
static double normal(void)
{
    const double u = uni() + 0x1p-54, v = uni();
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

int main(void)
{
    const int64_t cells = 200000;
    double *A = malloc(cells * M * N * sizeof *A), *b = malloc(cells * M * sizeof *b);
    double *B = malloc(cells * M * sizeof *B), *truth = malloc(cells * N * sizeof *truth);
    int32_t *info = malloc(cells * sizeof *info);
    if (!A || !b || !B || !truth || !info) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int64_t c = 0; c < cells; c++) {
        const double lnA = 20.0 + 10.0 * uni(), beta = -1.0 + 3.0 * uni(), ER = 5000.0 + 25000.0 * uni();
        const double tlo = 300.0 + 300.0 * uni(), thi = tlo * (2.0 + 2.0 * uni());
        const double sigma = c % 2 ? 0.02 : 0.0; /* odd cells: 2% noise */
        truth[c * N + 0] = lnA, truth[c * N + 1] = beta, truth[c * N + 2] = ER;
        for (int i = 0; i < M; i++) {
            const double T = c == 1 ? tlo : tlo + (thi - tlo) * i / (M - 1);
            double *a = A + c * M * N; /* column-major m x 3 */
            a[i] = 1.0, a[i + M] = log(T), a[i + 2 * M] = -1.0 / T;
            b[c * M + i] = lnA + beta * log(T) - ER / T + sigma * normal();
        }
    }
    b[2 * M + 5] = NAN;
    for (int64_t t = 0; t < cells * M; t++) B[t] = b[t];

    bsolve_ctx *ctx;
    bsolve_status s = bsolve_ctx_create(&ctx, BSOLVE_BACKEND_AUTO);
    if (s != BSOLVE_SUCCESS) {
        fprintf(stderr, "bsolve_ctx_create: %s\n", bsolve_strerror(s));
        return 1;
    }
    printf("rate_fit: %lld cells, %d x %d least squares each, backend %s\n", (long long)cells, M, N,
           bsolve_backend_name(bsolve_ctx_backend(ctx)));
    const double t0 = now();
    s = bsolve_dgels(ctx, M, N, 1, cells, A, bsolve_layout_col_major(M, M * N), B, bsolve_layout_col_major(M, M),
                     info);
    const double el = now() - t0;
    if (s != BSOLVE_SUCCESS) {
        fprintf(stderr, "bsolve_dgels: %s: %s\n", bsolve_strerror(s), bsolve_ctx_message(ctx));
        return 1;
    }
    printf("  solved in %.3f s (%.3g cells per second, host arrays)\n", el, (double)cells / el);

    int64_t failed = 0, bad_nan = 0, bad_exact = 0, bad_opt = 0, bad_res = 0;
    double worst_exact = 0.0, worst_be = 0.0, worst_opt = 0.0, worst_res = 0.0, dbeta = 0.0;
    for (int64_t c = 0; c < cells; c++) {
        const double *a = A + c * M * N, *x = B + c * M;
        if (info[c] != 0) {
            failed++;
            for (int i = 0; i < M; i++) bad_nan += !isnan(x[i]);
            continue;
        }
        if (c % 2 == 0) { /* exact data: the true parameters, to the problem's conditioning (up to ~1e8 in
                           * the narrowest temperature ranges), and a residual at rounding level */
            double rn = 0.0, an = 0.0, xn = 0.0;
            for (int j = 0; j < N; j++) {
                const double e = fabs(x[j] - truth[c * N + j]) / fabs(truth[c * N + j]);
                if (!(e <= worst_exact)) worst_exact = e;
                bad_exact += !(e < 1e-6);
                xn += x[j] * x[j];
            }
            for (int i = 0; i < M; i++) {
                const double ri = b[c * M + i] - (a[i] * x[0] + a[i + M] * x[1] + a[i + 2 * M] * x[2]);
                rn += ri * ri;
                an += a[i] * a[i] + a[i + M] * a[i + M] + a[i + 2 * M] * a[i + 2 * M];
            }
            const double be = sqrt(rn) / (sqrt(an) * sqrt(xn) * M * 2.220446049250313e-16);
            if (!(be <= worst_be)) worst_be = be;
            bad_exact += !(be < 10.0);
            continue;
        }
        /* noisy data: r = b - A x orthogonal to the columns, and ||r|| equal
         * to the norm of the residual part of B */
        double r[M], rn = 0.0, tail = 0.0, atr = 0.0;
        for (int i = 0; i < M; i++) {
            r[i] = b[c * M + i] - (a[i] * x[0] + a[i + M] * x[1] + a[i + 2 * M] * x[2]);
            rn += r[i] * r[i];
            if (i >= N) tail += x[i] * x[i];
        }
        for (int j = 0; j < N; j++) {
            double dot = 0.0, cn = 0.0;
            for (int i = 0; i < M; i++) dot += a[i + j * M] * r[i], cn += a[i + j * M] * a[i + j * M];
            /* relative to each column's norm: the columns' scales differ by 10^3 */
            const double q = fabs(dot) / (sqrt(cn) * sqrt(rn));
            if (!(q <= atr)) atr = q;
        }
        const double er = fabs(sqrt(tail) - sqrt(rn)) / sqrt(rn);
        if (!(atr <= worst_opt)) worst_opt = atr;
        if (!(er <= worst_res)) worst_res = er;
        bad_opt += !(atr < 1e-9);
        bad_res += !(er < 1e-8);
        dbeta += fabs(x[1] - truth[c * N + 1]);
    }
    printf("  failed cells: %lld (info[1] = %d: a single temperature; info[2] = %d: a NaN)\n", (long long)failed,
           info[1], info[2]);
    printf("  exact cells: worst relative parameter error %.2e, worst ||b - A x|| / (m eps ||A|| ||x||) %.2g\n",
           worst_exact, worst_be);
    printf("  noisy cells: worst ||A(:,j)^T r|| / (||A(:,j)|| ||r||) %.2e, residual norm from B vs b - A x %.2e,"
           " mean |beta - true beta| %.3f\n",
           worst_opt, worst_res, dbeta / (double)(cells / 2));
    const int pass = failed == 2 && info[1] == 2 && info[2] == BSOLVE_INFO_NONFINITE && bad_nan == 0 &&
                     bad_exact == 0 && bad_opt == 0 && bad_res == 0;
    bsolve_ctx_destroy(ctx);
    free(A), free(b), free(B), free(truth), free(info);
    printf("%s\n", pass ? "PASS" : "FAIL");
    return pass ? 0 : 1;
}
