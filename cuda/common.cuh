/*
 * common.cuh -- what the CUDA backend's files share: the context state, the
 * device-side view of a batch layout, launch descriptors and small helpers.
 *
 * Storage of a CUDA factorization (struct bsolve_lu, all device memory):
 *   factors  n x n per system, INTERLEAVED: entry (i, j) of system k at
 *            F[(i + j*n)*ld + k], ld = batch rounded up to a multiple of 32.
 *            U is on and above the diagonal as LAPACK stores it (U(k,k) the
 *            real pivot, not its reciprocal).  L is strictly below it in
 *            LINPACK form: column k of L holds the multipliers of step k in
 *            the row order of step k; the row interchanges of later steps
 *            are NOT applied to it (getrs applies interchange k, then
 *            elimination k, alternately).  bsolve_lu_export converts to
 *            LAPACK form on the host.
 *   rowpiv   uint8_t, 0-based pivot row of step k of system k at P[k*ld + sys];
 *   colpiv   the same for the pivot column (FULL only; allocated always);
 *   info     int32_t per system: info of the last getrf (device memory).
 */
#ifndef BSI_CUDA_COMMON_CUH
#define BSI_CUDA_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

#define BSI_NSTREAMS 3 /* host-memory pipeline depth: copy-in, compute, copy-out overlap */

/* A device buffer grown on demand and reused. */
struct bsi_dbuf {
    void *p;
    size_t bytes;
};

/* One slot of the host-memory pipeline: pinned staging and device staging. */
struct bsi_slot {
    bsi_dbuf pin;   /* pinned host memory (cudaMallocHost) */
    bsi_dbuf dev;   /* device memory */
    cudaStream_t stream;
    cudaEvent_t done;
};

/* Per-context state of the tridiagonal launchers (cuda/gtsv.cu), all zero
 * in a new context: the dynamic shared memory each kernel instance has
 * been allowed so far (cudaFuncSetAttribute is per device and process, so
 * another context raising it again is harmless), the fused kernel's last
 * residency query per instance (it costs as much as a launch), and the
 * device's opt-in shared memory per block.  Indices: [double][method][LSH]. */
struct bsi_gt_occ {
    int threads, per_sm;
    size_t smem;
};
struct bsi_gt_state {
    size_t tile_smem[2][3][5], pass_smem[2][3][5][2], fused_smem[2][3][5];
    bsi_gt_occ fused_occ[2][3][5];
    int smem_optin;
};

struct bsi_cuda {
    int device;
    int nsm;
    int cc;              /* compute capability, major * 10 + minor (9.0: 90) */
    int code_arch;       /* virtual architecture the running kernels were compiled for
                          * (cudaFuncAttributes::ptxVersion, 90 for compute_90): code
                          * behind __CUDA_ARCH__ >= X exists only where code_arch >= X */
    int smem_optin;      /* most dynamic shared memory one block may opt in to, bytes */
    cudaStream_t stream; /* the user's (or the legacy default) stream */
    cudaEvent_t order;   /* orders the pipeline streams after the user stream */
    bsi_slot slot[BSI_NSTREAMS];
    bsi_dbuf work;       /* device workspace of device-pointer calls (transposes; a masked getrf's gathered segment) */
    bsi_dbuf lusel;      /* masked LU calls with device arrays: the flagged systems' list (select.cu) */
    bsi_dbuf gtflag;     /* per-system flags of the long tridiagonal method (tagged by gtgen) */
    int gtgen;           /* the last generation number used in gtflag */
    bsi_gt_state gt;     /* the tridiagonal launchers' */
};

/* A CUDA context belongs to the device that was current when it was created
 * (bsi_cuda::device).  Every entry point makes that device current for the
 * call and gives the caller's back afterwards, so that one thread may drive
 * contexts on several GPUs, whatever device it has selected. */
struct bsi_on_device {
    int prev = -1; /* the caller's device, where it differs */
    explicit bsi_on_device(const bsi_cuda *c)
    {
        int cur;
        if (c && cudaGetDevice(&cur) == cudaSuccess && cur != c->device && cudaSetDevice(c->device) == cudaSuccess)
            prev = cur;
    }
    ~bsi_on_device()
    {
        if (prev >= 0) cudaSetDevice(prev);
    }
    bsi_on_device(const bsi_on_device &) = delete;
    bsi_on_device &operator=(const bsi_on_device &) = delete;
};

