/*
 * lu.cu -- the CUDA backend's dense LU entry points: launches of the kernel
 * that the dispatch table (lu_dispatch.cuh) chooses, device-pointer and
 * host-pointer paths, factorization objects, export.
 */
#include <omp.h>
#include <string.h>

#include "common.cuh"
#include "hostpath.cuh"
#include "lu_dispatch.cuh"
#include "lu_getrs.cuh"
#include "lu_getrs_team.cuh"
#include "lu_panel.cuh"
#include "lu_small.cuh"
#include "lu_smem.cuh"
#include "lu_tile.cuh"
#include "lu_warp.cuh"

BSW_BUCKETS(BSW_EXTERN, double)
BSW_BUCKETS(BSW_EXTERN, float)
BSW_EXTERN(float, 64)
BST_BUCKETS(BST_EXTERN, double)
BST_BUCKETS(BST_EXTERN, float)
BSP_BUCKETS(BSP_EXTERN, double)
BSP_BUCKETS(BSP_EXTERN, float)
BSM_ORDERS(BSM_EXTERN, double)
BSM_ORDERS(BSM_EXTERN, float)
BSI_LU_RSTEAM_SHAPES(BSR_EXTERN_D)
BSI_LU_RSTEAM_SHAPES(BSR_EXTERN_S)

template <typename R> static cudaError_t bst_launch(int op, const bsi_lu_args<R> &a, int N, cudaStream_t s)
{
    switch (N) {
    case 40: return bst_launch_n<R, 40>(op, a, s);
    case 48: return bst_launch_n<R, 48>(op, a, s);
    case 56: return bst_launch_n<R, 56>(op, a, s);
    case 64: return bst_launch_n<R, 64>(op, a, s);
    case 80: return bst_launch_n<R, 80>(op, a, s);
    case 96: return bst_launch_n<R, 96>(op, a, s);
    case 112: return bst_launch_n<R, 112>(op, a, s);
    case 128: return bst_launch_n<R, 128>(op, a, s);
    default: return cudaErrorInvalidValue;
    }
}

template <typename R> static cudaError_t bsp_launch(int op, const bsi_lu_args<R> &a, int N, cudaStream_t s)
{
    switch (N) {
    case 64: return bsp_launch_n<R, 64>(op, a, s);
    case 96: return bsp_launch_n<R, 96>(op, a, s);
    case 128: return bsp_launch_n<R, 128>(op, a, s);
    default: return cudaErrorInvalidValue;
    }
}

template <typename R> static cudaError_t bsw_launch(int op, const bsi_lu_args<R> &a, int N, cudaStream_t s)
{
    switch (N) {
    case 10: return bsw_launch_n<R, 10>(op, a, s);
    case 12: return bsw_launch_n<R, 12>(op, a, s);
    case 14: return bsw_launch_n<R, 14>(op, a, s);
    case 16: return bsw_launch_n<R, 16>(op, a, s);
    case 20: return bsw_launch_n<R, 20>(op, a, s);
    case 24: return bsw_launch_n<R, 24>(op, a, s);
    case 28: return bsw_launch_n<R, 28>(op, a, s);
    case 32: return bsw_launch_n<R, 32>(op, a, s);
    case 40: return bsw_launch_n<R, 40>(op, a, s);
    case 48: return bsw_launch_n<R, 48>(op, a, s);
    default: break;
    }
    if constexpr (sizeof(R) == 4)
        if (N == 64) return bsw_launch_n<R, 64>(op, a, s);
    return cudaErrorInvalidValue;
}

template <typename R> static cudaError_t bsm_launch(int op, const bsi_lu_args<R> &a, int N, cudaStream_t s)
{
    switch (N) {
#define BSM_CASE(R, N) \
    case N: return BSM_LAUNCH_N(R, N)(op, a, s);
    BSM_ORDERS(BSM_CASE, R)
#undef BSM_CASE
    default: return cudaErrorInvalidValue;
    }
}

