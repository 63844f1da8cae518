/*
 * batchsolve.h -- solve huge batches of small, independent linear systems.
 *
 * batchsolve factors and solves 10^3..10^8 independent dense systems of order
 * n = 1..128 in one call, on the CPU (SIMD across systems, OpenMP across
 * groups of systems) or on an NVIDIA GPU.  Every call reports, per system, in
 * an `info` array, whether that system was solved; a singular or non-finite
 * system never stops or corrupts the others.
 *
 * Conventions (as in LAPACK and GSL):
 *   - operation names follow LAPACK: gesv (factor and solve), getrf (factor),
 *     getrs (solve with a factorization); the precision is the letter after
 *     the prefix: s = float, d = double (c and z are reserved);
 *   - every function returns a bsolve_status; BSOLVE_SUCCESS is 0.  On any
 *     other status nothing was written, and bsolve_ctx_message() names the
 *     offending argument;
 *   - counts, strides and offsets are int64_t so that batches of 10^8
 *     systems of order 128 index correctly; arrays whose layout reaches
 *     beyond what int64_t can address are refused (see "Batch layouts");
 *   - the library never prints, aborts or exits, and has no global mutable
 *     state: contexts are independent.  A context must not be used by two
 *     threads at once; use one context per thread.
 *
 * A minimal call:
 *
 *     bsolve_ctx *ctx;
 *     bsolve_ctx_create(&ctx, BSOLVE_BACKEND_AUTO);
 *     int32_t *info = malloc(batch * sizeof *info);
 *     // A: batch column-major n x n matrices one after another; B: n x 1 each
 *     bsolve_status s = bsolve_dgesv(ctx, BSOLVE_PIVOT_PARTIAL, n, 1, batch,
 *                                    A, bsolve_layout_col_major(n, n * n),
 *                                    B, bsolve_layout_col_major(n, n),
 *                                    info);
 *     if (s != BSOLVE_SUCCESS) fprintf(stderr, "%s\n", bsolve_ctx_message(ctx));
 *     bsolve_ctx_destroy(ctx);
 */
#ifndef BATCHSOLVE_H
#define BATCHSOLVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && !defined(BSOLVE_STATIC_ONLY)
#define BSOLVE_API __attribute__((visibility("default")))
#else
#define BSOLVE_API
#endif

#define BSOLVE_VERSION_MAJOR 0
#define BSOLVE_VERSION_MINOR 1
#define BSOLVE_VERSION_PATCH 0

/* Largest system order the dense routines accept. */
#define BSOLVE_MAX_N 128

/* ------------------------------------------------------------------------
 * Status codes
 * ------------------------------------------------------------------------ */

typedef enum {
    BSOLVE_SUCCESS = 0,
    BSOLVE_EINVAL = 1,       /* an argument is out of range (message names it) */
    BSOLVE_ENULL = 2,        /* a required pointer is NULL */
    BSOLVE_ENOMEM = 3,       /* host or device memory could not be allocated */
    BSOLVE_ENODEVICE = 4,    /* the CUDA backend was asked for but no GPU is usable */
    BSOLVE_ENOTSUP = 5,      /* the operation exists but not on this backend/build */
    BSOLVE_EMISMATCH = 6,    /* an object was made by another context, precision or shape */
    BSOLVE_EDEVICE = 7       /* the GPU runtime reported an error (message has its text) */
} bsolve_status;

/* Static text for a status code; never NULL. */
BSOLVE_API const char *bsolve_strerror(bsolve_status status);

/* ------------------------------------------------------------------------
 * Per-system info values (the int32_t info[] arrays)
 *
 *   0                      the system was solved;
 *   j > 0                  the pivot of elimination step j (1-based) is
 *                          exactly zero: the matrix is singular (for
 *                          BSOLVE_PIVOT_NONE: it has a zero leading minor);
 *   BSOLVE_INFO_NONFINITE  the system's matrix or right-hand side holds a
 *                          NaN or an infinity; nothing was computed for it.
 *
 * Whenever info != 0, every entry of that system's solution is set to NaN,
 * so that a failed system cannot pass silently for a solved one.  Factors of
 * a system with info = j > 0 are still complete (LAPACK's convention: U(j,j)
 * is zero); factors of a non-finite system are unspecified.
 * ------------------------------------------------------------------------ */
#define BSOLVE_INFO_NONFINITE (-1)

/* ------------------------------------------------------------------------
 * Contexts
 * ------------------------------------------------------------------------ */

typedef enum {
    BSOLVE_BACKEND_AUTO = 0, /* the GPU if one is usable, the CPU otherwise */
    BSOLVE_BACKEND_CPU = 1,
    BSOLVE_BACKEND_CUDA = 2
} bsolve_backend;

