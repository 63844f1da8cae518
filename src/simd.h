/*
 * simd.h -- the vector of lanes the CPU kernels compute with.
 *
 * One vector holds entry (i, j) of W systems, W = 8 doubles or 16 floats
 * (64 bytes).  The kernels are written with GCC/Clang vector extensions, so
 * every statement is one vector operation whatever the compiler's
 * auto-vectorizer would have made of a lane loop; with AVX-512 they map to
 * single instructions, elsewhere the compiler splits them into the widest
 * vectors the target has.  Pivot indices are kept as floating-point values
 * in a vector of the same type, so that comparing them with a row index
 * gives a mask of the right width directly.
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
#if defined(__AVX__)
#include <immintrin.h>
#endif

typedef double bsi_v_d __attribute__((vector_size(64), aligned(64)));
typedef int64_t bsi_m_d __attribute__((vector_size(64), aligned(64)));
typedef float bsi_v_s __attribute__((vector_size(64), aligned(64)));
typedef int32_t bsi_m_s __attribute__((vector_size(64), aligned(64)));

/* Compares, lane by lane: all ones where true, zeros where false, with C's
 * semantics (every ordered compare is false on a NaN, != is true).
 * Helpers rather than operators because without AVX-512 gcc 12 has no
 * 64-byte register mode to lower a 64-byte compare to: it emits one scalar
 * compare per lane through the stack, which made the tridiagonal sweep run
 * below a LAPACKE loop on an AVX2 machine.  Arithmetic and bitwise
 * operators it splits by itself; compares, the square root and the mask
 * tests are split here into two 32-byte halves (vcmppd, vpcmpgtq, vsqrtpd,
 * vmovmskpd on ymm).  bsi_i* compare the integer lanes of masks.
 *
 * Each macro below is instantiated for both precisions:
 *   sfx  d / s    V, M  vector, mask     H, HM  their 32-byte halves
 *   n    lanes    ps    pd / ps          r      d / (nothing): __m256d / __m256
 *   sq   sqrt / sqrtf   te  epi64 / epi32 (AVX-512 mask tests) */
#if defined(__AVX__) && !defined(__AVX512F__)
#define BSI_HALVES 1
typedef double bsi_h_d __attribute__((vector_size(32)));
typedef int64_t bsi_hm_d __attribute__((vector_size(32)));
typedef float bsi_h_s __attribute__((vector_size(32)));
typedef int32_t bsi_hm_s __attribute__((vector_size(32)));
#else
#define BSI_HALVES 0
#endif

#if BSI_HALVES
#define BSI_CMP_(name, sfx, V, H, op)                                                                  \
    static inline __attribute__((always_inline)) bsi_m_##sfx name##_##sfx(V a, V b)                    \
    {                                                                                                  \
        H ah[2], bh[2];                                                                                \
        bsi_hm_##sfx rh[2];                                                                            \
        bsi_m_##sfx r;                                                                                 \
        memcpy(ah, &a, sizeof a);                                                                      \
        memcpy(bh, &b, sizeof b);                                                                      \
        rh[0] = ah[0] op bh[0];                                                                        \
        rh[1] = ah[1] op bh[1];                                                                        \
        memcpy(&r, rh, sizeof r);                                                                      \
        return r;                                                                                      \
    }
/* Correctly rounded square root (without the split, gcc calls libm's sqrt
 * lane by lane). */
#define BSI_SQRT_(sfx, V, H, n, ps, r, sq)                                                             \
    static inline __attribute__((always_inline)) V bsi_sqrt_##sfx(V x)                                 \
    {                                                                                                  \
        H h[2];                                                                                        \
        memcpy(h, &x, sizeof x);                                                                       \
        h[0] = (H)_mm256_sqrt_##ps((__m256##r)h[0]);                                                   \
        h[1] = (H)_mm256_sqrt_##ps((__m256##r)h[1]);                                                   \
        memcpy(&x, h, sizeof x);                                                                       \
        return x;                                                                                      \
    }
/* 1 when every lane of the mask m is set (m's lanes are all ones or all
 * zeros): one test instead of extracting every lane. */
#define BSI_ALL_(sfx, M, HM, n, ps, r, te)                                                             \
    static inline __attribute__((always_inline)) int bsi_all_##sfx(M m)                                \
    {                                                                                                  \
        HM h[2];                                                                                       \
        memcpy(h, &m, sizeof m);                                                                       \
        return _mm256_movemask_##ps((__m256##r)(h[0] & h[1])) == (1 << n / 2) - 1;                     \
    }
#else
#define BSI_CMP_(name, sfx, V, H, op)                                                                  \
    static inline bsi_m_##sfx name##_##sfx(V a, V b) { return a op b; }
#if defined(__AVX512F__)
#define BSI_SQRT_(sfx, V, H, n, ps, r, sq)                                                             \
    static inline V bsi_sqrt_##sfx(V x) { return (V)_mm512_sqrt_##ps((__m512##r)x); }
