/*
 * lu_getrs_team.cuh -- getrs with a team of T threads per system (one
 * right-hand side at a time; lu_dispatch.cuh's table says for which n):
 * the solve of a Newton iteration with a frozen Jacobian.
 *
 * Why: the thread-per-system getrs (lu_getrs.cuh) keeps 16 loads of a
 * column in flight, so at n = 128 a thread makes some 1150 dependent trips
 * to memory, and a batch of 1 GB (8192 systems) is too few threads to hide
 * them: 20% of getrs's floor.  Here T threads share a system's column, LV
 * rows each per group of loads, so a step whose column fits in T LV rows
 * is one trip; and the loads of the next D groups (of this step or the
 * next ones) are in flight while a group is applied, in D + 1 register
 * buffers used in turn (a move between buffers would wait on the loads).
 * In FP32 a thread may also own V = 2 neighbouring systems: its loads are
 * 8 bytes and a warp's are 256 bytes of one entry, as in FP64.
 *
 * Walk W = 0 cuts each step's rows into groups, so what is in flight is at
 * most the next D groups' rows: near the ends of both substitutions a step
 * has few rows, every step waits for a trip to memory (and for the next
 * pivot and diagonal entry, loaded a step ahead), and above n = 64, where a
 * batch of 1 GB is some 60 (FP64 n = 128) to 160 (n = 80) systems per SM,
 * 2n such trips cap getrs near half its floor.  W = 1 reads the factors as
 * one stream, the entries in the order the solve uses them (column k rows
 * k + 1..n-1 for k = 0..n-2, then column i rows i, i-1, ..., 0 for i =
 * n-1..0), cut into chunks of TLV entries: the thread of rank r loads
 * entries r, r + T, r + 2T, ... of it, LV a chunk, and the next D chunks
 * are in flight while one is applied, whichever steps they hold.  The
 * pivots go to shared memory with b, and a backward step's diagonal entry
 * is the first of its run: the thread that loaded it stores x_i in b_i, and
 * after a barrier the team reads it there; so a step waits on memory only
 * when its chunk has not arrived.
 *
 * Shape (template arguments, lu_dispatch.cuh's shape code W D TL TW V):
 * TL consecutive lanes of a warp times TW warps form a team (T = TL TW);
 * lane l of warp w in the team has rank l + TL (w mod TW) and, at step k of
 * the forward substitution (W = 0), rows k + 1 + rank + T u; a warp's load
 * of one row covers SPG = 32 V / TL consecutive systems (whole 32-byte
 * sectors for the shapes compiled).  The TW warps holding the same systems
 * are a group; they synchronise with a named barrier (TW > 1) or
 * __syncwarp.
 *
 * b lives in shared memory, a column per system of the group: entry (i, s)
 * at word i SPG + s, so a warp's access to one row of its systems is
 * conflict-free and the interchanges index it at run time (W = 1 keeps the
 * row interchanges there too, a byte each, in the same order).  Step k of
 * the forward substitution: every thread reads b_p and b_k (p the pivot
 * row), then (barrier) rank 0 stores b_k := b_p and the thread that updates
 * row p stores b_p := b_k, then each thread updates its rows, then a
 * barrier.  The backward substitution (W = 0) computes x_i in every thread
 * of the team and stores it one step later (no thread reads entry i + 1 at
 * step i), so one barrier per step; W = 1 has two (x_i stored, then read).
 *
 * Numerics are lu_getrs.cuh's, operation for operation: interchange k,
 * then b_i -= l_ik b_k (LINPACK form), then x_i = (y_i s) (1 / (u_ii s))
 * with s = 2^64 (2^32) for a subnormal u_ii, b_r -= u_ri x_i, then the
 * column interchanges of FULL; a failed factorization or a non-finite b
 * gives NaN.  The results are bit-identical to that kernel's.
 *
 * Threads past the batch's end compute a copy of the last system (V = 2:
 * a pair beyond the last one reads the factors of the unused system after
 * it, which lies inside the factor object's leading dimension) and store
 * nothing, so that every barrier sees the whole group.
 *
 * On a list of systems (masked getrs, common.cuh; template flag LIST) a
 * thread's V systems are list entries 32 / TL apart, so that a warp's load
 * of one row for one of them covers 32 / TL consecutive entries (whole
 * sectors where the list is dense); V = 2 then loads each system's entry
 * by itself (two listed systems need not be neighbours).  Entries past the
 * list's end compute a copy of its last system and store nothing.
 */
