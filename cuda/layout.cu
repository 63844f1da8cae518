/*
 * layout.cu -- bsolve_?convert on the CUDA backend: any pair of layouts,
 * host or device memory.
 *
 * Device kernel: a block moves a tile of 32 systems x 32 entries through
 * shared memory.  Entries are numbered in the natural order of the
 * non-interleaved side (column order for COL_MAJOR, row order for
 * ROW_MAJOR), so that the side that is contiguous along the systems
 * (INTERLEAVED) is read or written with lanes along the systems, and the
 * other side with lanes along the entries: both coalesced.
 */
#include <string.h>

#include "common.cuh"
#include "hostpath.cuh"

#define BSI_CT 32

template <typename R>
__global__ void __launch_bounds__(BSI_CT * 8) bsi_k_convert(int r, int c, int64_t batch, const R *src, bsi_view vs,
                                                           R *dst, bsi_view vd, int roword)
{
    __shared__ R tile[BSI_CT][BSI_CT + 1]; /* [entry][system] */
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t k0 = (int64_t)blockIdx.x * BSI_CT;
    const int e0 = blockIdx.y * BSI_CT, E = r * c;
    auto ij = [&](int e, int &i, int &j) {
        if (roword) { i = e / c; j = e - i * c; }
        else { j = e / r; i = e - j * r; }
    };
    /* one side through the tile: lanes along the systems where that side
     * is interleaved (ks == 1), else along its entries; f(tile slot, offset) */
    auto walk = [&](const bsi_view &v, auto f) {
        const bool il = v.ks == 1;
        for (int q = ty; q < BSI_CT; q += 8) {
            const int a = il ? q : tx, b = il ? tx : q; /* tile[entry a][system b] */
            const int e = e0 + a;
            const int64_t k = k0 + b;
            if (e < E && k < batch) {
                int i, j;
                ij(e, i, j);
                f(tile[a][b], k * v.ks + i * v.is + j * v.js);
            }
        }
    };
    walk(vs, [&](R &t, int64_t o) { t = src[o]; });
    __syncthreads();
    walk(vd, [&](R &t, int64_t o) { dst[o] = t; });
}

/* roword: number the entries in row order when the non-interleaved side is
 * row-major (vs.js == 1 with vs.is != 1 means row-major contiguous rows). */
template <typename R>
cudaError_t bsi_launch_convert(int64_t r, int64_t c, int64_t batch, const R *src, bsi_view vs, R *dst, bsi_view vd,
                               cudaStream_t st)
{
    if (batch <= 0) return cudaSuccess;
    const bsi_view &side = vs.ks != 1 ? vs : vd;
    const int roword = side.ks != 1 && side.js == 1 && side.is != 1;
    dim3 grid((unsigned)((batch + BSI_CT - 1) / BSI_CT), (unsigned)((r * c + BSI_CT - 1) / BSI_CT));
    bsi_k_convert<R><<<grid, dim3(BSI_CT, 8), 0, st>>>((int)r, (int)c, batch, src, vs, dst, vd, roword);
    return cudaGetLastError();
}

template cudaError_t bsi_launch_convert<double>(int64_t, int64_t, int64_t, const double *, bsi_view, double *,
                                                bsi_view, cudaStream_t);
template cudaError_t bsi_launch_convert<float>(int64_t, int64_t, int64_t, const float *, bsi_view, float *,
                                               bsi_view, cudaStream_t);

/* ---- host-memory sides ----------------------------------------------------- */

template <typename R>
static void bsi_convert_host(const bsolve_ctx *ctx, int64_t r, int64_t c, int64_t batch, const R *src,
                             bsolve_layout ls, R *dst, bsolve_layout ld)
{
    const int nth = bsi_host_threads(ctx);
#pragma omp parallel for num_threads(nth) schedule(static)
    for (int64_t k = 0; k < batch; k++)
        for (int64_t j = 0; j < c; j++)
            for (int64_t i = 0; i < r; i++) dst[bsi_index(ld, r, i, j, k)] = src[bsi_index(ls, r, i, j, k)];
}

