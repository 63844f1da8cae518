/*
 * lu_tile.cuh -- register-tile LU kernel for 33 <= n <= 128 (gesv with one
 * right-hand side, and getrf; PARTIAL and NONE pivoting; lu_dispatch.cuh's
 * table says for which n).
 *
 * Why: a row per lane (lu_warp.cuh) stops fitting in registers beyond
 * n = 48, and the shared-memory block kernel (lu_large.cu) pays two shared
 * accesses per FMA and four barriers per step.  Here the matrix lives in
 * registers spread over a TR x TC grid of threads (a block per system):
 * thread (tr, tc) holds rows tr + TR s (s < RS) and columns tc + TC c
 * (c < CS), RS = CS = N / TR, N the compiled bucket; TR = TC = 8 up to
 * N = 64 (two warps), 16 beyond (eight warps): at most 8 x 8 entries, 128
 * registers of FP64 matrix, per thread.  The cyclic mapping
 * keeps every thread busy while the trailing matrix shrinks: the column
 * slots below step k's slot are skipped by compile-time loop bounds (the
 * steps run in CS unrolled groups of TC).
 *
 * Row interchanges are logical, as in lu_warp.cuh: a thread never moves a
 * row, it keeps each row's current position (LAPACK's row order after the
 * interchanges so far), so rows that are done (pivot rows of earlier steps)
 * receive FMAs with a zero multiplier, which leave them unchanged bit for
 * bit.  A thread column's TR threads are consecutive lanes of one warp, so
 * step k's pivot search is a shuffle reduction inside the owner of column
 * k, and every thread reads the pivot row's entries of its own columns from
 * the pivot row's owner in its own thread column (shuffles); only the
 * multipliers (one per row) cross thread columns, through shared memory.
 * One barrier per step (the multipliers and the pivot are double-buffered
 * by the step's parity, so the next step's owners may write while others
 * still read).  No lookahead: the warp of column k + 1 searching it right
 * after its share of step k's update, so that the scheduler interleaves the
 * two, ran 0.75-0.9x (FP64, n = 33..128): the live registers of both
 * pushed the gesv copies into spills.
 *
 * gesv carries b as a replicated column: every thread of a thread row keeps
 * b's entries of its rows and updates them with the multipliers it already
 * has (the forward substitution, free of communication); the back
 * substitution then runs in one warp from U and y dumped to shared memory
 * by position.
 *
 * Numerics are those of lu_large.cu entry by entry: the same pivots
 * (largest |a|, ties to the lowest position), multipliers (a * sc) * rinv
 * with the same reciprocal and tiny-pivot scaling, x = fma(-l, u, x) step
 * by step, and the same solves, so the factors and solutions are bitwise
 * BLOCK's.  Factors (getrf) in common.cuh's storage: the multiplier of step
 * k at the row's position after step k (L in LINPACK form), U at the end.
 */
#ifndef BSI_LU_TILE_CUH
#define BSI_LU_TILE_CUH

#include "lu_warp.cuh" /* bsw_lim */

/* Thread grid of bucket N: TR x TR threads, RS x RS entries each; gesv's
 * dynamic shared memory (U and y for the solve). */
template <int N> struct bst_shape {
    static constexpr int TR = N <= 64 ? 8 : 16, TC = TR, RS = N / TR, CS = N / TC, NT = TR * TC, G = 32 / TR;
    static constexpr int LDU = N + 1; /* odd: the solve's column walks are free of bank conflicts */
    /* Blocks per SM the registers must allow: with at most 6 x 6 entries a
     * thread fits in 128 registers, twice the blocks of the unbounded
     * allocation (FP64 N = 48: 148 registers, N = 96: 144, one block of 256
     * threads per SM); 8 x 8 entries need more than 128 without spilling. */
    static constexpr int MINB = RS * CS <= 36 ? 65536 / (NT * 128) : 1;
    static_assert(N % TR == 0 && RS <= 8 && N <= 128, "bucket");
    template <typename R> static constexpr size_t smem(int op) { return op == BSI_OP_GESV ? (size_t)(N * LDU + N) * sizeof(R) : 0; }
};

/* (b, kb, vb) replaces (a, ka, va) when it ranks higher: larger |a|, ties to
 * the lower position; selects only (no branch), for the pivot search. */
template <typename R>
__device__ __forceinline__ void bst_better(R &a, int &ka, R &va, const R b, const int kb, const R vb)
{
    const bool take = (b > a) | ((b == a) & (kb < ka));
    a = take ? b : a;
    ka = take ? kb : ka;
    va = take ? vb : va;
}

/* gesv's back substitution in one warp, from U and y dumped to shared
 * memory by position (lu_large.cu's solve, entry by entry). */
