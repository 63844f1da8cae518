/*
 * test_overflow.c -- sizes near INT64_MAX: every routine refuses a layout,
 * a batch, an nrhs or a factorization object whose size does not fit in
 * int64_t (in elements or in bytes) with BSOLVE_EINVAL, a message naming
 * the argument, and nothing written (B, info, dst keep their poison).
 *
 * The layouts tried per array: ld = 2^62, 2^60 (with 16 columns: 15 * 2^60
 * overflows), INT64_MAX, and the smallest ld whose last entry's byte offset
 * overflows; stride = INT64_MAX, 2^62 and the smallest overflowing stride
 * (batch >= 2); interleaved ld = 2^62, INT64_MAX and the smallest
 * overflowing ld; batches of 2^60, 2^62 and INT64_MAX.
 */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define P62 (INT64_C(1) << 62)
#define P60 (INT64_C(1) << 60)

#define NS 16    /* order / rows of every matrix: 2^60 * (16 - 1) overflows */
#define NQ 8     /* QR columns */
#define NRHS 2
#define BATCH 3

/* words: groups separated by ';', alternatives by '|'; every group must match. */
static int names(const char *msg, const char *words)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", words);
    char *save1 = NULL;
    for (char *g = strtok_r(buf, ";", &save1); g; g = strtok_r(NULL, ";", &save1)) {
        char alt[128];
        snprintf(alt, sizeof alt, "%s", g);
        int found = 0;
        char *save2 = NULL;
        for (char *w = strtok_r(alt, "|", &save2); w && !found; w = strtok_r(NULL, "|", &save2))
            found = tl_has_word(msg, w);
        if (!found) return 0;
    }
    return 1;
}

/* ---- poisoned arrays --------------------------------------------------------- */

#define NB (BATCH * NS * NS + 64)
typedef struct {
    double A[NB], B[NB], B0[NB], dl[NB], d[NB], du[NB];
    float As[NB], Bs[NB], Bs0[NB];
    int32_t info[BATCH + 8];
} arrays;

static arrays *arr_new(void)
{
    arrays *g = malloc(sizeof *g);
    tl_rng r;
    tl_rng_seed(&r, tl_seed(3400, 0));
    for (int i = 0; i < NB; i++) {
        g->A[i] = tl_rng_uniform(&r) + (i % (NS + 1) == 0 ? 4 * NS : 0);
        g->As[i] = (float)g->A[i];
        g->B[i] = g->B0[i] = tl_rng_uniform(&r);
        g->Bs[i] = g->Bs0[i] = (float)g->B[i];
        g->dl[i] = g->du[i] = 1, g->d[i] = 4;
    }
    for (int k = 0; k < BATCH + 8; k++) g->info[k] = TL_I32_POISON;
    return g;
}

static void expect_refused(bsolve_ctx *ctx, bsolve_status st, const arrays *g, const char *what, const char *words)
{
    const char *msg = bsolve_ctx_message(ctx);
    TL_EXPECT(st == BSOLVE_EINVAL, "%s: status %s, expected EINVAL (message \"%s\")", what, tl_status_name(st), msg);
    TL_EXPECT(names(msg, words), "%s: message \"%s\" does not name the argument (words \"%s\")", what, msg, words);
    TL_EXPECT(memcmp(g->B, g->B0, sizeof g->B) == 0 && memcmp(g->Bs, g->Bs0, sizeof g->Bs) == 0,
              "%s: a refused call wrote B", what);
    for (int k = 0; k < BATCH + 8; k++)
        TL_EXPECT(g->info[k] == TL_I32_POISON, "%s: a refused call wrote info[%d]", what, k);
}

/* ---- bad layouts --------------------------------------------------------------- */

typedef struct {
    bsolve_layout l;
    bsolve_tlayout t;
    int64_t batch;     /* the batch the layout overflows with */
    char what[128];
    const char *words; /* what the message must name besides the array */
} bad;

/* 1 when a*x + b entries (of es bytes) are more than INT64_MAX bytes. */
static int over(int64_t a, int64_t x, int64_t b, size_t es)
{
    return ((__int128)a * x + b) * (__int128)es > (__int128)INT64_MAX;
}

#define MAXBAD 32

