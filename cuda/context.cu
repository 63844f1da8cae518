/*
 * context.cu -- the CUDA backend's state: device detection, the user's
 * stream, growable device/pinned buffers, host/device pointer detection and
 * the host-memory pipeline.
 *
 * Host-memory calls stream the batch through BSI_NSTREAMS slots, each with a
 * pinned staging buffer, a device buffer and its own non-blocking stream:
 * while the GPU copies in, solves and copies out chunk c on slot c % 3, the
 * CPU (OpenMP threads) packs chunk c+1 from the user's arrays into pinned
 * memory and unpacks chunk c-2's results.  Staged data keep the user's
 * layout kind, compacted (no gaps), so that only entries are ever written
 * back to the user's arrays; the solve kernels read that layout coalesced
 * themselves.  Buffers grow on demand and are kept: repeated calls of one
 * shape allocate nothing.
 */
#include <omp.h>
#include <string.h>
#include <new>

#include "common.cuh"
#include "hostpath.cuh"

bsolve_status bsi_cuda_err(bsolve_ctx *ctx, cudaError_t e, const char *what)
{
    (void)cudaGetLastError(); /* clear a non-sticky error */
    return bsi_fail(ctx, e == cudaErrorMemoryAllocation ? BSOLVE_ENOMEM : BSOLVE_EDEVICE, "%s: CUDA error: %s",
                    what, cudaGetErrorString(e));
}

void *bsi_dbuf_get(bsi_dbuf *b, size_t bytes, int pinned)
{
    if (bytes == 0) bytes = 1;
    if (b->p && b->bytes >= bytes) return b->p;
    if (b->p) {
        if (pinned) cudaFreeHost(b->p);
        else cudaFree(b->p);
        b->p = nullptr;
        b->bytes = 0;
    }
    bytes = (bytes + 4095) / 4096 * 4096;
    cudaError_t e = pinned ? cudaMallocHost(&b->p, bytes) : cudaMalloc(&b->p, bytes);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        b->p = nullptr;
        return nullptr;
    }
    b->bytes = bytes;
    return b->p;
}

static void bsi_dbuf_free(bsi_dbuf *b, int pinned)
{
    if (b->p) {
        if (pinned) cudaFreeHost(b->p);
        else cudaFree(b->p);
    }
    b->p = nullptr;
    b->bytes = 0;
}

int bsi_is_device_ptr(const void *p)
{
    cudaPointerAttributes at;
    if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return at.type == cudaMemoryTypeDevice || at.type == cudaMemoryTypeManaged;
}

/* 1: every non-NULL pointer is device memory, 0: all host (or none given),
 * -1: mixed. */
static int bsi_kind_of(const void *const *p, int np)
{
    int kind = -2;
    for (int i = 0; i < np; i++) {
        if (!p[i]) continue;
        const int k = bsi_is_device_ptr(p[i]);
        if (kind == -2) kind = k;
        else if (kind != k) return -1;
    }
    return kind < 0 ? 0 : kind;
}

/* ---- device checks ---------------------------------------------------------- */

/* The Makefile names the GPU code it compiled (CUDA_ARCHS) so that a device
 * that cannot run it is told what the build holds. */
#ifndef BSI_CUDA_ARCH_LIST
#define BSI_CUDA_ARCH_LIST "(not recorded)"
#endif

extern "C" const char *bsi_cuda_build_archs(void) { return BSI_CUDA_ARCH_LIST; }

/* Does nothing: whether it loads on the device says whether this build holds
 * code the device can run (every file is compiled for the same architectures),
 * and its attributes say which virtual architecture that code was compiled for. */
__global__ void bsi_probe_kernel() {}

/* Records the device's compute capability and limits in c, and fails with the
 * reason where this build's kernels cannot run on it. */
