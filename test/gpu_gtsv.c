/*
 * gpu_gtsv.c -- GPU-only checks of the CUDA tridiagonal solvers (make gpu-test).
 *
 *   - many systems (m = 1..1024, batch 1000+ not a multiple of 32), every
 *     method, s and d, contiguous and interleaved: device pointers on a
 *     user stream, host pointers and the CPU backend agree (info identical,
 *     host/device-pointer results bit-identical, solutions close to the
 *     CPU's), backward-error ratio < 30, singular and NaN/Inf systems get
 *     the CPU's info and all-NaN solutions;
 *   - few long systems (the partition method): m = 2^16..2^20 (+5, +17: short
 *     last partitions), batch 1..17 and 40, every method, s and d, every layout pair,
 *     checked by residual (long double) and against the CPU backend, and
 *     diagonally dominant ones must not come from the sequential fallback;
 *     random and zero-diagonal systems (small pivots inside partitions: the
 *     fallback), singular and non-finite ones;
 *   - the same cases with the dispatch table's alternatives forced on the
 *     context (bsi_test_force): levels of 16-row partitions with the chunk
 *     reduction on every level, the fused kernel's block bottom with its
 *     blocks looping, the reduction by warps, ordinary launches, the tile
 *     kernel's other reductions; each configuration asserts the kernels its
 *     cases reached (bsi_cuda_gt_kernel);
 *   - one contract for the split path: gttrf + gttrs give gtsv's X and info
 *     bitwise on every path (sequential kernel, tile kernel, fused kernel,
 *     levels), B laid out like the diagonals; with B in the other layout
 *     kind, gtsv's X for B laid out like the diagonals.
 * BSOLVE_TEST_QUICK=1 shrinks the sizes (compute-sanitizer runs);
 * BSOLVE_TEST_GT_CONFIG=name runs one configuration (default, levels16,
 * fusedblock, warpred, nopdl, pcr, split).
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
#include "internal.h"

#ifndef HAVE_CUDART
int main(void) { return gpu_check_skip_main(); }
#else

/* Set around the few-long cases: a diagonally dominant system must come out
 * of the partition method, not the sequential fallback (which is
 * bit-identical to the CPU backend and would hide a guard that always
 * fails). */
static int expect_partition;
static int quick;

static uint64_t rng_s = 88172645463325252ULL;
static double urand(void) /* (-1, 1), never 0 */
{
    rng_s ^= rng_s << 13, rng_s ^= rng_s >> 7, rng_s ^= rng_s << 17;
    double u = ((rng_s >> 11) + 0.5) * (1.0 / 9007199254740992.0);
    return 2 * u - 1;
}

enum { DIAGDOM, RANDOM, ZERODIAG };

/* Diagonals and rhs of `batch` systems, contiguous (system k at k*m), double. */
static void gen(int fam, int64_t m, int64_t nrhs, int64_t batch, double *dl, double *d, double *du, double *b)
{
    for (int64_t k = 0; k < batch; k++)
        for (int64_t i = 0; i < m; i++) {
            const int64_t o = k * m + i;
            dl[o] = urand(), du[o] = urand();
            if (fam == DIAGDOM) {
                const double s = fabs(dl[o]) + fabs(du[o]) + 1 + fabs(urand());
                d[o] = urand() > 0 ? s : -s;
            } else if (fam == ZERODIAG) {
                d[o] = 0;
                if (i % 2 == 0) dl[o] *= 0.5, du[o] += du[o] < 0 ? -1 : 1;
                else du[o] *= 0.5, dl[o] += dl[o] < 0 ? -1 : 1;
            } else {
                d[o] = urand();
            }
        }
    for (int64_t i = 0; i < m * nrhs * batch; i++) b[i] = urand();
}

static double bwd(int64_t m, const double *dl, const double *d, const double *du, const double *b, const double *x,
                  double eps)
{
    long double rmax = 0, an = 0, xn = 0;
    for (int64_t i = 0; i < m; i++) {
        if (!isfinite(x[i])) return INFINITY;
        long double s = (long double)d[i] * x[i], a = fabsl((long double)d[i]);
        if (i > 0) s += (long double)dl[i] * x[i - 1], a += fabsl((long double)dl[i]);
        if (i + 1 < m) s += (long double)du[i] * x[i + 1], a += fabsl((long double)du[i]);
        long double r = fabsl(b[i] - s);
        if (r > rmax) rmax = r;
        if (a > an) an = a;
        if (fabsl((long double)x[i]) > xn) xn = fabsl((long double)x[i]);
    }
    return rmax == 0 ? 0 : (double)(rmax / (m * eps * an * xn));
}

/* Layout conversion of the contiguous double reference into the test layout
 * and precision (es = 4 or 8). */
