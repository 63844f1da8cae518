/* lu_getrs_team_s5.cu -- float instantiations of the team getrs, shapes of
 * BSI_LU_RSTEAM_SHAPES_E; split so that make -j compiles them in parallel. */
#include "lu_getrs_team.cuh"
BSI_LU_RSTEAM_SHAPES_E(BSR_INSTANTIATE_S)