template <typename R, int N>
__device__ __forceinline__ void bst_solve(const bsi_lu_args<R> &a, const R (&A_)[bst_shape<N>::RS][bst_shape<N>::CS],
                                          const R (&y)[bst_shape<N>::RS], const int (&pos)[bst_shape<N>::RS], int pinfo,
                                          int bad, int badb, const R *rdv, const uint8_t *tfv, R *Us)
{
    using SH = bst_shape<N>;
    using L = bsw_lim<R>;
    constexpr int TR = SH::TR, TC = SH::TC, RS = SH::RS, CS = SH::CS, G = SH::G, LDU = SH::LDU;
    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
    const int tc = w * G + lane / TR;
    const int n = a.n;
    const int64_t sys = blockIdx.x;
#pragma unroll
    for (int s = 0; s < RS; s++) {
        if (pos[s] == 255) continue;
#pragma unroll
        for (int c = 0; c < CS; c++) {
            const int j = tc + TC * c;
            if (j < n && j > pos[s]) Us[pos[s] + j * LDU] = A_[s][c];
        }
        if (tc == 0) Us[N * LDU + pos[s]] = y[s];
    }
    __syncthreads();
    if (w != 0) return;
    constexpr int BT = (N + 31) / 32;
    R bt[BT];
#pragma unroll
    for (int t = 0; t < BT; t++) bt[t] = lane + 32 * t < n ? Us[N * LDU + lane + 32 * t] : R(0);
    for (int i = n - 1; i >= 0; i--) {
        R bi = bt[0];
#pragma unroll
        for (int t = 1; t < BT; t++) bi = (i >> 5) == t ? bt[t] : bi;
        bi = __shfl_sync(0xffffffffu, bi, i & 31);
        const R xi = (bi * (tfv[i] ? L::up() : R(1))) * rdv[i];
#pragma unroll
        for (int t = 0; t < BT; t++) {
            const int r = lane + 32 * t;
            if (r == i) bt[t] = xi;
            else if (r < i) bt[t] = fma(-Us[r + i * LDU], xi, bt[t]);
        }
    }
    const int finfo = bad ? BSOLVE_INFO_NONFINITE : pinfo;
    const bool nanfill = finfo != 0 || badb;
    R *B = a.B + sys * a.vb.ks;
#pragma unroll
    for (int t = 0; t < BT; t++) {
        const int r = lane + 32 * t;
        if (r < n) B[r * a.vb.is] = nanfill ? L::nan() : bt[t];
    }
    if (a.info && lane == 0) a.info[sys] = badb ? BSOLVE_INFO_NONFINITE : finfo;
}

