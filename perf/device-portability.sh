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
#                                              compiles compute_80 for the device), the
#                                              GPU test programs on it, side by side
#   bash perf/device-portability.sh ptx-rest   the rest of make gpu-test on that build
#   bash perf/device-portability.sh noload     code for a newer architecture only
#                                              (NOLOAD_ARCH, default 120): no kernel loads,
#                                              test/gpu_device shows AUTO on the CPU with
#                                              the reason
#   bash perf/device-portability.sh compare-build   builds the benchmarks of an older
#                                              tree (OLD_SRC, default build/old-src: `git
#                                              archive <commit>` unpacked there and
#                                              carried; its Makefile's defaults) and of
#                                              this one for the device's architecture
#   bash perf/device-portability.sh builds     what ptx, ptx-rest, compare and make
#                                              gpu-test on build/sm_<device> need, side by
#                                              side in one call (the older tree niced)
#   bash perf/device-portability.sh compare    runs them one after the other on a subset
#                                              of the RESULTS.md shapes; CPU LU on one
#                                              thread
# Logs go to $OUT (or device-out/), packed into logs.tgz beyond 8 files.
set -u
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
# the device brings back at most 8 files of $OUT: more are packed into one
# archive at exit (tar xzf logs.tgz)
pack() {
    [ "$(find "$OUT" -maxdepth 1 -type f | wc -l)" -le 8 ] && return
    tar czf /tmp/device-logs.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/device-logs.tgz "$OUT/logs.tgz"
}
trap pack EXIT
source .device-deps/env.sh
J=$(nproc)
# the driver's cache of PTX compiled for this device: large enough for every kernel
export CUDA_CACHE_MAXSIZE=4294967296
# the device's architecture, compute capability x 10 (90 on an H100): compare-build builds it
DEV_ARCH=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d .)
BENCHES="perf/bench_gpu perf/bench_qr_gpu perf/bench_gtsv_gpu perf/bench_cpu"

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
    # make gpu-test's GPU programs, one process per forced configuration, side by side:
    # each process has the driver compile the PTX of the kernels it loads, one at a time,
    # so the processes share that work (the driver's cache then serves ptx-rest)
    T=$(mktemp -d)
    export OMP_NUM_THREADS=2 # their CPU references, 15 processes on the host's cores
    for c in 0 1 2 3 4 5 6 7 8 9; do BSOLVE_TEST_CONFIG=$c $B/test/gpu_qr >"$T/gpu_qr.$c" 2>&1 & done
    for c in 0 1 2; do BSOLVE_TEST_CONFIG=$c $B/test/gpu_lu >"$T/gpu_lu.$c" 2>&1 & done
    $B/test/gpu_gtsv >"$T/gpu_gtsv" 2>&1 &
    $B/test/gpu_device >"$T/gpu_device" 2>&1 &
    t=$(date +%s) fail=0
    for p in $(jobs -p); do wait "$p" || fail=1; done
    for f in "$T"/*; do echo "=== $(basename "$f")"; cat "$f"; done >>"$OUT/ptx.log"
    grep -E "^=== |PASS|FAIL|checks|failures" "$OUT/ptx.log" | tail -40
    echo "=== GPU programs side by side: fail=$fail in $(( $(date +%s) - t )) s" | tee -a "$OUT/ptx.log"
    ;;
ptx-rest)
    # the rest of make gpu-test on the ptx build: the samples and test_*.c on the GPU
    A=${PTX_ARCH:-80}
    timed "$OUT/ptx-rest.log" make BUILD=build/ptx_$A CUDA_ARCHS=$A GPU_TESTS= gpu-test
    grep -E "^==|Checks|SKIP|FAIL" "$OUT/ptx-rest.log" | grep -v "100%: Checks" | tail -30
    grep -c "100%: Checks" "$OUT/ptx-rest.log"
    ;;
noload)
    A=${NOLOAD_ARCH:-120}
    B=build/noload_$A
    timed "$OUT/noload.log" make -j"$J" BUILD=$B CUDA_ARCHS=$A lib $B/test/gpu_device || exit 1
    timed "$OUT/noload.log" $B/test/gpu_device
    grep -E "device|AUTO|checks|PASS|FAIL" "$OUT/noload.log" | tail -12
    ;;
builds)
    A=${PTX_ARCH:-80}
    O=${OLD_SRC:-build/old-src}
    nice -n 10 make -C "$O" -j"$J" $(for b in $BENCHES; do echo build/$b; done) >"$OUT/build-old.log" 2>&1 &
    timed "$OUT/build-ptx.log" make -j"$J" BUILD=build/ptx_$A CUDA_ARCHS=$A $(targets build/ptx_$A) &
    timed "$OUT/build-sm.log" make -j"$J" BUILD=build/sm_$DEV_ARCH CUDA_ARCHS=$DEV_ARCH \
        $(targets build/sm_$DEV_ARCH)
    wait
    echo "older tree: $(tail -1 "$OUT/build-old.log")"
    ;;
compare-build)
    # the older tree with its Makefile's defaults, this one for the device's architecture
    # (the same SASS as in a families build); side by side
    O=${OLD_SRC:-build/old-src}
    timed "$OUT/compare.log" make -C "$O" -j$((J / 2)) $(for b in $BENCHES; do echo build/$b; done) &
    timed "$OUT/compare.log" make -j$((J / 2)) BUILD=build/sm_$DEV_ARCH CUDA_ARCHS=$DEV_ARCH \
        $(for b in $BENCHES; do echo build/sm_$DEV_ARCH/$b; done)
    wait
    ;;
compare)
    O=${OLD_SRC:-build/old-src}
    for v in old new; do
        d=$([ $v = old ] && echo "$O/build" || echo build/sm_$DEV_ARCH)
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
    sed -n '2,/^# Logs go/p' "$0"
    exit 2
    ;;
esac
