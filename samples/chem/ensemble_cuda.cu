/*
 * ensemble_cuda.cu -- the reactor ensemble on the GPU (ensemble.h,
 * ens_run_cuda): ensemble.c's sweeps with every per-cell stage a kernel
 * running bdf.c, ignition.c and the kinetics themselves (compiled for the
 * device here, hd.h): the integrator's stages one thread per cell, f a warp
 * per cell and J a block per cell (kinetics_team.c; ENS_KIN_THREAD: one
 * thread per cell, kinetics.c).
 *
 * Device-resident per cell: the BDF scalars and ignition tracker (arrays of
 * structs), the vectors and the Jacobian interleaved by cell (entry i of
 * cell c at [i N + c]: a warp's loads of one entry are one transaction), the
 * status, phase and need flags.  The host only launches: a sweep costs a few
 * small device-to-host copies (whether any cell needs a new iteration
 * matrix, how many cells still iterate, how many still run), never a copy
 * of cell data.  The running cells are kept as an ordered list (act),
 * compacted with cub's DeviceSelect after each sweep, so that the threads of
 * a warp handle cells that sit next to each other in memory; the cells that
 * need a Jacobian are compacted the same way before its kernel, which is
 * ten times the cost of the others.
 *
 * Linear algebra, as ensemble.c does it:
 *   ENS_LS_BSOLVE  slots (slot_cell / slot) as in ensemble.c: one
 *                  bsolve_dgetrf_masked of the slots whose M changed when
 *                  any cell needs a new M, one bsolve_dgetrs_masked of the
 *                  slots still iterating per Newton iteration, the masks
 *                  made on the device by the kernels that form M and the
 *                  right-hand sides; per-cell info read by the next
 *                  stage's kernel;
 *   ENS_LS_CUBLAS  cublasDgetrfBatched on the slots whose M changed and
 *                  cublasDgetrsBatched on the cells still iterating, through
 *                  pointer arrays (column-major M, factored in place, the
 *                  pivots kept per slot).  getrf's info is used likewise;
 *                  getrs reports none per system, a singular or non-finite
 *                  factor shows as a non-finite correction (Newton failure).
 * Times come from CUDA events around each stage on the run's stream.
 */
#include "bdf.c"
#include "ignition.c"
#include "kinetics.c"
#include "kinetics_team.c"

#include "ensemble.h"
#include "kinetics_cuda.h"

#include <cub/device/device_select.cuh>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* where a cell is in the current sweep (as ensemble.c) */
enum { PH_IDLE = 0, PH_ITER, PH_CONV, PH_FAIL };

/* device counters of a sweep: cells needing a new M at bdf_begin and at the
 * factorization, iterating, slots whose M was formed; the lengths of the
 * compacted lists */
enum { C_SETUP, C_NEEDED, C_ITER, C_FORMED, C_NJ, C_NFORM, C_NSOLVE, C_NACT, C_N };

/* stage times (ens_stats) */
enum { T_RHS, T_JAC, T_FORM, T_FACTOR, T_SOLVE, T_BDF, T_N };

enum {
    THREADS = 128,
    MAX_INTERVALS = 32,
    RHS_CELLS = 4, /* warps (cells) per block of the team rhs */
    FORM_Y = 8,    /* column groups per block of k_form (x: 32 slots) */
    FORM_GY = 2,   /* ... blocks of them per 32 slots */
    FORM_R = 8     /* rows of a column a k_form thread loads at once */
};

/* what the kernels see, by value */
typedef struct dview {
    const chem_mech *m;
    bdf_opts bo; /* atol in device memory */
    int n, N;
    double t_max;
    long max_steps;
    bdf_cell *cell;
    double *vec; /* BDF_VEC_N n x N, interleaved */
    double *J;   /* n^2 x N, interleaved */
    ign_track *ign;
    int *status;
    unsigned char *need, *phase;
    long *nfail;
    const double *P;
    int *slot, *slot_cell;
    long poison_nje;
    int poison_cell;
} dview;

/* The kinetics kernels' teams (kinetics_team.h), NULL: one thread per cell. */
typedef struct dteam {
    const chem_team *t; /* host copy of the device tables' addresses */
    unsigned jac_grid;  /* blocks of k_jac_team: as many as fit the device at once */
} dteam;

typedef struct dens {
    dview v;
    dteam tm;
    const ens_opts *o;
    bsolve_ctx *ctx;
    cudaStream_t stream;
    cublasHandle_t cublas;
    double *atol, *P, *x0;
    int *act, *act2, *list, *iota;
    unsigned char *flag;
    int *counts, *hcounts; /* device counters, and their pinned host copy */
    void *cub_tmp;
    size_t cub_bytes;
    int64_t cap;
    int relayout;
    bsolve_lu *lu;
    double *M, *B;
    int32_t *info, *sinfo, *cinfo; /* per slot: last factorization's, last solve's; cuBLAS getrf's */
    int *piv, *pivtmp;
    double **Aptr, **Bptr;
    cudaEvent_t ev[2 * MAX_INTERVALS];
    int ev_made, nint, cat[MAX_INTERVALS];
    double t[T_N];
    ens_stats *st;
    char *msg;
    size_t msglen;
} dens;

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail_cuda(dens *d, const char *what, cudaError_t e)
{
    snprintf(d->msg, d->msglen, "%s: %s", what, cudaGetErrorString(e));
    return ENS_EDEVICE;
}

