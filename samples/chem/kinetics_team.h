/*
 * kinetics_team.h -- the kinetics of kinetics.h evaluated by a team of T
 * lanes per cell (on the GPU a warp or a thread block, the cell's data in
 * shared memory; on the CPU the lanes run one after the other, which the
 * tests use), from tables of the mechanism laid out for it (chem_team).
 *
 * One thread per cell keeps a cell's concentrations, rates and Jacobian in
 * arrays of its own, which a GPU holds in local memory (L1/L2), and a batch
 * of few cells (the Jacobians of a sweep) leaves most of the GPU idle.  A
 * team splits each stage of a cell over its lanes: species, reactions,
 * Jacobian entries; the lanes exchange data through the cell's workspace
 * between stages, with a barrier.  The tables are slot-major (entry i of
 * reaction position p at [i R + p]) so that lanes taking consecutive
 * reactions load consecutive addresses, and the sums over reactions (the
 * rates of each species, the Jacobian's entries) are fixed lists of terms
 * cut into equal pieces per lane (chem_gather), in a fixed order: a cell's
 * results do not depend on where it is in a batch.
 *
 * The formulas are rate_laws.h's, as kinetics.c's (rate laws, reverse
 * ratio, products, thermo); the results differ from kinetics.c's by the
 * order of summation of the rates and of the Jacobian's entries (d wdot / dC
 * = a sparse part plus the third bodies' default efficiency times a row
 * constant), i.e. by rounding.
 *
 * Workspace per cell: chem_team.ws_rhs doubles for the right-hand side
 * (and rates without gross), ws_rates for rates with gross (teams of
 * chem_team.Tr lanes), ws_jac for the Jacobian (chem_team.Tj lanes).
 * Vectors strided by inc as in kinetics.h's *_inc.
 */
#ifndef CHEM_KINETICS_TEAM_H
#define CHEM_KINETICS_TEAM_H

#include <stddef.h>

#include "hd.h"
#include "mech.h"

/* A fixed sum out[o] = sum over o's terms t of coef[t] val[v_t], for nv
 * value arrays at stride vs into nv output arrays at stride os: the terms
 * sorted by output, cut into T consecutive pieces (one per lane, at most
 * len terms), stored lane-interleaved (term i of lane l at [i T + l]).  A
 * lane sums its piece in order and writes each output that lies inside it;
 * the outputs its piece starts or ends with (which may continue in the
 * neighbouring lanes) go to partial slots (2l: the first, 2l + 1: the last)
 * that fix records add up in lane order; outputs without terms are fix
 * records of no slot (zero). */
typedef struct chem_gather {
    int T, len, nfix;
    const int *cnt;                 /* T: terms of each lane */
    const unsigned *ov;             /* T len: (o << 16) | v */
    const double *coef;             /* T len */
    const unsigned *fix;            /* nfix: (o << 16) | number of slots */
    const int *fix_at;              /* nfix: first in fix_slot */
    const unsigned short *fix_slot; /* slot indices, lane order */
} chem_gather;

/* Reaction kinds as chem_team.info packs them with the lists' lengths. */
#define CHEM_TEAM_KIND(x) ((x)&15)
#define CHEM_TEAM_REV(x) (((x) >> 4) & 1)
#define CHEM_TEAM_NF(x) (((x) >> 8) & 255)
#define CHEM_TEAM_NRV(x) (((x) >> 16) & 255)
#define CHEM_TEAM_NNET(x) (((x) >> 24) & 255)

typedef struct chem_team {
    int K, R;          /* species, reactions */
    int nf, nrv, nnet; /* slots of the species lists: the most of any reaction */
    int npool;         /* gradient entries of all reactions (Jacobian) */
    int Tr, Tj;        /* lanes of a rates/rhs team, of a Jacobian team */
    /* per position p = 0..R-1: the reactions sorted by kind (a warp's lanes
     * mostly take the same code path), each array slot-major [i R + p] */
    const int *rxn;     /* the reaction at p (index in chem_mech.rxn) */
    const int *info;    /* kind | reversible << 4 | nf << 8 | nrv << 16 | nnet << 24 */
    const double *k;    /* 3: A, b, EaR (the high-pressure limit of falloff) */
    const double *k0;   /* 3: falloff's low-pressure limit */
    const double *troe; /* 4 */
    const double *dnu, *eff_default;
    const int *eff;                        /* 2: first, count in chem_mech.eff_sp / eff_val */
    const int *plog;                       /* 2: first, count of its pressures */
    const int *f_sp, *rv_sp, *net_sp;      /* nf, nrv, nnet slots */
    const double *f_ord, *rv_ord, *net_nu; /* likewise */
    const int *src;                        /* the reaction's first gradient entry: nf forward, then nrv reverse */
    /* per species: W, tmid, NASA-7 coefficient-major nasa[(range 7 + i) K + k] */
    const double *W, *tmid, *nasa;
    chem_gather net_r;               /* Tr: sum nu q over the reactions of each species */
    chem_gather gross_r;             /* Tr: sum gross_nu (qf + qr) */
    chem_gather net_j;               /* Tj: sums of q, dq/dT, phi eff_default */
    chem_gather jc;                  /* Tj: d wdot_k / dC_j less the default third body (K x K) */
    size_t ws_rhs, ws_rates, ws_jac; /* workspace doubles of a cell: rhs, rates with gross, Jacobian */
    /* one allocation holds the arrays above */
    void *base;
    size_t bytes;
} chem_team;

#ifdef __cplusplus
extern "C" {
#endif

/* Tables of m for teams of Tr (rates, right-hand side) and Tj (Jacobian)
 * lanes, 1..1024: CHEM_OK and *out (free with chem_team_free), or
 * CHEM_ENOMEM, or CHEM_EDOMAIN (a mechanism beyond the tables' 16-bit
 * indices) with a message in msg. */
int chem_team_create(const chem_mech *m, int Tr, int Tj, chem_team **out, char *msg, size_t msglen);
void chem_team_free(chem_team *t);

/* d = t with every array pointer moved to the copy of t->base at `base`
 * (a device copy of the t->bytes bytes). */
void chem_team_rebase(const chem_team *t, void *base, chem_team *d);

#ifdef __cplusplus
}
#endif

/* Workspace doubles of a cell for a team of T lanes: what 0 right-hand
 * side (or rates without gross), 1 rates with gross, 2 Jacobian; npool:
 * chem_team.npool. */
CHEM_API size_t chem_team_ws_len(int K, int R, int npool, int T, int what);

/* The kinetics by a team: on the device, called by each of the team's
 * lanes (lane 0..T-1) with the cell's workspace `ws` in shared memory; on
 * the CPU (lane < 0), the lanes one after the other.  Status and outputs as
 * kinetics.h's *_inc functions. */
CHEM_API int chem_team_rates(const chem_mech *m, const chem_team *t, int lane, double T, double P, const double *Y,
                             double *wdot, double *gross, size_t inc, double *ws);
CHEM_API int chem_team_rhs(const chem_mech *m, const chem_team *t, int lane, double P, const double *x, double *f,
                           size_t inc, double *ws);
CHEM_API int chem_team_jacobian(const chem_mech *m, const chem_team *t, int lane, double P, const double *x, double *f,
                                double *J, size_t inc, double *ws);

#endif
