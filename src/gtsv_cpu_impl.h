/*
 * gtsv_cpu_impl.h -- precision-generic batched tridiagonal solvers on tiles
 * of BSI_W systems, one system per SIMD lane; included by gtsv_cpu.c once
 * per precision between tmpl_on.h and tmpl_off.h.
 *
 * Every statement works on a vreal holding equation i of the BSI_W systems
 * of a tile.  Pivot choices (PARTIAL) and zero tests are compares and
 * selects, never branches, so the lanes never diverge.
 *
 * Elimination step i (i = 0..m-2) combines the current row i (diagonal c0,
 * super-diagonal c1; the row's other entries are already zero) with the
 * original row i+1 (dl[i+1], d[i+1], du[i+1]) and produces
 *   q0, q1      the transformation: THOMAS (multiplier l, 0), PARTIAL
 *               (multiplier l, interchange flag 1/0), GIVENS (cosine, sine);
 *   rinv,u1,u2  row i of U (or R): 1/U(i,i) (1 where U(i,i) = 0), U(i,i+1),
 *               U(i,i+2);
 * and the new current row i+1.  The same step applied to a right-hand side
 * turns (b_i, b_{i+1}) into (y_i, b'_{i+1}); back substitution then gives
 * x_i = (y_i - u1_i x_{i+1} - u2_i x_{i+2}) rinv_i.
 */

/* Unaligned vector of the precision: direct access to interleaved user data. */
typedef real FN(gt_vu) __attribute__((vector_size(BSI_VBYTES), aligned(sizeof(real))));
#define LDV(p) ((vreal)(*(const FN(gt_vu) *)(p)))
#define STV(p, v) (*(FN(gt_vu) *)(p) = (FN(gt_vu))(v))

#define GT_MBITS (sizeof(real) == 8 ? 52 : 23)  /* mantissa bits */
#define GT_EMAXB (sizeof(real) == 8 ? 2046 : 254) /* largest biased exponent of a finite number */
/* GIVENS' unscaled range for a sum of squares (gt_step) */
#define GT_SSLO (sizeof(real) == 8 ? 0x1p-1020 : 0x1p-124f)
#define GT_SSHI (sizeof(real) == 8 ? 0x1p+1020 : 0x1p+124f)

static inline vreal FN(gt_splat)(real x) { return FN(bsi_set1)(x); }
static inline vmask FN(gt_isel)(vmask m, vmask a, vmask b) { return (m & a) | (~m & b); }

/* 1/sqrt(x) to about the precision's last bit, for x a positive normal
 * number: the estimate (simd.h) refined by Newton steps, each doubling the
 * correct bits less one.  Not one quartic step y (1 + e/2 + 3e^2/8 +
 * 5e^3/16), e = 1 - x y^2, in place of double's two Newton steps: it saves
 * 2 operations but no measurable time (a few percent either way, by
 * layout), so the simpler Newton steps stay. */
static inline __attribute__((always_inline)) vreal FN(gt_rsqrt)(vreal x)
{
    const vreal one = FN(gt_splat)(1);
    vreal y = FN(bsi_rsqrt)(x);
    for (int b = BSI_RSQRT_BITS; b < GT_MBITS + 1; b = 2 * b - 1) {
        const vreal t = x * y;
        y += (y * (real)0.5) * (one - t * y);
    }
    return y;
}

/* One elimination step (see the top of the file). */
static inline __attribute__((always_inline)) void FN(gt_step)(const int method, vreal *c0, vreal *c1, vreal a,
                                                             vreal nd, vreal nu, vreal *q0, vreal *q1, vreal *rinv,
                                                             vreal *u1, vreal *u2, vmask *zero)
{
    const vreal one = FN(gt_splat)(1), zro = FN(gt_splat)(0);
    if (method == BSOLVE_GTSV_THOMAS) {
        const vmask z = FN(bsi_eq)(*c0, zro);
        const vreal r = one / FN(bsi_sel)(z, one, *c0);
        const vreal l = a * r;
        *q0 = l;
        *q1 = zro;
        *rinv = r;
        *u1 = *c1;
        *u2 = zro;
        *zero = z;
        *c0 = nd - l * *c1;
        *c1 = nu;
    } else if (method == BSOLVE_GTSV_PARTIAL) {
        /* As LAPACK dgttrf: no interchange when |d| >= |dl|. */
        const vmask sw = FN(bsi_gt)(FN(bsi_abs)(a), FN(bsi_abs)(*c0));
        const vreal piv = FN(bsi_sel)(sw, a, *c0), oth = FN(bsi_sel)(sw, *c0, a);
        const vmask z = FN(bsi_eq)(piv, zro);
        const vreal r = one / FN(bsi_sel)(z, one, piv);
        const vreal l = oth * r; /* 0 when both are zero */
        const vreal uu1 = FN(bsi_sel)(sw, nd, *c1);
        *q0 = l;
        *q1 = FN(bsi_sel)(sw, one, zro);
        *rinv = r;
        *u1 = uu1;
        *u2 = FN(bsi_sel)(sw, nu, zro);
        *zero = z;
        *c0 = FN(bsi_sel)(sw, *c1, nd) - l * uu1;
        *c1 = FN(bsi_sel)(sw, zro - l * nu, nu);
    } else {
        /* Givens rotation zeroing a against f = c0, scaled by an exact power
         * of two 2^-e (u = max(|f|, |a|) in [2^e, 2^(e+1))) so that neither
         * the squares overflow nor small entries flush to zero (dlartg).
         * Scaled, the sum of squares lies in [2^-104, 32] (u*2^-e in [1, 2),
         * or >= 2^-52 for subnormal u, < 4 for u >= 2^1023) when finite, so
         * its reciprocal square root 1/d, all that c, s and 1/R(i,i) need,
         * comes from an estimate and Newton steps (each doubles the correct
         * bits, less one) in multiply-adds instead of a square root and a
         * division that wait for the divider (GIVENS m = 8..32: 3..10%
         * faster).  Non-finite lanes give NaN or 0 here;
         * the probe marks them failed either way. */
        const vreal f = *c0;
        /* Unscaled where every lane's sum of squares is a normal number well
         * inside the range (GT_SSLO..GT_SSHI): then no square overflowed, and
         * one that underflowed lay below the other's last bit.  Bit for bit
         * the scaled result (2^-2e is an even power of two, which the
         * estimate and the Newton steps carry exactly), without the exponent
         * arithmetic: ~10 of the step's ~45 operations. */
        const vreal ss0 = f * f + a * a;
        vreal c, s, r;
        vmask z;
        if (FN(bsi_all)(FN(bsi_ge)(ss0, FN(gt_splat)(GT_SSLO)) & FN(bsi_le)(ss0, FN(gt_splat)(GT_SSHI)))) {
            const vreal idd = FN(gt_rsqrt)(ss0);
            c = f * idd, s = a * idd, r = idd;
            z = FN(bsi_ne)(zro, zro);
        } else {
            const vreal u =
                FN(bsi_sel)(FN(bsi_gt)(FN(bsi_abs)(f), FN(bsi_abs)(a)), FN(bsi_abs)(f), FN(bsi_abs)(a));
            vmask eb = (vmask)u >> GT_MBITS;
            const vmask lo = (vmask){0} + 1, hi = (vmask){0} + (GT_EMAXB - 1);
            eb = FN(gt_isel)(FN(bsi_ilt)(eb, lo), lo, eb);
            eb = FN(gt_isel)(FN(bsi_igt)(eb, hi), hi, eb);
            const vreal sc = (vreal)(((vmask){0} + GT_EMAXB - eb) << GT_MBITS); /* 2^-e */
            const vreal fs = f * sc, gs = a * sc;
            const vreal ss = fs * fs + gs * gs;
            z = FN(bsi_eq)(ss, zro);
            const vreal idd = FN(gt_rsqrt)(FN(bsi_sel)(z, one, ss));
            c = FN(bsi_sel)(z, one, fs * idd), s = gs * idd, r = FN(bsi_sel)(z, one, idd * sc);
        }
        *q0 = c;
        *q1 = s;
        *rinv = r;
        *u1 = c * *c1 + s * nd;
        *u2 = s * nu;
        *zero = z;
        *c0 = c * nd - s * *c1;
        *c1 = c * nu;
    }
}

