/*
 * ensemble.c -- the reactor ensemble's sweeps (ensemble.h).
 *
 * Per-cell data: the BDF scalars (bdf_cell), one block of vectors per cell
 * (bdf_vecs: Nordsieck array, correction, weights, iterate, f), the
 * ignition tracker, and the Jacobian, stored interleaved by cell (entry e of
 * cell c at J[e N + c]) so that forming the batched M reads and writes
 * contiguous runs.
 *
 * The batched linear algebra works on slots (slot_cell[p], slot[c]): the
 * factorization object has `cap` of them, assigned to the running cells in
 * order when it is made, identity matrices beyond them.  A cell keeps its
 * slot until the object shrinks (when a quarter of the slots belong to
 * cells that have finished): the slots stay dense, so that the tiles a
 * masked solve touches hold mostly cells still iterating.  getrf factors
 * only the slots whose M changed (every slot after a shrink) and getrs
 * solves only the slots of the cells still iterating: masked calls.
 */
#include "ensemble.h"

#include "bdf.h"
#include "ignition.h"
#include "kinetics.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* where a cell is in the current sweep */
enum { PH_IDLE = 0, PH_ITER, PH_CONV, PH_FAIL };

typedef struct ens {
    const chem_mech *m;
    const ens_opts *o;
    const double *P;
    int n, N, nthr;
    bdf_opts bo;
    double *atol;
    bdf_cell *cell;
    double *vec;
    size_t vlen;
    double *J;    /* n^2 x N, interleaved by cell */
    ign_track *ign;
    int *status;
    unsigned char *need, *phase;
    int *act, nact; /* running cells */
    int *list;      /* scratch list of cells */
    int *slot, *slot_cell;
    double *gslot; /* per slot (re)formed: gamma of its M */
    int *jslot;    /* ... and the cell whose J it reads */
    int64_t cap;
    int relayout;  /* slots to be re-assigned at the next getrf */
    bsolve_lu *lu;
    double *M, *B;
    int32_t *info;  /* per slot: its last factorization's */
    int32_t *sinfo; /* per slot: its last solve's */
    uint8_t *mask;  /* per slot: a system of the current getrf or getrs */
    double *work; /* per thread: kinetics workspace, then an n x n Jacobian */
    size_t wlen;
    bsolve_ctx *ctx;
    ens_stats *st;
    long *nfail;
} ens;

void ens_default_opts(ens_opts *o)
{
    memset(o, 0, sizeof *o);
    o->rtol = 1e-6;
    o->atol = 1e-12;
    o->atol_T = 1e-6;
    o->t_max = 100;
    o->max_steps = 100000;
    o->qmax = 5;
    o->ls = ENS_LS_BSOLVE;
    o->kinetics = ENS_KIN_TEAM;
    o->layout = BSOLVE_INTERLEAVED;
}

const char *ens_status_name(int s)
{
    static const char *names[] = {"running",         "done", "kinetics undefined at the start", "error-test failures",
                                  "Newton failures", "step too small", "too many steps", "no ignition by t_max"};
    return s >= 0 && s < (int)(sizeof names / sizeof names[0]) ? names[s] : "?";
}

static void *alloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) return NULL;
    return calloc(count ? count : 1, size);
}

static double *cell_vec(const ens *e, int c)
{
    return e->vec + (size_t)c * e->vlen;
}

static double *thread_work(const ens *e)
{
    return e->work + (size_t)omp_get_thread_num() * e->wlen;
}

typedef struct rhs_arg {
    const chem_mech *m;
    double P;
    double *work;
} rhs_arg;

static int rhs_cb(void *arg, const double *y, double *f)
{
    const rhs_arg *a = arg;
    return chem_rhs(a->m, a->P, y, f, a->work);
}

/* ------------------------------------------------------------------ stages */

