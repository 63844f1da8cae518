/*
 * cpu_dispatch.c -- the CPU backend's entry points: each runs the kernels
 * of the best instruction-set level this CPU supports (cpu_isa.h).
 *
 * Compiled like the front end, for any x86-64.  A call that makes nothing
 * lasting (gesv, gels, gtsv, convert) takes the context's level; creating a
 * factorization records the level, whose kernels then serve every later
 * call on that object, since its tiles hold that level's number of lanes.
 * The CPU's features are read per call (__builtin_cpu_supports reads
 * what libgcc found at start-up), so no state is kept.
 *
 * With -DBSI_CPU_X86_LEVELS (the Makefile's default on x86-64) the
 * library holds the avx512, avx2 and base kernels; without it, one set
 * compiled with the build's ARCH flags (a build for one machine, or a CPU
 * other than x86-64).
 */
#include "cpu_isa.h"
#include "cpu_kernels.h"
#include "gtsv_cpu.h"
#include "lu_cpu.h"
#include "qr_cpu.h"

#ifdef BSI_CPU_X86_LEVELS
static const struct bsi_cpu_kernels *const level[BSI_CPU_ISA_MAX + 1] = {
    NULL, &bsi_cpu_kernels_base, &bsi_cpu_kernels_avx2, &bsi_cpu_kernels_avx512};

/* What each level's code needs beyond x86-64: what -march=x86-64-v3 / -v4
 * let the compiler use.  Compilers other than GCC >= 12 cannot ask for the
 * levels by name: there the vector features, which every CPU that has them
 * pairs with the level's others (F16C, LZCNT, MOVBE). */