#define CU_TRY(x)                                         \
    do {                                                  \
        const cudaError_t e_ = (x);                       \
        if (e_ != cudaSuccess) return fail_cuda(d, #x, e_); \
    } while (0)
#define LAUNCH_TRY() CU_TRY(cudaGetLastError())
#define BS_TRY(x)                                                                              \
    do {                                                                                       \
        if ((x) != BSOLVE_SUCCESS) {                                                           \
            snprintf(d->msg, d->msglen, "%s: %s", #x, bsolve_ctx_message(d->ctx));            \
            return ENS_EBSOLVE;                                                                \
        }                                                                                      \
    } while (0)
#define CB_TRY(x)                                                                              \
    do {                                                                                       \
        const cublasStatus_t s_ = (x);                                                         \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                     \
            snprintf(d->msg, d->msglen, "%s: %s", #x, cublasGetStatusString(s_));              \
            return ENS_EDEVICE;                                                                \
        }                                                                                      \
    } while (0)

static unsigned blocks(int64_t count)
{
    return (unsigned)((count + THREADS - 1) / THREADS);
}

/* ------------------------------------------------------------------ timing */

static int tm_start(dens *d, int cat)
{
    if (d->nint >= MAX_INTERVALS) return ENS_OK; /* not reached: a sweep has about ten */
    d->cat[d->nint] = cat;
    CU_TRY(cudaEventRecord(d->ev[2 * d->nint], d->stream));
    return ENS_OK;
}

static int tm_stop(dens *d)
{
    if (d->nint >= MAX_INTERVALS) return ENS_OK;
    CU_TRY(cudaEventRecord(d->ev[2 * d->nint + 1], d->stream));
    d->nint++;
    return ENS_OK;
}

/* the intervals recorded so far, once the stream has passed them */
static int tm_collect(dens *d)
{
    for (int i = 0; i < d->nint; i++) {
        float ms;
        CU_TRY(cudaEventElapsedTime(&ms, d->ev[2 * i], d->ev[2 * i + 1]));
        d->t[d->cat[i]] += 1e-3 * ms;
    }
    d->nint = 0;
    return ENS_OK;
}

/* ------------------------------------------------------------------ stage kernels */

static __device__ bdf_vecs cell_vecs(const dview &v, int c)
{
    return bdf_vecs_interleaved(v.vec, v.n, (size_t)v.N, (size_t)c);
}

typedef struct rhs_arg {
    const chem_mech *m;
    double P;
    size_t inc;
    double *work;
} rhs_arg;

static __device__ int rhs_cb(void *arg, const double *y, double *f)
{
    const rhs_arg *a = (const rhs_arg *)arg;
    return chem_rhs_inc(a->m, a->P, y, f, a->inc, a->work);
}

/* f(x0), the first step, the cell started (init_cells) */
__global__ void __launch_bounds__(THREADS) k_init(dview v, const double *x0, unsigned char *running)
{
    const int c = blockIdx.x * THREADS + threadIdx.x;
    if (c >= v.N) return;
    const int n = v.n, K = n - 1;
    const size_t N = (size_t)v.N;
    bdf_vecs w = cell_vecs(v, c);
    const double *x = x0 + c;
    double work[W_N * CHEM_CUDA_KMAX];
    v.nfail[c] = 0;
    running[c] = 0;
    if (chem_rhs_inc(v.m, v.P[c], x, w.f, N, work) != CHEM_OK) {
        v.status[c] = ENS_FAIL_KINETICS;
        return;
    }
    for (int i = 0; i < n; i++) w.ewt[i * N] = 1.0 / (v.bo.rtol * fabs(x[i * N]) + v.bo.atol[i]);
    rhs_arg a = {v.m, v.P[c], N, work};
    const double h0 = bdf_initial_step(n, x, w.f, w.ewt, v.bo.atol, v.t_max, rhs_cb, &a, w.y, w.tmp, N);
    bdf_init(&v.cell[c], &v.bo, n, w, 0.0, x, w.f, h0);
    ign_start(&v.ign[c], x[K * N], w.f[K * N]);
    v.status[c] = ENS_RUNNING;
    running[c] = 1;
}

/* order-1 restarts' f, then bdf_begin (begin_attempts); jac[a]: cell act[a] needs J */
__global__ void __launch_bounds__(THREADS) k_begin(dview v, const int *act, int nact, unsigned char *jac, int *counts)
{
    const int a = blockIdx.x * THREADS + threadIdx.x;
    if (a >= nact) return;
    const int c = act[a];
    bdf_vecs w = cell_vecs(v, c);
    v.phase[c] = PH_IDLE;
    v.need[c] = 0;
    jac[a] = 0;
    if (v.cell[c].next == BDF_RELOAD) {
        double work[W_N * CHEM_CUDA_KMAX];
        if (chem_rhs_inc(v.m, v.P[c], w.zn[0], w.f, (size_t)v.N, work) != CHEM_OK) {
            v.status[c] = ENS_FAIL_ERRTEST;
            return;
        }
        bdf_reload(&v.cell[c], v.n, w, w.f);
    }
    const int r = bdf_begin(&v.cell[c], &v.bo, v.n, w);
    if (r < 0) {
        v.status[c] = ENS_FAIL_STEP;
        return;
    }
    v.need[c] = (unsigned char)r;
    v.phase[c] = PH_ITER;
    jac[a] = (r & BDF_NEED_JAC) != 0;
    if (r & BDF_NEED_SETUP) atomicAdd(&counts[C_SETUP], 1);
}

/* J and f at y for the cells of jlist (evaluate) */
__global__ void __launch_bounds__(THREADS) k_jac(dview v, const int *jlist, const int *nj)
{
    const int t = blockIdx.x * THREADS + threadIdx.x;
    if (t >= *nj) return;
    const int c = jlist[t];
    const size_t N = (size_t)v.N, nn = (size_t)v.n * v.n;
    bdf_vecs w = cell_vecs(v, c);
    double work[W_N * CHEM_CUDA_KMAX];
    if (chem_jacobian_inc(v.m, v.P[c], w.y, w.f, v.J + c, N, work) != CHEM_OK) {
        v.phase[c] = PH_FAIL;
        return;
    }
    if (v.poison_nje > 0 && c == v.poison_cell && v.cell[c].nje + 1 == v.poison_nje)
        for (size_t e = 0; e < nn; e++) v.J[e * N + c] = NAN;
}

/* f at y of the iterating cells (those that got it with J excepted when skip_jac) */
__global__ void __launch_bounds__(THREADS) k_rhs(dview v, const int *act, int nact, int skip_jac)
{
    const int a = blockIdx.x * THREADS + threadIdx.x;
    if (a >= nact) return;
    const int c = act[a];
    if (v.phase[c] != PH_ITER || (skip_jac && (v.need[c] & BDF_NEED_JAC))) return;
    bdf_vecs w = cell_vecs(v, c);
    double work[W_N * CHEM_CUDA_KMAX];
    if (chem_rhs_inc(v.m, v.P[c], w.y, w.f, (size_t)v.N, work) != CHEM_OK) v.phase[c] = PH_FAIL;
}

/* J and f at y for the cells of jlist (evaluate) by teams: a block per cell,
 * the blocks striding over the list (its length is on the device) */
__global__ void __launch_bounds__(CHEM_CUDA_TEAM_J)
    k_jac_team(dview v, const __grid_constant__ chem_team tm, const int *jlist, const int *nj)
{
    extern __shared__ double sh[];
    const int count = *nj;
    const size_t N = (size_t)v.N, nn = (size_t)v.n * v.n;
    for (int i = blockIdx.x; i < count; i += gridDim.x) {
        const int c = jlist[i];
        bdf_vecs w = cell_vecs(v, c);
        /* the team's stages end with a barrier: the workspace is free for the next cell */
        if (chem_team_jacobian(v.m, &tm, threadIdx.x, v.P[c], w.y, w.f, v.J + c, N, sh) != CHEM_OK) {
            if (threadIdx.x == 0) v.phase[c] = PH_FAIL;
            continue;
        }
        if (v.poison_nje > 0 && c == v.poison_cell && v.cell[c].nje + 1 == v.poison_nje)
            for (size_t e = threadIdx.x; e < nn; e += blockDim.x) v.J[e * N + c] = NAN;
    }
}

/* f at y of the iterating cells (those that got it with J excepted when
 * skip_jac) by teams: a warp per cell */
__global__ void __launch_bounds__(RHS_CELLS * 32)
    k_rhs_team(dview v, const __grid_constant__ chem_team tm, const int *act, int nact, int skip_jac)
{
    extern __shared__ double sh[];
    const int wid = threadIdx.x >> 5, lane = threadIdx.x & 31, a = blockIdx.x * RHS_CELLS + wid;
    if (a >= nact) return;
    const int c = act[a];
    if (v.phase[c] != PH_ITER || (skip_jac && (v.need[c] & BDF_NEED_JAC))) return;
    bdf_vecs w = cell_vecs(v, c);
    const int st = chem_team_rhs(v.m, &tm, lane, v.P[c], w.y, w.f, (size_t)v.N, sh + (size_t)wid * tm.ws_rhs);
    if (st != CHEM_OK && lane == 0) v.phase[c] = PH_FAIL;
}

/* slots assigned to the running cells in order, none beyond them */
__global__ void __launch_bounds__(THREADS) k_relayout(dview v, const int *act, int nact, int64_t cap)
{
    const int64_t p = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    if (p >= cap) return;
    const int c = p < nact ? act[p] : -1;
    v.slot_cell[p] = c;
    if (c >= 0) v.slot[c] = (int)p;
}

__global__ void __launch_bounds__(THREADS) k_setup_done(dview v, const int *act, int nact, int *counts)
{
    const int a = blockIdx.x * THREADS + threadIdx.x;
    if (a >= nact) return;
    const int c = act[a];
    if (v.phase[c] == PH_ITER && (v.need[c] & BDF_NEED_SETUP)) {
        bdf_setup_done(&v.cell[c], (v.need[c] & BDF_NEED_JAC) != 0);
        atomicAdd(&counts[C_NEEDED], 1);
    }
}

/* M = I - gamma_m J of every slot after a relayout, else of the slots whose
 * cell needs a new M; identity in unused slots.  Entry e of slot p at
 * M[e ms + p mp]; formed[p] says which need it (the mask of the
 * factorization), counts[C_FORMED] how many.
 *
 * Threads: x a slot (a warp: 32 consecutive slots), y a group of columns.
 * With group = 4 (batchsolve, interleaved M) every slot of an aligned group
 * of four with one that needs M is formed: four slots' entry fills the
 * 32-byte sector a single one would write partially (and their cells sit
 * next to each other in J, mostly).  That rewrites the M of cells that do
 * not need it with their own gamma_m and J, which batchsolve does not read
 * (getrf reads only the flagged systems; the factors live in its object).
 * cuBLAS factors M in place: group = 1 there. */
__global__ void __launch_bounds__(32 * FORM_Y) k_form(dview v, int64_t cap, int relayout, int group, double *M,
                                                      size_t ms, size_t mp, unsigned char *formed, int *counts)
{
    const int64_t p = (int64_t)blockIdx.x * 32 + threadIdx.x;
    const int c = p < cap ? v.slot_cell[p] : -1;
    const int need = p < cap && (relayout || (c >= 0 && v.phase[c] == PH_ITER && (v.need[c] & BDF_NEED_SETUP)));
    const unsigned ball = __ballot_sync(0xffffffffu, need);
    if (blockIdx.y == 0 && threadIdx.y == 0) {
        if (p < cap) formed[p] = (unsigned char)need;
        if (threadIdx.x == 0 && ball) atomicAdd(&counts[C_FORMED], __popc(ball));
    }
    const unsigned gmask = group == 4 ? 0xfu << (threadIdx.x & ~3u) : 1u << threadIdx.x;
    if (p >= cap || !(ball & gmask)) return;
    const int n = v.n;
    const size_t N = (size_t)v.N;
    const double g = c >= 0 ? v.cell[c].gamma_m : 0.0;
    /* FORM_R rows at a time, their loads before their stores (a thread would
     * otherwise wait a memory latency per entry: M and J may alias for all
     * the compiler knows) */
    for (int j = blockIdx.y * FORM_Y + threadIdx.y; j < n; j += FORM_Y * gridDim.y) {
        const double *Jj = v.J + (c >= 0 ? c : 0) + (size_t)j * n * N;
        double *Mj = M + (size_t)p * mp + (size_t)j * n * ms;
        for (int i0 = 0; i0 < n; i0 += FORM_R) {
            double x[FORM_R];
            for (int u = 0; u < FORM_R; u++) x[u] = c >= 0 && i0 + u < n ? Jj[(size_t)(i0 + u) * N] : 0.0;
            for (int u = 0; u < FORM_R; u++) {
                const int i = i0 + u;
                const double d = i == j ? 1.0 : 0.0;
                if (i < n) Mj[(size_t)i * ms] = c >= 0 ? d - g * x[u] : d;
            }
        }
    }
}

/* a failed factorization fails the cell's Newton iteration */
__global__ void __launch_bounds__(THREADS) k_info(dview v, const int *act, int nact, const int32_t *info)
{
    const int a = blockIdx.x * THREADS + threadIdx.x;
    if (a >= nact) return;
    const int c = act[a];
    if (v.phase[c] == PH_ITER && info[v.slot[c]] != 0) {
        v.phase[c] = PH_FAIL;
        v.nfail[c]++;
    }
}

/* the Newton right-hand sides into B (entry i of slot p at B[i bs + p bp])
 * of the slots iterating, which iter[p] flags (the mask of the solve) */
__global__ void __launch_bounds__(THREADS) k_newton_rhs(dview v, int64_t cap, double *B, size_t bs, size_t bp,
                                                        unsigned char *iter, int *counts)
{
    const int64_t p = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    if (p >= cap) return;
    const int c = v.slot_cell[p];
    const int it = c >= 0 && v.phase[c] == PH_ITER;
    iter[p] = (unsigned char)it;
    if (it) {
        bdf_newton_rhs(&v.cell[c], v.n, cell_vecs(v, c), B + (size_t)p * bp, bs);
        atomicAdd(&counts[C_ITER], 1);
    }
}

/* the corrections solved for: bdf_newton_update (info: getrs's per system, or NULL) */
__global__ void __launch_bounds__(THREADS) k_newton_update(dview v, const int *act, int nact, const double *B,
                                                           size_t bs, size_t bp, const int32_t *info)
{
    const int a = blockIdx.x * THREADS + threadIdx.x;
    if (a >= nact) return;
    const int c = act[a];
    if (v.phase[c] != PH_ITER) return;
    const int p = v.slot[c];
    if (info && info[p] != 0) {
        v.phase[c] = PH_FAIL;
        v.nfail[c]++;
        return;
    }
    const int r = bdf_newton_update(&v.cell[c], v.n, cell_vecs(v, c), B + (size_t)p * bp, bs);
    v.phase[c] = r == BDF_CONVERGED ? PH_CONV : r == BDF_DIVERGED ? PH_FAIL : PH_ITER;
}

/* error test or failure handling, ignition tracking (finish_attempts); keep[a]: still running */
__global__ void __launch_bounds__(THREADS) k_finish(dview v, const int *act, int nact, unsigned char *keep)
{
    const int a = blockIdx.x * THREADS + threadIdx.x;
    if (a >= nact) return;
    const int c = act[a], n = v.n, K = n - 1;
    bdf_cell *cl = &v.cell[c];
    bdf_vecs w = cell_vecs(v, c);
    const int ph = v.phase[c];
    if (v.status[c] == ENS_RUNNING) {
        if (ph == PH_FAIL || ph == PH_ITER) {
            if (bdf_conv_fail(cl, n, w) == BDF_FAILED) v.status[c] = ENS_FAIL_CONV;
        } else if (ph == PH_CONV) {
            const int r = bdf_error_test(cl, &v.bo, n, w);
            if (r == BDF_FAILED) {
                v.status[c] = ENS_FAIL_ERRTEST;
            } else if (r == BDF_ACCEPTED) {
                double z[BDF_QMAX + 1];
                for (int j = 0; j <= cl->q; j++) z[j] = w.zn[j][(size_t)K * w.inc];
                if (ign_step(&v.ign[c], cl->t, cl->h, cl->q, z))
                    v.status[c] = ENS_DONE;
                else if (cl->nst >= v.max_steps)
                    v.status[c] = ENS_FAIL_STEPS;
                else if (cl->t > v.t_max)
                    v.status[c] = ENS_FAIL_TMAX;
            }
        }
    }
    v.phase[c] = PH_IDLE;
    keep[a] = v.status[c] == ENS_RUNNING;
}

/* cuBLAS: pointers to the listed slots, and their pivots and info */
__global__ void k_pointers(double **ptr, double *base, size_t stride, const int *list, int count)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i < count) ptr[i] = base + (size_t)list[i] * stride;
}

