/*
 * qr.cu -- the CUDA backend of the dense QR routines (gels, geqrf, geqrs,
 * qr_export): launches of the kernel that the dispatch table
 * (qr_dispatch.cuh) chooses, device-pointer and host-pointer paths,
 * factorization objects.  Kernels and the factor format: qr_team.cuh
 * (the reference), qr_reg.cuh and qr_warp.cuh (small-shape kernels),
 * qr_pair.cuh (the team kernel's steps in pairs) and qr_hh.cuh (FP64 gels
 * with nrhs = 1 by Householder reflections).
 *
 * Pointers: all device (or managed) memory -> kernels run on the context's
 * stream straight on the user's arrays; all host memory -> the context's
 * pinned 3-stream pipeline (hostpath.cuh), chunks in the compact form of
 * the user's layout kind.  Mixed kinds are refused.  qr_export writes host
 * memory: the factors are copied to pinned memory chunk by chunk and Q is
 * formed on the CPU (as lu_export converts its pivots there).
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "common.cuh"
#include "hostpath.cuh"
#include "qr_dispatch.cuh"
#include "qr_hh.cuh"
#include "qr_reg.cuh"
#include "qr_pair.cuh"
#include "qr_team.cuh"
#include "qr_warp.cuh"

/* ---- team kernel (qr_team.cuh) ------------------------------------------------ */

template <typename R, int T, int OP> static cudaError_t bsq_launch_t(const bsq_args<R> &a, const bsq_geom &g, cudaStream_t st)
{
    if (g.smem > (48 << 10)) {
        cudaError_t e = cudaFuncSetAttribute(bsq_k_team<R, T, OP>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)g.smem);
        if (e != cudaSuccess) return e;
    }
    const int64_t per = T > 32 ? 1 : (int64_t)g.wpb * (32 / T);
    const int64_t blocks = (a.count + per - 1) / per;
    bsq_k_team<R, T, OP><<<(unsigned)blocks, g.wpb * 32, g.smem, st>>>(a);
    return cudaGetLastError();
}

template <typename R, int OP> static cudaError_t bsq_launch_team(bsq_args<R> a, const bsq_geom &g, cudaStream_t st)
{
    a.nbp = g.nbp;
    a.ldm = g.ldm;
    a.mstride = g.mstride;
    switch (g.T) {
    case 1: return bsq_launch_t<R, 1, OP>(a, g, st);
    case 2: return bsq_launch_t<R, 2, OP>(a, g, st);
    case 4: return bsq_launch_t<R, 4, OP>(a, g, st);
    case 8: return bsq_launch_t<R, 8, OP>(a, g, st);
    case 16: return bsq_launch_t<R, 16, OP>(a, g, st);
    case 32: return bsq_launch_t<R, 32, OP>(a, g, st);
    case 64: return bsq_launch_t<R, 64, OP>(a, g, st);
    case 128: return bsq_launch_t<R, 128, OP>(a, g, st);
    default: return bsq_launch_t<R, 256, OP>(a, g, st);
    }
}

/* ---- register kernel (qr_reg.cuh) ---------------------------------------------- */

template <typename R, int M, int N, int OP>
static cudaError_t bsq_launch_reg_t(const bsq_args<R> &a, bool wave, cudaStream_t st)
{
    const unsigned blocks = (unsigned)((a.count + 127) / 128);
    if constexpr (sizeof(R) == 8 && OP == BSQ_GELS && M > 4) { /* the only instantiations of the wavefront copy */
        if (wave) {
            bsq_k_regw<R, M, N><<<blocks, 128, 0, st>>>(a);
            return cudaGetLastError();
        }
    }
    bsq_k_reg<R, M, N, OP><<<blocks, 128, 0, st>>>(a);
    return cudaGetLastError();
}

