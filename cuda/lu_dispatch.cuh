/*
 * lu_dispatch.cuh -- the dispatch table of the CUDA dense LU (gesv, getrf,
 * getrs): which kernel runs a call, with which bucket and team size, from
 * (precision, operation, n, nrhs, pivoting), and for a masked getrf whether
 * its systems are gathered first (from how they lie: GATHER below).  The
 * layouts of A and B play no other part: every kernel reads and writes
 * every layout, and every family has a list form (masked getrf and getrs,
 * common.cuh).
 *
 * Plain C as well as CUDA C++: lu.cu launches what bsi_lu_dispatch()
 * returns, the kernels take their team sizes from here, and
 * test/test_dispatch.c enumerates the table on any machine (BSOLVE_TEST_DUMP=1
 * prints it).  Tests and benchmarks override a choice on one context with
 * bsi_test_force() (src/internal.h, "CUDA dense LU"); nothing else does.
 *
 * Kernel families:
 *   TEAM   lu_small.cuh, n <= 32: a team of T lanes per system, lane l
 *          holding rows l, l+T, ... in registers; n padded to a compiled
 *          bucket N in {1..8, 10, 12, 14, 16, 20, 24, 28, 32}; T = 1 (a
 *          thread per system) for n <= 8.
 *   WARP   lu_warp.cuh, gesv with one right-hand side and getrf: a row (and
 *          b) per lane, logical interchanges; buckets {10, 12, ..., 32, 40,
 *          48, 64 (FP32)}; teams of 16 lanes up to N = 16, a warp up to 32,
 *          a block of N/32 warps (one system) beyond.
 *   BLOCK  lu_large.cu, 33 <= n <= 128: a block of 128 threads per system,
 *          the matrix in shared memory.
 *   TILE   lu_tile.cuh, gesv with one right-hand side and getrf, PARTIAL or
 *          NONE, 33 <= n <= 128: a grid of 8 x 8 threads per system (16 x
 *          16 beyond n = 64), the matrix in registers in cyclic tiles;
 *          buckets {40, 48, 56, 64, 80, 96, 112, 128}.
 *   SOLVE  lu_getrs.cuh, getrs: a thread per system reading the
 *          interleaved factors straight (a warp's loads are 32 consecutive
 *          entries), b in shared memory; any n, no bucket.
 *   RSTEAM lu_getrs_team.cuh, getrs: a team of T threads per system (TL
 *          lanes of a warp times TW warps) reading consecutive rows of a
 *          column, b in shared memory, the next group of loads in flight
 *          while one is applied; FP32 may give a thread V = 2 systems (8-byte
 *          loads); walking the factors step by step (W = 0) or as one
 *          stream in chunks of T LV entries whatever the steps, the pivots
 *          and U's diagonal in shared memory with b (W = 1); any n, no
 *          bucket, a shape code W D TL TW V.
 *   SMEM   lu_smem.cuh, gesv with one right-hand side and getrf, PARTIAL
 *          or NONE, 9 <= n <= 22, and FULL where a thread owns its system:
 *          the matrix in shared memory (a run-time pivot row or column is
 *          an address there), a thread per system up to n = 15 (FP32 16),
 *          a team of T = 2 or 4 lanes beyond; one instantiation per n.
 *   PANEL  lu_panel.cuh, the same calls as TILE: blocked right-looking LU,
 *          8-column panels factored by one warp in registers, the trailing
 *          update as 8 x 8 tile products (FP64 tensor cores from sm_80),
 *          the matrix in shared memory; buckets {64, 96, 128} (rows per
 *          lane of the panel), 2 warps per system up to 64, 4 beyond.
 *   GATHER lu_gather.cu (lu.cu runs it), masked getrf: the listed systems of
 *          an interleaved A copied into a compact interleaved workspace,
 *          factored there by the family chosen as for the whole batch, the
 *          factors, pivots and info copied to their systems.
 *
 * Crossovers (H100; gesv, PARTIAL, one right-hand side, interleaved, as a
 * fraction of the copy floor or a ratio of systems per second):
 *   TEAM up to n = 32: beyond, even a team of 32 lanes would hold more than
 *     64 doubles per lane and spill.  T = 1 up to n = 8 runs at 72-97% of
 *     the copy floor.
 *   TEAM's team size (bsi_lu_team) in FP64 by bucket: N = 10 T = 2 (1.1x
 *     T = 4), N = 12 T = 4 (1.4x T = 2, which spills), N = 16 T = 8 (1.1x
 *     T = 4), N = 20 T = 8 (1.7x T = 16), N = 24..32 T = 16 (1.07x T = 8,
 *     1.3x T = 32); FP32 takes the smallest T with at most 64 floats of
 *     matrix per lane.
 *   WARP from n = 13 (FP64) and 17 (FP32): below, it ran 0.7x TEAM (FP64
 *     n = 10, 12: 31-33% of the floor against 46%; FP32 n = 16: 0.9x);
 *     above, 1.2x (n = 16) to 2.3x (n = 24..32) TEAM, 1.1-1.3x BLOCK at
 *     n = 40, 48.
 *   WARP up to n = 48 (FP64) and 64 (FP32): beyond, a row per lane no
 *     longer fits in registers (FP64 N = 64 spills, FP32 N = 96 gets a
 *     stack frame).
 *   FULL pivoting with n > 48 stays on BLOCK: WARP's column swaps across
 *     two warps ran at 9% of its PARTIAL speed (FP32 n = 64), BLOCK's FULL
 *     at 45%.
 *   getrs and gesv with nrhs > 1: TEAM or BLOCK (WARP holds one right-hand
 *     side in registers); getrs reads the factors of any family.
 *   SOLVE (H200) for getrs with one right-hand side from n = 9: FP64
 *     1.3-3.5x TEAM at n = 10..32, 4.4-9.1x TEAM and BLOCK at 40..128
 *     (70-97% of getrs's floor at n = 10..48, 65% at 64, 20-45% at
 *     80..128: above 64 b's shared memory limits the threads per SM; FP64
 *     asks ptxas for 10 blocks per SM, 1.1-1.3x at n = 20..128); FP32 0.96x at n = 10,
 *     1.2-4.4x at 12..32, 3.4-10x above.  Up to n = 8 TEAM already runs a
 *     thread per system with the factors in registers (76-92%).
 *   RSTEAM (H200) for getrs with one right-hand side, FP64 from n = 9,
 *     FP32 from 8: SOLVE's thread makes about n^2 / 16 dependent trips to
 *     memory (16 loads of a column each), which a batch of 1 GB at n = 128
 *     (8192 systems) cannot hide; RSTEAM's team makes one per step where
 *     T LV covers a column, and overlaps it with the previous group's
 *     updates.  Every shape against SOLVE in one build, % of getrs's
 *     floor: FP64 a thread per two systems (112) 74-85% at n = 9..16 (SOLVE
 *     65-81%); with two groups in flight (1112) 93% at 32, 89% at 48, 73%
 *     at 64 (SOLVE 88 / 90 / 64%); 80: four lanes (412) 55% (SOLVE 45%);
 *     96: a team of four warps (141) 55% (33%); 128: eight warps (181) 55%
 *     (19%).  FP32: 112 61-96% at n = 8..48 (SOLVE and TEAM 39-74%), 1112
 *     84% at 64 and 63% at 80 (54 / 37%), 412 49% at 96 (27%), 141 44% at
 *     128 (16%).  Borders between measured orders halfway.
 *   RSTEAM's streamed walk (W = 1): with the step walk every shape stays
 *     at 55% (FP64 80..128) and 44-49% (FP32 96, 128), whatever the team:
 *     each step waits a trip to memory for its own rows (and its pivot,
 *     its diagonal entry), 2n trips per solve with all of a 1 GB batch
 *     resident at once, and the steps near the ends of both sweeps carry
 *     few rows.  The streamed walk keeps two chunks in flight whatever the
 *     steps (2 T LV entries a system).  Every shape in one run, % of the
 *     floor: FP64 four warps (10141) 64% at 96, 52% at 112 (step walk
 *     141: 55%, 11141 49%), eight warps (10181) 61% at 128 (181: 55%); at
 *     80 the step walk's 412 keeps it (55%; 10121 30%, 10181 48%).  FP32
 *     10141 40% at 128 (412 33%); at 96, 112 412 keeps it (49 / 40%;
 *     streamed 22-34%).
 *   BLOCK's 128 threads: 256 and 512 ran 0.55x (n = 40, 80): the barriers
 *     of a step cost more than the extra warps hide.
 *   TILE (H200) for FP64 n = 33..128: gesv PARTIAL 1.55-1.76x WARP at n =
 *     33..40, 1.16x at 48; 1.13-1.29x BLOCK at 49..112, 1.55x at 128 (NONE
 *     0.96-1.88x, getrf + getrs 1.04-1.41x).  FP32 n = 33..48: 1.07-1.52x
 *     WARP; n = 97..128: 1.14-1.27x BLOCK.  FP32 keeps WARP at 49..64
 *     (TILE 0.84-1.02x: FP32 rows fit a lane's registers up to 64) and
 *     BLOCK at 65..96 (TILE 0.95-1.02x).
 *   SMEM (H200) over TEAM and WARP, gesv PARTIAL interleaved: FP64 2.2x
 *     (n = 9), 1.7x (10), 1.8x (11), 1.4x (12), 2.8x (13), 2.3x (14), 1.9x
 *     (15): 68% of the floor at n = 9, 60% at 10, 48% at 12, 33% at 15; at
 *     n = 16 0.91x (three warps per SM: 68 KB of shared memory a block).
 *     FP32 1.6-2.7x at n = 9..16.  getrf + getrs FP64 1.1-1.7x except n =
 *     12 (0.97x, kept for one rule) and 16 (0.6x); FP32 1.15-1.45x, 0.95x at
 *     16; FP32 n = 17 1.3x WARP, beyond it lost (0.3-0.5x at 18..24: ptxas
 *     no longer unrolls the steps, the arrays go to local memory).
 *     Teams of lanes (SMEM's T): one thread per system leaves an SM three
 *     warps at FP64 n = 16.  perf/tune_smem (every T against the table):
 *     FP64 gesv T = 4 1.0x / 1.32x WARP at n = 16 / 20, T = 2 1.05 / 1.29x
 *     at 17 / 18, T = 4 1.0x at 19; getrf 1.25 / 1.24 / 1.11 / 1.22x at 16
 *     / 17 / 18 / 20 (0.94x at 19: WARP keeps it); at 21..24 every T lost
 *     (0.74-0.93x).  FP32 gesv T = 2 1.07 / 1.73x at 17 / 18, T = 4 1.19 /
 *     1.61 / 1.01x at 19 / 20 / 21; getrf 1.74 / 1.92 / 1.25 / 1.72 /
 *     1.16x at 17..21; at 16 the thread per system (1.0x gesv; the getrf
 *     there stays WARP's, 0.9x), at 22 0.89x.  One T per order: the
 *     kernel is instantiated once per (precision, n).
 *     FULL with a thread per system (its own instantiation): FP64 gesv
 *     1.68x the team kernel's FULL at n = 10, 0.8x at 12 (the search is
 *     about n^3 / 3 loads and compares of one thread); FP32 2.0 / 2.15 /
 *     1.17x at 10 / 12 / 16.  Hence FP64 9..11, FP32 9..16.
 *     Column-major input runs 56-68% of interleaved (FP64; 32-50% FP32:
 *     each thread reads its own system, 32 sectors a warp load), still
 *     1.0-2.6x the kernels before it but at n = 12 (0.97x); line staging
 *     through the warp's area ran slower (index arithmetic, bank conflicts
 *     of the interchange at an odd pitch).
 *   RSTEAM on a list (masked getrs; its list form, lu_getrs_team.cuh): at
 *     FP64 n = 54, 1e5 interleaved systems, 5 / 25 / 60 / 100% listed, it
 *     ran 0.60 / 0.81 / 1.04 / 0.95x SOLVE (perf/bench_masked_gpu): a
 *     listed system's team loads one system per sector, where SOLVE's
 *     warp takes 32 listed systems per load.  Hence SOLVE on lists.
 *   GATHER (H200) for a masked getrf of an interleaved A whose kernel gives
 *     each system a block (TILE, PANEL, BLOCK; WARP above 32): on a list,
 *     FP64 n = 54 PARTIAL factored 4.0e6 systems/s against 1.06e7/s over
 *     the whole batch.  Such a kernel reads one 8-byte entry per 32-byte
 *     sector of an interleaved batch; over the whole batch the next three
 *     blocks find the sector in L2, on a sparse list nobody does, and the
 *     block waits on memory for each load group while it holds its share of
 *     the SM.  The gather copy instead has every load of every listed system
 *     in flight at once; the workspace's systems are then neighbours again
 *     (a whole batch for the kernel), for 4 n^2 entries more moved per
 *     system (the gather's store, the kernel's load and store in the
 *     workspace, the scatter's load) against n^3 / 3 FMAs.  Kernels that
 *     give a thread or a warp several systems (n <= 32) are not gathered:
 *     a warp's load covers its systems' sectors whatever they are, and
 *     they run near the memory's floor, where the copies would cost what
 *     they save.  A column- or row-major A is not gathered: a system's
 *     entries already lie together.  getrs is never gathered: a solve reads
 *     each factor entry once, so a gather would read the same scattered
 *     sectors and then move the compact copy twice more.
 *   PANEL (H200) from n = 41, both precisions: FP64 gesv PARTIAL 1.4x TILE
 *     at n = 48, 1.6-1.8x at 64..80, 1.5x at 96, 1.6x at 128 (NONE 1.4-2.0x,
 *     getrf + getrs 1.0-1.25x); FP32 1.2x TILE at 48, 1.4x WARP at 64,
 *     1.7-2.1x BLOCK at 80..96, 1.4x TILE at 128.  At n <= 40 it ran
 *     0.9-1.0x TILE (FP64) and 0.75-0.8x (FP32): one warp's panel, a
 *     reduction per column, is the critical path whatever n, and at small
 *     n there is little trailing matrix to win it back on.
 */
