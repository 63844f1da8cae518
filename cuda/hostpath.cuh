/*
 * hostpath.cuh -- the host-memory pipeline (context.cu) as used by lu.cu and
 * layout.cu.
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

/* Runs the device work of systems k0..k0+cnt-1: dptr[i] holds array i's
 * chunk in the compact form of its layout kind (bsi_compact), on stream st. */
typedef cudaError_t (*bsi_chunk_fn)(void *user, int64_t k0, int64_t cnt, void *const *dptr, cudaStream_t st);

bsolve_status bsi_pipeline(bsolve_ctx *ctx, const char *fn, int64_t batch, bsi_harr *arr, int narr,
                           bsi_chunk_fn launch, void *user);

/* The gap-free layout of `cnt` systems of the given kind. */
bsolve_layout bsi_compact(bsolve_layout_kind kind, int64_t r, int64_t c, int64_t cnt);
/* dir 0: user -> compact; 1: compact -> user (entries only), OpenMP threads. */
void bsi_host_xfer(const bsolve_ctx *ctx, int dir, char *user, bsolve_layout l, char *cpt, int64_t r, int64_t c,
                   int64_t k0, int64_t cnt, size_t es);
int bsi_host_threads(const bsolve_ctx *ctx);

#endif
