/*
 * bench_gpu.cu -- batchsolve's CUDA backend against cuBLAS
 * getrfBatched + getrsBatched and against the device's copy bandwidth.
 *
 * For n in {2,3,4,5,6,8,10,12,16,20,24,32,40,48,64,80,96,128}, FP64 and
 * FP32, about BSOLVE_BENCH_MB (default 1024) MB of matrices per case, one
 * right-hand side, device memory:
 *   ours  gesv PARTIAL interleaved / column-major, FULL, NONE, getrf+getrs,
 *         getrs alone on the factors of one getrf (its own floor: factors,
 *         interchanges, b and x);
 *   cuBLAS getrfBatched + getrsBatched with pivoting and with P = NULL.
 * Also the D2D copy bandwidth (read + write bytes over time), pinned
 * host<->device bandwidth, and our gesv on pageable host arrays.
 * CUDA events, one warm-up, median of BSOLVE_BENCH_RUNS (default 5) runs,
 * random inputs in [-1, 1] (never 0), B restored before every run.
 * Prints a table, writes bench_gpu.csv (and lu_gpu.png through
 * perf/plot_gpu.gp when gnuplot is installed) in $BSOLVE_BENCH_DIR (default .).
 * BSOLVE_BENCH_FORCE (e.g. LU_WARP=1): kernel choices forced on the
 * context (perf/bench_force.h), named in the CSV's first line.
 * BSOLVE_BENCH_NS (e.g. 10,16,32), BSOLVE_BENCH_PREC (d or s) and
 * BSOLVE_BENCH_VARIANTS (e.g. getrs_il): only those orders, precisions and
 * variants (A/B runs of one kernel).
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "batchsolve.h"
#include "bench_cuda.h"
#include "bench_force.h"

#define CB(x)                                                                  \
    do {                                                                       \
        cublasStatus_t s_ = (x);                                               \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                     \
            fprintf(stderr, "cuBLAS error %d at %s:%d\n", (int)s_, __FILE__, __LINE__); \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

struct Row {
    std::string prec, variant;
    int n;
    long long batch;
    double ms, sps, gbs, pct_floor, vs_cublas;
};
static std::vector<Row> rows;

static bsolve_status gesv(bsolve_ctx *c, float, bsolve_pivot p, int64_t n, int64_t batch, const float *A,
                          bsolve_layout la, float *B, bsolve_layout lb, int32_t *info)
{ return bsolve_sgesv(c, p, n, 1, batch, A, la, B, lb, info); }
static bsolve_status gesv(bsolve_ctx *c, double, bsolve_pivot p, int64_t n, int64_t batch, const double *A,
                          bsolve_layout la, double *B, bsolve_layout lb, int32_t *info)
{ return bsolve_dgesv(c, p, n, 1, batch, A, la, B, lb, info); }
static bsolve_status getrf(bsolve_ctx *c, const float *A, bsolve_layout la, bsolve_lu *lu, int32_t *info)
{ return bsolve_sgetrf(c, A, la, lu, info); }
static bsolve_status getrf(bsolve_ctx *c, const double *A, bsolve_layout la, bsolve_lu *lu, int32_t *info)
{ return bsolve_dgetrf(c, A, la, lu, info); }
static bsolve_status getrs(bsolve_ctx *c, const bsolve_lu *lu, float *B, bsolve_layout lb, int32_t *info)
{ return bsolve_sgetrs(c, lu, 1, B, lb, info); }
static bsolve_status getrs(bsolve_ctx *c, const bsolve_lu *lu, double *B, bsolve_layout lb, int32_t *info)
{ return bsolve_dgetrs(c, lu, 1, B, lb, info); }
static cublasStatus_t cgetrf(cublasHandle_t h, int n, float **A, int lda, int *P, int *info, int batch)
{ return cublasSgetrfBatched(h, n, A, lda, P, info, batch); }
static cublasStatus_t cgetrf(cublasHandle_t h, int n, double **A, int lda, int *P, int *info, int batch)
{ return cublasDgetrfBatched(h, n, A, lda, P, info, batch); }
static cublasStatus_t cgetrs(cublasHandle_t h, int n, float **A, int lda, const int *P, float **B, int ldb, int *info, int batch)
{ return cublasSgetrsBatched(h, CUBLAS_OP_N, n, 1, (const float *const *)A, lda, P, B, ldb, info, batch); }
static cublasStatus_t cgetrs(cublasHandle_t h, int n, double **A, int lda, const int *P, double **B, int ldb, int *info, int batch)
{ return cublasDgetrsBatched(h, CUBLAS_OP_N, n, 1, (const double *const *)A, lda, P, B, ldb, info, batch); }

static double g_d2d = 0, g_h2d = 0, g_d2h = 0; /* GB/s */