/* A context owns the workspace of one backend and the last error message.
 * Repeated calls of the same shape on one context allocate nothing.  The
 * memory a call uses besides its arguments grows with its systems, not with
 * nrhs: many right-hand sides are solved a block of columns at a time, with
 * the results of a single pass, bit for bit. */
typedef struct bsolve_ctx bsolve_ctx;

/* Creates a context on `backend`.  BSOLVE_BACKEND_CUDA on a machine (or a
 * build) without a usable GPU returns BSOLVE_ENODEVICE and sets *ctx to
 * NULL (bsolve_backend_probe says why); BSOLVE_BACKEND_AUTO never fails
 * for that reason: it takes the CPU, and bsolve_ctx_message(ctx) then says
 * why the GPU was not taken until the next call on the context.
 * A CUDA context runs on the device that is current (cudaSetDevice) when
 * it is created, whatever device is current at later calls; each call
 * leaves the caller's current device as it found it.  For several GPUs,
 * create one context per device. */
BSOLVE_API bsolve_status bsolve_ctx_create(bsolve_ctx **ctx, bsolve_backend backend);

/* Tells, without keeping anything, whether `backend` is usable here.
 *   backend  AUTO, CPU or CUDA;
 *   why      receives a NUL-terminated reason, truncated to why_len bytes:
 *            why CUDA is unusable, or why AUTO would run on the CPU; "" when
 *            there is nothing to say.  May be NULL (or why_len 0).
 * Returns what bsolve_ctx_create(&ctx, backend) would return: BSOLVE_SUCCESS
 * (always for CPU and AUTO), BSOLVE_ENODEVICE for CUDA without a usable
 * GPU, BSOLVE_EINVAL for a value that is not a bsolve_backend, or
 * BSOLVE_ENOMEM.  It creates and frees a context (on CUDA: streams and
 * events on the current device), so it costs what that costs. */
BSOLVE_API bsolve_status bsolve_backend_probe(bsolve_backend backend, char *why, size_t why_len);

/* Frees the context and its workspace; NULL is accepted. */
BSOLVE_API void bsolve_ctx_destroy(bsolve_ctx *ctx);

/* The backend the context actually runs on (never AUTO). */
BSOLVE_API bsolve_backend bsolve_ctx_backend(const bsolve_ctx *ctx);

/* Sets the number of CPU threads (OpenMP) the CPU backend uses; 0 means the
 * OpenMP default.  The CUDA backend ignores it. */
BSOLVE_API bsolve_status bsolve_ctx_set_threads(bsolve_ctx *ctx, int nthreads);

/* The message describing the last failed call on this context (e.g.
 * "bsolve_dgesv: n = -3 must be >= 1"), or "" after a successful call;
 * after bsolve_ctx_create(AUTO) fell back to the CPU, the reason why. */
BSOLVE_API const char *bsolve_ctx_message(const bsolve_ctx *ctx);

/* Name of a backend ("auto", "cpu", "cuda"). */
BSOLVE_API const char *bsolve_backend_name(bsolve_backend backend);

/* ------------------------------------------------------------------------
 * Batch layouts
 *
 * A batch is `batch` matrices of r x c entries (A: n x n; B: n x nrhs).
 * A layout says where entry (i, j) of matrix k lives, 0-based:
 *
 *   BSOLVE_COL_MAJOR     X[k*stride + i + j*ld]     ld >= r, stride >= ld*c
 *   BSOLVE_ROW_MAJOR     X[k*stride + i*ld + j]     ld >= c, stride >= ld*r
 *   BSOLVE_INTERLEAVED   X[(i + j*r)*ld + k]        ld >= batch (stride unused)
 *
 * COL_MAJOR is LAPACK's and Fortran's layout, ROW_MAJOR C's.  INTERLEAVED
 * (structure of arrays) stores entry (i, j) of all systems contiguously; it
 * is the layout in which the CPU and GPU kernels run at full speed, and
 * the one to choose when you build the matrices yourself.  Matrices laid out
 * with a stride may overlap only if they are read-only.
 *
 * Size limit: for batch > 0, the byte offset one past the batch's last entry
 * ((batch-1)*stride + the last column's or row's end; for INTERLEAVED
 * ld*r*c), times the element size, must fit in int64_t.  Larger values
 * (e.g. ld = 2^62) are refused with BSOLVE_EINVAL, the message naming the
 * array and its ld or stride; nothing is read or written.
 * ------------------------------------------------------------------------ */

typedef enum {
    BSOLVE_COL_MAJOR = 0,
    BSOLVE_ROW_MAJOR = 1,
    BSOLVE_INTERLEAVED = 2
} bsolve_layout_kind;