static int64_t off(bsolve_tlayout l, int64_t m, int64_t i, int64_t j, int64_t k)
{
    return l.kind == BSOLVE_TCONTIGUOUS ? k * l.stride + j * l.ld + i : (i + j * m) * l.ld + k;
}
static int64_t span(bsolve_tlayout l, int64_t m, int64_t cols, int64_t batch)
{
    return l.kind == BSOLVE_TCONTIGUOUS ? (batch - 1) * l.stride + (cols - 1) * l.ld + m : (cols * m - 1) * l.ld + batch;
}
static void *to_layout(const double *x, int64_t m, int64_t cols, int64_t batch, bsolve_tlayout l, int sp)
{
    const int64_t n = span(l, m, cols, batch);
    void *p = calloc((size_t)(n > 0 ? n : 1), sp ? 4 : 8);
    for (int64_t k = 0; k < batch; k++)
        for (int64_t j = 0; j < cols; j++)
            for (int64_t i = 0; i < m; i++) {
                const double v = x[(k * cols + j) * m + i];
                if (sp) ((float *)p)[off(l, m, i, j, k)] = (float)v;
                else ((double *)p)[off(l, m, i, j, k)] = v;
            }
    return p;
}
static double get(const void *p, int sp, int64_t o) { return sp ? ((const float *)p)[o] : ((const double *)p)[o]; }

static void *to_dev(const void *h, size_t bytes)
{
    void *d = NULL;
    if (cudaMalloc(&d, bytes ? bytes : 1) != cudaSuccess) return NULL;
    cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
    return d;
}

static bsolve_status gtsv(bsolve_ctx *c, int sp, int me, int64_t m, int64_t nrhs, int64_t batch, const void *dl,
                          const void *d, const void *du, bsolve_tlayout lt, void *B, bsolve_tlayout lb, int32_t *info)
{
    if (sp) return bsolve_sgtsv(c, (bsolve_gtsv_method)me, m, nrhs, batch, dl, d, du, lt, B, lb, info);
    return bsolve_dgtsv(c, (bsolve_gtsv_method)me, m, nrhs, batch, dl, d, du, lt, B, lb, info);
}

/* The kernels the cases of one configuration reached (bsi_cuda_gt_kernel's
 * names), for its assertions. */
static const char *reached[16];
static int nreached;
static void note_kernel(bsolve_ctx *gpu, int sp, int me, int64_t m, int64_t batch, bsolve_tlayout_kind lt,
                        bsolve_tlayout_kind lb)
{
    const char *k = bsi_cuda_gt_kernel(gpu, sp ? BSOLVE_PREC_S : BSOLVE_PREC_D, (bsolve_gtsv_method)me, m, batch, lt, lb);
    CHECK(k != NULL, "bsi_cuda_gt_kernel failed");
    if (!k) return;
    for (int i = 0; i < nreached; i++)
        if (!strcmp(reached[i], k)) return;
    if (nreached < 16) reached[nreached++] = k;
}
/* The configuration's cases reached kernel k; a kernel whose name starts
 * with prefix; only such kernels. */
static void expect_reached(const char *cfg, const char *k)
{
    int hit = 0;
    for (int i = 0; i < nreached; i++) hit |= !strcmp(reached[i], k);
    CHECK(hit, "%s: no case ran the %s kernel", cfg, k);
}
static void expect_prefix(const char *cfg, const char *prefix)
{
    int hit = 0;
    for (int i = 0; i < nreached; i++) hit |= !strncmp(reached[i], prefix, strlen(prefix));
    CHECK(hit, "%s: no case ran a %s kernel", cfg, prefix);
}
static void expect_only(const char *cfg, const char *prefix)
{
    for (int i = 0; i < nreached; i++)
        CHECK(!strncmp(reached[i], prefix, strlen(prefix)), "%s: a case ran the %s kernel", cfg, reached[i]);
}

/* One case: CPU backend, CUDA host pointers, CUDA device pointers (and
 * gttrf + gttrs on device pointers when trf). */
