/*
 * bench_qr_gpu.cu -- batchsolve's CUDA QR (bsolve_dgels) against cuBLAS
 * (cublasDgelsBatched, cublasDgeqrfBatched) and against our own LU gesv.
 *
 * FP64, nrhs = 1, n in {4, 8, 16, 32, 64}, m in {n, 2n}, about
 * BSOLVE_BENCH_MB (default 512) MB of matrices per case, device memory,
 * the context on the legacy default stream:
 *   ours   dgels on INTERLEAVED and on COL_MAJOR (packed) input;
 *   cuBLAS cublasDgelsBatched and cublasDgeqrfBatched on column-major
 *          copies through pointer arrays (both overwrite A: a fresh copy
 *          before every run, outside the timing);
 *   LU     our dgesv PARTIAL, interleaved (square cases).
 * CUDA events, one warm-up, median of BSOLVE_BENCH_RUNS (default 5) runs,
 * B restored before every run.  The floor is es*(m*n + 2m) bytes per
 * system (A and b read, x written) over the measured D2D bandwidth.  Our x
 * is compared with cuBLAS's on the first 1000 systems (maxrel column).
 * BSOLVE_BENCH_OURS=1: only our dgels on interleaved input, =2 on both
 * layouts, appended to the CSV (sweeps of BSOLVE_BENCH_FORCE, e.g.
 * QR_TEAM=64: kernel choices forced on the context, perf/bench_force.h);
 * BSOLVE_BENCH_SHAPES="16x16,32x64" (n x m, any shape) picks shapes.
 * Writes bench_qr_gpu.csv in $BSOLVE_BENCH_DIR (default .); its column
 * "team" is the forced choices ("auto": the dispatch table's).
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "batchsolve.h"
#include "bench_cuda.h"
#include "bench_force.h"

static double g_d2d = 0;
static FILE *csv;
static std::string g_force = "auto"; /* BSOLVE_BENCH_FORCE's label */

