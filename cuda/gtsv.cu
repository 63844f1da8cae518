/*
 * gtsv.cu -- the CUDA backend of the tridiagonal solvers (gtsv, gttrf,
 * gttrs).
 *
 * Many systems with m <= 4096: the on-chip tile kernel of gtsv_tile.cuh
 * (whole systems staged in shared memory; read once, written once).
 * Many longer systems: one thread per system runs the sequential elimination of
 * the requested method (gtsv.cuh), one right-hand side column per launch.
 * Interleaved data are read directly (consecutive threads, consecutive
 * addresses).  Contiguous data are read through shared memory: each warp
 * stages a chunk of GT_CH equations of its 32 systems with coalesced loads
 * (lanes run along the equations of a system), then every lane sweeps its
 * own system out of shared memory; solutions leave the same way.  The
 * forward sweep keeps row i of U (1/U(i,i), U(i,i+1), U(i,i+2)) and y_i in
 * a per-thread interleaved (coalesced) scratch for the back substitution.
 *
 * Few long systems (too few to fill the GPU): the partition method.  Each
 * system is cut into partitions of GT_L rows; in partition p (rows s..e)
 * the interior rows s..e-1 are eliminated by one thread with the requested
 * method for three right-hand sides, giving x_i = g_i - v_i x_{s-1} - w_i x_e;
 * substituting into row e gives a tridiagonal reduced system in the
 * unknowns x_e, one per partition, solved recursively by the same method
 * until it is small enough for one thread; then every thread re-solves its
 * interior with the now known x_{s-1} and x_e.  A system whose partitions
 * (or reduced systems) meet a pivot below GT_TOL times their largest entry
 * (zero pivots included), or a non-finite entry, is re-solved by the
 * sequential kernel: info keeps its meaning, and the partition method is
 * used only where its local pivoting is accurate (e.g. diagonally dominant
 * systems; a random or zero-diagonal matrix falls back).
 *
 * Host pointers are staged: each host array's span is copied to device
 * memory, and results copied back (gaps copied back unchanged).
 */
#include <string.h>

#include "common.cuh"
#include "gtsv.cuh"

#define GT_CH 8     /* equations per staged chunk (contiguous layout) */
#define GT_WARPS 4  /* warps per block of the sequential kernel */
#define GT_BLOCK (32 * GT_WARPS)
#define GT_L 8      /* rows per partition */
#define GT_SMALL 64 /* reduced systems of at most this many rows: one thread */
/* A partition (or the bottom system) whose pivot is below GT_TOL times its
 * largest entry is left to the sequential fallback: local pivoting cannot
 * vouch for its accuracy there. */
#define GT_TOL (1.0 / 64)

enum { GT_SV = 0, GT_TRF = 1, GT_TRS = 2 };

template <typename R> struct gt_seq_args {
    const R *dl, *d, *du;
    int64_t dks, dis;        /* diagonal entry i of system k at p[k*dks + i*dis] */
    R *B;
    int64_t bks, bis;        /* one right-hand-side column (already offset) */
    int32_t *info;           /* may be NULL (gttrs) */
    int merge;               /* later columns: merge into info */
    R *S;                    /* scratch planes rinv, u1, u2, y: S[(q*m + i)*sld + k] */
    int64_t sld;
    R *F;                    /* factors: F[(q*m + i)*fld + k] */
    int64_t fld;
    const int32_t *finfo;    /* gttrs: the factorization's info */
    int32_t *finfo_out;      /* gttrf: gt->info */
    const int32_t *only;     /* if not NULL: solve only systems with only[k] != 0 */
    int64_t m, batch;
};

template <typename R> struct gt_tile {
    R v[32][GT_CH + 1];
};

/* tile[s][e] = p[(kbase+s)*ks + (c0+e)*is] for the warp's 32 systems. */
template <typename R>
__device__ __forceinline__ void gt_stage_in(gt_tile<R> &t, const R *p, int64_t ks, int64_t is, int64_t kbase,
                                            int64_t c0, int64_t m, int64_t batch, int lane)
{
#pragma unroll
    for (int it = 0; it < GT_CH * 32 / 32; it++) {
        const int s = it * (32 / GT_CH) + lane / GT_CH, e = lane % GT_CH;
        const int64_t k = kbase + s, i = c0 + e;
        t.v[s][e] = (k < batch && i < m) ? p[k * ks + i * is] : R(0);
    }
}

template <typename R>
__device__ __forceinline__ void gt_stage_out(const gt_tile<R> &t, R *p, int64_t ks, int64_t is, int64_t kbase,
                                             int64_t c0, int64_t m, int64_t batch, int lane)
{
#pragma unroll
    for (int it = 0; it < GT_CH; it++) {
        const int s = it * (32 / GT_CH) + lane / GT_CH, e = lane % GT_CH;
        const int64_t k = kbase + s, i = c0 + e;
        if (k < batch && i < m) p[k * ks + i * is] = t.v[s][e];
    }
}

__device__ __forceinline__ int32_t gt_merge(int merge, int32_t old, int32_t nw)
{
    if (!merge) return nw;
    if (old == -1 || nw == -1) return -1;
    return old != 0 ? old : nw;
}

