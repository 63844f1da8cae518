/* lu_getrs_team_d2.cu -- double instantiations of the team getrs, shapes of
 * BSI_LU_RSTEAM_SHAPES_B; split so that make -j compiles them in parallel. */
#include "lu_getrs_team.cuh"
BSI_LU_RSTEAM_SHAPES_B(BSR_INSTANTIATE_D)