#ifndef BSI_LU_DISPATCH_CUH
#define BSI_LU_DISPATCH_CUH

#include <stdio.h>

#include "internal.h"

#ifndef BSI_DISPATCH
#ifdef __cplusplus
#define BSI_DISPATCH static constexpr /* also usable as template arguments */
#else
#define BSI_DISPATCH static inline
#endif
#endif

/* Operations of the LU kernels (template and run-time argument op). */
enum { BSI_OP_GESV = 0, BSI_OP_GETRF = 1, BSI_OP_GETRS = 2 };

enum { BSI_LU_TEAM = 1, BSI_LU_WARP = 2, BSI_LU_BLOCK = 3, BSI_LU_TILE = 4, BSI_LU_PANEL = 5, BSI_LU_SOLVE = 6, BSI_LU_SMEM = 7,
       BSI_LU_RSTEAM = 8 };

#define BSI_LU_TEAM_MAX_N 32   /* largest n of TEAM */
#define BSI_LU_WARP_MAX_N_D 48 /* largest n of WARP, FP64 */
#define BSI_LU_WARP_MAX_N_S 64 /* largest n of WARP, FP32 */
#define BSI_LU_BLOCK_THREADS 128
#define BSI_LU_SMEM_MAX_N 22  /* largest n of SMEM */

