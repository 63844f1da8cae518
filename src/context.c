/*
 * context.c -- creating contexts, choosing the backend (and saying why
 * AUTO did not take the GPU), and the workspaces that let repeated calls
 * run without allocating.
 */
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int backend_ok(bsolve_backend b)
{
    return b == BSOLVE_BACKEND_AUTO || b == BSOLVE_BACKEND_CPU || b == BSOLVE_BACKEND_CUDA;
}

/* Sets a zeroed context up on `backend` and returns what bsolve_ctx_create
 * returns for it, the reason in ctx->msg: why CUDA is unusable when that
 * fails, why AUTO runs on the CPU when it does ("" when nothing is to be
 * said).  bsi_cuda_init writes its reason into ctx->msg on failure. */
static bsolve_status open_backend(bsolve_ctx *ctx, bsolve_backend backend)
{
    ctx->backend = BSOLVE_BACKEND_CPU;
    ctx->msg[0] = '\0';
    if (backend == BSOLVE_BACKEND_CPU) return BSOLVE_SUCCESS;
    const bsolve_status s = bsi_cuda_init(ctx);
    if (s == BSOLVE_SUCCESS) {
        ctx->backend = BSOLVE_BACKEND_CUDA;
        ctx->msg[0] = '\0';
        return BSOLVE_SUCCESS;
    }
    if (!ctx->msg[0]) bsi_fail(ctx, s, "%s", bsolve_strerror(s));
    if (backend == BSOLVE_BACKEND_CUDA) return s;
    char why[BSI_MSG_LEN];
    memcpy(why, ctx->msg, sizeof why);
    bsi_fail(ctx, BSOLVE_SUCCESS, "bsolve_ctx_create: BSOLVE_BACKEND_AUTO uses the CPU backend: %s", why);
    return BSOLVE_SUCCESS;
}

bsolve_status bsolve_ctx_create(bsolve_ctx **out, bsolve_backend backend)
{
    if (!out) return BSOLVE_ENULL;
    *out = NULL;
    if (!backend_ok(backend)) return BSOLVE_EINVAL;
    bsolve_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return BSOLVE_ENOMEM;
    const bsolve_status s = open_backend(ctx, backend);
    if (s != BSOLVE_SUCCESS) {
        free(ctx);
        return s;
    }
    *out = ctx;
    return BSOLVE_SUCCESS;
}

bsolve_status bsolve_backend_probe(bsolve_backend backend, char *why, size_t why_len)
{
    if (why && why_len) why[0] = '\0';
    if (!backend_ok(backend)) {
        if (why && why_len)
            snprintf(why, why_len, "bsolve_backend_probe: backend = %d is not a bsolve_backend", (int)backend);
        return BSOLVE_EINVAL;
    }
    bsolve_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        if (why && why_len) snprintf(why, why_len, "bsolve_backend_probe: out of host memory");
        return BSOLVE_ENOMEM;
    }
    const bsolve_status s = open_backend(ctx, backend);
    if (why && why_len) snprintf(why, why_len, "%s", ctx->msg);
    if (ctx->cuda) bsi_cuda_fini(ctx);
    free(ctx);
    return s;
}

void bsolve_ctx_destroy(bsolve_ctx *ctx)
{
    if (!ctx) return;
    if (ctx->cuda) bsi_cuda_fini(ctx);
    free(ctx->work);
    free(ctx->fwork);
    free(ctx);
}

bsolve_backend bsolve_ctx_backend(const bsolve_ctx *ctx)
{
    return ctx ? ctx->backend : BSOLVE_BACKEND_AUTO;
}

bsolve_status bsolve_ctx_set_threads(bsolve_ctx *ctx, int nthreads)
{
    if (!ctx) return BSOLVE_ENULL;
    if (nthreads < 0)
        return bsi_fail(ctx, BSOLVE_EINVAL, "bsolve_ctx_set_threads: nthreads = %d must be >= 0", nthreads);
    ctx->nthreads = nthreads;
    ctx->msg[0] = '\0';
    return BSOLVE_SUCCESS;
}

const char *bsolve_ctx_message(const bsolve_ctx *ctx)
{
    return ctx ? ctx->msg : "bsolve: context is NULL";
}

bsolve_status bsolve_ctx_set_stream(bsolve_ctx *ctx, void *stream)
{
    if (!ctx) return BSOLVE_ENULL;
    if (ctx->backend != BSOLVE_BACKEND_CUDA)
        return bsi_fail(ctx, BSOLVE_ENOTSUP, "bsolve_ctx_set_stream: streams exist only on the CUDA backend");
    ctx->msg[0] = '\0';
    return bsi_cuda_set_stream(ctx, stream);
}

bsolve_status bsolve_ctx_synchronize(bsolve_ctx *ctx)
{
    if (!ctx) return BSOLVE_ENULL;
    ctx->msg[0] = '\0';
    return ctx->backend == BSOLVE_BACKEND_CUDA ? bsi_cuda_synchronize(ctx) : BSOLVE_SUCCESS;
}

/* A buffer at *p of *have bytes, grown to at least `bytes`, 64-byte aligned. */
static void *grow(void **p, size_t *have, size_t bytes)
{
    if (bytes <= *have) return *p;
    /* Grow by at least half again so that slowly growing shapes settle fast. */
    size_t want = bytes <= SIZE_MAX / 3 * 2 ? bytes + bytes / 2 : bytes;
    if (want > SIZE_MAX - 63) return NULL;
    want = (want + 63) / 64 * 64;
    void *q = aligned_alloc(64, want);
    if (!q) return NULL;
    free(*p);
    *p = q;
    *have = want;
    return q;
}

void *bsi_workspace(bsolve_ctx *ctx, size_t bytes) { return grow(&ctx->work, &ctx->work_bytes, bytes); }

void *bsi_front_workspace(bsolve_ctx *ctx, size_t bytes) { return grow(&ctx->fwork, &ctx->fwork_bytes, bytes); }

bsolve_status bsi_test_force(bsolve_ctx *ctx, int knob, int value)
{
    if (!ctx) return BSOLVE_ENULL;
    if (knob < 0 || knob >= BSI_FORCE_COUNT)
        return bsi_fail(ctx, BSOLVE_EINVAL, "bsi_test_force: knob = %d is out of range", knob);
    ctx->force[knob] = value;
    return BSOLVE_SUCCESS;
}