__global__ void k_scatter_factor(const int *list, int count, int n, const int *cinfo, int32_t *info, const int *pivtmp,
                                 int *piv)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= count) return;
    const size_t p = (size_t)list[i];
    info[p] = cinfo[i];
    for (int r = 0; r < n; r++) piv[p * n + r] = pivtmp[(size_t)i * n + r];
}

__global__ void k_gather_pivots(const int *list, int count, int n, const int *piv, int *pivtmp)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= count) return;
    const size_t p = (size_t)list[i];
    for (int r = 0; r < n; r++) pivtmp[(size_t)i * n + r] = piv[p * n + r];
}

__global__ void k_iota(int *x, int count)
{
    const int i = blockIdx.x * THREADS + threadIdx.x;
    if (i < count) x[i] = i;
}

/* ------------------------------------------------------------------ host side */

/* out[0 .. *count) = the in[i] with flag[i], in order (count in d->counts[which]) */
static int compact(dens *d, const int *in, const unsigned char *flag, int *out, int which, int num)
{
    size_t bytes = d->cub_bytes;
    CU_TRY(cub::DeviceSelect::Flagged(d->cub_tmp, bytes, in, flag, out, d->counts + which, num, d->stream));
    return ENS_OK;
}

/* the counters into d->hcounts, waited for */
static int read_counts(dens *d)
{
    CU_TRY(cudaMemcpyAsync(d->hcounts, d->counts, C_N * sizeof(int), cudaMemcpyDeviceToHost, d->stream));
    CU_TRY(cudaStreamSynchronize(d->stream));
    return ENS_OK;
}

