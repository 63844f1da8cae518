/* lu_smem_d2.cu -- FP64 instantiations of the shared-memory LU kernel, n = 13..15. */
#include "lu_smem.cuh"
BSM_INSTANTIATE(double, 13) BSM_INSTANTIATE(double, 14) BSM_INSTANTIATE(double, 15)