template <typename R> static cudaError_t bsi_launch_small(int op, const bsi_lu_args<R> &a, int N, cudaStream_t s)
{
    switch (N) {
    case 1: return bsi_launch_small_n<R, 1>(op, a, s);
    case 2: return bsi_launch_small_n<R, 2>(op, a, s);
    case 3: return bsi_launch_small_n<R, 3>(op, a, s);
    case 4: return bsi_launch_small_n<R, 4>(op, a, s);
    case 5: return bsi_launch_small_n<R, 5>(op, a, s);
    case 6: return bsi_launch_small_n<R, 6>(op, a, s);
    case 7: return bsi_launch_small_n<R, 7>(op, a, s);
    case 8: return bsi_launch_small_n<R, 8>(op, a, s);
    case 10: return bsi_launch_small_n<R, 10>(op, a, s);
    case 12: return bsi_launch_small_n<R, 12>(op, a, s);
    case 14: return bsi_launch_small_n<R, 14>(op, a, s);
    case 16: return bsi_launch_small_n<R, 16>(op, a, s);
    case 20: return bsi_launch_small_n<R, 20>(op, a, s);
    case 24: return bsi_launch_small_n<R, 24>(op, a, s);
    case 28: return bsi_launch_small_n<R, 28>(op, a, s);
    case 32: return bsi_launch_small_n<R, 32>(op, a, s);
    default: return cudaErrorInvalidValue;
    }
}

/* How a launch's systems are given (lu_dispatch.cuh's BSI_LU_BATCH, _LIST,
 * _LIST_IL): a getrs reads the object's interleaved factors, a getrf its A
 * (a_il: interleaved); a gathered segment's systems are consecutive. */
template <typename R> static int bsi_lu_list_of(int op, const bsi_lu_args<R> &a)
{
    if (!a.nsel) return BSI_LU_BATCH;
    return a.sel && (op == BSI_OP_GETRS || a.a_il) ? BSI_LU_LIST_IL : BSI_LU_LIST;
}

template <typename R> cudaError_t bsi_launch_lu(int op, const bsi_lu_args<R> &a, const int *force, cudaStream_t s)
{
    if (a.count <= 0) return cudaSuccess;
    const bsi_lu_choice c = bsi_lu_dispatch((int)sizeof(R), op, a.n, a.nrhs, a.pivot, bsi_lu_list_of(op, a), force);
    switch (c.family) {
    case BSI_LU_WARP: return bsw_launch<R>(op, a, c.bucket, s);
    case BSI_LU_TEAM: return bsi_launch_small<R>(op, a, c.bucket, s);
    case BSI_LU_TILE: return bst_launch<R>(op, a, c.bucket, s);
    case BSI_LU_PANEL: return bsp_launch<R>(op, a, c.bucket, s);
    case BSI_LU_SOLVE: return bsg_launch<R>(a, s);
    case BSI_LU_SMEM:
    case BSI_LU_RSTEAM: {
        const bool sm = c.family == BSI_LU_SMEM;
        const cudaError_t e = sm ? bsm_launch<R>(op, a, c.bucket, s) : bsr_launch<R>(a, c.shape, s);
        if (e != cudaErrorInvalidConfiguration) return e;
        /* a block's shared memory beyond this device's (or factors not
         * aligned for RSTEAM's vector loads): the table without the kernel */
        int f[BSI_FORCE_COUNT + 1];
        if (force) memcpy(f, force, sizeof f);
        else memset(f, 0, sizeof f);
        f[sm ? BSI_FORCE_LU_SMEM : BSI_FORCE_LU_RSTEAM] = 1;
        return bsi_launch_lu<R>(op, a, f, s);
    }
    default: return bsi_launch_large<R>(op, a, s);
    }
}

