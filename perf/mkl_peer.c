/*
 * mkl_peer.c -- the MKL calls of bench_cpu_mkl (perf/mkl_peer.h says what and why).
 */
#define _POSIX_C_SOURCE 200809L
#include "mkl_peer.h"

#include <mkl_compact.h>
#include <mkl_lapack.h>
#include <mkl_service.h>
#include <mkl_types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bench passes int where MKL takes MKL_INT: the LP64 interface only. */
_Static_assert(sizeof(MKL_INT) == sizeof(int), "link MKL's LP64 interface (libmkl_intel_lp64)");

void mkl_peer_version(char *buf, size_t len)
{
    MKLVersion v;
    mkl_get_version(&v);
    MKL_COMPACT_PACK f = mkl_get_format_compact();
    /* 2026.2.0 is Major 2026, Update 2, Patch 0 (Minor is 0) */
    snprintf(buf, len, "%d.%d.%d (build %s), %s; compact format %s", v.MajorVersion, v.UpdateVersion,
             v.PatchVersion, v.Build, v.Processor,
             f == MKL_COMPACT_AVX512 ? "AVX-512" : f == MKL_COMPACT_AVX ? "AVX" : f == MKL_COMPACT_SSE ? "SSE" : "?");
}

void mkl_peer_gesv_strided(char prec, int pivot, int n, int batch, void *A, void *B, int *ipiv, int *info)
{
    const MKL_INT one = 1, nn = n * n, sb = n, sp = n;
    const char tr = 'N';
    if (prec == 'd') {
        if (pivot) {
            dgetrf_batch_strided(&n, &n, A, &n, &nn, ipiv, &sp, &batch, info);
            dgetrs_batch_strided(&tr, &n, &one, A, &n, &nn, ipiv, &sp, B, &n, &sb, &batch, info + batch);
        } else {
            dgetrfnp_batch_strided(&n, &n, A, &n, &nn, &batch, info);
            dgetrsnp_batch_strided(&tr, &n, &one, A, &n, &nn, B, &n, &sb, &batch, info + batch);
        }
    } else {
        if (pivot) {
            sgetrf_batch_strided(&n, &n, A, &n, &nn, ipiv, &sp, &batch, info);
            sgetrs_batch_strided(&tr, &n, &one, A, &n, &nn, ipiv, &sp, B, &n, &sb, &batch, info + batch);
        } else {
            sgetrfnp_batch_strided(&n, &n, A, &n, &nn, &batch, info);
            sgetrsnp_batch_strided(&tr, &n, &one, A, &n, &nn, B, &n, &sb, &batch, info + batch);
        }
    }
}

static void *alloc64(size_t bytes)
{
    void *p = NULL;
    return posix_memalign(&p, 64, bytes ? bytes : 64) == 0 ? p : NULL;
}

int mkl_compact_init(mkl_compact *c, char prec, int n, int nm, const void *A, const void *B, void *X)
{
    memset(c, 0, sizeof *c);
    c->prec = prec;
    c->n = n;
    c->nm = nm;
    c->format = (int)mkl_get_format_compact();
    size_t es = prec == 'd' ? sizeof(double) : sizeof(float);
    MKL_COMPACT_PACK f = (MKL_COMPACT_PACK)c->format;
    MKL_INT sa = prec == 'd' ? mkl_dget_size_compact(n, n, f, nm) : mkl_sget_size_compact(n, n, f, nm);
    MKL_INT sb = prec == 'd' ? mkl_dget_size_compact(n, 1, f, nm) : mkl_sget_size_compact(n, 1, f, nm);
    if (sa <= 0 || sb <= 0) return -1;
    c->abytes = (size_t)sa;
    c->bbytes = (size_t)sb;
    c->a_ptr = malloc((size_t)nm * sizeof(void *));
    c->b_ptr = malloc((size_t)nm * sizeof(void *));
    c->x_ptr = malloc((size_t)nm * sizeof(void *));
    c->ap = alloc64(c->abytes);
    c->bp = alloc64(c->bbytes);
    c->ap0 = alloc64(c->abytes);
    c->bp0 = alloc64(c->bbytes);
    if (!c->a_ptr || !c->b_ptr || !c->x_ptr || !c->ap || !c->bp || !c->ap0 || !c->bp0) {
        mkl_compact_free(c);
        return -1;
    }
    for (int k = 0; k < nm; k++) {
        c->a_ptr[k] = (const char *)A + (size_t)k * n * n * es;
        c->b_ptr[k] = (const char *)B + (size_t)k * n * es;
        c->x_ptr[k] = (char *)X + (size_t)k * n * es;
    }
    return 0;
}