template <typename R, int METHOD, int OP, bool CONTIG>
__global__ void __launch_bounds__(GT_BLOCK) gt_seq(const gt_seq_args<R> A)
{
    extern __shared__ __align__(16) unsigned char gt_smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t kbase = ((int64_t)blockIdx.x * GT_WARPS + warp) * 32, k = kbase + lane;
    if (kbase >= A.batch) return;
    bool valid = k < A.batch;
    if (A.only) {
        valid = valid && A.only[k] != 0;
        if (CONTIG) {
            if (!__any_sync(0xffffffffu, valid)) return;
        } else if (!valid) {
            return;
        }
    }
    if (!CONTIG && !valid) return;
    gt_tile<R> *tiles = (gt_tile<R> *)gt_smem + warp * 4;
    gt_tile<R> &Tl = tiles[0], &Td = tiles[1], &Tu = tiles[2], &Tb = tiles[3];
    const int64_t m = A.m, sld = A.sld, fld = A.fld;
    const int64_t kk = valid ? k : 0; /* scratch column for idle lanes: never read back */
    R *Y = OP == GT_SV ? A.S + 3 * m * sld : A.S;
    R c0 = 0, c1 = 0, bc = 0, probe = 0;
    int32_t info = 0;

    for (int64_t ch = 0; ch < m; ch += GT_CH) {
        if (CONTIG) {
            __syncwarp();
            if (OP != GT_TRS) {
                gt_stage_in(Tl, A.dl, A.dks, A.dis, kbase, ch, m, A.batch, lane);
                gt_stage_in(Td, A.d, A.dks, A.dis, kbase, ch, m, A.batch, lane);
                gt_stage_in(Tu, A.du, A.dks, A.dis, kbase, ch, m, A.batch, lane);
            }
            if (OP != GT_TRF) gt_stage_in(Tb, (const R *)A.B, A.bks, A.bis, kbase, ch, m, A.batch, lane);
            __syncwarp();
        }
        for (int e = 0; e < GT_CH; e++) {
            const int64_t i = ch + e;
            if (i >= m) break;
            R a = 0, dd = 0, uu = 0, b = 0;
            if (CONTIG) {
                if (OP != GT_TRS) {
                    a = Tl.v[lane][e];
                    dd = Td.v[lane][e];
                    uu = Tu.v[lane][e];
                }
                if (OP != GT_TRF) b = Tb.v[lane][e];
            } else {
                if (OP != GT_TRS) {
                    if (i > 0) a = A.dl[k * A.dks + i * A.dis];
                    dd = A.d[k * A.dks + i * A.dis];
                    if (i + 1 < m) uu = A.du[k * A.dks + i * A.dis];
                }
                if (OP != GT_TRF) b = A.B[k * A.bks + i * A.bis];
            }
            if (OP != GT_TRF) probe += b * R(0);
            if (OP == GT_TRS) {
                if (i == 0) {
                    bc = b;
                } else {
                    const R q0 = A.F[(0 * m + i - 1) * fld + kk], q1 = A.F[(1 * m + i - 1) * fld + kk];
                    R nb = b;
                    const R y = bsi_gt_apply<R, METHOD>(q0, q1, bc, nb);
                    if (valid) Y[(i - 1) * sld + kk] = y;
                    bc = nb;
                }
                continue;
            }
            if (i == 0) {
                c0 = dd;
                c1 = m > 1 ? uu : R(0);
                probe += c0 * R(0) + c1 * R(0);
                bc = b;
                continue;
            }
            const R nu = i + 1 < m ? uu : R(0);
            probe += a * R(0) + dd * R(0) + nu * R(0);
            R q0, q1, r, u1, u2;
            bool z;
            bsi_gt_step<R, METHOD>(c0, c1, a, dd, nu, q0, q1, r, u1, u2, z);
            if (z && info == 0) info = (int32_t)i;
            if (!valid) {
                R nb = b;
                (void)bsi_gt_apply<R, METHOD>(q0, q1, bc, nb);
                bc = nb;
            } else if (OP == GT_TRF) {
                R *F = A.F + (i - 1) * fld + kk;
                F[0] = q0;
                F[m * fld] = q1;
                F[2 * m * fld] = r;
                F[3 * m * fld] = u1;
                F[4 * m * fld] = u2;
            } else {
                R *S = A.S + (i - 1) * sld + kk;
                S[0] = r;
                S[m * sld] = u1;
                S[2 * m * sld] = u2;
                R nb = b;
                Y[(i - 1) * sld + kk] = bsi_gt_apply<R, METHOD>(q0, q1, bc, nb);
                bc = nb;
            }
        }
    }
    if (OP == GT_TRS) {
        if (valid) Y[(m - 1) * sld + kk] = bc;
        info = A.finfo[kk];
    } else if (valid) {
        const bool z = c0 == R(0);
        if (z && info == 0) info = (int32_t)m;
        const R r = R(1) / (z ? R(1) : c0);
        if (OP == GT_TRF) {
            R *F = A.F + (m - 1) * fld + kk;
            F[0] = 0;
            F[m * fld] = 0;
            F[2 * m * fld] = r;
            F[3 * m * fld] = 0;
            F[4 * m * fld] = 0;
        } else {
            R *S = A.S + (m - 1) * sld + kk;
            S[0] = r;
            S[m * sld] = 0;
            S[2 * m * sld] = 0;
            Y[(m - 1) * sld + kk] = bc;
        }
    }
    if (probe != probe) info = -1;
    if (OP == GT_TRF) {
        if (valid) {
            A.finfo_out[k] = info;
            A.info[k] = info;
        }
        return;
    }
    /* back substitution */
    const R *Rr = OP == GT_SV ? A.S : A.F + 2 * m * fld;
    const int64_t rld = OP == GT_SV ? sld : fld;
    const bool fail = info != 0;
    R x1 = 0, x2 = 0;
    for (int64_t ch = (m - 1) / GT_CH * GT_CH; ch >= 0; ch -= GT_CH) {
        const int ne = m - ch < GT_CH ? (int)(m - ch) : GT_CH;
        for (int e = ne - 1; e >= 0; e--) {
            const int64_t i = ch + e;
            const R rv = Rr[i * rld + kk], u1 = Rr[(m + i) * rld + kk], u2 = Rr[(2 * m + i) * rld + kk];
            const R x = (Y[i * sld + kk] - u1 * x1 - u2 * x2) * rv;
            x2 = x1;
            x1 = x;
            const R out = fail ? R(NAN) : x;
            if (CONTIG)
                Tb.v[lane][e] = out;
            else
                A.B[k * A.bks + i * A.bis] = out;
        }
        if (CONTIG) {
            __syncwarp();
            if (A.only) {
                /* write only the lanes being solved */
#pragma unroll
                for (int it = 0; it < GT_CH; it++) {
                    const int s = it * (32 / GT_CH) + lane / GT_CH, e = lane % GT_CH;
                    const int64_t ks = kbase + s, i = ch + e;
                    if (ks < A.batch && i < m && A.only[ks]) A.B[ks * A.bks + i * A.bis] = Tb.v[s][e];
                }
            } else {
                gt_stage_out(Tb, A.B, A.bks, A.bis, kbase, ch, m, A.batch, lane);
            }
            __syncwarp();
        }
    }
    if (valid && A.info) A.info[k] = gt_merge(A.merge, A.info[k], info);
}

