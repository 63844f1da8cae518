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
 * down to j+1), the order of the factor format and the CPU backend.
 *
 * Memory: straight global loads through bsi_view (INTERLEAVED: consecutive
 * threads on consecutive addresses; other layouts: each thread walks its
 * own contiguous system, lines shared through L1), all loads issued before
 * the first use.
 */
#ifndef BSI_QR_REG_CUH
#define BSI_QR_REG_CUH

#include "qr_team.cuh"

template <typename R, int M, int N, int OP>
__global__ void __launch_bounds__(128) bsq_k_reg(const bsq_args<R> a)
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
    if (!(mxa >= L::safelo() && mxa <= L::safehi())) L::pow2(mxa, da, sa);
    if (OP == BSQ_GELS && !(mxb >= L::safelo() && mxb <= L::safehi())) L::pow2(mxb, db, sb);
    if (da != R(1))
#pragma unroll
        for (int i = 0; i < M; i++)
#pragma unroll
            for (int j = 0; j < N; j++) A[i][j] *= da;
    if (OP == BSQ_GELS && db != R(1))
#pragma unroll
        for (int i = 0; i < M; i++) b[i] *= db;

    const int RO = n * n, RD = RO + 2 * (n * (m - 1) - n * (n - 1) / 2);
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
        const R sx = sb / sa;
        R *Bp = a.B + sys * a.vb.ks;
#pragma unroll
        for (int r = 0; r < M; r++)
            if (r < m) Bp[r * a.vb.is] = inf != 0 ? L::nan() : b[r] * (r < n ? sx : sb);
        a.info[sys] = inf;
    }
}

#endif