void mkl_compact_free(mkl_compact *c)
{
    free(c->a_ptr); free(c->b_ptr); free(c->x_ptr);
    free(c->ap); free(c->bp); free(c->ap0); free(c->bp0);
    memset(c, 0, sizeof *c);
}

void mkl_compact_pack(mkl_compact *c)
{
    MKL_COMPACT_PACK f = (MKL_COMPACT_PACK)c->format;
    const int n = c->n;
    if (c->prec == 'd') {
        mkl_dgepack_compact(MKL_COL_MAJOR, n, n, (const double *const *)c->a_ptr, n, c->ap, n, f, c->nm);
        mkl_dgepack_compact(MKL_COL_MAJOR, n, 1, (const double *const *)c->b_ptr, n, c->bp, n, f, c->nm);
    } else {
        mkl_sgepack_compact(MKL_COL_MAJOR, n, n, (const float *const *)c->a_ptr, n, c->ap, n, f, c->nm);
        mkl_sgepack_compact(MKL_COL_MAJOR, n, 1, (const float *const *)c->b_ptr, n, c->bp, n, f, c->nm);
    }
}

void mkl_compact_unpack(mkl_compact *c)
{
    MKL_COMPACT_PACK f = (MKL_COMPACT_PACK)c->format;
    if (c->prec == 'd')
        mkl_dgeunpack_compact(MKL_COL_MAJOR, c->n, 1, (double *const *)c->x_ptr, c->n, c->bp, c->n, f, c->nm);
    else
        mkl_sgeunpack_compact(MKL_COL_MAJOR, c->n, 1, (float *const *)c->x_ptr, c->n, c->bp, c->n, f, c->nm);
}

void mkl_compact_save(mkl_compact *c)
{
    memcpy(c->ap0, c->ap, c->abytes);
    memcpy(c->bp0, c->bp, c->bbytes);
}

void mkl_compact_restore(mkl_compact *c)
{
    memcpy(c->ap, c->ap0, c->abytes);
    memcpy(c->bp, c->bp0, c->bbytes);
}

int mkl_compact_solve(mkl_compact *c)
{
    MKL_COMPACT_PACK f = (MKL_COMPACT_PACK)c->format;
    const int n = c->n;
    MKL_INT info = 0;
    if (c->prec == 'd') {
        mkl_dgetrfnp_compact(MKL_COL_MAJOR, n, n, c->ap, n, &info, f, c->nm);
        mkl_dtrsm_compact(MKL_COL_MAJOR, MKL_LEFT, MKL_LOWER, MKL_NOTRANS, MKL_UNIT, n, 1, 1.0, c->ap, n, c->bp, n,
                          f, c->nm);
        mkl_dtrsm_compact(MKL_COL_MAJOR, MKL_LEFT, MKL_UPPER, MKL_NOTRANS, MKL_NONUNIT, n, 1, 1.0, c->ap, n, c->bp,
                          n, f, c->nm);
    } else {
        mkl_sgetrfnp_compact(MKL_COL_MAJOR, n, n, c->ap, n, &info, f, c->nm);
        mkl_strsm_compact(MKL_COL_MAJOR, MKL_LEFT, MKL_LOWER, MKL_NOTRANS, MKL_UNIT, n, 1, 1.0f, c->ap, n, c->bp, n,
                          f, c->nm);
        mkl_strsm_compact(MKL_COL_MAJOR, MKL_LEFT, MKL_UPPER, MKL_NOTRANS, MKL_NONUNIT, n, 1, 1.0f, c->ap, n, c->bp,
                          n, f, c->nm);
    }
    return (int)info;
}

int mkl_compact_width(const mkl_compact *c)
{
    int bytes = c->format == MKL_COMPACT_AVX512 ? 64 : c->format == MKL_COMPACT_AVX ? 32 : 16;
    return bytes / (c->prec == 'd' ? 8 : 4);
}
