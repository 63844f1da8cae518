/*
 * bdf.c -- one cell's BDF method in Nordsieck form (bdf.h).
 *
 * The formulas and constants are CVODE's (SUNDIALS cvode.c: cvSetBDF,
 * cvSetTqBDF, cvIncreaseBDF, cvDecreaseBDF, cvPrepareNextStep and the
 * Newton convergence test of cvNlsConvTest), so that the step sequences can
 * be compared with CVODE's.  Differences: no stability limit detection, no
 * hmin/hmax; a Newton retry with a fresh Jacobian (CVODE's inner loop) is
 * made by the driver as the cell's next attempt; and every retry after a
 * Newton failure evaluates J (CVODE keeps it when gamma moved by 20% or
 * more), which costs little next to the failed step.
 *
 * Every vector of a cell is strided by v.inc (1 for a block of its own,
 * the number of cells when a batch is interleaved by cell); the functions
 * are plain C for the CPU and __host__ __device__ in the CUDA kernels (hd.h).
 */
#include "bdf.h"

#include <math.h>
#include <string.h>

/* CVODE's constants */
#define ADDON 1e-6
#define BIAS1 6.0
#define BIAS2 6.0
#define BIAS3 10.0
#define ETAMX1 10000.0 /* the largest step growth after the first step */
#define ETAMX2 10.0    /* ... during the next SMALL_NST steps */
#define ETAMX3 10.0    /* ... afterwards */
#define ETAMXF 0.2     /* after SMALL_NEF error-test failures */
#define ETAMIN 0.1
#define ETACF 0.25     /* after a Newton failure */
#define THRESH 1.5     /* smaller growths are not taken */
#define SMALL_NST 10
#define MXNEF 7
#define MXNEF1 3
#define SMALL_NEF 2
#define MXNCF 10
#define LONG_WAIT 10
#define CRDOWN 0.3
#define RDIV 2.0
#define NLSCOEF 0.1
#define MAXCOR 3
#define DGMAX 0.3 /* gamma change that makes a new M */
#define MSBP 20   /* steps between new Ms */
#define MSBJ 51   /* steps between new Js */

CHEM_API size_t bdf_vec_len(int n)
{
    return (size_t)BDF_VEC_N * (size_t)n;
}

/* the vectors of a cell: vector b (0..BDF_VEC_N-1) at base + b m, entries strided by inc */
static CHEM_HD bdf_vecs vecs(double *base, size_t m, size_t inc)
{
    bdf_vecs v;
    for (int j = 0; j <= BDF_QMAX; j++) v.zn[j] = base + (size_t)j * m;
    double *p = base + (size_t)(BDF_QMAX + 1) * m;
    v.acor = p;
    v.ewt = p + m;
    v.y = p + 2 * m;
    v.f = p + 3 * m;
    v.tmp = p + 4 * m;
    v.inc = inc;
    return v;
}

CHEM_API bdf_vecs bdf_vecs_of(double *block, int n)
{
    return vecs(block, (size_t)n, 1);
}

CHEM_API bdf_vecs bdf_vecs_interleaved(double *base, int n, size_t ncell, size_t cell)
{
    return vecs(base + cell, (size_t)n * ncell, ncell);
}

CHEM_API double bdf_wrms(int n, const double *v, const double *w, size_t inc)
{
    double s = 0;
    for (int i = 0; i < n; i++) {
        const double a = v[i * inc] * w[i * inc];
        s += a * a;
    }
    return sqrt(s / n);
}

/* The vector loops take VL components at a time, their loads issued
 * before their stores: a GPU thread (one per cell) otherwise waits a
 * memory latency per component, as the compiler may not move a load above
 * a store to another vector it cannot prove distinct (restrict pointers
 * do not survive inlining into the ensemble's kernels). */
enum { VL = 4 };

