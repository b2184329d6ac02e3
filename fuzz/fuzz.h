/* fuzz/fuzz.h: what the libFuzzer harnesses share: the input as a file
 * (the library reads files, not buffers), a hard failure that names the
 * broken property, and the effective-config oracle. Invariant: every file lives in one per-process
 * temporary directory, removed at exit, so parallel fuzzers never meet. */
#ifndef FUZZ_FUZZ_H
#define FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* libFuzzer's entry point, defined by each harness. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The path of NAME in this process's temporary directory (created on
 * first use; static storage, up to 8 distinct names). */
const char *fuzz_path(const char *name);
/* Write data to fuzz_path(name) and return that path. */
const char *fuzz_write(const char *name, const void *data, size_t size);

/* The oracle of the config harnesses: cfg (loaded and validated) written
 * as a run's config.json is (sim_config_to_json, sim_json_write), loaded
 * over fresh defaults, must load, validate and give an equal effective
 * config (json_equal); fuzz_fail otherwise. */
struct sim_config;
void fuzz_config_round_trip(const struct sim_config *cfg);

/* Known findings in code the harnesses do not own are tolerated, and
 * reported once per process, unless FUZZ_STRICT=1 is in the environment
 * (to check a fix). 1 when strict. */
int fuzz_strict(void);
/* Report the known finding what once per process (to stderr). */
void fuzz_known(const char *what);

/* Print "fuzz: property violated: what" and the detail to stderr, then
 * abort(): libFuzzer keeps the input as a crash. */
_Noreturn void fuzz_fail(const char *what, const char *detail);

#endif
