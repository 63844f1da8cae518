/*
 * gtsv_dispatch.cuh -- the dispatch table of the CUDA tridiagonal solvers:
 * which kernel solves a batch (gtsv, and gttrf / gttrs after it) and with
 * what parameters, from the precision, the method, m, the batch against the
 * number of multiprocessors and the layouts.  Every crossover is here, with
 * its reason; the kernels (gtsv.cu, gtsv_tile.cuh, gtsv_long.cuh) take the
 * shapes chosen here as arguments.  Included by cuda/gtsv.cu after the
 * kernels.  nrhs never changes the choice: every kernel solves one
 * right-hand-side column per launch.
 *
 *   path   when                                           kernel
 *   LONG   m >= 2048 and batch < #SMs (few long systems)  the partition method over chunks
 *                                                         (gtsv_long.cuh): the fused kernel where
 *                                                         its reduced system fits a warp or a block
 *                                                         and its grid fits the GPU, else levels of
 *                                                         down / up passes around a bottom tile
 *   TILE   m <= 4096 and the tile fits shared memory      the on-chip tile kernel (gtsv_tile.cuh):
 *                                                         one thread per system for m <= 16, else
 *                                                         partitions of 8 or 16 rows and PCR
 *   SEQ    otherwise (many systems longer than a tile)    one thread per system from global
 *                                                         memory (gt_seq in gtsv.cu)
 *
 * The speed-ups quoted beside the crossovers were measured on an H100 with
 * perf/bench_gtsv_gpu.cu and perf/probe_gtsv.cu.
 *
 * gttrf / gttrs: gttrf makes the plan as for a B laid out like the
 * diagonals, and keeps what replays it bitwise (the sequential
 * elimination's factors, or the matrix for gtsv's kernel to run again:
 * gtsv.cu, "factorization objects"); every gttrs runs that plan.
 *
 * Tests force the alternatives on one context (bsi_test_force, the
 * BSI_FORCE_GT_* knobs of src/internal.h); with no knob set the table
 * below is all there is.
 */
#ifndef BSI_GTSV_DISPATCH_CUH
#define BSI_GTSV_DISPATCH_CUH

/* The table's parameters, as the context's test-only knobs leave them (a
 * knob of 0 leaves the default). */
struct gt_cfg {
    bool seq_only; /* every shape to the sequential kernel */
    int pcr;       /* tile kernel's reduced systems: 0 one thread each, 1 PCR dividing, 2 PCR by reciprocals */
    int long_L;    /* few-long partition rows forced to 8 or 16; 0: gt_long_lsh */
    int64_t bottom; /* largest reduced system handed to the bottom tile kernel */
    bool pdl;      /* the levels' launches after the first are programmatic dependent launches */
    int red;       /* chunk reduction: 0 never, 1 where it saves a level, 2 every level, 3 below the top */
    int wred;      /* reduction by warps: 0 never, 1 where it pays, 2 wherever the next level is long */
    int fused;     /* fused kernel: 0 never, 1 as below, 2 warp bottom only and never looping, 3 block bottom always */
    int64_t fused_max;  /* the most equations it takes with looping blocks */
    int64_t fused_grid; /* its most blocks (0: as many as are resident) */
};

static inline gt_cfg gt_cfg_of(const bsolve_ctx *ctx)
{
    const int *f = ctx->force;
    auto mode = [&](int knob, int def) { return f[knob] > 0 ? f[knob] - 1 : def; };
    gt_cfg c;
    c.seq_only = f[BSI_FORCE_GT_PATH] == 1;
    c.pcr = mode(BSI_FORCE_GT_PCR, 2);
    c.long_L = f[BSI_FORCE_GT_LONG_L] == 8 || f[BSI_FORCE_GT_LONG_L] == 16 ? f[BSI_FORCE_GT_LONG_L] : 0;
    /* One block solving a reduced system of up to 4096 rows beats another
     * level's two launches. */
    const int b = f[BSI_FORCE_GT_LONG_BOTTOM];
    c.bottom = b > 0 && b < 4096 ? b : 4096;
    c.pdl = mode(BSI_FORCE_GT_PDL, 1) != 0;
    c.red = mode(BSI_FORCE_GT_CHUNKRED, 1);
    c.wred = mode(BSI_FORCE_GT_WARPRED, 1);
    c.fused = mode(BSI_FORCE_GT_FUSED, 1);
    /* Looping blocks pay while the matrix stays in L2 between the passes;
     * past 2^21 equations the up pass reads DRAM again like the levels',
     * with fewer blocks resident, and the levels are faster. */
    c.fused_max = (int64_t)1 << 21;
    c.fused_grid = f[BSI_FORCE_GT_FUSED_GRID] > 0 ? f[BSI_FORCE_GT_FUSED_GRID] : 0;
    return c;
}

