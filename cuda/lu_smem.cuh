/*
 * lu_smem.cuh -- LU with a thread per system, the matrix in shared memory
 * (gesv with one right-hand side and getrf, PARTIAL or NONE, 9 <= n <= 16,
 * FP32 to 24;
 * lu_dispatch.cuh's table says when).  One instantiation per order n = N:
 * no padding, no masks.
 *
 * Why: a kernel whose lanes share a system pays, every elimination step,
 * for the pivot search across lanes, the pivot row's broadcast and, with
 * several rows per lane, select chains that pick a row whose slot is known
 * only at run time (registers cannot be indexed): the team kernel spends
 * about 260 warp instructions per system at n = 10, the row-per-lane kernel
 * 1300 at n = 16, for some 300 and 1400 multiply-adds.  A thread that owns
 * its system needs none of that traffic, but the matrix does not fit its
 * registers beyond n = 8 (FP64).  In shared memory it does, and there a run-
 * time row is only an address: the interchange of rows k and p is a few
 * loads and stores, and each update a load, an FMA and a store, all of one
 * thread.  Entry (i, j) of thread t's system sits at word (j N + i) 32 + t
 * of its warp's area (word (j N + i) 33 + t: odd pitch, see Memory), so a
 * warp's access to one entry of its 32 systems is conflict-free whatever
 * the rows.
 *
 * The current column lives in registers: the update of step k writes column
 * k + 1 there instead of back to shared memory, so the next pivot search,
 * interchange and multipliers need no loads.  b is column N (the elimination
 * is the forward substitution); the back substitution keeps x in registers.
 *
 * Memory: interleaved data are loaded and stored straight (a warp's access
 * is 32 consecutive entries); column- and row-major data by whole lines
 * through the warp's area (consecutive lanes on consecutive entries of one
 * system), which the odd pitch of the area keeps free of bank conflicts.
 *
 * Numerics are the team kernel's (lu_small.cuh): largest |a|, ties to the
 * lowest row, NaN never a pivot unless all are; the multipliers by the
 * reciprocal of the pivot, a subnormal pivot scaled up by 2^64 (2^32) first;
 * getrf's L in LINPACK form (common.cuh).
 *
 * Blocks are one warp (32 systems), N (N + 1) 33 entries of shared memory:
 * 29 KB at N = 10, 72 KB at N = 16 (FP64), 79 KB at N = 24 (FP32); devices
 * that cannot give a block that much get the table's other kernel.
 */
#ifndef BSI_LU_SMEM_CUH
#define BSI_LU_SMEM_CUH

#include "common.cuh"
#include "lu_dispatch.cuh"
#include "lu_small.cuh" /* bsi_lim */

#define BSM_PITCH 33 /* words of R between one entry's 32 copies: odd, so that a
                      * warp walking one system's line hits distinct banks */

/* Shared memory of a block (one warp) for order N: N rows, N columns and b. */
template <typename R, int N, int OP> constexpr size_t bsm_smem()
{
    return (size_t)BSM_PITCH * N * (N + (OP == BSI_OP_GESV ? 1 : 0)) * sizeof(R);
}

/* Copies between the warp's nsys systems in a layout of lines (line l,
 * entry e of system s at g[s ks + l ls + e es]; NL lines of N entries;
 * es = 1 but for a row-major b) and the threads' areas (entry (i, j) of
 * system s at area[(j N + i) BSM_PITCH + s]; cols: lines are columns, i =
 * e, else rows).  Consecutive lanes take consecutive entries, so a warp's
 * access covers whole lines; 16 accesses in flight per lane. */
template <typename R, int N, int NL, bool IN>
__device__ __forceinline__ void bsm_copy(R *area, R *g, int64_t ks, int64_t ls, int64_t es, bool cols, int nsys,
                                         int lane)
{
    constexpr int PER = N * NL, Q = 16;
    for (int q0 = 0; q0 < PER; q0 += Q) {
        R v[Q];
        int d[Q];
        int64_t o[Q];
#pragma unroll
        for (int q = 0; q < Q; q++) {
            const int f = lane + 32 * (q0 + q);
            const int sy = f / PER, r = f - sy * PER, l = r / N, e = r - l * N;
            d[q] = (q0 + q < PER && sy < nsys) ? ((cols ? l * N + e : e * N + l) * BSM_PITCH + sy) : -1;
            o[q] = sy * ks + l * ls + e * es;
            if (IN && d[q] >= 0) v[q] = g[o[q]];
        }
#pragma unroll
        for (int q = 0; q < Q; q++)
            if (d[q] >= 0) {
                if (IN) area[d[q]] = v[q];
                else g[o[q]] = area[d[q]];
            }
    }
}

