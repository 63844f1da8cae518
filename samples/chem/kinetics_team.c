/*
 * kinetics_team.c -- rates, reactor right-hand side and Jacobian by a team
 * of lanes per cell (kinetics_team.h), in stages with a barrier between
 * them (TEAM):
 *
 *   load      lanes over species: Y_k, Y_k/W_k;
 *   state     s = sum Y_k/W_k (every lane, in species order), C_k, thermo;
 *   reactions lanes over reaction positions: kinetics.c's reaction_eval,
 *             q (and for the Jacobian dq/dT, d q/d[M] and the gradient
 *             entries Kf dPf/dC_j, Kf rk dPr/dC_j) into the workspace;
 *   sums      the fixed sums (chem_gather): wdot (and dwdot/dT|_C, the
 *             default third bodies' row constant u), then for the Jacobian
 *             S = d wdot/dC less u, cut into pieces per lane, then their
 *             partial slots added up;
 *   outputs   lanes over species (f), over rows (G = JC C, as kinetics.c:
 *             JC = S + u 1^T), over entries (J_kj) and over columns (the
 *             temperature row, whose column sums run in species order).
 * Sums over species (s, rho cp, the heat release) run over the species in
 * order on one lane, as kinetics.c's loops do.
 *
 * Plain C for the CPU, where the lanes of a stage run one after the other;
 * __host__ __device__ in the CUDA kernels (hd.h), where every lane of the
 * team runs each stage and waits for the others (__syncwarp for a warp,
 * __syncthreads for a block).
 */
#include "kinetics_team.h"

#include "rate_laws.h"

#include <math.h>

/* the workspace of a cell (offsets in doubles) */
typedef struct tws {
    size_t Y, YW, C, HRT, GRT, CPR, DCPW, YCP, WDOT, WT, U, G, TCOL, GROSS, HW;
    size_t Q, GQ, DQDT, PHID, POOL, PART, JCP, JC, SCAL, n;
} tws;

enum { S_RHO, S_S, S_CP, S_D, S_FT, S_N }; /* scalars */

/* what a workspace is for */
enum { WS_RHS, WS_RATES, WS_JAC };

static CHEM_HD tws ws_layout(int K, int R, int npool, int T, int mode)
{
    const size_t Ks = (size_t)K, Rs = (size_t)R, Ts = (size_t)T;
    const int jac = mode == WS_JAC;
    tws L;
    size_t at = 0;
    L.Y = at, at += Ks;
    L.YW = L.HW = at, at += Ks; /* Y_k/W_k for s, later h_k wdot_k */
    L.C = at, at += Ks;
    L.HRT = at, at += Ks;
    L.GRT = at, at += Ks;
    L.YCP = at, at += Ks;
    /* the Jacobian's sums over reactions: wdot, dwdot/dT|_C, u at stride K from
     * q, dq/dT, phi eff_default at stride R */
    L.WDOT = at, at += Ks;
    L.WT = at, at += jac ? Ks : 0;
    L.U = at, at += jac ? Ks : 0;
    L.Q = at, at += Rs;
    L.DQDT = at, at += jac ? Rs : 0;
    L.PHID = at, at += jac ? Rs : 0;
    L.GROSS = at, at += mode == WS_RATES ? Ks : 0;
    L.GQ = at, at += mode == WS_RATES ? Rs : 0;
    if (!jac) {
        L.PART = at, at += 2 * Ts;
        L.CPR = L.DCPW = L.G = L.TCOL = L.POOL = L.JCP = L.JC = 0;
    } else {
        L.CPR = at, at += Ks;
        L.DCPW = at, at += Ks;
        L.G = at, at += Ks;
        L.TCOL = at, at += Ks;
        L.POOL = at, at += (size_t)npool + Rs; /* gradient entries, then d q/d[M] per position */
        L.JCP = at, at += 2 * Ts;
        /* the species sums' partial slots (3 x 2T) before JC is formed there */
        L.JC = at, at += Ks * Ks > 6 * Ts ? Ks * Ks : 6 * Ts;
        L.PART = L.JC;
    }
    L.SCAL = at, at += S_N;
    L.n = at;
    return L;
}

