/* readme_gtsv.c -- README.md's tridiagonal example in a program: lines
 * systems of m equations, one after another, solved with partial pivoting;
 * checks every solution. */
#include <batchsolve.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    const int64_t m = 100, lines = 2000;
    bsolve_ctx *ctx;
    if (bsolve_ctx_create(&ctx, BSOLVE_BACKEND_AUTO) != BSOLVE_SUCCESS) return 1;
    double *dl = malloc(sizeof *dl * m * lines), *d = malloc(sizeof *d * m * lines);
    double *du = malloc(sizeof *du * m * lines), *rhs = malloc(sizeof *rhs * m * lines);
    int32_t *info = malloc(sizeof *info * lines);
    if (!dl || !d || !du || !rhs || !info) return 1;
    /* not diagonally dominant (pivoting matters); rhs = T x with x_i = sin(i) */
    for (int64_t k = 0; k < lines; k++)
        for (int64_t i = 0; i < m; i++) {
            const int64_t o = k * m + i;
            dl[o] = 1.0 + 0.5 * cos((double)(o + 1));
            d[o] = 0.3 * sin((double)(3 * o));
            du[o] = 1.0 - 0.5 * cos((double)(7 * o));
        }
    for (int64_t k = 0; k < lines; k++)
        for (int64_t i = 0; i < m; i++) {
            const int64_t o = k * m + i;
            rhs[o] = d[o] * sin((double)i) + (i > 0 ? dl[o] * sin((double)(i - 1)) : 0.0) +
                     (i < m - 1 ? du[o] * sin((double)(i + 1)) : 0.0);
        }

    /* [README] */
    /* lines systems of m equations, stored one line after another */
    bsolve_tlayout lt = bsolve_tlayout_contiguous(m, m);
    bsolve_dgtsv(ctx, BSOLVE_GTSV_PARTIAL, m, 1, lines, dl, d, du, lt, rhs, lt, info);
    /* or equation i of every line contiguous (fastest): bsolve_tlayout_interleaved(lines) */
    /* [/README] */

    double err = 0;
    int64_t bad = 0;
    for (int64_t k = 0; k < lines; k++) {
        bad += info[k] != 0;
        for (int64_t i = 0; i < m; i++) {
            const double e = fabs(rhs[k * m + i] - sin((double)i));
            if (!(e <= err)) err = e;
        }
    }
    printf("readme_gtsv: %lld lines of %lld equations, largest error %.1e, %lld flagged\n", (long long)lines,
           (long long)m, err, (long long)bad);
    free(dl); free(d); free(du); free(rhs); free(info);
    bsolve_ctx_destroy(ctx);
    return bad == 0 && err < 1e-8 ? 0 : 1;
}
