/*
 * mech.c -- loads a *.mech file (mech.h; format in tools/chem_export.py).
 */
#include "mech.h"

#include "tokens.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SPECIES 100000
#define MAX_REACTIONS 1000000
#define MAX_LIST 100000 /* efficiencies, PLOG pressures or terms of one reaction */

void chem_mech_free(chem_mech *m)
{
    if (!m) return;
    free(m->sp_name);
    free(m->W);
    free(m->tmin);
    free(m->tmid);
    free(m->tmax);
    free(m->nasa);
    free(m->rxn);
    free(m->eff_sp);
    free(m->eff_val);
    free(m->plog_lnp);
    free(m->plog_term);
    free(m->plog_arr);
    free(m);
}

int chem_species_index(const chem_mech *m, const char *name)
{
    for (int k = 0; k < m->nsp; k++)
        if (strcmp(m->sp_name[k], name) == 0) return k;
    return -1;
}

/* Makes room for `need` elements of `size` bytes in *p (capacity *cap). */
static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > SIZE_MAX / 2 / size) return -1;
        c *= 2;
    }
    void *q = realloc(*p, c * size);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

typedef struct loader {
    chem_tokens t;
    chem_mech *m;
    int status;
    size_t eff_cap, val_cap, eff_n, plog_cap, plog_n, term_cap, arr_cap, arr_n;
} loader;

static int nomem(loader *L)
{
    L->status = CHEM_ENOMEM;
    return chem_tok_fail(&L->t, "out of memory");
}

static int read_species_ref(loader *L, const char *what, int *k)
{
    if (chem_tok_next(&L->t, what)) return -1;
    *k = chem_species_index(L->m, L->t.tok);
    if (*k < 0) return chem_tok_fail(&L->t, "%s: unknown species '%s'", what, L->t.tok);
    return 0;
}

/* <n> (<species> <value>){n}, at most max, values >= 0 */
static int read_list(loader *L, const char *what, int max, int *n, int *sp, double *val)
{
    long c;
    if (chem_tok_int(&L->t, what, 0, max, &c)) return -1;
    *n = (int)c;
    for (int i = 0; i < *n; i++) {
        if (read_species_ref(L, what, &sp[i]) || chem_tok_double(&L->t, what, &val[i])) return -1;
        if (val[i] < 0) return chem_tok_fail(&L->t, "%s: negative coefficient %g", what, val[i]);
        for (int j = 0; j < i; j++)
            if (sp[j] == sp[i]) return chem_tok_fail(&L->t, "%s: species listed twice", what);
    }
    return 0;
}

static int read_arrhenius(loader *L, chem_arrhenius *a)
{
    return chem_tok_double(&L->t, "A", &a->A) || chem_tok_double(&L->t, "b", &a->b) ||
           chem_tok_double(&L->t, "Ea/R", &a->EaR) ? -1 : 0;
}

static int read_third_body(loader *L, chem_rxn *r)
{
    long n;
    if (chem_tok_double(&L->t, "default efficiency", &r->eff_default) ||
        chem_tok_int(&L->t, "number of efficiencies", 0, MAX_LIST, &n))
        return -1;
    if (grow((void **)&L->m->eff_sp, &L->eff_cap, L->eff_n + (size_t)n, sizeof(int)) ||
        grow((void **)&L->m->eff_val, &L->val_cap, L->eff_n + (size_t)n, sizeof(double)))
        return nomem(L);
    r->eff_first = (int)L->eff_n;
    r->neff = (int)n;
    for (long i = 0; i < n; i++) {
        int k;
        double e;
        if (read_species_ref(L, "third-body species", &k) || chem_tok_double(&L->t, "efficiency", &e)) return -1;
        L->m->eff_sp[L->eff_n] = k;
        L->m->eff_val[L->eff_n++] = e;
    }
    return 0;
}

static int read_plog(loader *L, chem_rxn *r)
{
    long np;
    if (chem_tok_int(&L->t, "PLOG pressures", 1, MAX_LIST, &np)) return -1;
    chem_mech *m = L->m;
    r->plog_first = (int)L->plog_n;
    r->nplog = (int)np;
    double last = -INFINITY;
    for (long p = 0; p < np; p++) {
        double P;
        long nk;
        if (chem_tok_double(&L->t, "PLOG pressure", &P) || chem_tok_int(&L->t, "PLOG terms", 1, MAX_LIST, &nk))
            return -1;
        if (!(P > 0) || !(log(P) > last)) return chem_tok_fail(&L->t, "PLOG pressures must be positive and ascending");
        last = log(P);
        /* plog_term keeps one entry past the last pressure: the end of its terms */
        if (grow((void **)&m->plog_lnp, &L->plog_cap, L->plog_n + 1, sizeof(double)) ||
            grow((void **)&m->plog_term, &L->term_cap, L->plog_n + 2, sizeof(int)) ||
            grow((void **)&m->plog_arr, &L->arr_cap, L->arr_n + (size_t)nk, sizeof(chem_arrhenius)))
            return nomem(L);
        m->plog_lnp[L->plog_n] = last;
        m->plog_term[L->plog_n] = (int)L->arr_n;
        for (long i = 0; i < nk; i++)
            if (read_arrhenius(L, &m->plog_arr[L->arr_n++])) return -1;
        m->plog_term[++L->plog_n] = (int)L->arr_n;
    }
    return 0;
}