#include "gtsv_tile.cuh"

/* NaN-fills every column of the systems with info != 0 (after the last column). */
template <typename R>
__global__ void gt_nanfill(R *B, int64_t bks, int64_t bis, int64_t bjs, int64_t m, int64_t nrhs, int64_t batch,
                           const int32_t *info)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= batch || info[k] == 0) return;
    for (int64_t j = 0; j < nrhs; j++)
        for (int64_t i = 0; i < m; i++) B[k * bks + i * bis + j * bjs] = R(NAN);
}

/* ======================================================================
 * The partition method (few long systems)
 * ====================================================================== */

/* Rows of a batch of systems: raw (the user's diagonals and one RHS column)
 * or a reduced system of a level (arrays of n rows per system). */
template <typename R> struct gt_rows {
    int red;
    int64_t n; /* rows per system */
    const R *dl, *d, *du, *b;
    int64_t ks, is, bks, bis;
    const R *A, *Bp, *Dp, *Ce, *GS, *VS, *WS; /* reduced: row p of system k at [k*n + p] */
};

template <typename R>
__device__ __forceinline__ void gt_row(const gt_rows<R> &S, int64_t k, int64_t i, R &a, R &b, R &c, R &d)
{
    if (!S.red) {
        a = i > 0 ? S.dl[k * S.ks + i * S.is] : R(0);
        b = S.d[k * S.ks + i * S.is];
        c = i + 1 < S.n ? S.du[k * S.ks + i * S.is] : R(0);
        d = S.b[k * S.bks + i * S.bis];
        return;
    }
    const int64_t o = k * S.n + i;
    const R ce = S.Ce[o];
    a = S.A[o];
    if (i + 1 < S.n) {
        b = S.Bp[o] - ce * S.VS[o + 1];
        c = -ce * S.WS[o + 1];
        d = S.Dp[o] - ce * S.GS[o + 1];
    } else {
        b = S.Bp[o];
        c = 0;
        d = S.Dp[o];
    }
}

/* Outputs of one level: the pieces of the reduced system (see gt_row). */
template <typename R> struct gt_level {
    R *A, *Bp, *Dp, *Ce, *GS, *VS, *WS;
    int64_t np; /* partitions per system */
};

/* Solves the interior block (rows 0..ni-1 of a[], b[], c[]) for NR
 * right-hand sides in rhs[r][]; returns false on an exactly zero pivot. */
template <typename R, int METHOD, int NR>
__device__ __forceinline__ bool gt_interior(int ni, const R *a, const R *b, const R *c, R (*rhs)[GT_L])
{
    R rv[GT_L], u1[GT_L], u2[GT_L];
    bool ok = true;
    R tol = 0; /* GT_TOL * the block's largest entry */
#pragma unroll
    for (int i = 0; i < GT_L - 1; i++)
        if (i < ni) tol = fmax(tol, fmax(fabs(b[i]), fmax(i > 0 ? fabs(a[i]) : R(0), i + 1 < ni ? fabs(c[i]) : R(0))));
    tol *= R(GT_TOL);
    R c0 = b[0], c1 = ni > 1 ? c[0] : R(0);
#pragma unroll
    for (int i = 0; i + 1 < GT_L - 1 + 1; i++) {
        if (i + 1 >= ni) break;
        const R nu = i + 2 < ni ? c[i + 1] : R(0);
        R q0, q1;
        bool z;
        bsi_gt_step<R, METHOD>(c0, c1, a[i + 1], b[i + 1], nu, q0, q1, rv[i], u1[i], u2[i], z);
        ok = ok && !z && fabs(rv[i]) * tol <= R(1);
#pragma unroll
        for (int r = 0; r < NR; r++) {
            R nb = rhs[r][i + 1];
            rhs[r][i] = bsi_gt_apply<R, METHOD>(q0, q1, rhs[r][i], nb);
            rhs[r][i + 1] = nb;
        }
    }
    ok = ok && c0 != R(0) && fabs(c0) >= tol;
    rv[ni - 1] = R(1) / (c0 == R(0) ? R(1) : c0);
    u1[ni - 1] = 0;
    u2[ni - 1] = 0;
#pragma unroll
    for (int r = 0; r < NR; r++) {
        R x1 = 0, x2 = 0;
#pragma unroll
        for (int i = GT_L - 1; i >= 0; i--) {
            if (i >= ni) continue;
            const R x = (rhs[r][i] - u1[i] * x1 - u2[i] * x2) * rv[i];
            rhs[r][i] = x;
            x2 = x1;
            x1 = x;
        }
    }
    return ok;
}

/* Down: one thread per partition (system k, partition p). */
template <typename R, int METHOD>
__global__ void gt_part_down(const gt_rows<R> S, gt_level<R> O, int64_t nsys, int32_t *flag)
{
    const int64_t gid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= nsys * O.np) return;
    /* interleaved top level: neighbouring threads take neighbouring systems (coalesced rows) */
    const bool kf = !S.red && S.ks == 1 && S.bks == 1;
    const int64_t k = kf ? gid % nsys : gid / O.np, p = kf ? gid / nsys : gid % O.np, s = p * GT_L;
    const int len = S.n - s < GT_L ? (int)(S.n - s) : GT_L, ni = len - 1;
    R a[GT_L], b[GT_L], c[GT_L], rhs[3][GT_L];
    R probe = 0;
