/*
 * gpu_qr.c -- GPU-only checks of the CUDA QR backend (make gpu-test):
 * bsolve_?gels, ?geqrf / ?geqrs, bsolve_qr_export against the CPU backend.
 *
 * On the same random inputs (uniform [-1, 1] plus sqrt(n) on the diagonal,
 * so that square systems are well conditioned), per system:
 *   - info identical to the CPU backend's (0, the negligible column for a
 *     zero column or two equal columns, -1 for NaN/Inf in A or B);
 *   - host- and device-pointer results bit-identical (same kernels);
 *   - solved systems: the least-squares optimality ratio
 *     ||A^T (b - A x)|| / (m eps ||A||_F (||r|| + ||A||_F ||x||)) < 30 in
 *     long double from the original data; x and the residual part (the
 *     canonical form: B(n) = ||b - A x|| >= 0 within 30 m eps (||b|| +
 *     ||A||_F ||x||) in long double, rows below exactly 0) equal to the
 *     CPU's within 1000 m eps, whether the kernel rotated or reflected
 *     (qr_hh.cuh); R and Q themselves are checked through the export;
 *   - failed systems all NaN (m x nrhs); every output written (poisoned
 *     first), gaps untouched, A left bit-identical;
 *   - geqrf + geqrs give gels' info and solutions; export gives
 *     ||Q^T Q - I|| / (m eps) < 30, ||Q(:,0:n-1) R - A|| / (m eps ||A||) < 30,
 *     R equal to the CPU backend's export within 1000 m eps ||A||.
 * Sizes: n = 1..16 and 20, 24, 32, 40, 48, 64; m in {n, n+1, 2n, 128};
 * nrhs 1..3 (and 11: several passes); batch 1, 33, 10007; every layout of
 * A and B; s and d; matrices scaled by 1e+-300 (1e+-35 in float); and
 * nrhs = 1 on the shapes of the column-per-lane kernel (m <= 64, n <= 32)
 * and beyond them (n <= 64); and nrhs = 1 on the register kernel's
 * buckets whose shape equals the bucket (its wavefront copy), at 1e+-300 too;
 * and FP64 column-major A with even and odd strides on the column-per-lane
 * kernel's row buckets up to 32 (its copies that load two rows at a time);
 * and a system with a column of tiny entries (1e-170) on its buckets.
 * BSOLVE_TEST_QUICK=1: a subset small enough for compute-sanitizer.
 * After the dispatch table's run, the same cases run again with kernel
 * choices forced on the context (bsi_test_force, src/internal.h; the
 * quick subset unless said): every shape on the team kernel with teams of
 * 64 and of 256 threads (the block-wide teams on shapes they never get by
 * default, n = 1 and m < T included); every FP64 gels nrhs = 1 shape on
 * the paired-step kernel (qr_pair.cuh) with bands of one, two and four
 * threads; (the full set) the rotations (column-per-lane and paired-step
 * kernels) on the shapes that the Householder kernel takes by default; the
 * Householder kernel on every shape it can take (m = 65..79 too); its
 * lanes one column each; and no register kernel (its shapes on the
 * column-per-lane, Householder and team kernels: FP32 16 x 8 reaches the
 * column-per-lane kernel only so); test/test_dispatch.c checks that the
 * table and these configurations choose every compiled kernel for some
 * shape.  BSOLVE_TEST_CONFIG=0 runs the table's kernels only, =k the
 * forced configuration k only; BSOLVE_TEST_SANITIZE (set by the
 * compute-sanitizer runs) the table's only.
 * Prints "SKIP: no CUDA device" and exits 0 without a GPU.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batchsolve.h"
#include "gpu_check.h"
#include "gpu_dense.h"
#include "internal.h" /* bsi_test_force */

#ifndef HAVE_CUDART
int main(void) { return gpu_check_skip_main(); }
#else

static int quick;
static const char *g_cfg = ""; /* the forced configuration running (main), "" for the table's */

static int same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

static bsolve_status gels(bsolve_ctx *c, int dbl, int64_t m, int64_t n, int64_t nrhs, int64_t batch, const void *A,
                          bsolve_layout la, void *B, bsolve_layout lb, int32_t *info)
{
    return dbl ? bsolve_dgels(c, m, n, nrhs, batch, A, la, B, lb, info)
               : bsolve_sgels(c, m, n, nrhs, batch, A, la, B, lb, info);
}
static bsolve_status geqrf(bsolve_ctx *c, int dbl, const void *A, bsolve_layout la, bsolve_qr *qr, int32_t *info)
{
    return dbl ? bsolve_dgeqrf(c, A, la, qr, info) : bsolve_sgeqrf(c, A, la, qr, info);
}
static bsolve_status geqrs(bsolve_ctx *c, int dbl, bsolve_qr *qr, int64_t nrhs, void *B, bsolve_layout lb,
                           int32_t *info)
{
    return dbl ? bsolve_dgeqrs(c, qr, nrhs, B, lb, info) : bsolve_sgeqrs(c, qr, nrhs, B, lb, info);
}

/* ||A^T (b - A x)|| / (m eps ||A||_F (||r|| + ||A||_F ||x||)), worst over
 * the right-hand sides of system k; INFINITY for a non-finite x.  *rw: the
 * worst |X(n) - ||r||| / (m eps (||b|| + ||A||_F ||x||)), the canonical
 * residual entry against the residual norm (0 for m = n). */