CHEM_API size_t chem_team_ws_len(int K, int R, int npool, int T, int what)
{
    return ws_layout(K, R, npool, T, what).n;
}

/* ------------------------------------------------------------------ team stages */

#ifdef __CUDA_ARCH__
/* every lane runs the stage; the team waits for all of it */
#define TEAM(T, lane, ...)        \
    do {                          \
        {                         \
            const int l = (lane); \
            __VA_ARGS__;          \
        }                         \
        if ((T) <= 32)            \
            __syncwarp();         \
        else                      \
            __syncthreads();      \
    } while (0)
#else
/* the lanes one after the other */
#define TEAM(T, lane, ...)              \
    do {                                \
        (void)(lane);                   \
        for (int l = 0; l < (T); l++) { \
            __VA_ARGS__;                \
        }                               \
    } while (0)
#endif

/* Y_k and Y_k/W_k of the lane's species; the state's domain as kinetics.c's */
static CHEM_HD int st_load(const chem_team *t, int l, int T, double Temp, double P, const double *Y, size_t inc,
                           double *ws, const tws *L)
{
    if (!(isfinite(Temp) && Temp > 0 && isfinite(P) && P > 0)) return CHEM_EDOMAIN;
    for (int k = l; k < t->K; k += T) {
        const double y = Y[k * inc];
        ws[L->Y + k] = y;
        ws[L->YW + k] = y / t->W[k];
    }
    return CHEM_OK;
}

/* s, rho, C and the thermo of the lane's species (jac: cp/R and Y dcp/W too) */
static CHEM_HD int st_state(const chem_team *t, int l, int T, double Temp, double P, double *ws, const tws *L, int jac)
{
    const int K = t->K;
    double sum = 0;
    for (int k = 0; k < K; k++) sum += ws[L->YW + k];
    if (!(isfinite(sum) && sum > 0)) return CHEM_EDOMAIN;
    const double r = P / (CHEM_R * Temp * sum), lnT = log(Temp), rT = 1.0 / Temp;
    for (int k = l; k < K; k += T) {
        const double y = ws[L->Y + k], W = t->W[k];
        ws[L->C + k] = r * y / W;
        const double *a = t->nasa + (size_t)(Temp <= t->tmid[k] ? 0 : 7) * (size_t)K + (size_t)k;
        double cp, h, s, dcp;
        thermo_sp(a, (size_t)K, Temp, lnT, rT, &cp, &h, &s, jac ? &dcp : NULL);
        ws[L->HRT + k] = h;
        ws[L->GRT + k] = h - s;
        ws[L->YCP + k] = y * cp / W;
        if (jac) {
            ws[L->CPR + k] = cp;
            ws[L->DCPW + k] = y * dcp / W;
        }
    }
    if (l == 0) {
        ws[L->SCAL + S_RHO] = r;
        ws[L->SCAL + S_S] = sum;
    }
    return CHEM_OK;
}

/* the load and state stages: CHEM_OK, or CHEM_EDOMAIN (every lane) */
static CHEM_HD int team_start(const chem_team *t, int lane, int T, double Temp, double P, const double *Y, size_t inc,
                              double *ws, const tws *L, int jac)
{
    int st = CHEM_OK;
    TEAM(T, lane, st = st_load(t, l, T, Temp, P, Y, inc, ws, L));
    if (st) return st;
    TEAM(T, lane, st = st_state(t, l, T, Temp, P, ws, L, jac));
    return st;
}

