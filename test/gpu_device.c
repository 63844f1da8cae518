/*
 * gpu_device.c -- context creation's device checks, on whatever build this
 * is.  From the build's GPU code (bsi_cuda_build_archs: "sm_75 ... compute_90")
 * and the device's compute capability it works out whether a kernel can load:
 * SASS sm_XY runs on X.Z for Z >= Y, PTX compute_XY on every XY and newer.
 *   - It can: BSOLVE_BACKEND_CUDA and AUTO create CUDA contexts, and dense LU,
 *     tridiagonal and least-squares solves there agree with the CPU backend.
 *   - It cannot (e.g. CUDA_ARCHS=120 on an H100): CUDA fails with
 *     BSOLVE_ENODEVICE, AUTO runs on the CPU and its message gives the reason
 *     (no kernel image, the device's compute capability, the build's code), and
 *     the same solves on that context agree with the CPU backend.
 * With several GPUs (and code they can run): a context per device, created
 * with that device current, then driven from one thread with another device
 * current: each call runs on its context's device (the factors of an LU
 * object live there), agrees with the CPU backend, and leaves the caller's
 * current device as it was.
 * Prints "SKIP: ..." and exits 0 without a GPU.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gpu_check.h"
#include "internal.h"

#ifndef HAVE_CUDART
int main(void) { return gpu_check_skip_main(); }
#else

/* 1 when the build's code list holds code a device of compute capability cc
 * (major * 10 + minor) can run. */
static int can_load(const char *archs, int cc)
{
    const char *p = archs;
    while (*p) {
        int a = 0, n = 0;
        if (sscanf(p, "sm_%d%n", &a, &n) == 1 && a / 10 == cc / 10 && a % 10 <= cc % 10) return 1;
        if (sscanf(p, "compute_%d%n", &a, &n) == 1 && a <= cc) return 1;
        p += strcspn(p, " ");
        p += strspn(p, " ");
    }
    return 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double urand(void) /* [-1, 1) */
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) * 0x1.0p-52 - 1.0;
}

static double relerr(const double *x, const double *y, int64_t len)
{
    double e = 0, s = 0;
    for (int64_t i = 0; i < len; i++) {
        const double d = fabs(x[i] - y[i]);
        if (!(d <= e)) e = d;
        if (fabs(y[i]) > s) s = fabs(y[i]);
    }
    return e / (s > 0 ? s : 1);
}

/* Dense LU (orders from each kernel class), a tridiagonal and a least-squares
 * batch on ctx, every output compared with the CPU backend's. */
