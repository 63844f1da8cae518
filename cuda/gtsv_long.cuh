/*
 * gtsv_long.cuh -- few long tridiagonal systems (fewer systems than it takes
 * to fill the GPU): the partition method in two passes over chunks
 * (included by cuda/gtsv.cu after gtsv_tile.cuh, whose pieces it reuses).
 *
 * Why two passes of whole chunks: a thread per partition of L rows reading
 * straight from global memory makes a warp's row load touch 32 sectors for
 * 32 useful elements, and spills seven arrays per partition.  Here a block
 * copies a chunk of C rows of S systems (dl, d, du, b) into
 * shared memory with the tile kernel's coalesced asynchronous copies, and
 * each thread sweeps one partition of L rows from there in registers
 * (gt_part_reg): x_i = g_i - v_i x_{s-1} - w_i x_e for its interior rows.
 *
 *   down: the reduced row of partition p (unknown x_e, its last row), with
 *         the next partition's first interior row folded in, is written to
 *         a plain tridiagonal system of np = ceil(m/L) rows per system; one
 *         more thread per system sweeps the next chunk's first partition
 *         (L rows more in shared memory) so no row waits for another block;
 *         or those rows are reduced to two per chunk (gt_chunk_reduce) or
 *         per warp's 32 partitions (gt_warp_reduce) first;
 *   reduced system: the same method again while it is long, then the tile
 *         kernel (one block holds a whole reduced system);
 *   up:   the chunk is read again and every thread re-sweeps its partition
 *         and writes x from x_{s-1} and x_e.
 *
 * Traffic: 32 + 40 bytes per equation (FP64) plus 2 * 32 / L for the
 * reduced system, against 40 for one pass: the partitions' g, v, w are
 * recomputed rather than stored (storing them costs 48 bytes per equation
 * more).  Small problems stay in L2 between the passes.
 *
 * The accuracy guard is the tile kernel's: a partition pivot below GT_TOL
 * times the partition's largest entry, a zero pivot or a non-finite entry
 * flags the system (flag[k] = gen, or a non-zero info of the bottom tile
 * kernel: rinfo[k]).  Flagged systems are left untouched by every up pass
 * and re-solved, with exact info, by one thread of the top level's up pass
 * (the block of the system's first chunk) with the sequential elimination:
 * no launch of its own, which cost as much as a level on short problems.
 * Flags carry the call's generation number so that they never need
 * clearing (a memset per call, another launch).
 *
 * Short problems are latency-bound (each kernel takes 5-9 us however little
 * it does: one system of 2^16 equations spends 6 us down, 15 us in the
 * bottom tile, 8 us up), so every launch after the first is a programmatic
 * dependent launch: it is scheduled while the level before it runs and
 * waits for it in gt_grid_wait().
 * Problems whose reduced system fits one warp or one block (up to ~2^21
 * equations per system) run as one cooperative kernel instead
 * (gt_long_fused): down, a grid barrier, the reduced systems by one warp or
 * block each, a grid barrier, and up on the chunk still in shared memory
 * where every chunk fits the GPU at once (26 -> 16.5 us back to back for
 * 2^16 x 1), else with the blocks looping over chunks.
 */
#ifndef BSI_GTSV_LONG_CUH
#define BSI_GTSV_LONG_CUH

template <typename R> struct gt_long_args {
    gt_tile_args<R> A;     /* the level's arrays; A.m rows, A.batch systems */
    R *RA, *RB, *RC, *RD;  /* reduced system: row p of system k at k*np + p (down writes, up reads RD = x) */
    int64_t np;            /* reduced rows per system: np1, or 2 * nch with the chunk reduction */
    int64_t np1;           /* partitions per system */
    int red;               /* chunk reduction (gt_chunk_reduce) on */
    int W;                 /* with it: partitions per reduction group, the chunk's P (by the block) or 32 (by
                            * warps, gt_warp_reduce; one system per block) */
    int bbot;              /* fused kernel: the reduced systems by blocks (gt_block_bottom), else by warps */
    R *GI, *VI, *WI;       /* with it: x_p = GI - VI x_F - WI x_E for the chunk's inner partitions, at k*np1 + p */
    int32_t *flag;         /* per system: == gen where a guard failed in this call */
    const int32_t *rinfo;  /* per system: info of the bottom reduced system (up passes; NULL in the fused kernel) */
    int32_t gen;
    int C, S, ss, nch;     /* rows per chunk, systems per block, shared system stride, chunks per system */
    /* top level only (else info == NULL): the user's info, merged into on
     * later right-hand-side columns, and the fallback's scratch (4 planes of
     * m * batch) */
    int32_t *info;
    int merge;
    R *scr;
};

/* Chunk b (group, chunk) of a level; k0 = first system, c0 = first row. */
template <typename R>
__device__ __forceinline__ void gt_long_block(const gt_long_args<R> &G, int64_t b, int64_t &k0, int &nsys, int &c0)
{
    const int64_t grp = b / G.nch;
    const int q = (int)(b - grp * G.nch);
    k0 = grp * G.S;
    nsys = G.A.batch - k0 < G.S ? (int)(G.A.batch - k0) : G.S;
    c0 = q * G.C;
}