static int use_cublas(const dens *d)
{
    return d->o->ls == ENS_LS_CUBLAS;
}

/* entry e of slot p of M at [e ms + p mp], entry i of slot p of B at [i bs + p bp] */
static void strides(const dens *d, size_t *ms, size_t *mp, size_t *bs, size_t *bp)
{
    const size_t n = (size_t)d->v.n;
    if (!use_cublas(d) && d->o->layout == BSOLVE_INTERLEAVED) {
        *ms = *bs = (size_t)d->cap;
        *mp = *bp = 1;
    } else {
        *ms = *bs = 1;
        *mp = n * n;
        *bp = n;
    }
}

static bsolve_layout la_of(const dens *d, int rows)
{
    return d->o->layout == BSOLVE_INTERLEAVED ? bsolve_layout_interleaved(d->cap)
                                              : bsolve_layout_col_major(d->v.n, (int64_t)d->v.n * rows);
}

static int set_capacity(dens *d, int64_t cap)
{
    d->cap = cap;
    d->relayout = 1;
    if (use_cublas(d)) return ENS_OK;
    bsolve_lu_destroy(d->lu);
    d->lu = NULL;
    BS_TRY(bsolve_lu_create(d->ctx, BSOLVE_PREC_D, BSOLVE_PIVOT_PARTIAL, d->v.n, cap, &d->lu));
    return ENS_OK;
}

