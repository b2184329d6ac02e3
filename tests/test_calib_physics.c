/* tests/test_calib_physics.c: calibration files are checked for physics
 * where they enter (models/cost_fitted.c, sim/net/net_profile.c) and the cost
 * model's durations are checked where they leave (models/cost.c): the
 * crash of a 1e300 coefficient, negative and zero models, huge and tiny
 * numbers, each refused with the file and JSON path; every shipped file
 * still loads; a run with a bad file fails with a message, not an abort. */
#include "tests/tests.h"

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "models/cost.h"
#include "sim/exp/config.h"
#include "sim/net/net.h"
#include "sim/exp/run.h"

/* A calibration for a800x8 / llama2-70b with the given prefill coef and
 * decode section, written to the temporary directory as name. */
static const char *calib(const char *name, const char *coef, const char *decode)
{
    char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"kind\": \"points\", \"hardware\": \"a800x8\", \"models\": [\"llama2-70b\"],\n"
             " \"source\": \"test\",\n \"prefill\": {\"coef\": %s},\n \"decode\": %s}\n",
             coef, decode);
    return tests_write_file(tests_tmpdir(), name, buf, strlen(buf));
}

static const char *const DECODE_OK = "{\"d0_s\": 0.003, \"eff_mem_weights\": 0.4, "
                                     "\"eff_mem_kv\": 0.4, \"eff_cmp\": 0.5, \"n_gpus\": 8}";
static const char *const PREFILL_OK = "[0.1, 1e-4, 9e-10]";

static model_cost_t *load(const char *path, sim_err_t *err)
{
    model_cost_args_t a = {.hw = model_hw_find("a800x8"), .llm = model_llm_find("llama2-70b"),
                           .calibration = path, .data_dir = "."};
    return model_cost_new("fitted", &a, err);
}

/* path is refused with an error holding each of msgs (NULL-terminated). */
static void refused(const char *path, const char *const *msgs)
{
    sim_err_t err;
    model_cost_t *c = load(path, &err);
    ck_assert_msg(c == NULL, "%s: accepted", path);
    for (; *msgs; msgs++)
        ck_assert_msg(strstr(err.msg, *msgs), "expected '%s' in: %s", *msgs, err.msg);
}

#define REFUSED(path, ...) refused((path), (const char *const[]){__VA_ARGS__, NULL})

/* The crash: a run aborted (exit 134, 'delay_ns >= 0' in sim/core/evq.c) on a
 * prefill of 1e300 s that llround could not convert. */
START_TEST(test_coef_1e300)
{
    REFUSED(calib("big.json", "[1e300, 0, 0]", DECODE_OK),
            "big.json: $.prefill.coef[0]: makes a prefill of 131072 tokens take 1e+300 s, "
            "more than the 3600 s any pass may take");
    REFUSED(calib("big2.json", "[0.1, 1e-4, 1e308]", DECODE_OK), "big2.json: $.prefill.coef[2]:",
            "take inf s");
    /* Every term plausible alone, the pass not. */
    REFUSED(calib("sum.json", "[2000, 0.0152587890625, 0]", DECODE_OK),
            "sum.json: $.prefill.coef: makes a prefill of 131072 tokens take 4000 s");
    REFUSED(calib("lin.json", PREFILL_OK, "{\"coef\": [0.03, 1e-4, 1e300]}"),
            "lin.json: $.decode.coef[2]: makes a decode step of 65536 requests over "
            "8589934592 tokens take");
    REFUSED(calib("d0.json", PREFILL_OK,
                  "{\"d0_s\": 1e308, \"eff_mem_weights\": 0.4, \"eff_mem_kv\": 0.4, "
                  "\"eff_cmp\": 0.5, \"n_gpus\": 8}"),
            "d0.json: $.decode.d0_s: makes a decode step");
    REFUSED(calib("kv.json", PREFILL_OK,
                  "{\"d0_s\": 0.003, \"eff_mem_weights\": 0.4, \"eff_mem_kv\": 1e-300, "
                  "\"eff_cmp\": 0.5, \"n_gpus\": 8}"),
            "kv.json: $.decode.eff_mem_kv: makes a decode step");
    /* Beyond a double: jansson refuses it, located. */
    REFUSED(calib("inf.json", "[1e400, 0, 0]", DECODE_OK), "inf.json:3:");
}
END_TEST

