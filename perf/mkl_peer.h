/*
 * mkl_peer.h -- Intel oneMKL's batched LU routines as a benchmark peer, behind
 * plain C types: perf/mkl_peer.c is the only file that includes MKL's headers
 * (they clash with LAPACKE's, which bench_cpu.c also needs).  Built only into
 * bench_cpu_mkl (Makefile); the library never uses MKL.
 *
 * Data: n x n column-major matrices one after another (stride n*n) and n x 1
 * right-hand sides (stride n), float ('s') or double ('d'), as bench_cpu keeps
 * them for LAPACKE.  MKL's LP64 interface: its integers are int.
 */
#ifndef MKL_PEER_H
#define MKL_PEER_H
#include <stddef.h>

/* MKL's version, the instruction set it runs here and its compact format. */
void mkl_peer_version(char *buf, size_t len);

/* ?getrf_batch_strided + ?getrs_batch_strided (pivot != 0; ipiv: n*batch ints), or
 * ?getrfnp_batch_strided + ?getrsnp_batch_strided (pivot == 0; ipiv unused): A is
 * overwritten with its factors and B with the solutions.  info: 2*batch ints (the
 * factorizations', then the solves'). */
void mkl_peer_gesv_strided(char prec, int pivot, int n, int batch, void *A, void *B, int *ipiv, int *info);

/* The compact API: matrices interleaved in groups of MKL's SIMD width (format
 * chosen by mkl_get_format_compact), factored without pivoting by
 * mkl_?getrfnp_compact; the solve is two mkl_?trsm_compact (L unit lower, then U;
 * MKL has no getrsnp_compact). */
typedef struct {
    char prec;
    int n, nm, format;
    const void **a_ptr; /* the nm matrices (bench_cpu's originals), for gepack */
    const void **b_ptr; /* the nm right-hand sides */
    void **x_ptr;       /* where geunpack puts the solutions */
    void *ap, *bp;      /* packed A and B: factored / solved in place */
    void *ap0, *bp0;    /* packed copies of the originals (mkl_compact_save) */
    size_t abytes, bbytes;
} mkl_compact;

/* 0, or -1 when out of memory. */
int mkl_compact_init(mkl_compact *c, char prec, int n, int nm, const void *A, const void *B, void *X);
void mkl_compact_free(mkl_compact *c);
void mkl_compact_pack(mkl_compact *c);   /* A -> ap, B -> bp */
void mkl_compact_unpack(mkl_compact *c); /* bp -> X */
void mkl_compact_save(mkl_compact *c);   /* ap, bp -> ap0, bp0 */
void mkl_compact_restore(mkl_compact *c);/* ap0, bp0 -> ap, bp */
/* Factor ap and solve into bp; returns getrfnp's info (0: success). */
int mkl_compact_solve(mkl_compact *c);
/* The SIMD width (matrices per group) of the format. */
int mkl_compact_width(const mkl_compact *c);

#endif