/* The step's transformation applied to one right-hand side: (bc, nb) is
 * (b_i, b_{i+1}) on entry; returns y_i, leaves b'_{i+1} in *nb. */
static inline __attribute__((always_inline)) vreal FN(gt_apply)(const int method, vreal q0, vreal q1, vreal bc,
                                                                vreal *nb)
{
    if (method == BSOLVE_GTSV_THOMAS) {
        *nb -= q0 * bc;
        return bc;
    }
    if (method == BSOLVE_GTSV_PARTIAL) {
        const vmask sw = FN(bsi_ne)(q1, FN(gt_splat)(0));
        const vreal y = FN(bsi_sel)(sw, *nb, bc);
        *nb = FN(bsi_sel)(sw, bc, *nb) - q0 * y;
        return y;
    }
    const vreal y = q0 * bc + q1 * *nb;
    *nb = q0 * *nb - q1 * bc;
    return y;
}

/* A super-tile is BSI_GT_NT tiles of BSI_W lanes swept together: their
 * elimination chains are independent, which hides the latency of the
 * division (THOMAS/PARTIAL) or square root (GIVENS) that each step waits
 * for.  Equation i of system (lane) l of a super-tile is at [i*WW + l]. */
/* Loops over the tiles of a super-tile are unrolled so that each tile's
 * carried row (c0, c1), info and probe stay in registers: gcc leaves them
 * rolled (NT = 4 with AVX-512) with the carried vectors on the stack, about
 * 1.4x slower in cache. */
#if BSI_AVX512
#define GT_UNROLL _Pragma("GCC unroll 8")
#else
#define GT_UNROLL /* AVX2: unrolled, 8 tiles' vectors spill out of the 16 ymm registers */
#endif
#define NT BSI_GT_NT
#define WW (BSI_W * BSI_GT_NT)
/* Interleaved rows are prefetched GT_IL_PFD super-tiles ahead into L2
 * (prefetcht1).  One ahead into L1 crowds 32 streams' lines into a 32 KiB
 * L1 and stays far below memory bandwidth: two ahead into L2 is about 1.5x
 * faster at m = 8 and 1.1x at m = 64.  Three or four ahead, or
 * prefetchnta, are slower. */
#ifndef GT_IL_PFD
#define GT_IL_PFD 2
#endif
#ifndef GT_IL_LOC
#define GT_IL_LOC 2
#endif

/* Lanes of the super-tile after the one at k0 (0..WW), for prefetching. */
#define GT_NEXT(batch, k0) ((batch) - (k0) - WW >= WW ? WW : (batch) - (k0) - WW > 0 ? (int)((batch) - (k0) - WW) : 0)

/* Contiguous data of the next super-tile to prefetch during this one's
 * sweeps: n regions of `lines` cache lines each, spread over the `steps`
 * steps of the forward and backward sweeps, forward steps weighted by
 * GT_PF_WF (line k of every region is fetched at about step
 * k*steps/lines).  Without it the packs of contiguous systems stall on
 * their loads, one after the other with the sweep: a super-tile's systems
 * fill a few 4 KiB pages per array, and the hardware prefetcher, which
 * stops at page boundaries, starts cold on each (at m = 16 the packs take
 * twice the sweep's time).  Spread over the sweeps, the loads overlap their
 * arithmetic: about 1.3x at m = 8 and 16, neutral at m = 32 and 64.  A
 * burst of prefetches in the pack itself gains less: the prefetches wait
 * for fill buffers. */
#ifndef BSI_GT_PF
#define BSI_GT_PF
/* A forward step counts GT_PF_WF back-substitution steps in the schedule,
 * about its share of the time: GIVENS' forward step (a rotation, ~45
 * operations a tile) against three multiply-adds back.  Counted as one,
 * half of GIVENS' lines would go out in the short back substitution, late
 * and in a burst (weighted, contiguous GIVENS out of cache gains up to
 * 10%). */
#define GT_PF_WF(method) ((method) == BSOLVE_GTSV_GIVENS ? 4 : (method) == BSOLVE_GTSV_PARTIAL ? 2 : 1)
#ifndef GT_PF_LOC
#define GT_PF_LOC 2 /* prefetcht1: into L2 (a super-tile of m = 64 is 64 KiB per 4 arrays) */
#endif
#define GT_NPF 8
typedef struct {
    const char *p[GT_NPF];
    int n;
    int64_t lines, steps; /* steps: of the forward and backward sweeps together */
    uint64_t rate;        /* lines per step, 32.32 fixed point, rounded up */
} bsi_gt_pf;

/* No prefetching when the next super-tile's data exceed 128 KiB: it would
 * evict the current one's from L2 (up to 20% slower at m = 1024); up to
 * m = 128 (the 128 KiB of 4 arrays of 32 double lanes) it gains. */
static inline void bsi_gt_pf_cap(bsi_gt_pf *pf)
{
    if (pf->n * pf->lines * 64 > 128 * 1024) pf->n = 0;
    const uint64_t st = pf->steps > 0 ? (uint64_t)pf->steps : 1;
    pf->rate = pf->n ? (((uint64_t)pf->lines << 32) + st - 1) / st : 0; /* lines <= 2048 here */
}