static void init_cells(ens *e, const double *x0, double *t_rhs)
{
    const int n = e->n, K = n - 1;
    const double t0 = omp_get_wtime();
#pragma omp parallel for schedule(dynamic, 4) num_threads(e->nthr)
    for (int c = 0; c < e->N; c++) {
        bdf_vecs v = bdf_vecs_of(cell_vec(e, c), n);
        const double *x = x0 + (size_t)c * n;
        rhs_arg a = {e->m, e->P[c], thread_work(e)};
        if (chem_rhs(e->m, e->P[c], x, v.f, a.work) != CHEM_OK) {
            e->status[c] = ENS_FAIL_KINETICS;
            continue;
        }
        for (int i = 0; i < n; i++) v.ewt[i] = 1.0 / (e->bo.rtol * fabs(x[i]) + e->atol[i]);
        const double h0 = bdf_initial_step(n, x, v.f, v.ewt, e->atol, e->o->t_max, rhs_cb, &a, v.y, v.tmp, 1);
        bdf_init(&e->cell[c], &e->bo, n, v, 0.0, x, v.f, h0);
        ign_start(&e->ign[c], x[K], v.f[K]);
        e->status[c] = ENS_RUNNING;
    }
    *t_rhs += omp_get_wtime() - t0;
}

/* bdf_begin for every running cell (after the order-1 restarts' f) */
static void begin_attempts(ens *e)
{
    const int n = e->n;
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(dynamic, 16) num_threads(e->nthr)
    for (int a = 0; a < e->nact; a++) {
        const int c = e->act[a];
        if (e->cell[c].next != BDF_RELOAD) continue;
        bdf_vecs v = bdf_vecs_of(cell_vec(e, c), n);
        if (chem_rhs(e->m, e->P[c], v.zn[0], v.f, thread_work(e)) != CHEM_OK) {
            e->status[c] = ENS_FAIL_ERRTEST;
            continue;
        }
        bdf_reload(&e->cell[c], n, v, v.f);
    }
    e->st->t_rhs += omp_get_wtime() - t0;
#pragma omp parallel for schedule(static) num_threads(e->nthr)
    for (int a = 0; a < e->nact; a++) {
        const int c = e->act[a];
        e->phase[c] = PH_IDLE;
        e->need[c] = 0;
        if (e->status[c] != ENS_RUNNING) continue;
        const int r = bdf_begin(&e->cell[c], &e->bo, n, bdf_vecs_of(cell_vec(e, c), n));
        if (r < 0) {
            e->status[c] = ENS_FAIL_STEP;
            continue;
        }
        e->need[c] = (unsigned char)r;
        e->phase[c] = PH_ITER;
    }
}

/* J (and f) where a new J is needed, f(zn[0]) elsewhere */
static void evaluate(ens *e)
{
    const int n = e->n;
    const size_t nn = (size_t)n * n;
    int nj = 0;
    for (int a = 0; a < e->nact; a++) {
        const int c = e->act[a];
        if (e->phase[c] == PH_ITER && (e->need[c] & BDF_NEED_JAC)) e->list[nj++] = c;
    }
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(dynamic, 1) num_threads(e->nthr)
    for (int i = 0; i < nj; i++) {
        const int c = e->list[i];
        bdf_vecs v = bdf_vecs_of(cell_vec(e, c), n);
        double *w = thread_work(e), *Jc = w + chem_work_len(e->m);
        if (chem_jacobian(e->m, e->P[c], v.y, v.f, Jc, w) != CHEM_OK) {
            e->phase[c] = PH_FAIL;
            continue;
        }
        if (e->o->jac_hook) e->o->jac_hook(e->o->hook_arg, c, e->cell[c].nje + 1, n, Jc);
        for (size_t k = 0; k < nn; k++) e->J[k * e->N + c] = Jc[k];
    }
    double t1 = omp_get_wtime();
    e->st->t_jac += t1 - t0;
#pragma omp parallel for schedule(dynamic, 8) num_threads(e->nthr)
    for (int a = 0; a < e->nact; a++) {
        const int c = e->act[a];
        if (e->phase[c] != PH_ITER || (e->need[c] & BDF_NEED_JAC)) continue;
        bdf_vecs v = bdf_vecs_of(cell_vec(e, c), n);
        if (chem_rhs(e->m, e->P[c], v.y, v.f, thread_work(e)) != CHEM_OK) e->phase[c] = PH_FAIL;
    }
    e->st->t_rhs += omp_get_wtime() - t1;
}