static double lsq_ratio(int m, int n, int nrhs, int dbl, const void *A, bsolve_layout la, const void *B,
                        const void *X, bsolve_layout lb, int64_t k, double *rw)
{
    *rw = 0;
    const double eps = dbl ? 2.220446049250313e-16 : 1.1920929e-07;
    long double af = 0, *r = malloc(sizeof *r * m);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            long double a = get(A, dbl, idx(la, m, i, j, k));
            af += a * a;
        }
    af = sqrtl(af);
    double worst = 0;
    for (int c = 0; c < nrhs; c++) {
        long double xn = 0, rn = 0, gn = 0, bn = 0;
        for (int j = 0; j < n; j++) {
            long double x = get(X, dbl, idx(lb, m, j, c, k));
            if (!isfinite((double)x)) { free(r); *rw = INFINITY; return INFINITY; }
            xn += x * x;
        }
        for (int i = 0; i < m; i++) {
            long double s = get(B, dbl, idx(lb, m, i, c, k));
            bn += s * s;
            for (int j = 0; j < n; j++)
                s -= (long double)get(A, dbl, idx(la, m, i, j, k)) * get(X, dbl, idx(lb, m, j, c, k));
            r[i] = s;
            rn += s * s;
        }
        for (int j = 0; j < n; j++) {
            long double g = 0;
            for (int i = 0; i < m; i++) g += (long double)get(A, dbl, idx(la, m, i, j, k)) * r[i];
            gn += g * g;
        }
        const long double den = m * eps * af * (sqrtl(rn) + af * sqrtl(xn));
        const double q = den == 0 ? (gn == 0 ? 0 : INFINITY) : (double)(sqrtl(gn) / den);
        if (q > worst) worst = q;
        if (m > n) {
            const long double d = fabsl(get(X, dbl, idx(lb, m, n, c, k)) - sqrtl(rn)),
                              dr = m * eps * (sqrtl(bn) + af * sqrtl(xn));
            const double qr = dr == 0 ? (d == 0 ? 0 : INFINITY) : (double)(d / dr);
            if (!(qr <= *rw)) *rw = qr;
        }
    }
    free(r);
    return worst;
}

/* Export checks of a GPU factorization against A and the CPU's export. */
static void check_export(bsolve_ctx *cpu, bsolve_ctx *gpu, int dbl, int m, int n, int64_t batch, const void *A,
                         bsolve_layout la, bsolve_qr *qg, const int32_t *finfo, const char *desc)
{
    const size_t es = dbl ? 8 : 4;
    const double eps = dbl ? 2.220446049250313e-16 : 1.1920929e-07;
    bsolve_layout lq = bsolve_layout_col_major(m, (int64_t)m * m), lr = bsolve_layout_col_major(n, (int64_t)n * n);
    void *Q = malloc((size_t)m * m * batch * es), *Rg = malloc((size_t)n * n * batch * es),
         *Rc = malloc((size_t)n * n * batch * es);
    for (int64_t t = 0; t < (int64_t)m * m * batch; t++) put(Q, dbl, t, 777.0);
    for (int64_t t = 0; t < (int64_t)n * n * batch; t++) put(Rg, dbl, t, 777.0);
    bsolve_status s = bsolve_qr_export(gpu, qg, Q, lq, Rg, lr);
    CHECK(s == 0, "%s: export status %d (%s)", desc, s, bsolve_ctx_message(gpu));
    bsolve_qr *qc = NULL;
    int32_t *ic = malloc(batch * 4);
    s = bsolve_qr_create(cpu, dbl ? BSOLVE_PREC_D : BSOLVE_PREC_S, m, n, batch, &qc);
    if (s == 0) s = geqrf(cpu, dbl, A, la, qc, ic);
    if (s == 0) s = bsolve_qr_export(cpu, qc, NULL, lq, Rc, lr);
    CHECK(s == 0, "%s: CPU export status %d", desc, s);
    long bad_q = 0, bad_qr = 0, bad_r = 0, bad_w = 0;
    double wq = 0, wqr = 0, wr = 0;
    for (int64_t k = 0; k < batch; k++) {
        if (finfo[k] == BSOLVE_INFO_NONFINITE) continue;
        double an = 0;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) an = fmax(an, fabs(get(A, dbl, idx(la, m, i, j, k))));
        for (int64_t t = 0; t < (int64_t)m * m; t++)
            if (get(Q, dbl, k * m * m + t) == 777.0) bad_w++;
        for (int i = 0; i < m; i++)
            for (int j = 0; j < m; j++) {
                long double d = i == j ? -1.0L : 0.0L;
                for (int r = 0; r < m; r++)
                    d += (long double)get(Q, dbl, k * m * m + r + i * m) * get(Q, dbl, k * m * m + r + j * m);
                const double q = fabs((double)d) / (m * eps);
                if (q > wq) wq = q;
                if (!(q < 30)) bad_q++;
            }
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                long double d = -(long double)get(A, dbl, idx(la, m, i, j, k));
                for (int r = 0; r <= j; r++)
                    d += (long double)get(Q, dbl, k * m * m + i + r * m) * get(Rg, dbl, k * n * n + r + j * n);
                const double q = an == 0 ? fabs((double)d) : fabs((double)d) / (m * eps * an);
                if (q > wqr) wqr = q;
                if (!(q < 30)) bad_qr++;
            }
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                const double g = get(Rg, dbl, k * n * n + i + j * n), c = get(Rc, dbl, k * n * n + i + j * n);
                if (i > j && g != 0) bad_r++;
                const double q = an == 0 ? fabs(g - c) : fabs(g - c) / (m * eps * an);
                if (q > wr) wr = q;
                if (!(q < 1000) && bad_r++ == 0)
                    fprintf(stderr, "  first R mismatch: system %lld (info gpu %d cpu %d) R(%d,%d) = %.17g, CPU %.17g\n",
                            (long long)k, finfo[k], ic[k], i, j, g, c);
            }
    }
    CHECK(bad_w == 0, "%s: %ld Q entries not written", desc, bad_w);
    CHECK(bad_q == 0, "%s: %ld entries of Q^T Q - I >= 30 m eps (worst %g)", desc, bad_q, wq);
    CHECK(bad_qr == 0, "%s: %ld entries of QR - A >= 30 m eps ||A|| (worst %g)", desc, bad_qr, wqr);
    CHECK(bad_r == 0, "%s: %ld entries of R differ from the CPU's (worst %g m eps ||A||)", desc, bad_r, wr);
    bsolve_qr_destroy(qc);
    free(ic);
    free(Q);
    free(Rg);
    free(Rc);
}