/* How a call's systems are given (bsi_lu_dispatch's list): the whole
 * batch; a list of systems (masked calls, common.cuh) whose entries lie
 * together (a column- or row-major A, or a gathered segment); a list of
 * systems scattered through an interleaved batch (getrf's A, getrs's
 * factors). */
enum { BSI_LU_BATCH = 0, BSI_LU_LIST = 1, BSI_LU_LIST_IL = 2 };

struct bsi_lu_choice {
    int family; /* BSI_LU_TEAM, _WARP, _BLOCK, _TILE, _PANEL, _SOLVE, _SMEM or _RSTEAM */
    int bucket; /* the compiled order n is padded to (0 for BLOCK, SOLVE and RSTEAM) */
    int lanes;  /* threads per system (RSTEAM: per team, which serves V systems) */
    int shape;  /* RSTEAM's shape code (BSI_LU_RSTEAM_SHAPES), 0 for the others */
    int gather; /* 1: gather the listed systems into a workspace first (GATHER) */
};

/* RSTEAM's compiled shapes (lu_getrs_team.cuh): X(TL, TW, V, D, W) is a
 * team of TL lanes of a warp times TW warps serving V systems per thread,
 * with D groups of loads in flight, walking the factors step by step (W =
 * 0) or as one stream in chunks (W = 1); shape code W 10000 + (D - 1) 1000
 * + TL 100 + TW 10 + V (811: 8 lanes, one warp, one system, one group; 1811
 * the same with two; 10141 four warps, one system, one chunk, streamed).
 * Six lists, one instantiation file each. */
