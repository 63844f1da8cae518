/*
 * hostpath.cuh -- how the host wrappers of lu.cu and qr.cu reach the user's
 * arrays: straight on the device, or through the host-memory pipeline
 * (context.cu; layout.cu uses its packing helpers too); and how their
 * exports bring a factorization object's arrays to the CPU.
 */
#ifndef BSI_HOSTPATH_CUH
#define BSI_HOSTPATH_CUH

#include "common.cuh"

/* One user array taking part in a host-memory call: `in` is read (copied to
 * the device), `out` written (copied back); either may be NULL.  r x c
 * entries of es bytes per system, in layout l (int32 info: 1 x 1, es = 4,
 * interleaved with ld = batch). */
struct bsi_harr {
    const void *in;
    void *out;
    bsolve_layout l;
    int64_t r, c;
    size_t es;
};

/* The per-system int32 info that a call writes. */
static inline bsi_harr bsi_info_arr(int32_t *info, int64_t batch)
{
    const bsolve_layout li = {BSOLVE_INTERLEAVED, batch, 0};
    return {nullptr, info, li, 1, 1, 4};
}

/* The same for a masked call, which writes some systems' info: read too, so
 * that the others' go back unchanged.  info may be NULL (getrs). */
static inline bsi_harr bsi_info_inout(int32_t *info, int64_t batch)
{
    const bsolve_layout li = {BSOLVE_INTERLEAVED, batch, 0};
    return {info, info, li, 1, 1, 4};
}

/* A masked call's mask (a byte per system, read). */
static inline bsi_harr bsi_mask_arr(const uint8_t *mask, int64_t batch)
{
    const bsolve_layout li = {BSOLVE_INTERLEAVED, batch, 0};
    return {mask, nullptr, li, 1, 1, 1};
}

/* Device scratch of `bytes` per system of a chunk (a masked call's list of
 * flagged systems, select.cu, and a masked getrf's gathered segment,
 * lu_gather.cu): room in each slot's staging on the host-memory path, 256
 * bytes aligned, neither copied in nor out; NULL on the device path. */
static inline bsi_harr bsi_scratch_arr(int64_t batch, size_t bytes)
{
    const bsolve_layout li = {BSOLVE_INTERLEAVED, batch, 0};
    return {nullptr, nullptr, li, 1, (int64_t)((bytes + 3) / 4), 4};
}

/* Runs the device work of systems k0..k0+cnt-1 on stream st: array i at
 * dptr[i] in layout l[i].  The same function serves both paths of
 * bsi_run, so that a kernel sees one set of arguments whatever memory the
 * user passed. */
typedef cudaError_t (*bsi_chunk_fn)(void *user, int64_t k0, int64_t cnt, void *const *dptr, const bsolve_layout *l,
                                    cudaStream_t st);

/* The arrays of one call must all be device (or managed) memory or all host
 * memory; mixed kinds fail with BSOLVE_EINVAL and "fn: mixed".  Device: one
 * chunk of the whole batch on the context's stream, on the user's arrays in
 * their layouts.  Host: bsi_pipeline. */
bsolve_status bsi_run(bsolve_ctx *ctx, const char *fn, const char *mixed, int64_t batch, bsi_harr *arr, int narr,
                      bsi_chunk_fn launch, void *user);

/* Host memory: chunks staged through pinned memory on the context's three
 * slot streams; each chunk reaches `launch` in the compact form of its
 * layout kind (bsi_compact). */
bsolve_status bsi_pipeline(bsolve_ctx *ctx, const char *fn, int64_t batch, bsi_harr *arr, int narr,
                           bsi_chunk_fn launch, void *user);

/* The gap-free layout of `cnt` systems of the given kind. */
bsolve_layout bsi_compact(bsolve_layout_kind kind, int64_t r, int64_t c, int64_t cnt);
/* dir 0: user -> compact; 1: compact -> user (entries only), OpenMP threads. */
void bsi_host_xfer(const bsolve_ctx *ctx, int dir, char *user, bsolve_layout l, char *cpt, int64_t r, int64_t c,
                   int64_t k0, int64_t cnt, size_t es);
int bsi_host_threads(const bsolve_ctx *ctx);

/* One device array of a factorization object as an export reads it: `rows`
 * entries of es bytes per system, interleaved (leading dimension: the
 * object's ld).  dev NULL: not wanted this time; its room in a chunk is kept
 * all the same, so that the other arrays' places do not depend on it. */
struct bsi_farr {
    const void *dev;
    size_t es;
    int64_t rows;
};

/* Exports copy a factorization object's arrays, a chunk of systems at a time
 * (at most 32 MiB, at least 32 systems), into slot 0's pinned buffer on the
 * context's stream -- so after the factorization that wrote them -- and
 * convert them on the CPU: convert(h, k0, cnt, nth) finds array i of systems
 * k0..k0+cnt-1 at h[i], entry e of system k0+s at e*cnt + s, and may use nth
 * OpenMP threads. */
template <typename Convert>
bsolve_status bsi_export_chunks(bsolve_ctx *ctx, const char *fn, int64_t batch, int64_t ld, const bsi_farr *arr,
                                int narr, Convert convert)
{
    bsi_cuda *C = ctx->cuda;
    size_t per = 0;
    for (int i = 0; i < narr; i++) per += (size_t)arr[i].rows * arr[i].es;
    int64_t cmax = (int64_t)(((size_t)32 << 20) / per);
    cmax = cmax < 32 ? 32 : cmax;
    if (cmax > batch) cmax = batch;
    char *pin = (char *)bsi_dbuf_get(&C->slot[0].pin, per * (size_t)cmax + 512, 1);
    if (!pin) return bsi_fail(ctx, BSOLVE_ENOMEM, "%s: cannot allocate pinned staging memory", fn);
    const int nth = bsi_host_threads(ctx);
    for (int64_t k0 = 0; k0 < batch; k0 += cmax) {
        const int64_t cnt = batch - k0 < cmax ? batch - k0 : cmax;
        cudaStream_t st = C->stream;
        const char *h[8];
        size_t off = 0;
        for (int i = 0; i < narr; i++) {
            const size_t es = arr[i].es;
            h[i] = pin + off;
            if (arr[i].dev)
                BSI_CUDA_TRY(ctx, cudaMemcpy2DAsync(pin + off, cnt * es, (const char *)arr[i].dev + k0 * es, ld * es,
                                                    cnt * es, arr[i].rows, cudaMemcpyDeviceToHost, st), fn);
            off += (size_t)(arr[i].rows * cnt) * es;
        }
        BSI_CUDA_TRY(ctx, cudaStreamSynchronize(st), fn);
        convert(h, k0, cnt, nth);
    }
    return BSOLVE_SUCCESS;
}

#endif