/* row i of slot p in B: b[i inc] */
static double *b_slot(const ens *e, int p, size_t *inc)
{
    if (e->o->layout == BSOLVE_INTERLEAVED) {
        *inc = (size_t)e->cap;
        return e->B + p;
    }
    *inc = 1;
    return e->B + (size_t)p * e->n;
}
static bsolve_layout la_of(const ens *e, int rows)
{
    return e->o->layout == BSOLVE_INTERLEAVED ? bsolve_layout_interleaved(e->cap)
                                              : bsolve_layout_col_major(e->n, (int64_t)e->n * rows);
}

static int set_capacity(ens *e, int64_t cap, char *msg, size_t len)
{
    bsolve_lu_destroy(e->lu);
    e->lu = NULL;
    e->cap = cap;
    e->relayout = 1;
    const bsolve_status s = bsolve_lu_create(e->ctx, BSOLVE_PREC_D, BSOLVE_PIVOT_PARTIAL, e->n, cap, &e->lu);
    if (s != BSOLVE_SUCCESS) {
        snprintf(msg, len, "bsolve_lu_create: %s", bsolve_ctx_message(e->ctx));
        return ENS_EBSOLVE;
    }
    return ENS_OK;
}

/* One masked getrf of the slots whose M changed, when any cell needs a new M. */
static int factor(ens *e, char *msg, size_t len)
{
    const int n = e->n;
    const size_t nn = (size_t)n * n;
    int needed = 0;
    for (int a = 0; a < e->nact; a++) {
        const int c = e->act[a];
        if (e->phase[c] == PH_ITER && (e->need[c] & BDF_NEED_SETUP)) needed++;
    }
    if (!needed) return ENS_OK;
    if (e->nact < e->cap - e->cap / 4) {
        const int rc = set_capacity(e, e->nact, msg, len);
        if (rc) return rc;
    }
    double t0 = omp_get_wtime();
    /* the slots whose M is (re)formed: every slot after a change of layout,
     * else only those of the cells that need a new M (getrf only reads M:
     * the others still hold theirs) */
    int nform = 0;
    if (e->relayout) {
        for (int64_t p = 0; p < e->cap; p++) {
            const int c = p < e->nact ? e->act[p] : -1;
            e->slot_cell[p] = c;
            if (c >= 0) e->slot[c] = (int)p;
            e->list[nform++] = (int)p;
        }
        e->relayout = 0;
    } else {
        for (int a = 0; a < e->nact; a++) {
            const int c = e->act[a];
            if (e->phase[c] == PH_ITER && (e->need[c] & BDF_NEED_SETUP)) e->list[nform++] = e->slot[c];
        }
    }
    for (int a = 0; a < e->nact; a++) {
        const int c = e->act[a];
        if (e->phase[c] == PH_ITER && (e->need[c] & BDF_NEED_SETUP))
            bdf_setup_done(&e->cell[c], (e->need[c] & BDF_NEED_JAC) != 0);
    }
    /* M = I - gamma_m J; identity in the unused slots (gamma 0) */
    for (int i = 0; i < nform; i++) {
        const int c = e->slot_cell[e->list[i]];
        e->gslot[i] = c >= 0 ? e->cell[c].gamma_m : 0.0;
        e->jslot[i] = c >= 0 ? c : 0;
    }
    const size_t cap = (size_t)e->cap;
    const double *gs = e->gslot;
    const int *js = e->jslot, *ps = e->list;
    if (e->o->layout == BSOLVE_INTERLEAVED) {
#pragma omp parallel for schedule(static) num_threads(e->nthr)
        for (size_t k = 0; k < nn; k++) {
            const double d = k % (size_t)(n + 1) == 0 ? 1.0 : 0.0;
            const double *Jk = e->J + k * e->N;
            double *Mk = e->M + k * cap;
            for (int i = 0; i < nform; i++) Mk[ps[i]] = d - gs[i] * Jk[js[i]];
        }
    } else {
#pragma omp parallel for schedule(static) num_threads(e->nthr)
        for (int i = 0; i < nform; i++)
            for (size_t k = 0; k < nn; k++)
                e->M[(size_t)ps[i] * nn + k] = (k % (size_t)(n + 1) == 0 ? 1.0 : 0.0) - gs[i] * e->J[k * e->N + js[i]];
    }
    memset(e->mask, 0, (size_t)e->cap);
    for (int i = 0; i < nform; i++) e->mask[ps[i]] = 1;
    double t1 = omp_get_wtime();
    const bsolve_status s = bsolve_dgetrf_masked(e->ctx, e->M, la_of(e, n), e->lu, e->mask, e->info);
    double t2 = omp_get_wtime();
    e->st->t_form += t1 - t0;
    e->st->t_factor += t2 - t1;
    if (s != BSOLVE_SUCCESS) {
        snprintf(msg, len, "bsolve_dgetrf_masked: %s", bsolve_ctx_message(e->ctx));
        return ENS_EBSOLVE;
    }
    e->st->getrf_calls++;
    e->st->factors_needed += needed;
    e->st->factors_done += nform;
    for (int a = 0; a < e->nact; a++) {
        const int c = e->act[a];
        if (e->info[e->slot[c]] != 0 && e->phase[c] == PH_ITER) {
            e->phase[c] = PH_FAIL;
            e->nfail[c]++;
        }
    }
    return ENS_OK;
}