/* The reduction group of partition pl of the chunk at row c0 (G.red): its
 * index q among the system's groups (reduced rows 2q and 2q + 1), its first
 * partition g0 within the system and its partitions Pc.  A chunk of P
 * partitions holds ceil(P / W) groups, the last one short.  WG false: the
 * group is the chunk (the fused kernel, which never reduces by warps). */
template <typename R, bool WG>
__device__ __forceinline__ void gt_long_group(const gt_long_args<R> &G, int c0, int pl, int lsh, int64_t &q, int &g0,
                                              int &Pc)
{
    const int P = G.C >> lsh, W = WG ? G.W : P, j = WG ? pl / W : 0, gpc = WG ? (P + W - 1) / W : 1;
    q = (int64_t)(c0 / G.C) * gpc + j;
    g0 = (c0 >> lsh) + j * W;
    const int left = ((G.A.m - c0 + (1 << lsh) - 1) >> lsh) - j * W, inchunk = P - j * W;
    Pc = W < inchunk ? W : inchunk;
    Pc = Pc < left ? Pc : left;
}

/* Copies rows c0 .. c0+rows-1 of the block's systems into shared memory
 * (layout of gtsv_tile.cuh, row index relative to c0). */
template <typename R, int LSH>
__device__ __forceinline__ void gt_long_load(const gt_long_args<R> &G, R *Lg, int64_t k0, int nsys, int c0, int rows)
{
    gt_tile_args<R> A = G.A;
    A.dl += c0 * A.dis, A.d += c0 * A.dis, A.du += c0 * A.dis, A.B += c0 * A.bis;
    const int ss = G.ss, SS = G.S * ss;
    if ((A.dis == 1 && A.bis == 1) || (A.dis != 1 && A.bis != 1)) {
        gt_tile_load4(A, Lg, SS, k0, nsys, rows, LSH, ss);
    } else {
        gt_tile_move<R, true>(Lg, A.dl, nullptr, A.dks, A.dis, k0, nsys, rows, LSH, ss, G.S);
        gt_tile_move<R, true>(Lg + SS, A.d, nullptr, A.dks, A.dis, k0, nsys, rows, LSH, ss, G.S);
        gt_tile_move<R, true>(Lg + 2 * SS, A.du, nullptr, A.dks, A.dis, k0, nsys, rows, LSH, ss, G.S);
        gt_tile_move<R, true>(Lg + 3 * SS, A.B, nullptr, A.bks, A.bis, k0, nsys, rows, LSH, ss, G.S);
    }
    gt_cp_wait();
    __syncthreads();
}

/* The up pass's partition: with x_{s-1} and x_e known, the interior rows
 * form an ordinary tridiagonal system of ni rows with one right-hand side
 * (b minus the known neighbours), eliminated with the method's pivoting and
 * written to Bv with x_e: a third of gt_part_reg's work, which carries three
 * right-hand sides (b and the two couplings) because the down pass does not
 * know x yet.  The down pass has guarded the same pivots. */
template <typename R, int METHOD, int L, bool FULL, typename IX>
__device__ __forceinline__ void gt_part_x(int m, int p, IX I, const R *Lg, const R *Dg, const R *Ug, R *Bv, R xs1,
                                          R xe)
{
    const int s0 = p * L, len = FULL ? L : (m - s0 < L ? m - s0 : L), ni = len - 1;
    R al[L], dg[L], up[L], bb[L];
    gt_part_load<R, L>(s0, ni, I, Lg, Dg, Ug, Bv, al, dg, up, bb);
    if (ni > 0) {
        if (p > 0) bb[0] -= al[0] * xs1;
        /* a select, not `if (j == ni - 1) bb[j] -= ...`: that idiom becomes a
         * store at a run-time index and sends bb to local memory */
#pragma unroll
        for (int j = 0; j < L - 1; j++) bb[j] = j == ni - 1 ? bb[j] - up[j] * xe : bb[j];
        R c0 = dg[0], c1 = ni > 1 ? up[0] : R(0), y0 = bb[0];
        R rr[L], u1[L], u2[L], yy[L];
#pragma unroll
        for (int j = 0; j + 2 < L; j++) {
            rr[j] = u1[j] = u2[j] = yy[j] = 0;
            if (j + 1 < ni) {
                const R nu = j + 2 < ni ? up[j + 1] : R(0);
                R q0, q1, r, uu1, uu2, n0 = bb[j + 1];
                bool z;
                bsi_gt_step<R, METHOD>(c0, c1, al[j + 1], dg[j + 1], nu, q0, q1, r, uu1, uu2, z);
                yy[j] = bsi_gt_apply<R, METHOD>(q0, q1, y0, n0);
                y0 = n0;
                rr[j] = r, u1[j] = uu1, u2[j] = uu2;
            }
        }
        R x1 = y0 / (c0 == R(0) ? R(1) : c0), x2 = 0;
#pragma unroll
        for (int j = L - 2; j >= 0; j--) {
            if (j == ni - 1) Bv[I(s0 + j)] = x1;
            if (j < ni - 1) {
                const R x = (yy[j] - u1[j] * x1 - u2[j] * x2) * rr[j];
                Bv[I(s0 + j)] = x;
                x2 = x1;
                x1 = x;
            }
        }
    }
    Bv[I(s0 + ni)] = xe;
}