typedef struct {
    bsolve_layout_kind kind;
    int64_t ld;     /* leading dimension, as above */
    int64_t stride; /* distance between consecutive matrices (not INTERLEAVED) */
} bsolve_layout;

/* Convenience constructors (C99 compound literals would do as well). */
static inline bsolve_layout bsolve_layout_col_major(int64_t ld, int64_t stride)
{
    bsolve_layout l = {BSOLVE_COL_MAJOR, ld, stride};
    return l;
}
static inline bsolve_layout bsolve_layout_row_major(int64_t ld, int64_t stride)
{
    bsolve_layout l = {BSOLVE_ROW_MAJOR, ld, stride};
    return l;
}
static inline bsolve_layout bsolve_layout_interleaved(int64_t ld)
{
    bsolve_layout l = {BSOLVE_INTERLEAVED, ld, 0};
    return l;
}

/* Copies a batch of r x c matrices (r, c >= 1; batch >= 0) from layout
 * `lsrc` to layout `ldst` (any pair of layouts; src and dst must not
 * overlap).  On the CUDA backend both arrays may be host or device memory. */
BSOLVE_API bsolve_status bsolve_dconvert(bsolve_ctx *ctx, int64_t r, int64_t c, int64_t batch,
                                         const double *src, bsolve_layout lsrc,
                                         double *dst, bsolve_layout ldst);
BSOLVE_API bsolve_status bsolve_sconvert(bsolve_ctx *ctx, int64_t r, int64_t c, int64_t batch,
                                         const float *src, bsolve_layout lsrc,
                                         float *dst, bsolve_layout ldst);

/* ------------------------------------------------------------------------
 * Dense LU: gesv, getrf, getrs
 * ------------------------------------------------------------------------ */

typedef enum {
    BSOLVE_PIVOT_NONE = 0,    /* A = L U; only for matrices known to need no
                                 pivoting (diagonally dominant, SPD) */
    BSOLVE_PIVOT_PARTIAL = 1, /* P A = L U, row interchanges, as LAPACK dgetrf */
    BSOLVE_PIVOT_FULL = 2     /* P A Q = L U, row and column interchanges, as
                                 LAPACK dgetc2: the most stable, twice the
                                 comparisons of partial pivoting */
} bsolve_pivot;

typedef enum {
    BSOLVE_PREC_S = 0, /* float */
    BSOLVE_PREC_D = 1  /* double */
} bsolve_precision;

/* Solves A_k X_k = B_k for every system k, overwriting B with X.
 *   n      order of the systems, 1..BSOLVE_MAX_N;
 *   nrhs   right-hand sides per system, 1..INT32_MAX;
 *   batch  number of systems, >= 0;
 *   A, la  the matrices and their layout; A is only read;
 *   B, lb  the n x nrhs right-hand sides, overwritten with the solutions;
 *   info   batch entries, one per system (see "Per-system info values").
 * On the CUDA backend A, B and info may be host or device memory (all three
 * the same kind).  Device-memory calls are asynchronous on the context's
 * stream (bsolve_ctx_synchronize waits); host-memory calls return when done. */
BSOLVE_API bsolve_status bsolve_dgesv(bsolve_ctx *ctx, bsolve_pivot pivot, int64_t n,
                                      int64_t nrhs, int64_t batch,
                                      const double *A, bsolve_layout la,
                                      double *B, bsolve_layout lb, int32_t *info);
BSOLVE_API bsolve_status bsolve_sgesv(bsolve_ctx *ctx, bsolve_pivot pivot, int64_t n,
                                      int64_t nrhs, int64_t batch,
                                      const float *A, bsolve_layout la,
                                      float *B, bsolve_layout lb, int32_t *info);

/* A batch of LU factorizations, kept in the backend's own layout (on the
 * GPU for the CUDA backend) so that getrs reads it at full speed. */
typedef struct bsolve_lu bsolve_lu;

/* Allocates a factorization object for `batch` systems of order n in the
 * given precision and pivoting mode.  Factor into it with ?getrf (or
 * ?getrf_masked, some systems at a time) as often as needed: it is reused,
 * nothing is allocated again.  It starts with no system factored (on the
 * CUDA backend written on the context's stream, which the call waits for).
 * A batch whose factors would need more than INT64_MAX bytes is
 * BSOLVE_EINVAL; one that does not fit in memory, BSOLVE_ENOMEM. */
BSOLVE_API bsolve_status bsolve_lu_create(bsolve_ctx *ctx, bsolve_precision prec,
                                          bsolve_pivot pivot, int64_t n, int64_t batch,
                                          bsolve_lu **lu);

/* Frees a factorization object; NULL is accepted. */
BSOLVE_API void bsolve_lu_destroy(bsolve_lu *lu);

