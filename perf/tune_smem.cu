/*
 * tune_smem.cu -- the team size T of the shared-memory LU kernel
 * (cuda/lu_smem.cuh) and where it pays, the measurement behind
 * bsi_lu_smem_team() and bsi_lu_smem_takes() in cuda/lu_dispatch.cuh.
 *
 * For FP64 and FP32, n = 16..24 (BSOLVE_BENCH_NS=16,20 for others; 9..15 compiled too), about
 * BSOLVE_BENCH_MB (default 1024) MB of matrices per case, device memory:
 *   table   the library's choice (bsi_launch_lu, as bsolve_?gesv runs it);
 *   -smem   the table without the shared-memory kernel (LU_SMEM=1): the
 *           kernel it replaces, or would;
 *   T=t     the shared-memory kernel launched directly with t lanes per
 *           system, t = 2, 4, 8 from n = 16 and 1 where it was compiled
 *           (FP64 n = 16, FP32 16..17: beyond, its arrays went to local
 *           memory), t = 1, 2, 4 at n = 9..15;
 * each on gesv PARTIAL interleaved, gesv PARTIAL column-major, gesv NONE
 * interleaved and getrf PARTIAL interleaved: systems per second, % of the
 * copy floor (gesv reads A and b and writes x; getrf reads A and writes the
 * factors, the pivots and info), registers and local memory of each
 * instantiation.  Then per precision, n and call the fastest T and its
 * ratio to -smem and to the table: the crossovers.
 * Checks, on the first 4096 systems: every gesv solution's normwise
 * backward error < 30 n eps and info 0; every T's solution and getrf
 * factors and pivots bitwise those of the first T (one arithmetic whatever
 * the team).  A failed check prints FAIL and the exit status is 1.
 * CUDA events, one warm-up, median of BSOLVE_BENCH_RUNS (default 5).
 *
 * Not part of make bench: `make BUILD=... build/.../perf/tune_smem` builds
 * it; its kernels are spread over TUNE_SMEM_PARTS objects (this file
 * compiled with TUNE_SMEM_PART = 0..PARTS-1; PART = PARTS holds main), so
 * that make -j compiles them in parallel.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_cuda.h"
#include "lu_smem.cuh"

#ifndef TUNE_SMEM_PARTS
#define TUNE_SMEM_PARTS 1
#endif
#ifndef TUNE_SMEM_PART /* one object: every case and main */
#define TUNE_SMEM_PART (-1)
#endif

/* ---- the cases: (precision, n, T) ---------------------------------------- */

struct tune_case {
    int es, n, t;
    cudaError_t (*launch_d)(int, const bsi_lu_args<double> &, cudaStream_t);
    cudaError_t (*launch_s)(int, const bsi_lu_args<float> &, cudaStream_t);
    cudaFuncAttributes fa[2]; /* gesv, getrf */
};

/* every object's cases, registered before main */
inline std::vector<tune_case> &tune_cases()
{
    static std::vector<tune_case> v;
    return v;
}

/* case I: FP64 then FP32, n = 16..24 with T = 2, 4, 8; then T = 1 at FP64
 * 16 and FP32 16, 17; then FP64 and FP32 n = 9..15 with T = 1, 2, 4 */
enum { TUNE_NCASES = 99 };
constexpr int tune_es(int I) { return I < 27 ? 8 : I < 54 ? 4 : I == 54 ? 8 : I < 57 ? 4 : I < 78 ? 8 : 4; }
constexpr int tune_n(int I)
{
    return I < 27 ? 16 + I / 3 : I < 54 ? 16 + (I - 27) / 3 : I < 57 ? (I == 56 ? 17 : 16) : 9 + (I - 57) % 21 / 3;
}
constexpr int tune_t(int I) { return I < 54 ? 2 << (I % 27 % 3) : I < 57 ? 1 : 1 << ((I - 57) % 3); }

template <int I> static void tune_register()
{
    if constexpr (I < TUNE_NCASES) {
        if constexpr (TUNE_SMEM_PART < 0 || I % TUNE_SMEM_PARTS == TUNE_SMEM_PART) {
            constexpr int N = tune_n(I), T = tune_t(I);
            tune_case c = {tune_es(I), N, T, nullptr, nullptr, {}};
            if constexpr (tune_es(I) == 8) {
                c.launch_d = bsm_launch_n<double, N, T>;
                cudaFuncGetAttributes(&c.fa[0], bsm_k<double, N, T, BSI_OP_GESV, false>);
                cudaFuncGetAttributes(&c.fa[1], bsm_k<double, N, T, BSI_OP_GETRF, false>);
            } else {
                c.launch_s = bsm_launch_n<float, N, T>;
                cudaFuncGetAttributes(&c.fa[0], bsm_k<float, N, T, BSI_OP_GESV, false>);
                cudaFuncGetAttributes(&c.fa[1], bsm_k<float, N, T, BSI_OP_GETRF, false>);
            }
            tune_cases().push_back(c);
        }
        tune_register<I + 1>();
    }
}