/* gt_part_x on partition p of any length (as gt_part_reg_any). */
template <typename R, int METHOD, int L, typename IX>
__device__ __forceinline__ void gt_part_x_any(int m, int p, IX I, const R *Lg, const R *Dg, const R *Ug, R *Bv,
                                              R xs1, R xe)
{
    if ((p + 1) * L <= m) gt_part_x<R, METHOD, L, true>(m, p, I, Lg, Dg, Ug, Bv, xs1, xe);
    else gt_part_x<R, METHOD, L, false>(m, p, I, Lg, Dg, Ug, Bv, xs1, xe);
}

/* One level of the chunk reductions' PCR (gt_chunk_reduce, gt_warp_reduce):
 * row (a, b, c) with three right-hand sides y0, y1, y2 eliminates its
 * neighbours h rows above (up) and below (dn), each fetched as (a, 1/b, c,
 * y0, y1, y2) by above / below from wherever the reduction keeps them.
 * ok is cleared where the guard fails (as gt_pcr_level's). */
template <typename R, typename FA, typename FB>
__device__ __forceinline__ void gt_pcr_level3(R &a, R &b, R &c, R &y0, R &y1, R &y2, bool up, FA above, bool dn,
                                              FB below, R tol, R big, bool &ok)
{
    ok = ok && fabs(b) >= tol;
    R na = 0, nb = b, nc = 0, n0 = y0, n1 = y1, n2 = y2;
    if (up) {
        R ua, ub, uc, u0, u1, u2;
        above(ua, ub, uc, u0, u1, u2);
        const R al = -a * ub;
        na = al * ua, nb += al * uc, n0 += al * u0, n1 += al * u1, n2 += al * u2;
    }
    if (dn) {
        R da, db, dc, d0, d1, d2;
        below(da, db, dc, d0, d1, d2);
        const R ga = -c * db;
        nc = ga * dc, nb += ga * da, n0 += ga * d0, n1 += ga * d1, n2 += ga * d2;
    }
    a = na, b = nb, c = nc, y0 = n0, y1 = n1, y2 = n2;
    ok = ok & (fabs(a) <= big) & (fabs(b) <= big) & (fabs(c) <= big);
}

/* An inner row's end of a chunk reduction: x_p = g - v F - w E, stored at
 * partition p for the up pass (GI, VI, WI); a failed guard or a NaN flags
 * the system. */
template <typename R>
__device__ __forceinline__ void gt_red_inner(const gt_long_args<R> &G, bool ok, R b, R y0, R y1, R y2, R tol,
                                             int64_t k, int p, R &g, R &v, R &w)
{
    ok = ok && fabs(b) >= tol;
    const R ib = R(1) / b;
    g = y0 * ib, v = y1 * ib, w = y2 * ib;
    if (!ok || g != g || v != v || w != w) G.flag[k] = G.gen;
    const int64_t o = k * G.np1 + p;
    G.GI[o] = g, G.VI[o] = v, G.WI[o] = w;
}

/* A chunk reduction's outer rows, written as rows o (F, group row l == 0)
 * and o + 1 (E, l == Pc - 1) of the next level: the neighbouring inner
 * row's x = g - v F - w E folded in, fetched by next (F's) or prev (E's);
 * with Pc == 1, E is a dummy row x = 0. */
template <typename R, typename FN, typename FP>
__device__ __forceinline__ void gt_red_outer(const gt_long_args<R> &G, int64_t o, int l, int Pc, R ra, R rb, R rc,
                                             R rd, FN next, FP prev)
{
    if (l == 0) { /* row F: x_1 = g - v F - w E folded in */
        R fb = rb, fc = Pc == 2 ? rc : R(0), fd = rd;
        if (Pc >= 3) {
            R g, v, w;
            next(g, v, w);
            fb -= rc * v, fc = -rc * w, fd -= rc * g;
        }
        G.RA[o] = ra, G.RB[o] = fb, G.RC[o] = fc, G.RD[o] = fd;
        if (Pc == 1) G.RA[o + 1] = 0, G.RB[o + 1] = 1, G.RC[o + 1] = 0, G.RD[o + 1] = 0;
    } else if (l == Pc - 1) { /* row E: x_{Pc-2} folded in */
        R ea = Pc == 2 ? ra : R(0), eb = rb, ed = rd;
        if (Pc >= 3) {
            R g, v, w;
            prev(g, v, w);
            ea = -ra * v, eb -= ra * w, ed -= ra * g;
        }
        G.RA[o + 1] = ea, G.RB[o + 1] = eb, G.RC[o + 1] = rc, G.RD[o + 1] = ed;
    }
}

