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
 * Few long systems (too few to fill the GPU): the partition method over
 * chunks of gtsv_long.cuh (down pass writing a reduced system of one row per
 * partition, the reduced system by the same method or the tile kernel, up
 * pass writing x).  A system whose partitions or reduced systems meet a
 * pivot below GT_TOL times their largest entry (zero pivots included), or a
 * non-finite entry, is re-solved by the sequential kernel: info keeps its
 * meaning, and the partition method is used only where its local pivoting
 * is accurate (e.g. diagonally dominant systems; a random or zero-diagonal
 * matrix falls back).
 *
 * Which of these runs, and with what shape, is decided in one place:
 * gtsv_dispatch.cuh (the plan).  gttrf and gttrs replay gtsv's plan
 * ("factorization objects" below).  Per-device values (shared-memory limits
 * raised, residency queries) live in the context (bsi_cuda::gt), which one
 * thread uses at a time.
 *
 * Host pointers are staged: each host array's span is copied to device
 * memory, and results copied back (gaps copied back unchanged).
 */
#include <string.h>

#include <type_traits>

#include <cooperative_groups.h>

#include "common.cuh"
#include "gtsv.cuh"

#define GT_CH 8     /* equations per staged chunk (contiguous layout) */
#define GT_WARPS 4  /* warps per block of the sequential kernel */
#define GT_BLOCK (32 * GT_WARPS)
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
    const bool valid = k < A.batch;
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
            gt_stage_out(Tb, A.B, A.bks, A.bis, kbase, ch, m, A.batch, lane);
            __syncwarp();
        }
    }
    if (valid && A.info) A.info[k] = gt_merge(A.merge, A.info[k], info);
}

#include "gtsv_tile.cuh"
#include "gtsv_long.cuh"
#include "gtsv_dispatch.cuh"

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
    int ondev[5]; /* one pointer query each: ~0.5 us apiece, on the latency path of short calls */
    for (int i = 0; i < n; i++) {
        off[i] = tot;
        ondev[i] = !g.user[i] || bsi_is_device_ptr(g.user[i]);
        if (!ondev[i]) tot += (g.bytes[i] + 255) / 256 * 256;
    }
    char *base = nullptr;
    if (tot) {
        base = (char *)bsi_dbuf_get(&C->slot[0].dev, tot, 0);
        if (!base) return bsi_fail(ctx, BSOLVE_ENOMEM, "%s: cannot allocate %zu bytes of device staging", fn, tot);
    }
    for (int i = 0; i < n; i++) {
        if (ondev[i]) {
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

/* The kernels take the method (and the long method its log2 partition
 * rows) as template arguments: f is called with it as a
 * std::integral_constant, so that each launcher writes the run-time switch
 * once, here. */
template <typename F> static cudaError_t gt_by_method(int method, F &&f)
{
    switch (method) {
    case BSOLVE_GTSV_THOMAS: return f(std::integral_constant<int, BSOLVE_GTSV_THOMAS>());
    case BSOLVE_GTSV_PARTIAL: return f(std::integral_constant<int, BSOLVE_GTSV_PARTIAL>());
    default: return f(std::integral_constant<int, BSOLVE_GTSV_GIVENS>());
    }
}

/* the long method's partitions: 8 or 16 rows (gt_long_lsh) */
template <typename F> static cudaError_t gt_by_long_lsh(int lsh, F &&f)
{
    return lsh == 3 ? f(std::integral_constant<int, 3>()) : f(std::integral_constant<int, 4>());
}

template <typename R, int OP>
static cudaError_t gt_launch_seq_m(int method, const gt_seq_args<R> &a, bool contig, cudaStream_t st)
{
    return gt_by_method(method, [&](auto M) { return gt_launch_seq<R, decltype(M)::value, OP>(a, contig, st); });
}

/* The per-context state of a kernel instance (bsi_gt_state's indices). */
template <typename R> static constexpr int gt_pi() { return sizeof(R) == sizeof(double); }

/* Raises kern's dynamic shared memory limit to smem where that is above both
 * the default (48 KiB) and what was raised so far on this context (opted). */
template <typename A>
static cudaError_t gt_raise_smem(void (*kern)(A), size_t &opted, size_t smem)
{
    if (smem > 48 * 1024 && smem > opted) {
        const cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess) return e;
        opted = smem;
    }
    return cudaSuccess;
}

/* How a grid is launched: ordinarily; as a programmatic dependent launch
 * (it is launched while the grid before it runs, and waits in
 * gt_grid_wait() for its completion); cooperatively (every block resident
 * at once, or the launch fails: gt_long_fused's grid barriers need it). */
enum gt_launch_mode { GT_LAUNCH_PLAIN, GT_LAUNCH_PDL, GT_LAUNCH_COOP };

/* Launches kern with smem bytes of dynamic shared memory, first raising
 * the kernel's limit where needed (gt_raise_smem). */
template <typename A>
static cudaError_t gt_launch_smem(void (*kern)(A), size_t &opted, unsigned nblk, int threads, size_t smem,
                                  cudaStream_t st, const A &args, gt_launch_mode mode = GT_LAUNCH_PLAIN)
{
    cudaError_t e = gt_raise_smem(kern, opted, smem);
    if (e != cudaSuccess) return e;
    if (mode == GT_LAUNCH_PLAIN) {
        kern<<<nblk, threads, smem, st>>>(args);
        return cudaGetLastError();
    }
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(nblk), cfg.blockDim = dim3((unsigned)threads), cfg.dynamicSmemBytes = smem, cfg.stream = st;
    cudaLaunchAttribute at = {};
    if (mode == GT_LAUNCH_PDL) {
        at.id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at.val.programmaticStreamSerializationAllowed = 1;
    } else {
        at.id = cudaLaunchAttributeCooperative;
        at.val.cooperative = 1;
    }
    cfg.attrs = &at, cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, kern, args);
}

