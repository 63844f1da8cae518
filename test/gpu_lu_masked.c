/*
 * gpu_lu_masked.c -- bsolve_?getrf_masked and bsolve_?getrs_masked on the
 * CUDA backend (make gpu-test), every kernel of the dense LU table on
 * gathered systems.
 *
 * On the same random inputs (singular and NaN matrices and an infinity in B
 * among them), with masks of every density (none, few, half, most, all):
 *   - device arrays on a user stream: a flagged system's info and solution
 *     are bit for bit those of the unmasked ?getrf / ?getrs on the GPU (the
 *     same kernel runs on it, from a list of systems); an unflagged system's
 *     info keeps its poison and its B its values, as does every gap of B;
 *   - host arrays (the staging pipeline): bit for bit the device arrays'
 *     results and the same untouched entries;
 *   - the CPU backend's masked calls: the same info, solutions within
 *     rounding (or both with backward-error ratio < 30);
 *   - the exported factors and pivots: a flagged system's bit for bit the
 *     unmasked getrf's (device and host arrays), to rounding the CPU
 *     backend's (or factors of A all the same: tl_lu_agree); an unflagged
 *     system's, in an object that an unmasked getrf of other matrices
 *     factored before, bit for bit what they were;
 *   - a second masked getrf (another mask, other matrices), then an
 *     unmasked getrs: each system solved with the factors of the last call
 *     that flagged it, bit for bit, and BSOLVE_INFO_NONFINITE with NaN for
 *     the systems that no call factored;
 *   - a mask in host memory with device arrays is refused (EINVAL).
 * A flagged singular and a flagged NaN system are in every mask that is
 * neither empty nor full.  Orders over the table's kernels (1..128, every
 * layout of A and B in turn, NONE, PARTIAL, FULL), then each configuration
 * of kernels that test/gpu_lu.c forces (bsi_test_force), so that every
 * kernel meets listed systems, then the gathered masked getrf
 * (lu_dispatch.cuh's GATHER) on interleaved A: the table's, in segments of
 * 7 systems (the last ones empty), on every kernel (forced), and never.
 * BSOLVE_TEST_CONFIG=0 runs the table's kernels only, =1..11 one forced
 * configuration only; BSOLVE_TEST_SANITIZE=1 a few orders of the table's in
 * FP64, and the gathered getrf in segments of 7 at n = 40 and 54
 * (compute-sanitizer).
 * Prints "SKIP: no CUDA device" and exits 0 without a GPU.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batchsolve.h"
#include "gpu_check.h"
#include "gpu_dense.h"
#include "internal.h" /* bsi_test_force */
#include "testlib.h"  /* tl_lu_agree */

#ifndef HAVE_CUDART
int main(void) { return gpu_check_skip_main(); }
#else

static int sanitize;
static const char *g_cfg = "";

#define POISON 0x5a5a5a5a

static bsolve_status getrf(bsolve_ctx *c, int dbl, const void *A, bsolve_layout la, bsolve_lu *lu, const uint8_t *m,
                           int32_t *info)
{
    if (!m) return dbl ? bsolve_dgetrf(c, A, la, lu, info) : bsolve_sgetrf(c, A, la, lu, info);
    return dbl ? bsolve_dgetrf_masked(c, A, la, lu, m, info) : bsolve_sgetrf_masked(c, A, la, lu, m, info);
}
static bsolve_status getrs(bsolve_ctx *c, int dbl, bsolve_lu *lu, int nrhs, void *B, bsolve_layout lb,
                           const uint8_t *m, int32_t *info)
{
    if (!m) return dbl ? bsolve_dgetrs(c, lu, nrhs, B, lb, info) : bsolve_sgetrs(c, lu, nrhs, B, lb, info);
    return dbl ? bsolve_dgetrs_masked(c, lu, nrhs, B, lb, m, info) : bsolve_sgetrs_masked(c, lu, nrhs, B, lb, m, info);
}

static int same(double x, double y) { return (x == y && signbit(x) == signbit(y)) || (isnan(x) && isnan(y)); }

