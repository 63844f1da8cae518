/*
 * bench_gtsv_gpu.cu -- batched tridiagonal solves on the GPU, FP64, one
 * right-hand side, device pointers, side by side in one run:
 *   floor      a kernel reading dl, d, du, b and writing x once: 40 bytes
 *              per equation, the least any solver must move;
 *   bsolve     THOMAS / PARTIAL / GIVENS, interleaved (-il) and contiguous
 *              (-ct) layouts;
 *   cuSPARSE   gtsvInterleavedBatch algo 0 (Thomas), 1 (LU with partial
 *              pivoting), 2 (QR), gtsv2StridedBatch (contiguous), and gtsv2
 *              (one large system; few-long regime, batch 1 only).
 * Regimes: many systems, m in {8..4096} with 2^25 equations (1.34 GB of
 * data); few long systems, batch in {1, 4, 16, 64} x m in {2^16..2^22}.
 * Rates in 1e9 equations per second, median of BENCH_REPS (default 5)
 * timed runs (CUDA events) after one warm-up.  The matrices are diagonally
 * dominant in any layout (|d| >= 3, |dl|, |du| <= 1), so one set of arrays
 * serves every layout; cuSPARSE's interleaved routines overwrite their
 * diagonals, which are regenerated (untimed) before each of its runs.
 *
 *   build/perf/bench_gtsv_gpu [csv]    (default perf/bench_gtsv_gpu.csv)
 */
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "batchsolve.h"
#include "bench_cuda.h"

#define CS(x)                                                                              \
    do {                                                                                   \
        cusparseStatus_t s_ = (x);                                                         \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                                               \
            fprintf(stderr, "%s:%d: %s: cusparse status %d\n", __FILE__, __LINE__, #x, (int)s_); \
            return -1.0;                                                                   \
        }                                                                                  \
    } while (0)

static int reps = 5;

__device__ inline double hash01(uint64_t i, uint64_t seed)
{
    uint64_t z = i * 0x9e3779b97f4a7c15ULL + seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

__global__ void k_gen(int64_t n, double *dl, double *d, double *du, double *b)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        dl[i] = 2 * hash01(i, 1) - 1;
        du[i] = 2 * hash01(i, 2) - 1;
        d[i] = 3 + hash01(i, 3);
        if (b) b[i] = 2 * hash01(i, 4) - 1;
    }
}

/* The copy floor: read 4, write 1 per equation. */
__global__ void k_floor(int64_t n, const double *__restrict__ dl, const double *__restrict__ d,
                        const double *__restrict__ du, const double *__restrict__ b, double *__restrict__ x)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        x[i] = (b[i] - dl[i] - du[i]) / d[i];
}

struct Bufs {
    int64_t n;
    double *dl, *d, *du, *b, *x;
};

static void regen(const Bufs &B, bool rhs)
{
    k_gen<<<2048, 256>>>(B.n, B.dl, B.d, B.du, rhs ? B.b : nullptr);
    CU(cudaGetLastError());
}

/* Median time (s) of fn() over reps runs after one warm-up; prep() untimed before each. */
template <typename F, typename P> static double timeit(F fn, P prep)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> t;
    for (int r = 0; r <= reps; r++) {
        prep();
        CU(cudaDeviceSynchronize());
        cudaEventRecord(a);
        if (fn() != 0) {
            cudaEventDestroy(a), cudaEventDestroy(b);
            return -1;
        }
        cudaEventRecord(b);
        CU(cudaEventSynchronize(b));
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        if (r) t.push_back(ms);
    }
    cudaEventDestroy(a), cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2] * 1e-3;
}

static void *g_buf = nullptr;
static size_t g_bytes = 0;
static void *buf(size_t bytes)
{
    if (bytes > g_bytes) {
        if (g_buf) cudaFree(g_buf);
        g_buf = nullptr, g_bytes = 0;
        if (cudaMalloc(&g_buf, bytes) != cudaSuccess) {
            (void)cudaGetLastError();
            g_buf = nullptr;
            return nullptr; /* that solver's column shows "-" */
        }
        g_bytes = bytes;
    }
    return g_buf;
}

enum { FLOOR, BS_TH_IL, BS_PA_IL, BS_GI_IL, BS_TH_CT, BS_PA_CT, BS_GI_CT, CS_IB0, CS_IB1, CS_IB2, CS_SB, CS_GT2, NSOL };
static const char *sname[NSOL] = {"floor",  "bs-thom-il", "bs-part-il", "bs-givn-il", "bs-thom-ct", "bs-part-ct",
                                  "bs-givn-ct", "cs-ib0",   "cs-ib1",     "cs-ib2",     "cs-strided", "cs-gtsv2"};

