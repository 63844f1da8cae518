/*
 * status.c -- status texts and the per-context error message.
 */
#include "internal.h"

#include <stdio.h>

const char *bsolve_strerror(bsolve_status status)
{
    switch (status) {
    case BSOLVE_SUCCESS: return "success";
    case BSOLVE_EINVAL: return "invalid argument";
    case BSOLVE_ENULL: return "required pointer is NULL";
    case BSOLVE_ENOMEM: return "out of memory";
    case BSOLVE_ENODEVICE: return "no usable CUDA device";
    case BSOLVE_ENOTSUP: return "operation not supported on this backend";
    case BSOLVE_EMISMATCH: return "object does not match this call (context, precision or shape)";
    case BSOLVE_EDEVICE: return "the GPU runtime reported an error";
    }
    return "unknown status code";
}

const char *bsolve_backend_name(bsolve_backend backend)
{
    switch (backend) {
    case BSOLVE_BACKEND_AUTO: return "auto";
    case BSOLVE_BACKEND_CPU: return "cpu";
    case BSOLVE_BACKEND_CUDA: return "cuda";
    }
    return "unknown";
}

bsolve_status bsi_fail(bsolve_ctx *ctx, bsolve_status status, const char *fmt, ...)
{
    if (ctx) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->msg, sizeof ctx->msg, fmt, ap);
        va_end(ap);
    }
    return status;
}
