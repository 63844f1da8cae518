/*
 * gpu_chem.c -- the CUDA kinetics (samples/chem/kinetics_cuda.cu) against the
 * CPU functions (samples/chem/kinetics.c) at the reference states of every
 * shipped mechanism (h2o2, gri30, pdep; samples/chem/<name>.ref), in one
 * batch per mechanism: the states repeated to a batch that is not a
 * multiple of the kernels' block, stored interleaved by cell.
 *
 *   - status per cell: CHEM_OK, and CHEM_EDOMAIN exactly at the cells made
 *     outside the model (T < 0; all Y zero); every output of every other
 *     cell written (the outputs are NaN-poisoned first);
 *   - rates: gross within RTOL of the CPU's, wdot within RTOL of
 *     max(|wdot|, FLOOR gross) (test_chem's criterion against Cantera: the
 *     two math libraries round exp, log and pow differently, and the
 *     device contracts to FMA);
 *   - the reactor right-hand side likewise (the floor: the gross rates in
 *     each row's units);
 *   - the Jacobian entry by entry within RTOL of max(|J_ij|, FLOOR R_i /
 *     s_j), s_j = max(|x_j|, 1e-6), R_i the row's scale: its gross rate, or
 *     its largest change max_k |J_ik| s_k, if larger; and the f that comes
 *     with it as the right-hand side.
 * Both kinds of kernels: a team per cell (the default) and one thread per
 * cell (the fallback for mechanisms whose team workspace does not fit,
 * forced with chem_cuda_mech_use_team).  Every kernel runs on a user
 * stream.  Prints "SKIP: no CUDA device" and exits 0 without a GPU.  The
 * data files are found in CHEM_DATA_DIR.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batchsolve.h"
#include "gpu_check.h"
#include "kinetics.h"
#include "tokens.h"

#ifndef HAVE_CUDART
int main(void) { return gpu_check_skip_main(); }
#else

#include "kinetics_cuda.h"

#ifndef CHEM_DATA_DIR
#define CHEM_DATA_DIR "samples/chem"
#endif

#define RTOL 1e-10
#define FLOOR 1e-3
#define EXTRA 37 /* cells beyond a multiple of the states: the batch is no multiple of 128 */

/* The reference states' T, P and mass fractions (normalized, as Cantera
 * stores them): the *.ref format of tools/chem_export.py. */
typedef struct states {
    int n;
    double *T, *P, *Y;
} states;

static int skip_vec(chem_tokens *t, const char *key, int n)
{
    double x;
    if (chem_tok_expect(t, key)) return -1;
    for (int i = 0; i < n; i++)
        if (chem_tok_double(t, key, &x)) return -1;
    return 0;
}

static int read_states(chem_tokens *t, const chem_mech *m, states *s)
{
    long v, n;
    const int K = m->nsp;
    if (chem_tok_expect(t, "chem-ref") || chem_tok_int(t, "version", 1, 1, &v) || chem_tok_expect(t, "name") ||
        chem_tok_expect(t, m->name) || chem_tok_expect(t, "species") || chem_tok_int(t, "species", K, K, &n))
        return -1;
    for (int k = 0; k < K; k++)
        if (chem_tok_expect(t, m->sp_name[k])) return -1;
    if (chem_tok_expect(t, "states") || chem_tok_int(t, "states", 1, 100000, &n)) return -1;
    s->T = malloc((size_t)n * sizeof(double));
    s->P = malloc((size_t)n * sizeof(double));
    s->Y = malloc((size_t)n * K * sizeof(double));
    if (!s->T || !s->P || !s->Y) return chem_tok_fail(t, "out of memory");
    for (s->n = 0; s->n < n; s->n++) {
        long i;
        double *Y = s->Y + (size_t)s->n * K, sum = 0;
        if (chem_tok_expect(t, "state") || chem_tok_int(t, "state index", s->n, s->n, &i) ||
            chem_tok_next(t, "state kind") || chem_tok_double(t, "T", &s->T[s->n]) ||
            chem_tok_double(t, "P", &s->P[s->n]) || chem_tok_expect(t, "Y"))
            return -1;
        for (int k = 0; k < K; k++) {
            if (chem_tok_double(t, "Y", &Y[k])) return -1;
            sum += Y[k];
        }
        for (int k = 0; k < K; k++) Y[k] *= 1.0 / sum;
        if (skip_vec(t, "wdot", K) || skip_vec(t, "gross", K) || skip_vec(t, "rhs", K + 1)) return -1;
    }
    return 0;
}