#pragma unroll
    for (int i = 0; i < GT_L; i++) {
        if (i < len) {
            gt_row(S, k, s + i, a[i], b[i], c[i], rhs[0][i]);
            probe += a[i] * R(0) + b[i] * R(0) + c[i] * R(0) + rhs[0][i] * R(0);
        }
        rhs[1][i] = 0;
        rhs[2][i] = 0;
    }
    const int64_t o = k * O.np + p;
    R gs, vs, ws, gl, vl, wl;
    bool ok = probe == probe;
    if (ni > 0) {
        rhs[1][0] = a[0];
        rhs[2][ni - 1] = c[ni - 1];
        ok = gt_interior<R, METHOD, 3>(ni, a, b, c, rhs) && ok;
        gs = rhs[0][0], vs = rhs[1][0], ws = rhs[2][0];
        gl = rhs[0][ni - 1], vl = rhs[1][ni - 1], wl = rhs[2][ni - 1];
    } else { /* no interior: x_{e-1} = x_{s-1}; x_s = x_e */
        gs = 0, vs = 0, ws = -1;
        gl = 0, vl = -1, wl = 0;
    }
    const R ae = a[ni], be = b[ni], ce = c[ni], de = rhs[0][ni];
    O.A[o] = -ae * vl;
    O.Bp[o] = be - ae * wl;
    O.Dp[o] = de - ae * gl;
    O.Ce[o] = ce;
    O.GS[o] = gs;
    O.VS[o] = vs;
    O.WS[o] = ws;
    if (!ok) flag[k] = 1;
}

/* Up: the interior of each partition from x_{s-1} and x_e (X: the reduced
 * solution, np per system), written to out[k*oks + i*ois]. */
template <typename R, int METHOD>
__global__ void gt_part_up(const gt_rows<R> S, int64_t np, const R *X, R *out, int64_t oks, int64_t ois, int64_t nsys,
                           const int32_t *flag)
{
    const int64_t gid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= nsys * np) return;
    const bool kf = !S.red && S.ks == 1 && S.bks == 1; /* as gt_part_down */
    const int64_t k = kf ? gid % nsys : gid / np, p = kf ? gid / nsys : gid % np, s = p * GT_L;
    const int len = S.n - s < GT_L ? (int)(S.n - s) : GT_L, ni = len - 1;
    if (flag && flag[k]) return; /* left to the sequential fallback */
    const R xe = X[k * np + p], xs1 = p > 0 ? X[k * np + p - 1] : R(0);
    R a[GT_L], b[GT_L], c[GT_L], rhs[1][GT_L];
#pragma unroll
    for (int i = 0; i < GT_L; i++)
        if (i < len) gt_row(S, k, s + i, a[i], b[i], c[i], rhs[0][i]);
    if (ni > 0) {
        rhs[0][0] -= a[0] * xs1;
        rhs[0][ni - 1] -= c[ni - 1] * xe;
        gt_interior<R, METHOD, 1>(ni, a, b, c, rhs);
#pragma unroll
        for (int i = 0; i < GT_L - 1; i++)
            if (i < ni) out[k * oks + (s + i) * ois] = rhs[0][i];
    }
    out[k * oks + (s + ni) * ois] = xe;
}

/* The bottom of the recursion: one thread per system of n <= GT_SMALL rows. */
template <typename R, int METHOD>
__global__ void gt_part_small(const gt_rows<R> S, R *X, int64_t nsys, int32_t *flag)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= nsys) return;
    const int n = (int)S.n;
    R rv[GT_SMALL], u1[GT_SMALL], u2[GT_SMALL], y[GT_SMALL];
    R a, b, c, d;
    gt_row(S, k, 0, a, b, c, d);
    R c0 = b, c1 = n > 1 ? c : R(0), bc = d;
    bool ok = true;
    R tol = fmax(fabs(b), fabs(c1));
    for (int i = 1; i < n; i++) {
        gt_row(S, k, i, a, b, c, d);
        tol = fmax(tol, fmax(fabs(a), fmax(fabs(b), i + 1 < n ? fabs(c) : R(0))));
    }
    tol *= R(GT_TOL);
    for (int i = 1; i < n; i++) {
        gt_row(S, k, i, a, b, c, d);
        const R nu = i + 1 < n ? c : R(0);
        R q0, q1;
        bool z;
        bsi_gt_step<R, METHOD>(c0, c1, a, b, nu, q0, q1, rv[i - 1], u1[i - 1], u2[i - 1], z);
        ok = ok && !z && fabs(rv[i - 1]) * tol <= R(1);
        R nb = d;
        y[i - 1] = bsi_gt_apply<R, METHOD>(q0, q1, bc, nb);
        bc = nb;
    }
    ok = ok && c0 != R(0) && fabs(c0) >= tol;
    rv[n - 1] = R(1) / (c0 == R(0) ? R(1) : c0);
    u1[n - 1] = u2[n - 1] = 0;
    y[n - 1] = bc;
    R x1 = 0, x2 = 0;
    for (int i = n - 1; i >= 0; i--) {
        const R x = (y[i] - u1[i] * x1 - u2[i] * x2) * rv[i];
        X[k * n + i] = x;
        x2 = x1;
        x1 = x;
    }
    if (!ok) flag[k] = 1;
}

/* ======================================================================
 * Host side
 * ====================================================================== */

static inline int64_t gt_span(bsolve_tlayout l, int64_t m, int64_t cols, int64_t batch)
{
    if (l.kind == BSOLVE_TCONTIGUOUS) return (batch - 1) * l.stride + (cols - 1) * l.ld + m;
    return (cols * m - 1) * l.ld + batch;
}

/* Element strides of a layout: entry i of column j of system k at
 * p[k*ks + i*is + j*js]. */
static inline void gt_strides(bsolve_tlayout l, int64_t m, int64_t *ks, int64_t *is, int64_t *js)
{
    if (l.kind == BSOLVE_TCONTIGUOUS) {
        *ks = l.stride;
        *is = 1;
        *js = l.ld;
    } else {
        *ks = 1;
        *is = l.ld;
        *js = m * l.ld;
    }
}

