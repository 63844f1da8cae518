/*
 * bench_peak.h -- the measured floating-point peak of one core, so that the CPU
 * benchmarks can give their rates as a share of it.
 *
 * A loop of fused multiply-adds on independent accumulators, one thread, for
 * each vector width the CPU runs (AVX-512, AVX2+FMA, SSE2), chosen at run time
 * (__builtin_cpu_supports) and compiled for it by target attributes, so that the
 * benchmark itself still runs on any x86-64 CPU.  The accumulators outnumber
 * FMA latency x FMA ports on current cores (4-5 cycles x 2 ports = 8-10 in
 * flight): 16 zmm (of 32), 12 ymm or 12 xmm (of 16, two held by the constants).
 * SSE2 has no FMA: there a multiply and an add (a dependent pair) count as one.
 * Flops: 2 per lane per FMA.  The best of several runs is reported (the peak is
 * a bound: a disturbed run only lowers it), after a warm-up that lets the core
 * settle at the clock it keeps under wide vector load.
 */
#ifndef BENCH_PEAK_H
#define BENCH_PEAK_H
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PEAK_X86 1
#endif

enum { PEAK_SSE2, PEAK_AVX2, PEAK_AVX512, PEAK_LEVELS };
static const char *const peak_level_name[PEAK_LEVELS] = {"SSE2", "AVX2", "AVX-512"};

static double peak_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#ifdef PEAK_X86
/* x <- x * a + c keeps every accumulator bounded (a < 1): no overflow, no
 * subnormals.  The result is returned so that the loop cannot be removed. */
#define PEAK_LOOP(VT, NACC, SET1, FMA, ADDV, RED)                                                  \
    VT acc[NACC];                                                                              \
    const VT a = SET1(0.999999), c = SET1(1e-6);                                               \
    for (int i = 0; i < NACC; i++) acc[i] = SET1(1.0 + i * 1e-3);                              \
    for (int64_t it = 0; it < iters; it++) {                                                   \
        _Pragma("GCC unroll 16") for (int i = 0; i < NACC; i++) acc[i] = FMA(acc[i], a, c);    \
    }                                                                                          \
    for (int i = 1; i < NACC; i++) acc[0] = ADDV(acc[0], acc[i]);                              \
    return RED(acc[0]);

static double peak_d512_sum(__m512d v) __attribute__((target("avx512f")));
static double peak_d512_sum(__m512d v) { return _mm512_reduce_add_pd(v); }
static double peak_s512_sum(__m512 v) __attribute__((target("avx512f")));
static double peak_s512_sum(__m512 v) { return _mm512_reduce_add_ps(v); }
static double peak_d256_sum(__m256d v) __attribute__((target("avx2")));
static double peak_d256_sum(__m256d v)
{
    double t[4];
    _mm256_storeu_pd(t, v);
    return t[0] + t[1] + t[2] + t[3];
}
static double peak_s256_sum(__m256 v) __attribute__((target("avx2")));
static double peak_s256_sum(__m256 v)
{
    float t[8];
    _mm256_storeu_ps(t, v);
    return (double)t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7];
}
static double peak_d128_sum(__m128d v)
{
    double t[2];
    _mm_storeu_pd(t, v);
    return t[0] + t[1];
}
static double peak_s128_sum(__m128 v)
{
    float t[4];
    _mm_storeu_ps(t, v);
    return (double)t[0] + t[1] + t[2] + t[3];
}
#define PEAK_SSE_FMA_D(x, a, c) _mm_add_pd(_mm_mul_pd(x, a), c)
#define PEAK_SSE_FMA_S(x, a, c) _mm_add_ps(_mm_mul_ps(x, a), c)

__attribute__((target("avx512f"), noinline)) static double peak_run_d512(int64_t iters)
{
    PEAK_LOOP(__m512d, 16, _mm512_set1_pd, _mm512_fmadd_pd, _mm512_add_pd, peak_d512_sum)
}
__attribute__((target("avx512f"), noinline)) static double peak_run_s512(int64_t iters)
{
    PEAK_LOOP(__m512, 16, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, peak_s512_sum)
}
__attribute__((target("avx2,fma"), noinline)) static double peak_run_d256(int64_t iters)
{
    PEAK_LOOP(__m256d, 12, _mm256_set1_pd, _mm256_fmadd_pd, _mm256_add_pd, peak_d256_sum)
}
__attribute__((target("avx2,fma"), noinline)) static double peak_run_s256(int64_t iters)
{
    PEAK_LOOP(__m256, 12, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, peak_s256_sum)
}
__attribute__((noinline)) static double peak_run_d128(int64_t iters)
{
    PEAK_LOOP(__m128d, 12, _mm_set1_pd, PEAK_SSE_FMA_D, _mm_add_pd, peak_d128_sum)
}
__attribute__((noinline)) static double peak_run_s128(int64_t iters)
{
    PEAK_LOOP(__m128, 12, _mm_set1_ps, PEAK_SSE_FMA_S, _mm_add_ps, peak_s128_sum)
}
#endif

/* Whether this CPU (and its OS) runs the level's instructions. */
static int peak_level_supported(int level)
{
#ifdef PEAK_X86
    __builtin_cpu_init();
    if (level == PEAK_AVX512) return __builtin_cpu_supports("avx512f");
    if (level == PEAK_AVX2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return level == PEAK_SSE2;
#else
    (void)level;
    return 0;
#endif
}

/* GFLOP/s of one core at `level` in double (prec 'd') or single precision: the
 * best of `reps` runs of about `secs` seconds each; 0 when the level is not run here. */
static double peak_gflops(int level, char prec, int reps, double secs)
{
#ifdef PEAK_X86
    if (!peak_level_supported(level)) return 0.0;
    static double (*const run[PEAK_LEVELS][2])(int64_t) = {
        {peak_run_d128, peak_run_s128}, {peak_run_d256, peak_run_s256}, {peak_run_d512, peak_run_s512}};
    static const int nacc[PEAK_LEVELS] = {12, 12, 16}, bytes[PEAK_LEVELS] = {16, 32, 64};
    /* SSE2's multiply + add count as the 2 flops of one FMA */
    double (*f)(int64_t) = run[level][prec == 'd' ? 0 : 1];
    const double flops_per_iter = 2.0 * nacc[level] * (bytes[level] / (prec == 'd' ? 8 : 4));
    volatile double sink = 0.0;
    /* warm-up, and the iteration count for `secs` */
    int64_t iters = 1 << 16;
    double t = 0.0;
    for (;;) {
        double t0 = peak_now();
        sink += f(iters);
        t = peak_now() - t0;
        if (t >= 0.05) break;
        iters *= 2;
    }
    iters = (int64_t)((double)iters * secs / t) + 1;
    double best = 0.0;
    for (int r = 0; r < reps; r++) {
        double t0 = peak_now();
        sink += f(iters);
        double g = flops_per_iter * (double)iters / (peak_now() - t0) * 1e-9;
        if (g > best) best = g;
    }
    (void)sink;
    return best;
#else
    (void)level; (void)prec; (void)reps; (void)secs;
    return 0.0;
#endif
}

#endif
