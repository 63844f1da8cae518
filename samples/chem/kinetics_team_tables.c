/*
 * kinetics_team_tables.c -- a mechanism's tables for team kinetics
 * (kinetics_team.h): the reactions in evaluation order, slot-major, and the
 * fixed sums (chem_gather) of the rates per species and of the Jacobian's
 * entries, cut into one piece per lane.
 */
#include "kinetics_team.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One term of a fixed sum before it is cut: output o, value v, coef; seq
 * orders the terms of an output (the CPU kinetics' order of accumulation). */
typedef struct term {
    int o, v;
    long seq;
    double coef;
} term;

typedef struct termlist {
    term *t;
    size_t n, cap;
} termlist;

static int push(termlist *L, int o, int v, double coef)
{
    if (L->n == L->cap) {
        const size_t c = L->cap ? 2 * L->cap : 256;
        term *p = realloc(L->t, c * sizeof *p);
        if (!p) return -1;
        L->t = p;
        L->cap = c;
    }
    L->t[L->n] = (term){o, v, (long)L->n, coef};
    L->n++;
    return 0;
}

static int term_cmp(const void *a, const void *b)
{
    const term *x = a, *y = b;
    if (x->o != y->o) return x->o < y->o ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A fixed sum's arrays, built in host memory before they are placed. */
typedef struct gbuild {
    int T, len, nfix, nslot;
    int *cnt, *fix_at;
    unsigned *ov, *fix;
    double *coef;
    unsigned short *fix_slot;
} gbuild;

static void gbuild_free(gbuild *g)
{
    free(g->cnt);
    free(g->fix_at);
    free(g->ov);
    free(g->fix);
    free(g->coef);
    free(g->fix_slot);
}

/* Cuts the terms (sorted here) of nout outputs into T pieces; 0, or -1 out of memory. */
static int gather_build(termlist *L, int nout, int T, gbuild *g)
{
    memset(g, 0, sizeof *g);
    const size_t n = L->n;
    qsort(L->t, n, sizeof *L->t, term_cmp);
    g->T = T;
    g->len = (int)((n + (size_t)T - 1) / (size_t)T);
    const size_t len = (size_t)g->len, tl = len * (size_t)T;
    g->cnt = calloc((size_t)T, sizeof *g->cnt);
    g->ov = calloc(tl ? tl : 1, sizeof *g->ov);
    g->coef = calloc(tl ? tl : 1, sizeof *g->coef);
    /* per output: the lanes holding its terms, first and last */
    int *lo = malloc((size_t)nout * sizeof *lo), *hi = malloc((size_t)nout * sizeof *hi);
    g->fix = malloc((size_t)nout * sizeof *g->fix);
    g->fix_at = malloc((size_t)nout * sizeof *g->fix_at);
    g->fix_slot = malloc(((size_t)nout + 2 * (size_t)T) * sizeof *g->fix_slot);
    if (!g->cnt || !g->ov || !g->coef || !lo || !hi || !g->fix || !g->fix_at || !g->fix_slot) {
        free(lo);
        free(hi);
        return -1;
    }
    for (int o = 0; o < nout; o++) lo[o] = -1, hi[o] = -1;
    for (size_t i = 0; i < n; i++) {
        const int l = (int)(i / len), o = L->t[i].o;
        const size_t at = (i % len) * (size_t)T + (size_t)l;
        g->ov[at] = (unsigned)o << 16 | (unsigned)L->t[i].v;
        g->coef[at] = L->t[i].coef;
        g->cnt[l]++;
        if (lo[o] < 0) lo[o] = l;
        hi[o] = l;
    }
    /* an output is written by its lane when it neither starts nor ends the
     * lane's piece; else its partial slots are added up: 2l when it starts
     * lane l's piece, 2l + 1 when it ends it (and does not start it) */
    g->nfix = g->nslot = 0;
    for (int o = 0; o < nout; o++) {
        int direct = lo[o] >= 0 && lo[o] == hi[o];
        if (direct) {
            const int l = lo[o];
            const size_t first = (size_t)l * len, last = first + (size_t)g->cnt[l] - 1;
            direct = L->t[first].o != o && L->t[last].o != o;
        }
        if (direct) continue;
        g->fix[g->nfix] = (unsigned)o << 16;
        g->fix_at[g->nfix] = g->nslot;
        for (int l = lo[o]; l >= 0 && l <= hi[o]; l++) {
            const int starts = L->t[(size_t)l * len].o == o;
            g->fix_slot[g->nslot++] = (unsigned short)(starts ? 2 * l : 2 * l + 1);
            g->fix[g->nfix]++;
        }
        g->nfix++;
    }
    free(lo);
    free(hi);
    return 0;
}

/* ------------------------------------------------------------------ placement */

/* a sizing pass (base NULL), then a filling one; every array 256-byte aligned */
typedef struct place {
    char *base;
    size_t off;
} place;

static void *put(place *P, const void *src, size_t bytes)
{
    const size_t at = P->off;
    P->off = (at + bytes + 255) & ~(size_t)255;
    if (!P->base) return NULL;
    if (src && bytes) memcpy(P->base + at, src, bytes);
    return P->base + at;
}

static void put_gather(place *P, const gbuild *b, chem_gather *g)
{
    const size_t tl = (size_t)b->len * (size_t)b->T;
    g->T = b->T;
    g->len = b->len;
    g->nfix = b->nfix;
    g->cnt = put(P, b->cnt, (size_t)b->T * sizeof *b->cnt);
    g->ov = put(P, b->ov, tl * sizeof *b->ov);
    g->coef = put(P, b->coef, tl * sizeof *b->coef);
    g->fix = put(P, b->fix, (size_t)b->nfix * sizeof *b->fix);
    g->fix_at = put(P, b->fix_at, (size_t)b->nfix * sizeof *b->fix_at);
    g->fix_slot = put(P, b->fix_slot, (size_t)b->nslot * sizeof *b->fix_slot);
}

/* ------------------------------------------------------------------ tables */

/* evaluation order: kinds in the order below (third bodies last), constant
 * rate coefficients first among the elementary ones, then the file's order */
static int kind_rank(const chem_rxn *r)
{
    switch (r->kind) {
    case CHEM_ARRHENIUS: return r->k.b == 0 && r->k.EaR == 0 ? 0 : 1;
    case CHEM_PLOG: return 2;
    case CHEM_THREE_BODY: return 3;
    case CHEM_LINDEMANN: return 4;
    default: return 5;
    }
}

static int pos_cmp(const void *a, const void *b)
{
    const int64_t i = *(const int64_t *)a, j = *(const int64_t *)b; /* rank << 32 | index */
    return i < j ? -1 : i > j;
}

/* the host arrays of the tables, before placement */
typedef struct hbuild {
    int *rxn, *info, *eff, *plog, *f_sp, *rv_sp, *net_sp, *src;
    double *k, *k0, *troe, *dnu, *effd, *f_ord, *rv_ord, *net_nu, *W, *tmid, *nasa;
    gbuild net_r, gross_r, net_j, jc;
} hbuild;

static void hbuild_free(hbuild *h)
{
    void *p[] = {h->rxn,  h->info, h->eff,  h->plog,  h->f_sp,   h->rv_sp,  h->net_sp, h->src,  h->k,   h->k0,
                 h->troe, h->dnu,  h->effd, h->f_ord, h->rv_ord, h->net_nu, h->W,      h->tmid, h->nasa};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) free(p[i]);
    gbuild_free(&h->net_r);
    gbuild_free(&h->gross_r);
    gbuild_free(&h->net_j);
    gbuild_free(&h->jc);
}

static int third_body_kind(int kind)
{
    return kind == CHEM_THREE_BODY || kind == CHEM_LINDEMANN || kind == CHEM_TROE;
}

/* the per-position arrays and the four fixed sums; -1 out of memory */
static int build(const chem_mech *m, int Tr, int Tj, chem_team *t, hbuild *h)
{
    const int K = m->nsp, R = m->nrxn;
    const size_t Rs = (size_t)(R ? R : 1), Ks = (size_t)K;
    t->K = K;
    t->R = R;
    t->Tr = Tr;
    t->Tj = Tj;
    t->nf = t->nrv = t->nnet = 1;
    for (int i = 0; i < R; i++) {
        const chem_rxn *r = &m->rxn[i];
        if (r->nf > t->nf) t->nf = r->nf;
        if (r->nrv > t->nrv) t->nrv = r->nrv;
        if (r->nnet > t->nnet) t->nnet = r->nnet;
    }
    h->rxn = malloc(Rs * sizeof(int));
    h->info = calloc(Rs, sizeof(int));
    h->eff = calloc(2 * Rs, sizeof(int));
    h->plog = calloc(2 * Rs, sizeof(int));
    h->f_sp = calloc((size_t)t->nf * Rs, sizeof(int));
    h->rv_sp = calloc((size_t)t->nrv * Rs, sizeof(int));
    h->net_sp = calloc((size_t)t->nnet * Rs, sizeof(int));
    h->src = calloc(Rs, sizeof(int));
    h->k = calloc(3 * Rs, sizeof(double));
    h->k0 = calloc(3 * Rs, sizeof(double));
    h->troe = calloc(4 * Rs, sizeof(double));
    h->dnu = calloc(Rs, sizeof(double));
    h->effd = calloc(Rs, sizeof(double));
    h->f_ord = calloc((size_t)t->nf * Rs, sizeof(double));
    h->rv_ord = calloc((size_t)t->nrv * Rs, sizeof(double));
    h->net_nu = calloc((size_t)t->nnet * Rs, sizeof(double));
    h->W = malloc(Ks * sizeof(double));
    h->tmid = malloc(Ks * sizeof(double));
    h->nasa = malloc(14 * Ks * sizeof(double));
    int *pos = malloc(Rs * sizeof(int));
    if (!h->rxn || !h->info || !h->eff || !h->plog || !h->f_sp || !h->rv_sp || !h->net_sp || !h->src || !h->k ||
        !h->k0 || !h->troe || !h->dnu || !h->effd || !h->f_ord || !h->rv_ord || !h->net_nu || !h->W || !h->tmid ||
        !h->nasa || !pos) {
        free(pos);
        return -1;
    }
    for (int k = 0; k < K; k++) {
        h->W[k] = m->W[k];
        h->tmid[k] = m->tmid[k];
        for (int g = 0; g < 2; g++)
            for (int i = 0; i < 7; i++) h->nasa[(size_t)(g * 7 + i) * Ks + (size_t)k] = m->nasa[k][g][i];
    }
    int64_t *key = malloc(Rs * sizeof *key);
    if (!key) {
        free(pos);
        return -1;
    }
    for (int i = 0; i < R; i++) key[i] = (int64_t)kind_rank(&m->rxn[i]) << 32 | i;
    qsort(key, (size_t)R, sizeof *key, pos_cmp);
    for (int i = 0; i < R; i++) h->rxn[i] = (int)(key[i] & 0xffffffff);
    free(key);
    int npool = 0;
    for (int p = 0; p < R; p++) {
        const chem_rxn *r = &m->rxn[h->rxn[p]];
        pos[h->rxn[p]] = p;
        h->info[p] = r->kind | r->reversible << 4 | r->nf << 8 | r->nrv << 16 | r->nnet << 24;
        const chem_arrhenius *a[2] = {&r->k, &r->k0};
        double *d[2] = {h->k, h->k0};
        for (int j = 0; j < 2; j++) {
            d[j][p] = a[j]->A;
            d[j][Rs + (size_t)p] = a[j]->b;
            d[j][2 * Rs + (size_t)p] = a[j]->EaR;
        }
        for (int j = 0; j < 4; j++) h->troe[(size_t)j * Rs + (size_t)p] = r->troe[j];
        h->dnu[p] = r->dnu;
        h->effd[p] = third_body_kind(r->kind) ? r->eff_default : 0;
        h->eff[p] = r->eff_first;
        h->eff[Rs + (size_t)p] = r->neff;
        h->plog[p] = r->plog_first;
        h->plog[Rs + (size_t)p] = r->nplog;
        for (int j = 0; j < r->nf; j++) {
            h->f_sp[(size_t)j * Rs + (size_t)p] = r->f_sp[j];
            h->f_ord[(size_t)j * Rs + (size_t)p] = r->f_ord[j];
        }
        for (int j = 0; j < r->nrv; j++) {
            h->rv_sp[(size_t)j * Rs + (size_t)p] = r->rv_sp[j];
            h->rv_ord[(size_t)j * Rs + (size_t)p] = r->rv_ord[j];
        }
        for (int j = 0; j < r->nnet; j++) {
            h->net_sp[(size_t)j * Rs + (size_t)p] = r->net_sp[j];
            h->net_nu[(size_t)j * Rs + (size_t)p] = r->net_nu[j];
        }
        h->src[p] = npool;
        npool += r->nf + (r->reversible ? r->nrv : 0);
    }
    t->npool = npool;

    /* the fixed sums, terms in the CPU's order: reaction by reaction; in the
     * Jacobian's entries forward factors, reverse ones, third bodies */
    termlist net = {0}, gross = {0}, jc = {0};
    int bad = 0;
    for (int i = 0; i < R && !bad; i++) {
        const chem_rxn *r = &m->rxn[i];
        const int p = pos[i], s = h->src[p];
        for (int a = 0; a < r->nnet && !bad; a++) {
            const int k = r->net_sp[a];
            const double nu = r->net_nu[a];
            bad |= push(&net, k, p, nu);
            for (int j = 0; j < r->nf && !bad; j++) bad |= push(&jc, k + r->f_sp[j] * K, s + j, nu);
            if (r->reversible)
                for (int j = 0; j < r->nrv && !bad; j++) bad |= push(&jc, k + r->rv_sp[j] * K, s + r->nf + j, -nu);
            /* the efficiencies that differ from the default: phi at npool + p */
            if (third_body_kind(r->kind))
                for (int e = r->eff_first; e < r->eff_first + r->neff && !bad; e++)
                    if (m->eff_val[e] != r->eff_default)
                        bad |= push(&jc, k + m->eff_sp[e] * K, npool + p, nu * (m->eff_val[e] - r->eff_default));
        }
        for (int a = 0; a < r->ngross && !bad; a++) bad |= push(&gross, r->gross_sp[a], p, r->gross_nu[a]);
    }
    free(pos);
    if (!bad) {
        termlist net2 = {malloc((net.n ? net.n : 1) * sizeof(term)), net.n, net.n};
        bad = !net2.t;
        if (!bad) memcpy(net2.t, net.t, net.n * sizeof(term));
        bad = bad || gather_build(&net, K, Tr, &h->net_r) || gather_build(&net2, K, Tj, &h->net_j) ||
              gather_build(&gross, K, Tr, &h->gross_r) || gather_build(&jc, K * K, Tj, &h->jc);
        free(net2.t);
    }
    free(net.t);
    free(gross.t);
    free(jc.t);
    return bad ? -1 : 0;
}

int chem_team_create(const chem_mech *m, int Tr, int Tj, chem_team **out, char *msg, size_t msglen)
{
    *out = NULL;
    const int K = m->nsp, R = m->nrxn;
    if (Tr < 1 || Tr > 1024 || Tj < 1 || Tj > 1024) {
        snprintf(msg, msglen, "team kinetics: %d and %d lanes, 1..1024 taken", Tr, Tj);
        return CHEM_EDOMAIN;
    }
    /* 16-bit outputs and values of the fixed sums: K^2 entries, R positions */
    if (K < 1 || (long)K * K > 65535 || R > 65535 - 1) {
        snprintf(msg, msglen, "%s: %d species and %d reactions, team kinetics take up to 255 and 65534", m->name, K, R);
        return CHEM_EDOMAIN;
    }
    chem_team *t = calloc(1, sizeof *t);
    hbuild h;
    memset(&h, 0, sizeof h);
    if (!t || build(m, Tr, Tj, t, &h)) {
        hbuild_free(&h);
        free(t);
        snprintf(msg, msglen, "%s: out of memory for the team tables", m->name);
        return CHEM_ENOMEM;
    }
    if ((long)t->npool + R > 65535) {
        snprintf(msg, msglen, "%s: %d gradient entries, team kinetics take up to 65535", m->name, t->npool + R);
        hbuild_free(&h);
        free(t);
        return CHEM_EDOMAIN;
    }
    t->ws_rhs = chem_team_ws_len(K, R, t->npool, Tr, 0);
    t->ws_rates = chem_team_ws_len(K, R, t->npool, Tr, 1);
    t->ws_jac = chem_team_ws_len(K, R, t->npool, Tj, 2);
    const size_t Rs = (size_t)(R ? R : 1), Ks = (size_t)K;
    for (int pass = 0; pass < 2; pass++) {
        place P = {pass ? t->base : NULL, 0};
        t->rxn = put(&P, h.rxn, Rs * sizeof(int));
        t->info = put(&P, h.info, Rs * sizeof(int));
        t->k = put(&P, h.k, 3 * Rs * sizeof(double));
        t->k0 = put(&P, h.k0, 3 * Rs * sizeof(double));
        t->troe = put(&P, h.troe, 4 * Rs * sizeof(double));
        t->dnu = put(&P, h.dnu, Rs * sizeof(double));
        t->eff_default = put(&P, h.effd, Rs * sizeof(double));
        t->eff = put(&P, h.eff, 2 * Rs * sizeof(int));
        t->plog = put(&P, h.plog, 2 * Rs * sizeof(int));
        t->f_sp = put(&P, h.f_sp, (size_t)t->nf * Rs * sizeof(int));
        t->rv_sp = put(&P, h.rv_sp, (size_t)t->nrv * Rs * sizeof(int));
        t->net_sp = put(&P, h.net_sp, (size_t)t->nnet * Rs * sizeof(int));
        t->f_ord = put(&P, h.f_ord, (size_t)t->nf * Rs * sizeof(double));
        t->rv_ord = put(&P, h.rv_ord, (size_t)t->nrv * Rs * sizeof(double));
        t->net_nu = put(&P, h.net_nu, (size_t)t->nnet * Rs * sizeof(double));
        t->src = put(&P, h.src, Rs * sizeof(int));
        t->W = put(&P, h.W, Ks * sizeof(double));
        t->tmid = put(&P, h.tmid, Ks * sizeof(double));
        t->nasa = put(&P, h.nasa, 14 * Ks * sizeof(double));
        put_gather(&P, &h.net_r, &t->net_r);
        put_gather(&P, &h.gross_r, &t->gross_r);
        put_gather(&P, &h.net_j, &t->net_j);
        put_gather(&P, &h.jc, &t->jc);
        if (!pass) {
            t->bytes = P.off;
            t->base = aligned_alloc(256, P.off ? P.off : 256);
            if (!t->base) {
                hbuild_free(&h);
                free(t);
                snprintf(msg, msglen, "%s: out of memory for the team tables", m->name);
                return CHEM_ENOMEM;
            }
        }
    }
    hbuild_free(&h);
    *out = t;
    return CHEM_OK;
}

void chem_team_free(chem_team *t)
{
    if (!t) return;
    free(t->base);
    free(t);
}

/* p moved from the tables' allocation to its copy at base */
static const void *moved(const chem_team *t, void *base, const void *p)
{
    return p ? (const char *)base + ((const char *)p - (const char *)t->base) : NULL;
}

static void move_gather(const chem_team *t, void *base, chem_gather *g)
{
    g->cnt = moved(t, base, g->cnt);
    g->ov = moved(t, base, g->ov);
    g->coef = moved(t, base, g->coef);
    g->fix = moved(t, base, g->fix);
    g->fix_at = moved(t, base, g->fix_at);
    g->fix_slot = moved(t, base, g->fix_slot);
}

#define MOVE(f) (d->f = moved(t, base, t->f))
void chem_team_rebase(const chem_team *t, void *base, chem_team *d)
{
    *d = *t;
    MOVE(rxn);
    MOVE(info);
    MOVE(k);
    MOVE(k0);
    MOVE(troe);
    MOVE(dnu);
    MOVE(eff_default);
    MOVE(eff);
    MOVE(plog);
    MOVE(f_sp);
    MOVE(rv_sp);
    MOVE(net_sp);
    MOVE(f_ord);
    MOVE(rv_ord);
    MOVE(net_nu);
    MOVE(src);
    MOVE(W);
    MOVE(tmid);
    MOVE(nasa);
    move_gather(t, base, &d->net_r);
    move_gather(t, base, &d->gross_r);
    move_gather(t, base, &d->net_j);
    move_gather(t, base, &d->jc);
    d->base = base;
}
#undef MOVE