/* |a - b| <= RTOL scale, counted; returns the error over the scale */
static double cmp(double dev, double cpu, double scale, const char *mech, const char *what, int cell, int i, int j)
{
    const double e = fabs(dev - cpu);
    CHECK(e <= RTOL * scale, "%s cell %d %s (%d, %d): device %.17g, CPU %.17g (scale %g)", mech, cell, what, i, j, dev,
          cpu, scale);
    return scale > 0 ? e / scale : e == 0 ? 0 : INFINITY;
}

static void run_mech(const char *name, int team, cudaStream_t us)
{
    char path[1024], msg[512];
    chem_mech *m;
    snprintf(path, sizeof path, "%s/%s.mech", CHEM_DATA_DIR, name);
    if (chem_mech_load(path, &m, msg, sizeof msg) != CHEM_OK) {
        CHECK(0, "chem_mech_load: %s", msg);
        return;
    }
    snprintf(path, sizeof path, "%s/%s.ref", CHEM_DATA_DIR, name);
    chem_tokens t;
    states s = {0, NULL, NULL, NULL};
    const int bad = chem_tok_open(&t, path) || read_states(&t, m, &s);
    chem_tok_close(&t);
    if (bad) {
        CHECK(0, "reading %s: %s", path, t.msg);
        free(s.T), free(s.P), free(s.Y);
        chem_mech_free(m);
        return;
    }

    /* cell c is state c mod s.n; two cells outside the model */
    const int K = m->nsp, n = K + 1, N = 3 * s.n + EXTRA, bad_T = N - 5, bad_Y = N - 2;
    const size_t nn = (size_t)n * n, Ns = (size_t)N;
    double *T = malloc(Ns * sizeof(double)), *P = malloc(Ns * sizeof(double)), *x = malloc(Ns * n * sizeof(double));
    /* CPU results, per cell contiguous */
    double *wc = malloc(Ns * K * sizeof(double)), *gc = malloc(Ns * K * sizeof(double)),
           *fc = malloc(Ns * n * sizeof(double)), *Jc = malloc(Ns * nn * sizeof(double)),
           *work = malloc(chem_work_len(m) * sizeof(double)), *h_RT = malloc((size_t)K * sizeof(double)),
           *cp_R = malloc((size_t)K * sizeof(double));
    int *sc = malloc(Ns * sizeof(int));
    /* device results, interleaved, copied back */
    double *xi = malloc(Ns * n * sizeof(double)), *wd = malloc(Ns * K * sizeof(double)),
           *gd = malloc(Ns * K * sizeof(double)), *fd = malloc(Ns * n * sizeof(double)),
           *fjd = malloc(Ns * n * sizeof(double)), *Jd = malloc(Ns * nn * sizeof(double));
    int *sd = malloc(3 * Ns * sizeof(int));
    if (!T || !P || !x || !wc || !gc || !fc || !Jc || !work || !h_RT || !cp_R || !sc || !xi || !wd || !gd || !fd ||
        !fjd || !Jd || !sd) {
        fprintf(stderr, "gpu_chem: out of memory\n");
        exit(1);
    }
    for (int c = 0; c < N; c++) {
        const int st = c % s.n;
        T[c] = c == bad_T ? -1.0 : s.T[st];
        P[c] = s.P[st];
        for (int k = 0; k < K; k++) x[(size_t)c * n + k] = c == bad_Y ? 0.0 : s.Y[(size_t)st * K + k];
        x[(size_t)c * n + K] = T[c];
        for (int i = 0; i < n; i++) xi[(size_t)i * N + c] = x[(size_t)c * n + i];
        double *xc = x + (size_t)c * n;
        sc[c] = chem_rates(m, T[c], P[c], xc, wc + (size_t)c * K, gc + (size_t)c * K, work);
        const int r2 = chem_rhs(m, P[c], xc, fc + (size_t)c * n, work);
        const int r3 = chem_jacobian(m, P[c], xc, NULL, Jc + nn * c, work);
        CHECK(sc[c] == r2 && r2 == r3, "%s cell %d: CPU statuses %d %d %d", name, c, sc[c], r2, r3);
        CHECK((sc[c] == CHEM_EDOMAIN) == (c == bad_T || c == bad_Y), "%s cell %d: CPU status %d", name, c, sc[c]);
    }

    chem_cuda_mech *dm;
    const int rc = chem_cuda_mech_create(m, &dm, msg, sizeof msg);
    CHECK(rc == CHEM_OK, "chem_cuda_mech_create: %s", msg);
    if (rc != CHEM_OK) exit(1);
    CHECK(chem_cuda_mech_use_team(dm, team) == team, "%s: team kernels %s", name, team ? "not there" : "not dropped");
    double *dT, *dP, *dx, *dw, *dg, *df, *dfj, *dJ;
    int *ds;
    CU(cudaMalloc((void **)&dT, Ns * sizeof(double)));
    CU(cudaMalloc((void **)&dP, Ns * sizeof(double)));
    CU(cudaMalloc((void **)&dx, Ns * n * sizeof(double)));
    CU(cudaMalloc((void **)&dw, Ns * K * sizeof(double)));
    CU(cudaMalloc((void **)&dg, Ns * K * sizeof(double)));
    CU(cudaMalloc((void **)&df, Ns * n * sizeof(double)));
    CU(cudaMalloc((void **)&dfj, Ns * n * sizeof(double)));
    CU(cudaMalloc((void **)&dJ, Ns * nn * sizeof(double)));
    CU(cudaMalloc((void **)&ds, 3 * Ns * sizeof(int)));
    CU(cudaMemcpyAsync(dT, T, Ns * sizeof(double), cudaMemcpyHostToDevice, us));
    CU(cudaMemcpyAsync(dP, P, Ns * sizeof(double), cudaMemcpyHostToDevice, us));
    CU(cudaMemcpyAsync(dx, xi, Ns * n * sizeof(double), cudaMemcpyHostToDevice, us));
    /* NaN poison (all bytes 0xff) in every output; -1 in the statuses (all on
     * the user stream, which does not wait for the legacy default stream) */
    CU(cudaMemsetAsync(dw, 0xff, Ns * K * sizeof(double), us));
    CU(cudaMemsetAsync(dg, 0xff, Ns * K * sizeof(double), us));
    CU(cudaMemsetAsync(df, 0xff, Ns * n * sizeof(double), us));
    CU(cudaMemsetAsync(dfj, 0xff, Ns * n * sizeof(double), us));
    CU(cudaMemsetAsync(dJ, 0xff, Ns * nn * sizeof(double), us));
    CU(cudaMemsetAsync(ds, 0xff, 3 * Ns * sizeof(int), us));
    CHECK(chem_cuda_rates(dm, N, dT, dP, dx, dw, dg, ds, us) == 0, "chem_cuda_rates launch");
    CHECK(chem_cuda_rhs(dm, N, dP, dx, df, ds + Ns, us) == 0, "chem_cuda_rhs launch");
    CHECK(chem_cuda_jacobian(dm, N, dP, dx, dfj, dJ, ds + 2 * Ns, us) == 0, "chem_cuda_jacobian launch");
    CU(cudaStreamSynchronize(us));
    CU(cudaMemcpy(wd, dw, Ns * K * sizeof(double), cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(gd, dg, Ns * K * sizeof(double), cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(fd, df, Ns * n * sizeof(double), cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(fjd, dfj, Ns * n * sizeof(double), cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(Jd, dJ, Ns * nn * sizeof(double), cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(sd, ds, 3 * Ns * sizeof(int), cudaMemcpyDeviceToHost));

    double worst_r = 0, worst_f = 0, worst_J = 0;
    for (int c = 0; c < N; c++) {
        for (int v = 0; v < 3; v++)
            CHECK(sd[v * Ns + c] == sc[c], "%s cell %d: device status %d (kernel %d), CPU %d", name, c, sd[v * Ns + c],
                  v, sc[c]);
        if (sc[c] != CHEM_OK) continue;
        const double *xc = x + (size_t)c * n, *g = gc + (size_t)c * K, *w = wc + (size_t)c * K;
        for (int k = 0; k < K; k++) {
            worst_r = fmax(worst_r, cmp(gd[(size_t)k * N + c], g[k], g[k], name, "gross", c, k, 0));
            const double scale = fmax(fabs(w[k]), FLOOR * g[k]);
            worst_r = fmax(worst_r, cmp(wd[(size_t)k * N + c], w[k], scale, name, "wdot", c, k, 0));
        }
        /* the gross rates in the right-hand side's units: rho, cp, h */
        chem_thermo(m, T[c], cp_R, h_RT, NULL);
        double sum = 0, cp = 0, gT = 0;
        for (int k = 0; k < K; k++) sum += xc[k] / m->W[k], cp += xc[k] * cp_R[k] / m->W[k];
        const double rho = P[c] / (CHEM_R * T[c] * sum);
        for (int k = 0; k < K; k++) gT += fabs(h_RT[k] * T[c]) * g[k] / (rho * cp);
        double R[CHEM_CUDA_KMAX + 1];
        const double *Jcc = Jc + nn * c;
        for (int i = 0; i < n; i++) {
            R[i] = i < K ? g[i] * m->W[i] / rho : gT;
            const double fi = fc[(size_t)c * n + i], scale = fmax(fabs(fi), FLOOR * R[i]);
            worst_f = fmax(worst_f, cmp(fd[(size_t)i * N + c], fi, scale, name, "rhs", c, i, 0));
            worst_f = fmax(worst_f, cmp(fjd[(size_t)i * N + c], fi, scale, name, "jacobian's rhs", c, i, 0));
            for (int j = 0; j < n; j++) R[i] = fmax(R[i], fabs(Jcc[i + (size_t)j * n]) * fmax(fabs(xc[j]), 1e-6));
        }
        for (int j = 0; j < n; j++) {
            const double sj = fmax(fabs(xc[j]), 1e-6);
            for (int i = 0; i < n; i++) {
                const size_t e = i + (size_t)j * n;
                const double scale = fmax(fabs(Jcc[e]), FLOOR * R[i] / sj);
                worst_J = fmax(worst_J, cmp(Jd[e * N + c], Jcc[e], scale, name, "J", c, i, j));
            }
        }
    }
    printf("%s, %s: %d cells (%d states): worst error over the scale: rates %.2g, rhs %.2g, Jacobian %.2g "
           "(tolerance %g)\n",
           name, team ? "a team per cell" : "a thread per cell", N, s.n, worst_r, worst_f, worst_J, RTOL);

    chem_cuda_mech_free(dm);
    cudaFree(dT), cudaFree(dP), cudaFree(dx), cudaFree(dw), cudaFree(dg), cudaFree(df), cudaFree(dfj), cudaFree(dJ);
    cudaFree(ds);
    free(T), free(P), free(x), free(wc), free(gc), free(fc), free(Jc), free(work), free(h_RT), free(cp_R), free(sc);
    free(xi), free(wd), free(gd), free(fd), free(fjd), free(Jd), free(sd);
    free(s.T), free(s.P), free(s.Y);
    chem_mech_free(m);
}

int main(void)
{
    bsolve_ctx *gpu = NULL;
    const bsolve_status s = bsolve_ctx_create(&gpu, BSOLVE_BACKEND_CUDA);
    if (s == BSOLVE_ENODEVICE) {
        printf("SKIP: no CUDA device\n");
        return 0;
    }
    if (s != BSOLVE_SUCCESS) {
        fprintf(stderr, "FAIL: context creation: %s\n", bsolve_strerror(s));
        return 1;
    }
    bsolve_ctx_destroy(gpu);
    cudaStream_t us;
    CU(cudaStreamCreateWithFlags(&us, cudaStreamNonBlocking));
    static const char *mechs[] = {"h2o2", "gri30", "pdep"};
    for (int i = 0; i < 3; i++)
        for (int team = 1; team >= 0; team--) run_mech(mechs[i], team, us);
    CU(cudaStreamDestroy(us));
    printf("%s: %ld checks, %ld failed\n", nfail ? "FAIL" : "PASS", nchecks, nfail);
    return nfail ? 1 : 0;
}
#endif