#if defined(__clang__) || !defined(__GNUC__) || __GNUC__ < 12
#define RUNS_V3()                                                                                  \
    (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi") && \
     __builtin_cpu_supports("bmi2"))
#define RUNS_V4()                                                                                  \
    (RUNS_V3() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&        \
     __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&                    \
     __builtin_cpu_supports("avx512vl"))
#else
#define RUNS_V3() __builtin_cpu_supports("x86-64-v3")
#define RUNS_V4() __builtin_cpu_supports("x86-64-v4")
#endif
static const char *const needs[BSI_CPU_ISA_MAX + 1] = {
    NULL, "x86-64", "AVX2 and FMA (x86-64-v3)", "AVX-512 F, BW, CD, DQ and VL (x86-64-v4)"};

/* Whether this CPU runs level isa's code (the features include the
 * operating system's saving of the wider registers). */
static int cpu_runs(int isa)
{
    __builtin_cpu_init();
    switch (isa) {
    case BSI_CPU_ISA_AVX512: return RUNS_V4();
    case BSI_CPU_ISA_AVX2: return RUNS_V3();
    default: return 1;
    }
}
#endif

int bsi_cpu_isa_runs(int isa)
{
#ifdef BSI_CPU_X86_LEVELS
    return isa >= 1 && isa <= BSI_CPU_ISA_MAX && cpu_runs(isa);
#else
    (void)isa;
    return 0;
#endif
}

/* The kernels for a call on ctx: the level the test-only knob forces, else
 * the best one the CPU runs.  NULL, with *st and the context's message set,
 * when a forced level is one this CPU or build lacks. */
static const struct bsi_cpu_kernels *pick(bsolve_ctx *ctx, const char *fn, bsolve_status *st)
{
    const int f = ctx->force[BSI_FORCE_CPU_ISA];
#ifdef BSI_CPU_X86_LEVELS
    if (f == 0)
        return level[cpu_runs(BSI_CPU_ISA_AVX512) ? BSI_CPU_ISA_AVX512
                     : cpu_runs(BSI_CPU_ISA_AVX2) ? BSI_CPU_ISA_AVX2
                                                  : BSI_CPU_ISA_BASE];
    if (f < 1 || f > BSI_CPU_ISA_MAX)
        *st = bsi_fail(ctx, BSOLVE_EINVAL, "%s: forced CPU level %d is none of 1 (base), 2 (avx2), 3 (avx512)", fn,
                       f);
    else if (!cpu_runs(f))
        *st = bsi_fail(ctx, BSOLVE_ENOTSUP, "%s: the %s CPU kernels were forced, but this CPU lacks %s", fn,
                       level[f]->name, needs[f]);
    else
        return level[f];
#else
    if (f == 0) return &bsi_cpu_kernels_arch;
    *st = bsi_fail(ctx, BSOLVE_ENOTSUP,
                   "%s: CPU level %d was forced, but this build has one set of CPU kernels (built with ARCH)", fn, f);
#endif
    return NULL;
}

/* ---- dense LU ------------------------------------------------------------ */

bsolve_status bsi_cpu_gesv(bsolve_ctx *ctx, bsolve_precision prec, bsolve_pivot pivot, int64_t n, int64_t nrhs,
                           int64_t batch, const void *A, bsolve_layout la, void *B, bsolve_layout lb, int32_t *info)
{
    bsolve_status s;
    const struct bsi_cpu_kernels *k = pick(ctx, "bsolve_gesv", &s);
    return k ? k->gesv(ctx, prec, pivot, n, nrhs, batch, A, la, B, lb, info) : s;
}

bsolve_status bsi_cpu_lu_alloc(bsolve_ctx *ctx, bsolve_lu *lu)
{
    bsolve_status s;
    const struct bsi_cpu_kernels *k = pick(ctx, "bsolve_lu_create", &s);
    lu->cpu = k;
    return k ? k->lu_alloc(ctx, lu) : s;
}

void bsi_cpu_lu_free(bsolve_lu *lu)
{
    if (lu->cpu) lu->cpu->lu_free(lu);
}

bsolve_status bsi_cpu_getrf(bsolve_ctx *ctx, const void *A, bsolve_layout la, bsolve_lu *lu, const uint8_t *mask,
                            int32_t *info)
{
    return lu->cpu->getrf(ctx, A, la, lu, mask, info);
}

bsolve_status bsi_cpu_getrs(bsolve_ctx *ctx, const bsolve_lu *lu, int64_t nrhs, void *B, bsolve_layout lb,
                            const uint8_t *mask, int32_t *info)
{
    return lu->cpu->getrs(ctx, lu, nrhs, B, lb, mask, info);
}

bsolve_status bsi_cpu_lu_export(bsolve_ctx *ctx, const bsolve_lu *lu, void *LU, bsolve_layout l, int32_t *ipiv,
                                int32_t *jpiv)
{
    return lu->cpu->lu_export(ctx, lu, LU, l, ipiv, jpiv);
}

bsolve_status bsi_cpu_convert(bsolve_ctx *ctx, bsolve_precision prec, int64_t r, int64_t c, int64_t batch,
                              const void *src, bsolve_layout ls, void *dst, bsolve_layout ld)
{
    bsolve_status s;
    const struct bsi_cpu_kernels *k = pick(ctx, "bsolve_convert", &s);
    return k ? k->convert(ctx, prec, r, c, batch, src, ls, dst, ld) : s;
}

/* ---- dense QR ------------------------------------------------------------ */

bsolve_status bsi_cpu_gels(bsolve_ctx *ctx, bsolve_precision prec, int64_t m, int64_t n, int64_t nrhs,
                           int64_t batch, const void *A, bsolve_layout la, void *B, bsolve_layout lb,
                           int32_t *info)
{
    bsolve_status s;
    const struct bsi_cpu_kernels *k = pick(ctx, "bsolve_gels", &s);
    return k ? k->gels(ctx, prec, m, n, nrhs, batch, A, la, B, lb, info) : s;
}

bsolve_status bsi_cpu_qr_alloc(bsolve_ctx *ctx, bsolve_qr *qr)
{
    bsolve_status s;
    const struct bsi_cpu_kernels *k = pick(ctx, "bsolve_qr_create", &s);
    qr->cpu = k;
    return k ? k->qr_alloc(ctx, qr) : s;
}

void bsi_cpu_qr_free(bsolve_qr *qr)
{
    if (qr->cpu) qr->cpu->qr_free(qr);
}

bsolve_status bsi_cpu_geqrf(bsolve_ctx *ctx, const void *A, bsolve_layout la, bsolve_qr *qr, int32_t *info)
{
    return qr->cpu->geqrf(ctx, A, la, qr, info);
}

bsolve_status bsi_cpu_geqrs(bsolve_ctx *ctx, const bsolve_qr *qr, int64_t nrhs, void *B, bsolve_layout lb,
                            int32_t *info)
{
    return qr->cpu->geqrs(ctx, qr, nrhs, B, lb, info);
}

bsolve_status bsi_cpu_qr_export(bsolve_ctx *ctx, const bsolve_qr *qr, void *Q, bsolve_layout lq, void *R,
                                bsolve_layout lr)
{
    return qr->cpu->qr_export(ctx, qr, Q, lq, R, lr);
}

/* ---- tridiagonal ----------------------------------------------------------- */

bsolve_status bsi_cpu_gtsv(bsolve_ctx *ctx, bsolve_precision prec, bsolve_gtsv_method method, int64_t m,
                           int64_t nrhs, int64_t batch, const void *dl, const void *d, const void *du,
                           bsolve_tlayout lt, void *B, bsolve_tlayout lb, int32_t *info)
{
    bsolve_status s;
    const struct bsi_cpu_kernels *k = pick(ctx, "bsolve_gtsv", &s);
    return k ? k->gtsv(ctx, prec, method, m, nrhs, batch, dl, d, du, lt, B, lb, info) : s;
}

bsolve_status bsi_cpu_gt_alloc(bsolve_ctx *ctx, bsolve_gt *gt)
{
    bsolve_status s;
    const struct bsi_cpu_kernels *k = pick(ctx, "bsolve_gt_create", &s);
    gt->cpu = k;
    return k ? k->gt_alloc(ctx, gt) : s;
}

void bsi_cpu_gt_free(bsolve_gt *gt)
{
    if (gt->cpu) gt->cpu->gt_free(gt);
}

bsolve_status bsi_cpu_gttrf(bsolve_ctx *ctx, const void *dl, const void *d, const void *du, bsolve_tlayout lt,
                            bsolve_gt *gt, int32_t *info)
{
    return gt->cpu->gttrf(ctx, dl, d, du, lt, gt, info);
}

bsolve_status bsi_cpu_gttrs(bsolve_ctx *ctx, const bsolve_gt *gt, int64_t nrhs, void *B, bsolve_tlayout lb,
                            int32_t *info)
{
    return gt->cpu->gttrs(ctx, gt, nrhs, B, lb, info);
}