template <typename R, int METHOD, int LSH>
static cudaError_t gt_launch_tile_l(bsi_gt_state &gs, const gt_tile_args<R> &a, const gt_tile_shape &sh,
                                    cudaStream_t st, bool pdl)
{
    const int64_t nblk = (a.batch + sh.S - 1) / sh.S;
    return gt_launch_smem(gt_tilek<R, METHOD, LSH>, gs.tile_smem[gt_pi<R>()][METHOD][LSH], (unsigned)nblk, sh.threads,
                          sh.smem, st, a, pdl ? GT_LAUNCH_PDL : GT_LAUNCH_PLAIN);
}

template <typename R>
static cudaError_t gt_launch_tile(bsi_gt_state &gs, int method, const gt_tile_args<R> &a, const gt_tile_shape &sh,
                                  cudaStream_t st, bool pdl = false)
{
    return gt_by_method(method, [&](auto M) {
        constexpr int METHOD = decltype(M)::value;
        /* P == 1 tiles never touch L: LSH = 0 compiles the kernel for them alone */
        switch (sh.P > 1 ? sh.lsh : 0) {
        case 0: return gt_launch_tile_l<R, METHOD, 0>(gs, a, sh, st, pdl);
        case 2: return gt_launch_tile_l<R, METHOD, 2>(gs, a, sh, st, pdl);
        case 3: return gt_launch_tile_l<R, METHOD, 3>(gs, a, sh, st, pdl);
        default: return gt_launch_tile_l<R, METHOD, 4>(gs, a, sh, st, pdl);
        }
    });
}

template <typename R, int METHOD, int LSH>
static cudaError_t gt_launch_long_l(bsi_gt_state &gs, bool down, const gt_long_args<R> &G, const gt_long_shape &sh,
                                    cudaStream_t st, bool pdl)
{
    size_t *opted = gs.pass_smem[gt_pi<R>()][METHOD][LSH];
    const unsigned nblk = (unsigned)((G.A.batch + sh.S - 1) / sh.S * sh.nch);
    const gt_launch_mode mode = pdl ? GT_LAUNCH_PDL : GT_LAUNCH_PLAIN;
    if (down)
        return gt_launch_smem(gt_long_pass<R, METHOD, LSH, true>, opted[1], nblk, sh.threads, sh.smem_down, st, G,
                              mode);
    return gt_launch_smem(gt_long_pass<R, METHOD, LSH, false>, opted[0], nblk, sh.threads, sh.smem_up, st, G, mode);
}

template <typename R>
static cudaError_t gt_launch_long(bsi_gt_state &gs, int method, bool down, const gt_long_args<R> &G,
                                  const gt_long_shape &sh, cudaStream_t st, bool pdl)
{
    return gt_by_method(method, [&](auto M) {
        return gt_by_long_lsh(sh.lsh, [&](auto LS) {
            return gt_launch_long_l<R, decltype(M)::value, decltype(LS)::value>(gs, down, G, sh, st, pdl);
        });
    });
}

/* The fused kernel's resident blocks per SM for shape sh (its dynamic shared
 * memory limit raised first: the query honours it).  The query costs as
 * much as the launch, so the last shape's answer is kept per instance. */
template <typename R>
static cudaError_t gt_fused_resident(bsi_gt_state &gs, int method, const gt_long_shape &sh, int *per_sm)
{
    return gt_by_method(method, [&](auto M) {
        return gt_by_long_lsh(sh.lsh, [&](auto LS) {
            constexpr int METHOD = decltype(M)::value, LSH = decltype(LS)::value;
            auto kern = gt_long_fused<R, METHOD, LSH>;
            cudaError_t e = gt_raise_smem(kern, gs.fused_smem[gt_pi<R>()][METHOD][LSH], sh.smem_down);
            if (e != cudaSuccess) return e;
            bsi_gt_occ &q = gs.fused_occ[gt_pi<R>()][METHOD][LSH];
            if (q.threads != sh.threads || q.smem != sh.smem_down) {
                int n = 0;
                if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kern, sh.threads, sh.smem_down)) !=
                    cudaSuccess)
                    return e;
                q.threads = sh.threads, q.smem = sh.smem_down, q.per_sm = n;
            }
            *per_sm = q.per_sm;
            return cudaSuccess;
        });
    });
}

