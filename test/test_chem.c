/*
 * test_chem.c -- the chemistry sample's kinetics (samples/chem/kinetics.c)
 * against the Cantera reference values shipped with the mechanisms
 * (samples/chem/<name>.ref, written by tools/chem_export.py), so that no
 * Cantera is needed here.  Mechanisms: h2o2 (K = 10 species, n = 11), gri30
 * (K = 53, n = 54) and pdep (tools/chem_pdep.yaml: made-up rates in the forms
 * the other two lack: PLOG, non-stoichiometric orders, single colliders).
 *
 *   - rates at every reference state: creation + destruction rates ("gross",
 *     sums of positive terms) within RATE_RTOL of Cantera's; net production
 *     rates wdot within RATE_RTOL of max(|wdot|, GROSS_FLOOR gross).  The
 *     floor: near equilibrium wdot is the difference of terms of size gross,
 *     which both codes round differently (the reverse rates' exp(dG/RT)
 *     alone carries an error of ~1e-16 |dG/RT|, dG/RT up to a few hundred),
 *     so an absolute error of RATE_RTOL GROSS_FLOOR = 1e-13 of the
 *     cancelling terms is allowed;
 *   - the constant-pressure reactor's right-hand side likewise, the floor
 *     being the same gross rates in each row's units;
 *   - the analytic Jacobian at every JAC_EVERY-th state against central
 *     differences of the right-hand side (steps 1e-6 s_j, s_j = max(|Y_j|,
 *     1e-6) or T): every entry within JAC_RTOL of the quotient plus a floor
 *     JAC_RTOL JAC_FLOOR R_i / s_j, R_i the row's scale (its gross rate, or
 *     its largest change for a change s_k of one variable, if larger): the
 *     quotient's own rounding and truncation errors, ~1e-10 R_i / s_j;
 *   - loading errors and states outside the model are reported, not crashed
 *     on; cells evaluated on several threads give the serial results;
 *   - the team kinetics (kinetics_team.c, the GPU's; here its lanes run one
 *     after the other) against kinetics.c at every reference state, for
 *     teams of several sizes, vectors strided with NaN between them: every
 *     output within TEAM_RTOL of kinetics.c's on the scales above (they
 *     differ by the order of the sums only), nothing written between them,
 *     the same status outside the model.
 * The data files are found in CHEM_DATA_DIR (the Makefile passes the
 * absolute path of samples/chem).
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include "testlib.h"

#include "kinetics.h"
#include "kinetics_team.h"
#include "tokens.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef CHEM_DATA_DIR
#define CHEM_DATA_DIR "samples/chem"
#endif

#define RATE_RTOL 1e-10
#define GROSS_FLOOR 1e-3
#define JAC_RTOL 1e-6
#define JAC_FLOOR 1e-2
#define JAC_EVERY 8 /* the Jacobian is checked at every 8th reference state */
#define TEAM_RTOL 1e-11
#define TEAM_INC 3 /* stride of the team kinetics' vectors in t_team */

/* ---------------------------------------------------------------- reference files */

typedef struct ref_state {
    char kind[32];
    double T, P;
    double *Y, *wdot, *gross, *rhs;
} ref_state;

typedef struct ref_case {
    char fuel[16];
    double phi, T0, P0, tau, spread;
} ref_case;

typedef struct ref {
    int K, nstate, ncase;
    ref_state *st;
    ref_case *cs;
} ref;

static void ref_free(ref *r)
{
    for (int i = 0; i < r->nstate; i++) free(r->st[i].Y);
    free(r->st);
    free(r->cs);
}

static int read_vec(chem_tokens *t, const char *key, int n, double *x)
{
    if (chem_tok_expect(t, key)) return -1;
    for (int i = 0; i < n; i++)
        if (chem_tok_double(t, key, &x[i])) return -1;
    return 0;
}

