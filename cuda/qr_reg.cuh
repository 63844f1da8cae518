/*
 * qr_reg.cuh -- register-resident thread-per-system QR kernel (gels with one
 * right-hand side, geqrf) for small systems; the rest goes to the team
 * kernel (qr_team.cuh), whose factor format, rotation formula (bsq_rot),
 * scaling, rank test and non-finite handling this kernel reproduces.
 *
 * One thread owns one system: A (m x n) and b in registers, M x N and M
 * compile-time buckets (m <= M, n <= N), every loop fully unrolled so that
 * register arrays are indexed only by constants.  Rows m..M-1 and columns
 * n..N-1 are zero padding: rotations of padded rows (i >= m) and of padded
 * columns (j >= n) are skipped by warp-uniform run-time guards, so that
 * the rotations computed are exactly those of the m x n system; padded
 * columns receive the rotations of real columns (zeros stay zeros, nothing
 * reads them).  The rotations run in column order (column j, row i = m-1
 * down to j+1), the order of the factor format and the CPU backend; for a
 * shape equal to its bucket, FP64 gels runs the wavefront copy below.
 *
 * Memory: straight global loads through bsi_view (INTERLEAVED: consecutive
 * threads on consecutive addresses; other layouts: each thread walks its
 * own contiguous system, lines shared through L1), all loads issued before
 * the first use.
 */
#ifndef BSI_QR_REG_CUH
#define BSI_QR_REG_CUH

#include "qr_team.cuh"

/* Rank test on the factored system (R in A's upper triangle, Q^T b in b),
 * then geqrf's factors or gels' back substitution and output, shared by the
 * column-order and the wavefront kernels. */
template <typename R, int M, int N, int OP>
__device__ __forceinline__ void bsq_reg_finish(const bsq_args<R> &a, const int64_t sys, R (&A)[M][N], R (&b)[M],
                                               const int m, const int n, const int nf, const R sa, const R sb)
{
    typedef bsq_lim<R> L;
    const int RD = n * n + 2 * (n * (m - 1) - n * (n - 1) / 2);
    R *Fs = OP == BSQ_GEQRF ? a.F + sys : nullptr;
    const int64_t fld = a.fld;
    /* rank: the first column j with |R(j,j)| <= m eps ||R(0:j,j)|| */
    int zl = 0x7fffffff;
    R rdv[N];
#pragma unroll
    for (int j = 0; j < N; j++) {
        rdv[j] = R(1);
        if (j < n) {
            R mx = R(0);
#pragma unroll
            for (int i = 0; i <= j; i++) mx = fmax(mx, fabs(A[i][j]));
            R down, up;
            L::pow2(mx, down, up);
            R ss = R(0);
#pragma unroll
            for (int i = 0; i <= j; i++) {
                const R q = A[i][j] * down;
                ss += q * q;
            }
            const R d = A[j][j] * down, tol = (R)m * L::eps();
            const bool neg = d * d <= tol * tol * ss;
            if (neg) zl = min(zl, j + 1);
            rdv[j] = R(1) / (neg ? R(1) : A[j][j]);
        }
    }
    const int32_t inf = nf ? BSOLVE_INFO_NONFINITE : (zl == 0x7fffffff ? 0 : zl);

    if (OP == BSQ_GEQRF) {
#pragma unroll
        for (int j = 0; j < N; j++)
            if (j < n) {
#pragma unroll
                for (int i = 0; i <= j; i++) Fs[(int64_t)(i + j * n) * fld] = A[i][j];
                Fs[(int64_t)(RD + j) * fld] = rdv[j];
            }
        Fs[(int64_t)(RD + n) * fld] = sa;
        a.finfo[sys] = inf;
        a.info[sys] = inf;
    } else {
        /* back substitution, column-oriented */
#pragma unroll
        for (int i = N - 1; i >= 0; i--) {
            if (i < n) {
                const R bi = b[i], rd = rdv[i];
                const R x = bsq_rd_bad(rd) ? bi / A[i][i] : bi * rd;
                b[i] = x;
#pragma unroll
                for (int r = 0; r < i; r++) b[r] -= A[r][i] * x;
            }
        }
        const R sx = sb / sa, rn = bsq_tail_nrm2<1, R>(m > n, [&](auto f) __attribute__((always_inline)) {
#pragma unroll
            for (int r = 0; r < M; r++)
                if (r >= n && r < m) f(b[r]);
        });
        R *Bp = a.B + sys * a.vb.ks;
#pragma unroll
        for (int r = 0; r < M; r++)
            if (r < m) Bp[r * a.vb.is] = inf != 0 ? L::nan() : r < n ? b[r] * sx : r == n ? rn * sb : R(0);
        a.info[sys] = inf;
    }
}