/* Negative coefficients were accepted and gave TTFT 0 (to_ns clamped). */
START_TEST(test_negative_coef)
{
    REFUSED(calib("neg.json", "[0.1, -1e-4, 9e-10]", DECODE_OK),
            "neg.json: $.prefill.coef[1]: must be a finite number >= 0 (got -0.0001)");
    REFUSED(calib("neg0.json", "[-1, 1e-4, 9e-10]", DECODE_OK), "neg0.json: $.prefill.coef[0]");
    REFUSED(calib("negd.json", PREFILL_OK, "{\"coef\": [0.03, 1e-4, -4e-8]}"),
            "negd.json: $.decode.coef[2]: must be a finite number >= 0");
    REFUSED(calib("negd0.json", PREFILL_OK,
                  "{\"d0_s\": -0.003, \"eff_mem_weights\": 0.4, \"eff_mem_kv\": 0.4, "
                  "\"eff_cmp\": 0.5, \"n_gpus\": 8}"),
            "negd0.json: $.decode.d0_s: must be >= 0");
}
END_TEST

/* A model faster than the hardware: zero, or below the weight GEMMs at
 * 100% of the node's peak somewhere inside the range (at the vertex of
 * T - floor, not at its ends). */
START_TEST(test_zero_model)
{
    REFUSED(calib("zero.json", "[0, 0, 0]", DECODE_OK),
            "zero.json: $.prefill.coef: a prefill of 1 token takes 0 s, less than the weight "
            "GEMMs of 'llama2-70b' alone at 100% of the peak FLOPs of 8 GPUs of 'a800x8'");
    REFUSED(calib("zerod.json", PREFILL_OK, "{\"coef\": [0, 0, 0]}"),
            "zerod.json: $.decode.coef: a decode step of one request takes 0 s, less than "
            "reading the weights of 'llama2-70b' once");
    /* 1 + 4.2e-10 n^2 s: above the floor (5.5e-5 s per token) at 1 and
     * at 131072 tokens, below it around 65,000. */
    REFUSED(calib("dip.json", "[1, 0, 4.2e-10]", DECODE_OK), "dip.json: $.prefill.coef: a prefill of 65",
            "less than the weight GEMMs");
    /* At 8e-10 it clears the floor everywhere. */
    sim_err_t err;
    model_cost_t *c = load(calib("nodip.json", "[1, 0, 8e-10]", DECODE_OK), &err);
    ck_assert_msg(c != NULL, "%s", err.msg);
    model_cost_free(c);
}
END_TEST

/* The conversion every duration goes through: NaN, infinities, negative
 * and out-of-range values refused; -0 and the largest representable
 * accepted. */
START_TEST(test_s_to_ns)
{
    sim_time_t ns = 7;
    ck_assert_int_eq(model_cost_s_to_ns(NAN, &ns), -1);
    ck_assert_int_eq(model_cost_s_to_ns(INFINITY, &ns), -1);
    ck_assert_int_eq(model_cost_s_to_ns(-INFINITY, &ns), -1);
    ck_assert_int_eq(model_cost_s_to_ns(-1e-9, &ns), -1);
    ck_assert_int_eq(model_cost_s_to_ns(1e300, &ns), -1);
    ck_assert_int_eq(model_cost_s_to_ns(0x1p63 / 1e9, &ns), -1);
    ck_assert_int_eq(ns, 7);
    ck_assert_int_eq(model_cost_s_to_ns(-0.0, &ns), 0);
    ck_assert_int_eq(ns, 0);
    ck_assert_int_eq(model_cost_s_to_ns(1.5e-9, &ns), 0);
    ck_assert_int_eq(ns, 2);
    ck_assert_int_eq(model_cost_s_to_ns(9.2e9, &ns), 0);
    ck_assert_int_eq(ns, INT64_C(9200000000000000000));
    /* Rounds as llround does: halves away from 0, anywhere in range. */
    uint64_t st = 0x9E3779B97F4A7C15u;
    for (int i = 0; i < 300000; i++) {
        st ^= st << 13;
        st ^= st >> 7;
        st ^= st << 17;
        double s = i % 3 == 0   ? ((double)(st % 100000000000u) + 0.5) / 1e9
                   : i % 3 == 1 ? (double)(st >> 11) * 0x1p-53 * 9.2e9
                                : ldexp((double)(st % 4096) + 0.5, -(int)(st % 60)) / 1e9;
        ck_assert_int_eq(model_cost_s_to_ns(s, &ns), 0);
        ck_assert_msg(ns == (sim_time_t)llround(s * 1e9), "%a s: %lld, llround %lld", s,
                      (long long)ns, (long long)llround(s * 1e9));
    }
}
END_TEST

/* The domain check of model_cost_new (any plug-in): a roofline at one
 * billionth of the peak cannot express a long prefill in int64 ns and is
 * refused; at the config's lowest utilizations (1e-3) every hardware and
 * model pair still loads. */
