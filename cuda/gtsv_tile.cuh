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
 * rows (4, 8 or 16, a compile-time constant so the partition lives in
 * registers), as the partition method of gtsv.cu (x_i = g_i - v_i x_{s-1} -
 * w_i x_e for the interior rows), then a reduced system of P rows per system
 * solved by parallel cyclic reduction over the P threads (gt_reduced_pcr),
 * then x from g, v, w.  The accuracy guard is that of the few-long path: a
 * partition or reduced pivot below GT_TOL times the largest entry (zero
 * included), excessive growth in the reduction, or a non-finite entry sends
 * the system to the sequential elimination, run by one thread from global
 * memory inside the same block (slow, exact info).
 *
 * Shared layout: array q, system s, row i at q*S*ss + s*ss + i + (i >> lsh):
 * one pad per partition and an odd system stride keep both the per-system
 * (P == 1) and per-partition accesses free of bank conflicts.
 */
#ifndef BSI_GTSV_TILE_CUH
#define BSI_GTSV_TILE_CUH

template <typename R> struct gt_tile_args {
    const R *dl, *d, *du;
    int64_t dks, dis;
    R *B;
    int64_t bks, bis;
    int32_t *info;
    int merge;
    int pcr; /* reduced systems by PCR (else one thread each) */
    int m, S, P, lsh, ss, na; /* systems per tile, partitions per system, log2 L, shared system stride, arrays */
    int64_t batch;
};

/* One element global -> shared by an asynchronous copy (sm_80 and later;
 * gt_cp_wait() completes the thread's copies), an ordinary load and store
 * on older devices. */
template <typename R> __device__ __forceinline__ void gt_cp8(R *sdst, const R *gsrc)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    const unsigned sa = (unsigned)__cvta_generic_to_shared(sdst);
    if (sizeof(R) == 8)
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(sa), "l"(gsrc) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(sa), "l"(gsrc) : "memory");
#else
    *sdst = *gsrc;
#endif
}

__device__ __forceinline__ void gt_cp_wait()
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/* floor(x / d) for x * d < 2^32 by a multiply-high: the tile copies split
 * every element's index into (system, row), and a run-time integer division
 * there cost more instructions than the whole elimination (the kernel is
 * issue-bound, not latency-bound, once its warps are resident). */
struct gt_div {
    unsigned mag, d;
    __device__ explicit gt_div(unsigned dd) : mag(dd > 1 ? 0xFFFFFFFFu / dd + 1 : 0), d(dd) {}
    __device__ __forceinline__ unsigned operator()(unsigned x) const { return d > 1 ? __umulhi(x, mag) : x; }
};

/* Copies rows 0..m-1 of the tile's systems between global p[k*ks + i*is]
 * and shared X; lanes run along whichever index is contiguous in memory.
 * skip (out only, may be NULL): systems s with skip[s] are not written. */
template <typename R, bool IN>
__device__ __forceinline__ void gt_tile_move(R *X, const R *gp, R *gq, int64_t ks, int64_t is, int64_t k0, int nsys,
                                             int m, int lsh, int ss, int S, const unsigned char *skip = nullptr)
{
    const int T = blockDim.x;
    const int64_t base = k0 * ks;
    if (is == 1 && nsys == 1) { /* one system (few long ones): no index split */
        if (!IN && skip && skip[0]) return;
        const R *gs = gp + base;
        R *gd = gq + base;
        for (int i = threadIdx.x; i < m; i += T) {
            R *x = X + i + (i >> lsh);
            if (IN) gt_cp8(x, gs + i);
            else gd[i] = *x;
        }
    } else if (is == 1) {
        const gt_div divm((unsigned)m);
        const int E = nsys * m;
        for (int idx = threadIdx.x; idx < E; idx += T) {
            const int s = (int)divm((unsigned)idx), i = idx - s * m;
            if (!IN && skip && skip[s]) continue;
            const int64_t g = base + s * ks + i;
            R *x = X + s * ss + i + (i >> lsh);
            if (IN) gt_cp8(x, gp + g);
            else gq[g] = *x;
        }
    } else {
        const gt_div divs((unsigned)nsys);
        const int E = nsys * m;
        for (int idx = threadIdx.x; idx < E; idx += T) {
            const int i = (int)divs((unsigned)idx), s = idx - i * nsys;
            if (!IN && skip && skip[s]) continue;
            const int64_t g = base + s * ks + i * is;
            R *x = X + s * ss + i + (i >> lsh);
            if (IN) gt_cp8(x, gp + g);
            else gq[g] = *x;
        }
    }
}