/* Programmatic dependent launch (the launch attribute and the kernels'
 * griddepcontrol, compiled only for __CUDA_ARCH__ >= 900): only where both
 * the device and the code that runs on it have it. */
static inline bool bsi_cuda_has_pdl(const bsi_cuda *c) { return c->cc >= 90 && c->code_arch >= 90; }

/* Whether kernel may be launched with bytes of dynamic shared memory:
 * beyond the default 48 KB it asks for the opt-in, which fails where the
 * device has less per block (the caller then runs another kernel). */
template <typename K> static inline bool bsi_smem_optin(K *kernel, size_t bytes)
{
    if (bytes <= 48 * 1024) return true;
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes) == cudaSuccess)
        return true;
    (void)cudaGetLastError();
    return false;
}

/* Device view of a batch layout: entry (i, j) of system k at
 * p[k*ks + i*is + j*js].  For INTERLEAVED: ks = 1, is = ld, js = r*ld. */
struct bsi_view {
    int64_t ks, is, js;
};

static inline bsi_view bsi_make_view(bsolve_layout l, int64_t r)
{
    bsi_view v;
    switch (l.kind) {
    case BSOLVE_COL_MAJOR: v.ks = l.stride; v.is = 1; v.js = l.ld; break;
    case BSOLVE_ROW_MAJOR: v.ks = l.stride; v.is = l.ld; v.js = 1; break;
    default: v.ks = 1; v.is = l.ld; v.js = r * l.ld; break;
    }
    return v;
}

/* Element offset of system k0 in a layout (a pointer to it starts a batch). */
static inline int64_t bsi_sys_offset(bsolve_layout l, int64_t k0)
{
    return l.kind == BSOLVE_INTERLEAVED ? k0 : k0 * l.stride;
}

/* Arguments of the LU kernels (one struct for every operation, op one of
 * lu_dispatch.cuh's BSI_OP_*). */
template <typename R> struct bsi_lu_args {
    const R *A;  bsi_view va; int a_il; /* a_il: A is INTERLEAVED */
    R *B;        bsi_view vb; int b_il;
    int32_t *info;             /* may be NULL (getrs) */
    R *F;        int64_t fld;  /* factors (getrf writes, getrs reads), already offset */
    uint8_t *rp, *cp;
    int32_t *finfo;
    int64_t count;             /* systems in this launch */
    int n, nrhs, pivot;
    /* Masked getrf and getrs (NULL otherwise, and always for gesv): the
     * flagged systems of the launch's count, *nsel of them, listed in
     * increasing order on the device (select.cu).  nsel set and sel NULL:
     * systems 0 .. *nsel - 1 of the launch (a gathered segment, lu.cu:
     * their number is known on the device only). */
    const int32_t *sel, *nsel;
};

/* Every LU kernel has an instantiation for a list (template flag LIST,
 * getrf and getrs only; launched when nsel is set), so that the others' code
 * stays what it is without one.  A kernel's logical systems are
 * 0 .. bsi_lu_count() - 1; logical system i is system bsi_lu_sys(i) of the
 * launch, whose A, B, info and factors it reads and writes: with a list the
 * i-th listed system (i itself where sel is NULL), a logical system past
 * *nsel being like one past the batch's end (the grid covers count);
 * without one, i itself.  Kernels whose systems share a warp or a block stage them by
 * these per-system addresses with a list, never as one run of consecutive
 * systems. */
template <bool LIST, typename R> __device__ __forceinline__ int64_t bsi_lu_count(const bsi_lu_args<R> &a)
{
    if constexpr (LIST) return (int64_t)*a.nsel;
    else return a.count;
}
template <bool LIST, typename R> __device__ __forceinline__ int64_t bsi_lu_sys(const bsi_lu_args<R> &a, int64_t i)
{
    if constexpr (LIST) return a.sel ? (int64_t)a.sel[i] : i;
    else return i;
}