/* Reads <name>.ref for mechanism m; on failure the message is in t->msg. */
static int ref_read(chem_tokens *t, const chem_mech *m, ref *r)
{
    long v, n;
    if (chem_tok_expect(t, "chem-ref") || chem_tok_int(t, "version", 1, 1, &v) || chem_tok_expect(t, "name") ||
        chem_tok_expect(t, m->name) || chem_tok_expect(t, "species") ||
        chem_tok_int(t, "species", m->nsp, m->nsp, &n))
        return -1;
    r->K = m->nsp;
    for (int k = 0; k < m->nsp; k++)
        if (chem_tok_expect(t, m->sp_name[k])) return -1;
    if (chem_tok_expect(t, "states") || chem_tok_int(t, "states", 1, 100000, &n)) return -1;
    r->st = calloc((size_t)n, sizeof *r->st);
    if (!r->st) return chem_tok_fail(t, "out of memory");
    const int K = r->K;
    for (r->nstate = 0; r->nstate < n; r->nstate++) {
        ref_state *s = &r->st[r->nstate];
        s->Y = malloc((size_t)(4 * K + 1) * sizeof(double));
        if (!s->Y) return chem_tok_fail(t, "out of memory");
        s->wdot = s->Y + K;
        s->gross = s->wdot + K;
        s->rhs = s->gross + K;
        long i;
        if (chem_tok_expect(t, "state") || chem_tok_int(t, "state index", r->nstate, r->nstate, &i) ||
            chem_tok_next(t, "state kind"))
            return -1;
        snprintf(s->kind, sizeof s->kind, "%.31s", t->tok);
        if (chem_tok_double(t, "T", &s->T) || chem_tok_double(t, "P", &s->P) || read_vec(t, "Y", K, s->Y) ||
            read_vec(t, "wdot", K, s->wdot) || read_vec(t, "gross", K, s->gross) ||
            read_vec(t, "rhs", K + 1, s->rhs))
            return -1;
    }
    if (chem_tok_expect(t, "ignition") || chem_tok_int(t, "cases", 0, 10000, &n)) return -1;
    r->cs = calloc(n ? (size_t)n : 1, sizeof *r->cs);
    if (!r->cs) return chem_tok_fail(t, "out of memory");
    for (r->ncase = 0; r->ncase < n; r->ncase++) {
        ref_case *c = &r->cs[r->ncase];
        if (chem_tok_expect(t, "case") || chem_tok_next(t, "fuel")) return -1;
        snprintf(c->fuel, sizeof c->fuel, "%.15s", t->tok);
        if (chem_tok_double(t, "phi", &c->phi) || chem_tok_double(t, "T0", &c->T0) ||
            chem_tok_double(t, "P0", &c->P0) || chem_tok_double(t, "tau", &c->tau) ||
            chem_tok_double(t, "tau spread", &c->spread))
            return -1;
    }
    return 0;
}

/* The mechanism and its reference values; fails the test if they cannot be read. */
static void load(const char *name, chem_mech **m, ref *r)
{
    char path[1024], msg[512];
    snprintf(path, sizeof path, "%s/%s.mech", CHEM_DATA_DIR, name);
    const int rc = chem_mech_load(path, m, msg, sizeof msg);
    ck_assert_msg(rc == CHEM_OK, "chem_mech_load: status %d: %s", rc, msg);
    snprintf(path, sizeof path, "%s/%s.ref", CHEM_DATA_DIR, name);
    chem_tokens t;
    memset(r, 0, sizeof *r);
    int bad = chem_tok_open(&t, path) || ref_read(&t, *m, r);
    if (!bad && chem_tok_next(&t, "end of file") == 0) bad = chem_tok_fail(&t, "unexpected '%s'", t.tok);
    chem_tok_close(&t);
    ck_assert_msg(!bad, "reading %s: %s", path, t.msg);
}

/* Cantera's normalization of the stored mass fractions (Phase::setMassFractions). */
static void normalized(int K, const double *Y, double *out)
{
    double s = 0;
    for (int k = 0; k < K; k++) s += Y[k];
    for (int k = 0; k < K; k++) out[k] = Y[k] * (1.0 / s);
}

static const char *mechs[] = {"h2o2", "gri30", "pdep"};
#define NMECH 3

/* ---------------------------------------------------------------- loading */