/* Step s of the sweeps: the lines [s*rate, (s+1)*rate).  Computed from s
 * rather than counted: a running count, updated at every tile of every
 * step, lives on the stack in the GIVENS sweeps, where the vectors take
 * every register, and its read-modify-write chain makes contiguous GIVENS
 * up to a third slower in some builds. */
/* l1: into L1 (prefetcht0) rather than GT_PF_LOC, for GIVENS only: its
 * long forward steps work in registers, so lines fetched into L1 meanwhile
 * evict nothing they need (15..20% faster at m = 8..64 contiguous).  THOMAS, whose sweeps
 * are shorter, loses up to 10% (its working set evicted), PARTIAL gains
 * nothing, and interleaved prefetches into L1 are 10..35% slower for every
 * method. */
static inline __attribute__((always_inline)) void bsi_gt_pf_step(const bsi_gt_pf *pf, const int64_t s, const int64_t s1,
                                                                  const int l1)
{
    if (!pf || !pf->n) return;
    const int64_t k0 = (int64_t)(((uint64_t)s * pf->rate) >> 32), k2 = (int64_t)(((uint64_t)s1 * pf->rate) >> 32);
    const int64_t k1 = k2 < pf->lines ? k2 : pf->lines;
    for (int64_t k = k0; k < k1; k++)
        for (int q = 0; q < pf->n; q++) {
            if (l1)
                __builtin_prefetch(pf->p[q] + 64 * k, 0, 3);
            else
                __builtin_prefetch(pf->p[q] + 64 * k, 0, GT_PF_LOC);
        }
}
#endif

/* Adds the `cols` columns of contiguous data (l) of lanes [k0, k0 + next) to
 * *pf when they are dense (stride < 2m: gaps would cost bandwidth). */
static inline void FN(gt_pf_add)(bsi_gt_pf *pf, const real *base, bsolve_tlayout l, int64_t m, int cols, int64_t k0,
                                 int next)
{
    if (l.kind != BSOLVE_TCONTIGUOUS || next <= 0 || l.stride >= 2 * m) return;
    const int64_t bytes = ((next - 1) * l.stride + m) * (int64_t)sizeof(real);
    for (int j = 0; j < cols && pf->n < GT_NPF; j++) {
        pf->p[pf->n++] = (const char *)(base + k0 * l.stride + (int64_t)j * l.ld);
        if (bytes / 64 + 1 > pf->lines) pf->lines = bytes / 64 + 1;
    }
}

/* Factors one super-tile (diagonals at dl/d/du, equation i at +i*es) and,
 * when B is given, transforms its nrhs columns (equation i of column j at
 * B + i*bes + j*bcs) into y on the way.  Writes the five factor planes into
 * F (plane q at F + q*m*WW) when F is not NULL; otherwise only rinv/u1/u2
 * into the three planes of R, which may be the diagonals' own planes (es =
 * WW, R = dl, R + m*WW = d, R + 2*m*WW = du): row i of R is written at step
 * i, after step i-1 (row 0: the start) read row i of the diagonals, so R is
 * not restrict.  info[t] receives the per-lane info (0 or j > 0); probe[t]
 * accumulates x*0 over every entry read (NaN iff one is not finite). */
static inline __attribute__((always_inline)) void FN(gt_forward)(const int method, const int il, const int64_t m,
                                                                 const real *dl,
                                                                 const real *d, const real *du, const int64_t es,
                                                                 real *restrict F, real *R, real *B,
                                                                 const int64_t bes, const int64_t bcs, const int nrhs,
                                                                 bsi_gt_pf *pf, vreal *info, vreal *probe)
{

    const vreal zro = FN(gt_splat)(0);
    const int64_t mw = m * WW;
    real *P0 = F ? F : NULL, *P1 = F ? F + mw : NULL;
    real *Pr = F ? F + 2 * mw : R, *Pu1 = F ? F + 3 * mw : R + mw, *Pu2 = F ? F + 4 * mw : R + 2 * mw;
    /* il: 1 where the diagonals and B are known to be read in place
     * (interleaved; es, bes != WW), 0 where both are known packed, -1 where
     * that is tested here.  Known, the interleaved sweep carries no flags:
     * sharing the tested sweep with the last, packed super-tile, it keeps two
     * flags and a pointer on the stack and tests them at every tile, 10..20%
     * slower for interleaved PARTIAL and GIVENS at m = 32, 64. */
    const int ild = il > 0 || (il < 0 && es != WW), ilb = B && (il > 0 || (il < 0 && bes != WW));
    /* One packed right-hand side: b'_i is carried in bc from step to step
     * instead of being stored at step i-1 and loaded back at step i, one
     * store of the sweep's five per equation fewer (4..5% in cache).  Not
     * for B read in place (interleaved): there it costs 5..8% at m = 8 out
     * of cache, for all three methods, though it gains 7..17% for PARTIAL
     * and GIVENS at m >= 16 in cache. */
    const int carry = B && nrhs == 1 && !ilb;
    vreal inf[NT], pr[NT], c0[NT], c1[NT], bc[NT];
    for (int t = 0; t < NT; t++) {
        inf[t] = zro;
        c0[t] = LDV(d + t * BSI_W);
        c1[t] = m > 1 ? LDV(du + t * BSI_W) : zro;
        pr[t] = c0[t] * 0 + c1[t] * 0;
        bc[t] = zro;
        if (carry) bc[t] = LDV(B + t * BSI_W);
        if (B)
            for (int j = 0; j < nrhs; j++) pr[t] += LDV(B + j * bcs + t * BSI_W) * 0;
    }
    for (int64_t i = 0; i + 1 < m; i++) {
        GT_UNROLL
        for (int t = 0; t < NT; t++) {
            const int64_t o = (i + 1) * es + t * BSI_W;
            if (t == NT / 2) /* once a step, amid the tiles' arithmetic */
                bsi_gt_pf_step(pf, i * GT_PF_WF(method), (i + 1) * GT_PF_WF(method), method == BSOLVE_GTSV_GIVENS);
            if (ild) {
                /* direct interleaved rows: one stream per row and array, too
                 * many for the hardware prefetcher; fetch the next
                 * super-tile's lines a whole sweep ahead */
                __builtin_prefetch(dl + o + GT_IL_PFD * WW, 0, GT_IL_LOC);
                __builtin_prefetch(d + o + GT_IL_PFD * WW, 0, GT_IL_LOC);
                __builtin_prefetch(du + o + GT_IL_PFD * WW, 0, GT_IL_LOC);
            }
            /* B too without write intent: prefetchw of its rows makes every
             * interleaved case 10..20% slower at m >= 16 */
            if (ilb)
                for (int j = 0; j < nrhs; j++)
                    __builtin_prefetch(B + j * bcs + (i + 1) * bes + t * BSI_W + GT_IL_PFD * WW, 0, GT_IL_LOC);
            const vreal a = LDV(dl + o), nd = LDV(d + o);
            const vreal nu = i + 2 < m ? LDV(du + o) : zro;
            pr[t] += a * 0 + nd * 0 + nu * 0;
            vreal q0, q1, r, u1, u2;
            vmask z;
            FN(gt_step)(method, &c0[t], &c1[t], a, nd, nu, &q0, &q1, &r, &u1, &u2, &z);
            inf[t] = FN(bsi_sel)(z & FN(bsi_eq)(inf[t], zro), FN(gt_splat)((real)(i + 1)), inf[t]);
            const int64_t w = i * WW + t * BSI_W;
            if (F) {
                *(vreal *)(P0 + w) = q0;
                *(vreal *)(P1 + w) = q1;
            }
            *(vreal *)(Pr + w) = r;
            *(vreal *)(Pu1 + w) = u1;
            *(vreal *)(Pu2 + w) = u2;
            if (carry) {
                real *bj = B + i * bes + t * BSI_W;
                vreal nb = LDV(bj + bes);
                pr[t] += nb * 0;
                STV(bj, FN(gt_apply)(method, q0, q1, bc[t], &nb));
                bc[t] = nb;
            } else if (B)
                for (int j = 0; j < nrhs; j++) {
                    real *bj = B + j * bcs + i * bes + t * BSI_W;
                    vreal nb = LDV(bj + bes);
                    pr[t] += nb * 0;
                    const vreal y = FN(gt_apply)(method, q0, q1, LDV(bj), &nb);
                    STV(bj, y);
                    STV(bj + bes, nb);
                }
        }
    }
    const vreal one = FN(gt_splat)(1);
    for (int t = 0; t < NT; t++) {
        const vmask z = FN(bsi_eq)(c0[t], zro);
        const int64_t w = (m - 1) * WW + t * BSI_W;
        info[t] = FN(bsi_sel)(z & FN(bsi_eq)(inf[t], zro), FN(gt_splat)((real)m), inf[t]);
        if (carry) STV(B + (m - 1) * bes + t * BSI_W, bc[t]);
        *(vreal *)(Pr + w) = one / FN(bsi_sel)(z, one, c0[t]);
        *(vreal *)(Pu1 + w) = zro;
        *(vreal *)(Pu2 + w) = zro;
        if (F) {
            *(vreal *)(P0 + w) = zro;
            *(vreal *)(P1 + w) = zro;
        }
        probe[t] += pr[t];
    }
}

