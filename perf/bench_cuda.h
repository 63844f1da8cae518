/*
 * bench_cuda.h -- what the CUDA benchmarks and probes in perf/ share:
 * checks that end the program on a failed call and the median; for those
 * against cuBLAS (bench_gpu.cu, bench_qr_gpu.cu) also the random fill of
 * their inputs, the copies that give cuBLAS its column-major systems and
 * pointer arrays, and the event timing (one warm-up, median of NRUNS).
 */
#ifndef BSI_BENCH_CUDA_H
#define BSI_BENCH_CUDA_H

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>

#include "batchsolve.h"

#include "../test/common/cu_check.h" /* CU(x) */
/* a failed batchsolve call (the context in scope is `ctx`) */
#define BS(x)                                                                                  \
    do {                                                                                       \
        bsolve_status s_ = (x);                                                                \
        if (s_ != BSOLVE_SUCCESS) {                                                            \
            fprintf(stderr, "batchsolve error %d at %s:%d: %s\n", (int)s_, __FILE__, __LINE__, \
                    bsolve_ctx_message(ctx));                                                  \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

/* p[t] uniform in [-1, 1], never 0, from a hash of (t, seed) */
template <typename R> __global__ void k_fill(R *p, size_t cnt, uint64_t seed)
{
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < cnt; t += (size_t)gridDim.x * blockDim.x) {
        uint64_t x = (t + 1) * 0x9e3779b97f4a7c15ULL ^ seed;
        x ^= x >> 31; x *= 0xbf58476d1ce4e5b9ULL; x ^= x >> 27; x *= 0x94d049bb133111ebULL; x ^= x >> 33;
        const double u = (double)(x >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        p[t] = (R)(u == 0 ? 0.5 : u);
    }
}
/* interleaved (rc entries per system) -> packed column-major */
template <typename R> __global__ void k_il2cm(const R *src, R *dst, int64_t rc, int64_t batch)
{
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < rc * batch; t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t k = t / rc, e = t - k * rc;
        dst[t] = src[e * batch + k];
    }
}
/* p[k] = base + k * stride: cuBLAS's pointer arrays */
template <typename R> __global__ void k_ptrs(R **p, R *base, int64_t stride, int64_t batch)
{
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < batch; k += (int64_t)gridDim.x * blockDim.x)
        p[k] = base + k * stride;
}

inline int NRUNS = 5; /* BSOLVE_BENCH_RUNS */

inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/* ms of f() (device work on the legacy default stream): one warm-up, then
 * the median of NRUNS runs, prep() before each outside the events.  An f
 * that returns bool may refuse (false at the warm-up): then -1. */
template <typename F, typename P> static double time_ms(F f, P prep)
{
    cudaEvent_t a, b;
    CU(cudaEventCreate(&a));
    CU(cudaEventCreate(&b));
    prep();
    if constexpr (std::is_same<decltype(f()), bool>::value) {
        if (!f()) {
            cudaEventDestroy(a);
            cudaEventDestroy(b);
            return -1;
        }
    } else {
        f();
    }
    CU(cudaDeviceSynchronize());
    std::vector<double> t;
    for (int r = 0; r < NRUNS; r++) {
        prep();
        CU(cudaEventRecord(a, 0));
        f();
        CU(cudaEventRecord(b, 0));
        CU(cudaEventSynchronize(b));
        float ms;
        CU(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    CU(cudaGetLastError());
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return median(t);
}

#endif
