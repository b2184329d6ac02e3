/* tests/test_sweep.c: design-space sweeps. Spec checks (located errors for
 * syntax, unknown keys, bad axes, list lengths, bad "set" values), point
 * order (grid: last axis fastest; list: zipped) and directory names, and
 * whole sweeps of a small generated workload: sweep.csv byte-identical
 * for 1 and 2 workers, one bad axis value failing only its points, and the
 * check that refuses to write over a different sweep. */
#include "tests/tests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/exp/sweep.h"

/* A small generated experiment every spec here starts from. */
static const char *base_exp(void)
{
    static const char text[] =
        "{\"name\": \"sweep-base\", \"cluster\": {\"prefill\": 2, \"decode\": 2},\n"
        " \"trace\": {\"generator\": {\"kind\": \"kimi\", \"requests\": 60}}}\n";
    return tests_write_file(tests_tmpdir(), "base.json", text, sizeof text - 1);
}

static const char *spec_file(const char *name, const char *text)
{
    base_exp();
    return tests_write_file(tests_tmpdir(), name, text, strlen(text));
}

static int load(const char *name, const char *text, sim_sweep_spec_t *s, sim_err_t *err)
{
    return sim_sweep_spec_load(s, spec_file(name, text), err);
}

static void expect_error(const char *text, const char *needle)
{
    sim_sweep_spec_t s;
    sim_err_t err;
    ck_assert_int_eq(load("bad.json", text, &s, &err), -1);
    ck_assert_msg(strstr(err.msg, needle) != NULL, "'%s' lacks '%s'", err.msg, needle);
}

START_TEST(test_spec_errors)
{
    expect_error("{\"base\": \"base.json\",\n \"axes\": {\"seed\": [1,]}}", "bad.json:2:");
    expect_error("{\"base\": \"base.json\", \"axis\": {}}", "bad.json: $.axis: unknown key");
    expect_error("{\"axes\": {\"seed\": [1]}}", "bad.json: $.base: missing");
    expect_error("{\"base\": \"nope.json\", \"axes\": {\"seed\": [1]}}", "nope.json");
    expect_error("{\"base\": \"base.json\", \"axes\": {}}", "$.axes: expected an object");
    expect_error("{\"base\": \"base.json\", \"axes\": {\"sed\": [1]}}",
                 "$.axes.sed: unknown config path");
    expect_error("{\"base\": \"base.json\", \"axes\": {\"seed\": []}}",
                 "$.axes.seed: expected a non-empty array");
    expect_error("{\"base\": \"base.json\", \"axes\": {\"seed\": [1, [2]]}}",
                 "$.axes.seed[1]: expected a number, a string, null");
    expect_error("{\"base\": \"base.json\", \"mode\": \"list\",\n"
                 " \"axes\": {\"seed\": [1, 2], \"network.nic_gbps\": [100]}}",
                 "$.axes.network.nic_gbps: 1 values, but $.axes.seed has 2");
    expect_error("{\"base\": \"base.json\", \"mode\": \"zip\", \"axes\": {\"seed\": [1]}}",
                 "$.mode: expected \"grid\"");
    expect_error("{\"base\": \"base.json\", \"set\": {\"cluster.prefill\": 5000},\n"
                 " \"axes\": {\"seed\": [1]}}",
                 "bad.json: $.set.cluster.prefill: 5000 is out of range");
    expect_error("{\"base\": \"base.json\", \"axes\": {\"seed\": [1, 2], \"trace.speed\": "
                 "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, "
                 "23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40]"
                 ", \"trace.limit\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, "
                 "18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, "
                 "38, 39, 40], \"trace.output_cap\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, "
                 "14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, "
                 "34, 35, 36, 37, 38, 39, 40], \"cluster.prefill\": [1, 2, 3, 4, 5, 6, 7, 8]}}",
                 "$.axes: 1024000 points; at most 1000000");
}
END_TEST

