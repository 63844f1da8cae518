/*
 * qr.cu -- the CUDA backend of the dense QR routines (gels, geqrf, geqrs,
 * qr_export): launch geometry, device-pointer and host-pointer paths,
 * factorization objects.  Kernels and the factor format: qr_team.cuh
 * (the reference), qr_reg.cuh and qr_warp.cuh (small-shape kernels),
 * qr_pair.cuh (the team kernel's steps in pairs) and qr_hh.cuh (FP64 gels
 * with nrhs = 1 by Householder reflections, m > 16).
 *
 * Pointers: all device (or managed) memory -> kernels run on the context's
 * stream straight on the user's arrays; all host memory -> the context's
 * pinned 3-stream pipeline (hostpath.cuh), chunks in the compact form of
 * the user's layout kind.  Mixed kinds are refused.  qr_export writes host
 * memory: the factors are copied to pinned memory chunk by chunk and Q is
 * formed on the CPU (as lu_export converts its pivots there).
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "common.cuh"
#include "hostpath.cuh"
#include "qr_hh.cuh"
#include "qr_reg.cuh"
#include "qr_pair.cuh"
#include "qr_team.cuh"
#include "qr_warp.cuh"

/* ---- launch geometry --------------------------------------------------------
 * Team size T: the smallest power of two for which a warp's 32/T systems
 * fit in BSQ_WARP_SMEM bytes of shared memory, so that ~16 warps share an
 * SM's 228 KiB (latency hiding) while small systems keep one lane each (no
 * idle lanes).  Systems of more than about 24 KiB (8 or fewer per SM) get
 * a block of T = 64..256 threads each (bsq_k_team with T > 32).
 * BSOLVE_QR_TEAM=T (1..256) in the environment forces a team size
 * (device-side A/B comparisons; the benchmark sweeps it). */
#define BSQ_WARP_SMEM (12 << 10)
#define BSQ_MAX_SMEM (200 << 10) /* of one block; the H100 allows 227 KiB */
#define BSQ_SM_SMEM (228 << 10)  /* of one SM (H100) */
#define BSQ_SM_WARPS 24

struct bsq_geom {
    int T, wpb, nbp, ldm, mstride;
    size_t smem;
};

static int bsq_team_env()
{
    static const int t = [] {
        const int v = bsi_env_int("BSOLVE_QR_TEAM", 0);
        return (v >= 1 && v <= 256 && (v & (v - 1)) == 0) ? v : 0;
    }();
    return t;
}

static bsq_geom bsq_plan(int m, int n, int nrhs, size_t es)
{
    bsq_geom g;
    g.ldm = m | 1; /* odd: lanes striding by columns hit distinct banks */
    g.nbp = nrhs < 8 ? nrhs : 8;
    for (;;) {
        g.mstride = (g.ldm * (n + g.nbp) + 3 * n) | 1;
        const size_t sys = (size_t)g.mstride * es;
        int T = bsq_team_env();
        if (!T) {
            T = 1;
            while (T < 32 && (size_t)(32 / T) * sys > BSQ_WARP_SMEM) T *= 2;
            /* A system per warp leaves few warps per SM where systems are
             * large: a block of warps per system then, about BSQ_SM_WARPS
             * per SM.  H200, 2026-11-26, gels nrhs = 1 on the team kernel,
             * systems/s at T = 32 / 64 / 128 / 256 (systems per SM at one
             * warp each): 64x128 6.2e5 / 8.9e5 / 1.0e6 / 1.03e6 (3), 32x128
             * 2.4e6 / 2.7e6 / 2.8e6 / 2.3e6 (6), 64x64 2.6e6 / 2.9e6 / 3.0e6
             * / 2.5e6 (6), 48x64 4.4e6 / 4.7e6 / 4.8e6 / 3.5e6 (8), but 16x128
             * 8.2e6 / 7.7e6 / 6.3e6 (12) and 32x64 7.3e6 / 7.1e6 / 6.2e6
             * (12): each warp's share of a step shrinks while the step's
             * fixed costs (barriers, the column loop) do not. */
            const int per_sm = (int)(BSQ_SM_SMEM / (sys + 1024));
            if (T == 32 && per_sm <= 8)
                while (T < 256 && per_sm * (T / 32) < BSQ_SM_WARPS) T *= 2;
        }
        while (T < 32 && (size_t)(32 / T) * sys > BSQ_MAX_SMEM) T *= 2; /* a forced T that cannot fit */
        const size_t warp = (size_t)(T < 32 ? 32 / T : 1) * sys;
        if (warp > BSQ_MAX_SMEM && g.nbp > 1) { /* fewer right-hand sides per pass */
            g.nbp = g.nbp > 2 ? g.nbp / 2 : 1;
            continue;
        }
        g.T = T;
        if (T >= 32) g.mstride += 2; /* room to align the rotations' (c, s) pairs (bsq_k_team) */
        const size_t sx = (size_t)g.mstride * es, wx = (size_t)(T < 32 ? 32 / T : 1) * sx;
        if (T > 32) { /* a block of T / 32 warps per system */
            g.wpb = T / 32;
            g.smem = sx;
            return g;
        }
        g.wpb = 4;
        while (g.wpb > 1 && (size_t)g.wpb * wx > (96 << 10)) g.wpb /= 2;
        g.smem = (size_t)g.wpb * wx;
        return g;
    }
}