/* Net and gross stoichiometry from the reactant and product lists. */
static int stoichiometry(loader *L, chem_rxn *r, int nr, const int *r_sp, const double *r_nu)
{
    r->nnet = r->ngross = 0;
    r->dnu = 0;
    for (int side = 0; side < 2; side++) {
        const int n = side ? r->nrv : nr;
        const int *sp = side ? r->rv_sp : r_sp;
        const double *nu = side ? r->rv_ord : r_nu;
        for (int i = 0; i < n; i++) {
            const double s = side ? nu[i] : -nu[i];
            r->dnu += s;
            int j = 0;
            while (j < r->nnet && r->net_sp[j] != sp[i]) j++;
            if (j == r->nnet) {
                r->net_sp[r->nnet] = sp[i];
                r->net_nu[r->nnet++] = 0;
            }
            r->net_nu[j] += s;
            j = 0;
            while (j < r->ngross && r->gross_sp[j] != sp[i]) j++;
            if (j == r->ngross) {
                r->gross_sp[r->ngross] = sp[i];
                r->gross_nu[r->ngross++] = 0;
            }
            r->gross_nu[j] += nu[i];
        }
    }
    int k = 0; /* a species on both sides with equal nu takes no net part */
    for (int j = 0; j < r->nnet; j++)
        if (r->net_nu[j] != 0) {
            r->net_sp[k] = r->net_sp[j];
            r->net_nu[k++] = r->net_nu[j];
        }
    r->nnet = k;
    if (r->nnet == 0) return chem_tok_fail(&L->t, "reaction changes nothing");
    return 0;
}

static int read_reaction(loader *L, chem_rxn *r)
{
    static const char *kinds[] = {"arrhenius", "three-body", "lindemann", "troe", "plog"};
    memset(r, 0, sizeof *r);
    if (chem_tok_next(&L->t, "reaction kind")) return -1;
    r->kind = -1;
    for (int i = 0; i < 5; i++)
        if (strcmp(L->t.tok, kinds[i]) == 0) r->kind = i;
    if (r->kind < 0) return chem_tok_fail(&L->t, "unknown reaction kind '%s'", L->t.tok);
    long rev;
    if (chem_tok_int(&L->t, "reversible flag", 0, 1, &rev)) return -1;
    r->reversible = (int)rev;

    int nr, no, r_sp[CHEM_SIDE_MAX], o_sp[CHEM_SIDE_MAX];
    double r_nu[CHEM_SIDE_MAX], o_ord[CHEM_SIDE_MAX];
    if (read_list(L, "reactants", CHEM_SIDE_MAX, &nr, r_sp, r_nu) ||
        read_list(L, "products", CHEM_SIDE_MAX, &r->nrv, r->rv_sp, r->rv_ord) ||
        read_list(L, "orders", CHEM_SIDE_MAX, &no, o_sp, o_ord))
        return -1;
    if (nr == 0 || r->nrv == 0) return chem_tok_fail(&L->t, "a reaction needs reactants and products");
    /* forward factors: the reactants' nu, replaced or joined by the orders */
    r->nf = nr;
    memcpy(r->f_sp, r_sp, sizeof r_sp);
    memcpy(r->f_ord, r_nu, sizeof r_nu);
    for (int i = 0; i < no; i++) {
        int j = 0;
        while (j < r->nf && r->f_sp[j] != o_sp[i]) j++;
        if (j == r->nf) {
            if (r->nf == CHEM_SIDE_MAX) return chem_tok_fail(&L->t, "more than %d forward orders", CHEM_SIDE_MAX);
            r->f_sp[r->nf++] = o_sp[i];
        }
        r->f_ord[j] = o_ord[i];
    }
    if (stoichiometry(L, r, nr, r_sp, r_nu)) return -1;

    switch (r->kind) {
    case CHEM_ARRHENIUS: return read_arrhenius(L, &r->k);
    case CHEM_THREE_BODY: return read_arrhenius(L, &r->k) || read_third_body(L, r) ? -1 : 0;
    case CHEM_LINDEMANN:
    case CHEM_TROE:
        if (read_arrhenius(L, &r->k0) || read_arrhenius(L, &r->k) || read_third_body(L, r)) return -1;
        if (r->kind == CHEM_TROE)
            for (int i = 0; i < 4; i++)
                if (chem_tok_double(&L->t, "Troe parameter", &r->troe[i])) return -1;
        return 0;
    default: return read_plog(L, r);
    }
}