static void solve_like_cpu(bsolve_ctx *ctx, bsolve_ctx *cpu, const char *label)
{
    static const int64_t orders[] = {5, 24, 100};
    for (int t = 0; t < 3; t++) {
        const int64_t n = orders[t], batch = n < 64 ? 300 : 40;
        double *A = malloc(sizeof *A * n * n * batch), *B0 = malloc(sizeof *B0 * n * batch);
        double *X = malloc(sizeof *X * n * batch), *Y = malloc(sizeof *Y * n * batch);
        int32_t *ix = malloc(sizeof *ix * batch), *iy = malloc(sizeof *iy * batch);
        for (int64_t i = 0; i < n * n * batch; i++) A[i] = urand() + ((i % (n * n)) % (n + 1) == 0 ? 2.0 : 0.0);
        for (int64_t i = 0; i < n * batch; i++) B0[i] = urand();
        const bsolve_layout la = bsolve_layout_col_major(n, n * n), lb = bsolve_layout_col_major(n, n);
        memcpy(X, B0, sizeof *X * n * batch);
        memcpy(Y, B0, sizeof *Y * n * batch);
        const bsolve_status sx = bsolve_dgesv(ctx, BSOLVE_PIVOT_PARTIAL, n, 1, batch, A, la, X, lb, ix);
        const bsolve_status sy = bsolve_dgesv(cpu, BSOLVE_PIVOT_PARTIAL, n, 1, batch, A, la, Y, lb, iy);
        CHECK(sx == BSOLVE_SUCCESS && sy == BSOLVE_SUCCESS, "%s: dgesv n = %lld: %s / %s (%s)", label, (long long)n,
              bsolve_strerror(sx), bsolve_strerror(sy), bsolve_ctx_message(ctx));
        CHECK(memcmp(ix, iy, sizeof *ix * batch) == 0, "%s: dgesv n = %lld: info differs from the CPU's", label,
              (long long)n);
        const double e = relerr(X, Y, n * batch);
        CHECK(e < 1e-10, "%s: dgesv n = %lld: solutions differ from the CPU's by %.2e", label, (long long)n, e);
        free(A); free(B0); free(X); free(Y); free(ix); free(iy);
    }
    { /* tridiagonal, partial pivoting (diagonally dominant: well conditioned) */
        const int64_t m = 200, batch = 150, len = m * batch;
        double *dl = malloc(sizeof *dl * len), *d = malloc(sizeof *d * len), *du = malloc(sizeof *du * len);
        double *X = malloc(sizeof *X * len), *Y = malloc(sizeof *Y * len);
        int32_t *ix = malloc(sizeof *ix * batch), *iy = malloc(sizeof *iy * batch);
        for (int64_t i = 0; i < len; i++) dl[i] = urand(), d[i] = 3 + urand(), du[i] = urand(), X[i] = Y[i] = urand();
        const bsolve_tlayout lt = bsolve_tlayout_contiguous(m, m);
        const bsolve_status sx = bsolve_dgtsv(ctx, BSOLVE_GTSV_PARTIAL, m, 1, batch, dl, d, du, lt, X, lt, ix);
        const bsolve_status sy = bsolve_dgtsv(cpu, BSOLVE_GTSV_PARTIAL, m, 1, batch, dl, d, du, lt, Y, lt, iy);
        CHECK(sx == BSOLVE_SUCCESS && sy == BSOLVE_SUCCESS, "%s: dgtsv: %s / %s (%s)", label, bsolve_strerror(sx),
              bsolve_strerror(sy), bsolve_ctx_message(ctx));
        CHECK(memcmp(ix, iy, sizeof *ix * batch) == 0, "%s: dgtsv: info differs from the CPU's", label);
        const double e = relerr(X, Y, len);
        CHECK(e < 1e-12, "%s: dgtsv: solutions differ from the CPU's by %.2e", label, e);
        free(dl); free(d); free(du); free(X); free(Y); free(ix); free(iy);
    }
    { /* least squares 20 x 6, two right-hand sides */
        const int64_t m = 20, n = 6, batch = 500;
        double *A = malloc(sizeof *A * m * n * batch), *X = malloc(sizeof *X * m * 2 * batch);
        double *Y = malloc(sizeof *Y * m * 2 * batch);
        int32_t *ix = malloc(sizeof *ix * batch), *iy = malloc(sizeof *iy * batch);
        for (int64_t i = 0; i < m * n * batch; i++) A[i] = urand();
        for (int64_t i = 0; i < m * 2 * batch; i++) X[i] = Y[i] = urand();
        const bsolve_layout la = bsolve_layout_col_major(m, m * n), lb = bsolve_layout_col_major(m, m * 2);
        const bsolve_status sx = bsolve_dgels(ctx, m, n, 2, batch, A, la, X, lb, ix);
        const bsolve_status sy = bsolve_dgels(cpu, m, n, 2, batch, A, la, Y, lb, iy);
        CHECK(sx == BSOLVE_SUCCESS && sy == BSOLVE_SUCCESS, "%s: dgels: %s / %s (%s)", label, bsolve_strerror(sx),
              bsolve_strerror(sy), bsolve_ctx_message(ctx));
        CHECK(memcmp(ix, iy, sizeof *ix * batch) == 0, "%s: dgels: info differs from the CPU's", label);
        double e = 0; /* rows 0..n-1: the solutions */
        for (int64_t k = 0; k < 2 * batch; k++) {
            const double ek = relerr(X + k * m, Y + k * m, n);
            if (!(ek <= e)) e = ek;
        }
        CHECK(e < 1e-10, "%s: dgels: solutions differ from the CPU's by %.2e", label, e);
        free(A); free(X); free(Y); free(ix); free(iy);
    }
}

/* Contexts on every device, driven from this thread with the next device
 * current (one device: the same, where "the next" is itself). */