/* the reaction at position p as kinetics.c's reaction_eval reads it */
static CHEM_HD void team_view(const chem_team *t, int p, rxn_view *v)
{
    const size_t R = (size_t)t->R, ps = (size_t)p;
    const int info = t->info[p];
    v->kind = CHEM_TEAM_KIND(info);
    v->reversible = CHEM_TEAM_REV(info);
    v->nf = CHEM_TEAM_NF(info);
    v->nrv = CHEM_TEAM_NRV(info);
    v->nnet = CHEM_TEAM_NNET(info);
    v->k.A = t->k[ps];
    v->k.b = t->k[R + ps];
    v->k.EaR = t->k[2 * R + ps];
    v->dnu = t->dnu[ps];
    v->eff_default = 0;
    v->eff_first = v->neff = v->plog_first = v->nplog = 0;
    v->k0.A = v->k0.b = v->k0.EaR = 0;
    for (int i = 0; i < 4; i++) v->troe[i] = 0;
    if (has_third_body(v->kind)) {
        v->eff_default = t->eff_default[ps];
        v->eff_first = t->eff[ps];
        v->neff = t->eff[R + ps];
    }
    if (v->kind == CHEM_LINDEMANN || v->kind == CHEM_TROE) {
        v->k0.A = t->k0[ps];
        v->k0.b = t->k0[R + ps];
        v->k0.EaR = t->k0[2 * R + ps];
    }
    if (v->kind == CHEM_TROE)
        for (int i = 0; i < 4; i++) v->troe[i] = t->troe[(size_t)i * R + ps];
    if (v->kind == CHEM_PLOG) {
        v->plog_first = t->plog[ps];
        v->nplog = t->plog[R + ps];
    }
    v->f_sp = t->f_sp + ps;
    v->rv_sp = t->rv_sp + ps;
    v->net_sp = t->net_sp + ps;
    v->f_ord = t->f_ord + ps;
    v->rv_ord = t->rv_ord + ps;
    v->net_nu = t->net_nu + ps;
    v->s = R;
}

static CHEM_HD void team_env(const chem_mech *m, double Temp, double P, const double *ws, const tws *L, env *e)
{
    env_init(e, m, Temp, P);
    e->C = ws + L->C;
    e->h_RT = ws + L->HRT;
    e->g_RT = ws + L->GRT;
}

/* q = qf - qr (and qf + qr when gross) of the lane's reactions */
static CHEM_HD void st_rates(const chem_mech *m, const chem_team *t, int l, int T, double Temp, double P, double *ws,
                             const tws *L, int gross)
{
    env e;
    team_env(m, Temp, P, ws, L, &e);
    for (int p = l; p < t->R; p += T) {
        rxn_view v;
        rxn_eval o;
        team_view(t, p, &v);
        reaction_eval(m, &v, &e, &o);
        const double qf = o.Kf * o.Pf, qr = o.Kf * o.rk * o.Pr;
        ws[L->Q + p] = qf - qr;
        if (gross) ws[L->GQ + p] = qf + qr;
    }
}

/* The Jacobian's per-reaction quantities (kinetics.c's chem_jacobian_inc):
 * q, dq/dT, phi eff_default with phi = dq/d[M], phi itself, and the
 * gradient entries Kf dPf/dC_j (forward factors) and Kf rk dPr/dC_j
 * (reverse ones) at src[p]. */
static CHEM_HD void st_rates_jac(const chem_mech *m, const chem_team *t, int l, int T, double Temp, double P,
                                 double *ws, const tws *L)
{
    env e;
    team_env(m, Temp, P, ws, L, &e);
    const double *C = ws + L->C;
    for (int p = l; p < t->R; p += T) {
        rxn_view v;
        rxn_eval o;
        team_view(t, p, &v);
        reaction_eval(m, &v, &e, &o);
        const double D = o.Pf - o.rk * o.Pr;
        ws[L->Q + p] = o.Kf * D;
        ws[L->DQDT + p] = o.Kf * (o.dlnKf_dT * D - o.rk * o.dlnrk_dT * o.Pr);
        const double phi = o.dKf_dM * D;
        ws[L->PHID + p] = phi * v.eff_default;
        double *g = ws + L->POOL;
        g[t->npool + p] = phi;
        const int s = t->src[p];
        for (int j = 0; j < v.nf; j++) g[s + j] = o.Kf * dprod(v.nf, v.f_sp, v.f_ord, v.s, C, j);
        if (v.reversible)
            for (int j = 0; j < v.nrv; j++) g[s + v.nf + j] = o.Kf * o.rk * dprod(v.nrv, v.rv_sp, v.rv_ord, v.s, C, j);
    }
}

/* A fixed sum, first pass: lane l's piece (kinetics_team.h), nv <= 3 value
 * arrays val + i vs, outputs out + i os. */