template <typename R, int N, int OP>
__global__ void __launch_bounds__(32) bsm_k(const bsi_lu_args<R> a)
{
    using L = bsi_lim<R>;
    constexpr int NC = N + (OP == BSI_OP_GESV ? 1 : 0); /* columns in shared memory */
    extern __shared__ __align__(16) unsigned char bsm_raw[];
    R *const area = reinterpret_cast<R *>(bsm_raw);
    R *const sm = area + threadIdx.x;
#define BSM(i, j) sm[((j) * N + (i)) * BSM_PITCH]

    const int lane = threadIdx.x;
    const int64_t sys0 = (int64_t)blockIdx.x * 32, sys = sys0 + lane;
    const int nsys = (int)min((int64_t)32, a.count - sys0);
    const bool valid = lane < nsys;
    const int pivot = a.pivot; /* a.n == N */

    /* ---- load A (and b): interleaved straight (a warp's load is 32
     * consecutive entries), other layouts by whole lines through the area;
     * a non-finite entry makes its accumulator NaN ---- */
    R nfa = R(0), nfb = R(0);
    {
        const int64_t ks = a.va.ks, is = a.va.is, js = a.va.js;
        if (ks == 1) {
            const R *A = a.A + sys;
#pragma unroll
            for (int j = 0; j < N; j++) {
#pragma unroll
                for (int i = 0; i < N; i++) {
                    const R v = valid ? A[i * is + j * js] : R(0);
                    nfa = fma(v, R(0), nfa);
                    BSM(i, j) = v;
                }
                /* at most two columns of loads in flight: all of them were
                 * hoisted into registers and spilled */
                if (j % 2 == 1) asm volatile("" ::: "memory");
            }
        } else {
            const bool cols = is == 1;
            bsm_copy<R, N, N, true>(area, const_cast<R *>(a.A) + sys0 * ks, ks, cols ? js : is, 1, cols, nsys, lane);
            __syncwarp();
#pragma unroll
            for (int j = 0; j < N; j++)
#pragma unroll
                for (int i = 0; i < N; i++) nfa = fma(BSM(i, j), R(0), nfa);
        }
        if constexpr (OP == BSI_OP_GESV) {
            if (a.vb.ks == 1) {
#pragma unroll
                for (int i = 0; i < N; i++) BSM(i, N) = valid ? a.B[sys + i * a.vb.is] : R(0);
            } else {
                bsm_copy<R, N, 1, true>(area + N * N * BSM_PITCH, a.B + sys0 * a.vb.ks, a.vb.ks, 0, a.vb.is, true, nsys, lane);
            }
        }
        if constexpr (OP == BSI_OP_GESV) {
            __syncwarp();
#pragma unroll
            for (int i = 0; i < N; i++) nfb = fma(BSM(i, N), R(0), nfb);
        }
    }
    const bool bad = nfa != R(0), badb = nfb != R(0);

    /* ---- factorization: P A = L U ---- */
    R col[N]; /* column k, rows k..N-1 */
#pragma unroll
    for (int i = 0; i < N; i++) col[i] = BSM(i, 0);
    R rv[N];       /* gesv: reciprocal pivots */
    uint32_t tm = 0; /* bit k: pivot k is subnormal, rv[k] = 1/(d 2^64) */
    int pinfo = 0;
#pragma unroll
    for (int k = 0; k < N; k++) rv[k] = R(1);
#pragma unroll
    for (int k = 0; k < N; k++) {
        int p = k;
        if (pivot == BSOLVE_PIVOT_PARTIAL) {
            R best = R(-1);
#pragma unroll
            for (int i = k; i < N; i++) {
                const R v = fabs(col[i]);
                const bool take = v > best;
                best = take ? v : best;
                p = take ? i : p;
            }
            /* rows k and p of the register column */
            const R ck = col[k];
            R cp = ck;
#pragma unroll
            for (int i = k + 1; i < N; i++) cp = i == p ? col[i] : cp;
#pragma unroll
            for (int i = k + 1; i < N; i++) col[i] = i == p ? ck : col[i];
            col[k] = cp;
        }
        if (OP == BSI_OP_GETRF && valid) {
            a.rp[k * a.fld + sys] = (uint8_t)p;
            a.cp[k * a.fld + sys] = (uint8_t)k;
        }
        const R d = col[k];
        const bool z = d == R(0);
        pinfo = (z && pinfo == 0) ? k + 1 : pinfo;
        /* a subnormal pivot: 1/d overflows; scale it (and the column) up by
         * 2^64 (2^32) first, exactly (dgetf2 divides below sfmin) */
        const bool tiny = fabs(d) < L::minnorm() && !z;
        const R sc = tiny ? L::up() : R(1);
        const R rinv = R(1) / (z ? R(1) : d * sc);
        R l[N];
#pragma unroll
        for (int i = k + 1; i < N; i++) l[i] = (col[i] * sc) * rinv;
        if constexpr (OP == BSI_OP_GETRF) {
            BSM(k, k) = d;
#pragma unroll
            for (int i = k + 1; i < N; i++) BSM(i, k) = l[i];
        } else {
            rv[k] = rinv;
            tm |= (uint32_t)tiny << k;
        }
        /* rows k and p of the columns right of k (LINPACK form: L's columns
         * keep the row order of their own step): row p's entries are the
         * pivot row u, row k's move to row p */
        R u[NC];
        if (pivot == BSOLVE_PIVOT_PARTIAL) {
            R *const rowp = sm + p * BSM_PITCH;
#pragma unroll
            for (int j = k + 1; j < NC; j++) u[j] = rowp[j * N * BSM_PITCH];
#pragma unroll
            for (int j = k + 1; j < NC; j++) {
                const R t = BSM(k, j);
                BSM(k, j) = u[j];
                rowp[j * N * BSM_PITCH] = t;
            }
        } else {
#pragma unroll
            for (int j = k + 1; j < NC; j++) u[j] = BSM(k, j);
        }
        /* rank-1 update; column k + 1 into the registers for the next step */
#pragma unroll
        for (int j = k + 1; j < NC; j++) {
#pragma unroll
            for (int i = k + 1; i < N; i++) {
                const R x = fma(-l[i], u[j], BSM(i, j));
                if (j == k + 1) col[i] = x;
                else BSM(i, j) = x;
            }
        }
        /* keep ptxas from hoisting later steps' loads: it kept whole
         * columns in registers and spilled */
        asm volatile("" ::: "memory");
    }

    if constexpr (OP == BSI_OP_GETRF) {
        if (!valid) return;
        const int v = bad ? BSOLVE_INFO_NONFINITE : pinfo;
        a.info[sys] = v;
        a.finfo[sys] = v;
        R *F = a.F + sys; /* the factors are interleaved */
        const int64_t fld = a.fld;
#pragma unroll
        for (int j = 0; j < N; j++)
#pragma unroll
            for (int i = 0; i < N; i++) F[(i + j * N) * fld] = BSM(i, j);
    } else {
        /* back substitution: x_i = (y_i - sum_{j > i} U_ij x_j) / U_ii */
        R x[N];
#pragma unroll
        for (int i = 0; i < N; i++) x[i] = BSM(i, N);
#pragma unroll
        for (int i = N - 1; i >= 0; i--) {
            x[i] = (x[i] * ((tm >> i) & 1u ? L::up() : R(1))) * rv[i];
#pragma unroll
            for (int r = 0; r < i; r++) x[r] = fma(-BSM(r, i), x[i], x[r]);
        }
        const int finfo = bad ? BSOLVE_INFO_NONFINITE : pinfo;
        const bool nanx = finfo != 0 || badb;
        if (a.vb.ks == 1) {
            if (valid)
#pragma unroll
                for (int i = 0; i < N; i++) a.B[sys + i * a.vb.is] = nanx ? L::nan() : x[i];
        } else { /* by whole lines, from b's column of the area */
#pragma unroll
            for (int i = 0; i < N; i++) BSM(i, N) = nanx ? L::nan() : x[i];
            __syncwarp();
            bsm_copy<R, N, 1, false>(area + N * N * BSM_PITCH, a.B + sys0 * a.vb.ks, a.vb.ks, 0, a.vb.is, true, nsys, lane);
        }
        if (a.info && valid) a.info[sys] = badb ? BSOLVE_INFO_NONFINITE : finfo;
    }
#undef BSM
}

