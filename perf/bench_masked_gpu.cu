/*
 * bench_masked_gpu.cu -- the masked LU calls on the GPU (issue 37's ensemble
 * shape): bsolve_dgetrf_masked and bsolve_dgetrs_masked (one right-hand
 * side) of a batch on device arrays, interleaved, with a uniformly random
 * fraction of the systems flagged, each way the library can run them:
 *
 *   getrf  gathered   the table's choice (lu_dispatch.cuh's GATHER)
 *          listed     BSI_FORCE_LU_GATHER=1: the kernel on the list in place
 *          cm listed  the same with a column-major A (a system's entries
 *                     together: what scattered reads cost, apart from the
 *                     scattered writes of the factors)
 *          whole      unmasked getrf of the whole batch (the rate to reach)
 *   getrs  team       the table's choice (the team getrs on the list)
 *          thread     BSI_FORCE_LU_RSTEAM=1: the thread-per-system getrs
 *          shape X    the team getrs forced to shape code X
 *          whole      unmasked getrs of the whole batch
 *
 * Printed: ms per call (CUDA events, one warm-up, median of
 * BSOLVE_BENCH_RUNS, default 5) and flagged systems per second.  Env:
 * BSOLVE_BENCH_NS (orders, default 54), BSOLVE_BENCH_BATCH (default 100000),
 * BSOLVE_BENCH_FRACS (default 0.05,0.25,0.6,1), BSOLVE_BENCH_SHAPES (team
 * getrs shape codes to try, default 111,112,1411,1811; the table's at n = 54 is 1112).  FP64, PARTIAL.
 */
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "bench_cuda.h"
#include "internal.h" /* bsi_test_force */

static std::vector<double> list_env(const char *name, const char *dflt)
{
    const char *e = getenv(name);
    std::vector<double> v;
    for (const char *p = e && *e ? e : dflt; *p;) {
        v.push_back(atof(p));
        p += strcspn(p, ",");
        if (*p) p++;
    }
    return v;
}

/* diagonally heavy random matrices: no failed factorization to skew a rate */
__global__ void k_diag(double *A, int n, int64_t ld, int64_t batch)
{
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < batch; k += (int64_t)gridDim.x * blockDim.x)
        for (int i = 0; i < n; i++) A[(i + (int64_t)i * n) * ld + k] += 4.0;
}

