/*
 * lu_large.cu -- block-per-matrix LU for BSI_LU_TEAM_MAX_N < n <= 128.
 *
 * Beyond n = 32 a team of 32 lanes would need more than ~64 doubles per lane
 * in registers (spills), so one block of NT threads owns one matrix, held
 * in shared memory column-major with an odd leading dimension (row swaps,
 * which walk a row, are then free of bank conflicts; column walks are
 * contiguous).  Each step: block-wide pivot search (warp shuffles, then the
 * warp results through shared memory), column interchange (FULL), row
 * interchange of columns k..n-1 (L kept in LINPACK form, as in the team
 * kernel), scaling of the multipliers, and the rank-1 update with warp w
 * taking columns k+1+w, k+1+w+NW, ... and lane t rows k+1+t, k+33+t, ...
 * (multipliers in registers, the pivot row element broadcast).  The solves
 * of gesv/getrs run in warp 0 (O(n^2) against O(n^3)).
 */
#include <float.h>
#include "common.cuh"
#include "lu_dispatch.cuh"

/* threads per block: NT = BSI_LU_BLOCK_THREADS (lu_dispatch.cuh says why),
 * at most BSI_LNW_MAX warps */
#define BSI_LNW_MAX 16

template <typename R> __device__ __forceinline__ R bsi_lnan();
template <> __device__ __forceinline__ double bsi_lnan<double>() { return __longlong_as_double(0x7ff8000000000000LL); }
template <> __device__ __forceinline__ float bsi_lnan<float>() { return __int_as_float(0x7fc00000); }
template <typename R> __device__ __forceinline__ R bsi_lmin();
template <> __device__ __forceinline__ double bsi_lmin<double>() { return DBL_MIN; }
template <> __device__ __forceinline__ float bsi_lmin<float>() { return FLT_MIN; }
template <typename R> __device__ __forceinline__ R bsi_lup();
template <> __device__ __forceinline__ double bsi_lup<double>() { return 18446744073709551616.0; }
template <> __device__ __forceinline__ float bsi_lup<float>() { return 4294967296.0f; }
template <typename R> __device__ __forceinline__ R bsi_lmax();
template <> __device__ __forceinline__ double bsi_lmax<double>() { return DBL_MAX; }
template <> __device__ __forceinline__ float bsi_lmax<float>() { return FLT_MAX; }

static __host__ __device__ inline int bsi_large_lds(int n) { return n | 1; }

template <typename R>
static size_t bsi_large_smem(int n)
{
    return ((size_t)n * bsi_large_lds(n) + 2 * (size_t)n) * sizeof(R) + 3 * 128 + BSI_LNW_MAX * (sizeof(R) + 8);
}

/* Block-wide arg-max: larger value wins, ties go to the smaller key. */
template <typename R, int BSI_LNW>
__device__ __forceinline__ void bsi_block_argmax(R &best, int &key, R *red_v, int *red_k)
{
    for (int off = 16; off > 0; off >>= 1) {
        const R ob = __shfl_xor_sync(0xffffffffu, best, off);
        const int ok = __shfl_xor_sync(0xffffffffu, key, off);
        const bool take = ob > best || (ob == best && ok < key);
        best = take ? ob : best;
        key = take ? ok : key;
    }
    const int w = threadIdx.x >> 5;
    if ((threadIdx.x & 31) == 0) {
        red_v[w] = best;
        red_k[w] = key;
    }
    __syncthreads();
    best = red_v[0];
    key = red_k[0];
#pragma unroll
    for (int i = 1; i < BSI_LNW; i++) {
        const R ob = red_v[i];
        const int ok = red_k[i];
        const bool take = ob > best || (ob == best && ok < key);
        best = take ? ob : best;
        key = take ? ok : key;
    }
}

