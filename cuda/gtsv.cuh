/*
 * gtsv.cuh -- scalar elimination steps of the tridiagonal solvers, shared by
 * the kernels of cuda/gtsv.cu.  They mirror src/gtsv_cpu_impl.h lane by lane
 * (same pivot choices, same Givens scaling), so CPU and GPU results agree.
 *
 * Step i combines the current row i (diagonal c0, super-diagonal c1) with
 * the original row i+1 (a = dl[i+1], nd = d[i+1], nu = du[i+1]) and gives
 * the transformation (q0, q1), row i of U or R (rinv = 1/U(i,i), or 1 where
 * U(i,i) = 0; u1; u2) and the new current row.
 */
#ifndef BSI_GTSV_CUH
#define BSI_GTSV_CUH

#include <math.h>
#include <stdint.h>

#include "batchsolve.h"

template <typename R> struct bsi_gt_bits;
template <> struct bsi_gt_bits<double> {
    typedef long long I;
    enum { MB = 52, EMAXB = 2046 };
    static __device__ I as_int(double x) { return __double_as_longlong(x); }
    static __device__ double as_real(I x) { return __longlong_as_double(x); }
};
template <> struct bsi_gt_bits<float> {
    typedef int I;
    enum { MB = 23, EMAXB = 254 };
    static __device__ I as_int(float x) { return __float_as_int(x); }
    static __device__ float as_real(I x) { return __int_as_float(x); }
};

template <typename R, int METHOD>
__device__ __forceinline__ void bsi_gt_step(R &c0, R &c1, R a, R nd, R nu, R &q0, R &q1, R &rinv, R &u1, R &u2,
                                            bool &zero)
{
    if (METHOD == BSOLVE_GTSV_THOMAS) {
        zero = c0 == R(0);
        const R r = R(1) / (zero ? R(1) : c0);
        const R l = a * r;
        q0 = l;
        q1 = 0;
        rinv = r;
        u1 = c1;
        u2 = 0;
        c0 = nd - l * c1;
        c1 = nu;
    } else if (METHOD == BSOLVE_GTSV_PARTIAL) {
        const bool sw = fabs(a) > fabs(c0); /* as LAPACK dgttrf */
        const R piv = sw ? a : c0, oth = sw ? c0 : a;
        zero = piv == R(0);
        const R r = R(1) / (zero ? R(1) : piv);
        const R l = oth * r;
        const R uu1 = sw ? nd : c1;
        q0 = l;
        q1 = sw ? R(1) : R(0);
        rinv = r;
        u1 = uu1;
        u2 = sw ? nu : R(0);
        c0 = (sw ? c1 : nd) - l * uu1;
        c1 = sw ? -l * nu : nu;
    } else {
        typedef bsi_gt_bits<R> B;
        typedef typename B::I I;
        const R f = c0;
        const R u = fmax(fabs(f), fabs(a));
        I eb = B::as_int(u) >> B::MB;
        eb = eb < 1 ? 1 : (eb > B::EMAXB - 1 ? B::EMAXB - 1 : eb);
        const R sc = B::as_real((I)(B::EMAXB - eb) << B::MB); /* exact 2^-e */
        const R fs = f * sc, gs = a * sc;
        const R dd = sqrt(fs * fs + gs * gs);
        zero = dd == R(0);
        const R idd = R(1) / (zero ? R(1) : dd);
        const R c = zero ? R(1) : fs * idd, s = gs * idd;
        q0 = c;
        q1 = s;
        rinv = zero ? R(1) : idd * sc;
        u1 = c * c1 + s * nd;
        u2 = s * nu;
        c0 = c * nd - s * c1;
        c1 = c * nu;
    }
}

/* The step applied to a right-hand side: returns y_i, updates nb = b_{i+1}. */
template <typename R, int METHOD> __device__ __forceinline__ R bsi_gt_apply(R q0, R q1, R bc, R &nb)
{
    if (METHOD == BSOLVE_GTSV_THOMAS) {
        nb -= q0 * bc;
        return bc;
    }
    if (METHOD == BSOLVE_GTSV_PARTIAL) {
        const bool sw = q1 != R(0);
        const R y = sw ? nb : bc;
        nb = (sw ? bc : nb) - q0 * y;
        return y;
    }
    const R y = q0 * bc + q1 * nb;
    nb = q0 * nb - q1 * bc;
    return y;
}

#endif
