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
 *   - gttrf + gttrs on device pointers agree with gtsv.
 * BSOLVE_TEST_QUICK=1 shrinks the sizes (compute-sanitizer runs).
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
    void *p = calloc((size_t)n, sp ? 4 : 8);
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

int main(void)
{
    bsolve_ctx *gpu = NULL, *cpu = NULL;
    if (bsolve_ctx_create(&gpu, BSOLVE_BACKEND_CUDA) == BSOLVE_ENODEVICE) {
        printf("SKIP: no CUDA device\n");
        return 0;
    }
    const char *q = getenv("BSOLVE_TEST_QUICK");
    quick = q && *q && strcmp(q, "0");
    bsolve_ctx_create(&cpu, BSOLVE_BACKEND_CPU);
    printf("many systems\n");
    const int64_t ms[] = {1, 2, 3, 8, 33, 64, 257, 1024};
    for (int im = 0; im < 8; im++)
        for (int sp = 0; sp < 2; sp++)
            for (int me = 0; me < 3; me++) {
                const int64_t m = ms[im], batch = quick ? 101 : 1003 + (m > 100 ? 0 : 2000);
                const int fam = me == 0 ? DIAGDOM : (im % 2 ? RANDOM : DIAGDOM);
                run_case(cpu, gpu, sp, me, fam, m, 1 + im % 3, batch, (im + me + sp) % 4, 1, 0, 30);
                if (im % 3 == 0) run_case(cpu, gpu, sp, me, fam, m, 2, batch, (im + me + 1) % 2, 1, 1, 30);
            }
    /* Long systems in numbers that fill the GPU: the tile kernel with 16-row
     * partitions (interleaved, m > 1024) and 8-row ones, a short last
     * partition (m odd), the sequential fallback (RANDOM, ZERODIAG). */
    for (int lk = 0; lk < 4; lk++)
        for (int me = 0; me < 3; me++) {
            const int64_t m = (lk == 2 ? 4096 : 2048) - 3, batch = quick ? 140 : 300;
            run_case(cpu, gpu, me == 2, me, lk == 1 ? RANDOM : DIAGDOM, m, 1, batch, lk, me == 1, 0, 30);
            if (me) run_case(cpu, gpu, 0, me, ZERODIAG, m + 1, 1, batch, lk, 0, 0, 30);
        }
    printf("few long systems (partition method)\n");
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
     * shorter sizes (8 chunks + r) take it only where the run forces it
     * (BSOLVE_GT_WARPRED=2 with a short bottom, make gpu-test and the
     * sanitizer run of perf/device-run.sh); by default they go to the fused
     * kernel, whose block-wide chunk reduction meets a last chunk of 1, 2, 3
     * and 33 partitions. */
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
     * run that forces it on every level (BSOLVE_GT_CHUNKRED=2, make gpu-test,
     * which also forces the levels and the 16-row partitions these sizes
     * assume), and the fused kernel (8-row partitions) otherwise. */
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
    bsolve_ctx_destroy(cpu);
    bsolve_ctx_destroy(gpu);
    printf("%ld checks, %ld failed\n", nchecks, nfail);
    return nfail ? 1 : 0;
}
#endif