static void run_case(bsolve_ctx *cpu, bsolve_ctx *gpu, int sp, int me, int fam, int64_t m, int64_t nrhs,
                     int64_t batch, int lkind, int inject, int trf, double bwd_max)
{
    /* lkind 0: contiguous A, interleaved B; 1: the reverse; 2: both interleaved
     * (the only mix that gives the tile kernel its interleaved shapes); 3: both
     * contiguous (2 and 3 take the tile kernel's one-walk copy of all arrays) */
    const bsolve_tlayout lt = lkind == 1 || lkind == 2 ? bsolve_tlayout_interleaved(batch + 1)
                                                       : bsolve_tlayout_contiguous(m, m + 1);
    const bsolve_tlayout lb = lkind == 1 || lkind == 3 ? bsolve_tlayout_contiguous(m, m * nrhs)
                                                       : bsolve_tlayout_interleaved(batch);
    const size_t es = sp ? 4 : 8;
    double *dl = malloc(8 * m * batch), *d = malloc(8 * m * batch), *du = malloc(8 * m * batch);
    double *b = malloc(8 * m * nrhs * batch);
    gen(fam, m, nrhs, batch, dl, d, du, b);
    if (sp)
        for (int64_t i = 0; i < m * batch; i++) dl[i] = (float)dl[i], d[i] = (float)d[i], du[i] = (float)du[i];
    if (sp)
        for (int64_t i = 0; i < m * nrhs * batch; i++) b[i] = (float)b[i];
    if (inject && batch > 2) { /* a singular system (zero column) and a NaN one */
        const int64_t k = batch / 2, j = m / 3;
        d[k * m + j] = 0;
        if (j + 1 < m) dl[k * m + j + 1] = 0;
        if (j > 0) du[k * m + j - 1] = 0;
        b[(batch - 1) * m * nrhs + m / 2] = NAN;
    }
    note_kernel(gpu, sp, me, m, batch, lt.kind, lb.kind);
    void *hl = to_layout(dl, m, 1, batch, lt, sp), *hd = to_layout(d, m, 1, batch, lt, sp);
    void *hu = to_layout(du, m, 1, batch, lt, sp), *hb = to_layout(b, m, nrhs, batch, lb, sp);
    const int64_t ts = span(lt, m, 1, batch), bs = span(lb, m, nrhs, batch);
    void *Bc = malloc(bs * es), *Bh = malloc(bs * es), *Bd = malloc(bs * es);
    memcpy(Bc, hb, bs * es), memcpy(Bh, hb, bs * es);
    int32_t *ic = malloc(4 * batch), *ih = malloc(4 * batch), *id = malloc(4 * batch);
    for (int64_t k = 0; k < batch; k++) ic[k] = ih[k] = id[k] = 12345;
    bsolve_status s = gtsv(cpu, sp, me, m, nrhs, batch, hl, hd, hu, lt, Bc, lb, ic);
    CHECK(s == 0, "cpu: %s", bsolve_ctx_message(cpu));
    s = gtsv(gpu, sp, me, m, nrhs, batch, hl, hd, hu, lt, Bh, lb, ih);
    CHECK(s == 0, "cuda host: %s", bsolve_ctx_message(gpu));
    /* device pointers on a user stream */
    void *dL = to_dev(hl, ts * es), *dD = to_dev(hd, ts * es), *dU = to_dev(hu, ts * es), *dB = to_dev(hb, bs * es);
    int32_t *dI = NULL;
    cudaMalloc((void **)&dI, 4 * batch);
    cudaStream_t st;
    cudaStreamCreate(&st);
    bsolve_ctx_set_stream(gpu, st);
    if (!trf) {
        s = gtsv(gpu, sp, me, m, nrhs, batch, dL, dD, dU, lt, dB, lb, dI);
        CHECK(s == 0, "cuda device: %s", bsolve_ctx_message(gpu));
    } else {
        bsolve_gt *gt = NULL;
        int32_t *dF = NULL;
        cudaMalloc((void **)&dF, 4 * batch);
        s = bsolve_gt_create(gpu, sp ? BSOLVE_PREC_S : BSOLVE_PREC_D, (bsolve_gtsv_method)me, m, batch, &gt);
        CHECK(s == 0, "gt_create: %s", bsolve_ctx_message(gpu));
        s = sp ? bsolve_sgttrf(gpu, dL, dD, dU, lt, gt, dF) : bsolve_dgttrf(gpu, dL, dD, dU, lt, gt, dF);
        CHECK(s == 0, "gttrf: %s", bsolve_ctx_message(gpu));
        s = sp ? bsolve_sgttrs(gpu, gt, nrhs, dB, lb, dI) : bsolve_dgttrs(gpu, gt, nrhs, dB, lb, dI);
        CHECK(s == 0, "gttrs: %s", bsolve_ctx_message(gpu));
        bsolve_ctx_synchronize(gpu);
        bsolve_gt_destroy(gt);
        cudaFree(dF);
    }
    CHECK(bsolve_ctx_synchronize(gpu) == 0, "synchronize: %s", bsolve_ctx_message(gpu));
    bsolve_ctx_set_stream(gpu, NULL);
    cudaStreamDestroy(st);
    cudaMemcpy(Bd, dB, bs * es, cudaMemcpyDeviceToHost);
    cudaMemcpy(id, dI, 4 * batch, cudaMemcpyDeviceToHost);
    const double eps = sp ? 1.1920929e-07 : 2.220446049250313e-16;
    double *x = malloc(8 * m), *xc = malloc(8 * m), worst = 0, wdiff = 0;
    for (int64_t k = 0; k < batch; k++) {
        CHECK(ih[k] == ic[k] && id[k] == ic[k], "m=%lld system %lld: info cpu %d, cuda host %d, cuda device %d",
              (long long)m, (long long)k, ic[k], ih[k], id[k]);
        for (int64_t j = 0; j < nrhs; j++) {
            int allnan = 1;
            for (int64_t i = 0; i < m; i++) {
                const int64_t o = off(lb, m, i, j, k);
                x[i] = get(Bd, sp, o), xc[i] = get(Bc, sp, o);
                if (!trf) CHECK(!memcmp((char *)Bh + o * es, (char *)Bd + o * es, es) || (isnan(x[i]) && isnan(get(Bh, sp, o))),
                                "host and device pointers differ (system %lld)", (long long)k);
                allnan &= isnan(x[i]) != 0;
            }
            if (id[k] != 0) {
                CHECK(allnan, "system %lld (info %d) not NaN-filled", (long long)k, id[k]);
                continue;
            }
            const double r = bwd(m, dl + k * m, d + k * m, du + k * m, b + (k * nrhs + j) * m, x, eps);
            if (r > worst) worst = r;
            if (fam == DIAGDOM) {
                int same = 1;
                for (int64_t i = 0; i < m; i++) {
                    if (fabs(x[i] - xc[i]) > wdiff) wdiff = fabs(x[i] - xc[i]);
                    same &= x[i] == xc[i];
                }
                CHECK(!expect_partition || !same, "m=%lld system %lld: bit-identical to the CPU (sequential fallback?)",
                      (long long)m, (long long)k);
            }
        }
    }
    CHECK(worst < bwd_max, "%s method %d fam %d m=%lld batch=%lld nrhs=%lld layout %d: backward error ratio %.3g",
          sp ? "s" : "d", me, fam, (long long)m, (long long)batch, (long long)nrhs, lkind, worst);
    if (fam == DIAGDOM)
        CHECK(wdiff < 1e4 * eps, "m=%lld: differs from the CPU backend by %.3g", (long long)m, wdiff);
    printf("  %s %-7s %-8s m=%-8lld batch=%-5lld nrhs=%lld %s%s: bwd %.2f, |x-x_cpu| %.2g\n", sp ? "s" : "d",
           me == 0 ? "thomas" : me == 1 ? "partial" : "givens", fam == DIAGDOM ? "diagdom" : fam == RANDOM ? "random" : "zerodiag",
           (long long)m, (long long)batch, (long long)nrhs, lkind == 3 ? "both-contig" : lkind == 2 ? "both-inter" : lkind ? "inter" : "contig", trf ? " trf" : "", worst, wdiff);
    fflush(stdout);
    free(x), free(xc), free(dl), free(d), free(du), free(b), free(hl), free(hd), free(hu), free(hb);
    free(Bc), free(Bh), free(Bd), free(ic), free(ih), free(id);
    cudaFree(dL), cudaFree(dD), cudaFree(dU), cudaFree(dB), cudaFree(dI);
}