static CHEM_HD void sum_piece(const chem_gather *g, int l, int nv, const double *val, size_t vs, double *out, size_t os,
                              double *part)
{
    const int n = g->cnt[l], T = g->T;
    if (n == 0) return;
    double a0 = 0, a1 = 0, a2 = 0;
    int o = (int)(g->ov[l] >> 16), seg = 0;
    for (int i = 0; i < n; i++) {
        const size_t at = (size_t)i * (size_t)T + (size_t)l;
        const unsigned x = g->ov[at];
        const int o2 = (int)(x >> 16);
        const size_t v = x & 0xffff;
        const double c = g->coef[at];
        if (o2 != o) {
            /* o ends here: it started this lane's piece (a partial slot) or lies inside it */
            if (seg == 0) {
                double *ps = part + 2 * (size_t)l;
                ps[0] = a0;
                if (nv > 1) ps[2 * (size_t)T] = a1;
                if (nv > 2) ps[4 * (size_t)T] = a2;
            } else {
                out[o] = a0;
                if (nv > 1) out[os + (size_t)o] = a1;
                if (nv > 2) out[2 * os + (size_t)o] = a2;
            }
            seg++;
            o = o2;
            a0 = a1 = a2 = 0;
        }
        a0 += c * val[v];
        if (nv > 1) a1 += c * val[vs + v];
        if (nv > 2) a2 += c * val[2 * vs + v];
    }
    double *ps = part + 2 * (size_t)l + (seg ? 1 : 0);
    ps[0] = a0;
    if (nv > 1) ps[2 * (size_t)T] = a1;
    if (nv > 2) ps[4 * (size_t)T] = a2;
}

/* ... second pass: the outputs made of partial slots (or of none), added in lane order */
static CHEM_HD void sum_fix(const chem_gather *g, int l, int nv, double *out, size_t os, const double *part)
{
    const size_t T2 = 2 * (size_t)g->T;
    for (int i = l; i < g->nfix; i += g->T) {
        const unsigned f = g->fix[i];
        const int o = (int)(f >> 16), ns = (int)(f & 0xffff);
        const unsigned short *sl = g->fix_slot + g->fix_at[i];
        double a0 = 0, a1 = 0, a2 = 0;
        for (int j = 0; j < ns; j++) {
            a0 += part[sl[j]];
            if (nv > 1) a1 += part[T2 + sl[j]];
            if (nv > 2) a2 += part[2 * T2 + sl[j]];
        }
        out[o] = a0;
        if (nv > 1) out[os + (size_t)o] = a1;
        if (nv > 2) out[2 * os + (size_t)o] = a2;
    }
}

/* ------------------------------------------------------------------ rates and rhs */

static CHEM_HD void st_rates_out(const chem_team *t, int l, int T, double *wdot, double *gross, size_t inc,
                                 const double *ws, const tws *L)
{
    for (int k = l; k < t->K; k += T) {
        wdot[k * inc] = ws[L->WDOT + k];
        if (gross) gross[k * inc] = ws[L->GROSS + k];
    }
}

CHEM_API int chem_team_rates(const chem_mech *m, const chem_team *t, int lane, double T, double P, const double *Y,
                             double *wdot, double *gross, size_t inc, double *ws)
{
    const int Tr = t->Tr, K = t->K;
    const int g = gross != NULL;
    const tws L = ws_layout(K, t->R, t->npool, Tr, g ? WS_RATES : WS_RHS);
    const int st = team_start(t, lane, Tr, T, P, Y, inc, ws, &L, 0);
    if (st) return st;
    TEAM(Tr, lane, st_rates(m, t, l, Tr, T, P, ws, &L, g));
    TEAM(Tr, lane, sum_piece(&t->net_r, l, 1, ws + L.Q, 0, ws + L.WDOT, 0, ws + L.PART));
    TEAM(Tr, lane, sum_fix(&t->net_r, l, 1, ws + L.WDOT, 0, ws + L.PART));
    if (g) {
        TEAM(Tr, lane, sum_piece(&t->gross_r, l, 1, ws + L.GQ, 0, ws + L.GROSS, 0, ws + L.PART));
        TEAM(Tr, lane, sum_fix(&t->gross_r, l, 1, ws + L.GROSS, 0, ws + L.PART));
    }
    TEAM(Tr, lane, st_rates_out(t, l, Tr, wdot, gross, inc, ws, &L));
    return CHEM_OK;
}