template <typename R, int OP> static cudaError_t bsq_launch_reg(const bsq_args<R> &a, const bsq_choice &c, cudaStream_t st)
{
    const bool wave = c.family == BSQ_K_REGW;
    switch (c.M * 64 + c.N) {
    case 4 * 64 + 4: return bsq_launch_reg_t<R, 4, 4, OP>(a, wave, st);
    case 8 * 64 + 4: return bsq_launch_reg_t<R, 8, 4, OP>(a, wave, st);
    case 12 * 64 + 4: return bsq_launch_reg_t<R, 12, 4, OP>(a, wave, st);
    case 16 * 64 + 4: return bsq_launch_reg_t<R, 16, 4, OP>(a, wave, st);
    case 8 * 64 + 8: return bsq_launch_reg_t<R, 8, 8, OP>(a, wave, st);
    default:
        if constexpr (sizeof(R) == 4) {
            switch (c.M * 64 + c.N) {
            case 12 * 64 + 8: return bsq_launch_reg_t<R, 12, 8, OP>(a, wave, st);
            case 16 * 64 + 8: return bsq_launch_reg_t<R, 16, 8, OP>(a, wave, st);
            case 12 * 64 + 12: return bsq_launch_reg_t<R, 12, 12, OP>(a, wave, st);
            default: break;
            }
        }
        return cudaErrorInvalidValue;
    }
}

/* ---- column-per-lane kernel (qr_warp.cuh) --------------------------------------- */

BSQ_WARP_BUCKETS(BSQ_WARP_EXTERN, double)
BSQ_WARP_BUCKETS(BSQ_WARP_EXTERN, float)
BSQ_WARP_BUCKETS_D(BSQ_WARP_EXTERN)
BSQ_WARP_BUCKETS_DV(BSQ_WARP_EXTERN)

/* The launch of bucket (M, L, C) whose lanes load A as LD says (the pair
 * loads are built for FP64 at M <= 32 with one column per lane, the two
 * columns per lane for FP64 at M = 16) */
template <typename R, int LD>
static cudaError_t bsq_launch_warp_ld(const bsq_args<R> &a, const bsq_choice &c, cudaStream_t st)
{
    const bool full = c.full != 0;
    switch (c.M * 256 + c.L * 4 + c.C) {
    case 16 * 256 + 8 * 4 + 1: return bsq_launch_warp_t<R, 16, 8, 1, LD>(a, full, st);
    case 16 * 256 + 16 * 4 + 1: return bsq_launch_warp_t<R, 16, 16, 1, LD>(a, full, st);
    case 32 * 256 + 8 * 4 + 1: return bsq_launch_warp_t<R, 32, 8, 1, LD>(a, full, st);
    case 32 * 256 + 16 * 4 + 1: return bsq_launch_warp_t<R, 32, 16, 1, LD>(a, full, st);
    case 32 * 256 + 32 * 4 + 1: return bsq_launch_warp_t<R, 32, 32, 1, LD>(a, full, st);
    default: break;
    }
    if constexpr (LD == BSQ_LD_ROW) {
        switch (c.M * 256 + c.L * 4 + c.C) {
        case 64 * 256 + 8 * 4 + 1: return bsq_launch_warp_t<R, 64, 8, 1, LD>(a, full, st);
        case 64 * 256 + 16 * 4 + 1: return bsq_launch_warp_t<R, 64, 16, 1, LD>(a, full, st);
        case 64 * 256 + 32 * 4 + 1: return bsq_launch_warp_t<R, 64, 32, 1, LD>(a, full, st);
        default: break;
        }
        if constexpr (sizeof(R) == 8)
            if (c.M == 16 && c.L == 4 && c.C == 2) return bsq_launch_warp_t<R, 16, 4, 2, LD>(a, full, st);
    }
    return cudaErrorInvalidValue;
}

template <typename R> static cudaError_t bsq_launch_warp(const bsq_args<R> &a, const bsq_choice &c, cudaStream_t st)
{
    if constexpr (sizeof(R) == 8)
        if (c.ld_pair) return bsq_launch_warp_ld<R, BSQ_LD_PAIR>(a, c, st);
    return bsq_launch_warp_ld<R, BSQ_LD_ROW>(a, c, st);
}

/* ---- the dispatch ------------------------------------------------------------- */

template <typename R, int OP> static cudaError_t bsq_launch(const bsq_args<R> &a, const int *force, cudaStream_t st)
{
    if (a.count <= 0) return cudaSuccess;
    const bsq_choice c = bsq_dispatch((int)sizeof(R), OP, a.m, a.n, a.nrhs, a.a_il, bsq_ld_pair_ok(a), force);
    switch (c.family) {
    case BSQ_K_REG:
    case BSQ_K_REGW: return bsq_launch_reg<R, OP>(a, c, st);
    case BSQ_K_WARP: return bsq_launch_warp<R>(a, c, st);
    case BSQ_K_HH:
        if constexpr (sizeof(R) == 8) return bsq_launch_hh<R>(a, c, st);
        return cudaErrorInvalidValue;
    case BSQ_K_PAIR:
        if constexpr (sizeof(R) == 8) return bsq_launch_pair<R>(a, c, st);
        return cudaErrorInvalidValue;
    default: return bsq_launch_team<R, OP>(a, c.g, st);
    }
}