/* gtsv against gttrf + gttrs on the same device arrays, B (nrhs columns)
 * in layout kind lbk, the diagonals in ltk: X and info bitwise those of
 * gtsv for B laid out like the diagonals (NaN where gtsv's is NaN), and
 * gttrf's info that of gttrs wherever B is finite. */
static void split_case(bsolve_ctx *gpu, int sp, int me, int fam, int64_t m, int64_t nrhs, int64_t batch,
                       bsolve_tlayout_kind ltk, bsolve_tlayout_kind lbk, int inject)
{
    const bsolve_tlayout lt = ltk == BSOLVE_TINTERLEAVED ? bsolve_tlayout_interleaved(batch + 3)
                                                          : bsolve_tlayout_contiguous(m, m + 2);
    /* B for gtsv like the diagonals; B for gttrs in lbk */
    const bsolve_tlayout ls = ltk == BSOLVE_TINTERLEAVED ? bsolve_tlayout_interleaved(batch)
                                                          : bsolve_tlayout_contiguous(m, m * nrhs);
    const bsolve_tlayout lb = lbk == BSOLVE_TINTERLEAVED ? bsolve_tlayout_interleaved(batch + 1)
                                                          : bsolve_tlayout_contiguous(m + 1, (m + 1) * nrhs);
    const size_t es = sp ? 4 : 8;
    note_kernel(gpu, sp, me, m, batch, ltk, ltk);
    double *dl = malloc(8 * m * batch), *d = malloc(8 * m * batch), *du = malloc(8 * m * batch);
    double *b = malloc(8 * m * nrhs * batch);
    gen(fam, m, nrhs, batch, dl, d, du, b);
    if (inject && batch > 2) { /* a singular system (zero column) and a NaN in one B */
        const int64_t k = batch / 2, j = m / 3;
        d[k * m + j] = 0;
        if (j + 1 < m) dl[k * m + j + 1] = 0;
        if (j > 0) du[k * m + j - 1] = 0;
        b[(batch - 1) * m * nrhs + m / 2] = NAN;
    }
    void *hl = to_layout(dl, m, 1, batch, lt, sp), *hd = to_layout(d, m, 1, batch, lt, sp);
    void *hu = to_layout(du, m, 1, batch, lt, sp);
    void *hs = to_layout(b, m, nrhs, batch, ls, sp), *hb = to_layout(b, m, nrhs, batch, lb, sp);
    const int64_t ts = span(lt, m, 1, batch), ss = span(ls, m, nrhs, batch), bs = span(lb, m, nrhs, batch);
    void *dL = to_dev(hl, ts * es), *dD = to_dev(hd, ts * es), *dU = to_dev(hu, ts * es);
    void *dS = to_dev(hs, ss * es), *dB = to_dev(hb, bs * es);
    int32_t *dI = NULL, *dF = NULL, *dT = NULL;
    cudaMalloc((void **)&dI, 4 * batch), cudaMalloc((void **)&dF, 4 * batch), cudaMalloc((void **)&dT, 4 * batch);
    bsolve_status s = gtsv(gpu, sp, me, m, nrhs, batch, dL, dD, dU, lt, dS, ls, dI);
    CHECK(s == 0, "gtsv: %s", bsolve_ctx_message(gpu));
    bsolve_gt *gt = NULL;
    s = bsolve_gt_create(gpu, sp ? BSOLVE_PREC_S : BSOLVE_PREC_D, (bsolve_gtsv_method)me, m, batch, &gt);
    CHECK(s == 0, "gt_create: %s", bsolve_ctx_message(gpu));
    s = sp ? bsolve_sgttrf(gpu, dL, dD, dU, lt, gt, dF) : bsolve_dgttrf(gpu, dL, dD, dU, lt, gt, dF);
    CHECK(s == 0, "gttrf: %s", bsolve_ctx_message(gpu));
    s = sp ? bsolve_sgttrs(gpu, gt, nrhs, dB, lb, dT) : bsolve_dgttrs(gpu, gt, nrhs, dB, lb, dT);
    CHECK(s == 0, "gttrs: %s", bsolve_ctx_message(gpu));
    CHECK(bsolve_ctx_synchronize(gpu) == 0, "synchronize: %s", bsolve_ctx_message(gpu));
    bsolve_gt_destroy(gt);
    void *X = malloc(ss * es), *Y = malloc(bs * es);
    int32_t *iv = malloc(4 * batch), *fi = malloc(4 * batch), *ti = malloc(4 * batch);
    cudaMemcpy(X, dS, ss * es, cudaMemcpyDeviceToHost), cudaMemcpy(Y, dB, bs * es, cudaMemcpyDeviceToHost);
    cudaMemcpy(iv, dI, 4 * batch, cudaMemcpyDeviceToHost), cudaMemcpy(fi, dF, 4 * batch, cudaMemcpyDeviceToHost);
    cudaMemcpy(ti, dT, 4 * batch, cudaMemcpyDeviceToHost);
    int64_t ndiff = 0, nnz = 0;
    for (int64_t k = 0; k < batch; k++) {
        CHECK(ti[k] == iv[k], "m=%lld system %lld: info gttrs %d, gtsv %d", (long long)m, (long long)k, ti[k], iv[k]);
        CHECK(ti[k] == fi[k] || ti[k] == BSOLVE_INFO_NONFINITE, "m=%lld system %lld: info gttrs %d, gttrf %d",
              (long long)m, (long long)k, ti[k], fi[k]);
        nnz += iv[k] != 0;
        for (int64_t j = 0; j < nrhs; j++)
            for (int64_t i = 0; i < m; i++) {
                const int64_t ox = off(ls, m, i, j, k), oy = off(lb, m, i, j, k);
                const double x = get(X, sp, ox), y = get(Y, sp, oy);
                ndiff += !(isnan(x) && isnan(y)) && memcmp((char *)X + ox * es, (char *)Y + oy * es, es) != 0;
            }
    }
    CHECK(ndiff == 0, "%s method %d fam %d m=%lld batch=%lld nrhs=%lld lt %d lb %d (%s): gttrf + gttrs differs from "
          "gtsv in %lld entries", sp ? "s" : "d", me, fam, (long long)m, (long long)batch, (long long)nrhs, ltk, lbk,
          bsi_cuda_gt_kernel(gpu, sp ? BSOLVE_PREC_S : BSOLVE_PREC_D, (bsolve_gtsv_method)me, m, batch, ltk, ltk),
          (long long)ndiff);
    CHECK(!inject || batch <= 2 || nnz >= 2, "m=%lld: the singular and the NaN system went unreported", (long long)m);
    printf("  %s %-7s m=%-6lld batch=%-4lld nrhs=%lld %s/%s %s: %lld of %lld entries differ\n", sp ? "s" : "d",
           me == 0 ? "thomas" : me == 1 ? "partial" : "givens", (long long)m, (long long)batch, (long long)nrhs,
           ltk ? "inter" : "contig", lbk ? "inter" : "contig",
           bsi_cuda_gt_kernel(gpu, sp ? BSOLVE_PREC_S : BSOLVE_PREC_D, (bsolve_gtsv_method)me, m, batch, ltk, ltk),
           (long long)ndiff, (long long)(m * nrhs * batch));
    fflush(stdout);
    free(dl), free(d), free(du), free(b), free(hl), free(hd), free(hu), free(hs), free(hb);
    free(X), free(Y), free(iv), free(fi), free(ti);
    cudaFree(dL), cudaFree(dD), cudaFree(dU), cudaFree(dS), cudaFree(dB), cudaFree(dI), cudaFree(dF), cudaFree(dT);
}