/* Staging of host arrays: a device copy of each host array's span. */
struct gt_stage {
    const void *user[5];
    void *dev[5];
    size_t bytes[5];
};

static bsolve_status gt_stage_all(bsolve_ctx *ctx, const char *fn, gt_stage &g, int n, const int *copy_in)
{
    bsi_cuda *C = ctx->cuda;
    size_t off[5], tot = 0;
    for (int i = 0; i < n; i++) {
        off[i] = tot;
        if (g.user[i] && !bsi_is_device_ptr(g.user[i])) tot += (g.bytes[i] + 255) / 256 * 256;
    }
    char *base = nullptr;
    if (tot) {
        base = (char *)bsi_dbuf_get(&C->slot[0].dev, tot, 0);
        if (!base) return bsi_fail(ctx, BSOLVE_ENOMEM, "%s: cannot allocate %zu bytes of device staging", fn, tot);
    }
    for (int i = 0; i < n; i++) {
        if (!g.user[i] || bsi_is_device_ptr(g.user[i])) {
            g.dev[i] = (void *)g.user[i];
            continue;
        }
        g.dev[i] = base + off[i];
        if (copy_in[i])
            BSI_CUDA_TRY(ctx, cudaMemcpyAsync(g.dev[i], g.user[i], g.bytes[i], cudaMemcpyHostToDevice, C->stream), fn);
    }
    return BSOLVE_SUCCESS;
}

static bsolve_status gt_unstage(bsolve_ctx *ctx, const char *fn, gt_stage &g, int n, const int *copy_out)
{
    bsi_cuda *C = ctx->cuda;
    int any = 0;
    for (int i = 0; i < n; i++)
        if (g.user[i] && g.dev[i] != g.user[i]) {
            any = 1;
            if (copy_out[i])
                BSI_CUDA_TRY(ctx,
                             cudaMemcpyAsync((void *)g.user[i], g.dev[i], g.bytes[i], cudaMemcpyDeviceToHost, C->stream),
                             fn);
        }
    if (any) BSI_CUDA_TRY(ctx, cudaStreamSynchronize(C->stream), fn);
    return BSOLVE_SUCCESS;
}

template <typename R, int METHOD, int OP>
static cudaError_t gt_launch_seq(const gt_seq_args<R> &a, bool contig, cudaStream_t st)
{
    const int64_t nblk = (a.batch + GT_BLOCK - 1) / GT_BLOCK;
    const size_t smem = contig ? sizeof(gt_tile<R>) * 4 * GT_WARPS : 0;
    if (contig)
        gt_seq<R, METHOD, OP, true><<<(unsigned)nblk, GT_BLOCK, smem, st>>>(a);
    else
        gt_seq<R, METHOD, OP, false><<<(unsigned)nblk, GT_BLOCK, 0, st>>>(a);
    return cudaGetLastError();
}

template <typename R, int OP>
static cudaError_t gt_launch_seq_m(int method, const gt_seq_args<R> &a, bool contig, cudaStream_t st)
{
    switch (method) {
    case BSOLVE_GTSV_THOMAS: return gt_launch_seq<R, BSOLVE_GTSV_THOMAS, OP>(a, contig, st);
    case BSOLVE_GTSV_PARTIAL: return gt_launch_seq<R, BSOLVE_GTSV_PARTIAL, OP>(a, contig, st);
    default: return gt_launch_seq<R, BSOLVE_GTSV_GIVENS, OP>(a, contig, st);
    }
}

template <typename R, int METHOD, int LSH>
static cudaError_t gt_launch_tile_l(const gt_tile_args<R> &a, const gt_tile_shape &sh, cudaStream_t st)
{
    static size_t opted = 48 * 1024; /* the dynamic shared limit raised so far */
    if (sh.smem > opted) {
        cudaError_t e = cudaFuncSetAttribute(gt_tilek<R, METHOD, LSH>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)sh.smem);
        if (e != cudaSuccess) return e;
        opted = sh.smem;
    }
    const int64_t nblk = (a.batch + sh.S - 1) / sh.S;
    gt_tilek<R, METHOD, LSH><<<(unsigned)nblk, sh.threads, sh.smem, st>>>(a);
    return cudaGetLastError();
}

/* P == 1 tiles never touch L: LSH = 0 compiles the kernel for them alone. */
template <typename R, int METHOD>
static cudaError_t gt_launch_tile_t(const gt_tile_args<R> &a, const gt_tile_shape &sh, cudaStream_t st)
{
    switch (sh.P > 1 ? sh.lsh : 0) {
    case 0: return gt_launch_tile_l<R, METHOD, 0>(a, sh, st);
    case 2: return gt_launch_tile_l<R, METHOD, 2>(a, sh, st);
    case 3: return gt_launch_tile_l<R, METHOD, 3>(a, sh, st);
    default: return gt_launch_tile_l<R, METHOD, 4>(a, sh, st);
    }
}

template <typename R>
static cudaError_t gt_launch_tile(int method, const gt_tile_args<R> &a, const gt_tile_shape &sh, cudaStream_t st)
{
    switch (method) {
    case BSOLVE_GTSV_THOMAS: return gt_launch_tile_t<R, BSOLVE_GTSV_THOMAS>(a, sh, st);
    case BSOLVE_GTSV_PARTIAL: return gt_launch_tile_t<R, BSOLVE_GTSV_PARTIAL>(a, sh, st);
    default: return gt_launch_tile_t<R, BSOLVE_GTSV_GIVENS>(a, sh, st);
    }
}

/* The on-chip tile kernel's shape, if m fits it (many systems). */
static bool gt_tile_pick(const bsolve_ctx *ctx, int64_t m, bool il, size_t es, gt_tile_shape &sh)
{
    int smax = 0;
    if (cudaDeviceGetAttribute(&smax, cudaDevAttrMaxSharedMemoryPerBlockOptin, ctx->cuda->device) != cudaSuccess) {
        (void)cudaGetLastError();
        smax = 48 * 1024;
    }
    return gt_tile_shape_for(m, il, es, (size_t)smax, sh);
}

