/*
 * ignition.c -- ignition delay by dense output (ignition.h).
 */
#include "ignition.h"

#include <math.h>
#include <string.h>

/* dT/dt of a step's polynomial at s in [-1, 0] */
static CHEM_HD double rate(const ign_poly *p, double s)
{
    double d = 0;
    for (int j = p->q; j >= 1; j--) d = d * s + j * p->z[j];
    return d / p->h;
}

CHEM_API void ign_start(ign_track *g, double T0, double dTdt0)
{
    memset(g, 0, sizeof *g);
    g->T0 = T0;
    g->peak = dTdt0;
    g->at_peak.t = 0;
    g->at_peak.h = 0; /* no polynomial: the initial state */
}

CHEM_API int ign_step(ign_track *g, double t, double h, int q, const double *z)
{
    ign_poly p = {t, h, q, {0}};
    for (int j = 0; j <= q && j <= IGN_QMAX; j++) p.z[j] = z[j];
    const double d = rate(&p, 0);
    if (d > g->peak) {
        g->peak = d;
        g->at_peak = p;
        g->have_next = 0;
    } else if (!g->have_next) {
        g->next = p;
        g->have_next = 1;
    }
    return g->have_next && z[0] > g->T0 + 400 && d < 0.01 * g->peak;
}

/* the maximum of dT/dt over one polynomial's step: samples, then golden
 * section around the best sample */
static CHEM_HD double max_on(const ign_poly *p, double *tbest)
{
    enum { NS = 16 };
    int best = 0;
    double vbest = -INFINITY;
    for (int i = 0; i <= NS; i++) {
        const double v = rate(p, -1.0 + (double)i / NS);
        if (v > vbest) vbest = v, best = i;
    }
    double a = fmax(-1.0, -1.0 + (double)(best - 1) / NS), b = fmin(0.0, -1.0 + (double)(best + 1) / NS);
    const double r = 0.5 * (sqrt(5.0) - 1);
    double x1 = b - r * (b - a), x2 = a + r * (b - a), f1 = rate(p, x1), f2 = rate(p, x2);
    for (int it = 0; it < 60 && b - a > 1e-13; it++) {
        if (f1 < f2) {
            a = x1, x1 = x2, f1 = f2;
            x2 = a + r * (b - a), f2 = rate(p, x2);
        } else {
            b = x2, x2 = x1, f2 = f1;
            x1 = b - r * (b - a), f1 = rate(p, x1);
        }
    }
    double s = 0.5 * (a + b), v = rate(p, s);
    if (vbest > v) s = -1.0 + (double)best / NS, v = vbest;
    *tbest = p->t + s * p->h;
    return v;
}

CHEM_API double ign_delay(const ign_track *g, double *peak)
{
    if (!g->have_next || g->at_peak.h == 0) return -1;
    double t1, t2;
    const double v1 = max_on(&g->at_peak, &t1), v2 = max_on(&g->next, &t2);
    if (peak) *peak = fmax(v1, v2);
    return v1 >= v2 ? t1 : t2;
}