/* The chunk reduction (block-level SPIKE): the Pc reduced rows of a chunk
 * (partition pl: a x_{pl-1} + b x_pl + c x_{pl+1} = d) shrink to two, those
 * of the chunk's first and last partitions' unknowns F = x_0 and E = x_{Pc-1}:
 * the inner rows 1..Pc-2 are solved by parallel cyclic reduction with three
 * right-hand sides, x_pl = g - v F - w E, and folded into the outer two.
 * Why: without it the reduced system has one row per partition (m / 16), and
 * for short problems the kernels that solve it (one block of 4096 rows:
 * 15 us for one system of 2^16 equations, or another level) cost more than
 * the passes over the data; with it, 2 rows per chunk of ~500-1000
 * equations.  Row 2q of the next level is F of chunk q, row 2q + 1 its E;
 * with Pc == 1 (a system's last chunk) E is a dummy row x = 0.  PCR does not
 * pivot: the guard of gt_reduced_pcr (divisors above GT_TOL times the
 * chunk's largest inner entry, bounded growth) sends a failing system to
 * the sequential fallback.  W: 6 entries per reduced slot (S * P + S),
 * 8- or 16-byte aligned (gt_row6_put).  Every thread of the block calls
 * this. */
template <typename R>
__device__ __forceinline__ void gt_chunk_reduce(const gt_long_args<R> &G, bool own, int t, int s, int pl, int Pc,
                                                int P, int64_t k, int p, int64_t q, R ra, R rb, R rc, R rd, R *W,
                                                R *smax)
{
    const bool inner = own && pl >= 1 && pl <= Pc - 2;
    R a = inner && pl > 1 ? ra : R(0), b = inner ? rb : R(1), c = inner && pl < Pc - 2 ? rc : R(0);
    R y0 = rd, y1 = pl == 1 ? ra : R(0), y2 = pl == Pc - 2 ? rc : R(0);
    if (inner) gt_smax(smax + s, fmax(fabs(a), fmax(fabs(b), fabs(c))));
    __syncthreads();
    const R sm = inner ? smax[s] : R(0), tol = R(GT_TOL) * sm, big = sm * R(1 / GT_TOL);
    bool ok = true;
    R *const me = W + 6 * t;
    for (int h = 1; h < P - 2; h <<= 1) {
        if (inner) gt_row6_put<R>(me, a, R(1) / b, c, y0, y1, y2);
        __syncthreads();
        auto row = [&](int d) {
            return [=](R &ua, R &ub, R &uc, R &u0, R &u1, R &u2) { gt_row6_get<R>(me + 6 * d, ua, ub, uc, u0, u1, u2); };
        };
        if (inner)
            gt_pcr_level3<R>(a, b, c, y0, y1, y2, pl - h >= 1, row(-h), pl + h <= Pc - 2, row(h), tol, big, ok);
        __syncthreads();
    }
    R g = 0, v = 0, w = 0;
    if (inner) {
        gt_red_inner<R>(G, ok, b, y0, y1, y2, tol, k, p, g, v, w);
        gt_row6_put<R>(me, g, v, w, R(0), R(0), R(0));
    }
    __syncthreads();
    if (!own) return;
    auto gvw = [&](int d) {
        return [=](R &xg, R &xv, R &xw) {
            R z;
            gt_row4_get<R>(me + 6 * d, xg, xv, xw, z); /* (g, v, w, 0): its first two pairs */
        };
    };
    gt_red_outer<R>(G, k * G.np + 2 * q, pl, Pc, ra, rb, rc, rd, gvw(1), gvw(-1));
}

/* The chunk reduction by warps: as gt_chunk_reduce, but each warp's 32
 * partitions (lane l, F = its first, E = its last) form a group of their
 * own, reduced by PCR in shuffles: 5 levels with no barrier and no shared
 * memory.  The next level's system is 2 rows per 32 partitions (m / 128
 * with 8-row partitions) instead of one per partition, short enough for
 * the bottom tile kernel where the block-wide reduction's barriers would
 * slow a pass that streams from DRAM (2^16 x 64: 28.2 -> 25.4e9/s).  One
 * system per block (G.S == 1), so that a warp's lanes are consecutive
 * partitions of one system.  Every lane of the warp calls this. */