#define BSI_LU_RSTEAM_SHAPES_A(X) X(1, 1, 1, 1, 0) X(2, 1, 1, 1, 0) X(4, 1, 1, 1, 0) X(8, 1, 1, 1, 0)
#define BSI_LU_RSTEAM_SHAPES_B(X) X(1, 2, 1, 1, 0) X(1, 4, 1, 1, 0) X(1, 8, 1, 1, 0)
#define BSI_LU_RSTEAM_SHAPES_C(X) X(1, 1, 2, 1, 0) X(2, 1, 2, 1, 0) X(4, 1, 2, 1, 0)
#define BSI_LU_RSTEAM_SHAPES_D(X) X(1, 1, 2, 2, 0) X(4, 1, 1, 2, 0) X(8, 1, 1, 2, 0) X(1, 4, 1, 2, 0)
#define BSI_LU_RSTEAM_SHAPES_E(X) X(1, 8, 1, 1, 1) X(1, 4, 1, 1, 1) X(1, 2, 1, 1, 1) X(1, 2, 1, 2, 1) X(1, 4, 1, 2, 1)
#define BSI_LU_RSTEAM_SHAPES_F(X) X(1, 4, 2, 1, 1) X(1, 2, 2, 1, 1)
#define BSI_LU_RSTEAM_SHAPES(X)                                                                                      \
    BSI_LU_RSTEAM_SHAPES_A(X) BSI_LU_RSTEAM_SHAPES_B(X) BSI_LU_RSTEAM_SHAPES_C(X) BSI_LU_RSTEAM_SHAPES_D(X) \
        BSI_LU_RSTEAM_SHAPES_E(X) BSI_LU_RSTEAM_SHAPES_F(X)