template <typename R> static cudaError_t bsq_launch_geqrs(const bsq_args<R> &a, const int *force, cudaStream_t st)
{
    if (a.count <= 0) return cudaSuccess;
    const bsq_choice c = bsq_dispatch((int)sizeof(R), BSQ_GEQRS, a.m, a.n, a.nrhs, 0, 0, force);
    const unsigned blocks = (unsigned)((a.count + 127) / 128);
    if (c.M == 32) bsq_k_geqrs<R, 32><<<blocks, 128, 0, st>>>(a);
    else bsq_k_geqrs<R, BSOLVE_QR_MAX_M><<<blocks, 128, 0, st>>>(a);
    return cudaGetLastError();
}

/* ---- helpers ------------------------------------------------------------------ */

static int64_t bsq_nrot(int64_t m, int64_t n) { return n * (m - 1) - n * (n - 1) / 2; }
static int64_t bsq_fe(int64_t m, int64_t n) { return n * n + 2 * bsq_nrot(m, n) + n + 1; }

template <typename R> static void bsq_factor_args(bsq_args<R> &a, const bsolve_qr *qr, int64_t k0)
{
    a.F = (R *)qr->f + k0;
    a.fld = qr->ld;
    a.finfo = qr->info + k0;
    a.m = (int)qr->m;
    a.n = (int)qr->n;
}

/* ---- gels ----------------------------------------------------------------------- */

/* What a call's chunk functions share: the kernel arguments so far, the
 * factorization object (geqrf, geqrs) and the context's forced choices. */
template <typename R> struct bsq_call {
    bsq_args<R> a;
    const bsolve_qr *qr;
    const int *force;
};

template <typename R>
static cudaError_t bsq_gels_chunk(void *user, int64_t, int64_t cnt, void *const *d, const bsolve_layout *l,
                                  cudaStream_t st)
{
    bsq_call<R> *g = (bsq_call<R> *)user;
    bsq_args<R> a = g->a;
    a.A = (const R *)d[0];
    a.va = bsi_make_view(l[0], a.m);
    a.B = (R *)d[1];
    a.vb = bsi_make_view(l[1], a.m);
    a.info = (int32_t *)d[2];
    a.count = cnt;
    return bsq_launch<R, BSQ_GELS>(a, g->force, st);
}

template <typename R>
static bsolve_status bsq_gels_t(bsolve_ctx *ctx, int64_t m, int64_t n, int64_t nrhs, int64_t batch, const void *A,
                                bsolve_layout la, void *B, bsolve_layout lb, int32_t *info)
{
    if (batch == 0) return BSOLVE_SUCCESS;
    bsq_call<R> g;
    memset(&g, 0, sizeof g);
    g.force = ctx->force;
    g.a.m = (int)m;
    g.a.n = (int)n;
    g.a.nrhs = (int)nrhs;
    g.a.a_il = la.kind == BSOLVE_INTERLEAVED; /* a chunk keeps the layout kind */
    g.a.b_il = lb.kind == BSOLVE_INTERLEAVED;
    g.a.nsm = ctx->cuda->nsm;
    bsi_harr arr[3] = {{A, nullptr, la, m, n, sizeof(R)}, {B, B, lb, m, nrhs, sizeof(R)}, bsi_info_arr(info, batch)};
    return bsi_run(ctx, "bsolve_gels", "A, B and info must all be device or all host memory", batch, arr, 3,
                   bsq_gels_chunk<R>, &g);
}

extern "C" bsolve_status bsi_cuda_gels(bsolve_ctx *ctx, bsolve_precision prec, int64_t m, int64_t n, int64_t nrhs,
                                       int64_t batch, const void *A, bsolve_layout la, void *B, bsolve_layout lb,
                                       int32_t *info)
{
    const bsi_on_device on_dev(ctx->cuda);
    return prec == BSOLVE_PREC_D ? bsq_gels_t<double>(ctx, m, n, nrhs, batch, A, la, B, lb, info)
                                 : bsq_gels_t<float>(ctx, m, n, nrhs, batch, A, la, B, lb, info);
}