template <typename R, int OP, int BSI_LNT, bool LIST>
__global__ void __launch_bounds__(BSI_LNT) bsi_k_large(const bsi_lu_args<R> a)
{
    constexpr int BSI_LNW = BSI_LNT / 32;
    extern __shared__ unsigned char bsi_lsmem[];
    const int n = a.n, lds = bsi_large_lds(n), pivot = a.pivot;
    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
    if constexpr (LIST)
        if (blockIdx.x >= bsi_lu_count<LIST>(a)) return; /* the whole block, before any barrier */
    const int64_t sys = bsi_lu_sys<LIST>(a, blockIdx.x);
    R *S = reinterpret_cast<R *>(bsi_lsmem);
    R *b = S + (size_t)n * lds;   /* one right-hand side */
    R *rd = b + n;                /* reciprocal pivots */
    uint8_t *rp = reinterpret_cast<uint8_t *>(rd + n), *cp = rp + 128, *tf = cp + 128; /* tf: tiny pivot */
    R *red_v = reinterpret_cast<R *>(tf + 128);
    int *red_k = reinterpret_cast<int *>(red_v + BSI_LNW_MAX);
#define SA(i, j) S[(i) + (j) * lds]

    /* ---- load ---- */
    int bad = 0;
    {
        const R *src;
        int64_t is, js;
        if (OP == BSI_OP_GETRS) {
            src = a.F + sys; is = a.fld; js = (int64_t)n * a.fld;
        } else {
            src = a.A + sys * a.va.ks; is = a.va.is; js = a.va.js;
        }
        if (js == 1 && is != 1) { /* row-major: walk rows */
            for (int i = 0; i < n; i++)
                for (int j = tid; j < n; j += BSI_LNT) {
                    const R v = src[i * is + j];
                    bad |= !(fabs(v) <= bsi_lmax<R>());
                    SA(i, j) = v;
                }
        } else {
            for (int j = 0; j < n; j++)
                for (int i = tid; i < n; i += BSI_LNT) {
                    const R v = src[i * is + j * js];
                    bad |= !(fabs(v) <= bsi_lmax<R>());
                    SA(i, j) = v;
                }
        }
    }
    bad = __syncthreads_or(bad);
    int pinfo = 0;

    if (OP == BSI_OP_GETRS) {
        for (int k = tid; k < n; k += BSI_LNT) {
            rp[k] = pivot != BSOLVE_PIVOT_NONE ? a.rp[k * a.fld + sys] : (uint8_t)k;
            cp[k] = pivot == BSOLVE_PIVOT_FULL ? a.cp[k * a.fld + sys] : (uint8_t)k;
            const R d = SA(k, k);
            const bool tiny = fabs(d) < bsi_lmin<R>() && d != R(0);
            rd[k] = R(1) / (d == R(0) ? R(1) : (tiny ? d * bsi_lup<R>() : d));
            tf[k] = tiny;
        }
        pinfo = a.finfo[sys];
        bad = 0;
        __syncthreads();
    } else {
        for (int k = 0; k < n; k++) {
            int p = k, q = k;
            if (pivot == BSOLVE_PIVOT_PARTIAL) {
                R best = R(-1);
                int key = k;
                for (int i = k + tid; i < n; i += BSI_LNT) {
                    const R v = fabs(SA(i, k));
                    if (v > best) { best = v; key = i; }
                }
                bsi_block_argmax<R, BSI_LNW>(best, key, red_v, red_k);
                p = key;
            } else if (pivot == BSOLVE_PIVOT_FULL) {
                R best = R(-1);
                int key = k * 256 + k;
                for (int j = k + w; j < n; j += BSI_LNW)
                    for (int i = k + lane; i < n; i += 32) {
                        const R v = fabs(SA(i, j));
                        if (v > best) { best = v; key = j * 256 + i; }
                    }
                bsi_block_argmax<R, BSI_LNW>(best, key, red_v, red_k);
                p = key & 255;
                q = key >> 8;
                if (q != k) /* uniform */
                    for (int i = tid; i < n; i += BSI_LNT) {
                        const R t = SA(i, k);
                        SA(i, k) = SA(i, q);
                        SA(i, q) = t;
                    }
            }
            if (tid == 0) {
                rp[k] = (uint8_t)p;
                cp[k] = (uint8_t)q;
            }
            if (p != k) { /* uniform */
                __syncthreads(); /* column swap done */
                for (int j = k + tid; j < n; j += BSI_LNT) {
                    const R t = SA(k, j);
                    SA(k, j) = SA(p, j);
                    SA(p, j) = t;
                }
            }
            __syncthreads();
            const R d = SA(k, k);
            const bool z = d == R(0);
            pinfo = (z && pinfo == 0) ? k + 1 : pinfo;
            /* a subnormal pivot: 1/d overflows; scale up by 2^64 (2^32) first */
            const bool tiny = fabs(d) < bsi_lmin<R>() && !z;
            const R sc = tiny ? bsi_lup<R>() : R(1);
            const R rinv = R(1) / (z ? R(1) : d * sc);
            if (tid == 0) {
                rd[k] = rinv;
                tf[k] = tiny;
            }
            /* multipliers: each warp scales its own copy into registers; warp 0 stores them */
            const int m = n - k - 1;
            R lv[4];
#pragma unroll
            for (int t = 0; t < 4; t++) {
                const int i = k + 1 + lane + 32 * t;
                lv[t] = (i < n) ? (SA(i, k) * sc) * rinv : R(0);
            }
            __syncthreads(); /* everyone has read column k before warp 0 overwrites it */
            if (w == 0)
#pragma unroll
                for (int t = 0; t < 4; t++) {
                    const int i = k + 1 + lane + 32 * t;
                    if (i < n) SA(i, k) = lv[t];
                }
            if (m > 0) {
                int j = k + 1 + w;
                for (; j + BSI_LNW < n; j += 2 * BSI_LNW) { /* two columns in flight */
                    const R u0 = SA(k, j), u1 = SA(k, j + BSI_LNW);
#pragma unroll
                    for (int t = 0; t < 4; t++) {
                        const int i = k + 1 + lane + 32 * t;
                        if (i < n) {
                            const R x0 = SA(i, j), x1 = SA(i, j + BSI_LNW);
                            SA(i, j) = fma(-lv[t], u0, x0);
                            SA(i, j + BSI_LNW) = fma(-lv[t], u1, x1);
                        }
                    }
                }
                if (j < n) {
                    const R u = SA(k, j);
#pragma unroll
                    for (int t = 0; t < 4; t++) {
                        const int i = k + 1 + lane + 32 * t;
                        if (i < n) SA(i, j) = fma(-lv[t], u, SA(i, j));
                    }
                }
            }
            __syncthreads();
        }
    }

    if (OP == BSI_OP_GETRF) {
        const int v = bad ? BSOLVE_INFO_NONFINITE : pinfo;
        if (tid == 0) {
            a.info[sys] = v;
            a.finfo[sys] = v;
        }
        for (int k = tid; k < n; k += BSI_LNT) {
            a.rp[k * a.fld + sys] = rp[k];
            a.cp[k * a.fld + sys] = cp[k];
        }
        R *dst = a.F + sys;
        const int64_t js = (int64_t)n * a.fld;
        for (int j = 0; j < n; j++)
            for (int i = tid; i < n; i += BSI_LNT) dst[i * a.fld + j * js] = SA(i, j);
        return;
    }

    /* ---- solves (warp 0) ---- */
    const int finfo = OP == BSI_OP_GESV ? (bad ? BSOLVE_INFO_NONFINITE : pinfo) : pinfo;
    if (w != 0) return;
    R *B = a.B + sys * a.vb.ks;
    const int64_t is = a.vb.is, js = a.vb.js;
    int badb = 0, firstbad = -1;
    for (int c = 0; c < a.nrhs; c++) {
        int nb = 0;
        for (int i = lane; i < n; i += 32) {
            const R v = B[i * is + c * js];
            nb |= !(fabs(v) <= bsi_lmax<R>());
            b[i] = v;
        }
        nb = __any_sync(0xffffffffu, nb);
        if (nb && !badb) firstbad = c;
        badb |= nb;
        __syncwarp();
        for (int k = 0; k < n; k++) {
            const int p = rp[k];
            const R bk = b[k], bp = b[p];
            __syncwarp();
            /* interchange k <-> p: lane 0 writes b_k, the owner of row p > k writes b_p */
            if (lane == 0) b[k] = bp;
            for (int i = k + 1 + lane; i < n; i += 32) b[i] = fma(-SA(i, k), bp, (i == p) ? bk : b[i]);
            __syncwarp();
        }
        for (int i = n - 1; i >= 0; i--) {
            const R xi = (b[i] * (tf[i] ? bsi_lup<R>() : R(1))) * rd[i];
            __syncwarp();
            if (lane == 0) b[i] = xi;
            for (int r = lane; r < i; r += 32) b[r] = fma(-SA(r, i), xi, b[r]);
            __syncwarp();
        }
        if (pivot == BSOLVE_PIVOT_FULL && lane == 0)
            for (int k = n - 1; k >= 0; k--) {
                const int q = cp[k];
                const R t = b[k];
                b[k] = b[q];
                b[q] = t;
            }
        __syncwarp();
        const bool nanfill = finfo != 0 || badb;
        for (int i = lane; i < n; i += 32) B[i * is + c * js] = nanfill ? bsi_lnan<R>() : b[i];
        __syncwarp();
    }
    if (finfo == 0 && firstbad > 0)
        for (int c = 0; c < firstbad; c++)
            for (int i = lane; i < n; i += 32) B[i * is + c * js] = bsi_lnan<R>();
    if (a.info && lane == 0) a.info[sys] = badb ? BSOLVE_INFO_NONFINITE : finfo;
#undef SA
}

