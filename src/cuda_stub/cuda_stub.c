/*
 * cuda_stub.c -- the CUDA backend of a build made without nvcc: no GPU is
 * ever usable, so creating a CUDA context reports BSOLVE_ENODEVICE and the
 * front end never reaches the other entry points.
 */
#include "internal.h"

int bsi_cuda_available(void) { return 0; }
int bsi_cuda_host_memory(const void *p) { (void)p; return 1; }

const char *bsi_cuda_build_archs(void) { return ""; }

bsolve_status bsi_cuda_init(bsolve_ctx *ctx)
{
    return bsi_fail(ctx, BSOLVE_ENODEVICE, "this build of batchsolve has no CUDA backend (built without nvcc)");
}

void bsi_cuda_fini(bsolve_ctx *ctx) { (void)ctx; }

#define BSI_UNREACHABLE(...) return bsi_fail(ctx, BSOLVE_ENODEVICE, "no CUDA backend in this build")
bsolve_status bsi_cuda_set_stream(bsolve_ctx *ctx, void *s) { (void)s; BSI_UNREACHABLE(); }
bsolve_status bsi_cuda_synchronize(bsolve_ctx *ctx) { BSI_UNREACHABLE(); }
bsolve_status bsi_cuda_convert(bsolve_ctx *ctx, bsolve_precision p, int64_t r, int64_t c, int64_t b,
                               const void *s, bsolve_layout ls, void *d, bsolve_layout ld)
{ (void)p; (void)r; (void)c; (void)b; (void)s; (void)ls; (void)d; (void)ld; BSI_UNREACHABLE(); }
bsolve_status bsi_cuda_gesv(bsolve_ctx *ctx, bsolve_precision p, bsolve_pivot pv, int64_t n,
                            int64_t nrhs, int64_t b, const void *A, bsolve_layout la, void *B,
                            bsolve_layout lb, int32_t *info)
{ (void)p; (void)pv; (void)n; (void)nrhs; (void)b; (void)A; (void)la; (void)B; (void)lb; (void)info; BSI_UNREACHABLE(); }
bsolve_status bsi_cuda_lu_alloc(bsolve_ctx *ctx, bsolve_lu *lu) { (void)lu; BSI_UNREACHABLE(); }
void bsi_cuda_lu_free(bsolve_lu *lu) { (void)lu; }
bsolve_status bsi_cuda_getrf(bsolve_ctx *ctx, const void *A, bsolve_layout la, bsolve_lu *lu, const uint8_t *mask,
                             int32_t *info)
{ (void)A; (void)la; (void)lu; (void)mask; (void)info; BSI_UNREACHABLE(); }
bsolve_status bsi_cuda_getrs(bsolve_ctx *ctx, const bsolve_lu *lu, int64_t nrhs, void *B,
                             bsolve_layout lb, const uint8_t *mask, int32_t *info)
{ (void)lu; (void)nrhs; (void)B; (void)lb; (void)mask; (void)info; BSI_UNREACHABLE(); }
bsolve_status bsi_cuda_lu_export(bsolve_ctx *ctx, const bsolve_lu *lu, void *LU, bsolve_layout l,
                                 int32_t *ipiv, int32_t *jpiv)
{ (void)lu; (void)LU; (void)l; (void)ipiv; (void)jpiv; BSI_UNREACHABLE(); }

/* tridiagonal solvers */
bsolve_status bsi_cuda_gtsv(bsolve_ctx *ctx, bsolve_precision p, bsolve_gtsv_method me, int64_t m, int64_t nrhs,
                            int64_t b, const void *dl, const void *d, const void *du, bsolve_tlayout lt, void *B,
                            bsolve_tlayout lb, int32_t *info)
{ (void)p; (void)me; (void)m; (void)nrhs; (void)b; (void)dl; (void)d; (void)du; (void)lt; (void)B; (void)lb; (void)info; BSI_UNREACHABLE(); }
bsolve_status bsi_cuda_gt_alloc(bsolve_ctx *ctx, bsolve_gt *gt) { (void)gt; BSI_UNREACHABLE(); }
void bsi_cuda_gt_free(bsolve_gt *gt) { (void)gt; }
bsolve_status bsi_cuda_gttrf(bsolve_ctx *ctx, const void *dl, const void *d, const void *du, bsolve_tlayout lt,
                             bsolve_gt *gt, int32_t *info)
{ (void)dl; (void)d; (void)du; (void)lt; (void)gt; (void)info; BSI_UNREACHABLE(); }
bsolve_status bsi_cuda_gttrs(bsolve_ctx *ctx, const bsolve_gt *gt, int64_t nrhs, void *B, bsolve_tlayout lb,
                             int32_t *info)
{ (void)gt; (void)nrhs; (void)B; (void)lb; (void)info; BSI_UNREACHABLE(); }

/* dense QR */
bsolve_status bsi_cuda_gels(bsolve_ctx *ctx, bsolve_precision p, int64_t m, int64_t n, int64_t nrhs, int64_t b,
                            const void *A, bsolve_layout la, void *B, bsolve_layout lb, int32_t *info)
{ (void)p; (void)m; (void)n; (void)nrhs; (void)b; (void)A; (void)la; (void)B; (void)lb; (void)info; BSI_UNREACHABLE(); }
bsolve_status bsi_cuda_qr_alloc(bsolve_ctx *ctx, bsolve_qr *qr) { (void)qr; BSI_UNREACHABLE(); }
void bsi_cuda_qr_free(bsolve_qr *qr) { (void)qr; }
bsolve_status bsi_cuda_geqrf(bsolve_ctx *ctx, const void *A, bsolve_layout la, bsolve_qr *qr, int32_t *info)
{ (void)A; (void)la; (void)qr; (void)info; BSI_UNREACHABLE(); }
bsolve_status bsi_cuda_geqrs(bsolve_ctx *ctx, const bsolve_qr *qr, int64_t nrhs, void *B, bsolve_layout lb,
                             int32_t *info)
{ (void)qr; (void)nrhs; (void)B; (void)lb; (void)info; BSI_UNREACHABLE(); }
bsolve_status bsi_cuda_qr_export(bsolve_ctx *ctx, const bsolve_qr *qr, void *Q, bsolve_layout lq, void *R,
                                 bsolve_layout lr)
{ (void)qr; (void)Q; (void)lq; (void)R; (void)lr; BSI_UNREACHABLE(); }