static void several_devices(int count, bsolve_ctx *cpu)
{
    bsolve_ctx *ctx[8] = {NULL};
    if (count > 8) count = 8;
    for (int d = 0; d < count; d++) {
        CU(cudaSetDevice(d));
        const bsolve_status s = bsolve_ctx_create(&ctx[d], BSOLVE_BACKEND_CUDA);
        CHECK(s == BSOLVE_SUCCESS, "device %d: bsolve_ctx_create: %s", d, bsolve_strerror(s));
    }
    for (int d = 0; d < count; d++) {
        if (!ctx[d]) continue;
        const int other = (d + 1) % count;
        CU(cudaSetDevice(other));
        char label[64];
        snprintf(label, sizeof label, "context of device %d, device %d current", d, other);
        solve_like_cpu(ctx[d], cpu, label);
        /* an LU object: its factors on the context's device */
        bsolve_lu *lu = NULL;
        const int64_t n = 12, batch = 64;
        double *A = malloc(sizeof *A * n * n * batch), *B = malloc(sizeof *B * n * batch);
        int32_t *info = malloc(sizeof *info * batch);
        for (int64_t i = 0; i < n * n * batch; i++) A[i] = urand() + ((i % (n * n)) % (n + 1) == 0 ? 3.0 : 0.0);
        for (int64_t i = 0; i < n * batch; i++) B[i] = urand();
        const bsolve_layout la = bsolve_layout_col_major(n, n * n), lb = bsolve_layout_col_major(n, n);
        bsolve_status s = bsolve_lu_create(ctx[d], BSOLVE_PREC_D, BSOLVE_PIVOT_PARTIAL, n, batch, &lu);
        if (s == BSOLVE_SUCCESS) s = bsolve_dgetrf(ctx[d], A, la, lu, info);
        if (s == BSOLVE_SUCCESS) s = bsolve_dgetrs(ctx[d], lu, 1, B, lb, info);
        CHECK(s == BSOLVE_SUCCESS, "%s: getrf + getrs: %s (%s)", label, bsolve_strerror(s), bsolve_ctx_message(ctx[d]));
        if (lu && lu->factors) {
            struct cudaPointerAttributes pa;
            CU(cudaPointerGetAttributes(&pa, lu->factors));
            CHECK(pa.device == d, "%s: the LU factors are on device %d", label, pa.device);
        }
        bsolve_lu_destroy(lu);
        free(A), free(B), free(info);
        int cur = -1;
        CU(cudaGetDevice(&cur));
        CHECK(cur == other, "%s: the calls left device %d current", label, cur);
    }
    for (int d = 0; d < count; d++) bsolve_ctx_destroy(ctx[d]);
    CU(cudaSetDevice(0));
}

int main(void)
{
    int count = 0, dev = 0, major = 0, minor = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        printf("SKIP: no CUDA device\n");
        return 0;
    }
    CU(cudaGetDevice(&dev));
    CU(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    CU(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    const char *archs = bsi_cuda_build_archs();
    const int cc = major * 10 + minor, loads = can_load(archs, cc);
    printf("device %d: compute capability %d.%d; this build holds %s: %s\n", dev, major, minor, archs,
           loads ? "code it can run" : "no code it can run");

    bsolve_ctx *cpu = NULL, *gpu = NULL, *aut = NULL;
    if (bsolve_ctx_create(&cpu, BSOLVE_BACKEND_CPU) != BSOLVE_SUCCESS) {
        fprintf(stderr, "FAIL: CPU context\n");
        return 1;
    }
    const bsolve_status sg = bsolve_ctx_create(&gpu, BSOLVE_BACKEND_CUDA);
    const bsolve_status sa = bsolve_ctx_create(&aut, BSOLVE_BACKEND_AUTO);
    CHECK(sa == BSOLVE_SUCCESS && aut, "BSOLVE_BACKEND_AUTO: %s", bsolve_strerror(sa));
    if (loads) {
        CHECK(sg == BSOLVE_SUCCESS && gpu, "BSOLVE_BACKEND_CUDA: %s, expected a CUDA context", bsolve_strerror(sg));
        CHECK(aut && bsolve_ctx_backend(aut) == BSOLVE_BACKEND_CUDA, "AUTO chose %s, expected CUDA",
              aut ? bsolve_backend_name(bsolve_ctx_backend(aut)) : "nothing");
    } else {
        char ccs[32];
        snprintf(ccs, sizeof ccs, "compute capability %d.%d", major, minor);
        CHECK(sg == BSOLVE_ENODEVICE && !gpu, "BSOLVE_BACKEND_CUDA: %s, expected BSOLVE_ENODEVICE",
              bsolve_strerror(sg));
        CHECK(aut && bsolve_ctx_backend(aut) == BSOLVE_BACKEND_CPU, "AUTO chose %s, expected the CPU",
              aut ? bsolve_backend_name(bsolve_ctx_backend(aut)) : "nothing");
        const char *msg = aut ? bsolve_ctx_message(aut) : "";
        printf("AUTO's message: %s\n", msg);
        CHECK(strstr(msg, "no kernel image") && strstr(msg, ccs) && strstr(msg, archs),
              "AUTO's message \"%s\" should say: no kernel image, %s, and the build's %s", msg, ccs, archs);
    }
    if (gpu) solve_like_cpu(gpu, cpu, "CUDA");
    if (aut) solve_like_cpu(aut, cpu, "AUTO");
    if (loads) {
        if (count < 2) printf("NOTE: one CUDA device: the several-GPU check runs on it alone\n");
        several_devices(count, cpu);
    }
    bsolve_ctx_destroy(gpu);
    bsolve_ctx_destroy(aut);
    bsolve_ctx_destroy(cpu);
    printf("%s: %ld checks, %ld failed\n", nfail ? "FAIL" : "PASS", nchecks, nfail);
    return nfail ? 1 : 0;
}
#endif