template <typename R, int T, int OP> static cudaError_t bsq_launch_t(const bsq_args<R> &a, const bsq_geom &g, cudaStream_t st)
{
    if (g.smem > (48 << 10)) {
        cudaError_t e = cudaFuncSetAttribute(bsq_k_team<R, T, OP>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)g.smem);
        if (e != cudaSuccess) return e;
    }
    const int64_t per = T > 32 ? 1 : (int64_t)g.wpb * (32 / T);
    const int64_t blocks = (a.count + per - 1) / per;
    bsq_k_team<R, T, OP><<<(unsigned)blocks, g.wpb * 32, g.smem, st>>>(a);
    return cudaGetLastError();
}

/* ---- register kernel (qr_reg.cuh) ----------------------------------------------
 * Thread per system, A and b in registers, for shapes whose M x (N + 1)
 * bucket fits in about 80 doubles (160 floats) of registers: gels with
 * nrhs = 1, and geqrf.  Buckets: FP64 n <= 4 with m <= 4, 8, 12, 16, and
 * n <= 8 with m <= 8; FP32 also n <= 8 with m <= 12, 16, and n <= 12 with
 * m <= 12; FP64 gels on a shape equal to its bucket (m = M > 4, n = N)
 * takes the wavefront copy (bsq_k_regw).  BSOLVE_QR_REG=0 in the
 * environment turns it off (the team kernel everywhere: A/B comparisons),
 * =1 keeps it to INTERLEAVED A and B, unset or other values: every
 * layout. */
static int bsq_reg_env()
{
    static const int r = bsi_env_int("BSOLVE_QR_REG", -1);
    return r;
}

/* bucket code M*64 + N, 0 when the register kernel is not used */
static int bsq_reg_bucket(int m, int n, int nrhs, int op, size_t es, int a_il, int b_il)
{
    const int env = bsq_reg_env();
    if (env == 0) return 0;
    if (env == 1 && !(a_il && (op != BSQ_GELS || b_il))) return 0;
    if (op == BSQ_GELS && nrhs != 1) return 0;
    const int M = m <= 4 ? 4 : m <= 8 ? 8 : m <= 12 ? 12 : m <= 16 ? 16 : 0;
    if (!M) return 0;
    int N = n <= 4 ? 4 : n <= 8 ? 8 : n <= 12 ? 12 : 0;
    if (!N || N > M) return 0;
    if (es == 8 && N == 8 && M > 8) return 0;
    if (N == 12 && (es == 8 || M > 12)) return 0;
    return M * 64 + N;
}

/* BSOLVE_QR_WAVE=0: the column-order kernel for shapes equal to their
 * bucket too (A/B comparisons) */
static int bsq_wave_env()
{
    static const int r = bsi_env_int("BSOLVE_QR_WAVE", -1);
    return r;
}

template <typename R, int M, int N, int OP> static cudaError_t bsq_launch_reg_t(const bsq_args<R> &a, cudaStream_t st)
{
    const unsigned blocks = (unsigned)((a.count + 127) / 128);
    /* the wavefront copy where it was measured faster: FP64 gels, m = M > 4, n = N */
    if constexpr (sizeof(R) == 8 && OP == BSQ_GELS && M > 4) {
        if (a.m == M && a.n == N && bsq_wave_env() != 0) {
            bsq_k_regw<R, M, N><<<blocks, 128, 0, st>>>(a);
            return cudaGetLastError();
        }
    }
    bsq_k_reg<R, M, N, OP><<<blocks, 128, 0, st>>>(a);
    return cudaGetLastError();
}

template <typename R, int OP> static cudaError_t bsq_launch_reg(const bsq_args<R> &a, int code, cudaStream_t st)
{
    switch (code) {
    case 4 * 64 + 4: return bsq_launch_reg_t<R, 4, 4, OP>(a, st);
    case 8 * 64 + 4: return bsq_launch_reg_t<R, 8, 4, OP>(a, st);
    case 12 * 64 + 4: return bsq_launch_reg_t<R, 12, 4, OP>(a, st);
    case 16 * 64 + 4: return bsq_launch_reg_t<R, 16, 4, OP>(a, st);
    case 8 * 64 + 8: return bsq_launch_reg_t<R, 8, 8, OP>(a, st);
    default:
        if constexpr (sizeof(R) == 4) {
            switch (code) {
            case 12 * 64 + 8: return bsq_launch_reg_t<R, 12, 8, OP>(a, st);
            case 16 * 64 + 8: return bsq_launch_reg_t<R, 16, 8, OP>(a, st);
            case 12 * 64 + 12: return bsq_launch_reg_t<R, 12, 12, OP>(a, st);
            default: break;
            }
        }
        return cudaErrorInvalidValue;
    }
}