/* The four arrays' copies in one walk when the diagonals and B are
 * contiguous along the same index (both per system, or both interleaved):
 * the index split and the shared offset are computed once per row instead
 * of four times (the kernel is issue-bound).  X: dl; then d, du, b at
 * strides of SS elements. */
template <typename R>
__device__ __forceinline__ void gt_tile_load4(const gt_tile_args<R> &A, R *X, int SS, int64_t k0, int nsys, int m,
                                              int lsh, int ss)
{
    const int T = blockDim.x, E = nsys * m;
    const bool along_rows = A.dis == 1;
    const gt_div div((unsigned)(along_rows ? m : nsys));
    const int64_t oa = k0 * A.dks, ob = k0 * A.bks;
    const R *pl = A.dl + oa, *pd = A.d + oa, *pu = A.du + oa, *pb = A.B + ob;
    if (along_rows && nsys == 1) {
        /* one contiguous system (few long ones; tiles of m >= 512): no index
         * split, a third of the general walk's instructions per row, which
         * the looping fused kernel issues while its other blocks reduce */
        for (int i = threadIdx.x; i < m; i += T) {
            R *x = X + i + (i >> lsh);
            gt_cp8(x, pl + i);
            gt_cp8(x + SS, pd + i);
            gt_cp8(x + 2 * SS, pu + i);
            gt_cp8(x + 3 * SS, pb + i);
        }
        return;
    }
    for (int idx = threadIdx.x; idx < E; idx += T) {
        const int q = (int)div((unsigned)idx);
        const int s = along_rows ? q : idx - q * nsys, i = along_rows ? idx - q * m : q;
        const int64_t ga = s * A.dks + i * A.dis, gb = s * A.bks + i * A.bis;
        R *x = X + s * ss + i + (i >> lsh);
        gt_cp8(x, pl + ga);
        gt_cp8(x + SS, pd + ga);
        gt_cp8(x + 2 * SS, pu + ga);
        gt_cp8(x + 3 * SS, pb + gb);
    }
}

/* Row i of system k (m rows) read from global memory as gt_seq_onchip's
 * `row` wants it: the sequential fallbacks of the tile and long kernels. */
