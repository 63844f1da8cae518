/*
 * gpu_lu.c -- GPU-only checks of the CUDA backend (make gpu-test).
 *
 * On the same random inputs, the CUDA backend with host pointers, with
 * device pointers (on a user stream), and the CPU backend must agree:
 *   - info identical (0, zero-pivot step, -1 for NaN/Inf in A or B);
 *   - host- and device-pointer results bit-identical (same kernels);
 *   - every solved system has backward-error ratio < 30, every failed one
 *     an all-NaN solution, every output entry written (poisoned first);
 *   - getrf + getrs agree with gesv; lu_export gives LAPACK-form factors
 *     with ||P A Q - L U|| / (n eps ||A||) < 30 and the pivots of LAPACK's
 *     dgetrf (PARTIAL; on the float data for s) or of the CPU backend (FULL);
 *   - bsolve_?convert between every pair of layouts, host and device.
 * Sizes: n over every size class (1..128), batches 1, 7, 1000+ (not a
 * multiple of 32) and 10^7 systems of order 4 (10^6 with BSOLVE_TEST_QUICK=1).
 * Then, on n = 9..64 (quick settings), the kernel choices forced on the
 * context (bsi_test_force): without the row-per-lane kernel (lu_warp.cuh),
 * with it on every order it has a bucket for, and the register-tile kernel
 * (lu_tile.cuh) and the blocked panel kernel (lu_panel.cuh) on n = 33..128,
 * the thread-per-system getrs (lu_getrs.cuh) on every getrs, the
 * shared-memory kernel (lu_smem.cuh) on n = 9..22 and the team and
 * row-per-lane kernels there without it, the team getrs (lu_getrs_team.cuh)
 * on every getrs, in every shape bit for bit against the thread-per-system
 * getrs, and the table without it.
 * BSOLVE_TEST_CONFIG=0 runs the table's kernels only, =1..10 one forced
 * configuration only.
 * Prints "SKIP: no CUDA device" and exits 0 without a GPU.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "batchsolve.h"
#include "gpu_check.h"
#include "gpu_dense.h"
#include "internal.h" /* bsi_test_force */
#include "../cuda/lu_dispatch.cuh" /* BSI_LU_RSTEAM_SHAPES */

#ifndef HAVE_CUDART
int main(void) { return gpu_check_skip_main(); }
#else

static int quick, sanitize; /* BSOLVE_TEST_QUICK, BSOLVE_TEST_SANITIZE (smaller still) */
static const char *g_cfg = ""; /* the forced configuration running (main), "" for the table's */

static bsolve_status gesv(bsolve_ctx *c, int dbl, bsolve_pivot pv, int64_t n, int64_t nrhs, int64_t batch,
                          const void *A, bsolve_layout la, void *B, bsolve_layout lb, int32_t *info)
{
    return dbl ? bsolve_dgesv(c, pv, n, nrhs, batch, A, la, B, lb, info)
               : bsolve_sgesv(c, pv, n, nrhs, batch, A, la, B, lb, info);
}
static bsolve_status getrf(bsolve_ctx *c, int dbl, const void *A, bsolve_layout la, bsolve_lu *lu, int32_t *info)
{
    return dbl ? bsolve_dgetrf(c, A, la, lu, info) : bsolve_sgetrf(c, A, la, lu, info);
}
static bsolve_status getrs(bsolve_ctx *c, int dbl, bsolve_lu *lu, int64_t nrhs, void *B, bsolve_layout lb,
                           int32_t *info)
{
    return dbl ? bsolve_dgetrs(c, lu, nrhs, B, lb, info) : bsolve_sgetrs(c, lu, nrhs, B, lb, info);
}

static const char *pvname[] = {"NONE", "PARTIAL", "FULL"};

/* The inputs of a case: random entries (NONE: a dominant diagonal), a
 * sentinel in the gaps so that writes into them are caught, and three
 * injections: a singular system (zero column 0), a NaN in A, an Inf in the
 * last column of B. */
static void fill_case(int dbl, bsolve_pivot pv, int n, int nrhs, int64_t batch, void *A, bsolve_layout la, size_t sa,
                      void *B, bsolve_layout lb, size_t sb)
{
    for (size_t t = 0; t < sa; t++) put(A, dbl, t, 777.0);
    for (size_t t = 0; t < sb; t++) put(B, dbl, t, 777.0);
    for (int64_t k = 0; k < batch; k++) {
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double v = urand();
                if (pv == BSOLVE_PIVOT_NONE && i == j) v = (v > 0 ? 1 : -1) * (n + 1.0);
                put(A, dbl, idx(la, n, i, j, k), v);
            }
        for (int c = 0; c < nrhs; c++)
            for (int i = 0; i < n; i++) put(B, dbl, idx(lb, n, i, c, k), urand());
    }
    if (batch > 3) for (int i = 0; i < n; i++) put(A, dbl, idx(la, n, i, 0, 3), 0.0);
    if (batch > 5) put(A, dbl, idx(la, n, n - 1, n / 2, 5), NAN);
    if (batch > 6) put(B, dbl, idx(lb, n, n / 2, nrhs - 1, 6), INFINITY);
}

