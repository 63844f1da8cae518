/*
 * lu_smem.cuh -- LU with the matrix in shared memory, a thread or a team of
 * T lanes per system (gesv with one right-hand side and getrf, PARTIAL or
 * NONE, 9 <= n <= 22, FULL with a thread per system; lu_dispatch.cuh's
 * table says when, and with which T).
 * One instantiation per order n = N: no padding, no masks.
 *
 * Why: a kernel whose lanes share a system in registers pays, every
 * elimination step, for the pivot search across lanes, the pivot row's
 * broadcast and, with several rows per lane, select chains that pick a row
 * whose slot is known only at run time (registers cannot be indexed): the
 * register team kernel spends about 260 warp instructions per system at
 * n = 10, the row-per-lane kernel 1300 at n = 16, for some 300 and 1400
 * multiply-adds.  In shared memory a run-time row is only an address: the
 * interchange of rows k and p is a few loads and stores, and each update a
 * load, an FMA and a store.
 *
 * T = 1: a thread owns its system (the matrix does not fit its registers
 * beyond n = 8, FP64).  Entry (i, j) of thread t's system sits at word
 * (j N + i) 32 + t of its warp's area, so a warp's access to one entry of
 * its 32 systems is conflict-free whatever the rows.  The current column
 * lives in registers: the update of step k writes column k + 1 there
 * instead of back to shared memory, so the next pivot search, interchange
 * and multipliers need no loads.
 *
 * T > 1 (larger n): one thread per system leaves an SM few warps (three at
 * FP64 n = 16, 68 KB a block), each a long dependent chain; T lanes share a
 * system's area and its work, so the same systems per SM run on T times the
 * warps.  The area is column-major with an odd leading dimension LD, areas
 * AREA words apart with AREA = T modulo the banks, so that a warp's access
 * to T consecutive rows of one column of its 32 / T systems, or to row i of
 * columns j..j+T-1, is conflict-free.  Lane l takes every T-th row, from
 * row l (the loads) or from row k (a step's pivot search, the team's
 * arg-max then by shuffles, and its multipliers, which it writes into
 * column k); every lane reads all multipliers back and interchanges and
 * updates its own columns j = l (mod T).  Three warp barriers per step:
 * column k read before the multipliers overwrite it, the multipliers
 * written, the columns updated.
 *
 * b is column N (the elimination is the forward substitution); the back
 * substitution keeps x in registers (rows l (mod T) of it in lane l, x_i
 * passed on by a shuffle).
 *
 * Memory: every entry is loaded once straight from the caller's layout
 * (interleaved: a warp's load is T runs of 32 / T consecutive entries;
 * column-major: consecutive entries of one system in consecutive loads of
 * a thread, which its L1 lines serve, or in one load of its team), about
 * 2N loads of a lane in flight before the first use.
 *
 * Numerics are the team kernel's (lu_small.cuh): largest |a|, ties to the
 * lowest row (FULL: the trailing matrix scanned column by column, ties to
 * the lowest column, whole columns exchanged, as dgetc2), NaN never a
 * pivot unless all are; the multipliers by the
 * reciprocal of the pivot, a subnormal pivot scaled up by 2^64 (2^32)
 * first; getrf's L in LINPACK form (common.cuh).
 *
 * Blocks are one warp (32 / T systems).  Shared memory at T = 1 is
 * N (N + 1) 32 entries: 28 KB at N = 10, 68 KB at N = 16 (FP64); devices
 * that cannot give a block that much get the table's other kernel.  At
 * T = 4, 8 areas of about (N + 1)^2 entries: 18.7 KB at N = 16, 34 KB at 22.
 */
#ifndef BSI_LU_SMEM_CUH
#define BSI_LU_SMEM_CUH

#include "common.cuh"
#include "lu_dispatch.cuh"
#include "lu_small.cuh" /* bsi_lim, bsi_shfl */

/* Where a block keeps its systems: entry (i, j) of a system at word
 * j LD + i RS of its area, the area of lane t (T = 1) or of team t (T > 1)
 * at word t AREA. */
