/*
 * testlib.h -- helpers shared by every test program (test/test_*.c).
 *
 *   - environment: BSOLVE_TEST_BACKEND = cpu (default) | cuda | auto;
 *     BSOLVE_TEST_CPU_ISA = 1 | 2 | 3 runs the CPU backend's contexts from
 *     tl_ctx() on the base, AVX2 or AVX-512 kernels (src/cpu_isa.h; SKIP
 *     where the build or the CPU lacks them), 0 or unset on the best level;
 *     BSOLVE_TEST_QUICK=1 shrinks the sweeps (sanitizer / valgrind runs);
 *     BSOLVE_TEST_SEED=<integer> replaces the fixed default base seed.
 *   - tl_main(): runs a Check suite, prints the summary, returns the exit code;
 *     a "cuda" run on a machine without a usable GPU prints "SKIP: ..." and
 *     exits 0; "cuda"/"auto" runs are in-process (CK_NOFORK: CUDA contexts
 *     do not survive fork) unless CK_FORK is set.
 *   - a seeded RNG (xoshiro256**), matrix generators (several families,
 *     Wilkinson's growth matrix), batches stored in any bsolve_layout with
 *     poisoned padding and guard zones;
 *   - references: GSL LU (partial pivoting), LAPACK dgetc2/dgesc2 (complete
 *     pivoting), LAPACKE_dgetrf, condition estimates; backward-error and
 *     factorization-residual ratios computed in long double.
 *
 * Failure accounting: checks inside big loops use TL_EXPECT, which records
 * the first failure (and counts all of them) without calling into Check;
 * TL_CLEAN(...) then turns the record into one ck_assert_msg with the case
 * description.  (A passing ck_assert costs a message to the Check parent
 * process, too slow for millions of entries.)
 */
#ifndef BSOLVE_TESTLIB_H
#define BSOLVE_TESTLIB_H

#include <check.h>
#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "batchsolve.h"

#define TL_TIMEOUT 600     /* seconds per test case (valgrind/sanitizers are slow) */
#define TL_BWD_MAX 30.0    /* LAPACK's threshold for the backward-error ratio */

/* ---------------------------------------------------------------- environment */
bsolve_backend tl_backend(void);        /* from BSOLVE_TEST_BACKEND */
const char *tl_backend_label(void);     /* "cpu", "cuda", "auto" */
int tl_quick(void);                     /* BSOLVE_TEST_QUICK=1 */
uint64_t tl_base_seed(void);            /* BSOLVE_TEST_SEED or the default */
int tl_cpu_isa(void);                   /* BSOLVE_TEST_CPU_ISA, 0 when unset */
uint64_t tl_seed(uint64_t a, uint64_t b); /* a case seed derived from the base seed */

/* A context for the backend under test; fails the test if it cannot be made
 * (a missing GPU has already been turned into SKIP by tl_main). */
bsolve_ctx *tl_ctx(void);
/* Applies BSOLVE_TEST_CPU_ISA to a context made otherwise (tl_ctx does it);
 * no Check calls, so threads may use it. */
bsolve_status tl_ctx_cpu_isa(bsolve_ctx *ctx);

/* A TCase with the generous timeout. */
TCase *tl_tcase(const char *name);

/* Runs the suite; EXIT_SUCCESS when every test passed. */
int tl_main(Suite *s);

