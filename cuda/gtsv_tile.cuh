/*
 * gtsv_tile.cuh -- the on-chip kernel for many tridiagonal systems of up to
 * a few thousand equations (included by cuda/gtsv.cu).
 *
 * Why: a one-thread-per-system sweep that spills the rows of U and y to a
 * global scratch moves ~9 arrays per equation instead of 5.  Here a block
 * copies a tile of whole systems (dl, d, du, b) into shared memory with
 * asynchronous 8-byte copies (all in flight at once, coalesced in either
 * layout), solves them there, and writes x back: every array is read once
 * and x written once.
 *
 * Short systems (P == 1): one thread per system runs the sequential
 * elimination of gtsv.cuh, keeping row i of U and y in the row's own four
 * shared slots (they are free once the sweep has read them), so results and
 * info are exactly those of the sequential kernel.
 *
 * Longer systems: P threads per system, each owning a partition of L = 2^lsh
 * rows, as the partition method of gtsv.cu (x_i = g_i - v_i x_{s-1} - w_i x_e
 * for the interior rows; g, v, w kept in shared memory), a reduced system of
 * P rows per system solved by one thread with the same method, then x from
 * g, v, w.  The accuracy guard is that of the few-long path: a partition or
 * reduced pivot below GT_TOL times the block's largest entry (zero
 * included), or a non-finite entry, sends the system to the sequential
 * elimination, run by one thread from global memory inside the same block
 * (slow, exact info).
 *
 * Shared layout: array q, system s, row i at q*S*ss + s*ss + i + (i >> lsh):
 * one pad per partition and an odd system stride keep both the per-system
 * (P == 1) and per-partition accesses free of bank conflicts.
 */
#ifndef BSI_GTSV_TILE_CUH
#define BSI_GTSV_TILE_CUH

#include <stdlib.h>

template <typename R> struct gt_tile_args {
    const R *dl, *d, *du;
    int64_t dks, dis;
    R *B;
    int64_t bks, bis;
    int32_t *info;
    int merge;
    int m, S, P, lsh, ss, na; /* systems per tile, partitions per system, log2 L, shared system stride, arrays */
    int64_t batch;
};

template <typename R> __device__ __forceinline__ void gt_cp8(R *sdst, const R *gsrc)
{
    const unsigned sa = (unsigned)__cvta_generic_to_shared(sdst);
    if (sizeof(R) == 8)
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(sa), "l"(gsrc) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(sa), "l"(gsrc) : "memory");
}

/* Copies rows 0..m-1 of the tile's systems between global p[k*ks + i*is]
 * and shared X; lanes run along whichever index is contiguous in memory. */
template <typename R, bool IN>
__device__ __forceinline__ void gt_tile_move(R *X, const R *gp, R *gq, int64_t ks, int64_t is, int64_t k0, int nsys,
                                             int m, int lsh, int ss, int S)
{
    const int E = S * m, T = blockDim.x;
    if (is == 1) {
        for (int idx = threadIdx.x; idx < E; idx += T) {
            const int s = idx / m, i = idx - s * m;
            if (s >= nsys) break;
            const int64_t g = (k0 + s) * ks + i;
            R *x = X + s * ss + i + (i >> lsh);
            if (IN) gt_cp8(x, gp + g);
            else gq[g] = *x;
        }
    } else {
        for (int idx = threadIdx.x; idx < E; idx += T) {
            const int i = idx / S, s = idx - i * S;
            if (s >= nsys) continue;
            const int64_t g = (k0 + s) * ks + (int64_t)i * is;
            R *x = X + s * ss + i + (i >> lsh);
            if (IN) gt_cp8(x, gp + g);
            else gq[g] = *x;
        }
    }
}

/* The sequential elimination of one system (rows from `row(i, a, d, u, b)`),
 * row i of U and y kept in slots (L0, D0, U0, B0)[ix(i)], x left in B0.
 * Returns info. */
