/*
 * kinetics.c -- rates, reactor right-hand side and analytic Jacobian
 * (kinetics.h).
 *
 * The rate laws are rate_laws.h's (Cantera's evaluation).
 *
 * Jacobian: with C_k = rho Y_k / W_k and rho = P / (R T s), s = sum_k Y_k/W_k,
 *   dC_k/dY_j = rho/W_j delta_kj - C_k / (s W_j),   dC_k/dT = -C_k / T,
 * so with JC = d wdot / dC at fixed T and G = JC C,
 *   d wdot_k/dY_j = rho/W_j JC_kj - G_k / (s W_j),
 *   d wdot_k/dT   = d wdot_k/dT|_C - G_k / T.
 * JC is accumulated reaction by reaction in the output matrix itself and
 * turned into the reactor's Jacobian column by column.
 *
 * The functions are plain C for the CPU and __host__ __device__ in the CUDA
 * kernels (hd.h; kinetics_cuda.cu): one description of each formula.
 */
#include "kinetics.h"

#include "rate_laws.h"

#include <math.h>
#include <string.h>

/* the workspace, K doubles each */
enum { W_C, W_HRT, W_GRT, W_CPR, W_DCPR, W_EFF, W_WT, W_G, W_WDOT, W_GROSS, W_N };

CHEM_API size_t chem_work_len(const chem_mech *m)
{
    return W_N * (size_t)m->nsp;
}

static CHEM_HD void thermo_all(const chem_mech *m, double T, double *cp_R, double *h_RT, double *s_R, double *dcp_R)
{
    const double lnT = log(T), rT = 1.0 / T;
    for (int k = 0; k < m->nsp; k++)
        thermo_sp(m->nasa[k][T <= m->tmid[k] ? 0 : 1], 1, T, lnT, rT, cp_R ? cp_R + k : NULL, h_RT ? h_RT + k : NULL,
                  s_R ? s_R + k : NULL, dcp_R ? dcp_R + k : NULL);
}

CHEM_API void chem_thermo(const chem_mech *m, double T, double *cp_R, double *h_RT, double *s_R)
{
    thermo_all(m, T, cp_R, h_RT, s_R, NULL);
}

/* C_k, rho and s = sum Y_k/W_k of a state (Y[k inc]); CHEM_EDOMAIN outside the model. */
static CHEM_HD int concentrations(const chem_mech *m, double T, double P, const double *Y, size_t inc, double *C,
                                  double *rho, double *s)
{
    if (!(isfinite(T) && T > 0 && isfinite(P) && P > 0)) return CHEM_EDOMAIN;
    double sum = 0;
    for (int k = 0; k < m->nsp; k++) sum += Y[k * inc] / m->W[k];
    if (!(isfinite(sum) && sum > 0)) return CHEM_EDOMAIN;
    const double r = P / (CHEM_R * T * sum);
    for (int k = 0; k < m->nsp; k++) C[k] = r * Y[k * inc] / m->W[k];
    *rho = r;
    *s = sum;
    return CHEM_OK;
}

static CHEM_HD void reaction(const chem_mech *m, const chem_rxn *r, const env *e, rxn_eval *o)
{
    rxn_view v;
    v.kind = r->kind;
    v.reversible = r->reversible;
    v.nf = r->nf;
    v.nrv = r->nrv;
    v.nnet = r->nnet;
    v.k = r->k;
    v.k0 = r->k0;
    for (int i = 0; i < 4; i++) v.troe[i] = r->troe[i];
    v.dnu = r->dnu;
    v.eff_default = r->eff_default;
    v.eff_first = r->eff_first;
    v.neff = r->neff;
    v.plog_first = r->plog_first;
    v.nplog = r->nplog;
    v.f_sp = r->f_sp;
    v.rv_sp = r->rv_sp;
    v.net_sp = r->net_sp;
    v.f_ord = r->f_ord;
    v.rv_ord = r->rv_ord;
    v.net_nu = r->net_nu;
    v.s = 1;
    reaction_eval(m, &v, e, o);
}

/* Sets up the state shared by the rates: thermo into the workspace. */
static CHEM_HD int setup(const chem_mech *m, double T, double P, const double *Y, size_t inc, double *work, env *e,
                         double *rho, double *s)
{
    const size_t K = (size_t)m->nsp;
    double *C = work + W_C * K, *h_RT = work + W_HRT * K, *g_RT = work + W_GRT * K;
    const int rc = concentrations(m, T, P, Y, inc, C, rho, s);
    if (rc) return rc;
    double *s_R = g_RT;
    thermo_all(m, T, work + W_CPR * K, h_RT, s_R, work + W_DCPR * K);
    for (size_t k = 0; k < K; k++) g_RT[k] = h_RT[k] - s_R[k];
    env_init(e, m, T, P);
    e->C = C;
    e->h_RT = h_RT;
    e->g_RT = g_RT;
    return CHEM_OK;
}