START_TEST(test_point_order)
{
    sim_sweep_spec_t s;
    sim_err_t err;
    ck_assert_msg(load("grid.json",
                       "{\"base\": \"base.json\", \"axes\": {\"scheduler.policy\": "
                       "[\"kvcentric\", \"random\"], \"network.nic_gbps\": [24, 100, 400], "
                       "\"trace.speed\": [0.5, 1.25]}}",
                       &s, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(s.n_points, 12);
    int idx[3];
    sim_sweep_point_index(&s, 0, idx);
    ck_assert(idx[0] == 0 && idx[1] == 0 && idx[2] == 0);
    sim_sweep_point_index(&s, 1, idx); /* the last axis moves fastest */
    ck_assert(idx[0] == 0 && idx[1] == 0 && idx[2] == 1);
    sim_sweep_point_index(&s, 7, idx);
    ck_assert(idx[0] == 1 && idx[1] == 0 && idx[2] == 1);
    char dir[256];
    sim_sweep_point_dir(&s, 7, dir, sizeof dir);
    ck_assert_str_eq(dir, "007_policy=random_nic_gbps=24_speed=1.25");
    sim_config_t cfg;
    ck_assert(sim_sweep_point_config(&s, 11, &cfg, &err) == 0);
    ck_assert_str_eq(cfg.scheduler.policy, "random");
    ck_assert(cfg.network.nic_gbps == 400 && cfg.trace.speed == 1.25);
    ck_assert_int_eq(cfg.cluster.prefill, 2); /* from the base */
    sim_sweep_spec_free(&s);

    ck_assert(load("list.json",
                   "{\"base\": \"base.json\", \"mode\": \"list\", \"set\": {\"seed\": 9},\n"
                   " \"axes\": {\"cluster.prefill\": [1, 3], \"cluster.decode\": [3, 1]}}",
                   &s, &err) == 0);
    ck_assert_int_eq(s.n_points, 2);
    ck_assert(sim_sweep_point_config(&s, 1, &cfg, &err) == 0);
    ck_assert(cfg.cluster.prefill == 3 && cfg.cluster.decode == 1 && cfg.seed == 9);
    sim_sweep_spec_free(&s);
}
END_TEST

/* Run spec with jobs workers into dir; returns sweep.csv (free()). */
static char *run_sweep(const sim_sweep_spec_t *s, int jobs, const char *dir, int *failed)
{
    sim_sweep_result_t *res = calloc((size_t)s->n_points, sizeof *res);
    sim_sweep_opts_t o = {.out_dir = dir, .data_dir = ".", .jobs = jobs, .rank = 0, .n_ranks = 1};
    *failed = sim_sweep_run(s, &o, res);
    sim_err_t err;
    ck_assert_msg(sim_sweep_write(s, res, dir, &err) == 0, "%s", err.msg);
    sim_sweep_results_free(res, s->n_points);
    free(res);
    char path[1024];
    snprintf(path, sizeof path, "%s/sweep.csv", dir);
    size_t len;
    char *csv = tests_read_file(path, &len);
    ck_assert_ptr_nonnull(csv);
    return csv;
}

START_TEST(test_sweep_workers_identical)
{
    sim_sweep_spec_t s;
    sim_err_t err;
    ck_assert_msg(load("w.json",
                       "{\"base\": \"base.json\", \"axes\": {\"scheduler.policy\": "
                       "[\"kvcentric\", \"least_loaded\"], \"network.nic_gbps\": [25, 400], "
                       "\"seed\": [1, 2]}}",
                       &s, &err) == 0, "%s", err.msg);
    char d1[512], d2[512];
    snprintf(d1, sizeof d1, "%s/w1", tests_tmpdir());
    snprintf(d2, sizeof d2, "%s/w2", tests_tmpdir());
    int f1, f2;
    char *a = run_sweep(&s, 1, d1, &f1), *b = run_sweep(&s, 2, d2, &f2);
    ck_assert_int_eq(f1, 0);
    ck_assert_int_eq(f2, 0);
    ck_assert_str_eq(a, b);
    /* header, then 8 rows in point order with the axes and metrics */
    ck_assert(strncmp(a, "point,dir,scheduler.policy,network.nic_gbps,seed,status,error,"
                         "requests.total,", 71) == 0);
    ck_assert(strstr(a, "\n7,007_policy=least_loaded_nic_gbps=400_seed=2,least_loaded,400,2,ok,,"
                        "60,") != NULL);
    ck_assert(strstr(a, "wall_s") == NULL);
    /* every point's own files, the same for both */
    char p1[1024], p2[1024];
    snprintf(p1, sizeof p1, "%s/005_policy=least_loaded_nic_gbps=25_seed=2/requests.csv", d1);
    snprintf(p2, sizeof p2, "%s/005_policy=least_loaded_nic_gbps=25_seed=2/requests.csv", d2);
    size_t l1, l2;
    char *r1 = tests_read_file(p1, &l1), *r2 = tests_read_file(p2, &l2);
    ck_assert(r1 && r2 && l1 == l2 && memcmp(r1, r2, l1) == 0);
    free(r1), free(r2), free(a), free(b);
    /* the same spec may write over its own directory, another may not */
    ck_assert_int_eq(sim_sweep_check_out(&s, d1, &err), 0);
    sim_sweep_spec_t t;
    ck_assert(load("w2.json", "{\"base\": \"base.json\", \"axes\": {\"seed\": [1, 3]}}", &t,
                   &err) == 0);
    ck_assert_int_eq(sim_sweep_check_out(&t, d1, &err), -1);
    ck_assert_msg(strstr(err.msg, "holds a different sweep") != NULL, "%s", err.msg);
    sim_sweep_spec_free(&t);
    sim_sweep_spec_free(&s);
}
END_TEST

START_TEST(test_sweep_bad_point_alone)
{
    sim_sweep_spec_t s;
    sim_err_t err;
    ck_assert(load("f.json",
                   "{\"base\": \"base.json\", \"axes\": {\"network.nic_gbps\": [100, -5],\n"
                   " \"seed\": [1, 2]}}",
                   &s, &err) == 0);
    char d[512];
    snprintf(d, sizeof d, "%s/f", tests_tmpdir());
    int failed;
    char *csv = run_sweep(&s, 2, d, &failed);
    ck_assert_int_eq(failed, 2);
    ck_assert(strstr(csv, "\n0,000_nic_gbps=100_seed=1,100,1,ok,,60,") != NULL);
    ck_assert(strstr(csv, "\n1,001_nic_gbps=100_seed=2,100,2,ok,,60,") != NULL);
    ck_assert_msg(strstr(csv, "\n2,002_nic_gbps=-5_seed=1,-5,1,failed,\"") != NULL, "%s", csv);
    ck_assert(strstr(csv, "/f.json: $.axes.network.nic_gbps[1]: -5 is out of range") != NULL);
    /* the failed point's row has no metrics and no directory */
    char p[1024];
    snprintf(p, sizeof p, "%s/003_nic_gbps=-5_seed=2", d);
    struct stat st;
    ck_assert(stat(p, &st) != 0);
    free(csv);
    sim_sweep_spec_free(&s);
}
END_TEST

/* Points read trace files parsed once per sweep (traces/store.h); a bad
 * file still fails only the points that read it, with its located error,
 * and the good file's points match a plain run's numbers. */
START_TEST(test_sweep_shared_trace_bad_file)
{
    static const int reqs[][3] = {{0, 600, 5}, {10, 1200, 3}, {20, 600, 4}, {30, 2000, 2}};
    char good[1024];
    snprintf(good, sizeof good, "%s", tests_trace_of("shared.jsonl", reqs, 4));
    static const char bad_text[] =
        "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [0, 1]}\n"
        "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [0]}\n";
    const char *bad = tests_write_file(tests_tmpdir(), "shared_bad.jsonl", bad_text,
                                       sizeof bad_text - 1);
    static const char base[] = "{\"name\": \"shared\", \"cluster\": {\"prefill\": 1, \"decode\": 1}}\n";
    tests_write_file(tests_tmpdir(), "shared_base.json", base, sizeof base - 1);
    char spec[4096];
    snprintf(spec, sizeof spec,
             "{\"base\": \"shared_base.json\", \"axes\": {\"trace.path\": [\"%s\", \"%s\"],\n"
             " \"trace.speed\": [1, 2], \"seed\": [1, 2]}}",
             good, bad);
    sim_sweep_spec_t s;
    sim_err_t err;
    ck_assert_msg(load("shared.json", spec, &s, &err) == 0, "%s", err.msg);
    char d1[512], d2[512];
    snprintf(d1, sizeof d1, "%s/shared1", tests_tmpdir());
    snprintf(d2, sizeof d2, "%s/shared2", tests_tmpdir());
    int failed1, failed2;
    char *csv1 = run_sweep(&s, 1, d1, &failed1), *csv2 = run_sweep(&s, 3, d2, &failed2);
    ck_assert_int_eq(failed1, 4);
    ck_assert_int_eq(failed2, 4);
    ck_assert_str_eq(csv1, csv2);
    for (int i = 0; i < 8; i++) {
        char row[64];
        snprintf(row, sizeof row, "\n%d,%03d_", i, i);
        const char *at = strstr(csv1, row);
        ck_assert_msg(at != NULL, "%s", csv1);
        const char *eol = strchr(at + 1, '\n');
        int is_bad = i >= 4, says_bad = strstr(at, "shared_bad.jsonl:2: ") != NULL &&
                                        strstr(at, "shared_bad.jsonl:2: ") < (eol ? eol : at + strlen(at));
        ck_assert_msg(is_bad == says_bad, "point %d: %s", i, csv1);
    }
    free(csv1);
    free(csv2);
    sim_sweep_spec_free(&s);
}
END_TEST

START_TEST(test_fmt_num)
{
    char b[40];
    sim_fmt_shortest(0.1, b, sizeof b);
    ck_assert_str_eq(b, "0.1");
    sim_fmt_shortest(1.0 / 3, b, sizeof b);
    ck_assert_str_eq(b, "0.3333333333333333");
    ck_assert(strtod(b, NULL) == 1.0 / 3);
    sim_fmt_shortest(30, b, sizeof b);
    ck_assert_str_eq(b, "30");
}
END_TEST

Suite *test_sweep_suite(void)
{
    Suite *s = suite_create("sweep");
    TCase *tc = tcase_create("sweep");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_spec_errors);
    tcase_add_test(tc, test_point_order);
    tcase_add_test(tc, test_sweep_workers_identical);
    tcase_add_test(tc, test_sweep_bad_point_alone);
    tcase_add_test(tc, test_sweep_shared_trace_bad_file);
    tcase_add_test(tc, test_fmt_num);
    suite_add_tcase(s, tc);
    return s;
}