/* ---- few long systems or many: the paths -------------------------------- */

/* The partition method pays off once there are fewer systems than
 * multiprocessors: the tile kernel runs one system of m >= 2048 per block,
 * and with a block per SM or more it is the faster of the two. */
static inline bool gt_use_partition(int64_t m, int64_t batch, int nsm)
{
    return m >= 2048 && m < ((int64_t)1 << 30) && batch < (int64_t)nsm;
}

/* ---- the tile kernel (gtsv_tile.cuh) --------------------------------------- */

/* Tile shape: S systems per block, partitions of 2^lsh rows, P per system. */
struct gt_tile_shape {
    int S, P, lsh, ss, na, threads;
    size_t smem;
};

/* The tile's shape for m, if m fits it (il: diagonals and B interleaved).
 * m <= 16: one thread per system (the sequential elimination in shared
 * memory); longer: partitions, the longest m being 4096 (256 partitions
 * of 16 rows, one block's threads).  Small tiles of 512 equations: more
 * resident blocks whose load, compute and store phases overlap one
 * another.  8-row partitions: 4 rows lengthen the reduced system, 16 need
 * 212 registers; but 16 for interleaved m >= 512, where a 4-system tile
 * then needs half the threads for the same rows (9-17% faster at m =
 * 512..1024).  Interleaved tiles of partitioned systems hold >= 4 systems
 * (1024 equations, or 4m), so that a row read is not a lone element.
 * Systems per tile shrink until the tile fits smem_max. */
static inline bool gt_tile_shape_for(int64_t m, bool il, size_t es, size_t smem_max, gt_tile_shape &sh)
{
    const int seqmax = 16, tilemax = 4096;
    if (m < 1 || m > tilemax) return false;
    const int mm = (int)m;
    const int cL = il && mm >= 512 ? 16 : 8;
    const int te = il && mm > seqmax ? (mm < 256 ? 1024 : 4 * mm) : 512;
    if (mm <= seqmax) {
        int S = 32;
        while (S < 256 && S * 2 * mm <= te) S *= 2;
        sh.S = S, sh.P = 1, sh.lsh = 30, sh.na = 4, sh.threads = S;
    } else {
        int lsh = 2; /* the kernel is compiled for L = 4, 8, 16 */
        while ((1 << lsh) < cL && lsh < 4) lsh++;
        while (((mm + (1 << lsh) - 1) >> lsh) > 256 && lsh < 4) lsh++;
        const int P = (mm + (1 << lsh) - 1) >> lsh;
        if (P > 256) return false;
        int S = te / (P << lsh);
        if (S < 1) S = 1;
        while (S > 1 && S * P > 256) S--;
        sh.S = S, sh.P = P, sh.lsh = lsh, sh.na = 4, sh.threads = (S * P + 31) / 32 * 32;
    }
    int ss = mm + (sh.lsh > 29 ? 0 : (mm - 1) >> sh.lsh) + 1;
    if (!(ss & 1)) ss++;
    sh.ss = ss;
    for (;;) {
        sh.smem = (size_t)sh.na * sh.S * ss * es + (size_t)(7 * sh.S * sh.P + sh.S) * es + (size_t)sh.S * sizeof(int) + 16;
        if (sh.smem <= smem_max) return true;
        if (sh.S == 1) return false;
        sh.S = sh.P == 1 ? sh.S / 2 : sh.S - 1;
        if (sh.P == 1) sh.threads = sh.S;
        else sh.threads = (sh.S * sh.P + 31) / 32 * 32;
    }
}

/* ---- few long systems (gtsv_long.cuh) -------------------------------------- */

/* Shape of a long level or of the fused kernel. */
struct gt_long_shape {
    int lsh, S, C, ss, nch, threads;
    int bbot; /* the fused kernel's reduced systems by blocks (gt_block_bottom), else by warps */
    size_t smem_down, smem_up;
};