/* The fused kernel (gt_long_fused) on G, on grid blocks launched
 * cooperatively (all resident at once, as gt_plan_make sized the grid). */
template <typename R>
static cudaError_t gt_launch_fused(bsi_gt_state &gs, int method, const gt_long_args<R> &G, const gt_long_shape &sh,
                                   int64_t grid, cudaStream_t st)
{
    return gt_by_method(method, [&](auto M) {
        return gt_by_long_lsh(sh.lsh, [&](auto LS) {
            constexpr int METHOD = decltype(M)::value, LSH = decltype(LS)::value;
            return gt_launch_smem(gt_long_fused<R, METHOD, LSH>, gs.fused_smem[gt_pi<R>()][METHOD][LSH],
                                  (unsigned)grid, sh.threads, sh.smem_down, st, G, GT_LAUNCH_COOP);
        });
    });
}

/* The device's shared memory per block with opt-in, queried once per
 * context (48 KiB, the default, if the query fails). */
static size_t gt_smem_optin(bsolve_ctx *ctx)
{
    bsi_cuda *C = ctx->cuda;
    if (C->gt.smem_optin == 0) {
        int smax = 0;
        if (cudaDeviceGetAttribute(&smax, cudaDevAttrMaxSharedMemoryPerBlockOptin, C->device) != cudaSuccess ||
            smax <= 0) {
            (void)cudaGetLastError();
            smax = 48 * 1024;
        }
        C->gt.smem_optin = smax;
    }
    return (size_t)C->gt.smem_optin;
}

/* The dispatch table's plan (gtsv_dispatch.cuh) for this context's device
 * and forced knobs. */
template <typename R>
static cudaError_t gt_plan_for(bsolve_ctx *ctx, int method, int64_t m, int64_t batch, bool lt_il, bool lb_il,
                               gt_plan &p)
{
    bsi_cuda *C = ctx->cuda;
    auto resident = [&](const gt_long_shape &sh, int *per_sm) { return gt_fused_resident<R>(C->gt, method, sh, per_sm); };
    return gt_plan_make(gt_cfg_of(ctx), method, m, batch, sizeof(R), lt_il, lb_il, C->nsm, gt_smem_optin(ctx),
                        resident, p);
}

/* The long method on one column (see gtsv_long.cuh): the fused kernel
 * where the plan says so; otherwise down passes until the reduced system
 * is short, the tile kernel on it, then up passes.  A fused launch refused
 * as too large (its residency misjudged) falls back to the levels. */
