# mooncake-sim: plain Makefile. `make run` and `make test` are the two
# set-up commands; both install missing Debian packages first (deps).
#   make            build bin/mooncake-sim
#   make deps       install missing packages (as root) or print the line
#   make run        deps + build + the default experiment
#   make test       deps + build + every test (unit, CLI, golden)
#   make bench      replay the conversation trace and report wall time
#   make traces     download the public Mooncake traces into traces/data/
#   make golden-update  refresh tests/golden/ from the current build
#   make echo       print the effective flags
# Switches: WERROR=1 (warnings are errors), SANITIZE=address,undefined, OPT=-O0

CC ?= cc
OPT ?= -O2
WERROR ?= 0
SANITIZE ?=

DEB_PKGS := libgsl-dev libjansson-dev libcjson-dev libzstd-dev check gnuplot-nox pkg-config
PC_LIBS := gsl jansson libcjson libzstd

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wconversion
ifeq ($(WERROR),1)
WARN += -Werror
endif
ifneq ($(SANITIZE),)
SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
BUILD ?= build/san
else
BUILD ?= build/$(subst -,,$(OPT))
endif

PC_CFLAGS = $(shell pkg-config --cflags $(PC_LIBS) 2>/dev/null)
PC_LDLIBS = $(shell pkg-config --libs $(PC_LIBS) 2>/dev/null)
CHECK_LDLIBS = $(shell pkg-config --libs check 2>/dev/null)

SIM_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -DSIM_VERSION=\"0.1-$(SIM_VERSION)\" -g $(OPT) $(WARN) $(SANFLAGS) -I. -MMD -MP
LDFLAGS := $(SANFLAGS)
LDLIBS = $(PC_LDLIBS) -lm

LIB_SRC := $(filter-out sim/main.c,$(wildcard sim/*.c sim/policy/*.c models/*.c traces/*.c calib/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
BIN := bin/mooncake-sim
TEST_BIN := $(BUILD)/tests/run_tests

.PHONY: all deps run test bench traces golden-update echo clean unit cli-test build-tests

all: $(BIN)

$(BIN): $(BUILD)/sim/main.o $(BUILD)/libmooncake.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libmooncake.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PC_CFLAGS) -c -o $@ $<

$(TEST_BIN): $(TEST_OBJ) $(BUILD)/libmooncake.a
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LDLIBS) $(LDLIBS)

build-tests: $(BIN) $(TEST_BIN)

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
	./$(BIN) run experiments/default.json --out results/default

# Unit tests (Check), then the CLI tests (shell).
test: deps
	@$(MAKE) --no-print-directory build-tests
	./$(TEST_BIN)
	sh tests/cli.sh ./$(BIN)

unit: build-tests
	./$(TEST_BIN)

cli-test: $(BIN)
	sh tests/cli.sh ./$(BIN)

bench: deps
	@$(MAKE) --no-print-directory all
	./$(BIN) bench

golden-update: build-tests
	sh tests/golden/update.sh ./$(TEST_BIN)

TRACE_URL := https://raw.githubusercontent.com/kvcache-ai/Mooncake/main/FAST25-release/traces
traces:
	@mkdir -p traces/data
	for t in conversation_trace synthetic_trace toolagent_trace; do \
	  [ -s traces/data/$$t.jsonl ] || curl -fL --retry 3 -o traces/data/$$t.jsonl.part $(TRACE_URL)/$$t.jsonl && \
	  { [ ! -e traces/data/$$t.jsonl.part ] || mv traces/data/$$t.jsonl.part traces/data/$$t.jsonl; }; \
	done
	@echo "traces in traces/data; export MOONCAKE_TRACES=$$PWD/traces/data"

echo:
	@echo "CC      = $(CC)"
	@echo "CFLAGS  = $(CFLAGS) $(PC_CFLAGS)"
	@echo "LDFLAGS = $(LDFLAGS)"
	@echo "LDLIBS  = $(LDLIBS)"
	@echo "BUILD   = $(BUILD)"

clean:
	rm -rf build bin

-include $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BUILD)/sim/main.d