static CHEM_HD void ewt_of(int n, double rtol, const double *atol, const double *y, double *ewt, size_t inc)
{
    for (int i0 = 0; i0 < n; i0 += VL) {
        double w[VL];
        for (int u = 0; u < VL; u++)
            w[u] = i0 + u < n ? 1.0 / (rtol * fabs(y[(size_t)(i0 + u) * inc]) + atol[i0 + u]) : 0;
        for (int u = 0; u < VL; u++)
            if (i0 + u < n) ewt[(size_t)(i0 + u) * inc] = w[u];
    }
}

static CHEM_HD void set_ewt(const bdf_opts *o, int n, const double *y, double *ewt, size_t inc)
{
    ewt_of(n, o->rtol, o->atol, y, ewt, inc);
}

/* acor = 0, y = zn[0] */
static CHEM_HD void start_iterate(int n, const double *z0, double *acor, double *y, size_t inc)
{
    for (int i0 = 0; i0 < n; i0 += VL) {
        double z[VL];
        for (int u = 0; u < VL; u++) z[u] = i0 + u < n ? z0[(size_t)(i0 + u) * inc] : 0;
        for (int u = 0; u < VL; u++)
            if (i0 + u < n) {
                acor[(size_t)(i0 + u) * inc] = 0;
                y[(size_t)(i0 + u) * inc] = z[u];
            }
    }
}

/* rhs[i rs] = g f_i - r zn[1]_i - acor_i */
static CHEM_HD void newton_rhs(int n, double g, double r, const double *f, const double *z1, const double *acor,
                               size_t inc, double *rhs, size_t rs)
{
    for (int i0 = 0; i0 < n; i0 += VL) {
        double b[VL];
        for (int u = 0; u < VL; u++) {
            const size_t i = (size_t)(i0 + u) * inc;
            b[u] = i0 + u < n ? g * f[i] - r * z1[i] - acor[i] : 0;
        }
        for (int u = 0; u < VL; u++)
            if (i0 + u < n) rhs[(size_t)(i0 + u) * rs] = b[u];
    }
}

/* acor += s delta, y = zn[0] + acor; sum (s delta_i ewt_i)^2 in component order */
static CHEM_HD double newton_step(int n, double s, const double *delta, size_t ds, const double *z0, const double *ewt,
                                  double *acor, double *y, size_t inc)
{
    double del = 0;
    for (int i0 = 0; i0 < n; i0 += VL) {
        double a[VL], yy[VL];
        for (int u = 0; u < VL; u++) {
            const size_t i = (size_t)(i0 + u) * inc;
            if (i0 + u < n) {
                const double d = s * delta[(size_t)(i0 + u) * ds];
                a[u] = acor[i] + d;
                yy[u] = z0[i] + a[u];
                const double e = d * ewt[i];
                del += e * e;
            }
        }
        for (int u = 0; u < VL; u++)
            if (i0 + u < n) {
                acor[(size_t)(i0 + u) * inc] = a[u];
                y[(size_t)(i0 + u) * inc] = yy[u];
            }
    }
    return del;
}

/* tmp = acor - cquot zn[QMAX] */
static CHEM_HD void order_up_diff(int n, double cquot, const double *acor, const double *zq, double *tmp, size_t inc)
{
    for (int i0 = 0; i0 < n; i0 += VL) {
        double t[VL];
        for (int u = 0; u < VL; u++) {
            const size_t i = (size_t)(i0 + u) * inc;
            t[u] = i0 + u < n ? acor[i] - cquot * zq[i] : 0;
        }
        for (int u = 0; u < VL; u++)
            if (i0 + u < n) tmp[(size_t)(i0 + u) * inc] = t[u];
    }
}