/* Factors the batch A (layout la; only read) into lu, whose precision must
 * match the routine's letter.  info as for gesv (NONFINITE when A holds a
 * NaN or an infinity). */
BSOLVE_API bsolve_status bsolve_dgetrf(bsolve_ctx *ctx, const double *A, bsolve_layout la,
                                       bsolve_lu *lu, int32_t *info);
BSOLVE_API bsolve_status bsolve_sgetrf(bsolve_ctx *ctx, const float *A, bsolve_layout la,
                                       bsolve_lu *lu, int32_t *info);

/* Solves with a factorization made by ?getrf: B (n x nrhs per system,
 * 1 <= nrhs <= INT32_MAX, layout lb) is overwritten with X.  info (may be NULL) receives, per system, the
 * factorization's info, or BSOLVE_INFO_NONFINITE where that system's B holds
 * a NaN or an infinity; the solution of every system with info != 0 is NaN. */
BSOLVE_API bsolve_status bsolve_dgetrs(bsolve_ctx *ctx, const bsolve_lu *lu, int64_t nrhs,
                                       double *B, bsolve_layout lb, int32_t *info);
BSOLVE_API bsolve_status bsolve_sgetrs(bsolve_ctx *ctx, const bsolve_lu *lu, int64_t nrhs,
                                       float *B, bsolve_layout lb, int32_t *info);

/* ?getrf and ?getrs on the systems a mask flags, for callers whose systems
 * change a few at a time: an implicit integrator refactors only the cells
 * whose iteration matrix was renewed and solves only the cells still
 * iterating.  The other arguments are ?getrf's and ?getrs's.
 *   mask   lu's batch entries, one per system: nonzero = factor (solve) this
 *          system, 0 = leave it.  The same memory kind as the other arrays:
 *          with device arrays on the CUDA backend, device memory, and the
 *          call stays asynchronous (the flagged systems are listed on the
 *          device, no count comes back to the host).
 * A flagged system is factored (solved) exactly as ?getrf (?getrs) does it,
 * bit for bit, its factors in its own place in lu.  A system with mask 0
 * keeps its factors and factorization info in lu, and its B and info are
 * left untouched: its entries of A, B and info are neither read nor written
 * (with host memory on the CUDA backend, whole chunks of A, B and info are
 * staged through the device: those systems' entries are read, and B and
 * info written back unchanged).  A system that no call has factored yet has
 * no factors: ?getrs and ?getrs_masked report BSOLVE_INFO_NONFINITE for it
 * and a NaN solution.  Cost: about that of the calls on the flagged systems
 * alone, plus a pass over the mask (on the CPU backend a solve takes the
 * factors in tiles of 2..16 systems, so that it costs what solving every
 * tile holding a flagged system costs).  On the CUDA backend a masked
 * getrf of an interleaved A with n > 32 copies the flagged systems into a
 * compact device workspace and factors them there: with device arrays the
 * context's (at most 512 MiB, kept for later calls; BSOLVE_ENOMEM when it
 * cannot be allocated). */
BSOLVE_API bsolve_status bsolve_dgetrf_masked(bsolve_ctx *ctx, const double *A, bsolve_layout la, bsolve_lu *lu,
                                              const uint8_t *mask, int32_t *info);
BSOLVE_API bsolve_status bsolve_sgetrf_masked(bsolve_ctx *ctx, const float *A, bsolve_layout la, bsolve_lu *lu,
                                              const uint8_t *mask, int32_t *info);
BSOLVE_API bsolve_status bsolve_dgetrs_masked(bsolve_ctx *ctx, const bsolve_lu *lu, int64_t nrhs, double *B,
                                              bsolve_layout lb, const uint8_t *mask, int32_t *info);
BSOLVE_API bsolve_status bsolve_sgetrs_masked(bsolve_ctx *ctx, const bsolve_lu *lu, int64_t nrhs, float *B,
                                              bsolve_layout lb, const uint8_t *mask, int32_t *info);

/* Exports the factors in LAPACK form: LU (n x n per system, layout l, of the
 * factorization's precision: float * for s, double * for d) receives L below
 * the diagonal (unit diagonal not stored) and U on and above it; ipiv
 * (batch*n entries, system k at ipiv[k*n]) the 1-based row interchanges as
 * dgetrf/dgetc2 give them (row i was swapped with row ipiv[i]); jpiv, the
 * column interchanges of full pivoting as dgetc2 gives them (for other
 * modes it is filled with 1..n).  Any of LU, ipiv, jpiv may be NULL to skip
 * it.  Host memory on every backend.  P A Q = L U. */
BSOLVE_API bsolve_status bsolve_lu_export(bsolve_ctx *ctx, const bsolve_lu *lu, void *LU,
                                          bsolve_layout l, int32_t *ipiv, int32_t *jpiv);