template <typename R, int N, int T, int OP> struct bsm_shape {
    static constexpr int NC = N + (OP == BSI_OP_GESV ? 1 : 0); /* columns: A (and b) */
    static constexpr int SW = 32 / T;                         /* systems per block (one warp) */
    static constexpr int RS = T == 1 ? 32 : 1;
    static constexpr int LD = T == 1 ? 32 * N : (N | 1);
    static constexpr int BK = sizeof(R) == 8 ? 16 : 32; /* banks in units of R */
    static constexpr int A0 = LD * NC;
    static constexpr int AREA = T == 1 ? 1 : A0 + ((T - A0 % BK) % BK + BK) % BK; /* = T (mod BK) */
    static constexpr size_t bytes = (size_t)(T == 1 ? 32 * N * NC : SW * AREA) * sizeof(R);
};

/* A team's warp barrier (a thread alone needs none). */
template <int T> __device__ __forceinline__ void bsm_sync()
{
    if constexpr (T > 1) __syncwarp();
}

template <typename R, int N, int T, int OP, bool LIST, bool FULL = false>
__global__ void __launch_bounds__(32) bsm_k(const bsi_lu_args<R> a)
{
    static_assert(!FULL || T == 1, "FULL: a thread's own search");
    using L = bsi_lim<R>;
    using SH = bsm_shape<R, N, T, OP>;
    constexpr int NC = SH::NC, LD = SH::LD, RS = SH::RS;
    constexpr int S = (N + T - 1) / T;  /* rows of a lane: l + s T, s < S */
    constexpr int C = (NC + T - 1) / T; /* columns of a lane: l + c T, c < C */
    extern __shared__ __align__(16) unsigned char bsm_raw[];
    const unsigned team = threadIdx.x / T;
    const int l = threadIdx.x % T;
    R *const sm = reinterpret_cast<R *>(bsm_raw) + team * SH::AREA;
#define BSM(i, j) sm[(j) * LD + (i) * RS]

    const int64_t li = (int64_t)blockIdx.x * SH::SW + team; /* logical system */
    const int64_t cnt = bsi_lu_count<LIST>(a);
    if (T == 1 && li >= cnt) return;     /* a team's lanes shuffle: none leaves early */
    const bool valid = T == 1 || li < cnt; /* this lane's system is one of the call's */
    const int64_t sys = valid ? bsi_lu_sys<LIST>(a, li) : 0;
    const int pivot = FULL ? BSOLVE_PIVOT_FULL : a.pivot; /* a.n == N */

    /* ---- load A (and b), rows l (mod T); a non-finite entry makes its
     * accumulator NaN ---- */
    R nfa = R(0), nfb = R(0);
    {
        const int64_t is = a.va.is, js = a.va.js;
        const R *src = a.A + sys * a.va.ks + l * is;
#pragma unroll
        for (int j = 0; j < N; j++) {
#pragma unroll
            for (int s = 0; s < S; s++)
                if (l + s * T < N) {
                    const R v = valid ? src[(s * T) * is + j * js] : R(0);
                    nfa = fma(v, R(0), nfa);
                    BSM(l + s * T, j) = v;
                }
            /* about 2N loads in flight: all of them were hoisted into
             * registers and spilled */
            if ((j + 1) % (2 * T) == 0) asm volatile("" ::: "memory");
        }
        if constexpr (OP == BSI_OP_GESV) {
            const R *b = a.B + sys * a.vb.ks + l * a.vb.is;
#pragma unroll
            for (int s = 0; s < S; s++)
                if (l + s * T < N) {
                    const R v = valid ? b[(s * T) * a.vb.is] : R(0);
                    nfb = fma(v, R(0), nfb);
                    BSM(l + s * T, N) = v;
                }
        }
    }
    /* A (or b) holding a non-finite entry: info NONFINITE, x all NaN.  A
     * thread keeps the flags to the end; a team folds them into pinfo (info
     * so far) at once, over its lanes: one int through the steps (ptxas had
     * kept the flags to the end, in local memory) */
    bool bad = nfa != R(0), badb = nfb != R(0);
    int pinfo = 0;
    if constexpr (T > 1) {
        pinfo = bad || badb ? BSOLVE_INFO_NONFINITE : 0;
#pragma unroll
        for (int o = T / 2; o > 0; o >>= 1) pinfo = min(pinfo, bsi_shfl_xor<T>(pinfo, o));
        bad = badb = false;
    }
    bsm_sync<T>();

    /* ---- factorization: P A = L U ---- */
    constexpr int CN = T == 1 ? N : 1;
    R col[CN]; /* T = 1: column k, rows k..N-1 */
    if constexpr (T == 1) {
#pragma unroll
        for (int i = 0; i < N; i++) col[i] = BSM(i, 0);
    }
    /* entry i of column k (a row of this lane; % CN: T > 1 never reads col,
     * whose index is then a run-time value) */
#define BSM_CK(i) (T == 1 ? col[(i) % CN] : BSM(i, k))
    R rv[N];         /* gesv: reciprocal pivots */
    uint32_t tm = 0; /* bit k: pivot k is subnormal, rv[k] = 1/(d 2^64) */
    constexpr int QW = FULL ? (N + 3) / 4 : 1;
    uint32_t qk[QW]; /* FULL: pivot column of step k, byte k */
#pragma unroll
    for (int t = 0; t < QW; t++) qk[t] = 0;
#pragma unroll
    for (int k = 0; k < N; k++) rv[k] = R(1);
#pragma unroll
    for (int k = 0; k < N; k++) {
        int p = k, q = k;
        if (pivot != BSOLVE_PIVOT_NONE) {
            R best = R(-1);
#pragma unroll
            for (int s = 0; s * T < N - k; s++) {
                const int i = k + l + s * T;
                const R v = i < N ? fabs(BSM_CK(i < N ? i : k)) : R(-1);
                const bool take = v > best;
                best = take ? v : best;
                p = take ? i : p;
            }
            if constexpr (FULL) {
                {
                    /* the rest of the trailing matrix, column by column
                     * (ties to the lowest column, then row, as dgetc2
                     * scans), then columns k and q exchanged over every row
                     * (dgetc2 swaps whole columns) */
#pragma unroll
                    for (int j = k + 1; j < N; j++)
#pragma unroll
                        for (int i = k; i < N; i++) {
                            const R v = fabs(BSM(i, j));
                            const bool take = v > best;
                            best = take ? v : best;
                            p = take ? i : p;
                            q = take ? j : q;
                        }
                    if (q != k) {
                        R *const colq = sm + q * LD;
#pragma unroll
                        for (int i = 0; i < k; i++) {
                            const R t = BSM(i, k);
                            BSM(i, k) = colq[i * RS];
                            colq[i * RS] = t;
                        }
#pragma unroll
                        for (int i = k; i < N; i++) {
                            const R t = col[i % CN];
                            col[i % CN] = colq[i * RS];
                            colq[i * RS] = t;
                        }
                    }
                    qk[k / 4 % QW] |= (uint32_t)q << (8 * (k % 4));
                }
            }
#pragma unroll
            for (int o = T / 2; o > 0; o >>= 1) {
                const R ob = bsi_shfl_xor<T>(best, o);
                const int op = bsi_shfl_xor<T>(p, o);
                const bool take = ob > best || (ob == best && op < p);
                best = take ? ob : best;
                p = take ? op : p;
            }
            if constexpr (T == 1) { /* rows k and p of the register column */
                const R ck = col[k];
                R cp = ck;
#pragma unroll
                for (int i = k + 1; i < N; i++) cp = i == p ? col[i] : cp;
#pragma unroll
                for (int i = k + 1; i < N; i++) col[i] = i == p ? ck : col[i];
                col[k] = cp;
            }
        }
        if constexpr (OP == BSI_OP_GETRF) {
            if (valid && l == 0) {
                a.rp[k * a.fld + sys] = (uint8_t)p;
                a.cp[k * a.fld + sys] = (uint8_t)q;
            }
        }
        /* the pivot, row p of column k (T = 1: the register column's row k
         * now); T > 1: ak, row k's entry, gives row p's multiplier */
        const R d = T == 1 ? BSM_CK(k) : BSM(p, k);
        const R ak = T == 1 ? d : BSM(k, k);
        const bool z = d == R(0);
        pinfo = (z && pinfo == 0) ? k + 1 : pinfo;
        /* a subnormal pivot: 1/d overflows; scale it (and the column) up by
         * 2^64 (2^32) first, exactly (dgetf2 divides below sfmin) */
        const bool tiny = fabs(d) < L::minnorm() && !z;
        const R sc = tiny ? L::up() : R(1);
        const R rinv = R(1) / (z ? R(1) : d * sc);
        /* the multipliers of this lane's rows k + 1 + l + s T (k and p
         * exchanged); into column k, which then holds L's column in LINPACK
         * form, for getrf's output and the other lanes of a team */
        R ml[S];
#pragma unroll
        for (int s = 0; s * T < N - k - 1; s++) {
            const int i = k + 1 + l + s * T;
            if (i < N) ml[s] = ((T > 1 && i == p ? ak : BSM_CK(i)) * sc) * rinv;
        }
        bsm_sync<T>(); /* column k read by the whole team before it changes */
        if (OP == BSI_OP_GETRF && l == 0) BSM(k, k) = d;
        if (T > 1 || OP == BSI_OP_GETRF) {
#pragma unroll
            for (int s = 0; s * T < N - k - 1; s++) {
                const int i = k + 1 + l + s * T;
                if (i < N) BSM(i, k) = ml[s];
            }
        }
        bsm_sync<T>();
        R lm[N]; /* all multipliers of step k */
#pragma unroll
        for (int i = k + 1; i < N; i++) lm[i] = T == 1 ? ml[(i - k - 1) % S] : BSM(i, k);
        if constexpr (OP == BSI_OP_GESV) {
            rv[k] = rinv;
            tm |= (uint32_t)tiny << k;
        }
        /* rows k and p of this lane's columns right of k (LINPACK form: L's
         * columns keep the row order of their own step): row p's entries are
         * the pivot row u, row k's move to row p */
        R u[C];
        if (pivot != BSOLVE_PIVOT_NONE) {
#pragma unroll
            for (int c = 0; c < C; c++) {
                const int j = l + c * T;
                if (c * T + T - 1 > k && j > k && j < NC) u[c] = BSM(p, j);
            }
#pragma unroll
            for (int c = 0; c < C; c++) {
                const int j = l + c * T;
                if (c * T + T - 1 > k && j > k && j < NC) {
                    const R t = BSM(k, j);
                    BSM(k, j) = u[c];
                    BSM(p, j) = t;
                }
            }
        } else {
#pragma unroll
            for (int c = 0; c < C; c++) {
                const int j = l + c * T;
                if (c * T + T - 1 > k && j > k && j < NC) u[c] = BSM(k, j);
            }
        }
        /* rank-1 update; T = 1: column k + 1 into the registers for the next
         * step */
#pragma unroll
        for (int c = 0; c < C; c++) {
            const int j = l + c * T;
            if (c * T + T - 1 > k && j > k && j < NC) {
#pragma unroll
                for (int i = k + 1; i < N; i++) {
                    const R x = fma(-lm[i], u[c], BSM(i, j));
                    if (T == 1 && j == k + 1) col[i % CN] = x;
                    else BSM(i, j) = x;
                }
            }
        }
        bsm_sync<T>();
        /* keep ptxas from hoisting later steps' loads: it kept whole
         * columns in registers and spilled */
        asm volatile("" ::: "memory");
    }
#undef BSM_CK

    if constexpr (OP == BSI_OP_GETRF) {
        if (!valid) return;
        const int v = bad ? BSOLVE_INFO_NONFINITE : pinfo;
        if (l == 0) {
            a.info[sys] = v;
            a.finfo[sys] = v;
        }
        R *F = a.F + sys;
        const int64_t fld = a.fld;
#pragma unroll
        for (int j = 0; j < N; j++)
#pragma unroll
            for (int s = 0; s < S; s++)
                if (l + s * T < N) F[(l + s * T + j * N) * fld] = BSM(l + s * T, j);
    } else {
        /* back substitution: x_i = (y_i - sum_{j > i} U_ij x_j) / U_ii */
        R x[S];
#pragma unroll
        for (int s = 0; s < S; s++) x[s] = l + s * T < N ? BSM(l + s * T, N) : R(0);
#pragma unroll
        for (int i = N - 1; i >= 0; i--) {
            const int si = i / T, oi = i % T;
            const R xi = bsi_shfl<T>((x[si] * ((tm >> i) & 1u ? L::up() : R(1))) * rv[i], oi);
            if (l == oi) x[si] = xi;
#pragma unroll
            for (int s = 0; s * T < i; s++)
                if (l + s * T < i) x[s] = fma(-BSM(l + s * T, i), xi, x[s]);
        }
        if constexpr (FULL) {
            /* x <- Q x: the column interchanges backwards, through b's
             * column */
#pragma unroll
            for (int i = 0; i < N; i++) BSM(i, N) = x[i % S];
#pragma unroll
            for (int k = N - 1; k >= 0; k--) {
                const int q = (qk[k / 4 % QW] >> (8 * (k % 4))) & 0xff;
                R *const bq = sm + N * LD + q * RS;
                const R t = BSM(k, N);
                BSM(k, N) = *bq;
                *bq = t;
            }
#pragma unroll
            for (int i = 0; i < N; i++) x[i % S] = BSM(i, N);
        }
        const int finfo = bad ? BSOLVE_INFO_NONFINITE : pinfo;
        if (valid) {
            R *b = a.B + sys * a.vb.ks + l * a.vb.is;
#pragma unroll
            for (int s = 0; s < S; s++)
                if (l + s * T < N) b[(s * T) * a.vb.is] = (finfo != 0 || badb) ? L::nan() : x[s];
            if (a.info && l == 0) a.info[sys] = badb ? BSOLVE_INFO_NONFINITE : finfo;
        }
    }
#undef BSM
}