template <typename R, int METHOD, typename ROW, typename IX>
__device__ __forceinline__ int32_t gt_seq_onchip(int m, ROW row, IX ix, R *L0, R *D0, R *U0, R *B0)
{
    R a, dd, uu, b;
    row(0, a, dd, uu, b);
    R c0 = dd, c1 = m > 1 ? uu : R(0), bc = b;
    R probe = c0 * R(0) + c1 * R(0) + b * R(0);
    int32_t info = 0;
    for (int i = 1; i < m; i++) {
        row(i, a, dd, uu, b);
        const R nu = i + 1 < m ? uu : R(0);
        probe += a * R(0) + dd * R(0) + nu * R(0) + b * R(0);
        R q0, q1, r, u1, u2;
        bool z;
        bsi_gt_step<R, METHOD>(c0, c1, a, dd, nu, q0, q1, r, u1, u2, z);
        if (z && info == 0) info = i;
        R nb = b;
        const R y = bsi_gt_apply<R, METHOD>(q0, q1, bc, nb);
        bc = nb;
        const int o = ix(i - 1);
        L0[o] = r, D0[o] = u1, U0[o] = u2, B0[o] = y;
    }
    {
        const bool z = c0 == R(0);
        if (z && info == 0) info = m;
        const int o = ix(m - 1);
        L0[o] = R(1) / (z ? R(1) : c0), D0[o] = 0, U0[o] = 0, B0[o] = bc;
    }
    if (probe != probe) info = -1;
    const bool fail = info != 0;
    R x1 = 0, x2 = 0;
    for (int i = m - 1; i >= 0; i--) {
        const int o = ix(i);
        const R x = (B0[o] - D0[o] * x1 - U0[o] * x2) * L0[o];
        x2 = x1;
        x1 = x;
        B0[o] = fail ? R(NAN) : x;
    }
    return info;
}