template <typename R, int N, int OP, int PIV, bool LIST>
__global__ void __launch_bounds__(bst_shape<N>::NT, bst_shape<N>::MINB) bst_k(const bsi_lu_args<R> a)
{
    using SH = bst_shape<N>;
    using L = bsw_lim<R>;
    constexpr int TR = SH::TR, TC = SH::TC, RS = SH::RS, CS = SH::CS, G = SH::G;
    __shared__ R lbuf[2][N];   /* step multipliers, entry tr * RS + s */
    __shared__ int pkey[2];    /* step pivot: position << 8 | row */
    __shared__ R rdv[N];       /* reciprocal pivots */
    __shared__ uint8_t tfv[N]; /* tiny pivot */
    __shared__ int s_pinfo;
    extern __shared__ unsigned char bst_smem[];
    R *Us = reinterpret_cast<R *>(bst_smem); /* gesv: U by position, then y */

    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
    const int tr = lane % TR, g = lane / TR, tc = w * G + g;
    const int n = a.n;
    if constexpr (LIST)
        if (blockIdx.x >= bsi_lu_count<LIST>(a)) return; /* the whole block, before any barrier */
    const int64_t sys = bsi_lu_sys<LIST>(a, blockIdx.x);
    if (tid == 0) s_pinfo = 0;

    /* ---- load: thread (tr, tc) takes its rows and columns ---- */
    R A_[RS][CS], y[RS];
    int pos[RS]; /* current position of row tr + TR s; 255: padding */
    int bad = 0;
    {
        const R *src = a.A + sys * a.va.ks;
        const int64_t is = a.va.is, js = a.va.js;
#pragma unroll
        for (int s = 0; s < RS; s++) {
            const int i = tr + TR * s;
            pos[s] = i < n ? i : 255;
#pragma unroll
            for (int c = 0; c < CS; c++) {
                const int j = tc + TC * c;
                const R v = (i < n && j < n) ? src[i * is + j * js] : R(0);
                bad |= !(fabs(v) <= L::maxv());
                A_[s][c] = v;
            }
        }
    }
    int badb = 0;
    if (OP == BSI_OP_GESV) {
        const R *bsrc = a.B + sys * a.vb.ks;
#pragma unroll
        for (int s = 0; s < RS; s++) {
            const int i = tr + TR * s;
            y[s] = i < n ? bsrc[i * a.vb.is] : R(0);
            badb |= !(fabs(y[s]) <= L::maxv());
        }
    }
    bad = __syncthreads_or(bad);
    if (OP == BSI_OP_GESV) badb = __syncthreads_or(badb);

    /* ---- elimination: steps k = kc * TC + tk ---- */
#pragma unroll
    for (int kc = 0; kc < CS; kc++) {
        for (int tk = 0; tk < TC; tk++) {
            const int k = kc * TC + tk, buf = k & 1;
            if (k >= n) break;
            /* pivot search by the warp holding thread column tk (each
             * thread column of that warp reduces its own; tk's is used) */
            if (w == tk / G) {
                /* each slot's candidate as (|a|, position << 8 | row, a),
                 * then a tree over the slots and the thread column's lanes:
                 * a short dependency chain, no branches */
                R best[RS], val[RS];
                int key[RS];
#pragma unroll
                for (int s = 0; s < RS; s++) {
                    const bool cand = PIV == BSOLVE_PIVOT_NONE ? pos[s] == k : (pos[s] >= k && pos[s] < 255);
                    /* NaN ranks below every number, so that an all-NaN column
                     * still pivots at position k, as lu_large.cu does */
                    const R v = fabs(A_[s][kc]);
                    best[s] = cand ? (v == v ? v : R(-0.5)) : R(-1);
                    key[s] = cand ? pos[s] << 8 | (tr + TR * s) : 0x7fffffff;
                    val[s] = A_[s][kc];
                }
#pragma unroll
                for (int h = 1; h < RS; h <<= 1)
#pragma unroll
                    for (int s = 0; s + h < RS; s += 2 * h)
                        bst_better(best[s], key[s], val[s], best[s + h], key[s + h], val[s + h]);
#pragma unroll
                for (int off = 1; off < TR; off <<= 1) {
                    const R ob = __shfl_xor_sync(0xffffffffu, best[0], off);
                    const int ok = __shfl_xor_sync(0xffffffffu, key[0], off);
                    const R ov = __shfl_xor_sync(0xffffffffu, val[0], off);
                    bst_better(best[0], key[0], val[0], ob, ok, ov);
                }
                const int key0 = key[0];
                const R val0 = val[0];
                if (tc == tk) {
                    const int p = key0 & 255, pos_p = key0 >> 8;
                    const R d = val0;
                    const bool z = d == R(0);
                    const bool tiny = fabs(d) < L::minnorm() && !z;
                    const R sc = tiny ? L::up() : R(1);
                    const R rinv = R(1) / (z ? R(1) : d * sc);
#pragma unroll
                    for (int s = 0; s < RS; s++) {
                        const int row = tr + TR * s;
                        const bool below = pos[s] >= k && pos[s] < 255 && row != p;
                        const R l = below ? (A_[s][kc] * sc) * rinv : R(0);
                        lbuf[buf][tr * RS + s] = l;
                        if (OP == BSI_OP_GETRF && below) {
                            const int np = pos[s] == k ? pos_p : pos[s];
                            a.F[(int64_t)(np + k * n) * a.fld + sys] = l;
                        }
                    }
                    if (tr == 0) {
                        pkey[buf] = key0;
                        rdv[k] = rinv;
                        tfv[k] = tiny;
                        if (z && s_pinfo == 0) s_pinfo = k + 1;
                        if (OP == BSI_OP_GETRF) {
                            a.rp[(int64_t)k * a.fld + sys] = (uint8_t)pos_p;
                            a.cp[(int64_t)k * a.fld + sys] = (uint8_t)k;
                        }
                    }
                }
            }
            __syncthreads();

            /* the pivot row's entries of my columns, from its owner in my
             * thread column (slot sp: the same in every lane of the block) */
            const int key = pkey[buf], p = key & 255, pos_p = key >> 8;
            const int sp = p / TR, src = p % TR + TR * g;
            R v[CS], yv = R(0);
#pragma unroll
            for (int c = 0; c < CS; c++) v[c] = R(0);
            switch (sp) {
#define BST_PICK(S)                                                                                                     \
    case S:                                                                                                             \
        if (S < RS) {                                                                                                   \
            _Pragma("unroll") for (int c = kc; c < CS; c++) v[c] = A_[S < RS ? S : 0][c];                              \
            if (OP == BSI_OP_GESV) yv = y[S < RS ? S : 0];                                                              \
        }                                                                                                               \
        break;
                BST_PICK(0) BST_PICK(1) BST_PICK(2) BST_PICK(3) BST_PICK(4) BST_PICK(5) BST_PICK(6) BST_PICK(7)
#undef BST_PICK
            }
            R u[CS];
#pragma unroll
            for (int c = kc; c < CS; c++) u[c] = __shfl_sync(0xffffffffu, v[c], src);
            const R yp = OP == BSI_OP_GESV ? __shfl_sync(0xffffffffu, yv, src) : R(0);
            R l[RS];
#pragma unroll
            for (int s = 0; s < RS; s++) {
                l[s] = lbuf[buf][tr * RS + s];
                const int row = tr + TR * s;
                pos[s] = row == p ? k : (pos[s] == k ? pos_p : pos[s]);
            }
#pragma unroll
            for (int c = kc; c < CS; c++)
                if (c > kc || tc > tk)
#pragma unroll
                    for (int s = 0; s < RS; s++) A_[s][c] = fma(-l[s], u[c], A_[s][c]);
            if (OP == BSI_OP_GESV)
#pragma unroll
                for (int s = 0; s < RS; s++) y[s] = fma(-l[s], yp, y[s]);
        }
    }
    __syncthreads();
    const int pinfo = s_pinfo;

    if constexpr (OP == BSI_OP_GETRF) {
        const int v = bad ? BSOLVE_INFO_NONFINITE : pinfo;
        if (tid == 0) {
            a.info[sys] = v;
            a.finfo[sys] = v;
        }
#pragma unroll
        for (int s = 0; s < RS; s++)
#pragma unroll
            for (int c = 0; c < CS; c++) {
                const int j = tc + TC * c;
                if (pos[s] < 255 && j < n && j >= pos[s]) a.F[(int64_t)(pos[s] + j * n) * a.fld + sys] = A_[s][c];
            }
    } else {
        bst_solve<R, N>(a, A_, y, pos, pinfo, bad, badb, rdv, tfv, Us);
    }
}