#define STAGE(x)                  \
    do {                          \
        const int rc_ = (x);      \
        if (rc_) return rc_;      \
    } while (0)

/* f at y of the running cells in phase PH_ITER (those that got it with J excepted when skip_jac) */
static int rhs(dens *d, int nact, int skip_jac)
{
    STAGE(tm_start(d, T_RHS));
    if (d->tm.t) {
        const unsigned nb = (unsigned)((nact + RHS_CELLS - 1) / RHS_CELLS);
        k_rhs_team<<<nb, RHS_CELLS * 32, RHS_CELLS * d->tm.t->ws_rhs * sizeof(double), d->stream>>>(
            d->v, *d->tm.t, d->act, nact, skip_jac);
    } else {
        k_rhs<<<blocks(nact), THREADS, 0, d->stream>>>(d->v, d->act, nact, skip_jac);
    }
    LAUNCH_TRY();
    return tm_stop(d);
}

/* New iteration matrices where needed, factored (factor) */
static int factor(dens *d, int nact)
{
    const int n = d->v.n;
    if (nact < d->cap - d->cap / 4) STAGE(set_capacity(d, nact));
    const int relayout = d->relayout;
    STAGE(tm_start(d, T_BDF));
    k_setup_done<<<blocks(nact), THREADS, 0, d->stream>>>(d->v, d->act, nact, d->counts);
    LAUNCH_TRY();
    if (relayout) {
        k_relayout<<<blocks(d->cap), THREADS, 0, d->stream>>>(d->v, d->act, nact, d->cap);
        LAUNCH_TRY();
        d->relayout = 0;
    }
    STAGE(tm_stop(d));
    size_t ms, mp, bs, bp;
    strides(d, &ms, &mp, &bs, &bp);
    const int group = !use_cublas(d) && d->o->layout == BSOLVE_INTERLEAVED ? 4 : 1;
    STAGE(tm_start(d, T_FORM));
    k_form<<<dim3((unsigned)((d->cap + 31) / 32), FORM_GY), dim3(32, FORM_Y), 0, d->stream>>>(
        d->v, d->cap, relayout, group, d->M, ms, mp, d->flag, d->counts);
    LAUNCH_TRY();
    STAGE(tm_stop(d));
    d->st->getrf_calls++;
    if (!use_cublas(d)) {
        /* the formed slots (counted at the sweep's end: no wait here) */
        STAGE(tm_start(d, T_FACTOR));
        BS_TRY(bsolve_dgetrf_masked(d->ctx, d->M, la_of(d, n), d->lu, d->flag, d->info));
        STAGE(tm_stop(d));
    } else {
        /* the formed slots, their count on the host for the batch size */
        STAGE(compact(d, d->iota, d->flag, d->list, C_NFORM, (int)d->cap));
        STAGE(read_counts(d));
        const int nform = d->hcounts[C_NFORM];
        if (nform > 0) {
            STAGE(tm_start(d, T_FACTOR));
            k_pointers<<<blocks(nform), THREADS, 0, d->stream>>>(d->Aptr, d->M, (size_t)n * n, d->list, nform);
            LAUNCH_TRY();
            CB_TRY(cublasDgetrfBatched(d->cublas, n, d->Aptr, n, d->pivtmp, d->cinfo, nform));
            k_scatter_factor<<<blocks(nform), THREADS, 0, d->stream>>>(d->list, nform, n, d->cinfo, d->info,
                                                                       d->pivtmp, d->piv);
            LAUNCH_TRY();
            STAGE(tm_stop(d));
        }
        d->st->factors_done += nform;
    }
    STAGE(tm_start(d, T_BDF));
    k_info<<<blocks(nact), THREADS, 0, d->stream>>>(d->v, d->act, nact, d->info);
    LAUNCH_TRY();
    return tm_stop(d);
}

