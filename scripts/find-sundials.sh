#!/bin/sh
# scripts/find-sundials.sh [DIR] -- whether SUNDIALS is here for the SUNDIALS adapter
# (include/batchsolve_sundials.h), its test and samples/chem_cvode: version 6 or 7, double
# precision, with CVODE, ARKODE, IDA, the serial vector and the dense matrix and solver (the
# test's and sample's reference).  DIR: an install prefix (include/, lib/ or lib64/) to use
# instead of the compiler's default paths (Debian 12: libsundials-dev, SUNDIALS 6.4).
# Prints make assignments, spaces as commas, as scripts/build-config.sh does:
#   SUNDIALS_CFLAGS=-I/opt/sundials/include SUNDIALS_LIBS=-L/opt/sundials/lib,-lsundials_cvode,...
# or nothing when a program using all of it does not compile and link.  CC: the compiler.
dir=$1
cc=${CC:-cc}
cflags="" ldflags=""
if [ -n "$dir" ]; then
    [ -f "$dir/include/sundials/sundials_config.h" ] || exit 0
    cflags="-I$dir/include"
    for l in "$dir/lib" "$dir/lib64"; do
        [ -d "$l" ] && ldflags="$ldflags -L$l -Xlinker -rpath -Xlinker $l"
    done
fi
tmp=$(mktemp -d 2>/dev/null || echo /tmp/find-sundials.$$)
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOF'
#include <arkode/arkode_arkstep.h>
#include <cvode/cvode.h>
#include <ida/ida.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_config.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#if SUNDIALS_VERSION_MAJOR < 6 || !defined(SUNDIALS_DOUBLE_PRECISION)
#error "SUNDIALS 6 or later in double precision"
#endif
static int f(sunrealtype t, N_Vector y, N_Vector d, void *u) { (void)t, (void)y, (void)d, (void)u; return 0; }
int main(void)
{
    SUNContext s;
    if (SUNContext_Create(0, &s)) return 1;
    N_Vector y = N_VNew_Serial(1, s);
    SUNMatrix A = SUNDenseMatrix(1, 1, s);
    SUNLinearSolver L = SUNLinSol_Dense(y, A, s);
    void *c = CVodeCreate(CV_BDF, s), *a = ARKStepCreate(NULL, f, 0, y, s), *i = IDACreate(s);
    return !(L && c && a && i);
}
EOF
libs="-lsundials_cvode -lsundials_arkode -lsundials_ida -lsundials_sunlinsoldense -lsundials_sunmatrixdense -lsundials_nvecserial"
# SUNDIALS 7 keeps what the packages share in libsundials_core; 6 in each package
for extra in "" "-lsundials_core"; do
    if $cc $cflags "$tmp/t.c" -o "$tmp/t" $ldflags $libs $extra -lm >/dev/null 2>&1; then
        echo "SUNDIALS_CFLAGS=$cflags SUNDIALS_LIBS=$(echo $ldflags $libs $extra -lm | tr ' ' ,)"
        exit 0
    fi
done
exit 0