/* g_tinycol: system 7's column 1 scaled by 1e-170 (1e-25 in float), so that
 * its rotations need dlartg's scaling while A's largest entry does not
 * (the column-per-lane kernel's second pass, qr_warp.cuh's WHOLE) */
static int g_tinycol;

/* scale: multiplies A and B (1e300 / 1e-300 cases); inject: rank-deficient
 * and non-finite systems. */
static void run_case(bsolve_ctx *cpu, bsolve_ctx *gpu, cudaStream_t us, int dbl, int m, int n, int nrhs,
                     int64_t batch, bsolve_layout_kind ka, bsolve_layout_kind kb, int pad, double scale, int export)
{
    const size_t es = dbl ? 8 : 4;
    const double eps = dbl ? 2.220446049250313e-16 : 1.1920929e-07;
    bsolve_layout la = mk(ka, pad, m, n, batch), lb = mk(kb, pad, m, nrhs, batch);
    const size_t sa = span(la, m, n, batch), sb = span(lb, m, nrhs, batch);
    char desc[320];
    snprintf(desc, sizeof desc, "%s%s%cgels m=%d n=%d nrhs=%d batch=%lld A=%s B=%s pad=%d scale=%g", g_cfg,
             *g_cfg ? ": " : "", dbl ? 'd' : 's', m, n, nrhs, (long long)batch, kname[ka], kname[kb], pad, scale);
    void *A = malloc(sa * es), *A0 = malloc(sa * es), *B = malloc(sb * es), *X0 = malloc(sb * es),
         *X1 = malloc(sb * es), *X2 = malloc(sb * es), *X3 = malloc(sb * es), *X4 = malloc(sb * es);
    int32_t *i0 = malloc(batch * 4), *i1 = malloc(batch * 4), *i2 = malloc(batch * 4), *i3 = malloc(batch * 4),
            *i4 = malloc(batch * 4), *i5 = malloc(batch * 4);
    for (size_t t = 0; t < sa; t++) put(A, dbl, t, 777.0);
    for (size_t t = 0; t < sb; t++) put(B, dbl, t, 777.0);
    const double boost = sqrt((double)n);
    for (int64_t k = 0; k < batch; k++) {
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) put(A, dbl, idx(la, m, i, j, k), scale * (urand() + (i == j ? boost : 0)));
        for (int c = 0; c < nrhs; c++)
            for (int i = 0; i < m; i++) put(B, dbl, idx(lb, m, i, c, k), scale * urand());
    }
    /* a zero column (info = its index), two equal columns, NaN in A, Inf in B */
    if (batch > 3) for (int i = 0; i < m; i++) put(A, dbl, idx(la, m, i, n / 2, 3), 0.0);
    if (batch > 4 && n > 1)
        for (int i = 0; i < m; i++) put(A, dbl, idx(la, m, i, n - 1, 4), get(A, dbl, idx(la, m, i, 0, 4)));
    if (batch > 5) put(A, dbl, idx(la, m, m - 1, n / 2, 5), NAN);
    if (batch > 6) put(B, dbl, idx(lb, m, m / 2, nrhs - 1, 6), INFINITY);
    if (batch > 20) put(A, dbl, idx(la, m, 0, 0, 20), -INFINITY);
    if (g_tinycol && batch > 7 && n > 1)
        for (int i = 0; i < m; i++)
            put(A, dbl, idx(la, m, i, 1, 7), get(A, dbl, idx(la, m, i, 1, 7)) * (dbl ? 1e-170 : 1e-25));
    memcpy(A0, A, sa * es);

    memcpy(X0, B, sb * es);
    memcpy(X1, B, sb * es);
    for (int64_t k = 0; k < batch; k++) i0[k] = i1[k] = i2[k] = i3[k] = i4[k] = i5[k] = 12345;
    bsolve_status s0 = gels(cpu, dbl, m, n, nrhs, batch, A, la, X0, lb, i0);
    bsolve_status s1 = gels(gpu, dbl, m, n, nrhs, batch, A, la, X1, lb, i1);
    CHECK(s0 == 0 && s1 == 0, "%s: status cpu %d cuda %d (%s)", desc, s0, s1, bsolve_ctx_message(gpu));
    CHECK(memcmp(A, A0, sa * es) == 0, "%s: host A modified", desc);

    /* device pointers on a user stream */
    void *dA, *dB;
    int32_t *dI;
    CU(cudaMalloc(&dA, sa * es));
    CU(cudaMalloc(&dB, sb * es));
    CU(cudaMalloc((void **)&dI, batch * 4));
    CU(cudaMemcpy(dA, A, sa * es, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(dB, B, sb * es, cudaMemcpyHostToDevice));
    CU(cudaMemset(dI, 0x5a, batch * 4));
    /* us is a non-blocking stream: it does not wait for the legacy stream's
     * copies (a pageable H2D cudaMemcpy may return before its DMA lands) */
    CU(cudaDeviceSynchronize());
    bsolve_ctx_set_stream(gpu, us);
    bsolve_status s2 = gels(gpu, dbl, m, n, nrhs, batch, dA, la, dB, lb, dI);
    CHECK(s2 == 0 && bsolve_ctx_synchronize(gpu) == 0, "%s: device-pointer status %d (%s)", desc, s2,
          bsolve_ctx_message(gpu));
    CU(cudaMemcpy(X2, dB, sb * es, cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(i2, dI, batch * 4, cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(A0, dA, sa * es, cudaMemcpyDeviceToHost));
    CHECK(memcmp(A, A0, sa * es) == 0, "%s: device A modified", desc);

    /* geqrf + geqrs: host pointers, and device pointers (device B) */
    bsolve_qr *qg = NULL;
    bsolve_status s3 = bsolve_qr_create(gpu, dbl ? BSOLVE_PREC_D : BSOLVE_PREC_S, m, n, batch, &qg);
    CHECK(s3 == 0, "%s: qr_create %d (%s)", desc, s3, bsolve_ctx_message(gpu));
    if (s3 == 0) {
        memcpy(X3, B, sb * es);
        s3 = geqrf(gpu, dbl, A, la, qg, i3);
        if (s3 == 0) s3 = geqrs(gpu, dbl, qg, nrhs, X3, lb, i4);
        CHECK(s3 == 0, "%s: geqrf/geqrs host %d (%s)", desc, s3, bsolve_ctx_message(gpu));
        CU(cudaMemcpy(dB, B, sb * es, cudaMemcpyHostToDevice));
        CU(cudaDeviceSynchronize()); /* before us reads dB (see above) */
        s3 = geqrf(gpu, dbl, dA, la, qg, dI);
        if (s3 == 0) s3 = geqrs(gpu, dbl, qg, nrhs, dB, lb, NULL);
        CHECK(s3 == 0 && bsolve_ctx_synchronize(gpu) == 0, "%s: geqrf/geqrs device %d (%s)", desc, s3,
              bsolve_ctx_message(gpu));
        CU(cudaMemcpy(X4, dB, sb * es, cudaMemcpyDeviceToHost));
        CU(cudaMemcpy(i5, dI, batch * 4, cudaMemcpyDeviceToHost));
    }
    bsolve_ctx_set_stream(gpu, NULL);

    long bad_info = 0, bad_bits = 0, bad_nan = 0, bad_ratio = 0, bad_x = 0, bad_res = 0, bad_gap = 0, bad_fs = 0;
    long bad_tail = 0, bad_rn = 0;
    double worst = 0, wx = 0, wres = 0, wfs = 0, wrn = 0;
    for (int64_t k = 0; k < batch; k++) {
        if (i1[k] != i0[k] || i2[k] != i0[k] || i4[k] != i0[k]) {
            if (bad_info++ == 0)
                fprintf(stderr, "  %s: system %lld info cpu %d cuda-host %d cuda-dev %d geqrs %d\n", desc,
                        (long long)k, i0[k], i1[k], i2[k], i4[k]);
        }
        /* geqrf's info ignores B */
        const int want_f = (i0[k] == BSOLVE_INFO_NONFINITE && k == 6) ? i3[k] : i0[k];
        if (i3[k] != want_f || i5[k] != i3[k]) {
            if (bad_info++ == 0)
                fprintf(stderr, "  %s: system %lld geqrf info %d / %d, gels %d\n", desc, (long long)k, i3[k], i5[k],
                        i0[k]);
        }
        double xn = 0, bn = 0, an = 0;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) an = fmax(an, fabs(get(A, dbl, idx(la, m, i, j, k))));
        for (int c = 0; c < nrhs; c++)
            for (int i = 0; i < m; i++) {
                const int64_t o = idx(lb, m, i, c, k);
                bn = fmax(bn, fabs(get(B, dbl, o)));
                if (i < n) xn = fmax(xn, fabs(get(X0, dbl, o)));
            }
        for (int c = 0; c < nrhs; c++) {
            /* the residual part (GPU gels, CPU, geqrf + geqrs) in the
             * canonical form: the norm in row n, zeros below */
            double ra = 0, rr = 0, r3 = 0;
            for (int i = 0; i < m; i++) {
                const int64_t o = idx(lb, m, i, c, k);
                const double a = get(X1, dbl, o), b = get(X2, dbl, o), r = get(X0, dbl, o);
                if (!same(a, b)) bad_bits++;
                if (i1[k] != 0 && !(isnan(a) && isnan(get(X3, dbl, o)) && isnan(get(X4, dbl, o)))) bad_nan++;
                if (i1[k] == 0 && i0[k] == 0) {
                    const double f3 = get(X3, dbl, o), f4 = get(X4, dbl, o);
                    if (!same(f3, f4)) bad_fs++;
                    if (i > n) {
                        if (!(a == 0 && r == 0 && f3 == 0) && bad_tail++ == 0)
                            fprintf(stderr, "  %s: system %lld col %d row %d: %g, CPU %g, geqrs %g, not 0\n", desc,
                                    (long long)k, c, i, a, r, f3);
                        continue;
                    }
                    if (i == n) {
                        ra = a, rr = r, r3 = f3;
                        if (!(a >= 0 && r >= 0 && f3 >= 0) && bad_tail++ == 0)
                            fprintf(stderr, "  %s: system %lld col %d: residual entry %g, CPU %g, geqrs %g\n", desc,
                                    (long long)k, c, a, r, f3);
                        continue;
                    }
                    const double q = xn == 0 ? fabs(a - r) : fabs(a - r) / (xn * m * eps);
                    if (q > wx) wx = q;
                    if (!(q < 1000)) bad_x++;
                    /* geqrf + geqrs: the same factorization, or gels's
                     * reflections (qr_hh.cuh) against geqrf's rotations */
                    const double q3 = xn == 0 ? fabs(f3 - a) : fabs(f3 - a) / (xn * m * eps);
                    if (q3 > wfs) wfs = q3;
                    if (!(q3 < 1000)) bad_fs++;
                }
            }
            /* Row n holds the residual norm, whichever Q the kernel made
             * (Givens rotations or Householder reflections): equal to the
             * CPU's and geqrs' to rounding. */
            if (m > n && i1[k] == 0 && i0[k] == 0) {
                const double ref = bn + an * xn * n;
                const double q = ref == 0 ? fabs(ra - rr) : fabs(ra - rr) / (ref * m * eps);
                if (q > wres) wres = q;
                if (!(q < 1000) && bad_res++ == 0)
                    fprintf(stderr, "  first residual-norm mismatch: system %lld col %d: %.17g, CPU %.17g\n",
                            (long long)k, c, ra, rr);
                const double q3 = ref == 0 ? fabs(r3 - ra) : fabs(r3 - ra) / (ref * m * eps);
                if (q3 > wfs) wfs = q3;
                if (!(q3 < 1000)) bad_fs++;
            }
        }
        if (i1[k] == 0) {
            double qr;
            const double q = lsq_ratio(m, n, nrhs, dbl, A, la, B, X1, lb, k, &qr);
            if (q > worst) worst = q;
            if (!(q < 30)) bad_ratio++;
            if (qr > wrn) wrn = qr;
            if (!(qr < 30)) bad_rn++;
        }
    }
    for (size_t t = 0; t < sb; t++)
        if (get(B, dbl, t) == 777.0 &&
            (get(X1, dbl, t) != 777.0 || get(X2, dbl, t) != 777.0 || get(X3, dbl, t) != 777.0))
            bad_gap++;
    CHECK(bad_info == 0, "%s: %ld info mismatches", desc, bad_info);
    CHECK(bad_bits == 0, "%s: %ld host/device result mismatches", desc, bad_bits);
    CHECK(bad_nan == 0, "%s: %ld entries of failed systems not NaN", desc, bad_nan);
    CHECK(bad_ratio == 0, "%s: %ld systems with least-squares ratio >= 30 (worst %g)", desc, bad_ratio, worst);
    CHECK(bad_x == 0, "%s: %ld x entries differ from the CPU's (worst %g m eps)", desc, bad_x, wx);
    CHECK(bad_res == 0, "%s: %ld residual norms differ from the CPU's (worst %g m eps)", desc, bad_res, wres);
    CHECK(bad_tail == 0, "%s: %ld residual parts not in the canonical form (norm >= 0, zeros below)", desc, bad_tail);
    CHECK(bad_rn == 0, "%s: %ld systems whose B(n) is not ||b - A x|| (worst %g m eps (||b|| + ||A|| ||x||))", desc,
          bad_rn, wrn);
    CHECK(bad_fs == 0, "%s: %ld geqrf+geqrs entries differ from gels (worst %g m eps)", desc, bad_fs, wfs);
    CHECK(bad_gap == 0, "%s: %ld gap entries written", desc, bad_gap);
    if (batch > 3) CHECK(i1[3] == n / 2 + 1, "%s: zero column: info %d, expected %d", desc, i1[3], n / 2 + 1);
    if (batch > 4 && n > 1) CHECK(i1[4] == n, "%s: equal columns: info %d, expected %d", desc, i1[4], n);
    if (batch > 6) CHECK(i1[5] == -1 && i1[6] == -1, "%s: non-finite info %d %d", desc, i1[5], i1[6]);
    (void)worst;
    if (export && qg) check_export(cpu, gpu, dbl, m, n, batch, A, la, qg, i3, desc);
    bsolve_qr_destroy(qg);
    CU(cudaFree(dA));
    CU(cudaFree(dB));
    CU(cudaFree(dI));
    free(A); free(A0); free(B); free(X0); free(X1); free(X2); free(X3); free(X4);
    free(i0); free(i1); free(i2); free(i3); free(i4); free(i5);
}

/* Every case, full or quick. */
static void run_all(bsolve_ctx *cpu, bsolve_ctx *gpu, cudaStream_t us)
{
    static const int ns_full[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20, 24, 32, 40, 48, 64};
    static const int ns_quick[] = {1, 2, 3, 5, 8, 13, 24, 64};
    const int *ns = quick ? ns_quick : ns_full;
    const int nn = quick ? (int)(sizeof ns_quick / sizeof *ns_quick) : (int)(sizeof ns_full / sizeof *ns_full);
    int t = 0;
    for (int a = 0; a < nn; a++) {
        const int n = ns[a];
        int ms[4] = {n, n + 1, 2 * n, 128}, nm = 0;
        for (int b = 0; b < 4; b++) {
            int dup = ms[b] > 128;
            for (int c = 0; c < nm; c++) dup |= ms[c] == ms[b];
            if (!dup) ms[nm++] = ms[b];
        }
        for (int b = 0; b < nm; b++) {
            const int m = ms[b];
            if (quick && b == 1) continue;
            for (int dbl = 0; dbl <= 1; dbl++, t++) {
                if (quick && (t & 1)) continue;
                const bsolve_layout_kind ka = (bsolve_layout_kind)(t % 3), kb = (bsolve_layout_kind)((t / 3) % 3);
                const int nrhs = 1 + t % 3;
                const int64_t batch = quick ? 33 : (t % 7 == 0 ? 1 : 33);
                const int big = m * n <= 64 * 64;
                run_case(cpu, gpu, us, dbl, m, n, nrhs, batch, ka, kb, t % 2, 1.0, !quick && big);
            }
        }
    }
    /* large batches (tails of every team size), the three layouts */
    static const int big_q[][2] = {{4, 4}, {16, 9}};
    static const int big_f[][2] = {{4, 4}, {8, 4}, {16, 16}, {32, 16}, {64, 32}};
    const int nbig = quick ? 2 : 5;
    for (int a = 0; a < nbig; a++)
        for (int kk = 0; kk < 3; kk++) {
            const int m = quick ? big_q[a][0] : big_f[a][0], n = quick ? big_q[a][1] : big_f[a][1];
            run_case(cpu, gpu, us, kk & 1, m, n, 1 + kk, quick ? 300 : 10007, (bsolve_layout_kind)kk,
                     (bsolve_layout_kind)((kk + 1) % 3), kk & 1, 1.0, 0);
        }
    /* the column-per-lane kernel (qr_warp.cuh: gels, nrhs = 1, m <= 64 and
     * n <= 32 outside the register buckets): every row bucket and team size,
     * n = L (b in no lane of its own), n = 1, tails of a warp and of a block
     * (batch 1, 37, 301); and n = 33..64 at m <= 64, nrhs = 1, which the
     * team kernel's blocks of warps take */
    static const int wsh_f[][2] = {{9, 5},   {16, 8},  {16, 9},  {13, 12}, {16, 16}, {17, 16}, {24, 9},
                                   {32, 16}, {20, 17}, {32, 24}, {31, 31}, {32, 32}, {32, 1},  {29, 3},
                                   {18, 8},  {33, 8},  {64, 5},  {48, 16}, {64, 17}, {40, 32}, {64, 32},
                                   {64, 1},  {63, 31}, {32, 8},  {64, 8},  {64, 16}, {64, 64}, {64, 49},
                                   {60, 57}, {63, 63}, {64, 63}, {61, 50}, {60, 60}, {64, 33}, {48, 40}};
    static const int wsh_q[][2] = {{16, 8}, {16, 16}, {32, 17}, {32, 32}, {40, 9}, {64, 32}, {64, 64}, {62, 53}};
    const int nw = quick ? 8 : 35;
    for (int a = 0; a < nw; a++)
        for (int dbl = 0; dbl <= 1; dbl++, t++) {
            const int m = quick ? wsh_q[a][0] : wsh_f[a][0], n = quick ? wsh_q[a][1] : wsh_f[a][1];
            const bsolve_layout_kind ka = (bsolve_layout_kind)(t % 3), kb = (bsolve_layout_kind)((t / 3) % 3);
            const int64_t batch = quick ? 37 : (a % 3 == 0 ? 301 : a % 3 == 1 ? 37 : 1);
            run_case(cpu, gpu, us, dbl, m, n, 1, batch, ka, kb, t % 2, 1.0, 0);
        }
    /* the register kernel's wavefront copy (qr_reg.cuh: FP64 gels, nrhs = 1,
     * shapes equal to their bucket; float runs the column-order kernel on the
     * same shapes), its scaled pass (1e+-300) included */
    static const int rsh[][2] = {{8, 4}, {12, 4}, {16, 4}, {8, 8}};
    for (int a = 0; a < 4; a++)
        for (int e = 0; e < 3; e++, t++) {
            const bsolve_layout_kind ka = (bsolve_layout_kind)(t % 3), kb = (bsolve_layout_kind)((t / 3) % 3);
            const double sc = e == 0 ? 1.0 : e == 1 ? 1e300 : 1e-300;
            run_case(cpu, gpu, us, 1, rsh[a][0], rsh[a][1], 1, quick ? 37 : 301, ka, kb, t % 2, sc, 0);
            if (e == 0) run_case(cpu, gpu, us, 0, rsh[a][0], rsh[a][1], 1, 37, kb, ka, t % 2, 1.0, 0);
        }
    /* the column-per-lane kernel's copies that read column-major A two rows
     * per load (FP64, m and the strides even: pad 0 and 2; pad 1 makes them
     * odd, the scalar copy), every row bucket and team size at M <= 32; and
     * the Householder kernel's (48 x 6: its 64-row bucket of 8 lanes) */
    static const int vsh[][2] = {{16, 8}, {12, 7}, {16, 16}, {14, 11}, {32, 8}, {32, 16}, {22, 9}, {32, 32}, {20, 17}, {48, 6}};
    const int nv = quick ? 3 : 10;
    for (int a = 0; a < nv; a++)
        for (int pad = 0; pad <= 2; pad++, t++) {
            const bsolve_layout_kind kb = (bsolve_layout_kind)(t % 3);
            run_case(cpu, gpu, us, 1, vsh[a][0], vsh[a][1], 1, a % 2 ? 301 : 37, BSOLVE_COL_MAJOR, kb, pad,
                     a == 7 && pad == 2 ? 1e300 : a == 6 && pad == 0 ? 1e-300 : 1.0, 0);
        }
    /* a column of tiny entries on the column-per-lane buckets of 16 and 32
     * columns and the FULL 64 x 32 one (their unscaled first pass, then the
     * scaled one) */
    static const int tsh[][2] = {{16, 16}, {13, 12}, {64, 32}, {32, 16}, {32, 32}, {20, 17}, {16, 8}};
    g_tinycol = 1;
    for (int a = 0; a < (quick ? 3 : 7); a++)
        for (int dbl = 0; dbl <= 1; dbl++, t++)
            run_case(cpu, gpu, us, dbl, tsh[a][0], tsh[a][1], 1, 37, (bsolve_layout_kind)(t % 3),
                     (bsolve_layout_kind)((t / 3) % 3), t % 2, 1.0, 0);
    g_tinycol = 0;
    /* the Householder kernel's halves (FP64 gels, nrhs = 1, m > 64: rows
     * 0..63 of a column in one warp, 64..127 in another, the bottom's first
     * row carried up to the top every step): odd and even m and n, n = 1 and
     * 2 (with the kernel forced everywhere), the bottom half's rows running out before the
     * last step or not, and a tiny column (the rank test) */
    static const int hsh[][2] = {{97, 33}, {65, 64}, {127, 64}, {66, 2}, {81, 40}, {100, 61}, {128, 5}, {71, 1}};
    for (int a = 0; a < (quick ? 4 : 8); a++)
        for (int e = 0; e < 2; e++, t++) {
            g_tinycol = e;
            run_case(cpu, gpu, us, 1, hsh[a][0], hsh[a][1], 1, e || a % 2 ? 37 : 5, (bsolve_layout_kind)(t % 3),
                     (bsolve_layout_kind)((t / 3) % 3), t % 2, 1.0, 0);
        }
    g_tinycol = 0;
    if (!quick)
        for (int e = 0; e < 2; e++) {
            run_case(cpu, gpu, us, 1, 32, 32, 1, 37, BSOLVE_INTERLEAVED, BSOLVE_COL_MAJOR, 0, e ? 1e300 : 1e-300, 0);
            run_case(cpu, gpu, us, 1, 16, 16, 1, 37, BSOLVE_ROW_MAJOR, BSOLVE_INTERLEAVED, 1, e ? 1e300 : 1e-300, 0);
            run_case(cpu, gpu, us, 0, 24, 9, 1, 37, BSOLVE_COL_MAJOR, BSOLVE_COL_MAJOR, 0, e ? 1e35 : 1e-35, 0);
            run_case(cpu, gpu, us, 1, 64, 64, 1, 37, BSOLVE_INTERLEAVED, BSOLVE_ROW_MAJOR, 0, e ? 1e300 : 1e-300, 0);
            run_case(cpu, gpu, us, 0, 60, 58, 1, 37, BSOLVE_ROW_MAJOR, BSOLVE_COL_MAJOR, 1, e ? 1e35 : 1e-35, 0);
        }
    /* several passes over the right-hand sides */
    run_case(cpu, gpu, us, 1, 8, 4, 11, 33, BSOLVE_INTERLEAVED, BSOLVE_COL_MAJOR, 0, 1.0, 0);
    if (!quick) run_case(cpu, gpu, us, 0, 128, 64, 19, 33, BSOLVE_COL_MAJOR, BSOLVE_INTERLEAVED, 1, 1.0, 0);
    /* extreme scales */
    for (int e = 0; e < 2; e++) {
        run_case(cpu, gpu, us, 1, 12, 7, 2, 33, BSOLVE_INTERLEAVED, BSOLVE_INTERLEAVED, 0, e ? 1e300 : 1e-300, 0);
        run_case(cpu, gpu, us, 0, 12, 7, 2, 33, BSOLVE_COL_MAJOR, BSOLVE_COL_MAJOR, 0, e ? 1e35 : 1e-35, 0);
    }
    /* batch 0 and mixed pointer kinds */
    {
        double a = 1, b = 1;
        int32_t info = 7;
        bsolve_layout l = bsolve_layout_col_major(1, 1);
        CHECK(bsolve_dgels(gpu, 1, 1, 1, 0, &a, l, &b, l, &info) == 0, "batch 0");
        double *dA;
        CU(cudaMalloc((void **)&dA, 8));
        CHECK(bsolve_dgels(gpu, 1, 1, 1, 1, dA, l, &b, l, &info) == BSOLVE_EINVAL, "mixed pointers accepted");
        CU(cudaFree(dA));
    }
}

/* The kernel choices forced on the context (bsi_test_force) after the
 * dispatch table's own run: each reaches kernels or copies that the table
 * gives few or no shapes of this list.  quick: run the quick subset. */
static const struct {
    const char *what;
    int quick;
    int knob[5][2]; /* (knob, value) pairs, 0 value ends */
} configs[] = {
    {"every shape on the team kernel, teams of 64 threads", 1,
     {{BSI_FORCE_QR_REG, 1}, {BSI_FORCE_QR_HH, 1}, {BSI_FORCE_QR_WARP, 1}, {BSI_FORCE_QR_PAIR, 1}, {BSI_FORCE_QR_TEAM, 64}}},
    {"every shape on the team kernel, teams of 256 threads", 1,
     {{BSI_FORCE_QR_REG, 1}, {BSI_FORCE_QR_HH, 1}, {BSI_FORCE_QR_WARP, 1}, {BSI_FORCE_QR_PAIR, 1}, {BSI_FORCE_QR_TEAM, 256}}},
    {"every FP64 gels nrhs = 1 shape on the paired-step kernel, 1 thread per band", 1,
     {{BSI_FORCE_QR_REG, 1}, {BSI_FORCE_QR_HH, 1}, {BSI_FORCE_QR_WARP, 1}, {BSI_FORCE_QR_PAIR, 2}, {BSI_FORCE_QR_PAIR_SEG, 1}}},
    {"every FP64 gels nrhs = 1 shape on the paired-step kernel, 2 threads per band", 1,
     {{BSI_FORCE_QR_REG, 1}, {BSI_FORCE_QR_HH, 1}, {BSI_FORCE_QR_WARP, 1}, {BSI_FORCE_QR_PAIR, 2}, {BSI_FORCE_QR_PAIR_SEG, 2}}},
    {"every FP64 gels nrhs = 1 shape on the paired-step kernel, 4 threads per band", 1,
     {{BSI_FORCE_QR_REG, 1}, {BSI_FORCE_QR_HH, 1}, {BSI_FORCE_QR_WARP, 1}, {BSI_FORCE_QR_PAIR, 2}, {BSI_FORCE_QR_PAIR_SEG, 4}}},
    {"the rotations on every shape (no Householder kernel)", 0, {{BSI_FORCE_QR_HH, 1}}},
    {"the Householder kernel on every shape it can take (m = 65..79 too)", 1, {{BSI_FORCE_QR_HH, 2}}},
    {"the Householder kernel's lanes one column each (m <= 16 and interleaved 16 < m <= 32 too)", 1,
     {{BSI_FORCE_QR_HH_C, 1}}},
    {"no register kernel (its shapes on the other kernels)", 1, {{BSI_FORCE_QR_REG, 1}}},
};

int main(void)
{
    const char *q = getenv("BSOLVE_TEST_QUICK");
    quick = q && *q && strcmp(q, "0");
    /* BSOLVE_TEST_CONFIG: unset or "all" the table's run and every forced
     * configuration (only the table's under BSOLVE_TEST_SANITIZE); 0 the
     * table's only; k = 1.. the forced configuration k only */
    const char *sel = getenv("BSOLVE_TEST_CONFIG"), *san = getenv("BSOLVE_TEST_SANITIZE");
    const int ncfg = (int)(sizeof configs / sizeof *configs);
    const int only = sel && *sel && strcmp(sel, "all") ? atoi(sel) : -1;
    if (only > ncfg || only < -1) {
        fprintf(stderr, "BSOLVE_TEST_CONFIG=%s: expected all or 0..%d\n", sel, ncfg);
        return 1;
    }
    bsolve_ctx *gpu = NULL, *cpu = NULL;
    bsolve_status s = bsolve_ctx_create(&gpu, BSOLVE_BACKEND_CUDA);
    if (s == BSOLVE_ENODEVICE) {
        printf("SKIP: no CUDA device\n");
        return 0;
    }
    if (s != 0 || bsolve_ctx_create(&cpu, BSOLVE_BACKEND_CPU) != 0) {
        fprintf(stderr, "context creation failed: %d\n", s);
        return 1;
    }
    cudaStream_t us;
    CU(cudaStreamCreateWithFlags(&us, cudaStreamNonBlocking));
    const int quick0 = quick;
    if (only <= 0) {
        printf("== gpu_qr%s: the dispatch table's kernels\n", quick ? " (quick)" : "");
        fflush(stdout);
        run_all(cpu, gpu, us);
    }
    for (int c = 0; c < ncfg; c++) {
        if (only == 0 || (only > 0 && only != c + 1) || (only < 0 && san && *san && strcmp(san, "0"))) continue;
        quick = quick0 || configs[c].quick;
        g_cfg = configs[c].what;
        rs = 0x9e3779b97f4a7c15ULL; /* the same inputs as the table's run */
        for (int k = 0; k < 5 && configs[c].knob[k][1]; k++)
            CHECK(bsi_test_force(gpu, configs[c].knob[k][0], configs[c].knob[k][1]) == 0, "bsi_test_force");
        printf("== gpu_qr%s, configuration %d: %s\n", quick ? " (quick)" : "", c + 1, configs[c].what);
        fflush(stdout);
        run_all(cpu, gpu, us);
        for (int k = 0; k < BSI_FORCE_COUNT; k++) bsi_test_force(gpu, k, 0);
    }
    CU(cudaStreamDestroy(us));
    bsolve_ctx_destroy(gpu);
    bsolve_ctx_destroy(cpu);
    printf("gpu_qr: %ld checks, %ld failures%s\n", nchecks, nfail, quick0 ? " (quick)" : "");
    return nfail != 0;
}
#endif
