/*
 * kinetics_cuda.cu -- the kinetics kernels (kinetics_cuda.h): kinetics_team.c
 * compiled for the device (hd.h), a team per cell, or kinetics.c, one
 * thread per cell, where the team's workspace does not fit.
 *
 * The mechanism is one device allocation: its arrays, then the chem_mech
 * whose pointers address them, so that the kernels read m->rxn[i] and the
 * rest exactly as the CPU code does.  The team tables are another (their
 * arrays moved there whole, chem_team_rebase); kernels take the chem_team
 * by value (__grid_constant__: its fields are uniform parameter loads).
 */
#include "kinetics.c"
#include "kinetics_team.c"

#include "kinetics_cuda.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

struct chem_cuda_mech {
    chem_mech *dev; /* the struct, at the end of buf */
    void *buf;
    chem_team team; /* device addresses in team_buf */
    void *team_buf;
    int has_team; /* team tables made */
    int use_team; /* ... and the launchers take them */
};

enum { THREADS = 128, TEAM_WARPS = 4 /* cells per block of the rates and rhs team kernels */ };

/* where the arrays go: a sizing pass (host NULL), then a filling one */
typedef struct placement {
    size_t off;
    char *host, *dev;
} placement;

template <class T> static T *put(placement *L, const T *src, size_t count)
{
    if (!count || !src) return NULL;
    const size_t at = L->off;
    L->off = (at + count * sizeof(T) + 255) & ~(size_t)255;
    if (L->host) memcpy(L->host + at, src, count * sizeof(T));
    return (T *)(L->dev + at);
}

static void place(placement *L, const chem_mech *m, chem_mech *d)
{
    const size_t K = (size_t)m->nsp;
    size_t neff = 0, nplog = 0;
    for (int i = 0; i < m->nrxn; i++) {
        const chem_rxn *r = &m->rxn[i];
        if (r->neff > 0 && (size_t)(r->eff_first + r->neff) > neff) neff = (size_t)(r->eff_first + r->neff);
        if (r->nplog > 0 && (size_t)(r->plog_first + r->nplog) > nplog) nplog = (size_t)(r->plog_first + r->nplog);
    }
    const size_t nterm = nplog ? (size_t)m->plog_term[nplog] : 0;
    *d = *m;
    d->sp_name = NULL; /* names stay on the host */
    d->W = put(L, m->W, K);
    d->tmin = put(L, m->tmin, K);
    d->tmid = put(L, m->tmid, K);
    d->tmax = put(L, m->tmax, K);
    d->nasa = put(L, m->nasa, K);
    d->rxn = put(L, m->rxn, (size_t)m->nrxn);
    d->eff_sp = put(L, m->eff_sp, neff);
    d->eff_val = put(L, m->eff_val, neff);
    d->plog_lnp = put(L, m->plog_lnp, nplog);
    d->plog_term = put(L, m->plog_term, nplog ? nplog + 1 : 0);
    d->plog_arr = put(L, m->plog_arr, nterm);
}

static __global__ void k_team_rates(const chem_mech *__restrict__ m, const __grid_constant__ chem_team t, int ncell,
                                    const double *__restrict__ T, const double *__restrict__ P, const double *Y,
                                    double *wdot, double *gross, int *status);
static __global__ void k_team_jacobian(const chem_mech *__restrict__ m, const __grid_constant__ chem_team t, int ncell,
                                       const double *__restrict__ P, const double *x, double *f, double *J,
                                       int *status);

/* the team tables on the device, where a team's workspace fits a block's
 * shared memory (else none: the launchers take one thread per cell) */
static int team_create(const chem_mech *m, chem_cuda_mech *h, char *msg, size_t msglen)
{
    chem_team *t;
    int rc = chem_team_create(m, CHEM_CUDA_TEAM_R, CHEM_CUDA_TEAM_J, &t, msg, msglen);
    if (rc == CHEM_EDOMAIN) { /* beyond the tables' indices: no team */
        msg[0] = 0;
        return CHEM_OK;
    }
    if (rc != CHEM_OK) return rc;
    int dev = 0, smem = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    const size_t rbytes = TEAM_WARPS * t->ws_rates * sizeof(double), jbytes = t->ws_jac * sizeof(double);
    if (e == cudaSuccess && rbytes <= (size_t)smem && jbytes <= (size_t)smem) {
        e = cudaMalloc(&h->team_buf, t->bytes);
        if (e == cudaSuccess) e = cudaMemcpy(h->team_buf, t->base, t->bytes, cudaMemcpyHostToDevice);
        if (e == cudaSuccess)
            e = cudaFuncSetAttribute(k_team_rates, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)rbytes);
        /* half of L1 for the tables, as the ensemble's rhs kernel */
        if (e == cudaSuccess)
            e = cudaFuncSetAttribute(k_team_rates, cudaFuncAttributePreferredSharedMemoryCarveout, 50);
        if (e == cudaSuccess)
            e = cudaFuncSetAttribute(k_team_jacobian, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)jbytes);
        if (e == cudaSuccess) {
            chem_team_rebase(t, h->team_buf, &h->team);
            h->has_team = h->use_team = 1;
        }
    }
    chem_team_free(t);
    if (e != cudaSuccess) {
        snprintf(msg, msglen, "device copy of %s's team tables: %s", m->name, cudaGetErrorString(e));
        return e == cudaErrorMemoryAllocation ? CHEM_ENOMEM : CHEM_EIO;
    }
    return CHEM_OK;
}

