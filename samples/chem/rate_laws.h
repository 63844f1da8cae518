/*
 * rate_laws.h -- the formulas of one reaction and one species, shared by
 * the kinetics that loop over them (kinetics.c: one cell at a time;
 * kinetics_team.c: a team of lanes per cell): rate coefficients by kind,
 * third-body concentration, reverse ratio, concentration products and
 * their derivatives, NASA-7 thermo.  Each takes its parameters as values
 * or as arrays strided by s, so that a mechanism stored per reaction
 * (chem_rxn, s = 1) and one stored slot-major (s = the reaction count)
 * evaluate the same code.
 *
 * The rate laws follow Cantera's evaluation (the reference the tests compare
 * with), its floors and caps included: reduced pressure and Fcent floored at
 * 1e-300 inside Troe's logarithms, k_inf guarded by +1e-300, the reverse
 * ratio exp(dG/RT - dnu ln c0) capped at 1e300.
 *
 * Static functions for the file that includes it; plain C for the CPU and
 * __host__ __device__ in the CUDA kernels (hd.h).
 */
#ifndef CHEM_RATE_LAWS_H
#define CHEM_RATE_LAWS_H

#include <math.h>
#include <stddef.h>

#include "hd.h"
#include "mech.h"

#define CHEM_SMALL 1e-300 /* Cantera's SmallNumber */
#define CHEM_BIG 1e300    /* Cantera's BigNumber */

/* NASA-7 thermo of one species at T from its 7 coefficients a[i s] for T's
 * range: cp/R, h/RT, s/R, d(cp/R)/dT (any may be NULL).  s: 1 for a
 * species' own row, the species count for a table stored coefficient-major. */
static inline CHEM_HD void thermo_sp(const double *a, size_t s, double T, double lnT, double rT, double *cp_R,
                                     double *h_RT, double *s_R, double *dcp_R)
{
    const double a0 = a[0], a1 = a[s], a2 = a[2 * s], a3 = a[3 * s], a4 = a[4 * s];
    if (cp_R) *cp_R = a0 + T * (a1 + T * (a2 + T * (a3 + T * a4)));
    if (h_RT) *h_RT = a0 + T * (a1 / 2 + T * (a2 / 3 + T * (a3 / 4 + T * a4 / 5))) + a[5 * s] * rT;
    if (s_R) *s_R = a0 * lnT + T * (a1 + T * (a2 / 2 + T * (a3 / 3 + T * a4 / 4))) + a[6 * s];
    if (dcp_R) *dcp_R = a1 + T * (2 * a2 + T * (3 * a3 + T * 4 * a4));
}

/* What the rates of one state share. */
typedef struct env {
    double T, lnT, rT, lnP, Ctot, ln_c0; /* ln of the standard concentration p_ref / RT */
    const double *C, *h_RT, *g_RT;
} env;

/* The scalars of env at (T, P); C, h_RT, g_RT are the caller's. */
static inline CHEM_HD void env_init(env *e, const chem_mech *m, double T, double P)
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
    double Pf, Pr; /* products of concentration powers */
} rxn_eval;

/* A exp(b ln T - EaR / T); a constant k (b = EaR = 0) is A exactly, as
 * A exp(0) is, without the exponential. */
static inline CHEM_HD double arr(const chem_arrhenius *a, double lnT, double rT)
{
    if (a->b == 0 && a->EaR == 0) return a->A;
    return a->A * exp(a->b * lnT - a->EaR * rT);
}

static inline CHEM_HD double arr_dlnk(const chem_arrhenius *a, double rT)
{
    return (a->b + a->EaR * rT) * rT;
}

static inline CHEM_HD double conc_pow(double c, double o)
{
    return o == 1 ? c : o == 2 ? c * c : o == 3 ? c * c * c : pow(c, o);
}

/* prod_i C[sp[i s]]^o[i s]: a reaction's side, its species and orders
 * strided by s (1 in chem_rxn, the reaction count in a table stored
 * slot-major) */
static inline CHEM_HD double prod(int n, const int *sp, const double *o, size_t s, const double *C)
{
    double p = 1;
    for (int i = 0; i < n; i++) p *= conc_pow(C[sp[i * s]], o[i * s]);
    return p;
}

/* d prod / d C_sp[j], without dividing by C (which may be zero) */
static inline CHEM_HD double dprod(int n, const int *sp, const double *o, size_t s, const double *C, int j)
{
    const double c = C[sp[j * s]], oj = o[j * s];
    double p = oj == 1 ? 1 : oj == 2 ? 2 * c : oj * pow(c, oj - 1);
    for (int i = 0; i < n; i++)
        if (i != j) p *= conc_pow(C[sp[i * s]], o[i * s]);
    return p;
}

/* [M] = eff_default sum_k C_k + sum_e (eff_val[e] - eff_default) C_eff_sp[e],
 * over the reaction's efficiencies e = first .. first + n - 1 */
