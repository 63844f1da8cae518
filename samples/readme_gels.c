/* readme_gels.c -- README.md's least-squares example in a program: tall
 * m x n systems whose right-hand sides are A x plus a part orthogonal to A's
 * columns, so that x is the least-squares solution; checks every x. */
#include <batchsolve.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    const int64_t m = 12, n = 3, batch = 20000;
    bsolve_ctx *ctx;
    if (bsolve_ctx_create(&ctx, BSOLVE_BACKEND_AUTO) != BSOLVE_SUCCESS) return 1;
    double *A = malloc(sizeof *A * m * n * batch), *B = malloc(sizeof *B * m * batch);
    int32_t *info = malloc(sizeof *info * batch);
    if (!A || !B || !info) return 1;
    /* columns 1, t, t^2 at m points t in [-1, 1]; b = A (1, 2, -1) + r, where r = t^3 - c t
     * is orthogonal to the columns (the grid is symmetric), so x = (1, 2, -1) and the
     * residual rows n..m-1 of B hold Q^T r, of norm ||r|| */
    double st2 = 0, st4 = 0, rr = 0;
    for (int64_t i = 0; i < m; i++) {
        const double t = -1.0 + 2.0 * (double)i / (double)(m - 1);
        st2 += t * t, st4 += t * t * t * t;
    }
    const double c = st4 / st2;
    for (int64_t k = 0; k < batch; k++) {
        double *a = A + k * m * n, *b = B + k * m;
        const double s = 1.0 + (double)(k % 5); /* each system scaled differently */
        for (int64_t i = 0; i < m; i++) {
            const double t = -1.0 + 2.0 * (double)i / (double)(m - 1), r = t * t * t - c * t;
            a[i] = s, a[i + m] = s * t, a[i + 2 * m] = s * t * t;
            b[i] = s * (1.0 + 2.0 * t - t * t) + r;
            if (k == 0) rr += r * r;
        }
    }

    /* [README] */
    bsolve_dgels(ctx, m, n, 1, batch, A, bsolve_layout_col_major(m, m * n),
                 B, bsolve_layout_col_major(m, m), info);
    /* [/README] */

    double err = 0, rerr = 0; /* largest error of x, and of the residual's norm */
    int64_t bad = 0;
    for (int64_t k = 0; k < batch; k++) {
        bad += info[k] != 0;
        const double x[3] = {1.0, 2.0, -1.0};
        double q = 0;
        for (int64_t j = 0; j < n; j++) {
            const double e = fabs(B[k * m + j] - x[j]);
            if (!(e <= err)) err = e;
        }
        for (int64_t i = n; i < m; i++) q += B[k * m + i] * B[k * m + i];
        const double e = fabs(sqrt(q) - sqrt(rr));
        if (!(e <= rerr)) rerr = e;
    }
    printf("readme_gels: %lld systems of %lld x %lld, largest error %.1e, of the residual norm %.1e, %lld flagged\n",
           (long long)batch, (long long)m, (long long)n, err, rerr, (long long)bad);
    free(A); free(B); free(info);
    bsolve_ctx_destroy(ctx);
    return bad == 0 && err < 1e-12 && rerr < 1e-12 ? 0 : 1;
}