template <typename R, int METHOD>
__global__ void __launch_bounds__(256) gt_tilek(const gt_tile_args<R> A)
{
    extern __shared__ __align__(16) unsigned char gt_tsm[];
    const int m = A.m, S = A.S, P = A.P, lsh = A.lsh, ss = A.ss;
    const int64_t k0 = (int64_t)blockIdx.x * S;
    const int nsys = A.batch - k0 < S ? (int)(A.batch - k0) : S;
    R *Lg = (R *)gt_tsm, *Dg = Lg + S * ss, *Ug = Dg + S * ss, *Bv = Ug + S * ss;
    R *Xg = Bv + S * ss;                    /* 5th array (P > 1 only) */
    R *Red = Lg + (size_t)A.na * S * ss;    /* 7 reduced arrays of S*P */
    int *flag = (int *)(Red + 7 * S * P);   /* per system */

    gt_tile_move<R, true>(Lg, A.dl, nullptr, A.dks, A.dis, k0, nsys, m, lsh, ss, S);
    gt_tile_move<R, true>(Dg, A.d, nullptr, A.dks, A.dis, k0, nsys, m, lsh, ss, S);
    gt_tile_move<R, true>(Ug, A.du, nullptr, A.dks, A.dis, k0, nsys, m, lsh, ss, S);
    gt_tile_move<R, true>(Bv, A.B, nullptr, A.bks, A.bis, k0, nsys, m, lsh, ss, S);
    for (int s = threadIdx.x; s < S; s += blockDim.x) flag[s] = 0;
    asm volatile("cp.async.wait_all;\n" ::: "memory");
    __syncthreads();

    const int t = threadIdx.x;
    if (P == 1) {
        if (t < nsys) {
            const int base = t * ss;
            auto ix = [=](int i) { return base + i + (i >> lsh); };
            auto row = [&](int i, R &a, R &dd, R &uu, R &b) {
                const int o = ix(i);
                a = Lg[o], dd = Dg[o], uu = Ug[o], b = Bv[o];
            };
            const int32_t inf = gt_seq_onchip<R, METHOD>(m, row, ix, Lg, Dg, Ug, Bv);
            if (A.info) A.info[k0 + t] = gt_merge(A.merge, A.info[k0 + t], inf);
        }
        __syncthreads();
        gt_tile_move<R, false>(Bv, nullptr, A.B, A.bks, A.bis, k0, nsys, m, lsh, ss, S);
        return;
    }

    /* ---- partitions: thread (s, p) owns rows s0..e (interior s0..e-1) ---- */
    const int s = t / P, p = t - s * P, L = 1 << lsh;
    const bool act = t < S * P && s < nsys;
    R *RA = Red, *RB = RA + S * P, *RC = RB + S * P, *RD = RC + S * P;
    R *RGS = RD + S * P, *RVS = RGS + S * P, *RWS = RVS + S * P;
    const int base = s * ss;
    auto I = [=](int i) { return base + i + (i >> lsh); };
    if (act) {
        const int s0 = p * L, len = m - s0 < L ? m - s0 : L, ni = len - 1, e = s0 + ni;
        R probe = 0, amax = 0, rvmax = 0;
        bool zero = false;
        R gs, vs, ws, gl, vl, wl;
        if (ni > 0) {
            int o = I(s0);
            R c0 = Dg[o], c1 = ni > 1 ? Ug[o] : R(0);
            R y0 = Bv[o], y1 = p > 0 ? Lg[o] : R(0), y2 = ni == 1 ? Ug[o] : R(0), y2k = 0;
            probe += c0 * R(0) + Ug[o] * R(0) + y0 * R(0) + y1 * R(0);
            amax = fmax(fabs(c0), fabs(c1));
            for (int j = 0; j + 1 < ni; j++) {
                const int on = I(s0 + j + 1);
                const R a = Lg[on], nd = Dg[on], uraw = Ug[on], nb0 = Bv[on];
                const R nu = j + 2 < ni ? uraw : R(0);
                probe += a * R(0) + nd * R(0) + uraw * R(0) + nb0 * R(0);
                amax = fmax(amax, fmax(fabs(a), fmax(fabs(nd), fabs(nu))));
                R q0, q1, r, u1, u2;
                bool z;
                bsi_gt_step<R, METHOD>(c0, c1, a, nd, nu, q0, q1, r, u1, u2, z);
                zero = zero || z;
                rvmax = fmax(rvmax, fabs(r));
                R n0 = nb0, n1 = 0, n2 = j + 2 == ni ? uraw : R(0);
                const R t0 = bsi_gt_apply<R, METHOD>(q0, q1, y0, n0);
                const R t1 = bsi_gt_apply<R, METHOD>(q0, q1, y1, n1);
                const R t2 = bsi_gt_apply<R, METHOD>(q0, q1, y2, n2);
                y0 = n0, y1 = n1, y2 = n2;
                y2k = t2; /* nonzero only for the last j */
                Lg[o] = r, Dg[o] = u1, Ug[o] = u2, Bv[o] = t0, Xg[o] = t1;
                o = on;
            }
            zero = zero || c0 == R(0);
            const R rl = R(1) / (c0 == R(0) ? R(1) : c0);
            rvmax = fmax(rvmax, fabs(rl));
            /* back substitution for the three right-hand sides */
            R g1 = y0 * rl, v1 = y1 * rl, w1 = y2 * rl, g2 = 0, v2 = 0, w2 = 0;
            Bv[o] = g1, Xg[o] = v1, Ug[o] = w1;
            gl = g1, vl = v1, wl = w1;
            for (int j = ni - 2; j >= 0; j--) {
                const int oj = I(s0 + j);
                const R r = Lg[oj], u1 = Dg[oj], u2 = Ug[oj];
                const R g = (Bv[oj] - u1 * g1 - u2 * g2) * r;
                const R v = (Xg[oj] - u1 * v1 - u2 * v2) * r;
                const R w = ((j == ni - 2 ? y2k : R(0)) - u1 * w1 - u2 * w2) * r;
                Bv[oj] = g, Xg[oj] = v, Ug[oj] = w;
                g2 = g1, v2 = v1, w2 = w1;
                g1 = g, v1 = v, w1 = w;
            }
            gs = g1, vs = v1, ws = w1;
        } else { /* no interior: x_{e-1} = x_{s-1}; x_s = x_e */
            gs = 0, vs = 0, ws = -1;
            gl = 0, vl = -1, wl = 0;
        }
        const int oe = I(e);
        const R ae = Lg[oe], be = Dg[oe], ce = e + 1 < m ? Ug[oe] : R(0), de = Bv[oe];
        probe += ae * R(0) + be * R(0) + ce * R(0) + de * R(0);
        const bool ok = !zero && rvmax * amax * R(GT_TOL) <= R(1) && probe == probe;
        RA[t] = -ae * vl;
        RB[t] = be - ae * wl;
        RD[t] = de - ae * gl;
        RC[t] = ce;
        RGS[t] = gs, RVS[t] = vs, RWS[t] = ws;
        if (!ok) flag[s] = 1;
    }
    __syncthreads();
    /* ---- the reduced systems: one thread each, rows s*P .. s*P+P-1 ---- */
    if (act && p == 0 && !flag[s]) {
        const int r0 = s * P;
        R tol = 0;
        for (int q = 0; q < P; q++) {
            const int o = r0 + q;
            if (q + 1 < P) {
                const R c = RC[o];
                RB[o] = RB[o] - c * RVS[o + 1];
                RC[o] = -c * RWS[o + 1];
                RD[o] = RD[o] - c * RGS[o + 1];
            } else {
                RC[o] = 0;
            }
            tol = fmax(tol, fmax(q > 0 ? fabs(RA[o]) : R(0), fmax(fabs(RB[o]), fabs(RC[o]))));
        }
        tol *= R(GT_TOL);
        R c0 = RB[r0], c1 = RC[r0], bc = RD[r0];
        bool ok = true;
        for (int q = 1; q < P; q++) {
            const int o = r0 + q;
            R q0, q1, rv, u1, u2;
            bool z;
            R nb = RD[o];
            bsi_gt_step<R, METHOD>(c0, c1, RA[o], RB[o], RC[o], q0, q1, rv, u1, u2, z);
            ok = ok && !z && fabs(rv) * tol <= R(1);
            const R y = bsi_gt_apply<R, METHOD>(q0, q1, bc, nb);
            bc = nb;
            RA[o - 1] = rv, RB[o - 1] = u1, RC[o - 1] = u2, RD[o - 1] = y;
        }
        ok = ok && c0 != R(0) && fabs(c0) >= tol;
        RA[r0 + P - 1] = R(1) / (c0 == R(0) ? R(1) : c0);
        RB[r0 + P - 1] = 0, RC[r0 + P - 1] = 0, RD[r0 + P - 1] = bc;
        R x1 = 0, x2 = 0;
        for (int q = P - 1; q >= 0; q--) {
            const int o = r0 + q;
            const R x = (RD[o] - RB[o] * x1 - RC[o] * x2) * RA[o];
            RVS[o] = x;
            x2 = x1;
            x1 = x;
        }
        if (!ok || x1 != x1) flag[s] = 1;
    }
    __syncthreads();
    if (act && !flag[s]) {
        const int s0 = p * L, len = m - s0 < L ? m - s0 : L, ni = len - 1;
        const R xe = RVS[t], xs1 = p > 0 ? RVS[t - 1] : R(0);
        for (int j = 0; j < ni; j++) {
            const int o = I(s0 + j);
            Bv[o] = Bv[o] - Xg[o] * xs1 - Ug[o] * xe;
        }
        Bv[I(s0 + ni)] = xe;
    }
    if (act && p == 0) {
        int32_t inf = 0;
        if (flag[s]) { /* the sequential fallback, from global memory */
            const int64_t k = k0 + s;
            const R *pl = A.dl + k * A.dks, *pd = A.d + k * A.dks, *pu = A.du + k * A.dks, *pb = A.B + k * A.bks;
            const int64_t dis = A.dis, bis = A.bis;
            auto row = [=](int i, R &a, R &dd, R &uu, R &b) {
                a = i > 0 ? pl[i * dis] : R(0);
                dd = pd[i * dis];
                uu = i + 1 < m ? pu[i * dis] : R(0);
                b = pb[i * bis];
            };
            inf = gt_seq_onchip<R, METHOD>(m, row, I, Lg, Dg, Ug, Bv);
        }
        if (A.info) A.info[k0 + s] = gt_merge(A.merge, A.info[k0 + s], inf);
    }
    __syncthreads();
    gt_tile_move<R, false>(Bv, nullptr, A.B, A.bks, A.bis, k0, nsys, m, lsh, ss, S);
}

