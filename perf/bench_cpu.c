/*
 * bench_cpu.c -- systems per second of batchsolve's CPU backend against
 * LAPACKE (OpenBLAS), GSL and LAPACK's dgetc2/dgesc2, one system at a time.
 *
 *   build/perf/bench_cpu                 all sizes, both precisions (about 3 min on a quiet
 *                                        2-core machine, at most ~6 min on a busy one)
 *   build/perf/bench_cpu -n 8,16 -q      a quick look at two sizes
 *   build/perf/bench_cpu -h              every option
 *   build-cpu/perf/bench_cpu_mkl -1      with MKL's columns (make NVCC= BUILD=build-cpu
 *                                        build-cpu/perf/bench_cpu_mkl; a static binary)
 *
 * What is measured (printed again in the output):
 *   - ?gesv, nrhs = 1, PARTIAL pivoting, for n in {2,4,...,128}, double and
 *     float: ours with 1 and T threads (-T, default 2) on INTERLEAVED input and on COL_MAJOR
 *     input; a loop of LAPACKE_?gesv (LAPACK_COL_MAJOR, OpenBLAS forced to one
 *     thread); a loop of gsl_linalg_LU_decomp + gsl_linalg_LU_solve (double
 *     only: GSL has no single-precision LU);
 *   - FULL pivoting, both precisions: ours, 1 thread, INTERLEAVED, against a
 *     loop of ?getc2_ + ?gesc2_ (LAPACKE has no wrapper for them), and as a
 *     fraction of our PARTIAL;
 *   - in bench_cpu_mkl (this file built with BENCH_MKL against Intel oneMKL, see the
 *     Makefile), both precisions, one thread (sequential MKL): ours PARTIAL and NONE
 *     (INTERLEAVED) against ?getrf_batch_strided + ?getrs_batch_strided (pivoting),
 *     ?getrfnp_batch_strided + ?getrsnp_batch_strided (no pivoting), and the compact
 *     API (no pivoting): mkl_?getrfnp_compact + two mkl_?trsm_compact, on data packed
 *     by mkl_?gepack_compact before the timer ("pre-packed") and with the packing of A
 *     and B and the unpacking of X timed.  MKL gets the col-major copies LAPACKE gets;
 *     its solutions are checked (normwise backward error of every system, and the
 *     difference from LAPACKE's) before its rate is reported.
 *   - the core's peak: a loop of independent FMAs on the widest vectors the CPU runs
 *     (perf/bench_peak.h); ours 1 thread INTERLEAVED as GFLOP/s and % of it, with
 *     (2/3) n^3 + 2 n^2 flops per system (LU and one right-hand side).
 *   Timed: only the solve.  Before every timed pass, and outside the timer,
 *   every method gets a fresh copy of the right-hand sides (all overwrite B
 *   with X) and LAPACK/GSL/MKL a fresh copy of the matrices (they overwrite A;
 *   ours only reads A; MKL compact pre-packed: fresh packed A and B).  GSL gets
 *   row-major copies (gsl_matrix is row-major).
 *   Batches hold about 64 MB of matrices (at least 1000 systems), bigger than
 *   the last-level cache.  One measurement repeats passes until >= 0.2 s of
 *   timed solve time; a rate is the median of 5 measurements.  The reference
 *   loops may stop part-way through a pass (they are timed system by system,
 *   the clock read every few systems); ours and MKL always solve the whole batch
 *   (one call; MKL's batch routines take it whole).
 *   Inputs: seeded uniform [-1,1] entries (never zero), plus sqrt(n)+2 on
 *   the diagonal so every system is well conditioned.
 *   A measurement during which another program took the CPU (process CPU
 *   time < 90% of wall time x threads) is redone after the machine goes
 *   quiet (-w); rates still disturbed are marked '*', and target verdicts
 *   resting on them '?'.
 *   GSL is linked as the Makefile links it, with its own gslcblas (it comes
 *   before OpenBLAS on the link line).
 *
 * Output: a table on stdout, the CSV build/perf/bench_cpu.csv (bench_cpu_mkl.csv for
 * bench_cpu_mkl; next to the executable; -o to change), and, for a full run of
 * bench_cpu, perf/lu_cpu.png drawn by perf/plot_cpu.gp through gnuplot (when gnuplot is
 * installed).  The CSV's columns after min_cpu_util (the peak, MKL) are nan where not
 * measured.
 * Exit status: 0, or 1 if a call of ours failed or disagreed with LAPACKE, or an MKL
 * result failed its check.
 */
#define _POSIX_C_SOURCE 200809L
#include "batchsolve.h"
#include "bench_peak.h"
#include "bench_plot.h"
#ifdef BENCH_MKL
#include "mkl_peer.h"
#endif

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <lapacke.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* OpenBLAS extensions (cblas.h declares them, but we do not need cblas.h). */
extern void openblas_set_num_threads(int num_threads);
extern char *openblas_get_corename(void);
extern char *openblas_get_config(void);

/* LAPACK's full-pivoting LU (Fortran symbols; LAPACKE has no wrapper). */
extern void dgetc2_(const int *n, double *a, const int *lda, int *ipiv, int *jpiv, int *info);
extern void dgesc2_(const int *n, const double *a, const int *lda, double *rhs, const int *ipiv,
                    const int *jpiv, double *scale);
extern void sgetc2_(const int *n, float *a, const int *lda, int *ipiv, int *jpiv, int *info);
extern void sgesc2_(const int *n, const float *a, const int *lda, float *rhs, const int *ipiv, const int *jpiv,
                    float *scale);

/* ------------------------------------------------------------------------ */

static const int all_sizes[] = {2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128};
#define NSIZES_MAX 64
#define UTIL_MIN 0.9 /* CPU time / (wall time * threads) below which a measurement was disturbed */

/* Methods, one column each. */
enum {
    M_IL1,   /* ours, interleaved, 1 thread */
    M_CM1,   /* ours, col-major, 1 thread */
    M_IL2,   /* ours, interleaved, T threads (-T, default 2) */
    M_CM2,   /* ours, col-major, T threads */
    M_LAPACKE,
    M_GSL,
    M_FULL1, /* ours, full pivoting, interleaved, 1 thread */
    M_GETC2, /* dgetc2_ + dgesc2_ loop */
    /* bench_cpu_mkl only: */
    M_NONE1,      /* ours, no pivoting, interleaved, 1 thread */
    M_MKL_PIV,    /* ?getrf_batch_strided + ?getrs_batch_strided */
    M_MKL_NOPIV,  /* ?getrfnp_batch_strided + ?getrsnp_batch_strided */
    M_MKL_CPT,    /* mkl_?getrfnp_compact + 2 mkl_?trsm_compact, pre-packed */
    M_MKL_CPT_PK, /* the same with gepack (A, B) and geunpack (X) timed */
    M_COUNT
};
static const char *method_csv[M_COUNT] = {
    "ours_il_1t", "ours_cm_1t", "ours_il_2t", "ours_cm_2t",
    "lapacke", "gsl", "ours_full_il_1t", "lapack_getc2",
    "ours_none_il_1t", "mkl_piv", "mkl_nopiv", "mkl_compact", "mkl_compact_pack"};
#define IS_MKL(m) ((m) >= M_MKL_PIV)
#define IS_OURS(m) ((m) <= M_CM2 || (m) == M_FULL1 || (m) == M_NONE1)
#ifdef BENCH_MKL
#define HAVE_MKL 1
#else
#define HAVE_MKL 0
#endif