template <typename R>
static cudaError_t gt_long_solve(bsolve_ctx *ctx, const gt_plan &p, const gt_tile_args<R> &top, int32_t *flag,
                                 int32_t *rinfo, int32_t gen, int32_t *info, int merge, R *scr, char *work,
                                 cudaStream_t st)
{
    bsi_cuda *C = ctx->cuda;
    bsi_gt_state &gs = C->gt;
    const gt_cfg &cf = p.cfg;
    /* not on devices or code without it (pre-sm_90): a kernel without
     * griddepcontrol.wait launched early would read its input too soon */
    const bool pdl = cf.pdl && bsi_cuda_has_pdl(C);
    const int method = p.method;
    gt_long_args<R> lv[GT_MAX_LEVELS];
    gt_long_shape sh[GT_MAX_LEVELS];
    int nl = 0;
    auto take = [&](int64_t count) -> R * {
        R *q = (R *)work;
        work += ((size_t)count * sizeof(R) + 255) / 256 * 256;
        return q;
    };
    gt_tile_args<R> cur = top;
    cudaError_t e;
    if (p.fused) {
        const gt_long_shape &fs = p.fsh;
        gt_long_args<R> G;
        memset(&G, 0, sizeof G);
        const int64_t np1 = (top.m + (1 << fs.lsh) - 1) >> fs.lsh;
        G.A = top, G.np = 2 * (int64_t)fs.nch, G.np1 = np1, G.red = 1, G.W = fs.C >> fs.lsh, G.flag = flag;
        G.rinfo = nullptr, G.gen = gen;
        G.bbot = fs.bbot;
        G.C = fs.C, G.S = fs.S, G.ss = fs.ss, G.nch = fs.nch;
        G.info = info, G.merge = merge, G.scr = scr;
        const int64_t cnt = G.np * top.batch;
        G.RA = take(cnt), G.RB = take(cnt), G.RC = take(cnt), G.RD = take(cnt);
        G.GI = take(np1 * top.batch), G.VI = take(np1 * top.batch), G.WI = take(np1 * top.batch);
        e = gt_launch_fused<R>(gs, method, G, fs, p.fgrid, st);
        if (e != cudaErrorCooperativeLaunchTooLarge) return e;
        (void)cudaGetLastError();
        work = (char *)G.RA; /* not resident: the levels below take the workspace instead */
    }
    for (;;) {
        /* the top level's arrays have the caller's layouts; the reduced systems are contiguous */
        const bool il = nl == 0 && p.il;
        const gt_long_level v = gt_long_level_for(cf, method, cur.m, cur.batch, il, sizeof(R), C->nsm, nl == 0);
        const gt_long_shape &s = v.sh;
        const int64_t np = v.np, cnt = np * cur.batch;
        gt_long_args<R> &G = lv[nl];
        memset(&G, 0, sizeof G);
        G.A = cur, G.np = np, G.np1 = v.np1, G.red = v.red, G.W = v.W, G.flag = flag, G.rinfo = rinfo, G.gen = gen;
        G.C = s.C, G.S = s.S, G.ss = s.ss, G.nch = s.nch;
        if (nl == 0) G.info = info, G.merge = merge, G.scr = scr;
        G.RA = take(cnt), G.RB = take(cnt), G.RC = take(cnt), G.RD = take(cnt);
        if (v.red) G.GI = take(v.np1 * cur.batch), G.VI = take(v.np1 * cur.batch), G.WI = take(v.np1 * cur.batch);
        sh[nl++] = s;
        /* every launch after the first overlaps its start with the one before */
        if ((e = gt_launch_long<R>(gs, method, true, G, s, st, pdl && nl > 1)) != cudaSuccess) return e;
        gt_tile_args<R> r;
        memset(&r, 0, sizeof r);
        r.dl = G.RA, r.d = G.RB, r.du = G.RC, r.B = G.RD;
        r.dks = np, r.dis = 1, r.bks = np, r.bis = 1;
        r.m = (int)np, r.batch = cur.batch;
        r.info = rinfo, r.merge = 0; /* written for every system; non-zero flags it */
        cur = r;
        if (np <= cf.bottom || nl == GT_MAX_LEVELS) break;
    }
    gt_tile_shape tsh;
    if (!gt_tile_shape_for(cur.m, false, sizeof(R), gt_smem_optin(ctx), tsh)) return cudaErrorInvalidValue;
    cur.S = tsh.S, cur.P = tsh.P, cur.lsh = tsh.lsh, cur.ss = tsh.ss, cur.na = tsh.na;
    cur.pcr = cf.pcr;
    if ((e = gt_launch_tile<R>(gs, method, cur, tsh, st, pdl)) != cudaSuccess) return e;
    for (int l = nl - 1; l >= 0; l--)
        if ((e = gt_launch_long<R>(gs, method, false, lv[l], sh[l], st, pdl)) != cudaSuccess) return e;
    return cudaSuccess;
}

/* The flags of the long method (batch ints) and the bottom level's info
 * (batch more), and the generation number of one column's solve: a flag
 * equal to it marks a system of this solve, so the flags are cleared only
 * when allocated or when the counter wraps, never per call (a launch). */
static int32_t *gt_flags(bsolve_ctx *ctx, int64_t batch, int32_t &gen)
{
    bsi_cuda *C = ctx->cuda;
    bsi_dbuf &b = C->gtflag;
    const size_t need = 2 * (size_t)batch * sizeof(int32_t);
    const bool grow = !(b.p && b.bytes >= need);
    if (grow && !bsi_dbuf_get(&b, need, 0)) return nullptr;
    if (grow || C->gtgen >= (1 << 30)) {
        if (cudaMemsetAsync(b.p, 0, b.bytes, C->stream) != cudaSuccess) {
            (void)cudaGetLastError();
            return nullptr;
        }
        C->gtgen = 0;
    }
    gen = ++C->gtgen;
    return (int32_t *)b.p;
}

/* The device arrays of one solve: the diagonals and B (column j at
 * B + j*bjs), entry i of system k at p[k*ks + i*is]; info per system. */
template <typename R> struct gt_arrays {
    const R *dl, *d, *du;
    int64_t dks, dis;
    R *B;
    int64_t bks, bis, bjs;
    int32_t *info;
};

/* Runs plan p on the device arrays a, nrhs columns one after another, then
 * NaN-fills every column of the systems with info != 0. */
