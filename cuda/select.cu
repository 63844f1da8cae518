/*
 * select.cu -- the flagged systems of a mask as a list on the device, for
 * the masked LU calls (common.cuh: bsi_launch_select).
 *
 * Three launches on the caller's stream and no host synchronisation, so
 * that a masked call on device arrays stays asynchronous: the flagged
 * entries of each block of BSI_SELB mask entries are counted; one block
 * scans those counts into each block's offset (their total is the list's
 * length, *nsel, which the kernels read on the device); each block then
 * writes its flagged systems at its offset, in order.  The order keeps the
 * systems a warp or a block of an LU kernel takes close together in
 * memory.
 */
#include "common.cuh"

#define BSI_SELT 256                   /* threads per block */
#define BSI_SELP 16                    /* mask entries per thread */
#define BSI_SELB (BSI_SELT * BSI_SELP) /* mask entries per block */
#define BSI_SELS 1024                  /* threads of the scan of the blocks' counts */

int64_t bsi_select_scratch(int64_t count) { return (count + BSI_SELB - 1) / BSI_SELB; }

/* The flags of this thread's BSI_SELP entries from i0 on, as bits; their count. */
__device__ __forceinline__ int bsi_sel_bits(const uint8_t *mask, int64_t count, int64_t i0, uint32_t &bits)
{
    bits = 0;
#pragma unroll
    for (int j = 0; j < BSI_SELP; j++)
        if (i0 + j < count && mask[i0 + j]) bits |= 1u << j;
    return __popc(bits);
}

/* Exclusive scan of v over the NT threads of the block; *tot receives the
 * sum.  Every thread must call it. */
template <int NT> __device__ __forceinline__ int bsi_sel_scan(int v, int *tot)
{
    __shared__ int wsum[NT / 32];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    int x = v;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const int y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
    }
    if (lane == 31) wsum[w] = x;
    __syncthreads();
    int before = 0, all = 0;
#pragma unroll
    for (int k = 0; k < NT / 32; k++) {
        before += k < w ? wsum[k] : 0;
        all += wsum[k];
    }
    __syncthreads(); /* wsum may be rewritten by the next call */
    *tot = all;
    return before + x - v;
}

__global__ void __launch_bounds__(BSI_SELT) bsi_sel_count_k(const uint8_t *mask, int64_t count, int32_t *bcount)
{
    uint32_t bits;
    const int c = bsi_sel_bits(mask, count, (int64_t)blockIdx.x * BSI_SELB + threadIdx.x * BSI_SELP, bits);
    int tot;
    bsi_sel_scan<BSI_SELT>(c, &tot);
    if (threadIdx.x == 0) bcount[blockIdx.x] = tot;
}

/* bcount[0 .. nb) -> its exclusive prefix sums, in place; *nsel = the total. */
__global__ void __launch_bounds__(BSI_SELS) bsi_sel_offsets_k(int32_t *bcount, int64_t nb, int32_t *nsel)
{
    int carry = 0;
    for (int64_t b0 = 0; b0 < nb; b0 += BSI_SELS) {
        const int64_t b = b0 + threadIdx.x;
        int tot;
        const int off = bsi_sel_scan<BSI_SELS>(b < nb ? bcount[b] : 0, &tot);
        if (b < nb) bcount[b] = carry + off;
        carry += tot;
    }
    if (threadIdx.x == 0) *nsel = carry;
}

__global__ void __launch_bounds__(BSI_SELT) bsi_sel_write_k(const uint8_t *mask, int64_t count,
                                                            const int32_t *boff, int32_t *sel)
{
    uint32_t bits;
    const int64_t i0 = (int64_t)blockIdx.x * BSI_SELB + threadIdx.x * BSI_SELP;
    const int c = bsi_sel_bits(mask, count, i0, bits);
    int tot;
    int o = boff[blockIdx.x] + bsi_sel_scan<BSI_SELT>(c, &tot);
    while (bits) {
        const int j = __ffs(bits) - 1;
        bits &= bits - 1;
        sel[o++] = (int32_t)(i0 + j);
    }
}

cudaError_t bsi_launch_select(const uint8_t *mask, int64_t count, int32_t *sel, int32_t *nsel, int32_t *scratch,
                              cudaStream_t st)
{
    if (count < 1 || count > BSI_SEL_MAX) return cudaErrorInvalidValue;
    const int64_t nb = bsi_select_scratch(count);
    bsi_sel_count_k<<<(unsigned)nb, BSI_SELT, 0, st>>>(mask, count, scratch);
    bsi_sel_offsets_k<<<1, BSI_SELS, 0, st>>>(scratch, nb, nsel);
    bsi_sel_write_k<<<(unsigned)nb, BSI_SELT, 0, st>>>(mask, count, scratch, sel);
    return cudaGetLastError();
}