/* Applies the stored transformations (planes q0, q1 of F) to B. */
static inline __attribute__((always_inline)) void FN(gt_apply_all)(const int method, const int64_t m,
                                                                   const real *restrict F, real *B,
                                                                   const int64_t bes, const int64_t bcs,
                                                                   const int nrhs, vreal *probe)
{
    const int64_t mw = m * WW;
    for (int j = 0; j < nrhs; j++) {
        real *bj = B + j * bcs;
        vreal bc[NT];
        for (int t = 0; t < NT; t++) {
            bc[t] = LDV(bj + t * BSI_W);
            probe[t] += bc[t] * 0;
        }
        for (int64_t i = 0; i + 1 < m; i++)
            GT_UNROLL
            for (int t = 0; t < NT; t++) {
                vreal nb = LDV(bj + (i + 1) * bes + t * BSI_W);
                probe[t] += nb * 0;
                const int64_t w = i * WW + t * BSI_W;
                const vreal y = FN(gt_apply)(method, *(const vreal *)(F + w), *(const vreal *)(F + mw + w), bc[t], &nb);
                STV(bj + i * bes + t * BSI_W, y);
                bc[t] = nb;
            }
        for (int t = 0; t < NT; t++) STV(bj + (m - 1) * bes + t * BSI_W, bc[t]);
    }
}

/* Contiguous systems are moved in TW x TW blocks transposed in registers
 * (TW rows of TW equations <-> TW tile rows of TW lanes): log2(TW) rounds of
 * two-input shuffles, each swapping the off-diagonal halves of ever larger
 * sub-blocks: 2*TW vector moves and TW*log2(TW) shuffles per block (one
 * round fewer with AVX-512, see gt_transpose) instead of 2*TW*TW scalar
 * moves.  TW is what one register holds (64 bytes with AVX-512, 32 with
 * AVX, 16 otherwise): GCC expands a shuffle wider than the target's
 * registers lane by lane.
 * Compilers without __builtin_shuffle keep the scalar moves. */
#if defined(__GNUC__) && !defined(__clang__)
#define GT_TRANSPOSE 1
#if defined(__AVX512F__) && defined(__AVX512DQ__)
#define GT_LSPLIT 1 /* the last round by the loads (see gt_transpose) */
#define GT_TW (64 / (int)sizeof(real))
typedef real FN(gt_vt) __attribute__((vector_size(64), aligned(sizeof(real))));
#else
/* AVX2 (4 x 4 doubles): splitting the last of 2 rounds (by the stores)
 * costs 8..10% (m = 64 contiguous) */
#define GT_LSPLIT 0
#if defined(__AVX__)
#define GT_TWB 32
#else
#define GT_TWB 16
#endif
#define GT_TW (GT_TWB / (int)sizeof(real))
typedef real FN(gt_vt) __attribute__((vector_size(GT_TWB), aligned(sizeof(real))));
#endif
typedef __typeof__(((vmask){0})[0]) FN(gt_it);
typedef FN(gt_it) FN(gt_mt) __attribute__((vector_size(sizeof(FN(gt_vt)))));

#if GT_LSPLIT
/* One register from the low halves of two places (hi = 1: from their high
 * halves): the first loaded, the second merged in by a masked broadcast
 * load, which takes a load port and a blend instead of a shuffle. */
static inline __attribute__((always_inline)) FN(gt_vt) FN(gt_ld2)(const real *a, const real *b, const int hi)
{
    FN(gt_vt) v;
    if (sizeof(real) == 8) {
        const double *p = (const double *)a + 4 * hi, *q = (const double *)b + 4 * hi;
        const __m512d x = _mm512_mask_broadcast_f64x4(_mm512_castpd256_pd512(_mm256_loadu_pd(p)), 0xF0, _mm256_loadu_pd(q));
        memcpy(&v, &x, sizeof v);
    } else {
        const float *p = (const float *)a + 8 * hi, *q = (const float *)b + 8 * hi;
        const __m512 x = _mm512_mask_broadcast_f32x8(_mm512_castps256_ps512(_mm256_loadu_ps(p)), 0xFF00, _mm256_loadu_ps(q));
        memcpy(&v, &x, sizeof v);
    }
    return v;
}
#endif

/* Block (row k, entry e) = s[k*ss + e] goes to d[e*ds + k].  With
 * GT_LSPLIT the last round, which exchanges whole register halves, is done
 * by the loads (gt_ld2): TW*(log2(TW) - 1) shuffles per block instead of
 * TW*log2(TW).  Against shuffling every round, or doing the last one by
 * half-register stores, the pack is 5..9% faster at m = 8 and 16 and the
 * same at m = 32 and 64. */
