/*
 * mech.h -- an ideal-gas reaction mechanism as tools/chem_export.py writes it
 * (*.mech; the script's docstring gives the format): species with NASA-7
 * thermo, reactions with their rate laws.  Read-only after loading, so that
 * any number of threads may evaluate kinetics.h on one mechanism.
 *
 * Units: K, Pa, kg, kmol, m^3, s (Cantera's); activation energies as Ea/R.
 */
#ifndef CHEM_MECH_H
#define CHEM_MECH_H

#include <stddef.h>

#define CHEM_R 8314.46261815324 /* J/(kmol K): N_A k_B, Cantera's GasConstant */
#define CHEM_NAME_MAX 32        /* species name, terminating zero included */
#define CHEM_SIDE_MAX 8         /* species on one side of a reaction */

enum chem_status { CHEM_OK = 0, CHEM_EIO, CHEM_EFORMAT, CHEM_ENOMEM, CHEM_EDOMAIN };

enum chem_kind {
    CHEM_ARRHENIUS,  /* k(T) */
    CHEM_THREE_BODY, /* k(T) [M] */
    CHEM_LINDEMANN,  /* kinf Pr/(1 + Pr), Pr = k0 [M] / kinf */
    CHEM_TROE,       /* kinf Pr/(1 + Pr) F_Troe(T, Pr) */
    CHEM_PLOG        /* k(T, P) interpolated in ln P */
};

typedef struct chem_arrhenius {
    double A, b, EaR; /* k = A T^b exp(-EaR / T) */
} chem_arrhenius;

typedef struct chem_rxn {
    int kind;       /* enum chem_kind */
    int reversible; /* 0: no reverse rate */
    /* forward rate-law factors prod C^ord (reactants with their nu unless an
     * order says otherwise), reverse ones (products with their nu) */
    int nf, nrv;
    int f_sp[CHEM_SIDE_MAX], rv_sp[CHEM_SIDE_MAX];
    double f_ord[CHEM_SIDE_MAX], rv_ord[CHEM_SIDE_MAX];
    /* net stoichiometry nu_k = products - reactants (nonzero ones), the sum of
     * all of them, and the gross one (products + reactants) for creation and
     * destruction rates */
    int nnet, ngross;
    int net_sp[2 * CHEM_SIDE_MAX], gross_sp[2 * CHEM_SIDE_MAX];
    double net_nu[2 * CHEM_SIDE_MAX], gross_nu[2 * CHEM_SIDE_MAX];
    double dnu;
    chem_arrhenius k;  /* ARRHENIUS, THREE_BODY; the high-pressure limit of falloff */
    chem_arrhenius k0; /* falloff: the low-pressure limit */
    double troe[4];    /* a, T3, T1, T2 (T2 = 0: no T2 term) */
    /* third body: [M] = eff_default sum_k C_k + sum_e (eff_val[e] - eff_default) C_eff_sp[e] */
    double eff_default;
    int eff_first, neff;   /* in chem_mech.eff_sp / eff_val */
    int plog_first, nplog; /* pressures in chem_mech.plog_lnp, plog_term */
} chem_rxn;

typedef struct chem_mech {
    char name[64];
    int nsp, nrxn;
    double p_ref; /* Pa: standard-state pressure of the thermo */
    char (*sp_name)[CHEM_NAME_MAX];
    double *W;                 /* kg/kmol */
    double *tmin, *tmid, *tmax;
    double (*nasa)[2][7];      /* [k][0]: T <= tmid, [k][1]: T > tmid */
    chem_rxn *rxn;
    int *eff_sp;
    double *eff_val;
    /* PLOG pressure p of a reaction: ln P = plog_lnp[p], Arrhenius terms
     * plog_arr[plog_term[p] .. plog_term[p + 1] - 1] (summed) */
    double *plog_lnp;
    int *plog_term;
    chem_arrhenius *plog_arr;
} chem_mech;

/* Reads a *.mech file: CHEM_OK and *out (free with chem_mech_free), or an
 * error status with a message in msg ("path:line: what") and *out NULL. */
int chem_mech_load(const char *path, chem_mech **out, char *msg, size_t msglen);
void chem_mech_free(chem_mech *m);

/* The index of a species, or -1. */
int chem_species_index(const chem_mech *m, const char *name);

#endif