/* One instantiation launched; cudaErrorInvalidConfiguration, launching
 * nothing, where this device cannot give a block its shared memory. */
template <typename R, int N, int T, int OP, bool LIST, bool FULL>
cudaError_t bsm_go(const bsi_lu_args<R> &a, int64_t blocks, cudaStream_t st)
{
    constexpr size_t smem = bsm_shape<R, N, T, OP>::bytes;
    if (!bsi_smem_optin(bsm_k<R, N, T, OP, LIST, FULL>, smem)) return cudaErrorInvalidConfiguration;
    bsm_k<R, N, T, OP, LIST, FULL><<<(unsigned)blocks, 32, smem, st>>>(a);
    return cudaGetLastError();
}

/* The call's instantiation: gesv, getrf, or getrf on a list. */
template <typename R, int N, int T, bool FULL>
cudaError_t bsm_go_op(int op, const bsi_lu_args<R> &a, int64_t blocks, cudaStream_t st)
{
    if (op == BSI_OP_GESV) return bsm_go<R, N, T, BSI_OP_GESV, false, FULL>(a, blocks, st);
    return a.nsel ? bsm_go<R, N, T, BSI_OP_GETRF, true, FULL>(a, blocks, st)
                  : bsm_go<R, N, T, BSI_OP_GETRF, false, FULL>(a, blocks, st);
}