CHEM_API void bdf_init(bdf_cell *c, const bdf_opts *o, int n, bdf_vecs v, double t0, const double *y0,
                       const double *f0, double h0)
{
    const size_t s = v.inc;
    memset(c, 0, sizeof *c);
    for (int j = 2; j <= BDF_QMAX; j++)
        for (int i = 0; i < n; i++) v.zn[j][i * s] = 0;
    for (int i = 0; i < n; i++) {
        v.zn[0][i * s] = y0[i * s];
        v.zn[1][i * s] = h0 * f0[i * s];
    }
    set_ewt(o, n, y0, v.ewt, s);
    c->t = c->t_saved = t0;
    c->h = c->hscale = c->hprime = h0;
    c->eta = 1;
    c->etamax = ETAMX1;
    c->q = c->qprime = 1;
    c->qwait = 2;
    c->crate = 1;
    c->next = BDF_NEW_STEP;
}

CHEM_API double bdf_initial_step(int n, const double *y0, const double *f0, const double *ewt, const double *atol,
                                 double tdist, bdf_rhs_fn rhs, void *arg, double *y1, double *f1, size_t inc)
{
    const double hlb = 100 * 2.220446049250313e-16 * tdist;
    /* upper bound: no component changes by more than 10% of itself (plus atol) */
    double hub_inv = 0;
    for (int i = 0; i < n; i++) hub_inv = fmax(hub_inv, fabs(f0[i * inc]) / (0.1 * fabs(y0[i * inc]) + atol[i]));
    double hub = 0.1 * tdist;
    if (hub * hub_inv > 1) hub = 1 / hub_inv;
    double hg = sqrt(hlb * hub);
    if (hub < hlb) return hg;
    double hnew = hg;
    for (int it = 1; it <= 4; it++) {
        int ok = 0;
        for (int tries = 0; tries < 4 && !ok; tries++) {
            for (int i = 0; i < n; i++) y1[i * inc] = y0[i * inc] + hg * f0[i * inc];
            ok = rhs(arg, y1, f1) == 0;
            if (!ok) hg *= 0.2;
        }
        if (!ok) return fmax(hlb, 0.5 * hg);
        for (int i = 0; i < n; i++) f1[i * inc] = (f1[i * inc] - f0[i * inc]) / hg;
        const double ydd = bdf_wrms(n, f1, ewt, inc);
        hnew = ydd * hub * hub > 2 ? sqrt(2 / ydd) : sqrt(hg * hub);
        if (it == 4) break;
        const double r = hnew / hg;
        if (r > 0.5 && r < 2) break;
        if (it > 1 && r > 2) {
            hnew = hg;
            break;
        }
        hg = hnew;
    }
    return fmin(fmax(0.5 * hnew, hlb), hub);
}

/* ------------------------------------------------------------------ Nordsieck array */

/* The prediction's Pascal triangle (zn[j-1] += zn[j] for k = 1..q, j = q..k)
 * on one component z[0..q], or its inverse (sub), in the same order as over
 * whole vectors: a cell's vectors are read and written once per component
 * instead of once per step of the triangle.  The loops run to BDF_QMAX so
 * that z is registers once unrolled. */
static CHEM_HD void pascal(double *z, int q, int sub)
{
    for (int k = 1; k <= BDF_QMAX; k++)
        for (int j = BDF_QMAX; j >= k; j--)
            if (j <= q) z[j - 1] = sub ? z[j - 1] - z[j] : z[j - 1] + z[j];
}

/* The Nordsieck array's loops likewise, VB components at a time (fewer than
 * VL: each holds q + 1 entries). */
enum { VB = 2 };

static CHEM_HD void shift(bdf_cell *c, int n, bdf_vecs v, int sub)
{
    const size_t s = v.inc;
    const int q = c->q;
    for (int i0 = 0; i0 < n; i0 += VB) {
        double z[VB][BDF_QMAX + 1];
        for (int u = 0; u < VB; u++)
            for (int j = 0; j <= BDF_QMAX; j++) z[u][j] = j <= q && i0 + u < n ? v.zn[j][(size_t)(i0 + u) * s] : 0;
        for (int u = 0; u < VB; u++) pascal(z[u], q, sub);
        for (int u = 0; u < VB; u++)
            for (int j = 0; j < BDF_QMAX; j++)
                if (j < q && i0 + u < n) v.zn[j][(size_t)(i0 + u) * s] = z[u][j];
    }
}

