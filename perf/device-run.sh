#!/bin/bash
# perf/device-run.sh -- the whole GPU check in one call on the device machine:
#   build (make -j16), CPU tests (make test), GPU tests (make gpu-test: test/gpu_*.c
#   and every test/test_*.c with BSOLVE_TEST_BACKEND=cuda), compute-sanitizer
#   memcheck + racecheck on a quick subset (BSOLVE_TEST_QUICK=1), the GPU benchmark
#   (make bench with the CPU benches left out: they take minutes and are not GPU),
#   and perf/probe_gtsv (latency of few-long tridiagonal calls) with bench_gtsv_gpu.
# Logs, CSV and PNG go to $OUT (at most 8 files); a summary table is printed last.
# Usage there:  bash perf/device-run.sh            (needs .device-deps carried)
# Builds for the device's architecture only (CUDA_ARCHS=90 on an H100: minutes less than
# the portable build); CUDA_ARCHS=families bash perf/device-run.sh checks the default list.
# Env: SKIP_CPU_TESTS=1, SKIP_GPU_TESTS=1, SKIP_SANITIZER=1, SKIP_BENCH=1, STEP_TIMEOUT=<s>,
#      BENCH_LIST="bench_gpu ...", BENCH_TIMEOUT=<s>, SAN_LIST="gtsv qr" to shorten a run.
set -u
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
T0=$(date +%s)
source .device-deps/env.sh
CUDA_ARCHS=${CUDA_ARCHS:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d .)}
export CUDA_ARCHS=${CUDA_ARCHS:-90} # in the environment: every make below builds this, in build/
ST=${STEP_TIMEOUT:-200}
declare -A RES

step() { # name timeout logfile command...
    local name=$1 to=$2 log=$3; shift 3
    local t=$(date +%s)
    echo "=== $name ($(date -u +%H:%M:%S))" | tee -a "$log"
    timeout "$to" "$@" >>"$log" 2>&1
    local rc=$?
    RES[$name]="rc=$rc $(( $(date +%s) - t ))s"
    echo "=== $name: rc=$rc in $(( $(date +%s) - t )) s" | tee -a "$log"
    return $rc
}

{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; nvcc --version | tail -1;
  echo "CUDA_ARCHS=$CUDA_ARCHS"; } >"$OUT/build.log" 2>&1
if [ -n "${TUNE:-}" ]; then # team-size experiment, compiled beside the library
    mkdir -p build && nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Isrc -Icuda perf/tune_team.cu -o build/tune_team \
        >>"$OUT/build.log" 2>&1 &
    TUNE_PID=$!
fi
step build 300 "$OUT/build.log" make -j16 lib \
    $(ls test/test_*.c test/gpu_*.c perf/bench_*.cu perf/probe_*.cu | sed 's|^\([a-z]*\)/\(.*\)\.cu*$|build/\1/\2|')

if [ -n "${TUNE:-}" ]; then
    wait $TUNE_PID
    step tune 100 "$OUT/bench.log" build/tune_team
    grep "^tune" "$OUT/bench.log"
fi

if [ -z "${SKIP_GPU_TESTS:-}" ]; then
    step gpu-test "$ST" "$OUT/gpu-test.log" make gpu-test
    grep -E "FAIL|PASS|SKIP|Checks|%:|big batch" "$OUT/gpu-test.log" | head -40
fi

# GPU benchmarks, each its own step (BENCH_LIST picks some: "bench_gtsv_gpu").
if [ -z "${SKIP_BENCH:-}" ]; then
    for b in ${BENCH_LIST:-bench_gpu bench_qr_gpu bench_gtsv_gpu}; do
        step "$b" "${BENCH_TIMEOUT:-240}" "$OUT/bench.log" env BSOLVE_BENCH_DIR="$OUT" build/perf/$b "$OUT/$b.csv"
    done
    # latency anatomy of few-long tridiagonal calls (host / isolated / back to back)
    case " ${BENCH_LIST:-bench_gtsv_gpu} " in *" bench_gtsv_gpu "*)
        step probe_gtsv 60 "$OUT/bench.log" build/perf/probe_gtsv && sed -n '/host_us/,$p' "$OUT/bench.log" | tail -6 ;;
    esac
fi

if [ -z "${SKIP_SANITIZER:-}" ]; then
    # SAN_LIST picks programs ("gtsv qr"); gpu_lu gets BSOLVE_TEST_SANITIZE (1: memcheck
    # subset, 2: racecheck subset), gpu_gtsv runs without Check's fork
    for p in ${SAN_LIST:-lu gtsv qr}; do
        step memcheck-$p 120 "$OUT/sanitizer.log" env BSOLVE_TEST_QUICK=1 BSOLVE_TEST_SANITIZE=1 CK_FORK=no \
            compute-sanitizer --tool memcheck --error-exitcode 9 build/test/gpu_$p
        step racecheck-$p 300 "$OUT/sanitizer.log" env BSOLVE_TEST_QUICK=1 BSOLVE_TEST_SANITIZE=2 CK_FORK=no \
            compute-sanitizer --tool racecheck --error-exitcode 9 build/test/gpu_$p
    done
    # the few-long levels with the reduction by warps wherever it applies (the
    # quick sizes take it only when forced: gpu_gtsv's warpred configuration)
    case " ${SAN_LIST:-lu gtsv qr} " in *" gtsv "*)
        step memcheck-gtsv-warpred 200 "$OUT/sanitizer.log" env BSOLVE_TEST_QUICK=1 BSOLVE_TEST_GT_CONFIG=warpred \
            compute-sanitizer --tool memcheck --error-exitcode 9 build/test/gpu_gtsv ;;
    esac
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASS|FAIL" "$OUT/sanitizer.log" | tail -8
fi

if [ -z "${SKIP_CPU_TESTS:-}" ]; then
    step cpu-test "$ST" "$OUT/cpu-test.log" make test
fi

{
    echo "device-run summary ($(( $(date +%s) - T0 )) s total)"
    for k in build tune gpu-test bench_gpu bench_qr_gpu bench_gtsv_gpu probe_gtsv memcheck-lu racecheck-lu memcheck-gtsv racecheck-gtsv memcheck-gtsv-warpred memcheck-qr racecheck-qr cpu-test; do
        [ -n "${RES[$k]:-}" ] && printf "  %-14s %s\n" "$k" "${RES[$k]}"
    done
    [ -f "$OUT/gpu-test.log" ] && grep -E "^(PASS|FAIL)|Checks|failed|failures" "$OUT/gpu-test.log" | tail -14
    if [ -f "$OUT/bench.log" ]; then
        sed -n '/^bandwidth/p' "$OUT/bench.log"
        sed -n '/^FP64, 1 rhs/,$p' "$OUT/bench.log" | head -22
        grep -E "host arrays" "$OUT/bench.log"
        grep "^tune" "$OUT/bench.log"
    fi
} | tee "$OUT/summary.txt"