typedef struct {
    double min_time;  /* seconds of timed work per measurement */
    int reps;         /* measurements; the median is reported */
    double mbytes;    /* MB of matrices per batch */
    int sizes[NSIZES_MAX];
    int nsizes;
    int do_d, do_s, do_full;
    int two_threads; /* the T-thread runs */
    int threads;     /* T */
    double wait_budget; /* seconds the whole run may spend waiting for a quiet machine */
    const char *csv;
    const char *png;
    int plot;
} options;

typedef struct {
    int n;
    char prec; /* 'd' or 's' */
    int64_t batch;
    double rate[M_COUNT]; /* systems per second; NAN = not measured */
    double reldiff;       /* ours (every partial variant) vs LAPACKE */
    double reldiff_full;  /* ours full vs dgetc2 */
    double reldiff_gsl;   /* GSL vs LAPACKE (sanity of the reference) */
    double reldiff_mkl;   /* ours NONE and every MKL method vs LAPACKE */
    double berr_mkl;      /* worst normwise backward error of the MKL methods, in epsilons */
    double util[M_COUNT]; /* worst CPU time / (wall time * threads) of a measurement */
} result;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU time of the whole process (all threads). */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* splitmix64; uniform in [-1,1], never (nearly) zero. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double rng_unit(void)
{
    for (;;) {
        double u = 2.0 * (double)(rng_next() >> 11) * 0x1.0p-53 - 1.0;
        if (fabs(u) >= 1e-3) return u;
    }
}

static void *xmalloc(size_t bytes)
{
    void *p = NULL;
    if (bytes == 0) bytes = 64;
    if (posix_memalign(&p, 64, (bytes + 63) / 64 * 64) != 0 || !p) {
        fprintf(stderr, "bench_cpu: out of memory (%zu bytes)\n", bytes);
        exit(2);
    }
    return p;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Cores busy over `secs` seconds (all processes), from /proc/stat; -1 if unknown. */
static double busy_cores(double secs)
{
    unsigned long long v[2][10];
    for (int t = 0; t < 2; t++) {
        FILE *f = fopen("/proc/stat", "r");
        if (!f) return -1;
        memset(v[t], 0, sizeof v[t]);
        int got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[t][0], &v[t][1],
                         &v[t][2], &v[t][3], &v[t][4], &v[t][5], &v[t][6], &v[t][7], &v[t][8], &v[t][9]);
        fclose(f);
        if (got < 5) return -1;
        if (t == 0) {
            struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
            nanosleep(&ts, NULL);
        }
    }
    unsigned long long tot = 0, idle = (v[1][3] - v[0][3]) + (v[1][4] - v[0][4]);
    for (int i = 0; i < 8; i++) tot += v[1][i] - v[0][i];
    if (tot == 0) return -1;
    long hz = sysconf(_SC_CLK_TCK);
    return (double)(tot - idle) / (double)hz / secs;
}

/* "12.34x", or "-" when a rate is missing. */
static const char *fmt_ratio(char *buf, double q)
{
    if (isnan(q)) snprintf(buf, 16, "-");
    else snprintf(buf, 16, "%.2fx", q);
    return buf;
}

/* "12.3M" style. */
static const char *fmt_rate(char *buf, double r)
{
    if (isnan(r)) snprintf(buf, 16, "n/a");
    /* 999.5k and up print as 1M, not as "1e+03k" */
    else if (r >= 999.5e6) snprintf(buf, 16, "%.3gG", r / 1e9);
    else if (r >= 999.5e3) snprintf(buf, 16, "%.3gM", r / 1e6);
    else if (r >= 999.5) snprintf(buf, 16, "%.3gk", r / 1e3);
    else snprintf(buf, 16, "%.3g", r);
    return buf;
}

/* ------------------------------------------------------------------------
 * One size and precision: the data and the methods
 * ------------------------------------------------------------------------ */

typedef struct {
    int n;
    char prec;
    size_t es;     /* element size */
    int mt;        /* threads of M_IL2 and M_CM2 */
    int64_t batch;
    size_t nn;     /* n*n */
    void *A_cm;    /* batch col-major n x n, read-only original */
    void *A_il;    /* the same, interleaved (ld = batch) */
    void *B_cm;    /* right-hand sides, col-major n x 1, original */
    void *B_il;    /* the same, interleaved */
    void *Aw;      /* scratch copy of A for LAPACK/GSL (they overwrite it) */
    void *Bw;      /* right-hand sides overwritten with solutions */
    double *Xw;    /* GSL's output vectors */
    int32_t *info;
    int ipiv[BSOLVE_MAX_N], jpiv[BSOLVE_MAX_N];
    bsolve_ctx *ctx;
    int failed;    /* a call of ours returned an error or nonzero info */
    double util;   /* of the last measure_once */
    gsl_permutation *perm;
#ifdef BENCH_MKL
    int *mkl_ipiv;    /* n*batch pivots of ?getrf_batch_strided */
    int *mkl_info;    /* 2*batch: the factorizations', then the solves' */
    int cpt_info;     /* of the last mkl_?getrfnp_compact */
    mkl_compact cpt;
#endif
} bench;

static void to_interleaved(const void *src, void *dst, size_t es, int64_t batch, size_t nn)
{
    const int64_t blk = 64;
    for (int64_t k0 = 0; k0 < batch; k0 += blk) {
        int64_t k1 = k0 + blk < batch ? k0 + blk : batch;
        for (size_t e = 0; e < nn; e++) {
            if (es == 8) {
                const double *s = src; double *d = dst;
                for (int64_t k = k0; k < k1; k++) d[(int64_t)e * batch + k] = s[k * (int64_t)nn + (int64_t)e];
            } else {
                const float *s = src; float *d = dst;
                for (int64_t k = k0; k < k1; k++) d[(int64_t)e * batch + k] = s[k * (int64_t)nn + (int64_t)e];
            }
        }
    }
}

/* Entry (i) of the solution of system k in the working B for a method. */
static double sol(const bench *b, int interleaved, int64_t k, int i)
{
    int64_t idx = interleaved ? (int64_t)i * b->batch + k : k * b->n + i;
    return b->es == 8 ? ((const double *)b->Bw)[idx] : (double)((const float *)b->Bw)[idx];
}

static void bench_setup(bench *b, int n, char prec, const options *o)
{
    memset(b, 0, sizeof *b);
    b->n = n;
    b->prec = prec;
    b->es = prec == 'd' ? sizeof(double) : sizeof(float);
    b->mt = o->threads;
    b->nn = (size_t)n * n;
    int64_t batch = (int64_t)(o->mbytes * 1048576.0 / ((double)b->nn * (double)b->es));
    b->batch = batch < 1000 ? 1000 : batch;
    size_t abytes = (size_t)b->batch * b->nn * b->es, bbytes = (size_t)b->batch * n * b->es;
    b->A_cm = xmalloc(abytes);
    b->A_il = xmalloc(abytes);
    b->Aw = xmalloc(abytes);
    b->B_cm = xmalloc(bbytes);
    b->B_il = xmalloc(bbytes);
    b->Bw = xmalloc(bbytes);
    b->Xw = prec == 'd' ? xmalloc((size_t)b->batch * n * sizeof(double)) : NULL;
    b->info = xmalloc((size_t)b->batch * sizeof(int32_t));
    b->perm = gsl_permutation_alloc((size_t)n);

    /* Same seed per n: the float batch is the double one rounded (and longer). */
    rng_state = 0x9E3779B97F4A7C15ull * (uint64_t)(n + 1);
    const double shift = sqrt((double)n) + 2.0;
    for (int64_t k = 0; k < b->batch; k++) {
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double v = rng_unit() + (i == j ? shift : 0.0);
                size_t idx = (size_t)k * b->nn + (size_t)i + (size_t)j * n;
                if (prec == 'd') ((double *)b->A_cm)[idx] = v;
                else ((float *)b->A_cm)[idx] = (float)v;
            }
        for (int i = 0; i < n; i++) {
            double v = rng_unit();
            if (prec == 'd') ((double *)b->B_cm)[(size_t)k * n + i] = v;
            else ((float *)b->B_cm)[(size_t)k * n + i] = (float)v;
        }
    }
    to_interleaved(b->A_cm, b->A_il, b->es, b->batch, b->nn);
    to_interleaved(b->B_cm, b->B_il, b->es, b->batch, (size_t)n);