START_TEST(test_domain_check)
{
    model_cost_args_t a = {.hw = model_hw_find("a800x8"), .llm = model_llm_find("llama2-70b"),
                           .calibration = "", .data_dir = ".", .mfu = 1e-9, .mbu = 0.5,
                           .overhead_s = 0.005};
    sim_err_t err;
    ck_assert_ptr_null(model_cost_new("roofline", &a, &err));
    ck_assert_msg(strstr(err.msg, "cost model 'roofline': a prefill of 67108864 tokens takes") &&
                      strstr(err.msg, "int64 ns clock"), "%s", err.msg);
    static const char *const hws[] = {"a800x8", "h800x8", "h200x8"};
    static const char *const llms[] = {"llama2-70b", "llama3-70b", "llama3-8b"};
    for (int h = 0; h < 3; h++)
        for (int m = 0; m < 3; m++) {
            model_cost_args_t r = {.hw = model_hw_find(hws[h]), .llm = model_llm_find(llms[m]),
                                   .mfu = 1e-3, .mbu = 1e-3, .overhead_s = 10};
            model_cost_t *c = model_cost_new("roofline", &r, &err);
            ck_assert_msg(c != NULL, "%s/%s: %s", hws[h], llms[m], err.msg);
            ck_assert_int_gt(model_cost_decode_ns(c, MODEL_COST_MAX_BATCH, MODEL_COST_MAX_CTX_TOK),
                             0);
            ck_assert_int_gt(model_cost_prefill_ns(c, MODEL_COST_MAX_TOK, 0), 0);
            model_cost_free(c);
        }
}
END_TEST

/* Every shipped calibration loads for every model it covers, and its
 * passes at the plausible extremes take at most an hour. */
START_TEST(test_shipped_files_load)
{
    glob_t g;
    ck_assert_int_eq(glob("models/calib/*.json", 0, NULL, &g), 0);
    int n_loaded = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        json_t *root = json_load_file(g.gl_pathv[i], 0, NULL);
        ck_assert_ptr_nonnull(root);
        json_t *models = json_object_get(root, "models");
        const char *hw = json_string_value(json_object_get(root, "hardware"));
        if (!json_is_object(json_object_get(root, "prefill")) || !json_is_array(models) || !hw) {
            json_decref(root); /* points or residuals, not a calibration */
            continue;
        }
        for (size_t m = 0; m < json_array_size(models); m++) {
            model_cost_args_t a = {.hw = model_hw_find(hw),
                                   .llm = model_llm_find(json_string_value(json_array_get(models, m))),
                                   .calibration = g.gl_pathv[i], .data_dir = "."};
            sim_err_t err;
            model_cost_t *c = model_cost_new("fitted", &a, &err);
            ck_assert_msg(c != NULL, "%s: %s", g.gl_pathv[i], err.msg);
            ck_assert_int_le(model_cost_prefill_ns(c, MODEL_COST_PLAUSIBLE_TOK, 0),
                             (sim_time_t)MODEL_COST_PLAUSIBLE_S * SIM_NS_PER_S);
            ck_assert_int_le(model_cost_decode_ns(c, MODEL_COST_PLAUSIBLE_BATCH,
                                                  MODEL_COST_PLAUSIBLE_BATCH * MODEL_COST_PLAUSIBLE_TOK),
                             (sim_time_t)MODEL_COST_PLAUSIBLE_S * SIM_NS_PER_S);
            model_cost_free(c);
            n_loaded++;
        }
        json_decref(root);
    }
    globfree(&g);
    ck_assert_int_ge(n_loaded, 9);
}
END_TEST

/* A network calibration as the file at name; nic is "" or a
 * "\"nic_bytes_per_s\": X, " member. */
static const char *netfile(const char *name, const char *nic, const char *lat, const char *bw,
                           const char *maxe)
{
    char buf[512];
    snprintf(buf, sizeof buf, "{\"kind\": \"network\", %s\"network\": {\"latency_s\": %s, "
             "\"bandwidth_bytes_per_s\": %s, \"max_rel_err\": %s}}\n", nic, lat, bw, maxe);
    return tests_write_file(tests_tmpdir(), name, buf, strlen(buf));
}

static void net_refused(const char *path, const char *msg)
{
    sim_net_profile_t p;
    sim_err_t err;
    ck_assert_msg(sim_net_profile_file("n", path, 100e9, &p, &err) == -1, "%s: accepted", path);
    ck_assert_msg(strstr(err.msg, msg), "expected '%s' in: %s", msg, err.msg);
}

/* Bandwidth 1e-300 ran to exit 0 with instant transfers; now every number
 * of the file, and the rate it gives the simulated NIC, is in range. */
