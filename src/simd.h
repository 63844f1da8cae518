/*
 * simd.h -- the vector of lanes the CPU kernels compute with.
 *
 * One vector holds entry (i, j) of W systems and is one register of the
 * target: BSI_VBYTES = 64 bytes (W = 8 doubles or 16 floats) with AVX-512,
 * 32 bytes (4 doubles or 8 floats) with AVX/AVX2 and no AVX-512, 16 bytes
 * (2 doubles or 4 floats) with SSE2 alone (the x86-64 baseline), 64 bytes
 * elsewhere.  The width is fixed by the compiler flags of each compilation:
 * the library holds the kernels once per instruction-set level
 * (cpu_isa.h).  The kernels are written with GCC/Clang vector extensions, so
 * every statement is one vector operation whatever the compiler's
 * auto-vectorizer would have made of a lane loop.  The vector is no wider
 * than a register because gcc 12 has no register mode for a wider one: it
 * splits the arithmetic into register-wide pieces, but keeps every wide
 * value that outlives a statement (a row carried from one elimination
 * step to the next, every store) in memory and moves it through general
 * registers (vmovq/vpinsrq), and expands compares lane by lane: with
 * 64-byte vectors on an AVX2 CPU the tridiagonal sweep runs at about half
 * the speed it reaches with 32-byte ones.  -DBSI_VBYTES=64
 * still builds the AVX-512 width anywhere.  Pivot indices are kept as
 * floating-point values in a vector of the same type, so that comparing
 * them with a row index gives a mask of the right width directly.
 *
 * The only per-lane data movement, fetching or exchanging rows or columns
 * that differ from lane to lane, is a gather and a scatter (one instruction
 * each with AVX-512, a scalar loop elsewhere).
 */
#ifndef BSOLVE_SIMD_H
#define BSOLVE_SIMD_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#ifndef BSI_VBYTES
#if defined(__AVX512F__)
#define BSI_VBYTES 64
#elif defined(__AVX__)
#define BSI_VBYTES 32
#elif defined(__SSE2__)
#define BSI_VBYTES 16
#else
#define BSI_VBYTES 64
#endif
#endif
#if BSI_VBYTES != 16 && BSI_VBYTES != 32 && BSI_VBYTES != 64
#error "BSI_VBYTES must be 16, 32 or 64"
#endif
/* Lanes per vector, i.e. systems per tile. */
#define BSI_LANES_D (BSI_VBYTES / 8)
#define BSI_LANES_S (BSI_VBYTES / 4)
#if defined(__AVX512F__) && BSI_VBYTES == 64
#define BSI_AVX512 1 /* a vector is one zmm register */
#else
#define BSI_AVX512 0
#endif

typedef double bsi_v_d __attribute__((vector_size(BSI_VBYTES), aligned(BSI_VBYTES)));
typedef int64_t bsi_m_d __attribute__((vector_size(BSI_VBYTES), aligned(BSI_VBYTES)));
typedef float bsi_v_s __attribute__((vector_size(BSI_VBYTES), aligned(BSI_VBYTES)));
typedef int32_t bsi_m_s __attribute__((vector_size(BSI_VBYTES), aligned(BSI_VBYTES)));

/* Compares, lane by lane: all ones where true, zeros where false, with C's
 * semantics (every ordered compare is false on a NaN, != is true); bsi_i*
 * compare the integer lanes of masks.  Also the square root and the
 * all-lanes mask test, which C has no operator for.
 *
 * With AVX but no AVX-512 these go through the vector's 32-byte pieces
 * (BSI_YMM of them: 1, or 2 with -DBSI_VBYTES=64), one ymm instruction
 * each (vcmppd, vpcmpgtq, vsqrtpd, vmovmskpd): a compare of a vector wider
 * than a register gcc 12 expands into one vcomisd/seta per lane through
 * the stack, and a lane loop of sqrt into libm calls.
 *
 * Each macro below is instantiated for both precisions:
 *   sfx  d / s    V, M  vector, mask     H, HM  their 32-byte pieces
 *   n    lanes    ps    pd / ps          r      d / (nothing): __m256d / __m256
 *   sq   sqrt / sqrtf   te  epi64 / epi32 (AVX-512 mask tests) */