/* log2 of a level's partition rows: 8 rows for GIVENS (its 16-row sweep is
 * register-bound: 8-25% slower at every size), and for the others below
 * 2^25 equations (PARTIAL: 2^24), where 8 rows were 3-15% faster; 16 above
 * (2-4% faster from 2^20 x 64 on). */
static inline int gt_long_lsh(const gt_cfg &c, int method, int64_t m, int64_t batch)
{
    if (c.long_L) return c.long_L == 8 ? 3 : 4;
    const int64_t big = (int64_t)1 << (method == BSOLVE_GTSV_PARTIAL ? 24 : 25);
    return method == BSOLVE_GTSV_GIVENS || m * batch < big ? 3 : 4;
}

/* The rest of a shape from its partitions per chunk P. */
static inline void gt_long_shape_fill(gt_long_shape &sh, int P, int64_t m, size_t es)
{
    const int L = 1 << sh.lsh;
    sh.C = P * L;
    sh.nch = (int)((m + sh.C - 1) / sh.C);
    sh.threads = (sh.S * P + sh.S + 31) / 32 * 32;
    const int rows = sh.C + L;
    sh.ss = rows + ((rows - 1) >> sh.lsh) + 1;
    if (!(sh.ss & 1)) sh.ss++;
    sh.smem_up = (size_t)4 * sh.S * sh.ss * es;
    sh.smem_down = sh.smem_up + ((size_t)7 * (sh.S * P + sh.S) + sh.S) * es;
}

/* S systems per block (interleaved rows: S contiguous elements), C rows
 * each, with at least 2 blocks per SM where the work allows it.  1024
 * equations per block: 1-4% faster than 2048 and 10-12% faster than 4096
 * (more resident blocks overlap their loads with the sweeps of others). */
static inline gt_long_shape gt_long_shape_for(int64_t m, int64_t batch, bool il, size_t es, int nsm, int lsh)
{
    gt_long_shape sh;
    sh.lsh = lsh;
    sh.bbot = 0;
    const int L = 1 << sh.lsh;
    sh.S = il ? (int)(batch < 4 ? batch : 4) : 1;
    const int te = 1024;
    /* S*P threads own partitions, S more sweep the look-ahead ones */
    int P = te / (sh.S * L) - 1;
    P = P < 1 ? 1 : P > 256 / sh.S - 1 ? 256 / sh.S - 1 : P;
    const int64_t groups = (batch + sh.S - 1) / sh.S;
    while (P > 32 / sh.S && P > 1 && groups * ((m + (int64_t)P * L - 1) / ((int64_t)P * L)) < 2 * nsm) P = (P + 1) / 2 - 1;
    gt_long_shape_fill(sh, P, m, es);
    return sh;
}

/* The fused kernel's shape (gt_long_fused), if the problem suits it: the
 * reduced system of 2 rows per chunk must fit one of its bottoms.  The
 * warp bottom where it fits with the level's chunks; else the block
 * bottom, the chunks grown (up to 256 threads) only as far as it needs:
 * where the blocks loop, larger chunks mean fewer, longer blocks.  8-row
 * partitions first (one system of 2^16 equations: 2.6 -> 2.8e9/s THOMAS,
 * 2.2 -> 2.6 GIVENS against 16).  How many blocks run at once is the
 * plan's business (gt_plan_make).  c.fused == 2: the warp bottom only
 * (chunks grown until it fits); 3: the block bottom always. */
static inline bool gt_long_fused_shape(const gt_cfg &c, int64_t m, int64_t batch, bool il, size_t es, int nsm,
                                       gt_long_shape &sh)
{
    if (!c.fused || c.red == 0) return false;
    for (int lsh = c.long_L == 16 ? 4 : 3; lsh <= (c.long_L == 8 ? 3 : 4); lsh++) {
        sh = gt_long_shape_for(m, batch, il, es, nsm, lsh);
        int P = sh.C >> sh.lsh;
        if (c.fused == 2)
            while (2 * (int64_t)sh.nch > GT_WB_MAX && sh.S * (2 * P + 2) <= 256)
                gt_long_shape_fill(sh, P = 2 * P + 1, m, es);
        if (c.fused != 3 && P >= 3 && 2 * (int64_t)sh.nch <= GT_WB_MAX) return true;
        if (c.fused == 2) continue;
        auto fits = [&] { return (2 * (int64_t)sh.nch + GT_WB_L - 1) / GT_WB_L <= sh.threads; };
        while (!fits() && sh.S * (2 * P + 2) <= 256) gt_long_shape_fill(sh, P = 2 * P + 1, m, es);
        if (P >= 3 && fits()) {
            /* grown chunks may bring the reduced system back to a warp's */
            sh.bbot = c.fused == 3 || 2 * (int64_t)sh.nch > GT_WB_MAX;
            const size_t bb = (7 * (size_t)sh.threads + 2) * es + 16; /* gt_block_bottom's */
            sh.smem_down = sh.smem_down > bb ? sh.smem_down : bb;
            return true;
        }
    }
    return false;
}