static void many_systems(bsolve_ctx *cpu, bsolve_ctx *gpu, const int64_t *ms, int nm)
{
    for (int im = 0; im < nm; im++)
        for (int sp = 0; sp < 2; sp++)
            for (int me = 0; me < 3; me++) {
                const int64_t m = ms[im], batch = quick ? 101 : 1003 + (m > 100 ? 0 : 2000);
                const int fam = me == 0 ? DIAGDOM : (im % 2 ? RANDOM : DIAGDOM);
                run_case(cpu, gpu, sp, me, fam, m, 1 + im % 3, batch, (im + me + sp) % 4, 1, 0, 30);
                if (im % 3 == 0) run_case(cpu, gpu, sp, me, fam, m, 2, batch, (im + me + 1) % 2, 1, 1, 30);
            }
}

/* The few-long cases (the partition method). */
static void few_long(bsolve_ctx *cpu, bsolve_ctx *gpu)
{
    const int64_t lm[] = {1 << 16, 1 << 18, 1 << 20};
    const int64_t lb[] = {1, 3, 17};
    for (int im = 0; im < (quick ? 1 : 3); im++)
        for (int ib = 0; ib < 3; ib++)
            for (int me = 0; me < 3; me++) {
                /* quick (sanitizers): the shortest m that still takes the partition path */
                /* m + 5: a short last partition; m + 17: one of a single row */
                const int64_t m = (quick ? 1 << 12 : lm[im]) + (ib == 1 ? 5 : ib == 2 ? 17 : 0), batch = lb[ib];
                if (m * batch > ((int64_t)1 << 22) && ib == 2) continue;
                expect_partition = 1;
                run_case(cpu, gpu, (im + me) % 2, me, DIAGDOM, m, 1, batch, (ib + me + im) % 4, ib == 2, 0, 30);
                expect_partition = 0;
                if (me) run_case(cpu, gpu, 0, me, RANDOM, m, 1, batch, ib % 2, 0, 0, 30);
                if (me && ib < 2) run_case(cpu, gpu, 0, me, ZERODIAG, m - (m % 2), 1, batch, 0, 0, 0, 30);
            }
    /* More equations than the fused kernel takes (2^21): the levels with
     * their defaults (two levels of passes, the bottom tile kernel on 1024
     * rows per system), a singular and a NaN system among PARTIAL's */
    if (!quick)
        for (int me = 0; me < 3; me++) {
            expect_partition = 1;
            run_case(cpu, gpu, me == 1, me, DIAGDOM, (1 << 16) + 5 * me, 1, 40, me, me == 1, 0, 30);
            expect_partition = 0;
        }
    /* The reduction by warps (gt_warp_reduce): 40 contiguous systems of
     * ~2^16 rows take it on the top level by default (chunks of 127
     * partitions of 8 rows, 1016 rows, in groups of 32, 32, 32 and 31).
     * m = 64 * 1016 + r leaves the last chunk 1, 2 or 3 partitions (r = 1,
     * 9, 17: a group of one, two, three), or 33 (r = 257: a second group of
     * one); PARTIAL gets the singular and the NaN system.  Contiguous A (lkind
     * 0 and 3): interleaved systems of one block each do not take it.  The
     * shorter sizes (8 chunks + r) take it only where the configuration
     * forces it (warpred in main); by default they go to the fused kernel,
     * whose block-wide chunk reduction meets a last chunk of 1, 2, 3 and 33
     * partitions. */
    for (int sz = quick; sz < 2; sz++) {
        const int64_t wm[] = {65025, 65033, 65041, 65281}, wq[] = {8129, 8137, 8145, 8385};
        const int64_t *w = sz ? wq : wm;
        for (int i = 0; i < 4; i++)
            for (int me = 0; me < 3; me++) {
                expect_partition = 1;
                run_case(cpu, gpu, (i + me) % 2, me, DIAGDOM, w[i], 1, 40, (i + me) % 2 ? 3 : 0, me == 1, 0, 30);
                expect_partition = 0;
            }
        run_case(cpu, gpu, 0, 1, RANDOM, w[3], 1, 40, 0, 0, 0, 30);
    }
    /* The chunk reduction's last chunk: one system of m < 2^13 is cut into
     * chunks of 31 partitions of 16 rows (496 rows), so m = 8 * 496 + r
     * leaves a last chunk of 1, 2 or 3 partitions (r = 1, 17, 33) or none
     * short (r = 0); two systems interleaved get chunks of 15 partitions
     * (240 rows): m = 14 * 240 + r.  The default reduces only where that
     * saves a level, which these sizes never need: they exercise it in the
     * configuration that forces it on every level (levels16 in main, which
     * also forces the levels and the 16-row partitions these sizes assume),
     * and the fused kernel (8-row partitions) otherwise. */
    const int64_t cm[] = {3969, 3985, 4001, 3968}, cm2[] = {3361, 3377, 3393, 3360};
    for (int i = 0; i < 4; i++)
        for (int me = 0; me < 3; me++) {
            expect_partition = 1;
            run_case(cpu, gpu, (i + me) % 2, me, DIAGDOM, cm[i], 1, 1, (i + me) % 4, 0, 0, 30);
            run_case(cpu, gpu, (i + me + 1) % 2, me, DIAGDOM, cm2[i], 1, 2, 2, 0, 0, 30);
            expect_partition = 0;
        }
    run_case(cpu, gpu, 1, 2, DIAGDOM, quick ? 1 << 12 : 1 << 16, 3, 5, 1, 1, 0, 30);
    run_case(cpu, gpu, 0, 1, DIAGDOM, quick ? 1 << 12 : 1 << 16, 2, 4, 0, 1, 0, 30);
}