/* Launch for order N (a.n == N); returns cudaErrorInvalidConfiguration, launching
 * nothing, when this device cannot give a block the shared memory (the
 * caller then takes the table's choice without this kernel). */
template <typename R, int N>
cudaError_t bsm_launch_n(int op, const bsi_lu_args<R> &a, cudaStream_t st)
{
    const int64_t blocks = (a.count + 31) / 32;
    if (blocks > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
    if (op == BSI_OP_GESV) {
        constexpr size_t smem = bsm_smem<R, N, BSI_OP_GESV>();
        if (!bsi_smem_optin(bsm_k<R, N, BSI_OP_GESV>, smem)) return cudaErrorInvalidConfiguration;
        bsm_k<R, N, BSI_OP_GESV><<<(unsigned)blocks, 32, smem, st>>>(a);
    } else {
        constexpr size_t smem = bsm_smem<R, N, BSI_OP_GETRF>();
        if (!bsi_smem_optin(bsm_k<R, N, BSI_OP_GETRF>, smem)) return cudaErrorInvalidConfiguration;
        bsm_k<R, N, BSI_OP_GETRF><<<(unsigned)blocks, 32, smem, st>>>(a);
    }
    return cudaGetLastError();
}

#define BSM_BUCKETS_LO(X, R) X(R, 9) X(R, 10) X(R, 11) X(R, 12)
#define BSM_BUCKETS_HI(X, R) X(R, 13) X(R, 14) X(R, 15) X(R, 16)
#define BSM_BUCKETS(X, R) BSM_BUCKETS_LO(X, R) BSM_BUCKETS_HI(X, R)
#define BSM_BUCKETS_S3(X, R) X(R, 17) X(R, 18) X(R, 19) X(R, 20)
#define BSM_BUCKETS_S4(X, R) X(R, 21) X(R, 22) X(R, 23) X(R, 24)
#define BSM_EXTERN(R, N) extern template cudaError_t bsm_launch_n<R, N>(int, const bsi_lu_args<R> &, cudaStream_t);
#define BSM_INSTANTIATE(R, N) template cudaError_t bsm_launch_n<R, N>(int, const bsi_lu_args<R> &, cudaStream_t);

#endif