template <typename R>
static bsolve_status gt_solve(bsolve_ctx *ctx, const char *fn, const gt_plan &p, const gt_arrays<R> &a, int64_t nrhs)
{
    bsi_cuda *C = ctx->cuda;
    cudaStream_t st = C->stream;
    const int64_t m = p.m, batch = p.batch, sld = batch;
    /* the sequential kernel's (and the long method's fallback's) scratch:
     * 4 planes of m * batch */
    size_t sbytes = 256;
    if (p.path != GT_PATH_TILE) {
        size_t n;
        if (__builtin_mul_overflow((size_t)(4 * m), (size_t)sld, &n) || __builtin_mul_overflow(n, sizeof(R), &sbytes))
            return bsi_fail(ctx, BSOLVE_ENOMEM, "%s: %lld systems of %lld equations exceed the address space", fn,
                            (long long)batch, (long long)m);
    }
    const size_t pbytes = p.path == GT_PATH_LONG ? p.lbytes : 0;
    const size_t wbytes = pbytes + sbytes; /* the fallback runs beside the last up pass */
    char *work = (char *)bsi_dbuf_get(&C->work, wbytes, 0);
    if (!work) return bsi_fail(ctx, BSOLVE_ENOMEM, "%s: cannot allocate %zu bytes of device workspace", fn, wbytes);

    if (p.path == GT_PATH_LONG) {
        for (int64_t j = 0; j < nrhs; j++) {
            int32_t gen;
            int32_t *flag = gt_flags(ctx, batch, gen);
            if (!flag)
                return bsi_fail(ctx, BSOLVE_ENOMEM, "%s: cannot allocate the flags of %lld systems", fn, (long long)batch);
            gt_tile_args<R> top;
            memset(&top, 0, sizeof top);
            top.dl = a.dl, top.d = a.d, top.du = a.du, top.B = a.B + j * a.bjs;
            top.dks = a.dks, top.dis = a.dis, top.bks = a.bks, top.bis = a.bis;
            top.m = (int)m, top.batch = batch;
            /* in place: each chunk's up pass reads its b before writing x */
            const cudaError_t e = gt_long_solve<R>(ctx, p, top, flag, flag + batch, gen, a.info, j > 0,
                                                   (R *)(work + pbytes), work, st);
            BSI_CUDA_TRY(ctx, e, fn);
        }
    } else if (p.path == GT_PATH_TILE) {
        const gt_tile_shape &tsh = p.tile;
        gt_tile_args<R> ta;
        memset(&ta, 0, sizeof ta);
        ta.dl = a.dl, ta.d = a.d, ta.du = a.du, ta.dks = a.dks, ta.dis = a.dis;
        ta.bks = a.bks, ta.bis = a.bis, ta.info = a.info;
        ta.m = (int)m, ta.S = tsh.S, ta.P = tsh.P, ta.lsh = tsh.lsh, ta.ss = tsh.ss, ta.na = tsh.na;
        ta.batch = batch;
        ta.pcr = p.cfg.pcr;
        for (int64_t j = 0; j < nrhs; j++) {
            ta.B = a.B + j * a.bjs;
            ta.merge = j > 0;
            BSI_CUDA_TRY(ctx, gt_launch_tile<R>(C->gt, p.method, ta, tsh, st), fn);
        }
    } else {
        gt_seq_args<R> s;
        memset(&s, 0, sizeof s);
        s.dl = a.dl, s.d = a.d, s.du = a.du, s.dks = a.dks, s.dis = a.dis;
        s.bks = a.bks, s.bis = a.bis, s.info = a.info;
        s.S = (R *)work, s.sld = sld;
        s.m = m, s.batch = batch;
        for (int64_t j = 0; j < nrhs; j++) {
            s.B = a.B + j * a.bjs;
            s.merge = j > 0;
            /* the staged kernel serves both layouts: it runs when either is contiguous */
            BSI_CUDA_TRY(ctx, (gt_launch_seq_m<R, GT_SV>(p.method, s, p.contig, st)), fn);
        }
    }
    if (nrhs > 1)
        gt_nanfill<R><<<(unsigned)((batch + 255) / 256), 256, 0, st>>>(a.B, a.bks, a.bis, a.bjs, m, nrhs, batch, a.info);
    BSI_CUDA_TRY(ctx, cudaGetLastError(), fn);
    return BSOLVE_SUCCESS;
}

template <typename R>
static bsolve_status gtsv_t(bsolve_ctx *ctx, int method, int64_t m, int64_t nrhs, int64_t batch, const R *dl,
                            const R *d, const R *du, bsolve_tlayout lt, R *B, bsolve_tlayout lb, int32_t *info)
{
    static const char fn[] = "bsolve_gtsv";
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
    gt_plan p;
    BSI_CUDA_TRY(ctx,
                 gt_plan_for<R>(ctx, method, m, batch, lt.kind == BSOLVE_TINTERLEAVED, lb.kind == BSOLVE_TINTERLEAVED, p),
                 fn);
    gt_arrays<R> a;
    int64_t djs;
    gt_strides(lt, m, &a.dks, &a.dis, &djs);
    gt_strides(lb, m, &a.bks, &a.bis, &a.bjs);
    a.dl = (const R *)g.dev[0], a.d = (const R *)g.dev[1], a.du = (const R *)g.dev[2];
    a.B = (R *)g.dev[3];
    a.info = (int32_t *)g.dev[4];
    if ((s = gt_solve<R>(ctx, fn, p, a, nrhs)) != BSOLVE_SUCCESS) return s;
    return gt_unstage(ctx, fn, g, 5, cout);
}

