# mooncake-sim: plain Makefile. `make run` and `make test` are the two
# set-up commands; both install missing Debian packages first (deps).
#   make            build bin/mooncake-sim and lib/libmooncake-sim.so (the
#                   library of sim/api/mooncake_sim.h, which mooncake_sim/,
#                   the Python package, loads)
#   make deps       install missing packages (as root) or print the line
#   make run        deps + build + the default experiment
#   make test       deps + build + the tests (unit, CLI, MPI, golden, README rows,
#                   calib builds)
#   make test-matrix  sanitizers (ASan+UBSan, TSan) and the fuzzers, after make test
#   make test-mpi   the sweep tests under mpirun -n 2 and -n 3 (make test runs
#                   them when Open MPI's mpirun is installed and the build has MPI)
#   make bench      replay the conversation trace and report wall time
#                   (STRICT=1: fail when a measurement is over its budget)
#   make traces     download the public Mooncake traces into traces/data/
#   make figures    the experiments: tables, CSVs and PNGs under results/ and
#                   results/REPORT.md (scripts whose traces are missing in
#                   MOONCAKE_TRACES are skipped by name)
#   make reproduce  the end-to-end comparisons with vLLM, one summary table
#                   (and results/REPORT.md); skips likewise
#   make docs       docs/config.md from bin/mooncake-sim run --help-config (every
#                   build refreshes it too)
#   make golden-update  refresh tests/golden/ and ci/golden/ from the current build
#   make calib      build the GPU (nvcc) and RDMA calibration benchmarks
#   make fuzz       libFuzzer harnesses (clang), each run FUZZ_S seconds (10)
#   make echo       print the effective flags (V=1 shows every command)
# Switches: WERROR=1 (warnings are errors), SANITIZE=address,undefined, OPT=-O0

CC ?= cc
OPT ?= -O2
WERROR ?= 0
SANITIZE ?=

DEB_PKGS := libgsl-dev libjansson-dev libcjson-dev libzstd-dev check gnuplot-nox pkg-config \
	libibverbs-dev openmpi-bin libopenmpi-dev jq clang libclang-rt-dev python3
PC_LIBS := gsl jansson libcjson libzstd

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wconversion
ifeq ($(WERROR),1)
WARN += -Werror
endif
ifneq ($(SANITIZE),)
SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
BUILD ?= build/san$(subst -,,$(OPT))
else
BUILD ?= build/$(subst -,,$(OPT))
endif

PC_CFLAGS = $(shell pkg-config --cflags $(PC_LIBS) 2>/dev/null)
PC_LDLIBS = $(shell pkg-config --libs $(PC_LIBS) 2>/dev/null)
CHECK_LDLIBS = $(shell pkg-config --libs check 2>/dev/null)

SIM_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
# MPI (sweeps across machines) when Open MPI's mpicc is there; MPI=0 leaves it out.
ifeq ($(origin MPI),undefined)
MPI := $(if $(shell command -v mpicc 2>/dev/null),1,0)
endif
ifeq ($(MPI),1)
MPI_CFLAGS = -DSIM_HAVE_MPI $(shell mpicc --showme:compile 2>/dev/null)
MPI_LDLIBS = $(shell mpicc --showme:link 2>/dev/null)
endif

# Position-independent for the shared library; without semantic
# interposition (nothing but the mcs_ API is exported) the replay of
# conversation_8p8d costs 0.44% more instructions than without -fPIC
# (0.88% with interposition), so the command line links the same objects.
PIC := -fPIC -fno-semantic-interposition
CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -g $(OPT) $(PIC) $(WARN) $(SANFLAGS) -pthread -I. -MMD -MP
LDFLAGS := $(SANFLAGS) -pthread
LDLIBS = $(PC_LDLIBS) $(MPI_LDLIBS) -lm

