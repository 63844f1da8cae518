/*
 * testlib.c -- see testlib.h.
 */
#define _POSIX_C_SOURCE 200809L

#include "testlib.h"
#include "cpu_isa.h"  /* bsi_cpu_isa_runs (test-only) */
#include "internal.h" /* bsi_test_force */

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <lapacke.h>

/* LAPACK's complete-pivoting LU (no LAPACKE wrapper in 3.11). */
void dgetc2_(const int *n, double *a, const int *lda, int *ipiv, int *jpiv, int *info);
void dgesc2_(const int *n, const double *a, const int *lda, double *rhs, const int *ipiv,
             const int *jpiv, double *scale);

#define TL_DEFAULT_SEED 20261122ULL
#define TL_SENT_D 0x7ff4deaddeadbeefULL /* signalling-NaN bit patterns */
#define TL_SENT_S 0x7fadbeefU
#define TL_I32_GUARD 8

/* ====================================================================== environment */

bsolve_backend tl_backend(void)
{
    const char *e = getenv("BSOLVE_TEST_BACKEND");
    if (!e || !*e || !strcmp(e, "cpu")) return BSOLVE_BACKEND_CPU;
    if (!strcmp(e, "cuda")) return BSOLVE_BACKEND_CUDA;
    if (!strcmp(e, "auto")) return BSOLVE_BACKEND_AUTO;
    fprintf(stderr, "BSOLVE_TEST_BACKEND=%s: expected cpu, cuda or auto\n", e);
    exit(2);
}

const char *tl_backend_label(void)
{
    switch (tl_backend()) {
    case BSOLVE_BACKEND_CUDA: return "cuda";
    case BSOLVE_BACKEND_AUTO: return "auto";
    default: return "cpu";
    }
}

int tl_quick(void)
{
    const char *e = getenv("BSOLVE_TEST_QUICK");
    return e && *e && strcmp(e, "0") != 0;
}

uint64_t tl_base_seed(void)
{
    const char *e = getenv("BSOLVE_TEST_SEED");
    if (e && *e) return strtoull(e, NULL, 0);
    return TL_DEFAULT_SEED;
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t tl_seed(uint64_t a, uint64_t b)
{
    uint64_t x = tl_base_seed() ^ (a * 0xd1342543de82ef95ULL);
    splitmix64(&x);
    x ^= b * 0x2545f4914f6cdd1dULL;
    return splitmix64(&x);
}

int tl_cpu_isa(void)
{
    const char *e = getenv("BSOLVE_TEST_CPU_ISA");
    if (!e || !*e) return 0;
    char *end;
    long v = strtol(e, &end, 10);
    if (*end || v < 0 || v > BSI_CPU_ISA_MAX) {
        fprintf(stderr, "BSOLVE_TEST_CPU_ISA=%s: expected 0..%d\n", e, BSI_CPU_ISA_MAX);
        exit(2);
    }
    return (int)v;
}

bsolve_status tl_ctx_cpu_isa(bsolve_ctx *ctx)
{
    if (!tl_cpu_isa() || bsolve_ctx_backend(ctx) != BSOLVE_BACKEND_CPU) return BSOLVE_SUCCESS;
    return bsi_test_force(ctx, BSI_FORCE_CPU_ISA, tl_cpu_isa());
}

bsolve_ctx *tl_ctx(void)
{
    bsolve_ctx *ctx = NULL;
    bsolve_status s = bsolve_ctx_create(&ctx, tl_backend());
    if (s == BSOLVE_ENODEVICE && tl_backend() == BSOLVE_BACKEND_CUDA) {
        printf("SKIP: no CUDA device (%s)\n", bsolve_strerror(s));
        fflush(stdout);
        exit(0);
    }
    ck_assert_msg(s == BSOLVE_SUCCESS && ctx != NULL, "bsolve_ctx_create(%s) = %d (%s)",
                  tl_backend_label(), (int)s, bsolve_strerror(s));
    ck_assert_int_eq(tl_ctx_cpu_isa(ctx), BSOLVE_SUCCESS);
    return ctx;
}

TCase *tl_tcase(const char *name)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, TL_TIMEOUT);
    /* a fresh failure record for every test, also without fork (CK_FORK=no) */
    tcase_add_checked_fixture(tc, tl_reset, NULL);
    return tc;
}