/* One level of the long method on systems of m rows: its shape, and the
 * rows of the reduced system it writes. */
struct gt_long_level {
    gt_long_shape sh;
    int64_t np1, np;
    bool red;
    int W; /* partitions per reduction group (gt_long_args::W) */
};

static inline gt_long_level gt_long_level_for(const gt_cfg &c, int method, int64_t m, int64_t batch, bool il,
                                              size_t es, int nsm, bool top)
{
    gt_long_level v;
    v.sh = gt_long_shape_for(m, batch, il, es, nsm, gt_long_lsh(c, method, m, batch));
    v.np1 = (m + (1 << v.sh.lsh) - 1) >> v.sh.lsh;
    /* The chunk reduction where it saves a level (the reduced system would
     * not yet fit the bottom tile kernel), and at the top level only while
     * the pass is latency-bound (few blocks): there its barriers and PCR
     * cost more than a level's launches (applied at every top level, one
     * system of 2^18 equations ran 22% faster, 2^22 x 1 and 2^18 x 16 5-8%
     * slower). */
    const int64_t blocks = (batch + v.sh.S - 1) / v.sh.S * v.sh.nch;
    const bool useful =
        v.np1 > c.bottom && (top ? c.red == 1 && blocks <= 8 * (int64_t)nsm : c.red == 1 || c.red == 3);
    /* with 1 or 2 partitions per chunk there is nothing to fold */
    const int P = v.sh.C >> v.sh.lsh;
    v.red = P >= 3 && (c.red == 2 || useful);
    v.W = P;
    v.np = v.red ? 2 * (int64_t)v.sh.nch : v.np1;
    /* Else the reduction by warps (gt_warp_reduce): the pass keeps
     * streaming (no block barrier), and the reduced system is 2 rows per 32
     * partitions instead of one per partition.  Where that fits the bottom
     * tile kernel it saves a level; where the next level would still stream
     * more than 2^20 rows it makes that level 16x shorter (6-9% faster from
     * 2^16 x 64 to 2^22 x 4).  Not where the next level is short anyway
     * (one to four systems of 2^20..2^22: 5% slower); not with 16-row
     * partitions (7-9% slower) nor past 2^24 equations. */
    if (!v.red && c.wred && v.sh.S == 1 && P > 32 && v.np1 > c.bottom) {
        const int gpc = (P + 31) / 32;
        const int64_t plast = v.np1 - (int64_t)(v.sh.nch - 1) * P;
        const int64_t np = 2 * ((int64_t)(v.sh.nch - 1) * gpc + (plast + 31) / 32);
        const bool fit = v.sh.lsh == 3 && m * batch <= ((int64_t)1 << 24) &&
                         (np <= c.bottom || v.np1 * batch > ((int64_t)1 << 20));
        if (c.wred == 2 || fit) v.red = true, v.W = 32, v.np = np;
    }
    return v;
}

/* The levels of the long method down to the bottom tile kernel, at most 24
 * (each divides the rows by 8 at least). */
#define GT_MAX_LEVELS 24

/* Device memory for the reduced systems of the long method (one column):
 * the levels of gt_long_solve, 4 arrays of np rows each (3 of np1 more
 * with the chunk reduction), or the fused kernel's if fs (its shape) needs
 * more. */
static inline size_t gt_long_bytes(const gt_cfg &c, int method, int64_t m, int64_t batch, bool il, size_t es, int nsm,
                                   const gt_long_shape *fs)
{
    auto arr = [&](int64_t n) { return ((size_t)(n * batch) * es + 255) / 256 * 256; };
    size_t tot = 0;
    for (int64_t n = m, l = 0; l < GT_MAX_LEVELS; l++) {
        const gt_long_level v = gt_long_level_for(c, method, n, batch, il, es, nsm, l == 0);
        tot += 4 * arr(v.np) + (v.red ? 3 * arr(v.np1) : 0);
        n = v.np, il = false;
        if (n <= c.bottom) break;
    }
    if (fs) {
        const size_t f = 4 * arr(2 * (int64_t)fs->nch) + 3 * arr((m + (1 << fs->lsh) - 1) >> fs->lsh);
        tot = f > tot ? f : tot;
    }
    return tot;
}