/* Device memory needed by the partition method for one column. */
static size_t gt_part_bytes(int64_t m, int64_t batch, size_t es)
{
    size_t tot = 0;
    for (int64_t n = m; n > GT_SMALL; n = (n + GT_L - 1) / GT_L) {
        const int64_t np = (n + GT_L - 1) / GT_L;
        /* 7 level arrays of np rows, and (below the top) the level's solution of n rows */
        tot += (size_t)(7 * np * batch + (n == m ? 0 : n * batch)) * es + 8 * 256;
    }
    tot += (size_t)(GT_SMALL * batch) * es + 256;
    return tot;
}

template <typename R, int METHOD>
static cudaError_t gt_part_solve(const gt_rows<R> &top, R *out, int64_t oks, int64_t ois, int64_t batch, char *work,
                                 int32_t *flag, cudaStream_t st)
{
    const int TB = 128;
    gt_rows<R> lv[40];
    gt_level<R> L[40];
    R *X[40];
    int nl = 0;
    lv[0] = top;
    auto take = [&](int64_t count) -> R * {
        R *p = (R *)work;
        work += ((size_t)count * sizeof(R) + 255) / 256 * 256;
        return p;
    };
    while (lv[nl].n > GT_SMALL) {
        const int64_t np = (lv[nl].n + GT_L - 1) / GT_L, cnt = np * batch;
        gt_level<R> &o = L[nl];
        o.np = np;
        o.A = take(cnt), o.Bp = take(cnt), o.Dp = take(cnt), o.Ce = take(cnt);
        o.GS = take(cnt), o.VS = take(cnt), o.WS = take(cnt);
        /* the solution of this level's system (level 0 writes the user's B) */
        X[nl] = nl > 0 ? take(lv[nl].n * batch) : nullptr;
        gt_part_down<R, METHOD><<<(unsigned)((cnt + TB - 1) / TB), TB, 0, st>>>(lv[nl], o, batch, flag);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
        gt_rows<R> r;
        memset(&r, 0, sizeof r);
        r.red = 1;
        r.n = np;
        r.A = o.A, r.Bp = o.Bp, r.Dp = o.Dp, r.Ce = o.Ce, r.GS = o.GS, r.VS = o.VS, r.WS = o.WS;
        lv[++nl] = r;
    }
    /* bottom: X of the last level is the solution of lv[nl] */
    R *xb = take(lv[nl].n * batch);
    gt_part_small<R, METHOD><<<(unsigned)((batch + TB - 1) / TB), TB, 0, st>>>(lv[nl], xb, batch, flag);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    const R *xin = xb;
    for (int l = nl - 1; l >= 0; l--) {
        const int64_t np = L[l].np, cnt = np * batch;
        R *o = l == 0 ? out : X[l];
        const int64_t ks = l == 0 ? oks : lv[l].n, is = l == 0 ? ois : 1;
        gt_part_up<R, METHOD><<<(unsigned)((cnt + TB - 1) / TB), TB, 0, st>>>(lv[l], np, xin, o, ks, is, batch,
                                                                           l == 0 ? flag : nullptr);
        e = cudaGetLastError();
        if (e != cudaSuccess) return e;
        xin = o;
    }
    return cudaSuccess;
}

/* Few long systems: the partition method pays off once there are fewer
 * systems than multiprocessors: the tile kernel runs one system of m >= 2048
 * per block, and with a block per SM or more it is the faster of the two
 * (perf/RESULTS-gtsv.md, m = 4096). */
static bool gt_use_partition(const bsolve_ctx *ctx, int64_t m, int64_t batch)
{
    return m >= 2048 && batch < (int64_t)ctx->cuda->nsm;
}

