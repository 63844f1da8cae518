/*
 * lu_smem.cuh -- LU with a thread per system, the matrix in shared memory
 * (gesv with one right-hand side and getrf, PARTIAL or NONE, 9 <= n <= 16,
 * FP32 to 17;
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
 * of its warp's area, so a warp's access to one entry of its 32 systems is
 * conflict-free whatever the rows.
 *
 * The current column lives in registers: the update of step k writes column
 * k + 1 there instead of back to shared memory, so the next pivot search,
 * interchange and multipliers need no loads.  b is column N (the elimination
 * is the forward substitution); the back substitution keeps x in registers.
 *
 * Memory: every entry is loaded once straight from the caller's layout
 * (interleaved: a warp's load is 32 consecutive entries; column-major:
 * consecutive entries of one system in consecutive loads of a thread, which
 * its L1 lines serve), all loads of the matrix issued before the first use.
 *
 * Numerics are the team kernel's (lu_small.cuh): largest |a|, ties to the
 * lowest row, NaN never a pivot unless all are; the multipliers by the
 * reciprocal of the pivot, a subnormal pivot scaled up by 2^64 (2^32) first;
 * getrf's L in LINPACK form (common.cuh).
 *
 * Blocks are one warp (32 systems), N (N + 1) 32 entries of shared memory:
 * 28 KB at N = 10, 68 KB at N = 16 (FP64; devices that cannot give a block
 * that much get the table's other kernel).
 */
#ifndef BSI_LU_SMEM_CUH
#define BSI_LU_SMEM_CUH

#include "common.cuh"
#include "lu_dispatch.cuh"
#include "lu_small.cuh" /* bsi_lim */

/* Shared memory of a block (one warp) for order N: N rows, N columns and b. */
template <typename R, int N, int OP> constexpr size_t bsm_smem()
{
    return (size_t)32 * N * (N + (OP == BSI_OP_GESV ? 1 : 0)) * sizeof(R);
}

template <typename R, int N, int OP, bool LIST>
__global__ void __launch_bounds__(32) bsm_k(const bsi_lu_args<R> a)
{
    using L = bsi_lim<R>;
    constexpr int NC = N + (OP == BSI_OP_GESV ? 1 : 0); /* columns in shared memory */
    extern __shared__ __align__(16) unsigned char bsm_raw[];
    R *const sm = reinterpret_cast<R *>(bsm_raw) + threadIdx.x;
#define BSM(i, j) sm[((j) * N + (i)) * 32]

    const int64_t i = (int64_t)blockIdx.x * 32 + threadIdx.x;
    if (i >= bsi_lu_count<LIST>(a)) return; /* no lane talks to another */
    const int64_t sys = bsi_lu_sys<LIST>(a, i);
    const int pivot = a.pivot; /* a.n == N */

    /* ---- load A (and b); a non-finite entry makes its accumulator NaN ---- */
    R nfa = R(0), nfb = R(0);
    {
        const R *A = a.A + sys * a.va.ks;
        const int64_t is = a.va.is, js = a.va.js;
#pragma unroll
        for (int j = 0; j < N; j++) {
#pragma unroll
            for (int i = 0; i < N; i++) {
                const R v = A[i * is + j * js];
                nfa = fma(v, R(0), nfa);
                BSM(i, j) = v;
            }
            /* at most two columns of loads in flight: all of them were
             * hoisted into registers and spilled */
            if (j % 2 == 1) asm volatile("" ::: "memory");
        }
        if constexpr (OP == BSI_OP_GESV) {
            const R *B = a.B + sys * a.vb.ks;
#pragma unroll
            for (int i = 0; i < N; i++) {
                const R v = B[i * a.vb.is];
                nfb = fma(v, R(0), nfb);
                BSM(i, N) = v;
            }
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
        if constexpr (OP == BSI_OP_GETRF) {
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
            R *const rowp = sm + p * 32;
#pragma unroll
            for (int j = k + 1; j < NC; j++) u[j] = rowp[j * N * 32];
#pragma unroll
            for (int j = k + 1; j < NC; j++) {
                const R t = BSM(k, j);
                BSM(k, j) = u[j];
                rowp[j * N * 32] = t;
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
        const int v = bad ? BSOLVE_INFO_NONFINITE : pinfo;
        a.info[sys] = v;
        a.finfo[sys] = v;
        R *F = a.F + sys;
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
        R *B = a.B + sys * a.vb.ks;
#pragma unroll
        for (int i = 0; i < N; i++) B[i * a.vb.is] = (finfo != 0 || badb) ? L::nan() : x[i];
        if (a.info) a.info[sys] = badb ? BSOLVE_INFO_NONFINITE : finfo;
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
        if (!bsi_smem_optin(bsm_k<R, N, BSI_OP_GESV, false>, smem)) return cudaErrorInvalidConfiguration;
        bsm_k<R, N, BSI_OP_GESV, false><<<(unsigned)blocks, 32, smem, st>>>(a);
    } else if (!a.nsel) {
        constexpr size_t smem = bsm_smem<R, N, BSI_OP_GETRF>();
        if (!bsi_smem_optin(bsm_k<R, N, BSI_OP_GETRF, false>, smem)) return cudaErrorInvalidConfiguration;
        bsm_k<R, N, BSI_OP_GETRF, false><<<(unsigned)blocks, 32, smem, st>>>(a);
    } else {
        constexpr size_t smem = bsm_smem<R, N, BSI_OP_GETRF>();
        if (!bsi_smem_optin(bsm_k<R, N, BSI_OP_GETRF, true>, smem)) return cudaErrorInvalidConfiguration;
        bsm_k<R, N, BSI_OP_GETRF, true><<<(unsigned)blocks, 32, smem, st>>>(a);
    }
    return cudaGetLastError();
}

#define BSM_BUCKETS_LO(X, R) X(R, 9) X(R, 10) X(R, 11) X(R, 12)
#define BSM_BUCKETS_HI(X, R) X(R, 13) X(R, 14) X(R, 15) X(R, 16)
#define BSM_BUCKETS(X, R) BSM_BUCKETS_LO(X, R) BSM_BUCKETS_HI(X, R)
#define BSM_BUCKETS_S3(X, R) X(R, 17)
#define BSM_EXTERN(R, N) extern template cudaError_t bsm_launch_n<R, N>(int, const bsi_lu_args<R> &, cudaStream_t);
#define BSM_INSTANTIATE(R, N) template cudaError_t bsm_launch_n<R, N>(int, const bsi_lu_args<R> &, cudaStream_t);

#endif
