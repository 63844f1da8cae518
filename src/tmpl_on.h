/*
 * tmpl_on.h -- turns a precision-generic source into one precision, in the
 * manner of GSL's templates_on.h.  Before including a *_impl.h file define
 *   BSI_REAL   double or float
 *   BSI_SFX    d or s         (function-name suffix)
 *   BSI_W      lanes per tile (BSI_LANES_D or BSI_LANES_S)
 * and include tmpl_off.h after it (tmpl_each.h does all of it for both
 * precisions).
 */
#define BSI_CAT2_(a, b) a##_##b
#define BSI_CAT2(a, b) BSI_CAT2_(a, b)
#define FN(name) BSI_CAT2(name, BSI_SFX)
#define real BSI_REAL
#define vreal FN(bsi_v) /* a vector of BSI_W reals (simd.h) */
#define vmask FN(bsi_m) /* the matching mask vector */