/* ---- column-per-lane kernel (qr_warp.cuh) ---------------------------------------
 * gels with nrhs = 1 for m <= 64, n <= 32 outside the register kernel's buckets:
 * rows bucketed to M = 16, 32 or 64, the columns to 8, 16 or 32, a team of
 * 8, 16 or 32 lanes with one column each (4, 2 or 1 systems per warp), or
 * in FP64 at M = 16 with n <= 8 and interleaved A 4 lanes with two columns
 * each (8 systems per warp; see bsq_warp_bucket).  BSOLVE_QR_WARP=0 in the environment
 * turns it off (the team kernel there: A/B comparisons), =2 keeps the
 * general copy for shapes equal to their bucket. */
static int bsq_warp_env()
{
    static const int r = bsi_env_int("BSOLVE_QR_WARP", -1);
    return r;
}

/* BSOLVE_QR_WARPC=1: one column per lane everywhere (A/B comparisons) */
static int bsq_warpc_env()
{
    static const int r = bsi_env_int("BSOLVE_QR_WARPC", -1);
    return r;
}

/* BSOLVE_QR_WARPV=0: column-major A read a row per load in the
 * column-per-lane kernel (A/B comparisons) */
static int bsq_warpv_env()
{
    static const int r = bsi_env_int("BSOLVE_QR_WARPV", -1);
    return r;
}

/* How the column-per-lane kernel's lanes load A (BSQ_LD_*).  Column-major
 * A, m and the strides even, A 16-byte aligned: two rows per load, FP64 at
 * M <= 32.  Each load of a warp touches 32 lines whichever way the lanes
 * read their own columns (lanes over columns, several systems); two rows
 * per load halve the L1's tag lookups.  H100, 2026-11-26 09:50-10:15 UTC,
 * FP64 ours CM, systems/s, two calls, a row -> two rows per load: 8x16
 * 6.73-6.76e8 -> 7.43-7.7e8, 7x16 7.08-7.11e8 -> 7.68-7.94e8, 6x16
 * 7.56-7.6e8 -> 8.07-8.39e8, 16x16 2.86e8 -> 3.01-3.05e8, 16x32
 * 1.13-1.16e8 -> 1.23-1.26e8, 32x32 4.24-4.44e7 -> 4.54-4.61e7.
 * In the same kernel as the row loads, the second copy of the loads cost
 * the interleaved cases 1.5-3.5% through registers, and at M = 64 sent the
 * FULL copies to 255 registers with spills: so copies of their own, FP64
 * at M <= 32.  Tried and dropped: two columns per lane on column-major A
 * with pair loads, 7.2-7.5e8 at 8x16; the warp's systems staged through
 * shared memory by coalesced loads (m <= 16, n <= 8; a padding entry every
 * 16 or 32 against bank conflicts), 7.1e8 with one or two columns per
 * lane, behind the pair loads. */
template <typename R> static int bsq_warp_ld(const bsq_args<R> &a, int M)
{
    if (sizeof(R) != 8 || M > 32 || !bsq_ld_pair_ok(a) || bsq_warpv_env() == 0) return BSQ_LD_ROW;
    return BSQ_LD_PAIR;
}

/* bucket code M*256 + L*4 + C (teams of L lanes, C columns per lane), 0
 * when the column-per-lane kernel is not used */
static int bsq_warp_bucket(int m, int n, int nrhs, int op, size_t es, int a_il)
{
    if (bsq_warp_env() == 0 || op != BSQ_GELS || nrhs != 1) return 0;
    const int M = m <= 16 ? 16 : m <= 32 ? 32 : m <= 64 ? 64 : 0;
    /* n > 32: the team kernel.  Its blocks of warps per system (bsq_plan)
     * beat the column-per-lane teams of 64 lanes (two warps, the 64 x 64
     * bucket's 125 straight-line steps for every shape) wherever those had
     * been faster than its one-warp teams: H200, 2026-11-26, gels nrhs = 1,
     * systems/s, team / 64 lanes: 64x64 3.56e6 / 3.03e6, 63x63 3.7e6 /
     * 3.25e6, 60x60 4.3e6 / 3.5e6, 57x57 4.9e6 / 3.6e6, 57x64 4.1e6 /
     * 3.4e6, 53x64 4.3e6 / 3.5e6, 49x64 4.6e6 / 3.5e6, 50x60 4.9e6 /
     * 3.6e6. */
    const int NC = n <= 8 ? 8 : n <= 16 ? 16 : n <= 32 ? 32 : 0;
    if (!M || !NC || NC > M) return 0;
    /* Two columns per lane (teams of 4 lanes, 8 systems per warp) at
     * m <= 16, n <= 8 in FP64 with INTERLEAVED A: a step's lane-uniform work
     * (the f pick's tree, the b flow, the __syncwarp) is shared by twice the
     * systems and each lane has two independent rotations.  H100,
     * 2026-11-26 07:59 UTC, systems/s, two runs, 1 -> 2 columns, A
     * interleaved: 8x16 7.82-7.85e8 -> 8.58-8.62e8, 7x16 8.1e8 -> 8.7e8, 8x13
     * 8.9e8 -> 9.5e8; A column-major: 8x16 6.9e8 -> 6.7e8, 7x16 7.25e8 ->
     * 7.1e8, 8x13 9.45e8 -> 9.26e8 (a lane's two columns are 256 contiguous
     * bytes, loaded from 32 lines per instruction).  At 16 x 16, 16 x 32
     * and 32 x 32 two columns per lane (teams of 8 and 16 lanes, 130-228
     * registers) ran 0.6-0.7x one (H100 and H200). */
    const int C = es == 8 && a_il && M == 16 && NC == 8 && bsq_warpc_env() != 1 ? 2 : 1;
    return M * 256 + NC / C * 4 + C;
}