int tl_main(Suite *s)
{
    gsl_set_error_handler_off();
    if (tl_backend() == BSOLVE_BACKEND_CUDA) {
        bsolve_ctx *ctx = NULL;
        bsolve_status st = bsolve_ctx_create(&ctx, BSOLVE_BACKEND_CUDA);
        if (st == BSOLVE_ENODEVICE) {
            printf("SKIP: no CUDA device (%s)\n", bsolve_strerror(st));
            (void)s;
            return EXIT_SUCCESS;
        }
        bsolve_ctx_destroy(ctx);
    }
    if (tl_cpu_isa() && !bsi_cpu_isa_runs(tl_cpu_isa())) {
        printf("SKIP: CPU level %d (BSOLVE_TEST_CPU_ISA) is not in this build or not run by this CPU\n",
               tl_cpu_isa());
        return EXIT_SUCCESS;
    }
    printf("backend=%s base seed=%llu%s", tl_backend_label(), (unsigned long long)tl_base_seed(),
           tl_quick() ? " (quick)" : "");
    if (tl_cpu_isa()) printf(" CPU level %d", tl_cpu_isa());
    printf("\n");
    fflush(stdout);
    SRunner *sr = srunner_create(s);
    /* A CUDA context does not survive fork(), and the probe above (or any
     * AUTO context on a GPU machine) initializes CUDA in this process: run
     * the tests in-process there unless CK_FORK says otherwise. */
    if (tl_backend() != BSOLVE_BACKEND_CPU && !getenv("CK_FORK")) srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_ENV); /* CK_NORMAL unless CK_VERBOSITY says otherwise */
    int nf = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* ====================================================================== failure record */

static long g_nfail;
static char g_first[1024];

void tl_reset(void)
{
    g_nfail = 0;
    g_first[0] = 0;
}

void tl_failf(const char *file, int line, const char *fmt, ...)
{
    if (g_nfail++ == 0) {
        const char *base = strrchr(file, '/');
        int k = snprintf(g_first, sizeof g_first, "%s:%d: ", base ? base + 1 : file, line);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(g_first + k, sizeof g_first - (size_t)k, fmt, ap);
        va_end(ap);
    }
}

long tl_nfail(void) { return g_nfail; }
const char *tl_first(void) { return g_first; }

/* ====================================================================== RNG (xoshiro256**) */

void tl_rng_seed(tl_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t tl_rng_u64(tl_rng *r)
{
    uint64_t *s = r->s;
    uint64_t res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return res;
}

double tl_rng_unit(tl_rng *r) { return (double)(tl_rng_u64(r) >> 11) * 0x1p-53; }

double tl_rng_uniform(tl_rng *r)
{
    /* odd multiples of 2^-53 in (-1, 1): never exactly zero */
    int64_t m = (int64_t)(tl_rng_u64(r) >> 10) | 1; /* 54 bits, odd */
    return (double)(m - (INT64_C(1) << 53)) * 0x1p-53;
}

int64_t tl_rng_int(tl_rng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (int64_t)(tl_rng_u64(r) % span);
}

/* ====================================================================== matrices */

const char *tl_family_name(tl_family f)
{
    static const char *names[] = {"random", "diagdom", "rowscaled", "permdom", "zerolead",
                                  "diagdom-rowscaled"};
    return (unsigned)f < TL_NFAM ? names[f] : "?";
}

int tl_family_wellcond(tl_family f) { return f == TL_FAM_DIAGDOM || f == TL_FAM_PERMDOM; }

int tl_family_nopivot_ok(tl_family f)
{
    return f == TL_FAM_DIAGDOM || f == TL_FAM_DIAGDOM_ROWSCALED;
}

void tl_gen_uniform(tl_rng *r, int64_t count, double *x)
{
    for (int64_t i = 0; i < count; i++) x[i] = tl_rng_uniform(r);
}

static void make_diagdom(tl_rng *r, int n, double *a)
{
    tl_gen_uniform(r, (int64_t)n * n, a);
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++)
            if (j != i) s += fabs(a[i + (size_t)j * n]);
        double d = 2 * s + 1 + tl_rng_unit(r);
        a[i + (size_t)i * n] = (tl_rng_u64(r) & 1) ? d : -d;
    }
}

