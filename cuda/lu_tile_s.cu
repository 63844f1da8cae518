/* lu_tile_s.cu -- instantiations of the register-tile LU kernel (float); split from
 * lu_tile_d.cu so that make -j compiles them in parallel. */
#include "lu_tile.cuh"
BST_BUCKETS(BST_INSTANTIATE, float)