/* Instantiated in lu_small_*.cu */
#define BSI_SMALL_EXTERN(R, N) extern template cudaError_t bsi_launch_small_n<R, N>(int, const bsi_lu_args<R> &, cudaStream_t);
#define BSI_SMALL_EXTERN_ALL(R)                                                                          \
    BSI_SMALL_EXTERN(R, 1) BSI_SMALL_EXTERN(R, 2) BSI_SMALL_EXTERN(R, 3) BSI_SMALL_EXTERN(R, 4)          \
    BSI_SMALL_EXTERN(R, 5) BSI_SMALL_EXTERN(R, 6) BSI_SMALL_EXTERN(R, 7) BSI_SMALL_EXTERN(R, 8)          \
    BSI_SMALL_EXTERN(R, 10) BSI_SMALL_EXTERN(R, 12) BSI_SMALL_EXTERN(R, 14) BSI_SMALL_EXTERN(R, 16)      \
    BSI_SMALL_EXTERN(R, 20) BSI_SMALL_EXTERN(R, 24) BSI_SMALL_EXTERN(R, 28) BSI_SMALL_EXTERN(R, 32)
BSI_SMALL_EXTERN_ALL(double)
BSI_SMALL_EXTERN_ALL(float)

template cudaError_t bsi_launch_lu<double>(int, const bsi_lu_args<double> &, const int *, cudaStream_t);
template cudaError_t bsi_launch_lu<float>(int, const bsi_lu_args<float> &, const int *, cudaStream_t);

/* ---- helpers ------------------------------------------------------------- */

static inline bsi_view bsi_view_of(bsolve_layout l, int64_t r) { return bsi_make_view(l, r); }

/* What a call's chunk functions share: the kernel arguments so far, the
 * factorization object (getrf, getrs), the context's forced choices, and
 * its state (the list and workspace buffers of masked calls); wfail: the
 * bytes of a gathered segment's workspace that could not be allocated. */
template <typename R> struct bsi_lu_call {
    bsi_lu_args<R> a;
    const bsolve_lu *lu;
    const int *force;
    bsi_cuda *C;
    size_t wfail;
};

/* ---- gesv ---------------------------------------------------------------- */

template <typename R>
static cudaError_t bsi_gesv_chunk(void *user, int64_t k0, int64_t cnt, void *const *d, const bsolve_layout *l,
                                  cudaStream_t st)
{
    (void)k0;
    const bsi_lu_call<R> *g = (const bsi_lu_call<R> *)user;
    bsi_lu_args<R> a = g->a;
    a.A = (const R *)d[0];
    a.va = bsi_view_of(l[0], a.n);
    a.B = (R *)d[1];
    a.vb = bsi_view_of(l[1], a.n);
    a.info = (int32_t *)d[2];
    a.count = cnt;
    return bsi_launch_lu<R>(BSI_OP_GESV, a, g->force, st);
}

template <typename R>
static bsolve_status bsi_gesv_t(bsolve_ctx *ctx, bsolve_pivot pivot, int64_t n, int64_t nrhs, int64_t batch,
                                const void *A, bsolve_layout la, void *B, bsolve_layout lb, int32_t *info)
{
    bsi_lu_call<R> g;
    memset(&g, 0, sizeof g);
    g.a.n = (int)n;
    g.a.nrhs = (int)nrhs;
    g.a.pivot = (int)pivot;
    g.force = ctx->force;
    bsi_harr arr[3] = {{A, nullptr, la, n, n, sizeof(R)}, {B, B, lb, n, nrhs, sizeof(R)}, bsi_info_arr(info, batch)};
    return bsi_run(ctx, "bsolve_gesv", "A, B and info must all be device or all host memory", batch, arr, 3,
                   bsi_gesv_chunk<R>, &g);
}

