/*
 * cases.h -- the ignition cases of a mechanism's Cantera reference file
 * (<name>.ref, section "ignition": fuel, equivalence ratio, T0, P0 and
 * Cantera's ignition delay) and the fresh fuel/air mixture each starts from.
 */
#ifndef CHEM_CASES_H
#define CHEM_CASES_H

#include "mech.h"

typedef struct chem_case {
    char fuel[16];
    double phi, T0, P0;
    double tau;    /* Cantera's delay: the time of the maximum of dT/dt */
    double spread; /* |tau at rtol 1e-9 - tau| / tau: Cantera's own accuracy */
} chem_case;

/* Reads the ignition cases of the reference file `path` written for
 * mechanism m: CHEM_OK with *cases (free()) and *ncase, or an error status
 * with a message ("path:line: what") in msg. */
int chem_cases_load(const char *path, const chem_mech *m, chem_case **cases, int *ncase, char *msg, size_t msglen);

/* The mass fractions Y (K entries) of fuel and air (O2 + 3.76 N2 by moles)
 * at equivalence ratio phi, as Cantera's set_equivalence_ratio makes them.
 * Fuels: H2, CH4.  CHEM_OK, or CHEM_EFORMAT for an unknown fuel or a
 * mechanism without the species. */
int chem_fresh_mixture(const chem_mech *m, const char *fuel, double phi, double *Y);

/* Loads the mechanism <dir>/<name>.mech and the cases of <dir>/<name>.ref:
 * CHEM_OK with *m (chem_mech_free), *cases (free()) and *ncase, or an
 * error status with a message in msg and nothing kept. */
int chem_load_with_cases(const char *dir, const char *name, chem_mech **m, chem_case **cases, int *ncase, char *msg,
                         size_t msglen);

/* The initial states of an ensemble of ncell cells, cell c from case
 * c mod ncase: row c of x0 (K + 1 entries) the case's fresh mixture Y,
 * then T0; P[c] its P0.  CHEM_OK, or CHEM_EFORMAT with a message (a fuel
 * the mechanism lacks). */
int chem_cells_from_cases(const chem_mech *m, const chem_case *cases, int ncase, int ncell, double *x0, double *P,
                          char *msg, size_t msglen);

#endif
