/*
 * internal.h -- what the front end (src/), the CPU backend and the CUDA
 * backend (cuda/) share.  Nothing here is public: symbols use the prefix
 * bsi_ and the shared library hides them (-fvisibility=hidden).
 *
 * The front end (src/api.c) checks every argument, then dispatches to a
 * backend; backends may therefore assume valid arguments.
 */
#ifndef BSOLVE_INTERNAL_H
#define BSOLVE_INTERNAL_H

#include "batchsolve.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BSI_MSG_LEN 256

struct bsi_cuda; /* the CUDA backend's state, defined in cuda/ */
struct bsi_cpu_kernels; /* one instruction-set level's CPU kernels (src/cpu_kernels.h) */

/* Test-only kernel selection.  The dispatch tables (one per operation and
 * backend) choose a kernel from the shape alone; tests reach every kernel by
 * forcing a choice on one context with bsi_test_force().  0 in an entry
 * means "as the dispatch table says" (a new context is all zeros); the
 * meaning of other values is given beside each entry.  Nothing outside the
 * tests sets these: no environment variable or public function reaches them. */
enum bsi_force_knob {
    /* -- front end -- */
    BSI_FORCE_RHS_BLOCK, /* > 0: right-hand sides in blocks of that many columns (src/block.h) */
    /* -- CPU backend -- */
    BSI_FORCE_CPU_ISA, /* kernels' instruction-set level (cpu_isa.h): 1 baseline x86-64, 2 AVX2, 3 AVX-512;
                        * one the CPU or the build lacks fails the call with BSOLVE_ENOTSUP */
    /* -- CUDA dense LU -- */
    BSI_FORCE_LU_WARP,     /* row-per-lane kernel: 1 never; 2 every gesv nrhs = 1 and getrf with 9 <= n <= its largest bucket, FULL too (either sets TILE and PANEL aside) */
    BSI_FORCE_LU_TILE,     /* register-tile kernel (lu_tile.cuh): 1 never; 2 every gesv nrhs = 1 and getrf with 33 <= n <= 128, PARTIAL or NONE */
    BSI_FORCE_LU_PANEL,    /* blocked panel kernel (lu_panel.cuh): 1 never; 2 every gesv nrhs = 1 and getrf with 33 <= n <= 128, PARTIAL or NONE (before TILE) */
    BSI_FORCE_LU_SOLVE,    /* thread-per-system getrs (lu_getrs.cuh): 1 never; 2 every getrs */
    BSI_FORCE_LU_SMEM,     /* shared-memory kernel (lu_smem.cuh): 1 never; 2 every gesv nrhs = 1 and getrf with 9 <= n <= 22, PARTIAL or NONE (FULL where the table's team is one thread), with the table's team size (a forced WARP sets it aside) */
    BSI_FORCE_LU_RSTEAM,   /* team getrs (lu_getrs_team.cuh): 1 never; 2 every getrs, the table's shape for its order; a shape code of
                            * lu_dispatch.cuh's BSI_LU_RSTEAM_SHAPES (e.g. 811, 1811, 10181) every getrs with that shape (others: as 2);
                            * forced on, it wins over a forced SOLVE */
    BSI_FORCE_LU_GATHER,   /* masked getrf gathering its systems (lu_dispatch.cuh's GATHER): 1 never; 2 every masked getrf of an
                            * interleaved A, whatever its kernel; v >= 3 the same, at most v systems per gathered segment */
    /* -- CUDA QR -- */
    BSI_FORCE_QR_REG,      /* register kernel: 1 never */
    BSI_FORCE_QR_HH,       /* Householder kernel: 1 never; 2 every FP64 gels nrhs = 1 it can take (m = 65..79 too) */
    BSI_FORCE_QR_HH_C,     /* Householder kernel's lanes: 1 one column each everywhere */
    BSI_FORCE_QR_WARP,     /* column-per-lane kernel: 1 never */
    BSI_FORCE_QR_PAIR,     /* paired-step kernel: 1 never; 2 every FP64 gels nrhs = 1 that reaches it (n <= 64) */
    BSI_FORCE_QR_PAIR_SEG, /* paired-step kernel's threads per column band: 1, 2 or 4 */
    BSI_FORCE_QR_TEAM,     /* team kernel's lanes per system: 1, 2, 4, ..., 256 (a smaller T where the system cannot fit) */
    /* -- CUDA tridiagonal -- */
    BSI_FORCE_GT_PATH,        /* 1: every shape to the one-thread-per-system kernel */
    BSI_FORCE_GT_PCR,         /* tile kernel's reduced systems: 1 one thread each, 2 PCR dividing, 3 PCR by reciprocals */
    BSI_FORCE_GT_LONG_L,      /* few-long partition rows: 8 or 16 */
    BSI_FORCE_GT_LONG_BOTTOM, /* largest reduced system handed to the bottom tile kernel (1..4095) */
    BSI_FORCE_GT_PDL,         /* levels after the first: 1 ordinary launches, 2 programmatic dependent ones */
    BSI_FORCE_GT_CHUNKRED,    /* chunk reduction: 1 never, 2 where it saves a level, 3 every level, 4 below the top */
    BSI_FORCE_GT_WARPRED,     /* reduction by warps: 1 never, 2 where it pays, 3 wherever the next level is long */
    BSI_FORCE_GT_FUSED,       /* fused kernel: 1 never, 2 where it fits, 3 warp bottom only (never looping), 4 block bottom */
    BSI_FORCE_GT_FUSED_GRID,  /* the fused kernel's most blocks (they loop over the chunks) */
    BSI_FORCE_COUNT
};