/* The shape of a factorization object. */
BSOLVE_API int64_t bsolve_lu_n(const bsolve_lu *lu);
BSOLVE_API int64_t bsolve_lu_batch(const bsolve_lu *lu);
BSOLVE_API bsolve_pivot bsolve_lu_pivot(const bsolve_lu *lu);
BSOLVE_API bsolve_precision bsolve_lu_precision(const bsolve_lu *lu);

/* ------------------------------------------------------------------------
 * GPU streams (CUDA backend; BSOLVE_ENOTSUP on the CPU backend)
 * ------------------------------------------------------------------------ */

/* Makes calls on device memory run asynchronously on `stream` (a
 * cudaStream_t of the context's device; NULL selects the legacy default
 * stream). */
BSOLVE_API bsolve_status bsolve_ctx_set_stream(bsolve_ctx *ctx, void *stream);

/* Waits until every call issued on the context has finished; returns
 * BSOLVE_EDEVICE if one of them failed.  A no-op on the CPU backend. */
BSOLVE_API bsolve_status bsolve_ctx_synchronize(bsolve_ctx *ctx);

/* ------------------------------------------------------------------------
 * Tridiagonal systems: gtsv (factor and solve), gttrf / gttrs
 *
 * System k is  dl[i] x[i-1] + d[i] x[i] + du[i] x[i+1] = b[i],  i = 0..m-1,
 * with the three diagonals stored as vectors of length m each, as cuSPARSE
 * does: dl[0] and du[m-1] are never read (they may hold anything).
 *
 * A vector layout says where entry i of column j of system k's vector lives
 * (j = 0 for the diagonals; j < nrhs for right-hand sides):
 *
 *   BSOLVE_TCONTIGUOUS   X[k*stride + i + j*ld]   ld >= m, stride >= ld*columns
 *   BSOLVE_TINTERLEAVED  X[(i + j*m)*ld + k]      ld >= batch (stride unused)
 *
 * CONTIGUOUS is the usual "one grid line after another" layout (set
 * ld = m for the diagonals); INTERLEAVED stores equation i of every system
 * contiguously and is the layout in which both backends run fastest.  The
 * diagonals of one call share one layout (each has its own pointer).
 *
 * Methods (bsolve_gtsv_method):
 *   THOMAS   Gaussian elimination without pivoting (the Thomas algorithm):
 *            the fastest; only for matrices that need no pivoting (e.g.
 *            diagonally dominant).  info = j > 0: U(j,j) is exactly zero.
 *   PARTIAL  Gaussian elimination with partial (row) pivoting, exactly as
 *            LAPACK's dgtsv/dgttrf choose pivots (no interchange when
 *            |d| >= |dl|).  info = j > 0: U(j,j) is exactly zero.
 *   GIVENS   QR factorization by Givens rotations, computed without overflow
 *            or harmful underflow (scaled as LAPACK's dlartg); the most
 *            robust.  info = j > 0: R(j,j) is exactly zero.
 * info is per system as for the dense routines (0, j > 0, or
 * BSOLVE_INFO_NONFINITE when an entry that is read, diagonals or
 * right-hand side, is NaN or infinite); the solution of a system with
 * info != 0 is NaN-filled.
 *
 * CUDA backend: many systems of m <= 4096 are staged whole in shared memory
 * (each array read once, x written once) and solved there, one thread per
 * system for m <= 16, several threads per system for longer m (partitions
 * of 8 or 16 rows eliminated with the requested method, then the reduced
 * system of one unknown per partition by cyclic reduction); longer systems
 * are solved one thread per system from global memory.  When there are
 * fewer systems than multiprocessors and m >= 2048, each system is split
 * into partitions of 8 rows (16 for the longest systems) solved in parallel across the GPU (partition
 * method in two passes over chunks staged in shared memory: each partition
 * is eliminated with the requested method and yields one row of a reduced
 * tridiagonal system, solved the same way until it fits one block; a
 * second pass re-reads the chunks and writes x).
 * Partitions are pivoted locally; a system in which that meets a small
 * pivot (below 1/64 of the largest entry, zero included), growth beyond 64x
 * in the reduction, or a non-finite entry is re-solved sequentially, so
 * that results and info keep the meaning above (such systems, e.g. with
 * zero diagonals, then run at sequential speed).
 * ------------------------------------------------------------------------ */

typedef enum {
    BSOLVE_GTSV_THOMAS = 0,  /* no pivoting */
    BSOLVE_GTSV_PARTIAL = 1, /* partial pivoting, as LAPACK dgtsv */
    BSOLVE_GTSV_GIVENS = 2   /* QR by Givens rotations */
} bsolve_gtsv_method;