static bsolve_status bsi_cuda_check_device(bsolve_ctx *ctx, bsi_cuda *c)
{
    int major = 0, minor = 0;
    cudaError_t e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, c->device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, c->device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&c->nsm, cudaDevAttrMultiProcessorCount, c->device);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&c->smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, c->device);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return bsi_fail(ctx, BSOLVE_ENODEVICE, "CUDA device %d unusable: %s", c->device, cudaGetErrorString(e));
    }
    c->cc = major * 10 + minor;
    cudaFuncAttributes fa;
    e = cudaFuncGetAttributes(&fa, bsi_probe_kernel);
    if (e == cudaSuccess) {
        c->code_arch = fa.ptxVersion;
        return BSOLVE_SUCCESS;
    }
    (void)cudaGetLastError();
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction)
        return bsi_fail(ctx, BSOLVE_ENODEVICE,
                        "no kernel image for compute capability %d.%d in this build (built for %s)", major, minor,
                        BSI_CUDA_ARCH_LIST);
    if (e == cudaErrorUnsupportedPtxVersion || e == cudaErrorInvalidPtx || e == cudaErrorJitCompilerNotFound ||
        e == cudaErrorJitCompilationDisabled)
        return bsi_fail(ctx, BSOLVE_ENODEVICE,
                        "this build's GPU code (%s) cannot be compiled for compute capability %d.%d by the driver: %s",
                        BSI_CUDA_ARCH_LIST, major, minor, cudaGetErrorString(e));
    return bsi_fail(ctx, BSOLVE_ENODEVICE, "CUDA device %d (compute capability %d.%d) unusable: %s", c->device,
                    major, minor, cudaGetErrorString(e));
}

extern "C" int bsi_cuda_available(void)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) (void)cudaGetLastError();
    return e == cudaSuccess && count > 0;
}

extern "C" bsolve_status bsi_cuda_init(bsolve_ctx *ctx)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        return bsi_fail(ctx, BSOLVE_ENODEVICE, "no usable CUDA device: %s",
                        e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
    }
    bsi_cuda *c = new (std::nothrow) bsi_cuda();
    if (!c) return bsi_fail(ctx, BSOLVE_ENOMEM, "out of host memory");
    memset(c, 0, sizeof *c);
    cudaGetDevice(&c->device);
    const bsolve_status st = bsi_cuda_check_device(ctx, c);
    if (st != BSOLVE_SUCCESS) {
        delete c;
        return st;
    }
    c->stream = 0;
    e = cudaEventCreateWithFlags(&c->order, cudaEventDisableTiming);
    for (int s = 0; s < BSI_NSTREAMS && e == cudaSuccess; s++) {
        e = cudaStreamCreateWithFlags(&c->slot[s].stream, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&c->slot[s].done, cudaEventDisableTiming);
    }
    if (e != cudaSuccess) {
        ctx->cuda = c;
        bsi_cuda_fini(ctx);
        return bsi_fail(ctx, BSOLVE_ENODEVICE, "CUDA device unusable: %s", cudaGetErrorString(e));
    }
    ctx->cuda = c;
    return BSOLVE_SUCCESS;
}

extern "C" void bsi_cuda_fini(bsolve_ctx *ctx)
{
    const bsi_on_device on_dev(ctx->cuda);
    bsi_cuda *c = ctx->cuda;
    if (!c) return;
    cudaStreamSynchronize(c->stream);
    for (int s = 0; s < BSI_NSTREAMS; s++) {
        if (c->slot[s].stream) cudaStreamSynchronize(c->slot[s].stream);
        bsi_dbuf_free(&c->slot[s].pin, 1);
        bsi_dbuf_free(&c->slot[s].dev, 0);
        if (c->slot[s].stream) cudaStreamDestroy(c->slot[s].stream);
        if (c->slot[s].done) cudaEventDestroy(c->slot[s].done);
    }
    bsi_dbuf_free(&c->work, 0);
    bsi_dbuf_free(&c->lusel, 0);
    bsi_dbuf_free(&c->gtflag, 0);
    if (c->order) cudaEventDestroy(c->order);
    (void)cudaGetLastError();
    delete c;
    ctx->cuda = nullptr;
}

extern "C" bsolve_status bsi_cuda_set_stream(bsolve_ctx *ctx, void *s)
{
    ctx->cuda->stream = (cudaStream_t)s;
    return BSOLVE_SUCCESS;
}

extern "C" bsolve_status bsi_cuda_synchronize(bsolve_ctx *ctx)
{
    const bsi_on_device on_dev(ctx->cuda);
    cudaError_t e = cudaStreamSynchronize(ctx->cuda->stream);
    if (e != cudaSuccess) return bsi_cuda_err(ctx, e, "bsolve_ctx_synchronize");
    return BSOLVE_SUCCESS;
}

/* ---- host-side packing ---------------------------------------------------- */

int bsi_host_threads(const bsolve_ctx *ctx)
{
    int t = ctx->nthreads > 0 ? ctx->nthreads : omp_get_max_threads();
    return t < 1 ? 1 : t;
}

bsolve_layout bsi_compact(bsolve_layout_kind kind, int64_t r, int64_t c, int64_t cnt)
{
    bsolve_layout l;
    l.kind = kind;
    switch (kind) {
    case BSOLVE_COL_MAJOR: l.ld = r; l.stride = r * c; break;
    case BSOLVE_ROW_MAJOR: l.ld = c; l.stride = r * c; break;
    default: l.ld = cnt; l.stride = 0; break;
    }
    return l;
}