/* The flagged systems of mask[0 .. count) (count <= BSI_SEL_MAX), in
 * increasing order, into sel[0 .. *nsel), on stream st, without a host
 * synchronisation (select.cu).  scratch: bsi_select_scratch(count) int32. */
#define BSI_SEL_MAX ((int64_t)1 << 30)
int64_t bsi_select_scratch(int64_t count);
cudaError_t bsi_launch_select(const uint8_t *mask, int64_t count, int32_t *sel, int32_t *nsel, int32_t *scratch,
                              cudaStream_t st);

/* A masked getrf's gathered segment (lu_gather.cu): S systems of order n,
 * A gathered into W (entry e of the i-th system at W[e S + i]) and factored
 * there in place, their pivots (interleaved as the factor object's, leading
 * dimension S), info, and the segment's count (the factor kernel's *nsel). */
template <typename R> struct bsi_gather_ws {
    R *W;
    uint8_t *rp, *cp;
    int32_t *info, *cnt;
    int64_t S;
};
/* Bytes of a segment's workspace; the workspace at p (16-byte aligned). */
size_t bsi_gather_bytes(int n, size_t es, int64_t S);
template <typename R> bsi_gather_ws<R> bsi_gather_carve(void *p, int n, int64_t S);
/* List entries s0 .. s0 + S - 1 (those before *nsel) of sel: the systems of
 * the interleaved A (leading dimension lda) into w; then, after the factor
 * kernel, their factors, pivots and info into F, rp, cp (leading dimension
 * fld), finfo and info.  nsm: the device's SMs (the grids' size). */
template <typename R>
cudaError_t bsi_launch_gather(const R *A, int64_t lda, int n, const int32_t *sel, const int32_t *nsel, int64_t s0,
                              const bsi_gather_ws<R> &w, int nsm, cudaStream_t st);
template <typename R>
cudaError_t bsi_launch_scatter(const bsi_gather_ws<R> &w, int n, const int32_t *sel, const int32_t *nsel, int64_t s0,
                               R *F, int64_t fld, uint8_t *rp, uint8_t *cp, int32_t *finfo, int32_t *info, int nsm,
                               cudaStream_t st);

/* Host-side launchers: lu.cu launches the kernel of lu_dispatch.cuh's table
 * (force: the context's test-only choices), lu_large.cu the block kernel. */
template <typename R> cudaError_t bsi_launch_lu(int op, const bsi_lu_args<R> &a, const int *force, cudaStream_t s);
template <typename R> cudaError_t bsi_launch_large(int op, const bsi_lu_args<R> &a, cudaStream_t s);

/* Device-side layout conversion (layout.cu). */
template <typename R>
cudaError_t bsi_launch_convert(int64_t r, int64_t c, int64_t batch, const R *src, bsi_view vs, R *dst,
                               bsi_view vd, cudaStream_t s);

/* context.cu helpers */
bsolve_status bsi_cuda_err(bsolve_ctx *ctx, cudaError_t e, const char *what);
void *bsi_dbuf_get(bsi_dbuf *b, size_t bytes, int pinned);
/* Classifies a pointer: 1 device-accessible (device or managed memory), 0 host. */
int bsi_is_device_ptr(const void *p);

/* Two entries of the precision as one 16-byte (double) or 8-byte (float)
 * access: shared-memory rows read and written in pairs (gtsv_tile.cuh's
 * PCR rows, qr_team.cuh's rotations). */
template <typename R> struct bsi_pair;
template <> struct bsi_pair<double> {
    typedef double2 T;
    static __device__ __forceinline__ T mk(double x, double y) { return make_double2(x, y); }
};
template <> struct bsi_pair<float> {
    typedef float2 T;
    static __device__ __forceinline__ T mk(float x, float y) { return make_float2(x, y); }
};

#define BSI_CUDA_TRY(ctx, expr, what)                                   \
    do {                                                                \
        cudaError_t bsi_e_ = (expr);                                    \
        if (bsi_e_ != cudaSuccess) return bsi_cuda_err(ctx, bsi_e_, what); \
    } while (0)

#endif