static void scale_rows(tl_rng *r, int n, double *a)
{
    for (int i = 0; i < n; i++) {
        double sc = ldexp(1.0, (int)tl_rng_int(r, -12, 12));
        for (int j = 0; j < n; j++) a[i + (size_t)j * n] *= sc;
    }
}

void tl_gen_matrix(tl_rng *r, tl_family f, int n, double *a)
{
    size_t nn = (size_t)n * n;
    switch (f) {
    case TL_FAM_DIAGDOM:
        make_diagdom(r, n, a);
        break;
    case TL_FAM_DIAGDOM_ROWSCALED:
        make_diagdom(r, n, a);
        scale_rows(r, n, a);
        break;
    case TL_FAM_ROWSCALED:
        tl_gen_uniform(r, (int64_t)nn, a);
        scale_rows(r, n, a);
        break;
    case TL_FAM_PERMDOM: {
        double *t = malloc(nn * sizeof *t);
        int *p = malloc((size_t)n * sizeof *p);
        make_diagdom(r, n, t);
        for (int i = 0; i < n; i++) p[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = (int)tl_rng_int(r, 0, i), x = p[i];
            p[i] = p[j];
            p[j] = x;
        }
        if (n >= 2 && p[0] == 0) {
            p[0] = p[1];
            p[1] = 0;
        }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) a[i + (size_t)j * n] = t[p[i] + (size_t)j * n];
        if (n >= 2) a[0] = 0; /* an off-diagonal entry of the dominant matrix */
        free(t);
        free(p);
        break;
    }
    case TL_FAM_ZEROLEAD:
        tl_gen_uniform(r, (int64_t)nn, a);
        if (n >= 2) a[0] = 0;
        break;
    default:
        tl_gen_uniform(r, (int64_t)nn, a);
        break;
    }
}

void tl_gen_wilkinson(int n, double delta, double *a)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double v = i == j ? 1.0 : (i > j ? -(1.0 - delta) : 0.0);
            if (j == n - 1) v = 1.0;
            a[i + (size_t)j * n] = v;
        }
}

void tl_round_float(int64_t count, double *x)
{
    for (int64_t i = 0; i < count; i++) x[i] = (double)(float)x[i];
}

/* ====================================================================== layouts, buffers */

const char *tl_kind_name(bsolve_layout_kind k)
{
    switch (k) {
    case BSOLVE_COL_MAJOR: return "col";
    case BSOLVE_ROW_MAJOR: return "row";
    case BSOLVE_INTERLEAVED: return "inter";
    default: return "?";
    }
}

bsolve_layout tl_layout(bsolve_layout_kind kind, int pad, int64_t r, int64_t c, int64_t batch)
{
    bsolve_layout l = {kind, 0, 0};
    switch (kind) {
    case BSOLVE_COL_MAJOR:
        l.ld = r + (pad ? 1 + r % 3 : 0);
        l.stride = l.ld * c + (pad ? 3 : 0);
        break;
    case BSOLVE_ROW_MAJOR:
        l.ld = c + (pad ? 1 + c % 2 : 0);
        l.stride = l.ld * r + (pad ? 5 : 0);
        break;
    default:
        l.ld = (batch > 0 ? batch : 1) + (pad ? 3 : 0);
        l.stride = 0;
        break;
    }
    return l;
}

void tl_layout_str(bsolve_layout l, char *buf, size_t len)
{
    if (l.kind == BSOLVE_INTERLEAVED)
        snprintf(buf, len, "inter(ld=%lld)", (long long)l.ld);
    else
        snprintf(buf, len, "%s(ld=%lld,stride=%lld)", tl_kind_name(l.kind), (long long)l.ld,
                 (long long)l.stride);
}