static inline __attribute__((always_inline)) void FN(gt_transpose)(const real *restrict s, const int64_t ss,
                                                                   real *restrict d, const int64_t ds)
{
    static const FN(gt_it) iota[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    FN(gt_mt) io;
    memcpy(&io, iota, sizeof io);
    FN(gt_vt) r[GT_TW];
#if GT_LSPLIT
    for (int k = 0; k < GT_TW / 2; k++) {
        r[k] = FN(gt_ld2)(s + k * ss, s + (k + GT_TW / 2) * ss, 0);
        r[k + GT_TW / 2] = FN(gt_ld2)(s + k * ss, s + (k + GT_TW / 2) * ss, 1);
    }
#else
    for (int k = 0; k < GT_TW; k++) r[k] = *(const FN(gt_vt) *)(s + k * ss);
#endif
    for (int h = 1; h < (GT_LSPLIT ? GT_TW / 2 : GT_TW); h *= 2) {
        /* rows k and k + h (k & h = 0) exchange their entries e & h != 0 and e & h = 0 */
        const FN(gt_mt) lo = io + (((io & h) != 0) & (GT_TW - h)), hi = lo + h;
        for (int k = 0; k < GT_TW; k++)
            if (!(k & h)) {
                const FN(gt_vt) a = r[k], b = r[k + h];
                r[k] = __builtin_shuffle(a, b, lo);
                r[k + h] = __builtin_shuffle(a, b, hi);
            }
    }
    for (int k = 0; k < GT_TW; k++) *(FN(gt_vt) *)(d + k * ds) = r[k];
}
#else
#define GT_TRANSPOSE 0
#endif

/* Back substitution with planes rinv/u1/u2 at R, R + m*WW, R + 2*m*WW;
 * lanes where `fail` is set receive NaN.  With ub (a full super-tile of
 * contiguous systems ubs apart, columns ubld apart; B packed, m % TW = 0),
 * every TW equations of the solution go out to ub as soon as they are
 * final, from L1, instead of in a separate unpack after the sweep. */
static inline __attribute__((always_inline)) void FN(gt_back)(const int method, const int64_t m,
                                                              const real *restrict R, real *B,
                                                              const int64_t bes, const int64_t bcs, const int nrhs,
                                                              const vmask *fail, bsi_gt_pf *pf, real *ub,
                                                              const int64_t ubs, const int64_t ubld)
{
    const int64_t mw = m * WW;
    const vreal nan = FN(gt_splat)((real)NAN);
    for (int j = 0; j < nrhs; j++) {
        real *bj = B + j * bcs;
        vreal x1[NT], x2[NT];
        for (int t = 0; t < NT; t++) x1[t] = x2[t] = FN(gt_splat)(0);
        for (int64_t i = m - 1; i >= 0; i--) {
            GT_UNROLL
            for (int t = 0; t < NT; t++) {
                const real *q = R + i * WW + t * BSI_W;
                real *bo = bj + i * bes + t * BSI_W;
                if (t == NT / 2) {
                    const int64_t s0 = (m - 1) * GT_PF_WF(method) + j * m + (m - 1 - i);
                    bsi_gt_pf_step(pf, s0, s0 + 1, method == BSOLVE_GTSV_GIVENS);
                }
                const vreal x = (LDV(bo) - *(const vreal *)(q + mw) * x1[t] - *(const vreal *)(q + 2 * mw) * x2[t]) *
                                *(const vreal *)q;
                STV(bo, FN(bsi_sel)(fail[t], nan, x));
                x2[t] = x1[t];
                x1[t] = x;
            }
#if GT_TRANSPOSE
            if (ub && i % GT_TW == 0)
                for (int l0 = 0; l0 < WW; l0 += GT_TW)
                    FN(gt_transpose)(bj + i * WW + l0, WW, ub + j * ubld + l0 * ubs + i, ubs);
#endif
        }
    }
}

/* Final info of a tile from the elimination info and the probe. */
static inline vreal FN(gt_final_info)(vreal info, vreal probe)
{
    return FN(bsi_sel)(FN(bsi_isnan)(probe), FN(gt_splat)(-1), info);
}

/* ---- packing: WW systems of `cols` m-vectors <-> one super-tile ----------- */


/* Lanes [0, count) from contiguous m-vectors `stride` apart into a
 * super-tile plane (pack) or back (!pack).  Lane ln, equation i is at
 * from[ln*fl + i*fe] and to[ln*tl + i*te].  Only the last m % TW equations
 * and count % TW lanes move one by one. */
static inline __attribute__((always_inline)) void FN(gt_move_ct)(const int pack, const real *restrict from,
                                                                 real *restrict to, const int64_t stride,
                                                                 const int64_t m, const int count)
{
    const int64_t fl = pack ? stride : 1, fe = pack ? 1 : WW, tl = pack ? 1 : stride, te = pack ? WW : 1;
    int l0 = 0;
#if GT_TRANSPOSE
    const int64_t me = m - m % GT_TW;
    for (; l0 + GT_TW <= count; l0 += GT_TW) {
        for (int64_t i = 0; i < me; i += GT_TW)
            FN(gt_transpose)(from + l0 * fl + i * fe, pack ? stride : WW, to + l0 * tl + i * te, pack ? WW : stride);
        for (int64_t i = me; i < m; i++)
            for (int ln = l0; ln < l0 + GT_TW; ln++) to[ln * tl + i * te] = from[ln * fl + i * fe];
    }
#endif
    for (int ln = l0; ln < count; ln++)
        for (int64_t i = 0; i < m; i++) to[ln * tl + i * te] = from[ln * fl + i * fe];
}

static void FN(gt_pack)(real *restrict t, const real *restrict src, bsolve_tlayout l, int64_t m, int cols, int64_t k0,
                        int count, real pad)
{
    for (int j = 0; j < cols; j++) {
        real *tj = t + (int64_t)j * m * WW;
        if (l.kind == BSOLVE_TCONTIGUOUS) {
            FN(gt_move_ct)(1, src + k0 * l.stride + (int64_t)j * l.ld, tj, l.stride, m, count);
        } else {
            for (int64_t i = 0; i < m; i++) {
                const real *s = src + ((int64_t)j * m + i) * l.ld + k0;
                for (int ln = 0; ln < count; ln++) tj[i * WW + ln] = s[ln];
            }
        }
        for (int64_t i = 0; i < m; i++)
            for (int ln = count; ln < WW; ln++) tj[i * WW + ln] = pad;
    }
}

static void FN(gt_unpack)(const real *restrict t, real *restrict dst, bsolve_tlayout l, int64_t m, int cols,
                          int64_t k0, int count)
{
    for (int j = 0; j < cols; j++) {
        const real *tj = t + (int64_t)j * m * WW;
        if (l.kind == BSOLVE_TCONTIGUOUS) {
            FN(gt_move_ct)(0, tj, dst + k0 * l.stride + (int64_t)j * l.ld, l.stride, m, count);
        } else {
            for (int64_t i = 0; i < m; i++) {
                real *s = dst + ((int64_t)j * m + i) * l.ld + k0;
                for (int ln = 0; ln < count; ln++) s[ln] = tj[i * WW + ln];
            }
        }
    }
}

#if GT_TRANSPOSE
/* A full super-tile of contiguous systems with m % TW = 0 (the common case):
 * the diagonals (systems ts apart) and the nrhs right-hand sides (bs apart,
 * columns bld apart) into the planes pk (dl, d, du) and pb, inlined into
 * the tile.  gt_pack, called once per array with m, count and the layout
 * unknown, spent a good part of a super-tile of m = 8 setting up its loops
 * (~150 instructions per call against 4 transposes of ~45) and rebuilt the
 * shuffles' index vectors each call. */
static inline __attribute__((always_inline)) void FN(gt_pack_full)(const real *dl, const real *d, const real *du,
                                                                   const int64_t ts, const real *B, const int64_t bs,
                                                                   const int64_t bld, const int nrhs, const int64_t m,
                                                                   const int64_t k0, real *restrict pk,
                                                                   real *restrict pb)
{
    const int64_t mw = m * WW;
    const real *src[3] = {dl + k0 * ts, d + k0 * ts, du + k0 * ts};
    for (int q = 0; q < 3 + nrhs; q++) {
        const real *a = q < 3 ? src[q] : B + k0 * bs + (q - 3) * bld;
        const int64_t st = q < 3 ? ts : bs;
        real *to = q < 3 ? pk + q * mw : pb + (q - 3) * mw;
        for (int l0 = 0; l0 < WW; l0 += GT_TW)
            for (int64_t i = 0; i < m; i += GT_TW) FN(gt_transpose)(a + l0 * st + i, st, to + i * WW + l0, WW);
    }
}
#endif

/* A super-tile's right-hand sides: B itself where they are interleaved and
 * the tile is full (row i of column j at *bb + i*bes + j*bcs), else packed
 * into pb; true for the former (nothing to unpack). */
static int FN(gt_bview)(real *B, bsolve_tlayout lb, int64_t m, int nrhs, int64_t k0, int count, real *pb,
                        real **bb, int64_t *bes, int64_t *bcs)
{
    if (lb.kind == BSOLVE_TINTERLEAVED && count == WW) {
        *bb = B + k0, *bes = lb.ld, *bcs = m * lb.ld;
        return 1;
    }
    FN(gt_pack)(pb, B, lb, m, nrhs, k0, count, 0);
    *bb = pb, *bes = WW, *bcs = m * WW;
    return 0;
}

/* A super-tile's diagonals: direct pointers into interleaved user data for a
 * full super-tile, otherwise packed into `pk` (3 planes of m*WW). */
static void FN(gt_diags)(const real *dl, const real *d, const real *du, bsolve_tlayout lt, int64_t m, int64_t k0,
                         int count, real *pk, const real **pdl, const real **pd, const real **pdu, int64_t *es)
{
    if (lt.kind == BSOLVE_TINTERLEAVED && count == WW) {
        *pdl = dl + k0;
        *pd = d + k0;
        *pdu = du + k0;
        *es = lt.ld;
        return;
    }
    const int64_t mw = m * WW;
    FN(gt_pack)(pk, dl, lt, m, 1, k0, count, 0);
    FN(gt_pack)(pk + mw, d, lt, m, 1, k0, count, 1);
    FN(gt_pack)(pk + 2 * mw, du, lt, m, 1, k0, count, 0);
    *pdl = pk;
    *pd = pk + mw;
    *pdu = pk + 2 * mw;
    *es = WW;
}

static void FN(gt_store_info)(int32_t *info, int64_t k0, int count, const vreal *v)
{
    for (int l = 0; l < count; l++) info[k0 + l] = (int32_t)v[l / BSI_W][l % BSI_W];
}

/* ---- gtsv ---------------------------------------------------------------- */

/* Forward and backward sweeps of gtsv over one super-tile; inf receives the info. */
static inline __attribute__((always_inline)) void FN(gtsv_sweep)(const int method, const int il, const int64_t m,
                                                                 const real *pdl,
                                                                 const real *pd, const real *pdu, const int64_t es,
                                                                 real *R, real *bb, const int64_t bes,
                                                                 const int64_t bcs, const int nrhs, bsi_gt_pf *pf,
                                                                 real *ub, const int64_t ubs, const int64_t ubld,
                                                                 vreal *inf)
{
    vreal probe[NT];
    vmask fail[NT];
    for (int t = 0; t < NT; t++) probe[t] = FN(gt_splat)(0);
    FN(gt_forward)(method, il, m, pdl, pd, pdu, es, NULL, R, bb, bes, bcs, nrhs, pf, inf, probe);
    for (int t = 0; t < NT; t++) {
        inf[t] = FN(gt_final_info)(inf[t], probe[t]);
        fail[t] = FN(bsi_ne)(inf[t], FN(gt_splat)(0));
    }
    FN(gt_back)(method, m, R, bb, bes, bcs, nrhs, fail, pf, ub, ubs, ubld);
}

static inline __attribute__((always_inline)) void FN(gtsv_tile)(const int method, const int ct, int64_t m, int nrhs,
                                                                const real *dl,
                                                                const real *d, const real *du, bsolve_tlayout lt,
                                                                real *B, bsolve_tlayout lb, int32_t *info, int64_t k0,
                                                                int count, int next, real *ws)
{
    const int64_t mw = m * WW;
    /* Packed diagonals (pk) and R share their planes (see gt_forward): 3 + nrhs
     * planes instead of 6 + nrhs, which at m = 32 (AVX-512) fit the 48 KiB L1d
     * and for larger m leave more of L2 to the prefetched next super-tile
     * (contiguous THOMAS about 1.2x at m = 32, 1.5x at m = 1024) */
    real *R = ws, *pk = ws, *pb = ws + 3 * mw;
    const real *pdl, *pd, *pdu;
    int64_t es;
    real *bb;
    int64_t bes, bcs;
    int direct_b;
#if GT_TRANSPOSE
    if (ct && count == WW && m % GT_TW == 0) {
        FN(gt_pack_full)(dl, d, du, lt.stride, B, lb.stride, lb.ld, nrhs, m, k0, pk, pb);
        pdl = pk, pd = pk + mw, pdu = pk + 2 * mw, es = WW;
        bb = pb, bes = WW, bcs = mw, direct_b = 0;
    } else
#endif
    {
        FN(gt_diags)(dl, d, du, lt, m, k0, count, pk, &pdl, &pd, &pdu, &es);
        direct_b = FN(gt_bview)(B, lb, m, nrhs, k0, count, pb, &bb, &bes, &bcs);
    }
    vreal inf[NT];
    bsi_gt_pf pf = {.n = 0, .lines = 0};
    FN(gt_pf_add)(&pf, dl, lt, m, 1, k0 + WW, next);
    FN(gt_pf_add)(&pf, d, lt, m, 1, k0 + WW, next);
    FN(gt_pf_add)(&pf, du, lt, m, 1, k0 + WW, next);
    FN(gt_pf_add)(&pf, B, lb, m, nrhs, k0 + WW, next);
    pf.steps = (m - 1) * GT_PF_WF(method) + (int64_t)nrhs * m;
    bsi_gt_pf_cap(&pf);
    /* Separate sweeps for one right-hand side and for no prefetching (the
     * interleaved layout): the loop over columns and the prefetch schedule
     * cost ~5% at m = 16 when left in the loops */
    /* The solution of a full contiguous super-tile goes out inside the back
     * substitution (gt_back) rather than in gt_unpack afterwards, which
     * reads the packed B back, from L2 for m >= 64 (contiguous: 7..12% faster
     * at m = 32, 14..18% at m = 1024) */
#if GT_TRANSPOSE
    real *ub = lb.kind == BSOLVE_TCONTIGUOUS && count == WW && m % GT_TW == 0 ? B + k0 * lb.stride : NULL;
#else
    real *ub = NULL;
#endif
    if (ct) { /* both packed */
        if (nrhs == 1 && pf.n && ub)
            FN(gtsv_sweep)(method, 0, m, pdl, pd, pdu, es, R, bb, bes, bcs, 1, &pf, ub, lb.stride, lb.ld, inf);
        else if (nrhs == 1 && pf.n)
            FN(gtsv_sweep)(method, 0, m, pdl, pd, pdu, es, R, bb, bes, bcs, 1, &pf, NULL, 0, 0, inf);
        else if (nrhs == 1 && ub) /* no prefetching (the last super-tile, or m >= 128): x still goes out via ub */
            FN(gtsv_sweep)(method, 0, m, pdl, pd, pdu, es, R, bb, bes, bcs, 1, NULL, ub, lb.stride, lb.ld, inf);
        else if (nrhs == 1)
            FN(gtsv_sweep)(method, 0, m, pdl, pd, pdu, es, R, bb, bes, bcs, 1, NULL, NULL, 0, 0, inf);
        else
            FN(gtsv_sweep)(method, 0, m, pdl, pd, pdu, es, R, bb, bes, bcs, nrhs, pf.n ? &pf : NULL, ub, lb.stride,
                           lb.ld, inf);
    } else if (nrhs == 1 && es != WW && bes != WW) /* both read in place */
        FN(gtsv_sweep)(method, 1, m, pdl, pd, pdu, es, R, bb, bes, bcs, 1, NULL, NULL, 0, 0, inf);
    else
        FN(gtsv_sweep)(method, -1, m, pdl, pd, pdu, es, R, bb, bes, bcs, nrhs, pf.n ? &pf : NULL, ub, lb.stride,
                       lb.ld, inf);
    if (!direct_b && !ub) FN(gt_unpack)(pb, B, lb, m, nrhs, k0, count);
    FN(gt_store_info)(info, k0, count, inf);
}

/* Tile t of a gtsv call; ct: both layouts contiguous. */
static inline __attribute__((always_inline)) void FN(gtsv_tile_at)(const int ct, bsolve_gtsv_method method, int64_t m,
                                                                   int nrhs, int64_t batch, const real *dl,
                                                                   const real *d, const real *du, bsolve_tlayout lt,
                                                                   real *B, bsolve_tlayout lb, int32_t *info,
                                                                   int64_t t, real *w)
{
    const int64_t k0 = t * WW;
    const int cnt = batch - k0 < WW ? (int)(batch - k0) : WW, nx = GT_NEXT(batch, k0);
    switch (method) {
    case BSOLVE_GTSV_THOMAS:
        FN(gtsv_tile)(BSOLVE_GTSV_THOMAS, ct, m, nrhs, dl, d, du, lt, B, lb, info, k0, cnt, nx, w);
        break;
    case BSOLVE_GTSV_PARTIAL:
        FN(gtsv_tile)(BSOLVE_GTSV_PARTIAL, ct, m, nrhs, dl, d, du, lt, B, lb, info, k0, cnt, nx, w);
        break;
    default:
        FN(gtsv_tile)(BSOLVE_GTSV_GIVENS, ct, m, nrhs, dl, d, du, lt, B, lb, info, k0, cnt, nx, w);
        break;
    }
}

/* The two layout classes each have a parallel loop (an outlined function)
 * of their own, so that neither one's sweeps move with the other's code:
 * sharing one, specializing the interleaved sweep costs contiguous
 * GIVENS and PARTIAL at m >= 16 about 10%. */
#define GT_RUN(ct)                                                                                                     \
    const int64_t ntiles = (batch + WW - 1) / WW, mw = m * WW;                                                         \
    const size_t per = ((size_t)(3 + nrhs) * mw * sizeof(real) + 63) / 64 * 64;                                       \
    const int nth = bsi_cpu_threads(ctx, ntiles);                                                                      \
    char *ws = bsi_workspace(ctx, per * nth);                                                                          \
    if (!ws)                                                                                                           \
        return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_gtsv: out of memory for the workspace (%zu bytes)", per * nth);   \
    _Pragma("omp parallel num_threads(nth)")                                                                           \
    {                                                                                                                  \
        real *w = (real *)(ws + per * omp_get_thread_num());                                                           \
        _Pragma("omp for schedule(static)") for (int64_t t = 0; t < ntiles; t++)                                       \
            FN(gtsv_tile_at)(ct, method, m, nrhs, batch, dl, d, du, lt, B, lb, info, t, w);                            \
    }                                                                                                                  \
    return BSOLVE_SUCCESS;

static __attribute__((noinline)) bsolve_status FN(gtsv_run_ct)(bsolve_ctx *ctx, bsolve_gtsv_method method, int64_t m,
                                                               int nrhs, int64_t batch, const real *dl, const real *d,
                                                               const real *du, bsolve_tlayout lt, real *B,
                                                               bsolve_tlayout lb, int32_t *info)
{
    GT_RUN(1)
}

static __attribute__((noinline)) bsolve_status FN(gtsv_run_gen)(bsolve_ctx *ctx, bsolve_gtsv_method method, int64_t m,
                                                                int nrhs, int64_t batch, const real *dl,
                                                                const real *d, const real *du, bsolve_tlayout lt,
                                                                real *B, bsolve_tlayout lb, int32_t *info)
{
    GT_RUN(0)
}
#undef GT_RUN

static bsolve_status FN(gtsv_cpu)(bsolve_ctx *ctx, bsolve_gtsv_method method, int64_t m, int nrhs, int64_t batch,
                                  const real *dl, const real *d, const real *du, bsolve_tlayout lt, real *B,
                                  bsolve_tlayout lb, int32_t *info)
{
    return lt.kind == BSOLVE_TCONTIGUOUS && lb.kind == BSOLVE_TCONTIGUOUS
               ? FN(gtsv_run_ct)(ctx, method, m, nrhs, batch, dl, d, du, lt, B, lb, info)
               : FN(gtsv_run_gen)(ctx, method, m, nrhs, batch, dl, d, du, lt, B, lb, info);
}

/* ---- gttrf / gttrs --------------------------------------------------------- */

static bsolve_status FN(gttrf_cpu)(bsolve_ctx *ctx, const real *dl, const real *d, const real *du, bsolve_tlayout lt,
                                   bsolve_gt *gt, int32_t *info)
{
    const int64_t m = gt->m, batch = gt->batch, ntiles = (batch + WW - 1) / WW, mw = m * WW;
    const size_t per = ((size_t)3 * mw * sizeof(real) + 63) / 64 * 64;
    const int nth = bsi_cpu_threads(ctx, ntiles);
    char *ws = bsi_workspace(ctx, per * nth);
    if (!ws) return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_gttrf: out of memory for the workspace");
    real *F = (real *)gt->f;
    const int method = gt->method;
#pragma omp parallel num_threads(nth)
    {
        real *pk = (real *)(ws + per * omp_get_thread_num());
#pragma omp for schedule(static)
        for (int64_t t = 0; t < ntiles; t++) {
            const int64_t k0 = t * WW;
            const int cnt = batch - k0 < WW ? (int)(batch - k0) : WW;
            const real *pdl, *pd, *pdu;
            int64_t es;
            FN(gt_diags)(dl, d, du, lt, m, k0, cnt, pk, &pdl, &pd, &pdu, &es);
            const int next = GT_NEXT(batch, k0);
            bsi_gt_pf pf = {.n = 0, .lines = 0};
            FN(gt_pf_add)(&pf, dl, lt, m, 1, k0 + WW, next);
            FN(gt_pf_add)(&pf, d, lt, m, 1, k0 + WW, next);
            FN(gt_pf_add)(&pf, du, lt, m, 1, k0 + WW, next);
            pf.steps = m - 1;
            bsi_gt_pf_cap(&pf);
            real *Ft = F + t * BSI_GT_NF * mw;
            vreal probe[NT], inf[NT];
            for (int q = 0; q < NT; q++) probe[q] = FN(gt_splat)(0);
            if (method == BSOLVE_GTSV_THOMAS)
                FN(gt_forward)(BSOLVE_GTSV_THOMAS, -1, m, pdl, pd, pdu, es, Ft, NULL, NULL, 0, 0, 0, &pf, inf, probe);
            else if (method == BSOLVE_GTSV_PARTIAL)
                FN(gt_forward)(BSOLVE_GTSV_PARTIAL, -1, m, pdl, pd, pdu, es, Ft, NULL, NULL, 0, 0, 0, &pf, inf, probe);
            else
                FN(gt_forward)(BSOLVE_GTSV_GIVENS, -1, m, pdl, pd, pdu, es, Ft, NULL, NULL, 0, 0, 0, &pf, inf, probe);
            for (int q = 0; q < NT; q++) inf[q] = FN(gt_final_info)(inf[q], probe[q]);
            FN(gt_store_info)(gt->info, k0, cnt, inf);
            FN(gt_store_info)(info, k0, cnt, inf);
        }
    }
    return BSOLVE_SUCCESS;
}

static bsolve_status FN(gttrs_cpu)(bsolve_ctx *ctx, const bsolve_gt *gt, int nrhs, real *B, bsolve_tlayout lb,
                                   int32_t *info)
{
    const int64_t m = gt->m, batch = gt->batch, ntiles = (batch + WW - 1) / WW, mw = m * WW;
    const size_t per = ((size_t)nrhs * mw * sizeof(real) + 63) / 64 * 64;
    const int nth = bsi_cpu_threads(ctx, ntiles);
    char *ws = bsi_workspace(ctx, per * nth);
    if (!ws) return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_gttrs: out of memory for the workspace");
    const real *F = (const real *)gt->f;
    const int method = gt->method;
#pragma omp parallel num_threads(nth)
    {
        real *pb = (real *)(ws + per * omp_get_thread_num());
#pragma omp for schedule(static)
        for (int64_t t = 0; t < ntiles; t++) {
            const int64_t k0 = t * WW;
            const int cnt = batch - k0 < WW ? (int)(batch - k0) : WW;
            real *bb;
            int64_t bes, bcs;
            const int direct_b = FN(gt_bview)(B, lb, m, nrhs, k0, cnt, pb, &bb, &bes, &bcs);
            const real *Ft = F + t * BSI_GT_NF * mw;
            vreal probe[NT], inf[NT];
            vmask fail[NT];
            for (int q = 0; q < NT; q++) probe[q] = FN(gt_splat)(0);
            if (method == BSOLVE_GTSV_THOMAS)
                FN(gt_apply_all)(BSOLVE_GTSV_THOMAS, m, Ft, bb, bes, bcs, nrhs, probe);
            else if (method == BSOLVE_GTSV_PARTIAL)
                FN(gt_apply_all)(BSOLVE_GTSV_PARTIAL, m, Ft, bb, bes, bcs, nrhs, probe);
            else
                FN(gt_apply_all)(BSOLVE_GTSV_GIVENS, m, Ft, bb, bes, bcs, nrhs, probe);
            for (int l = 0; l < WW; l++) inf[l / BSI_W][l % BSI_W] = l < cnt ? (real)gt->info[k0 + l] : 0;
            for (int q = 0; q < NT; q++) {
                inf[q] = FN(gt_final_info)(inf[q], probe[q]);
                fail[q] = FN(bsi_ne)(inf[q], FN(gt_splat)(0));
            }
            FN(gt_back)(method, m, Ft + 2 * mw, bb, bes, bcs, nrhs, fail, NULL, NULL, 0, 0);
            if (!direct_b) FN(gt_unpack)(pb, B, lb, m, nrhs, k0, cnt);
            if (info) FN(gt_store_info)(info, k0, cnt, inf);
        }
    }
    return BSOLVE_SUCCESS;
}

#undef NT
#undef WW
#undef GT_NEXT
#undef GT_UNROLL
#undef GT_PF_LOC
#undef LDV
#undef STV
#undef GT_MBITS
#undef GT_EMAXB
#undef GT_TW
#undef GT_TRANSPOSE
#undef GT_LSPLIT
