/* lu_panel_d.cu -- instantiations of the blocked panel LU kernel, double. */
#include "lu_panel.cuh"
BSP_BUCKETS(BSP_INSTANTIATE, double)