static size_t esize(bsolve_precision p) { return p == BSOLVE_PREC_S ? sizeof(float) : sizeof(double); }

static size_t layout_span(bsolve_layout l, int64_t r, int64_t c, int64_t batch)
{
    if (batch <= 0) return 0;
    if (l.kind == BSOLVE_INTERLEAVED) return (size_t)(l.ld * r * c);
    /* the last matrix's extent, or batch * stride, whichever is larger */
    int64_t last = l.kind == BSOLVE_COL_MAJOR ? (r - 1) + (c - 1) * l.ld : (r - 1) * l.ld + (c - 1);
    int64_t a = (batch - 1) * l.stride + last + 1, b = batch * l.stride;
    return (size_t)(a > b ? a : b);
}

int64_t tl_off(bsolve_layout l, int64_t r, int64_t i, int64_t j, int64_t k)
{
    switch (l.kind) {
    case BSOLVE_COL_MAJOR: return k * l.stride + i + j * l.ld;
    case BSOLVE_ROW_MAJOR: return k * l.stride + i * l.ld + j;
    default: return (i + j * r) * l.ld + k;
    }
}

size_t tl_buf_total(const tl_buf *b) { return b->span + 2 * b->guard; }

static void set_sentinel(bsolve_precision p, void *mem, size_t idx)
{
    if (p == BSOLVE_PREC_S) {
        uint32_t v = TL_SENT_S;
        memcpy((char *)mem + idx * 4, &v, 4);
    } else {
        uint64_t v = TL_SENT_D;
        memcpy((char *)mem + idx * 8, &v, 8);
    }
}

static int is_sentinel(bsolve_precision p, const void *mem, size_t idx)
{
    if (p == BSOLVE_PREC_S) {
        uint32_t v;
        memcpy(&v, (const char *)mem + idx * 4, 4);
        return v == TL_SENT_S;
    }
    uint64_t v;
    memcpy(&v, (const char *)mem + idx * 8, 8);
    return v == TL_SENT_D;
}

void tl_buf_alloc(tl_buf *b, bsolve_precision p, bsolve_layout l, int64_t r, int64_t c,
                  int64_t batch, int misalign)
{
    memset(b, 0, sizeof *b);
    b->prec = p;
    b->lay = l;
    b->r = r;
    b->c = c;
    b->batch = batch;
    b->span = layout_span(l, r, c, batch);
    b->guard = 16 + (misalign ? 3 : 0);
    size_t bytes = tl_buf_total(b) * esize(p);
    bytes = (bytes + 63) / 64 * 64;
    b->mem = aligned_alloc(64, bytes);
    ck_assert_msg(b->mem != NULL, "out of memory allocating %zu bytes", bytes);
    for (size_t i = 0, t = tl_buf_total(b); i < t; i++) set_sentinel(p, b->mem, i);
    b->data = (char *)b->mem + b->guard * esize(p);
}

void tl_buf_free(tl_buf *b)
{
    free(b->mem);
    free(b->mask);
    memset(b, 0, sizeof *b);
}

void tl_buf_clone(const tl_buf *src, tl_buf *dst)
{
    *dst = *src;
    size_t bytes = (tl_buf_total(src) * esize(src->prec) + 63) / 64 * 64;
    dst->mem = aligned_alloc(64, bytes);
    ck_assert_msg(dst->mem != NULL, "out of memory");
    memcpy(dst->mem, src->mem, tl_buf_total(src) * esize(src->prec));
    dst->data = (char *)dst->mem + dst->guard * esize(dst->prec);
    dst->mask = NULL;
}

int tl_buf_same(const tl_buf *a, const tl_buf *b)
{
    return tl_buf_total(a) == tl_buf_total(b) && a->prec == b->prec &&
           memcmp(a->mem, b->mem, tl_buf_total(a) * esize(a->prec)) == 0;
}

double tl_buf_get(const tl_buf *b, int64_t i, int64_t j, int64_t k)
{
    int64_t o = tl_off(b->lay, b->r, i, j, k);
    if (b->prec == BSOLVE_PREC_S) return ((const float *)b->data)[o];
    return ((const double *)b->data)[o];
}

