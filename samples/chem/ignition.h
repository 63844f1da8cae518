/*
 * ignition.h -- one cell's ignition delay, the time of the maximum of
 * dT/dt (as the reference files define it), from the steps of an integrator
 * in Nordsieck form: after each accepted step the cell passes the step's
 * polynomial of T (t_n, h, q and the T components of zn[0..q]); the step of
 * the largest dT/dt and the one after it are kept, and the delay is the
 * maximum of the derivative of those two polynomials (dense output), which
 * cover [t_{i-1}, t_{i+1}] around the largest step value.
 *
 * The cell is done, as Cantera's reference run decides, once it has burnt
 * (T > T0 + 400 K) and dT/dt has fallen below 1% of its peak.
 */
#ifndef CHEM_IGNITION_H
#define CHEM_IGNITION_H

#include "hd.h"

#define IGN_QMAX 5

typedef struct ign_poly {
    double t, h;              /* T(t_n + s h) = sum_j z[j] s^j, s in [-1, 0] */
    int q;
    double z[IGN_QMAX + 1];
} ign_poly;

typedef struct ign_track {
    double T0;
    double peak;      /* largest dT/dt at a step so far */
    int have_next;    /* a step after the peak's has been seen */
    ign_poly at_peak, next;
} ign_track;

CHEM_API void ign_start(ign_track *g, double T0, double dTdt0);

/* An accepted step: its polynomial (z = the T components of zn[0..q]).
 * Returns 1 once the cell is done. */
CHEM_API int ign_step(ign_track *g, double t, double h, int q, const double *z);

/* The delay and the peak dT/dt; -1 if no step has passed the peak. */
CHEM_API double ign_delay(const ign_track *g, double *peak);

#endif
