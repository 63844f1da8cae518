/*
 * cu_check.h -- CU(x): a failed CUDA runtime call ends the program, with the
 * error's name, file and line.  Shared by the GPU test programs
 * (gpu_check.h) and the GPU benchmarks (perf/bench_cuda.h); the includer
 * brings in the CUDA runtime.
 */
#ifndef BSI_CU_CHECK_H
#define BSI_CU_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CU(x)                                                                                        \
    do {                                                                                             \
        cudaError_t e_ = (x);                                                                        \
        if (e_ != cudaSuccess) {                                                                     \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)

#endif