static CHEM_HD void predict(bdf_cell *c, int n, bdf_vecs v)
{
    c->t_saved = c->t;
    c->t += c->h;
    shift(c, n, v, 0);
}

static CHEM_HD void restore(bdf_cell *c, int n, bdf_vecs v)
{
    c->t = c->t_saved;
    shift(c, n, v, 1);
}

static CHEM_HD void rescale(bdf_cell *c, int n, bdf_vecs v)
{
    const size_t s = v.inc;
    const int q = c->q;
    double f[BDF_QMAX + 1]; /* zn[j] *= eta^j, the powers as successive products */
    f[0] = 1;
    for (int j = 1; j <= BDF_QMAX; j++) f[j] = j == 1 ? c->eta : f[j - 1] * c->eta;
    for (int i0 = 0; i0 < n; i0 += VB) {
        double z[VB][BDF_QMAX + 1];
        for (int u = 0; u < VB; u++)
            for (int j = 1; j <= BDF_QMAX; j++) z[u][j] = j <= q && i0 + u < n ? v.zn[j][(size_t)(i0 + u) * s] : 0;
        for (int u = 0; u < VB; u++)
            for (int j = 1; j <= BDF_QMAX; j++)
                if (j <= q && i0 + u < n) v.zn[j][(size_t)(i0 + u) * s] = z[u][j] * f[j];
    }
    c->h = c->hscale * c->eta;
    c->hscale = c->h;
}

/* zn for order q + 1: the new column from the saved correction (cvIncreaseBDF) */
static CHEM_HD void increase_order(bdf_cell *c, int n, bdf_vecs v)
{
    const size_t s = v.inc;
    double l[BDF_QMAX + 2] = {0};
    double alpha0 = -1, alpha1 = 1, prod = 1, xiold = 1, hsum = c->hscale;
    l[2] = 1;
    for (int j = 1; j <= c->q - 1; j++) {
        hsum += c->tau[j + 1];
        const double xi = hsum / c->hscale;
        prod *= xi;
        alpha0 -= 1.0 / (j + 1);
        alpha1 += 1.0 / xi;
        for (int i = j + 2; i >= 2; i--) l[i] = l[i] * xiold + l[i - 1];
        xiold = xi;
    }
    const double A1 = (-alpha0 - alpha1) / prod;
    const int L = c->q + 1;
    double *zL = v.zn[L];
    const double *sv = v.zn[BDF_QMAX];
    for (int i = 0; i < n; i++) zL[i * s] = A1 * sv[i * s];
    for (int j = 2; j <= c->q; j++)
        for (int i = 0; i < n; i++) v.zn[j][i * s] += l[j] * zL[i * s];
}

/* zn for order q - 1 (cvDecreaseBDF) */
static CHEM_HD void decrease_order(bdf_cell *c, int n, bdf_vecs v)
{
    if (c->q == 2) return; /* nothing to adjust for order 1 */
    double l[BDF_QMAX + 2] = {0};
    double hsum = 0;
    l[2] = 1;
    for (int j = 1; j <= c->q - 2; j++) {
        hsum += c->tau[j];
        const double xi = hsum / c->hscale;
        for (int i = j + 2; i >= 2; i--) l[i] = l[i] * xi + l[i - 1];
    }
    for (int j = 2; j < c->q; j++)
        for (int i = 0; i < n; i++) v.zn[j][i * v.inc] -= l[j] * v.zn[c->q][i * v.inc];
}

/* l (the corrector's coefficients) and tq (error constants) for the step
 * h at order q after the steps tau (cvSetBDF, cvSetTqBDF) */