START_TEST(test_network_ranges)
{
    net_refused(netfile("tiny.json", "", "0", "1e-300", "0"),
                "tiny.json: $.network.bandwidth_bytes_per_s: 1e-300 bytes/s is not a plausible "
                "bandwidth (from 1e+06 to 1e+13)");
    net_refused(netfile("slow.json", "", "0", "999999", "0"), "slow.json: $.network.bandwidth");
    net_refused(netfile("fast.json", "\"nic_bytes_per_s\": 1e14, ", "0", "2e13", "0"),
                "fast.json: $.network.bandwidth_bytes_per_s: 2e+13 bytes/s");
    net_refused(netfile("nic.json", "\"nic_bytes_per_s\": 1e-300, ", "0", "1e9", "0"),
                "nic.json: $.nic_bytes_per_s: 1e-300 bytes/s is not a plausible");
    net_refused(netfile("lat.json", "", "11", "1e9", "0"),
                "lat.json: $.network.latency_s: 11 is not in [0, 10] s");
    net_refused(netfile("latneg.json", "", "-1e-6", "1e9", "0"), "latneg.json: $.network.latency_s");
    net_refused(netfile("lathuge.json", "", "1e308", "1e9", "0"), "lathuge.json: $.network.latency_s");
    net_refused(netfile("err.json", "", "0", "1e9", "-0.1"),
                "err.json: $.network.max_rel_err: must be a finite number >= 0");
    /* 1 MB/s of a 10 TB/s testbed is 1e-7 of the simulated 100 GB/s NIC:
     * 10 kB/s there. */
    net_refused(netfile("ratio.json", "\"nic_bytes_per_s\": 1e13, ", "0", "1e6", "0"),
                "ratio.json: $.nic_bytes_per_s: the efficiency 1e-07");
    sim_net_profile_t p;
    sim_err_t err;
    ck_assert_int_eq(sim_net_profile_file("ok", netfile("ok.json", "", "10", "1e6", "0"), 100e9,
                                          &p, &err), 0);
    ck_assert_double_eq(p.latency_s, 10);
    ck_assert_double_eq_tol(p.efficiency, 1e-5, 1e-18);
    ck_assert_int_eq(sim_net_profile_file("ok", netfile("ok2.json", "\"nic_bytes_per_s\": 1e13, ",
                                                        "0", "1e13", "0"), 100e9, &p, &err), 0);
    ck_assert_double_eq(p.efficiency, 1);
}
END_TEST

/* End to end: the runs that aborted or ran on nonsense now stop at the
 * start with the file's located error. */
START_TEST(test_run_refuses_bad_files)
{
    const char *big = calib("run_big.json", "[1e300, 0, 0]", DECODE_OK);
    const char *zero = calib("run_zero.json", "[0, 0, 0]", "{\"coef\": [0, 0, 0]}");
    const char *tiny = netfile("run_tiny.json", "", "0", "1e-300", "0");
    const char *sets[3][2] = {{"cost.calibration", big}, {"cost.calibration", zero},
                              {"network.transport", tiny}};
    const char *want[3] = {"$.prefill.coef[0]", "$.prefill.coef: a prefill of 1 token takes 0 s",
                           "$.network.bandwidth_bytes_per_s"};
    for (int i = 0; i < 3; i++) {
        sim_config_t cfg;
        sim_config_defaults(&cfg);
        tests_cfg_set(&cfg, "trace.generator.kind=kimi");
        tests_cfg_set(&cfg, "trace.generator.requests=20");
        char set[1024];
        snprintf(set, sizeof set, "%s=%s", sets[i][0], sets[i][1]);
        tests_cfg_set(&cfg, set);
        sim_run_opts_t o = {.config_src = "exp.json", .data_dir = "."};
        sim_run_result_t res = {0};
        sim_err_t err;
        ck_assert_int_eq(sim_run(&cfg, &o, &res, &err), -1);
        ck_assert_msg(strstr(err.msg, want[i]), "%s", err.msg);
    }
}
END_TEST

Suite *test_calib_physics_suite(void)
{
    Suite *s = suite_create("calib_physics");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60); /* 300,000 roundings: seconds under the sanitizers */
    tcase_add_test(tc, test_coef_1e300);
    tcase_add_test(tc, test_negative_coef);
    tcase_add_test(tc, test_zero_model);
    tcase_add_test(tc, test_s_to_ns);
    tcase_add_test(tc, test_domain_check);
    tcase_add_test(tc, test_shipped_files_load);
    tcase_add_test(tc, test_network_ranges);
    tcase_add_test(tc, test_run_refuses_bad_files);
    suite_add_tcase(s, tc);
    return s;
}