typedef enum {
    BSOLVE_TCONTIGUOUS = 0,
    BSOLVE_TINTERLEAVED = 1
} bsolve_tlayout_kind;

typedef struct {
    bsolve_tlayout_kind kind;
    int64_t ld;     /* CONTIGUOUS: distance between columns; INTERLEAVED: >= batch */
    int64_t stride; /* CONTIGUOUS: distance between systems (unused if INTERLEAVED) */
} bsolve_tlayout;

static inline bsolve_tlayout bsolve_tlayout_contiguous(int64_t ld, int64_t stride)
{
    bsolve_tlayout l = {BSOLVE_TCONTIGUOUS, ld, stride};
    return l;
}
static inline bsolve_tlayout bsolve_tlayout_interleaved(int64_t ld)
{
    bsolve_tlayout l = {BSOLVE_TINTERLEAVED, ld, 0};
    return l;
}

/* Solves T_k X_k = B_k for every system k, overwriting B with X.
 *   method      THOMAS, PARTIAL or GIVENS (above);
 *   m           equations per system, 1..INT32_MAX;
 *   nrhs        right-hand sides per system, 1..INT32_MAX;
 *   batch       number of systems, >= 0;
 *   dl, d, du   sub-, main and super-diagonals (m entries each per system,
 *               layout lt); only read;
 *   B, lb       the m x nrhs right-hand sides, overwritten with X;
 *   info        batch entries (see above).
 * On the CUDA backend every array may be host or device memory; device
 * memory calls are asynchronous on the context's stream. */
BSOLVE_API bsolve_status bsolve_dgtsv(bsolve_ctx *ctx, bsolve_gtsv_method method, int64_t m, int64_t nrhs,
                                      int64_t batch, const double *dl, const double *d, const double *du,
                                      bsolve_tlayout lt, double *B, bsolve_tlayout lb, int32_t *info);
BSOLVE_API bsolve_status bsolve_sgtsv(bsolve_ctx *ctx, bsolve_gtsv_method method, int64_t m, int64_t nrhs,
                                      int64_t batch, const float *dl, const float *d, const float *du,
                                      bsolve_tlayout lt, float *B, bsolve_tlayout lb, int32_t *info);

/* A batch of tridiagonal factorizations (opaque, in the backend's layout:
 * on the GPU for the CUDA backend), for matrices reused with new
 * right-hand sides.  It holds about 5 reals per equation. */
typedef struct bsolve_gt bsolve_gt;

/* Allocates a factorization object for `batch` systems of m equations
 * (1..INT32_MAX).  A batch whose factors would need more than INT64_MAX
 * bytes is BSOLVE_EINVAL; one that does not fit in memory, BSOLVE_ENOMEM. */
BSOLVE_API bsolve_status bsolve_gt_create(bsolve_ctx *ctx, bsolve_precision prec, bsolve_gtsv_method method,
                                          int64_t m, int64_t batch, bsolve_gt **gt);

/* Frees a factorization object; NULL is accepted. */
BSOLVE_API void bsolve_gt_destroy(bsolve_gt *gt);

/* Factors the batch (dl, d, du in layout lt; only read) into gt.  info as
 * for gtsv (NONFINITE when a diagonal entry that is read is NaN or Inf). */
BSOLVE_API bsolve_status bsolve_dgttrf(bsolve_ctx *ctx, const double *dl, const double *d, const double *du,
                                       bsolve_tlayout lt, bsolve_gt *gt, int32_t *info);
BSOLVE_API bsolve_status bsolve_sgttrf(bsolve_ctx *ctx, const float *dl, const float *d, const float *du,
                                       bsolve_tlayout lt, bsolve_gt *gt, int32_t *info);

/* Solves with a factorization made by ?gttrf: B (m x nrhs per system,
 * 1 <= nrhs <= INT32_MAX, layout lb) is overwritten with X.  info (may be NULL) receives, per system, the
 * factorization's info, or BSOLVE_INFO_NONFINITE where that system's B
 * holds a NaN or an infinity; solutions of systems with info != 0 are NaN.
 * gttrf followed by gttrs gives gtsv's X and info bit for bit, on each
 * backend (on the CUDA backend for B laid out like the diagonals: gttrf
 * keeps what gtsv's kernel for that shape needs, and gttrs runs it). */
BSOLVE_API bsolve_status bsolve_dgttrs(bsolve_ctx *ctx, const bsolve_gt *gt, int64_t nrhs, double *B,
                                       bsolve_tlayout lb, int32_t *info);
BSOLVE_API bsolve_status bsolve_sgttrs(bsolve_ctx *ctx, const bsolve_gt *gt, int64_t nrhs, float *B,
                                       bsolve_tlayout lb, int32_t *info);

