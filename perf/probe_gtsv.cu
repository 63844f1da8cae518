/* perf/probe_gtsv.cu -- where the time of one bsolve_dgtsv call goes, for
 * the latency-bound shapes (few long systems).  For each "m x batch" given on
 * the command line (default: 65536x1 262144x1 1048576x1 65536x16), THOMAS,
 * contiguous, FP64, nrhs = 1, it prints the median of 21 runs of:
 *   host   the host time until the call returns (the GPU not waited for),
 *   iso    events around one call after a device synchronize (what
 *          bench_gtsv_gpu reports: host work before the first launch counts),
 *   b2b    events around 20 calls back to back, divided by 20 (host work
 *          hidden behind the GPU),
 *   ptrq   the host time of the call's five pointer queries
 *          (cudaPointerGetAttributes on dl, d, du, b, info), which precede
 *          its first launch,
 *   split  iso of the same work as g calls of batch / g systems, each on its
 *          own context and stream, forked from and joined to the timing
 *          stream (g = 2 and 4 where batch divides): whether one group's
 *          latency-bound levels hide behind another's passes over DRAM.
 * Build: make build/perf/probe_gtsv; run under ncu for per-kernel times. */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#include "batchsolve.h"
#include "bench_cuda.h"

/* diagonally dominant, varied: the partition method never falls back */
__global__ void k_fill(int64_t n, uint64_t seed, double *dl, double *d, double *du, double *b)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull + seed;
        z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
        const double u = (double)(z >> 11) * 0x1.0p-53;
        dl[i] = u - 0.5, du[i] = 0.25 - u, d[i] = 2.0 + u, b[i] = 1.0 - 2 * u;
    }
}

int main(int argc, char **argv)
{
    bsolve_ctx *ctx = nullptr;
    if (bsolve_ctx_create(&ctx, BSOLVE_BACKEND_CUDA) != BSOLVE_SUCCESS) {
        printf("SKIP: no CUDA device\n");
        return 0;
    }
    std::vector<std::pair<long long, long long>> shapes;
    for (int i = 1; i < argc; i++) {
        long long m, b;
        if (sscanf(argv[i], "%lldx%lld", &m, &b) == 2) shapes.push_back({m, b});
    }
    if (shapes.empty()) shapes = {{65536, 1}, {262144, 1}, {1048576, 1}, {65536, 16}};
    /* the split groups' contexts and streams */
    constexpr int NG = 4;
    bsolve_ctx *gctx[NG];
    cudaStream_t gst[NG];
    cudaEvent_t fork, join[NG];
    CU(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    for (int g = 0; g < NG; g++) {
        if (bsolve_ctx_create(&gctx[g], BSOLVE_BACKEND_CUDA) != BSOLVE_SUCCESS) return 1;
        CU(cudaStreamCreateWithFlags(&gst[g], cudaStreamNonBlocking));
        CU(cudaEventCreateWithFlags(&join[g], cudaEventDisableTiming));
        bsolve_ctx_set_stream(gctx[g], gst[g]);
    }
    printf("%10s %6s %9s %9s %9s %9s %10s %9s %9s\n", "m", "batch", "host_us", "iso_us", "b2b_us", "ptrq_us",
           "iso_1e9/s", "split2_us", "split4_us");
    for (const auto &sb : shapes) {
        const long long m = sb.first, batch = sb.second;
        const int64_t n = m * batch;
        double *p;
        int32_t *info;
        CU(cudaMalloc(&p, 4 * n * sizeof(double)));
        CU(cudaMalloc(&info, batch * sizeof(int32_t)));
        double *dl = p, *d = p + n, *du = p + 2 * n, *b = p + 3 * n;
        k_fill<<<1024, 256>>>(n, 12345, dl, d, du, b);
        CU(cudaGetLastError());
        const bsolve_tlayout l = bsolve_tlayout_contiguous(m, m);
        auto call = [&] {
            if (bsolve_dgtsv(ctx, BSOLVE_GTSV_THOMAS, m, 1, batch, dl, d, du, l, b, l, info) != BSOLVE_SUCCESS) {
                fprintf(stderr, "bsolve: %s\n", bsolve_ctx_message(ctx));
                exit(1);
            }
        };
        cudaEvent_t e0, e1;
        CU(cudaEventCreate(&e0));
        CU(cudaEventCreate(&e1));
        auto split = [&](int ng) {
            const long long bg = batch / ng;
            CU(cudaEventRecord(fork, 0));
            for (int g = 0; g < ng; g++) {
                const int64_t o = g * bg * m;
                CU(cudaStreamWaitEvent(gst[g], fork, 0));
                if (bsolve_dgtsv(gctx[g], BSOLVE_GTSV_THOMAS, m, 1, bg, dl + o, d + o, du + o, l, b + o, l,
                                 info + g * bg) != BSOLVE_SUCCESS) {
                    fprintf(stderr, "bsolve: %s\n", bsolve_ctx_message(gctx[g]));
                    exit(1);
                }
                CU(cudaEventRecord(join[g], gst[g]));
                CU(cudaStreamWaitEvent(0, join[g], 0));
            }
        };
        std::vector<double> host, iso, b2b, ptrq, sp[2];
        call();
        for (int r = 0; r < 21; r++) {
            CU(cudaDeviceSynchronize());
            CU(cudaEventRecord(e0));
            const auto t0 = std::chrono::steady_clock::now();
            call();
            const auto t1 = std::chrono::steady_clock::now();
            CU(cudaEventRecord(e1));
            CU(cudaEventSynchronize(e1));
            float ms;
            CU(cudaEventElapsedTime(&ms, e0, e1));
            host.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
            iso.push_back(ms * 1e3);
            CU(cudaEventRecord(e0));
            for (int k = 0; k < 20; k++) call();
            CU(cudaEventRecord(e1));
            CU(cudaEventSynchronize(e1));
            CU(cudaEventElapsedTime(&ms, e0, e1));
            b2b.push_back(ms * 1e3 / 20);
            const void *ptrs[5] = {dl, d, du, b, info};
            const auto q0 = std::chrono::steady_clock::now();
            for (const void *q : ptrs) {
                cudaPointerAttributes at;
                CU(cudaPointerGetAttributes(&at, q));
            }
            ptrq.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - q0).count());
            for (int i = 0; i < 2; i++) {
                const int ng = 2 << i;
                if (batch % ng) continue;
                if (r == 0) split(ng); /* warm the groups' workspaces */
                CU(cudaDeviceSynchronize());
                CU(cudaEventRecord(e0));
                split(ng);
                CU(cudaEventRecord(e1));
                CU(cudaEventSynchronize(e1));
                CU(cudaEventElapsedTime(&ms, e0, e1));
                sp[i].push_back(ms * 1e3);
            }
        }
        const double ti = median(iso);
        printf("%10lld %6lld %9.1f %9.1f %9.1f %9.1f %10.2f %9.1f %9.1f\n", m, batch, median(host), ti, median(b2b),
               median(ptrq), n / ti * 1e-3, sp[0].empty() ? 0.0 : median(sp[0]), sp[1].empty() ? 0.0 : median(sp[1]));
        CU(cudaEventDestroy(e0));
        CU(cudaEventDestroy(e1));
        CU(cudaFree(p));
        CU(cudaFree(info));
    }
    for (int g = 0; g < NG; g++) {
        bsolve_ctx_destroy(gctx[g]);
        CU(cudaStreamDestroy(gst[g]));
        CU(cudaEventDestroy(join[g]));
    }
    CU(cudaEventDestroy(fork));
    bsolve_ctx_destroy(ctx);
    return 0;
}