struct bsolve_ctx {
    bsolve_backend backend; /* CPU or CUDA, never AUTO */
    int nthreads;           /* 0: OpenMP default */
    char msg[BSI_MSG_LEN];  /* last error, "" after success */
    void *work;             /* CPU workspace, grown on demand, 64-byte aligned */
    size_t work_bytes;
    void *fwork;            /* the front end's scratch (src/block.c), grown on demand */
    size_t fwork_bytes;
    struct bsi_cuda *cuda;  /* NULL on the CPU backend */
    int force[BSI_FORCE_COUNT + 1]; /* test-only kernel choices (bsi_test_force) */
};

struct bsolve_lu {
    bsolve_backend backend;
    const bsolve_ctx *owner; /* the context that created it */
    bsolve_precision prec;
    bsolve_pivot pivot;
    int64_t n, batch;
    /* Backend-owned storage.  CPU: factors as tiles of the kernels' lanes
     * (see src/lu_cpu.h), pivots as uint8_t per step and lane.
     * CUDA: device memory, interleaved with leading dimension `ld`. */
    void *factors;
    void *rowpiv;
    void *colpiv;
    int32_t *info; /* per-system info of the last getrf (host on CPU, device on CUDA) */
    int64_t ld;
    int factored;  /* getrf has run at least once */
    const struct bsi_cpu_kernels *cpu; /* CPU: the kernels that made it, and must use it */
};

/* Test-only: sets ctx->force[knob] = value (0 restores the dispatch table's
 * choice).  Declared here, never in the public header; hidden in the shared
 * library, reachable by tests that link the static one. */
bsolve_status bsi_test_force(bsolve_ctx *ctx, int knob, int value);