/* The 4 x 4 bucket runs near the copy floor, where occupancy is speed: its
 * 64 registers keep 8 blocks (32 warps) per SM; unbounded, the residual
 * norm's code takes it to 70, 7 blocks, and 0.94x the speed. */
template <typename R, int M, int N, int OP>
__global__ void __launch_bounds__(128, M * N <= 16 ? 8 : 1) bsq_k_reg(const bsq_args<R> a)
{
    typedef bsq_lim<R> L;
    const int64_t sys = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (sys >= a.count) return;
    const int m = a.m, n = a.n;
    R A[M][N], b[M];
    {
        const R *Ap = a.A + sys * a.va.ks;
#pragma unroll
        for (int j = 0; j < N; j++)
#pragma unroll
            for (int i = 0; i < M; i++)
                A[i][j] = (i < m && j < n) ? __ldg(Ap + (i * a.va.is + j * a.va.js)) : R(0);
        if (OP == BSQ_GELS) {
            const R *Bp = a.B + sys * a.vb.ks;
#pragma unroll
            for (int i = 0; i < M; i++) b[i] = i < m ? Bp[i * a.vb.is] : R(0);
        }
    }

    /* non-finite entries and the power-of-two scalings (as qr_team.cuh) */
    int nf = 0;
    R mxa = R(0), mxb = R(0);
#pragma unroll
    for (int i = 0; i < M; i++) {
#pragma unroll
        for (int j = 0; j < N; j++) {
            nf |= !isfinite(A[i][j]);
            mxa = fmax(mxa, fabs(A[i][j]));
        }
        if (OP == BSQ_GELS) {
            nf |= !isfinite(b[i]);
            mxb = fmax(mxb, fabs(b[i]));
        }
    }
    R sa = R(1), sb = R(1), da = R(1), db = R(1);
    bsq_scaling<R>(mxa, da, sa);
    if (OP == BSQ_GELS) bsq_scaling<R>(mxb, db, sb);
    if (da != R(1))
#pragma unroll
        for (int i = 0; i < M; i++)
#pragma unroll
            for (int j = 0; j < N; j++) A[i][j] *= da;
    if (OP == BSQ_GELS && db != R(1))
#pragma unroll
        for (int i = 0; i < M; i++) b[i] *= db;

    const int RO = n * n;
    R *Fs = OP == BSQ_GEQRF ? a.F + sys : nullptr;
    const int64_t fld = a.fld;

    /* Givens rotations in column order */
#pragma unroll
    for (int j = 0; j < N; j++) {
        if (j >= n) break;
#pragma unroll
        for (int i = M - 1; i > j; i--) {
            if (i < m) {
                R c, s;
                A[i - 1][j] = bsq_rot<R>(A[i - 1][j], A[i][j], c, s);
                if (OP == BSQ_GEQRF) {
                    const int g = j * (m - 1) - j * (j - 1) / 2 + (m - 1 - i);
                    Fs[(int64_t)(RO + 2 * g) * fld] = c;
                    Fs[(int64_t)(RO + 2 * g + 1) * fld] = s;
                }
#pragma unroll
                for (int k = j + 1; k < N; k++) {
                    const R x = A[i - 1][k], y = A[i][k];
                    A[i - 1][k] = c * x + s * y;
                    A[i][k] = c * y - s * x;
                }
                if (OP == BSQ_GELS) {
                    const R x = b[i - 1], y = b[i];
                    b[i - 1] = c * x + s * y;
                    b[i] = c * y - s * x;
                }
            }
        }
    }

    bsq_reg_finish<R, M, N, OP>(a, sys, A, b, m, n, nf, sa, sb);
}

/* ---- wavefront copy (shapes equal to their bucket) ---------------------------------
 * gels with nrhs = 1 for m = M, n = N, with the rotations in the
 * Sameh-Kuck order of the other kernels (rotation (i, j) at step M-1-i+2j;
 * each meets the operands it meets in column order, qr_team.cuh) instead of
 * column by column, and no run-time guard.  Why: in column order every
 * rotation waits for the one before it (its g is that rotation's r), so a
 * thread runs one long dependent chain, and the guards cut the code into
 * one block per rotation; here the rotations of a step are independent and
 * the whole factorization is one block of straight-line code that the
 * scheduler interleaves.  Rows are loaded where they are first needed (row
 * i at step M-2-i; the compiler is free to hoist them).  qr_dispatch.cuh
 * gives it the FP64 buckets with M > 4, where it ran 1.25-2x column order.
 *
 * The power-of-two scaling needs max |A| before the first rotation, which
 * the lazy loads do not know: the fast pass runs unscaled and tracks the
 * largest exponent of A and of b as it loads (an integer max of the high
 * words; NaN and Inf land above the range); if either is outside the safe
 * range the system is redone by the scaled pass (SCALE), which reads A and
 * b twice.  Both take the team kernel's scaling decisions, so the result
 * is the same whichever runs.
 *
 * No copy for the general shapes of a bucket (padded rows made identities
 * by selects, padded columns as exact identities): they spill, 0.7-0.8x
 * column order; and no 16 x 8 bucket (n x m 8 x 16): about 90 doubles live
 * at the peak, 255 registers, 0.85x the column-per-lane kernel. */