static CHEM_HD void set_coefficients(bdf_cell *c)
{
    const int q = c->q;
    double *l = c->l, *tq = c->tq;
    double xi_inv = 1, xistar_inv = 1, alpha0 = -1, alpha0_hat = -1, hsum = c->h;
    l[0] = l[1] = 1;
    for (int i = 2; i <= BDF_QMAX; i++) l[i] = 0;
    if (q > 1) {
        for (int j = 2; j < q; j++) {
            hsum += c->tau[j - 1];
            xi_inv = c->h / hsum;
            alpha0 -= 1.0 / j;
            for (int i = j; i >= 1; i--) l[i] += l[i - 1] * xi_inv;
        }
        alpha0 -= 1.0 / q;
        xistar_inv = -l[1] - alpha0;
        hsum += c->tau[q - 1];
        xi_inv = c->h / hsum;
        alpha0_hat = -l[1] - xi_inv;
        for (int i = q; i >= 1; i--) l[i] += l[i - 1] * xistar_inv;
    }
    const double A1 = 1 - alpha0_hat + alpha0, A2 = 1 + q * A1;
    tq[2] = fabs(A1 / (alpha0 * A2));
    tq[5] = fabs(A2 * xistar_inv / (l[q] * xi_inv));
    if (c->qwait == 1) {
        if (q > 1) {
            const double C = xistar_inv / l[q], A3 = alpha0 + 1.0 / q, A4 = alpha0_hat + xi_inv;
            tq[1] = fabs(C * (1 - A4 + A3) / A3);
        } else {
            tq[1] = 1;
        }
        hsum += c->tau[q];
        xi_inv = c->h / hsum;
        const double A5 = alpha0 - 1.0 / (q + 1), A6 = alpha0_hat - xi_inv;
        tq[3] = fabs((1 - A6 + A5) / A2 / (xi_inv * (q + 2) * A5));
    }
    tq[4] = NLSCOEF / tq[2];
    c->rl1 = 1 / l[1];
    c->gamma = c->h * c->rl1;
    if (c->nst == 0) c->gamma_m = c->gamma;
    c->gamrat = c->nst > 0 ? c->gamma / c->gamma_m : 1;
}

/* ------------------------------------------------------------------ stages */

CHEM_API void bdf_reload(bdf_cell *c, int n, bdf_vecs v, const double *f)
{
    for (int i = 0; i < n; i++) v.zn[1][i * v.inc] = c->h * f[i * v.inc];
    c->nfe++;
    c->next = BDF_AFTER_ERR_FAIL;
}

CHEM_API int bdf_begin(bdf_cell *c, const bdf_opts *o, int n, bdf_vecs v)
{
    const int next = c->next;
    if (next == BDF_NEW_STEP) {
        set_ewt(o, n, v.zn[0], v.ewt, v.inc);
        c->nef = c->ncf = 0;
        if (c->nst > 0 && (c->hprime != c->h || c->qprime != c->q)) {
            if (c->qprime == c->q + 1)
                increase_order(c, n, v);
            else if (c->qprime == c->q - 1)
                decrease_order(c, n, v);
            if (c->qprime != c->q) {
                c->q = c->qprime;
                c->qwait = c->q + 1;
            }
            rescale(c, n, v);
        }
    }
    if (c->t + c->h == c->t) return -1;
    if (next != BDF_RETRY_JAC) {
        predict(c, n, v);
        set_coefficients(c);
    }
    int need = 0;
    if (c->nst == 0 || next != BDF_NEW_STEP || c->nst >= c->nst_m + MSBP || fabs(c->gamrat - 1) > DGMAX)
        need |= BDF_NEED_SETUP;
    if ((need & BDF_NEED_SETUP) &&
        (c->nst == 0 || next == BDF_AFTER_CONV_FAIL || next == BDF_RETRY_JAC || c->nst >= c->nst_j + MSBJ))
        need |= BDF_NEED_JAC;
    start_iterate(n, v.zn[0], v.acor, v.y, v.inc);
    c->m = 0;
    c->jcur = 0;
    c->nfe++;
    return need;
}

