/*
 * hostpath.cuh -- how the host wrappers of lu.cu and qr.cu reach the user's
 * arrays: straight on the device, or through the host-memory pipeline
 * (context.cu; layout.cu uses its packing helpers too).
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

#endif