template <typename R> struct bsq_hw;
template <> struct bsq_hw<double> {
    static __device__ __forceinline__ unsigned key(double x) { return (unsigned)__double2hiint(x) & 0x7fffffffu; }
    /* fast iff lo <= key(max) < hi: conservative at 2^64 (low word unseen) */
    static __device__ __forceinline__ unsigned lo() { return (unsigned)__double2hiint(0x1p-64); }
    static __device__ __forceinline__ unsigned hi() { return (unsigned)__double2hiint(0x1p+64); }
};
template <> struct bsq_hw<float> {
    static __device__ __forceinline__ unsigned key(float x) { return (unsigned)__float_as_int(x) & 0x7fffffffu; }
    static __device__ __forceinline__ unsigned lo() { return (unsigned)__float_as_int(0x1p-16f); }
    static __device__ __forceinline__ unsigned hi() { return (unsigned)__float_as_int(0x1p+16f) + 1u; }
};

template <typename R, int M, int N, bool SCALE>
__device__ __forceinline__ bool bsq_regw(const bsq_args<R> &a, const int64_t sys)
{
    typedef bsq_lim<R> L;
    typedef bsq_hw<R> H;
    constexpr int m = M, n = N;
    const R *Ap = a.A + sys * a.va.ks;
    const R *Bq = a.B + sys * a.vb.ks;
    int nf = 0;
    R sa = R(1), sb = R(1), da = R(1), db = R(1);
    if (SCALE) {
        R mxa = R(0), mxb = R(0);
#pragma unroll
        for (int i = 0; i < M; i++) {
#pragma unroll
            for (int j = 0; j < N; j++) {
                const R x = __ldg(Ap + (i * a.va.is + j * a.va.js));
                nf |= !isfinite(x);
                mxa = fmax(mxa, fabs(x));
            }
            const R x = Bq[i * a.vb.is];
            nf |= !isfinite(x);
            mxb = fmax(mxb, fabs(x));
        }
        bsq_scaling<R>(mxa, da, sa);
        bsq_scaling<R>(mxb, db, sb);
    }
    unsigned ha = 0, hb = 0;
    R A[M][N], b[M];
    auto ldrow = [&](const int i) __attribute__((always_inline)) {
#pragma unroll
        for (int j = 0; j < N; j++) {
            R x = __ldg(Ap + (i * a.va.is + j * a.va.js));
            if (SCALE) x *= da;
            else ha = max(ha, H::key(x));
            A[i][j] = x;
        }
        R x = Bq[i * a.vb.is];
        if (SCALE) x *= db;
        else hb = max(hb, H::key(x));
        b[i] = x;
    };

    /* rotation (i, j): rows i-1 and i, zeroing A(i,j) */
    auto rot = [&](const int i, const int j) __attribute__((always_inline)) {
        R c, s;
        A[i - 1][j] = bsq_rot<R>(A[i - 1][j], A[i][j], c, s);
#pragma unroll
        for (int k = j + 1; k < N; k++) {
            const R x = A[i - 1][k], y = A[i][k];
            A[i - 1][k] = fma(c, x, s * y);
            A[i][k] = fma(c, y, -(s * x));
        }
        const R x = b[i - 1], y = b[i];
        b[i - 1] = fma(c, x, s * y);
        b[i] = fma(c, y, -(s * x));
    };
    ldrow(M - 1);
#pragma unroll
    for (int t = 0; t < M + N - 2; t++) {
        if (M - 2 - t >= 0) ldrow(M - 2 - t);
#pragma unroll
        for (int j = 0; j < N; j++) {
            const int i = M - 1 + 2 * j - t;
            if (i > j && i < M) rot(i, j);
        }
    }
    if (!SCALE && !(ha >= H::lo() && ha < H::hi() && hb >= H::lo() && hb < H::hi()))
        return false;

    bsq_reg_finish<R, M, N, BSQ_GELS>(a, sys, A, b, m, n, nf, sa, sb);
    return true;
}

template <typename R, int M, int N>
__global__ void __launch_bounds__(128) bsq_k_regw(const bsq_args<R> a)
{
    const int64_t sys = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (sys >= a.count) return;
    if (!bsq_regw<R, M, N, false>(a, sys)) bsq_regw<R, M, N, true>(a, sys);
}

#endif