template <typename R>
__device__ __forceinline__ void gt_warp_reduce(const gt_long_args<R> &G, bool own, int l, int Pc, int64_t k, int p,
                                               int64_t q, R ra, R rb, R rc, R rd)
{
    const unsigned full = 0xffffffffu;
    const bool inner = own && l >= 1 && l <= Pc - 2;
    R a = inner && l > 1 ? ra : R(0), b = inner ? rb : R(1), c = inner && l < Pc - 2 ? rc : R(0);
    R y0 = inner ? rd : R(0), y1 = inner && l == 1 ? ra : R(0), y2 = inner && l == Pc - 2 ? rc : R(0);
    R sm = inner ? fmax(fabs(a), fmax(fabs(b), fabs(c))) : R(0);
#pragma unroll
    for (int h = 16; h; h >>= 1) sm = fmax(sm, __shfl_xor_sync(full, sm, h));
    const R tol = R(GT_TOL) * sm, big = sm * R(1 / GT_TOL);
    bool ok = true;
#pragma unroll
    for (int h = 1; h < 32; h <<= 1) {
        const R ib = R(1) / b;
        const R ua = __shfl_up_sync(full, a, h), ub = __shfl_up_sync(full, ib, h), uc = __shfl_up_sync(full, c, h),
                u0 = __shfl_up_sync(full, y0, h), u1 = __shfl_up_sync(full, y1, h), u2 = __shfl_up_sync(full, y2, h);
        const R da = __shfl_down_sync(full, a, h), db = __shfl_down_sync(full, ib, h),
                dc = __shfl_down_sync(full, c, h), d0 = __shfl_down_sync(full, y0, h),
                d1 = __shfl_down_sync(full, y1, h), d2 = __shfl_down_sync(full, y2, h);
        auto above = [&](R &xa, R &xb, R &xc, R &x0, R &x1, R &x2) {
            xa = ua, xb = ub, xc = uc, x0 = u0, x1 = u1, x2 = u2;
        };
        auto below = [&](R &xa, R &xb, R &xc, R &x0, R &x1, R &x2) {
            xa = da, xb = db, xc = dc, x0 = d0, x1 = d1, x2 = d2;
        };
        if (inner) gt_pcr_level3<R>(a, b, c, y0, y1, y2, l - h >= 1, above, l + h <= Pc - 2, below, tol, big, ok);
    }
    R g = 0, v = 0, w = 0;
    if (inner) gt_red_inner<R>(G, ok, b, y0, y1, y2, tol, k, p, g, v, w);
    const R gn = __shfl_down_sync(full, g, 1), vn = __shfl_down_sync(full, v, 1), wn = __shfl_down_sync(full, w, 1);
    const R gp = __shfl_up_sync(full, g, 1), vp = __shfl_up_sync(full, v, 1), wp = __shfl_up_sync(full, w, 1);
    if (!own) return;
    gt_red_outer<R>(
        G, k * G.np + 2 * q, l, Pc, ra, rb, rc, rd, [&](R &xg, R &xv, R &xw) { xg = gn, xv = vn, xw = wn; },
        [&](R &xg, R &xv, R &xw) { xg = gp, xv = vp, xw = wp; });
}

/* The down pass of block (k0, c0) over its chunk, staged in sm (left there
 * intact for the fused kernel's up pass); WG: the reduction may be by warps
 * (G.W < P), compiled out of the fused kernel. */
template <typename R, int METHOD, int LSH, bool WG>
__device__ __forceinline__ void gt_long_down_blk(const gt_long_args<R> &G, unsigned char *sm, int64_t k0, int nsys,
                                                 int c0)
{
    constexpr int L = 1 << LSH;
    const int m = G.A.m, S = G.S, ss = G.ss, P = G.C >> LSH;
    const int rows = m - c0 < G.C + L ? m - c0 : G.C + L; /* with the look-ahead partition */
    R *Lg = (R *)sm, *Dg = Lg + S * ss, *Ug = Dg + S * ss, *Bv = Ug + S * ss;
    const int NS = S * P + S; /* reduced slots: S*P own partitions, then S look-ahead ones */
    R *RA = Bv + S * ss, *RB = RA + NS, *RC = RB + NS, *RD = RC + NS, *GS = RD + NS, *VS = GS + NS, *WS = VS + NS;
    R *smax = WS + NS; /* per system: largest inner entry of the chunk reduction */
    if (threadIdx.x < S) smax[threadIdx.x] = 0; /* ordered by gt_long_load's barrier */
    gt_long_load<R, LSH>(G, Lg, k0, nsys, c0, rows);

    /* threads S*P .. S*P+S-1 sweep the next chunk's first partition of each
     * system (its first interior row is folded into our last reduced row),
     * beside the others rather than after them */
    const int t = threadIdx.x, look = t >= S * P;
    const int s = look ? t - S * P : t / P, pl = look ? P : t - s * P;
    const int p = (c0 >> LSH) + pl; /* partition within the system */
    const bool act = s < nsys && p * L < m;
    const int base = s * ss;
    auto I = [=](int i) { return base + (i - c0) + ((i - c0) >> LSH); };
    bool ok = true;
    if (act) {
        R g[L], v[L], w[L], ra, rb, rc, rd, gs, vs, ws;
        ok = gt_part_reg_any<R, METHOD, L>(m, p, I, Lg, Dg, Ug, Bv, g, v, w, ra, rb, rc, rd, gs, vs, ws);
        RA[t] = ra, RB[t] = rb, RC[t] = rc, RD[t] = rd;
        GS[t] = gs, VS[t] = vs, WS[t] = ws;
    }
    __syncthreads();
    const bool own = act && !look; /* the look-ahead partition is guarded by its own block */
    const int64_t k = k0 + s;
    R ra = 0, rb = 1, rc = 0, rd = 0;
    if (own) {
        const int nx = pl + 1 < P ? t + 1 : S * P + s;
        ra = RA[t], rb = RB[t], rc = RC[t], rd = RD[t];
        if ((p + 1) * L < m) rb -= rc * VS[nx], rd -= rc * GS[nx], rc = -rc * WS[nx];
        if (!ok) G.flag[k] = G.gen;
        if (!G.red) {
            const int64_t o = k * G.np + p;
            G.RA[o] = ra, G.RB[o] = rb, G.RC[o] = rc, G.RD[o] = rd;
        }
    }
    if (G.red) {
        int64_t q;
        int g0, Pc;
        gt_long_group<R, WG>(G, c0, pl, LSH, q, g0, Pc);
        if (WG && G.W < P) {
            gt_warp_reduce<R>(G, own, pl - (g0 - (c0 >> LSH)), Pc, k, p, q, ra, rb, rc, rd);
        } else {
            __syncthreads(); /* the look-ahead's GS/VS/WS are read: the arrays are free again */
            gt_chunk_reduce<R>(G, own, t, s, pl, Pc, P, k, p, q, ra, rb, rc, rd, RA, smax);
        }
    }
}