/* Layouts of `batch` r x c matrices of es bytes whose extent overflows. */
static int dense_bad(int64_t r, int64_t c, size_t es, int64_t batch, bad *out)
{
    const int64_t Q = INT64_MAX / (int64_t)es; /* most entries a batch may span */
    int nb = 0;
#define ADD(L, BT, WORDS, ...)                                           \
    do {                                                                 \
        out[nb].l = (L);                                                 \
        out[nb].batch = (BT);                                            \
        out[nb].words = (WORDS);                                         \
        snprintf(out[nb].what, sizeof out[nb].what, __VA_ARGS__);        \
        nb++;                                                            \
    } while (0)
    for (int row = 0; row < 2; row++) {
        const int64_t len = row ? c : r, lines = row ? r : c; /* ld >= len, `lines` lines ld apart */
        const char *kn = row ? "row-major" : "col-major";
        bsolve_layout (*mk)(int64_t, int64_t) = row ? bsolve_layout_row_major : bsolve_layout_col_major;
        if (lines >= 2) {
            /* batch 1 and the stride unused: the ld alone overflows */
            const int64_t just = (Q - len) / (lines - 1) + 1;
            const int64_t lds[4] = {P62, P60, INT64_MAX, just};
            for (int i = 0; i < 4; i++) {
                if (lds[i] < len || !over(lines - 1, lds[i], len, es)) continue;
                ADD(mk(lds[i], 0), 1, "ld", "%s ld = %lld (%lld lines), batch 1", kn, (long long)lds[i],
                    (long long)lines);
            }
        }
        if (batch >= 2) {
            const int64_t span = (lines - 1) * len + len, just = (Q - span) / (batch - 1) + 1;
            const int64_t sts[3] = {INT64_MAX, P62, just};
            for (int i = 0; i < 3; i++) {
                if (!over(batch - 1, sts[i], span, es)) continue;
                ADD(mk(len, sts[i]), batch, "stride", "%s ld = %lld, stride = %lld, batch %lld", kn, (long long)len,
                    (long long)sts[i], (long long)batch);
            }
        }
    }
    if (r * c >= 2) {
        const int64_t just = Q / (r * c) + 1;
        const int64_t lds[3] = {P62, INT64_MAX, just};
        for (int i = 0; i < 3; i++) {
            ADD(bsolve_layout_interleaved(lds[i]), batch, "ld", "interleaved ld = %lld, batch %lld", (long long)lds[i],
                (long long)batch);
        }
    }
#undef ADD
    return nb;
}

/* The same for tridiagonal layouts of `cols` vectors of m entries. */
static int tri_bad(int64_t m, int64_t cols, size_t es, int64_t batch, bad *out)
{
    const int64_t Q = INT64_MAX / (int64_t)es;
    int nb = 0;
#define ADD(T, BT, WORDS, ...)                                           \
    do {                                                                 \
        out[nb].t = (T);                                                 \
        out[nb].batch = (BT);                                            \
        out[nb].words = (WORDS);                                         \
        snprintf(out[nb].what, sizeof out[nb].what, __VA_ARGS__);        \
        nb++;                                                            \
    } while (0)
    if (cols >= 2) {
        const int64_t just = (Q - m) / (cols - 1) + 1;
        const int64_t lds[4] = {P62, P60, INT64_MAX, just};
        for (int i = 0; i < 4; i++) {
            if (!over(cols - 1, lds[i], m, es)) continue;
            ADD(bsolve_tlayout_contiguous(lds[i], 0), 1, "ld", "contiguous ld = %lld (%lld columns), batch 1",
                (long long)lds[i], (long long)cols);
        }
    }
    if (batch >= 2) {
        const int64_t span = m * cols, just = (Q - span) / (batch - 1) + 1;
        const int64_t sts[3] = {INT64_MAX, P62, just};
        for (int i = 0; i < 3; i++) {
            if (!over(batch - 1, sts[i], span, es)) continue;
            ADD(bsolve_tlayout_contiguous(m, sts[i]), batch, "stride", "contiguous ld = m, stride = %lld, batch %lld",
                (long long)sts[i], (long long)batch);
        }
    }
    if (m * cols >= 2) {
        const int64_t just = Q / (m * cols) + 1;
        const int64_t lds[3] = {P62, INT64_MAX, just};
        for (int i = 0; i < 3; i++)
            ADD(bsolve_tlayout_interleaved(lds[i]), batch, "ld", "interleaved ld = %lld, batch %lld", (long long)lds[i],
                (long long)batch);
    }
#undef ADD
    return nb;
}