/* ---------------------------------------------------------------- failure record */
void tl_reset(void);
void tl_failf(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
long tl_nfail(void);
const char *tl_first(void);

#define TL_EXPECT(cond, ...)                                                   \
    do {                                                                       \
        if (!(cond)) tl_failf(__FILE__, __LINE__, __VA_ARGS__);                \
    } while (0)

#define TL_CLEAN(...)                                                          \
    do {                                                                       \
        char tl_case_[768];                                                    \
        snprintf(tl_case_, sizeof tl_case_, __VA_ARGS__);                      \
        long tl_nf_ = tl_nfail();                                              \
        ck_assert_msg(tl_nf_ == 0, "%ld failed check(s) in [%s] (base seed %llu); first: %s", \
                      tl_nf_, tl_case_, (unsigned long long)tl_base_seed(), tl_first()); \
        tl_reset();                                                            \
    } while (0)

/* ---------------------------------------------------------------- RNG */
typedef struct { uint64_t s[4]; } tl_rng;
void tl_rng_seed(tl_rng *r, uint64_t seed);
uint64_t tl_rng_u64(tl_rng *r);
double tl_rng_unit(tl_rng *r);                 /* [0, 1) */
double tl_rng_uniform(tl_rng *r);              /* [-1, 1] , never exactly 0 */
int64_t tl_rng_int(tl_rng *r, int64_t lo, int64_t hi); /* lo..hi inclusive */

/* ---------------------------------------------------------------- matrices
 * Dense matrices in tests are double, column-major, leading dimension = rows. */
typedef enum {
    TL_FAM_RANDOM = 0,    /* uniform in [-1, 1] */
    TL_FAM_DIAGDOM,       /* off-diagonal uniform, |a_ii| = 2 sum_j |a_ij| + 1 + u: cond_inf <= ~4 */
    TL_FAM_ROWSCALED,     /* uniform, row i scaled by 2^e_i, e_i in [-12, 12] */
    TL_FAM_PERMDOM,       /* rows of a DIAGDOM matrix permuted, A(0,0) = 0: needs pivoting, cond <= ~4 */
    TL_FAM_ZEROLEAD,      /* uniform with A(0,0) = 0 (n >= 2): needs pivoting */
    TL_FAM_DIAGDOM_ROWSCALED, /* DIAGDOM with rows scaled by 2^e: safe without pivoting */
    TL_NFAM
} tl_family;

const char *tl_family_name(tl_family f);
int tl_family_wellcond(tl_family f);     /* cond_inf bounded by a small constant */
int tl_family_nopivot_ok(tl_family f);   /* safe for BSOLVE_PIVOT_NONE */
void tl_gen_matrix(tl_rng *r, tl_family f, int n, double *a);
void tl_gen_uniform(tl_rng *r, int64_t count, double *x);
/* Wilkinson's growth matrix: 1 on the diagonal, -(1 - delta) below, 1 in the
 * last column.  delta = 0 is W_n (ties at every step); delta > 0 breaks ties. */
void tl_gen_wilkinson(int n, double delta, double *a);
/* Rounds every entry to float (for single-precision references). */
void tl_round_float(int64_t count, double *x);

/* ---------------------------------------------------------------- batches in layouts */
const char *tl_kind_name(bsolve_layout_kind k);
/* A layout for `batch` r x c matrices; pad != 0 gives ld and stride (or the
 * interleaved ld) gaps that the library must leave untouched. */
bsolve_layout tl_layout(bsolve_layout_kind kind, int pad, int64_t r, int64_t c, int64_t batch);
void tl_layout_str(bsolve_layout l, char *buf, size_t len);

typedef struct {
    bsolve_precision prec;
    bsolve_layout lay;
    int64_t r, c, batch;
    size_t span;         /* elements the layout spans from data[0] (incl. gaps) */
    size_t guard;        /* guard elements before data and after span */
    void *mem;           /* the allocation */
    void *data;          /* what the library gets */
    unsigned char *mask; /* lazily built: 1 where an entry (i, j, k) lives */
} tl_buf;

/* Allocates and fills everything (entries, gaps, guards) with the sentinel.
 * misalign != 0 shifts data off 64-byte alignment. */
void tl_buf_alloc(tl_buf *b, bsolve_precision p, bsolve_layout l, int64_t r, int64_t c,
                  int64_t batch, int misalign);
void tl_buf_free(tl_buf *b);
void tl_buf_clone(const tl_buf *src, tl_buf *dst);   /* deep copy */
int tl_buf_same(const tl_buf *a, const tl_buf *b);   /* bit-identical memory (incl. guards) */
size_t tl_buf_total(const tl_buf *b);                /* elements in mem */
int64_t tl_off(bsolve_layout l, int64_t r, int64_t i, int64_t j, int64_t k);
double tl_buf_get(const tl_buf *b, int64_t i, int64_t j, int64_t k);
void tl_buf_set(tl_buf *b, int64_t i, int64_t j, int64_t k, double v);
void tl_buf_put(tl_buf *b, int64_t k, const double *m);  /* r x c col-major, ld = r */
void tl_buf_getm(const tl_buf *b, int64_t k, double *m);
int tl_buf_entry_is_sentinel(const tl_buf *b, int64_t i, int64_t j, int64_t k);
/* Number of gap/guard elements that lost the sentinel; describes the first. */
int64_t tl_buf_bad_padding(tl_buf *b, char *where, size_t len);
/* Number of entries (i, j, k) still holding the sentinel; describes the first. */
int64_t tl_buf_unwritten(const tl_buf *b, char *where, size_t len);

/* int32 arrays (info, ipiv) with guards, filled with TL_I32_POISON. */
#define TL_I32_POISON 12345
int32_t *tl_i32_alloc(int64_t n);
void tl_i32_poison(int32_t *p, int64_t n);
int tl_i32_guards_ok(const int32_t *p, int64_t n);
void tl_i32_free(int32_t *p);

/* ---------------------------------------------------------------- references */
/* GSL LU with partial pivoting: X = A \ B (col-major, ld = n).  0, or -1 when
 * GSL finds U singular. */
int tl_ref_gsl(int n, int nrhs, const double *A, const double *B, double *X);
/* LAPACK dgetc2 + dgesc2 (complete pivoting); returns dgetc2's info. */
int tl_ref_getc2(int n, int nrhs, const double *A, const double *B, double *X);
/* LAPACK dgetc2 factorization into LU (may alias nothing), 1-based ipiv/jpiv. */
int tl_ref_getc2_factor(int n, const double *A, double *LU, int32_t *ipiv, int32_t *jpiv);
/* LAPACKE_dgetrf: LU (may be NULL), 1-based ipiv (may be NULL); returns info. */
int tl_ref_getrf(int n, const double *A, double *LU, int32_t *ipiv);
/* Reciprocal condition number estimate in the inf-norm (LAPACKE dgetrf + dgecon);
 * 0 for singular matrices. */
double tl_rcond_inf(int n, const double *A);

/* ---------------------------------------------------------------- error measures */
double tl_eps(bsolve_precision p);
double tl_norm_inf(int r, int c, const double *A);
/* max over the nrhs columns of ||b - A x||_inf / (n eps ||A||_inf ||x||_inf),
 * in long double from the original A, B; +inf if x holds a NaN or an inf. */
double tl_backward_ratio(int n, int nrhs, const double *A, const double *B, const double *X,
                         double eps);
/* max_ij |X_ij - Y_ij| / max_ij |Y_ij|  (inf if X holds a non-finite value). */
double tl_rel_diff(int n, int nrhs, const double *X, const double *Y);
/* ||P A Q - L U||_inf / (n eps ||A||_inf) from LAPACK-form factors (1-based
 * sequential row swaps ipiv, column swaps jpiv; jpiv may be NULL). */
double tl_lu_ratio(int n, const double *A, const double *LU, const int32_t *ipiv,
                   const int32_t *jpiv, double eps);
/* Two LAPACK-form factorizations X and Y of the n x n A (as tl_lu_ratio's;
 * the jpivs both NULL or both given): 1 when their pivots are the same and
 * every entry of X is within tol (1 + |Y_ij|) of Y's, or else X factors A
 * (tl_lu_ratio < TL_BWD_MAX: another pivot at a near tie, or rounding grown
 * by the elimination); 0 otherwise. */
int tl_lu_agree(int n, const double *A, const double *X, const int32_t *xip, const int32_t *xjp, const double *Y,
                const int32_t *yip, const int32_t *yjp, double tol, double eps);
/* 1 if every entry of the n x nrhs X is a NaN. */
int tl_all_nan(int64_t count, const double *X);

/* Names for messages. */
const char *tl_pivot_name(bsolve_pivot p);
const char *tl_prec_name(bsolve_precision p);
const char *tl_status_name(bsolve_status s);

/* Does message `msg` contain `word` as a whole word (delimited by characters
 * other than letters, digits and '_')? */
int tl_has_word(const char *msg, const char *word);

/* Runs the program `path` with the arguments `args` (one shell word list),
 * its output discarded: its exit status, or -1 when it did not exit. */
int tl_run(const char *path, const char *args);

/* Calls the s or d routine according to prec (data are void *). */
bsolve_status tl_gesv(bsolve_ctx *ctx, bsolve_precision prec, bsolve_pivot pivot, int64_t n,
                      int64_t nrhs, int64_t batch, const void *A, bsolve_layout la, void *B,
                      bsolve_layout lb, int32_t *info);
bsolve_status tl_getrf(bsolve_ctx *ctx, bsolve_precision prec, const void *A, bsolve_layout la,
                       bsolve_lu *lu, int32_t *info);
bsolve_status tl_getrs(bsolve_ctx *ctx, bsolve_precision prec, const bsolve_lu *lu, int64_t nrhs,
                       void *B, bsolve_layout lb, int32_t *info);
bsolve_status tl_convert(bsolve_ctx *ctx, bsolve_precision prec, int64_t r, int64_t c,
                         int64_t batch, const void *src, bsolve_layout ls, void *dst,
                         bsolve_layout ld);

#endif /* BSOLVE_TESTLIB_H */