/* Whether shape code s is compiled. */
BSI_DISPATCH int bsi_lu_rsteam_compiled(int s)
{
    switch (s) {
#define BSI_LU_RS_CASE(tl, tw, v, d, w) case w * 10000 + (d - 1) * 1000 + tl * 100 + tw * 10 + v:
        BSI_LU_RSTEAM_SHAPES(BSI_LU_RS_CASE)
#undef BSI_LU_RS_CASE
        return 1;
    default: return 0;
    }
}

/* TEAM's lanes per system for bucket N, elements of es bytes. */
BSI_DISPATCH int bsi_lu_team(int N, int es)
{
    if (N <= 8) return 1;
    if (es == 8) return N <= 10 ? 2 : N <= 12 ? 4 : N <= 20 ? 8 : 16;
    int T = 1;
    while (T < 32 && ((N + T - 1) / T) * N > 64) T *= 2;
    return T;
}

/* WARP's lanes per system for bucket N. */
BSI_DISPATCH int bsi_lu_warp_team(int N) { return N <= 16 ? 16 : (N + 31) / 32 * 32; }

/* The bucket of order n: TEAM's for n <= 32, WARP's beyond (its buckets
 * from 10 up are TEAM's). */
BSI_DISPATCH int bsi_lu_bucket(int n)
{
    return n <= 8 ? n : n <= 10 ? 10 : n <= 12 ? 12 : n <= 14 ? 14 : n <= 16 ? 16 : n <= 20 ? 20 : n <= 24 ? 24
         : n <= 28 ? 28 : n <= 32 ? 32 : n <= 40 ? 40 : n <= 48 ? 48 : 64;
}