/* One case: every path on the same inputs. */
static void run_case(bsolve_ctx *cpu, bsolve_ctx *gpu, cudaStream_t us, int dbl, bsolve_pivot pv, int n, int nrhs,
                     int64_t batch, bsolve_layout_kind ka, bsolve_layout_kind kb, int pad)
{
    const size_t es = dbl ? 8 : 4;
    bsolve_layout la = mk(ka, pad, n, n, batch), lb = mk(kb, pad, n, nrhs, batch);
    const size_t sa = span(la, n, n, batch), sb = span(lb, n, nrhs, batch);
    char desc[240];
    snprintf(desc, sizeof desc, "%s%s%cgesv %s n=%d nrhs=%d batch=%lld A=%s B=%s pad=%d", g_cfg, *g_cfg ? ": " : "",
             dbl ? 'd' : 's', pvname[pv], n, nrhs, (long long)batch, kname[ka], kname[kb], pad);
    void *A = malloc(sa * es), *B = malloc(sb * es), *X0 = malloc(sb * es), *X1 = malloc(sb * es),
         *X2 = malloc(sb * es), *X3 = malloc(sb * es);
    int32_t *i0 = malloc(batch * 4), *i1 = malloc(batch * 4), *i2 = malloc(batch * 4), *i3 = malloc(batch * 4);
    fill_case(dbl, pv, n, nrhs, batch, A, la, sa, B, lb, sb);

    /* CPU reference, CUDA host pointers, CUDA device pointers on the user stream */
    memcpy(X0, B, sb * es);
    memcpy(X1, B, sb * es);
    for (int64_t k = 0; k < batch; k++) i0[k] = i1[k] = i2[k] = i3[k] = 12345;
    bsolve_status s0 = gesv(cpu, dbl, pv, n, nrhs, batch, A, la, X0, lb, i0);
    bsolve_status s1 = gesv(gpu, dbl, pv, n, nrhs, batch, A, la, X1, lb, i1);
    CHECK(s0 == 0 && s1 == 0, "%s: status cpu %d cuda %d (%s)", desc, s0, s1, bsolve_ctx_message(gpu));
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
    bsolve_status s2 = gesv(gpu, dbl, pv, n, nrhs, batch, dA, la, dB, lb, dI);
    CHECK(s2 == 0 && bsolve_ctx_synchronize(gpu) == 0, "%s: device-pointer status %d (%s)", desc, s2,
          bsolve_ctx_message(gpu));
    CU(cudaMemcpy(X2, dB, sb * es, cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(i2, dI, batch * 4, cudaMemcpyDeviceToHost));

    long bad_info = 0, bad_bits = 0, bad_nan = 0, bad_bwd = 0, bad_gap = 0;
    double worst = 0;
    for (int64_t k = 0; k < batch; k++) {
        if (i1[k] != i0[k] || i2[k] != i0[k]) {
            if (bad_info++ == 0)
                fprintf(stderr, "  %s: system %lld info cpu %d cuda-host %d cuda-dev %d\n", desc, (long long)k, i0[k],
                        i1[k], i2[k]);
        }
        for (int c = 0; c < nrhs; c++)
            for (int i = 0; i < n; i++) {
                const int64_t o = idx(lb, n, i, c, k);
                double a = get(X1, dbl, o), b = get(X2, dbl, o);
                if (!(a == b || (isnan(a) && isnan(b)))) bad_bits++;
                if (i1[k] != 0 && !isnan(a)) bad_nan++;
            }
        if (i1[k] == 0) {
            double q = bwd(n, nrhs, dbl, A, la, B, X1, lb, k);
            if (q > worst) worst = q;
            if (!(q < 30)) bad_bwd++;
        }
    }
    /* gaps untouched */
    for (size_t t = 0; t < sb; t++) {
        double v1 = get(X1, dbl, t), v2 = get(X2, dbl, t), v0 = get(B, dbl, t);
        if (v0 == 777.0 && (v1 != 777.0 || v2 != 777.0)) {
            /* an entry may legitimately be 777 only if B held it: not with random data */
            bad_gap++;
        }
    }
    CHECK(bad_info == 0, "%s: %ld info mismatches", desc, bad_info);
    CHECK(bad_bits == 0, "%s: %ld host/device result mismatches", desc, bad_bits);
    CHECK(bad_nan == 0, "%s: %ld entries of failed systems not NaN", desc, bad_nan);
    CHECK(bad_bwd == 0, "%s: %ld systems with backward-error ratio >= 30 (worst %g)", desc, bad_bwd, worst);
    CHECK(bad_gap == 0, "%s: %ld gap entries written", desc, bad_gap);
    if (batch > 3) { /* column 0 is zero: step 1 (NONE, PARTIAL); FULL moves it last: step n */
        const int want = pv == BSOLVE_PIVOT_FULL ? n : 1;
        CHECK(i1[3] == want, "%s: singular system 3 info %d, expected %d", desc, i1[3], want);
    }
    if (batch > 5) CHECK(i1[5] == -1, "%s: NaN system 5 info %d", desc, i1[5]);
    if (batch > 6) CHECK(i1[6] == -1, "%s: Inf-in-B system 6 info %d", desc, i1[6]);

    /* getrf + getrs, host and device pointers; export vs CPU export */
    bsolve_lu *lg = NULL, *lc = NULL;
    bsolve_precision pr = dbl ? BSOLVE_PREC_D : BSOLVE_PREC_S;
    CHECK(bsolve_lu_create(gpu, pr, pv, n, batch, &lg) == 0 && bsolve_lu_create(cpu, pr, pv, n, batch, &lc) == 0,
          "%s: lu_create", desc);
    if (lg && lc) {
        memcpy(X3, B, sb * es);
        bsolve_status f1 = getrf(gpu, dbl, A, la, lg, i3);
        bsolve_status f2 = getrs(gpu, dbl, lg, nrhs, X3, lb, NULL);
        CHECK(f1 == 0 && f2 == 0, "%s: host getrf/getrs status %d %d (%s)", desc, f1, f2, bsolve_ctx_message(gpu));
        long mism = 0, infom = 0;
        for (int64_t k = 0; k < batch; k++) {
            const int fi = i3[k];
            const int gi = (i0[k] == -1 && fi != -1) ? -1 : fi; /* B's NaN is seen only by getrs */
            if (gi != i0[k]) infom++;
            if (i0[k] != 0) continue;
            for (int c = 0; c < nrhs; c++)
                for (int i = 0; i < n; i++) {
                    const int64_t o = idx(lb, n, i, c, k);
                    double a = get(X3, dbl, o), b = get(X1, dbl, o);
                    double tol = (dbl ? 1e-9 : 1e-3) * (1 + fabs(b));
                    if (!(fabs(a - b) <= tol) && bwd(n, nrhs, dbl, A, la, B, X3, lb, k) >= 30) mism++;
                }
        }
        CHECK(infom == 0, "%s: %ld getrf info mismatches", desc, infom);
        CHECK(mism == 0, "%s: %ld getrf+getrs results off gesv", desc, mism);
        /* device getrs with info */
        CU(cudaMemcpy(dB, B, sb * es, cudaMemcpyHostToDevice));
        CU(cudaDeviceSynchronize()); /* before us reads dB (see above) */
        bsolve_status f3 = getrs(gpu, dbl, lg, nrhs, dB, lb, dI);
        CHECK(f3 == 0 && bsolve_ctx_synchronize(gpu) == 0, "%s: device getrs", desc);
        CU(cudaMemcpy(X2, dB, sb * es, cudaMemcpyDeviceToHost));
        CU(cudaMemcpy(i2, dI, batch * 4, cudaMemcpyDeviceToHost));
        long m2 = 0;
        for (int64_t k = 0; k < batch; k++) {
            if (i2[k] != i0[k]) m2++;
            for (int c = 0; c < nrhs; c++)
                for (int i = 0; i < n; i++) {
                    const int64_t o = idx(lb, n, i, c, k);
                    double a = get(X2, dbl, o), b = get(X3, dbl, o);
                    if (!(a == b || (isnan(a) && isnan(b)))) m2++;
                }
        }
        CHECK(m2 == 0, "%s: %ld device getrs (info) mismatches against host getrs/gesv", desc, m2);
        /* export */
        CHECK(getrf(cpu, dbl, A, la, lc, i0) == 0, "%s: cpu getrf", desc);
        const int64_t ne = batch < 64 ? batch : 64;
        double *LU = malloc((size_t)n * n * batch * es);
        int32_t *ip = malloc(n * batch * 4), *jp = malloc(n * batch * 4), *ipc = malloc(n * batch * 4),
                *jpc = malloc(n * batch * 4);
        bsolve_layout lx = {BSOLVE_COL_MAJOR, n, (int64_t)n * n};
        CHECK(bsolve_lu_export(gpu, lg, LU, lx, ip, jp) == 0 && bsolve_lu_export(cpu, lc, NULL, lx, ipc, jpc) == 0,
              "%s: export", desc);
        long pm = 0, rbad = 0;
        const double eps = dbl ? 2.220446049250313e-16 : 1.1920929e-07;
        for (int64_t k = 0; k < ne; k++) {
            if (i3[k] < 0) continue;
            if (pv == BSOLVE_PIVOT_PARTIAL) { /* reference pivots: LAPACK's dgetrf (same tie rule) */
                double *M = malloc((size_t)n * n * 8);
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < n; i++) M[i + j * n] = get(A, dbl, idx(la, n, i, j, k));
                lapack_int *lp = malloc(n * sizeof *lp);
                LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, M, n, lp);
                for (int i = 0; i < n; i++) ipc[k * n + i] = lp[i];
                free(lp);
                free(M);
            }
            /* systems whose pivots differ (rounding can break a near-tie differently) */
            int differ = 0;
            for (int i = 0; i < n; i++) differ |= ip[k * n + i] != ipc[k * n + i] || jp[k * n + i] != jpc[k * n + i];
            if (dbl || pv != BSOLVE_PIVOT_PARTIAL) pm += differ;
            /* P A Q from A with the sequential interchanges, then compare with L U */
            double *M = malloc((size_t)n * n * 8);
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++) M[i + j * n] = get(A, dbl, idx(la, n, i, j, k));
            for (int t = 0; t < n; t++) {
                int p = ip[k * n + t] - 1, q = jp[k * n + t] - 1;
                for (int j = 0; j < n; j++) { double x = M[t + j * n]; M[t + j * n] = M[p + j * n]; M[p + j * n] = x; }
                for (int i = 0; i < n; i++) { double x = M[i + t * n]; M[i + t * n] = M[i + q * n]; M[i + q * n] = x; }
            }
            double an = 0, rn = 0;
            for (int i = 0; i < n; i++) {
                double s = 0, r = 0;
                for (int j = 0; j < n; j++) {
                    s += fabs(M[i + j * n]);
                    long double acc = 0;
                    for (int t = 0; t <= (i < j ? i : j); t++) {
                        long double l = t == i ? 1.0L : get(LU, dbl, (size_t)k * n * n + i + t * n);
                        acc += l * get(LU, dbl, (size_t)k * n * n + t + j * n);
                    }
                    r += fabs((double)(M[i + j * n] - acc));
                }
                if (s > an) an = s;
                if (r > rn) rn = r;
            }
            if (!(rn <= 30 * n * eps * an)) rbad++;
            free(M);
        }
        CHECK(pm <= (pv == BSOLVE_PIVOT_NONE ? 0 : 1 + ne / 10), "%s: %ld systems' exported pivots differ from the %s's", desc,
              pm, pv == BSOLVE_PIVOT_PARTIAL ? "LAPACKE_dgetrf" : "CPU");
        CHECK(rbad == 0, "%s: %ld exported factorizations with ||PAQ - LU|| ratio >= 30", desc, rbad);
        free(LU); free(ip); free(jp); free(ipc); free(jpc);
    }
    bsolve_lu_destroy(lg);
    bsolve_lu_destroy(lc);
    bsolve_ctx_set_stream(gpu, NULL);
    CU(cudaFree(dA)); CU(cudaFree(dB)); CU(cudaFree((void *)dI));
    free(A); free(B); free(X0); free(X1); free(X2); free(X3); free(i0); free(i1); free(i2); free(i3);
}