BSQ_WARP_BUCKETS(BSQ_WARP_EXTERN, double)
BSQ_WARP_BUCKETS(BSQ_WARP_EXTERN, float)
BSQ_WARP_BUCKETS_D(BSQ_WARP_EXTERN)
BSQ_WARP_BUCKETS_DV(BSQ_WARP_EXTERN)

/* The launch of bucket `code` whose lanes load A as LD says (the pair
 * loads are built for FP64 at M <= 32 with one column per lane, the two
 * columns per lane for FP64 at M = 16) */
template <typename R, int LD>
static cudaError_t bsq_launch_warp_ld(const bsq_args<R> &a, int code, bool full, cudaStream_t st)
{
    switch (code) {
    case 16 * 256 + 8 * 4 + 1: return bsq_launch_warp_t<R, 16, 8, 1, LD>(a, full, st);
    case 16 * 256 + 16 * 4 + 1: return bsq_launch_warp_t<R, 16, 16, 1, LD>(a, full, st);
    case 32 * 256 + 8 * 4 + 1: return bsq_launch_warp_t<R, 32, 8, 1, LD>(a, full, st);
    case 32 * 256 + 16 * 4 + 1: return bsq_launch_warp_t<R, 32, 16, 1, LD>(a, full, st);
    case 32 * 256 + 32 * 4 + 1: return bsq_launch_warp_t<R, 32, 32, 1, LD>(a, full, st);
    default: break;
    }
    if constexpr (LD == BSQ_LD_ROW) {
        switch (code) {
        case 64 * 256 + 8 * 4 + 1: return bsq_launch_warp_t<R, 64, 8, 1, LD>(a, full, st);
        case 64 * 256 + 16 * 4 + 1: return bsq_launch_warp_t<R, 64, 16, 1, LD>(a, full, st);
        case 64 * 256 + 32 * 4 + 1: return bsq_launch_warp_t<R, 64, 32, 1, LD>(a, full, st);
        default: break;
        }
        if constexpr (sizeof(R) == 8)
            if (code == 16 * 256 + 4 * 4 + 2) return bsq_launch_warp_t<R, 16, 4, 2, LD>(a, full, st);
    }
    return cudaErrorInvalidValue;
}

template <typename R> static cudaError_t bsq_launch_warp(const bsq_args<R> &a, int code, cudaStream_t st)
{
    /* the shape equal to its bucket gets a copy with the guards compiled out
     * where that measured faster (bsq_launch_warp_t; BSOLVE_QR_WARP=2 keeps
     * the general copy: A/B comparisons) */
    const int M = code / 256, C = code % 4, NC = (code % 256) / 4 * C;
    const bool full = bsq_warp_env() != 2 && a.m == M && a.n == NC;
    if constexpr (sizeof(R) == 8)
        if (C == 1 && bsq_warp_ld(a, M) == BSQ_LD_PAIR) return bsq_launch_warp_ld<R, BSQ_LD_PAIR>(a, code, full, st);
    return bsq_launch_warp_ld<R, BSQ_LD_ROW>(a, code, full, st);
}