#define BSI_ALL_(sfx, M, HM, n, ps, r, te)                                                             \
    static inline int bsi_all_##sfx(M m) { return _mm512_test_##te##_mask((__m512i)m, (__m512i)m) == (1 << n) - 1; }
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
BSI_SQRT_(d, bsi_v_d, bsi_h_d, 8, pd, d, sqrt)
BSI_SQRT_(s, bsi_v_s, bsi_h_s, 16, ps, , sqrtf)
BSI_ALL_(d, bsi_m_d, bsi_hm_d, 8, pd, d, epi64)
BSI_ALL_(s, bsi_m_s, bsi_hm_s, 16, ps, , epi32)
#undef BSI_CMP_
#undef BSI_CMP
#undef BSI_ICMP
#undef BSI_SQRT_
#undef BSI_ALL_

/* The NaN lanes (x != x); 1 when some lane of a mask is set. */
static inline bsi_m_d bsi_isnan_d(bsi_v_d x) { return bsi_ne_d(x, x); }
static inline bsi_m_s bsi_isnan_s(bsi_v_s x) { return bsi_ne_s(x, x); }
static inline int bsi_any_d(bsi_m_d m) { return !bsi_all_d(~m); }
static inline int bsi_any_s(bsi_m_s m) { return !bsi_all_s(~m); }

/* m ? a : b, lane by lane (m lanes are all ones or all zeros). */
static inline bsi_v_d bsi_sel_d(bsi_m_d m, bsi_v_d a, bsi_v_d b) { return (bsi_v_d)((m & (bsi_m_d)a) | (~m & (bsi_m_d)b)); }
static inline bsi_v_s bsi_sel_s(bsi_m_s m, bsi_v_s a, bsi_v_s b) { return (bsi_v_s)((m & (bsi_m_s)a) | (~m & (bsi_m_s)b)); }

static inline bsi_v_d bsi_abs_d(bsi_v_d v) { return (bsi_v_d)((bsi_m_d)v & INT64_MAX); }
static inline bsi_v_s bsi_abs_s(bsi_v_s v) { return (bsi_v_s)((bsi_m_s)v & INT32_MAX); }

/* x - 0 rather than 0 + x: the sum would turn -0.0 into +0.0 (sign masks
 * are built from -0.0). */
static inline bsi_v_d bsi_set1_d(double x) { return x - (bsi_v_d){0}; }
static inline bsi_v_s bsi_set1_s(float x) { return x - (bsi_v_s){0}; }

/* Lane l of the result is base[p_l * pstride + l], p_l = (int)p[l]. */
static inline bsi_v_d bsi_gather_d(const double *base, bsi_v_d p, int32_t pstride)
{
#if defined(__AVX512F__)
    const __m256i idx = _mm256_add_epi32(_mm256_mullo_epi32(_mm512_cvttpd_epi32((__m512d)p), _mm256_set1_epi32(pstride)),
                                         _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    return (bsi_v_d)_mm512_i32gather_pd(idx, base, 8);
#else
    bsi_v_d r;
    for (int l = 0; l < 8; l++) r[l] = base[(int64_t)p[l] * pstride + l];
    return r;
#endif
}

static inline bsi_v_s bsi_gather_s(const float *base, bsi_v_s p, int32_t pstride)
{
#if defined(__AVX512F__)
    const __m512i idx = _mm512_add_epi32(_mm512_mullo_epi32(_mm512_cvttps_epi32((__m512)p), _mm512_set1_epi32(pstride)),
                                         _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    return (bsi_v_s)_mm512_i32gather_ps(idx, base, 4);
#else
    bsi_v_s r;
    for (int l = 0; l < 16; l++) r[l] = base[(int64_t)p[l] * pstride + l];
    return r;
#endif
}

/* base[p_l * pstride + l] = v[l] for every lane l. */
static inline void bsi_scatter_d(double *base, bsi_v_d p, int32_t pstride, bsi_v_d v)
{
#if defined(__AVX512F__)
    const __m256i idx = _mm256_add_epi32(_mm256_mullo_epi32(_mm512_cvttpd_epi32((__m512d)p), _mm256_set1_epi32(pstride)),
                                         _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm512_i32scatter_pd(base, idx, (__m512d)v, 8);
#else
    for (int l = 0; l < 8; l++) base[(int64_t)p[l] * pstride + l] = v[l];
#endif
}

static inline void bsi_scatter_s(float *base, bsi_v_s p, int32_t pstride, bsi_v_s v)
{
#if defined(__AVX512F__)
    const __m512i idx = _mm512_add_epi32(_mm512_mullo_epi32(_mm512_cvttps_epi32((__m512)p), _mm512_set1_epi32(pstride)),
                                         _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    _mm512_i32scatter_ps(base, idx, (__m512)v, 4);
#else
    for (int l = 0; l < 16; l++) base[(int64_t)p[l] * pstride + l] = v[l];
#endif
}

#endif
