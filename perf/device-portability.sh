#!/bin/bash
# perf/device-portability.sh -- checks on the device machine that the library is
# portable across GPU architectures; one step per call (each fits the device's
# 10-minute limit), run from the project root with .device-deps carried:
#   bash perf/device-portability.sh families   the default arch list (make's CUDA_ARCHS=
#                                              families) built in build/families: build
#                                              time, library size, then make gpu-test
#   bash perf/device-portability.sh gpu-test   make gpu-test on that build again
#   bash perf/device-portability.sh ptx        SASS and PTX of an older architecture
#                                              only (PTX_ARCH, default 80: the driver
#                                              compiles compute_80 for the device), make
#                                              gpu-test on it
#   bash perf/device-portability.sh noload     code for a newer architecture only
#                                              (NOLOAD_ARCH, default 120): no kernel loads,
#                                              test/gpu_device shows AUTO on the CPU with
#                                              the reason
#   bash perf/device-portability.sh compare    the benchmarks of an older tree (OLD_SRC,
#                                              default build/old-src: `git archive <commit>`
#                                              unpacked there and carried; its own
#                                              Makefile's defaults) and of build/families,
#                                              one after the other on a subset of the
#                                              RESULTS.md shapes; CPU LU on one thread
# Logs go to $OUT (or device-out/).
set -u
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
source .device-deps/env.sh
J=$(nproc)
# the driver's cache of PTX compiled for this device: large enough for every kernel
export CUDA_CACHE_MAXSIZE=4294967296

timed() { # log command...: runs it, appends output and the wall time to the log
    local log=$1 t=$(date +%s) rc
    shift
    echo "=== $* ($(date -u +%H:%M:%S))" >>"$log"
    "$@" >>"$log" 2>&1
    rc=$?
    echo "=== rc=$rc in $(( $(date +%s) - t )) s: $*" | tee -a "$log"
    return $rc
}

targets() { # the library, every test program, sample and benchmark of build dir $1
    echo lib $(ls test/test_*.c test/gpu_*.c samples/*.c perf/bench_*.c perf/bench_*.cu | sed "s|^\([a-z]*\)/\(.*\)\.cu*$|$1/\1/\2|")
}

case "${1:-}" in
families)
    B=build/families
    { nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -1; nproc; } \
        >"$OUT/families.log"
    timed "$OUT/families.log" make -j"$J" BUILD=$B CUDA_ARCHS=families $(targets $B) || exit 1
    ls -l $B/libbatchsolve.so.* $B/libbatchsolve.a | tee -a "$OUT/families.log"
    cuobjdump --list-elf $B/libbatchsolve.so.*.*.* | sed 's/.*\.\(sm_[0-9a-z]*\)\..*/\1/' | sort | uniq -c |
        tee -a "$OUT/families.log"
    cuobjdump --list-ptx $B/libbatchsolve.so.*.*.* | sed 's/.*\.\(sm_[0-9a-z]*\)\..*/\1/' | sort | uniq -c |
        sed 's/sm_/ptx compute_/' | tee -a "$OUT/families.log"
    ;&
gpu-test)
    timed "$OUT/gpu-test-families.log" make BUILD=build/families CUDA_ARCHS=families gpu-test
    grep -E "^==|Checks|SKIP|FAIL|rc=" "$OUT/gpu-test-families.log" | grep -v "100%: Checks" | tail -30
    grep -c "100%: Checks" "$OUT/gpu-test-families.log"
    # the CPU kernels of each instruction-set level on this host's CPU
    timed "$OUT/gpu-test-families.log" build/families/test/test_isa
    ;;
ptx)
    A=${PTX_ARCH:-80}
    B=build/ptx_$A
    timed "$OUT/ptx.log" make -j"$J" BUILD=$B CUDA_ARCHS=$A $(targets $B) || exit 1
    timed "$OUT/ptx.log" make BUILD=$B CUDA_ARCHS=$A gpu-test
    grep -E "^==|Checks|SKIP|FAIL|rc=|context" "$OUT/ptx.log" | grep -v "100%: Checks" | tail -30
    grep -c "100%: Checks" "$OUT/ptx.log"
    ;;
noload)
    A=${NOLOAD_ARCH:-120}
    B=build/noload_$A
    timed "$OUT/noload.log" make -j"$J" BUILD=$B CUDA_ARCHS=$A lib $B/test/gpu_device || exit 1
    timed "$OUT/noload.log" $B/test/gpu_device
    grep -E "device|AUTO|checks|PASS|FAIL" "$OUT/noload.log" | tail -12
    ;;
compare)
    O=${OLD_SRC:-build/old-src}
    P="perf/bench_gpu perf/bench_qr_gpu perf/bench_gtsv_gpu perf/bench_cpu"
    timed "$OUT/compare.log" make -C "$O" -j"$J" $(for b in $P; do echo build/$b; done) || exit 1
    timed "$OUT/compare.log" make -j"$J" BUILD=build/families CUDA_ARCHS=families \
        $(for b in $P; do echo build/families/$b; done) || exit 1
    for v in old new; do
        d=$([ $v = old ] && echo "$O/build" || echo build/families)
        timed "$OUT/compare-$v.log" env BSOLVE_BENCH_NS=2,4,8,16,32,64,128 BSOLVE_BENCH_PREC=d \
            $d/perf/bench_gpu "$OUT/lu-$v.csv"
        timed "$OUT/compare-$v.log" env BSOLVE_BENCH_SHAPES=4x4,8x8,8x16,16x16,16x32,32x32,32x64,64x64,64x128 \
            $d/perf/bench_qr_gpu "$OUT/qr-$v.csv"
        timed "$OUT/compare-$v.log" env BENCH_REGIME=many BENCH_NOCS=1 BENCH_MMAX=1024 \
            $d/perf/bench_gtsv_gpu "$OUT/gtsv-$v.csv"
        timed "$OUT/compare-$v.log" env OMP_NUM_THREADS=1 $d/perf/bench_cpu -d -1 -F -P -n 4,8,16,32,64,128 \
            -o "$OUT/cpu-$v.csv"
    done
    ;;
*)
    sed -n '2,23p' "$0"
    exit 2
    ;;
esac