/* Copies systems k0..k0+cnt-1 between a user layout and its compact form.
 * dir 0: user -> compact (reads every entry, never the gaps); dir 1:
 * compact -> user (writes entries only). */
void bsi_host_xfer(const bsolve_ctx *ctx, int dir, char *user, bsolve_layout l, char *cpt, int64_t r, int64_t c,
                   int64_t k0, int64_t cnt, size_t es)
{
    const int nth = bsi_host_threads(ctx);
    if (l.kind == BSOLVE_INTERLEAVED) { /* rows of cnt entries, cut in 256 KiB pieces for the threads */
        const int64_t rows = r * c, pe = ((int64_t)256 << 10) / (int64_t)es;
        const int64_t npr = (cnt + pe - 1) / pe;
#pragma omp parallel for num_threads(nth) schedule(static)
        for (int64_t q = 0; q < rows * npr; q++) {
            const int64_t e = q / npr, o = (q % npr) * pe, len = cnt - o < pe ? cnt - o : pe;
            char *u = user + (size_t)(e * l.ld + k0 + o) * es, *p = cpt + (size_t)(e * cnt + o) * es;
            if (dir == 0) memcpy(p, u, (size_t)len * es);
            else memcpy(u, p, (size_t)len * es);
        }
        return;
    }
    /* a "line" is a column (col-major) or a row (row-major), contiguous */
    const int64_t nline = l.kind == BSOLVE_COL_MAJOR ? c : r, llen = l.kind == BSOLVE_COL_MAJOR ? r : c;
    if (l.ld == llen && l.stride == r * c) { /* packed: one contiguous block */
        const size_t total = (size_t)(cnt * r * c) * es, piece = (size_t)1 << 20;
        const int64_t np = (int64_t)((total + piece - 1) / piece);
        char *u = user + (size_t)(k0 * l.stride) * es;
#pragma omp parallel for num_threads(nth) schedule(static)
        for (int64_t q = 0; q < np; q++) {
            const size_t off = (size_t)q * piece, len = total - off < piece ? total - off : piece;
            if (dir == 0) memcpy(cpt + off, u + off, len);
            else memcpy(u + off, cpt + off, len);
        }
        return;
    }
#pragma omp parallel for num_threads(nth) schedule(static)
    for (int64_t k = 0; k < cnt; k++)
        for (int64_t t = 0; t < nline; t++) {
            char *u = user + (size_t)((k0 + k) * l.stride + t * l.ld) * es;
            char *p = cpt + (size_t)((k * nline + t) * llen) * es;
            if (dir == 0) memcpy(p, u, (size_t)llen * es);
            else memcpy(u, p, (size_t)llen * es);
        }
}

/* ---- the pipeline ----------------------------------------------------------- */