/* 10^7 systems of order 4 (device memory), checked on a sample. */
static void big_batch(bsolve_ctx *cpu, bsolve_ctx *gpu)
{
    const int n = 4;
    const int64_t batch = sanitize ? 100000 : quick ? 1000000 : 10000000;
    bsolve_layout la = {BSOLVE_INTERLEAVED, batch, 0}, lb = la;
    double *A = malloc((size_t)n * n * batch * 8), *B = malloc((size_t)n * batch * 8), *X = malloc((size_t)n * batch * 8);
    int32_t *info = malloc(batch * 4);
    for (int64_t t = 0; t < (int64_t)n * n * batch; t++) A[t] = urand();
    for (int64_t t = 0; t < (int64_t)n * batch; t++) B[t] = urand();
    double *dA, *dB;
    int32_t *dI;
    CU(cudaMalloc((void **)&dA, (size_t)n * n * batch * 8));
    CU(cudaMalloc((void **)&dB, (size_t)n * batch * 8));
    CU(cudaMalloc((void **)&dI, batch * 4));
    CU(cudaMemcpy(dA, A, (size_t)n * n * batch * 8, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(dB, B, (size_t)n * batch * 8, cudaMemcpyHostToDevice));
    CU(cudaMemset(dI, 0x5a, batch * 4));
    bsolve_status s = bsolve_dgesv(gpu, BSOLVE_PIVOT_PARTIAL, n, 1, batch, dA, la, dB, lb, dI);
    CHECK(s == 0 && bsolve_ctx_synchronize(gpu) == 0, "big batch: status %d (%s)", s, bsolve_ctx_message(gpu));
    CU(cudaMemcpy(X, dB, (size_t)n * batch * 8, cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(info, dI, batch * 4, cudaMemcpyDeviceToHost));
    long bad = 0;
    double worst = 0;
    for (int64_t k = 0; k < batch; k++) {
        if (info[k] != 0) { bad++; continue; }
        if (k % 997 == 0 || k >= batch - 40) {
            double q = bwd(n, 1, 1, A, la, B, X, lb, k);
            if (q > worst) worst = q;
            if (!(q < 30)) bad++;
        }
    }
    CHECK(bad == 0, "big batch (%lld systems): %ld bad (worst ratio %g)", (long long)batch, bad, worst);
    /* the CPU on the same data */
    memcpy(X, B, (size_t)n * batch * 8);
    double *Xg = malloc((size_t)n * batch * 8);
    CU(cudaMemcpy(Xg, dB, (size_t)n * batch * 8, cudaMemcpyDeviceToHost));
    CHECK(bsolve_dgesv(cpu, BSOLVE_PIVOT_PARTIAL, n, 1, batch, A, la, X, lb, info) == 0, "big batch cpu");
    long off = 0;
    for (int64_t t = 0; t < (int64_t)n * batch; t++)
        if (!(fabs(X[t] - Xg[t]) <= 1e-6 * (1 + fabs(X[t])))) off++;
    CHECK(off < batch / 10000 + 1, "big batch: %ld entries differ from the CPU backend beyond 1e-6", off);
    printf("  big batch: %lld systems, worst sampled ratio %.2f\n", (long long)batch, worst);
    free(Xg);
    CU(cudaFree(dA)); CU(cudaFree(dB)); CU(cudaFree((void *)dI));
    free(A); free(B); free(X); free(info);
}

static void convert_cases(bsolve_ctx *cpu, bsolve_ctx *gpu)
{
    const int64_t r = 5, c = 3, batch = 1037;
    for (int ks = 0; ks < 3; ks++)
        for (int kd = 0; kd < 3; kd++)
            for (int where = 0; where < 4; where++) { /* bit 0: src on device, bit 1: dst on device */
                bsolve_layout ls = mk(ks, 1, r, c, batch), ld = mk(kd, 2, r, c, batch);
                size_t ss = span(ls, r, c, batch), sd = span(ld, r, c, batch);
                double *S = malloc(ss * 8), *D = malloc(sd * 8), *E = malloc(sd * 8);
                for (size_t t = 0; t < ss; t++) S[t] = urand();
                for (size_t t = 0; t < sd; t++) D[t] = E[t] = 777.0;
                CHECK(bsolve_dconvert(cpu, r, c, batch, S, ls, E, ld) == 0, "cpu convert");
                double *dS = S, *dD = D;
                if (where & 1) { CU(cudaMalloc((void **)&dS, ss * 8)); CU(cudaMemcpy(dS, S, ss * 8, cudaMemcpyHostToDevice)); }
                if (where & 2) { CU(cudaMalloc((void **)&dD, sd * 8)); CU(cudaMemcpy(dD, D, sd * 8, cudaMemcpyHostToDevice)); }
                bsolve_status st = bsolve_dconvert(gpu, r, c, batch, dS, ls, dD, ld);
                CHECK(st == 0 && bsolve_ctx_synchronize(gpu) == 0, "convert %s->%s where=%d: %s", kname[ks], kname[kd],
                      where, bsolve_ctx_message(gpu));
                if (where & 2) CU(cudaMemcpy(D, dD, sd * 8, cudaMemcpyDeviceToHost));
                CHECK(memcmp(D, E, sd * 8) == 0, "convert %s->%s where=%d differs from the CPU's", kname[ks],
                      kname[kd], where);
                if (where & 1) CU(cudaFree(dS));
                if (where & 2) CU(cudaFree(dD));
                free(S); free(D); free(E);
            }
}

/* The team getrs (lu_getrs_team.cuh) in every compiled shape against the
 * thread-per-system getrs (lu_getrs.cuh), which performs the same
 * operations: bit-identical solutions, gaps and info, on the factors of one
 * getrf per case (a singular system, a NaN in A and an Inf in B among them),
 * every pivoting, nrhs 1 and 2, every layout of B, batches that end inside
 * a warp's systems. */
static void rsteam_shapes(bsolve_ctx *gpu)
{
#define RS_CODE(tl, tw, v, d, w) w * 10000 + (d - 1) * 1000 + tl * 100 + tw * 10 + v,
    static const int shapes[] = {BSI_LU_RSTEAM_SHAPES(RS_CODE)};
#undef RS_CODE
    static const int ns_all[] = {1, 2, 7, 9, 16, 17, 33, 64, 65, 100, 128};
    static const int ns_san[] = {1, 9, 128};
    static const int ns_race[] = {9, 65};
    const int *ns = sanitize == 2 ? ns_race : sanitize ? ns_san : ns_all;
    const int nn = sanitize == 2 ? 2 : sanitize ? 3 : (int)(sizeof ns_all / sizeof *ns_all);
    long cases = 0;
    for (int dbl = 1; dbl >= (sanitize == 2 ? 1 : 0); dbl--)
        for (int si = 0; si < (int)(sizeof shapes / sizeof *shapes); si++)
            for (int t = 0; t < nn; t++)
                for (int pv = 0; pv < 3; pv++) {
                    const int n = ns[t], nrhs = 1 + (n + pv + si) % 2, shape = shapes[si];
                    const int64_t batch = sanitize ? 37 : n <= 32 ? 101 : 37;
                    const size_t es = dbl ? 8 : 4;
                    const bsolve_layout la = mk(BSOLVE_INTERLEAVED, 0, n, n, batch);
                    const bsolve_layout lb = mk((bsolve_layout_kind)((t + pv + si) % 3), (t + si) % 2, n, nrhs, batch);
                    const size_t sa = span(la, n, n, batch), sb = span(lb, n, nrhs, batch);
                    char desc[160];
                    snprintf(desc, sizeof desc, "team getrs shape %d vs thread-per-system: %c %s n=%d nrhs=%d B=%s", shape,
                             dbl ? 'd' : 's', pvname[pv], n, nrhs, kname[lb.kind]);
                    void *A = malloc(sa * es), *B = malloc(sb * es), *X1 = malloc(sb * es), *X2 = malloc(sb * es);
                    int32_t *i0 = malloc(batch * 4), *i1 = malloc(batch * 4), *i2 = malloc(batch * 4);
                    fill_case(dbl, (bsolve_pivot)pv, n, nrhs, batch, A, la, sa, B, lb, sb);
                    bsolve_lu *lu = NULL;
                    CHECK(bsolve_lu_create(gpu, dbl ? BSOLVE_PREC_D : BSOLVE_PREC_S, (bsolve_pivot)pv, n, batch, &lu) == 0 &&
                              getrf(gpu, dbl, A, la, lu, i0) == 0,
                          "%s: getrf (%s)", desc, bsolve_ctx_message(gpu));
                    memcpy(X1, B, sb * es);
                    memcpy(X2, B, sb * es);
                    bsi_test_force(gpu, BSI_FORCE_LU_RSTEAM, shape);
                    const bsolve_status s1 = getrs(gpu, dbl, lu, nrhs, X1, lb, i1);
                    bsi_test_force(gpu, BSI_FORCE_LU_RSTEAM, 1);
                    bsi_test_force(gpu, BSI_FORCE_LU_SOLVE, 2);
                    const bsolve_status s2 = getrs(gpu, dbl, lu, nrhs, X2, lb, i2);
                    bsi_test_force(gpu, BSI_FORCE_LU_RSTEAM, 0);
                    bsi_test_force(gpu, BSI_FORCE_LU_SOLVE, 0);
                    CHECK(s1 == 0 && s2 == 0, "%s: getrs status %d %d (%s)", desc, s1, s2, bsolve_ctx_message(gpu));
                    long bits = 0, infos = 0, solved = 0;
                    for (size_t e = 0; e < sb; e++) {
                        const double a = get(X1, dbl, e), b = get(X2, dbl, e);
                        if (memcmp((char *)X1 + e * es, (char *)X2 + e * es, es) != 0 && !(isnan(a) && isnan(b))) bits++;
                    }
                    for (int64_t k = 0; k < batch; k++) {
                        infos += i1[k] != i2[k];
                        solved += i1[k] == 0;
                    }
                    CHECK(bits == 0, "%s: %ld entries differ", desc, bits);
                    CHECK(infos == 0, "%s: %ld info differ", desc, infos);
                    CHECK(i1[3] == (pv == BSOLVE_PIVOT_FULL ? n : 1) && i1[5] == -1 && i1[6] == -1 && solved >= batch - 3,
                          "%s: info of the injected systems %d %d %d, %ld solved", desc, i1[3], i1[5], i1[6], solved);
                    bsolve_lu_destroy(lu);
                    free(A); free(B); free(X1); free(X2); free(i0); free(i1); free(i2);
                    cases++;
                }
    printf("  team getrs: %ld cases, every shape\n", cases);
}

/* Every precision, pivoting and layout on the orders ns[0..nn-1]. */
static void run_sizes(bsolve_ctx *cpu, bsolve_ctx *gpu, cudaStream_t us, const int *ns, int nn)
{
    for (int dbl = 1; dbl >= (sanitize == 2 ? 1 : 0); dbl--)
        for (int t = 0; t < nn; t++) {
            const int n = ns[t];
            const int64_t batch = sanitize ? 45 : quick ? (n <= 32 ? 201 : 37) : (n <= 16 ? 1031 : n <= 40 ? 263 : 45);
            for (int pv = 0; pv < 3; pv++) {
                /* every layout of A with a rotating layout of B, pads, nrhs 1 and 3 */
                for (int ka = 0; ka < 3; ka++) {
                    const int kb = (ka + t + pv) % 3;
                    run_case(cpu, gpu, us, dbl, (bsolve_pivot)pv, n, (ka == 1 && !quick) ? 3 : 1, batch, ka, kb, (t + ka) % 2);
                }
                if (!quick || n <= 8) run_case(cpu, gpu, us, dbl, (bsolve_pivot)pv, n, 2, 1, BSOLVE_INTERLEAVED, BSOLVE_COL_MAJOR, 0);
            }
        }
}

int main(void)
{
    const char *q = getenv("BSOLVE_TEST_QUICK");
    quick = q && *q && strcmp(q, "0");
    q = getenv("BSOLVE_TEST_SANITIZE");
    sanitize = q && *q && strcmp(q, "0") ? atoi(q) : 0;
    if (sanitize) quick = 1;
    /* BSOLVE_TEST_CONFIG: unset or "all" the table's run and every forced
     * configuration (only the table's under BSOLVE_TEST_SANITIZE); 0 the
     * table's only; 1..10 that forced configuration only */
    q = getenv("BSOLVE_TEST_CONFIG");
    const int only = q && *q && strcmp(q, "all") ? atoi(q) : -1;
    if (only < -1) {
        fprintf(stderr, "BSOLVE_TEST_CONFIG=%s: expected all, 0 or a configuration's number\n", q);
        return 1;
    }
    bsolve_ctx *gpu = NULL, *cpu = NULL;
    bsolve_status s = bsolve_ctx_create(&gpu, BSOLVE_BACKEND_CUDA);
    if (s == BSOLVE_ENODEVICE) {
        printf("SKIP: no CUDA device\n");
        return 0;
    }
    if (s != 0 || bsolve_ctx_create(&cpu, BSOLVE_BACKEND_CPU) != 0) {
        fprintf(stderr, "FAIL: context creation: %s\n", bsolve_strerror(s));
        return 1;
    }
    cudaStream_t us;
    CU(cudaStreamCreateWithFlags(&us, cudaStreamNonBlocking));
    static const int ns_full[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17, 20, 23, 24, 27, 31, 32, 33, 40, 48, 64, 65, 100, 128};
    static const int ns_quick[] = {1, 3, 4, 8, 9, 16, 24, 32, 33, 64, 128};
    static const int ns_san[] = {3, 8, 12, 24, 40, 128};
    static const int ns_race[] = {8, 12, 40};
    const int *ns = sanitize == 2 ? ns_race : sanitize ? ns_san : quick ? ns_quick : ns_full;
    const int nn = sanitize == 2 ? 3 : sanitize ? 6 : quick ? (int)(sizeof ns_quick / sizeof *ns_quick) : (int)(sizeof ns_full / sizeof *ns_full);
    if (only <= 0) {
        printf("== gpu_lu%s: the dispatch table's kernels\n", quick ? " (quick)" : "");
        fflush(stdout);
        run_sizes(cpu, gpu, us, ns, nn);
        convert_cases(cpu, gpu);
        if (sanitize != 2) big_batch(cpu, gpu);
    }
    /* The kernel choices forced on the context (bsi_test_force) after the
     * table's run, on the orders where they change the kernel (the quick
     * settings): the team and block kernels where the row-per-lane or the
     * register-tile kernel runs by default (a forced row-per-lane knob sets
     * the register-tile kernel aside), and the row-per-lane kernel on every
     * order it has a bucket for, FULL included (buckets 10 and 12 in FP64,
     * 10..16 in FP32, FP32 FULL 49..64: no default choice reaches them); the
     * register-tile kernel on every order of its buckets' edges (FULL falls
     * to BLOCK). */
    static const int ns_forced[] = {9, 11, 12, 13, 16, 17, 24, 27, 32, 40, 48, 49, 64, 80, 100, 128};
    static const int ns_solve[] = {1, 2, 5, 8, 9, 16, 33, 64, 100, 128};
    static const int ns_smem[] = {9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22};
    static const int ns_tile[] = {33, 35, 40, 41, 47, 48, 49, 54, 56, 57, 63, 64, 65, 80, 81, 100, 112, 127, 128};
    static const struct {
        const char *what;
        int knob, value;
        const int *ns;
        int nn;
    } configs[] = {
        {"without the row-per-lane kernel", BSI_FORCE_LU_WARP, 1, ns_forced, (int)(sizeof ns_forced / sizeof *ns_forced)},
        {"the row-per-lane kernel wherever it has a bucket", BSI_FORCE_LU_WARP, 2, ns_forced,
         (int)(sizeof ns_forced / sizeof *ns_forced)},
        {"the register-tile kernel wherever it runs", BSI_FORCE_LU_TILE, 2, ns_tile, (int)(sizeof ns_tile / sizeof *ns_tile)},
        {"the blocked panel kernel wherever it runs", BSI_FORCE_LU_PANEL, 2, ns_tile, (int)(sizeof ns_tile / sizeof *ns_tile)},
        {"the thread-per-system getrs on every getrs", BSI_FORCE_LU_SOLVE, 2, ns_solve, (int)(sizeof ns_solve / sizeof *ns_solve)},
        {"the shared-memory kernel on every order it has", BSI_FORCE_LU_SMEM, 2, ns_smem, (int)(sizeof ns_smem / sizeof *ns_smem)},
        {"without the shared-memory kernel", BSI_FORCE_LU_SMEM, 1, ns_smem, (int)(sizeof ns_smem / sizeof *ns_smem)},
        {"the team getrs on every getrs", BSI_FORCE_LU_RSTEAM, 2, ns_solve, (int)(sizeof ns_solve / sizeof *ns_solve)},
        {"the team getrs in every shape against the thread-per-system getrs", BSI_FORCE_LU_RSTEAM, -1, NULL, 0},
        {"without the team getrs", BSI_FORCE_LU_RSTEAM, 1, ns_solve, (int)(sizeof ns_solve / sizeof *ns_solve)}};
    const int nconf = (int)(sizeof configs / sizeof *configs);
    const int quick0 = quick;
    if (only > nconf) {
        fprintf(stderr, "BSOLVE_TEST_CONFIG=%s: expected all, 0 or 1..%d\n", q, nconf);
        return 1;
    }
    for (int c = 0; c < nconf; c++) {
        if (only == 0 || (only > 0 && only != c + 1) || (only < 0 && sanitize)) continue;
        quick = 1;
        g_cfg = configs[c].what;
        rs = 0x9e3779b97f4a7c15ULL;
        printf("== gpu_lu (quick), configuration %d: %s\n", c + 1, configs[c].what);
        fflush(stdout);
        if (configs[c].value < 0) { /* sets its own knobs, case by case */
            rsteam_shapes(gpu);
            continue;
        }
        CHECK(bsi_test_force(gpu, configs[c].knob, configs[c].value) == 0, "bsi_test_force");
        /* under a sanitizer, a few orders across the 33..128 buckets, or
         * the shared-memory kernel's teams (FP64 n = 16 with whole rows per
         * lane, 22 with a ragged last one; FP32 n = 18), a thread per system
         * (n = 9, 17); under racecheck, the slowest, the first two */
        static const int ns_sanf[] = {57, 100, 40, 128};
        static const int ns_sans[] = {16, 22, 9, 18, 17};
        if (sanitize && configs[c].knob == BSI_FORCE_LU_SMEM)
            run_sizes(cpu, gpu, us, ns_sans, sanitize == 2 ? 2 : (int)(sizeof ns_sans / sizeof *ns_sans));
        else if (sanitize) run_sizes(cpu, gpu, us, ns_sanf, sanitize == 2 ? 2 : (int)(sizeof ns_sanf / sizeof *ns_sanf));
        else run_sizes(cpu, gpu, us, configs[c].ns, configs[c].nn);
        bsi_test_force(gpu, configs[c].knob, 0);
    }
    quick = quick0;
    CU(cudaStreamDestroy(us));
    bsolve_ctx_destroy(gpu);
    bsolve_ctx_destroy(cpu);
    printf("%s: %ld checks, %ld failed\n", nfail ? "FAIL" : "PASS", nchecks, nfail);
    return nfail ? 1 : 0;
}
#endif