/* The up pass of block (k0, c0); load: the chunk is read again into sm
 * (else the fused kernel's down pass left it there); WG as for the down
 * pass. */
template <typename R, int METHOD, int LSH, bool WG>
__device__ __forceinline__ void gt_long_up_blk(const gt_long_args<R> &G, unsigned char *sm, int64_t k0, int nsys,
                                               int c0, bool load)
{
    constexpr int L = 1 << LSH;
    const int m = G.A.m, S = G.S, ss = G.ss, P = G.C >> LSH;
    const int rows = m - c0 < G.C ? m - c0 : G.C;
    R *Lg = (R *)sm, *Dg = Lg + S * ss, *Ug = Dg + S * ss, *Bv = Ug + S * ss;
    /* flagged systems: not written back by any block (the fallback below
     * writes them, concurrently); S <= 8 by gt_long_shape_for */
    __shared__ unsigned char skip[8];
    if (threadIdx.x < S)
        skip[threadIdx.x] = threadIdx.x < nsys &&
                            (G.flag[k0 + threadIdx.x] == G.gen || (G.rinfo && G.rinfo[k0 + threadIdx.x] != 0));
    const int t = threadIdx.x, s = t / P, pl = t - s * P;
    const int p = (c0 >> LSH) + pl;
    const int64_t k = k0 + s;
    const bool act = s < nsys && p * L < m;
    /* The partition's two known unknowns come from the reduced solution (in
     * L2), fetched before the chunk is waited for rather than after it, where
     * their latency would add to every block's. */
    R xe = 0, xs1 = 0;
    if (act) {
        if (G.red) { /* the group's F and E, and the inner rows' x from them */
            int64_t q;
            int g0, Pc;
            gt_long_group<R, WG>(G, c0, pl, LSH, q, g0, Pc);
            const R *X = G.RD + k * G.np + 2 * q;
            const R F = X[0], E = X[1];
            auto xr = [&](int l) {
                const int64_t o = k * G.np1 + g0 + l;
                return l == 0 ? F : l == Pc - 1 ? E : G.GI[o] - G.VI[o] * F - G.WI[o] * E;
            };
            const int l = p - g0;
            xe = xr(l);
            xs1 = l > 0 ? xr(l - 1) : q > 0 ? X[-1] : R(0);
        } else {
            xe = G.RD[k * G.np + p], xs1 = p > 0 ? G.RD[k * G.np + p - 1] : R(0);
        }
    }
    if (load) gt_long_load<R, LSH>(G, Lg, k0, nsys, c0, rows);
    else __syncthreads();

    /* flagged systems keep b: the sequential fallback reads it */
    if (act && !skip[s]) {
        const int base = s * ss;
        auto I = [=](int i) { return base + (i - c0) + ((i - c0) >> LSH); };
        gt_part_x_any<R, METHOD, L>(m, p, I, Lg, Dg, Ug, Bv, xs1, xe);
    }
    __syncthreads();
    gt_tile_args<R> A = G.A;
    A.B += c0 * A.bis;
    gt_tile_move<R, false>(Bv, nullptr, A.B, A.bks, A.bis, k0, nsys, rows, LSH, ss, S, skip);
    if (G.info && c0 == 0 && t < nsys) { /* top level, first chunk: info, and the fallback */
        const int64_t kk = k0 + t;
        int32_t inf = 0;
        if (skip[t]) {
            /* every block of this system skipped it (b intact): the sequential
             * elimination, rows of U and y in the scratch planes, then x to B */
            const int64_t plane = (int64_t)m * G.A.batch;
            R *S0 = G.scr + kk * m, *pb = G.A.B + kk * G.A.bks;
            auto ix = [](int i) { return i; };
            inf = gt_seq_onchip<R, METHOD>(m, gt_global_rows(G.A, kk, m), ix, S0, S0 + plane, S0 + 2 * plane,
                                           S0 + 3 * plane);
            for (int i = 0; i < m; i++) pb[i * G.A.bis] = S0[3 * plane + i];
        }
        G.info[kk] = gt_merge(G.merge, G.info[kk], inf);
    }
}

/* One pass of a level: down (chunks in order) or up (chunks backwards, so
 * that its first blocks find the down pass's last chunks still in L2). */