void tl_buf_set(tl_buf *b, int64_t i, int64_t j, int64_t k, double v)
{
    int64_t o = tl_off(b->lay, b->r, i, j, k);
    if (b->prec == BSOLVE_PREC_S)
        ((float *)b->data)[o] = (float)v;
    else
        ((double *)b->data)[o] = v;
}

void tl_buf_put(tl_buf *b, int64_t k, const double *m)
{
    for (int64_t j = 0; j < b->c; j++)
        for (int64_t i = 0; i < b->r; i++) tl_buf_set(b, i, j, k, m[i + j * b->r]);
}

void tl_buf_getm(const tl_buf *b, int64_t k, double *m)
{
    for (int64_t j = 0; j < b->c; j++)
        for (int64_t i = 0; i < b->r; i++) m[i + j * b->r] = tl_buf_get(b, i, j, k);
}

int tl_buf_entry_is_sentinel(const tl_buf *b, int64_t i, int64_t j, int64_t k)
{
    return is_sentinel(b->prec, b->data, (size_t)tl_off(b->lay, b->r, i, j, k));
}

static void build_mask(tl_buf *b)
{
    if (b->mask) return;
    b->mask = calloc(b->span ? b->span : 1, 1);
    ck_assert_msg(b->mask != NULL, "out of memory");
    for (int64_t k = 0; k < b->batch; k++)
        for (int64_t j = 0; j < b->c; j++)
            for (int64_t i = 0; i < b->r; i++) b->mask[tl_off(b->lay, b->r, i, j, k)] = 1;
}

int64_t tl_buf_bad_padding(tl_buf *b, char *where, size_t len)
{
    build_mask(b);
    int64_t bad = 0;
    size_t total = tl_buf_total(b);
    for (size_t t = 0; t < total; t++) {
        int inside = t >= b->guard && t < b->guard + b->span;
        if (inside && b->mask[t - b->guard]) continue;
        if (!is_sentinel(b->prec, b->mem, t)) {
            if (bad++ == 0 && where) {
                if (inside)
                    snprintf(where, len, "gap element data[%zu] overwritten", t - b->guard);
                else if (t < b->guard)
                    snprintf(where, len, "guard element data[-%zu] overwritten", b->guard - t);
                else
                    snprintf(where, len, "guard element %zu past the layout's span overwritten",
                             t - b->guard - b->span);
            }
        }
    }
    return bad;
}

int64_t tl_buf_unwritten(const tl_buf *b, char *where, size_t len)
{
    int64_t bad = 0;
    for (int64_t k = 0; k < b->batch; k++)
        for (int64_t j = 0; j < b->c; j++)
            for (int64_t i = 0; i < b->r; i++)
                if (tl_buf_entry_is_sentinel(b, i, j, k) && bad++ == 0 && where)
                    snprintf(where, len, "entry (%lld,%lld) of system %lld not written",
                             (long long)i, (long long)j, (long long)k);
    return bad;
}

int32_t *tl_i32_alloc(int64_t n)
{
    int32_t *m = malloc((size_t)(n + 2 * TL_I32_GUARD) * sizeof *m);
    ck_assert_msg(m != NULL, "out of memory");
    tl_i32_poison(m + TL_I32_GUARD, n);
    return m + TL_I32_GUARD;
}

void tl_i32_poison(int32_t *p, int64_t n)
{
    for (int64_t i = -TL_I32_GUARD; i < n + TL_I32_GUARD; i++) p[i] = TL_I32_POISON;
}

int tl_i32_guards_ok(const int32_t *p, int64_t n)
{
    for (int i = 1; i <= TL_I32_GUARD; i++)
        if (p[-i] != TL_I32_POISON || p[n + i - 1] != TL_I32_POISON) return 0;
    return 1;
}

void tl_i32_free(int32_t *p)
{
    if (p) free(p - TL_I32_GUARD);
}

/* ====================================================================== references */

static gsl_matrix *g_m;
static gsl_permutation *g_p;
static gsl_vector *g_b, *g_x;
static int g_n;