START_TEST(t_load)
{
    /* what Cantera 3.2 reports for h2o2.yaml, gri30.yaml and tools/chem_pdep.yaml */
    static const int nsp[] = {10, 53, 10}, nrxn[] = {29, 325, 12}, ncase[] = {18, 18, 0};
    static const int kinds[NMECH][5] = {{17, 11, 0, 1, 0}, {275, 21, 3, 26, 0}, {5, 2, 1, 2, 2}};
    for (int i = 0; i < NMECH; i++) {
        chem_mech *m;
        ref r;
        load(mechs[i], &m, &r);
        ck_assert_int_eq(m->nsp, nsp[i]);
        ck_assert_int_eq(m->nrxn, nrxn[i]);
        int count[5] = {0};
        for (int j = 0; j < m->nrxn; j++) count[m->rxn[j].kind]++;
        for (int k = 0; k < 5; k++) ck_assert_int_eq(count[k], kinds[i][k]);
        ck_assert_str_eq(m->sp_name[0], "H2");
        ck_assert(m->W[0] == 2.016 && m->p_ref == 101325.0);
        ck_assert_int_ge(r.nstate, 200);
        int seen_eq = 0, seen_near = 0;
        for (int s = 0; s < r.nstate; s++) {
            seen_eq += strcmp(r.st[s].kind, "equilibrium") == 0;
            seen_near += strcmp(r.st[s].kind, "near-equilibrium") == 0;
        }
        ck_assert(seen_eq > 0 && seen_near > 0);
        /* the ignition references the ensemble sample compares with */
        ck_assert_int_eq(r.ncase, ncase[i]);
        for (int c = 0; c < r.ncase; c++) ck_assert(r.cs[c].tau > 0 && r.cs[c].spread < 1e-4);
        ref_free(&r);
        chem_mech_free(m);
    }
}
END_TEST

/* ---------------------------------------------------------------- rates and right-hand side */

/* rho, rho cp and molar enthalpies (J/kmol) of a state, for the floors */
static void props(const chem_mech *m, double T, double P, const double *Y, double *rho, double *rcp, double *H)
{
    const int K = m->nsp;
    double *cp_R = malloc((size_t)K * sizeof *cp_R);
    ck_assert(cp_R != NULL);
    chem_thermo(m, T, cp_R, H, NULL);
    double s = 0, cp = 0;
    for (int k = 0; k < K; k++) {
        s += Y[k] / m->W[k];
        cp += Y[k] * cp_R[k] / m->W[k];
        H[k] *= CHEM_R * T;
    }
    *rho = P / (CHEM_R * T * s);
    *rcp = *rho * CHEM_R * cp;
    free(cp_R);
}

START_TEST(t_rates)
{
    for (int i = 0; i < NMECH; i++) {
        chem_mech *m;
        ref r;
        load(mechs[i], &m, &r);
        const int K = m->nsp;
        double *work = malloc(chem_work_len(m) * sizeof(double));
        double *Y = malloc((size_t)K * sizeof(double)), *w = malloc((size_t)K * sizeof(double)),
               *gr = malloc((size_t)K * sizeof(double));
        ck_assert(work && Y && w && gr);
        double worst_w = 0, worst_rel = 0, worst_g = 0;
        for (int s = 0; s < r.nstate; s++) {
            const ref_state *st = &r.st[s];
            normalized(K, st->Y, Y);
            const int rc = chem_rates(m, st->T, st->P, Y, w, gr, work);
            TL_EXPECT(rc == CHEM_OK, "state %d: status %d", s, rc);
            for (int k = 0; k < K; k++) {
                const double eg = fabs(gr[k] - st->gross[k]);
                TL_EXPECT(eg <= RATE_RTOL * st->gross[k], "state %d (%s) %s: gross %.17g, Cantera %.17g", s,
                          st->kind, m->sp_name[k], gr[k], st->gross[k]);
                const double scale = fmax(fabs(st->wdot[k]), GROSS_FLOOR * st->gross[k]);
                const double ew = fabs(w[k] - st->wdot[k]);
                TL_EXPECT(ew <= RATE_RTOL * scale, "state %d (%s) %s: wdot %.17g, Cantera %.17g (gross %g)", s,
                          st->kind, m->sp_name[k], w[k], st->wdot[k], st->gross[k]);
                if (st->gross[k] > 0) worst_g = fmax(worst_g, eg / st->gross[k]);
                if (scale > 0) worst_w = fmax(worst_w, ew / scale);
                if (fabs(st->wdot[k]) >= GROSS_FLOOR * st->gross[k] && st->wdot[k] != 0)
                    worst_rel = fmax(worst_rel, ew / fabs(st->wdot[k]));
            }
        }
        printf("%s rates, %d states: worst relative error gross %.2g, wdot %.2g (%.2g of max(|wdot|, %g gross))\n",
               mechs[i], r.nstate, worst_g, worst_rel, worst_w, GROSS_FLOOR);
        TL_CLEAN("%s rates", mechs[i]);
        free(work);
        free(Y);
        free(w);
        free(gr);
        ref_free(&r);
        chem_mech_free(m);
    }
}
END_TEST