template <typename R, int METHOD, int LSH, bool DOWN>
__global__ void __launch_bounds__(256) gt_long_pass(const gt_long_args<R> G)
{
    extern __shared__ __align__(16) unsigned char gt_lsm[];
    int64_t k0;
    int nsys, c0;
    gt_grid_wait();
    gt_long_block(G, DOWN ? blockIdx.x : gridDim.x - 1 - blockIdx.x, k0, nsys, c0);
    if (DOWN) gt_long_down_blk<R, METHOD, LSH, true>(G, gt_lsm, k0, nsys, c0);
    else gt_long_up_blk<R, METHOD, LSH, true>(G, gt_lsm, k0, nsys, c0, true);
}

/* Rows per lane of the fused kernel's bottoms: the warp bottom takes
 * reduced systems (2 rows per chunk) of up to 32 lanes of GT_WB_L rows, the
 * block bottom up to blockDim.x of them; chunks grow where they have more
 * (gt_long_fused_shape).  4, not 8: their sweeps (three right-hand sides,
 * rows loaded from L2) set the whole kernel's register count, 166-182 per
 * thread with 8 rows (2-3 blocks of 128 threads per SM) and 128 with 4
 * (4 blocks), which the looping blocks need (8-40% faster, looping or
 * not).  16 rows need more than 255 registers (spills). */
#define GT_WB_L 4
#define GT_WB_MAX (32 * GT_WB_L)

/* The bottom of the fused kernel: system k's reduced system (G.np rows at
 * k * G.np in RA..RD, L2-resident) solved by one warp, lane p sweeping its
 * GT_WB_L rows straight from global memory in registers (gt_part_reg, as a
 * tile partition), the 32 partitions' reduced rows by parallel cyclic
 * reduction in shuffles, then x of its rows by a second sweep (gt_part_x),
 * written over RD for the up pass.  Why a warp and not the tile kernel's
 * block: no shared memory (the block's holds its chunk until the up pass)
 * and no barrier; 32 partitions are 5 shuffle levels.  The guard is the
 * tile kernel's; a failure flags the system for the sequential fallback of
 * the up pass.  Every lane of the warp calls it. */
template <typename R, int METHOD>
__device__ __forceinline__ void gt_warp_bottom(const gt_long_args<R> &G, int64_t k)
{
    constexpr int L = GT_WB_L;
    const int n = (int)G.np, lane = threadIdx.x & 31;
    const int P = (n + L - 1) / L; /* active partitions, <= 32 */
    const int64_t o = k * G.np;
    const R *Ak = G.RA + o, *Bk = G.RB + o, *Ck = G.RC + o;
    R *Dk = G.RD + o;
    auto I = [](int i) { return i; };
    const bool act = lane < P;
    R ra = 0, rb = 1, rc = 0, rd = 0, gs = 0, vs = 0, ws = 0;
    bool ok = true;
    if (act) {
        R g[L], v[L], w[L];
        ok = gt_part_reg_any<R, METHOD, L>(n, lane, I, Ak, Bk, Ck, Dk, g, v, w, ra, rb, rc, rd, gs, vs, ws);
    }
    /* fold the next partition's first interior row into ours */
    const unsigned full = 0xffffffffu;
    const R ngs = __shfl_down_sync(full, gs, 1), nvs = __shfl_down_sync(full, vs, 1),
            nws = __shfl_down_sync(full, ws, 1);
    if (act && lane + 1 < P) rb -= rc * nvs, rd -= rc * ngs, rc = -rc * nws;
    if (lane == 0) ra = 0;
    R sm = act ? fmax(fabs(ra), fmax(fabs(rb), fabs(rc))) : R(0);
#pragma unroll
    for (int h = 16; h; h >>= 1) sm = fmax(sm, __shfl_xor_sync(full, sm, h));
    const R tol = R(GT_TOL) * sm, big = sm * R(1 / GT_TOL);
    for (int h = 1; h < P; h <<= 1) {
        const R ib = R(1) / rb;
        const R ma = __shfl_up_sync(full, ra, h), mb = __shfl_up_sync(full, ib, h), mc = __shfl_up_sync(full, rc, h),
                md = __shfl_up_sync(full, rd, h);
        const R pa = __shfl_down_sync(full, ra, h), pb = __shfl_down_sync(full, ib, h),
                pc = __shfl_down_sync(full, rc, h), pd = __shfl_down_sync(full, rd, h);
        auto above = [&](R &a, R &b, R &c, R &d) { a = ma, b = mb, c = mc, d = md; };
        auto below = [&](R &a, R &b, R &c, R &d) { a = pa, b = pb, c = pc, d = pd; };
        if (act) ok = gt_pcr_level<R>(true, ra, rb, rc, rd, lane >= h, above, lane + h < P, below, tol, big) && ok;
    }
    ok = ok && (!act || fabs(rb) >= tol);
    const R xe = rd / rb, xp = __shfl_up_sync(full, xe, 1), xs1 = lane > 0 ? xp : R(0);
    ok = ok && xe == xe;
    /* the interior rows by a second sweep, as gt_block_bottom does */
    if (act) gt_part_x_any<R, METHOD, L>(n, lane, I, Ak, Bk, Ck, Dk, xs1, xe);
    const bool bad = __any_sync(full, !ok);
    if (lane == 0 && bad) G.flag[k] = G.gen;
}