extern "C" bsolve_status bsi_cuda_gesv(bsolve_ctx *ctx, bsolve_precision prec, bsolve_pivot pivot, int64_t n,
                                       int64_t nrhs, int64_t batch, const void *A, bsolve_layout la, void *B,
                                       bsolve_layout lb, int32_t *info)
{
    const bsi_on_device on_dev(ctx->cuda);
    return prec == BSOLVE_PREC_D ? bsi_gesv_t<double>(ctx, pivot, n, nrhs, batch, A, la, B, lb, info)
                                 : bsi_gesv_t<float>(ctx, pivot, n, nrhs, batch, A, la, B, lb, info);
}

/* ---- factorization objects ---------------------------------------------- */

extern "C" bsolve_status bsi_cuda_lu_alloc(bsolve_ctx *ctx, bsolve_lu *lu)
{
    const bsi_on_device on_dev(ctx->cuda);
    const int64_t n = lu->n;
    const size_t es = bsi_elem_size(lu->prec);
    lu->factors = lu->rowpiv = lu->colpiv = nullptr;
    lu->info = nullptr;
    if ((double)n * n * ((double)lu->batch + 32) * es > 9.0e18) /* the byte count would overflow */
        return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_lu_create: %lld systems of order %lld do not fit in device memory",
                        (long long)lu->batch, (long long)n);
    const int64_t ld = lu->batch > 0 ? (lu->batch + 31) / 32 * 32 : 32;
    cudaError_t e = cudaMalloc(&lu->factors, (size_t)(n * n * ld) * es);
    if (e == cudaSuccess) e = cudaMalloc(&lu->rowpiv, (size_t)(n * ld));
    if (e == cudaSuccess) e = cudaMalloc(&lu->colpiv, (size_t)(n * ld));
    if (e == cudaSuccess) e = cudaMalloc((void **)&lu->info, (size_t)ld * sizeof(int32_t));
    /* No system factored yet: getrs gives them info NONFINITE (0xff bytes:
     * -1) and NaN until a getrf, masked or not, factors them; pivots in
     * range, so that solving them reads nothing outside their system.
     * Waited for: the object may be used on another stream, which the
     * context's need not precede. */
    cudaStream_t st = ctx->cuda->stream;
    if (e == cudaSuccess) e = cudaMemsetAsync(lu->rowpiv, 0, (size_t)(n * ld), st);
    if (e == cudaSuccess) e = cudaMemsetAsync(lu->colpiv, 0, (size_t)(n * ld), st);
    if (e == cudaSuccess) e = cudaMemsetAsync(lu->info, 0xff, (size_t)ld * sizeof(int32_t), st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    if (e != cudaSuccess) {
        bsi_cuda_lu_free(lu);
        return bsi_cuda_err(ctx, e, "bsolve_lu_create");
    }
    lu->ld = ld;
    return BSOLVE_SUCCESS;
}

extern "C" void bsi_cuda_lu_free(bsolve_lu *lu)
{
    const bsi_on_device on_dev(lu->owner ? lu->owner->cuda : nullptr);
    if (lu->factors) cudaFree(lu->factors);
    if (lu->rowpiv) cudaFree(lu->rowpiv);
    if (lu->colpiv) cudaFree(lu->colpiv);
    if (lu->info) cudaFree(lu->info);
    lu->factors = lu->rowpiv = lu->colpiv = nullptr;
    lu->info = nullptr;
    (void)cudaGetLastError();
}

/* ---- getrf ---------------------------------------------------------------- */

template <typename R> static void bsi_factor_args(bsi_lu_args<R> &a, const bsolve_lu *lu, int64_t k0)
{
    a.F = (R *)lu->factors + k0;
    a.fld = lu->ld;
    a.rp = (uint8_t *)lu->rowpiv + k0;
    a.cp = (uint8_t *)lu->colpiv + k0;
    a.finfo = lu->info + k0;
    a.n = (int)lu->n;
    a.pivot = (int)lu->pivot;
}