START_TEST(t_rhs)
{
    for (int i = 0; i < NMECH; i++) {
        chem_mech *m;
        ref r;
        load(mechs[i], &m, &r);
        const int K = m->nsp, n = K + 1;
        double *work = malloc(chem_work_len(m) * sizeof(double));
        double *x = malloc((size_t)n * sizeof(double)), *f = malloc((size_t)n * sizeof(double)),
               *H = malloc((size_t)K * sizeof(double));
        ck_assert(work && x && f && H);
        double worst = 0, worst_rel = 0;
        for (int s = 0; s < r.nstate; s++) {
            const ref_state *st = &r.st[s];
            normalized(K, st->Y, x);
            x[K] = st->T;
            const int rc = chem_rhs(m, st->P, x, f, work);
            TL_EXPECT(rc == CHEM_OK, "state %d: status %d", s, rc);
            double rho, rcp, gT = 0;
            props(m, st->T, st->P, x, &rho, &rcp, H);
            for (int k = 0; k < K; k++) gT += fabs(H[k]) * st->gross[k] / rcp;
            for (int k = 0; k <= K; k++) {
                const double g = k < K ? st->gross[k] * m->W[k] / rho : gT;
                const double scale = fmax(fabs(st->rhs[k]), GROSS_FLOOR * g);
                const double e = fabs(f[k] - st->rhs[k]);
                TL_EXPECT(e <= RATE_RTOL * scale, "state %d (%s) row %s: %.17g, Cantera %.17g", s, st->kind,
                          k < K ? m->sp_name[k] : "T", f[k], st->rhs[k]);
                if (scale > 0) worst = fmax(worst, e / scale);
                if (fabs(st->rhs[k]) >= GROSS_FLOOR * g && st->rhs[k] != 0)
                    worst_rel = fmax(worst_rel, e / fabs(st->rhs[k]));
            }
        }
        printf("%s reactor rhs, %d states: worst relative error %.2g (%.2g with the floor)\n", mechs[i], r.nstate,
               worst_rel, worst);
        TL_CLEAN("%s rhs", mechs[i]);
        free(work);
        free(x);
        free(f);
        free(H);
        ref_free(&r);
        chem_mech_free(m);
    }
}
END_TEST

/* ---------------------------------------------------------------- Jacobian */

