/*
 * cases.c -- ignition cases and fresh mixtures (cases.h).
 */
#include "cases.h"

#include "tokens.h"

#include <stdlib.h>
#include <string.h>

int chem_cases_load(const char *path, const chem_mech *m, chem_case **cases, int *ncase, char *msg, size_t msglen)
{
    *cases = NULL;
    *ncase = 0;
    chem_tokens t;
    if (chem_tok_open(&t, path)) {
        snprintf(msg, msglen, "%s", t.msg);
        return CHEM_EIO;
    }
    long v, n = 0;
    int bad = chem_tok_expect(&t, "chem-ref") || chem_tok_int(&t, "version", 1, 1, &v) ||
              chem_tok_expect(&t, "name") || chem_tok_expect(&t, m->name);
    /* the states before the cases are not needed here */
    while (!bad && strcmp(t.tok, "ignition") != 0) bad = chem_tok_next(&t, "ignition section");
    if (!bad) bad = chem_tok_int(&t, "cases", 1, 100000, &n);
    chem_case *c = bad ? NULL : calloc((size_t)n, sizeof *c);
    if (!bad && !c) bad = chem_tok_fail(&t, "out of memory");
    for (long i = 0; !bad && i < n; i++) {
        bad = chem_tok_expect(&t, "case") || chem_tok_next(&t, "fuel");
        if (bad) break;
        snprintf(c[i].fuel, sizeof c[i].fuel, "%.15s", t.tok);
        bad = chem_tok_double(&t, "phi", &c[i].phi) || chem_tok_double(&t, "T0", &c[i].T0) ||
              chem_tok_double(&t, "P0", &c[i].P0) || chem_tok_double(&t, "tau", &c[i].tau) ||
              chem_tok_double(&t, "tau spread", &c[i].spread);
    }
    if (!bad && chem_tok_next(&t, "end of file") == 0) bad = chem_tok_fail(&t, "unexpected '%s'", t.tok);
    chem_tok_close(&t);
    if (bad) {
        snprintf(msg, msglen, "%s", t.msg);
        free(c);
        return CHEM_EFORMAT;
    }
    *cases = c;
    *ncase = (int)n;
    return CHEM_OK;
}

int chem_fresh_mixture(const chem_mech *m, const char *fuel, double phi, double *Y)
{
    /* O2 that burns one mole of fuel to CO2 and H2O */
    static const struct {
        const char *name;
        double o2;
    } fuels[] = {{"H2", 0.5}, {"CH4", 2.0}};
    double o2 = 0;
    for (size_t i = 0; i < sizeof fuels / sizeof fuels[0]; i++)
        if (strcmp(fuel, fuels[i].name) == 0) o2 = fuels[i].o2;
    const int kf = chem_species_index(m, fuel), ko = chem_species_index(m, "O2"), kn = chem_species_index(m, "N2");
    if (o2 == 0 || kf < 0 || ko < 0 || kn < 0 || !(phi > 0)) return CHEM_EFORMAT;
    /* moles: phi fuel per o2 O2, with 3.76 N2 per O2 */
    for (int k = 0; k < m->nsp; k++) Y[k] = 0;
    const double mf = phi * m->W[kf], mo = o2 * m->W[ko], mn = 3.76 * o2 * m->W[kn], tot = mf + mo + mn;
    Y[kf] = mf / tot;
    Y[ko] = mo / tot;
    Y[kn] = mn / tot;
    return CHEM_OK;
}

int chem_load_with_cases(const char *dir, const char *name, chem_mech **m, chem_case **cases, int *ncase, char *msg,
                         size_t msglen)
{
    char path[1024];
    *cases = NULL;
    *ncase = 0;
    snprintf(path, sizeof path, "%s/%s.mech", dir, name);
    int r = chem_mech_load(path, m, msg, msglen);
    if (r != CHEM_OK) return r;
    snprintf(path, sizeof path, "%s/%s.ref", dir, name);
    r = chem_cases_load(path, *m, cases, ncase, msg, msglen);
    if (r != CHEM_OK) {
        chem_mech_free(*m);
        *m = NULL;
    }
    return r;
}

int chem_cells_from_cases(const chem_mech *m, const chem_case *cases, int ncase, int ncell, double *x0, double *P,
                          char *msg, size_t msglen)
{
    const int n = m->nsp + 1;
    for (int c = 0; c < ncell; c++) {
        const chem_case *k = &cases[c % ncase];
        double *x = x0 + (size_t)c * n;
        if (chem_fresh_mixture(m, k->fuel, k->phi, x) != CHEM_OK) {
            snprintf(msg, msglen, "no mixture of %s in %s", k->fuel, m->name);
            return CHEM_EFORMAT;
        }
        x[n - 1] = k->T0;
        P[c] = k->P0;
    }
    return CHEM_OK;
}