/* device copies */
static void *dup_dev(const void *h, size_t bytes)
{
    void *d;
    CU(cudaMalloc(&d, bytes ? bytes : 1));
    if (bytes) CU(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    return d;
}
static void to_host(void *h, const void *d, size_t bytes) { CU(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost)); }

/* A batch of matrices (diagonally dominant for NONE) with a singular system
 * (zero column 0) and a NaN system wherever k % 11 == 3 and k % 13 == 5. */
static void fill_A(void *A, size_t sa, int dbl, bsolve_pivot pv, int n, int64_t batch, bsolve_layout la)
{
    for (size_t t = 0; t < sa; t++) put(A, dbl, t, 777.0);
    for (int64_t k = 0; k < batch; k++) {
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double v = urand();
                if (pv == BSOLVE_PIVOT_NONE && i == j) v = (v > 0 ? 1 : -1) * (n + 1.0);
                put(A, dbl, idx(la, n, i, j, k), v);
            }
        if (k % 11 == 3)
            for (int i = 0; i < n; i++) put(A, dbl, idx(la, n, i, 0, k), 0.0);
        if (k % 13 == 5) put(A, dbl, idx(la, n, n - 1, n / 2, k), NAN);
    }
}

static void fill_B(void *B, size_t sb, int dbl, int n, int nrhs, int64_t batch, bsolve_layout lb)
{
    for (size_t t = 0; t < sb; t++) put(B, dbl, t, 777.0);
    for (int64_t k = 0; k < batch; k++)
        for (int c = 0; c < nrhs; c++)
            for (int i = 0; i < n; i++) put(B, dbl, idx(lb, n, i, c, k), k % 17 == 6 && c == nrhs - 1 ? INFINITY : urand());
}

static uint8_t *make_mask(int64_t batch, double q)
{
    uint8_t *m = malloc(batch);
    for (int64_t k = 0; k < batch; k++) {
        const int on = q >= 1 || (q > 0 && (urand() + 1) / 2 < q);
        m[k] = on ? (uint8_t)(1 + (rs >> 7) % 255) : 0;
    }
    return m;
}

/* The elements of the system k's solution in X equal those in Y. */
static int same_sys(const void *X, const void *Y, int dbl, int n, int nrhs, bsolve_layout lb, int64_t k)
{
    for (int c = 0; c < nrhs; c++)
        for (int i = 0; i < n; i++) {
            const int64_t o = idx(lb, n, i, c, k);
            if (!same(get(X, dbl, o), get(Y, dbl, o))) return 0;
        }
    return 1;
}

/* X (after a masked solve of B with mask m) against Y: flagged systems equal
 * Y's, every other element (unflagged systems, gaps) B's.  Returns the
 * elements that differ. */
static long check_solution(const void *X, const void *Y, const void *B, const uint8_t *m, int dbl, int n, int nrhs,
                           int64_t batch, bsolve_layout lb, size_t sb)
{
    const size_t es = dbl ? 8 : 4;
    void *E = malloc(sb * es);
    memcpy(E, B, sb * es);
    for (int64_t k = 0; k < batch; k++)
        if (m[k])
            for (int c = 0; c < nrhs; c++)
                for (int i = 0; i < n; i++) {
                    const int64_t o = idx(lb, n, i, c, k);
                    put(E, dbl, o, get(Y, dbl, o));
                }
    long bad = 0;
    for (size_t t = 0; t < sb; t++) bad += !same(get(X, dbl, t), get(E, dbl, t));
    free(E);
    return bad;
}

static long check_info(const int32_t *got, const int32_t *want, const uint8_t *m, int64_t batch)
{
    long bad = 0;
    for (int64_t k = 0; k < batch; k++) bad += m[k] ? got[k] != want[k] : got[k] != POISON;
    return bad;
}

static const char *pvname[] = {"NONE", "PARTIAL", "FULL"};

/* A factorization object's export: factors column-major (n x n, packed),
 * 1-based ipiv, jpiv. */
typedef struct {
    void *L;
    int32_t *ip, *jp;
} lu_x;