/* Tile shape for m: partitions of 2^lsh rows and S systems per block. */
struct gt_tile_shape {
    int S, P, lsh, ss, na, threads;
    size_t smem;
};

static inline int gt_env_int(const char *name, int def)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : def;
}

/* Tuning knobs (read once; for experiments, 0 = the measured default):
 * BSOLVE_GT_SEQMAX (largest m solved one thread per system), BSOLVE_GT_L
 * (partition rows), BSOLVE_GT_TE / BSOLVE_GT_TE_IL (equations per tile,
 * contiguous / all-interleaved), BSOLVE_GT_TILEMAX (largest m on this path).
 * Defaults from the H100 sweep of 2026-11-22 (perf/RESULTS-gtsv.md): short
 * partitions and small tiles (more resident blocks, overlapping load and
 * compute phases) up to m = 128; above, 16-row partitions keep the reduced
 * system short, and interleaved tiles of >= 4 systems use whole sectors. */
struct gt_tile_cfg {
    int seqmax, L, te, te_il, tilemax;
};
static const gt_tile_cfg &gt_tile_conf()
{
    static gt_tile_cfg c = {gt_env_int("BSOLVE_GT_SEQMAX", 16), gt_env_int("BSOLVE_GT_L", 0),
                            gt_env_int("BSOLVE_GT_TE", 0), gt_env_int("BSOLVE_GT_TE_IL", 0),
                            gt_env_int("BSOLVE_GT_TILEMAX", 4096)};
    return c;
}

