#!/bin/sh
# scripts/build-config.sh GOAL NVCC CI_ARCHS -- the build that `make run`, `make test`,
# `make gpu-test` and `make bench` use on this machine when the command line names no
# CUDA_ARCHS, NVCC or BUILD.  Prints make assignments (CUDA_ARCHS=80,90 BUILD=build/sm_80_90),
# and on stderr one line saying what it chose and why:
#   - a GPU that nvidia-smi lists and nvcc supports: the CUDA backend for its architecture
#     only (several GPUs: each one's), in build/sm_XX;
#   - otherwise `make run` (whose job needs no CUDA code it cannot run) builds CPU-only in
#     build/cpu, and the test targets compile the CUDA backend for CI_ARCHS (every CUDA line
#     is compiled, the GPU tests skip), in build/sm_XX;
#   - without nvcc everything is CPU-only, in build/cpu.
# `make run` builds the CPU kernels for this machine alone (ARCH=-march=native, one set
# instead of one per instruction-set level): its library is not installed anywhere.
goal=$1 nvcc=$2 ci=$3
say() { echo "make $goal: $*" >&2; }
native=""
[ "$goal" = run ] && native="ARCH=-march=native "
cpu() { say "$1: CPU-only build in build/cpu"; echo "${native}NVCC= BUILD=build/cpu"; exit 0; }
cuda() { # archs (space-separated)
    tag=$(echo $1 | tr ' ' _)
    echo "${native}CUDA_ARCHS=$(echo $1 | tr ' ' ,) BUILD=build/sm_$tag"
    exit 0
}

[ -n "$nvcc" ] || cpu "no nvcc"
supported=$("$nvcc" --list-gpu-code 2>/dev/null | sed -n 's/^sm_\([0-9]*\)$/\1/p' | sort -n)
[ -n "$supported" ] || cpu "$nvcc --list-gpu-code lists no architecture"
newest=$(echo "$supported" | tail -1)

gpus=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d '. ' | grep -E '^[0-9]+$' | sort -nu)
why="no GPU (nvidia-smi lists none)"
if [ -n "$gpus" ]; then
    archs=""
    for g in $gpus; do
        if echo "$supported" | grep -qx "$g"; then
            archs="$archs $g"
        elif [ "$g" -gt "$newest" ]; then # newer than the toolkit: the newest PTX, JIT-compiled
            archs="$archs $newest"
        fi
    done
    archs=$(for a in $archs; do echo "$a"; done | sort -nu | xargs)
    if [ -n "$archs" ]; then
        say "GPU of compute capability $(echo $gpus | sed 's/\([0-9]\)\( \|$\)/.\1\2/g'): CUDA backend for sm_$(echo $archs | sed 's/ / sm_/g') in build/sm_$(echo $archs | tr ' ' _)"
        cuda "$archs"
    fi
    why="GPU of compute capability $(echo $gpus | sed 's/\([0-9]\)\( \|$\)/.\1\2/g') is older than $nvcc supports"
elif nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    say "nvidia-smi lists a GPU but not its compute capability (old driver): CUDA backend for CUDA_ARCHS=$ci"
    cuda "$ci"
fi
[ "$goal" = run ] && cpu "$why"
say "$why: CUDA backend compiled for sm_$(echo $ci | sed 's/ / sm_/g') only (the GPU tests skip), in build/sm_$(echo $ci | tr ' ' _)"
cuda "$ci"
