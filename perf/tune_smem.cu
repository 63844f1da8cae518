/*
 * tune_smem.cu -- the team variant of the shared-memory LU kernel
 * (cuda/lu_smem.cuh, bsm_team_k: T lanes per system) against the
 * one-thread kernel, gesv PARTIAL on ~1 GB of interleaved device data: rate,
 * fraction of the copy floor, registers and local memory of each
 * instantiation, and a check of every solution of the first systems
 * (normwise backward error on the host, in units of n eps).  T is a template
 * argument, so the kernels are launched directly.
 * Not part of make bench: a device script builds it with
 *   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Isrc -Icuda perf/tune_smem.cu -o tune_smem
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "lu_smem.cuh"

template <typename R> __global__ void k_fill(R *p, size_t cnt, uint64_t seed)
{
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < cnt; t += (size_t)gridDim.x * blockDim.x) {
        uint64_t x = (t + 1) * 0x9e3779b97f4a7c15ULL ^ seed;
        x ^= x >> 31;
        x *= 0xbf58476d1ce4e5b9ULL;
        x ^= x >> 27;
        const double u = (double)(x >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        p[t] = (R)(u == 0 ? 0.5 : u);
    }
}

static double g_bw; /* device-to-device copy, bytes read + written per second */

static void measure_bw()
{
    const size_t bytes = 1ull << 30;
    void *a, *b;
    cudaMalloc(&a, bytes);
    cudaMalloc(&b, bytes);
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    float best = 1e30f;
    for (int r = 0; r < 5; r++) {
        cudaEventRecord(e0);
        cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        best = std::min(best, ms);
    }
    g_bw = 2.0 * bytes / (best * 1e-3);
    cudaFree(a);
    cudaFree(b);
}

/* T = 0: the one-thread kernel (bsm_k); else the team variant. */
template <typename R, int N, int T> static void run()
{
    const int64_t batch = (int64_t)((1ull << 30) / (N * N * sizeof(R))) / 32 * 32;
    R *A, *B, *B0;
    int32_t *info;
    cudaMalloc(&A, (size_t)N * N * batch * sizeof(R));
    cudaMalloc(&B, (size_t)N * batch * sizeof(R));
    cudaMalloc(&B0, (size_t)N * batch * sizeof(R));
    cudaMalloc(&info, batch * 4);
    k_fill<R><<<4096, 256>>>(A, (size_t)N * N * batch, 1);
    k_fill<R><<<4096, 256>>>(B0, (size_t)N * batch, 2);
    cudaMemcpy(B, B0, (size_t)N * batch * sizeof(R), cudaMemcpyDeviceToDevice);
    bsi_lu_args<R> a;
    memset(&a, 0, sizeof a);
    a.A = A;
    a.va.ks = 1; a.va.is = batch; a.va.js = (int64_t)N * batch;
    a.B = B;
    a.vb.ks = 1; a.vb.is = batch; a.vb.js = (int64_t)N * batch;
    a.info = info;
    a.count = batch;
    a.n = N;
    a.nrhs = 1;
    a.pivot = BSOLVE_PIVOT_PARTIAL;
    cudaFuncAttributes fa;
    auto launch = [&]() {
        if constexpr (T == 0) return bsm_launch_n<R, N>(BSI_OP_GESV, a, 0);
        else return bsm_team_launch<R, N, T>(BSI_OP_GESV, a, 0);
    };
    if constexpr (T == 0) cudaFuncGetAttributes(&fa, bsm_k<R, N, BSI_OP_GESV>);
    else cudaFuncGetAttributes(&fa, bsm_team_k<R, N, T, BSI_OP_GESV>);
    cudaError_t le = launch();
    cudaDeviceSynchronize();
    /* check the first systems: ||A x - b|| / ((||A|| ||x|| + ||b||) n eps) */
    const int64_t nc = std::min<int64_t>(batch, 4096);
    std::vector<R> hA((size_t)N * N * batch > 0 ? (size_t)N * N * nc : 0), hx((size_t)N * nc), hb((size_t)N * nc);
    std::vector<int32_t> hi(nc);
    for (int e = 0; e < N * N; e++) cudaMemcpy(&hA[(size_t)e * nc], A + (size_t)e * batch, nc * sizeof(R), cudaMemcpyDeviceToHost);
    for (int e = 0; e < N; e++) {
        cudaMemcpy(&hx[(size_t)e * nc], B + (size_t)e * batch, nc * sizeof(R), cudaMemcpyDeviceToHost);
        cudaMemcpy(&hb[(size_t)e * nc], B0 + (size_t)e * batch, nc * sizeof(R), cudaMemcpyDeviceToHost);
    }
    cudaMemcpy(hi.data(), info, nc * 4, cudaMemcpyDeviceToHost);
    const double eps = sizeof(R) == 8 ? 2.220446049250313e-16 : 1.1920928955078125e-07;
    double worst = 0;
    int64_t nbad = 0;
    for (int64_t s = 0; s < nc; s++) {
        double an = 0, xn = 0, bn = 0, rn = 0;
        for (int i = 0; i < N; i++) {
            double row = 0, r = -(double)hb[i * nc + s];
            for (int j = 0; j < N; j++) {
                const double aij = hA[(size_t)(i + j * N) * nc + s];
                row += std::fabs(aij);
                r += aij * (double)hx[j * nc + s];
            }
            an = std::max(an, row);
            xn = std::max(xn, std::fabs((double)hx[i * nc + s]));
            bn = std::max(bn, std::fabs((double)hb[i * nc + s]));
            rn = std::max(rn, std::fabs(r));
        }
        const double ratio = rn / ((an * xn + bn) * N * eps);
        if (!(ratio < 30) || hi[s] != 0) nbad++;
        if (!(ratio <= worst)) worst = ratio;
    }
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<float> ts;
    for (int r = 0; r < 5; r++) {
        cudaEventRecord(e0);
        launch();
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        ts.push_back(ms);
    }
    std::sort(ts.begin(), ts.end());
    const double sps = batch / (ts[2] * 1e-3), fl = g_bw / ((double)sizeof(R) * (N * N + 2 * N));
    printf("%s N=%2d T=%2d regs=%3d local=%4zu B  %.3g systems/s  %4.1f%% of floor  backward error worst %.2g n eps, "
           "%lld of %lld systems bad  (%s)\n",
           sizeof(R) == 8 ? "d" : "s", N, T, fa.numRegs, fa.localSizeBytes, sps, 100 * sps / fl, worst,
           (long long)nbad, (long long)nc, cudaGetErrorString(le != cudaSuccess ? le : cudaGetLastError()));
    fflush(stdout);
    cudaFree(A);
    cudaFree(B);
    cudaFree(B0);
    cudaFree(info);
}

int main()
{
    measure_bw();
    printf("D2D copy %.0f GB/s\n", g_bw / 1e9);
    run<double, 16, 0>();
    run<double, 16, 2>();
    run<double, 16, 4>();
    run<double, 20, 4>();
    run<double, 24, 4>();
    run<double, 24, 8>();
    run<double, 32, 8>();
    run<double, 32, 16>();
    run<float, 24, 4>();
    run<float, 32, 8>();
    return 0;
}