/* Newton iterations: one solve each over the cells still iterating (newton) */
static int newton(dens *d, int nact)
{
    const int n = d->v.n;
    size_t ms, mp, bs, bp;
    strides(d, &ms, &mp, &bs, &bp);
    for (int it = 0; it < 3; it++) {
        CU_TRY(cudaMemsetAsync(d->counts + C_ITER, 0, sizeof(int), d->stream));
        STAGE(tm_start(d, T_BDF));
        k_newton_rhs<<<blocks(d->cap), THREADS, 0, d->stream>>>(d->v, d->cap, d->B, bs, bp, d->flag, d->counts);
        LAUNCH_TRY();
        STAGE(tm_stop(d));
        STAGE(read_counts(d));
        const int iterating = d->hcounts[C_ITER];
        if (!iterating) break;
        STAGE(tm_start(d, T_SOLVE));
        if (!use_cublas(d)) {
            BS_TRY(bsolve_dgetrs_masked(d->ctx, d->lu, 1, d->B, la_of(d, 1), d->flag, d->sinfo));
            d->st->solves_done += iterating;
        } else {
            STAGE(compact(d, d->iota, d->flag, d->list, C_NSOLVE, (int)d->cap));
            k_pointers<<<blocks(iterating), THREADS, 0, d->stream>>>(d->Aptr, d->M, (size_t)n * n, d->list, iterating);
            LAUNCH_TRY();
            k_pointers<<<blocks(iterating), THREADS, 0, d->stream>>>(d->Bptr, d->B, (size_t)n, d->list, iterating);
            LAUNCH_TRY();
            k_gather_pivots<<<blocks(iterating), THREADS, 0, d->stream>>>(d->list, iterating, n, d->piv, d->pivtmp);
            LAUNCH_TRY();
            int hinfo = 0;
            CB_TRY(cublasDgetrsBatched(d->cublas, CUBLAS_OP_N, n, 1, (const double *const *)d->Aptr, n, d->pivtmp,
                                       d->Bptr, n, &hinfo, iterating));
            if (hinfo != 0) {
                snprintf(d->msg, d->msglen, "cublasDgetrsBatched: argument %d invalid", -hinfo);
                return ENS_EDEVICE;
            }
            d->st->solves_done += iterating;
        }
        STAGE(tm_stop(d));
        d->st->getrs_calls++;
        d->st->solves_needed += iterating;
        STAGE(tm_start(d, T_BDF));
        k_newton_update<<<blocks(nact), THREADS, 0, d->stream>>>(d->v, d->act, nact, d->B, bs, bp,
                                                                 use_cublas(d) ? NULL : d->sinfo);
        LAUNCH_TRY();
        STAGE(tm_stop(d));
        STAGE(rhs(d, nact, 0));
    }
    return ENS_OK;
}

/* one sweep over the nact running cells; *nact: those still running after it */
static int sweep(dens *d, int *nact)
{
    const int na = *nact;
    d->st->sweeps++;
    CU_TRY(cudaMemsetAsync(d->counts, 0, C_N * sizeof(int), d->stream));
    STAGE(tm_start(d, T_BDF));
    k_begin<<<blocks(na), THREADS, 0, d->stream>>>(d->v, d->act, na, d->flag, d->counts);
    LAUNCH_TRY();
    /* J where needed (the cells compacted), f elsewhere */
    STAGE(compact(d, d->act, d->flag, d->list, C_NJ, na));
    STAGE(tm_stop(d));
    STAGE(tm_start(d, T_JAC));
    if (d->tm.t) {
        const unsigned nb = (unsigned)na < d->tm.jac_grid ? (unsigned)na : d->tm.jac_grid;
        k_jac_team<<<nb, CHEM_CUDA_TEAM_J, d->tm.t->ws_jac * sizeof(double), d->stream>>>(d->v, *d->tm.t, d->list,
                                                                                           d->counts + C_NJ);
    } else {
        k_jac<<<blocks(na), THREADS, 0, d->stream>>>(d->v, d->list, d->counts + C_NJ);
    }
    LAUNCH_TRY();
    STAGE(tm_stop(d));
    STAGE(rhs(d, na, 1));
    STAGE(read_counts(d));
    if (d->hcounts[C_SETUP] > 0) STAGE(factor(d, na));
    STAGE(newton(d, na));
    STAGE(tm_start(d, T_BDF));
    k_finish<<<blocks(na), THREADS, 0, d->stream>>>(d->v, d->act, na, d->flag);
    LAUNCH_TRY();
    STAGE(compact(d, d->act, d->flag, d->act2, C_NACT, na));
    STAGE(tm_stop(d));
    STAGE(read_counts(d));
    d->st->factors_needed += d->hcounts[C_NEEDED];
    if (!use_cublas(d)) d->st->factors_done += d->hcounts[C_FORMED];
    int *t = d->act;
    d->act = d->act2;
    d->act2 = t;
    *nact = d->hcounts[C_NACT];
    return tm_collect(d);
}

template <class T> static int dalloc(dens *d, T **p, size_t count)
{
    *p = NULL;
    if (count > SIZE_MAX / sizeof(T)) {
        snprintf(d->msg, d->msglen, "ens_run_cuda: %zu elements overflow", count);
        return ENS_ENOMEM;
    }
    const cudaError_t e = cudaMalloc((void **)p, count ? count * sizeof(T) : 1);
    if (e == cudaErrorMemoryAllocation) {
        snprintf(d->msg, d->msglen, "ens_run_cuda: out of device memory (%zu bytes)", count * sizeof(T));
        return ENS_ENOMEM;
    }
    CU_TRY(e);
    return ENS_OK;
}

static void dens_free(dens *d)
{
    cudaFree(d->v.cell);
    cudaFree(d->v.vec);
    cudaFree(d->v.J);
    cudaFree(d->v.ign);
    cudaFree(d->v.status);
    cudaFree(d->v.need);
    cudaFree(d->v.phase);
    cudaFree(d->v.nfail);
    cudaFree(d->v.slot);
    cudaFree(d->v.slot_cell);
    cudaFree(d->atol);
    cudaFree(d->P);
    cudaFree(d->x0);
    cudaFree(d->act);
    cudaFree(d->act2);
    cudaFree(d->list);
    cudaFree(d->iota);
    cudaFree(d->flag);
    cudaFree(d->counts);
    cudaFreeHost(d->hcounts);
    cudaFree(d->cub_tmp);
    bsolve_lu_destroy(d->lu);
    cudaFree(d->M);
    cudaFree(d->B);
    cudaFree(d->info);
    cudaFree(d->sinfo);
    cudaFree(d->cinfo);
    cudaFree(d->piv);
    cudaFree(d->pivtmp);
    cudaFree(d->Aptr);
    cudaFree(d->Bptr);
    for (int i = 0; i < d->ev_made; i++) cudaEventDestroy(d->ev[i]);
    if (d->cublas) cublasDestroy(d->cublas);
    if (d->stream) {
        bsolve_ctx_set_stream(d->ctx, NULL);
        cudaStreamDestroy(d->stream);
    }
}