START_TEST(t_jacobian)
{
    for (int i = 0; i < NMECH; i++) {
        chem_mech *m;
        ref r;
        load(mechs[i], &m, &r);
        const int K = m->nsp, n = K + 1;
        const size_t nn = (size_t)n * (size_t)n;
        double *work = malloc(chem_work_len(m) * sizeof(double));
        double *x = malloc((size_t)n * sizeof(double)), *xp = malloc((size_t)n * sizeof(double)),
               *f = malloc((size_t)n * sizeof(double)), *f0 = malloc((size_t)n * sizeof(double)),
               *fp = malloc((size_t)n * sizeof(double)), *fm = malloc((size_t)n * sizeof(double)),
               *J = malloc(nn * sizeof(double)), *Jd = malloc(nn * sizeof(double)),
               *R = malloc((size_t)n * sizeof(double)), *xs = malloc((size_t)n * sizeof(double)),
               *gr = malloc((size_t)K * sizeof(double)), *H = malloc((size_t)K * sizeof(double));
        ck_assert(work && x && xp && f && f0 && fp && fm && J && Jd && R && xs && gr && H);
        double worst = 0, worst_rel = 0;
        int checked = 0;
        for (int s = 0; s < r.nstate; s += JAC_EVERY, checked++) {
            const ref_state *st = &r.st[s];
            normalized(K, st->Y, x);
            x[K] = st->T;
            int rc = chem_jacobian(m, st->P, x, f, J, work);
            rc |= chem_rhs(m, st->P, x, f0, work);
            /* row scales: the gross rates in each row's units */
            double rho, rcp;
            rc |= chem_rates(m, st->T, st->P, x, fp, gr, work);
            props(m, st->T, st->P, x, &rho, &rcp, H);
            R[K] = 0;
            for (int k = 0; k < K; k++) {
                R[k] = gr[k] * m->W[k] / rho;
                R[K] += fabs(H[k]) * gr[k] / rcp;
            }
            /* the right-hand side that comes with the Jacobian: chem_rhs's up to
             * rounding (the sums are grouped differently: errors of ~1e-16 R) */
            for (int k = 0; k < n; k++)
                TL_EXPECT(fabs(f[k] - f0[k]) <= 1e-12 * fmax(fabs(f0[k]), R[k]),
                          "state %d: f[%d] %.17g, rhs %.17g", s, k, f[k], f0[k]);
            /* central differences, steps 1e-6 xs_j: xs_j = max(|Y_j|, 1e-6), T */
            for (int j = 0; j < n; j++) {
                xs[j] = j < K ? fmax(fabs(x[j]), 1e-6) : x[K];
                const double h = 1e-6 * xs[j];
                memcpy(xp, x, (size_t)n * sizeof *xp);
                xp[j] = x[j] + h;
                rc |= chem_rhs(m, st->P, xp, fp, work);
                xp[j] = x[j] - h;
                rc |= chem_rhs(m, st->P, xp, fm, work);
                for (int k = 0; k < n; k++) Jd[k + (size_t)j * n] = (fp[k] - fm[k]) / (2 * h);
            }
            TL_EXPECT(rc == CHEM_OK, "state %d: status %d", s, rc);
            for (int k = 0; k < n; k++) {
                /* the row's scale: its gross rates, and its largest response to a
                 * perturbation of one variable by its scale */
                double Rk = R[k];
                for (int j = 0; j < n; j++) Rk = fmax(Rk, fabs(Jd[k + (size_t)j * n]) * xs[j]);
                for (int j = 0; j < n; j++) {
                    const double fd = Jd[k + (size_t)j * n], a = J[k + (size_t)j * n];
                    const double tol = JAC_RTOL * (fabs(fd) + JAC_FLOOR * Rk / xs[j]);
                    const double e = fabs(a - fd);
                    TL_EXPECT(e <= tol, "state %d (%s) d%s/d%s: analytic %.17g, differences %.17g", s, st->kind,
                              k < K ? m->sp_name[k] : "T", j < K ? m->sp_name[j] : "T", a, fd);
                    if (tol > 0) worst = fmax(worst, e / tol * JAC_RTOL);
                    if (fabs(fd) >= JAC_FLOOR * Rk / xs[j] && fd != 0) worst_rel = fmax(worst_rel, e / fabs(fd));
                }
            }
        }
        printf("%s Jacobian, %d states: worst relative difference %.2g (%.2g with the floor)\n", mechs[i],
               checked, worst_rel, worst);
        TL_CLEAN("%s Jacobian", mechs[i]);
        free(work);
        free(x);
        free(xp);
        free(f);
        free(f0);
        free(fp);
        free(fm);
        free(J);
        free(Jd);
        free(R);
        free(xs);
        free(gr);
        free(H);
        ref_free(&r);
        chem_mech_free(m);
    }
}
END_TEST

/* ---------------------------------------------------------------- errors */

/* Loads `text` as a .mech file: the status, the message in msg. */
static int load_text(const char *text, char *msg, size_t len)
{
    char path[] = "/tmp/test_chem_XXXXXX";
    const int fd = mkstemp(path);
    ck_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    ck_assert(f != NULL);
    fputs(text, f);
    fclose(f);
    chem_mech *m = (chem_mech *)&m; /* must come back NULL on failure */
    const int rc = chem_mech_load(path, &m, msg, len);
    remove(path);
    if (rc == CHEM_OK) chem_mech_free(m);
    else ck_assert(m == NULL);
    return rc;
}

#define HEAD "chem-mech 1\nname t\np-ref 101325\nspecies 2\n" \
             "A 2 200 1000 3500 1 0 0 0 0 0 0 1 0 0 0 0 0 0\n" \
             "B 4 200 1000 3500 1 0 0 0 0 0 0 1 0 0 0 0 0 0\n"