template <typename R>
static cudaError_t bsi_getrf_chunk(void *user, int64_t k0, int64_t cnt, void *const *d, const bsolve_layout *l,
                                   cudaStream_t st)
{
    bsi_lu_call<R> *g = (bsi_lu_call<R> *)user;
    bsi_lu_args<R> a = g->a;
    bsi_factor_args<R>(a, g->lu, k0);
    a.A = (const R *)d[0];
    a.va = bsi_view_of(l[0], a.n);
    a.info = (int32_t *)d[1];
    a.count = cnt;
    return bsi_launch_lu<R>(BSI_OP_GETRF, a, g->force, st);
}

/* ---- masked calls -----------------------------------------------------------
 * The flagged systems of a chunk are listed on the device (select.cu), a
 * segment of at most BSI_SEL_MAX systems at a time (int32 indices), and the
 * table's kernel runs on the list (common.cuh: bsi_lu_sys): no count comes
 * back to the host, the grid covers the segment.  The list goes into the
 * chunk's staged scratch (host arrays) or the context's buffer (device
 * arrays: one chunk on the context's stream, so that a call's list is done
 * with before the next call's is written). */

/* Bytes of the list of m systems and its scanning scratch; the staged
 * scratch has 8 bytes per system for them (and the staging rounds each
 * array's room up to 256 bytes). */
static size_t bsi_list_bytes(int64_t m) { return (size_t)(m + bsi_select_scratch(m) + 1) * sizeof(int32_t); }

static cudaError_t bsi_list_flagged(bsi_cuda *C, const uint8_t *mask, int64_t m, void *staged, int32_t **sel,
                                    int32_t **nsel, cudaStream_t st)
{
    int32_t *p = (int32_t *)staged;
    if (!p) p = (int32_t *)bsi_dbuf_get(&C->lusel, bsi_list_bytes(m), 0);
    if (!p) return cudaErrorMemoryAllocation;
    *sel = p;
    *nsel = p + m;
    return bsi_launch_select(mask, m, p, p + m, p + m + 1, st);
}

/* A gathered masked getrf (lu_dispatch.cuh's GATHER, lu_gather.cu) works
 * on segments of at most this many bytes of workspace: enough systems that
 * the factor kernel's last wave and each segment's three launches are
 * small (FP64 n = 54: 22900 systems, 29 waves of the panel kernel's
 * resident blocks on an H200; n = 128: 4000, 31 waves), little beside the
 * batch itself.  The device path keeps it in the context's workspace. */
#define BSI_GATHER_MAX_BYTES ((size_t)512 << 20)

/* Systems per gathered segment of a list of m (a test may force fewer:
 * BSI_FORCE_LU_GATHER >= 3). */
static int64_t bsi_gather_segment(const int *force, int n, size_t es, int64_t m)
{
    int64_t S = (int64_t)(BSI_GATHER_MAX_BYTES / bsi_gather_bytes(n, es, 1));
    if (force && force[BSI_FORCE_LU_GATHER] >= 3 && force[BSI_FORCE_LU_GATHER] < S) S = force[BSI_FORCE_LU_GATHER];
    return S < m ? S : m;
}

/* Bytes per system of a masked getrf's staged scratch (host arrays): the
 * list, and where it gathers, a segment of the chunk's systems after it
 * (bsi_gathered's carving, with room for its alignments). */
static size_t bsi_masked_scratch(int gather, int n, size_t es)
{
    return 8 + (gather ? 32 + bsi_gather_bytes(n, es, 1) : 0);
}

/* The getrf of the list in a (m systems, a.sel / a.nsel on the device),
 * gathered: per segment, the listed systems of A into the workspace, the
 * table's kernel on them there (a list with sel NULL: its count is the
 * segment's), their factors, pivots and info back.  staged: the chunk's
 * scratch after the list (host arrays), else the context's workspace. */
