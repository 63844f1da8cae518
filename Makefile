# batchsolve -- build, test, benchmark.
#   make            libraries (build/libbatchsolve.a, build/libbatchsolve.so*), for every
#                   GPU architecture nvcc supports (CUDA_ARCHS below)
#   make test       CPU tests (GPU tests skip, saying so, when no GPU is present)
#   make gpu-test   GPU tests (needs a GPU)
#   make run        the main job: a batch-solve benchmark on the default backend
#   make bench      benchmarks against LAPACKE/GSL (CPU) and cuBLAS (GPU, when present)
#   make NVCC= BUILD=build-cpu build-cpu/perf/bench_cpu_mkl
#                   bench_cpu with Intel oneMKL's batch and compact LU as peers (below)
#   make install PREFIX=/usr/local
# With SUNDIALS 6 or 7 (Debian: libsundials-dev; SUNDIALS_DIR=prefix for another install),
# the SUNDIALS adapter too: build/libbatchsolve_sundials.a, its test, samples/chem_cvode.
# run, test, gpu-test and bench build for this machine (scripts/build-config.sh says
# what and where) unless CUDA_ARCHS, NVCC or BUILD is given.
# Missing Debian packages are installed when run as root (scripts/ensure-deps.sh); only
# the tests and benchmarks need them.

# what the command line (or environment) names, before the defaults below
BSI_GIVEN := $(filter-out undefined default,$(origin CUDA_ARCHS) $(origin BUILD) $(origin NVCC))
comma := ,

# Build in parallel by default; tests and benchmarks still run one at a time.
# (Sub-makes share the top one's job slots.)
NPROC := $(shell nproc 2>/dev/null || echo 2)
ifeq ($(MAKELEVEL),0)
MAKEFLAGS += -j$(NPROC)
endif

PREFIX  ?= /usr/local
BUILD   ?= build
CC      ?= gcc
# ARCH: empty, the library runs on any x86-64 CPU (the CPU kernels for each
# instruction-set level, chosen at run time, below); ARCH=-march=native builds
# for this machine only.
ARCH    ?=
CFLAGS  ?= -O3 $(ARCH)
override CFLAGS += -std=c11 -ffp-contract=fast -fopenmp -fPIC -fvisibility=hidden -Wall -Wextra -Iinclude -Isrc
LDLIBS  += -lm

# CUDA: built whenever nvcc is found (CI compiles every kernel); otherwise a stub
# backend that reports BSOLVE_ENODEVICE is linked in.
NVCC    ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
NVCC    := $(NVCC)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))

# make run / test / gpu-test / bench without a configuration: this machine's GPU
# architecture only, else CPU-only (run) or CUDA_ARCHS_CI (the others), each in
# its own BUILD directory.
CUDA_ARCHS_CI ?= 75
ifeq ($(BSI_GIVEN),)
ifneq ($(filter run test gpu-test bench,$(MAKECMDGOALS)),)
BSI_AUTO := $(shell sh scripts/build-config.sh $(if $(filter test gpu-test bench,$(MAKECMDGOALS)),test,run) '$(NVCC)' '$(CUDA_ARCHS_CI)')
$(foreach a,$(BSI_AUTO),$(eval $(firstword $(subst =, ,$(a))) := $(subst $(comma), ,$(patsubst $(firstword $(subst =, ,$(a)))=%,%,$(a)))))
endif
endif

# CUDA_ARCHS: the GPU architectures compiled, as compute capability x 10 ("80 90"):
# SASS for each, and the PTX of the newest, which the driver compiles for GPUs newer
# than any of them.  Default (families): every architecture nvcc supports, one SASS
# per binary-compatible family -- SASS of X.y runs on every X.z with z >= y, so the
# lowest of each major serves them all (CUDA 13: 75 80 90 100 110 120 covers sm_75 ..
# sm_121).  all: SASS for every architecture nvcc lists.
CUDA_ARCHS ?= families
ifneq ($(NVCC),)
CUDA_SM_LIST := $(shell $(NVCC) --list-gpu-code 2>/dev/null | sed -n 's/^sm_\([0-9]*\)$$/\1/p' | sort -n)
CUDA_SM := $(strip $(if $(filter all,$(CUDA_ARCHS)),$(CUDA_SM_LIST),\
             $(if $(filter families,$(CUDA_ARCHS)),\
               $(shell printf '%s\n' $(CUDA_SM_LIST) | awk '{ f = int($$1 / 10) } f != p { print; p = f }'),\
               $(shell printf '%s\n' $(patsubst sm_%,%,$(subst $(comma), ,$(CUDA_ARCHS))) | sort -nu))))