bsolve_status bsi_pipeline(bsolve_ctx *ctx, const char *fn, int64_t batch, bsi_harr *arr, int narr,
                           bsi_chunk_fn launch, void *user)
{
    bsi_cuda *C = ctx->cuda;
    size_t per_sys = 0;
    for (int i = 0; i < narr; i++) per_sys += (size_t)(arr[i].r * arr[i].c) * arr[i].es;
    const size_t chunk_bytes = (size_t)32 << 20;
    int64_t cmax = (int64_t)(chunk_bytes / (per_sys ? per_sys : 1));
    cmax = cmax < 32 ? 32 : cmax / 32 * 32;
    if (cmax > batch) cmax = batch;
    /* offsets of each array in a slot, 256-byte aligned */
    size_t off[8], tot = 0;
    for (int i = 0; i < narr; i++) {
        off[i] = tot;
        tot += ((size_t)(arr[i].r * arr[i].c * cmax) * arr[i].es + 255) / 256 * 256;
    }
    for (int s = 0; s < BSI_NSTREAMS; s++) {
        if (!bsi_dbuf_get(&C->slot[s].pin, tot, 1) || !bsi_dbuf_get(&C->slot[s].dev, tot, 0))
            return bsi_fail(ctx, BSOLVE_ENOMEM, "%s: cannot allocate %zu bytes of staging memory", fn, tot);
    }
    /* order the pipeline after earlier work on the user's stream */
    BSI_CUDA_TRY(ctx, cudaEventRecord(C->order, C->stream), fn);
    for (int s = 0; s < BSI_NSTREAMS; s++) BSI_CUDA_TRY(ctx, cudaStreamWaitEvent(C->slot[s].stream, C->order, 0), fn);

    const int64_t nch = (batch + cmax - 1) / cmax;
    cudaError_t err = cudaSuccess;
    auto finish = [&](int64_t ch) -> cudaError_t {
        const int s = (int)(ch % BSI_NSTREAMS);
        cudaError_t e = cudaEventSynchronize(C->slot[s].done);
        if (e != cudaSuccess) return e;
        const int64_t k0 = ch * cmax, cnt = batch - k0 < cmax ? batch - k0 : cmax;
        char *pin = (char *)C->slot[s].pin.p;
        for (int i = 0; i < narr; i++)
            if (arr[i].out)
                bsi_host_xfer(ctx, 1, (char *)arr[i].out, arr[i].l, pin + off[i], arr[i].r, arr[i].c, k0, cnt,
                              arr[i].es);
        return cudaSuccess;
    };
    for (int64_t ch = 0; ch < nch && err == cudaSuccess; ch++) {
        const int s = (int)(ch % BSI_NSTREAMS);
        if (ch >= BSI_NSTREAMS) {
            err = finish(ch - BSI_NSTREAMS);
            if (err != cudaSuccess) break;
        }
        const int64_t k0 = ch * cmax, cnt = batch - k0 < cmax ? batch - k0 : cmax;
        char *pin = (char *)C->slot[s].pin.p, *dev = (char *)C->slot[s].dev.p;
        cudaStream_t st = C->slot[s].stream;
        void *dptr[8];
        bsolve_layout lc[8];
        for (int i = 0; i < narr; i++) {
            const size_t bytes = (size_t)(arr[i].r * arr[i].c * cnt) * arr[i].es;
            dptr[i] = dev + off[i];
            lc[i] = bsi_compact(arr[i].l.kind, arr[i].r, arr[i].c, cnt);
            if (arr[i].in) {
                bsi_host_xfer(ctx, 0, (char *)arr[i].in, arr[i].l, pin + off[i], arr[i].r, arr[i].c, k0, cnt,
                              arr[i].es);
                err = cudaMemcpyAsync(dev + off[i], pin + off[i], bytes, cudaMemcpyHostToDevice, st);
                if (err != cudaSuccess) break;
            }
        }
        if (err != cudaSuccess) break;
        err = launch(user, k0, cnt, dptr, lc, st);
        if (err != cudaSuccess) break;
        for (int i = 0; i < narr && err == cudaSuccess; i++)
            if (arr[i].out)
                err = cudaMemcpyAsync(pin + off[i], dev + off[i], (size_t)(arr[i].r * arr[i].c * cnt) * arr[i].es,
                                      cudaMemcpyDeviceToHost, st);
        if (err == cudaSuccess) err = cudaEventRecord(C->slot[s].done, st);
    }
    if (err == cudaSuccess)
        for (int64_t ch = nch > BSI_NSTREAMS ? nch - BSI_NSTREAMS : 0; ch < nch && err == cudaSuccess; ch++)
            err = finish(ch);
    if (err != cudaSuccess) {
        for (int s = 0; s < BSI_NSTREAMS; s++) cudaStreamSynchronize(C->slot[s].stream);
        return bsi_cuda_err(ctx, err, fn);
    }
    return BSOLVE_SUCCESS;
}

/* ---- a call's path ------------------------------------------------------------ */

bsolve_status bsi_run(bsolve_ctx *ctx, const char *fn, const char *mixed, int64_t batch, bsi_harr *arr, int narr,
                      bsi_chunk_fn launch, void *user)
{
    const void *ptrs[8];
    for (int i = 0; i < narr; i++) ptrs[i] = arr[i].in ? arr[i].in : arr[i].out;
    const int kind = bsi_kind_of(ptrs, narr);
    if (kind < 0) return bsi_fail(ctx, BSOLVE_EINVAL, "%s: %s", fn, mixed);
    if (kind == 0) return bsi_pipeline(ctx, fn, batch, arr, narr, launch, user);
    void *dptr[8];
    bsolve_layout l[8];
    for (int i = 0; i < narr; i++) {
        dptr[i] = (void *)ptrs[i];
        l[i] = arr[i].l;
    }
    BSI_CUDA_TRY(ctx, launch(user, 0, batch, dptr, l, ctx->cuda->stream), fn);
    return BSOLVE_SUCCESS;
}

/* The front end's question (src/block.c): may it touch p on the host? */
extern "C" int bsi_cuda_host_memory(const void *p)
{
    return !bsi_is_device_ptr(p);
}
