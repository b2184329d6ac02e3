/* tests/run_tests.c: runs every Check suite and reports skipped tests by
 * name. Exit status 0 only when every test that ran passed. */
#include "tests/tests.h"

#include "models/cost.h"
#include "sim/exp/config.h"
#include "sim/core/params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>

static int n_skipped;

const char *tests_traces_dir(void)
{
    static char path[4096];
    const char *d = getenv("MOONCAKE_TRACES");
    if (!d || !*d)
        return NULL;
    snprintf(path, sizeof path, "%s/conversation_trace.jsonl.zst", d);
    if (access(path, R_OK) != 0) {
        snprintf(path, sizeof path, "%s/conversation_trace.jsonl", d);
        if (access(path, R_OK) != 0)
            return NULL;
    }
    return d;
}

const char *tests_traces_why(void)
{
    static char why[4200];
    const char *d = getenv("MOONCAKE_TRACES");
    if (!d || !*d)
        return "MOONCAKE_TRACES not set";
    snprintf(why, sizeof why,
             "MOONCAKE_TRACES=%s holds no conversation_trace.jsonl.zst (or .jsonl)", d);
    return why;
}

void tests_skip(const char *name, const char *why)
{
    printf("SKIP: %s (%s)\n", name, why);
    n_skipped++;
}

void tests_capture_stderr(void)
{
    fflush(stderr);
    FILE *f = tmpfile();
    if (f)
        dup2(fileno(f), STDERR_FILENO); /* f stays open until the test's exit */
}

const char *tests_tmpdir(void)
{
    static char dir[256];
    if (!dir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/mooncake-sim-test-XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(dir)) {
            perror("mkdtemp");
            exit(1);
        }
    }
    return dir;
}

const char *tests_write_file(const char *dir, const char *name, const void *data, size_t len)
{
    static char bufs[8][512];
    static int next;
    char *p = bufs[next++ % 8];
    snprintf(p, 512, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        perror(p);
        exit(1);
    }
    return p;
}

const char *tests_trace_of(const char *name, const int (*reqs)[3], int n)
{
    static char text[1 << 16];
    int k = 0;
    for (int i = 0; i < n; i++) {
        k += snprintf(text + k, sizeof text - (size_t)k,
                      "{\"timestamp\": %d, \"input_length\": %d, \"output_length\": %d, "
                      "\"hash_ids\": [",
                      reqs[i][0], reqs[i][1], reqs[i][2]);
        for (int b = 0; b < (reqs[i][1] + 511) / 512; b++)
            k += snprintf(text + k, sizeof text - (size_t)k, "%s%d", b ? "," : "", b);
        k += snprintf(text + k, sizeof text - (size_t)k, "]}\n");
    }
    return tests_write_file(tests_tmpdir(), name, text, (size_t)k);
}

struct model_cost *tests_a800_cost(void)
{
    model_cost_args_t a = {.hw = model_hw_find("a800x8"), .llm = model_llm_find("llama2-70b"),
                           .calibration = "", .data_dir = "."};
    sim_err_t err;
    model_cost_t *c = model_cost_new("fitted", &a, &err);
    ck_assert_ptr_nonnull(c);
    return c;
}

double csv_field(const char *csv, int row, int col)
{
    const char *p = csv;
    for (int r = 0; r < row; r++)
        p = strchr(p, '\n') + 1;
    for (int c = 0; c < col; c++)
        p = strchr(p, ',') + 1;
    return atof(p);
}

int tests_n_entries(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

void tests_params_set(const sim_params_t *t, void *obj, const char *set)
{
    char key[128];
    const char *eq = strchr(set, '=');
    ck_assert_ptr_nonnull(eq);
    snprintf(key, sizeof key, "%.*s", (int)(eq - set), set);
    const sim_param_t *p = sim_params_find(t, key);
    ck_assert_msg(p != NULL, "no parameter %s", key);
    sim_err_t err;
    ck_assert_msg(sim_params_set_text(p, obj, eq + 1, set, &err) == 0, "%s", err.msg);
}

void *tests_params(const sim_params_t *t, const char *const *sets)
{
    void *obj = sim_xmalloc(t->size, "test parameters");
    sim_params_defaults(t, obj);
    for (; sets && *sets; sets++)
        tests_params_set(t, obj, *sets);
    return obj;
}

void tests_cfg_set(sim_config_t *cfg, const char *assignment)
{
    sim_err_t err;
    ck_assert_msg(sim_config_set(cfg, assignment, &err) == 0, "%s", err.msg);
}

char *tests_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (cap - n < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    fclose(f);
    if (!buf)
        return NULL;
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

int main(void)
{
    Suite *(*suites[])(void) = {
        test_heap_suite,
        test_evq_suite,   test_model_suite, test_trace_suite,
        test_config_suite, test_kvpool_suite, test_net_suite, test_sim_suite,
        test_conductor_suite, test_colocated_suite, test_admission_suite, test_search_suite,
        test_compare_suite,
        test_sweep_suite,
        test_opts_suite,
        test_calib_physics_suite,
        test_out_suite,
        test_summary_suite,
        test_check_suite,
        test_decode_suite,
        test_fmt_suite,
        test_api_suite,
        test_timeline_suite,
    };
    SRunner *sr = NULL;
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++) {
        Suite *s = suites[i]();
        if (!sr)
            sr = srunner_create(s);
        else
            srunner_add_suite(sr, s);
    }
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    printf("%d skipped\n", n_skipped);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