/* Launch for order N (a.n == N) with T lanes per system; returns
 * cudaErrorInvalidConfiguration, launching nothing, when this device cannot
 * give a block the shared memory (the caller then takes the table's choice
 * without this kernel). */
template <typename R, int N, int T>
cudaError_t bsm_launch_n(int op, const bsi_lu_args<R> &a, cudaStream_t st)
{
    constexpr int SW = 32 / T;
    const int64_t blocks = (a.count + SW - 1) / SW;
    if (blocks > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
    if (a.pivot == BSOLVE_PIVOT_FULL) {
        /* its own instantiation (the search and the column interchanges
         * inline in every step would crowd the other calls' code), where
         * the table takes it; getrf on a list too, so that a masked getrf's
         * factors are the unmasked one's bit for bit */
        if constexpr (T == 1 && bsi_lu_smem_full((int)sizeof(R), N)) return bsm_go_op<R, N, T, true>(op, a, blocks, st);
        else return cudaErrorInvalidConfiguration;
    }
    return bsm_go_op<R, N, T, false>(op, a, blocks, st);
}

/* The orders compiled (lu_smem_[ds]*.cu), each with the table's T. */
#define BSM_ORDERS(X, R)                                                                                      \
    X(R, 9) X(R, 10) X(R, 11) X(R, 12) X(R, 13) X(R, 14) X(R, 15) X(R, 16) X(R, 17) X(R, 18) X(R, 19) X(R, 20) \
    X(R, 21) X(R, 22)
#define BSM_LAUNCH_N(R, N) bsm_launch_n<R, N, bsi_lu_smem_team((int)sizeof(R), N)>
#define BSM_EXTERN(R, N) extern template cudaError_t BSM_LAUNCH_N(R, N)(int, const bsi_lu_args<R> &, cudaStream_t);
#define BSM_INSTANTIATE(R, N) template cudaError_t BSM_LAUNCH_N(R, N)(int, const bsi_lu_args<R> &, cudaStream_t);

#endif