extern "C" int chem_cuda_mech_create(const chem_mech *m, chem_cuda_mech **out, char *msg, size_t msglen)
{
    *out = NULL;
    if (m->nsp < 1 || m->nsp > CHEM_CUDA_KMAX) {
        snprintf(msg, msglen, "%s: %d species, the kernels take 1..%d", m->name, m->nsp, CHEM_CUDA_KMAX);
        return CHEM_EDOMAIN;
    }
    placement L = {0, NULL, NULL};
    chem_mech d;
    place(&L, m, &d);
    const size_t at = L.off, bytes = at + sizeof(chem_mech);
    chem_cuda_mech *h = (chem_cuda_mech *)calloc(1, sizeof *h);
    char *host = (char *)calloc(1, bytes);
    if (!h || !host) {
        free(h);
        free(host);
        snprintf(msg, msglen, "out of host memory for the device copy of %s", m->name);
        return CHEM_ENOMEM;
    }
    cudaError_t e = cudaMalloc(&h->buf, bytes);
    if (e == cudaSuccess) {
        L.off = 0;
        L.host = host;
        L.dev = (char *)h->buf;
        place(&L, m, &d);
        memcpy(host + at, &d, sizeof d);
        h->dev = (chem_mech *)(L.dev + at);
        e = cudaMemcpy(h->buf, host, bytes, cudaMemcpyHostToDevice);
        /* complete before kernels on any stream (a non-blocking one does
         * not wait for the legacy stream's copy) */
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
    }
    free(host);
    if (e != cudaSuccess) {
        snprintf(msg, msglen, "device copy of %s: %s", m->name, cudaGetErrorString(e));
        cudaFree(h->buf);
        free(h);
        return e == cudaErrorMemoryAllocation ? CHEM_ENOMEM : CHEM_EIO;
    }
    const int rc = team_create(m, h, msg, msglen);
    if (rc != CHEM_OK) {
        chem_cuda_mech_free(h);
        return rc;
    }
    *out = h;
    return CHEM_OK;
}

extern "C" void chem_cuda_mech_free(chem_cuda_mech *d)
{
    if (!d) return;
    cudaFree(d->buf);
    cudaFree(d->team_buf);
    free(d);
}

extern "C" const chem_mech *chem_cuda_mech_device(const chem_cuda_mech *d)
{
    return d->dev;
}

extern "C" const chem_team *chem_cuda_mech_team(const chem_cuda_mech *d)
{
    return d->has_team ? &d->team : NULL;
}

extern "C" int chem_cuda_mech_use_team(chem_cuda_mech *d, int on)
{
    d->use_team = on && d->has_team;
    return d->use_team;
}

/* ------------------------------------------------------------------ kernels */

/* a warp per cell (rhs when gross is NULL and rates is 0) */
static __global__ void __launch_bounds__(TEAM_WARPS * 32)
    k_team_rates(const chem_mech *__restrict__ m, const __grid_constant__ chem_team t, int ncell,
                 const double *__restrict__ T, const double *__restrict__ P, const double *Y, double *wdot,
                 double *gross, int *status)
{
    extern __shared__ double sh[];
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31, c = blockIdx.x * TEAM_WARPS + w;
    if (c >= ncell) return;
    double *ws = sh + (size_t)w * t.ws_rates;
    const int st = T ? chem_team_rates(m, &t, lane, T[c], P[c], Y + c, wdot + c, gross ? gross + c : NULL,
                                       (size_t)ncell, ws)
                     : chem_team_rhs(m, &t, lane, P[c], Y + c, wdot + c, (size_t)ncell, ws);
    if (lane == 0) status[c] = st;
}