extern "C" bsolve_status bsi_cuda_gtsv(bsolve_ctx *ctx, bsolve_precision prec, bsolve_gtsv_method method, int64_t m,
                                       int64_t nrhs, int64_t batch, const void *dl, const void *d, const void *du,
                                       bsolve_tlayout lt, void *B, bsolve_tlayout lb, int32_t *info)
{
    const bsi_on_device on_dev(ctx->cuda);
    if (prec == BSOLVE_PREC_D)
        return gtsv_t<double>(ctx, method, m, nrhs, batch, (const double *)dl, (const double *)d, (const double *)du,
                              lt, (double *)B, lb, info);
    return gtsv_t<float>(ctx, method, m, nrhs, batch, (const float *)dl, (const float *)d, (const float *)du, lt,
                         (float *)B, lb, info);
}

extern "C" const char *bsi_cuda_gt_kernel(bsolve_ctx *ctx, bsolve_precision prec, bsolve_gtsv_method method,
                                          int64_t m, int64_t batch, bsolve_tlayout_kind lt, bsolve_tlayout_kind lb)
{
    const bsi_on_device on_dev(ctx->cuda);
    gt_plan p;
    const bool li = lt == BSOLVE_TINTERLEAVED, bi = lb == BSOLVE_TINTERLEAVED;
    const cudaError_t e = prec == BSOLVE_PREC_D ? gt_plan_for<double>(ctx, method, m, batch, li, bi, p)
                                                : gt_plan_for<float>(ctx, method, m, batch, li, bi, p);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return nullptr;
    }
    return gt_plan_name(p, bsi_elem_size(prec), ctx->cuda->nsm);
}

/* ---- factorization objects ----------------------------------------------
 *
 * One contract with gtsv: gttrs gives, bitwise, the X and info that gtsv
 * gives for the same matrices and right-hand sides laid out like the
 * diagonals.  gttrf makes gtsv's plan for that layout (gt->plan) and keeps
 * what replays it exactly:
 *   the factors (SEQ plans, THOMAS and PARTIAL): BSI_GT_NF planes
 *        f[(q*m + i)*ld + k] that gt_seq's forward sweep computes; gttrs
 *        applies them as gtsv's sweep does.  Every update of b there has a
 *        single product (nb - q0*y), so it rounds one way in either kernel;
 *        applying stored factors reads 9 arrays per equation where
 *        eliminating again moves 13.
 *   the matrix (TILE and LONG plans, and GIVENS on any plan), compacted
 *        into planes 0..2 in the diagonals' layout kind; gttrs runs gtsv's
 *        kernel on it.  The partitioned kernels fold the elimination of the
 *        matrix into that of b (each partition eliminated with three
 *        right-hand sides, the reduced system's pivots and PCR multipliers
 *        those of one shape of partitions), so factors of theirs would be
 *        no smaller than the matrix, and the tile kernel on it reads 4
 *        arrays and writes 1 per equation, less than applying factors.
 *        GIVENS rotates (b_i, b_i+1) with two products (c*b_i + s*b_i+1):
 *        the compiler contracts one of them into an FMA, and not the same
 *        one in the fused kernel as in a kernel that loads c and s (an
 *        ulp in y, grown by the back substitution on systems that need
 *        pivoting), so only the same kernel gives the same bits; on
 *        the sequential path GIVENS's gttrs thus eliminates again (13
 *        arrays per equation instead of 9).  gttrf runs the plan on a zero
 *        right-hand side (plane 3) for info: the guards and the sequential
 *        fallback depend on b only where b is not finite, so every gttrs
 *        then reports that info unless its B holds a NaN or an infinity
 *        (NONFINITE).  Plane 3 then serves gttrs as info scratch when the
 *        caller passes none.
 * gttrs keeps the plan for any B layout (the kernels take any strides):
 * with B in the other layout kind than the diagonals, its X is still that
 * of gtsv with B laid out like the diagonals (gtsv itself would choose
 * other partitions, 16 rows instead of 8 or other chunks, and round
 * differently). */

/* What gttrf keeps for plan p (above): the matrix, or the sequential
 * elimination's factors. */
static inline bool gt_keeps_matrix(const gt_plan &p)
{
    return p.path != GT_PATH_SEQ || p.method == BSOLVE_GTSV_GIVENS;
}