#ifndef BSI_LU_GETRS_TEAM_CUH
#define BSI_LU_GETRS_TEAM_CUH

#include "lu_dispatch.cuh"
#include "lu_getrs.cuh" /* bsg_recip, bsw_lim */

/* Compile-time shape of one instantiation. */
template <typename R, int TL, int TW, int V, int D, int W> struct bsr_shape {
    static constexpr int T = TL * TW;                         /* threads of a team */
    static constexpr int SPG = 32 / TL * V;                   /* systems of a group (one warp's lanes) */
    static constexpr int NT = TW == 1 ? 64 : 32 * TW;         /* threads per block */
    static constexpr int GPB = NT / (32 * TW);                /* groups per block */
    static constexpr int LV = (sizeof(R) == 8 ? 16 : 32) / V; /* rows per thread in one group of loads */
    static constexpr int TLV = T * LV;                        /* rows of a column (W = 1: entries of a chunk) in one group of loads */
    /* blocks per SM asked of ptxas: 16 warps, <= 128 registers, with two
     * groups in flight 12 warps, <= 168 (FP64 pairs of W = 0 would spill: no
     * bound) */
    static constexpr int MINB = W == 0 && sizeof(R) == 8 && V == 2 ? 1 : (D == 1 ? 512 : 384) / NT;
    static_assert(TL >= 1 && TL <= 32 && 32 % TL == 0 && (TW == 1 || TL == 1) && (V == 1 || V == 2), "shape");
    static_assert((T & (T - 1)) == 0, "teams of a power of two");
    static_assert(D == 1 || D == 2, "groups in flight");
    static_assert(W == 0 || W == 1, "walk");
    static_assert(LV % 4 == 0, "loads go in fours");
};

/* Shared memory of a block for order n: b of every system, then a flag per
 * system (a non-finite entry of b seen by some thread of its team), then
 * (W = 1) the row interchanges, a byte each. */
template <typename R, int TL, int TW, int V, int D, int W> constexpr size_t bsr_smem(int n)
{
    using S = bsr_shape<R, TL, TW, V, D, W>;
    return (size_t)S::GPB * S::SPG * ((size_t)n * sizeof(R) + sizeof(int) + (size_t)W * n);
}

/* V entries of consecutive systems as one access. */
template <typename R, int V> struct bsr_vec;
template <typename R> struct bsr_vec<R, 1> {
    static __device__ __forceinline__ void ld(R (&d)[1], const R *p) { d[0] = *p; }
    static __device__ __forceinline__ void st(R *p, const R (&s)[1]) { *p = s[0]; }
};
template <typename R> struct bsr_vec<R, 2> {
    typedef typename bsi_pair<R>::T P;
    static __device__ __forceinline__ void ld(R (&d)[2], const R *p)
    {
        const P t = *reinterpret_cast<const P *>(p);
        d[0] = t.x;
        d[1] = t.y;
    }
    static __device__ __forceinline__ void st(R *p, const R (&s)[2]) { *reinterpret_cast<P *>(p) = bsi_pair<R>::mk(s[0], s[1]); }
};

