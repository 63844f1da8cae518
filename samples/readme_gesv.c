/* readme_gesv.c -- README.md's first example (the part between the README
 * marks) and a main that solves a batch with it and checks every solution. */
/* [README] */
#include <batchsolve.h>
#include <stdio.h>

/* Solve batch systems A_k x_k = b_k, n x n, stored column-major one after another. */
int solve_all(int64_t n, int64_t batch, const double *A, double *B, int32_t *info)
{
    bsolve_ctx *ctx;
    if (bsolve_ctx_create(&ctx, BSOLVE_BACKEND_AUTO) != BSOLVE_SUCCESS) return -1;
    bsolve_status s = bsolve_dgesv(ctx, BSOLVE_PIVOT_PARTIAL, n, 1, batch,
                                   A, bsolve_layout_col_major(n, n * n),
                                   B, bsolve_layout_col_major(n, n), info);
    if (s != BSOLVE_SUCCESS) fprintf(stderr, "batchsolve: %s\n", bsolve_ctx_message(ctx));
    bsolve_ctx_destroy(ctx);   /* info[k] != 0: system k was singular (k-th pivot) or non-finite */
    return s == BSOLVE_SUCCESS ? 0 : -1;
}
/* [/README] */

#include <math.h>
#include <stdlib.h>

int main(void)
{
    const int64_t n = 6, batch = 10000;
    double *A = malloc(sizeof *A * n * n * batch), *B = malloc(sizeof *B * n * batch);
    int32_t *info = malloc(sizeof *info * batch);
    if (!A || !B || !info) return 1;
    for (int64_t k = 0; k < batch; k++)      /* A_k(i,j) = 1/(i+j+1) + (1 + k % 7) [i == j], x_k = (1..n) */
        for (int64_t i = 0; i < n; i++) {
            B[k * n + i] = 0;
            for (int64_t j = 0; j < n; j++) {
                A[k * n * n + i + j * n] = 1.0 / (double)(i + j + 1) + (i == j ? (double)(1 + k % 7) : 0.0);
                B[k * n + i] += A[k * n * n + i + j * n] * (double)(j + 1);
            }
        }
    const int rc = solve_all(n, batch, A, B, info);
    double err = 0;  /* largest relative error of a solution entry */
    int64_t bad = 0; /* systems reported singular or non-finite */
    for (int64_t k = 0; k < batch; k++) {
        bad += info[k] != 0;
        for (int64_t i = 0; i < n; i++) {
            const double e = fabs(B[k * n + i] - (double)(i + 1)) / (double)(i + 1);
            if (!(e <= err)) err = e; /* a NaN counts as the largest */
        }
    }
    printf("readme_gesv: %lld systems of order %lld, %lld flagged, largest relative error %.1e\n",
           (long long)batch, (long long)n, (long long)bad, err);
    free(A); free(B); free(info);
    return rc == 0 && bad == 0 && err < 1e-12 ? 0 : 1;
}