CUDA_PTX := $(lastword $(CUDA_SM))
CUDA_GENCODE := $(foreach a,$(CUDA_SM),-gencode arch=compute_$(a),code=sm_$(a)) \
                -gencode arch=compute_$(CUDA_PTX),code=compute_$(CUDA_PTX)
CUDA_ARCH_LIST := $(addprefix sm_,$(CUDA_SM)) compute_$(CUDA_PTX)
endif
# NVCC_THREADS: one nvcc compiles a file's architectures in parallel.  With several
# architectures the build ends with the few heaviest kernel files, one per core while
# the other cores idle; this fills them (on 8 cores and more: below that, make's -j
# already keeps every core busy and the threads would only add memory).  Not in
# NVFLAGS: it changes no output, so it is not in the flags stamp below.
NVCC_THREADS ?= $(if $(filter 1 2 3 4 5 6 7,$(NPROC)),1,$(words $(CUDA_ARCH_LIST)))
# --compress-mode=size: the fatbinary's SASS is stored compressed too (by default only
# PTX is), about 6 times smaller; the driver decompresses a module once, at load.
NVFLAGS ?= -O3 -std=c++17 $(CUDA_GENCODE) --compress-mode=size -Xptxas -warn-spills
override NVFLAGS += -Iinclude -Isrc -Xcompiler -fPIC,-fvisibility=hidden,-Wall,-fopenmp
CUDA_LIBS = -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++

