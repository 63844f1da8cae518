/*
 * tmpl_each.h -- compiles a precision-generic source (see tmpl_on.h) once
 * for each precision, double (suffix d) and float (suffix s):
 *   #define BSI_IMPL "lu_cpu_impl.h"
 *   #include "tmpl_each.h"
 * so that a routine's one description yields both, and the instantiation
 * block is written once rather than in every file that uses one.
 */
#ifndef BSI_IMPL
#error "define BSI_IMPL (the precision-generic file) before including tmpl_each.h"
#endif

#define BSI_REAL double
#define BSI_SFX d
#define BSI_W BSI_LANES_D
#include "tmpl_on.h"
#include BSI_IMPL
#include "tmpl_off.h"

#define BSI_REAL float
#define BSI_SFX s
#define BSI_W BSI_LANES_S
#include "tmpl_on.h"
#include BSI_IMPL
#include "tmpl_off.h"

#undef BSI_IMPL
