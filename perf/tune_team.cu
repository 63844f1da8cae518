/*
 * tune_team.cu -- the team size T of the register LU kernel
 * (cuda/lu_small.cuh) for a few orders, the measurement behind
 * bsi_lu_team() in cuda/lu_dispatch.cuh: FP64 gesv PARTIAL on ~1 GB of
 * interleaved device data, the table's T against alternatives, with the
 * registers and local memory (spills) of each instantiation.  T is a
 * template argument, so the kernels are launched directly, not through a
 * forced choice.
 * Not part of make bench; built and run by perf/device-run.sh when TUNE=1.
 */
#include <cstdio>
#include <vector>
#include <algorithm>
#include "lu_small.cuh"

template <typename R> __global__ void k_fill(R *p, size_t cnt, uint64_t seed)
{
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < cnt; t += (size_t)gridDim.x * blockDim.x) {
        uint64_t x = (t + 1) * 0x9e3779b97f4a7c15ULL ^ seed;
        x ^= x >> 31; x *= 0xbf58476d1ce4e5b9ULL; x ^= x >> 27;
        double u = (double)(x >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        p[t] = (R)(u == 0 ? 0.5 : u);
    }
}

template <int N, int T> static void run(double floor_bw)
{
    typedef double R;
    const int64_t batch = (int64_t)((1ull << 30) / (N * N * 8)) / 32 * 32;
    R *A, *B;
    int32_t *info;
    cudaMalloc(&A, (size_t)N * N * batch * 8);
    cudaMalloc(&B, (size_t)N * batch * 8);
    cudaMalloc(&info, batch * 4);
    k_fill<R><<<4096, 256>>>(A, (size_t)N * N * batch, 1);
    k_fill<R><<<4096, 256>>>(B, (size_t)N * batch, 2);
    bsi_lu_args<R> a;
    memset(&a, 0, sizeof a);
    a.A = A; a.va.ks = 1; a.va.is = batch; a.va.js = (int64_t)N * batch;
    a.B = B; a.vb.ks = 1; a.vb.is = batch; a.vb.js = (int64_t)N * batch;
    a.info = info; a.count = batch; a.n = N; a.nrhs = 1; a.pivot = BSOLVE_PIVOT_PARTIAL;
    cudaFuncAttributes fa;
    cudaFuncGetAttributes(&fa, bsi_k_small<R, N, T, BSI_OP_GESV, false>);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0); cudaEventCreate(&e1);
    bsi_launch_small_nt<R, N, T>(BSI_OP_GESV, a, 0);
    std::vector<float> ts;
    for (int r = 0; r < 5; r++) {
        cudaEventRecord(e0);
        bsi_launch_small_nt<R, N, T>(BSI_OP_GESV, a, 0);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms; cudaEventElapsedTime(&ms, e0, e1); ts.push_back(ms);
    }
    std::sort(ts.begin(), ts.end());
    const double sps = batch / (ts[2] * 1e-3), fl = floor_bw / (8.0 * (N * N + 2 * N));
    printf("tune N=%2d T=%2d regs=%3d local=%4zu B  %.3g systems/s  %.0f%% of floor  (%s)\n", N, T, fa.numRegs,
           fa.localSizeBytes, sps, 100 * sps / fl, cudaGetErrorString(cudaGetLastError()));
    cudaFree(A); cudaFree(B); cudaFree(info);
}

int main()
{
    const double bw = 2.95e12; /* D2D read+write, measured in bench_gpu on the H100 */
    run<10, 4>(bw); run<10, 2>(bw);
    run<12, 4>(bw); run<12, 2>(bw);
    run<16, 8>(bw); run<16, 4>(bw);
    run<20, 16>(bw); run<20, 8>(bw);
    run<24, 16>(bw); run<24, 8>(bw);
    run<32, 32>(bw); run<32, 16>(bw);
    return 0;
}
