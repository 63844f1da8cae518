/* lu_panel_s.cu -- instantiations of the blocked panel LU kernel, float. */
#include "lu_panel.cuh"
BSP_BUCKETS(BSP_INSTANTIATE, float)
