/* lu_getrs_team_s6.cu -- float instantiations of the team getrs, shapes of
 * BSI_LU_RSTEAM_SHAPES_F; split so that make -j compiles them in parallel. */
#include "lu_getrs_team.cuh"
BSI_LU_RSTEAM_SHAPES_F(BSR_INSTANTIATE_S)