#if defined(__AVX__) && !BSI_AVX512
#define BSI_YMM (BSI_VBYTES / 32)
typedef double bsi_h_d __attribute__((vector_size(32)));
typedef int64_t bsi_hm_d __attribute__((vector_size(32)));
typedef float bsi_h_s __attribute__((vector_size(32)));
typedef int32_t bsi_hm_s __attribute__((vector_size(32)));
#else
#define BSI_YMM 0
#endif

#if BSI_YMM > 1
#define BSI_CMP_(name, sfx, V, H, op)                                                                  \
    static inline __attribute__((always_inline)) bsi_m_##sfx name##_##sfx(V a, V b)                    \
    {                                                                                                  \
        H ah[BSI_YMM], bh[BSI_YMM];                                                                    \
        bsi_hm_##sfx rh[BSI_YMM];                                                                      \
        bsi_m_##sfx r;                                                                                 \
        memcpy(ah, &a, sizeof a);                                                                      \
        memcpy(bh, &b, sizeof b);                                                                      \
        for (int p = 0; p < BSI_YMM; p++) rh[p] = ah[p] op bh[p];                                      \
        memcpy(&r, rh, sizeof r);                                                                      \
        return r;                                                                                      \
    }
#else
#define BSI_CMP_(name, sfx, V, H, op)                                                                  \
    static inline bsi_m_##sfx name##_##sfx(V a, V b) { return a op b; }
#endif

#if BSI_YMM
#define BSI_SQRT_(sfx, V, H, n, ps, r, sq)                                                             \
    static inline __attribute__((always_inline)) V bsi_sqrt_##sfx(V x)                                 \
    {                                                                                                  \
        H h[BSI_YMM];                                                                                  \
        memcpy(h, &x, sizeof x);                                                                       \
        for (int p = 0; p < BSI_YMM; p++) h[p] = (H)_mm256_sqrt_##ps((__m256##r)h[p]);                 \
        memcpy(&x, h, sizeof x);                                                                       \
        return x;                                                                                      \
    }
#define BSI_ALL_(sfx, M, HM, n, ps, r, te)                                                             \
    static inline __attribute__((always_inline)) int bsi_all_##sfx(M m)                               \
    {                                                                                                  \
        HM h[BSI_YMM];                                                                                 \
        memcpy(h, &m, sizeof m);                                                                       \
        for (int p = 1; p < BSI_YMM; p++) h[0] &= h[p];                                                \
        return _mm256_movemask_##ps((__m256##r)h[0]) == (1 << n / BSI_YMM) - 1;                        \
    }
#elif BSI_AVX512
#define BSI_SQRT_(sfx, V, H, n, ps, r, sq)                                                             \
    static inline V bsi_sqrt_##sfx(V x) { return (V)_mm512_sqrt_##ps((__m512##r)x); }
#define BSI_ALL_(sfx, M, HM, n, ps, r, te)                                                             \
    static inline int bsi_all_##sfx(M m) { return _mm512_test_##te##_mask((__m512i)m, (__m512i)m) == (1 << n) - 1; }
#elif defined(__SSE2__) && BSI_VBYTES == 16
/* SSE2 alone: a lane loop of the mask test becomes a 64-bit integer compare,
 * which SSE2 lacks (gcc 12 fails to compile it), and one of sqrt libm calls. */
#define BSI_SQRT_(sfx, V, H, n, ps, r, sq)                                                             \
    static inline V bsi_sqrt_##sfx(V x) { return (V)_mm_sqrt_##ps((__m128##r)x); }
#define BSI_ALL_(sfx, M, HM, n, ps, r, te)                                                             \
    static inline int bsi_all_##sfx(M m) { return _mm_movemask_##ps((__m128##r)m) == (1 << n) - 1; }
#else
#define BSI_SQRT_(sfx, V, H, n, ps, r, sq)                                                             \
    static inline V bsi_sqrt_##sfx(V x)                                                                \
    {                                                                                                  \
        for (int l = 0; l < n; l++) x[l] = sq(x[l]);                                                   \
        return x;                                                                                      \
    }