CHEM_API void bdf_setup_done(bdf_cell *c, int jac)
{
    c->gamma_m = c->gamma;
    c->gamrat = 1;
    c->crate = 1;
    c->nst_m = c->nst;
    c->nsetup++;
    if (jac) {
        c->nst_j = c->nst;
        c->jcur = 1;
        c->nje++;
    }
}

CHEM_API void bdf_newton_rhs(const bdf_cell *c, int n, bdf_vecs v, double *rhs, size_t inc)
{
    newton_rhs(n, c->gamma, c->rl1, v.f, v.zn[1], v.acor, v.inc, rhs, inc);
}

CHEM_API int bdf_newton_update(bdf_cell *c, int n, bdf_vecs v, const double *delta, size_t inc)
{
    const size_t vs = v.inc;
    /* M was formed with an older gamma: CVODE's correction of the step */
    const double s = c->gamrat != 1 ? 2 / (1 + c->gamrat) : 1;
    double del = newton_step(n, s, delta, inc, v.zn[0], v.ewt, v.acor, v.y, vs);
    del = sqrt(del / n);
    c->nni++;
    if (!isfinite(del)) return BDF_DIVERGED;
    if (c->m > 0) c->crate = fmax(CRDOWN * c->crate, del / c->delp);
    const double dcon = del * fmin(1.0, c->crate) / c->tq[4];
    if (dcon <= 1) {
        c->acnrm = c->m == 0 ? del : bdf_wrms(n, v.acor, v.ewt, vs);
        return BDF_CONVERGED;
    }
    if (c->m >= 1 && del > RDIV * c->delp) return BDF_DIVERGED;
    c->delp = del;
    if (++c->m >= MAXCOR) return BDF_DIVERGED;
    c->nfe++;
    return BDF_CONTINUE;
}

CHEM_API int bdf_conv_fail(bdf_cell *c, int n, bdf_vecs v)
{
    c->ncfn++;
    /* J from an earlier step: the same prediction with a fresh J (once: a
     * failure before J was evaluated, e.g. f undefined at the prediction,
     * must not retry forever) */
    if (!c->jcur && c->next != BDF_RETRY_JAC) {
        c->next = BDF_RETRY_JAC;
        return BDF_RETRY;
    }
    restore(c, n, v);
    c->etamax = 1;
    if (++c->ncf >= MXNCF) return BDF_FAILED;
    c->eta = ETACF;
    rescale(c, n, v);
    c->next = BDF_AFTER_CONV_FAIL;
    return BDF_RETRY;
}

/* the step was accepted: zn corrected, step sizes shifted (cvCompleteStep) */
static CHEM_HD void complete_step(bdf_cell *c, int n, bdf_vecs v)
{
    const size_t s = v.inc;
    c->nst++;
    for (int i = c->q; i >= 2; i--) c->tau[i] = c->tau[i - 1];
    if (c->q == 1 && c->nst > 1) c->tau[2] = c->tau[1];
    c->tau[1] = c->h;
    const int q = c->q;
    for (int i0 = 0; i0 < n; i0 += VB) { /* component by component: acor read once */
        double a[VB], z[VB][BDF_QMAX + 1];
        for (int u = 0; u < VB; u++) {
            const size_t i = (size_t)(i0 + u) * s;
            a[u] = i0 + u < n ? v.acor[i] : 0;
            for (int j = 0; j <= BDF_QMAX; j++) z[u][j] = j <= q && i0 + u < n ? v.zn[j][i] : 0;
        }
        for (int u = 0; u < VB; u++)
            for (int j = 0; j <= BDF_QMAX; j++) z[u][j] += c->l[j] * a[u];
        for (int u = 0; u < VB; u++)
            for (int j = 0; j <= BDF_QMAX; j++)
                if (j <= q && i0 + u < n) v.zn[j][(size_t)(i0 + u) * s] = z[u][j];
    }
    c->qwait--;
    if (c->qwait == 1 && c->q != BDF_QMAX) {
        for (int i = 0; i < n; i++) v.zn[BDF_QMAX][i * s] = v.acor[i * s];
        c->saved_tq5 = c->tq[5];
    }
}