/* ---- paired steps (qr_pair.cuh) ---------------------------------------------
 * FP64 gels with nrhs = 1 outside the column-per-lane and Householder
 * kernels: 65 <= m <= 71 (and m >= 72 where the Householder kernel is
 * turned off) with 40 <= n <= 56 (four threads per band there, see
 * qr_pair_d.cu), and m <= 64 with n >= 33 where the Householder kernel is
 * turned off: the team kernel's steps two at a time.  H100, two
 * alternating runs against the team kernel in the same binary, ours IL /
 * CM, systems/s, team -> pair: 2026-11-27 00:45 UTC, 64x64 4.08-4.11e6 /
 * 4.40e6 -> 4.40-4.41e6 / 4.63-4.64e6, 57x57 5.51e6 / 5.90e6 -> 5.70-5.72e6
 * / 6.03-6.05e6, 48x64 5.62e6 / 6.02e6 -> 5.75e6 / 6.13e6; 03:30 UTC, 33x64
 * 7.02-7.06e6 / 7.26-7.31e6 -> 9.2e6 / 9.43-9.46e6, 40x64 4.9e6 / 5.04e6 ->
 * 7.49e6 / 7.87e6, 47x64 5.68e6 / 6.02e6 -> 5.94e6 / 6.29e6, 36x48 9.23e6 /
 * 9.5e6 -> 1.06e7 / 1.08e7; at m = 128 40x128 +14%, 48x128 +7%, 56x128
 * +5% (qr_pair_d.cu), but 64x128 1.52e6 / 1.63e6 -> 1.51e6 / 1.61e6 (00:45),
 * 33x128 3.1e6 / 3.27e6 -> 3.2e6 / 3.24e6 and 32x128 -6%, so the team
 * kernel keeps the rest of m > 64 (perf/NOTES-qr-gpu.md attempt 25).
 * BSOLVE_QR_PAIR=0 in the environment turns it off (the team kernel there:
 * A/B comparisons), =2 gives it every FP64 gels with nrhs = 1, n <= 64,
 * m <= 128 that reaches it (tests). */
static int bsq_pair_env()
{
    static const int r = bsi_env_int("BSOLVE_QR_PAIR", 1);
    return r;
}

static bool bsq_pair_takes(int m, int n, int nrhs, int op, size_t es)
{
    const int e = bsq_pair_env();
    if (!e || op != BSQ_GELS || es != 8 || nrhs != 1 || n > 64 || m > 128) return false;
    return e == 2 || (m <= 64 ? n >= 33 : n >= 40 && n <= 56);
}

/* ---- Householder, one lane per column (qr_hh.cuh) ---------------------------
 * FP64 gels with nrhs = 1, m <= 64 or 80 <= m <= 128 (72 <= m with
 * n > 16), outside the register kernel's buckets: reflections instead of
 * the rotations of the column-per-lane kernel (n <= 32), whose
 * straight-line steps outgrow the instruction caches, and of the
 * paired-step and team kernels (n > 32, m > 64).
 * H100, 2026-11-27 04:05 UTC, two alternating runs in one binary, ours IL /
 * CM, systems/s, rotations (qr_warp.cuh) -> reflections: 32x64 1.15e7 /
 * 1.2-1.23e7 -> 2.06e7 / 2.29-2.31e7, 16x32 1.18e8 / 1.36-1.39e8 ->
 * 1.4-1.41e8 / 1.66-1.68e8, 32x32 3.96-4.1e7 / 4.73-4.8e7 -> 4.79-4.82e7 /
 * 5.34-5.38e7, 24x48 +115% / +125%, 20x40 +133% / +146%, 16x64 +87% /
 * +112%, 8x64 +104% / +98%, 12x24 +46% / +67%, 10x20 +60% / +87%, 8x32
 * +12% / +14%; but at m <= 16 8x16 8.1e8 / 7.6e8 -> 6.97e8 / 7.2e8, 16x16
 * 2.72e8 / 3.05e8 -> 2.38e8 / 2.75e8 (6x12 +1.5% / +12%): the rotations
 * kept m <= 16 until two columns per lane with b in registers (qr_hh_d.cu,
 * 07:50-08:17 UTC): 8x16 8.1e8 / 7.6e8 -> 8.6-8.7e8 / 9.0e8, 16x16 2.73e8
 * / 3.05e8 -> 3.07e8 / 3.16e8.
 * Teams of 64 lanes (two warps) for n > 32, 04:00 UTC, paired steps ->
 * reflections: 64x64 4.44e6 / 4.68e6 -> 6.71e6 / 7.65e6, 60x64 4.56e6 /
 * 4.84e6 -> 7.44e6 / 7.84e6, 57x57 +49% / +48%, 48x64 +51% / +52%, 40x64
 * +31% / +33%, 36x48 +25% / +31%, 33x64 +21% / +28%.
 * m > 64 in two halves of 64 rows, 04:20 UTC, team or paired-step kernel ->
 * reflections: 64x128 1.52e6 / 1.63-1.64e6 -> 2.28-2.29e6 / 2.71-2.72e6,
 * 56x128 +59% / +72%, 48x128 +46% / +51%, 32x128 +66% / +80%, 16x128 +69%
 * / +77%, 8x128 +44% / +56%, 40x100 +25% / +28%, 24x80 +26% / +28%; but
 * 64x65 3.95e6 / 4.25e6 -> 3.66e6 / 3.88e6 (a bottom half of one row);
 * 04:30 UTC, 64x72 3.11e6 / 3.2e6 -> 3.4e6 / 3.62e6, 48x72 +9% / +12%,
 * 32x72 +39% / +47%, 64x76 +11% / +14%, 40x76 +12% / +16%, but 16x72
 * 2.04e7 / 2.15e7 -> 1.86e7 / 2.0e7: so the rotations keep m = 65..71 and,
 * with n <= 16, m = 72..79 (perf/NOTES-qr-gpu.md attempt 26).
 * BSOLVE_QR_HH=0 in the environment turns it off (the column-per-lane,
 * paired-step and team kernels there: A/B comparisons, tests), =2 gives it
 * every shape it can take (m = 65..79 too: tests). */