#define BSI_ALL_(sfx, M, HM, n, ps, r, te)                                                             \
    static inline int bsi_all_##sfx(M m)                                                               \
    {                                                                                                  \
        int a = 1;                                                                                     \
        for (int l = 0; l < n; l++) a &= m[l] != 0;                                                    \
        return a;                                                                                      \
    }
#endif

#define BSI_CMP(name, op) BSI_CMP_(name, d, bsi_v_d, bsi_h_d, op) BSI_CMP_(name, s, bsi_v_s, bsi_h_s, op)
#define BSI_ICMP(name, op) BSI_CMP_(name, d, bsi_m_d, bsi_hm_d, op) BSI_CMP_(name, s, bsi_m_s, bsi_hm_s, op)
BSI_CMP(bsi_lt, <)
BSI_CMP(bsi_le, <=)
BSI_CMP(bsi_gt, >)
BSI_CMP(bsi_ge, >=)
BSI_CMP(bsi_eq, ==)
BSI_CMP(bsi_ne, !=)
BSI_ICMP(bsi_ilt, <)
BSI_ICMP(bsi_igt, >)
BSI_SQRT_(d, bsi_v_d, bsi_h_d, BSI_LANES_D, pd, d, sqrt)
BSI_SQRT_(s, bsi_v_s, bsi_h_s, BSI_LANES_S, ps, , sqrtf)
BSI_ALL_(d, bsi_m_d, bsi_hm_d, BSI_LANES_D, pd, d, epi64)
BSI_ALL_(s, bsi_m_s, bsi_hm_s, BSI_LANES_S, ps, , epi32)
#undef BSI_CMP_
#undef BSI_CMP
#undef BSI_ICMP
#undef BSI_SQRT_
#undef BSI_ALL_

/* An approximation of 1/sqrt(x), lane by lane, with a relative error below
 * 2^-BSI_RSQRT_BITS, for Newton refinement: one instruction (vrsqrt14pd/ps)
 * with AVX-512, where a square root and a division each occupy the divider
 * for 12..24 cycles per register.  Elsewhere the exact 1/sqrt(x), which needs
 * no refinement: AVX's vrsqrtps (11 bits, float only: double lanes through
 * conversions, 3 Newton steps) made the GIVENS sweep of the AVX2 build
 * about 1.4x slower, not faster: the longer chain of dependent operations
 * costs more than the divider saves there.  -DBSI_RSQRT_EXACT takes the exact
 * path with AVX-512 too; the estimate gains a few percent on Intel cores and
 * is even on AMD Zen 4, so it stays the default. */
#if BSI_AVX512 && !defined(BSI_RSQRT_EXACT)
#define BSI_RSQRT_BITS 14
#define BSI_RSQRT_(sfx, V, ps, r)                                                                      \
    static inline V bsi_rsqrt_##sfx(V x) { return (V)_mm512_rsqrt14_##ps((__m512##r)x); }
#else
#define BSI_RSQRT_BITS 1000
#define BSI_RSQRT_(sfx, V, ps, r)                                                                      \
    static inline V bsi_rsqrt_##sfx(V x) { return 1 / bsi_sqrt_##sfx(x); }
#endif
BSI_RSQRT_(d, bsi_v_d, pd, d)
BSI_RSQRT_(s, bsi_v_s, ps, )
#undef BSI_RSQRT_

/* The NaN lanes (x != x); 1 when some lane of a mask is set. */
static inline bsi_m_d bsi_isnan_d(bsi_v_d x) { return bsi_ne_d(x, x); }
static inline bsi_m_s bsi_isnan_s(bsi_v_s x) { return bsi_ne_s(x, x); }
static inline int bsi_any_d(bsi_m_d m) { return !bsi_all_d(~m); }
static inline int bsi_any_s(bsi_m_s m) { return !bsi_all_s(~m); }

/* m ? a : b, lane by lane (m lanes are all ones or all zeros).  With SSE2
 * alone as intrinsics: gcc 12 turns the operators into a conditional
 * expression, which it then fails to compile for SSE2 (no blend
 * instruction) where the mask comes from a merge of control paths. */