static void bench(bsolve_ctx *ctx, cublasHandle_t h, int m, int n, size_t mb, bool ours_only, bool ours_cm)
{
    const int64_t mn = (int64_t)m * n;
    int64_t batch = (int64_t)((mb << 20) / ((size_t)mn * 8));
    batch = std::max<int64_t>(batch / 32 * 32, 1024);
    double *A, *Acm, *Aw, *B0, *B, *Bcm, *Bw, *tau, **pA, **pB, **pT;
    int32_t *info, *dinfo;
    CU(cudaMalloc(&A, mn * batch * 8));
    CU(cudaMalloc(&Acm, mn * batch * 8));
    CU(cudaMalloc(&Aw, mn * batch * 8));
    CU(cudaMalloc(&B0, m * batch * 8));
    CU(cudaMalloc(&B, m * batch * 8));
    CU(cudaMalloc(&Bcm, m * batch * 8));
    CU(cudaMalloc(&Bw, m * batch * 8));
    CU(cudaMalloc(&tau, n * batch * 8));
    CU(cudaMalloc(&info, batch * 4));
    CU(cudaMalloc(&dinfo, batch * 4));
    CU(cudaMalloc(&pA, batch * sizeof(double *)));
    CU(cudaMalloc(&pB, batch * sizeof(double *)));
    CU(cudaMalloc(&pT, batch * sizeof(double *)));
    k_fill<<<4096, 256>>>(A, mn * batch, 12345 + 1000 * m + n);
    k_fill<<<4096, 256>>>(B0, m * batch, 999 + 1000 * m + n);
    k_il2cm<<<4096, 256>>>(A, Acm, mn, batch);
    k_il2cm<<<4096, 256>>>(B0, Bcm, m, batch);
    k_ptrs<<<1024, 256>>>(pA, Aw, mn, batch);
    k_ptrs<<<1024, 256>>>(pB, Bw, m, batch);
    k_ptrs<<<1024, 256>>>(pT, tau, n, batch);
    CU(cudaDeviceSynchronize());
    const double bytes = 8.0 * (mn + 2.0 * m), floor_sps = g_d2d * 1e9 / bytes;
    const bsolve_layout lil = bsolve_layout_interleaved(batch), lcm = bsolve_layout_col_major(m, mn),
                        lbcm = bsolve_layout_col_major(m, m);
    auto rB = [&] { CU(cudaMemcpyAsync(B, B0, m * batch * 8, cudaMemcpyDeviceToDevice, 0)); };
    auto rBcm = [&] { CU(cudaMemcpyAsync(Bw, Bcm, m * batch * 8, cudaMemcpyDeviceToDevice, 0)); };
    auto rC = [&] {
        CU(cudaMemcpyAsync(Aw, Acm, mn * batch * 8, cudaMemcpyDeviceToDevice, 0));
        CU(cudaMemcpyAsync(Bw, Bcm, m * batch * 8, cudaMemcpyDeviceToDevice, 0));
    };
    const double t_il = time_ms([&] { BS(bsolve_dgels(ctx, m, n, 1, batch, A, lil, B, lil, info)); return true; }, rB);
    std::vector<double> xil(1000 * (size_t)n);
    {
        std::vector<double> hb((size_t)m * batch);
        CU(cudaMemcpy(hb.data(), B, m * batch * 8, cudaMemcpyDeviceToHost));
        for (int k = 0; k < 1000 && k < batch; k++)
            for (int i = 0; i < n; i++) xil[(size_t)k * n + i] = hb[(size_t)i * batch + k];
    }
    double t_cm = -1, t_cg = -1, t_cq = -1, t_lu = -1, maxrel = NAN;
    if (!ours_only || ours_cm)
        t_cm = time_ms([&] { BS(bsolve_dgels(ctx, m, n, 1, batch, Acm, lcm, Bw, lbcm, info)); return true; }, rBcm);
    if (!ours_only) {
        const int cb = (int)std::min<int64_t>(batch, 0x7fffffff);
        t_cg = time_ms([&] {
            int hinfo = 0;
            const cublasStatus_t s = cublasDgelsBatched(h, CUBLAS_OP_N, m, n, 1, pA, m, pB, m, &hinfo, dinfo, cb);
            return s == CUBLAS_STATUS_SUCCESS && hinfo == 0;
        }, rC);
        if (t_cg > 0) {
            std::vector<double> hb((size_t)m * 1000);
            CU(cudaMemcpy(hb.data(), Bw, std::min<int64_t>(batch, 1000) * m * 8, cudaMemcpyDeviceToHost));
            maxrel = 0;
            for (int k = 0; k < 1000 && k < batch; k++) {
                double xn = 0, dn = 0;
                for (int i = 0; i < n; i++) {
                    xn = std::max(xn, std::fabs(hb[(size_t)k * m + i]));
                    dn = std::max(dn, std::fabs(hb[(size_t)k * m + i] - xil[(size_t)k * n + i]));
                }
                maxrel = std::max(maxrel, dn / xn);
            }
        }
        t_cq = time_ms([&] {
            int hinfo = 0;
            const cublasStatus_t s = cublasDgeqrfBatched(h, m, n, pA, m, pT, &hinfo, cb);
            return s == CUBLAS_STATUS_SUCCESS && hinfo == 0;
        }, rC);
        if (m == n)
            t_lu = time_ms([&] { BS(bsolve_dgesv(ctx, BSOLVE_PIVOT_PARTIAL, n, 1, batch, A, lil, B, lil, info)); return true; }, rB);
    }
    auto sps = [&](double ms) { return ms > 0 ? batch / (ms * 1e-3) : NAN; };
    const bool forced = g_force != "auto";
    printf("| %2d | %3d | %8lld | %9.3g | %4.0f%% | %9.3g | %9.3g | %9.3g | %6.1fx | %6.1fx | %9.3g | %9.3g | %5s | %7.2g |%s%s\n", n,
           m, (long long)batch, floor_sps, 100.0 * sps(t_il) / floor_sps, sps(t_il), sps(t_cm), sps(t_cg),
           t_cg > 0 ? t_cg / t_il : NAN, t_cg > 0 && t_cm > 0 ? t_cg / t_cm : NAN, sps(t_cq), sps(t_lu),
           t_lu > 0 ? (std::to_string(t_il / t_lu).substr(0, 4) + "x").c_str() : "-", maxrel, forced ? " " : "",
           forced ? g_force.c_str() : "");
    fflush(stdout);
    if (csv)
        fprintf(csv, "%d,%d,%lld,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.3g\n", n, m, (long long)batch, g_force.c_str(),
                sps(t_il), sps(t_cm), sps(t_cg), sps(t_cq), sps(t_lu), floor_sps, maxrel);
    cudaFree(A); cudaFree(Acm); cudaFree(Aw); cudaFree(B0); cudaFree(B); cudaFree(Bcm); cudaFree(Bw);
    cudaFree(tau); cudaFree(info); cudaFree(dinfo); cudaFree(pA); cudaFree(pB); cudaFree(pT);
}