static int bsq_hh_env()
{
    static const int r = bsi_env_int("BSOLVE_QR_HH", 1);
    return r;
}

static bool bsq_hh_takes(int m, int n, int nrhs, int op, size_t es)
{
    const int e = bsq_hh_env();
    if (!e || op != BSQ_GELS || es != 8 || nrhs != 1 || n > 64 || m > 128) return false;
    return e == 2 || m <= 64 || m >= 80 || (m >= 72 && n > 16);
}

template <typename R, int OP> static cudaError_t bsq_launch(bsq_args<R> a, cudaStream_t st)
{
    if (a.count <= 0) return cudaSuccess;
    const int code = bsq_reg_bucket(a.m, a.n, OP == BSQ_GELS ? a.nrhs : 0, OP, sizeof(R), a.a_il, a.b_il);
    if (code) return bsq_launch_reg<R, OP>(a, code, st);
    if (OP == BSQ_GELS) {
        if constexpr (sizeof(R) == 8)
            if (bsq_hh_takes(a.m, a.n, a.nrhs, OP, sizeof(R))) return bsq_launch_hh<R>(a, st);
        const int wcode = bsq_warp_bucket(a.m, a.n, a.nrhs, OP, sizeof(R), a.a_il);
        if (wcode) return bsq_launch_warp<R>(a, wcode, st);
        if constexpr (sizeof(R) == 8)
            if (bsq_pair_takes(a.m, a.n, a.nrhs, OP, sizeof(R))) return bsq_launch_pair<R>(a, st);
    }
    const bsq_geom g = bsq_plan(a.m, a.n, OP == BSQ_GELS ? a.nrhs : 0, sizeof(R));
    a.nbp = g.nbp;
    a.ldm = g.ldm;
    a.mstride = g.mstride;
    switch (g.T) {
    case 1: return bsq_launch_t<R, 1, OP>(a, g, st);
    case 2: return bsq_launch_t<R, 2, OP>(a, g, st);
    case 4: return bsq_launch_t<R, 4, OP>(a, g, st);
    case 8: return bsq_launch_t<R, 8, OP>(a, g, st);
    case 16: return bsq_launch_t<R, 16, OP>(a, g, st);
    case 32: return bsq_launch_t<R, 32, OP>(a, g, st);
    case 64: return bsq_launch_t<R, 64, OP>(a, g, st);
    case 128: return bsq_launch_t<R, 128, OP>(a, g, st);
    default: return bsq_launch_t<R, 256, OP>(a, g, st);
    }
}

template <typename R> static cudaError_t bsq_launch_geqrs(const bsq_args<R> &a, cudaStream_t st)
{
    if (a.count <= 0) return cudaSuccess;
    const unsigned blocks = (unsigned)((a.count + 127) / 128);
    if (a.m <= 32) bsq_k_geqrs<R, 32><<<blocks, 128, 0, st>>>(a);
    else bsq_k_geqrs<R, BSOLVE_QR_MAX_M><<<blocks, 128, 0, st>>>(a);
    return cudaGetLastError();
}

/* ---- helpers ------------------------------------------------------------------ */

static int64_t bsq_nrot(int64_t m, int64_t n) { return n * (m - 1) - n * (n - 1) / 2; }
static int64_t bsq_fe(int64_t m, int64_t n) { return n * n + 2 * bsq_nrot(m, n) + n + 1; }

template <typename R> static void bsq_factor_args(bsq_args<R> &a, const bsolve_qr *qr, int64_t k0)
{
    a.F = (R *)qr->f + k0;
    a.fld = qr->ld;
    a.finfo = qr->info + k0;
    a.m = (int)qr->m;
    a.n = (int)qr->n;
}

/* ---- gels ----------------------------------------------------------------------- */

template <typename R> struct bsq_call {
    bsq_args<R> a;
    const bsolve_qr *qr;
};

template <typename R>
static cudaError_t bsq_gels_chunk(void *user, int64_t, int64_t cnt, void *const *d, const bsolve_layout *l,
                                  cudaStream_t st)
{
    bsq_call<R> *g = (bsq_call<R> *)user;
    bsq_args<R> a = g->a;
    a.A = (const R *)d[0];
    a.va = bsi_make_view(l[0], a.m);
    a.B = (R *)d[1];
    a.vb = bsi_make_view(l[1], a.m);
    a.info = (int32_t *)d[2];
    a.count = cnt;
    return bsq_launch<R, BSQ_GELS>(a, st);
}

