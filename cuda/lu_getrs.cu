/* lu_getrs.cu -- instantiations of the thread-per-system getrs kernel. */
#include "lu_getrs.cuh"
template cudaError_t bsg_launch<double>(const bsi_lu_args<double> &, cudaStream_t);
template cudaError_t bsg_launch<float>(const bsi_lu_args<float> &, cudaStream_t);