/* Whether TILE, or else PANEL, takes a call they can run (gesv nrhs = 1 or
 * getrf, PARTIAL or NONE, 33 <= n <= 128): the crossovers above. */
BSI_DISPATCH int bsi_lu_tile_takes(int es, int n) { return (void)es, n <= 40; }
BSI_DISPATCH int bsi_lu_panel_takes(int es, int n) { return (void)es, n > 40; }

/* SMEM's lanes per system for order n (9 <= n <= BSI_LU_SMEM_MAX_N),
 * elements of es bytes: the crossovers above. */
BSI_DISPATCH int bsi_lu_smem_team(int es, int n)
{
    if (es == 8) return n <= 15 ? 1 : n == 17 || n == 18 ? 2 : 4;
    return n <= 16 ? 1 : n <= 18 ? 2 : 4;
}

/* Whether SMEM has a FULL instantiation for order n (a thread per system),
 * and takes FULL calls there: the crossovers above. */
BSI_DISPATCH int bsi_lu_smem_full(int es, int n) { return n >= 9 && n <= (es == 8 ? 11 : 16); }

/* Whether SMEM takes a call it can run (gesv nrhs = 1 or getrf, PARTIAL or
 * NONE, 9 <= n <= BSI_LU_SMEM_MAX_N): the crossovers above. */
BSI_DISPATCH int bsi_lu_smem_takes(int es, int op, int n)
{
    if (n < 9) return 0;
    if (es == 8) return op == BSI_OP_GETRF ? n <= 18 || n == 20 : n <= 20;
    return op == BSI_OP_GETRF ? n <= 15 || (n >= 17 && n <= 21) : n <= 21;
}

/* Whether RSTEAM takes a getrs with one right-hand side of order n, and
 * the shape it runs (also when forced on without a shape): the crossovers
 * above. */
BSI_DISPATCH int bsi_lu_rsteam_takes(int es, int n) { return es == 8 ? n >= 9 : n >= 8; }
BSI_DISPATCH int bsi_lu_rsteam_shape(int es, int n)
{
    if (es == 8) return n <= 24 ? 112 : n <= 64 ? 1112 : n <= 88 ? 412 : n <= 112 ? 10141 : 10181;
    return n <= 56 ? 112 : n <= 88 ? 1112 : n <= 112 ? 412 : 10141;
}

/* Whether a masked getrf of systems scattered through an interleaved A
 * gathers them first, its kernel being c: where c gives each system a
 * block (the crossover above). */
BSI_DISPATCH int bsi_lu_gather_takes(int es, struct bsi_lu_choice c)
{
    return (void)es, c.family == BSI_LU_TILE || c.family == BSI_LU_PANEL || c.family == BSI_LU_BLOCK ||
                         (c.family == BSI_LU_WARP && c.bucket > 32);
}

/* The kernel for one call: es = sizeof the element, op = BSI_OP_*, pivot a
 * bsolve_pivot, list = BSI_LU_BATCH, _LIST or _LIST_IL; force = the
 * context's test-only choices (may be NULL). */