template <typename R>
static bsolve_status bsi_convert_t(bsolve_ctx *ctx, int64_t r, int64_t c, int64_t batch, const R *src,
                                   bsolve_layout ls, R *dst, bsolve_layout ld)
{
    static const char fn[] = "bsolve_convert";
    bsi_cuda *C = ctx->cuda;
    const int sd = bsi_is_device_ptr(src), dd = bsi_is_device_ptr(dst);
    if (sd && dd) {
        BSI_CUDA_TRY(ctx, bsi_launch_convert<R>(r, c, batch, src, bsi_make_view(ls, r), dst, bsi_make_view(ld, r),
                                                C->stream), fn);
        return BSOLVE_SUCCESS;
    }
    if (!sd && !dd) {
        BSI_CUDA_TRY(ctx, cudaStreamSynchronize(C->stream), fn); /* earlier device work may produce src */
        bsi_convert_host<R>(ctx, r, c, batch, src, ls, dst, ld);
        return BSOLVE_SUCCESS;
    }
    /* one side on the host: chunks through pinned memory in the host side's
     * compact layout, converted on the device */
    const size_t per = (size_t)(r * c) * sizeof(R);
    int64_t cmax = (int64_t)(((size_t)32 << 20) / per);
    cmax = cmax < 32 ? 32 : cmax;
    if (cmax > batch) cmax = batch;
    char *pin = (char *)bsi_dbuf_get(&C->slot[0].pin, per * (size_t)cmax, 1);
    R *dev = (R *)bsi_dbuf_get(&C->slot[0].dev, per * (size_t)cmax, 0);
    if (!pin || !dev) return bsi_fail(ctx, BSOLVE_ENOMEM, "%s: cannot allocate staging memory", fn);
    cudaStream_t st = C->stream;
    for (int64_t k0 = 0; k0 < batch; k0 += cmax) {
        const int64_t cnt = batch - k0 < cmax ? batch - k0 : cmax;
        if (!sd) {
            const bsolve_layout lc = bsi_compact(ls.kind, r, c, cnt);
            bsi_host_xfer(ctx, 0, (char *)src, ls, pin, r, c, k0, cnt, sizeof(R));
            BSI_CUDA_TRY(ctx, cudaMemcpyAsync(dev, pin, per * (size_t)cnt, cudaMemcpyHostToDevice, st), fn);
            BSI_CUDA_TRY(ctx, bsi_launch_convert<R>(r, c, cnt, dev, bsi_make_view(lc, r), dst + bsi_sys_offset(ld, k0),
                                                    bsi_make_view(ld, r), st), fn);
            BSI_CUDA_TRY(ctx, cudaStreamSynchronize(st), fn);
        } else {
            const bsolve_layout lc = bsi_compact(ld.kind, r, c, cnt);
            BSI_CUDA_TRY(ctx, bsi_launch_convert<R>(r, c, cnt, src + bsi_sys_offset(ls, k0), bsi_make_view(ls, r),
                                                    dev, bsi_make_view(lc, r), st), fn);
            BSI_CUDA_TRY(ctx, cudaMemcpyAsync(pin, dev, per * (size_t)cnt, cudaMemcpyDeviceToHost, st), fn);
            BSI_CUDA_TRY(ctx, cudaStreamSynchronize(st), fn);
            bsi_host_xfer(ctx, 1, (char *)dst, ld, pin, r, c, k0, cnt, sizeof(R));
        }
    }
    return BSOLVE_SUCCESS;
}

extern "C" bsolve_status bsi_cuda_convert(bsolve_ctx *ctx, bsolve_precision prec, int64_t r, int64_t c,
                                          int64_t batch, const void *src, bsolve_layout lsrc, void *dst,
                                          bsolve_layout ldst)
{
    const bsi_on_device on_dev(ctx->cuda);
    return prec == BSOLVE_PREC_D
               ? bsi_convert_t<double>(ctx, r, c, batch, (const double *)src, lsrc, (double *)dst, ldst)
               : bsi_convert_t<float>(ctx, r, c, batch, (const float *)src, lsrc, (float *)dst, ldst);
}
