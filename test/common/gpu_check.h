/*
 * gpu_check.h -- what the GPU test programs (test/gpu_*.c) share: the CUDA
 * runtime when the library has its CUDA backend, a counting CHECK that
 * prints the first failures, and the main of a build without that backend.
 *
 * The Makefile defines BSOLVE_TEST_CUDART when nvcc was found (the CUDA
 * backend is built); a cuda_runtime.h on the include path alone is not
 * enough, since the stub backend links no CUDA runtime.
 */
#ifndef BSI_GPU_CHECK_H
#define BSI_GPU_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "batchsolve.h"

#ifdef BSOLVE_TEST_CUDART
#include <cuda_runtime.h>
#define HAVE_CUDART 1

static long nfail, nchecks;
#define CHECK(cond, ...)                                             \
    do {                                                             \
        nchecks++;                                                   \
        if (!(cond)) {                                               \
            if (nfail++ < 30) {                                      \
                fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
                fprintf(stderr, __VA_ARGS__);                        \
                fprintf(stderr, "\n");                               \
            }                                                        \
        }                                                            \
    } while (0)

/* a failed CUDA runtime call ends the test program */
#include "cu_check.h"

#else
/* The program's main without the CUDA backend: it says why it tests nothing. */
static inline int gpu_check_skip_main(void)
{
    bsolve_ctx *ctx = NULL;
    if (bsolve_ctx_create(&ctx, BSOLVE_BACKEND_CUDA) == BSOLVE_ENODEVICE) {
        printf("SKIP: no CUDA device\n");
        return 0;
    }
    printf("SKIP: built without the CUDA backend\n");
    bsolve_ctx_destroy(ctx);
    return 0;
}
#endif

#endif