/* ---- the plan ------------------------------------------------------------ */

enum gt_path { GT_PATH_SEQ, GT_PATH_TILE, GT_PATH_LONG };

/* What runs for one call shape (any nrhs). */
struct gt_plan {
    int path;
    int method;
    int64_t m, batch;
    bool il;        /* diagonals and B interleaved: the tile and long shapes depend on it */
    bool contig;    /* SEQ: either array contiguous (staged through shared memory) */
    gt_tile_shape tile; /* TILE */
    /* LONG: the fused kernel's shape where it has one (fshape), and whether
     * it runs (fused) on fgrid blocks; else the levels */
    bool fshape, fused;
    gt_long_shape fsh;
    int64_t fgrid;
    size_t lbytes;  /* LONG: device memory of the reduced systems (gt_long_bytes) */
    gt_cfg cfg;
};

/* The plan for method, m, batch and the layouts' kinds (lt_il, lb_il:
 * interleaved), on a device of nsm multiprocessors and smem_max bytes of
 * shared memory per block.  resident(fsh, &per_sm) gives the fused
 * kernel's resident blocks per SM for a shape (an occupancy query, made
 * only where the fused kernel may run); its error is returned. */
template <typename RES>
static cudaError_t gt_plan_make(const gt_cfg &c, int method, int64_t m, int64_t batch, size_t es, bool lt_il,
                                bool lb_il, int nsm, size_t smem_max, RES resident, gt_plan &p)
{
    memset(&p, 0, sizeof p);
    p.cfg = c;
    p.method = method, p.m = m, p.batch = batch;
    p.il = lt_il && lb_il;
    p.contig = !lt_il || !lb_il;
    p.path = GT_PATH_SEQ;
    if (c.seq_only) return cudaSuccess;
    if (gt_use_partition(m, batch, nsm)) {
        p.path = GT_PATH_LONG;
        p.fshape = gt_long_fused_shape(c, m, batch, p.il, es, nsm, p.fsh);
        p.lbytes = gt_long_bytes(c, method, m, batch, p.il, es, nsm, p.fshape ? &p.fsh : nullptr);
        if (!p.fshape) return cudaSuccess;
        /* A cooperative launch needs every block resident: the grid is what
         * fits the GPU at once, and with more chunks than that the blocks
         * loop over chunks, up to c.fused_max equations (c.fused == 2
         * never loops). */
        int per_sm = 0;
        const cudaError_t e = resident(p.fsh, &per_sm);
        if (e != cudaSuccess) return e;
        int64_t res = (int64_t)per_sm * nsm;
        if (c.fused_grid > 0 && c.fused_grid < res) res = c.fused_grid;
        const int64_t nblk = (batch + p.fsh.S - 1) / p.fsh.S * p.fsh.nch;
        p.fused = !(res == 0 || (nblk > res && (c.fused == 2 || (c.fused_max > 0 && m * batch > c.fused_max))));
        p.fgrid = nblk < res ? nblk : res;
        return cudaSuccess;
    }
    if (gt_tile_shape_for(m, p.il, es, smem_max, p.tile)) p.path = GT_PATH_TILE;
    return cudaSuccess;
}

/* The kernel of a plan, by name (bsi_cuda_gt_kernel, for the tests). */
static inline const char *gt_plan_name(const gt_plan &p, size_t es, int nsm)
{
    switch (p.path) {
    case GT_PATH_SEQ: return "seq";
    case GT_PATH_TILE: return p.tile.P == 1 ? "tile-seq" : "tile-part";
    default: break;
    }
    if (p.fused) {
        const bool loop = p.fgrid < (p.batch + p.fsh.S - 1) / p.fsh.S * p.fsh.nch;
        if (p.fsh.bbot) return loop ? "fused-block-loop" : "fused-block";
        return loop ? "fused-warp-loop" : "fused-warp";
    }
    const gt_long_level v = gt_long_level_for(p.cfg, p.method, p.m, p.batch, p.il, es, nsm, true);
    return !v.red ? "levels" : v.W == 32 ? "levels-warpred" : "levels-chunkred";
}

#endif