/* device memory, the stream, cuBLAS; the cells' data uploaded */
static int setup(dens *d, const chem_mech *m, int ncell, const double *P, const double *x0)
{
    const int n = m->nsp + 1;
    const size_t N = (size_t)ncell, nn = (size_t)n * n;
    CU_TRY(cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking));
    BS_TRY(bsolve_ctx_set_stream(d->ctx, d->stream));
    for (; d->ev_made < 2 * MAX_INTERVALS; d->ev_made++) CU_TRY(cudaEventCreate(&d->ev[d->ev_made]));
    if (use_cublas(d)) {
        CB_TRY(cublasCreate(&d->cublas));
        CB_TRY(cublasSetStream(d->cublas, d->stream));
    }
    if (N > SIZE_MAX / nn) return ENS_ENOMEM;
    STAGE(dalloc(d, &d->v.cell, N));
    STAGE(dalloc(d, &d->v.vec, N * bdf_vec_len(n)));
    STAGE(dalloc(d, &d->v.J, N * nn));
    STAGE(dalloc(d, &d->v.ign, N));
    STAGE(dalloc(d, &d->v.status, N));
    STAGE(dalloc(d, &d->v.need, N));
    STAGE(dalloc(d, &d->v.phase, N));
    STAGE(dalloc(d, &d->v.nfail, N));
    STAGE(dalloc(d, &d->v.slot, N));
    STAGE(dalloc(d, &d->v.slot_cell, N));
    STAGE(dalloc(d, &d->atol, (size_t)n));
    STAGE(dalloc(d, &d->P, N));
    STAGE(dalloc(d, &d->x0, N * n));
    STAGE(dalloc(d, &d->act, N));
    STAGE(dalloc(d, &d->act2, N));
    STAGE(dalloc(d, &d->list, N));
    STAGE(dalloc(d, &d->iota, N));
    STAGE(dalloc(d, &d->flag, N));
    STAGE(dalloc(d, &d->counts, (size_t)C_N));
    CU_TRY(cudaMallocHost((void **)&d->hcounts, C_N * sizeof(int)));
    STAGE(dalloc(d, &d->M, N * nn));
    STAGE(dalloc(d, &d->B, N * n));
    STAGE(dalloc(d, &d->info, N));
    STAGE(dalloc(d, &d->sinfo, N));
    CU_TRY(cudaMemsetAsync(d->info, 0, N * sizeof(int32_t), d->stream));
    /* a cell that fails at its start reports zero counters, as on the CPU */
    CU_TRY(cudaMemsetAsync(d->v.cell, 0, N * sizeof(bdf_cell), d->stream));
    if (use_cublas(d)) {
        STAGE(dalloc(d, &d->cinfo, N));
        STAGE(dalloc(d, &d->piv, N * n));
        STAGE(dalloc(d, &d->pivtmp, N * n));
        STAGE(dalloc(d, &d->Aptr, N));
        STAGE(dalloc(d, &d->Bptr, N));
    }
    /* cub's scratch: the most any select of up to N items needs */
    size_t bytes = 0;
    CU_TRY(cub::DeviceSelect::Flagged(NULL, bytes, d->act, d->flag, d->act2, d->counts, ncell, d->stream));
    d->cub_bytes = bytes;
    CU_TRY(cudaMalloc(&d->cub_tmp, bytes ? bytes : 1));

    /* the cells: P, x0 interleaved, tolerances */
    double *h = (double *)malloc(N * n * sizeof(double));
    if (!h) {
        snprintf(d->msg, d->msglen, "ens_run_cuda: out of host memory");
        return ENS_ENOMEM;
    }
    for (size_t c = 0; c < N; c++)
        for (int i = 0; i < n; i++) h[(size_t)i * N + c] = x0[c * n + i];
    /* on the run's stream, which does not wait for the legacy default stream; done before h is reused */
    cudaError_t e = cudaMemcpyAsync(d->x0, h, N * n * sizeof(double), cudaMemcpyHostToDevice, d->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(d->stream);
    for (int i = 0; i < n; i++) h[i] = i < n - 1 ? d->o->atol : d->o->atol_T;
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(d->atol, h, (size_t)n * sizeof(double), cudaMemcpyHostToDevice, d->stream);
    if (e == cudaSuccess) e = cudaMemcpyAsync(d->P, P, N * sizeof(double), cudaMemcpyHostToDevice, d->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(d->stream);
    free(h);
    CU_TRY(e);

    dview *v = &d->v;
    v->n = n;
    v->N = ncell;
    v->bo.rtol = d->o->rtol;
    v->bo.atol = d->atol;
    v->bo.qmax = d->o->qmax;
    v->t_max = d->o->t_max;
    v->max_steps = d->o->max_steps;
    v->P = d->P;
    v->poison_nje = d->o->poison_nje;
    v->poison_cell = d->o->poison_cell;
    return ENS_OK;
}

/* the cells' results back on the host */
static int results(dens *d, int ncell, ens_cell_result *res)
{
    const size_t N = (size_t)ncell;
    bdf_cell *cell = (bdf_cell *)malloc(N * sizeof *cell);
    ign_track *ign = (ign_track *)malloc(N * sizeof *ign);
    int *status = (int *)malloc(N * sizeof *status);
    long *nfail = (long *)malloc(N * sizeof *nfail);
    cudaError_t e = cudaErrorMemoryAllocation;
    if (cell && ign && status && nfail) {
        e = cudaMemcpy(cell, d->v.cell, N * sizeof *cell, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess) e = cudaMemcpy(ign, d->v.ign, N * sizeof *ign, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess) e = cudaMemcpy(status, d->v.status, N * sizeof *status, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess) e = cudaMemcpy(nfail, d->v.nfail, N * sizeof *nfail, cudaMemcpyDeviceToHost);
    }
    if (e == cudaSuccess)
        for (size_t c = 0; c < N; c++) {
            ens_cell_result *r = &res[c];
            const bdf_cell *cl = &cell[c];
            memset(r, 0, sizeof *r);
            r->status = status[c];
            r->tau = status[c] == ENS_DONE ? ign_delay(&ign[c], &r->peak) : -1;
            r->t = cl->t;
            r->nst = cl->nst;
            r->nfe = cl->nfe;
            r->nje = cl->nje;
            r->nsetup = cl->nsetup;
            r->nni = cl->nni;
            r->ncfn = cl->ncfn;
            r->netf = cl->netf;
            r->nfactor_fail = nfail[c];
        }
    free(cell);
    free(ign);
    free(status);
    free(nfail);
    CU_TRY(e);
    return ENS_OK;
}

/* the team kernels' shared memory, and as many Jacobian blocks as fit the
 * device at once (they stride over the cells that need one); none where the
 * mechanism has no team tables (one thread per cell then) */
static int team_setup(dens *d, const chem_team *t)
{
    d->tm.t = t;
    if (!t) return ENS_OK;
    const size_t jbytes = t->ws_jac * sizeof(double), rbytes = RHS_CELLS * t->ws_rhs * sizeof(double);
    CU_TRY(cudaFuncSetAttribute(k_jac_team, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)jbytes));
    CU_TRY(cudaFuncSetAttribute(k_rhs_team, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)rbytes));
    /* half of L1 for the tables' working set (GRI-Mech: some 80 KB), rather
     * than all of it for more warps (7 instead of 5 blocks per SM) */
    CU_TRY(cudaFuncSetAttribute(k_rhs_team, cudaFuncAttributePreferredSharedMemoryCarveout, 50));
    int dev, sms, per_sm;
    CU_TRY(cudaGetDevice(&dev));
    CU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CU_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_jac_team, CHEM_CUDA_TEAM_J, jbytes));
    d->tm.jac_grid = (unsigned)(sms * (per_sm > 0 ? per_sm : 1));
    return ENS_OK;
}

