#!/bin/sh
# Checks that the test and benchmark references are installed (GSL, Check, LAPACKE, OpenBLAS,
# pkg-config); installs the missing Debian packages when run as root, otherwise names them.
# The library itself needs none of them.  Optional, named but not installed (large: MPI and
# PETSc come with it): libsundials-dev, for the SUNDIALS adapter, its test and
# samples/chem_cvode; the Makefile passes SUNDIALS_FOUND=yes when it found SUNDIALS.
if [ -z "$SUNDIALS_FOUND" ]; then
  echo "ensure-deps: optional, not installed: libsundials-dev (SUNDIALS 6 or 7: the SUNDIALS adapter," \
       "its test and samples/chem_cvode are skipped without it; apt-get install libsundials-dev)" >&2
fi
missing=""
have_hdr() { printf '#include <%s>\n' "$1" | ${CC:-cc} -E -x c - >/dev/null 2>&1; }
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
have_hdr gsl/gsl_linalg.h || missing="$missing libgsl-dev"
have_hdr check.h          || missing="$missing check"
have_hdr lapacke.h        || missing="$missing liblapacke-dev"
[ -e /usr/lib/x86_64-linux-gnu/libopenblas.so ] || ls /usr/lib/*/libopenblas.so >/dev/null 2>&1 \
  || printf 'int main(void){return 0;}' | ${CC:-cc} -x c - -lopenblas -o /dev/null 2>/dev/null \
  || missing="$missing libopenblas-dev"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-deps: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq $missing >/dev/null && exit 0
  echo "ensure-deps: apt-get failed; install these Debian packages:$missing" >&2
  exit 1
fi
echo "ensure-deps: missing packages:$missing" >&2
echo "ensure-deps: install them with: sudo apt-get install$missing" >&2
exit 1