/* The cases of this object, registered by main (kernel attributes need the
 * CUDA runtime, which static initialisers must not start). */
#define TUNE_CAT2(a, b) a##b
#define TUNE_CAT(a, b) TUNE_CAT2(a, b)
#if TUNE_SMEM_PART >= 0 && TUNE_SMEM_PART < TUNE_SMEM_PARTS
void TUNE_CAT(tune_register_part, TUNE_SMEM_PART)() { tune_register<0>(); }
#endif

#if TUNE_SMEM_PART < 0 || TUNE_SMEM_PART == TUNE_SMEM_PARTS
/* ---- main ------------------------------------------------------------------ */

#define TUNE_PART_DECL(p) void tune_register_part##p();
#define TUNE_PART_CALL(p) tune_register_part##p();
#define TUNE_PARTS_16(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
#if TUNE_SMEM_PART == TUNE_SMEM_PARTS
static_assert(TUNE_SMEM_PARTS == 16, "main calls parts 0..15");
TUNE_PARTS_16(TUNE_PART_DECL)
#endif

static double g_bw; /* device-to-device copy, bytes read + written per second */
static int g_fail;

struct tune_row {
    int es, n;
    std::string who; /* "table", "-smem", "T=t" */
    double sps[4];   /* gesv PARTIAL il, gesv PARTIAL cm, gesv NONE il, getrf PARTIAL il */
};
static std::vector<tune_row> g_rows;
static const char *const g_calls[4] = {"gesv P il", "gesv P cm", "gesv N il", "getrf P il"};

/* The first nc systems' results of one variant, kept for the bitwise check. */
template <typename R> struct tune_out {
    std::vector<R> x, f;
    std::vector<uint8_t> rp;
    std::vector<int32_t> info;
};

/* count entries of type P in device memory */
template <typename P> static P *dev(size_t count)
{
    void *p;
    CU(cudaMalloc(&p, count * sizeof(P)));
    return (P *)p;
}

template <typename R> static void fetch_cols(std::vector<R> &h, const R *d, int rows, int64_t ld, int64_t nc)
{
    h.resize((size_t)rows * nc);
    for (int e = 0; e < rows; e++)
        CU(cudaMemcpy(&h[(size_t)e * nc], d + (size_t)e * ld, nc * sizeof(R), cudaMemcpyDeviceToHost));
}