BSI_DISPATCH struct bsi_lu_choice bsi_lu_dispatch(int es, int op, int n, int nrhs, int pivot, int list,
                                                  const int *force)
{
    const int fw = force ? force[BSI_FORCE_LU_WARP] : 0;
    const int wmax = es == 8 ? BSI_LU_WARP_MAX_N_D : BSI_LU_WARP_MAX_N_S;
    int warp = (op == BSI_OP_GETRF || (op == BSI_OP_GESV && nrhs == 1)) && n >= 9 && n <= wmax;
    if (fw == 0) warp = warp && n >= (es == 8 ? 13 : 17) && !(pivot == BSOLVE_PIVOT_FULL && n > 48);
    else if (fw == 1) warp = 0;
    struct bsi_lu_choice c = {BSI_LU_BLOCK, 0, BSI_LU_BLOCK_THREADS, 0, 0};
    const int ft = force ? force[BSI_FORCE_LU_TILE] : 0, fp = force ? force[BSI_FORCE_LU_PANEL] : 0;
    const int big = (op == BSI_OP_GETRF || (op == BSI_OP_GESV && nrhs == 1)) && n >= 33 && n <= 128 &&
                    pivot != BSOLVE_PIVOT_FULL;
    const int tile = big && (ft == 2 || (ft == 0 && fp != 2 && fw == 0 && bsi_lu_tile_takes(es, n)));
    const int panel = big && !tile && (fp == 2 || (fp == 0 && fw == 0 && bsi_lu_panel_takes(es, n)));
    const int fm = force ? force[BSI_FORCE_LU_SMEM] : 0;
    const int smem = (op == BSI_OP_GETRF || (op == BSI_OP_GESV && nrhs == 1)) && n >= 9 &&
                     n <= BSI_LU_SMEM_MAX_N && (pivot != BSOLVE_PIVOT_FULL || bsi_lu_smem_full(es, n)) &&
                     fw != 2 && (fm == 2 || (fm == 0 && bsi_lu_smem_takes(es, op, n)));
    const int fs = force ? force[BSI_FORCE_LU_SOLVE] : 0;
    const int solve = op == BSI_OP_GETRS && (fs == 2 || (fs == 0 && nrhs == 1 && n >= 9));
    const int fr = force ? force[BSI_FORCE_LU_RSTEAM] : 0;
    const int rsteam = op == BSI_OP_GETRS && (fr >= 2 || (fr == 0 && fs != 2 && nrhs == 1 && list == BSI_LU_BATCH &&
                                                          bsi_lu_rsteam_takes(es, n)));
    if (rsteam) {
        c.family = BSI_LU_RSTEAM;
        c.bucket = 0;
        c.shape = fr > 2 && bsi_lu_rsteam_compiled(fr) ? fr : bsi_lu_rsteam_shape(es, n);
        c.lanes = c.shape / 100 % 10 * (c.shape / 10 % 10);
    } else if (solve) {
        c.family = BSI_LU_SOLVE;
        c.bucket = 0;
        c.lanes = 1;
    } else if (panel) {
        c.family = BSI_LU_PANEL;
        c.bucket = n <= 64 ? 64 : n <= 96 ? 96 : 128;
        c.lanes = c.bucket <= 64 ? 64 : 128;
    } else if (tile) {
        c.family = BSI_LU_TILE;
        c.bucket = n <= 64 ? (n + 7) / 8 * 8 : (n + 15) / 16 * 16;
        c.lanes = n <= 64 ? 64 : 256;
    } else if (smem) {
        c.family = BSI_LU_SMEM;
        c.bucket = n;
        c.lanes = bsi_lu_smem_team(es, n);
    } else if (warp) {
        c.family = BSI_LU_WARP;
        c.bucket = bsi_lu_bucket(n);
        c.lanes = bsi_lu_warp_team(c.bucket);
    } else if (n <= BSI_LU_TEAM_MAX_N) {
        c.family = BSI_LU_TEAM;
        c.bucket = bsi_lu_bucket(n);
        c.lanes = bsi_lu_team(c.bucket, es);
    }
    const int fg = force ? force[BSI_FORCE_LU_GATHER] : 0;
    c.gather = op == BSI_OP_GETRF && list == BSI_LU_LIST_IL && (fg >= 2 || (fg == 0 && bsi_lu_gather_takes(es, c)));
    return c;
}

/* The choice in words, e.g. "warp N=16 T=16" (tests, table dumps). */
static inline const char *bsi_lu_name(struct bsi_lu_choice c, char *buf, size_t len)
{
    const char *g = c.gather ? " gathered" : "";
    if (c.family == BSI_LU_BLOCK) snprintf(buf, len, "block T=%d%s", c.lanes, g);
    else if (c.family == BSI_LU_RSTEAM)
        snprintf(buf, len, "rsteam shape %d T=%d", c.shape, c.lanes);
    else
        snprintf(buf, len, "%s N=%d T=%d%s", c.family == BSI_LU_TEAM ? "team" : c.family == BSI_LU_WARP ? "warp" : c.family == BSI_LU_TILE ? "tile" : c.family == BSI_LU_PANEL ? "panel" : c.family == BSI_LU_SMEM ? "smem" : "solve",
                 c.bucket, c.lanes, g);
    return buf;
}

#endif
