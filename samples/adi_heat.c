/*
 * adi_heat.c -- the 2-D heat equation u_t = kappa (u_xx + u_yy) on the unit
 * square (u = 0 on the boundary) by the Peaceman-Rachford ADI scheme: every
 * time step is two half steps, each one tridiagonal system per grid line.
 *
 *     (I - r/2 Dxx) u*      = (I + r/2 Dyy) u^n      one system per row
 *     (I - r/2 Dyy) u^{n+1} = (I + r/2 Dxx) u*       one system per column
 *
 * (Dxx, Dyy: second differences u[i-1] - 2 u[i] + u[i+1] along x and y;
 * r = kappa dt / h^2.)  The grid is one row-major array u[j*nx + i], as a
 * simulation code holds it, and neither sweep copies or transposes it:
 *
 *   - along x, row j is nx contiguous values: BSOLVE_TCONTIGUOUS, ld = nx,
 *     stride = nx;
 *   - along y, equation j of column i is u[j*nx + i], the columns' equation
 *     j side by side: that is BSOLVE_TINTERLEAVED with ld = nx.
 *
 * The matrices do not change from step to step, so each direction is
 * factored once (bsolve_dgttrf) and every half step is a solve
 * (bsolve_dgttrs).  THOMAS suffices: the matrices are diagonally dominant.
 *
 * Check: u0 = sin(pi x) sin(pi y) is an eigenvector of both second
 * differences (eigenvalue -mu, mu = 4 sin^2(pi h / 2)), so each step
 * multiplies it by g = ((1 - r mu / 2) / (1 + r mu / 2))^2 exactly: after N
 * steps u must equal g^N u0 up to rounding.  The continuous solution,
 * exp(-2 pi^2 kappa t) u0, is printed beside it (the scheme's
 * discretization error, not checked).
 *
 *   adi_heat [n [steps]]    an n x n interior grid (default 1024), steps
 *                           time steps (default 40)
 * Exit status 0 when the check passes.
 */
