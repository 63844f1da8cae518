/*
 * probe_contract.c -- how far the split paths (getrf+getrs, geqrf+geqrs,
 * gttrf+gttrs) are from the fused calls (gesv, gels, gtsv) on one backend,
 * and how gels' residual part compares between backends and between
 * nrhs = 1 and nrhs = 2.  Host arrays; prints one line per case: the
 * largest difference in units of eps * max|x| (0 = bitwise equal).  The
 * residual part is in the header's canonical form (the residual norm in
 * row n, zeros below): its columns compare B(n) in units of eps * B(n), and
 * "not canon" counts the systems of any of the four answers whose part is
 * not in that form (a negative B(n), a nonzero below it).
 *   build/perf/probe_contract [cpu|cuda]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batchsolve.h"

static uint64_t rs = 88172645463325252ull;
static double urand(void)
{
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    return (double)(rs >> 11) * 0x1.0p-53 * 2 - 1;
}

static double maxdiff(const double *a, const double *b, size_t len)
{
    double d = 0, s = 0;
    for (size_t i = 0; i < len; i++) {
        if (fabs(a[i] - b[i]) > d) d = fabs(a[i] - b[i]);
        if (fabs(b[i]) > s) s = fabs(b[i]);
    }
    return s > 0 ? d / (s * 0x1.0p-52) : d;
}

int main(int argc, char **argv)
{
    bsolve_backend be = argc > 1 && !strcmp(argv[1], "cpu") ? BSOLVE_BACKEND_CPU : BSOLVE_BACKEND_CUDA;
    bsolve_ctx *ctx, *cpu;
    if (bsolve_ctx_create(&ctx, be) || bsolve_ctx_create(&cpu, BSOLVE_BACKEND_CPU)) {
        printf("SKIP: no context on %s\n", bsolve_backend_name(be));
        return 0;
    }
    const int64_t batch = 4096;
    /* ---- QR ---- */
    static const int shapes[][2] = {{4, 4}, {4, 8}, {6, 12}, {8, 16}, {5, 16}, {12, 16}, {16, 16}, {16, 24},
                                    {16, 32}, {24, 32}, {32, 32}, {32, 64}, {48, 64}, {64, 64}, {40, 72},
                                    {64, 80}, {64, 128}, {8, 128}};
    printf("QR FP64 (x: eps*max|x| units; tail: B(n), the residual norm, in eps*B(n) units)\n"
           "%8s %12s %12s %12s %12s %12s %10s\n",
           "n x m", "x gels/split", "tail g/split", "x nrhs1/2", "tail nrhs1/2", "tail vs cpu", "not canon");
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        const int n = shapes[s][0], m = shapes[s][1];
        double *A = malloc(sizeof(double) * m * n * batch), *B1 = malloc(sizeof(double) * m * batch),
               *B2 = malloc(sizeof(double) * m * batch), *B3 = malloc(sizeof(double) * 2 * m * batch),
               *B4 = malloc(sizeof(double) * m * batch);
        int32_t *info = malloc(sizeof(int32_t) * batch);
        for (int64_t i = 0; i < (int64_t)m * n * batch; i++) A[i] = urand();
        for (int64_t k = 0; k < batch; k++)
            for (int j = 0; j < n; j++) A[k * m * n + j * m + j] += sqrt((double)n);
        for (int64_t i = 0; i < (int64_t)m * batch; i++) B1[i] = urand();
        memcpy(B2, B1, sizeof(double) * m * batch);
        memcpy(B4, B1, sizeof(double) * m * batch);
        for (int64_t k = 0; k < batch; k++) {
            memcpy(B3 + k * 2 * m, B1 + k * m, sizeof(double) * m);
            memcpy(B3 + k * 2 * m + m, B1 + k * m, sizeof(double) * m);
        }
        bsolve_layout la = bsolve_layout_col_major(m, (int64_t)m * n), lb = bsolve_layout_col_major(m, m),
                      lb3 = bsolve_layout_col_major(m, 2 * m);
        bsolve_qr *qr;
        int bad = bsolve_dgels(ctx, m, n, 1, batch, A, la, B1, lb, info);
        bad |= bsolve_qr_create(ctx, BSOLVE_PREC_D, m, n, batch, &qr);
        bad |= bsolve_dgeqrf(ctx, A, la, qr, info) | bsolve_dgeqrs(ctx, qr, 1, B2, lb, info);
        bad |= bsolve_dgels(ctx, m, n, 2, batch, A, la, B3, lb3, info);
        bad |= bsolve_dgels(cpu, m, n, 1, batch, A, la, B4, lb, info);
        bsolve_qr_destroy(qr);
        if (bad) { printf("%dx%d: call failed: %s\n", n, m, bsolve_ctx_message(ctx)); continue; }
        double *X3 = malloc(sizeof(double) * m * batch);
        for (int64_t k = 0; k < batch; k++) memcpy(X3 + k * m, B3 + k * 2 * m, sizeof(double) * m);
        /* x rows and the residual part apart */
        double dx12 = 0, dt12 = 0, dx13 = 0, dt13 = 0, dt14 = 0;
        long noncanon = 0;
        for (int64_t k = 0; k < batch; k++) {
            double a;
            int bad_form = 0;
            for (int i = n; i < m; i++) {
                const double *t[4] = {B1 + k * m, B2 + k * m, X3 + k * m, B4 + k * m};
                for (int v = 0; v < 4; v++) bad_form |= i == n ? !(t[v][i] >= 0) : t[v][i] != 0;
            }
            noncanon += bad_form;
            if ((a = maxdiff(B2 + k * m, B1 + k * m, n)) > dx12) dx12 = a;
            if ((a = maxdiff(X3 + k * m, B1 + k * m, n)) > dx13) dx13 = a;
            if (m > n) {
                if ((a = maxdiff(B2 + k * m + n, B1 + k * m + n, m - n)) > dt12) dt12 = a;
                if ((a = maxdiff(X3 + k * m + n, B1 + k * m + n, m - n)) > dt13) dt13 = a;
                if ((a = maxdiff(B1 + k * m + n, B4 + k * m + n, m - n)) > dt14) dt14 = a;
            }
        }
        printf("%3dx%-4d %12.3g %12.3g %12.3g %12.3g %12.3g %10ld\n", n, m, dx12, dt12, dx13, dt13, dt14, noncanon);
        free(A); free(B1); free(B2); free(B3); free(B4); free(X3); free(info);
    }
    /* ---- tridiagonal ---- */
    printf("gtsv vs gttrf+gttrs (x: eps*max|x| units)\n%8s %10s %10s %10s\n", "m", "THOMAS", "PARTIAL", "GIVENS");
    static const int ms[] = {4, 16, 17, 64, 200, 1000, 4096, 20000};
    for (size_t s = 0; s < sizeof ms / sizeof *ms; s++) {
        const int64_t m = ms[s], nb = m >= 4096 ? 64 : 2048;
        double *dl = malloc(sizeof(double) * m * nb), *d = malloc(sizeof(double) * m * nb),
               *du = malloc(sizeof(double) * m * nb), *b1 = malloc(sizeof(double) * m * nb),
               *b2 = malloc(sizeof(double) * m * nb);
        int32_t *info = malloc(sizeof(int32_t) * nb);
        printf("%8lld", (long long)m);
        for (int meth = 0; meth < 3; meth++) {
            for (int64_t i = 0; i < m * nb; i++) {
                dl[i] = urand(); du[i] = urand();
                /* THOMAS needs dominance; the others get small diagonals that need pivoting */
                d[i] = meth == 0 ? 3 + urand() : 0.1 * urand();
                b1[i] = b2[i] = urand();
            }
            bsolve_tlayout lt = bsolve_tlayout_contiguous(m, m);
            bsolve_gt *gt;
            int bad = bsolve_dgtsv(ctx, meth, m, 1, nb, dl, d, du, lt, b1, lt, info);
            bad |= bsolve_gt_create(ctx, BSOLVE_PREC_D, meth, m, nb, &gt);
            bad |= bsolve_dgttrf(ctx, dl, d, du, lt, gt, info) | bsolve_dgttrs(ctx, gt, 1, b2, lt, info);
            bsolve_gt_destroy(gt);
            double w = 0;
            for (int64_t k = 0; k < nb; k++) {
                if (info[k]) continue;
                double a = maxdiff(b2 + k * m, b1 + k * m, m);
                if (a > w) w = a;
            }
            if (bad) printf(" %10s", "fail");
            else printf(" %10.3g", w);
        }
        printf("\n");
        free(dl); free(d); free(du); free(b1); free(b2); free(info);
    }
    /* ---- LU ---- */
    printf("gesv vs getrf+getrs, PARTIAL FP64 (eps*max|x| units)\n");
    static const int ns[] = {4, 8, 12, 16, 24, 32, 40, 48, 64, 128};
    for (size_t s = 0; s < sizeof ns / sizeof *ns; s++) {
        const int n = ns[s];
        const int64_t nb = 2048;
        double *A = malloc(sizeof(double) * n * n * nb), *b1 = malloc(sizeof(double) * n * nb),
               *b2 = malloc(sizeof(double) * n * nb);
        int32_t *info = malloc(sizeof(int32_t) * nb);
        for (int64_t i = 0; i < (int64_t)n * n * nb; i++) A[i] = urand();
        for (int64_t i = 0; i < n * nb; i++) b1[i] = b2[i] = urand();
        bsolve_layout la = bsolve_layout_col_major(n, (int64_t)n * n), lb = bsolve_layout_col_major(n, n);
        for (int piv = 0; piv < 3; piv++) {
            bsolve_lu *lu;
            memcpy(b2, b1, sizeof(double) * n * nb);
            double *b0 = malloc(sizeof(double) * n * nb);
            memcpy(b0, b1, sizeof(double) * n * nb);
            int bad = bsolve_dgesv(ctx, piv, n, 1, nb, A, la, b0, lb, info);
            bad |= bsolve_lu_create(ctx, BSOLVE_PREC_D, piv, n, nb, &lu);
            bad |= bsolve_dgetrf(ctx, A, la, lu, info) | bsolve_dgetrs(ctx, lu, 1, b2, lb, info);
            bsolve_lu_destroy(lu);
            double w = 0;
            for (int64_t k = 0; k < nb; k++) {
                if (info[k]) continue;
                double a = maxdiff(b2 + k * n, b0 + k * n, n);
                if (a > w) w = a;
            }
            printf("n = %3d pivot %d: %s %.3g\n", n, piv, bad ? "fail" : "", w);
            free(b0);
        }
        free(A); free(b1); free(b2); free(info);
    }
    bsolve_ctx_destroy(ctx);
    bsolve_ctx_destroy(cpu);
    return 0;
}