#ifdef BENCH_MKL
    if (b->batch > INT32_MAX / 2 / n) {
        fprintf(stderr, "bench_cpu: batch %lld too large for MKL's 32-bit integers\n", (long long)b->batch);
        exit(2);
    }
    b->mkl_ipiv = xmalloc((size_t)b->batch * n * sizeof(int));
    b->mkl_info = xmalloc((size_t)b->batch * 2 * sizeof(int));
    if (mkl_compact_init(&b->cpt, prec, n, (int)b->batch, b->A_cm, b->B_cm, b->Bw) != 0) {
        fprintf(stderr, "bench_cpu: out of memory for MKL's compact format\n");
        exit(2);
    }
    /* the pre-packed originals, restored (untimed) before every pass */
    mkl_compact_pack(&b->cpt);
    mkl_compact_save(&b->cpt);
#endif
}

static void bench_free(bench *b)
{
    free(b->A_cm); free(b->A_il); free(b->Aw);
    free(b->B_cm); free(b->B_il); free(b->Bw); free(b->Xw);
    free(b->info);
    gsl_permutation_free(b->perm);
#ifdef BENCH_MKL
    free(b->mkl_ipiv);
    free(b->mkl_info);
    mkl_compact_free(&b->cpt);
#endif
}

/* GSL's scratch: row-major copies of the col-major matrices (a transpose each). */
static void copy_rowmajor(bench *b, int64_t count)
{
    const int n = b->n;
    const double *s = b->A_cm;
    double *d = b->Aw;
    for (int64_t k = 0; k < count; k++, s += b->nn, d += b->nn)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) d[i * n + j] = s[i + j * n];
}

/* Untimed preparation of one pass of method m. */
static void prepare(bench *b, int m)
{
    size_t abytes = (size_t)b->batch * b->nn * b->es, bbytes = (size_t)b->batch * b->n * b->es;
    switch (m) {
    case M_IL1: case M_IL2: case M_FULL1: case M_NONE1:
        memcpy(b->Bw, b->B_il, bbytes);
        break;
    case M_CM1: case M_CM2:
        memcpy(b->Bw, b->B_cm, bbytes);
        break;
    case M_LAPACKE: case M_GETC2: case M_MKL_PIV: case M_MKL_NOPIV:
        memcpy(b->Aw, b->A_cm, abytes);
        memcpy(b->Bw, b->B_cm, bbytes);
        break;
#ifdef BENCH_MKL
    case M_MKL_CPT:
        mkl_compact_restore(&b->cpt);
        break;
    case M_MKL_CPT_PK: /* packs from A_cm and B_cm, unpacks into Bw: nothing to restore */
        break;
#endif
    case M_GSL:
        copy_rowmajor(b, b->batch);
        memcpy(b->Bw, b->B_cm, bbytes);
        break;
    }
}

/* One call of ours on the whole batch; returns 0 on success. */
static int call_ours(bench *b, int m)
{
    const int n = b->n;
    int il = (m == M_IL1 || m == M_IL2 || m == M_FULL1 || m == M_NONE1);
    bsolve_pivot piv = m == M_FULL1 ? BSOLVE_PIVOT_FULL : m == M_NONE1 ? BSOLVE_PIVOT_NONE : BSOLVE_PIVOT_PARTIAL;
    bsolve_layout la = il ? bsolve_layout_interleaved(b->batch) : bsolve_layout_col_major(n, (int64_t)b->nn);
    bsolve_layout lb = il ? bsolve_layout_interleaved(b->batch) : bsolve_layout_col_major(n, n);
    bsolve_status s;
    if (b->prec == 'd')
        s = bsolve_dgesv(b->ctx, piv, n, 1, b->batch, il ? b->A_il : b->A_cm, la, b->Bw, lb, b->info);
    else
        s = bsolve_sgesv(b->ctx, piv, n, 1, b->batch, il ? b->A_il : b->A_cm, la, b->Bw, lb, b->info);
    if (s != BSOLVE_SUCCESS) {
        fprintf(stderr, "bench_cpu: %s n=%d %c: %s (%s)\n", method_csv[m], n, b->prec,
                bsolve_strerror(s), bsolve_ctx_message(b->ctx));
        return -1;
    }
    return 0;
}

#ifdef BENCH_MKL
/* One MKL call sequence on the whole batch (its info is checked after the timing). */
static void call_mkl(bench *b, int m)
{
    switch (m) {
    case M_MKL_PIV: case M_MKL_NOPIV:
        mkl_peer_gesv_strided(b->prec, m == M_MKL_PIV, b->n, (int)b->batch, b->Aw, b->Bw, b->mkl_ipiv, b->mkl_info);
        break;
    case M_MKL_CPT:
        b->cpt_info = mkl_compact_solve(&b->cpt);
        break;
    case M_MKL_CPT_PK:
        mkl_compact_pack(&b->cpt);
        b->cpt_info = mkl_compact_solve(&b->cpt);
        mkl_compact_unpack(&b->cpt);
        break;
    }
}

/* Systems whose MKL info (of the last pass) is not 0. */
static int64_t mkl_bad_info(const bench *b, int m)
{
    if (m == M_MKL_CPT || m == M_MKL_CPT_PK) return b->cpt_info != 0;
    int64_t bad = 0;
    for (int64_t k = 0; k < 2 * b->batch; k++) bad += b->mkl_info[k] != 0;
    return bad;
}
#endif

/* Reference solvers on systems [k0, k1) of the scratch copies. */
static void ref_solve(bench *b, int m, int64_t k0, int64_t k1)
{
    const int n = b->n;
    const size_t nn = b->nn;
    int bad = 0;
    for (int64_t k = k0; k < k1; k++) {
        switch (m) {
        case M_LAPACKE:
            if (b->prec == 'd')
                bad |= LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, (double *)b->Aw + k * nn, n, b->ipiv,
                                     (double *)b->Bw + k * n, n);
            else
                bad |= LAPACKE_sgesv(LAPACK_COL_MAJOR, n, 1, (float *)b->Aw + k * nn, n, b->ipiv,
                                     (float *)b->Bw + k * n, n);
            break;
        case M_GSL: {
            gsl_matrix_view A = gsl_matrix_view_array((double *)b->Aw + k * nn, n, n);
            gsl_vector_view B = gsl_vector_view_array((double *)b->Bw + k * n, n);
            gsl_vector_view X = gsl_vector_view_array(b->Xw + k * n, n);
            int signum;
            bad |= gsl_linalg_LU_decomp(&A.matrix, b->perm, &signum);
            bad |= gsl_linalg_LU_solve(&A.matrix, b->perm, &B.vector, &X.vector);
            break;
        }
        case M_GETC2: {
            int info;
            if (b->es == 8) {
                double scale;
                dgetc2_(&n, (double *)b->Aw + k * nn, &n, b->ipiv, b->jpiv, &info);
                dgesc2_(&n, (double *)b->Aw + k * nn, &n, (double *)b->Bw + k * n, b->ipiv, b->jpiv, &scale);
            } else {
                float scale;
                sgetc2_(&n, (float *)b->Aw + k * nn, &n, b->ipiv, b->jpiv, &info);
                sgesc2_(&n, (float *)b->Aw + k * nn, &n, (float *)b->Bw + k * n, b->ipiv, b->jpiv, &scale);
            }
            bad |= info;
            break;
        }
        }
    }
    if (bad) fprintf(stderr, "bench_cpu: warning: %s reported a singular system (n=%d)\n", method_csv[m], n);
}