template <typename R> static void bench(int n)
{
    const size_t es = sizeof(R);
    const char *pn = es == 8 ? "d" : "s";
    const char *e = getenv("BSOLVE_BENCH_MB");
    const size_t mb = e ? (size_t)atol(e) : 1024;
    const int64_t batch = std::max<int64_t>((int64_t)((mb << 20) / ((size_t)n * n * es)) / 32 * 32, 4096);
    const int64_t nn = (int64_t)n * n, fld = batch; /* batch is a multiple of 32, as bsolve_lu's ld */
    R *const A = dev<R>(nn * batch), *const Acm = dev<R>(nn * batch), *const F = dev<R>(nn * batch);
    R *const B = dev<R>(n * batch), *const B0 = dev<R>(n * batch), *const Bcm0 = dev<R>(n * batch);
    uint8_t *const rp = dev<uint8_t>(n * batch), *const cp = dev<uint8_t>(n * batch);
    int32_t *const info = dev<int32_t>(batch), *const finfo = dev<int32_t>(batch);
    k_fill<R><<<4096, 256>>>(A, nn * batch, 12345 + n);
    k_fill<R><<<4096, 256>>>(B0, n * batch, 999 + n);
    k_il2cm<R><<<4096, 256>>>(A, Acm, nn, batch);
    k_il2cm<R><<<4096, 256>>>(B0, Bcm0, n, batch);
    CU(cudaDeviceSynchronize());

    bsi_lu_args<R> il;
    memset(&il, 0, sizeof il);
    il.A = A;
    il.va.ks = 1, il.va.is = batch, il.va.js = (int64_t)n * batch;
    il.B = B;
    il.vb.ks = 1, il.vb.is = batch, il.vb.js = (int64_t)n * batch;
    il.info = info;
    il.count = batch;
    il.n = n;
    il.nrhs = 1;
    il.pivot = BSOLVE_PIVOT_PARTIAL;
    il.F = F, il.fld = fld, il.rp = rp, il.cp = cp, il.finfo = finfo;
    bsi_lu_args<R> cm = il;
    cm.A = Acm;
    cm.va.ks = nn, cm.va.is = 1, cm.va.js = n;
    cm.vb.ks = n, cm.vb.is = 1, cm.vb.js = n;
    bsi_lu_args<R> none = il;
    none.pivot = BSOLVE_PIVOT_NONE;
    const auto restore_il = [&] { CU(cudaMemcpyAsync(B, B0, n * batch * es, cudaMemcpyDeviceToDevice, 0)); };
    const auto restore_cm = [&] { CU(cudaMemcpyAsync(B, Bcm0, n * batch * es, cudaMemcpyDeviceToDevice, 0)); };
    const double floor_gesv = g_bw / (es * (nn + 2.0 * n)), floor_getrf = g_bw / (es * 2.0 * nn + 2.0 * n + 8);
    const int64_t nc = std::min<int64_t>(batch, 4096);
    std::vector<R> hA, hb;
    fetch_cols(hA, A, (int)nn, batch, nc);
    fetch_cols(hb, B0, n, batch, nc);
    tune_out<R> ref;
    bool have_ref = false;

    /* one variant: launch(op, args) */
    auto variant = [&](const std::string &who, auto launch, const cudaFuncAttributes *fa) {
        tune_row row = {(int)es, n, who, {0, 0, 0, 0}};
        const bsi_lu_args<R> *args[4] = {&il, &cm, &none, &il};
        for (int c = 0; c < 4; c++) {
            const int op = c == 3 ? BSI_OP_GETRF : BSI_OP_GESV;
            cudaError_t le = cudaSuccess;
            const auto f = [&] {
                const cudaError_t r = launch(op, *args[c]);
                if (le == cudaSuccess) le = r;
            };
            const double ms = c == 1 ? time_ms(f, restore_cm) : time_ms(f, restore_il);
            if (le != cudaSuccess) {
                printf("%s n=%2d %-6s %s: %s\n", pn, n, who.c_str(), g_calls[c], cudaGetErrorString(le));
                g_fail++;
                return;
            }
            row.sps[c] = batch / (ms * 1e-3);
        }
        /* checks: gesv PARTIAL interleaved, then getrf */
        tune_out<R> o;
        restore_il();
        CU(launch(BSI_OP_GESV, il));
        CU(cudaDeviceSynchronize());
        fetch_cols(o.x, B, n, batch, nc);
        o.info.resize(nc);
        CU(cudaMemcpy(o.info.data(), info, nc * 4, cudaMemcpyDeviceToHost));
        const double eps = es == 8 ? 2.220446049250313e-16 : 1.1920928955078125e-07;
        double worst = 0;
        int64_t nbad = 0;
        for (int64_t s = 0; s < nc; s++) {
            double an = 0, xn = 0, bn = 0, rn = 0;
            for (int i = 0; i < n; i++) {
                double rs = 0, r = -(double)hb[i * nc + s];
                for (int j = 0; j < n; j++) {
                    const double aij = hA[(size_t)(i + j * n) * nc + s];
                    rs += std::fabs(aij);
                    r += aij * (double)o.x[j * nc + s];
                }
                an = std::max(an, rs);
                xn = std::max(xn, std::fabs((double)o.x[i * nc + s]));
                bn = std::max(bn, std::fabs((double)hb[i * nc + s]));
                rn = std::max(rn, std::fabs(r));
            }
            const double ratio = rn / ((an * xn + bn) * n * eps);
            if (!(ratio < 30) || o.info[s] != 0) nbad++;
            if (!(ratio <= worst)) worst = ratio;
        }
        CU(launch(BSI_OP_GETRF, il));
        CU(cudaDeviceSynchronize());
        fetch_cols(o.f, F, (int)nn, fld, nc);
        std::vector<uint8_t> r8((size_t)n * nc);
        for (int k = 0; k < n; k++) CU(cudaMemcpy(&r8[(size_t)k * nc], rp + (size_t)k * fld, nc, cudaMemcpyDeviceToHost));
        o.rp = r8;
        bool same = true;
        if (who[0] == 'T') {
            if (!have_ref) ref = o, have_ref = true;
            else same = o.x == ref.x && o.f == ref.f && o.rp == ref.rp;
        }
        printf("%s n=%2d %-6s", pn, n, who.c_str());
        for (int c = 0; c < 4; c++)
            printf(" | %s %9.3g %5.1f%%", g_calls[c], row.sps[c], 100 * row.sps[c] / (c == 3 ? floor_getrf : floor_gesv));
        if (fa) printf(" | regs %3d/%3d local %zu/%zu B", fa[0].numRegs, fa[1].numRegs, fa[0].localSizeBytes, fa[1].localSizeBytes);
        printf(" | bwd worst %.2g n eps, %lld of %lld bad%s\n", worst, (long long)nbad, (long long)nc,
               same ? "" : ", NOT bitwise the first T's");
        fflush(stdout);
        if (nbad || !same) g_fail++;
        g_rows.push_back(row);
    };

    int f_smem_off[BSI_FORCE_COUNT + 1];
    memset(f_smem_off, 0, sizeof f_smem_off);
    f_smem_off[BSI_FORCE_LU_SMEM] = 1;
    /* labels: the kernels of gesv and getrf (PARTIAL) */
    const auto label = [&](const char *who, const int *force) {
        char g[64], f[64];
        bsi_lu_name(bsi_lu_dispatch((int)es, BSI_OP_GESV, n, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_BATCH, force), g, sizeof g);
        bsi_lu_name(bsi_lu_dispatch((int)es, BSI_OP_GETRF, n, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_BATCH, force), f, sizeof f);
        printf("%s n=%2d %s: gesv %s, getrf %s\n", pn, n, who, g, f);
    };
    label("table", nullptr);
    label("-smem", f_smem_off);
    variant("table", [&](int op, const bsi_lu_args<R> &a) { return bsi_launch_lu<R>(op, a, nullptr, 0); }, nullptr);
    variant("-smem", [&](int op, const bsi_lu_args<R> &a) { return bsi_launch_lu<R>(op, a, f_smem_off, 0); }, nullptr);
    std::vector<tune_case> cs;
    for (const auto &c : tune_cases())
        if (c.es == (int)es && c.n == n) cs.push_back(c);
    std::sort(cs.begin(), cs.end(), [](const tune_case &x, const tune_case &y) { return x.t < y.t; });
    for (const auto &c : cs) {
        const auto fn = [&c](int op, const bsi_lu_args<R> &a) {
            if constexpr (sizeof(R) == 8) return c.launch_d(op, a, 0);
            else return c.launch_s(op, a, 0);
        };
        variant("T=" + std::to_string(c.t), fn, c.fa);
    }
    cudaFree(A); cudaFree(Acm); cudaFree(F); cudaFree(B); cudaFree(B0); cudaFree(Bcm0);
    cudaFree(rp); cudaFree(cp); cudaFree(info); cudaFree(finfo);
}