int main()
{
    const char *e = getenv("BSOLVE_BENCH_MB");
    const size_t mb = e ? (size_t)atol(e) : 512;
    if ((e = getenv("BSOLVE_BENCH_RUNS"))) NRUNS = std::max(1, atoi(e));
    const bool ours_only = (e = getenv("BSOLVE_BENCH_OURS")) && (*e == '1' || *e == '2'), ours_cm = ours_only && *e == '2';
    const char *dir = getenv("BSOLVE_BENCH_DIR");
    bsolve_ctx *ctx = nullptr;
    bsolve_status s = bsolve_ctx_create(&ctx, BSOLVE_BACKEND_CUDA);
    if (s == BSOLVE_ENODEVICE) {
        printf("SKIP: no CUDA device\n");
        return 0;
    }
    BS(s);
    g_force = bench_force(ctx);
    cudaDeviceProp prop;
    CU(cudaGetDeviceProperties(&prop, 0));
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasCreate failed\n");
        return 1;
    }
    {
        const size_t bytes = (size_t)256 << 20;
        void *d0, *d1;
        CU(cudaMalloc(&d0, bytes));
        CU(cudaMalloc(&d1, bytes));
        CU(cudaMemset(d0, 1, bytes));
        const double ms = time_ms([&] { CU(cudaMemcpyAsync(d1, d0, bytes, cudaMemcpyDeviceToDevice, 0)); return true; }, [] {});
        g_d2d = 2.0 * bytes / (ms * 1e-3) / 1e9;
        cudaFree(d0);
        cudaFree(d1);
    }
    printf("device: %s, %d SMs; D2D %.0f GB/s; FP64 dgels nrhs=1, %zu MB of matrices per case\n", prop.name,
           prop.multiProcessorCount, g_d2d, mb);
    std::string path = std::string(dir ? dir : ".") + "/bench_qr_gpu.csv";
    csv = fopen(path.c_str(), ours_only ? "a" : "w");
    if (csv && !ours_only) fprintf(csv, "n,m,batch,team,ours_il,ours_cm,cublas_gels,cublas_geqrf,lu_gesv_il,floor,maxrel\n");
    printf("| n | m | batch | floor/s | %%floor | ours IL | ours CM | cuBLAS gels | x gels IL | x gels CM | cuBLAS geqrf | LU gesv | QR/LU time | maxrel |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    const char *shapes = getenv("BSOLVE_BENCH_SHAPES"); /* e.g. "16x16,8x32": n x m, any shape */
    if (shapes) {
        for (const char *p = shapes; *p;) {
            int n = 0, m = 0, len = 0;
            if (sscanf(p, "%dx%d%n", &n, &m, &len) != 2 || n < 1 || m < n || n > 64 || m > 128) {
                fprintf(stderr, "BSOLVE_BENCH_SHAPES: expected n x m pairs with 1 <= n <= m, n <= 64, m <= 128 at '%s'\n", p);
                return 1;
            }
            bench(ctx, h, m, n, mb, ours_only, ours_cm);
            p += len;
            if (*p == ',') p++;
        }
    } else
        for (int n : {4, 8, 16, 32, 64})
            for (int m : {n, 2 * n}) bench(ctx, h, m, n, mb, ours_only, ours_cm);
    if (csv) fclose(csv);
    cublasDestroy(h);
    bsolve_ctx_destroy(ctx);
    return 0;
}