template <typename R, int N, int OP, int PIV, bool LIST>
cudaError_t bst_launch_l(const bsi_lu_args<R> &a, cudaStream_t st)
{
    if (a.count > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
    const size_t smem = bst_shape<N>::template smem<R>(OP);
    if (!bsi_smem_optin(bst_k<R, N, OP, PIV, LIST>, smem)) {
        /* beyond this device's shared memory per block (FP64 gesv from
         * N = 80 on sm_75's 64 KiB): the block kernel takes the call */
        return bsi_launch_large<R>(OP, a, st);
    }
    bst_k<R, N, OP, PIV, LIST><<<(unsigned)a.count, bst_shape<N>::NT, smem, st>>>(a);
    return cudaGetLastError();
}

template <typename R, int N, int OP, int PIV> cudaError_t bst_launch_t(const bsi_lu_args<R> &a, cudaStream_t st)
{
    if constexpr (OP != BSI_OP_GESV)
        if (a.nsel) return bst_launch_l<R, N, OP, PIV, true>(a, st);
    return bst_launch_l<R, N, OP, PIV, false>(a, st);
}

/* Launch of bucket N (gesv with nrhs == 1, or getrf; PARTIAL or NONE). */
template <typename R, int N> cudaError_t bst_launch_n(int op, const bsi_lu_args<R> &a, cudaStream_t st)
{
    const bool piv = a.pivot == BSOLVE_PIVOT_PARTIAL;
    if (op == BSI_OP_GESV)
        return piv ? bst_launch_t<R, N, BSI_OP_GESV, BSOLVE_PIVOT_PARTIAL>(a, st)
                   : bst_launch_t<R, N, BSI_OP_GESV, BSOLVE_PIVOT_NONE>(a, st);
    return piv ? bst_launch_t<R, N, BSI_OP_GETRF, BSOLVE_PIVOT_PARTIAL>(a, st)
               : bst_launch_t<R, N, BSI_OP_GETRF, BSOLVE_PIVOT_NONE>(a, st);
}

#define BST_BUCKETS_SMALL(X, R) X(R, 40) X(R, 48) X(R, 56) X(R, 64)
#define BST_BUCKETS_LARGE(X, R) X(R, 80) X(R, 96) X(R, 112) X(R, 128)
#define BST_BUCKETS(X, R) BST_BUCKETS_SMALL(X, R) BST_BUCKETS_LARGE(X, R)
#define BST_EXTERN(R, N) extern template cudaError_t bst_launch_n<R, N>(int, const bsi_lu_args<R> &, cudaStream_t);
#define BST_INSTANTIATE(R, N) template cudaError_t bst_launch_n<R, N>(int, const bsi_lu_args<R> &, cudaStream_t);

#endif
