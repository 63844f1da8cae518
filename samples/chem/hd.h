/*
 * hd.h -- one source for the CPU and the GPU: the per-cell functions of the
 * chemistry samples (kinetics.c, kinetics_team.c, bdf.c, ignition.c) are
 * plain C (math.h, string.h), compiled as such for the CPU and #included
 * into the CUDA files (kinetics_cuda.cu, ensemble_cuda.cu), where they
 * become __host__ __device__ functions that kernels call (one thread or a
 * team of threads per cell).
 *
 *   CHEM_HD   a function a kernel may call (internal ones, already static);
 *   CHEM_API  a function of a header: external in C; in CUDA static (inline:
 *             no warning for the ones a file does not use), so that
 *             every .cu file that includes the sources has its own copy and
 *             no symbol clashes with the C objects or another .cu file.
 */
#ifndef CHEM_HD_H
#define CHEM_HD_H

#ifdef __CUDACC__
#define CHEM_HD __host__ __device__
#define CHEM_API static inline __host__ __device__
#else
#define CHEM_HD
#define CHEM_API
#endif

#endif