/* One measurement: passes until min_time seconds of timed work; systems/s. */
static double measure_once(bench *b, int m, double min_time)
{
    double t = 0.0, cpu = 0.0;
    int64_t done = 0;
    int threads = (m == M_IL2 || m == M_CM2) ? b->mt : 1;
    while (t < min_time) {
        double c0;
        prepare(b, m);
        if (IS_OURS(m) || IS_MKL(m)) { /* one call on the whole batch */
            c0 = cpu_now();
            double t0 = now();
            if (IS_OURS(m)) {
                if (call_ours(b, m) != 0) { b->failed = 1; return NAN; }
            }
#ifdef BENCH_MKL
            else call_mkl(b, m);
#endif
            t += now() - t0;
            cpu += cpu_now() - c0;
            done += b->batch;
        } else {
            /* Read the clock every `step` systems, about every 10 us. */
            int64_t step = b->n >= 32 ? 1 : b->n >= 12 ? 4 : 32;
            c0 = cpu_now();
            double t0 = now(), el = 0.0;
            int64_t k = 0;
            while (k < b->batch) {
                int64_t k1 = k + step < b->batch ? k + step : b->batch;
                ref_solve(b, m, k, k1);
                k = k1;
                el = now() - t0;
                if (t + el >= min_time) break;
            }
            t += el;
            cpu += cpu_now() - c0;
            done += k;
        }
    }
    b->util = cpu / (t * threads);
    return (double)done / t;
}

/* Waits until the other programs leave the CPUs idle (less than 0.15 busy
 * cores over 0.25 s), at most 30 s per call and o->wait_budget seconds over
 * the whole run; returns 0 when the budget is spent. */
static double wait_spent = 0.0;
static int wait_idle(const options *o)
{
    if (wait_spent >= o->wait_budget) return 0;
    double t0 = now();
    while (now() - t0 < 30.0 && wait_spent + (now() - t0) < o->wait_budget) {
        double busy = busy_cores(0.25);
        if (busy >= 0 && busy < 0.15) break;
    }
    wait_spent += now() - t0;
    return 1;
}

static double measure(bench *b, int m, const options *o, double *util)
{
    *util = 1.0;
    double r[16];
    int reps = o->reps > 16 ? 16 : o->reps;
    int ours = IS_OURS(m);
    if (ours) {
        int threads = (m == M_IL2 || m == M_CM2) ? b->mt : 1;
        bsolve_ctx_set_threads(b->ctx, threads);
        /* warm-up: workspace allocation, page faults, OpenMP pool */
        prepare(b, m);
        if (call_ours(b, m) != 0) { b->failed = 1; return NAN; }
    } else if (IS_MKL(m)) {
        /* warm-up: page faults, MKL's initialisation and code-path choice */
#ifdef BENCH_MKL
        prepare(b, m);
        call_mkl(b, m);
#endif
    } else {
        prepare(b, m);
        ref_solve(b, m, 0, b->batch < 16 ? b->batch : 16);
    }
    for (int i = 0; i < reps; i++) {
        /* A measurement during which this process did not get its CPUs (another
         * program ran) is repeated, after waiting for the machine to go quiet. */
        for (int attempt = 0;; attempt++) {
            r[i] = measure_once(b, m, o->min_time);
            if (isnan(r[i])) return NAN;
            if (b->util >= UTIL_MIN || attempt == 3 || !wait_idle(o)) break;
        }
        if (b->util < *util) *util = b->util;
    }
    qsort(r, (size_t)reps, sizeof r[0], cmp_double);
    if (ours) {
        int64_t nbad = 0;
        for (int64_t k = 0; k < b->batch; k++) nbad += b->info[k] != 0;
        if (nbad) {
            fprintf(stderr, "bench_cpu: %s n=%d %c: %lld systems with info != 0\n", method_csv[m], b->n,
                    b->prec, (long long)nbad);
            b->failed = 1;
        }
    }
#ifdef BENCH_MKL
    if (IS_MKL(m)) {
        int64_t nbad = mkl_bad_info(b, m);
        if (nbad) {
            fprintf(stderr, "bench_cpu: %s n=%d %c: %lld nonzero info from MKL\n", method_csv[m], b->n, b->prec,
                    (long long)nbad);
            b->failed = 1;
            return NAN;
        }
    }
#endif
    return reps % 2 ? r[reps / 2] : 0.5 * (r[reps / 2 - 1] + r[reps / 2]);
}

/* Max over the first V systems of ||x - xref||_inf / ||xref||_inf. */
static double compare(const bench *b, int interleaved, const double *xref, int64_t V)
{
    double worst = 0.0;
    for (int64_t k = 0; k < V; k++) {
        double dmax = 0.0, rmax = 0.0;
        for (int i = 0; i < b->n; i++) {
            double x = sol(b, interleaved, k, i), r = xref[k * b->n + i];
            double d = fabs(x - r);
            if (!(d <= dmax)) dmax = d; /* NaN propagates */
            if (fabs(r) > rmax) rmax = fabs(r);
        }
        double rel = dmax / (rmax > 0 ? rmax : 1.0);
        if (!(rel <= worst)) worst = rel;
    }
    return worst;
}

#ifdef BENCH_MKL
/* Largest normwise backward error ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf) over
 * every system, x the working solutions (col-major, or interleaved), in units of the
 * precision's epsilon; computed in double from the original A and B.  An LU solve
 * that is backward stable gives a few units (times a modest growth factor without
 * pivoting); a wrongly called routine gives 1/epsilon. */
static double backward_error(const bench *b, int interleaved)
{
    const int n = b->n;
    double worst = 0.0;
    for (int64_t k = 0; k < b->batch; k++) {
        double r[BSOLVE_MAX_N], x[BSOLVE_MAX_N], anorm = 0.0, xnorm = 0.0, bnorm = 0.0, rnorm = 0.0;
        double rowsum[BSOLVE_MAX_N] = {0};
        for (int i = 0; i < n; i++) {
            x[i] = sol(b, interleaved, k, i);
            r[i] = b->es == 8 ? ((const double *)b->B_cm)[k * n + i] : (double)((const float *)b->B_cm)[k * n + i];
            xnorm = fmax(xnorm, fabs(x[i])); /* a NaN in x reaches r below */
            bnorm = fmax(bnorm, fabs(r[i]));
        }
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                size_t idx = (size_t)k * b->nn + (size_t)i + (size_t)j * n;
                double a = b->es == 8 ? ((const double *)b->A_cm)[idx] : (double)((const float *)b->A_cm)[idx];
                r[i] -= a * x[j];
                rowsum[i] += fabs(a);
            }
        for (int i = 0; i < n; i++) {
            anorm = fmax(anorm, rowsum[i]);
            rnorm = fmax(rnorm, fabs(r[i]));
            if (isnan(r[i])) rnorm = NAN;
        }
        double e = rnorm / (anorm * xnorm + bnorm);
        if (!(e <= worst)) worst = e; /* NaN propagates */
    }
    return worst / (b->es == 8 ? 0x1p-52 : 0x1p-23);
}
#endif