/* Equations per second of solver s on `batch` systems of m (returns < 0 if unavailable). */
static double run(int s, bsolve_ctx *ctx, cusparseHandle_t h, const Bufs &B, int64_t m, int64_t batch, int32_t *info)
{
    const int64_t n = m * batch;
    auto none = [] {};
    double t = -1;
    if (s == FLOOR) {
        t = timeit([&] { k_floor<<<132 * 16, 256>>>(n, B.dl, B.d, B.du, B.b, B.x); return (int)cudaGetLastError(); },
                   none);
    } else if (s <= BS_GI_CT) {
        const int me = (s - BS_TH_IL) % 3;
        const bool il = s <= BS_GI_IL;
        const bsolve_tlayout l = il ? bsolve_tlayout_interleaved(batch) : bsolve_tlayout_contiguous(m, m);
        t = timeit(
            [&] {
                return (int)bsolve_dgtsv(ctx, (bsolve_gtsv_method)me, m, 1, batch, B.dl, B.d, B.du, l, B.b, l, info);
            },
            none);
        if (t < 0) fprintf(stderr, "bsolve: %s\n", bsolve_ctx_message(ctx));
    } else if (s <= CS_IB2) {
        const int algo = s - CS_IB0;
        size_t bytes = 0;
        if (cusparseDgtsvInterleavedBatch_bufferSizeExt(h, algo, (int)m, B.dl, B.d, B.du, B.b, (int)batch, &bytes) !=
            CUSPARSE_STATUS_SUCCESS)
            return -1;
        void *w = buf(bytes + 256);
        if (!w) return -1;
        t = timeit([&] { return (int)cusparseDgtsvInterleavedBatch(h, algo, (int)m, B.dl, B.d, B.du, B.b, (int)batch, w); },
                   [&] { regen(B, false); });
    } else if (s == CS_SB) {
        size_t bytes = 0;
        if (cusparseDgtsv2StridedBatch_bufferSizeExt(h, (int)m, B.dl, B.d, B.du, B.b, (int)batch, (int)m, &bytes) !=
            CUSPARSE_STATUS_SUCCESS)
            return -1;
        void *w = buf(bytes + 256);
        if (!w) return -1;
        t = timeit([&] { return (int)cusparseDgtsv2StridedBatch(h, (int)m, B.dl, B.d, B.du, B.b, (int)batch, (int)m, w); },
                   none);
    } else if (s == CS_GT2) {
        if (batch != 1) return -1;
        size_t bytes = 0;
        if (cusparseDgtsv2_bufferSizeExt(h, (int)m, 1, B.dl, B.d, B.du, B.b, (int)m, &bytes) != CUSPARSE_STATUS_SUCCESS)
            return -1;
        void *w = buf(bytes + 256);
        if (!w) return -1;
        t = timeit([&] { return (int)cusparseDgtsv2(h, (int)m, 1, B.dl, B.d, B.du, B.b, (int)m, w); }, none);
    }
    return t > 0 ? n / t : -1;
}

