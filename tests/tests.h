/* tests/tests.h: the Check suites of the unit-test runner and the helpers
 * they share. Tests run from the repository root. Tests that need a real
 * trace call tests_traces_dir(); when it is NULL they are not added and
 * tests_skip reports them by name instead. */
#ifndef TESTS_TESTS_H
#define TESTS_TESTS_H

#include <check.h>

Suite *test_evq_suite(void);
Suite *test_heap_suite(void);
Suite *test_model_suite(void);
Suite *test_trace_suite(void);
Suite *test_config_suite(void);
Suite *test_sim_suite(void);
Suite *test_kvpool_suite(void);
Suite *test_net_suite(void);
Suite *test_conductor_suite(void);
Suite *test_colocated_suite(void);
Suite *test_admission_suite(void);
Suite *test_search_suite(void);
Suite *test_compare_suite(void);
Suite *test_sweep_suite(void);
Suite *test_opts_suite(void);
Suite *test_calib_physics_suite(void);
Suite *test_out_suite(void);
Suite *test_summary_suite(void);
Suite *test_check_suite(void);
Suite *test_decode_suite(void);
Suite *test_fmt_suite(void);
Suite *test_api_suite(void);
Suite *test_timeline_suite(void);

/* MOONCAKE_TRACES when it names a directory holding the conversation
 * trace, else NULL. */
const char *tests_traces_dir(void);
/* Why tests_traces_dir is NULL: "MOONCAKE_TRACES not set", or
 * "MOONCAKE_TRACES=DIR holds no conversation_trace.jsonl.zst (or .jsonl)"
 * (static storage). */
const char *tests_traces_why(void);
/* Report a test that was not run, by name, with the reason. */
void tests_skip(const char *name, const char *why);
/* Add test fn to tc when the real traces are present, else report it as
 * skipped. */
#define TESTS_ADD_TRACE_TEST(tc, fn)                                          \
    do {                                                                      \
        if (tests_traces_dir())                                               \
            tcase_add_test((tc), (fn));                                       \
        else                                                                  \
            tests_skip(#fn, tests_traces_why());                              \
    } while (0)

/* A test that expects an assertion to fail (it raises SIGABRT): its
 * stderr from here on goes to a temporary file, so the expected message
 * is captured rather than printed among the results. Call in the forked
 * test, before the assertion. */
void tests_capture_stderr(void);

/* A fresh temporary directory (created, caller need not free the string;
 * it lives until exit). */
const char *tests_tmpdir(void);
/* Write text to dir/name and return the path (static storage, rotates
 * over 8 buffers). */
const char *tests_write_file(const char *dir, const char *name, const void *data, size_t len);
/* Write a Mooncake JSONL trace of n requests {arrival ms, input tokens,
 * output tokens}, blocks numbered 0, 1, ... (so equal prompts share them),
 * into the temporary directory; returns its path (static storage). */
const char *tests_trace_of(const char *name, const int (*reqs)[3], int n);
/* The default cost model (fitted, a800x8, llama2-70b); free with
 * model_cost_free. */
struct model_cost;
struct model_cost *tests_a800_cost(void);
/* Field col (0-based) of CSV row row (1-based, after the header), as a
 * number (an empty field reads 0). */
double csv_field(const char *csv, int row, int col);
/* A plug-in's parameter struct (table t): its defaults, then each
 * "key=value" of sets (NULL-terminated) applied; asserts. sim_free it. */
struct sim_params;
void *tests_params(const struct sim_params *t, const char *const *sets);
/* Apply "key=value" to a parameter struct of table t; asserts. */
void tests_params_set(const struct sim_params *t, void *obj, const char *set);
/* sim_config_set, asserting it succeeds. */
struct sim_config;
void tests_cfg_set(struct sim_config *cfg, const char *assignment);

/* Entries of dir, hidden ones too (not . and ..); asserts it opens. */
int tests_n_entries(const char *dir);
/* Read a whole file into a malloc'd NUL-terminated buffer (free with
 * free()); *len gets the size. NULL if it cannot be read. */
char *tests_read_file(const char *path, size_t *len);

#endif