static inline CHEM_HD double third_body(const chem_mech *m, double eff_default, int first, int n, const env *e)
{
    double M = eff_default * e->Ctot; /* sum_k C_k = P / RT */
    for (int i = first; i < first + n; i++) M += (m->eff_val[i] - eff_default) * e->C[m->eff_sp[i]];
    return M;
}
/* Troe's F at (T, Pr), d log10 F / d log10 Pr and d ln F / dT at fixed Pr. */
static inline CHEM_HD void troe(const double *p, double T, double Pr, double *F, double *dlF_dL, double *dlnF_dT)
{
    const double a = p[0];
    double Fc = 0, dFc = 0;
    if (fabs(p[1]) >= CHEM_SMALL) { /* a T3 below CHEM_SMALL drops the term, as in Cantera */
        const double rt3 = 1 / p[1], x = exp(-T * rt3);
        Fc += (1 - a) * x;
        dFc -= (1 - a) * rt3 * x;
    }
    if (fabs(p[2]) >= CHEM_SMALL) {
        const double rt1 = 1 / p[2], x = exp(-T * rt1);
        Fc += a * x;
        dFc -= a * rt1 * x;
    }
    if (p[3] != 0) {
        const double x = exp(-p[3] / T);
        Fc += x;
        dFc += p[3] / (T * T) * x;
    }
    const int fc_floor = !(Fc > CHEM_SMALL), pr_floor = !(Pr > CHEM_SMALL);
    const double lFc = log10(fc_floor ? CHEM_SMALL : Fc), L = log10(pr_floor ? CHEM_SMALL : Pr);
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
static inline CHEM_HD double plog_lnk(const chem_mech *m, int p, double lnT, double rT, double *dlnk)
{
    const int t0 = m->plog_term[p], t1 = m->plog_term[p + 1];
    if (t1 - t0 == 1) {
        const chem_arrhenius *a = &m->plog_arr[t0];
        *dlnk = arr_dlnk(a, rT);
        return log(a->A) + a->b * lnT - a->EaR * rT;
    }
    double k = CHEM_SMALL, dk = 0; /* Cantera's start, keeping ln k finite */
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
static inline CHEM_HD void rate_coef(const chem_mech *m, int kind, const chem_arrhenius *k, const chem_arrhenius *k0,
                                     const double *troe_p, int plog_first, int nplog, double M, const env *e,
                                     rxn_eval *o)
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
        const double g = kinf / (kinf + CHEM_SMALL); /* 1 unless kinf vanishes */
        const double Pr = M * kl / (kinf + CHEM_SMALL);
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
static inline CHEM_HD void reverse_ratio(double dg, double dh, double dnu, const env *e, rxn_eval *o)
{
    const double x = exp(dg - dnu * e->ln_c0);
    o->rk = x < CHEM_BIG ? x : CHEM_BIG;
    /* d(g/RT)/dT = -h/(RT^2), d ln c0/dT = -1/T; the cap is constant */
    o->dlnrk_dT = x < CHEM_BIG ? (dnu - dh) * e->rT : 0;
}

/* A reaction's parameters as its evaluation reads them: the rate law's
 * values, and its species lists strided by s (1 from chem_rxn; the reaction
 * count from tables stored slot-major, kinetics_team.h). */
typedef struct rxn_view {
    int kind, reversible, nf, nrv, nnet;
    chem_arrhenius k, k0;
    double troe[4], dnu, eff_default;
    int eff_first, neff, plog_first, nplog;
    const int *f_sp, *rv_sp, *net_sp;
    const double *f_ord, *rv_ord, *net_nu;
    size_t s;
} rxn_view;

static inline CHEM_HD int has_third_body(int kind)
{
    return kind == CHEM_THREE_BODY || kind == CHEM_LINDEMANN || kind == CHEM_TROE;
}

static inline CHEM_HD void reaction_eval(const chem_mech *m, const rxn_view *r, const env *e, rxn_eval *o)
{
    const size_t s = r->s;
    const double M = has_third_body(r->kind) ? third_body(m, r->eff_default, r->eff_first, r->neff, e) : 0;
    rate_coef(m, r->kind, &r->k, &r->k0, r->troe, r->plog_first, r->nplog, M, e, o);
    o->Pf = prod(r->nf, r->f_sp, r->f_ord, s, e->C);
    o->rk = 0;
    o->dlnrk_dT = 0;
    o->Pr = 0;
    if (r->reversible) {
        double dg = 0, dh = 0;
        for (int i = 0; i < r->nnet; i++) {
            dg += r->net_nu[i * s] * e->g_RT[r->net_sp[i * s]];
            dh += r->net_nu[i * s] * e->h_RT[r->net_sp[i * s]];
        }
        reverse_ratio(dg, dh, r->dnu, e, o);
        o->Pr = prod(r->nrv, r->rv_sp, r->rv_ord, s, e->C);
    }
}

#endif