/* The shape of a tridiagonal factorization object. */
BSOLVE_API int64_t bsolve_gt_m(const bsolve_gt *gt);
BSOLVE_API int64_t bsolve_gt_batch(const bsolve_gt *gt);
BSOLVE_API bsolve_gtsv_method bsolve_gt_method(const bsolve_gt *gt);
BSOLVE_API bsolve_precision bsolve_gt_precision(const bsolve_gt *gt);

/* ------------------------------------------------------------------------
 * Dense QR by Givens rotations and least squares: gels, geqrf, geqrs
 *
 * System k is an m x n matrix A_k with m >= n (1 <= n <= BSOLVE_QR_MAX_N,
 * n <= m <= BSOLVE_QR_MAX_M), factored as A_k = Q_k R_k with Q_k m x m
 * orthogonal and R_k upper triangular (n x n above m - n zero rows).  Q_k is
 * never formed: it is kept as the rotations that made R_k, one per entry
 * below the diagonal, in column order (column j = 0..n-1, then row i = m-1
 * down to j+1: the rotation of rows i-1 and i that zeroes A(i,j)), each a
 * (c, s) pair computed as LAPACK's dlartg does: without overflow or harmful
 * underflow whatever the scale of the entries (1e-300 or 1e300 matrices are
 * factored as accurately as unit ones), R(j,j) of the sign of the entry it
 * replaces.  The layouts are those of the LU routines (A: m x n; B: m x nrhs).
 * m == n is allowed: QR is then a solver for square systems beside LU,
 * slower but needing no pivoting.
 * The CUDA backend stores the rotations in the same column order but
 * applies them in the Sameh-Kuck wavefront order (rotation (i, j) at step
 * m-1-i+2j; the rotations of one step act on disjoint row pairs): every
 * rotation meets the same operands as in column order, so R, Q, x and the
 * residual part are those of column order (to rounding, e.g. FMA
 * contraction), the same as the CPU backend's.  One exception, where
 * nothing is kept: dgels with nrhs = 1 on the CUDA backend factors most
 * shapes (all but the smallest, see cuda/qr_dispatch.cuh) by Householder
 * reflections (LAPACK dgeqrf's, from power-of-two scaled columns), which
 * are faster there; its x agrees to
 * rounding, and its residual part is returned in the same form (below).
 *
 * Least squares: x_k minimizes ||A_k x - b_k||_2 for each right-hand side b_k
 * (a column of B_k).  On return rows 0..n-1 of B_k hold x_k, and rows n..m-1
 * the residual part in one canonical form, the same on both backends, for
 * every kernel and nrhs, and for gels and geqrs alike: row n holds
 * ||A_k x_k - b_k||_2 >= 0, the residual norm, and rows n+1..m-1 hold 0.
 * This is LAPACK dgels's residual part, the last m - n entries of Q_k^T b_k
 * (whose 2-norm is the residual norm), rotated onto its first coordinate:
 * still Q'^T b_k for an orthogonal Q', so code that takes the 2-norm of rows
 * n..m-1 gets the residual norm as with LAPACK, and each entry means the same
 * whichever factorization made it.  The norm is computed without overflow or
 * harmful underflow.  ?geqrf followed by ?geqrs gives gels' answer: bitwise
 * on the CPU backend; on the CUDA backend to rounding (x agrees to rounding,
 * as FP64 gels with one right-hand side may factor by reflections, and so
 * does the residual norm in row n).
 *
 * Per-system info (the LU section's "Per-system info values" apply):
 *   0                      full column rank: solved;
 *   j > 0                  R(j,j) (1-based) is negligible: |R(j,j)| <=
 *                          m * eps * ||A(:,j)||_2 (eps = DBL_EPSILON or
 *                          FLT_EPSILON; the norm of column j of A, computed
 *                          as that of column j of R, which Q preserves):
 *                          column j is, to working precision, a combination
 *                          of columns 1..j-1 (a zero column, two equal
 *                          columns).  The test is relative to each column,
 *                          so that scaling the columns (the unknowns) of a
 *                          full-rank problem never makes it rank deficient;
 *                          j is the first such column.  The least-squares
 *                          solution is then not unique: B_k is NaN-filled,
 *                          the factors are complete;
 *   BSOLVE_INFO_NONFINITE  A_k (or B_k) holds a NaN or an infinity.
 * Whenever info != 0 all m x nrhs entries of that system's B are NaN.
 * ------------------------------------------------------------------------ */

/* Largest n and m the QR routines accept. */
#define BSOLVE_QR_MAX_N 64
#define BSOLVE_QR_MAX_M 128