static void run(bsolve_ctx *ctx, int n, int64_t batch, const std::vector<double> &fracs, const std::vector<double> &shapes)
{
    const size_t nn = (size_t)n * n, bytes = nn * (size_t)batch * sizeof(double);
    double *A, *Acm, *B, *B0;
    uint8_t *dm;
    int32_t *info;
    CU(cudaMalloc(&A, bytes));
    CU(cudaMalloc(&Acm, bytes));
    CU(cudaMalloc(&B, (size_t)n * batch * sizeof(double)));
    CU(cudaMalloc(&B0, (size_t)n * batch * sizeof(double)));
    CU(cudaMalloc(&dm, (size_t)batch));
    CU(cudaMalloc(&info, (size_t)batch * 4));
    k_fill<double><<<1024, 256>>>(A, nn * batch, 11);
    k_diag<<<256, 256>>>(A, n, batch, batch);
    k_il2cm<double><<<1024, 256>>>(A, Acm, (int64_t)nn, batch);
    k_fill<double><<<1024, 256>>>(B0, (size_t)n * batch, 12);
    CU(cudaDeviceSynchronize());
    const bsolve_layout la = bsolve_layout_interleaved(batch), lcm = bsolve_layout_col_major(n, (int64_t)nn),
                        lb = bsolve_layout_interleaved(batch);
    bsolve_lu *lu = nullptr;
    BS(bsolve_lu_create(ctx, BSOLVE_PREC_D, BSOLVE_PIVOT_PARTIAL, n, batch, &lu));
    BS(bsolve_dgetrf(ctx, A, la, lu, info));
    auto rb = [&]() { CU(cudaMemcpyAsync(B, B0, (size_t)n * batch * sizeof(double), cudaMemcpyDeviceToDevice, 0)); };
    auto none = []() {};
    const double whole_f = time_ms([&]() { BS(bsolve_dgetrf(ctx, A, la, lu, info)); }, none);
    const double whole_s = time_ms([&]() { BS(bsolve_dgetrs(ctx, lu, 1, B, lb, nullptr)); }, rb);
    printf("n=%d batch=%lld: whole batch getrf %.3f ms (%.3g/s), getrs %.3f ms (%.3g/s)\n", n, (long long)batch,
           whole_f, batch / whole_f * 1e3, whole_s, batch / whole_s * 1e3);
    printf("%-6s %8s | %-28s %-28s %-28s | %-28s %-28s", "frac", "flagged", "getrf gathered", "getrf listed",
           "getrf cm listed", "getrs team", "getrs thread");
    for (double s : shapes) printf(" shape %-21d", (int)s);
    printf("\n");
    std::vector<uint8_t> m((size_t)batch);
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (double q : fracs) {
        int64_t cnt = 0;
        for (int64_t k = 0; k < batch; k++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            m[k] = q >= 1 || (double)(x >> 11) / 9007199254740992.0 < q;
            cnt += m[k];
        }
        CU(cudaMemcpy(dm, m.data(), (size_t)batch, cudaMemcpyHostToDevice));
        auto cell = [&](double ms) {
            char buf[64];
            snprintf(buf, sizeof buf, "%8.3f ms %9.3g/s", ms, cnt / ms * 1e3);
            printf(" %-28s", buf);
        };
        printf("%-6.2f %8lld |", q, (long long)cnt);
        cell(time_ms([&]() { BS(bsolve_dgetrf_masked(ctx, A, la, lu, dm, info)); }, none));
        BS(bsi_test_force(ctx, BSI_FORCE_LU_GATHER, 1));
        cell(time_ms([&]() { BS(bsolve_dgetrf_masked(ctx, A, la, lu, dm, info)); }, none));
        cell(time_ms([&]() { BS(bsolve_dgetrf_masked(ctx, Acm, lcm, lu, dm, info)); }, none));
        BS(bsi_test_force(ctx, BSI_FORCE_LU_GATHER, 0));
        printf(" |");
        cell(time_ms([&]() { BS(bsolve_dgetrs_masked(ctx, lu, 1, B, lb, dm, nullptr)); }, rb));
        BS(bsi_test_force(ctx, BSI_FORCE_LU_RSTEAM, 1));
        cell(time_ms([&]() { BS(bsolve_dgetrs_masked(ctx, lu, 1, B, lb, dm, nullptr)); }, rb));
        for (double s : shapes) {
            BS(bsi_test_force(ctx, BSI_FORCE_LU_RSTEAM, (int)s));
            cell(time_ms([&]() { BS(bsolve_dgetrs_masked(ctx, lu, 1, B, lb, dm, nullptr)); }, rb));
        }
        BS(bsi_test_force(ctx, BSI_FORCE_LU_RSTEAM, 0));
        printf("\n");
        fflush(stdout);
    }
    bsolve_lu_destroy(lu);
    CU(cudaFree(A));
    CU(cudaFree(Acm));
    CU(cudaFree(B));
    CU(cudaFree(B0));
    CU(cudaFree(dm));
    CU(cudaFree(info));
}

int main()
{
    if (const char *e = getenv("BSOLVE_BENCH_RUNS")) NRUNS = std::max(1, atoi(e));
    const std::vector<double> ns = list_env("BSOLVE_BENCH_NS", "54"), fracs = list_env("BSOLVE_BENCH_FRACS", "0.05,0.25,0.6,1"),
                              shapes = list_env("BSOLVE_BENCH_SHAPES", "111,112,1411,1811");
    const char *eb = getenv("BSOLVE_BENCH_BATCH");
    const int64_t batch = eb && *eb ? atoll(eb) : 100000;
    bsolve_ctx *ctx = nullptr;
    if (bsolve_ctx_create(&ctx, BSOLVE_BACKEND_CUDA) != BSOLVE_SUCCESS) {
        printf("SKIP: no CUDA device\n");
        return 0;
    }
    cudaDeviceProp p;
    CU(cudaGetDeviceProperties(&p, 0));
    printf("%s, FP64 PARTIAL, interleaved, device arrays; median of %d runs\n", p.name, NRUNS);
    for (double n : ns) run(ctx, (int)n, batch, fracs, shapes);
    bsolve_ctx_destroy(ctx);
    return 0;
}