template <typename R>
static bsolve_status bsq_gels_t(bsolve_ctx *ctx, int64_t m, int64_t n, int64_t nrhs, int64_t batch, const void *A,
                                bsolve_layout la, void *B, bsolve_layout lb, int32_t *info)
{
    if (batch == 0) return BSOLVE_SUCCESS;
    bsq_call<R> g;
    memset(&g, 0, sizeof g);
    g.a.m = (int)m;
    g.a.n = (int)n;
    g.a.nrhs = (int)nrhs;
    g.a.a_il = la.kind == BSOLVE_INTERLEAVED; /* a chunk keeps the layout kind */
    g.a.b_il = lb.kind == BSOLVE_INTERLEAVED;
    g.a.nsm = ctx->cuda->nsm;
    bsi_harr arr[3] = {{A, nullptr, la, m, n, sizeof(R)}, {B, B, lb, m, nrhs, sizeof(R)}, bsi_info_arr(info, batch)};
    return bsi_run(ctx, "bsolve_gels", "A, B and info must all be device or all host memory", batch, arr, 3,
                   bsq_gels_chunk<R>, &g);
}

extern "C" bsolve_status bsi_cuda_gels(bsolve_ctx *ctx, bsolve_precision prec, int64_t m, int64_t n, int64_t nrhs,
                                       int64_t batch, const void *A, bsolve_layout la, void *B, bsolve_layout lb,
                                       int32_t *info)
{
    return prec == BSOLVE_PREC_D ? bsq_gels_t<double>(ctx, m, n, nrhs, batch, A, la, B, lb, info)
                                 : bsq_gels_t<float>(ctx, m, n, nrhs, batch, A, la, B, lb, info);
}

/* ---- factorization objects ---------------------------------------------------- */

extern "C" bsolve_status bsi_cuda_qr_alloc(bsolve_ctx *ctx, bsolve_qr *qr)
{
    const size_t es = bsi_elem_size(qr->prec);
    qr->f = nullptr;
    qr->info = nullptr;
    const int64_t fe = bsq_fe(qr->m, qr->n);
    if ((double)fe * ((double)qr->batch + 32) * es > 9.0e18)
        return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_qr_create: %lld systems of %lld x %lld do not fit in device memory",
                        (long long)qr->batch, (long long)qr->m, (long long)qr->n);
    const int64_t ld = qr->batch > 0 ? (qr->batch + 31) / 32 * 32 : 32;
    cudaError_t e = cudaMalloc(&qr->f, (size_t)(fe * ld) * es);
    if (e == cudaSuccess) e = cudaMalloc((void **)&qr->info, (size_t)ld * sizeof(int32_t));
    if (e != cudaSuccess) {
        bsi_cuda_qr_free(qr);
        return bsi_cuda_err(ctx, e, "bsolve_qr_create");
    }
    qr->ld = ld;
    return BSOLVE_SUCCESS;
}

extern "C" void bsi_cuda_qr_free(bsolve_qr *qr)
{
    if (qr->f) cudaFree(qr->f);
    if (qr->info) cudaFree(qr->info);
    qr->f = nullptr;
    qr->info = nullptr;
    (void)cudaGetLastError();
}

/* ---- geqrf ---------------------------------------------------------------------- */

template <typename R>
static cudaError_t bsq_geqrf_chunk(void *user, int64_t k0, int64_t cnt, void *const *d, const bsolve_layout *l,
                                   cudaStream_t st)
{
    bsq_call<R> *g = (bsq_call<R> *)user;
    bsq_args<R> a = g->a;
    bsq_factor_args<R>(a, g->qr, k0);
    a.A = (const R *)d[0];
    a.va = bsi_make_view(l[0], a.m);
    a.info = (int32_t *)d[1];
    a.count = cnt;
    return bsq_launch<R, BSQ_GEQRF>(a, st);
}

template <typename R>
static bsolve_status bsq_geqrf_t(bsolve_ctx *ctx, const void *A, bsolve_layout la, bsolve_qr *qr, int32_t *info)
{
    bsq_call<R> g;
    memset(&g, 0, sizeof g);
    g.qr = qr;
    g.a.a_il = la.kind == BSOLVE_INTERLEAVED;
    bsi_harr arr[2] = {{A, nullptr, la, qr->m, qr->n, sizeof(R)}, bsi_info_arr(info, qr->batch)};
    return bsi_run(ctx, "bsolve_geqrf", "A and info must both be device or both host memory", qr->batch, arr, 2,
                   bsq_geqrf_chunk<R>, &g);
}

extern "C" bsolve_status bsi_cuda_geqrf(bsolve_ctx *ctx, const void *A, bsolve_layout la, bsolve_qr *qr, int32_t *info)
{
    return qr->prec == BSOLVE_PREC_D ? bsq_geqrf_t<double>(ctx, A, la, qr, info)
                                     : bsq_geqrf_t<float>(ctx, A, la, qr, info);
}