extern "C" bsolve_status bsi_cuda_gt_alloc(bsolve_ctx *ctx, bsolve_gt *gt)
{
    const bsi_on_device on_dev(ctx->cuda);
    gt->ld = (gt->batch + 31) / 32 * 32;
    const size_t es = bsi_elem_size(gt->prec);
    const size_t bytes = (size_t)BSI_GT_NF * gt->m * gt->ld * es;
    void *f = nullptr, *inf = nullptr;
    gt_plan *plan = (gt_plan *)calloc(1, sizeof(gt_plan));
    if (!plan) return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_gt_create: out of host memory");
    cudaError_t e = cudaMalloc(&f, bytes ? bytes : 256);
    if (e == cudaSuccess) e = cudaMalloc(&inf, (size_t)(gt->ld ? gt->ld : 1) * sizeof(int32_t));
    if (e != cudaSuccess) {
        if (f) cudaFree(f);
        free(plan);
        (void)cudaGetLastError();
        return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_gt_create: cannot allocate %zu bytes of device memory", bytes);
    }
    gt->f = f;
    gt->info = (int32_t *)inf;
    gt->plan = plan;
    return BSOLVE_SUCCESS;
}

extern "C" void bsi_cuda_gt_free(bsolve_gt *gt)
{
    const bsi_on_device on_dev(gt->owner ? gt->owner->cuda : nullptr);
    if (gt->f) cudaFree(gt->f);
    if (gt->info) cudaFree(gt->info);
    free(gt->plan);
    gt->f = nullptr;
    gt->info = nullptr;
    gt->plan = nullptr;
}

/* The stored matrix (gt_keeps_matrix): plane q of f holds diagonal q
 * (q = 3: gttrf's zero right-hand side, gttrs's info scratch), system k's
 * entry i at k*ks + i*is: contiguous systems of m (ks = m) or interleaved
 * rows of ld (is = ld). */
template <typename R> static void gt_planes(const bsolve_gt *gt, bool il, R **q, int64_t *ks, int64_t *is)
{
    const int64_t plane = gt->m * gt->ld;
    for (int j = 0; j < 4; j++) q[j] = (R *)gt->f + j * plane;
    *ks = il ? 1 : gt->m;
    *is = il ? gt->ld : 1;
}

/* Copies the three diagonals of the batch (entry i of system k at
 * src[k*ks + i*is]) into F's planes, compacted (F[k*fks + i*fis], planes
 * apart); threads run along the index contiguous in both. */
template <typename R>
__global__ void gt_compact(const R *dl, const R *d, const R *du, int64_t ks, int64_t is, R *F, int64_t plane,
                           int64_t fks, int64_t fis, int64_t m, int64_t batch)
{
    const int64_t n = m * batch;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < n; t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t k = fis == 1 ? t / m : t % batch, i = fis == 1 ? t - k * m : t / batch;
        const int64_t s = k * ks + i * is, o = k * fks + i * fis;
        F[o] = dl[s];
        F[plane + o] = d[s];
        F[2 * plane + o] = du[s];
    }
}

template <typename R>
static bsolve_status gttrf_t(bsolve_ctx *ctx, const R *dl, const R *d, const R *du, bsolve_tlayout lt, bsolve_gt *gt,
                             int32_t *info)
{
    static const char fn[] = "bsolve_gttrf";
    bsi_cuda *C = ctx->cuda;
    cudaStream_t st = C->stream;
    const int64_t m = gt->m, batch = gt->batch, tspan = gt_span(lt, m, 1, batch);
    const bool il = lt.kind == BSOLVE_TINTERLEAVED;
    gt_plan &p = *(gt_plan *)gt->plan;
    BSI_CUDA_TRY(ctx, gt_plan_for<R>(ctx, gt->method, m, batch, il, il, p), fn);
    gt_stage g;
    memset(&g, 0, sizeof g);
    g.user[0] = dl, g.user[1] = d, g.user[2] = du, g.user[3] = info;
    g.bytes[0] = g.bytes[1] = g.bytes[2] = (size_t)tspan * sizeof(R);
    g.bytes[3] = (size_t)batch * sizeof(int32_t);
    const int cin[4] = {1, 1, 1, 0}, cout[4] = {0, 0, 0, 1};
    bsolve_status s = gt_stage_all(ctx, fn, g, 4, cin);
    if (s != BSOLVE_SUCCESS) return s;
    int64_t dks, dis, djs;
    gt_strides(lt, m, &dks, &dis, &djs);
    const R *ddl = (const R *)g.dev[0], *dd = (const R *)g.dev[1], *ddu = (const R *)g.dev[2];
    int32_t *dinfo = (int32_t *)g.dev[3];
    if (!gt_keeps_matrix(p)) {
        gt_seq_args<R> a;
        memset(&a, 0, sizeof a);
        a.dl = ddl, a.d = dd, a.du = ddu, a.dks = dks, a.dis = dis;
        a.info = dinfo;
        a.F = (R *)gt->f, a.fld = gt->ld;
        a.finfo_out = gt->info;
        a.m = m, a.batch = batch;
        BSI_CUDA_TRY(ctx, (gt_launch_seq_m<R, GT_TRF>(gt->method, a, p.contig, st)), fn);
        return gt_unstage(ctx, fn, g, 4, cout);
    }
    R *q[4];
    gt_arrays<R> a;
    gt_planes<R>(gt, il, q, &a.dks, &a.dis);
    const int64_t n = m * batch;
    const unsigned nblk = (unsigned)(n / 256 + 1 < 65536 ? n / 256 + 1 : 65536);
    gt_compact<R><<<nblk, 256, 0, st>>>(ddl, dd, ddu, dks, dis, q[0], m * gt->ld, a.dks, a.dis, m, batch);
    BSI_CUDA_TRY(ctx, cudaGetLastError(), fn);
    BSI_CUDA_TRY(ctx, cudaMemsetAsync(q[3], 0, (size_t)m * gt->ld * sizeof(R), st), fn);
    a.dl = q[0], a.d = q[1], a.du = q[2];
    a.B = q[3], a.bks = a.dks, a.bis = a.dis, a.bjs = 0;
    a.info = gt->info;
    if ((s = gt_solve<R>(ctx, fn, p, a, 1)) != BSOLVE_SUCCESS) return s;
    BSI_CUDA_TRY(ctx, cudaMemcpyAsync(dinfo, gt->info, (size_t)batch * sizeof(int32_t), cudaMemcpyDeviceToDevice, st),
                 fn);
    return gt_unstage(ctx, fn, g, 4, cout);
}

