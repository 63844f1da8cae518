/* tmpl_off.h -- see tmpl_on.h. */
#undef FN
#undef BSI_CAT2
#undef BSI_CAT2_
#undef BSI_REAL
#undef BSI_SFX
#undef BSI_W
#undef real
#undef vreal
#undef vmask