template <typename R>
static bsolve_status gtsv_t(bsolve_ctx *ctx, int method, int64_t m, int64_t nrhs, int64_t batch, const R *dl,
                            const R *d, const R *du, bsolve_tlayout lt, R *B, bsolve_tlayout lb, int32_t *info)
{
    static const char fn[] = "bsolve_gtsv";
    bsi_cuda *C = ctx->cuda;
    cudaStream_t st = C->stream;
    const int64_t tspan = gt_span(lt, m, 1, batch), bspan = gt_span(lb, m, nrhs, batch);
    gt_stage g;
    memset(&g, 0, sizeof g);
    g.user[0] = dl, g.user[1] = d, g.user[2] = du, g.user[3] = B, g.user[4] = info;
    g.bytes[0] = g.bytes[1] = g.bytes[2] = (size_t)tspan * sizeof(R);
    g.bytes[3] = (size_t)bspan * sizeof(R);
    g.bytes[4] = (size_t)batch * sizeof(int32_t);
    const int cin[5] = {1, 1, 1, 1, 0}, cout[5] = {0, 0, 0, 1, 1};
    bsolve_status s = gt_stage_all(ctx, fn, g, 5, cin);
    if (s != BSOLVE_SUCCESS) return s;
    int64_t dks, dis, djs, bks, bis, bjs;
    gt_strides(lt, m, &dks, &dis, &djs);
    gt_strides(lb, m, &bks, &bis, &bjs);
    const R *ddl = (const R *)g.dev[0], *dd = (const R *)g.dev[1], *ddu = (const R *)g.dev[2];
    R *dB = (R *)g.dev[3];
    int32_t *dinfo = (int32_t *)g.dev[4];
    const bool part = gt_use_partition(ctx, m, batch);
    gt_tile_shape tsh;
    const bool tile = !part && batch > 0 &&
                      gt_tile_pick(ctx, m, lt.kind == BSOLVE_TINTERLEAVED && lb.kind == BSOLVE_TINTERLEAVED, sizeof(R), tsh);
    const int64_t sld = batch;
    const size_t sbytes = tile ? 256 : (size_t)(4 * m) * sld * sizeof(R);
    size_t wbytes = sbytes, fbytes = 0;
    if (part) {
        fbytes = ((size_t)batch * sizeof(int32_t) + 255) / 256 * 256;
        const size_t pbytes = gt_part_bytes(m, batch, sizeof(R));
        wbytes = fbytes + (pbytes > sbytes ? pbytes : sbytes);
    }
    char *work = (char *)bsi_dbuf_get(&C->work, wbytes, 0);
    if (!work) return bsi_fail(ctx, BSOLVE_ENOMEM, "%s: cannot allocate %zu bytes of device workspace", fn, wbytes);

    gt_seq_args<R> a;
    memset(&a, 0, sizeof a);
    a.dl = ddl, a.d = dd, a.du = ddu, a.dks = dks, a.dis = dis;
    a.bks = bks, a.bis = bis, a.info = dinfo;
    a.S = (R *)(work + fbytes), a.sld = sld;
    a.m = m, a.batch = batch;
    /* the staged kernel serves both layouts: use it when either is contiguous */
    const bool contig = lt.kind == BSOLVE_TCONTIGUOUS || lb.kind == BSOLVE_TCONTIGUOUS;
    if (part) {
        int32_t *flag = (int32_t *)work;
        char *pwork = work + fbytes;
        BSI_CUDA_TRY(ctx, cudaMemsetAsync(dinfo, 0, (size_t)batch * sizeof(int32_t), st), fn);
        for (int64_t j = 0; j < nrhs; j++) {
            BSI_CUDA_TRY(ctx, cudaMemsetAsync(flag, 0, (size_t)batch * sizeof(int32_t), st), fn);
            gt_rows<R> top;
            memset(&top, 0, sizeof top);
            top.n = m;
            top.dl = ddl, top.d = dd, top.du = ddu, top.b = dB + j * bjs;
            top.ks = dks, top.is = dis, top.bks = bks, top.bis = bis;
            /* the partition solve reads b and writes x in place, row by row of
             * disjoint partitions at the top level: safe */
            cudaError_t e;
            switch (method) {
            case BSOLVE_GTSV_THOMAS:
                e = gt_part_solve<R, BSOLVE_GTSV_THOMAS>(top, dB + j * bjs, bks, bis, batch, pwork, flag, st);
                break;
            case BSOLVE_GTSV_PARTIAL:
                e = gt_part_solve<R, BSOLVE_GTSV_PARTIAL>(top, dB + j * bjs, bks, bis, batch, pwork, flag, st);
                break;
            default:
                e = gt_part_solve<R, BSOLVE_GTSV_GIVENS>(top, dB + j * bjs, bks, bis, batch, pwork, flag, st);
                break;
            }
            BSI_CUDA_TRY(ctx, e, fn);
            /* fallback: flagged systems are re-solved sequentially; their B
             * column was left untouched; the scratch reuses the partition
             * workspace (stream order) */
            a.only = flag;
            a.B = dB + j * bjs;
            a.merge = 1; /* info starts at 0 */
            BSI_CUDA_TRY(ctx, (gt_launch_seq_m<R, GT_SV>(method, a, contig, st)), fn);
        }
    } else if (tile) {
        gt_tile_args<R> ta;
        memset(&ta, 0, sizeof ta);
        ta.dl = ddl, ta.d = dd, ta.du = ddu, ta.dks = dks, ta.dis = dis;
        ta.bks = bks, ta.bis = bis, ta.info = dinfo;
        ta.m = (int)m, ta.S = tsh.S, ta.P = tsh.P, ta.lsh = tsh.lsh, ta.ss = tsh.ss, ta.na = tsh.na;
        ta.batch = batch;
        ta.pcr = gt_tile_conf().pcr;
        for (int64_t j = 0; j < nrhs; j++) {
            ta.B = dB + j * bjs;
            ta.merge = j > 0;
            BSI_CUDA_TRY(ctx, gt_launch_tile<R>(method, ta, tsh, st), fn);
        }
    } else {
        for (int64_t j = 0; j < nrhs; j++) {
            a.B = dB + j * bjs;
            a.merge = j > 0;
            BSI_CUDA_TRY(ctx, (gt_launch_seq_m<R, GT_SV>(method, a, contig, st)), fn);
        }
    }
    if (nrhs > 1)
        gt_nanfill<R><<<(unsigned)((batch + 255) / 256), 256, 0, st>>>(dB, bks, bis, bjs, m, nrhs, batch, dinfo);
    BSI_CUDA_TRY(ctx, cudaGetLastError(), fn);
    return gt_unstage(ctx, fn, g, 5, cout);
}

extern "C" bsolve_status bsi_cuda_gtsv(bsolve_ctx *ctx, bsolve_precision prec, bsolve_gtsv_method method, int64_t m,
                                       int64_t nrhs, int64_t batch, const void *dl, const void *d, const void *du,
                                       bsolve_tlayout lt, void *B, bsolve_tlayout lb, int32_t *info)
{
    if (prec == BSOLVE_PREC_D)
        return gtsv_t<double>(ctx, method, m, nrhs, batch, (const double *)dl, (const double *)d, (const double *)du,
                              lt, (double *)B, lb, info);
    return gtsv_t<float>(ctx, method, m, nrhs, batch, (const float *)dl, (const float *)d, (const float *)du, lt,
                         (float *)B, lb, info);
}

/* ---- factorization objects ---------------------------------------------- */

extern "C" bsolve_status bsi_cuda_gt_alloc(bsolve_ctx *ctx, bsolve_gt *gt)
{
    gt->ld = (gt->batch + 31) / 32 * 32;
    const size_t es = bsi_elem_size(gt->prec);
    const size_t bytes = (size_t)BSI_GT_NF * gt->m * gt->ld * es;
    void *f = nullptr, *inf = nullptr;
    cudaError_t e = cudaMalloc(&f, bytes ? bytes : 256);
    if (e == cudaSuccess) e = cudaMalloc(&inf, (size_t)(gt->ld ? gt->ld : 1) * sizeof(int32_t));
    if (e != cudaSuccess) {
        if (f) cudaFree(f);
        (void)cudaGetLastError();
        return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_gt_create: cannot allocate %zu bytes of device memory", bytes);
    }
    gt->f = f;
    gt->info = (int32_t *)inf;
    return BSOLVE_SUCCESS;
}