template <typename R>
static bsolve_status gttrs_t(bsolve_ctx *ctx, const bsolve_gt *gt, int64_t nrhs, R *B, bsolve_tlayout lb,
                             int32_t *info)
{
    static const char fn[] = "bsolve_gttrs";
    bsi_cuda *C = ctx->cuda;
    cudaStream_t st = C->stream;
    const gt_plan &p = *(const gt_plan *)gt->plan;
    const int64_t m = gt->m, batch = gt->batch, bspan = gt_span(lb, m, nrhs, batch);
    gt_stage g;
    memset(&g, 0, sizeof g);
    g.user[0] = B, g.user[1] = info;
    g.bytes[0] = (size_t)bspan * sizeof(R);
    g.bytes[1] = (size_t)batch * sizeof(int32_t);
    const int cin[2] = {1, 0}, cout[2] = {1, 1};
    bsolve_status s = gt_stage_all(ctx, fn, g, 2, cin);
    if (s != BSOLVE_SUCCESS) return s;
    R *dB = (R *)g.dev[0];
    if (gt_keeps_matrix(p)) {
        R *q[4];
        gt_arrays<R> a;
        /* the plan's il is the diagonals' layout kind (gttrf made it for a B like them) */
        gt_planes<R>(gt, p.il, q, &a.dks, &a.dis);
        a.dl = q[0], a.d = q[1], a.du = q[2];
        a.B = dB;
        gt_strides(lb, m, &a.bks, &a.bis, &a.bjs);
        a.info = g.dev[1] ? (int32_t *)g.dev[1] : (int32_t *)q[3];
        if ((s = gt_solve<R>(ctx, fn, p, a, nrhs)) != BSOLVE_SUCCESS) return s;
        return gt_unstage(ctx, fn, g, 2, cout);
    }
    const int64_t sld = batch;
    const size_t wbytes = (size_t)m * sld * sizeof(R) + (size_t)sld * sizeof(int32_t) + 256;
    char *work = (char *)bsi_dbuf_get(&C->work, wbytes, 0);
    if (!work) return bsi_fail(ctx, BSOLVE_ENOMEM, "%s: cannot allocate %zu bytes of device workspace", fn, wbytes);
    gt_seq_args<R> a;
    memset(&a, 0, sizeof a);
    int64_t bjs;
    gt_strides(lb, m, &a.bks, &a.bis, &bjs);
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
    const bsi_on_device on_dev(ctx->cuda);
    if (gt->prec == BSOLVE_PREC_D)
        return gttrf_t<double>(ctx, (const double *)dl, (const double *)d, (const double *)du, lt, gt, info);
    return gttrf_t<float>(ctx, (const float *)dl, (const float *)d, (const float *)du, lt, gt, info);
}

extern "C" bsolve_status bsi_cuda_gttrs(bsolve_ctx *ctx, const bsolve_gt *gt, int64_t nrhs, void *B,
                                        bsolve_tlayout lb, int32_t *info)
{
    const bsi_on_device on_dev(ctx->cuda);
    if (gt->prec == BSOLVE_PREC_D) return gttrs_t<double>(ctx, gt, nrhs, (double *)B, lb, info);
    return gttrs_t<float>(ctx, gt, nrhs, (float *)B, lb, info);
}