/* Solves min ||A_k X_k - B_k|| for every system k (QR factorization and
 * solve fused; nothing is kept).
 *   m, n   rows and columns of each A_k: 1 <= n <= 64, n <= m <= 128;
 *   nrhs   right-hand sides per system, 1..INT32_MAX;
 *   batch  number of systems, >= 0;
 *   A, la  the m x n matrices and their layout; A is only read;
 *   B, lb  the m x nrhs right-hand sides; overwritten: rows 0..n-1 with X_k,
 *          rows n..m-1 with the residual part of Q_k^T B_k (see above);
 *   info   batch entries (see above).
 * CUDA backend: A, B and info all device (or managed) memory, or all host
 * memory (staged through pinned memory); mixed kinds give BSOLVE_EINVAL. */
BSOLVE_API bsolve_status bsolve_dgels(bsolve_ctx *ctx, int64_t m, int64_t n, int64_t nrhs, int64_t batch,
                                      const double *A, bsolve_layout la, double *B, bsolve_layout lb,
                                      int32_t *info);
BSOLVE_API bsolve_status bsolve_sgels(bsolve_ctx *ctx, int64_t m, int64_t n, int64_t nrhs, int64_t batch,
                                      const float *A, bsolve_layout la, float *B, bsolve_layout lb,
                                      int32_t *info);

/* A batch of QR factorizations (opaque, in the backend's interleaved tile
 * layout): R, 1/R(j,j), and the (c, s) pair of every rotation in the order
 * they were applied, about m*n + 2*(m*n - n(n+1)/2) reals per system. */
typedef struct bsolve_qr bsolve_qr;

/* Allocates a factorization object for `batch` systems of m x n matrices
 * (limits as for gels; a batch whose factors would need more than INT64_MAX
 * bytes is BSOLVE_EINVAL).  Factor into it with ?geqrf as often as needed.
 * CUDA backend: the factors live in device memory (interleaved); ?geqrf and
 * ?geqrs take device or host arrays as gels does. */
BSOLVE_API bsolve_status bsolve_qr_create(bsolve_ctx *ctx, bsolve_precision prec, int64_t m, int64_t n,
                                          int64_t batch, bsolve_qr **qr);

/* Frees a factorization object; NULL is accepted. */
BSOLVE_API void bsolve_qr_destroy(bsolve_qr *qr);

/* Factors the batch A (m x n per system, layout la; only read) into qr,
 * whose precision must match the routine's letter.  info as for gels
 * (NONFINITE when A holds a NaN or an infinity). */
BSOLVE_API bsolve_status bsolve_dgeqrf(bsolve_ctx *ctx, const double *A, bsolve_layout la, bsolve_qr *qr,
                                       int32_t *info);
BSOLVE_API bsolve_status bsolve_sgeqrf(bsolve_ctx *ctx, const float *A, bsolve_layout la, bsolve_qr *qr,
                                       int32_t *info);

/* Least squares with a factorization made by ?geqrf: the rotations are
 * applied to B (m x nrhs per system, 1 <= nrhs <= INT32_MAX, layout lb), then R x = (Q^T b)(0:n-1) is
 * solved; B is overwritten as by gels.  info (may be NULL) receives, per
 * system, the factorization's info, or BSOLVE_INFO_NONFINITE where that
 * system's B holds a NaN or an infinity; B of every system with info != 0
 * is NaN-filled. */
BSOLVE_API bsolve_status bsolve_dgeqrs(bsolve_ctx *ctx, const bsolve_qr *qr, int64_t nrhs, double *B,
                                       bsolve_layout lb, int32_t *info);
BSOLVE_API bsolve_status bsolve_sgeqrs(bsolve_ctx *ctx, const bsolve_qr *qr, int64_t nrhs, float *B,
                                       bsolve_layout lb, int32_t *info);

/* Exports the factors for checking or reuse elsewhere: Q (m x m per system,
 * the full orthogonal factor, formed from the rotations; layout lq) and R
 * (n x n per system, upper triangular, zeros written below the diagonal;
 * layout lr), of the factorization's precision (float * for s, double * for
 * d), so that A = Q(:, 0:n-1) R.  Either may be NULL to skip it.  Host
 * memory.  Not meaningful for systems whose info was NONFINITE. */
BSOLVE_API bsolve_status bsolve_qr_export(bsolve_ctx *ctx, const bsolve_qr *qr, void *Q, bsolve_layout lq,
                                          void *R, bsolve_layout lr);

/* The shape of a QR factorization object. */
BSOLVE_API int64_t bsolve_qr_m(const bsolve_qr *qr);
BSOLVE_API int64_t bsolve_qr_n(const bsolve_qr *qr);
BSOLVE_API int64_t bsolve_qr_batch(const bsolve_qr *qr);
BSOLVE_API bsolve_precision bsolve_qr_precision(const bsolve_qr *qr);

#ifdef __cplusplus
}
#endif

#endif /* BATCHSOLVE_H */