int main()
{
#if TUNE_SMEM_PART < 0
    tune_register<0>();
#else
    TUNE_PARTS_16(TUNE_PART_CALL)
#endif
    const char *e = getenv("BSOLVE_BENCH_RUNS");
    if (e) NRUNS = std::max(1, atoi(e));
    {
        const size_t bytes = 1ull << 30;
        void *a, *b;
        CU(cudaMalloc(&a, bytes));
        CU(cudaMalloc(&b, bytes));
        CU(cudaMemset(a, 1, bytes));
        const double ms = time_ms([&] { CU(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0)); }, [] {});
        g_bw = 2.0 * bytes / (ms * 1e-3);
        cudaFree(a);
        cudaFree(b);
    }
    cudaDeviceProp prop;
    CU(cudaGetDeviceProperties(&prop, 0));
    printf("device %s; D2D copy %.0f GB/s; %zu kernel instantiations\n", prop.name, g_bw / 1e9, tune_cases().size() * 2);
    std::vector<int> ns;
    if ((e = getenv("BSOLVE_BENCH_NS")))
        for (const char *c = e; *c;) {
            ns.push_back(atoi(c));
            while (*c && *c != ',') c++;
            if (*c) c++;
        }
    else
        for (int n = 16; n <= 24; n++) ns.push_back(n);
    for (int n : ns) bench<double>(n);
    for (int n : ns) bench<float>(n);

    /* the crossovers: per call, the fastest T against the table without
     * SMEM and against the table */
    printf("\nper precision, n and call: the fastest T, its rate, x(table without SMEM), x(table)\n");
    for (int es : {8, 4})
        for (int n : ns)
            for (int c = 0; c < 4; c++) {
                double off = 0, tab = 0, best = 0;
                std::string bt = "-";
                for (const auto &r : g_rows) {
                    if (r.es != es || r.n != n) continue;
                    if (r.who == "-smem") off = r.sps[c];
                    else if (r.who == "table") tab = r.sps[c];
                    else if (r.sps[c] > best) best = r.sps[c], bt = r.who;
                }
                printf("%s n=%2d %-10s best %-4s %9.3g  x%.2f vs -smem  x%.2f vs table\n", es == 8 ? "d" : "s", n,
                       g_calls[c], bt.c_str(), best, off > 0 ? best / off : 0, tab > 0 ? best / tab : 0);
            }
    printf("%s: %d failed checks\n", g_fail ? "FAIL" : "PASS", g_fail);
    return g_fail ? 1 : 0;
}
#endif
