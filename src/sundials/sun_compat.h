/*
 * sun_compat.h -- what differs between the SUNDIALS versions the adapter
 * builds with (6.x, Debian 12's 6.4; 7.x): the return type of the matrix
 * and solver operations (int, then SUNErrCode) and their codes (SUNMAT_*
 * and SUNLS_* negatives, then SUN_ERR_*).  The recoverable solver codes
 * (SUNLS_LUFACT_FAIL, SUNLS_PACKAGE_FAIL_REC) are the same in both.
 */
#ifndef BSI_SUN_COMPAT_H
#define BSI_SUN_COMPAT_H

#include <sundials/sundials_config.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>

#if !defined(SUNDIALS_VERSION_MAJOR) || SUNDIALS_VERSION_MAJOR < 6
#error "the batchsolve SUNDIALS adapter needs SUNDIALS 6 or later (SUNContext)"
#endif
#if !defined(SUNDIALS_DOUBLE_PRECISION)
#error "the batchsolve SUNDIALS adapter needs SUNDIALS built for double precision"
#endif

#if SUNDIALS_VERSION_MAJOR >= 7
#include <sundials/sundials_errors.h>
typedef SUNErrCode bsi_sun_err;
#define BSI_SUN_OK SUN_SUCCESS
#define BSI_SUNMAT_EINPUT SUN_ERR_ARG_INCOMPATIBLE
#define BSI_SUNLS_EINPUT SUN_ERR_ARG_INCOMPATIBLE
#define BSI_SUNLS_EPACKAGE SUN_ERR_EXT_FAIL
#else
typedef int bsi_sun_err;
#define BSI_SUN_OK 0
#define BSI_SUNMAT_EINPUT SUNMAT_ILL_INPUT
#define BSI_SUNLS_EINPUT SUNLS_ILL_INPUT
#define BSI_SUNLS_EPACKAGE SUNLS_PACKAGE_FAIL_UNREC
#endif

#endif