LIB_SRC := $(filter-out sim/cli/main.c,$(wildcard sim/*/*.c sim/*/*/*.c models/*.c traces/*.c calib/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/version.o
TEST_SRC := $(wildcard tests/*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
BIN ?= bin/mooncake-sim
TEST_BIN := $(BUILD)/tests/run_tests
# The shared library: the objects of the command line's libmooncake.a,
# exporting only the mcs_ symbols of sim/api/mooncake_sim.h.
SO ?= lib/libmooncake-sim.so

.PHONY: timeline-img python-test FORCE figures reproduce docs calib calib-gpu calib-net all deps run test test-mpi test-matrix bench traces golden-update echo clean unit cli-test build-tests fuzz fuzz-build

all: $(BIN) $(SO) docs/config.md

# V=1 shows the full commands.
ifeq ($(V),1)
Q :=
else
Q := @
endif

$(BIN): $(BUILD)/sim/cli/main.o $(BUILD)/libmooncake.a
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libmooncake.a: $(LIB_OBJ)
	@rm -f $@
	$(Q)ar rcs $@ $^

# The code version recorded in every result: rewritten only when it changes,
# so objects never carry a stale one.
$(BUILD)/version.c: FORCE
	@mkdir -p $(dir $@)
	@echo 'const char sim_version[] = "0.1-$(SIM_VERSION)";' >$@.tmp
	@cmp -s $@.tmp $@ 2>/dev/null && rm -f $@.tmp || mv $@.tmp $@

$(BUILD)/version.o: $(BUILD)/version.c
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

FORCE:

$(SO): $(LIB_OBJ) sim/api/exports.map
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,$(notdir $@) -Wl,--version-script=sim/api/exports.map \
	  -o $@ $(LIB_OBJ) $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(PC_CFLAGS) -c -o $@ $<

# Only sim/exp/mpi.c sees mpi.h; mpi-flags records its flags, so switching
# MPI=0/1 rebuilds it.
$(BUILD)/sim/exp/mpi.o: sim/exp/mpi.c $(BUILD)/mpi-flags
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(PC_CFLAGS) $(MPI_CFLAGS) -c -o $@ $<

# The compile flags: objects built with others (before -fPIC, say) are
# rebuilt when they change.
$(BUILD)/cflags: FORCE
	@mkdir -p $(dir $@)
	@echo '$(CC) $(CFLAGS) $(PC_CFLAGS)' >$@.tmp
	@cmp -s $@.tmp $@ 2>/dev/null && rm -f $@.tmp || mv $@.tmp $@

$(LIB_OBJ) $(TEST_OBJ) $(BUILD)/sim/cli/main.o: $(BUILD)/cflags

$(BUILD)/mpi-flags: FORCE
	@mkdir -p $(dir $@)
	@echo '$(MPI_CFLAGS)' >$@.tmp
	@cmp -s $@.tmp $@ 2>/dev/null && rm -f $@.tmp || mv $@.tmp $@

$(TEST_BIN): $(TEST_OBJ) $(BUILD)/libmooncake.a
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LDLIBS) $(LDLIBS)

build-tests: $(BIN) docs/config.md $(TEST_BIN)

# Install what is missing when root; otherwise name the exact command.
deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "deps: installing$$missing"; \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	else \
	  echo "deps: missing packages; run as root:"; \
	  echo "  apt-get update && apt-get install -y$$missing"; exit 1; \
	fi

run: deps
	@$(MAKE) --no-print-directory all
	./$(BIN) run experiments/default.json --out results/default --force

# The CLI test scripts, in the order make test and make cli-test run them;
# make test runs the MPI sweeps between the two lists. Each runs as
# `sh SCRIPT ./$(BIN)` (tests/validation.sh takes no binary), one recipe
# line each, so the first to fail stops make.
CLI_TESTS := tests/cli.sh tests/cli_sweep.sh tests/cli_once.sh tests/cli_traces.sh \
	tests/cli_timeline.sh tests/validation.sh tests/cli_newcomer.sh tests/cli_check.sh \
	tests/cli_msg.sh tests/cli_mem.sh
CLI_TESTS_LATE := tests/cli_out.sh
define nl


endef
cli_run = $(foreach s,$(1),sh $(s)$(if $(filter tests/validation.sh,$(s)),, ./$(BIN))$(nl))

# Unit tests (Check), the CLI tests (shell), the MPI sweeps, the README's
# rows, the Python package's tests (with the system python3; skipped by
# name without one), the code rules (style.sh, layers.sh) and the
# calibration builds.
# The matrix is its own target (CI runs it after make test): the unit
# tests under AddressSanitizer + UndefinedBehaviorSanitizer, the default
# experiment built -O0 with sanitizers giving byte-identical results to
# -O2, the sweep tests (two workers) under ThreadSanitizer, then the
# fuzzers (make fuzz).
test: deps
	@$(MAKE) --no-print-directory all build-tests
	./$(TEST_BIN)
	$(call cli_run,$(CLI_TESTS))
	@if [ "$(MPI)" != 1 ]; then echo "SKIP: make test-mpi (tests/cli_mpi.sh): built without MPI (MPI=0 or no mpicc)"; \
	elif command -v mpirun >/dev/null 2>&1; then $(MAKE) --no-print-directory test-mpi; \
	else echo "SKIP: make test-mpi (tests/cli_mpi.sh): mpirun not found (apt-get install openmpi-bin)"; fi
	$(call cli_run,$(CLI_TESTS_LATE))
	sh tests/readme.sh ./$(BIN)
	@$(MAKE) --no-print-directory python-test
	sh tests/style.sh
	LAYERS_BUILD=$(BUILD) sh tests/layers.sh
	@$(MAKE) --no-print-directory calib
	sh tests/calib_gpu.sh

# The Python package (mooncake_sim/) against the shared library and the CLI.
python-test: $(BIN) $(SO)
	@if command -v python3 >/dev/null 2>&1; then \
	  echo "MOONCAKE_SIM_LIB=$(SO) python3 tests/test_mooncake_sim.py"; \
	  MOONCAKE_SIM_LIB=$(SO) MOONCAKE_SIM_BIN=./$(BIN) python3 tests/test_mooncake_sim.py; \
	else echo "SKIP: tests/test_mooncake_sim.py: python3 not found"; fi

# MPI sweeps: a rank that cannot load the spec or loads another, points
# failing on other ranks, sweep.csv against -j1; each mpirun under a timeout.
test-mpi: $(BIN)
	sh tests/cli_mpi.sh ./$(BIN)

SAN_BUILD := build/san
TSAN_BUILD := build/tsan
test-matrix: $(BIN)
	@$(MAKE) --no-print-directory SANITIZE=address,undefined OPT=-O0 BUILD=$(SAN_BUILD) \
	  BIN=$(SAN_BUILD)/mooncake-sim build-tests
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./$(SAN_BUILD)/tests/run_tests
	@rm -rf build/matrix
	./$(BIN) run experiments/default.json --quiet --out build/matrix/O2
	./$(SAN_BUILD)/mooncake-sim run experiments/default.json --quiet --out build/matrix/O0-san
	cmp build/matrix/O2/requests.csv build/matrix/O0-san/requests.csv
	cmp build/matrix/O2/config.json build/matrix/O0-san/config.json
	cmp build/matrix/O2/summary.json build/matrix/O0-san/summary.json
	@echo "matrix: -O2 and -O0 with sanitizers agree byte for byte"
	@$(MAKE) --no-print-directory SANITIZE=thread OPT=-O1 BUILD=$(TSAN_BUILD) \
	  BIN=$(TSAN_BUILD)/mooncake-sim build-tests
	CK_RUN_SUITE=sweep CK_FORK=no TSAN_OPTIONS=halt_on_error=1 ./$(TSAN_BUILD)/tests/run_tests
	@echo "matrix: sweeps on two workers are free of data races (ThreadSanitizer)"
	@$(MAKE) --no-print-directory fuzz

# Fuzzing: libFuzzer harnesses (fuzz/fuzz_*.c) for the trace readers, the
# config loader and --set, and calibration files. The library is compiled
# again with clang, coverage and AddressSanitizer + UBSan into its own
# folder; each harness runs FUZZ_S seconds (FUZZ_JOBS at a time, default
# one per core) on a fresh copy of its seeds, fuzz/corpus/NAME (never grown
# in place), and replays fuzz/regress/NAME, the inputs of past findings
# (FUZZ_STRICT=1 also fails on the known ones not yet fixed). Executions per harness are printed; a crash, leak, timeout or
# broken property fails the target and keeps the input under
# $(FUZZ_BUILD)/crashes/. make fuzz FUZZ_S=600 fuzzes for real.
FUZZ_CC ?= clang
FUZZ_S ?= 10
FUZZ_BUILD := build/fuzz
FUZZ_NAMES := $(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_BINS := $(FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz_%)
FUZZ_SAN := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# The library's warnings as gcc's build checks them, less two of clang's
# that flag idioms (unused helpers generated by SIM_HEAP_DEFINE,
# SIM_ASSERT(!"message")), never errors: this build is for the fuzzers.
FUZZ_LIB_WARN := $(filter-out -Werror,$(WARN)) -Wno-unused-function -Wno-string-conversion

fuzz: deps
	@$(MAKE) --no-print-directory fuzz-build
	FUZZ_S=$(FUZZ_S) FUZZ_JOBS=$(FUZZ_JOBS) sh fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_NAMES)

fuzz-build:
	@$(MAKE) --no-print-directory CC=$(FUZZ_CC) SANITIZE=fuzzer-no-link,address,undefined \
	  OPT=-O1 MPI=0 WARN="$(FUZZ_LIB_WARN)" BUILD=$(FUZZ_BUILD)/lib $(FUZZ_BUILD)/lib/libmooncake.a
	@$(MAKE) -s --no-print-directory $(FUZZ_BINS)

$(FUZZ_BUILD)/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz.c fuzz/fuzz.h $(FUZZ_BUILD)/lib/libmooncake.a
	@echo "  FUZZ    $@"
	$(Q)$(FUZZ_CC) -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 $(WARN) $(FUZZ_SAN) -pthread -I. \
	  $(PC_CFLAGS) -o $@ $< fuzz/fuzz.c $(FUZZ_BUILD)/lib/libmooncake.a $(PC_LDLIBS) -lm

unit: build-tests
	./$(TEST_BIN)

# The CLI tests of make test (less the MPI sweeps and the README's rows).
cli-test: $(BIN)
	$(call cli_run,$(CLI_TESTS) $(CLI_TESTS_LATE))
	LAYERS_BUILD=$(BUILD) sh tests/layers.sh

# The simulator's speed: the conversation trace (two set-ups), one
# capacity run of a vLLM baseline, the whole of make reproduce, and speed
# at production scale (experiments/bench_scale.sh).
bench: deps
	@$(MAKE) --no-print-directory all
	MOONCAKE_TRACES="$${MOONCAKE_TRACES:-traces/data}" ./$(BIN) bench $(if $(filter 1,$(STRICT)),--strict)
	@STRICT=$(STRICT) MOONCAKE_TRACES="$${MOONCAKE_TRACES:-traces/data}" sh experiments/bench_experiments.sh
	@$(MAKE) --no-print-directory $(FLOOR)
	@STRICT=$(STRICT) FLOOR=$(FLOOR) MOONCAKE_TRACES="$${MOONCAKE_TRACES:-traces/data}" sh experiments/bench_scale.sh

# The floor of a trace replay (bench/trace_floor.c), for make bench.
FLOOR := $(BUILD)/bench/trace_floor
$(FLOOR): $(BUILD)/bench/trace_floor.o $(BUILD)/libmooncake.a
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The figure scripts, longest first (they run several at once; the output
# is printed in this order). FIGURE_JOBS=1 runs them one at a time. A
# script whose traces are not in MOONCAKE_TRACES is skipped and named;
# results/REPORT.md is rewritten when every script that ran succeeded.
FIGURES := experiments/fast25/fig15_pd_ratio.sh experiments/arxiv/fig11_datasets.sh \
	experiments/arxiv/fig12_longctx.sh experiments/fast25/capacity.sh experiments/fast25/capacity_speed.sh \
	experiments/fast25/baseline_sensitivity.sh experiments/arxiv/table3_overload.sh \
	experiments/arxiv/fig13_real.sh experiments/arxiv/fig9_fluctuation.sh \
	experiments/fast25/fig13_bandwidth.sh experiments/fast25/fig5_scheduling.sh \
	experiments/fast25/threshold_sweep.sh experiments/fast25/fig10_local_global.sh \
	experiments/fast25/cpp_long_prompts.sh experiments/fast25/fig14_breakdown.sh \
	experiments/fast25/pool_ttft.sh experiments/fast25/fig9_hit_vs_capacity.sh \
	experiments/arxiv/table1_eviction.sh
figures: deps
	@$(MAKE) --no-print-directory all
	@MOONCAKE_TRACES="$${MOONCAKE_TRACES:-traces/data}" sh experiments/figures.sh $(FIGURES)
	@MOONCAKE_TRACES="$${MOONCAKE_TRACES:-traces/data}" sh experiments/report.sh $(FIGURES)

# The configuration reference, generated from the binary's --help-config
# by every build (so a plug-in's file and its list line are all a new
# plug-in needs: its help and parameters reach docs/config.md here), also
# when only the file changed (FORCE: a copy edited by hand is put back);
# it is rewritten only when its text changes. The CLI tests fail when
# docs/config.md is stale.
docs/config.md: $(BIN) tools/config_md.sh FORCE
	$(Q)sh tools/config_md.sh ./$(BIN) >$@.tmp || { rm -f $@.tmp; exit 1; }
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; \
	  else mv $@.tmp $@; echo "  DOCS    $@"; fi

# docs/img/timeline.png: a gnuplot rendering of 20 s of the default
# experiment's timeline (docs/timeline.md), not a Perfetto screenshot.
timeline-img: $(BIN)
	@mkdir -p build/timeline
	./$(BIN) run experiments/default.json --quiet --force --out build/timeline/run \
	  --timeline build/timeline/default.json
	python3 tools/timeline_gantt.py build/timeline/default.json 30 50 build/timeline/gantt 12
	gnuplot -e "datafile='build/timeline/gantt.dat'; ticsfile='build/timeline/gantt.tics.gp'; \
	  outfile='docs/img/timeline.png'; xlo=30; xhi=50" plots/timeline.gp

docs: docs/config.md

# Calibration microbenchmarks: not needed to run the simulator; make test
# compiles them where their toolchains exist. calib/gpu needs nvcc (CUDA
# runtime and cuBLAS; NVCC_ARCH picks the GPU generations, BF16 needs
# sm_80+); calib/net's RDMA benchmark needs libibverbs-dev (in deps). Each
# is skipped with a message when its toolchain is missing.
NVCC ?= nvcc
NVCC_ARCH ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90
CALIB_GPU := bin/mooncake-calib-gpu
CALIB_RDMA := bin/mooncake-calib-rdma
calib: calib-gpu calib-net

calib-gpu:
	@if command -v $(NVCC) >/dev/null 2>&1; then \
	  mkdir -p bin && echo "  NVCC    calib/gpu/gpu_bench.cu" && \
	  $(NVCC) -O2 -std=c++17 $(NVCC_ARCH) -Werror all-warnings -o $(CALIB_GPU) calib/gpu/gpu_bench.cu -lcublas; \
	else echo "calib-gpu: nvcc not found; skipped (install the CUDA toolkit to build it)"; fi

calib-net:
	@if [ -f /usr/include/infiniband/verbs.h ]; then \
	  mkdir -p bin && echo "  CC      calib/net/rdma_bench.c" && \
	  $(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -O2 $(WARN) -I. -o $(CALIB_RDMA) calib/net/rdma_bench.c -libverbs; \
	else echo "calib-net: libibverbs-dev not installed; RDMA benchmark skipped (apt-get install libibverbs-dev)"; fi

reproduce: deps
	@$(MAKE) --no-print-directory all
	MOONCAKE_TRACES="$${MOONCAKE_TRACES:-traces/data}" sh experiments/reproduce.sh
	@MOONCAKE_TRACES="$${MOONCAKE_TRACES:-traces/data}" sh experiments/report.sh $(FIGURES)

golden-update: build-tests
	sh tests/golden/update.sh ./$(TEST_BIN)
	./$(BIN) sweep ci/policies.json --out ci/golden --force --quiet
	find ci/golden \( -name requests.csv -o -name timeseries.csv -o -name config.json \
	  -o -name timing.json \) -delete

TRACE_URL := https://raw.githubusercontent.com/kvcache-ai/Mooncake/main/FAST25-release/traces
TRACE_NAMES := conversation_trace synthetic_trace toolagent_trace
traces:
	@command -v curl >/dev/null || { echo "traces: needs curl (apt-get install curl)"; exit 1; }
	@mkdir -p traces/data
	@for t in $(TRACE_NAMES); do \
	  f=traces/data/$$t.jsonl; \
	  if [ -s $$f ]; then echo "traces: have $$f"; continue; fi; \
	  echo "traces: $(TRACE_URL)/$$t.jsonl"; \
	  curl -fL --retry 3 -o $$f.part $(TRACE_URL)/$$t.jsonl && mv $$f.part $$f || \
	    { rm -f $$f.part; exit 1; }; \
	done
	@echo "traces: done; export MOONCAKE_TRACES=$$PWD/traces/data"

echo:
	@echo "CC      = $(CC)"
	@echo "CFLAGS  = $(CFLAGS) $(PC_CFLAGS)"
	@echo "LDFLAGS = $(LDFLAGS)"
	@echo "LDLIBS  = $(LDLIBS)"
	@echo "MPI     = $(MPI) $(MPI_CFLAGS)"
	@echo "BUILD   = $(BUILD)"

clean:
	rm -rf build bin lib

-include $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BUILD)/sim/cli/main.d