static void export_lu(bsolve_ctx *c, const bsolve_lu *lu, int dbl, int n, int64_t batch, lu_x *x, const char *desc)
{
    const size_t es = dbl ? 8 : 4;
    x->L = malloc((size_t)batch * n * n * es + 1);
    x->ip = malloc((size_t)batch * n * 4 + 1);
    x->jp = malloc((size_t)batch * n * 4 + 1);
    const bsolve_status st = bsolve_lu_export(c, lu, x->L, bsolve_layout_col_major(n, (int64_t)n * n), x->ip, x->jp);
    CHECK(st == 0, "%s: lu_export: status %d (%s)", desc, st, bsolve_ctx_message(c));
}
static void free_x(lu_x *x)
{
    free(x->L);
    free(x->ip);
    free(x->jp);
}

/* System k's factors and pivots in x and y, bit for bit. */
static int same_x(const lu_x *x, const lu_x *y, int dbl, int n, int64_t k)
{
    const size_t es = dbl ? 8 : 4, nn = (size_t)n * n;
    return !memcmp((const char *)x->L + k * nn * es, (const char *)y->L + k * nn * es, nn * es) &&
           !memcmp(x->ip + k * n, y->ip + k * n, (size_t)n * 4) && !memcmp(x->jp + k * n, y->jp + k * n, (size_t)n * 4);
}

/* The exports after round 1 (the masked getrf of A with m1): lm's (device
 * arrays) and lh's (host arrays) flagged systems bit for bit ref's (the
 * unmasked getrf of A), to rounding the CPU backend's lc (systems with info
 * 0); lp's (factored from A2 unmasked, then masked from A, device arrays)
 * flagged systems ref's, its others pre's (lp's export before the masked
 * call).  Returns the systems off. */
static long check_exports(const lu_x *lm, const lu_x *lh, const lu_x *ref, const lu_x *lc, const lu_x *lp,
                          const lu_x *pre, const int32_t *info, const uint8_t *m, const void *A, bsolve_layout la,
                          int dbl, int n, int64_t batch)
{
    const size_t nn = (size_t)n * n;
    double *a = malloc(nn * sizeof *a), *x = malloc(nn * sizeof *x), *y = malloc(nn * sizeof *y);
    long off = 0;
    for (int64_t k = 0; k < batch; k++) {
        if (!m[k]) {
            off += !same_x(lp, pre, dbl, n, k);
            continue;
        }
        off += !same_x(lm, ref, dbl, n, k) || !same_x(lh, ref, dbl, n, k) || !same_x(lp, ref, dbl, n, k);
        if (info[k] != 0) continue;
        for (size_t t = 0; t < nn; t++) {
            a[t] = get(A, dbl, idx(la, n, (int64_t)(t % n), (int64_t)(t / n), k));
            x[t] = get(lm->L, dbl, (int64_t)(k * nn + t));
            y[t] = get(lc->L, dbl, (int64_t)(k * nn + t));
        }
        off += !tl_lu_agree(n, a, x, lm->ip + k * n, lm->jp + k * n, y, lc->ip + k * n, lc->jp + k * n,
                            dbl ? 1e-9 : 1e-3, dbl ? 2.220446049250313e-16 : 1.1920929e-07);
    }
    free(a);
    free(x);
    free(y);
    return off;
}