/* Reference solutions (double) of the first V systems by method m (LAPACKE, GSL, GETC2). */
static double *reference(bench *b, int m, int64_t V)
{
    double *x = xmalloc((size_t)V * b->n * sizeof(double));
    prepare(b, m);
    if (m == M_GETC2) {
        /* dgesc2 solves A x = scale * b (scale < 1 only to avoid overflow): divide it out. */
        for (int64_t k = 0; k < V; k++) {
            double *rhs = x + k * b->n;
            int info;
            if (b->es == 8) {
                double scale, *A = (double *)b->Aw + k * b->nn;
                memcpy(rhs, (const double *)b->B_cm + k * b->n, b->n * sizeof(double));
                dgetc2_(&b->n, A, &b->n, b->ipiv, b->jpiv, &info);
                dgesc2_(&b->n, A, &b->n, rhs, b->ipiv, b->jpiv, &scale);
                for (int i = 0; i < b->n; i++) rhs[i] /= scale;
            } else {
                float scale, *A = (float *)b->Aw + k * b->nn, r[BSOLVE_MAX_N];
                memcpy(r, (const float *)b->B_cm + k * b->n, b->n * sizeof(float));
                sgetc2_(&b->n, A, &b->n, b->ipiv, b->jpiv, &info);
                sgesc2_(&b->n, A, &b->n, r, b->ipiv, b->jpiv, &scale);
                for (int i = 0; i < b->n; i++) rhs[i] = (double)r[i] / scale;
            }
        }
        return x;
    }
    ref_solve(b, m, 0, V);
    for (int64_t k = 0; k < V; k++)
        for (int i = 0; i < b->n; i++)
            x[k * b->n + i] = m == M_GSL ? b->Xw[k * b->n + i] : sol(b, 0, k, i);
    return x;
}

/* ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench_cpu [-n SIZES] [-q] [-d|-s] [-F] [-1] [-T THREADS] [-t SECONDS] [-r REPS] [-m MB]\n"
            "                 [-o CSV] [-p PNG] [-P] [-w SECONDS]\n"
            "  -n SIZES   comma-separated orders (default 2,4,8,12,16,24,32,48,64,96,128)\n"
            "  -q         quick: 8 MB batches, 0.05 s per measurement, median of 3\n"
            "  -d / -s    double only / single only\n"
            "  -F         skip full pivoting\n"
            "  -1         skip the T-thread runs\n"
            "  -T THREADS T for the T-thread runs (default 2); their target: T = 2 >= 1.7x one thread,\n"
            "             T > 2 >= 0.8 T x one thread (issue 36)\n"
            "  -t SECONDS timed work per measurement (default 0.2)\n"
            "  -r REPS    measurements per rate, median reported (default 5)\n"
            "  -m MB      MB of matrices per batch, at least 1000 systems (default 64)\n"
            "  -o CSV     CSV output (default: bench_cpu.csv next to the executable)\n"
            "  -p PNG     also draw the plot there (default perf/lu_cpu.png on a full run)\n"
            "  -P         never draw the plot\n"
            "  -w SECONDS a measurement disturbed by another program (CPU time < 90%% of wall time x\n"
            "             threads) is redone, up to 3 times, after waiting for the machine to go quiet;\n"
            "             SECONDS caps the waiting over the whole run (default 150, 0: never wait)\n");
}

static int parse(int argc, char **argv, options *o)
{
    o->min_time = 0.2;
    o->reps = 5;
    o->mbytes = 64;
    o->nsizes = 0;
    o->do_d = o->do_s = o->do_full = 1;
    o->two_threads = 1;
    o->threads = 2;
    o->wait_budget = 150;
    o->csv = NULL;
    o->png = NULL;
    o->plot = -1;
    int quick = 0, custom = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-n") && v) {
            char *s = strdup(v), *tok, *save = NULL;
            for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                int n = atoi(tok);
                if (n < 1 || n > BSOLVE_MAX_N || o->nsizes == NSIZES_MAX) {
                    fprintf(stderr, "bench_cpu: bad size '%s'\n", tok);
                    free(s);
                    return -1;
                }
                o->sizes[o->nsizes++] = n;
            }
            free(s);
            custom = 1;
            i++;
        } else if (!strcmp(a, "-q")) quick = custom = 1;
        else if (!strcmp(a, "-d")) { o->do_s = 0; custom = 1; }
        else if (!strcmp(a, "-s")) { o->do_d = 0; custom = 1; }
        else if (!strcmp(a, "-F")) { o->do_full = 0; custom = 1; }
        else if (!strcmp(a, "-1")) { o->two_threads = 0; custom = 1; }
        else if (!strcmp(a, "-T") && v) { o->threads = atoi(v) > 2 ? atoi(v) : 2; i++; custom = 1; }
        else if (!strcmp(a, "-t") && v) { o->min_time = atof(v); i++; custom = 1; }
        else if (!strcmp(a, "-r") && v) { o->reps = atoi(v); i++; custom = 1; }
        else if (!strcmp(a, "-m") && v) { o->mbytes = atof(v); i++; custom = 1; }
        else if (!strcmp(a, "-o") && v) { o->csv = v; i++; }
        else if (!strcmp(a, "-p") && v) { o->png = v; o->plot = 1; i++; }
        else if (!strcmp(a, "-P")) o->plot = 0;
        else if (!strcmp(a, "-w") && v) { o->wait_budget = atof(v); i++; }
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); exit(0); }
        else { usage(stderr); return -1; }
    }
    if (quick) {
        o->min_time = 0.05;
        o->reps = 3;
        o->mbytes = 8;
    }
    if (o->reps < 1) o->reps = 1;
    if (!o->nsizes) {
        for (size_t i = 0; i < sizeof all_sizes / sizeof all_sizes[0]; i++) o->sizes[o->nsizes++] = all_sizes[i];
    }
    if (o->plot < 0) o->plot = !custom && !HAVE_MKL; /* perf/plot_cpu.gp draws no MKL column */
    if (!o->png) o->png = "perf/lu_cpu.png";
    return 0;
}

static void cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10)) {
            char *c = strchr(line, ':');
            if (c) {
                c++;
                while (*c == ' ' || *c == '\t') c++;
                c[strcspn(c, "\n")] = 0;
                snprintf(buf, len, "%s", c);
            }
            break;
        }
    }
    fclose(f);
}

/* Target of ours-1T/LAPACKE (double, partial) from the issue; 0 = none. *implied
 * is set for sizes between the points (the next stated size's target). */
static double target_1t(int n, int *implied)
{
    *implied = !(n <= 16 || n == 32 || n == 64 || n == 128);
    if (n <= 16) return 8.0;
    if (n <= 32) return 3.0;
    if (n <= 64) return 1.5;
    return 1.0;
}
/* T threads against one: 1.7x for two (the first CPU target), 0.8 T beyond (issue 36). */
static double target_mt(int t) { return t == 2 ? 1.7 : 0.8 * t; }

