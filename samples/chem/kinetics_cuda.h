/*
 * kinetics_cuda.h -- the kinetics of kinetics.h on a CUDA device: the
 * mechanism copied once into device memory, with its team tables
 * (kinetics_team.h), and launchers of the rates, the reactor right-hand side
 * and its Jacobian for a batch of cells whose vectors are stored interleaved
 * by cell (entry i of cell c at [i ncell + c]; J's entry (i, j) at
 * [(i + j n) ncell + c]), as the batched linear algebra wants them.
 *
 * A cell is evaluated by a team: a warp for rates and right-hand side, a
 * block of CHEM_CUDA_TEAM_J threads for the Jacobian, the cell's data in
 * shared memory (kinetics_team.c).  A mechanism whose team workspace does
 * not fit a block's shared memory runs one thread per cell instead
 * (kinetics.c, its arrays in local memory).  Either way the formulas are
 * kinetics.c's (hd.h); the math library's rounding and the order of the
 * sums differ.
 *
 * Every array is device memory.  The launchers are asynchronous on `stream`
 * (a cudaStream_t; NULL: the legacy default stream) and return 0 or the
 * CUDA runtime's error code of the launch.  status[c] receives the cell's
 * CHEM_OK or CHEM_EDOMAIN (its outputs then unspecified).
 */
#ifndef CHEM_KINETICS_CUDA_H
#define CHEM_KINETICS_CUDA_H

#include "mech.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest species count a kernel handles: its workspace is a per-thread
 * array of that size (local memory, which the device interleaves by thread);
 * n = K + 1 <= 128, batchsolve's largest order. */
#define CHEM_CUDA_KMAX 127

/* Lanes of a team: rates and right-hand side, Jacobian. */
#define CHEM_CUDA_TEAM_R 32
#define CHEM_CUDA_TEAM_J 256

typedef struct chem_cuda_mech chem_cuda_mech;
typedef struct chem_team chem_team;

/* Copies m to the current device: CHEM_OK and *out, or CHEM_EDOMAIN (more
 * than CHEM_CUDA_KMAX species) / CHEM_ENOMEM / CHEM_EIO (a CUDA error) with
 * a message in msg and *out NULL. */
int chem_cuda_mech_create(const chem_mech *m, chem_cuda_mech **out, char *msg, size_t msglen);
void chem_cuda_mech_free(chem_cuda_mech *d);

/* The device copy, for kernels that call kinetics.c's functions themselves. */
const chem_mech *chem_cuda_mech_device(const chem_cuda_mech *d);

/* Its team tables (a host structure of device addresses, to pass to kernels
 * by value), or NULL where a team's workspace does not fit a block's shared
 * memory on this device. */
const chem_team *chem_cuda_mech_team(const chem_cuda_mech *d);

/* Tests: on 0 the launchers take one thread per cell, on 1 a team again
 * where there are team tables; returns whether they take teams now. */
int chem_cuda_mech_use_team(chem_cuda_mech *d, int on);

/* wdot (and gross unless NULL): K x ncell, of T, P (ncell each), Y (K x ncell). */
int chem_cuda_rates(const chem_cuda_mech *d, int ncell, const double *T, const double *P, const double *Y,
                    double *wdot, double *gross, int *status, void *stream);

/* f = dx/dt: n x ncell, of x (n x ncell) at P. */
int chem_cuda_rhs(const chem_cuda_mech *d, int ncell, const double *P, const double *x, double *f, int *status,
                  void *stream);

/* J (n^2 x ncell) and f unless NULL. */
int chem_cuda_jacobian(const chem_cuda_mech *d, int ncell, const double *P, const double *x, double *f, double *J,
                       int *status, void *stream);

#ifdef __cplusplus
}
#endif

#endif