/* Newton iterations: one getrs each over the cells still iterating */
static int newton(ens *e, char *msg, size_t len)
{
    const int n = e->n;
    for (int it = 0; it < 3; it++) {
        long iterating = 0;
#pragma omp parallel for schedule(static) num_threads(e->nthr) reduction(+ : iterating)
        for (int64_t p = 0; p < e->cap; p++) {
            const int c = e->slot_cell[p];
            e->mask[p] = c >= 0 && e->phase[c] == PH_ITER;
            if (e->mask[p]) {
                size_t inc;
                double *b = b_slot(e, (int)p, &inc);
                bdf_newton_rhs(&e->cell[c], n, bdf_vecs_of(cell_vec(e, c), n), b, inc);
                iterating++;
            }
        }
        if (!iterating) break;
        double t1 = omp_get_wtime();
        const bsolve_status s = bsolve_dgetrs_masked(e->ctx, e->lu, 1, e->B, la_of(e, 1), e->mask, e->sinfo);
        double t2 = omp_get_wtime();
        e->st->t_solve += t2 - t1;
        if (s != BSOLVE_SUCCESS) {
            snprintf(msg, len, "bsolve_dgetrs_masked: %s", bsolve_ctx_message(e->ctx));
            return ENS_EBSOLVE;
        }
        e->st->getrs_calls++;
        e->st->solves_needed += iterating;
        e->st->solves_done += iterating;
#pragma omp parallel for schedule(static) num_threads(e->nthr)
        for (int a = 0; a < e->nact; a++) {
            const int c = e->act[a];
            if (e->phase[c] != PH_ITER) continue;
            const int p = e->slot[c];
            if (e->sinfo[p] != 0) {
                e->phase[c] = PH_FAIL;
                e->nfail[c]++;
                continue;
            }
            size_t inc;
            const double *d = b_slot(e, p, &inc);
            const int r = bdf_newton_update(&e->cell[c], n, bdf_vecs_of(cell_vec(e, c), n), d, inc);
            e->phase[c] = r == BDF_CONVERGED ? PH_CONV : r == BDF_DIVERGED ? PH_FAIL : PH_ITER;
        }
        double t3 = omp_get_wtime();
#pragma omp parallel for schedule(dynamic, 8) num_threads(e->nthr)
        for (int a = 0; a < e->nact; a++) {
            const int c = e->act[a];
            if (e->phase[c] != PH_ITER) continue;
            bdf_vecs v = bdf_vecs_of(cell_vec(e, c), n);
            if (chem_rhs(e->m, e->P[c], v.y, v.f, thread_work(e)) != CHEM_OK) e->phase[c] = PH_FAIL;
        }
        e->st->t_rhs += omp_get_wtime() - t3;
    }
    return ENS_OK;
}