/* wdot (and gross unless NULL) of a state set up by setup() */
static CHEM_HD void rates(const chem_mech *m, const env *e, double *wdot, double *gross)
{
    memset(wdot, 0, (size_t)m->nsp * sizeof *wdot);
    if (gross) memset(gross, 0, (size_t)m->nsp * sizeof *gross);
    for (int i = 0; i < m->nrxn; i++) {
        const chem_rxn *r = &m->rxn[i];
        rxn_eval o;
        reaction(m, r, e, &o);
        const double qf = o.Kf * o.Pf, qr = o.Kf * o.rk * o.Pr, q = qf - qr;
        for (int j = 0; j < r->nnet; j++) wdot[r->net_sp[j]] += r->net_nu[j] * q;
        if (gross)
            for (int j = 0; j < r->ngross; j++) gross[r->gross_sp[j]] += r->gross_nu[j] * (qf + qr);
    }
}

CHEM_API int chem_rates_inc(const chem_mech *m, double T, double P, const double *Y, double *wdot, double *gross,
                            size_t inc, double *work)
{
    env e;
    double rho, s;
    const int rc = setup(m, T, P, Y, inc, work, &e, &rho, &s);
    if (rc) return rc;
    if (inc == 1) {
        rates(m, &e, wdot, gross);
        return CHEM_OK;
    }
    /* accumulated in the workspace, stored once */
    const size_t K = (size_t)m->nsp;
    double *w = work + W_WDOT * K, *g = gross ? work + W_GROSS * K : NULL;
    rates(m, &e, w, g);
    for (size_t k = 0; k < K; k++) wdot[k * inc] = w[k];
    if (gross)
        for (size_t k = 0; k < K; k++) gross[k * inc] = g[k];
    return CHEM_OK;
}

CHEM_API int chem_rates(const chem_mech *m, double T, double P, const double *Y, double *wdot, double *gross,
                        double *work)
{
    return chem_rates_inc(m, T, P, Y, wdot, gross, 1, work);
}

/* rho cp (J/m^3/K) of a state (Y[k inc]) whose thermo is in the workspace */
static CHEM_HD double rho_cp(const chem_mech *m, const double *Y, size_t inc, const double *cp_R, double rho)
{
    double cp = 0;
    for (int k = 0; k < m->nsp; k++) cp += Y[k * inc] * cp_R[k] / m->W[k];
    return rho * CHEM_R * cp;
}

CHEM_API int chem_rhs_inc(const chem_mech *m, double P, const double *x, double *f, size_t inc, double *work)
{
    const int K = m->nsp;
    const size_t Ks = (size_t)K;
    const double T = x[Ks * inc];
    env e;
    double rho, s;
    const int rc = setup(m, T, P, x, inc, work, &e, &rho, &s);
    if (rc) return rc;
    double *wdot = work + W_WDOT * Ks;
    rates(m, &e, wdot, NULL);
    const double *h_RT = work + W_HRT * Ks;
    double Q = 0;
    for (int k = 0; k < K; k++) {
        f[k * inc] = wdot[k] * m->W[k] / rho;
        Q += h_RT[k] * wdot[k];
    }
    f[Ks * inc] = -CHEM_R * T * Q / rho_cp(m, x, inc, work + W_CPR * Ks, rho);
    return CHEM_OK;
}

CHEM_API int chem_rhs(const chem_mech *m, double P, const double *x, double *f, double *work)
{
    return chem_rhs_inc(m, P, x, f, 1, work);
}