static bsolve_layout packed(int64_t r, int64_t c) { return bsolve_layout_col_major(r, r * c); }

/* ---- gesv, lu ------------------------------------------------------------------- */

START_TEST(t_lu)
{
    bsolve_ctx *ctx = tl_ctx();
    arrays *g = arr_new();
    bad bd[MAXBAD];
    char w[320];
    const bsolve_pivot P = BSOLVE_PIVOT_PARTIAL;
    for (int prec = 0; prec < 2; prec++) {
        const size_t es = prec ? 8 : 4;
        const char *pn = prec ? "d" : "s";
        void *A = prec ? (void *)g->A : (void *)g->As, *B = prec ? (void *)g->B : (void *)g->Bs;
        /* gesv: A, then B */
        for (int slot = 0; slot < 2; slot++) {
            const int nbad = dense_bad(NS, slot ? NRHS : NS, es, BATCH, bd);
            for (int i = 0; i < nbad; i++) {
                const int64_t bt = bd[i].batch;
                bsolve_layout la = slot ? packed(NS, NS) : bd[i].l, lb = slot ? bd[i].l : packed(NS, NRHS);
                bsolve_status st = tl_gesv(ctx, (bsolve_precision)prec, P, NS, NRHS, bt, A, la, B, lb, g->info);
                snprintf(w, sizeof w, "%sgesv %s %s", pn, slot ? "B" : "A", bd[i].what);
                char words[64];
                snprintf(words, sizeof words, "%s;%s", slot ? "B|lb" : "A|la", bd[i].words);
                expect_refused(ctx, st, g, w, words);
            }
        }
        /* gesv: huge batches (every layout kind), huge nrhs */
        const int64_t hb[3] = {P60, P62, INT64_MAX};
        for (int i = 0; i < 3; i++)
            for (int kind = 0; kind < 3; kind++) {
                bsolve_layout la, lb;
                if (kind == 2) la = lb = bsolve_layout_interleaved(hb[i]);
                else if (kind == 1) la = bsolve_layout_row_major(NS, NS * NS), lb = bsolve_layout_row_major(NRHS, NS * NRHS);
                else la = packed(NS, NS), lb = packed(NS, NRHS);
                bsolve_status st = tl_gesv(ctx, (bsolve_precision)prec, P, NS, NRHS, hb[i], A, la, B, lb, g->info);
                snprintf(w, sizeof w, "%sgesv batch = %lld, layout kind %d", pn, (long long)hb[i], kind);
                expect_refused(ctx, st, g, w, "A|la|B|lb;ld|stride|batch");
            }
        const int64_t hn[3] = {(int64_t)INT32_MAX + 1, P62, INT64_MAX};
        for (int i = 0; i < 3; i++) {
            bsolve_status st = tl_gesv(ctx, (bsolve_precision)prec, P, NS, hn[i], BATCH, A, packed(NS, NS), B,
                                       bsolve_layout_interleaved(BATCH), g->info);
            snprintf(w, sizeof w, "%sgesv nrhs = %lld", pn, (long long)hn[i]);
            expect_refused(ctx, st, g, w, "nrhs");
        }

        /* lu_create: factors past INT64_MAX bytes */
        const int64_t lb_[5] = {INT64_MAX, INT64_MAX - 100, P62, P60, INT64_MAX / (NS * NS * (int64_t)es) + 1};
        for (int i = 0; i < 5; i++) {
            bsolve_lu *lu = (bsolve_lu *)g; /* garbage that must be overwritten */
            bsolve_status st = bsolve_lu_create(ctx, (bsolve_precision)prec, P, NS, lb_[i], &lu);
            snprintf(w, sizeof w, "lu_create(%s, n = %d, batch = %lld)", pn, NS, (long long)lb_[i]);
            expect_refused(ctx, st, g, w, "batch");
            TL_EXPECT(lu == NULL, "%s: *lu not set to NULL", w);
        }

        /* getrf, getrs, lu_export on a small factorization */
        bsolve_lu *lu = NULL;
        ck_assert_int_eq(bsolve_lu_create(ctx, (bsolve_precision)prec, P, NS, BATCH, &lu), BSOLVE_SUCCESS);
        ck_assert_int_eq(tl_getrf(ctx, (bsolve_precision)prec, A, packed(NS, NS), lu, g->info), BSOLVE_SUCCESS);
        for (int k = 0; k < BATCH + 8; k++) g->info[k] = TL_I32_POISON;
        int nbad = dense_bad(NS, NS, es, BATCH, bd);
        for (int i = 0; i < nbad; i++) {
            if (bd[i].batch != BATCH) continue; /* the object's batch is fixed */
            snprintf(w, sizeof w, "%sgetrf A %s", pn, bd[i].what);
            char words[64];
            snprintf(words, sizeof words, "A|la;%s", bd[i].words);
            expect_refused(ctx, tl_getrf(ctx, (bsolve_precision)prec, A, bd[i].l, lu, g->info), g, w, words);
            snprintf(w, sizeof w, "lu_export (%s) LU %s", pn, bd[i].what);
            snprintf(words, sizeof words, "LU;%s", bd[i].words);
            expect_refused(ctx, bsolve_lu_export(ctx, lu, B, bd[i].l, NULL, NULL), g, w, words);
        }
        /* the same layouts with the batch 1 of an object of one system */
        bsolve_lu *lu1 = NULL;
        ck_assert_int_eq(bsolve_lu_create(ctx, (bsolve_precision)prec, P, NS, 1, &lu1), BSOLVE_SUCCESS);
        for (int i = 0; i < nbad; i++) {
            if (bd[i].batch != 1) continue;
            snprintf(w, sizeof w, "%sgetrf (batch 1) A %s", pn, bd[i].what);
            char words[64];
            snprintf(words, sizeof words, "A|la;%s", bd[i].words);
            expect_refused(ctx, tl_getrf(ctx, (bsolve_precision)prec, A, bd[i].l, lu1, g->info), g, w, words);
        }
        nbad = dense_bad(NS, NRHS, es, BATCH, bd);
        for (int i = 0; i < nbad; i++) {
            if (bd[i].batch != BATCH) continue;
            snprintf(w, sizeof w, "%sgetrs B %s", pn, bd[i].what);
            char words[64];
            snprintf(words, sizeof words, "B|lb;%s", bd[i].words);
            expect_refused(ctx, tl_getrs(ctx, (bsolve_precision)prec, lu, NRHS, B, bd[i].l, g->info), g, w, words);
        }
        for (int i = 0; i < 3; i++) {
            snprintf(w, sizeof w, "%sgetrs nrhs = %lld", pn, (long long)hn[i]);
            expect_refused(ctx, tl_getrs(ctx, (bsolve_precision)prec, lu, hn[i], B, bsolve_layout_interleaved(BATCH),
                                         g->info), g, w, "nrhs");
        }
        bsolve_lu_destroy(lu);
        bsolve_lu_destroy(lu1);
    }
    TL_CLEAN("gesv / lu_create / getrf / getrs / lu_export with sizes past INT64_MAX");
    free(g);
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* ---- convert ------------------------------------------------------------------- */

START_TEST(t_convert)
{
    bsolve_ctx *ctx = tl_ctx();
    arrays *g = arr_new();
    bad bd[MAXBAD];
    char w[320], words[64];
    for (int prec = 0; prec < 2; prec++) {
        const size_t es = prec ? 8 : 4;
        const void *src = prec ? (void *)g->A : (void *)g->As;
        void *dst = prec ? (void *)g->B : (void *)g->Bs;
        for (int slot = 0; slot < 2; slot++) {
            const int nbad = dense_bad(NS, NRHS, es, BATCH, bd);
            for (int i = 0; i < nbad; i++) {
                const int64_t bt = bd[i].batch;
                bsolve_layout ls = slot ? packed(NS, NRHS) : bd[i].l, ld = slot ? bd[i].l : packed(NS, NRHS);
                snprintf(w, sizeof w, "%sconvert %s %s", prec ? "d" : "s", slot ? "dst" : "src", bd[i].what);
                snprintf(words, sizeof words, "%s;%s", slot ? "dst|ldst" : "src|lsrc", bd[i].words);
                expect_refused(ctx, tl_convert(ctx, (bsolve_precision)prec, NS, NRHS, bt, src, ls, dst, ld), g, w,
                               words);
            }
        }
        /* r or c so large that one matrix cannot be addressed */
        const int64_t big[3] = {P60, P62, INT64_MAX};
        for (int i = 0; i < 3; i++) {
            snprintf(w, sizeof w, "%sconvert r = %lld", prec ? "d" : "s", (long long)big[i]);
            expect_refused(ctx, tl_convert(ctx, (bsolve_precision)prec, big[i], 2, 1, src,
                                           bsolve_layout_col_major(big[i], 0), dst, bsolve_layout_interleaved(1)),
                           g, w, "src|lsrc;ld|stride|batch");
            snprintf(w, sizeof w, "%sconvert c = %lld", prec ? "d" : "s", (long long)big[i]);
            expect_refused(ctx, tl_convert(ctx, (bsolve_precision)prec, 2, big[i], 1, src, bsolve_layout_interleaved(1),
                                           dst, bsolve_layout_row_major(big[i], 0)),
                           g, w, "src|lsrc|dst|ldst;ld|stride|batch");
            snprintf(w, sizeof w, "%sconvert batch = %lld", prec ? "d" : "s", (long long)big[i]);
            expect_refused(ctx, tl_convert(ctx, (bsolve_precision)prec, NS, NRHS, big[i], src, packed(NS, NRHS), dst,
                                           bsolve_layout_interleaved(big[i])),
                           g, w, "src|lsrc|dst|ldst;ld|stride|batch");
        }
    }
    TL_CLEAN("convert with sizes past INT64_MAX");
    free(g);
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* ---- QR ----------------------------------------------------------------------- */

static bsolve_status gels_p(bsolve_ctx *ctx, int prec, int64_t m, int64_t n, int64_t nrhs, int64_t batch,
                            const void *A, bsolve_layout la, void *B, bsolve_layout lb, int32_t *info)
{
    return prec ? bsolve_dgels(ctx, m, n, nrhs, batch, A, la, B, lb, info)
                : bsolve_sgels(ctx, m, n, nrhs, batch, A, la, B, lb, info);
}

START_TEST(t_qr)
{
    bsolve_ctx *ctx = tl_ctx();
    arrays *g = arr_new();
    bad bd[MAXBAD];
    char w[320], words[64];
    for (int prec = 0; prec < 2; prec++) {
        const size_t es = prec ? 8 : 4;
        const char *pn = prec ? "d" : "s";
        void *A = prec ? (void *)g->A : (void *)g->As, *B = prec ? (void *)g->B : (void *)g->Bs;
        for (int slot = 0; slot < 2; slot++) {
            const int nbad = dense_bad(NS, slot ? NRHS : NQ, es, BATCH, bd);
            for (int i = 0; i < nbad; i++) {
                const int64_t bt = bd[i].batch;
                bsolve_layout la = slot ? packed(NS, NQ) : bd[i].l, lb = slot ? bd[i].l : packed(NS, NRHS);
                snprintf(w, sizeof w, "%sgels %s %s", pn, slot ? "B" : "A", bd[i].what);
                snprintf(words, sizeof words, "%s;%s", slot ? "B|lb" : "A|la", bd[i].words);
                expect_refused(ctx, gels_p(ctx, prec, NS, NQ, NRHS, bt, A, la, B, lb, g->info), g, w, words);
            }
        }
        const int64_t hb[3] = {P60, P62, INT64_MAX}, hn[3] = {(int64_t)INT32_MAX + 1, P62, INT64_MAX};
        for (int i = 0; i < 3; i++) {
            snprintf(w, sizeof w, "%sgels batch = %lld", pn, (long long)hb[i]);
            expect_refused(ctx, gels_p(ctx, prec, NS, NQ, NRHS, hb[i], A, bsolve_layout_interleaved(hb[i]), B,
                                       packed(NS, NRHS), g->info), g, w, "A|la|B|lb;ld|stride|batch");
            snprintf(w, sizeof w, "%sgels nrhs = %lld", pn, (long long)hn[i]);
            expect_refused(ctx, gels_p(ctx, prec, NS, NQ, hn[i], BATCH, A, packed(NS, NQ), B,
                                       bsolve_layout_interleaved(BATCH), g->info), g, w, "nrhs");
        }
        const int64_t qb[4] = {INT64_MAX, P62, P60, INT64_MAX / (NS * NQ * (int64_t)es) + 1};
        for (int i = 0; i < 4; i++) {
            bsolve_qr *qr = (bsolve_qr *)g;
            bsolve_status st = bsolve_qr_create(ctx, (bsolve_precision)prec, NS, NQ, qb[i], &qr);
            snprintf(w, sizeof w, "qr_create(%s, %d x %d, batch = %lld)", pn, NS, NQ, (long long)qb[i]);
            expect_refused(ctx, st, g, w, "batch");
            TL_EXPECT(qr == NULL, "%s: *qr not set to NULL", w);
        }
        bsolve_qr *qr = NULL;
        ck_assert_int_eq(bsolve_qr_create(ctx, (bsolve_precision)prec, NS, NQ, BATCH, &qr), BSOLVE_SUCCESS);
        ck_assert_int_eq(prec ? bsolve_dgeqrf(ctx, g->A, packed(NS, NQ), qr, g->info)
                              : bsolve_sgeqrf(ctx, g->As, packed(NS, NQ), qr, g->info),
                         BSOLVE_SUCCESS);
        for (int k = 0; k < BATCH + 8; k++) g->info[k] = TL_I32_POISON;
        int nbad = dense_bad(NS, NQ, es, BATCH, bd);
        for (int i = 0; i < nbad; i++) {
            if (bd[i].batch != BATCH) continue;
            snprintf(w, sizeof w, "%sgeqrf A %s", pn, bd[i].what);
            snprintf(words, sizeof words, "A|la;%s", bd[i].words);
            expect_refused(ctx, prec ? bsolve_dgeqrf(ctx, g->A, bd[i].l, qr, g->info)
                                     : bsolve_sgeqrf(ctx, g->As, bd[i].l, qr, g->info), g, w, words);
        }
        nbad = dense_bad(NS, NRHS, es, BATCH, bd);
        for (int i = 0; i < nbad; i++) {
            if (bd[i].batch != BATCH) continue;
            snprintf(w, sizeof w, "%sgeqrs B %s", pn, bd[i].what);
            snprintf(words, sizeof words, "B|lb;%s", bd[i].words);
            expect_refused(ctx, prec ? bsolve_dgeqrs(ctx, qr, NRHS, g->B, bd[i].l, g->info)
                                     : bsolve_sgeqrs(ctx, qr, NRHS, g->Bs, bd[i].l, g->info), g, w, words);
        }
        for (int i = 0; i < 3; i++) {
            snprintf(w, sizeof w, "%sgeqrs nrhs = %lld", pn, (long long)hn[i]);
            expect_refused(ctx, prec ? bsolve_dgeqrs(ctx, qr, hn[i], g->B, bsolve_layout_interleaved(BATCH), g->info)
                                     : bsolve_sgeqrs(ctx, qr, hn[i], g->Bs, bsolve_layout_interleaved(BATCH), g->info),
                           g, w, "nrhs");
        }
        /* qr_export: Q is m x m, R n x n */
        nbad = dense_bad(NS, NS, es, BATCH, bd);
        for (int i = 0; i < nbad; i++) {
            if (bd[i].batch != BATCH) continue;
            snprintf(w, sizeof w, "qr_export (%s) Q %s", pn, bd[i].what);
            snprintf(words, sizeof words, "Q|lq;%s", bd[i].words);
            expect_refused(ctx, bsolve_qr_export(ctx, qr, B, bd[i].l, NULL, packed(NQ, NQ)), g, w, words);
        }
        nbad = dense_bad(NQ, NQ, es, BATCH, bd);
        for (int i = 0; i < nbad; i++) {
            if (bd[i].batch != BATCH) continue;
            snprintf(w, sizeof w, "qr_export (%s) R %s", pn, bd[i].what);
            snprintf(words, sizeof words, "R|lr;%s", bd[i].words);
            expect_refused(ctx, bsolve_qr_export(ctx, qr, NULL, packed(NS, NS), B, bd[i].l), g, w, words);
        }
        bsolve_qr_destroy(qr);
    }
    TL_CLEAN("gels / qr_create / geqrf / geqrs / qr_export with sizes past INT64_MAX");
    free(g);
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* ---- tridiagonal --------------------------------------------------------------- */

static bsolve_status gtsv_p(bsolve_ctx *ctx, int prec, int64_t m, int64_t nrhs, int64_t batch, const arrays *g,
                            bsolve_tlayout lt, arrays *gb, bsolve_tlayout lb, int32_t *info)
{
    if (prec)
        return bsolve_dgtsv(ctx, BSOLVE_GTSV_PARTIAL, m, nrhs, batch, g->dl, g->d, g->du, lt, gb->B, lb, info);
    return bsolve_sgtsv(ctx, BSOLVE_GTSV_PARTIAL, m, nrhs, batch, (const float *)g->A, (const float *)g->A,
                        (const float *)g->A, lt, gb->Bs, lb, info);
}

START_TEST(t_gtsv)
{
    bsolve_ctx *ctx = tl_ctx();
    arrays *g = arr_new();
    bad bd[MAXBAD];
    char w[320], words[64];
    const bsolve_tlayout tp1 = bsolve_tlayout_contiguous(NS, NS), tpb = bsolve_tlayout_contiguous(NS, NS * NRHS);
    for (int prec = 0; prec < 2; prec++) {
        const size_t es = prec ? 8 : 4;
        const char *pn = prec ? "d" : "s";
        for (int slot = 0; slot < 2; slot++) {
            const int nbad = tri_bad(NS, slot ? NRHS : 1, es, BATCH, bd);
            for (int i = 0; i < nbad; i++) {
                const int64_t bt = bd[i].batch;
                snprintf(w, sizeof w, "%sgtsv %s %s", pn, slot ? "lb" : "lt", bd[i].what);
                snprintf(words, sizeof words, "%s;%s", slot ? "lb|B" : "lt", bd[i].words);
                expect_refused(ctx, gtsv_p(ctx, prec, NS, NRHS, bt, g, slot ? tp1 : bd[i].t, g, slot ? bd[i].t : tpb,
                                           g->info), g, w, words);
            }
        }
        const int64_t hb[3] = {P60, P62, INT64_MAX}, hn[3] = {(int64_t)INT32_MAX + 1, P62, INT64_MAX};
        for (int i = 0; i < 3; i++) {
            snprintf(w, sizeof w, "%sgtsv batch = %lld", pn, (long long)hb[i]);
            expect_refused(ctx, gtsv_p(ctx, prec, NS, NRHS, hb[i], g, bsolve_tlayout_interleaved(hb[i]), g, tpb,
                                       g->info), g, w, "lt|lb;ld|stride|batch");
            snprintf(w, sizeof w, "%sgtsv nrhs = %lld", pn, (long long)hn[i]);
            expect_refused(ctx, gtsv_p(ctx, prec, NS, hn[i], BATCH, g, tp1, g, bsolve_tlayout_interleaved(BATCH),
                                       g->info), g, w, "nrhs");
        }
        const int64_t gb_[4] = {INT64_MAX, P62, P60, INT64_MAX / (NS * (int64_t)es) + 1};
        for (int i = 0; i < 4; i++) {
            bsolve_gt *gt = (bsolve_gt *)g;
            bsolve_status st = bsolve_gt_create(ctx, (bsolve_precision)prec, BSOLVE_GTSV_GIVENS, NS, gb_[i], &gt);
            snprintf(w, sizeof w, "gt_create(%s, m = %d, batch = %lld)", pn, NS, (long long)gb_[i]);
            expect_refused(ctx, st, g, w, "batch");
            TL_EXPECT(gt == NULL, "%s: *gt not set to NULL", w);
        }
        bsolve_gt *gt = NULL;
        ck_assert_int_eq(bsolve_gt_create(ctx, (bsolve_precision)prec, BSOLVE_GTSV_PARTIAL, NS, BATCH, &gt),
                         BSOLVE_SUCCESS);
        ck_assert_int_eq(prec ? bsolve_dgttrf(ctx, g->dl, g->d, g->du, tp1, gt, g->info)
                              : bsolve_sgttrf(ctx, g->As, g->As, g->As, tp1, gt, g->info),
                         BSOLVE_SUCCESS);
        for (int k = 0; k < BATCH + 8; k++) g->info[k] = TL_I32_POISON;
        int nbad = tri_bad(NS, 1, es, BATCH, bd);
        for (int i = 0; i < nbad; i++) {
            if (bd[i].batch != BATCH) continue;
            snprintf(w, sizeof w, "%sgttrf lt %s", pn, bd[i].what);
            snprintf(words, sizeof words, "lt;%s", bd[i].words);
            expect_refused(ctx, prec ? bsolve_dgttrf(ctx, g->dl, g->d, g->du, bd[i].t, gt, g->info)
                                     : bsolve_sgttrf(ctx, g->As, g->As, g->As, bd[i].t, gt, g->info), g, w, words);
        }
        nbad = tri_bad(NS, NRHS, es, BATCH, bd);
        for (int i = 0; i < nbad; i++) {
            if (bd[i].batch != BATCH) continue;
            snprintf(w, sizeof w, "%sgttrs lb %s", pn, bd[i].what);
            snprintf(words, sizeof words, "lb|B;%s", bd[i].words);
            expect_refused(ctx, prec ? bsolve_dgttrs(ctx, gt, NRHS, g->B, bd[i].t, g->info)
                                     : bsolve_sgttrs(ctx, gt, NRHS, g->Bs, bd[i].t, g->info), g, w, words);
        }
        for (int i = 0; i < 3; i++) {
            snprintf(w, sizeof w, "%sgttrs nrhs = %lld", pn, (long long)hn[i]);
            expect_refused(ctx, prec ? bsolve_dgttrs(ctx, gt, hn[i], g->B, bsolve_tlayout_interleaved(BATCH), g->info)
                                     : bsolve_sgttrs(ctx, gt, hn[i], g->Bs, bsolve_tlayout_interleaved(BATCH), g->info),
                           g, w, "nrhs");
        }
        bsolve_gt_destroy(gt);
    }
    TL_CLEAN("gtsv / gt_create / gttrf / gttrs with sizes past INT64_MAX");
    free(g);
    bsolve_ctx_destroy(ctx);
}
END_TEST

/* The layouts just inside the limits still work: ld = 2^62 with one column
 * (never stepped over), a huge stride with a batch of one. */
START_TEST(t_edges_valid)
{
    bsolve_ctx *ctx = tl_ctx();
    arrays *g = arr_new();
    const int n = 4;
    double A[16] = {4, 1, 0, 0, 1, 4, 1, 0, 0, 1, 4, 1, 0, 0, 1, 4}, x[4] = {1, -2, 3, -4}, B[4];
    for (int i = 0; i < n; i++) {
        B[i] = 0;
        for (int j = 0; j < n; j++) B[i] += A[i + j * n] * x[j];
    }
    int32_t info = TL_I32_POISON;
    bsolve_status st = bsolve_dgesv(ctx, BSOLVE_PIVOT_PARTIAL, n, 1, 1, A, bsolve_layout_col_major(n, INT64_MAX), B,
                                    bsolve_layout_col_major(P62, P62), &info);
    ck_assert_msg(st == BSOLVE_SUCCESS, "gesv, batch 1, B ld = 2^62 with one column, A stride INT64_MAX: %s (%s)",
                  tl_status_name(st), bsolve_ctx_message(ctx));
    ck_assert_int_eq(info, 0);
    for (int i = 0; i < n; i++) ck_assert_msg(fabs(B[i] - x[i]) <= 1e-14, "x[%d] = %g, expected %g", i, B[i], x[i]);
    free(g);
    bsolve_ctx_destroy(ctx);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("overflow");
    TCase *tc = tl_tcase("overflow");
    tcase_add_test(tc, t_lu);
    tcase_add_test(tc, t_convert);
    tcase_add_test(tc, t_qr);
    tcase_add_test(tc, t_gtsv);
    tcase_add_test(tc, t_edges_valid);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tl_main(suite()); }
