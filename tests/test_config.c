/* tests/test_config.c: strict parsing with located errors, ranges,
 * registries, --set, ${VAR} expansion and the effective-config round trip. */
#include "tests/tests.h"

#include <stdlib.h>
#include <string.h>

#include "sim/config.h"
#include "sim/jsonx.h"

static sim_config_t cfg;

/* Load text as a config file; returns rc and leaves the message in err. */
static int load_text(const char *name, const char *text, sim_err_t *err)
{
    sim_config_defaults(&cfg);
    const char *p = tests_write_file(tests_tmpdir(), name, text, strlen(text));
    int rc = sim_config_load(&cfg, p, err);
    if (rc == 0)
        rc = sim_config_validate(&cfg, name, err);
    return rc;
}

#define EXPECT_ERR(name, text, needle)                                            \
    do {                                                                          \
        sim_err_t e_;                                                             \
        ck_assert_int_eq(load_text(name, text, &e_), -1);                         \
        ck_assert_msg(strstr(e_.msg, needle) != NULL, "got: %s", e_.msg);         \
    } while (0)

START_TEST(test_good_config)
{
    sim_err_t err;
    const char *t = "{\"name\": \"x\", \"seed\": 7, \"cluster\": {\"prefill\": 3, \"decode\": 5},\n"
                    " \"trace\": {\"generator\": {\"kind\": \"kimi\", \"input\": {\"mean\": 100}}},\n"
                    " \"slo\": {\"tbt_s\": 0.2}}";
    ck_assert_msg(load_text("good.json", t, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(cfg.seed, 7);
    ck_assert_int_eq(cfg.cluster.prefill, 3);
    ck_assert_int_eq(cfg.cluster.decode, 5);
    ck_assert_str_eq(cfg.trace.generator.kind, "kimi");
    ck_assert_double_eq(cfg.trace.generator.input.mean, 100);
    ck_assert_double_eq(cfg.slo.tbt_s, 0.2);
    ck_assert_double_eq(cfg.slo.ttft_s, 30); /* default kept */
    ck_assert_str_eq(cfg.scheduler.policy, "kvcentric");
}
END_TEST

START_TEST(test_located_errors)
{
    EXPECT_ERR("syntax.json", "{\n  \"seed\": 1,\n  \"model\" \"x\"\n}", "syntax.json:3:");
    EXPECT_ERR("dup.json", "{\"seed\": 1, \"seed\": 2}", "dup.json:1:");
    EXPECT_ERR("unknown.json", "{\"cluster\": {\"prefil\": 2}}",
               "unknown.json: $.cluster.prefil: unknown key (valid here: prefill, decode");
    EXPECT_ERR("top.json", "{\"sed\": 2}", "top.json: $.sed: unknown key (valid here: name,");
    EXPECT_ERR("type.json", "{\"cluster\": {\"prefill\": \"8\"}}",
               "type.json: $.cluster.prefill: expected an integer");
    EXPECT_ERR("float.json", "{\"cluster\": {\"prefill\": 2.5}}",
               "float.json: $.cluster.prefill: expected an integer");
    EXPECT_ERR("range.json", "{\"cluster\": {\"decode\": 5000}}",
               "range.json: $.cluster.decode: 5000 is out of range [0, 4096]");
    EXPECT_ERR("nodec.json", "{\"cluster\": {\"decode\": 0}, \"trace\": {\"path\": \"a\"}}",
               "nodec.json: $.cluster: need at least one prefill and one decode instance");
    EXPECT_ERR("mixed.json", "{\"cluster\": {\"colocated\": 4}, \"trace\": {\"path\": \"a\"}}",
               "mixed.json: $.cluster: with colocated instances set prefill and decode to 0");
    EXPECT_ERR("sys.json", "{\"colocated\": {\"system\": \"sglang\"}, \"trace\": {\"path\": \"a\"}}",
               "sys.json: $.colocated.system: unknown system 'sglang' (valid: vllm, vllm_pc, vllm_cp)");
    EXPECT_ERR("obj.json", "{\"cluster\": 3}", "obj.json: $.cluster: expected an object");
    EXPECT_ERR("leaf.json", "{\"slo\": {\"ttft_s\": {}}}", "leaf.json: $.slo.ttft_s: expected a number");
    EXPECT_ERR("arr.json", "[1]", "arr.json: $: expected an object");
    EXPECT_ERR("pol.json",
               "{\"trace\": {\"generator\": {\"kind\": \"kimi\"}}, \"scheduler\": {\"policy\": \"magic\"}}",
               "pol.json: $.scheduler.policy: unknown placement policy 'magic' (valid: "
               "round_robin, least_loaded, load_balance, random, cache_aware, kvcentric)");
    EXPECT_ERR("hw.json", "{\"hardware\": \"tpu\", \"trace\": {\"path\": \"x\"}}",
               "hw.json: $.hardware: unknown hardware 'tpu' (valid: a800x8, h800x8, h200x8)");
    EXPECT_ERR("notrace.json", "{}", "notrace.json: $.trace: set exactly one of");
    EXPECT_ERR("up.json", "{\"name\": \"../../../x\", \"trace\": {\"path\": \"a\"}}",
               "up.json: $.name: '../../../x' is not a plain name");
    EXPECT_ERR("empty.json", "{\"name\": \"\", \"trace\": {\"path\": \"a\"}}",
               "empty.json: $.name: '' is not a plain name");
    EXPECT_ERR("both.json", "{\"trace\": {\"path\": \"a\", \"generator\": {\"kind\": \"kimi\"}}}",
               "both.json: $.trace: set exactly one of");
    EXPECT_ERR("gen.json", "{\"trace\": {\"generator\": {\"kind\": \"zipf\"}}}",
               "gen.json: $.trace.generator.kind: unknown generator 'zipf'");
    EXPECT_ERR("fmt.json", "{\"trace\": {\"path\": \"a\", \"format\": \"parquet\"}}",
               "fmt.json: $.trace.format: unknown trace format 'parquet'");
    EXPECT_ERR("bw.json", "{\"cache\": {\"ssd_read_gbs\": 0}, \"trace\": {\"path\": \"a\"}}",
               "bw.json: $.cache: dram_load_gbs and ssd_read_gbs must be -1 (hardware) or > 0");
    EXPECT_ERR("evict.json", "{\"cache\": {\"policy\": \"arc\"}, \"trace\": {\"path\": \"a\"}}",
               "evict.json: $.cache.policy: unknown eviction policy 'arc' (valid: lru, lfu, length_aware)");
    EXPECT_ERR("adm.json", "{\"admission\": {\"policy\": \"x\"}, \"trace\": {\"path\": \"a\"}}",
               "$.admission.policy: unknown admission policy 'x' (valid: none, baseline, early, predictive)");
}
END_TEST

START_TEST(test_missing_file)
{
    sim_err_t err;
    sim_config_defaults(&cfg);
    ck_assert_int_eq(sim_config_load(&cfg, "no/such/exp.json", &err), -1);
    ck_assert_msg(strstr(err.msg, "no/such/exp.json") != NULL, "%s", err.msg);
}
END_TEST

START_TEST(test_set_overrides)
{
    sim_err_t err;
    sim_config_defaults(&cfg);
    ck_assert_int_eq(sim_config_set(&cfg, "cluster.prefill=12", &err), 0);
    ck_assert_int_eq(cfg.cluster.prefill, 12);
    ck_assert_int_eq(sim_config_set(&cfg, "slo.tbt_s=0.3", &err), 0);
    ck_assert_double_eq(cfg.slo.tbt_s, 0.3);
    ck_assert_int_eq(sim_config_set(&cfg, "trace.generator.kind=kimi", &err), 0);
    ck_assert_str_eq(cfg.trace.generator.kind, "kimi");
    ck_assert_int_eq(sim_config_set(&cfg, "cluster.prefil=2", &err), -1);
    ck_assert_msg(strstr(err.msg, "--set cluster.prefil=2: unknown config path"), "%s", err.msg);
    ck_assert_int_eq(sim_config_set(&cfg, "cluster.prefill=two", &err), -1);
    ck_assert_msg(strstr(err.msg, "expected an integer, got 'two'"), "%s", err.msg);
    ck_assert_int_eq(sim_config_set(&cfg, "slo.tbt_s=-1", &err), -1);
    ck_assert_msg(strstr(err.msg, "out of range"), "%s", err.msg);
    ck_assert_int_eq(sim_config_set(&cfg, "slo.tbt_s=nan", &err), -1);
    ck_assert_int_eq(sim_config_set(&cfg, "noequals", &err), -1);
    ck_assert_msg(strstr(err.msg, "expected path=value"), "%s", err.msg);
}
END_TEST

START_TEST(test_expand)
{
    sim_err_t err;
    char out[256];
    setenv("MCS_TEST_DIR", "/data/traces", 1);
    ck_assert_int_eq(sim_config_expand("${MCS_TEST_DIR}/a.jsonl", out, sizeof out, "e.json",
                                       "$.trace.path", &err), 0);
    ck_assert_str_eq(out, "/data/traces/a.jsonl");
    unsetenv("MCS_TEST_UNSET");
    ck_assert_int_eq(sim_config_expand("${MCS_TEST_UNSET}/a", out, sizeof out, "e.json",
                                       "$.trace.path", &err), -1);
    ck_assert_str_eq(err.msg, "e.json: $.trace.path: environment variable MCS_TEST_UNSET is not set");
    ck_assert_int_eq(sim_config_expand("${OOPS", out, sizeof out, "e.json", "$.x", &err), -1);
}
END_TEST

/* The effective config, loaded back, is the same configuration. */
START_TEST(test_round_trip)
{
    sim_err_t err;
    static sim_config_t a, b;
    sim_config_defaults(&a);
    ck_assert_int_eq(sim_config_set(&a, "trace.generator.kind=kimi", &err), 0);
    ck_assert_int_eq(sim_config_set(&a, "cluster.decode=3", &err), 0);
    ck_assert_int_eq(sim_config_set(&a, "slo.ttft_s=12.5", &err), 0);
    json_t *j = sim_config_to_json(&a);
    char path[512];
    snprintf(path, sizeof path, "%s/eff.json", tests_tmpdir());
    FILE *f = fopen(path, "w");
    ck_assert_int_eq(sim_json_write(f, j), 0);
    fclose(f);
    json_decref(j);
    sim_config_defaults(&b);
    ck_assert_msg(sim_config_load(&b, path, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(memcmp(&a, &b, sizeof a), 0);
}
END_TEST

Suite *test_config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_good_config);
    tcase_add_test(tc, test_located_errors);
    tcase_add_test(tc, test_missing_file);
    tcase_add_test(tc, test_set_overrides);
    tcase_add_test(tc, test_expand);
    tcase_add_test(tc, test_round_trip);
    suite_add_tcase(s, tc);
    return s;
}