template <typename R, int OP, int NT, bool LIST>
static cudaError_t bsi_launch_large_t(const bsi_lu_args<R> &a, cudaStream_t st)
{
    const size_t smem = bsi_large_smem<R>(a.n);
    cudaError_t e = cudaFuncSetAttribute(bsi_k_large<R, OP, NT, LIST>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem);
    if (e != cudaSuccess) return e;
    bsi_k_large<R, OP, NT, LIST><<<(unsigned)a.count, NT, smem, st>>>(a);
    return cudaGetLastError();
}

template <typename R> cudaError_t bsi_launch_large(int op, const bsi_lu_args<R> &a, cudaStream_t st)
{
    if (a.count > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
    constexpr int NT = BSI_LU_BLOCK_THREADS; /* lu_dispatch.cuh */
    if (op == BSI_OP_GESV) return bsi_launch_large_t<R, BSI_OP_GESV, NT, false>(a, st);
    if (op == BSI_OP_GETRF)
        return a.nsel ? bsi_launch_large_t<R, BSI_OP_GETRF, NT, true>(a, st)
                     : bsi_launch_large_t<R, BSI_OP_GETRF, NT, false>(a, st);
    return a.nsel ? bsi_launch_large_t<R, BSI_OP_GETRS, NT, true>(a, st)
                 : bsi_launch_large_t<R, BSI_OP_GETRS, NT, false>(a, st);
}

template cudaError_t bsi_launch_large<double>(int, const bsi_lu_args<double> &, cudaStream_t);
template cudaError_t bsi_launch_large<float>(int, const bsi_lu_args<float> &, cudaStream_t);