START_TEST(t_errors)
{
    char msg[256];
    chem_mech *m = NULL;
    ck_assert_int_eq(chem_mech_load("/nonexistent/x.mech", &m, msg, sizeof msg), CHEM_EIO);
    ck_assert(m == NULL && strstr(msg, "/nonexistent/x.mech") != NULL);
    /* a good one, then one broken piece at a time, named with its line */
    ck_assert_int_eq(load_text(HEAD "reactions 1\narrhenius 1 1 A 2 1 B 1 0 1 0 0\n", msg, sizeof msg), CHEM_OK);
    ck_assert_int_eq(load_text(HEAD "reactions 1\narrhenius 1 1 A 2 1 C 1 0 1 0 0\n", msg, sizeof msg),
                     CHEM_EFORMAT);
    ck_assert_msg(strstr(msg, ":8:") && strstr(msg, "unknown species 'C'"), "%s", msg);
    ck_assert_int_eq(load_text(HEAD "reactions 2\narrhenius 1 1 A 2 1 B 1 0 1 0 0\n", msg, sizeof msg),
                     CHEM_EFORMAT);
    ck_assert_msg(strstr(msg, "end of file"), "%s", msg);
    ck_assert_int_eq(load_text(HEAD "reactions 1\nsri 1 1 A 2 1 B 1 0 1 0 0\n", msg, sizeof msg), CHEM_EFORMAT);
    ck_assert_msg(strstr(msg, "unknown reaction kind 'sri'"), "%s", msg);
    ck_assert_int_eq(load_text(HEAD "reactions 1\narrhenius 1 1 A 2 1 B 1 0 1 0 nan\n", msg, sizeof msg),
                     CHEM_EFORMAT);
    ck_assert_int_eq(load_text(HEAD "reactions 1\nplog 1 1 A 2 1 B 1 0 2 1e5 1 1 0 0 1e4 1 1 0 0\n", msg,
                               sizeof msg),
                     CHEM_EFORMAT);
    ck_assert_msg(strstr(msg, "ascending"), "%s", msg);
    ck_assert_int_eq(load_text(HEAD "reactions 0\nextra\n", msg, sizeof msg), CHEM_EFORMAT);
    ck_assert_int_eq(load_text("chem-mech 2\n", msg, sizeof msg), CHEM_EFORMAT);

    /* states outside the model */
    ck_assert_int_eq(load_text(HEAD "reactions 0\n", msg, sizeof msg), CHEM_OK);
    ref r;
    load("h2o2", &m, &r);
    double *work = malloc(chem_work_len(m) * sizeof(double)), x[11], f[11], J[121];
    ck_assert(work != NULL);
    normalized(10, r.st[0].Y, x);
    x[10] = 1000;
    ck_assert_int_eq(chem_rhs(m, 101325, x, f, work), CHEM_OK);
    ck_assert_int_eq(chem_rhs(m, 0, x, f, work), CHEM_EDOMAIN);
    ck_assert_int_eq(chem_rhs(m, NAN, x, f, work), CHEM_EDOMAIN);
    ck_assert_int_eq(chem_jacobian(m, -1, x, f, J, work), CHEM_EDOMAIN);
    x[10] = 0;
    ck_assert_int_eq(chem_rhs(m, 101325, x, f, work), CHEM_EDOMAIN);
    x[10] = INFINITY;
    ck_assert_int_eq(chem_jacobian(m, 101325, x, NULL, J, work), CHEM_EDOMAIN);
    memset(x, 0, 10 * sizeof *x);
    x[10] = 1000;
    ck_assert_int_eq(chem_rhs(m, 101325, x, f, work), CHEM_EDOMAIN);
    free(work);
    ref_free(&r);
    chem_mech_free(m);
}
END_TEST

/* ---------------------------------------------------------------- team kinetics */

/* |a - b| <= TEAM_RTOL scale (a NaN fails), recorded; the error over the scale */
static double team_cmp(double a, double b, double scale, const char *what, int s, int i, int j)
{
    const double e = fabs(a - b);
    TL_EXPECT(e <= TEAM_RTOL * scale, "state %d %s (%d, %d): team %.17g, kinetics.c %.17g (scale %g)", s, what, i, j,
              a, b, scale);
    return scale > 0 ? e / scale : e == 0 ? 0 : INFINITY;
}

/* entries i inc + 1 .. i inc + inc - 1 of v (n entries) still hold the sentinel */
static void team_gaps(const double *v, int n, const char *what, int s)
{
    for (int i = 0; i < n * TEAM_INC; i++)
        if (i % TEAM_INC) TL_EXPECT(v[i] == -7.0, "state %d %s: entry %d between the vector's written", s, what, i);
}

