/*
 * qr_dispatch.cuh -- the dispatch table of the CUDA QR (gels, geqrf,
 * geqrs): which kernel runs a call and with which parameters (bucket, team
 * size, loads, launch geometry), from (precision, operation, m x n, nrhs,
 * layout of A).
 *
 * Plain C as well as CUDA C++: qr.cu launches what bsq_dispatch() returns,
 * and test/test_dispatch.c enumerates the table on any machine
 * (BSOLVE_TEST_DUMP=1 prints it).  Tests and benchmarks override a choice on
 * one context with bsi_test_force() (src/internal.h, "CUDA QR"); nothing
 * else does.
 *
 * Kernel families (all give the factors and solutions of column-order
 * Givens rotations, to rounding, except HH, whose Q differs):
 *   REG    qr_reg.cuh: a thread per system, A and b in registers, compiled
 *          M x N buckets; REGW its wavefront copy for shapes equal to the
 *          bucket (rotations in Sameh-Kuck order, no guards).
 *   HH     qr_hh.cuh: FP64 gels with nrhs = 1, Householder reflections, a
 *          lane per column (C = 2: two), rows in registers; H = 2 halves of
 *          64 rows for m > 64.
 *   WARP   qr_warp.cuh: gels with nrhs = 1, m <= 64, n <= 32, a lane per
 *          column (C = 2: two) of Givens rotations, rows in registers.
 *   PAIR   qr_pair.cuh: FP64 gels with nrhs = 1, TEAM's steps two at a time,
 *          a block of L column slots times SEG threads per system.
 *   TEAM   qr_team.cuh: every shape, geqrf and nrhs > 1; a team of T lanes
 *          per system in shared memory (T > 32: a block of T/32 warps).
 *   GEQRS  qr_team.cuh: geqrs, a thread per system, b bounded by M rows.
 *
 * Order of the tests (bsq_dispatch): REG, then for gels HH, WARP, PAIR,
 * then TEAM.  Each family's test below states where it takes a call and
 * why (H100 unless said; IL / CM: interleaved / column-major A; ratios of
 * systems per second, n x m shapes as the benchmarks print them).
 */
#ifndef BSI_QR_DISPATCH_CUH
#define BSI_QR_DISPATCH_CUH

#include <stddef.h>
#include <stdio.h>

#include "internal.h"

/* Operations (the kernels' template argument OP: gels or geqrf). */
enum { BSQ_GELS = 0, BSQ_GEQRF = 1, BSQ_GEQRS = 2 };

enum { BSQ_K_REG = 1, BSQ_K_REGW, BSQ_K_HH, BSQ_K_WARP, BSQ_K_PAIR, BSQ_K_TEAM, BSQ_K_GEQRS };

/* TEAM's launch geometry: lanes per system T, warps per block wpb,
 * right-hand sides per pass nbp, shared-memory leading dimension ldm and
 * stride mstride of a system (elements), dynamic shared memory per block. */
struct bsq_geom {
    int T, wpb, nbp, ldm, mstride;
    size_t smem;
};

struct bsq_choice {
    int family;  /* BSQ_K_* */
    int M, N;    /* REG(W): the bucket; HH, WARP: rows per lane (per half, HH); GEQRS: bound on m */
    int L, C, H; /* HH, WARP: lanes per team, columns per lane; HH: halves; PAIR: L column slots */
    int ld_pair; /* HH, WARP: column-major A read two rows per load (bsq_ld_pair_ok) */
    int full;    /* WARP: the copy without guards (shape equal to its bucket) */
    int seg;     /* PAIR: threads per column band */
    struct bsq_geom g; /* TEAM */
};

/* REG: gels with nrhs = 1 and geqrf whose M x (N + 1) bucket fits in about
 * 80 doubles (160 floats) of registers: FP64 n <= 4 with m <= 16 and n <= 8
 * with m <= 8; FP32 also n <= 8 with m <= 16 and n <= 12 with m <= 12.
 * Against TEAM (thread per system there too, in shared memory): 4x4 2.6x
 * (98% of the copy floor), 4x8 2.1x, 8x8 2.3x, 4x16 1.1x.  Returns the
 * bucket as M * 64 + N, 0 where REG does not take the call. */