/* Whether variant v runs: BSOLVE_BENCH_VARIANTS (e.g. getrs_il) lists the
 * variants to run, comma-separated; unset, all of them. */
static bool want(const char *v)
{
    const char *e = getenv("BSOLVE_BENCH_VARIANTS");
    if (!e || !*e) return true;
    const size_t len = strlen(v);
    for (const char *p = e; *p;) {
        const size_t l = strcspn(p, ",");
        if (l == len && strncmp(p, v, len) == 0) return true;
        p += l;
        if (*p) p++;
    }
    return false;
}

template <typename R> static void bench_n(bsolve_ctx *ctx, cublasHandle_t h, int n, size_t mb)
{
    const char *pname = sizeof(R) == 8 ? "d" : "s";
    const size_t es = sizeof(R);
    int64_t batch = (int64_t)((mb << 20) / ((size_t)n * n * es));
    batch = std::max<int64_t>(batch / 32 * 32, 1024);
    const int64_t nn = (int64_t)n * n;
    R *A, *Acm, *Awork, *B, *B0, *Bcm;
    int32_t *info;
    int *piv, *cinfo;
    R **pA, **pB;
    CU(cudaMalloc(&A, nn * batch * es));
    CU(cudaMalloc(&Acm, nn * batch * es));
    CU(cudaMalloc(&Awork, nn * batch * es));
    CU(cudaMalloc(&B, n * batch * es));
    CU(cudaMalloc(&B0, n * batch * es));
    CU(cudaMalloc(&Bcm, n * batch * es));
    CU(cudaMalloc(&info, batch * 4));
    CU(cudaMalloc(&piv, n * batch * 4));
    CU(cudaMalloc(&cinfo, batch * 4));
    CU(cudaMalloc(&pA, batch * sizeof(R *)));
    CU(cudaMalloc(&pB, batch * sizeof(R *)));
    k_fill<R><<<4096, 256>>>(A, nn * batch, 12345 + n);
    k_fill<R><<<4096, 256>>>(B0, n * batch, 999 + n);
    k_il2cm<R><<<4096, 256>>>(A, Acm, nn, batch);
    k_ptrs<R><<<1024, 256>>>(pA, Awork, nn, batch);
    k_ptrs<R><<<1024, 256>>>(pB, Bcm, n, batch);
    CU(cudaDeviceSynchronize());
    const double bytes = (double)es * (nn + 2.0 * n); /* A, b read; x written */
    const double floor_sps = g_d2d * 1e9 / bytes;
    bsolve_layout lil = bsolve_layout_interleaved(batch), lcm = bsolve_layout_col_major(n, nn);
    bsolve_layout lbil = bsolve_layout_interleaved(batch), lbcm = bsolve_layout_col_major(n, n);
    auto restoreB = [&] { CU(cudaMemcpyAsync(B, B0, n * batch * es, cudaMemcpyDeviceToDevice, 0)); };
    auto restoreC = [&] {
        CU(cudaMemcpyAsync(Awork, Acm, nn * batch * es, cudaMemcpyDeviceToDevice, 0));
        CU(cudaMemcpyAsync(Bcm, B0, n * batch * es, cudaMemcpyDeviceToDevice, 0));
    };
    struct V { const char *name; double ms; };
    std::vector<V> v;
    if (want("gesv_partial_il"))
        v.push_back({"gesv_partial_il", time_ms([&] { BS(gesv(ctx, R(0), BSOLVE_PIVOT_PARTIAL, n, batch, A, lil, B, lbil, info)); }, restoreB)});
    if (want("gesv_partial_cm"))
        v.push_back({"gesv_partial_cm", time_ms([&] { BS(gesv(ctx, R(0), BSOLVE_PIVOT_PARTIAL, n, batch, Acm, lcm, B, lbcm, info)); }, restoreB)});
    if (want("gesv_full_il"))
        v.push_back({"gesv_full_il", time_ms([&] { BS(gesv(ctx, R(0), BSOLVE_PIVOT_FULL, n, batch, A, lil, B, lbil, info)); }, restoreB)});
    if (want("gesv_none_il"))
        v.push_back({"gesv_none_il", time_ms([&] { BS(gesv(ctx, R(0), BSOLVE_PIVOT_NONE, n, batch, A, lil, B, lbil, info)); }, restoreB)});
    if (want("getrf_getrs_il") || want("getrs_il")) {
        bsolve_lu *lu;
        BS(bsolve_lu_create(ctx, sizeof(R) == 8 ? BSOLVE_PREC_D : BSOLVE_PREC_S, BSOLVE_PIVOT_PARTIAL, n, batch, &lu));
        if (want("getrf_getrs_il"))
            v.push_back({"getrf_getrs_il", time_ms([&] {
                             BS(getrf(ctx, A, lil, lu, info));
                             BS(getrs(ctx, lu, B, lbil, info));
                         }, restoreB)});
        else
            BS(getrf(ctx, A, lil, lu, info)); /* the factors getrs reads */
        /* a Newton iteration with a frozen Jacobian: the factors of the last
         * getrf, read again by every solve */
        if (want("getrs_il")) v.push_back({"getrs_il", time_ms([&] { BS(getrs(ctx, lu, B, lbil, info)); }, restoreB)});
        bsolve_lu_destroy(lu);
    }
    int hinfo = 0;
    const int cb = (int)std::min<int64_t>(batch, 0x7fffffff);
    if (want("cublas_partial"))
        v.push_back({"cublas_partial", time_ms([&] {
                         CB(cgetrf(h, n, pA, n, piv, cinfo, cb));
                         CB(cgetrs(h, n, pA, n, piv, pB, n, &hinfo, cb));
                     }, restoreC)});
    if (want("cublas_nopiv"))
        v.push_back({"cublas_nopiv", time_ms([&] {
                         CB(cgetrf(h, n, pA, n, nullptr, cinfo, cb));
                         CB(cgetrs(h, n, pA, n, nullptr, pB, n, &hinfo, cb));
                     }, restoreC)});
    double cub = 0, cubnp = 0;
    for (auto &x : v) {
        if (!strcmp(x.name, "cublas_partial")) cub = x.ms;
        if (!strcmp(x.name, "cublas_nopiv")) cubnp = x.ms;
    }
    /* getrs alone reads the factors (n^2 entries) and the row interchanges (a
     * byte each) besides b and x: its own floor */
    const double bytes_rs = (double)es * (nn + 2.0 * n) + n;
    for (auto &x : v) {
        const bool rs = !strcmp(x.name, "getrs_il");
        Row r;
        r.prec = pname;
        r.variant = x.name;
        r.n = n;
        r.batch = batch;
        r.ms = x.ms;
        r.sps = batch / (x.ms * 1e-3);
        r.gbs = r.sps * (rs ? bytes_rs : bytes) / 1e9;
        r.pct_floor = 100.0 * r.sps / (rs ? g_d2d * 1e9 / bytes_rs : floor_sps);
        r.vs_cublas = (!strcmp(x.name, "gesv_none_il") ? cubnp : cub) / x.ms;
        rows.push_back(r);
    }
    printf("%s n=%3d batch=%9lld floor %.3g/s |", pname, n, (long long)batch, floor_sps);
    for (auto &x : v) printf(" %s %.3g", x.name, batch / (x.ms * 1e-3));
    printf("\n");
    fflush(stdout);
    cudaFree(A); cudaFree(Acm); cudaFree(Awork); cudaFree(B); cudaFree(B0); cudaFree(Bcm);
    cudaFree(info); cudaFree(piv); cudaFree(cinfo); cudaFree(pA); cudaFree(pB);
}

