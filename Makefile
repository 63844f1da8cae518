# batchsolve -- build, test, benchmark.
#   make            libraries (build/libbatchsolve.a, build/libbatchsolve.so)
#   make test       CPU tests (GPU tests skip, saying so, when no GPU is present)
#   make gpu-test   GPU tests (needs a GPU)
#   make run        the main job: a batch-solve benchmark on the default backend
#   make bench      benchmarks against LAPACKE/GSL (CPU) and cuBLAS (GPU, when present)
#   make install PREFIX=/usr/local
# Missing Debian packages are installed when run as root (scripts/ensure-deps.sh).

# Build in parallel by default; tests and benchmarks still run one at a time.
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)

PREFIX  ?= /usr/local
BUILD   ?= build
CC      ?= gcc
ARCH    ?= -march=native
CFLAGS  ?= -O3 $(ARCH)
override CFLAGS += -std=c11 -ffp-contract=fast -fopenmp -fPIC -fvisibility=hidden -Wall -Wextra -Iinclude -Isrc
LDLIBS  += -lm

# CUDA: built whenever nvcc is found (CI compiles every kernel); otherwise a stub
# backend that reports BSOLVE_ENODEVICE is linked in.
NVCC    ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
NVFLAGS ?= -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
           -Xptxas -warn-spills
override NVFLAGS += -Iinclude -Isrc -Xcompiler -fPIC,-fvisibility=hidden,-Wall,-fopenmp
CUDA_LIBS = -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++

SRC_C   := $(wildcard src/*.c)
CUDA_CU := $(wildcard cuda/*.cu)
ifeq ($(NVCC),)
  SRC_C   := $(SRC_C) src/cuda_stub/cuda_stub.c
  CUDA_CU :=
  CUDA_LIBS :=
endif
OBJ := $(patsubst %.c,$(BUILD)/%.o,$(SRC_C)) $(patsubst %.cu,$(BUILD)/%.o,$(CUDA_CU))

LIB_A  := $(BUILD)/libbatchsolve.a
LIB_SO := $(BUILD)/libbatchsolve.so

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
# (on the default backend) and make gpu-test (on the GPU)
SAMPLE_CHECKS := $(BUILD)/samples/adi_heat $(BUILD)/samples/rate_fit

.PHONY: all lib test gpu-test bench run samples install clean deps
# Keep intermediate objects (test/common) between runs.
.SECONDARY:
all: lib samples
lib: $(LIB_A) $(LIB_SO)

$(BUILD)/%.o: %.c include/batchsolve.h $(wildcard src/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.cu include/batchsolve.h $(wildcard src/*.h) $(wildcard cuda/*.cuh)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -c $< -o $@

$(LIB_A): $(OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIB_SO): $(OBJ)
	$(CC) -shared -fopenmp -o $@ $^ $(CUDA_LIBS) -lm

$(DEPS_STAMP): scripts/ensure-deps.sh
	@mkdir -p $(dir $@)
	@sh scripts/ensure-deps.sh && touch $@
deps: $(DEPS_STAMP)

$(BUILD)/test/common/%.o: test/common/%.c $(wildcard test/common/*.h) include/batchsolve.h | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itest/common -c $< -o $@

$(BUILD)/test/%: test/%.c $(patsubst %.c,$(BUILD)/%.o,$(TEST_COMMON)) $(LIB_A) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itest/common $< $(patsubst %.c,$(BUILD)/%.o,$(TEST_COMMON)) $(LIB_A) $(CUDA_LIBS) $(REF_LIBS) -o $@

# GPU tests call the CUDA runtime (cudaMalloc) themselves.
$(GPU_TESTS): override CFLAGS += $(if $(NVCC),-I$(CUDA_HOME)/include -DBSOLVE_TEST_CUDART)

$(BUILD)/perf/%: perf/%.c $(LIB_A) perf/bench_plot.h | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(LIB_A) $(CUDA_LIBS) $(REF_LIBS) -o $@

$(BUILD)/perf/%: perf/%.cu $(LIB_A) perf/bench_cuda.h test/common/cu_check.h | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) $< $(LIB_A) -Xcompiler -fopenmp -L$(CUDA_HOME)/lib64 -lcublas -lcusparse $(REF_LIBS) -o $@

$(BUILD)/samples/%: samples/%.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(LIB_A) $(CUDA_LIBS) -lm -o $@
samples: $(SAMPLES)

# Each test program exits non-zero on failure; all run even if one fails.
# The GPU tests run too (they skip, saying so, without a GPU), then the
# self-checking samples; the CUDA benchmarks and probes and every sample are
# built, so that CI compiles every line of CUDA code and of the samples.
test: $(TESTS) $(GPU_TESTS) $(CU_BENCHES) $(PROBES) $(CU_PROBES) $(SAMPLES)
	@fail=0; for t in $(TESTS) $(GPU_TESTS) $(SAMPLE_CHECKS); do echo "== $$t"; $$t || fail=1; done; exit $$fail

# GPU-only programs (test/gpu_*.c), then every CPU test program on the CUDA backend
# (CK_FORK=no: a CUDA context does not survive Check's fork).
gpu-test: $(GPU_TESTS) $(TESTS) $(SAMPLE_CHECKS)
	@fail=0; for t in $(GPU_TESTS) $(SAMPLE_CHECKS); do echo "== $$t"; $$t || fail=1; done; \
	echo "== gpu_gtsv with the few-long method in levels of 16-row partitions (no fused kernel), the chunk reduction on every level"; \
	BSOLVE_GT_FUSED=0 BSOLVE_GT_LONG_L=16 BSOLVE_GT_CHUNKRED=2 BSOLVE_GT_LONG_BOTTOM=64 $(BUILD)/test/gpu_gtsv || fail=1; \
	echo "== gpu_gtsv (quick) with the fused kernel's block bottom on every size and its blocks looping (7 of them)"; \
	BSOLVE_TEST_QUICK=1 BSOLVE_GT_FUSED=3 BSOLVE_GT_FUSED_GRID=7 $(BUILD)/test/gpu_gtsv || fail=1; \
	echo "== gpu_gtsv (quick) in levels with the reduction by warps wherever it applies"; \
	BSOLVE_TEST_QUICK=1 BSOLVE_GT_FUSED=0 BSOLVE_GT_CHUNKRED=0 BSOLVE_GT_WARPRED=2 BSOLVE_GT_LONG_BOTTOM=64 $(BUILD)/test/gpu_gtsv || fail=1; \
	for t in $(TESTS); do echo "== BSOLVE_TEST_BACKEND=cuda $$t"; CK_FORK=no BSOLVE_TEST_BACKEND=cuda $$t || fail=1; done; exit $$fail

bench: $(BENCHES) $(CU_BENCHES)
	@for b in $(BENCHES) $(CU_BENCHES); do echo "== $$b"; $$b || exit 1; done

run: $(DEPS_STAMP) $(BUILD)/samples/batch_run
	$(BUILD)/samples/batch_run

install: lib
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 include/batchsolve.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIB_SO) $(DESTDIR)$(PREFIX)/lib/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@CUDA_LIBS@|$(CUDA_LIBS)|' batchsolve.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/batchsolve.pc

clean:
	rm -rf $(BUILD)