START_TEST(t_team)
{
    static const int sizes[][2] = {{32, 256}, {7, 5}, {1, 3}, {64, 1024}}; /* Tr, Tj */
    for (int i = 0; i < NMECH; i++) {
        chem_mech *m;
        ref r;
        load(mechs[i], &m, &r);
        const int K = m->nsp, n = K + 1, I = TEAM_INC;
        const size_t nn = (size_t)n * n;
        double *work = malloc(chem_work_len(m) * sizeof(double)), *x = malloc((size_t)n * sizeof(double)),
               *w = malloc((size_t)K * sizeof(double)), *gr = malloc((size_t)K * sizeof(double)),
               *f = malloc((size_t)n * sizeof(double)), *fj = malloc((size_t)n * sizeof(double)),
               *J = malloc(nn * sizeof(double)), *R = malloc((size_t)n * sizeof(double)),
               *H = malloc((size_t)K * sizeof(double));
        /* strided copies: input with NaN gaps, outputs with sentinel gaps */
        double *xs = malloc((size_t)n * I * sizeof(double)), *ws_ = malloc((size_t)K * I * sizeof(double)),
               *gs = malloc((size_t)K * I * sizeof(double)), *fs = malloc((size_t)n * I * sizeof(double)),
               *fjs = malloc((size_t)n * I * sizeof(double)), *Js = malloc(nn * I * sizeof(double));
        ck_assert(work && x && w && gr && f && fj && J && R && H && xs && ws_ && gs && fs && fjs && Js);
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            chem_team *t;
            char msg[256];
            const int rc = chem_team_create(m, sizes[z][0], sizes[z][1], &t, msg, sizeof msg);
            ck_assert_msg(rc == CHEM_OK, "chem_team_create: %s", msg);
            const size_t lw = t->ws_jac > t->ws_rates ? t->ws_jac : t->ws_rates;
            double *tw = malloc(lw * sizeof(double));
            ck_assert(tw != NULL);
            double worst_r = 0, worst_f = 0, worst_J = 0;
            for (int s = 0; s < r.nstate + 2; s++) {
                /* the reference states, then two outside the model (T < 0; no species) */
                const ref_state *st = &r.st[s < r.nstate ? s : 0];
                normalized(K, st->Y, x);
                x[K] = s == r.nstate ? -st->T : st->T;
                if (s == r.nstate + 1)
                    for (int k = 0; k < K; k++) x[k] = 0;
                for (int e = 0; e < n * I; e++) xs[e] = e % I ? NAN : x[e / I];
                for (size_t e = 0; e < nn * I; e++) Js[e] = -7.0;
                for (int e = 0; e < n * I; e++) fs[e] = fjs[e] = -7.0;
                for (int e = 0; e < K * I; e++) ws_[e] = gs[e] = -7.0;
                int c1 = chem_rates(m, x[K], st->P, x, w, gr, work), c2 = chem_rhs(m, st->P, x, f, work);
                int c3 = chem_jacobian(m, st->P, x, fj, J, work);
                int t1 = chem_team_rates(m, t, -1, x[K], st->P, xs, ws_, gs, (size_t)I, tw);
                int t2 = chem_team_rhs(m, t, -1, st->P, xs, fs, (size_t)I, tw);
                int t3 = chem_team_jacobian(m, t, -1, st->P, xs, fjs, Js, (size_t)I, tw);
                TL_EXPECT(c1 == t1 && c2 == t2 && c3 == t3 && (c1 != CHEM_OK) == (s >= r.nstate),
                          "%d lanes, state %d: statuses %d %d %d, team %d %d %d", t->Tr, s, c1, c2, c3, t1, t2, t3);
                if (s >= r.nstate || c1 || c2 || c3) continue;
                team_gaps(ws_, K, "wdot", s);
                team_gaps(gs, K, "gross", s);
                team_gaps(fs, n, "rhs", s);
                team_gaps(fjs, n, "Jacobian's rhs", s);
                team_gaps(Js, n * n, "J", s);
                /* scales: gpu_chem's (the gross rates in each row's units; J's rows' largest changes) */
                double rho, rcp;
                props(m, x[K], st->P, x, &rho, &rcp, H);
                R[K] = 0;
                for (int k = 0; k < K; k++) {
                    worst_r = fmax(worst_r, team_cmp(gs[k * I], gr[k], gr[k], "gross", s, k, 0));
                    worst_r = fmax(worst_r, team_cmp(ws_[k * I], w[k], fmax(fabs(w[k]), GROSS_FLOOR * gr[k]), "wdot", s,
                                                     k, 0));
                    R[k] = gr[k] * m->W[k] / rho;
                    R[K] += fabs(H[k]) * gr[k] / rcp;
                }
                for (int k = 0; k < n; k++) {
                    const double sc = fmax(fabs(f[k]), GROSS_FLOOR * R[k]);
                    worst_f = fmax(worst_f, team_cmp(fs[k * I], f[k], sc, "rhs", s, k, 0));
                    worst_f = fmax(worst_f, team_cmp(fjs[k * I], fj[k], fmax(fabs(fj[k]), GROSS_FLOOR * R[k]),
                                                     "Jacobian's rhs", s, k, 0));
                    for (int j = 0; j < n; j++) R[k] = fmax(R[k], fabs(J[k + (size_t)j * n]) * fmax(fabs(x[j]), 1e-6));
                }
                for (int j = 0; j < n; j++)
                    for (int k = 0; k < n; k++) {
                        const size_t e = (size_t)k + (size_t)j * n;
                        const double sc = fmax(fabs(J[e]), GROSS_FLOOR * R[k] / fmax(fabs(x[j]), 1e-6));
                        worst_J = fmax(worst_J, team_cmp(Js[e * I], J[e], sc, "J", s, k, j));
                    }
            }
            printf("%s team kinetics, %d + %d lanes: worst error over the scale: rates %.2g, rhs %.2g, Jacobian "
                   "%.2g (tolerance %g)\n",
                   mechs[i], t->Tr, t->Tj, worst_r, worst_f, worst_J, TEAM_RTOL);
            TL_CLEAN("%s team kinetics, %d + %d lanes", mechs[i], t->Tr, t->Tj);
            free(tw);
            chem_team_free(t);
        }
        free(work), free(x), free(w), free(gr), free(f), free(fj), free(J), free(R), free(H);
        free(xs), free(ws_), free(gs), free(fs), free(fjs), free(Js);
        ref_free(&r);
        chem_mech_free(m);
    }
}
END_TEST