/* f_k = wdot_k W_k / rho of the lane's species, h_k wdot_k for the heat release */
static CHEM_HD void st_rhs_species(const chem_team *t, int l, int T, double *f, size_t inc, double *ws, const tws *L)
{
    const double rho = ws[L->SCAL + S_RHO];
    for (int k = l; k < t->K; k += T) {
        const double w = ws[L->WDOT + k];
        f[k * inc] = w * t->W[k] / rho;
        ws[L->HW + k] = ws[L->HRT + k] * w;
    }
}

/* dT/dt = -R T sum h_k wdot_k / (rho cp), as chem_rhs_inc */
static CHEM_HD void st_rhs_temperature(const chem_team *t, double T, double *f, size_t inc, const double *ws,
                                       const tws *L)
{
    const int K = t->K;
    double Q = 0, cp = 0;
    for (int k = 0; k < K; k++) Q += ws[L->HW + k];
    for (int k = 0; k < K; k++) cp += ws[L->YCP + k];
    f[(size_t)K * inc] = -CHEM_R * T * Q / (ws[L->SCAL + S_RHO] * CHEM_R * cp);
}

CHEM_API int chem_team_rhs(const chem_mech *m, const chem_team *t, int lane, double P, const double *x, double *f,
                           size_t inc, double *ws)
{
    const int Tr = t->Tr, K = t->K;
    const tws L = ws_layout(K, t->R, t->npool, Tr, WS_RHS);
    const double T = x[(size_t)K * inc];
    const int st = team_start(t, lane, Tr, T, P, x, inc, ws, &L, 0);
    if (st) return st;
    TEAM(Tr, lane, st_rates(m, t, l, Tr, T, P, ws, &L, 0));
    TEAM(Tr, lane, sum_piece(&t->net_r, l, 1, ws + L.Q, 0, ws + L.WDOT, 0, ws + L.PART));
    TEAM(Tr, lane, sum_fix(&t->net_r, l, 1, ws + L.WDOT, 0, ws + L.PART));
    TEAM(Tr, lane, st_rhs_species(t, l, Tr, f, inc, ws, &L));
    TEAM(Tr, lane, if (l == 0) st_rhs_temperature(t, T, f, inc, ws, &L));
    return CHEM_OK;
}

/* ------------------------------------------------------------------ Jacobian */

/* Rows of JC = S + u 1^T (in place) and G_k = sum_j JC_kj C_j (chem_jacobian_inc's
 * order); one lane also the scalars rho cp, the heat release and f_T. */
static CHEM_HD void st_rows(const chem_team *t, int l, int T, double Temp, double *ws, const tws *L)
{
    const int K = t->K;
    const size_t Ks = (size_t)K;
    double *JC = ws + L->JC;
    for (int k = l; k < K; k += T) {
        const double u = ws[L->U + k];
        double g = 0;
        for (int j = 0; j < K; j++) {
            const double v = JC[(size_t)k + (size_t)j * Ks] + u;
            JC[(size_t)k + (size_t)j * Ks] = v;
            g += v * ws[L->C + j];
        }
        ws[L->G + k] = g;
    }
    if (l == T - 1) {
        const double rho = ws[L->SCAL + S_RHO], RT = CHEM_R * Temp;
        double cp = 0, Q = 0;
        for (int k = 0; k < K; k++) cp += ws[L->YCP + k];
        const double D = rho * CHEM_R * cp;
        for (int k = 0; k < K; k++) Q += RT * ws[L->HRT + k] * ws[L->WDOT + k];
        ws[L->SCAL + S_CP] = D / rho;
        ws[L->SCAL + S_D] = D;
        ws[L->SCAL + S_FT] = -Q / D;
    }
}

/* J's species block entry by entry (d/dY_j of f_k), and the terms of its
 * temperature row's sums in JC's place; the temperature column; f. */
