#!/bin/sh
# Fetches Intel oneMKL's static libraries and headers (the mkl-static and mkl-include wheels
# from PyPI) into .deps/mkl, for the benchmarks that compare against MKL (make MKL=1 ...).
# MKL is an optional benchmark peer only: the library, make test and make run never need it.
# Idempotent: a complete .deps/mkl is reused.  Prints the include and lib directories.
#   sh scripts/fetch-mkl.sh [DIR]        (DIR: default .deps/mkl)
#   MKL_VERSION=2026.2.0 (the version the benchmark was checked with)
set -eu
version=${MKL_VERSION:-2026.2.0}
dir=${1:-.deps/mkl}
inc=$dir/x/mkl_include-$version.data/data/include
lib=$dir/x/mkl_static-$version.data/data/lib

complete() {
  [ -f "$inc/mkl.h" ] && [ -f "$lib/libmkl_intel_lp64.a" ] && [ -f "$lib/libmkl_sequential.a" ] \
    && [ -f "$lib/libmkl_core.a" ]
}

if ! complete; then
  if command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1; then
    pip="python3 -m pip"
  elif command -v pip3 >/dev/null 2>&1; then
    pip=pip3
  else
    echo "fetch-mkl: needs pip (python3 -m pip or pip3) to download the mkl-static and" >&2
    echo "fetch-mkl: mkl-include $version wheels from PyPI; install it (apt-get install python3-pip)" >&2
    echo "fetch-mkl: or unpack the two wheels by hand into $dir/x" >&2
    exit 1
  fi
  mkdir -p "$dir"
  echo "fetch-mkl: downloading mkl-static==$version mkl-include==$version (250 MB; 1.2 GB unpacked) into $dir" >&2
  if ! $pip download --quiet --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
       --python-version 3 -d "$dir" "mkl-static==$version" "mkl-include==$version"; then
    echo "fetch-mkl: pip download failed (no network, no PyPI access, or no such version $version)" >&2
    exit 1
  fi
  rm -rf "$dir/x.tmp"
  mkdir -p "$dir/x.tmp"
  for w in "$dir"/mkl_static-"$version"-*.whl "$dir"/mkl_include-"$version"-*.whl; do
    [ -f "$w" ] || { echo "fetch-mkl: $w missing after the download" >&2; exit 1; }
    python3 -m zipfile -e "$w" "$dir/x.tmp"
  done
  rm -rf "$dir/x"
  mv "$dir/x.tmp" "$dir/x"
  complete || { echo "fetch-mkl: the wheels hold no $inc/mkl.h or $lib/libmkl_*.a" >&2; exit 1; }
fi
echo "MKL_INCLUDE=$(cd "$inc" && pwd)"
echo "MKL_LIB=$(cd "$lib" && pwd)"