/* a block per cell */
static __global__ void __launch_bounds__(CHEM_CUDA_TEAM_J)
    k_team_jacobian(const chem_mech *__restrict__ m, const __grid_constant__ chem_team t, int ncell,
                    const double *__restrict__ P, const double *x, double *f, double *J, int *status)
{
    extern __shared__ double sh[];
    const int c = blockIdx.x;
    const int st = chem_team_jacobian(m, &t, threadIdx.x, P[c], x + c, f ? f + c : NULL, J + c, (size_t)ncell, sh);
    if (threadIdx.x == 0) status[c] = st;
}

__global__ void __launch_bounds__(THREADS) k_rates(const chem_mech *__restrict__ m, int ncell,
                                                   const double *__restrict__ T, const double *__restrict__ P,
                                                   const double *Y, double *wdot, double *gross, int *status)
{
    const int c = blockIdx.x * THREADS + threadIdx.x;
    if (c >= ncell) return;
    double work[W_N * CHEM_CUDA_KMAX];
    status[c] = chem_rates_inc(m, T[c], P[c], Y + c, wdot + c, gross ? gross + c : NULL, (size_t)ncell, work);
}

__global__ void __launch_bounds__(THREADS) k_rhs(const chem_mech *__restrict__ m, int ncell,
                                                 const double *__restrict__ P, const double *x, double *f,
                                                 int *status)
{
    const int c = blockIdx.x * THREADS + threadIdx.x;
    if (c >= ncell) return;
    double work[W_N * CHEM_CUDA_KMAX];
    status[c] = chem_rhs_inc(m, P[c], x + c, f + c, (size_t)ncell, work);
}

__global__ void __launch_bounds__(THREADS) k_jacobian(const chem_mech *__restrict__ m, int ncell,
                                                      const double *__restrict__ P, const double *x, double *f,
                                                      double *J, int *status)
{
    const int c = blockIdx.x * THREADS + threadIdx.x;
    if (c >= ncell) return;
    double work[W_N * CHEM_CUDA_KMAX];
    status[c] = chem_jacobian_inc(m, P[c], x + c, f ? f + c : NULL, J + c, (size_t)ncell, work);
}

static unsigned blocks(int ncell)
{
    return (unsigned)((ncell + THREADS - 1) / THREADS);
}

static unsigned team_blocks(int ncell)
{
    return (unsigned)((ncell + TEAM_WARPS - 1) / TEAM_WARPS);
}

extern "C" int chem_cuda_rates(const chem_cuda_mech *d, int ncell, const double *T, const double *P, const double *Y,
                               double *wdot, double *gross, int *status, void *stream)
{
    if (ncell < 1) return 0;
    if (d->use_team) {
        k_team_rates<<<team_blocks(ncell), TEAM_WARPS * 32, TEAM_WARPS * d->team.ws_rates * sizeof(double),
                       (cudaStream_t)stream>>>(d->dev, d->team, ncell, T, P, Y, wdot, gross, status);
        return (int)cudaGetLastError();
    }
    k_rates<<<blocks(ncell), THREADS, 0, (cudaStream_t)stream>>>(d->dev, ncell, T, P, Y, wdot, gross, status);
    return (int)cudaGetLastError();
}

extern "C" int chem_cuda_rhs(const chem_cuda_mech *d, int ncell, const double *P, const double *x, double *f,
                             int *status, void *stream)
{
    if (ncell < 1) return 0;
    if (d->use_team) {
        k_team_rates<<<team_blocks(ncell), TEAM_WARPS * 32, TEAM_WARPS * d->team.ws_rates * sizeof(double),
                       (cudaStream_t)stream>>>(d->dev, d->team, ncell, NULL, P, x, f, NULL, status);
        return (int)cudaGetLastError();
    }
    k_rhs<<<blocks(ncell), THREADS, 0, (cudaStream_t)stream>>>(d->dev, ncell, P, x, f, status);
    return (int)cudaGetLastError();
}

extern "C" int chem_cuda_jacobian(const chem_cuda_mech *d, int ncell, const double *P, const double *x, double *f,
                                  double *J, int *status, void *stream)
{
    if (ncell < 1) return 0;
    if (d->use_team) {
        k_team_jacobian<<<(unsigned)ncell, CHEM_CUDA_TEAM_J, d->team.ws_jac * sizeof(double), (cudaStream_t)stream>>>(
            d->dev, d->team, ncell, P, x, f, J, status);
        return (int)cudaGetLastError();
    }
    k_jacobian<<<blocks(ncell), THREADS, 0, (cudaStream_t)stream>>>(d->dev, ncell, P, x, f, J, status);
    return (int)cudaGetLastError();
}