/* Our gesv on pageable host arrays (FP64, PARTIAL, interleaved): wall clock. */
static void bench_host(bsolve_ctx *ctx, int n, size_t mb)
{
    int64_t batch = (int64_t)((mb << 20) / ((size_t)n * n * 8));
    const int64_t nn = (int64_t)n * n;
    double *A = (double *)malloc(nn * batch * 8), *B = (double *)malloc(n * batch * 8), *B0 = (double *)malloc(n * batch * 8);
    int32_t *info = (int32_t *)malloc(batch * 4);
#pragma omp parallel for
    for (int64_t t = 0; t < nn * batch; t++) A[t] = ((t * 2654435761ULL) % 1999 + 1) / 1000.0 - 1.0005;
#pragma omp parallel for
    for (int64_t t = 0; t < n * batch; t++) B0[t] = B[t] = ((t * 40503ULL) % 997 + 1) / 500.0 - 1.001;
    bsolve_layout l = bsolve_layout_interleaved(batch);
    std::vector<double> t;
    for (int r = 0; r < 1 + std::max(3, NRUNS / 2); r++) {
        memcpy(B, B0, n * batch * 8);
        auto t0 = std::chrono::steady_clock::now();
        BS(bsolve_dgesv(ctx, BSOLVE_PIVOT_PARTIAL, n, 1, batch, A, l, B, l, info));
        auto t1 = std::chrono::steady_clock::now();
        if (r > 0) t.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    const double ms = median(t);
    const double bytes = 8.0 * (nn + 2.0 * n);
    Row r;
    r.prec = "d";
    r.variant = "gesv_partial_host";
    r.n = n;
    r.batch = batch;
    r.ms = ms;
    r.sps = batch / (ms * 1e-3);
    r.gbs = r.sps * bytes / 1e9;
    /* against pinned bandwidth: inputs cross at H2D speed, outputs at D2H speed */
    const double ideal_s = 8.0 * (nn + n) * batch / (g_h2d * 1e9) + 8.0 * n * batch / (g_d2h * 1e9);
    r.pct_floor = 100.0 * ideal_s / (ms * 1e-3);
    r.vs_cublas = 0;
    rows.push_back(r);
    printf("d n=%3d host arrays: %.3g systems/s, %.1f GB/s, %.0f%% of pinned bandwidth\n", n, r.sps, r.gbs, r.pct_floor);
    free(A); free(B); free(B0); free(info);
}

static void bandwidth(size_t mb)
{
    const size_t bytes = mb << 20;
    void *d0, *d1, *h;
    CU(cudaMalloc(&d0, bytes));
    CU(cudaMalloc(&d1, bytes));
    CU(cudaMallocHost(&h, bytes));
    memset(h, 1, bytes);
    CU(cudaMemset(d0, 1, bytes));
    double ms = time_ms([&] { CU(cudaMemcpyAsync(d1, d0, bytes, cudaMemcpyDeviceToDevice, 0)); }, [] {});
    g_d2d = 2.0 * bytes / (ms * 1e-3) / 1e9;
    ms = time_ms([&] { CU(cudaMemcpyAsync(d0, h, bytes, cudaMemcpyHostToDevice, 0)); }, [] {});
    g_h2d = bytes / (ms * 1e-3) / 1e9;
    ms = time_ms([&] { CU(cudaMemcpyAsync(h, d0, bytes, cudaMemcpyDeviceToHost, 0)); }, [] {});
    g_d2h = bytes / (ms * 1e-3) / 1e9;
    printf("bandwidth: D2D %.0f GB/s (read+write), pinned H2D %.1f GB/s, D2H %.1f GB/s\n", g_d2d, g_h2d, g_d2h);
    cudaFree(d0);
    cudaFree(d1);
    cudaFreeHost(h);
}

int main()
{
    const char *e = getenv("BSOLVE_BENCH_MB");
    const size_t mb = e ? (size_t)atol(e) : 1024;
    if ((e = getenv("BSOLVE_BENCH_RUNS"))) NRUNS = std::max(1, atoi(e));
    const char *dir = getenv("BSOLVE_BENCH_DIR");
    std::string out = dir ? dir : ".";
    bsolve_ctx *ctx = nullptr;
    bsolve_status s = bsolve_ctx_create(&ctx, BSOLVE_BACKEND_CUDA);
    if (s == BSOLVE_ENODEVICE) {
        printf("SKIP: no CUDA device\n");
        return 0;
    }
    BS(s);
    const std::string force = bench_force(ctx);
    cudaDeviceProp prop;
    CU(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, %d SMs, %.0f GB; kernels: %s\n", prop.name, prop.multiProcessorCount, prop.totalGlobalMem / 1e9,
           force.c_str());
    cublasHandle_t h;
    CB(cublasCreate(&h));
    bandwidth(mb);
    std::vector<int> ns = {2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128};
    if ((e = getenv("BSOLVE_BENCH_NS"))) { /* e.g. BSOLVE_BENCH_NS=10,16,32: only these orders, no host rows */
        ns.clear();
        for (const char *c = e; *c;) {
            ns.push_back(atoi(c));
            while (*c && *c != ',') c++;
            if (*c) c++;
        }
    }
    const char *pe = getenv("BSOLVE_BENCH_PREC"); /* d, s or both (default) */
    if (!pe || strchr(pe, 'd')) for (int n : ns) bench_n<double>(ctx, h, n, mb);
    if (!pe || strchr(pe, 's')) for (int n : ns) bench_n<float>(ctx, h, n, mb);
    if (!getenv("BSOLVE_BENCH_NS")) for (int n : {4, 16, 64}) bench_host(ctx, n, mb);

    std::string csv = out + "/bench_gpu.csv";
    FILE *f = fopen(csv.c_str(), "w");
    if (f) {
        fprintf(f, "# device %s; D2D %.1f GB/s, H2D %.1f GB/s, D2H %.1f GB/s; kernels %s\n", prop.name, g_d2d, g_h2d,
                g_d2h, force.c_str());
        fprintf(f, "prec,n,variant,batch,ms,systems_per_s,GB_per_s,pct_floor,ratio_cublas\n");
        for (auto &r : rows)
            fprintf(f, "%s,%d,%s,%lld,%.4f,%.6g,%.2f,%.1f,%.2f\n", r.prec.c_str(), r.n, r.variant.c_str(), r.batch, r.ms,
                    r.sps, r.gbs, r.pct_floor, r.vs_cublas);
        fclose(f);
    }
    /* summary tables */
    for (const char *pr : {"d", "s"}) {
    printf("\n%s, 1 rhs, device memory (systems/s; %%floor = of the D2D-copy floor; xcuBLAS = vs getrf+getrsBatched)\n",
           pr[0] == 'd' ? "FP64" : "FP32");
    printf("%4s %10s %10s %6s %8s %10s %6s %10s %6s %10s %10s %6s %10s %8s\n", "n", "floor", "il_part", "%flr", "xcuBLAS",
           "cm_part", "cm/il", "full", "full/p", "rf+rs", "getrs", "%flr", "cublas", "none/P0");
    for (int n : ns) {
        double il = 0, cm = 0, fu = 0, rfrs = 0, rs = 0, rsf = 0, cb = 0, nop = 0, pf = 0, xc = 0, fl = 0;
        for (auto &r : rows) {
            if (r.prec != pr || r.n != n) continue;
            if (r.variant == "gesv_partial_il") { il = r.sps; pf = r.pct_floor; xc = r.vs_cublas; fl = r.sps / (r.pct_floor / 100); }
            if (r.variant == "gesv_partial_cm") cm = r.sps;
            if (r.variant == "gesv_full_il") fu = r.sps;
            if (r.variant == "getrf_getrs_il") rfrs = r.sps;
            if (r.variant == "getrs_il") { rs = r.sps; rsf = r.pct_floor; }
            if (r.variant == "cublas_partial") cb = r.sps;
            if (r.variant == "gesv_none_il") nop = r.vs_cublas;
        }
        if (il == 0 && rs == 0) continue;
        printf("%4d %10.3g %10.3g %5.0f%% %7.1fx %10.3g %5.0f%% %10.3g %5.0f%% %10.3g %10.3g %5.0f%% %10.3g %7.1fx\n", n, fl,
               il, pf, xc, cm, 100 * cm / il, fu, 100 * fu / il, rfrs, rs, rsf, cb, nop);
    }
    }
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) { /* perf/plot_gpu.gp, run from the repository root */
        std::string cmd = "gnuplot -e \"csv='" + csv + "'; out='" + out + "/lu_gpu.png'\" perf/plot_gpu.gp";
        if (system(cmd.c_str()) != 0) fprintf(stderr, "gnuplot failed\n");
    }
    cublasDestroy(h);
    bsolve_ctx_destroy(ctx);
    return 0;
}