SRC_C   := $(wildcard src/*.c)
CUDA_CU := $(wildcard cuda/*.cu)
ifeq ($(NVCC),)
  SRC_C   := $(SRC_C) src/cuda_stub/cuda_stub.c
  CUDA_CU :=
  CUDA_LIBS :=
endif

# CPU kernels: the files whose vector width the compiler's target fixes
# (src/cpu_isa.h), compiled once per instruction-set level as
# $(BUILD)/src/<file>.<level>.o; src/cpu_dispatch.c picks a level at run time.
# On x86-64 with ARCH empty: avx512, avx2 and base (any x86-64 CPU).  With
# ARCH set (make ARCH=-march=native: a build for one machine), or on another
# CPU, one set built with ARCH and no run-time choice: the widest vectors the
# target has (simd.h), and the test-only levels 1-3 are unavailable.
CPU_KERNELS := src/lu_cpu.c src/qr_cpu.c src/gtsv_cpu.c src/layout.c src/cpu_kernels.c
ifeq ($(ARCH),)
  CPU_ISAS := $(if $(filter x86_64-%,$(shell $(CC) -dumpmachine 2>/dev/null)),avx512 avx2 base,arch)
else
  CPU_ISAS := arch
endif
CPU_ISA_FLAGS_avx512 := -march=x86-64-v4
CPU_ISA_FLAGS_avx2   := -march=x86-64-v3
CPU_ISA_FLAGS_base   := -march=x86-64
CPU_OBJ := $(foreach i,$(CPU_ISAS),$(patsubst src/%.c,$(BUILD)/src/%.$(i).o,$(CPU_KERNELS)))
$(BUILD)/src/cpu_dispatch.o: override CFLAGS += $(if $(filter base,$(CPU_ISAS)),-DBSI_CPU_X86_LEVELS)

OBJ := $(patsubst %.c,$(BUILD)/%.o,$(filter-out $(CPU_KERNELS),$(SRC_C))) $(CPU_OBJ) $(patsubst %.cu,$(BUILD)/%.o,$(CUDA_CU))

LIB_A  := $(BUILD)/libbatchsolve.a
# The shared library: libbatchsolve.so.MAJOR.MINOR.PATCH (include/batchsolve.h's
# BSOLVE_VERSION_*), SONAME libbatchsolve.so.MAJOR, and the two links to it.
VERSION := $(shell awk '/^\#define BSOLVE_VERSION_(MAJOR|MINOR|PATCH) / { v = v (v == "" ? "" : ".") $$3 } END { print v }' include/batchsolve.h)
SONAME  := libbatchsolve.so.$(firstword $(subst ., ,$(VERSION)))
LIB_SO := $(BUILD)/libbatchsolve.so.$(VERSION)
LIB_SO_LINKS := $(BUILD)/$(SONAME) $(BUILD)/libbatchsolve.so

# Every object depends on the flags it was compiled with: the build directory's
# stamp is rewritten when they change (another CUDA_ARCHS, CFLAGS), so that
# nothing compiled with other flags is linked in.
FLAGS_STAMP := $(BUILD)/.flags
BSI_FLAGS := $(CC) $(CFLAGS) | $(NVCC) $(NVFLAGS) $(CUDA_ARCH_LIST)
ifneq ($(file <$(FLAGS_STAMP)),$(BSI_FLAGS))
$(shell mkdir -p $(BUILD))
$(file >$(FLAGS_STAMP),$(BSI_FLAGS))
endif

# Test and benchmark programs link the static library plus the references.
DEPS_STAMP := $(BUILD)/.deps-ok
REF_LIBS   = $(shell pkg-config --libs gsl check 2>/dev/null) -llapacke -llapack -lopenblas -lm
TEST_COMMON := $(wildcard test/common/*.c)
TESTS     := $(patsubst test/%.c,$(BUILD)/test/%,$(wildcard test/test_*.c))
GPU_TESTS := $(patsubst test/%.c,$(BUILD)/test/%,$(wildcard test/gpu_*.c))
BENCHES   := $(patsubst perf/%.c,$(BUILD)/perf/%,$(wildcard perf/bench_*.c))
CU_BENCHES:= $(if $(NVCC),$(patsubst perf/%.cu,$(BUILD)/perf/%,$(wildcard perf/bench_*.cu)))
# probes: diagnostic programs (perf/probe_*.c, perf/probe_*.cu), built with the tests, run by hand
PROBES    := $(patsubst perf/%.c,$(BUILD)/perf/%,$(wildcard perf/probe_*.c))
CU_PROBES := $(if $(NVCC),$(patsubst perf/%.cu,$(BUILD)/perf/%,$(wildcard perf/probe_*.cu)))
SAMPLES   := $(patsubst samples/%.c,$(BUILD)/samples/%,$(wildcard samples/*.c))
# samples that check their own results in a second or two: run by make test
# (on the default backend) and make gpu-test (on the GPU); the README's examples
# are samples/readme_*.c, included in it verbatim (scripts/readme-code.sh)
SAMPLE_CHECKS := $(BUILD)/samples/adi_heat $(BUILD)/samples/rate_fit \
                 $(patsubst samples/%.c,$(BUILD)/samples/%,$(wildcard samples/readme_*.c))

# The SUNDIALS adapter (include/batchsolve_sundials.h, src/sundials/): a companion library,
# its test and samples/chem_cvode, built when scripts/find-sundials.sh finds SUNDIALS (6 or
# 7, double precision; SUNDIALS_DIR: an install prefix other than the compiler's paths), left
# out otherwise (make test says so).  Naming one of them without SUNDIALS is an error.
SUNDIALS_DIR ?=
BSI_SUN := $(shell CC='$(CC)' sh scripts/find-sundials.sh '$(SUNDIALS_DIR)')
$(foreach a,$(BSI_SUN),$(eval $(firstword $(subst =, ,$(a))) := $(subst $(comma), ,$(patsubst $(firstword $(subst =, ,$(a)))=%,%,$(a)))))
SUN_LIB := $(BUILD)/libbatchsolve_sundials.a
SUN_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard src/sundials/*.c))
SUN_PROGS := $(BUILD)/test/test_sundials $(BUILD)/samples/chem_cvode
ifeq ($(SUNDIALS_LIBS),)
ifneq ($(filter $(SUN_PROGS) $(SUN_LIB),$(MAKECMDGOALS)),)
$(error $(filter $(SUN_PROGS) $(SUN_LIB),$(MAKECMDGOALS)): no SUNDIALS found (scripts/find-sundials.sh; Debian: apt-get install libsundials-dev, or SUNDIALS_DIR=prefix))
endif
TESTS   := $(filter-out $(SUN_PROGS),$(TESTS))
SAMPLES := $(filter-out $(SUN_PROGS),$(SAMPLES))
SUN_LIB :=
endif

.PHONY: all lib test gpu-test bench run samples install clean deps san-build
# Keep intermediate objects (test/common) between runs.
.SECONDARY:
all: lib samples
lib: $(LIB_A) $(LIB_SO) $(LIB_SO_LINKS) $(SUN_LIB)

$(BUILD)/%.o: %.c include/batchsolve.h $(wildcard src/*.h) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# the CPU kernels, once per level (CPU_ISAS above)
define CPU_ISA_RULE
$(BUILD)/src/%.$(1).o: src/%.c include/batchsolve.h $(wildcard src/*.h) $(FLAGS_STAMP)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS) $$(CPU_ISA_FLAGS_$(1)) -DBSI_ISA=$(1) -c $$< -o $$@
endef
$(foreach i,$(CPU_ISAS),$(eval $(call CPU_ISA_RULE,$(i))))

$(BUILD)/%.o: %.cu include/batchsolve.h $(wildcard src/*.h) $(wildcard cuda/*.cuh) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) --threads $(NVCC_THREADS) -c $< -o $@

# make test compiles the code behind `#if __CUDA_ARCH__ >= X` too: the CI build (sm_75)
# skips what needs sm_80 (cp.async) or sm_90 (griddepcontrol), so the .cu files holding
# or including such code are compiled to PTX for CUDA_GUARD_ARCH as well (the front end
# only, no machine code: seconds).
CUDA_GUARD_ARCH := 90
ifneq ($(NVCC),)
CUDA_GUARD_H  := $(notdir $(shell grep -l '^\#if.*__CUDA_ARCH__ >=' cuda/*.cuh))
CUDA_GUARDED  := $(sort $(shell grep -l '^\#if.*__CUDA_ARCH__ >=' cuda/*.cu) \
                   $(foreach h,$(CUDA_GUARD_H),$(shell grep -l '\#include "$(h)"' cuda/*.cu)))
endif
GUARD_PTX := $(patsubst cuda/%.cu,$(BUILD)/guard/%.compute_$(CUDA_GUARD_ARCH).ptx,$(CUDA_GUARDED))
$(BUILD)/guard/%.compute_$(CUDA_GUARD_ARCH).ptx: cuda/%.cu include/batchsolve.h $(wildcard src/*.h) $(wildcard cuda/*.cuh) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) $(filter-out $(CUDA_GENCODE),$(NVFLAGS)) -arch=compute_$(CUDA_GUARD_ARCH) -ptx $< -o $@

# context.cu names the build's GPU code in its reason when none loads on a device
$(BUILD)/cuda/context.o: override NVFLAGS += -DBSI_CUDA_ARCH_LIST='"$(CUDA_ARCH_LIST)"'

$(LIB_A): $(OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# --exclude-libs: the static CUDA runtime inside stays private (a program's own
# libcudart is not interposed); --no-undefined: every dependency is named here.
$(LIB_SO): $(OBJ)
	$(CC) -shared -fopenmp -Wl,-soname,$(SONAME) -Wl,--exclude-libs,ALL -Wl,--no-undefined \
	    -o $@ $^ $(CUDA_LIBS) -lm
$(LIB_SO_LINKS): $(LIB_SO)
	ln -sf $(if $(filter %/$(SONAME),$@),$(notdir $(LIB_SO)),$(SONAME)) $@

$(DEPS_STAMP): scripts/ensure-deps.sh
	@mkdir -p $(dir $@)
	@SUNDIALS_FOUND='$(if $(SUNDIALS_LIBS),yes)' sh scripts/ensure-deps.sh && touch $@
deps: $(DEPS_STAMP)

$(BUILD)/test/common/%.o: test/common/%.c $(wildcard test/common/*.h) include/batchsolve.h | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itest/common -c $< -o $@

$(BUILD)/test/%: test/%.c $(patsubst %.c,$(BUILD)/%.o,$(TEST_COMMON)) $(LIB_A) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itest/common $< $(patsubst %.c,$(BUILD)/%.o,$(TEST_COMMON)) $(LIB_A) $(CUDA_LIBS) $(REF_LIBS) -o $@

# test_chem checks the chemistry samples' kinetics (samples/chem/, compiled as objects,
# not programs) against the Cantera references shipped there, and the team kinetics
# (kinetics_team.c, its lanes run one after the other on the CPU) against them.
CHEM_OBJ := $(patsubst %,$(BUILD)/samples/chem/%.o,tokens mech kinetics kinetics_team kinetics_team_tables)
$(CHEM_OBJ): $(wildcard samples/chem/*.h)
$(BUILD)/test/test_chem: test/test_chem.c $(CHEM_OBJ) $(patsubst %.c,$(BUILD)/%.o,$(TEST_COMMON)) $(LIB_A) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itest/common -Isamples/chem -DCHEM_DATA_DIR='"$(abspath samples/chem)"' $< $(CHEM_OBJ) \
	    $(patsubst %.c,$(BUILD)/%.o,$(TEST_COMMON)) $(LIB_A) $(CUDA_LIBS) $(REF_LIBS) -o $@
# chem_ensemble, the reactor-ensemble sample: the kinetics and its integrator (samples/chem/).
CHEM_ENS_OBJ := $(CHEM_OBJ) $(patsubst %,$(BUILD)/samples/chem/%.o,cases ignition bdf ensemble)
$(CHEM_ENS_OBJ): $(wildcard samples/chem/*.h)
# With CUDA, its GPU path (samples/chem/ensemble_cuda.cu) and cuBLAS for -l cublas.
CHEM_ENS_CUDA := $(if $(NVCC),$(BUILD)/samples/chem/ensemble_cuda.o $(BUILD)/samples/chem/kinetics_cuda.o)
$(BUILD)/samples/chem_ensemble: samples/chem_ensemble.c $(CHEM_ENS_OBJ) $(CHEM_ENS_CUDA) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Isamples/chem -DCHEM_DATA_DIR='"$(abspath samples/chem)"' $(if $(NVCC),-DCHEM_HAVE_CUDA) $< \
	    $(CHEM_ENS_OBJ) $(CHEM_ENS_CUDA) $(LIB_A) $(CUDA_LIBS) $(if $(NVCC),-lcublas) -lm -o $@
$(BUILD)/test/test_chem_ensemble: test/test_chem_ensemble.c $(CHEM_ENS_OBJ) $(BUILD)/samples/chem_ensemble \
                                  $(patsubst %.c,$(BUILD)/%.o,$(TEST_COMMON)) $(LIB_A) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itest/common -Isamples/chem -DCHEM_DATA_DIR='"$(abspath samples/chem)"' \
	    -DCHEM_ENSEMBLE_BIN='"$(abspath $(BUILD)/samples/chem_ensemble)"' $< $(CHEM_ENS_OBJ) \
	    $(patsubst %.c,$(BUILD)/%.o,$(TEST_COMMON)) $(LIB_A) $(CUDA_LIBS) $(REF_LIBS) -o $@

# The chemistry's CUDA code (samples/chem/*.cu, when nvcc is found): kinetics.c,
# kinetics_team.c, bdf.c and ignition.c compiled for the device (samples/chem/hd.h).
# gpu_chem checks the CUDA kinetics against the CPU's.
CHEM_CUDA_OBJ := $(if $(NVCC),$(BUILD)/samples/chem/kinetics_cuda.o)
$(CHEM_CUDA_OBJ) $(CHEM_ENS_CUDA): $(wildcard samples/chem/*.h samples/chem/*.c)
$(BUILD)/test/gpu_chem: test/gpu_chem.c $(CHEM_OBJ) $(CHEM_CUDA_OBJ) $(patsubst %.c,$(BUILD)/%.o,$(TEST_COMMON)) \
                        $(LIB_A) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itest/common -Isamples/chem -DCHEM_DATA_DIR='"$(abspath samples/chem)"' $< $(CHEM_OBJ) \
	    $(CHEM_CUDA_OBJ) $(patsubst %.c,$(BUILD)/%.o,$(TEST_COMMON)) $(LIB_A) $(CUDA_LIBS) $(REF_LIBS) -o $@
# gpu_chem_ensemble: the GPU ensemble against Cantera's delays and the CPU path, and the sample on the GPU
$(BUILD)/test/gpu_chem_ensemble: test/gpu_chem_ensemble.c $(CHEM_ENS_OBJ) $(CHEM_ENS_CUDA) $(BUILD)/samples/chem_ensemble \
                                 $(patsubst %.c,$(BUILD)/%.o,$(TEST_COMMON)) $(LIB_A) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itest/common -Isamples/chem -DCHEM_DATA_DIR='"$(abspath samples/chem)"' \
	    -DCHEM_ENSEMBLE_BIN='"$(abspath $(BUILD)/samples/chem_ensemble)"' $< $(CHEM_ENS_OBJ) $(CHEM_ENS_CUDA) \
	    $(patsubst %.c,$(BUILD)/%.o,$(TEST_COMMON)) $(LIB_A) $(CUDA_LIBS) $(if $(NVCC),-lcublas) $(REF_LIBS) -o $@
# the SUNDIALS adapter, its test (which integrates the h2o2 mechanism with CVODE, ARKODE and
# IDA, and runs chem_cvode) and the sample.  What uses SUNDIALS' headers depends on which
# SUNDIALS it was built with (their structures differ between versions): a stamp of its own.
SUN_STAMP := $(BUILD)/.sundials
ifneq ($(SUNDIALS_LIBS),)
ifneq ($(file <$(SUN_STAMP)),$(SUNDIALS_CFLAGS) | $(SUNDIALS_LIBS))
$(shell mkdir -p $(BUILD))
$(file >$(SUN_STAMP),$(SUNDIALS_CFLAGS) | $(SUNDIALS_LIBS))
endif
endif
$(SUN_OBJ): override CFLAGS += $(SUNDIALS_CFLAGS)
$(SUN_OBJ): include/batchsolve_sundials.h src/sundials/sun_compat.h $(SUN_STAMP)
$(BUILD)/libbatchsolve_sundials.a: $(SUN_OBJ)
	rm -f $@ && ar rcs $@ $^
CHEM_CVODE_OBJ := $(CHEM_OBJ) $(patsubst %,$(BUILD)/samples/chem/%.o,cases ignition sunsys)
$(BUILD)/samples/chem/sunsys.o: override CFLAGS += $(SUNDIALS_CFLAGS)
$(BUILD)/samples/chem/sunsys.o: include/batchsolve_sundials.h $(wildcard samples/chem/*.h) $(SUN_STAMP)
$(BUILD)/samples/chem_cvode: samples/chem_cvode.c $(CHEM_CVODE_OBJ) $(SUN_LIB) $(LIB_A) include/batchsolve_sundials.h $(SUN_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SUNDIALS_CFLAGS) -Isamples/chem -DCHEM_DATA_DIR='"$(abspath samples/chem)"' $< $(CHEM_CVODE_OBJ) \
	    $(SUN_LIB) $(LIB_A) $(CUDA_LIBS) $(SUNDIALS_LIBS) -lm -o $@
$(BUILD)/test/test_sundials: test/test_sundials.c $(CHEM_CVODE_OBJ) $(SUN_LIB) $(BUILD)/samples/chem_cvode \
                             $(patsubst %.c,$(BUILD)/%.o,$(TEST_COMMON)) $(LIB_A) include/batchsolve_sundials.h \
                             $(SUN_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SUNDIALS_CFLAGS) -Itest/common -Isamples/chem -DCHEM_DATA_DIR='"$(abspath samples/chem)"' \
	    -DCHEM_CVODE_BIN='"$(abspath $(BUILD)/samples/chem_cvode)"' $< $(CHEM_CVODE_OBJ) \
	    $(patsubst %.c,$(BUILD)/%.o,$(TEST_COMMON)) $(SUN_LIB) $(LIB_A) $(CUDA_LIBS) $(SUNDIALS_LIBS) $(REF_LIBS) -o $@

# GPU tests call the CUDA runtime (cudaMalloc) themselves.
$(GPU_TESTS): override CFLAGS += $(if $(NVCC),-I$(CUDA_HOME)/include -DBSOLVE_TEST_CUDART)

$(BUILD)/perf/%: perf/%.c $(LIB_A) perf/bench_plot.h perf/bench_peak.h | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(LIB_A) $(CUDA_LIBS) $(REF_LIBS) -o $@

# bench_cpu_mkl: perf/bench_cpu.c with MKL's columns (BENCH_MKL; perf/mkl_peer.c makes the
# MKL calls), linked fully static -- MKL sequential (one thread), GSL, LAPACKE, OpenBLAS,
# libgomp, libc -- and stripped, so that the one file (~64 MB, 15 MB gzipped: MKL keeps code
# for every CPU) runs on a machine with none of them installed.  MKL is an optional benchmark
# peer, never a dependency of the library, make test or make run: scripts/fetch-mkl.sh
# downloads its static libraries and headers (the mkl-static and mkl-include wheels from
# PyPI) into .deps/mkl; this rule runs it when they are missing.
# MKL_INCLUDE and MKL_LIB name another MKL (LP64 interface).  Build it CPU-only (NVCC=):
# the benchmark uses the CPU backend, and a static CUDA runtime has no place in it.
MKL_VERSION ?= 2026.2.0
MKL_INCLUDE ?= .deps/mkl/x/mkl_include-$(MKL_VERSION).data/data/include
MKL_LIB     ?= .deps/mkl/x/mkl_static-$(MKL_VERSION).data/data/lib
MKL_LIBS     = -Wl,--start-group $(MKL_LIB)/libmkl_intel_lp64.a $(MKL_LIB)/libmkl_sequential.a \
               $(MKL_LIB)/libmkl_core.a -Wl,--end-group
# static: OpenBLAS (its LAPACK is liblapack.a's) needs libgfortran; the reference libraries
# come first, so that LAPACKE, dgetc2 and the cblas of GSL are OpenBLAS's and GSL's, not MKL's
MKL_REF_LIBS = $(shell pkg-config --static --libs gsl 2>/dev/null || echo -lgsl -lgslcblas -lm) \
               -llapacke -llapack -lopenblas -lgfortran -lquadmath
ifneq ($(NVCC),)
ifneq ($(filter %/bench_cpu_mkl,$(MAKECMDGOALS)),)
$(error bench_cpu_mkl links the CPU-only library: make NVCC= BUILD=build-cpu build-cpu/perf/bench_cpu_mkl)
endif
endif
$(MKL_LIB)/libmkl_core.a:
	MKL_VERSION=$(MKL_VERSION) sh scripts/fetch-mkl.sh
$(BUILD)/perf/bench_cpu_mkl: perf/bench_cpu.c perf/mkl_peer.c perf/mkl_peer.h perf/bench_peak.h perf/bench_plot.h \
                             $(LIB_A) $(MKL_LIB)/libmkl_core.a | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DBENCH_MKL -I$(MKL_INCLUDE) -static perf/bench_cpu.c perf/mkl_peer.c $(LIB_A) \
	    $(MKL_REF_LIBS) $(MKL_LIBS) -lpthread -lm -ldl -s -o $@

$(BUILD)/perf/%: perf/%.cu $(LIB_A) perf/bench_cuda.h test/common/cu_check.h | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) --threads $(NVCC_THREADS) $< $(LIB_A) -Xcompiler -fopenmp -L$(CUDA_HOME)/lib64 -lcublas -lcusparse $(REF_LIBS) -o $@

# perf/tune_smem.cu, the shared-memory LU kernel's team sizes and crossovers (not in make
# bench; a device script builds and runs it): its kernels compiled as 16 objects, which
# make -j compiles in parallel (part 16 holds main).
TUNE_SMEM_OBJ := $(foreach p,0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16,$(BUILD)/perf/tune_smem.p$(p).o)
$(BUILD)/perf/tune_smem.p%.o: perf/tune_smem.cu perf/bench_cuda.h include/batchsolve.h $(wildcard src/*.h) \
                              $(wildcard cuda/*.cuh) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -Icuda -DTUNE_SMEM_PARTS=16 -DTUNE_SMEM_PART=$* -c $< -o $@
$(BUILD)/perf/tune_smem: $(TUNE_SMEM_OBJ) $(LIB_A)
	$(NVCC) $(NVFLAGS) $(TUNE_SMEM_OBJ) $(LIB_A) -Xcompiler -fopenmp -lm -o $@

$(BUILD)/samples/%: samples/%.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(LIB_A) $(CUDA_LIBS) -lm -o $@
samples: $(SAMPLES)

# Each test program exits non-zero on failure; all run even if one fails.
# The GPU tests run too (they skip, saying so, without a GPU), then the
# self-checking samples; the CUDA benchmarks and probes and every sample are
# built, so that CI compiles every line of CUDA code and of the samples.  Then
# the README's examples against their files, an install linked as the README
# says, and the sanitizer subset.
test: $(TESTS) $(GPU_TESTS) $(CU_BENCHES) $(PROBES) $(CU_PROBES) $(SAMPLES) $(GUARD_PTX) $(BUILD)/stage/.installed san-build
	@fail=0; for t in $(TESTS) $(GPU_TESTS) $(SAMPLE_CHECKS); do echo "== $$t"; $$t || fail=1; done; \
	$(if $(SUNDIALS_LIBS),,echo "== $(BUILD)/test/test_sundials: skipped, no SUNDIALS found (Debian: apt-get install libsundials-dev; or SUNDIALS_DIR=prefix)";) \
	for l in 1 2; do for t in $(ISA_TESTS); do echo "== BSOLVE_TEST_CPU_ISA=$$l $(BUILD)/test/$$t (quick)"; \
	BSOLVE_TEST_QUICK=1 BSOLVE_TEST_CPU_ISA=$$l $(BUILD)/test/$$t || fail=1; done; done; \
	echo "== README.md's examples are samples/readme_*.c"; sh scripts/readme-code.sh check || fail=1; \
	echo "== make install into $(BUILD)/stage, programs linked as README.md says"; \
	CC='$(CC)' sh scripts/check-install.sh $(abspath $(BUILD))/stage samples/readme_gesv.c || fail=1; \
	for t in $(SAN_TESTS); do echo "== $(SAN_BUILD)/test/$$t (quick; AddressSanitizer, UndefinedBehaviorSanitizer)"; \
	BSOLVE_TEST_QUICK=1 $(SAN_ENV) $(SAN_BUILD)/test/$$t || fail=1; done; exit $$fail

# make test also runs a quick sweep of these on the baseline x86-64 (1) and AVX2 (2)
# CPU kernels, as on a CPU without AVX-512 (test/test_isa.c compares the levels).
ISA_TESTS ?= test_gesv test_getrf test_masked test_gtsv test_qr test_singular test_rhsblock test_threads

# make test's install check: make install into $(BUILD)/stage.
$(BUILD)/stage/.installed: $(LIB_A) $(LIB_SO) $(SUN_LIB) batchsolve.pc.in include/batchsolve.h
	$(call install-to,$(abspath $(BUILD))/stage,$(abspath $(BUILD))/stage)
	@touch $@

# make test's sanitizer run: a quick subset of the CPU test programs, CPU-only,
# built with AddressSanitizer and UndefinedBehaviorSanitizer in their own
# directory; any finding ends the program with a non-zero status.  -O0: the
# instrumented kernels compile in half the time they take at -O1.
SAN_BUILD  ?= $(BUILD)/asan
SAN_TESTS  ?= test_args test_gesv test_getrf test_masked test_gtsv test_qr test_singular
SAN_CFLAGS ?= -O0 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all $(ARCH)
SAN_ENV    := ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1 UBSAN_OPTIONS=print_stacktrace=1
san-build: $(DEPS_STAMP)
	@+$(MAKE) --no-print-directory NVCC= BUILD=$(SAN_BUILD) CFLAGS='$(SAN_CFLAGS)' $(SAN_TESTS:%=$(SAN_BUILD)/test/%)

# GPU-only programs (test/gpu_*.c), then every CPU test program on the CUDA backend
# (CK_FORK=no: a CUDA context does not survive Check's fork).
gpu-test: $(GPU_TESTS) $(TESTS) $(SAMPLE_CHECKS)
	@fail=0; for t in $(GPU_TESTS) $(SAMPLE_CHECKS); do echo "== $$t"; $$t || fail=1; done; \
	for t in $(TESTS); do echo "== BSOLVE_TEST_BACKEND=cuda $$t"; CK_FORK=no BSOLVE_TEST_BACKEND=cuda $$t || fail=1; done; exit $$fail

bench: $(BENCHES) $(CU_BENCHES)
	@for b in $(BENCHES) $(CU_BENCHES); do echo "== $$b"; $$b || exit 1; done

run: $(BUILD)/samples/batch_run
	$(BUILD)/samples/batch_run

# $(call install-to,DIR,PREFIX): the header, both libraries (the shared one with its
# links) and batchsolve.pc (naming PREFIX) into DIR; the SUNDIALS adapter's header and
# library too when it is built.
define install-to
install -d $(1)/include $(1)/lib/pkgconfig
install -m 644 include/batchsolve.h $(1)/include/
install -m 644 $(LIB_A) $(1)/lib/
install -m 755 $(LIB_SO) $(1)/lib/
ln -sf $(notdir $(LIB_SO)) $(1)/lib/$(SONAME)
ln -sf $(SONAME) $(1)/lib/libbatchsolve.so
$(if $(SUN_LIB),install -m 644 include/batchsolve_sundials.h $(1)/include/ && install -m 644 $(SUN_LIB) $(1)/lib/)
sed -e 's|@PREFIX@|$(2)|' -e 's|@VERSION@|$(VERSION)|' -e 's|@CUDA_LIBS@|$(CUDA_LIBS)|' \
    batchsolve.pc.in > $(1)/lib/pkgconfig/batchsolve.pc
endef
# (ldconfig after a root install into the system: the loader finds the new library)
install: lib
	$(call install-to,$(DESTDIR)$(PREFIX),$(PREFIX))
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

clean:
	rm -rf $(BUILD)