/* ---- factorization objects ---------------------------------------------------- */

extern "C" bsolve_status bsi_cuda_qr_alloc(bsolve_ctx *ctx, bsolve_qr *qr)
{
    const bsi_on_device on_dev(ctx->cuda);
    const size_t es = bsi_elem_size(qr->prec);
    qr->f = nullptr;
    qr->info = nullptr;
    const int64_t fe = bsq_fe(qr->m, qr->n);
    if ((double)fe * ((double)qr->batch + 32) * es > 9.0e18)
        return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_qr_create: %lld systems of %lld x %lld do not fit in device memory",
                        (long long)qr->batch, (long long)qr->m, (long long)qr->n);
    const int64_t ld = qr->batch > 0 ? (qr->batch + 31) / 32 * 32 : 32;
    cudaError_t e = cudaMalloc(&qr->f, (size_t)(fe * ld) * es);
    if (e == cudaSuccess) e = cudaMalloc((void **)&qr->info, (size_t)ld * sizeof(int32_t));
    if (e != cudaSuccess) {
        bsi_cuda_qr_free(qr);
        return bsi_cuda_err(ctx, e, "bsolve_qr_create");
    }
    qr->ld = ld;
    return BSOLVE_SUCCESS;
}

extern "C" void bsi_cuda_qr_free(bsolve_qr *qr)
{
    const bsi_on_device on_dev(qr->owner ? qr->owner->cuda : nullptr);
    if (qr->f) cudaFree(qr->f);
    if (qr->info) cudaFree(qr->info);
    qr->f = nullptr;
    qr->info = nullptr;
    (void)cudaGetLastError();
}

/* ---- geqrf ---------------------------------------------------------------------- */

template <typename R>
static cudaError_t bsq_geqrf_chunk(void *user, int64_t k0, int64_t cnt, void *const *d, const bsolve_layout *l,
                                   cudaStream_t st)
{
    bsq_call<R> *g = (bsq_call<R> *)user;
    bsq_args<R> a = g->a;
    bsq_factor_args<R>(a, g->qr, k0);
    a.A = (const R *)d[0];
    a.va = bsi_make_view(l[0], a.m);
    a.info = (int32_t *)d[1];
    a.count = cnt;
    return bsq_launch<R, BSQ_GEQRF>(a, g->force, st);
}

template <typename R>
static bsolve_status bsq_geqrf_t(bsolve_ctx *ctx, const void *A, bsolve_layout la, bsolve_qr *qr, int32_t *info)
{
    bsq_call<R> g;
    memset(&g, 0, sizeof g);
    g.force = ctx->force;
    g.qr = qr;
    g.a.a_il = la.kind == BSOLVE_INTERLEAVED;
    bsi_harr arr[2] = {{A, nullptr, la, qr->m, qr->n, sizeof(R)}, bsi_info_arr(info, qr->batch)};
    return bsi_run(ctx, "bsolve_geqrf", "A and info must both be device or both host memory", qr->batch, arr, 2,
                   bsq_geqrf_chunk<R>, &g);
}

extern "C" bsolve_status bsi_cuda_geqrf(bsolve_ctx *ctx, const void *A, bsolve_layout la, bsolve_qr *qr, int32_t *info)
{
    const bsi_on_device on_dev(ctx->cuda);
    return qr->prec == BSOLVE_PREC_D ? bsq_geqrf_t<double>(ctx, A, la, qr, info)
                                     : bsq_geqrf_t<float>(ctx, A, la, qr, info);
}

/* ---- geqrs ---------------------------------------------------------------------- */

template <typename R>
static cudaError_t bsq_geqrs_chunk(void *user, int64_t k0, int64_t cnt, void *const *d, const bsolve_layout *l,
                                   cudaStream_t st)
{
    bsq_call<R> *g = (bsq_call<R> *)user;
    bsq_args<R> a = g->a;
    bsq_factor_args<R>(a, g->qr, k0);
    a.B = (R *)d[0];
    a.vb = bsi_make_view(l[0], a.m);
    a.info = g->a.info ? (int32_t *)d[1] : nullptr;
    a.count = cnt;
    return bsq_launch_geqrs<R>(a, g->force, st);
}

