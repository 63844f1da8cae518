#!/bin/sh
# scripts/check-install.sh PREFIX PROGRAM.c -- checks an install (make install into PREFIX)
# the way README.md tells users to link against it: PROGRAM.c built with pkg-config
# against the shared library (with an rpath, and with LD_LIBRARY_PATH) and against the
# static one (pkg-config --static); each must run and exit 0.
set -eu
prefix=$1 prog=$2 cc=${CC:-cc}
out=$prefix/check
mkdir -p "$out"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
libdir=$(pkg-config --variable=libdir batchsolve)
soname=$(readelf -d "$libdir/libbatchsolve.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libbatchsolve.so.0 ] || { echo "check-install: SONAME is '$soname'" >&2; exit 1; }

set -x
$cc "$prog" $(pkg-config --cflags --libs batchsolve) -Wl,-rpath,"$libdir" -lm -o "$out/shared-rpath"
$cc "$prog" $(pkg-config --cflags --libs batchsolve) -lm -o "$out/shared"
$cc "$prog" $(pkg-config --cflags batchsolve) -Wl,-Bstatic $(pkg-config --static --libs batchsolve) -Wl,-Bdynamic \
    -lm -o "$out/static"
{ set +x; } 2>/dev/null
readelf -d "$out/shared" | grep -q "NEEDED.*\[$soname\]"
if readelf -d "$out/static" | grep -q 'NEEDED.*libbatchsolve'; then
    echo "check-install: the static link needs libbatchsolve.so" >&2
    exit 1
fi
"$out/shared-rpath"
LD_LIBRARY_PATH="$libdir" "$out/shared"
"$out/static"
