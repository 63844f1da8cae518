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

#include <stdint.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

typedef double bsi_v_d __attribute__((vector_size(64), aligned(64)));
typedef int64_t bsi_m_d __attribute__((vector_size(64), aligned(64)));
typedef float bsi_v_s __attribute__((vector_size(64), aligned(64)));
typedef int32_t bsi_m_s __attribute__((vector_size(64), aligned(64)));

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