template <typename R>
__device__ __forceinline__ auto gt_global_rows(const gt_tile_args<R> &A, int64_t k, int m)
{
    const R *pl = A.dl + k * A.dks, *pd = A.d + k * A.dks, *pu = A.du + k * A.dks, *pb = A.B + k * A.bks;
    const int64_t dis = A.dis, bis = A.bis;
    return [=](int i, R &a, R &dd, R &uu, R &b) {
        a = i > 0 ? pl[i * dis] : R(0);
        dd = pd[i * dis];
        uu = i + 1 < m ? pu[i * dis] : R(0);
        b = pb[i * bis];
    };
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

/* The reduced systems (rows s*P .. s*P+P-1 of RA..RWS), one thread each,
 * eliminated sequentially with the method's pivoting.  x goes to RVS. */
template <typename R, int METHOD>
__device__ __forceinline__ void gt_reduced_seq(bool run, int s, int P, R *Red, int SP, int *flag)
{
    if (!run) return;
    R *RA = Red, *RB = RA + SP, *RC = RB + SP, *RD = RC + SP;
    R *RGS = RD + SP, *RVS = RGS + SP, *RWS = RVS + SP;
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

__device__ __forceinline__ void gt_smax(double *a, double v)
{
    atomicMax((unsigned long long *)a, (unsigned long long)__double_as_longlong(v));
}
__device__ __forceinline__ void gt_smax(float *a, float v) { atomicMax((unsigned *)a, __float_as_uint(v)); }

/* A reduced row of the PCRs (gt_reduced_pcr, gt_chunk_reduce) in shared
 * memory: its values side by side, 6 entries apart, written and read as
 * pairs.  Why not one array per value: each array's address is then
 * recomputed per value and level (about 100 of the chunk reduction's 165
 * instructions per warp and level on sm_90), and with four blocks per SM
 * in the same phase the level is issue-bound.  A stride of 6 entries keeps the pair
 * accesses of 8 consecutive lanes (16 for float) on distinct banks. */
template <typename R> __device__ __forceinline__ void gt_row4_put(R *w, R a, R b, R c, R d)
{
    typedef bsi_pair<R> P;
    typename P::T *q = (typename P::T *)w;
    q[0] = P::mk(a, b), q[1] = P::mk(c, d);
}
template <typename R> __device__ __forceinline__ void gt_row4_get(const R *w, R &a, R &b, R &c, R &d)
{
    typedef typename bsi_pair<R>::T T;
    const T *q = (const T *)w;
    const T u = q[0], v = q[1];
    a = u.x, b = u.y, c = v.x, d = v.y;
}
template <typename R> __device__ __forceinline__ void gt_row6_put(R *w, R a, R b, R c, R y0, R y1, R y2)
{
    gt_row4_put<R>(w, a, b, c, y0);
    *(typename bsi_pair<R>::T *)(w + 4) = bsi_pair<R>::mk(y1, y2);
}
template <typename R> __device__ __forceinline__ void gt_row6_get(const R *w, R &a, R &b, R &c, R &y0, R &y1, R &y2)
{
    gt_row4_get<R>(w, a, b, c, y0);
    const typename bsi_pair<R>::T x = *(const typename bsi_pair<R>::T *)(w + 4);
    y1 = x.x, y2 = x.y;
}

/* One level of parallel cyclic reduction on the reduced row (ra rb rc | rd):
 * the rows h above and h below are eliminated where they exist (up, dn);
 * above(a, b, c, d) and below(...) fetch those rows, their pivot b as its
 * reciprocal (recip) or as is.  Returns the guard of gt_reduced_pcr: our
 * pivot, which the neighbours divide by, at least tol, and no entry grown
 * past big (each entry compared: fmax ignored a NaN and compiled to a chain
 * of selects).  Shared by the block's PCR (neighbours in shared memory) and
 * the warp's (gt_warp_bottom: neighbours by shuffles). */
template <typename R, typename FA, typename FB>
__device__ __forceinline__ bool gt_pcr_level(bool recip, R &ra, R &rb, R &rc, R &rd, bool up, FA above, bool dn,
                                             FB below, R tol, R big)
{
    const bool ok = fabs(rb) >= tol;
    R na = 0, nb = rb, nc = 0, nd = rd;
    if (up) {
        R a, b, c, d;
        above(a, b, c, d);
        const R al = recip ? -ra * b : -ra / b;
        na = al * a, nb += al * c, nd += al * d;
    }
    if (dn) {
        R a, b, c, d;
        below(a, b, c, d);
        const R ga = recip ? -rc * b : -rc / b;
        nc = ga * c, nb += ga * a, nd += ga * d;
    }
    ra = na, rb = nb, rc = nc, rd = nd;
    return ok & (fabs(ra) <= big) & (fabs(rb) <= big) & (fabs(rc) <= big);
}

/* The reduced systems by parallel cyclic reduction, thread t = s*P + p
 * owning reduced row p of system s: log2(P) steps with two block barriers
 * each, instead of 2P dependent steps on one thread while the other P-1
 * idle (that serial tail dominated the tile's time for P >= 16).  PCR does
 * not pivot, so besides the partitions' guard every divisor must stay
 * above GT_TOL times the system's largest reduced entry, and no entry may
 * grow past that largest entry / GT_TOL (a bounded growth factor keeps the
 * backward error of the unpivoted elimination small); otherwise the
 * system goes to the sequential fallback like any other guarded failure.
 * Every thread of the block must call this (barriers inside). */
template <typename R>
__device__ __forceinline__ void gt_reduced_pcr(bool run, int t, int s, int p, int P, R *Red, int SP, R *smax,
                                               int *flag, bool recip)
{
    R *RA = Red, *RB = RA + SP, *RC = RB + SP, *RD = RC + SP;
    R *RGS = RD + SP, *RVS = RGS + SP, *RWS = RVS + SP;
    R ra = 0, rb = 1, rc = 0, rd = 0;
    if (run) { /* fold the next partition's first interior row into row p */
        ra = p > 0 ? RA[t] : R(0), rb = RB[t], rd = RD[t];
        const R c = RC[t];
        if (p + 1 < P) rb -= c * RVS[t + 1], rc = -c * RWS[t + 1], rd -= c * RGS[t + 1];
        R mx = fmax(fabs(ra), fmax(fabs(rb), fabs(rc)));
        /* same-address shared atomics serialize (P per system, a 64-bit max at that):
         * with whole warps per system (run warp-uniform), one per warp */
        if ((P & 31) == 0) {
#pragma unroll
            for (int o = 16; o; o >>= 1) mx = fmax(mx, __shfl_xor_sync(0xffffffffu, mx, o));
            if ((t & 31) == 0) gt_smax(smax + s, mx);
        } else {
            gt_smax(smax + s, mx);
        }
    }
    __syncthreads();
    const R sm = run ? smax[s] : R(0), tol = R(GT_TOL) * sm, big = sm * R(1 / GT_TOL);
    bool ok = true;
    /* the levels' rows side by side (gt_row4_put), over RA..RVS: the fold
     * above has read them */
    R *const me = Red + 6 * t;
    for (int h = 1; h < P; h <<= 1) {
        /* recip: the pivot as 1 / rb, one reciprocal per row and level for
         * both neighbours' multipliers instead of their two divisions */
        if (run) gt_row4_put<R>(me, ra, recip ? R(1) / rb : rb, rc, rd);
        __syncthreads();
        if (run) {
            auto row = [&](int d) {
                return [=](R &a, R &b, R &c, R &dd) { gt_row4_get<R>(me + 6 * d, a, b, c, dd); };
            };
            ok = gt_pcr_level<R>(recip, ra, rb, rc, rd, p >= h, row(-h), p + h < P, row(h), tol, big) && ok;
        }
        __syncthreads();
    }
    if (run) {
        ok = ok && fabs(rb) >= tol;
        const R x = rd / rb;
        if (!ok || x != x) flag[s] = 1;
        RVS[t] = x;
    }
}

/* A partition's interior rows s0 .. s0+ni-1 from shared memory into
 * registers (zeros beyond), all loads independent and in flight together. */
template <typename R, int L, typename IX>
__device__ __forceinline__ void gt_part_load(int s0, int ni, IX I, const R *Lg, const R *Dg, const R *Ug, const R *Bv,
                                             R (&al)[L], R (&dg)[L], R (&up)[L], R (&bb)[L])
{
#pragma unroll
    for (int j = 0; j < L - 1; j++) {
        al[j] = dg[j] = up[j] = bb[j] = 0;
        if (j < ni) {
            const int o = I(s0 + j);
            al[j] = Lg[o], dg[j] = Dg[o], up[j] = Ug[o], bb[j] = Bv[o];
        }
    }
}

/* One partition's sweep, thread (s, p) owning rows s0 = p*L .. e, with
 * compile-time L so every row below is a register: the rows are read from
 * shared memory once (independent loads, all in flight together) and the
 * dependent chain of eliminations never waits on shared memory, which was
 * the latency that bounded the tile at few resident warps per SM.  Leaves
 * g, v, w of the interior rows for the final x_i = g_i - v_i x_{s-1} -
 * w_i x_e and returns the partition's reduced row (ra x_{s-1} + rb x_e +
 * rc x_{e+1} = rd before the next partition's first row is folded in) and
 * its first interior row's gs, vs, ws.  False when the partition's guard
 * fails (zero or tiny pivot, non-finite entry). */
template <typename R, int METHOD, int L, bool FULL, typename IX>
__device__ __forceinline__ bool gt_part_reg(int m, int p, IX I, const R *Lg, const R *Dg, const R *Ug,
                                            const R *Bv, R (&g)[L], R (&v)[L], R (&w)[L], R &ra, R &rb, R &rc,
                                            R &rd, R &gs, R &vs, R &ws)
{
    /* FULL (every partition but a system's last, short one): ni is a
     * compile-time constant and all the guards and selects below fold
     * away; they had cost more issue slots than the arithmetic. */
    const int s0 = p * L, len = FULL ? L : (m - s0 < L ? m - s0 : L), ni = len - 1, e = s0 + ni;
    R al[L], dg[L], up[L], bb[L];
    gt_part_load<R, L>(s0, ni, I, Lg, Dg, Ug, Bv, al, dg, up, bb);
    const int oe = I(e);
    const R ae = Lg[oe], be = Dg[oe], ce = e + 1 < m ? Ug[oe] : R(0), de = Bv[oe];
    R probe = ae * R(0) + be * R(0) + ce * R(0) + de * R(0), amax = 0, rvmax = 0;
    bool zero = false;
    R gl, vl, wl;
    if (ni > 0) {
        R c0 = dg[0], c1 = ni > 1 ? up[0] : R(0);
        R y0 = bb[0], y1 = p > 0 ? al[0] : R(0), y2 = ni == 1 ? up[0] : R(0), y2k = 0;
        probe += c0 * R(0) + up[0] * R(0) + y0 * R(0) + y1 * R(0);
        amax = fmax(fabs(c0), fabs(c1));
        R rr[L], u1[L], u2[L];
#pragma unroll
        for (int j = 0; j + 2 < L; j++) {
            rr[j] = u1[j] = u2[j] = g[j] = v[j] = 0;
            if (j + 1 < ni) {
                const R a = al[j + 1], nd = dg[j + 1], uraw = up[j + 1], nb0 = bb[j + 1];
                const R nu = j + 2 < ni ? uraw : R(0);
                probe += a * R(0) + nd * R(0) + uraw * R(0) + nb0 * R(0);
                amax = fmax(amax, fmax(fabs(a), fmax(fabs(nd), fabs(nu))));
                R q0, q1, r, uu1, uu2;
                bool z;
                bsi_gt_step<R, METHOD>(c0, c1, a, nd, nu, q0, q1, r, uu1, uu2, z);
                zero = zero || z;
                rvmax = fmax(rvmax, fabs(r));
                R n0 = nb0, n1 = 0, n2 = j + 2 == ni ? uraw : R(0);
                const R t0 = bsi_gt_apply<R, METHOD>(q0, q1, y0, n0);
                const R t1 = bsi_gt_apply<R, METHOD>(q0, q1, y1, n1);
                const R t2 = bsi_gt_apply<R, METHOD>(q0, q1, y2, n2);
                y0 = n0, y1 = n1, y2 = n2;
                y2k = t2; /* nonzero only for the last j */
                rr[j] = r, u1[j] = uu1, u2[j] = uu2, g[j] = t0, v[j] = t1;
            }
        }
        zero = zero || c0 == R(0);
        const R rl = R(1) / (c0 == R(0) ? R(1) : c0);
        rvmax = fmax(rvmax, fabs(rl));
        /* back substitution for the three right-hand sides */
        R g1 = y0 * rl, v1 = y1 * rl, w1 = y2 * rl, g2 = 0, v2 = 0, w2 = 0;
        gl = g1, vl = v1, wl = w1;
        /* Selects, not `if (j == ni - 1) g[j] = ...`: the compiler turns that
         * idiom into a store at the run-time index ni - 1, which moves g, v,
         * w to local memory. */
#pragma unroll
        for (int j = L - 2; j >= 0; j--) {
            const bool last = j == ni - 1, inner = j < ni - 1;
            const R gg = (g[j] - u1[j] * g1 - u2[j] * g2) * rr[j];
            const R vv = (v[j] - u1[j] * v1 - u2[j] * v2) * rr[j];
            const R ww = ((j == ni - 2 ? y2k : R(0)) - u1[j] * w1 - u2[j] * w2) * rr[j];
            g[j] = last ? g1 : inner ? gg : R(0);
            v[j] = last ? v1 : inner ? vv : R(0);
            w[j] = last ? w1 : inner ? ww : R(0);
            g2 = inner ? g1 : g2, v2 = inner ? v1 : v2, w2 = inner ? w1 : w2;
            g1 = inner ? gg : g1, v1 = inner ? vv : v1, w1 = inner ? ww : w1;
        }
        gs = g1, vs = v1, ws = w1;
    } else { /* no interior: x_{e-1} = x_{s-1}; x_s = x_e */
        gs = 0, vs = 0, ws = -1;
        gl = 0, vl = -1, wl = 0;
    }
    ra = -ae * vl;
    rb = be - ae * wl;
    rd = de - ae * gl;
    rc = ce;
    return !zero && rvmax * amax * R(GT_TOL) <= R(1) && probe == probe;
}

/* gt_part_reg on partition p of any length: the FULL copy for every
 * partition but a system's last, short one. */
template <typename R, int METHOD, int L, typename IX>
__device__ __forceinline__ bool gt_part_reg_any(int m, int p, IX I, const R *Lg, const R *Dg, const R *Ug,
                                                const R *Bv, R (&g)[L], R (&v)[L], R (&w)[L], R &ra, R &rb, R &rc,
                                                R &rd, R &gs, R &vs, R &ws)
{
    return (p + 1) * L <= m
               ? gt_part_reg<R, METHOD, L, true>(m, p, I, Lg, Dg, Ug, Bv, g, v, w, ra, rb, rc, rd, gs, vs, ws)
               : gt_part_reg<R, METHOD, L, false>(m, p, I, Lg, Dg, Ug, Bv, g, v, w, ra, rb, rc, rd, gs, vs, ws);
}

/* Programmatic dependent launch (sm_90): a grid launched with it may start
 * while the grid before it in the stream runs; it waits here, before its
 * first global access, until that grid has completed and its writes are
 * visible, then lets the next grid launch in turn.  Both are no-ops for a
 * grid launched the ordinary way. */
__device__ __forceinline__ void gt_grid_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

/* 8-row partitions (LSH == 3) serve m = 17..2048 in blocks of up to 128
 * threads at m >= 512: a ceiling of 128 registers (2 blocks of 256) keeps 4
 * such blocks resident.  Left free, ptxas can give PARTIAL 132 registers
 * (3 blocks, 15% slower at m = 1024). */
template <typename R, int METHOD, int LSH>
__global__ void __launch_bounds__(256, LSH == 3 ? 2 : 0) gt_tilek(const gt_tile_args<R> A)
{
    gt_grid_wait();
    constexpr int L = 1 << LSH; /* partition rows (P > 1; A.lsh == LSH there) */
    extern __shared__ __align__(16) unsigned char gt_tsm[];
    const int m = A.m, S = A.S, P = A.P, lsh = A.lsh, ss = A.ss;
    const int64_t k0 = (int64_t)blockIdx.x * S;
    const int nsys = A.batch - k0 < S ? (int)(A.batch - k0) : S;
    R *Lg = (R *)gt_tsm, *Dg = Lg + S * ss, *Ug = Dg + S * ss, *Bv = Ug + S * ss;
    R *Red = Lg + (size_t)A.na * S * ss;    /* 7 reduced arrays of S*P */
    R *smax = Red + 7 * S * P;              /* per system: largest reduced entry */
    int *flag = (int *)(smax + S);          /* per system */

    /* One walk for all four arrays where it measured faster: contiguous
     * systems, and interleaved tiles of >= 8 systems (64-byte rows); with
     * 4-system interleaved tiles (m >= 256) four separate walks are 7%
     * faster (fewer DRAM pages open at once, presumably). */
    if ((A.dis == 1 && A.bis == 1) || (A.dis != 1 && A.bis != 1 && S >= 8)) {
        gt_tile_load4(A, Lg, S * ss, k0, nsys, m, lsh, ss);
    } else {
        gt_tile_move<R, true>(Lg, A.dl, nullptr, A.dks, A.dis, k0, nsys, m, lsh, ss, S);
        gt_tile_move<R, true>(Dg, A.d, nullptr, A.dks, A.dis, k0, nsys, m, lsh, ss, S);
        gt_tile_move<R, true>(Ug, A.du, nullptr, A.dks, A.dis, k0, nsys, m, lsh, ss, S);
        gt_tile_move<R, true>(Bv, A.B, nullptr, A.bks, A.bis, k0, nsys, m, lsh, ss, S);
    }
    for (int s = threadIdx.x; s < S; s += blockDim.x) flag[s] = 0, smax[s] = 0;
    gt_cp_wait();
    __syncthreads();

    const int t = threadIdx.x;
    if (LSH == 0 || P == 1) { /* LSH == 0: compiled for P == 1 alone (fewer registers) */
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
    const int s = t / P, p = t - s * P;
    const bool act = t < S * P && s < nsys;
    R *RA = Red, *RB = RA + S * P, *RC = RB + S * P, *RD = RC + S * P;
    R *RGS = RD + S * P, *RVS = RGS + S * P, *RWS = RVS + S * P;
    const int base = s * ss;
    auto I = [=](int i) { return base + i + (i >> LSH); };
    R g[L], v[L], w[L];
    if (act) {
        R ra, rb, rc, rd, gs, vs, ws;
        const bool ok = gt_part_reg_any<R, METHOD, L>(m, p, I, Lg, Dg, Ug, Bv, g, v, w, ra, rb, rc, rd, gs, vs, ws);
        RA[t] = ra, RB[t] = rb, RC[t] = rc, RD[t] = rd;
        RGS[t] = gs, RVS[t] = vs, RWS[t] = ws;
        if (!ok) flag[s] = 1;
    }
    __syncthreads();
    if (A.pcr)
        gt_reduced_pcr<R>(act && !flag[s], t, s, p, P, Red, S * P, smax, flag, A.pcr == 2);
    else
        gt_reduced_seq<R, METHOD>(act && p == 0 && !flag[s], s, P, Red, S * P, flag);
    __syncthreads();
    if (act && !flag[s]) {
        const int s0 = p * L, len = m - s0 < L ? m - s0 : L, ni = len - 1;
        const R xe = RVS[t], xs1 = p > 0 ? RVS[t - 1] : R(0);
#pragma unroll
        for (int j = 0; j < L - 1; j++)
            if (j < ni) Bv[I(s0 + j)] = g[j] - v[j] * xs1 - w[j] * xe;
        Bv[I(s0 + ni)] = xe;
    }
    if (act && p == 0) {
        int32_t inf = 0;
        if (flag[s]) /* the sequential fallback, from global memory */
            inf = gt_seq_onchip<R, METHOD>(m, gt_global_rows(A, k0 + s, m), I, Lg, Dg, Ug, Bv);
        if (A.info) A.info[k0 + s] = gt_merge(A.merge, A.info[k0 + s], inf);
    }
    __syncthreads();
    gt_tile_move<R, false>(Bv, nullptr, A.B, A.bks, A.bis, k0, nsys, m, lsh, ss, S);
}

#endif
