/*
 * kinetics.c -- rates, reactor right-hand side and analytic Jacobian
 * (kinetics.h).
 *
 * The rate laws follow Cantera's evaluation (the reference the tests compare
 * with), its floors and caps included: reduced pressure and Fcent floored at
 * 1e-300 inside Troe's logarithms, k_inf guarded by +1e-300, the reverse
 * ratio exp(dG/RT - dnu ln c0) capped at 1e300.
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

#include <math.h>
#include <string.h>

#define SMALL 1e-300 /* Cantera's SmallNumber */
#define BIG 1e300    /* Cantera's BigNumber */

/* the workspace, K doubles each */
enum { W_C, W_HRT, W_GRT, W_CPR, W_DCPR, W_EFF, W_WT, W_G, W_WDOT, W_GROSS, W_N };

CHEM_API size_t chem_work_len(const chem_mech *m)
{
    return W_N * (size_t)m->nsp;
}

/* NASA-7 thermo of one species at T from its 7 coefficients a[i s] for T's
 * range: cp/R, h/RT, s/R, d(cp/R)/dT (any may be NULL).  s: 1 for a
 * species' own row, the species count for a table stored coefficient-major. */
static CHEM_HD void thermo_sp(const double *a, size_t s, double T, double lnT, double rT, double *cp_R, double *h_RT,
                              double *s_R, double *dcp_R)
{
    const double a0 = a[0], a1 = a[s], a2 = a[2 * s], a3 = a[3 * s], a4 = a[4 * s];
    if (cp_R) *cp_R = a0 + T * (a1 + T * (a2 + T * (a3 + T * a4)));
    if (h_RT) *h_RT = a0 + T * (a1 / 2 + T * (a2 / 3 + T * (a3 / 4 + T * a4 / 5))) + a[5 * s] * rT;
    if (s_R) *s_R = a0 * lnT + T * (a1 + T * (a2 / 2 + T * (a3 / 3 + T * a4 / 4))) + a[6 * s];
    if (dcp_R) *dcp_R = a1 + T * (2 * a2 + T * (3 * a3 + T * 4 * a4));
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

/* What the rates of one state share. */
typedef struct env {
    double T, lnT, rT, lnP, Ctot, ln_c0; /* ln of the standard concentration p_ref / RT */
    const double *C, *h_RT, *g_RT;
} env;

/* The scalars of env at (T, P); C, h_RT, g_RT are the caller's. */
static CHEM_HD void env_init(env *e, const chem_mech *m, double T, double P)
{
    e->T = T;
    e->lnT = log(T);
    e->rT = 1 / T;
    e->lnP = log(P);
    e->Ctot = P / (CHEM_R * T);
    e->ln_c0 = log(m->p_ref / (CHEM_R * T));
}

/* One reaction at a state: qf = Kf Pf, qr = Kf rk Pr. */
typedef struct rxn_eval {
    double Kf;       /* forward coefficient, [M] included */
    double dKf_dM;   /* d Kf / d[M] at fixed T (0 without a third body) */
    double dlnKf_dT; /* d ln Kf / dT at fixed concentrations */
    double rk;       /* kr / kf = 1 / Kc, 0 when irreversible */
    double dlnrk_dT;
    double Pf, Pr;   /* products of concentration powers */
} rxn_eval;

/* A exp(b ln T - EaR / T); a constant k (b = EaR = 0) is A exactly, as
 * A exp(0) is, without the exponential. */
static CHEM_HD double arr(const chem_arrhenius *a, double lnT, double rT)
{
    if (a->b == 0 && a->EaR == 0) return a->A;
    return a->A * exp(a->b * lnT - a->EaR * rT);
}

static CHEM_HD double arr_dlnk(const chem_arrhenius *a, double rT)
{
    return (a->b + a->EaR * rT) * rT;
}

static CHEM_HD double conc_pow(double c, double o)
{
    return o == 1 ? c : o == 2 ? c * c : o == 3 ? c * c * c : pow(c, o);
}

/* prod_i C[sp[i s]]^o[i s]: a reaction's side, its species and orders
 * strided by s (1 in chem_rxn, the reaction count in a table stored
 * slot-major) */
static CHEM_HD double prod(int n, const int *sp, const double *o, size_t s, const double *C)
{
    double p = 1;
    for (int i = 0; i < n; i++) p *= conc_pow(C[sp[i * s]], o[i * s]);
    return p;
}

/* d prod / d C_sp[j], without dividing by C (which may be zero) */
static CHEM_HD double dprod(int n, const int *sp, const double *o, size_t s, const double *C, int j)
{
    const double c = C[sp[j * s]], oj = o[j * s];
    double p = oj == 1 ? 1 : oj == 2 ? 2 * c : oj * pow(c, oj - 1);
    for (int i = 0; i < n; i++)
        if (i != j) p *= conc_pow(C[sp[i * s]], o[i * s]);
    return p;
}

/* [M] = eff_default sum_k C_k + sum_e (eff_val[e] - eff_default) C_eff_sp[e],
 * over the reaction's efficiencies e = first .. first + n - 1 */
static CHEM_HD double third_body(const chem_mech *m, double eff_default, int first, int n, const env *e)
{
    double M = eff_default * e->Ctot; /* sum_k C_k = P / RT */
    for (int i = first; i < first + n; i++) M += (m->eff_val[i] - eff_default) * e->C[m->eff_sp[i]];
    return M;
}
/* Troe's F at (T, Pr), d log10 F / d log10 Pr and d ln F / dT at fixed Pr. */
static CHEM_HD void troe(const double *p, double T, double Pr, double *F, double *dlF_dL, double *dlnF_dT)
{
    const double a = p[0];
    double Fc = 0, dFc = 0;
    if (fabs(p[1]) >= SMALL) { /* a T3 below SMALL drops the term, as in Cantera */
        const double rt3 = 1 / p[1], x = exp(-T * rt3);
        Fc += (1 - a) * x;
        dFc -= (1 - a) * rt3 * x;
    }
    if (fabs(p[2]) >= SMALL) {
        const double rt1 = 1 / p[2], x = exp(-T * rt1);
        Fc += a * x;
        dFc -= a * rt1 * x;
    }
    if (p[3] != 0) {
        const double x = exp(-p[3] / T);
        Fc += x;
        dFc += p[3] / (T * T) * x;
    }
    const int fc_floor = !(Fc > SMALL), pr_floor = !(Pr > SMALL);
    const double lFc = log10(fc_floor ? SMALL : Fc), L = log10(pr_floor ? SMALL : Pr);
    const double c = -0.4 - 0.67 * lFc, nn = 0.75 - 1.27 * lFc;
    const double A = L + c, B = nn - 0.14 * A, f1 = A / B, den = 1 + f1 * f1;
    *F = pow(10.0, lFc / den);
    const double dlF_df1 = -lFc * 2 * f1 / (den * den);
    /* df1/dL = nn / B^2;  df1/dlFc = (-0.67 B + (1.27 - 0.14 * 0.67) A) / B^2 */
    *dlF_dL = pr_floor ? 0 : dlF_df1 * nn / (B * B);
    const double dlF_dlFc = 1 / den + dlF_df1 * (-0.67 * B + (1.27 - 0.14 * 0.67) * A) / (B * B);
    *dlnF_dT = fc_floor ? 0 : dlF_dlFc * dFc / Fc;
}

/* ln k of PLOG pressure p (the sum of its terms) and d ln k / dT */
static CHEM_HD double plog_lnk(const chem_mech *m, int p, double lnT, double rT, double *dlnk)
{
    const int t0 = m->plog_term[p], t1 = m->plog_term[p + 1];
    if (t1 - t0 == 1) {
        const chem_arrhenius *a = &m->plog_arr[t0];
        *dlnk = arr_dlnk(a, rT);
        return log(a->A) + a->b * lnT - a->EaR * rT;
    }
    double k = SMALL, dk = 0; /* Cantera's start, keeping ln k finite */
    for (int t = t0; t < t1; t++) {
        const double kt = arr(&m->plog_arr[t], lnT, rT);
        k += kt;
        dk += kt * arr_dlnk(&m->plog_arr[t], rT);
    }
    *dlnk = dk / k;
    return log(k);
}

/* Kf, dKf_dM and dlnKf_dT of a reaction of kind `kind` from its rate law's
 * parameters: k (the high-pressure limit of falloff), k0 and troe (falloff),
 * the PLOG pressures plog_first .. + nplog; M its third-body concentration
 * (kinds with one). */
static CHEM_HD void rate_coef(const chem_mech *m, int kind, const chem_arrhenius *k, const chem_arrhenius *k0,
                              const double *troe_p, int plog_first, int nplog, double M, const env *e, rxn_eval *o)
{
    o->dKf_dM = 0;
    switch (kind) {
    case CHEM_ARRHENIUS:
        o->Kf = arr(k, e->lnT, e->rT);
        o->dlnKf_dT = arr_dlnk(k, e->rT);
        break;
    case CHEM_THREE_BODY: {
        const double kt = arr(k, e->lnT, e->rT);
        o->Kf = kt * M;
        o->dKf_dM = kt;
        o->dlnKf_dT = arr_dlnk(k, e->rT);
        break;
    }
    case CHEM_LINDEMANN:
    case CHEM_TROE: {
        const double kl = arr(k0, e->lnT, e->rT), kinf = arr(k, e->lnT, e->rT);
        const double g = kinf / (kinf + SMALL); /* 1 unless kinf vanishes */
        const double Pr = M * kl / (kinf + SMALL);
        double F = 1, dlF_dL = 0, dlnF_dT = 0;
        if (kind == CHEM_TROE) troe(troe_p, e->T, Pr, &F, &dlF_dL, &dlnF_dT);
        const double s = F / (1 + Pr);
        o->Kf = Pr * s * kinf;
        /* Kf = kinf G(Pr), G = Pr/(1 + Pr) F: d ln G / d ln Pr = 1/(1 + Pr) + dlog10 F/dlog10 Pr */
        const double dlnG = 1 / (1 + Pr) + dlF_dL;
        o->dKf_dM = kl * g * s * dlnG;
        const double dk0 = arr_dlnk(k0, e->rT), dkinf = arr_dlnk(k, e->rT);
        o->dlnKf_dT = dkinf + dlnG * (dk0 - g * dkinf) + dlnF_dT;
        break;
    }
    default: { /* PLOG */
        const int p0 = plog_first, np = nplog;
        const double *lp = m->plog_lnp;
        double d1, lnk;
        if (np == 1 || e->lnP <= lp[p0]) {
            lnk = plog_lnk(m, p0, e->lnT, e->rT, &d1);
        } else if (e->lnP >= lp[p0 + np - 1]) {
            lnk = plog_lnk(m, p0 + np - 1, e->lnT, e->rT, &d1);
        } else {
            int p = p0;
            while (!(e->lnP < lp[p + 1])) p++;
            double d2;
            const double l1 = plog_lnk(m, p, e->lnT, e->rT, &d1), l2 = plog_lnk(m, p + 1, e->lnT, e->rT, &d2);
            const double w = (e->lnP - lp[p]) * (1 / (lp[p + 1] - lp[p]));
            lnk = l1 + (l2 - l1) * w;
            d1 += (d2 - d1) * w;
        }
        o->Kf = exp(lnk);
        o->dlnKf_dT = d1;
        break;
    }
    }
}

/* rk and dlnrk_dT of a reversible reaction from dg = sum nu_k g_k/RT and
 * dh = sum nu_k h_k/RT over its net stoichiometry, dnu = sum nu_k */
static CHEM_HD void reverse_ratio(double dg, double dh, double dnu, const env *e, rxn_eval *o)
{
    const double x = exp(dg - dnu * e->ln_c0);
    o->rk = x < BIG ? x : BIG;
    /* d(g/RT)/dT = -h/(RT^2), d ln c0/dT = -1/T; the cap is constant */
    o->dlnrk_dT = x < BIG ? (dnu - dh) * e->rT : 0;
}

static CHEM_HD void reaction(const chem_mech *m, const chem_rxn *r, const env *e, rxn_eval *o)
{
    const int tb = r->kind == CHEM_THREE_BODY || r->kind == CHEM_LINDEMANN || r->kind == CHEM_TROE;
    const double M = tb ? third_body(m, r->eff_default, r->eff_first, r->neff, e) : 0;
    rate_coef(m, r->kind, &r->k, &r->k0, r->troe, r->plog_first, r->nplog, M, e, o);
    o->Pf = prod(r->nf, r->f_sp, r->f_ord, 1, e->C);
    o->rk = 0;
    o->dlnrk_dT = 0;
    o->Pr = 0;
    if (r->reversible) {
        double dg = 0, dh = 0;
        for (int i = 0; i < r->nnet; i++) {
            dg += r->net_nu[i] * e->g_RT[r->net_sp[i]];
            dh += r->net_nu[i] * e->h_RT[r->net_sp[i]];
        }
        reverse_ratio(dg, dh, r->dnu, e, o);
        o->Pr = prod(r->nrv, r->rv_sp, r->rv_ord, 1, e->C);
    }
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