#if defined(__SSE2__) && BSI_VBYTES == 16
static inline bsi_v_d bsi_sel_d(bsi_m_d m, bsi_v_d a, bsi_v_d b)
{
    return (bsi_v_d)_mm_or_pd(_mm_and_pd((__m128d)m, (__m128d)a), _mm_andnot_pd((__m128d)m, (__m128d)b));
}
static inline bsi_v_s bsi_sel_s(bsi_m_s m, bsi_v_s a, bsi_v_s b)
{
    return (bsi_v_s)_mm_or_ps(_mm_and_ps((__m128)m, (__m128)a), _mm_andnot_ps((__m128)m, (__m128)b));
}
#else
static inline bsi_v_d bsi_sel_d(bsi_m_d m, bsi_v_d a, bsi_v_d b) { return (bsi_v_d)((m & (bsi_m_d)a) | (~m & (bsi_m_d)b)); }
static inline bsi_v_s bsi_sel_s(bsi_m_s m, bsi_v_s a, bsi_v_s b) { return (bsi_v_s)((m & (bsi_m_s)a) | (~m & (bsi_m_s)b)); }
#endif

static inline bsi_v_d bsi_abs_d(bsi_v_d v) { return (bsi_v_d)((bsi_m_d)v & INT64_MAX); }
static inline bsi_v_s bsi_abs_s(bsi_v_s v) { return (bsi_v_s)((bsi_m_s)v & INT32_MAX); }

/* x - 0 rather than 0 + x: the sum would turn -0.0 into +0.0 (sign masks
 * are built from -0.0). */
static inline bsi_v_d bsi_set1_d(double x) { return x - (bsi_v_d){0}; }
static inline bsi_v_s bsi_set1_s(float x) { return x - (bsi_v_s){0}; }

/* Lane l of the result is base[p_l * pstride + l], p_l = (int)p[l]. */
static inline bsi_v_d bsi_gather_d(const double *base, bsi_v_d p, int32_t pstride)
{
#if BSI_AVX512
    const __m256i idx = _mm256_add_epi32(_mm256_mullo_epi32(_mm512_cvttpd_epi32((__m512d)p), _mm256_set1_epi32(pstride)),
                                         _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    return (bsi_v_d)_mm512_i32gather_pd(idx, base, 8);
#else
    bsi_v_d r;
    for (int l = 0; l < BSI_LANES_D; l++) r[l] = base[(int64_t)p[l] * pstride + l];
    return r;
#endif
}

static inline bsi_v_s bsi_gather_s(const float *base, bsi_v_s p, int32_t pstride)
{
#if BSI_AVX512
    const __m512i idx = _mm512_add_epi32(_mm512_mullo_epi32(_mm512_cvttps_epi32((__m512)p), _mm512_set1_epi32(pstride)),
                                         _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    return (bsi_v_s)_mm512_i32gather_ps(idx, base, 4);
#else
    bsi_v_s r;
    for (int l = 0; l < BSI_LANES_S; l++) r[l] = base[(int64_t)p[l] * pstride + l];
    return r;
#endif
}

/* base[p_l * pstride + l] = v[l] for every lane l. */
static inline void bsi_scatter_d(double *base, bsi_v_d p, int32_t pstride, bsi_v_d v)
{
#if BSI_AVX512
    const __m256i idx = _mm256_add_epi32(_mm256_mullo_epi32(_mm512_cvttpd_epi32((__m512d)p), _mm256_set1_epi32(pstride)),
                                         _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm512_i32scatter_pd(base, idx, (__m512d)v, 8);
#else
    for (int l = 0; l < BSI_LANES_D; l++) base[(int64_t)p[l] * pstride + l] = v[l];
#endif
}

static inline void bsi_scatter_s(float *base, bsi_v_s p, int32_t pstride, bsi_v_s v)
{
#if BSI_AVX512
    const __m512i idx = _mm512_add_epi32(_mm512_mullo_epi32(_mm512_cvttps_epi32((__m512)p), _mm512_set1_epi32(pstride)),
                                         _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    _mm512_i32scatter_ps(base, idx, (__m512)v, 4);
#else
    for (int l = 0; l < BSI_LANES_S; l++) base[(int64_t)p[l] * pstride + l] = v[l];
#endif
}

#endif
