/*
 * context.cu -- the CUDA backend's state: device detection, stream.
 * (Kernels arrive in the CUDA backend issue; until then every operation
 * reports BSOLVE_ENOTSUP.)
 */
#include <cuda_runtime.h>
#include <new>
#include "internal.h"

struct bsi_cuda {
    int device;
    cudaStream_t stream;
};

extern "C" int bsi_cuda_available(void)
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

extern "C" bsolve_status bsi_cuda_init(bsolve_ctx *ctx)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return bsi_fail(ctx, BSOLVE_ENODEVICE, "no usable CUDA device: %s",
                        e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
    bsi_cuda *c = new (std::nothrow) bsi_cuda();
    if (!c) return bsi_fail(ctx, BSOLVE_ENOMEM, "out of host memory");
    cudaGetDevice(&c->device);
    c->stream = 0;
    ctx->cuda = c;
    return BSOLVE_SUCCESS;
}

extern "C" void bsi_cuda_fini(bsolve_ctx *ctx)
{
    delete ctx->cuda;
    ctx->cuda = nullptr;
}

#define NOTYET return bsi_fail(ctx, BSOLVE_ENOTSUP, "%s: not implemented on the CUDA backend yet", __func__)
extern "C" bsolve_status bsi_cuda_set_stream(bsolve_ctx *ctx, void *s) { ctx->cuda->stream = (cudaStream_t)s; return BSOLVE_SUCCESS; }
extern "C" bsolve_status bsi_cuda_synchronize(bsolve_ctx *ctx)
{
    cudaError_t e = cudaStreamSynchronize(ctx->cuda->stream);
    return e == cudaSuccess ? BSOLVE_SUCCESS : bsi_fail(ctx, BSOLVE_EDEVICE, "%s", cudaGetErrorString(e));
}
extern "C" bsolve_status bsi_cuda_convert(bsolve_ctx *ctx, bsolve_precision, int64_t, int64_t, int64_t,
                                          const void *, bsolve_layout, void *, bsolve_layout) { NOTYET; }
extern "C" bsolve_status bsi_cuda_gesv(bsolve_ctx *ctx, bsolve_precision, bsolve_pivot, int64_t, int64_t,
                                       int64_t, const void *, bsolve_layout, void *, bsolve_layout, int32_t *) { NOTYET; }
extern "C" bsolve_status bsi_cuda_lu_alloc(bsolve_ctx *ctx, bsolve_lu *) { NOTYET; }
extern "C" void bsi_cuda_lu_free(bsolve_lu *) {}
extern "C" bsolve_status bsi_cuda_getrf(bsolve_ctx *ctx, const void *, bsolve_layout, bsolve_lu *, int32_t *) { NOTYET; }
extern "C" bsolve_status bsi_cuda_getrs(bsolve_ctx *ctx, const bsolve_lu *, int64_t, void *, bsolve_layout, int32_t *) { NOTYET; }
extern "C" bsolve_status bsi_cuda_lu_export(bsolve_ctx *ctx, const bsolve_lu *, void *, bsolve_layout, int32_t *, int32_t *) { NOTYET; }