static void run_case(bsolve_ctx *cpu, bsolve_ctx *gpu, cudaStream_t us, int dbl, bsolve_pivot pv, int n, int nrhs,
                     int64_t batch, bsolve_layout_kind ka, bsolve_layout_kind kb, int pad, double q1, double q2)
{
    const size_t es = dbl ? 8 : 4;
    const bsolve_precision pr = dbl ? BSOLVE_PREC_D : BSOLVE_PREC_S;
    bsolve_layout la = mk(ka, pad, n, n, batch), lb = mk(kb, !pad, n, nrhs, batch);
    const size_t sa = span(la, n, n, batch), sb = span(lb, n, nrhs, batch), sbb = sb * es, ib = batch * 4;
    char desc[260];
    snprintf(desc, sizeof desc, "%s%s%c %s n=%d nrhs=%d batch=%lld A=%s B=%s pad=%d masks %.2f/%.2f", g_cfg,
             *g_cfg ? ": " : "", dbl ? 'd' : 's', pvname[pv], n, nrhs, (long long)batch, kname[ka], kname[kb], pad, q1,
             q2);
    void *A = malloc(sa * es), *A2 = malloc(sa * es), *B = malloc(sbb), *B2 = malloc(sbb);
    void *Xa = malloc(sbb), *Xm = malloc(sbb), *Xh = malloc(sbb), *Xc = malloc(sbb), *Y = malloc(sbb), *Ya = malloc(sbb),
         *Yb = malloc(sbb);
    int32_t *ia = malloc(ib), *ib2 = malloc(ib), *isa = malloc(ib), *im = malloc(ib), *ih = malloc(ib),
            *ic = malloc(ib), *iy = malloc(ib), *iya = malloc(ib), *iyb = malloc(ib);
    fill_A(A, sa, dbl, pv, n, batch, la);
    fill_A(A2, sa, dbl, pv, n, batch, la);
    fill_B(B, sb, dbl, n, nrhs, batch, lb);
    fill_B(B2, sb, dbl, n, nrhs, batch, lb);
    uint8_t *m1 = make_mask(batch, q1), *m2 = make_mask(batch, q2);
    if (q1 > 0 && batch > 5) m1[3] = m1[5] = 7; /* fill_A's singular and NaN systems */

    void *dA = dup_dev(A, sa * es), *dA2 = dup_dev(A2, sa * es), *dB = dup_dev(B, sbb);
    uint8_t *dm1 = dup_dev(m1, batch), *dm2 = dup_dev(m2, batch);
    int32_t *dI;
    CU(cudaMalloc((void **)&dI, ib));
    CU(cudaDeviceSynchronize()); /* us does not wait for the legacy stream's copies */
    bsolve_ctx_set_stream(gpu, us);
    bsolve_lu *la_ = NULL, *lb_ = NULL, *lm = NULL, *lh = NULL, *lc = NULL, *lp = NULL;
    CHECK(bsolve_lu_create(gpu, pr, pv, n, batch, &la_) == 0 && bsolve_lu_create(gpu, pr, pv, n, batch, &lb_) == 0 &&
              bsolve_lu_create(gpu, pr, pv, n, batch, &lm) == 0 && bsolve_lu_create(gpu, pr, pv, n, batch, &lh) == 0 &&
              bsolve_lu_create(cpu, pr, pv, n, batch, &lc) == 0 && bsolve_lu_create(gpu, pr, pv, n, batch, &lp) == 0,
          "%s: lu_create", desc);
    lu_x xm = {0}, xh = {0}, xr = {0}, xc = {0}, xp = {0}, xpre = {0};
    if (!la_ || !lb_ || !lm || !lh || !lc || !lp) goto done;

    /* references: the unmasked calls on device arrays */
#define DEV_CALL(call, what)                                                                                       \
    do {                                                                                                           \
        bsolve_status s_ = (call);                                                                                 \
        CHECK(s_ == 0 && bsolve_ctx_synchronize(gpu) == 0, "%s: %s: status %d (%s)", desc, what, s_,               \
              bsolve_ctx_message(gpu));                                                                            \
    } while (0)
    DEV_CALL(getrf(gpu, dbl, dA, la, la_, NULL, dI), "getrf");
    to_host(ia, dI, ib);
    DEV_CALL(getrf(gpu, dbl, dA2, la, lb_, NULL, dI), "getrf of the second batch");
    to_host(ib2, dI, ib);
    DEV_CALL(getrs(gpu, dbl, la_, nrhs, dB, lb, NULL, dI), "getrs");
    to_host(Xa, dB, sbb);
    to_host(isa, dI, ib);

    /* masked, device arrays */
    CU(cudaMemset(dI, 0x5a, ib));
    CU(cudaMemcpy(dB, B, sbb, cudaMemcpyHostToDevice));
    CU(cudaDeviceSynchronize());
    DEV_CALL(getrf(gpu, dbl, dA, la, lm, dm1, dI), "getrf_masked");
    to_host(im, dI, ib);
    CHECK(check_info(im, ia, m1, batch) == 0, "%s: getrf_masked (device): %ld info entries wrong", desc,
          check_info(im, ia, m1, batch));
    CU(cudaMemset(dI, 0x5a, ib));
    CU(cudaDeviceSynchronize());
    DEV_CALL(getrs(gpu, dbl, lm, nrhs, dB, lb, dm1, dI), "getrs_masked");
    to_host(Xm, dB, sbb);
    to_host(im, dI, ib);
    CHECK(check_info(im, isa, m1, batch) == 0, "%s: getrs_masked (device): %ld info entries wrong", desc,
          check_info(im, isa, m1, batch));
    long bad = check_solution(Xm, Xa, B, m1, dbl, n, nrhs, batch, lb, sb);
    CHECK(bad == 0, "%s: getrs_masked (device): %ld elements differ from getrs's or from B's", desc, bad);
    long nanbad = 0, bwbad = 0;
    for (int64_t k = 0; k < batch; k++) {
        if (!m1[k]) continue;
        if (isa[k] != 0) {
            for (int c = 0; c < nrhs; c++)
                for (int i = 0; i < n; i++) nanbad += !isnan(get(Xm, dbl, idx(lb, n, i, c, k)));
        } else if (!(bwd(n, nrhs, dbl, A, la, B, Xm, lb, k) < 30)) {
            bwbad++;
        }
    }
    CHECK(nanbad == 0 && bwbad == 0, "%s: getrs_masked: %ld entries of failed systems not NaN, %ld systems with "
          "backward-error ratio >= 30", desc, nanbad, bwbad);

    /* masked, host arrays: the device arrays' results */
    for (int64_t k = 0; k < batch; k++) ih[k] = POISON;
    CHECK(getrf(gpu, dbl, A, la, lh, m1, ih) == 0, "%s: getrf_masked (host): %s", desc, bsolve_ctx_message(gpu));
    CHECK(check_info(ih, ia, m1, batch) == 0, "%s: getrf_masked (host): %ld info entries wrong", desc,
          check_info(ih, ia, m1, batch));
    memcpy(Xh, B, sbb);
    for (int64_t k = 0; k < batch; k++) ih[k] = POISON;
    CHECK(getrs(gpu, dbl, lh, nrhs, Xh, lb, m1, ih) == 0, "%s: getrs_masked (host): %s", desc, bsolve_ctx_message(gpu));
    bad = check_solution(Xh, Xa, B, m1, dbl, n, nrhs, batch, lb, sb);
    CHECK(bad == 0 && check_info(ih, isa, m1, batch) == 0, "%s: getrs_masked (host): %ld elements, %ld info entries "
          "differ", desc, bad, check_info(ih, isa, m1, batch));

    /* the CPU backend: same info, solutions to rounding */
    for (int64_t k = 0; k < batch; k++) ic[k] = POISON;
    CHECK(getrf(cpu, dbl, A, la, lc, m1, ic) == 0, "%s: cpu getrf_masked", desc);
    CHECK(check_info(ic, ia, m1, batch) == 0, "%s: cpu getrf_masked: %ld info entries differ from the GPU's", desc,
          check_info(ic, ia, m1, batch));
    memcpy(Xc, B, sbb);
    for (int64_t k = 0; k < batch; k++) ic[k] = POISON;
    CHECK(getrs(cpu, dbl, lc, nrhs, Xc, lb, m1, ic) == 0, "%s: cpu getrs_masked", desc);
    CHECK(check_info(ic, isa, m1, batch) == 0, "%s: cpu getrs_masked: %ld info entries differ from the GPU's", desc,
          check_info(ic, isa, m1, batch));
    long off = 0;
    for (int64_t k = 0; k < batch; k++) {
        if (!m1[k]) {
            off += !same_sys(Xc, B, dbl, n, nrhs, lb, k);
            continue;
        }
        if (isa[k] != 0) continue;
        for (int c = 0; c < nrhs; c++)
            for (int i = 0; i < n; i++) {
                const int64_t o = idx(lb, n, i, c, k);
                const double x = get(Xc, dbl, o), y = get(Xm, dbl, o);
                if (!(fabs(x - y) <= (dbl ? 1e-9 : 1e-3) * (1 + fabs(y))) && bwd(n, nrhs, dbl, A, la, B, Xc, lb, k) >= 30)
                    off++;
            }
    }
    CHECK(off == 0, "%s: %ld CPU masked results off the GPU's", desc, off);

    /* the factors: lp factored from A2 first, then masked from A */
    if (batch > 0) {
        DEV_CALL(getrf(gpu, dbl, dA2, la, lp, NULL, dI), "getrf of the second batch into lp");
        export_lu(gpu, lp, dbl, n, batch, &xpre, desc);
        DEV_CALL(getrf(gpu, dbl, dA, la, lp, dm1, dI), "getrf_masked over lp");
        export_lu(gpu, lp, dbl, n, batch, &xp, desc);
        export_lu(gpu, lm, dbl, n, batch, &xm, desc);
        export_lu(gpu, lh, dbl, n, batch, &xh, desc);
        export_lu(gpu, la_, dbl, n, batch, &xr, desc);
        export_lu(cpu, lc, dbl, n, batch, &xc, desc);
        const long xoff = check_exports(&xm, &xh, &xr, &xc, &xp, &xpre, ia, m1, A, la, dbl, n, batch);
        CHECK(xoff == 0, "%s: %ld systems' exported factors or pivots off (flagged: the unmasked getrf's bit for bit "
              "and the CPU backend's to rounding; unflagged: the earlier factors')", desc, xoff);
    }

    /* a second masked getrf on lm, then an unmasked getrs: each system with
     * its last factors, none where no call factored it */
    CU(cudaMemset(dI, 0x5a, ib));
    CU(cudaDeviceSynchronize());
    DEV_CALL(getrf(gpu, dbl, dA2, la, lm, dm2, dI), "second getrf_masked");
    to_host(im, dI, ib);
    CHECK(check_info(im, ib2, m2, batch) == 0, "%s: second getrf_masked: %ld info entries wrong", desc,
          check_info(im, ib2, m2, batch));
    void *dY = dup_dev(B2, sbb);
    CU(cudaDeviceSynchronize());
    DEV_CALL(getrs(gpu, dbl, la_, nrhs, dY, lb, NULL, dI), "getrs of the second B");
    to_host(Ya, dY, sbb);
    to_host(iya, dI, ib);
    CU(cudaMemcpy(dY, B2, sbb, cudaMemcpyHostToDevice));
    CU(cudaDeviceSynchronize());
    DEV_CALL(getrs(gpu, dbl, lb_, nrhs, dY, lb, NULL, dI), "getrs of the second B");
    to_host(Yb, dY, sbb);
    to_host(iyb, dI, ib);
    CU(cudaMemcpy(dY, B2, sbb, cudaMemcpyHostToDevice));
    CU(cudaDeviceSynchronize());
    DEV_CALL(getrs(gpu, dbl, lm, nrhs, dY, lb, NULL, dI), "getrs after two masked getrf");
    to_host(Y, dY, sbb);
    to_host(iy, dI, ib);
    long wrong = 0, never = 0;
    for (int64_t k = 0; k < batch; k++) {
        if (m2[k] || m1[k]) {
            wrong += iy[k] != (m2[k] ? iyb[k] : iya[k]) || !same_sys(Y, m2[k] ? Yb : Ya, dbl, n, nrhs, lb, k);
        } else {
            int nan = 1;
            for (int c = 0; c < nrhs; c++)
                for (int i = 0; i < n; i++) nan &= isnan(get(Y, dbl, idx(lb, n, i, c, k)));
            never += iy[k] != BSOLVE_INFO_NONFINITE || !nan;
        }
    }
    CHECK(wrong == 0 && never == 0, "%s: getrs after two masked getrf: %ld systems off their last factors, %ld "
          "never factored systems not NONFINITE and NaN", desc, wrong, never);
    CU(cudaFree(dY));

    /* the mask's memory kind must be the arrays' */
    if (batch > 0) {
        bsolve_status s = getrf(gpu, dbl, dA, la, lm, m1, dI);
        CHECK(s == BSOLVE_EINVAL, "%s: getrf_masked with device arrays and a host mask: status %d", desc, s);
    }
done:
    free_x(&xm);
    free_x(&xh);
    free_x(&xr);
    free_x(&xc);
    free_x(&xp);
    free_x(&xpre);
    bsolve_lu_destroy(lp);
    bsolve_lu_destroy(la_);
    bsolve_lu_destroy(lb_);
    bsolve_lu_destroy(lm);
    bsolve_lu_destroy(lh);
    bsolve_lu_destroy(lc);
    bsolve_ctx_set_stream(gpu, NULL);
    CU(cudaFree(dA)); CU(cudaFree(dA2)); CU(cudaFree(dB)); CU(cudaFree(dm1)); CU(cudaFree(dm2)); CU(cudaFree(dI));
    free(A); free(A2); free(B); free(B2); free(Xa); free(Xm); free(Xh); free(Xc); free(Y); free(Ya); free(Yb);
    free(ia); free(ib2); free(isa); free(im); free(ih); free(ic); free(iy); free(iya); free(iyb); free(m1); free(m2);
}

