/*
 * cpu_kernels.h -- the table of one instruction-set level's CPU kernels.
 *
 * cpu_kernels.c, compiled once per level (cpu_isa.h), fills one table with
 * that level's entry points; cpu_dispatch.c chooses a table per call (the
 * context's) or per factorization object (the one that made it: tiles and
 * pivot arrays are laid out for that level's lane count) and calls through
 * it.  The entry points have the signatures of the dispatcher's, declared
 * in lu_cpu.h, qr_cpu.h and gtsv_cpu.h.
 */
#ifndef BSOLVE_CPU_KERNELS_H
#define BSOLVE_CPU_KERNELS_H

#include "internal.h"

struct bsi_cpu_kernels {
    const char *name;    /* "avx512", "avx2", "base", "arch" (cpu_isa.h) */
    int lanes_d, lanes_s; /* systems per tile in double and float */
    bsolve_status (*gesv)(bsolve_ctx *, bsolve_precision, bsolve_pivot, int64_t, int64_t, int64_t, const void *,
                          bsolve_layout, void *, bsolve_layout, int32_t *);
    bsolve_status (*lu_alloc)(bsolve_ctx *, bsolve_lu *);
    void (*lu_free)(bsolve_lu *);
    bsolve_status (*getrf)(bsolve_ctx *, const void *, bsolve_layout, bsolve_lu *, const uint8_t *, int32_t *);
    bsolve_status (*getrs)(bsolve_ctx *, const bsolve_lu *, int64_t, void *, bsolve_layout, const uint8_t *,
                           int32_t *);
    bsolve_status (*lu_export)(bsolve_ctx *, const bsolve_lu *, void *, bsolve_layout, int32_t *, int32_t *);
    bsolve_status (*convert)(bsolve_ctx *, bsolve_precision, int64_t, int64_t, int64_t, const void *, bsolve_layout,
                             void *, bsolve_layout);
    bsolve_status (*gels)(bsolve_ctx *, bsolve_precision, int64_t, int64_t, int64_t, int64_t, const void *,
                          bsolve_layout, void *, bsolve_layout, int32_t *);
    bsolve_status (*qr_alloc)(bsolve_ctx *, bsolve_qr *);
    void (*qr_free)(bsolve_qr *);
    bsolve_status (*geqrf)(bsolve_ctx *, const void *, bsolve_layout, bsolve_qr *, int32_t *);
    bsolve_status (*geqrs)(bsolve_ctx *, const bsolve_qr *, int64_t, void *, bsolve_layout, int32_t *);
    bsolve_status (*qr_export)(bsolve_ctx *, const bsolve_qr *, void *, bsolve_layout, void *, bsolve_layout);
    bsolve_status (*gtsv)(bsolve_ctx *, bsolve_precision, bsolve_gtsv_method, int64_t, int64_t, int64_t,
                          const void *, const void *, const void *, bsolve_tlayout, void *, bsolve_tlayout,
                          int32_t *);
    bsolve_status (*gt_alloc)(bsolve_ctx *, bsolve_gt *);
    void (*gt_free)(bsolve_gt *);
    bsolve_status (*gttrf)(bsolve_ctx *, const void *, const void *, const void *, bsolve_tlayout, bsolve_gt *,
                           int32_t *);
    bsolve_status (*gttrs)(bsolve_ctx *, const bsolve_gt *, int64_t, void *, bsolve_tlayout, int32_t *);
};

/* One table per level the build compiled (the Makefile's CPU_ISAS). */
extern const struct bsi_cpu_kernels bsi_cpu_kernels_avx512, bsi_cpu_kernels_avx2, bsi_cpu_kernels_base,
    bsi_cpu_kernels_arch;

#endif