template <typename R, int TL, int TW, int V, int D, int W, bool LIST>
__global__ void __launch_bounds__(bsr_shape<R, TL, TW, V, D, W>::NT, bsr_shape<R, TL, TW, V, D, W>::MINB)
    bsr_k(const bsi_lu_args<R> a)
{
    using S = bsr_shape<R, TL, TW, V, D, W>;
    using L = bsw_lim<R>;
    using VO = bsr_vec<R, V>;
    constexpr int T = S::T, SPG = S::SPG, LV = S::LV, TLV = S::TLV;
    extern __shared__ __align__(16) unsigned char bsr_sm[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int rank = lane % TL + TL * (warp % TW), wg = warp / TW;
    const int n = a.n, piv = a.pivot;
    const int64_t g0 = ((int64_t)blockIdx.x * S::GPB + wg) * SPG, cnt = bsi_lu_count<LIST>(a);
    if (g0 >= cnt) return; /* the whole group: no barrier waits for it */
    const int j0 = lane / TL * V; /* this thread's first column of b in the group */
    /* this thread's systems: s0 + sv(v) (without a list sv(v) = v; with
     * one dv[v], the listed systems lying within BSI_SEL_MAX of each other) */
    int64_t s0 = g0 + j0;
    int dv[V];
    bool val[V];
    if constexpr (LIST) {
#pragma unroll
        for (int v = 0; v < V; v++) {
            const int64_t li = g0 + lane / TL + v * (32 / TL);
            val[v] = li < cnt;
            const int64_t sy = bsi_lu_sys<LIST>(a, val[v] ? li : cnt - 1);
            if (v == 0) s0 = sy;
            dv[v] = (int)(sy - s0);
        }
    } else {
#pragma unroll
        for (int v = 0; v < V; v++) val[v] = s0 + v < a.count;
        if (s0 >= a.count) s0 = (a.count - 1) / V * V;
    }
    auto sv = [&](int v) -> int64_t {
        if constexpr (LIST) return dv[v];
        else return v;
    };
    /* one entry of each of this thread's systems, system s0's at p */
    auto ldv = [&](R(&d)[V], const R *p) {
        if constexpr (LIST) {
#pragma unroll
            for (int v = 0; v < V; v++) d[v] = p[v == 0 ? 0 : dv[v]];
        } else {
            VO::ld(d, p);
        }
    };
    R *bs = reinterpret_cast<R *>(bsr_sm) + (size_t)wg * n * SPG + j0; /* entry (i, v) at bs[i * SPG + v] */
    int *const fl0 = reinterpret_cast<int *>(reinterpret_cast<R *>(bsr_sm) + (size_t)S::GPB * n * SPG);
    int *fl = fl0 + wg * SPG + j0;
    uint8_t *ps = reinterpret_cast<uint8_t *>(fl0 + S::GPB * SPG) + (size_t)wg * n * SPG + j0; /* W = 1: the interchanges, as b */
#define BSR_B(i, v) bs[(i) * SPG + (v)]
#define BSR_P(i, v) ps[(i) * SPG + (v)]
    const R *F = a.F + s0;
    const uint8_t *rp = a.rp + s0, *cp = a.cp + s0;
    const int64_t fs = a.fld, cs = (int64_t)n * a.fld; /* row and column strides of the factors */
    const int64_t ks = a.vb.ks, is = a.vb.is, js = a.vb.js;
    int finfo[V], badb[V], firstbad[V];
#pragma unroll
    for (int v = 0; v < V; v++) {
        finfo[v] = val[v] ? a.finfo[s0 + sv(v)] : 0;
        badb[v] = 0;
        firstbad[v] = -1;
    }

    auto sync = [&]() {
        if constexpr (T == 1) {
        } else if constexpr (TW == 1) {
            __syncwarp();
        } else {
            asm volatile("bar.sync %0, %1;" ::"r"(wg + 1), "n"(32 * TW) : "memory");
        }
    };
    /* One group of loads: rows r0 + rank + T u (u < LV) of column col,
     * those below row end; in fours behind a test uniform over the warp. */
    const int64_t ts = T * fs; /* T rows */
    auto issue = [&](R(&f)[LV][V], int col, int r0, int end) {
        const R *c = F + (int64_t)col * cs + (int64_t)(r0 + rank) * fs;
#pragma unroll
        for (int q = 0; q < LV; q += 4)
            if (r0 + q * T < end)
#pragma unroll
                for (int u = q; u < q + 4; u++) {
                    if (r0 + rank + u * T < end) ldv(f[u], c);
                    c += ts;
                }
    };
    /* b_r -= f_r x for the rows of one group */
    auto apply = [&](const R(&f)[LV][V], int r0, int end, const R(&x)[V]) {
        R *b = bs + (r0 + rank) * SPG;
#pragma unroll
        for (int q = 0; q < LV; q += 4)
            if (r0 + q * T < end)
#pragma unroll
                for (int u = q; u < q + 4; u++)
                    if (r0 + rank + u * T < end) {
                        R y[V];
                        VO::ld(y, b + u * T * SPG);
#pragma unroll
                        for (int v = 0; v < V; v++) y[v] = fma(-f[u][v], x[v], y[v]);
                        VO::st(b + u * T * SPG, y);
                    }
    };

    /* The groups in order: forward steps k = 0..n-2 (rows k+1..n-1 of
     * column k), then backward steps i = n-1..1 (rows 0..i-1 of column i),
     * each in groups of TLV rows.  Two cursors walk them: the group applied
     * next (cc) and the group loaded next (ic), D groups ahead. */
    struct bsr_cursor {
        int d, k, g; /* direction (0 forward), step, group */
        bool have;
    } cc = {0, 0, 0, false}, ic = cc;
    auto advance = [&](bsr_cursor &u) {
        if (u.d == 0) {
            if (u.k + 1 + (u.g + 1) * TLV < n) u.g++;
            else if (u.k + 1 < n - 1) { u.k++; u.g = 0; }
            else { u.d = 1; u.k = n - 1; u.g = 0; u.have = u.k >= 1; }
        } else {
            if ((u.g + 1) * TLV < u.k) u.g++;
            else { u.k--; u.g = 0; u.have = u.k >= 1; }
        }
    };
    auto issue_next = [&](R(&f)[LV][V]) {
        if (!ic.have) return;
        if (ic.d == 0) issue(f, ic.k, ic.k + 1 + ic.g * TLV, n);
        else issue(f, ic.k, ic.g * TLV, ic.k);
        advance(ic);
    };

    R fa[LV][V], fb[LV][V], fc[LV][V]; /* the buffers of factor loads (D + 1 used) */
    int pn[V];                         /* the pivot row of the next forward step */
    R dn[V];                           /* the diagonal entry of the next backward step */
    R bk[V], xv[V], xprev[V];

    /* forward step k: interchange k (own: the rank that updates row k + 1) */
    auto fstart = [&](int k, int own) {
        int p[V];
        R bo[V];
        if constexpr (W == 0) {
#pragma unroll
            for (int v = 0; v < V; v++) p[v] = piv != BSOLVE_PIVOT_NONE ? pn[v] : k;
            if (piv != BSOLVE_PIVOT_NONE && k + 1 < n - 1)
#pragma unroll
                for (int v = 0; v < V; v++) pn[v] = val[v] ? rp[(int64_t)(k + 1) * fs + sv(v)] : k + 1;
        } else
#pragma unroll
            for (int v = 0; v < V; v++) p[v] = piv != BSOLVE_PIVOT_NONE ? BSR_P(k, v) : k;
#pragma unroll
        for (int v = 0; v < V; v++) {
            bk[v] = BSR_B(p[v], v);
            bo[v] = BSR_B(k, v);
        }
        if (piv != BSOLVE_PIVOT_NONE) {
            sync(); /* entries p and k read by every thread before they change */
#pragma unroll
            for (int v = 0; v < V; v++)
                if (p[v] != k) {
                    if (rank == 0) BSR_B(k, v) = bk[v];
                    if (rank == ((own + p[v] - k - 1) & (T - 1))) BSR_B(p[v], v) = bo[v];
                }
        }
    };
    /* backward step i: x_i (stored at the next step, see above) */
    auto bstart = [&](int i) {
        R d[V];
#pragma unroll
        for (int v = 0; v < V; v++) d[v] = dn[v];
        if (i > 0) ldv(dn, F + (int64_t)(i - 1) * (cs + fs));
#pragma unroll
        for (int v = 0; v < V; v++) {
            bool tiny;
            const R rinv = bsg_recip(d[v], tiny);
            xv[v] = (BSR_B(i, v) * (tiny ? L::up() : R(1))) * rinv;
        }
        if (i < n - 1 && rank == 0)
#pragma unroll
            for (int v = 0; v < V; v++) BSR_B(i + 1, v) = xprev[v];
#pragma unroll
        for (int v = 0; v < V; v++) xprev[v] = xv[v];
    };
    /* Applies group cc from cur while group ic loads into nxt (the buffer
     * of the group applied before). */
    auto consume = [&](R(&cur)[LV][V], R(&nxt)[LV][V]) {
        const bsr_cursor u = cc;
        advance(cc);
        issue_next(nxt);
        if (u.d == 0) {
            if (u.g == 0) fstart(u.k, 0);
            apply(cur, u.k + 1 + u.g * TLV, n, bk);
        } else {
            if (u.g == 0) bstart(u.k);
            apply(cur, u.g * TLV, u.k, xv);
        }
        if (!cc.have || cc.d != u.d || cc.k != u.k) sync(); /* the step's updates before the next step reads them */
    };

    /* W = 1: run j of the stream is forward step j (column j from row j + 1
     * down) for j < n - 1, else backward step i = 2n - 2 - j (column i from
     * row i, the diagonal, up): n - 1, ..., 1 entries, then n, ..., 1. */
    const int nruns = n > 0 ? 2 * n - 1 : 0;
    auto runlen = [&](int j) { return j < n - 1 ? n - 1 - j : 2 * n - 1 - j; };
    auto runent = [&](int j) { return j < n - 1 ? j * (n + 1) + 1 : (2 * n - 2 - j) * (n + 1); }; /* first entry, row + n col */
    /* this thread's next load: run lj, entry loff of it (lln entries), at
     * lp, the next at lp + lts; rank + T m is the m-th, for m = 0, 1, ... */
    int lj = 0, loff = rank, lln = 0;
    const R *lp = F;
    int64_t lts = ts;
    auto lnext = [&]() { /* from entry loff of run lj (which may lie beyond it) to the next one there is */
        while (lj < nruns && loff >= lln) {
            loff -= lln;
            if (++lj < nruns) lln = runlen(lj);
        }
        const bool fw = lj < n - 1;
        lts = fw ? ts : -ts;
        lp = F + (int64_t)(lj < nruns ? runent(lj) + (fw ? loff : -loff) : 0) * fs;
    };
    auto sissue = [&](R(&f)[LV][V]) {
#pragma unroll
        for (int q = 0; q < LV; q += 4)
            if (lj < nruns)
#pragma unroll
                for (int u = q; u < q + 4; u++)
                    if (lj < nruns) {
                        ldv(f[u], lp);
                        lp += lts;
                        if ((loff += T) >= lln) lnext(); /* within a run, the next entry is T rows on */
                    }
    };
    /* b_r -= f_u x for entries ulo <= u < uhi of a chunk, entry u in row
     * r0 + T u (dir > 0) or r0 - T u */
    auto sapply = [&](int dir, const R(&f)[LV][V], int ulo, int uhi, int r0, const R(&x)[V]) {
        const int DT = dir * T * SPG; /* dir a constant at both calls */
        R *b0 = bs + r0 * SPG;
#pragma unroll
        for (int q = 0; q < LV; q += 4)
            if (q < uhi && q + 4 > ulo)
#pragma unroll
                for (int u = q; u < q + 4; u++)
                    if (u >= ulo && u < uhi) {
                        R *b = b0 + u * DT;
                        R y[V];
                        VO::ld(y, b);
#pragma unroll
                        for (int v = 0; v < V; v++) y[v] = fma(-f[u][v], x[v], y[v]);
                        VO::st(b, y);
                    }
    };
    /* the chunk applied next (cch), the run it is in (cj, its first entry
     * at position cp0 of the stream, cln entries) */
    int cch = 0, cj = 0, cp0 = 0, cln = 0;
    /* Applies chunk cch from cur while chunk cch + D loads into nxt: the
     * runs in it, each started where it begins and closed by a barrier
     * where it ends. */
    auto sconsume = [&](R(&cur)[LV][V], R(&nxt)[LV][V]) {
        sissue(nxt);
        const int c0 = cch * TLV, c1 = c0 + TLV;
        cch++;
        while (cj < nruns && cp0 < c1) {
            const bool fw = cj < n - 1;
            const int k = fw ? cj : 2 * n - 2 - cj;
            if (cp0 >= c0) {
                if (fw) fstart(k, cp0);
                else { /* x_k = b_k / u_kk in the thread that loaded u_kk, then read by all */
                    if (rank == (cp0 & (T - 1))) {
                        const int ud = (cp0 - c0) / T;
                        R d[V];
#pragma unroll
                        for (int u = 0; u < LV; u++)
                            if (u == ud)
#pragma unroll
                                for (int v = 0; v < V; v++) d[v] = cur[u][v];
#pragma unroll
                        for (int v = 0; v < V; v++) {
                            bool tiny;
                            const R rinv = bsg_recip(d[v], tiny);
                            BSR_B(k, v) = (BSR_B(k, v) * (tiny ? L::up() : R(1))) * rinv;
                        }
                    }
                    sync(); /* x_k stored before the team reads it */
#pragma unroll
                    for (int v = 0; v < V; v++) xv[v] = BSR_B(k, v);
                }
            }
            /* this thread's entries of the run in the chunk, positions
             * c0 + rank + T u in [lo, hi) (a backward run's first is its
             * diagonal entry) */
            const int p0 = cp0 + !fw, lo = max(p0, c0) - c0 - rank + T - 1, hi = min(cp0 + cln, c1) - c0 - rank + T - 1;
            if (fw) sapply(1, cur, (unsigned)lo / T, (unsigned)hi / T, k + 1 - cp0 + c0 + rank, bk);
            else sapply(-1, cur, (unsigned)lo / T, (unsigned)hi / T, k + cp0 - c0 - rank, xv);
            if (cp0 + cln > c1) break;
            sync(); /* the step's updates before the next step reads them */
            cp0 += cln;
            if (++cj < nruns) cln = runlen(cj);
        }
    };

    for (int c = 0; c < a.nrhs; c++) {
        R *B = a.B + s0 * ks + c * js;
        if (c > 0) sync(); /* the last column's stores have read b */
        if constexpr (W == 0) {
            cc = {0, 0, 0, n >= 2};
            ic = cc;
            issue_next(fa);
            if (D == 2) issue_next(fb);
#pragma unroll
            for (int v = 0; v < V; v++) pn[v] = piv != BSOLVE_PIVOT_NONE && val[v] ? rp[sv(v)] : 0;
            ldv(dn, F + (int64_t)(n - 1) * (cs + fs));
        } else {
            lj = 0;
            loff = rank;
            lln = runlen(0);
            lnext();
            cch = 0;
            cj = 0;
            cp0 = 0;
            cln = runlen(0);
            sissue(fa);
            if (D == 2) sissue(fb);
        }
        if (T > 1 && rank == 0)
#pragma unroll
            for (int v = 0; v < V; v++) fl[v] = 0;
        if constexpr (W == 1) /* the interchanges, once, eight loads per thread in flight */
            if (c == 0 && piv != BSOLVE_PIVOT_NONE)
                for (int i = rank; i < n - 1; i += 8 * T) { /* rows i + T u */
                    int p[8][V];
#pragma unroll
                    for (int u = 0; u < 8; u++)
#pragma unroll
                        for (int v = 0; v < V; v++) p[u][v] = i + u * T < n - 1 && val[v] ? rp[(int64_t)(i + u * T) * fs + sv(v)] : i + u * T;
#pragma unroll
                    for (int u = 0; u < 8; u++)
                        if (i + u * T < n - 1)
#pragma unroll
                            for (int v = 0; v < V; v++) BSR_P(i + u * T, v) = (uint8_t)p[u][v];
                }
        /* b into shared memory, eight loads per thread in flight */
        int nb[V];
#pragma unroll
        for (int v = 0; v < V; v++) nb[v] = 0;
        for (int i0 = 0; i0 < n; i0 += 8 * T) {
            R y[8][V];
#pragma unroll
            for (int u = 0; u < 8; u++)
#pragma unroll
                for (int v = 0; v < V; v++) {
                    const int i = i0 + rank + u * T;
                    y[u][v] = i < n && val[v] ? B[sv(v) * ks + i * is] : R(0);
                }
#pragma unroll
            for (int u = 0; u < 8; u++) {
                const int i = i0 + rank + u * T;
                if (i < n) {
#pragma unroll
                    for (int v = 0; v < V; v++) nb[v] |= !(fabs(y[u][v]) <= L::maxv());
                    VO::st(&BSR_B(i, 0), y[u]);
                }
            }
        }
        if (T > 1) { /* the team's verdict on b */
            sync();
#pragma unroll
            for (int v = 0; v < V; v++)
                if (nb[v]) atomicOr(&fl[v], 1);
            sync();
#pragma unroll
            for (int v = 0; v < V; v++) nb[v] = fl[v];
        }
#pragma unroll
        for (int v = 0; v < V; v++) {
            if (nb[v] && !badb[v]) firstbad[v] = c;
            badb[v] |= nb[v];
        }

        if constexpr (W == 1) {
            const int nch = (n * n + TLV - 1) / TLV; /* the stream's n^2 entries */
            if (D == 1)
                while (cch < nch) {
                    sconsume(fa, fb);
                    if (cch >= nch) break;
                    sconsume(fb, fa);
                }
            else
                while (cch < nch) {
                    sconsume(fa, fc);
                    if (cch >= nch) break;
                    sconsume(fb, fa);
                    if (cch >= nch) break;
                    sconsume(fc, fb);
                }
        } else if (D == 1)
            while (cc.have) {
                consume(fa, fb);
                if (!cc.have) break;
                consume(fb, fa);
            }
        else
            while (cc.have) {
                consume(fa, fc);
                if (!cc.have) break;
                consume(fb, fa);
                if (!cc.have) break;
                consume(fc, fb);
            }
        if constexpr (W == 0) { /* backward step 0 (no rows above it), the last two stores of x */
            bstart(0);
            sync(); /* entry 0 read by every thread */
            if (rank == 0)
#pragma unroll
                for (int v = 0; v < V; v++) BSR_B(0, v) = xv[v];
            sync();
        }
        /* x <- Q x, in one thread per system (the interchanges loaded 16 at a time) */
        if (piv == BSOLVE_PIVOT_FULL) {
            if (rank == 0)
                for (int k0 = n - 1; k0 >= 0; k0 -= 16) {
                    int q[16][V];
#pragma unroll
                    for (int u = 0; u < 16; u++)
#pragma unroll
                        for (int v = 0; v < V; v++) q[u][v] = k0 - u >= 0 && val[v] ? cp[(int64_t)(k0 - u) * fs + sv(v)] : k0 - u;
#pragma unroll
                    for (int u = 0; u < 16; u++)
                        if (k0 - u >= 0)
#pragma unroll
                            for (int v = 0; v < V; v++) {
                                const R t = BSR_B(k0 - u, v);
                                BSR_B(k0 - u, v) = BSR_B(q[u][v], v);
                                BSR_B(q[u][v], v) = t;
                            }
                }
            sync();
        }
        for (int i = rank; i < n; i += T)
#pragma unroll
            for (int v = 0; v < V; v++)
                if (val[v]) B[sv(v) * ks + i * is] = finfo[v] != 0 || badb[v] ? L::nan() : BSR_B(i, v);
    }
    /* a non-finite B found after good columns were stored: NaN them too */
#pragma unroll
    for (int v = 0; v < V; v++) {
        if (!val[v]) continue;
        if (finfo[v] == 0 && firstbad[v] > 0)
            for (int c = 0; c < firstbad[v]; c++)
                for (int i = rank; i < n; i += T) a.B[(s0 + sv(v)) * ks + i * is + c * js] = L::nan();
        if (a.info && rank == 0) a.info[s0 + sv(v)] = badb[v] ? BSOLVE_INFO_NONFINITE : finfo[v];
    }
#undef BSR_B
#undef BSR_P
}

/* Launch of one shape; cudaErrorInvalidConfiguration where this device
 * cannot run it (shared memory) or, without a list, the factors are not
 * aligned for its vector loads: the caller then takes the table without
 * this kernel. */
template <typename R, int TL, int TW, int V, int D, int W, bool LIST>
cudaError_t bsr_launch_l(const bsi_lu_args<R> &a, cudaStream_t st)
{
    using S = bsr_shape<R, TL, TW, V, D, W>;
    const int64_t per_block = (int64_t)S::GPB * S::SPG;
    const int64_t blocks = (a.count + per_block - 1) / per_block;
    if (blocks > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
    if (!LIST && V > 1 && ((uintptr_t)a.F % (V * sizeof(R)) != 0 || a.fld % V != 0))
        return cudaErrorInvalidConfiguration;
    const size_t smem = bsr_smem<R, TL, TW, V, D, W>(a.n);
    if (!bsi_smem_optin(bsr_k<R, TL, TW, V, D, W, LIST>, smem)) return cudaErrorInvalidConfiguration;
    bsr_k<R, TL, TW, V, D, W, LIST><<<(unsigned)blocks, S::NT, smem, st>>>(a);
    return cudaGetLastError();
}

template <typename R, int TL, int TW, int V, int D, int W> cudaError_t bsr_launch_s(const bsi_lu_args<R> &a, cudaStream_t st)
{
    return a.nsel ? bsr_launch_l<R, TL, TW, V, D, W, true>(a, st) : bsr_launch_l<R, TL, TW, V, D, W, false>(a, st);
}

/* Launch of shape code `shape` (lu_dispatch.cuh's BSI_LU_RSTEAM_SHAPES). */
template <typename R> cudaError_t bsr_launch(const bsi_lu_args<R> &a, int shape, cudaStream_t st)
{
    switch (shape) {
#define BSR_CASE(TL, TW, V, D, W) \
    case W * 10000 + (D - 1) * 1000 + TL * 100 + TW * 10 + V: return bsr_launch_s<R, TL, TW, V, D, W>(a, st);
        BSI_LU_RSTEAM_SHAPES(BSR_CASE)
#undef BSR_CASE
    default: return cudaErrorInvalidValue;
    }
}

/* Instantiated in lu_getrs_team_*.cu, a list of shapes each. */
#define BSR_EXTERN(R, TL, TW, V, D, W) \
    extern template cudaError_t bsr_launch_s<R, TL, TW, V, D, W>(const bsi_lu_args<R> &, cudaStream_t);
#define BSR_EXTERN_D(TL, TW, V, D, W) BSR_EXTERN(double, TL, TW, V, D, W)
#define BSR_EXTERN_S(TL, TW, V, D, W) BSR_EXTERN(float, TL, TW, V, D, W)
#define BSR_INSTANTIATE(R, TL, TW, V, D, W) \
    template cudaError_t bsr_launch_s<R, TL, TW, V, D, W>(const bsi_lu_args<R> &, cudaStream_t);
#define BSR_INSTANTIATE_D(TL, TW, V, D, W) BSR_INSTANTIATE(double, TL, TW, V, D, W)
#define BSR_INSTANTIATE_S(TL, TW, V, D, W) BSR_INSTANTIATE(float, TL, TW, V, D, W)

#endif