/* ---------------------------------------------------------------- threads */

/* Cells evaluated on several threads, a workspace each, give the serial bits. */
START_TEST(t_threads)
{
    chem_mech *m;
    ref r;
    load("gri30", &m, &r);
    const int K = m->nsp, n = K + 1, N = r.nstate;
    const size_t nn = (size_t)n * (size_t)n, lw = chem_work_len(m);
    double *x = malloc((size_t)N * n * sizeof(double)), *f1 = malloc((size_t)N * n * sizeof(double)),
           *f2 = malloc((size_t)N * n * sizeof(double)), *J1 = malloc(nn * N * sizeof(double)),
           *J2 = malloc(nn * N * sizeof(double)), *work = malloc(lw * sizeof(double));
    ck_assert(x && f1 && f2 && J1 && J2 && work);
    for (int s = 0; s < N; s++) {
        normalized(K, r.st[s].Y, x + (size_t)s * n);
        x[(size_t)s * n + K] = r.st[s].T;
        ck_assert_int_eq(chem_jacobian(m, r.st[s].P, x + (size_t)s * n, f1 + (size_t)s * n, J1 + nn * s, work), 0);
    }
    int bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
        double *w = malloc(lw * sizeof(double));
        if (!w) bad++;
#pragma omp for schedule(dynamic)
        for (int s = 0; s < N; s++)
            if (w) bad += chem_jacobian(m, r.st[s].P, x + (size_t)s * n, f2 + (size_t)s * n, J2 + nn * s, w) != 0;
        free(w);
    }
    ck_assert_int_eq(bad, 0);
    ck_assert(memcmp(f1, f2, (size_t)N * n * sizeof(double)) == 0);
    ck_assert(memcmp(J1, J2, nn * N * sizeof(double)) == 0);
    free(x);
    free(f1);
    free(f2);
    free(J1);
    free(J2);
    free(work);
    ref_free(&r);
    chem_mech_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("chem");
    TCase *tc = tl_tcase("chem");
    tcase_add_test(tc, t_load);
    tcase_add_test(tc, t_rates);
    tcase_add_test(tc, t_rhs);
    tcase_add_test(tc, t_jacobian);
    tcase_add_test(tc, t_errors);
    tcase_add_test(tc, t_threads);
    tcase_add_test(tc, t_team);
    suite_add_tcase(s, tc);
    return tl_main(s);
}