extern "C" void bsi_cuda_gt_free(bsolve_gt *gt)
{
    if (gt->f) cudaFree(gt->f);
    if (gt->info) cudaFree(gt->info);
    gt->f = nullptr;
    gt->info = nullptr;
}

template <typename R>
static bsolve_status gttrf_t(bsolve_ctx *ctx, const R *dl, const R *d, const R *du, bsolve_tlayout lt, bsolve_gt *gt,
                             int32_t *info)
{
    static const char fn[] = "bsolve_gttrf";
    bsi_cuda *C = ctx->cuda;
    const int64_t m = gt->m, batch = gt->batch, tspan = gt_span(lt, m, 1, batch);
    gt_stage g;
    memset(&g, 0, sizeof g);
    g.user[0] = dl, g.user[1] = d, g.user[2] = du, g.user[3] = info;
    g.bytes[0] = g.bytes[1] = g.bytes[2] = (size_t)tspan * sizeof(R);
    g.bytes[3] = (size_t)batch * sizeof(int32_t);
    const int cin[4] = {1, 1, 1, 0}, cout[4] = {0, 0, 0, 1};
    bsolve_status s = gt_stage_all(ctx, fn, g, 4, cin);
    if (s != BSOLVE_SUCCESS) return s;
    gt_seq_args<R> a;
    memset(&a, 0, sizeof a);
    int64_t js;
    gt_strides(lt, m, &a.dks, &a.dis, &js);
    a.dl = (const R *)g.dev[0], a.d = (const R *)g.dev[1], a.du = (const R *)g.dev[2];
    a.info = (int32_t *)g.dev[3];
    a.F = (R *)gt->f, a.fld = gt->ld;
    a.finfo_out = gt->info;
    a.m = m, a.batch = batch;
    BSI_CUDA_TRY(ctx, (gt_launch_seq_m<R, GT_TRF>(gt->method, a, lt.kind == BSOLVE_TCONTIGUOUS, C->stream)), fn);
    return gt_unstage(ctx, fn, g, 4, cout);
}

template <typename R>
static bsolve_status gttrs_t(bsolve_ctx *ctx, const bsolve_gt *gt, int64_t nrhs, R *B, bsolve_tlayout lb,
                             int32_t *info)
{
    static const char fn[] = "bsolve_gttrs";
    bsi_cuda *C = ctx->cuda;
    cudaStream_t st = C->stream;
    const int64_t m = gt->m, batch = gt->batch, bspan = gt_span(lb, m, nrhs, batch);
    gt_stage g;
    memset(&g, 0, sizeof g);
    g.user[0] = B, g.user[1] = info;
    g.bytes[0] = (size_t)bspan * sizeof(R);
    g.bytes[1] = (size_t)batch * sizeof(int32_t);
    const int cin[2] = {1, 0}, cout[2] = {1, 1};
    bsolve_status s = gt_stage_all(ctx, fn, g, 2, cin);
    if (s != BSOLVE_SUCCESS) return s;
    const int64_t sld = batch;
    const size_t wbytes = (size_t)m * sld * sizeof(R) + (size_t)sld * sizeof(int32_t) + 256;
    char *work = (char *)bsi_dbuf_get(&C->work, wbytes, 0);
    if (!work) return bsi_fail(ctx, BSOLVE_ENOMEM, "%s: cannot allocate %zu bytes of device workspace", fn, wbytes);
    gt_seq_args<R> a;
    memset(&a, 0, sizeof a);
    int64_t bjs;
    gt_strides(lb, m, &a.bks, &a.bis, &bjs);
    R *dB = (R *)g.dev[0];
    /* info: the user's, or (NULL) a scratch array for the NaN fill */
    int32_t *dinfo = g.dev[1] ? (int32_t *)g.dev[1] : (int32_t *)(work + (size_t)m * sld * sizeof(R));
    a.info = dinfo;
    a.S = (R *)work, a.sld = sld;
    a.F = (R *)gt->f, a.fld = gt->ld;
    a.finfo = gt->info;
    a.m = m, a.batch = batch;
    for (int64_t j = 0; j < nrhs; j++) {
        a.B = dB + j * bjs;
        a.merge = j > 0;
        BSI_CUDA_TRY(ctx, (gt_launch_seq_m<R, GT_TRS>(gt->method, a, lb.kind == BSOLVE_TCONTIGUOUS, st)), fn);
    }
    if (nrhs > 1)
        gt_nanfill<R><<<(unsigned)((batch + 255) / 256), 256, 0, st>>>(dB, a.bks, a.bis, bjs, m, nrhs, batch, dinfo);
    BSI_CUDA_TRY(ctx, cudaGetLastError(), fn);
    return gt_unstage(ctx, fn, g, 2, cout);
}

extern "C" bsolve_status bsi_cuda_gttrf(bsolve_ctx *ctx, const void *dl, const void *d, const void *du,
                                        bsolve_tlayout lt, bsolve_gt *gt, int32_t *info)
{
    if (gt->prec == BSOLVE_PREC_D)
        return gttrf_t<double>(ctx, (const double *)dl, (const double *)d, (const double *)du, lt, gt, info);
    return gttrf_t<float>(ctx, (const float *)dl, (const float *)d, (const float *)du, lt, gt, info);
}

extern "C" bsolve_status bsi_cuda_gttrs(bsolve_ctx *ctx, const bsolve_gt *gt, int64_t nrhs, void *B,
                                        bsolve_tlayout lb, int32_t *info)
{
    if (gt->prec == BSOLVE_PREC_D) return gttrs_t<double>(ctx, gt, nrhs, (double *)B, lb, info);
    return gttrs_t<float>(ctx, gt, nrhs, (float *)B, lb, info);
}
