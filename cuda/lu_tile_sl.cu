/* lu_tile_sl.cu -- instantiations of the register-tile LU kernel (float, buckets 80..128);
 * split by precision and bucket range so that make -j compiles them in parallel. */
#include "lu_tile.cuh"
BST_BUCKETS_LARGE(BST_INSTANTIATE, float)
