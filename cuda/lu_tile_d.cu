/* lu_tile_d.cu -- instantiations of the register-tile LU kernel (double); split from
 * lu_tile_s.cu so that make -j compiles them in parallel. */
#include "lu_tile.cuh"
BST_BUCKETS(BST_INSTANTIATE, double)