int main(int argc, char **argv)
{
    const char *csv = argc > 1 ? argv[1] : "perf/bench_gtsv_gpu.csv";
    if (getenv("BENCH_REPS")) reps = atoi(getenv("BENCH_REPS"));
    bsolve_ctx *ctx = nullptr;
    if (bsolve_ctx_create(&ctx, BSOLVE_BACKEND_CUDA) != BSOLVE_SUCCESS) {
        printf("SKIP: no CUDA device\n");
        return 0;
    }
    cudaDeviceProp prop;
    CU(cudaGetDeviceProperties(&prop, 0));
    cusparseHandle_t h;
    if (cusparseCreate(&h) != CUSPARSE_STATUS_SUCCESS) return 1;
    FILE *f = fopen(csv, "w");
    if (f) fprintf(f, "regime,m,batch,solver,eq_per_s,fraction_of_floor\n");
    printf("%s: batched tridiagonal solves, FP64, nrhs = 1; 1e9 equations/s (median of %d)\n", prop.name, reps);

    const int64_t maxn = (int64_t)64 << 22;
    Bufs B;
    B.n = maxn;
    CU(cudaMalloc(&B.dl, 8 * maxn));
    CU(cudaMalloc(&B.d, 8 * maxn));
    CU(cudaMalloc(&B.du, 8 * maxn));
    CU(cudaMalloc(&B.b, 8 * maxn));
    CU(cudaMalloc(&B.x, 8 * maxn));
    int32_t *info;
    CU(cudaMalloc(&info, 4 * (int64_t)(1 << 22)));
    regen(B, true);

    auto table = [&](const char *regime, const std::vector<std::pair<int64_t, int64_t>> &shapes, const int *sols,
                     int ns) {
        printf("\n%s\n%9s %7s", regime, "m", "batch");
        for (int i = 0; i < ns; i++) printf(" %10s", sname[sols[i]]);
        printf(" | thom/fl part/fl givn/fl ct/peer\n");
        for (auto &sh : shapes) {
            const int64_t m = sh.first, batch = sh.second;
            double r[NSOL];
            for (int i = 0; i < NSOL; i++) r[i] = -1;
            Bufs V = B;
            V.n = m * batch;
            regen(V, true);
            for (int i = 0; i < ns; i++) r[sols[i]] = run(sols[i], ctx, h, V, m, batch, info);
            printf("%9lld %7lld", (long long)m, (long long)batch);
            for (int i = 0; i < ns; i++) {
                if (r[sols[i]] > 0) printf(" %10.2f", r[sols[i]] * 1e-9);
                else printf(" %10s", "-");
                if (f)
                    fprintf(f, "%s,%lld,%lld,%s,%.4g,%.4f\n", regime, (long long)m, (long long)batch, sname[sols[i]],
                            r[sols[i]], r[FLOOR] > 0 ? r[sols[i]] / r[FLOOR] : 0);
            }
            /* the peer: the faster of gtsv2StridedBatch and (one system) gtsv2 */
            const double ct = std::max(r[BS_TH_CT], r[BS_PA_CT]), peer = std::max(r[CS_SB], r[CS_GT2]);
            printf(" | %6.0f%% %6.0f%% %6.0f%% %6.1fx\n", 100 * std::max(r[BS_TH_IL], r[BS_TH_CT]) / r[FLOOR],
                   100 * std::max(r[BS_PA_IL], r[BS_PA_CT]) / r[FLOOR], 100 * std::max(r[BS_GI_IL], r[BS_GI_CT]) / r[FLOOR],
                   peer > 0 ? ct / peer : 0);
            fflush(stdout);
            if (f) fflush(f);
        }
    };

    /* Knobs that shorten a device run: BENCH_REGIME=many|few (default both),
     * BENCH_MMIN / BENCH_MMAX (m range of the many-systems table), BENCH_NOCS=1 (no
     * cuSPARSE columns: their numbers are in the committed tables), BENCH_NOCS=2
     * (few long systems: gtsv2StridedBatch and gtsv2 only; gtsvInterleavedBatch
     * runs below 0.1e9 equations/s there and takes most of the run). */
    const char *reg = getenv("BENCH_REGIME");
    const bool do_many = !reg || !*reg || !strcmp(reg, "many"), do_few = !reg || !*reg || !strcmp(reg, "few");
    const int64_t mmax = getenv("BENCH_MMAX") ? atoll(getenv("BENCH_MMAX")) : 4096;
    const int nocs = getenv("BENCH_NOCS") ? atoi(getenv("BENCH_NOCS")) : 0;
    std::vector<std::pair<int64_t, int64_t>> many, few;
    const int64_t mmin = getenv("BENCH_MMIN") ? atoll(getenv("BENCH_MMIN")) : 8;
    for (int64_t m = mmin; m <= mmax; m *= 2) many.push_back({m, ((int64_t)1 << 25) / m});
    for (int64_t m = 1 << 16; m <= (1 << 22); m *= 4)
        for (int64_t b : {1, 4, 16, 64}) few.push_back({m, b});
    const int all_many[] = {FLOOR, BS_TH_IL, BS_PA_IL, BS_GI_IL, BS_TH_CT, BS_PA_CT, BS_GI_CT, CS_IB0, CS_IB1, CS_IB2, CS_SB};
    if (do_many) table("many systems (2^25 equations; 1.34 GB)", many, all_many, nocs ? 7 : 11);
    const int all_few[] = {FLOOR, BS_TH_CT, BS_PA_CT, BS_GI_CT, BS_TH_IL, CS_SB, CS_GT2, CS_IB0, CS_IB1};
    if (do_few) table("few long systems", few, all_few, nocs == 1 ? 5 : nocs == 2 ? 7 : 9);
    if (f) fclose(f);
    printf("\nCSV: %s\n", csv);
    cusparseDestroy(h);
    bsolve_ctx_destroy(ctx);
    return 0;
}