/* error test or failure handling; ignition tracking of accepted steps */
static void finish_attempts(ens *e)
{
    const int n = e->n, K = n - 1;
#pragma omp parallel for schedule(static) num_threads(e->nthr)
    for (int a = 0; a < e->nact; a++) {
        const int c = e->act[a];
        bdf_cell *cl = &e->cell[c];
        bdf_vecs v = bdf_vecs_of(cell_vec(e, c), n);
        if (e->phase[c] == PH_FAIL || e->phase[c] == PH_ITER) {
            if (bdf_conv_fail(cl, n, v) == BDF_FAILED) e->status[c] = ENS_FAIL_CONV;
        } else if (e->phase[c] == PH_CONV) {
            const int r = bdf_error_test(cl, &e->bo, n, v);
            if (r == BDF_FAILED) {
                e->status[c] = ENS_FAIL_ERRTEST;
            } else if (r == BDF_ACCEPTED) {
                double z[BDF_QMAX + 1];
                for (int j = 0; j <= cl->q; j++) z[j] = v.zn[j][K];
                if (ign_step(&e->ign[c], cl->t, cl->h, cl->q, z))
                    e->status[c] = ENS_DONE;
                else if (cl->nst >= e->o->max_steps)
                    e->status[c] = ENS_FAIL_STEPS;
                else if (cl->t > e->o->t_max)
                    e->status[c] = ENS_FAIL_TMAX;
            }
        }
        e->phase[c] = PH_IDLE;
    }
}

/* ------------------------------------------------------------------ driver */

static void ens_free(ens *e)
{
    free(e->atol);
    free(e->cell);
    free(e->vec);
    free(e->J);
    free(e->ign);
    free(e->status);
    free(e->need);
    free(e->phase);
    free(e->act);
    free(e->list);
    free(e->slot);
    free(e->slot_cell);
    free(e->gslot);
    free(e->jslot);
    bsolve_lu_destroy(e->lu);
    free(e->M);
    free(e->B);
    free(e->info);
    free(e->sinfo);
    free(e->mask);
    free(e->work);
    free(e->nfail);
}