static int run(dens *d, const chem_mech *m, int ncell, const double *P, const double *x0, ens_cell_result *res)
{
    char why[256];
    chem_cuda_mech *dm = NULL;
    int rc = chem_cuda_mech_create(m, &dm, why, sizeof why);
    if (rc != CHEM_OK) {
        snprintf(d->msg, d->msglen, "ens_run_cuda: %s", why);
        return rc == CHEM_ENOMEM ? ENS_ENOMEM : rc == CHEM_EDOMAIN ? ENS_EINVAL : ENS_EDEVICE;
    }
    d->v.m = chem_cuda_mech_device(dm);
    rc = setup(d, m, ncell, P, x0);
    if (rc == ENS_OK && d->o->kinetics == ENS_KIN_TEAM) rc = team_setup(d, chem_cuda_mech_team(dm));
    if (rc == ENS_OK) rc = set_capacity(d, ncell);
    int nact = 0;
    if (rc == ENS_OK) {
        /* the cells started, the running ones listed */
        k_iota<<<blocks(ncell), THREADS, 0, d->stream>>>(d->iota, ncell);
        rc = tm_start(d, T_RHS);
        if (rc == ENS_OK) {
            k_init<<<blocks(ncell), THREADS, 0, d->stream>>>(d->v, d->x0, d->flag);
            rc = tm_stop(d);
        }
        if (rc == ENS_OK) rc = compact(d, d->iota, d->flag, d->act, C_NACT, ncell);
        if (rc == ENS_OK) rc = read_counts(d);
        if (rc == ENS_OK) rc = tm_collect(d);
        nact = d->hcounts ? d->hcounts[C_NACT] : 0;
    }
    while (rc == ENS_OK && nact > 0) rc = sweep(d, &nact);
    if (rc == ENS_OK) rc = results(d, ncell, res);
    chem_cuda_mech_free(dm);
    return rc;
}

extern "C" int ens_run_cuda(const chem_mech *m, int ncell, const double *P, const double *x0, const ens_opts *o,
                            bsolve_ctx *ctx, ens_cell_result *res, ens_stats *st, char *msg, size_t msglen)
{
    msg[0] = 0;
    memset(st, 0, sizeof *st);
    if (ncell < 1 || o->qmax < 1 || o->qmax > BDF_QMAX || !(o->rtol > 0) || !(o->atol > 0) || !(o->atol_T > 0) ||
        (o->layout != BSOLVE_INTERLEAVED && o->layout != BSOLVE_COL_MAJOR) ||
        (o->ls != ENS_LS_BSOLVE && o->ls != ENS_LS_CUBLAS) ||
        (o->kinetics != ENS_KIN_TEAM && o->kinetics != ENS_KIN_THREAD) || o->jac_hook) {
        snprintf(msg, msglen, "ens_run_cuda: invalid options or ncell = %d", ncell);
        return ENS_EINVAL;
    }
    if (bsolve_ctx_backend(ctx) != BSOLVE_BACKEND_CUDA) {
        snprintf(msg, msglen, "ens_run_cuda: the context is not on the CUDA backend");
        return ENS_EINVAL;
    }
    const double t0 = wall();
    dens d;
    memset(&d, 0, sizeof d);
    d.o = o;
    d.ctx = ctx;
    d.st = st;
    d.msg = msg;
    d.msglen = msglen;
    const int rc = run(&d, m, ncell, P, x0, res);
    st->t_rhs = d.t[T_RHS];
    st->t_jac = d.t[T_JAC];
    st->t_form = d.t[T_FORM];
    st->t_factor = d.t[T_FACTOR];
    st->t_solve = d.t[T_SOLVE];
    st->t_bdf = d.t[T_BDF];
    dens_free(&d);
    st->t_total = wall() - t0;
    return rc;
}