static inline int bsq_reg_bucket(int es, int op, int m, int n, int nrhs, const int *force)
{
    if (force && force[BSI_FORCE_QR_REG] == 1) return 0;
    if (op == BSQ_GELS && nrhs != 1) return 0;
    const int M = m <= 4 ? 4 : m <= 8 ? 8 : m <= 12 ? 12 : m <= 16 ? 16 : 0;
    if (!M) return 0;
    const int N = n <= 4 ? 4 : n <= 8 ? 8 : n <= 12 ? 12 : 0;
    if (!N || N > M) return 0;
    if (es == 8 && N == 8 && M > 8) return 0;
    if (N == 12 && (es == 8 || M > 12)) return 0;
    return M * 64 + N;
}

/* REGW: FP64 gels on a shape equal to its bucket with m > 4, whose
 * independent rotations of a step the scheduler interleaves: 4x8 1.39x
 * REG's column order, 4x16 2.0x, 8x8 1.25x; but 4x4 0.87x (H200: REG is
 * at 86% of the copy floor there already). */
static inline int bsq_regw_takes(int es, int op, int m, int n, int code)
{
    return es == 8 && op == BSQ_GELS && code / 64 > 4 && m == code / 64 && n == code % 64;
}

/* HH: FP64 gels with nrhs = 1 where it beats the rotations.  At m <= 64
 * against WARP 1.2-2.3x (16x32 1.2x, 32x32 1.15x, 24x48 2.15x, 32x64 1.8x),
 * at m <= 16 with C = 2 and b in registers 1.07-1.3x (8x16 1.07x / 1.18x
 * IL / CM, 16x16 1.12x / 1.04x, 9x9 1.3x); at n > 32 against PAIR
 * 1.25-1.6x (64x64 1.5x); at m > 64 in two halves against TEAM or PAIR
 * 1.25-1.8x (64x128 1.5x / 1.66x), except where the bottom half is a few
 * rows: 64x65 0.93x, and 16x72 0.91x, so m = 65..71, and m = 72..79 with
 * n <= 16, keep the rotations.  force: 1 never, 2 every shape it can take. */
static inline int bsq_hh_takes(int es, int op, int m, int n, int nrhs, const int *force)
{
    const int f = force ? force[BSI_FORCE_QR_HH] : 0;
    if (f == 1 || op != BSQ_GELS || es != 8 || nrhs != 1 || n > 64 || m > 128) return 0;
    return f == 2 || m <= 64 || m >= 80 || (m >= 72 && n > 16);
}

/* HH's bucket: rows to M = 16, 32 or 64 (m > 64: H = 2 halves of 64),
 * columns to L = 8, 16, 32 or 64 lanes (m > 64: 32 or 64, a warp per
 * half).  Two columns per lane (C = 2, teams of L / 2):
 *   m <= 16: b and the pivot column in registers, which only the smaller
 *     teams can afford (the 1.07-1.3x above; one column per lane with b in
 *     shared memory ran 0.9x the rotations at 8x16 and 16x16);
 *   16 < m <= 32 with 8 < n <= 16 and interleaved A: a step's broadcast
 *     loads, b's butterfly and the reflector shared by twice the systems,
 *     1.05-1.13x IL (16x32 1.13x); with column-major A within -2.8%..+0.5%,
 *     so one column per lane there.
 * force[BSI_FORCE_QR_HH_C] = 1: one column per lane everywhere. */
static inline void bsq_hh_bucket(struct bsq_choice *c, int m, int n, int a_il, int a_pair, const int *force)
{
    const int one = force && force[BSI_FORCE_QR_HH_C] == 1;
    const int M = m <= 16 ? 16 : m <= 32 ? 32 : m <= 64 ? 64 : 128;
    const int L = n <= 8 && M < 128 ? 8 : n <= 16 && M < 128 ? 16 : n <= 32 ? 32 : 64;
    c->family = BSQ_K_HH;
    c->ld_pair = a_pair; /* wherever column-major A allows it */
    c->M = M < 128 ? M : 64;
    c->H = M < 128 ? 1 : 2;
    c->L = L;
    c->C = 1;
    if (!one && ((M == 32 && L == 16 && a_il) || (M == 16 && L <= 16))) {
        c->L = L / 2;
        c->C = 2;
    }
}