CHEM_API int chem_jacobian_inc(const chem_mech *m, double P, const double *x, double *f, double *J, size_t inc,
                               double *work)
{
    const int K = m->nsp;
    const size_t n = (size_t)K + 1, ni = n * inc; /* ni: a column of J */
    const double T = x[(size_t)K * inc];
    env e;
    double rho, s;
    const int rc = setup(m, T, P, x, inc, work, &e, &rho, &s);
    if (rc) return rc;
    const size_t Ks = (size_t)K;
    const double *C = work + W_C * Ks, *h_RT = work + W_HRT * Ks, *cp_R = work + W_CPR * Ks,
                 *dcp_R = work + W_DCPR * Ks;
    double *eff = work + W_EFF * Ks, *wT = work + W_WT * Ks, *G = work + W_G * Ks, *wdot = work + W_WDOT * Ks;
    for (size_t k = 0; k < n * n; k++) J[k * inc] = 0;
    memset(wT, 0, Ks * sizeof *wT);
    memset(wdot, 0, Ks * sizeof *wdot);

    /* JC = d wdot / dC (rows and columns 0..K-1 of J), wT = d wdot / dT at fixed C */
    for (int i = 0; i < m->nrxn; i++) {
        const chem_rxn *r = &m->rxn[i];
        rxn_eval o;
        reaction(m, r, &e, &o);
        const double D = o.Pf - o.rk * o.Pr, q = o.Kf * D;
        const double dq_dT = o.Kf * (o.dlnKf_dT * D - o.rk * o.dlnrk_dT * o.Pr);
        const double phi = o.dKf_dM * D; /* dq/d[M] */
        if (phi != 0) {
            for (int k = 0; k < K; k++) eff[k] = r->eff_default;
            for (int t = r->eff_first; t < r->eff_first + r->neff; t++) eff[m->eff_sp[t]] = m->eff_val[t];
        }
        for (int a = 0; a < r->nnet; a++) {
            const int k = r->net_sp[a];
            const double nu = r->net_nu[a];
            wdot[k] += nu * q;
            wT[k] += nu * dq_dT;
            for (int j = 0; j < r->nf; j++)
                J[(size_t)k * inc + (size_t)r->f_sp[j] * ni] += nu * o.Kf * dprod(r->nf, r->f_sp, r->f_ord, 1, C, j);
            if (r->reversible)
                for (int j = 0; j < r->nrv; j++)
                    J[(size_t)k * inc + (size_t)r->rv_sp[j] * ni] -=
                        nu * o.Kf * o.rk * dprod(r->nrv, r->rv_sp, r->rv_ord, 1, C, j);
            if (phi != 0)
                for (int j = 0; j < K; j++) J[(size_t)k * inc + (size_t)j * ni] += nu * phi * eff[j];
        }
    }

    for (int k = 0; k < K; k++) {
        double g = 0;
        for (int j = 0; j < K; j++) g += J[(size_t)k * inc + (size_t)j * ni] * C[j];
        G[k] = g;
    }
    const double D = rho_cp(m, x, inc, cp_R, rho), cp = D / rho, RT = CHEM_R * T;
    double Q = 0;
    for (int k = 0; k < K; k++) Q += RT * h_RT[k] * wdot[k];
    const double fT = -Q / D;

    for (int j = 0; j < K; j++) { /* columns d/dY_j */
        const double a = rho / m->W[j], b = 1 / (s * m->W[j]);
        double *Jj = J + (size_t)j * ni;
        double dQ = 0;
        for (int k = 0; k < K; k++) {
            const double dw = a * Jj[(size_t)k * inc] - G[k] * b;
            dQ += RT * h_RT[k] * dw;
            Jj[(size_t)k * inc] = m->W[k] / rho * (dw + wdot[k] * b);
        }
        const double dD = rho * (CHEM_R * cp_R[j] / m->W[j] - cp * b);
        Jj[(size_t)K * inc] = -(dQ + fT * dD) / D;
    }
    { /* column d/dT */
        double *JT = J + (size_t)K * ni;
        double dQ = 0, dcp = 0;
        for (int k = 0; k < K; k++) {
            const double dw = wT[k] - G[k] / T;
            dQ += CHEM_R * cp_R[k] * wdot[k] + RT * h_RT[k] * dw;
            JT[(size_t)k * inc] = m->W[k] / rho * (dw + wdot[k] / T);
            dcp += x[(size_t)k * inc] * dcp_R[k] / m->W[k];
        }
        const double dD = rho * (-cp / T + CHEM_R * dcp);
        JT[(size_t)K * inc] = -(dQ + fT * dD) / D;
    }
    if (f) {
        for (int k = 0; k < K; k++) f[(size_t)k * inc] = wdot[k] * m->W[k] / rho;
        f[(size_t)K * inc] = fT;
    }
    return CHEM_OK;
}

CHEM_API int chem_jacobian(const chem_mech *m, double P, const double *x, double *f, double *J, double *work)
{
    return chem_jacobian_inc(m, P, x, f, J, 1, work);
}