/* the next step's order and size (cvPrepareNextStep, cvChooseEta, cvSetEta) */
static CHEM_HD void prepare_next(bdf_cell *c, const bdf_opts *o, int n, bdf_vecs v, double dsm)
{
    const size_t s = v.inc;
    if (c->etamax == 1) { /* no growth right after a failure */
        if (c->qwait < 2) c->qwait = 2;
        c->qprime = c->q;
        c->hprime = c->h;
        c->eta = 1;
        return;
    }
    const int L = c->q + 1;
    const double etaq = 1 / (pow(BIAS2 * dsm, 1.0 / L) + ADDON);
    double eta = etaq;
    c->qprime = c->q;
    if (c->qwait == 0) {
        c->qwait = 2;
        double etaqm1 = 0, etaqp1 = 0;
        if (c->q > 1) {
            const double ddn = bdf_wrms(n, v.zn[c->q], v.ewt, s) * c->tq[1];
            etaqm1 = 1 / (pow(BIAS1 * ddn, 1.0 / c->q) + ADDON);
        }
        if (c->q < o->qmax && c->saved_tq5 != 0) {
            const double cquot = c->tq[5] / c->saved_tq5 * pow(c->h / c->tau[2], (double)L);
            order_up_diff(n, cquot, v.acor, v.zn[BDF_QMAX], v.tmp, s);
            const double dup = bdf_wrms(n, v.tmp, v.ewt, s) * c->tq[3];
            etaqp1 = 1 / (pow(BIAS3 * dup, 1.0 / (L + 1)) + ADDON);
        }
        const double etam = fmax(etaqm1, fmax(etaq, etaqp1));
        if (etam < THRESH) {
            eta = 1;
        } else if (etam == etaq) {
            eta = etaq;
        } else if (etam == etaqm1) {
            eta = etaqm1;
            c->qprime = c->q - 1;
        } else {
            eta = etaqp1;
            c->qprime = c->q + 1;
            /* the correction of the last step at order q, for the new column */
            for (int i = 0; i < n; i++) v.zn[BDF_QMAX][i * s] = v.acor[i * s];
        }
    }
    if (eta < THRESH) {
        c->eta = 1;
        c->hprime = c->h;
        c->qprime = c->q;
    } else {
        c->eta = fmin(eta, c->etamax);
        c->hprime = c->h * c->eta;
    }
}

CHEM_API int bdf_error_test(bdf_cell *c, const bdf_opts *o, int n, bdf_vecs v)
{
    const double dsm = c->acnrm * c->tq[2];
    if (dsm <= 1) {
        complete_step(c, n, v);
        prepare_next(c, o, n, v, dsm);
        c->etamax = c->nst <= SMALL_NST ? ETAMX2 : ETAMX3;
        c->next = BDF_NEW_STEP;
        return BDF_ACCEPTED;
    }
    c->nef++;
    c->netf++;
    restore(c, n, v);
    if (c->nef >= MXNEF) return BDF_FAILED;
    c->etamax = 1;
    c->next = BDF_AFTER_ERR_FAIL;
    if (c->nef <= MXNEF1) {
        c->eta = fmax(ETAMIN, 1 / (pow(BIAS2 * dsm, 1.0 / (c->q + 1)) + ADDON));
        if (c->nef >= SMALL_NEF) c->eta = fmin(c->eta, ETAMXF);
        rescale(c, n, v);
        return BDF_RETRY;
    }
    c->eta = ETAMIN;
    if (c->q > 1) { /* drop an order */
        decrease_order(c, n, v);
        c->q--;
        c->qwait = c->q + 1;
        rescale(c, n, v);
        return BDF_RETRY;
    }
    /* order 1 already: restart it from f (the driver calls bdf_reload) */
    c->h *= c->eta;
    c->hscale = c->h;
    c->qwait = LONG_WAIT;
    c->next = BDF_RELOAD;
    return BDF_RETRY;
}
