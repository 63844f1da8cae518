/* perf/probe_qr_sweep.cu -- how fast the trailing update of a blocked Givens
 * QR could run (perf/NOTES-qr-gpu.md, "Two designs left" after attempt 21:
 * panels with a streaming trailing update).  A block of 64 lanes holds one
 * 64 x 64 system in shared memory; for each of 8 panels of 8 columns the
 * panel's rotations (c, s) are taken as given (synthetic values in shared
 * memory, by step and panel column, identities outside the Sameh-Kuck
 * staircase), and every lane right of the panel sweeps its column once from
 * the bottom through a window of 16 rows in registers, one broadcast load of
 * (c, s) per rotation.  The panels' own factorization is not modelled.
 * Prints the systems' trailing updates per second and the rate of applies
 * that a real factorization would need (valid rotations on trailing
 * columns).  No library call; build: make build/perf/probe_qr_sweep. */
#include <cstdio>
#include <cuda_runtime.h>
constexpr int M = 64, N = 64, NB = 8, LDM = 65, MAXST = (M - 1) + 2 * (NB - 1) + 16;
__global__ void __launch_bounds__(64) sweep(double *out, int reps)
{
    __shared__ double S[(N + 1) * LDM];
    __shared__ double2 CS[MAXST * NB];
    const int l = threadIdx.x;
    for (int i = l; i < (N + 1) * LDM; i += 64) S[i] = 1.0 + 1e-3 * ((i * 7919) % 1000);
    double acc = 0;
    for (int rep = 0; rep < reps; rep++)
        for (int p = 0; p < N / NB; p++) {
            const int j0 = p * NB, nst = (M - 1 - j0) + 2 * (NB - 1);
            __syncthreads();
            for (int e = l; e < MAXST * NB; e += 64) {
                const int s = e / NB, jj = e % NB, r1 = M - 2 - s + 2 * jj;
                const bool v = s < nst && r1 >= j0 + jj && r1 <= M - 2;
                CS[e] = v ? make_double2(0.6, 0.8) : make_double2(1.0, 0.0);
            }
            __syncthreads();
            const int col = l; /* trailing if col >= j0 + NB; lane 0..7 could take b */
            if (col < j0 + NB) continue;
            double *cp = S + col * LDM;
            double w[16];
#pragma unroll
            for (int k = 0; k < 16; k++) w[k] = 0;
            w[(M - 1) & 15] = cp[M - 1];
            for (int s0 = 0; s0 < nst; s0 += 16) {
#pragma unroll
                for (int u = 0; u < 16; u++) {
                    const int s = s0 + u;
                    const int top = M - 2 - s; /* the row entering the window */
                    if (top >= 0) w[(M - 2 - u) & 15] = cp[top];
#pragma unroll
                    for (int jj = 0; jj < NB; jj++) {
                        const double2 q = CS[s * NB + jj];
                        const int a = (M - 2 - u + 2 * jj) & 15, b = (M - 1 - u + 2 * jj) & 15;
                        const double x = w[a], y = w[b];
                        w[a] = fma(q.x, x, q.y * y);
                        w[b] = fma(q.x, y, -(q.y * x));
                    }
                    const int bot = M - 1 - s + 2 * (NB - 1); /* the row leaving the window */
                    if (bot <= M - 1 && bot >= 0) cp[bot] = w[(M - 1 - u + 2 * (NB - 1)) & 15];
                }
            }
            for (int k = 0; k < 16; k++) acc += w[k];
        }
    out[blockIdx.x * 64 + l] = acc;
}
int main()
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("SKIP: no CUDA device\n");
        return 0;
    }
    int nsm = 0;
    cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0);
    const int blocks = nsm * 64, reps = 4;
    double *out;
    if (cudaMalloc(&out, blocks * 64 * sizeof(double)) != cudaSuccess) {
        printf("cudaMalloc failed\n");
        return 1;
    }
    cudaEvent_t a, b;
    cudaEventCreate(&a), cudaEventCreate(&b);
    sweep<<<blocks, 64>>>(out, 1);
    cudaEventRecord(a);
    sweep<<<blocks, 64>>>(out, reps);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    long useful = 0; /* applies of valid rotations to trailing columns */
    for (int p = 0; p < N / NB; p++)
        for (int jj = 0; jj < NB; jj++) {
            const int j = p * NB + jj;
            if (j > M - 2) continue;
            useful += (long)(M - 1 - j) * (N - (p * NB + NB));
        }
    const double sys = (double)blocks * reps;
    printf("%s: %.3f ms, %.3g trailing updates (systems) per s, %.3g useful applies/s\n", cudaGetErrorString(cudaGetLastError()), ms,
           sys / (ms * 1e-3), sys * useful / (ms * 1e-3));
    cudaFree(out);
    return 0;
}