/* The fused kernel's bottom for reduced systems longer than a warp's
 * (GT_WB_MAX < np <= GT_WB_L * blockDim.x): system k solved by the block as
 * the tile kernel solves one (thread p sweeps its GT_WB_L rows, here
 * straight from L2, the partitions' reduced rows by gt_reduced_pcr in
 * shared memory, the same guard), x written over RD.  The chunk the block
 * kept in sm is overwritten: its up pass reads it again.  Every thread of
 * the block calls this. */
template <typename R, int METHOD>
__device__ __forceinline__ void gt_block_bottom(const gt_long_args<R> &G, int64_t k, unsigned char *sm)
{
    constexpr int L = GT_WB_L;
    const int n = (int)G.np, P = (n + L - 1) / L, t = threadIdx.x;
    R *Red = (R *)sm, *smax = Red + 7 * P;
    int *flag = (int *)(smax + 1);
    const int64_t o = k * G.np;
    const R *Ak = G.RA + o, *Bk = G.RB + o, *Ck = G.RC + o;
    R *Dk = G.RD + o;
    auto I = [](int i) { return i; };
    __syncthreads(); /* sm's earlier use is over */
    if (t == 0) smax[0] = 0, flag[0] = 0;
    __syncthreads();
    const bool act = t < P;
    if (act) {
        R g[L], v[L], w[L], ra, rb, rc, rd, gs, vs, ws;
        const bool ok = gt_part_reg_any<R, METHOD, L>(n, t, I, Ak, Bk, Ck, Dk, g, v, w, ra, rb, rc, rd, gs, vs, ws);
        Red[t] = ra, Red[P + t] = rb, Red[2 * P + t] = rc, Red[3 * P + t] = rd;
        Red[4 * P + t] = gs, Red[5 * P + t] = vs, Red[6 * P + t] = ws;
        if (!ok) flag[0] = 1;
    }
    __syncthreads();
    gt_reduced_pcr<R>(act && !flag[0], t, 0, t, P, Red, P, smax, flag, true);
    __syncthreads();
    /* x of the interior rows by a second sweep (gt_part_x, one right-hand
     * side) rather than from g, v, w kept across the PCR: those 24 registers
     * would count for the whole kernel and cost it resident blocks */
    if (act && !flag[0]) {
        const R *X = Red + 5 * P; /* gt_reduced_pcr's x */
        const R xe = X[t], xs1 = t > 0 ? X[t - 1] : R(0);
        gt_part_x_any<R, METHOD, L>(n, t, I, Ak, Bk, Ck, Dk, xs1, xe);
    }
    if (t == 0 && flag[0]) G.flag[k] = G.gen;
}

/* One launch for problems that fit the bottoms above: the down pass with
 * the chunk reduction, a grid barrier, the reduced systems (2 rows per
 * chunk) by one warp or one block each, a grid barrier, and the up pass.
 * Why: the levels solve one system of 2^16 equations in three kernels of
 * 6-15 us each, their fixed latency more than their work, and their up
 * pass reads the matrix a second time.  The grid is what fits
 * the GPU at once (launched cooperatively: the host sizes it, the launch
 * fails rather than hangs); with more chunks than blocks each block loops
 * over chunks b = blockIdx.x + i * gridDim.x, and the up pass walks its
 * chunks backwards: the last one is still in shared memory (unless the
 * block bottom used it), the ones before it most likely still in L2. */
template <typename R, int METHOD, int LSH>
__global__ void __launch_bounds__(256) gt_long_fused(const gt_long_args<R> G)
{
    extern __shared__ __align__(16) unsigned char gt_lsm[];
    const int64_t nb = (G.A.batch + G.S - 1) / G.S * G.nch;
    const int iters = (int)((nb - blockIdx.x + gridDim.x - 1) / gridDim.x);
    int64_t k0;
    int nsys, c0;
    for (int i = 0; i < iters; i++) {
        if (i) __syncthreads();
        gt_long_block(G, blockIdx.x + (int64_t)i * gridDim.x, k0, nsys, c0);
        gt_long_down_blk<R, METHOD, LSH, false>(G, gt_lsm, k0, nsys, c0);
    }
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    grid.sync();
    bool keep = true;
    if (!G.bbot) {
        const int wpb = blockDim.x >> 5;
        for (int64_t k = (int64_t)blockIdx.x * wpb + (threadIdx.x >> 5); k < G.A.batch; k += (int64_t)gridDim.x * wpb)
            gt_warp_bottom<R, METHOD>(G, k);
    } else {
        for (int64_t k = blockIdx.x; k < G.A.batch; k += gridDim.x) gt_block_bottom<R, METHOD>(G, k, gt_lsm);
        keep = blockIdx.x >= G.A.batch;
    }
    grid.sync();
    for (int i = iters - 1; i >= 0; i--) {
        if (i != iters - 1) __syncthreads();
        gt_long_block(G, blockIdx.x + (int64_t)i * gridDim.x, k0, nsys, c0);
        gt_long_up_blk<R, METHOD, LSH, false>(G, gt_lsm, k0, nsys, c0, !(keep && i == iters - 1));
    }
}

#endif
