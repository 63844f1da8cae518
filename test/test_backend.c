/*
 * test_backend.c -- choosing a backend and saying why: bsolve_backend_probe
 * agrees with bsolve_ctx_create for every backend; AUTO on a machine (or
 * build) without a usable GPU runs on the CPU and its context's message
 * gives the reason until the next call; a failed CUDA context leaves *ctx
 * NULL and the probe gives its reason.
 *
 * Correct both ways: where the probe finds a usable GPU, AUTO must take it
 * (and the probe of CUDA succeed); with BSOLVE_TEST_BACKEND=cuda (make
 * gpu-test) a usable GPU is required.  A build without nvcc has none.
 */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h" /* bsi_cuda_available: whether this build has a CUDA backend at all */

START_TEST(t_probe_matches_create)
{
    char why[256], small[8];
    /* CPU: always usable, nothing to say */
    memset(why, 'x', sizeof why);
    ck_assert_int_eq(bsolve_backend_probe(BSOLVE_BACKEND_CPU, why, sizeof why), BSOLVE_SUCCESS);
    ck_assert_str_eq(why, "");

    /* CUDA */
    memset(why, 'x', sizeof why);
    const bsolve_status pc = bsolve_backend_probe(BSOLVE_BACKEND_CUDA, why, sizeof why);
    ck_assert_msg(memchr(why, '\0', sizeof why) != NULL, "probe(CUDA) left why unterminated");
    bsolve_ctx *ctx = (bsolve_ctx *)why; /* garbage that must be overwritten */
    const bsolve_status cc = bsolve_ctx_create(&ctx, BSOLVE_BACKEND_CUDA);
    ck_assert_msg(cc == pc, "ctx_create(CUDA) = %s but probe(CUDA) = %s (\"%s\")", tl_status_name(cc),
                  tl_status_name(pc), why);
    if (pc == BSOLVE_SUCCESS) {
        ck_assert_str_eq(why, "");
        ck_assert_msg(ctx != NULL && bsolve_ctx_backend(ctx) == BSOLVE_BACKEND_CUDA, "CUDA context not on CUDA");
        ck_assert_str_eq(bsolve_ctx_message(ctx), "");
        bsolve_ctx_destroy(ctx);
    } else {
        ck_assert_msg(pc == BSOLVE_ENODEVICE, "probe(CUDA) = %s, expected SUCCESS or ENODEVICE (\"%s\")",
                      tl_status_name(pc), why);
        ck_assert_msg(ctx == NULL, "failed ctx_create(CUDA) did not set *ctx to NULL");
        ck_assert_msg(strlen(why) > 0, "probe(CUDA) = ENODEVICE without a reason");
    }
    if (tl_backend() == BSOLVE_BACKEND_CUDA)
        ck_assert_msg(pc == BSOLVE_SUCCESS, "BSOLVE_TEST_BACKEND=cuda but probe(CUDA) = %s (\"%s\")",
                      tl_status_name(pc), why);
    if (!bsi_cuda_available())
        ck_assert_msg(pc == BSOLVE_ENODEVICE, "no CUDA device (or no CUDA backend in this build), probe(CUDA) = %s",
                      tl_status_name(pc));

    /* AUTO: always SUCCESS; the reason (if any) is the CPU fallback's */
    char whya[256];
    memset(whya, 'x', sizeof whya);
    ck_assert_int_eq(bsolve_backend_probe(BSOLVE_BACKEND_AUTO, whya, sizeof whya), BSOLVE_SUCCESS);
    ctx = NULL;
    ck_assert_int_eq(bsolve_ctx_create(&ctx, BSOLVE_BACKEND_AUTO), BSOLVE_SUCCESS);
    ck_assert_ptr_nonnull(ctx);
    if (pc == BSOLVE_SUCCESS) {
        ck_assert_msg(bsolve_ctx_backend(ctx) == BSOLVE_BACKEND_CUDA, "a usable GPU, but AUTO runs on %s",
                      bsolve_backend_name(bsolve_ctx_backend(ctx)));
        ck_assert_str_eq(bsolve_ctx_message(ctx), "");
        ck_assert_str_eq(whya, "");
    } else {
        const char *msg = bsolve_ctx_message(ctx);
        ck_assert_msg(bsolve_ctx_backend(ctx) == BSOLVE_BACKEND_CPU, "no usable GPU, but AUTO runs on %s",
                      bsolve_backend_name(bsolve_ctx_backend(ctx)));
        ck_assert_msg(strlen(msg) > 0, "AUTO fell back to the CPU without saying why");
        ck_assert_msg(tl_has_word(msg, "CPU") || tl_has_word(msg, "cpu"), "AUTO's message \"%s\" does not say CPU",
                      msg);
        ck_assert_msg(strstr(msg, why) != NULL, "AUTO's message \"%s\" does not give CUDA's reason \"%s\"", msg, why);
        ck_assert_str_eq(whya, msg);
        /* kept until the next call on the context, then "" after a success */
        ck_assert_str_eq(bsolve_ctx_message(ctx), msg);
        ck_assert_int_eq(bsolve_ctx_set_threads(ctx, 0), BSOLVE_SUCCESS);
        ck_assert_str_eq(bsolve_ctx_message(ctx), "");
    }
    bsolve_ctx_destroy(ctx);

    /* a short buffer: truncated, terminated; NULL or 0 accepted */
    memset(small, 'x', sizeof small);
    ck_assert_int_eq(bsolve_backend_probe(BSOLVE_BACKEND_CUDA, small, sizeof small), pc);
    ck_assert_msg(memchr(small, '\0', sizeof small) != NULL, "probe into an 8-byte buffer left it unterminated");
    if (pc == BSOLVE_SUCCESS) ck_assert_msg(small[0] == '\0', "a successful probe gave a reason \"%.7s\"", small);
    if (pc != BSOLVE_SUCCESS) ck_assert_msg(strncmp(small, why, sizeof small - 1) == 0, "truncated reason differs");
    ck_assert_int_eq(bsolve_backend_probe(BSOLVE_BACKEND_CUDA, NULL, 0), pc);
    memset(small, 'x', sizeof small);
    ck_assert_int_eq(bsolve_backend_probe(BSOLVE_BACKEND_CUDA, small, 0), pc);
    ck_assert_msg(small[0] == 'x', "probe with why_len = 0 wrote into why");

    /* not a backend */
    memset(why, 'x', sizeof why);
    ck_assert_int_eq(bsolve_backend_probe((bsolve_backend)7, why, sizeof why), BSOLVE_EINVAL);
    ck_assert_msg(tl_has_word(why, "backend"), "probe(7): \"%s\" does not name the backend", why);
    ck_assert_int_eq(bsolve_backend_probe((bsolve_backend)-1, NULL, 0), BSOLVE_EINVAL);
    ctx = NULL;
    ck_assert_int_eq(bsolve_ctx_create(&ctx, (bsolve_backend)7), BSOLVE_EINVAL);
    ck_assert_ptr_null(ctx);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("backend");
    TCase *tc = tl_tcase("backend");
    tcase_add_test(tc, t_probe_matches_create);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tl_main(suite()); }
