/* readme_lu.c -- README.md's factor-once, solve-many example in a program:
 * a frozen Newton Jacobian J (interleaved, n = 4) factored once and used for
 * several solves, then exported in LAPACK form; checks both. */
#include <batchsolve.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    const int64_t n = 4, batch = 5000;
    const int iters = 3;
    bsolve_ctx *ctx;
    if (bsolve_ctx_create(&ctx, BSOLVE_BACKEND_AUTO) != BSOLVE_SUCCESS) return 1;
    double *J = malloc(sizeof *J * n * n * batch), *F = malloc(sizeof *F * n * batch);
    double *LU = malloc(sizeof *LU * n * n * batch), *y = malloc(sizeof *y * n);
    int32_t *ipiv = malloc(sizeof *ipiv * n * batch), *jpiv = malloc(sizeof *jpiv * n * batch);
    int32_t *info = malloc(sizeof *info * batch);
    if (!J || !F || !LU || !y || !ipiv || !jpiv || !info) return 1;
#define JE(i, j, k) J[((i) + (j) * n) * batch + (k)] /* interleaved: entry (i, j) of system k */
    for (int64_t k = 0; k < batch; k++)
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) JE(i, j, k) = cos((double)(1 + i + 3 * j + k)) + (i == j ? 3.0 : 0.0);
    /* F = J^iters x with x = (1, -1, 1, ...): the solves below bring back x */
    for (int64_t k = 0; k < batch; k++) {
        for (int64_t i = 0; i < n; i++) F[i * batch + k] = i % 2 ? -1.0 : 1.0;
        for (int it = 0; it < iters; it++) {
            for (int64_t i = 0; i < n; i++) {
                y[i] = 0;
                for (int64_t j = 0; j < n; j++) y[i] += JE(i, j, k) * F[j * batch + k];
            }
            for (int64_t i = 0; i < n; i++) F[i * batch + k] = y[i];
        }
    }

    /* [README] */
    bsolve_lu *lu;
    bsolve_lu_create(ctx, BSOLVE_PREC_D, BSOLVE_PIVOT_PARTIAL, n, batch, &lu);
    bsolve_dgetrf(ctx, J, bsolve_layout_interleaved(batch), lu, info);
    for (int it = 0; it < iters; it++)
        bsolve_dgetrs(ctx, lu, 1, F, bsolve_layout_interleaved(batch), info);
    bsolve_lu_export(ctx, lu, LU, bsolve_layout_col_major(n, n * n), ipiv, jpiv); /* LAPACK form */
    bsolve_lu_destroy(lu);
    /* [/README] */

    /* every x is back, and L U equals J with its rows interchanged as ipiv says */
    double err = 0, ferr = 0;
    int64_t bad = 0;
    for (int64_t k = 0; k < batch; k++) {
        bad += info[k] != 0;
        for (int64_t i = 0; i < n; i++) {
            const double e = fabs(F[i * batch + k] - (i % 2 ? -1.0 : 1.0));
            if (!(e <= err)) err = e;
        }
        int64_t row[16];
        for (int64_t i = 0; i < n; i++) row[i] = i;
        for (int64_t i = 0; i < n; i++) { /* apply the interchanges to the row order */
            const int64_t p = ipiv[k * n + i] - 1, t = row[i];
            if (p < 0 || p >= n) { bad++; break; }
            row[i] = row[p], row[p] = t;
        }
        const double *f = LU + k * n * n;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                double s = 0; /* (L U)(i, j), L unit lower, U upper */
                for (int64_t l = 0; l <= (i < j ? i : j); l++) s += (l == i ? 1.0 : f[i + l * n]) * f[l + j * n];
                const double e = fabs(s - JE(row[i], j, k));
                if (!(e <= ferr)) ferr = e;
            }
    }
    printf("readme_lu: %lld systems, %d solves each: largest error %.1e, of L U - P J %.1e, %lld flagged\n",
           (long long)batch, iters, err, ferr, (long long)bad);
    free(J); free(F); free(LU); free(y); free(ipiv); free(jpiv); free(info);
    bsolve_ctx_destroy(ctx);
    return bad == 0 && err < 1e-10 && ferr < 1e-12 ? 0 : 1;
}