/* WARP: gels with nrhs = 1, m <= 64, n <= 32 outside REG (in FP64 only
 * where HH is forced off): against TEAM 8x16 2.2x, 16x32 1.6x, 32x32 1.55x,
 * 32x64 1.1x.  n > 32 stays on TEAM, whose blocks of warps ran 1.15-1.37x
 * WARP's teams of 64 lanes (57x57 .. 64x64).  Rows to M = 16, 32, 64,
 * columns to NC = 8, 16, 32; a lane per column, except two (C = 2, teams of
 * 4) for FP64 at m <= 16, n <= 8 with interleaved A: a step's lane-uniform
 * work shared by twice the systems, 1.07-1.1x (8x16 1.1x); with
 * column-major A 0.97x, and at 16x16 and up 0.6-0.7x (registers).
 * Loads (ld_pair): FP64 column-major A two rows per load at M <= 32, half
 * the L1 tag lookups, 1.05-1.1x (8x16 1.1x, 32x32 1.05x); at M = 64 the
 * second copy of the loads made the FULL copies spill.  full: at M = 64 a
 * shape equal to its bucket runs a copy with the guards compiled out,
 * 1.14-1.25x (8x64, 16x64, 32x64); at M <= 32 such copies ran 0.8-1.02x the
 * general copy (registers).  Returns 0 where WARP does not take the call. */
static inline int bsq_warp_bucket(struct bsq_choice *c, int es, int op, int m, int n, int nrhs, int a_il, int a_pair,
                                  const int *force)
{
    if ((force && force[BSI_FORCE_QR_WARP] == 1) || op != BSQ_GELS || nrhs != 1) return 0;
    const int M = m <= 16 ? 16 : m <= 32 ? 32 : m <= 64 ? 64 : 0;
    const int NC = n <= 8 ? 8 : n <= 16 ? 16 : n <= 32 ? 32 : 0;
    if (!M || !NC || NC > M) return 0;
    c->family = BSQ_K_WARP;
    c->M = M;
    c->C = es == 8 && a_il && M == 16 && NC == 8 ? 2 : 1;
    c->L = NC / c->C;
    c->ld_pair = es == 8 && M <= 32 && c->C == 1 && a_pair;
    c->full = M == 64 && m == M && n == NC;
    return 1;
}

/* PAIR: FP64 gels with nrhs = 1 at 65 <= m <= 71 (the rows HH leaves to
 * the rotations) with 40 <= n <= 56: against TEAM 40x128 1.14x, 48x128
 * 1.07x, 56x128 1.05x, but 64x128 1.0x and 32x128 0.94x.  (Where HH is
 * forced off, it also takes m <= 64 with n >= 33: 1.03-1.5x TEAM, 40x64
 * 1.5x.)  Threads per column band: 4 at m > 64, where a band is twice as
 * long (48x128 1.04x two), 2 at m <= 64.  force: 1 never, 2 every FP64 gels
 * nrhs = 1 with n <= 64 that reaches it; PAIR_SEG 1, 2 or 4 threads per
 * band.  (m = 1 has no rotation to pair.) */
static inline int bsq_pair_takes(struct bsq_choice *c, int es, int op, int m, int n, int nrhs, int hh_off,
                                 const int *force)
{
    const int f = force ? force[BSI_FORCE_QR_PAIR] : 0;
    if (f == 1 || op != BSQ_GELS || es != 8 || nrhs != 1 || n > 64 || m > 128 || m < 2) return 0;
    if (f != 2 && !(m <= 64 ? hh_off && n >= 33 : n >= 40 && n <= 56)) return 0;
    const int seg = force ? force[BSI_FORCE_QR_PAIR_SEG] : 0;
    c->family = BSQ_K_PAIR;
    c->L = n <= 32 ? 32 : 64;
    c->seg = seg == 1 || seg == 4 ? seg : seg ? 2 : m > 64 ? 4 : 2;
    return 1;
}

/* TEAM's team size T: the smallest power of two for which a warp's 32/T
 * systems fit in BSQ_WARP_SMEM bytes of shared memory, so that ~16 warps
 * share an SM's BSQ_SM_SMEM (latency hiding) while small systems keep one
 * lane each (no idle lanes).  Systems so large that a warp each leaves 8 or
 * fewer per SM get a block of T = 128 or 256 lanes (T = 64 would not reach
 * BSQ_SM_WARPS warps per SM): H200, T = 32 -> best, 64x128 1.66x (T = 256),
 * 32x128 1.17x, 64x64 1.15x, 48x64 1.09x (T = 128); at 12 systems per SM
 * T = 32 stays (16x128, 32x64: 0.75-0.97x with more).  Then the right-hand sides per pass (nbp,
 * at most 8) are halved until a warp's systems fit in BSQ_MAX_SMEM.
 * force[BSI_FORCE_QR_TEAM]: T (a power of two, 1..256; raised where the
 * systems of a warp cannot fit). */