static const double dens[][2] = {{0.3, 0.6}, {1, 0.05}, {0, 0.5}, {0.95, 1}, {0.05, 0}, {0.6, 0.25}};

/* Both precisions, every pivoting, the orders ns[0..nn-1]; layouts (A's
 * interleaved where il) and densities in turn. */
static void run_sizes(bsolve_ctx *cpu, bsolve_ctx *gpu, cudaStream_t us, const int *ns, int nn, int il)
{
    int v = 0;
    for (int dbl = 1; dbl >= (sanitize ? 1 : 0); dbl--)
        for (int t = 0; t < nn; t++) {
            const int n = ns[t];
            const int64_t batch = sanitize ? 37 : n <= 16 ? 301 : n <= 40 ? 97 : 37;
            for (int pv = 0; pv < 3; pv++, v++)
                run_case(cpu, gpu, us, dbl, (bsolve_pivot)pv, n, v % 5 == 2 ? 3 : 1, batch,
                         il ? BSOLVE_INTERLEAVED : (bsolve_layout_kind)(v % 3), (bsolve_layout_kind)((v / 3 + pv) % 3),
                         v % 2, dens[v % 6][0], dens[v % 6][1]);
        }
}

int main(void)
{
    const char *q = getenv("BSOLVE_TEST_SANITIZE");
    sanitize = q && *q && strcmp(q, "0");
    q = getenv("BSOLVE_TEST_CONFIG");
    const int only = q && *q && strcmp(q, "all") ? atoi(q) : -1;
    if (only > 11 || only < -1) {
        fprintf(stderr, "BSOLVE_TEST_CONFIG=%s: expected all, 0 or 1..11\n", q);
        return 1;
    }
    bsolve_ctx *gpu = NULL, *cpu = NULL;
    bsolve_status s = bsolve_ctx_create(&gpu, BSOLVE_BACKEND_CUDA);
    if (s == BSOLVE_ENODEVICE) {
        printf("SKIP: no CUDA device\n");
        return 0;
    }
    if (s != 0 || bsolve_ctx_create(&cpu, BSOLVE_BACKEND_CPU) != 0) {
        fprintf(stderr, "FAIL: context creation: %s\n", bsolve_strerror(s));
        return 1;
    }
    cudaStream_t us;
    CU(cudaStreamCreateWithFlags(&us, cudaStreamNonBlocking));
    /* the table's kernels: TEAM (1..8, 24, 32), SMEM (9, 12, 15), WARP (13, 16, 20, 48),
     * TILE (33, 40), PANEL (54, 64, 100, 128), BLOCK (FULL beyond 48), SOLVE (getrs from 9) */
    static const int ns_table[] = {1, 2, 3, 5, 8, 9, 12, 13, 15, 16, 20, 24, 32, 33, 40, 48, 54, 64, 100, 128};
    static const int ns_san[] = {3, 12, 17, 20, 21, 40, 54, 128};
    if (only <= 0) {
        printf("== gpu_lu_masked: the dispatch table's kernels\n");
        fflush(stdout);
        if (sanitize) run_sizes(cpu, gpu, us, ns_san, (int)(sizeof ns_san / sizeof *ns_san), 0);
        else run_sizes(cpu, gpu, us, ns_table, (int)(sizeof ns_table / sizeof *ns_table), 0);
    }
    /* test/gpu_lu.c's forced configurations, on the orders where they
     * change the kernel */
    static const int ns_forced[] = {9, 11, 12, 13, 16, 17, 24, 27, 32, 40, 48, 49, 64};
    static const int ns_solve[] = {1, 2, 5, 8, 9, 16, 33, 64, 100, 128};
    static const int ns_smem[] = {9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22};
    static const int ns_tile[] = {33, 40, 41, 48, 49, 56, 57, 64, 65, 80, 100, 128};
    /* the gathered getrf: TILE, PANEL, WARP FULL (33..48), BLOCK FULL */
    static const int ns_gather[] = {33, 40, 48, 54, 64, 100, 128};
    static const int ns_gather_all[] = {2, 8, 9, 12, 16, 20, 32, 40, 54};
    static const int ns_gather_san[] = {40, 54};
    static const struct {
        const char *what;
        int knob, value;
        const int *ns;
        int nn, il;
    } configs[] = {
        {"without the row-per-lane kernel", BSI_FORCE_LU_WARP, 1, ns_forced, (int)(sizeof ns_forced / sizeof *ns_forced), 0},
        {"the row-per-lane kernel wherever it has a bucket", BSI_FORCE_LU_WARP, 2, ns_forced,
         (int)(sizeof ns_forced / sizeof *ns_forced), 0},
        {"the register-tile kernel wherever it runs", BSI_FORCE_LU_TILE, 2, ns_tile, (int)(sizeof ns_tile / sizeof *ns_tile), 0},
        {"the blocked panel kernel wherever it runs", BSI_FORCE_LU_PANEL, 2, ns_tile, (int)(sizeof ns_tile / sizeof *ns_tile), 0},
        {"the thread-per-system getrs on every getrs", BSI_FORCE_LU_SOLVE, 2, ns_solve, (int)(sizeof ns_solve / sizeof *ns_solve), 0},
        {"the shared-memory kernel on every order it has", BSI_FORCE_LU_SMEM, 2, ns_smem, (int)(sizeof ns_smem / sizeof *ns_smem), 0},
        {"without the shared-memory kernel", BSI_FORCE_LU_SMEM, 1, ns_smem, (int)(sizeof ns_smem / sizeof *ns_smem), 0},
        {"interleaved A, the table's gathering", BSI_FORCE_LU_GATHER, 0, ns_gather,
         (int)(sizeof ns_gather / sizeof *ns_gather), 1},
        {"interleaved A gathered in segments of 7 systems", BSI_FORCE_LU_GATHER, 7, ns_gather,
         (int)(sizeof ns_gather / sizeof *ns_gather), 1},
        {"interleaved A gathered whatever the kernel, in segments of 5", BSI_FORCE_LU_GATHER, 5, ns_gather_all,
         (int)(sizeof ns_gather_all / sizeof *ns_gather_all), 1},
        {"interleaved A, never gathered", BSI_FORCE_LU_GATHER, 1, ns_gather, (int)(sizeof ns_gather / sizeof *ns_gather),
         1}};
    for (int c = 0; c < (int)(sizeof configs / sizeof *configs); c++) {
        const int gsan = sanitize && configs[c].knob == BSI_FORCE_LU_GATHER && configs[c].value == 7;
        if (only == 0 || (only > 0 && only != c + 1) || (only < 0 && sanitize && !gsan)) continue;
        g_cfg = configs[c].what;
        rs = 0x9e3779b97f4a7c15ULL;
        CHECK(bsi_test_force(gpu, configs[c].knob, configs[c].value) == 0, "bsi_test_force");
        printf("== gpu_lu_masked, configuration %d: %s\n", c + 1, configs[c].what);
        fflush(stdout);
        if (gsan) run_sizes(cpu, gpu, us, ns_gather_san, (int)(sizeof ns_gather_san / sizeof *ns_gather_san), 1);
        else run_sizes(cpu, gpu, us, configs[c].ns, configs[c].nn, configs[c].il);
        bsi_test_force(gpu, configs[c].knob, 0);
    }
    CU(cudaStreamDestroy(us));
    bsolve_ctx_destroy(gpu);
    bsolve_ctx_destroy(cpu);
    printf("%s: %ld checks, %ld failed\n", nfail ? "FAIL" : "PASS", nchecks, nfail);
    return nfail ? 1 : 0;
}
#endif