template <typename R>
static cudaError_t bsi_gathered(bsi_lu_call<R> *g, const bsi_lu_args<R> &a, int64_t m, char *staged, cudaStream_t st)
{
    const int n = a.n, nsm = g->C->nsm;
    const int64_t S = bsi_gather_segment(g->force, n, sizeof(R), m);
    const size_t bytes = bsi_gather_bytes(n, sizeof(R), S);
    void *p = staged ? (void *)staged : bsi_dbuf_get(&g->C->work, bytes, 0);
    if (!p) {
        g->wfail = bytes;
        return cudaErrorMemoryAllocation;
    }
    const bsi_gather_ws<R> w = bsi_gather_carve<R>(p, n, S);
    for (int64_t j = 0; j < m; j += S) {
        cudaError_t e = bsi_launch_gather<R>(a.A, a.va.is, n, a.sel, a.nsel, j, w, nsm, st);
        if (e != cudaSuccess) return e;
        bsi_lu_args<R> b = a;
        b.A = w.W;
        b.va.ks = 1;
        b.va.is = S;
        b.va.js = (int64_t)n * S;
        b.F = w.W;
        b.fld = S;
        b.rp = w.rp;
        b.cp = w.cp;
        b.info = b.finfo = w.info;
        b.count = m - j < S ? m - j : S;
        b.sel = nullptr;
        b.nsel = w.cnt;
        e = bsi_launch_lu<R>(BSI_OP_GETRF, b, g->force, st);
        if (e == cudaSuccess)
            e = bsi_launch_scatter<R>(w, n, a.sel, a.nsel, j, a.F, a.fld, a.rp, a.cp, a.finfo, a.info, nsm, st);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

/* A masked getrf's (OP) or getrs's chunk: arrays A (getrf) or B (getrs),
 * info (staged even when a getrs has none), mask, scratch. */
template <typename R, int OP>
static cudaError_t bsi_masked_chunk(void *user, int64_t k0, int64_t cnt, void *const *d, const bsolve_layout *l,
                                    cudaStream_t st)
{
    bsi_lu_call<R> *g = (bsi_lu_call<R> *)user;
    for (int64_t s0 = 0; s0 < cnt; s0 += BSI_SEL_MAX) {
        const int64_t m = cnt - s0 < BSI_SEL_MAX ? cnt - s0 : BSI_SEL_MAX;
        int32_t *sel, *nsel;
        cudaError_t e = bsi_list_flagged(g->C, (const uint8_t *)d[2] + s0, m, d[3], &sel, &nsel, st);
        if (e != cudaSuccess) return e;
        bsi_lu_args<R> a = g->a;
        bsi_factor_args<R>(a, g->lu, k0 + s0);
        if (OP == BSI_OP_GETRF) {
            a.A = (const R *)d[0] + bsi_sys_offset(l[0], s0);
            a.va = bsi_view_of(l[0], a.n);
        } else {
            a.B = (R *)d[0] + bsi_sys_offset(l[0], s0);
            a.vb = bsi_view_of(l[0], a.n);
        }
        a.a_il = l[0].kind == BSOLVE_INTERLEAVED;
        a.info = OP == BSI_OP_GETRF || g->a.info ? (int32_t *)d[1] + s0 : nullptr;
        a.count = m;
        a.sel = sel;
        a.nsel = nsel;
        const bsi_lu_choice c =
            bsi_lu_dispatch((int)sizeof(R), OP, a.n, a.nrhs, a.pivot, bsi_lu_list_of(OP, a), g->force);
        if (c.gather) {
            char *ws = d[3] ? (char *)d[3] + (bsi_list_bytes(m) + 15) / 16 * 16 : nullptr;
            e = bsi_gathered<R>(g, a, m, ws, st);
        } else {
            e = bsi_launch_lu<R>(OP, a, g->force, st);
        }
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

template <typename R>
static bsolve_status bsi_getrf_t(bsolve_ctx *ctx, const void *A, bsolve_layout la, bsolve_lu *lu, const uint8_t *mask,
                                 int32_t *info)
{
    bsi_lu_call<R> g;
    memset(&g, 0, sizeof g);
    g.lu = lu;
    g.force = ctx->force;
    g.C = ctx->cuda;
    if (mask) {
        const int gather = bsi_lu_dispatch((int)sizeof(R), BSI_OP_GETRF, (int)lu->n, 0, (int)lu->pivot,
                                           la.kind == BSOLVE_INTERLEAVED ? BSI_LU_LIST_IL : BSI_LU_LIST, ctx->force)
                               .gather;
        bsi_harr arr[4] = {{A, nullptr, la, lu->n, lu->n, sizeof(R)}, bsi_info_inout(info, lu->batch),
                           bsi_mask_arr(mask, lu->batch),
                           bsi_scratch_arr(lu->batch, bsi_masked_scratch(gather, (int)lu->n, sizeof(R)))};
        const bsolve_status s = bsi_run(ctx, "bsolve_getrf_masked",
                                        "A, info and mask must all be device or all host memory", lu->batch, arr, 4,
                                        bsi_masked_chunk<R, BSI_OP_GETRF>, &g);
        if (s == BSOLVE_ENOMEM && g.wfail)
            return bsi_fail(ctx, BSOLVE_ENOMEM,
                            "bsolve_getrf_masked: cannot allocate %zu bytes of device workspace to gather the flagged "
                            "systems",
                            g.wfail);
        return s;
    }
    bsi_harr arr[2] = {{A, nullptr, la, lu->n, lu->n, sizeof(R)}, bsi_info_arr(info, lu->batch)};
    return bsi_run(ctx, "bsolve_getrf", "A and info must both be device or both host memory", lu->batch, arr, 2,
                   bsi_getrf_chunk<R>, &g);
}

extern "C" bsolve_status bsi_cuda_getrf(bsolve_ctx *ctx, const void *A, bsolve_layout la, bsolve_lu *lu,
                                        const uint8_t *mask, int32_t *info)
{
    const bsi_on_device on_dev(ctx->cuda);
    return lu->prec == BSOLVE_PREC_D ? bsi_getrf_t<double>(ctx, A, la, lu, mask, info)
                                     : bsi_getrf_t<float>(ctx, A, la, lu, mask, info);
}

/* ---- getrs ---------------------------------------------------------------- */

template <typename R>
static cudaError_t bsi_getrs_chunk(void *user, int64_t k0, int64_t cnt, void *const *d, const bsolve_layout *l,
                                   cudaStream_t st)
{
    bsi_lu_call<R> *g = (bsi_lu_call<R> *)user;
    bsi_lu_args<R> a = g->a;
    bsi_factor_args<R>(a, g->lu, k0);
    a.B = (R *)d[0];
    a.vb = bsi_view_of(l[0], a.n);
    a.info = g->a.info ? (int32_t *)d[1] : nullptr;
    a.count = cnt;
    return bsi_launch_lu<R>(BSI_OP_GETRS, a, g->force, st);
}

template <typename R>
static bsolve_status bsi_getrs_t(bsolve_ctx *ctx, const bsolve_lu *lu, int64_t nrhs, void *B, bsolve_layout lb,
                                 const uint8_t *mask, int32_t *info)
{
    bsi_lu_call<R> g;
    memset(&g, 0, sizeof g);
    g.lu = lu;
    g.force = ctx->force;
    g.C = ctx->cuda;
    g.a.nrhs = (int)nrhs;
    g.a.info = info; /* only tested for NULL in the chunk function */
    if (mask) {
        bsi_harr arr[4] = {{B, B, lb, lu->n, nrhs, sizeof(R)}, bsi_info_inout(info, lu->batch),
                           bsi_mask_arr(mask, lu->batch), bsi_scratch_arr(lu->batch, bsi_masked_scratch(0, 0, 0))};
        return bsi_run(ctx, "bsolve_getrs_masked", "B, info and mask must all be device or all host memory",
                       lu->batch, arr, 4, bsi_masked_chunk<R, BSI_OP_GETRS>, &g);
    }
    bsi_harr arr[2] = {{B, B, lb, lu->n, nrhs, sizeof(R)}, bsi_info_arr(info, lu->batch)};
    return bsi_run(ctx, "bsolve_getrs", "B and info must both be device or both host memory", lu->batch, arr,
                   info ? 2 : 1, bsi_getrs_chunk<R>, &g);
}

extern "C" bsolve_status bsi_cuda_getrs(bsolve_ctx *ctx, const bsolve_lu *lu, int64_t nrhs, void *B,
                                        bsolve_layout lb, const uint8_t *mask, int32_t *info)
{
    const bsi_on_device on_dev(ctx->cuda);
    return lu->prec == BSOLVE_PREC_D ? bsi_getrs_t<double>(ctx, lu, nrhs, B, lb, mask, info)
                                     : bsi_getrs_t<float>(ctx, lu, nrhs, B, lb, mask, info);
}

/* ---- export ----------------------------------------------------------------
 * Chunks of systems are copied (ordered after the getrf on the context's
 * stream) into pinned memory, then converted on the CPU: entries into the
 * user's layout, L from LINPACK to LAPACK form (row interchange k applied to
 * columns 0..k-1), pivots 1-based. */
template <typename R>
static bsolve_status bsi_export_t(bsolve_ctx *ctx, const bsolve_lu *lu, R *LU, bsolve_layout l, int32_t *ipiv,
                                  int32_t *jpiv)
{
    const int n = (int)lu->n;
    const bsolve_pivot pv = lu->pivot;
    auto convert = [&](const char *const *h, int64_t k0, int64_t cnt, int nth) {
        const R *F = (const R *)h[0];
        const uint8_t *P = (const uint8_t *)h[1], *Q = (const uint8_t *)h[2];
#pragma omp parallel for num_threads(nth) schedule(static)
        for (int64_t s = 0; s < cnt; s++) {
            const int64_t k = k0 + s;
            if (LU) {
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < n; i++) LU[bsi_index(l, n, i, j, k)] = F[(i + (int64_t)j * n) * cnt + s];
                if (pv != BSOLVE_PIVOT_NONE)
                    for (int kk = 1; kk < n; kk++) {
                        const int p = P[(int64_t)kk * cnt + s];
                        if (p == kk) continue;
                        for (int j = 0; j < kk; j++) {
                            R *x = &LU[bsi_index(l, n, kk, j, k)], *y = &LU[bsi_index(l, n, p, j, k)];
                            const R t = *x;
                            *x = *y;
                            *y = t;
                        }
                    }
            }
            for (int i = 0; i < n; i++) {
                if (ipiv) ipiv[k * n + i] = pv == BSOLVE_PIVOT_NONE ? i + 1 : P[(int64_t)i * cnt + s] + 1;
                if (jpiv) jpiv[k * n + i] = pv == BSOLVE_PIVOT_FULL ? Q[(int64_t)i * cnt + s] + 1 : i + 1;
            }
        }
    };
    const bsi_farr arr[3] = {
        {LU ? lu->factors : nullptr, sizeof(R), (int64_t)n * n}, {lu->rowpiv, 1, n}, {lu->colpiv, 1, n}};
    return bsi_export_chunks(ctx, "bsolve_lu_export", lu->batch, lu->ld, arr, 3, convert);
}

extern "C" bsolve_status bsi_cuda_lu_export(bsolve_ctx *ctx, const bsolve_lu *lu, void *LU, bsolve_layout l,
                                            int32_t *ipiv, int32_t *jpiv)
{
    const bsi_on_device on_dev(ctx->cuda);
    return lu->prec == BSOLVE_PREC_D ? bsi_export_t<double>(ctx, lu, (double *)LU, l, ipiv, jpiv)
                                     : bsi_export_t<float>(ctx, lu, (float *)LU, l, ipiv, jpiv);
}