/* The split path against gtsv on every path of the dispatch table. */
static void split_all(bsolve_ctx *gpu, int nsm)
{
    const bsolve_tlayout_kind C = BSOLVE_TCONTIGUOUS, I = BSOLVE_TINTERLEAVED;
    /* the tile kernel: one thread per system (m <= 16), partitions of 8
     * rows, of 16 (interleaved m >= 512); the sequential kernel (m > 4096,
     * at least a system per SM) */
    const int64_t ms[] = {1, 2, 8, 16, 33, 100, 600, 1024, 4099};
    for (int im = 0; im < 9; im++)
        for (int sp = 0; sp < 2; sp++)
            for (int me = 0; me < 3; me++) {
                const int64_t m = ms[im], batch = m > 4096 ? nsm + 3 : quick ? 101 : 503;
                const int r = (im + sp) % 3;
                const int fam = me == 0 ? DIAGDOM : r == 0 ? ZERODIAG : r == 1 ? RANDOM : DIAGDOM;
                const bsolve_tlayout_kind lk = (im + me + sp) % 2 ? I : C;
                split_case(gpu, sp, me, fam, m, 1 + (im + me) % 2, batch, lk, lk, 1);
                if ((im + me) % 3 == 0) split_case(gpu, sp, me, fam, m, 2, batch, lk, lk == I ? C : I, 0);
            }
    expect_reached("split", "tile-seq");
    expect_reached("split", "tile-part");
    expect_reached("split", "seq");
    /* few long systems: the fused kernel (its warp and block bottoms), and
     * the levels beyond it */
    nreached = 0;
    const int64_t lms[] = {(1 << 12) + 5, (1 << 16) + 5};
    for (int z = 0; z < (quick ? 1 : 2); z++)
        for (int me = 0; me < 3; me++)
            for (int fam = 0; fam < 3; fam++) {
                if (me == 0 && fam == ZERODIAG) continue;
                const bsolve_tlayout_kind lk = (fam + me) % 2 ? I : C;
                split_case(gpu, me == 1, me, fam, lms[z], 1, 3, lk, lk, 1);
                split_case(gpu, 0, me, fam, lms[z] + 12, 2, 1, C, I, 0);
            }
    expect_prefix("split", "fused");
    if (!quick)
        for (int me = 0; me < 3; me++) split_case(gpu, me == 2, me, DIAGDOM, (1 << 16) + 9, 1, 40, C, C, 1);
    /* the levels where the fused kernel would run */
    bsi_test_force(gpu, BSI_FORCE_GT_FUSED, 1);
    for (int z = 0; z < (quick ? 1 : 2); z++)
        for (int me = 0; me < 3; me++)
            for (int fam = 0; fam < 3; fam++) {
                if (me == 0 && fam == ZERODIAG) continue;
                split_case(gpu, fam == 1, me, fam, lms[z], 1, 3, fam % 2 ? I : C, fam % 2 ? C : I, 1);
            }
    expect_prefix("split", "levels");
    bsi_test_force(gpu, BSI_FORCE_GT_FUSED, 0);
    /* the sequential kernel on shapes the table gives to the tile kernel */
    bsi_test_force(gpu, BSI_FORCE_GT_PATH, 1);
    for (int me = 0; me < 3; me++)
        for (int sp = 0; sp < 2; sp++) {
            split_case(gpu, sp, me, me ? RANDOM : DIAGDOM, 600, 2, 301, sp ? I : C, sp ? I : C, 1);
            split_case(gpu, sp, me, me ? ZERODIAG : DIAGDOM, 33, 1, 301, sp ? C : I, sp ? I : C, 0);
        }
    bsi_test_force(gpu, BSI_FORCE_GT_PATH, 0);
}