static void gsl_ws(int n)
{
    if (g_n == n) return;
    if (g_m) {
        gsl_matrix_free(g_m);
        gsl_permutation_free(g_p);
        gsl_vector_free(g_b);
        gsl_vector_free(g_x);
    }
    g_m = gsl_matrix_alloc((size_t)n, (size_t)n);
    g_p = gsl_permutation_alloc((size_t)n);
    g_b = gsl_vector_alloc((size_t)n);
    g_x = gsl_vector_alloc((size_t)n);
    g_n = n;
}

int tl_ref_gsl(int n, int nrhs, const double *A, const double *B, double *X)
{
    int signum;
    gsl_ws(n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) gsl_matrix_set(g_m, (size_t)i, (size_t)j, A[i + (size_t)j * n]);
    gsl_linalg_LU_decomp(g_m, g_p, &signum);
    int bad = 0;
    for (int c = 0; c < nrhs; c++) {
        for (int i = 0; i < n; i++) gsl_vector_set(g_b, (size_t)i, B[i + (size_t)c * n]);
        if (gsl_linalg_LU_solve(g_m, g_p, g_b, g_x) != GSL_SUCCESS) bad = 1;
        for (int i = 0; i < n; i++) X[i + (size_t)c * n] = gsl_vector_get(g_x, (size_t)i);
    }
    return bad ? -1 : 0;
}

int tl_ref_getc2_factor(int n, const double *A, double *LU, int32_t *ipiv, int32_t *jpiv)
{
    int info = 0, *ip = malloc((size_t)n * sizeof *ip), *jp = malloc((size_t)n * sizeof *jp);
    memcpy(LU, A, (size_t)n * n * sizeof *LU);
    dgetc2_(&n, LU, &n, ip, jp, &info);
    for (int i = 0; i < n; i++) {
        if (ipiv) ipiv[i] = ip[i];
        if (jpiv) jpiv[i] = jp[i];
    }
    free(ip);
    free(jp);
    return info;
}

int tl_ref_getc2(int n, int nrhs, const double *A, const double *B, double *X)
{
    double *lu = malloc((size_t)n * n * sizeof *lu);
    int *ip = malloc((size_t)n * sizeof *ip), *jp = malloc((size_t)n * sizeof *jp), info = 0;
    memcpy(lu, A, (size_t)n * n * sizeof *lu);
    dgetc2_(&n, lu, &n, ip, jp, &info);
    for (int c = 0; c < nrhs; c++) {
        double scale = 1;
        double *x = X + (size_t)c * n;
        memcpy(x, B + (size_t)c * n, (size_t)n * sizeof *x);
        dgesc2_(&n, lu, &n, x, ip, jp, &scale);
        if (scale != 1)
            for (int i = 0; i < n; i++) x[i] /= scale;
    }
    free(lu);
    free(ip);
    free(jp);
    return info;
}

int tl_ref_getrf(int n, const double *A, double *LU, int32_t *ipiv)
{
    double *lu = malloc((size_t)n * n * sizeof *lu);
    lapack_int *ip = malloc((size_t)n * sizeof *ip);
    memcpy(lu, A, (size_t)n * n * sizeof *lu);
    lapack_int info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, lu, n, ip);
    if (LU) memcpy(LU, lu, (size_t)n * n * sizeof *lu);
    if (ipiv)
        for (int i = 0; i < n; i++) ipiv[i] = (int32_t)ip[i];
    free(lu);
    free(ip);
    return (int)info;
}

double tl_rcond_inf(int n, const double *A)
{
    double *lu = malloc((size_t)n * n * sizeof *lu), rc = 0;
    lapack_int *ip = malloc((size_t)n * sizeof *ip);
    memcpy(lu, A, (size_t)n * n * sizeof *lu);
    double anorm = tl_norm_inf(n, n, A);
    if (LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, lu, n, ip) == 0)
        LAPACKE_dgecon(LAPACK_COL_MAJOR, 'I', n, lu, n, anorm, &rc);
    free(lu);
    free(ip);
    return rc;
}

/* ====================================================================== error measures */

