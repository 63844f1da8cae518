/* lu_tile_s.cu -- instantiations of the register-tile LU kernel (float, buckets 40..64);
 * split by precision and bucket range so that make -j compiles them in parallel. */
#include "lu_tile.cuh"
BST_BUCKETS_SMALL(BST_INSTANTIATE, float)
