/*
 * lu_gather.cu -- a masked getrf's listed systems gathered into a compact
 * workspace and their factors scattered back (lu_dispatch.cuh's GATHER;
 * lu.cu runs gather, the table's kernel on the workspace, scatter, one
 * segment of the list at a time).
 *
 * Why: in an interleaved batch a system's entries lie one per 32-byte
 * sector, shared with its neighbours.  A kernel with a block per system
 * reads its system a load group at a time; on a scattered list nobody else
 * wants the rest of those sectors, and the block waits on memory holding
 * its part of the SM.  These copies are a thread per listed system and
 * group of BSI_GAT_E entries, every load independent, so the scattered
 * sectors are fetched with all of them in flight; in the workspace the
 * systems are neighbours again (entry e of the i-th at e S + i), which the
 * kernel then reads as it reads a whole batch.
 *
 * The list's length is on the device only (select.cu): a segment covers
 * list entries s0 .. s0 + S - 1, its kernels read *nsel and do nothing past
 * it, and gather stores the segment's count for the factor kernel (a list
 * with sel NULL, common.cuh).  The factor kernel runs in place: A and its
 * factors share the workspace (a kernel reads its whole system before a
 * barrier and then writes only that system's entries).
 */
#include "common.cuh"

#define BSI_GAT_T 256 /* threads per block */
#define BSI_GAT_E 16  /* entries per thread: loads in flight */
#define BSI_GAT_B 4   /* blocks per SM asked of ptxas: 64 registers (without, it kept every address apart: 118-198) */

/* Where the parts of a segment's workspace start: the entries, the pivots,
 * info (aligned to 4 bytes), the count; bytes in all. */
struct bsi_gather_off {
    size_t rp, cp, info, cnt, bytes;
};
static bsi_gather_off bsi_gather_place(int n, size_t es, int64_t S)
{
    bsi_gather_off o;
    o.rp = (size_t)n * n * (size_t)S * es;
    o.cp = o.rp + (size_t)n * (size_t)S;
    o.info = (o.cp + (size_t)n * (size_t)S + 3) / 4 * 4;
    o.cnt = o.info + 4 * (size_t)S;
    o.bytes = o.cnt + 4;
    return o;
}

size_t bsi_gather_bytes(int n, size_t es, int64_t S) { return bsi_gather_place(n, es, S).bytes; }

template <typename R> bsi_gather_ws<R> bsi_gather_carve(void *p, int n, int64_t S)
{
    const bsi_gather_off o = bsi_gather_place(n, sizeof(R), S);
    char *c = (char *)p;
    bsi_gather_ws<R> w;
    w.W = (R *)c;
    w.rp = (uint8_t *)(c + o.rp);
    w.cp = (uint8_t *)(c + o.cp);
    w.info = (int32_t *)(c + o.info);
    w.cnt = (int32_t *)(c + o.cnt);
    w.S = S;
    return w;
}

/* The segment's systems: list entries s0 .. s0 + cnt - 1. */
__device__ __forceinline__ int64_t bsi_gather_count(const int32_t *nsel, int64_t s0, int64_t S)
{
    const int64_t c = (int64_t)*nsel - s0;
    return c < 0 ? 0 : c < S ? c : S;
}

/* The first min(left, BSI_GAT_E) entries at stride ss from src to stride
 * ds from dst: all loads, then the stores. */
template <typename R>
__device__ __forceinline__ void bsi_gather_copy(const R *src, int64_t ss, R *dst, int64_t ds, int left)
{
    R v[BSI_GAT_E];
#pragma unroll
    for (int u = 0; u < BSI_GAT_E; u++) v[u] = u < left ? src[u * ss] : R(0);
#pragma unroll
    for (int u = 0; u < BSI_GAT_E; u++)
        if (u < left) dst[u * ds] = v[u];
}

/* Entries e0 .. e0 + BSI_GAT_E - 1 (blockIdx.y) of each listed system i (x,
 * grid-stride): A[e lda + sel[s0 + i]] -> W[e S + i]. */
template <typename R>
__global__ void __launch_bounds__(BSI_GAT_T, BSI_GAT_B) bsi_gather_k(const R *A, int64_t lda, int ne, const int32_t *sel,
                                                          const int32_t *nsel, int64_t s0, R *W, int64_t S,
                                                          int32_t *wcnt)
{
    const int64_t cnt = bsi_gather_count(nsel, s0, S);
    if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) *wcnt = (int32_t)cnt;
    const int e0 = blockIdx.y * BSI_GAT_E;
    for (int64_t i = (int64_t)blockIdx.x * BSI_GAT_T + threadIdx.x; i < cnt; i += (int64_t)gridDim.x * BSI_GAT_T)
        bsi_gather_copy(A + sel[s0 + i] + (int64_t)e0 * lda, lda, W + (int64_t)e0 * S + i, S, ne - e0);
}