/* Records a formatted message on ctx (if not NULL) and returns status. */
bsolve_status bsi_fail(bsolve_ctx *ctx, bsolve_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The context's CPU workspace, at least `bytes` long and 64-byte aligned;
 * grown (never shrunk) on demand, NULL when memory is exhausted. */
void *bsi_workspace(bsolve_ctx *ctx, size_t bytes);
/* The same for the front end's scratch, kept apart from the backends'. */
void *bsi_front_workspace(bsolve_ctx *ctx, size_t bytes);

/* Size in bytes of one element of the precision. */
static inline size_t bsi_elem_size(bsolve_precision prec)
{
    return prec == BSOLVE_PREC_D ? sizeof(double) : sizeof(float);
}

/* Offset of entry (i, j) of matrix k (r rows, c columns) in layout l. */
static inline int64_t bsi_index(bsolve_layout l, int64_t r, int64_t i, int64_t j, int64_t k)
{
    switch (l.kind) {
    case BSOLVE_COL_MAJOR: return k * l.stride + i + j * l.ld;
    case BSOLVE_ROW_MAJOR: return k * l.stride + i * l.ld + j;
    default: return (i + j * r) * l.ld + k;
    }
}

/* ---- CUDA backend (cuda/ sources, or src/cuda_stub.c when built without nvcc) ----
 * Arguments are already checked; A/B/info may be host or device pointers. */
bsolve_status bsi_cuda_init(bsolve_ctx *ctx);  /* BSOLVE_ENODEVICE when no GPU, the reason in ctx->msg */
void bsi_cuda_fini(bsolve_ctx *ctx);
int bsi_cuda_available(void);                  /* 1 when a usable GPU exists */
/* The GPU code this build holds, e.g. "sm_75 sm_80 sm_90 compute_90" (SASS
 * and PTX; the Makefile's CUDA_ARCHS), "" without the CUDA backend. */
const char *bsi_cuda_build_archs(void);
int bsi_cuda_host_memory(const void *p);       /* 1: host memory (pageable or pinned); 0: device or managed */
bsolve_status bsi_cuda_set_stream(bsolve_ctx *ctx, void *stream);
bsolve_status bsi_cuda_synchronize(bsolve_ctx *ctx);
bsolve_status bsi_cuda_convert(bsolve_ctx *ctx, bsolve_precision prec, int64_t r, int64_t c,
                               int64_t batch, const void *src, bsolve_layout lsrc, void *dst,
                               bsolve_layout ldst);
bsolve_status bsi_cuda_gesv(bsolve_ctx *ctx, bsolve_precision prec, bsolve_pivot pivot,
                            int64_t n, int64_t nrhs, int64_t batch, const void *A,
                            bsolve_layout la, void *B, bsolve_layout lb, int32_t *info);
bsolve_status bsi_cuda_lu_alloc(bsolve_ctx *ctx, bsolve_lu *lu); /* fills factors/piv/info/ld */
void bsi_cuda_lu_free(bsolve_lu *lu);
/* getrf and getrs; with a mask (NULL: every system), only the flagged ones
 * (bsolve_?getrf_masked, bsolve_?getrs_masked), the mask in the arrays'
 * memory kind. */
bsolve_status bsi_cuda_getrf(bsolve_ctx *ctx, const void *A, bsolve_layout la, bsolve_lu *lu,
                             const uint8_t *mask, int32_t *info);
bsolve_status bsi_cuda_getrs(bsolve_ctx *ctx, const bsolve_lu *lu, int64_t nrhs, void *B,
                             bsolve_layout lb, const uint8_t *mask, int32_t *info);
bsolve_status bsi_cuda_lu_export(bsolve_ctx *ctx, const bsolve_lu *lu, void *LU, bsolve_layout l,
                                 int32_t *ipiv, int32_t *jpiv);

/* ==== Tridiagonal solvers (gtsv / gttrf / gttrs) ============================
 * Front end: src/api_gtsv.c; CPU backend: src/gtsv_cpu.c; CUDA: cuda/gtsv.cu. */
struct bsolve_gt {
    bsolve_backend backend;
    const bsolve_ctx *owner;
    bsolve_precision prec;
    bsolve_gtsv_method method;
    int64_t m, batch;
    /* Factors, BSI_GT_NF reals per equation and system.  CPU: super-tiles of
     * WW = BSI_GT_NT * lanes systems (src/gtsv_cpu.h), value q of equation i
     * of lane l at f[((t*NF + q)*m + i)*WW + l].
     * CUDA: device memory, interleaved: f[(q*m + i)*ld + k]. */
    void *f;
    int32_t *info; /* info of the last gttrf (host on CPU, device on CUDA) */
    int64_t ld;
    int factored;
    void *plan;    /* CUDA: the kernels gttrf chose, which gttrs runs (cuda/gtsv.cu); host memory */
    const struct bsi_cpu_kernels *cpu; /* CPU: the kernels that made it, and must use it */
};
#define BSI_GT_NF 5 /* multiplier or cosine, swap flag or sine, 1/U(i,i), U(i,i+1), U(i,i+2) */

bsolve_status bsi_cuda_gtsv(bsolve_ctx *ctx, bsolve_precision prec, bsolve_gtsv_method method, int64_t m,
                            int64_t nrhs, int64_t batch, const void *dl, const void *d, const void *du,
                            bsolve_tlayout lt, void *B, bsolve_tlayout lb, int32_t *info);
bsolve_status bsi_cuda_gt_alloc(bsolve_ctx *ctx, bsolve_gt *gt); /* fills f/info/ld */
void bsi_cuda_gt_free(bsolve_gt *gt);
bsolve_status bsi_cuda_gttrf(bsolve_ctx *ctx, const void *dl, const void *d, const void *du, bsolve_tlayout lt,
                             bsolve_gt *gt, int32_t *info);
bsolve_status bsi_cuda_gttrs(bsolve_ctx *ctx, const bsolve_gt *gt, int64_t nrhs, void *B, bsolve_tlayout lb,
                             int32_t *info);
/* Test-only: the name of the kernel the CUDA dispatch table (cuda/gtsv_dispatch.cuh)
 * picks for gtsv on this shape with ctx's forced knobs ("seq", "tile-seq",
 * "tile-part", "fused-warp[-loop]", "fused-block[-loop]", "levels",
 * "levels-chunkred", "levels-warpred"), or NULL on a CUDA error. */
const char *bsi_cuda_gt_kernel(bsolve_ctx *ctx, bsolve_precision prec, bsolve_gtsv_method method, int64_t m,
                               int64_t batch, bsolve_tlayout_kind lt, bsolve_tlayout_kind lb);

/* ==== Dense QR (gels / geqrf / geqrs / qr_export) ==========================
 * Front end: src/api_qr.c; CPU backend: src/qr_cpu.c; CUDA: cuda/qr.cu. */
struct bsolve_qr {
    bsolve_backend backend;
    const bsolve_ctx *owner;
    bsolve_precision prec;
    int64_t m, n, batch;
    /* Factors.  CPU: tiles of the kernels' lanes (src/qr_cpu.h):
     * R (m x n interleaved), the rotations' (c, s) pairs, 1/R(j,j). */
    void *f;
    int32_t *info; /* info of the last geqrf (host on CPU, device on CUDA) */
    int64_t ld;
    int factored;
    const struct bsi_cpu_kernels *cpu; /* CPU: the kernels that made it, and must use it */
};

bsolve_status bsi_cuda_gels(bsolve_ctx *ctx, bsolve_precision prec, int64_t m, int64_t n, int64_t nrhs,
                            int64_t batch, const void *A, bsolve_layout la, void *B, bsolve_layout lb,
                            int32_t *info);
bsolve_status bsi_cuda_qr_alloc(bsolve_ctx *ctx, bsolve_qr *qr); /* fills f/info/ld */
void bsi_cuda_qr_free(bsolve_qr *qr);
bsolve_status bsi_cuda_geqrf(bsolve_ctx *ctx, const void *A, bsolve_layout la, bsolve_qr *qr, int32_t *info);
bsolve_status bsi_cuda_geqrs(bsolve_ctx *ctx, const bsolve_qr *qr, int64_t nrhs, void *B, bsolve_layout lb,
                             int32_t *info);
bsolve_status bsi_cuda_qr_export(bsolve_ctx *ctx, const bsolve_qr *qr, void *Q, bsolve_layout lq, void *R,
                                 bsolve_layout lr);

#ifdef __cplusplus
}
#endif

#endif /* BSOLVE_INTERNAL_H */