static int read_species(loader *L, int k)
{
    chem_mech *m = L->m;
    if (chem_tok_next(&L->t, "species name")) return -1;
    if (strlen(L->t.tok) >= CHEM_NAME_MAX) return chem_tok_fail(&L->t, "species name too long");
    if (chem_species_index(m, L->t.tok) >= 0) return chem_tok_fail(&L->t, "species '%s' twice", L->t.tok);
    strcpy(m->sp_name[k], L->t.tok);
    if (chem_tok_double(&L->t, "molecular weight", &m->W[k]) || chem_tok_double(&L->t, "T-min", &m->tmin[k]) ||
        chem_tok_double(&L->t, "T-mid", &m->tmid[k]) || chem_tok_double(&L->t, "T-max", &m->tmax[k]))
        return -1;
    if (!(m->W[k] > 0)) return chem_tok_fail(&L->t, "molecular weight must be positive");
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < 7; i++)
            if (chem_tok_double(&L->t, "NASA-7 coefficient", &m->nasa[k][r][i])) return -1;
    return 0;
}

static int load(loader *L)
{
    chem_tokens *t = &L->t;
    chem_mech *m = L->m;
    long v, n;
    if (chem_tok_expect(t, "chem-mech") || chem_tok_int(t, "format version", 1, 1, &v) ||
        chem_tok_expect(t, "name") || chem_tok_next(t, "mechanism name"))
        return -1;
    if (strlen(t->tok) >= sizeof m->name) return chem_tok_fail(t, "mechanism name too long");
    memcpy(m->name, t->tok, strlen(t->tok) + 1);
    if (chem_tok_expect(t, "p-ref") || chem_tok_double(t, "p-ref", &m->p_ref)) return -1;
    if (!(m->p_ref > 0)) return chem_tok_fail(t, "p-ref must be positive");
    if (chem_tok_expect(t, "species") || chem_tok_int(t, "number of species", 1, MAX_SPECIES, &n)) return -1;
    const size_t K = (size_t)n;
    m->sp_name = calloc(K, sizeof *m->sp_name);
    m->W = calloc(K, sizeof *m->W);
    m->tmin = calloc(K, sizeof(double));
    m->tmid = calloc(K, sizeof(double));
    m->tmax = calloc(K, sizeof(double));
    m->nasa = calloc(K, sizeof *m->nasa);
    if (!m->sp_name || !m->W || !m->tmin || !m->tmid || !m->tmax || !m->nasa) return nomem(L);
    for (m->nsp = 0; m->nsp < (int)K;) {
        if (read_species(L, m->nsp)) return -1;
        m->nsp++; /* after reading: chem_species_index sees only the complete ones */
    }
    if (chem_tok_expect(t, "reactions") || chem_tok_int(t, "number of reactions", 0, MAX_REACTIONS, &n)) return -1;
    m->rxn = calloc(n ? (size_t)n : 1, sizeof *m->rxn);
    if (!m->rxn) return nomem(L);
    m->nrxn = (int)n;
    for (int i = 0; i < m->nrxn; i++)
        if (read_reaction(L, &m->rxn[i])) return -1;
    if (chem_tok_next(t, "end of file") == 0) return chem_tok_fail(t, "unexpected '%s' after the last reaction", t->tok);
    t->msg[0] = 0; /* the end of the file was the expected outcome */
    return 0;
}

int chem_mech_load(const char *path, chem_mech **out, char *msg, size_t msglen)
{
    loader L;
    memset(&L, 0, sizeof L);
    *out = NULL;
    if (msglen) msg[0] = 0;
    if (chem_tok_open(&L.t, path)) {
        if (msglen) snprintf(msg, msglen, "%s", L.t.msg);
        return CHEM_EIO;
    }
    L.m = calloc(1, sizeof *L.m);
    L.status = CHEM_EFORMAT;
    int rc = L.m ? load(&L) : nomem(&L);
    chem_tok_close(&L.t);
    if (rc) {
        if (msglen) snprintf(msg, msglen, "%s", L.t.msg);
        chem_mech_free(L.m);
        return L.status;
    }
    *out = L.m;
    return CHEM_OK;
}