template <typename R>
static bsolve_status bsq_geqrs_t(bsolve_ctx *ctx, const bsolve_qr *qr, int64_t nrhs, void *B, bsolve_layout lb,
                                 int32_t *info)
{
    bsq_call<R> g;
    memset(&g, 0, sizeof g);
    g.force = ctx->force;
    g.qr = qr;
    g.a.nrhs = (int)nrhs;
    g.a.info = info; /* only tested for NULL in the chunk function */
    bsi_harr arr[2] = {{B, B, lb, qr->m, nrhs, sizeof(R)}, bsi_info_arr(info, qr->batch)};
    return bsi_run(ctx, "bsolve_geqrs", "B and info must both be device or both host memory", qr->batch, arr,
                   info ? 2 : 1, bsq_geqrs_chunk<R>, &g);
}

extern "C" bsolve_status bsi_cuda_geqrs(bsolve_ctx *ctx, const bsolve_qr *qr, int64_t nrhs, void *B,
                                        bsolve_layout lb, int32_t *info)
{
    const bsi_on_device on_dev(ctx->cuda);
    return qr->prec == BSOLVE_PREC_D ? bsq_geqrs_t<double>(ctx, qr, nrhs, B, lb, info)
                                     : bsq_geqrs_t<float>(ctx, qr, nrhs, B, lb, info);
}

/* ---- export ------------------------------------------------------------------------
 * Chunks of the factors are copied (ordered after the geqrf on the
 * context's stream) into pinned memory; Q = G_1^T G_2^T ... is formed on
 * the CPU from the identity, each rotation applied to a pair of columns in
 * column order, exactly as the CPU backend's export; R is unscaled by sa. */
template <typename R>
static bsolve_status bsq_export_t(bsolve_ctx *ctx, const bsolve_qr *qr, R *Q, bsolve_layout lq, R *Rm, bsolve_layout lr)
{
    const int m = (int)qr->m, n = (int)qr->n;
    const int64_t fe = bsq_fe(m, n), RO = (int64_t)n * n, RD = RO + 2 * bsq_nrot(m, n);
    auto convert = [&](const char *const *h, int64_t k0, int64_t cnt, int nth) {
        const R *pin = (const R *)h[0];
#pragma omp parallel num_threads(nth)
        {
            std::vector<R> q(Q ? (size_t)m * m : 0);
#pragma omp for schedule(static)
            for (int64_t s = 0; s < cnt; s++) {
                const int64_t k = k0 + s;
                auto F = [&](int64_t e) { return pin[e * cnt + s]; };
                if (Q) {
                    for (int j = 0; j < m; j++)
                        for (int i = 0; i < m; i++) q[i + (size_t)j * m] = i == j;
                    int64_t g = RO;
                    for (int j = 0; j < n; j++)
                        for (int i = m - 1; i > j; i--, g += 2) {
                            const R c = F(g), sn = F(g + 1);
                            R *a = &q[(size_t)(i - 1) * m], *b = &q[(size_t)i * m];
                            for (int r = 0; r < m; r++) {
                                const R x = a[r], y = b[r];
                                a[r] = c * x + sn * y;
                                b[r] = c * y - sn * x;
                            }
                        }
                    for (int j = 0; j < m; j++)
                        for (int i = 0; i < m; i++) Q[bsi_index(lq, m, i, j, k)] = q[i + (size_t)j * m];
                }
                if (Rm) {
                    const R sa = F(RD + n);
                    for (int j = 0; j < n; j++)
                        for (int i = 0; i < n; i++)
                            Rm[bsi_index(lr, n, i, j, k)] = i <= j ? F(i + (int64_t)j * n) * sa : R(0);
                }
            }
        }
    };
    const bsi_farr f = {qr->f, sizeof(R), fe};
    return bsi_export_chunks(ctx, "bsolve_qr_export", qr->batch, qr->ld, &f, 1, convert);
}

extern "C" bsolve_status bsi_cuda_qr_export(bsolve_ctx *ctx, const bsolve_qr *qr, void *Q, bsolve_layout lq, void *R,
                                            bsolve_layout lr)
{
    const bsi_on_device on_dev(ctx->cuda);
    return qr->prec == BSOLVE_PREC_D ? bsq_export_t<double>(ctx, qr, (double *)Q, lq, (double *)R, lr)
                                     : bsq_export_t<float>(ctx, qr, (float *)Q, lq, (float *)R, lr);
}