/* The reverse for the factors (rows y < the entries' groups) and, in the
 * last row of blocks, the pivots and info (both the caller's and the
 * object's). */
template <typename R>
__global__ void __launch_bounds__(BSI_GAT_T, BSI_GAT_B) bsi_scatter_k(const bsi_gather_ws<R> w, int n, const int32_t *sel,
                                                           const int32_t *nsel, int64_t s0, R *F, int64_t fld,
                                                           uint8_t *rp, uint8_t *cp, int32_t *finfo, int32_t *info)
{
    const int64_t cnt = bsi_gather_count(nsel, s0, w.S), S = w.S;
    const int ne = n * n, ny = (ne + BSI_GAT_E - 1) / BSI_GAT_E;
    const int e0 = blockIdx.y * BSI_GAT_E;
    for (int64_t i = (int64_t)blockIdx.x * BSI_GAT_T + threadIdx.x; i < cnt; i += (int64_t)gridDim.x * BSI_GAT_T) {
        const int64_t sys = sel[s0 + i];
        if ((int)blockIdx.y < ny) {
            bsi_gather_copy(w.W + (int64_t)e0 * S + i, S, F + sys + (int64_t)e0 * fld, fld, ne - e0);
        } else {
#pragma unroll 4
            for (int k = 0; k < n; k++) {
                rp[k * fld + sys] = w.rp[k * S + i];
                cp[k * fld + sys] = w.cp[k * S + i];
            }
            const int32_t v = w.info[i];
            finfo[sys] = v;
            info[sys] = v;
        }
    }
}

/* Blocks along the systems for `rows` rows of blocks: about 16 blocks of
 * BSI_GAT_T threads per SM in all (a segment's count is unknown here; each
 * thread strides on), no more than the segment needs. */
static unsigned bsi_gather_gx(int64_t S, int rows, int nsm)
{
    const int64_t need = (S + BSI_GAT_T - 1) / BSI_GAT_T, fill = ((int64_t)nsm * 16 + rows - 1) / rows;
    const int64_t g = need < fill ? need : fill;
    return (unsigned)(g < 1 ? 1 : g);
}

template <typename R>
cudaError_t bsi_launch_gather(const R *A, int64_t lda, int n, const int32_t *sel, const int32_t *nsel, int64_t s0,
                              const bsi_gather_ws<R> &w, int nsm, cudaStream_t st)
{
    const int ne = n * n, ny = (ne + BSI_GAT_E - 1) / BSI_GAT_E;
    bsi_gather_k<R><<<dim3(bsi_gather_gx(w.S, ny, nsm), ny), BSI_GAT_T, 0, st>>>(A, lda, ne, sel, nsel, s0, w.W,
                                                                                   w.S, w.cnt);
    return cudaGetLastError();
}

template <typename R>
cudaError_t bsi_launch_scatter(const bsi_gather_ws<R> &w, int n, const int32_t *sel, const int32_t *nsel, int64_t s0,
                               R *F, int64_t fld, uint8_t *rp, uint8_t *cp, int32_t *finfo, int32_t *info, int nsm,
                               cudaStream_t st)
{
    const int ny = (n * n + BSI_GAT_E - 1) / BSI_GAT_E + 1;
    bsi_scatter_k<R><<<dim3(bsi_gather_gx(w.S, ny, nsm), ny), BSI_GAT_T, 0, st>>>(w, n, sel, nsel, s0, F, fld, rp,
                                                                                    cp, finfo, info);
    return cudaGetLastError();
}

#define BSI_GATHER_INSTANTIATE(R)                                                                                    \
    template bsi_gather_ws<R> bsi_gather_carve<R>(void *, int, int64_t);                                           \
    template cudaError_t bsi_launch_gather<R>(const R *, int64_t, int, const int32_t *, const int32_t *, int64_t,   \
                                              const bsi_gather_ws<R> &, int, cudaStream_t);                         \
    template cudaError_t bsi_launch_scatter<R>(const bsi_gather_ws<R> &, int, const int32_t *, const int32_t *,     \
                                               int64_t, R *, int64_t, uint8_t *, uint8_t *, int32_t *, int32_t *,   \
                                               int, cudaStream_t);
BSI_GATHER_INSTANTIATE(double)
BSI_GATHER_INSTANTIATE(float)