#define BSQ_WARP_SMEM (12 << 10)
#define BSQ_MAX_SMEM (200 << 10) /* of one block; the H100 allows 227 KiB */
#define BSQ_SM_SMEM (228 << 10)  /* of one SM (H100) */
#define BSQ_SM_WARPS 24

static inline struct bsq_geom bsq_plan(int m, int n, int nrhs, size_t es, const int *force)
{
    const int ft = force ? force[BSI_FORCE_QR_TEAM] : 0;
    const int forced = ft >= 1 && ft <= 256 && (ft & (ft - 1)) == 0 ? ft : 0;
    struct bsq_geom g = {0, 0, 0, 0, 0, 0};
    g.ldm = m | 1; /* odd: lanes striding by columns hit distinct banks */
    g.nbp = nrhs < 8 ? nrhs : 8;
    for (;;) {
        g.mstride = (g.ldm * (n + g.nbp) + 3 * n) | 1;
        const size_t sys = (size_t)g.mstride * es;
        int T = forced;
        if (!T) {
            T = 1;
            while (T < 32 && (size_t)(32 / T) * sys > BSQ_WARP_SMEM) T *= 2;
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

/* The kernel for one call.  es = sizeof the element; op = BSQ_*; nrhs of
 * gels or geqrs (ignored for geqrf); a_il: A is INTERLEAVED; a_pair: A
 * allows two rows per load (bsq_ld_pair_ok in qr_warp.cuh: column-major,
 * m and the strides even, 16-byte aligned); force = the context's
 * test-only choices (may be NULL). */
static inline struct bsq_choice bsq_dispatch(int es, int op, int m, int n, int nrhs, int a_il, int a_pair,
                                             const int *force)
{
    struct bsq_choice c = {0, 0, 0, 0, 0, 0, 0, 0, 0, {0, 0, 0, 0, 0, 0}};
    if (op == BSQ_GEQRS) { /* b's thread-local copy bounded by the bucket */
        c.family = BSQ_K_GEQRS;
        c.M = m <= 32 ? 32 : BSOLVE_QR_MAX_M;
        return c;
    }
    if (op != BSQ_GELS) nrhs = 0;
    const int code = bsq_reg_bucket(es, op, m, n, nrhs, force);
    if (code) {
        c.family = bsq_regw_takes(es, op, m, n, code) ? BSQ_K_REGW : BSQ_K_REG;
        c.M = code / 64;
        c.N = code % 64;
        return c;
    }
    if (bsq_hh_takes(es, op, m, n, nrhs, force)) {
        bsq_hh_bucket(&c, m, n, a_il, a_pair, force);
        return c;
    }
    if (bsq_warp_bucket(&c, es, op, m, n, nrhs, a_il, a_pair, force)) return c;
    if (bsq_pair_takes(&c, es, op, m, n, nrhs, force && force[BSI_FORCE_QR_HH] == 1, force)) return c;
    c.family = BSQ_K_TEAM;
    c.g = bsq_plan(m, n, nrhs, (size_t)es, force);
    return c;
}

/* The choice in words, e.g. "warp M=16 L=8 C=1 pair" (tests, table dumps). */
static inline const char *bsq_name(struct bsq_choice c, char *buf, size_t len)
{
    switch (c.family) {
    case BSQ_K_REG: snprintf(buf, len, "reg %dx%d", c.M, c.N); break;
    case BSQ_K_REGW: snprintf(buf, len, "regw %dx%d", c.M, c.N); break;
    case BSQ_K_HH: snprintf(buf, len, "hh M=%d L=%d H=%d C=%d%s", c.M, c.L, c.H, c.C, c.ld_pair ? " pair" : ""); break;
    case BSQ_K_WARP:
        snprintf(buf, len, "warp M=%d L=%d C=%d%s%s", c.M, c.L, c.C, c.ld_pair ? " pair" : "", c.full ? " full" : "");
        break;
    case BSQ_K_PAIR: snprintf(buf, len, "pair TC=%d SEG=%d", c.L, c.seg); break;
    case BSQ_K_TEAM: snprintf(buf, len, "team T=%d nbp=%d", c.g.T, c.g.nbp); break;
    case BSQ_K_GEQRS: snprintf(buf, len, "geqrs MB=%d", c.M); break;
    default: snprintf(buf, len, "?"); break;
    }
    return buf;
}

#endif