/* ---- geqrs ---------------------------------------------------------------------- */

template <typename R>
static cudaError_t bsq_geqrs_chunk(void *user, int64_t k0, int64_t cnt, void *const *d, const bsolve_layout *l,
                                   cudaStream_t st)
{
    bsq_call<R> *g = (bsq_call<R> *)user;
    bsq_args<R> a = g->a;
    bsq_factor_args<R>(a, g->qr, k0);
    a.B = (R *)d[0];
    a.vb = bsi_make_view(l[0], a.m);
    a.info = g->a.info ? (int32_t *)d[1] : nullptr;
    a.count = cnt;
    return bsq_launch_geqrs<R>(a, st);
}

template <typename R>
static bsolve_status bsq_geqrs_t(bsolve_ctx *ctx, const bsolve_qr *qr, int64_t nrhs, void *B, bsolve_layout lb,
                                 int32_t *info)
{
    bsq_call<R> g;
    memset(&g, 0, sizeof g);
    g.qr = qr;
    g.a.nrhs = (int)nrhs;
    g.a.info = info; /* only tested for NULL in the chunk function */
    bsi_harr arr[2] = {{B, B, lb, qr->m, nrhs, sizeof(R)}, bsi_info_arr(info, qr->batch)};
    return bsi_run(ctx, "bsolve_geqrs", "B and info must both be device or both host memory", qr->batch, arr,
                   info ? 2 : 1, bsq_geqrs_chunk<R>, &g);
}

extern "C" bsolve_status bsi_cuda_geqrs(bsolve_ctx *ctx, const bsolve_qr *qr, int64_t nrhs, void *B,
                                        bsolve_layout lb, int32_t *info)
{
    return qr->prec == BSOLVE_PREC_D ? bsq_geqrs_t<double>(ctx, qr, nrhs, B, lb, info)
                                     : bsq_geqrs_t<float>(ctx, qr, nrhs, B, lb, info);
}

/* ---- export ------------------------------------------------------------------------
 * Chunks of the factors are copied (ordered after the geqrf on the
 * context's stream) into pinned memory; Q = G_1^T G_2^T ... is formed on
 * the CPU from the identity, each rotation applied to a pair of columns in
 * column order, exactly as the CPU backend's export; R is unscaled by sa. */
template <typename R>
static bsolve_status bsq_export_t(bsolve_ctx *ctx, const bsolve_qr *qr, R *Q, bsolve_layout lq, R *Rm, bsolve_layout lr)
{
    const int m = (int)qr->m, n = (int)qr->n;
    const int64_t fe = bsq_fe(m, n), RO = (int64_t)n * n, RD = RO + 2 * bsq_nrot(m, n);
    auto convert = [&](const char *const *h, int64_t k0, int64_t cnt, int nth) {
        const R *pin = (const R *)h[0];
#pragma omp parallel num_threads(nth)
        {
            std::vector<R> q(Q ? (size_t)m * m : 0);
#pragma omp for schedule(static)
            for (int64_t s = 0; s < cnt; s++) {
                const int64_t k = k0 + s;
                auto F = [&](int64_t e) { return pin[e * cnt + s]; };
                if (Q) {
                    for (int j = 0; j < m; j++)
                        for (int i = 0; i < m; i++) q[i + (size_t)j * m] = i == j;
                    int64_t g = RO;
                    for (int j = 0; j < n; j++)
                        for (int i = m - 1; i > j; i--, g += 2) {
                            const R c = F(g), sn = F(g + 1);
                            R *a = &q[(size_t)(i - 1) * m], *b = &q[(size_t)i * m];
                            for (int r = 0; r < m; r++) {
                                const R x = a[r], y = b[r];
                                a[r] = c * x + sn * y;
                                b[r] = c * y - sn * x;
                            }
                        }
                    for (int j = 0; j < m; j++)
                        for (int i = 0; i < m; i++) Q[bsi_index(lq, m, i, j, k)] = q[i + (size_t)j * m];
                }
                if (Rm) {
                    const R sa = F(RD + n);
                    for (int j = 0; j < n; j++)
                        for (int i = 0; i < n; i++)
                            Rm[bsi_index(lr, n, i, j, k)] = i <= j ? F(i + (int64_t)j * n) * sa : R(0);
                }
            }
        }
    };
    const bsi_farr f = {qr->f, sizeof(R), fe};
    return bsi_export_chunks(ctx, "bsolve_qr_export", qr->batch, qr->ld, &f, 1, convert);
}

extern "C" bsolve_status bsi_cuda_qr_export(bsolve_ctx *ctx, const bsolve_qr *qr, void *Q, bsolve_layout lq, void *R,
                                            bsolve_layout lr)
{
    return qr->prec == BSOLVE_PREC_D ? bsq_export_t<double>(ctx, qr, (double *)Q, lq, (double *)R, lr)
                                     : bsq_export_t<float>(ctx, qr, (float *)Q, lq, (float *)R, lr);
}
