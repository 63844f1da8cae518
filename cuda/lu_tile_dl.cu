/* lu_tile_dl.cu -- instantiations of the register-tile LU kernel (double, buckets 80..128);
 * split by precision and bucket range so that make -j compiles them in parallel. */
#include "lu_tile.cuh"
BST_BUCKETS_LARGE(BST_INSTANTIATE, double)