static inline bool gt_tile_shape_for(int64_t m, bool il, size_t es, size_t smem_max, gt_tile_shape &sh)
{
    const gt_tile_cfg &c = gt_tile_conf();
    if (m < 1 || m > c.tilemax) return false;
    const int mm = (int)m;
    const bool shortm = mm <= 128;
    const int cte = c.te ? c.te : (shortm ? 1024 : 2048), cte_il = c.te_il ? c.te_il : (shortm ? 1024 : 4096);
    const int cL = c.L ? c.L : (shortm ? 8 : 16);
    int te = il && mm > c.seqmax ? cte_il : cte;
    if (mm <= c.seqmax) {
        int S = 32;
        while (S < 256 && S * 2 * mm <= te) S *= 2;
        sh.S = S, sh.P = 1, sh.lsh = 30, sh.na = 4, sh.threads = S;
    } else {
        int lsh = 1;
        while ((1 << lsh) < cL) lsh++;
        while (((mm + (1 << lsh) - 1) >> lsh) > 64) lsh++;
        const int P = (mm + (1 << lsh) - 1) >> lsh;
        int S = te / (P << lsh);
        if (S < 1) S = 1;
        while (S > 1 && S * P > 256) S--;
        sh.S = S, sh.P = P, sh.lsh = lsh, sh.na = 5, sh.threads = (S * P + 31) / 32 * 32;
    }
    int ss = mm + (sh.lsh > 29 ? 0 : (mm - 1) >> sh.lsh) + 1;
    if (!(ss & 1)) ss++;
    sh.ss = ss;
    for (;;) {
        sh.smem = (size_t)sh.na * sh.S * ss * es + (size_t)7 * sh.S * sh.P * es + (size_t)sh.S * sizeof(int) + 16;
        if (sh.smem <= smem_max) return true;
        if (sh.S == 1) return false;
        sh.S = sh.P == 1 ? sh.S / 2 : sh.S - 1;
        if (sh.P == 1) sh.threads = sh.S;
        else sh.threads = (sh.S * sh.P + 31) / 32 * 32;
    }
}

#endif