double tl_eps(bsolve_precision p) { return p == BSOLVE_PREC_S ? FLT_EPSILON : DBL_EPSILON; }

double tl_norm_inf(int r, int c, const double *A)
{
    double m = 0;
    for (int i = 0; i < r; i++) {
        double s = 0;
        for (int j = 0; j < c; j++) s += fabs(A[i + (size_t)j * r]);
        if (s > m || isnan(s)) m = s;
    }
    return m;
}

double tl_backward_ratio(int n, int nrhs, const double *A, const double *B, const double *X,
                         double eps)
{
    long double anorm = 0, worst = 0;
    for (int i = 0; i < n; i++) { /* in long double: entries near DBL_MAX must not overflow the norm */
        long double rs = 0;
        for (int j = 0; j < n; j++) rs += fabsl((long double)A[i + (size_t)j * n]);
        if (!(rs <= anorm)) anorm = rs;
    }
    for (int c = 0; c < nrhs; c++) {
        const double *x = X + (size_t)c * n, *b = B + (size_t)c * n;
        long double xn = 0, rn = 0;
        for (int i = 0; i < n; i++) {
            if (!isfinite(x[i])) return INFINITY;
            if (fabsl(x[i]) > xn) xn = fabsl(x[i]);
        }
        for (int i = 0; i < n; i++) {
            long double s = b[i];
            for (int j = 0; j < n; j++) s -= (long double)A[i + (size_t)j * n] * x[j];
            if (fabsl(s) > rn) rn = fabsl(s);
        }
        long double den = (long double)n * eps * anorm * xn, q;
        if (den > 0)
            q = rn / den;
        else
            q = rn == 0 ? 0 : INFINITY;
        if (q > worst) worst = q;
    }
    return (double)worst;
}

double tl_rel_diff(int n, int nrhs, const double *X, const double *Y)
{
    double dm = 0, ym = 0;
    for (size_t t = 0; t < (size_t)n * nrhs; t++) {
        if (!isfinite(X[t])) return INFINITY;
        double d = fabs(X[t] - Y[t]);
        if (d > dm) dm = d;
        if (fabs(Y[t]) > ym) ym = fabs(Y[t]);
    }
    return ym > 0 ? dm / ym : (dm == 0 ? 0 : INFINITY);
}

double tl_lu_ratio(int n, const double *A, const double *LU, const int32_t *ipiv,
                   const int32_t *jpiv, double eps)
{
    size_t nn = (size_t)n * n;
    long double *m = malloc(nn * sizeof *m);
    for (size_t t = 0; t < nn; t++) m[t] = A[t];
    for (int i = 0; i < n; i++) {
        int p = ipiv[i] - 1;
        if (p < 0 || p >= n) { free(m); return INFINITY; }
        if (p != i)
            for (int j = 0; j < n; j++) {
                long double t = m[i + (size_t)j * n];
                m[i + (size_t)j * n] = m[p + (size_t)j * n];
                m[p + (size_t)j * n] = t;
            }
    }
    if (jpiv)
        for (int j = 0; j < n; j++) {
            int q = jpiv[j] - 1;
            if (q < 0 || q >= n) { free(m); return INFINITY; }
            if (q != j)
                for (int i = 0; i < n; i++) {
                    long double t = m[i + (size_t)j * n];
                    m[i + (size_t)j * n] = m[i + (size_t)q * n];
                    m[i + (size_t)q * n] = t;
                }
        }
    long double rn = 0;
    for (int i = 0; i < n; i++) {
        long double rs = 0;
        for (int j = 0; j < n; j++) {
            long double s = 0;
            int kmax = i < j ? i : j;
            for (int k = 0; k <= kmax; k++) {
                long double l = k == i ? 1.0L : LU[i + (size_t)k * n];
                s += l * LU[k + (size_t)j * n];
            }
            rs += fabsl(m[i + (size_t)j * n] - s);
        }
        if (!(rs <= rn)) rn = rs; /* NaN propagates */
    }
    free(m);
    if (isnan((double)rn)) return INFINITY;
    long double den = (long double)n * eps * tl_norm_inf(n, n, A);
    return den > 0 ? (double)(rn / den) : (rn == 0 ? 0 : INFINITY);
}