int main(int argc, char **argv)
{
    options o;
    if (parse(argc, argv, &o) != 0) return 2;

    char csv_default[4096];
    if (!o.csv) {
        const char *slash = strrchr(argv[0], '/');
        const char *name = HAVE_MKL ? "bench_cpu_mkl.csv" : "bench_cpu.csv";
        if (slash) snprintf(csv_default, sizeof csv_default, "%.*s/%s", (int)(slash - argv[0]), argv[0], name);
        else snprintf(csv_default, sizeof csv_default, "%s", name);
        o.csv = csv_default;
    }

    openblas_set_num_threads(1);
    gsl_set_error_handler_off();

    bsolve_ctx *ctx = NULL;
    bsolve_status st = bsolve_ctx_create(&ctx, BSOLVE_BACKEND_CPU);
    if (st != BSOLVE_SUCCESS) {
        fprintf(stderr, "bench_cpu: bsolve_ctx_create(CPU): %s\n", bsolve_strerror(st));
        return 1;
    }
    int nprocs = omp_get_num_procs();
    if (nprocs < o.threads && o.two_threads) {
        fprintf(stderr, "bench_cpu: only %d processor(s): the %d-thread runs would measure nothing useful; skipped\n",
                nprocs, o.threads);
        o.two_threads = 0;
    }

    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    printf("batchsolve %d.%d.%d CPU benchmark: ?gesv, nrhs = 1, systems per second (median of %d x >= %.2g s)\n",
           BSOLVE_VERSION_MAJOR, BSOLVE_VERSION_MINOR, BSOLVE_VERSION_PATCH, o.reps, o.min_time);
    printf("CPU: %s, %d processors; compiler: gcc %s\n", cpu, nprocs, __VERSION__);
    {
        double busy = busy_cores(0.3);
        printf("Busy cores just before the run (from /proc/stat): %.2f of %d%s\n", busy, nprocs,
               busy > 0.2 ? " -- WARNING: something else is running; rates may be low (* where detected)" : "");
    }
    printf("OpenBLAS: %s (core %s), forced to 1 thread; LAPACKE with its default NaN check\n",
           openblas_get_config(), openblas_get_corename());
#ifdef BENCH_MKL
    {
        char v[256];
        mkl_peer_version(v, sizeof v);
        printf("MKL: %s; sequential (1 thread), statically linked\n", v);
    }
#endif
    /* The core's peak in both precisions at each vector width it runs; % of peak
     * below is of the highest. */
    double peak[2] = {0.0, 0.0};
    {
        const int preps = o.reps < 3 ? 3 : o.reps;
        const double psecs = o.min_time < 0.1 ? o.min_time : 0.1;
        char line[256];
        int len = 0;
        for (int l = PEAK_SSE2; l < PEAK_LEVELS; l++) {
            if (!peak_level_supported(l)) continue;
            double gd = peak_gflops(l, 'd', preps, psecs), gs = peak_gflops(l, 's', preps, psecs);
            len += snprintf(line + len, sizeof line - len, "%s%s %.1f / %.1f", len ? ", " : "", peak_level_name[l], gd, gs);
            if (gd > peak[0]) peak[0] = gd;
            if (gs > peak[1]) peak[1] = gs;
        }
        printf("Peak of one core, measured (independent FMAs, 1 thread, best of %d x %.2g s), GFLOP/s FP64 / FP32:\n"
               "  %s\n", preps, psecs, len ? line : "not measured on this CPU");
    }
    printf("Timed: the solve only.  Untimed before each pass: fresh B for every method, fresh A for\n"
           "LAPACK/GSL (they overwrite it; ours reads A read-only).  Batch: ~%.0f MB of matrices, >= 1000 systems.\n"
           "Inputs: uniform [-1,1] (nonzero) + (sqrt(n)+2) on the diagonal.  k = 1000 systems/s, M = 10^6.\n\n",
           o.mbytes);

    result res[2 * NSIZES_MAX];
    int nres = 0;
    int any_fail = 0, contended = 0;
    double t_start = now();

    printf("Partial pivoting.  IL = INTERLEAVED input, CM = COL_MAJOR input; GSL has no float LU.\n");
    char hil[16], hcm[16], hq[16], htg[64];
    snprintf(hil, sizeof hil, "ours%dT-IL", o.threads);
    snprintf(hcm, sizeof hcm, "ours%dT-CM", o.threads);
    snprintf(hq, sizeof hq, "%dT/1T", o.threads);
    snprintf(htg, sizeof htg, "targets (1T/LAPACKE double; %s IL >= %.3g)", hq, target_mt(o.threads));
    printf("%4s %4s %8s %9s %9s %9s %9s %9s %9s %8s %8s %6s %6s %9s  %s\n", "n", "prec", "batch", "ours1T-IL",
           "ours1T-CM", hil, hcm, "LAPACKE", "GSL", "IL/LAPK", "CM/LAPK", hq, hq, "maxrel", htg);
    printf("%4s %4s %8s %9s %9s %9s %9s %9s %9s %8s %8s %6s %6s %9s\n", "", "", "", "", "", "", "", "", "", "", "",
           "IL", "CM", "vs LAPK");
    fflush(stdout);

    for (int si = 0; si < o.nsizes; si++) {
        for (int pi = 0; pi < 2; pi++) {
            char prec = pi == 0 ? 'd' : 's';
            if ((prec == 'd' && !o.do_d) || (prec == 's' && !o.do_s)) continue;
            int n = o.sizes[si];
            bench b;
            bench_setup(&b, n, prec, &o);
            b.ctx = ctx;
            result *r = &res[nres++];
            r->n = n;
            r->prec = prec;
            r->batch = b.batch;
            for (int m = 0; m < M_COUNT; m++) r->rate[m] = NAN, r->util[m] = 1.0;
            r->reldiff = r->reldiff_full = r->reldiff_gsl = r->reldiff_mkl = r->berr_mkl = NAN;

            int64_t V = b.batch < 4096 ? b.batch : 4096;
            double *xref = reference(&b, M_LAPACKE, V);
            if (prec == 'd') {
                double *xg = reference(&b, M_GSL, V);
                double worst = 0.0;
                for (int64_t e = 0; e < V * n; e++) {
                    double d = fabs(xg[e] - xref[e]);
                    if (!(d <= worst)) worst = d;
                }
                r->reldiff_gsl = worst;
                free(xg);
            }

            double worst = 0.0;
            const int ms[] = {M_IL1, M_CM1, M_IL2, M_CM2, M_LAPACKE, M_GSL};
            for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
                int m = ms[mi];
                if ((m == M_IL2 || m == M_CM2) && !o.two_threads) continue;
                if (m == M_GSL && prec != 'd') continue;
                r->rate[m] = measure(&b, m, &o, &r->util[m]);
                if (m <= M_CM2 && !isnan(r->rate[m])) {
                    double d = compare(&b, m == M_IL1 || m == M_IL2, xref, V);
                    if (!(d <= worst)) worst = d;
                }
            }
            r->reldiff = worst;
            double tol = prec == 'd' ? 1e-9 : 1e-2;
            if (!(worst <= tol)) {
                fprintf(stderr, "bench_cpu: n=%d %c: ours differs from LAPACKE by %.3g (tolerance %.0e)\n", n,
                        prec, worst, tol);
                any_fail = 1;
            }
#ifdef BENCH_MKL
            {
                /* ours without pivoting, then MKL on the same data: a solution that
                 * strays from LAPACKE's or has a large backward error withholds the rate */
                const int mm[] = {M_NONE1, M_MKL_PIV, M_MKL_NOPIV, M_MKL_CPT, M_MKL_CPT_PK};
                const double btol = 100.0 * n;
                double wrel = 0.0, wberr = 0.0;
                for (size_t mi = 0; mi < sizeof mm / sizeof mm[0]; mi++) {
                    int m = mm[mi];
                    r->rate[m] = measure(&b, m, &o, &r->util[m]);
                    if (isnan(r->rate[m])) { any_fail = 1; continue; }
                    if (m == M_MKL_CPT) mkl_compact_unpack(&b.cpt); /* the last pass's X into Bw */
                    double d = compare(&b, m == M_NONE1, xref, V), e = backward_error(&b, m == M_NONE1);
                    if (!(d <= wrel)) wrel = d;
                    if (!(e <= wberr)) wberr = e;
                    if (!(d <= tol) || !(e <= btol)) {
                        fprintf(stderr, "bench_cpu: n=%d %c: %s differs from LAPACKE by %.3g (tolerance %.0e), backward "
                                "error %.3g eps (bound %.0f): rate withheld\n", n, prec, method_csv[m], d, tol, e, btol);
                        r->rate[m] = NAN;
                        any_fail = 1;
                    }
                }
                r->reldiff_mkl = wrel;
                r->berr_mkl = wberr;
            }
#endif
            free(xref);

            if (o.do_full) {
                double *xf = reference(&b, M_GETC2, V);
                r->rate[M_FULL1] = measure(&b, M_FULL1, &o, &r->util[M_FULL1]);
                if (!isnan(r->rate[M_FULL1])) r->reldiff_full = compare(&b, 1, xf, V);
                if (!(r->reldiff_full <= (prec == 'd' ? 1e-9 : 1e-2))) {
                    fprintf(stderr, "bench_cpu: n=%d: ours full pivoting differs from dgetc2 by %.3g\n", n,
                            r->reldiff_full);
                    any_fail = 1;
                }
                free(xf);
                r->rate[M_GETC2] = measure(&b, M_GETC2, &o, &r->util[M_GETC2]);
            }
            if (b.failed) any_fail = 1;
            bench_free(&b);

            char c[M_COUNT][16], tg[96] = "";
            for (int m = 0; m < M_COUNT; m++) {
                fmt_rate(c[m], r->rate[m]);
                if (r->util[m] < UTIL_MIN) { strcat(c[m], "*"); contended++; }
            }
            double q1 = r->rate[M_IL1] / r->rate[M_LAPACKE], qc = r->rate[M_CM1] / r->rate[M_LAPACKE];
            double q2 = r->rate[M_IL2] / r->rate[M_IL1], q2c = r->rate[M_CM2] / r->rate[M_CM1];
            int len = 0;
            /* "?": a rate in the ratio was measured on a busy machine. */
            const char *u1 = r->util[M_IL1] < UTIL_MIN || r->util[M_LAPACKE] < UTIL_MIN ? "?" : "";
            const char *u2 = r->util[M_IL1] < UTIL_MIN || r->util[M_IL2] < UTIL_MIN ? "?" : "";
            if (prec == 'd') {
                int implied;
                double t = target_1t(n, &implied);
                len += snprintf(tg + len, sizeof tg - len, "%s>=%gx%s %s%s", len ? "; " : "", t,
                                implied ? "(implied)" : "", q1 >= t ? "met" : "MISSED", u1);
            }
            if (o.two_threads)
                len += snprintf(tg + len, sizeof tg - len, "%s%dT %s%s", len ? "; " : "", o.threads,
                                q2 >= target_mt(o.threads) ? "met" : "MISSED", u2);
            char f1[16], fc[16], f2[16], f2c[16];
            printf("%4d %4c %8lld %9s %9s %9s %9s %9s %9s %8s %8s %6s %6s %9.2e  %s\n", n, prec,
                   (long long)r->batch, c[M_IL1], c[M_CM1], c[M_IL2], c[M_CM2], c[M_LAPACKE], c[M_GSL],
                   fmt_ratio(f1, q1), fmt_ratio(fc, qc), fmt_ratio(f2, q2), fmt_ratio(f2c, q2c), r->reldiff, tg);
            fflush(stdout);
        }
    }

    if (o.do_full) {
        printf("\nFull pivoting (1 thread): ours INTERLEAVED vs a ?getc2_+?gesc2_ loop, and against our PARTIAL\n"
               "(issue 36 target: FULL >= 0.40 PARTIAL)\n");
        printf("%4s %4s %8s %10s %12s %8s %10s %12s\n", "n", "prec", "batch", "ours-full", "getc2+gesc2", "ratio", "maxrel",
               "FULL/PARTIAL");
        for (int i = 0; i < nres; i++) {
            result *r = &res[i];
            char a[16], c[16];
            fmt_rate(a, r->rate[M_FULL1]);
            fmt_rate(c, r->rate[M_GETC2]);
            if (r->util[M_FULL1] < UTIL_MIN) { strcat(a, "*"); contended++; }
            if (r->util[M_GETC2] < UTIL_MIN) { strcat(c, "*"); contended++; }
            char q[16];
            const double fp = r->rate[M_FULL1] / r->rate[M_IL1];
            printf("%4d %4c %8lld %10s %12s %8s %10.2e %8.2f %s\n", r->n, r->prec, (long long)r->batch, a, c,
                   fmt_ratio(q, r->rate[M_FULL1] / r->rate[M_GETC2]), r->reldiff_full, fp,
                   isnan(fp) ? "" : fp >= 0.40 ? "met" : "MISSED");
        }
    }

    /* One core: ours as a share of the peak and, in bench_cpu_mkl, against MKL. */
    printf("\nOne core, INTERLEAVED: ours PARTIAL in GFLOP/s ((2/3) n^3 + 2 n^2 flops per system) and %% of the\n"
           "measured peak of its precision (FP64 %.1f, FP32 %.1f GFLOP/s)%s\n", peak[0], peak[1],
           HAVE_MKL ? "; against MKL, sequential, on the same data.\n"
                      "np* = the best MKL no-pivot rate (strided or compact pre-packed); cpt+pk: packing timed.\n"
                      "berr: worst normwise backward error, in epsilons, of ours NONE and the MKL methods" : "");
    printf("%4s %4s %9s %7s %6s", "n", "prec", "ours-PIV", "GFLOP/s", "%peak");
    if (HAVE_MKL)
        printf(" %9s %9s %9s %9s %9s %7s %7s %7s %7s %7s %8s  %s", "ours-NONE", "MKL-piv", "MKL-np", "MKL-cpt",
               "cpt+pk", "PIV/piv", "PIV/np*", "NON/np*", "PIV/pk", "NON/pk", "berr",
               "issue 36 targets: PIV >= 2x piv, >= 1x np*; NONE >= 1.5x np*; n >= 48 (FP64): >= 40% of peak");
    printf("\n");
    int t36_met = 0, t36_missed = 0, t36_unsure = 0;
    for (int pi = 0; pi < 2; pi++)
        for (int i = 0; i < nres; i++) {
            result *r = &res[i];
            if (r->prec != (pi == 0 ? 'd' : 's')) continue;
            const double flops = 2.0 / 3.0 * r->n * r->n * r->n + 2.0 * r->n * r->n;
            const double pk = peak[pi], gf = r->rate[M_IL1] * flops * 1e-9;
            char c0[16];
            fmt_rate(c0, r->rate[M_IL1]);
            if (r->util[M_IL1] < UTIL_MIN) strcat(c0, "*");
            printf("%4d %4c %9s %7.2f %5.1f%%", r->n, r->prec, c0, gf, pk > 0 ? 100.0 * gf / pk : NAN);
            if (HAVE_MKL) {
                const int mm[] = {M_NONE1, M_MKL_PIV, M_MKL_NOPIV, M_MKL_CPT, M_MKL_CPT_PK};
                char c[5][16];
                for (int j = 0; j < 5; j++) {
                    fmt_rate(c[j], r->rate[mm[j]]);
                    if (r->util[mm[j]] < UTIL_MIN) { strcat(c[j], "*"); contended++; }
                }
                /* the best no-pivot peer; a missing rate does not count as beaten */
                double np = fmax(r->rate[M_MKL_NOPIV], r->rate[M_MKL_CPT]);
                if (isnan(r->rate[M_MKL_NOPIV]) || isnan(r->rate[M_MKL_CPT])) np = NAN;
                int np_util = r->util[M_MKL_NOPIV] < UTIL_MIN || r->util[M_MKL_CPT] < UTIL_MIN;
                double q[5] = {r->rate[M_IL1] / r->rate[M_MKL_PIV], r->rate[M_IL1] / np, r->rate[M_NONE1] / np,
                               r->rate[M_IL1] / r->rate[M_MKL_CPT_PK], r->rate[M_NONE1] / r->rate[M_MKL_CPT_PK]};
                char f[5][16], tg[128] = "";
                for (int j = 0; j < 5; j++) fmt_ratio(f[j], q[j]);
                /* verdicts: '?' where a rate in it was measured on a busy machine */
                struct { double q, t; int busy; const char *name; } v[4] = {
                    {q[0], 2.0, r->util[M_IL1] < UTIL_MIN || r->util[M_MKL_PIV] < UTIL_MIN, "2x piv"},
                    {q[1], 1.0, r->util[M_IL1] < UTIL_MIN || np_util, "1x np*"},
                    {q[2], 1.5, r->util[M_NONE1] < UTIL_MIN || np_util, "NONE 1.5x np*"},
                    {pk > 0 ? gf / pk : NAN, 0.4, r->util[M_IL1] < UTIL_MIN, "40% peak"}};
                int len = 0;
                for (int j = 0; j < 4; j++) {
                    if (j == 3 && (r->prec != 'd' || r->n < 48)) continue;
                    int ok = v[j].q >= v[j].t;
                    if (v[j].busy) t36_unsure++;
                    else if (ok) t36_met++;
                    else t36_missed++;
                    len += snprintf(tg + len, sizeof tg - len, "%s%s %s%s", len ? "; " : "", v[j].name,
                                    ok ? "met" : "MISSED", v[j].busy ? "?" : "");
                }
                printf(" %9s %9s %9s %9s %9s %7s %7s %7s %7s %7s %8.3g  %s", c[0], c[1], c[2], c[3], c[4], f[0], f[1],
                       f[2], f[3], f[4], r->berr_mkl, tg);
            }
            printf("\n");
        }
    if (HAVE_MKL)
        printf("Issue 36 targets (one core, both precisions; the peak one FP64 at n >= 48): %d met, %d missed,\n"
               "%d not judged (a rate measured on a busy machine, marked '?')\n", t36_met, t36_missed, t36_unsure);

    /* Summary of the targets. */
    int met = 0, missed = 0, unsure = 0;
    for (int i = 0; i < nres; i++) {
        result *r = &res[i];
        int implied;
        if (r->prec == 'd') {
            double t = target_1t(r->n, &implied);
            if (r->util[M_IL1] < UTIL_MIN || r->util[M_LAPACKE] < UTIL_MIN) unsure++;
            else if (r->rate[M_IL1] / r->rate[M_LAPACKE] >= t) met++;
            else missed++;
        }
        if (o.two_threads) {
            if (r->util[M_IL1] < UTIL_MIN || r->util[M_IL2] < UTIL_MIN) unsure++;
            else if (r->rate[M_IL2] / r->rate[M_IL1] >= target_mt(o.threads)) met++;
            else missed++;
        }
    }
    if (contended)
        printf("\n* %d rate(s) measured while the machine was busy with something else: CPU time < %.0f%% of\n"
               "  wall time x threads in at least one of the measurements, even after retries.\n"
               "  Rerun them on a quiet machine; a target verdict built on one is marked '?'.\n",
               contended, UTIL_MIN * 100);
    if (wait_spent > 0) printf("(waited %.0f s in all for other programs to leave the CPUs)\n", wait_spent);
    printf("\nTargets (1 core, double, partial, INTERLEAVED: >= 8x LAPACKE for n <= 16, >= 3x at n = 32,\n"
           ">= 1.5x at n = 64, >= 1x at n = 128; sizes in between get the next stated size's target,\n"
           "marked (implied); %d threads >= %.3gx 1 thread, INTERLEAVED, both precisions): %d met, %d missed,\n"
           "%d not judged (measured on a busy machine, marked '?')\n",
           o.threads, target_mt(o.threads), met, missed, unsure);

    FILE *f = fopen(o.csv, "w");
    if (!f) {
        fprintf(stderr, "bench_cpu: cannot write %s\n", o.csv);
        any_fail = 1;
    } else {
        fprintf(f, "n,prec,batch");
        /* the T-thread columns are named for T: ours_il_2t by default */
        for (int m = 0; m <= M_GETC2; m++)
            if (m == M_IL2 || m == M_CM2) fprintf(f, ",ours_%s_%dt", m == M_IL2 ? "il" : "cm", o.threads);
            else fprintf(f, ",%s", method_csv[m]);
        fprintf(f, ",ratio_il_1t_lapacke,ratio_cm_1t_lapacke,ratio_il_%dt_1t,maxreldiff_partial,maxreldiff_full,min_cpu_util",
                o.threads);
        /* appended after the columns perf/plot_cpu.gp reads (nan where not measured) */
        fprintf(f, ",peak_gflops,ours_il_1t_gflops,ours_il_1t_pct_peak");
        for (int m = M_NONE1; m < M_COUNT; m++) fprintf(f, ",%s", method_csv[m]);
        fprintf(f, ",ratio_il_1t_mkl_piv,ratio_il_1t_mkl_nopiv,ratio_il_1t_mkl_compact,ratio_il_1t_mkl_compact_pack,"
                   "ratio_il_1t_best_mkl_nopiv,ratio_none_1t_best_mkl_nopiv,maxreldiff_none_mkl,maxberr_none_mkl_eps\n");
        for (int pi = 0; pi < 2; pi++)
            for (int i = 0; i < nres; i++) {
                result *r = &res[i];
                if (r->prec != (pi == 0 ? 'd' : 's')) continue;
                fprintf(f, "%d,%c,%lld", r->n, r->prec, (long long)r->batch);
                for (int m = 0; m <= M_GETC2; m++) fprintf(f, ",%.6g", r->rate[m]);
                fprintf(f, ",%.4g,%.4g,%.4g,%.3g,%.3g", r->rate[M_IL1] / r->rate[M_LAPACKE],
                        r->rate[M_CM1] / r->rate[M_LAPACKE], r->rate[M_IL2] / r->rate[M_IL1], r->reldiff,
                        r->reldiff_full);
                double u = 1.0;
                for (int m = 0; m < M_COUNT; m++) if (r->util[m] < u) u = r->util[m];
                fprintf(f, ",%.3f", u);
                const double flops = 2.0 / 3.0 * r->n * r->n * r->n + 2.0 * r->n * r->n;
                const double pk = peak[pi], gf = r->rate[M_IL1] * flops * 1e-9;
                fprintf(f, ",%.4g,%.4g,%.4g", pk, gf, pk > 0 ? 100.0 * gf / pk : NAN);
                for (int m = M_NONE1; m < M_COUNT; m++) fprintf(f, ",%.6g", r->rate[m]);
                double np = isnan(r->rate[M_MKL_NOPIV]) || isnan(r->rate[M_MKL_CPT])
                                ? NAN : fmax(r->rate[M_MKL_NOPIV], r->rate[M_MKL_CPT]);
                fprintf(f, ",%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.3g,%.3g\n", r->rate[M_IL1] / r->rate[M_MKL_PIV],
                        r->rate[M_IL1] / r->rate[M_MKL_NOPIV], r->rate[M_IL1] / r->rate[M_MKL_CPT],
                        r->rate[M_IL1] / r->rate[M_MKL_CPT_PK], r->rate[M_IL1] / np, r->rate[M_NONE1] / np,
                        r->reldiff_mkl, r->berr_mkl);
            }
        fclose(f);
        printf("CSV: %s\n", o.csv);
    }

    if (o.plot) bench_plot("perf/plot_cpu.gp", o.csv, o.png, cpu);
    printf("total time %.0f s\n", now() - t_start);
    bsolve_ctx_destroy(ctx);
    return any_fail ? 1 : 0;
}