static CHEM_HD void st_entries(const chem_team *t, int l, int T, double Temp, double *f, double *J, size_t inc,
                               double *ws, const tws *L)
{
    const int K = t->K;
    const size_t Ks = (size_t)K, n = Ks + 1, ni = n * inc;
    const double rho = ws[L->SCAL + S_RHO], s = ws[L->SCAL + S_S], RT = CHEM_R * Temp;
    double *JC = ws + L->JC;
    const unsigned Ku = (unsigned)K;
    for (unsigned e = (unsigned)l; e < Ku * Ku; e += (unsigned)T) {
        const unsigned k = e % Ku, j = e / Ku;
        const double W = t->W[j], a = rho / W, b = 1 / (s * W);
        const double dw = a * JC[e] - ws[L->G + k] * b;
        JC[e] = RT * ws[L->HRT + k] * dw;
        J[k * inc + (size_t)j * ni] = t->W[k] / rho * (dw + ws[L->WDOT + k] * b);
    }
    for (int k = l; k < K; k += T) {
        const double w = ws[L->WDOT + k];
        const double dw = ws[L->WT + k] - ws[L->G + k] / Temp;
        ws[L->TCOL + k] = CHEM_R * ws[L->CPR + k] * w + RT * ws[L->HRT + k] * dw;
        J[(size_t)k * inc + Ks * ni] = t->W[k] / rho * (dw + w / Temp);
        if (f) f[(size_t)k * inc] = w * t->W[k] / rho;
    }
    if (f && l == 0) f[Ks * inc] = ws[L->SCAL + S_FT];
}

/* the temperature row: -(dQ + f_T dD) / D column by column */
static CHEM_HD void st_trow(const chem_team *t, int l, int T, double Temp, double *J, size_t inc, const double *ws,
                            const tws *L)
{
    const int K = t->K;
    const size_t Ks = (size_t)K, n = Ks + 1, ni = n * inc;
    const double rho = ws[L->SCAL + S_RHO], s = ws[L->SCAL + S_S], cp = ws[L->SCAL + S_CP], D = ws[L->SCAL + S_D],
                 fT = ws[L->SCAL + S_FT];
    const double *JC = ws + L->JC;
    for (int j = l; j <= K; j += T) {
        double dQ = 0, dD;
        if (j < K) {
            for (int k = 0; k < K; k++) dQ += JC[(size_t)k + (size_t)j * Ks];
            const double W = t->W[j];
            dD = rho * (CHEM_R * ws[L->CPR + j] / W - cp * (1 / (s * W)));
        } else {
            double dcp = 0;
            for (int k = 0; k < K; k++) {
                dQ += ws[L->TCOL + k];
                dcp += ws[L->DCPW + k];
            }
            dD = rho * (-cp / Temp + CHEM_R * dcp);
        }
        J[Ks * inc + (size_t)j * ni] = -(dQ + fT * dD) / D;
    }
}

CHEM_API int chem_team_jacobian(const chem_mech *m, const chem_team *t, int lane, double P, const double *x, double *f,
                                double *J, size_t inc, double *ws)
{
    const int Tj = t->Tj, K = t->K;
    const tws L = ws_layout(K, t->R, t->npool, Tj, WS_JAC);
    const double T = x[(size_t)K * inc];
    const int st = team_start(t, lane, Tj, T, P, x, inc, ws, &L, 1);
    if (st) return st;
    TEAM(Tj, lane, st_rates_jac(m, t, l, Tj, T, P, ws, &L));
    /* wdot, d wdot/dT at fixed C, u */
    TEAM(Tj, lane, sum_piece(&t->net_j, l, 3, ws + L.Q, (size_t)t->R, ws + L.WDOT, (size_t)K, ws + L.PART));
    TEAM(Tj, lane, sum_fix(&t->net_j, l, 3, ws + L.WDOT, (size_t)K, ws + L.PART));
    TEAM(Tj, lane, sum_piece(&t->jc, l, 1, ws + L.POOL, 0, ws + L.JC, 0, ws + L.JCP));
    TEAM(Tj, lane, sum_fix(&t->jc, l, 1, ws + L.JC, 0, ws + L.JCP));
    TEAM(Tj, lane, st_rows(t, l, Tj, T, ws, &L));
    TEAM(Tj, lane, st_entries(t, l, Tj, T, f, J, inc, ws, &L));
    TEAM(Tj, lane, st_trow(t, l, Tj, T, J, inc, ws, &L));
    return CHEM_OK;
}