int ens_run(const chem_mech *m, int ncell, const double *P, const double *x0, const ens_opts *o, bsolve_ctx *ctx,
            ens_cell_result *res, ens_stats *st, char *msg, size_t msglen)
{
    msg[0] = 0;
    memset(st, 0, sizeof *st);
    if (ncell < 1 || o->qmax < 1 || o->qmax > BDF_QMAX || !(o->rtol > 0) || !(o->atol > 0) || !(o->atol_T > 0) ||
        (o->layout != BSOLVE_INTERLEAVED && o->layout != BSOLVE_COL_MAJOR) || o->ls != ENS_LS_BSOLVE) {
        snprintf(msg, msglen, "ens_run: invalid options or ncell = %d", ncell);
        return ENS_EINVAL;
    }
    const double t_start = omp_get_wtime();
    ens e;
    memset(&e, 0, sizeof e);
    e.m = m;
    e.o = o;
    e.P = P;
    e.ctx = ctx;
    e.st = st;
    e.n = m->nsp + 1;
    e.N = ncell;
    e.nthr = o->nthreads > 0 ? o->nthreads : omp_get_max_threads();
    const int n = e.n;
    const size_t nn = (size_t)n * n, N = (size_t)ncell;
    e.vlen = bdf_vec_len(n);
    e.wlen = chem_work_len(m) + nn;
    e.atol = alloc((size_t)n, sizeof *e.atol);
    e.cell = alloc(N, sizeof *e.cell);
    e.vec = alloc(N, e.vlen * sizeof(double));
    e.J = N <= SIZE_MAX / nn ? alloc(N * nn, sizeof(double)) : NULL;
    e.ign = alloc(N, sizeof *e.ign);
    e.status = alloc(N, sizeof *e.status);
    e.need = alloc(N, 1);
    e.phase = alloc(N, 1);
    e.act = alloc(N, sizeof(int));
    e.list = alloc(N, sizeof(int));
    e.slot = alloc(N, sizeof(int));
    e.slot_cell = alloc(N, sizeof(int));
    e.gslot = alloc(N, sizeof(double));
    e.jslot = alloc(N, sizeof(int));
    e.M = N <= SIZE_MAX / nn ? alloc(N * nn, sizeof(double)) : NULL;
    e.B = alloc(N, (size_t)n * sizeof(double));
    e.info = alloc(N, sizeof(int32_t));
    e.sinfo = alloc(N, sizeof(int32_t));
    e.mask = alloc(N, 1);
    e.work = alloc((size_t)e.nthr, e.wlen * sizeof(double));
    e.nfail = alloc(N, sizeof(long));
    if (!e.atol || !e.cell || !e.vec || !e.J || !e.ign || !e.status || !e.need || !e.phase || !e.act || !e.list ||
        !e.slot || !e.slot_cell || !e.gslot || !e.jslot || !e.M || !e.B || !e.info || !e.sinfo || !e.mask || !e.work ||
        !e.nfail) {
        ens_free(&e);
        snprintf(msg, msglen, "ens_run: out of memory for %d cells", ncell);
        return ENS_ENOMEM;
    }
    for (int i = 0; i < n - 1; i++) e.atol[i] = o->atol;
    e.atol[n - 1] = o->atol_T;
    e.bo.rtol = o->rtol;
    e.bo.atol = e.atol;
    e.bo.qmax = o->qmax;

    int rc = set_capacity(&e, ncell, msg, msglen);
    init_cells(&e, x0, &st->t_rhs);
    for (int c = 0; c < ncell; c++)
        if (e.status[c] == ENS_RUNNING) e.act[e.nact++] = c;

    while (rc == ENS_OK && e.nact > 0) {
        st->sweeps++;
        begin_attempts(&e);
        evaluate(&e);
        rc = factor(&e, msg, msglen);
        if (rc == ENS_OK) rc = newton(&e, msg, msglen);
        if (rc != ENS_OK) break;
        finish_attempts(&e);
        int k = 0;
        for (int a = 0; a < e.nact; a++)
            if (e.status[e.act[a]] == ENS_RUNNING) e.act[k++] = e.act[a];
        e.nact = k;
    }

    for (int c = 0; c < ncell; c++) {
        ens_cell_result *r = &res[c];
        const bdf_cell *cl = &e.cell[c];
        memset(r, 0, sizeof *r);
        r->status = e.status[c];
        r->tau = e.status[c] == ENS_DONE ? ign_delay(&e.ign[c], &r->peak) : -1;
        r->t = cl->t;
        r->nst = cl->nst;
        r->nfe = cl->nfe;
        r->nje = cl->nje;
        r->nsetup = cl->nsetup;
        r->nni = cl->nni;
        r->ncfn = cl->ncfn;
        r->netf = cl->netf;
        r->nfactor_fail = e.nfail[c];
    }
    st->t_total = omp_get_wtime() - t_start;
    ens_free(&e);
    return rc;
}