/* Configurations: forced knobs as (knob, value) pairs ending in -1. */
static const char *only_cfg;
static int selected(const char *name) { return !only_cfg || !strcmp(only_cfg, name); }
static void force(bsolve_ctx *gpu, const int *kv)
{
    for (; kv[0] >= 0; kv += 2) bsi_test_force(gpu, kv[0], kv[1]);
}
static void unforce(bsolve_ctx *gpu)
{
    for (int k = BSI_FORCE_GT_PATH; k <= BSI_FORCE_GT_FUSED_GRID; k++) bsi_test_force(gpu, k, 0);
    nreached = 0;
}

int main(void)
{
    bsolve_ctx *gpu = NULL, *cpu = NULL;
    if (bsolve_ctx_create(&gpu, BSOLVE_BACKEND_CUDA) == BSOLVE_ENODEVICE) {
        printf("SKIP: no CUDA device\n");
        return 0;
    }
    const char *q = getenv("BSOLVE_TEST_QUICK");
    quick = q && *q && strcmp(q, "0");
    const int quick_env = quick;
    const char *oc = getenv("BSOLVE_TEST_GT_CONFIG");
    only_cfg = oc && *oc ? oc : NULL;
    int dev = 0, nsm = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev);
    bsolve_ctx_create(&cpu, BSOLVE_BACKEND_CPU);
    if (selected("default")) {
        printf("many systems\n");
        const int64_t ms[] = {1, 2, 3, 8, 33, 64, 257, 1024};
        many_systems(cpu, gpu, ms, 8);
        /* Long systems in numbers that fill the GPU: the tile kernel with
         * 16-row partitions (interleaved, m > 1024) and 8-row ones, a short
         * last partition (m odd), the sequential fallback (RANDOM,
         * ZERODIAG); the sequential kernel beyond the tile (m > 4096 with a
         * system per SM or more). */
        for (int lk = 0; lk < 4; lk++)
            for (int me = 0; me < 3; me++) {
                const int64_t m = (lk == 2 ? 4096 : 2048) - 3, batch = quick ? 140 : 300;
                run_case(cpu, gpu, me == 2, me, lk == 1 ? RANDOM : DIAGDOM, m, 1, batch, lk, me == 1, 0, 30);
                if (me) run_case(cpu, gpu, 0, me, ZERODIAG, m + 1, 1, batch, lk, 0, 0, 30);
                if (lk % 2 == 0)
                    run_case(cpu, gpu, me == 1, me, me ? RANDOM : DIAGDOM, 4099, 1 + lk / 2, nsm + 5, lk, 1, me == 2, 30);
            }
        expect_reached("default", "tile-seq");
        expect_reached("default", "tile-part");
        expect_reached("default", "seq");
        printf("few long systems (partition method)\n");
        nreached = 0;
        few_long(cpu, gpu);
        expect_reached("default", "fused-warp");
        if (!quick) {
            expect_prefix("default", "fused-block");
            expect_reached("default", "levels-warpred");
        }
        unforce(gpu);
    }
    if (selected("levels16")) {
        printf("few long systems: levels of 16-row partitions (no fused kernel), the chunk reduction on every level\n");
        const int kv[] = {BSI_FORCE_GT_FUSED, 1, BSI_FORCE_GT_LONG_L, 16, BSI_FORCE_GT_CHUNKRED, 3,
                          BSI_FORCE_GT_LONG_BOTTOM, 64, -1};
        force(gpu, kv);
        few_long(cpu, gpu);
        expect_only("levels16", "levels-chunkred");
        unforce(gpu);
    }
    /* the other configurations on the quick sizes */
    quick = 1;
    if (selected("fusedblock")) {
        printf("few long systems (quick): the fused kernel's block bottom on every size, its blocks looping (7)\n");
        const int kv[] = {BSI_FORCE_GT_FUSED, 4, BSI_FORCE_GT_FUSED_GRID, 7, -1};
        force(gpu, kv);
        few_long(cpu, gpu);
        expect_only("fusedblock", "fused-block-loop");
        unforce(gpu);
    }
    if (selected("warpred")) {
        printf("few long systems (quick): levels with the reduction by warps wherever it applies\n");
        const int kv[] = {BSI_FORCE_GT_FUSED, 1, BSI_FORCE_GT_CHUNKRED, 1, BSI_FORCE_GT_WARPRED, 3,
                          BSI_FORCE_GT_LONG_BOTTOM, 64, -1};
        force(gpu, kv);
        few_long(cpu, gpu);
        expect_reached("warpred", "levels-warpred");
        expect_only("warpred", "levels");
        unforce(gpu);
    }
    if (selected("nopdl")) {
        printf("few long systems (quick): the levels launched the ordinary way\n");
        const int kv[] = {BSI_FORCE_GT_FUSED, 1, BSI_FORCE_GT_PDL, 1, -1};
        force(gpu, kv);
        few_long(cpu, gpu);
        expect_only("nopdl", "levels");
        unforce(gpu);
    }
    if (selected("pcr")) {
        const int64_t ms[] = {33, 257, 1024};
        for (int v = 1; v <= 2; v++) {
            printf("many systems (quick): the tile kernel's reduced systems %s\n",
                   v == 1 ? "by one thread each" : "by PCR dividing");
            bsi_test_force(gpu, BSI_FORCE_GT_PCR, v);
            many_systems(cpu, gpu, ms, 3);
            expect_only("pcr", "tile-part");
            unforce(gpu);
        }
    }
    quick = quick_env;
    if (selected("split")) {
        printf("gttrf + gttrs against gtsv\n");
        split_all(gpu, nsm);
        unforce(gpu);
    }
    bsolve_ctx_destroy(cpu);
    bsolve_ctx_destroy(gpu);
    printf("%ld checks, %ld failed\n", nchecks, nfail);
    return nfail ? 1 : 0;
}
#endif