#define _POSIX_C_SOURCE 200809L
#include "batchsolve.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* out = (I + c D) in along `count` lines of `len` entries each; entry
 * e of line l at in[l*lstep + e*estep] (zero beyond the line's ends). */
static void explicit_half(const double *in, double *out, int64_t count, int64_t len, int64_t lstep, int64_t estep,
                          double c)
{
#pragma omp parallel for
    for (int64_t l = 0; l < count; l++)
        for (int64_t e = 0; e < len; e++) {
            const int64_t o = l * lstep + e * estep;
            const double left = e > 0 ? in[o - estep] : 0.0, right = e + 1 < len ? in[o + estep] : 0.0;
            out[o] = in[o] + c * (left - 2.0 * in[o] + right);
        }
}

/* systems of the last call whose info is not 0 */
static int nonzero(const int32_t *info, int64_t n)
{
    int c = 0;
    for (int64_t l = 0; l < n; l++) c += info[l] != 0;
    return c;
}

static int check(bsolve_status s, const char *what)
{
    if (s != BSOLVE_SUCCESS) fprintf(stderr, "%s: %s\n", what, bsolve_strerror(s));
    return s == BSOLVE_SUCCESS;
}

int main(int argc, char **argv)
{
    const int64_t n = argc > 1 ? atoll(argv[1]) : 1024, steps = argc > 2 ? atoll(argv[2]) : 40;
    if (n < 3 || steps < 1) {
        fprintf(stderr, "usage: adi_heat [n >= 3 [steps >= 1]]\n");
        return 2;
    }
    const double pi = 3.14159265358979323846, kappa = 1.0, h = 1.0 / (double)(n + 1);
    const double dt = h, r = kappa * dt / (h * h); /* r = n + 1 >> 1: ADI is stable for any r */
    const int64_t N = n * n;

    double *u = malloc(N * sizeof *u), *w = malloc(N * sizeof *w);
    double *dl = malloc(N * sizeof *dl), *d = malloc(N * sizeof *d), *du = malloc(N * sizeof *du);
    int32_t *info = malloc(n * sizeof *info);
    if (!u || !w || !dl || !d || !du || !info) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) u[j * n + i] = sin(pi * h * (i + 1)) * sin(pi * h * (j + 1));
    /* I - r/2 D for every line; the same n x n values serve both layouts
     * (each direction reads them as its own n systems of n equations) */
    for (int64_t t = 0; t < N; t++) dl[t] = -0.5 * r, d[t] = 1.0 + r, du[t] = -0.5 * r;

    bsolve_ctx *ctx;
    if (!check(bsolve_ctx_create(&ctx, BSOLVE_BACKEND_AUTO), "bsolve_ctx_create")) return 1;
    printf("adi_heat: %lld x %lld grid, %lld steps, r = %.1f, backend %s\n", (long long)n, (long long)n,
           (long long)steps, r, bsolve_backend_name(bsolve_ctx_backend(ctx)));

    const bsolve_tlayout rows = bsolve_tlayout_contiguous(n, n), cols = bsolve_tlayout_interleaved(n);
    bsolve_gt *fx = NULL, *fy = NULL;
    int ok = check(bsolve_gt_create(ctx, BSOLVE_PREC_D, BSOLVE_GTSV_THOMAS, n, n, &fx), "bsolve_gt_create") &&
             check(bsolve_gt_create(ctx, BSOLVE_PREC_D, BSOLVE_GTSV_THOMAS, n, n, &fy), "bsolve_gt_create");
    int bad = 0;
    ok = ok && check(bsolve_dgttrf(ctx, dl, d, du, rows, fx, info), "bsolve_dgttrf (x)");
    if (ok) bad += nonzero(info, n);
    ok = ok && check(bsolve_dgttrf(ctx, dl, d, du, cols, fy, info), "bsolve_dgttrf (y)");
    if (ok) bad += nonzero(info, n);

    const double t0 = now();
    for (int64_t s = 0; ok && s < steps; s++) {
        explicit_half(u, w, n, n, 1, n, 0.5 * r); /* (I + r/2 Dyy) u: along columns */
        ok = check(bsolve_dgttrs(ctx, fx, 1, w, rows, info), "bsolve_dgttrs (x)");
        if (ok) bad += nonzero(info, n);
        explicit_half(w, u, n, n, n, 1, 0.5 * r); /* (I + r/2 Dxx) u*: along rows */
        ok = ok && check(bsolve_dgttrs(ctx, fy, 1, u, cols, info), "bsolve_dgttrs (y)");
        if (ok) bad += nonzero(info, n);
    }
    const double el = now() - t0;
    if (!ok) return 1;

    const double mu = 4.0 * pow(sin(0.5 * pi * h), 2), gs = (1.0 - 0.5 * r * mu) / (1.0 + 0.5 * r * mu);
    const double amp = pow(gs * gs, (double)steps), amp_c = exp(-2.0 * pi * pi * kappa * dt * (double)steps);
    double err = 0.0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            const double e = fabs(u[j * n + i] - amp * sin(pi * h * (i + 1)) * sin(pi * h * (j + 1)));
            if (!(e <= err)) err = e; /* a NaN sticks */
        }
    const double rel = err / amp;
    printf("  %lld steps in %.3f s: %lld tridiagonal solves of %lld equations and the explicit halves, host "
           "arrays (%.3g million unknowns per second solved)\n",
           (long long)steps, el, (long long)(2 * steps * n), (long long)n, 2.0 * (double)steps * (double)N / el * 1e-6);
    printf("  amplitude after t = %.4g: %.6e (scheme, exact for this mode), continuous solution %.6e\n",
           dt * (double)steps, amp, amp_c);
    printf("  max |u - scheme| / amplitude = %.2e, nonzero info: %d\n", rel, bad);

    bsolve_gt_destroy(fx);
    bsolve_gt_destroy(fy);
    bsolve_ctx_destroy(ctx);
    free(u), free(w), free(dl), free(d), free(du), free(info);
    /* each half step's solve and explicit part add a few roundings of u */
    const int pass = bad == 0 && rel < 1e-10 * (double)steps;
    printf("%s\n", pass ? "PASS" : "FAIL");
    return pass ? 0 : 1;
}