int tl_lu_agree(int n, const double *A, const double *X, const int32_t *xip, const int32_t *xjp, const double *Y,
                const int32_t *yip, const int32_t *yjp, double tol, double eps)
{
    int same = !memcmp(xip, yip, (size_t)n * sizeof *xip) && (!xjp || !memcmp(xjp, yjp, (size_t)n * sizeof *xjp));
    for (size_t t = 0; same && t < (size_t)n * n; t++) same = fabs(X[t] - Y[t]) <= tol * (1 + fabs(Y[t]));
    return same || tl_lu_ratio(n, A, X, xip, xjp, eps) < TL_BWD_MAX;
}

int tl_all_nan(int64_t count, const double *X)
{
    for (int64_t i = 0; i < count; i++)
        if (!isnan(X[i])) return 0;
    return 1;
}

/* ====================================================================== names, dispatch */

const char *tl_pivot_name(bsolve_pivot p)
{
    switch (p) {
    case BSOLVE_PIVOT_NONE: return "none";
    case BSOLVE_PIVOT_PARTIAL: return "partial";
    case BSOLVE_PIVOT_FULL: return "full";
    default: return "?";
    }
}

const char *tl_prec_name(bsolve_precision p) { return p == BSOLVE_PREC_S ? "s" : "d"; }

const char *tl_status_name(bsolve_status s)
{
    static const char *n[] = {"SUCCESS", "EINVAL", "ENULL", "ENOMEM",
                              "ENODEVICE", "ENOTSUP", "EMISMATCH", "EDEVICE"};
    return (unsigned)s < sizeof n / sizeof *n ? n[s] : "?";
}

int tl_has_word(const char *msg, const char *word)
{
    size_t wl = strlen(word);
    if (!msg || !wl) return 0;
    for (const char *p = msg; (p = strstr(p, word)) != NULL; p++) {
        int before = p > msg && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = isalnum((unsigned char)p[wl]) || p[wl] == '_';
        if (!before && !after) return 1;
    }
    return 0;
}

bsolve_status tl_gesv(bsolve_ctx *ctx, bsolve_precision prec, bsolve_pivot pivot, int64_t n,
                      int64_t nrhs, int64_t batch, const void *A, bsolve_layout la, void *B,
                      bsolve_layout lb, int32_t *info)
{
    if (prec == BSOLVE_PREC_S)
        return bsolve_sgesv(ctx, pivot, n, nrhs, batch, A, la, B, lb, info);
    return bsolve_dgesv(ctx, pivot, n, nrhs, batch, A, la, B, lb, info);
}

bsolve_status tl_getrf(bsolve_ctx *ctx, bsolve_precision prec, const void *A, bsolve_layout la,
                       bsolve_lu *lu, int32_t *info)
{
    if (prec == BSOLVE_PREC_S) return bsolve_sgetrf(ctx, A, la, lu, info);
    return bsolve_dgetrf(ctx, A, la, lu, info);
}

bsolve_status tl_getrs(bsolve_ctx *ctx, bsolve_precision prec, const bsolve_lu *lu, int64_t nrhs,
                       void *B, bsolve_layout lb, int32_t *info)
{
    if (prec == BSOLVE_PREC_S) return bsolve_sgetrs(ctx, lu, nrhs, B, lb, info);
    return bsolve_dgetrs(ctx, lu, nrhs, B, lb, info);
}

bsolve_status tl_convert(bsolve_ctx *ctx, bsolve_precision prec, int64_t r, int64_t c,
                         int64_t batch, const void *src, bsolve_layout ls, void *dst,
                         bsolve_layout ld)
{
    if (prec == BSOLVE_PREC_S) return bsolve_sconvert(ctx, r, c, batch, src, ls, dst, ld);
    return bsolve_dconvert(ctx, r, c, batch, src, ls, dst, ld);
}

int tl_run(const char *path, const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s > /dev/null 2>&1", path, args);
    const int s = system(cmd);
    return s != -1 && WIFEXITED(s) ? WEXITSTATUS(s) : -1;
}
