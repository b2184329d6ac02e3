/* tests/test_config.c: strict parsing with located errors, ranges,
 * registries, --set, ${VAR} expansion and the effective-config round trip. */
#include "tests/tests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/exp/config.h"
#include "sim/pool/evict.h"
#include "sim/serve/place.h"
#include "sim/core/jsonx.h"
#include "sim/serve/system.h"

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
    EXPECT_ERR("mixed.json", "{\"system\": {\"kind\": \"vllm\"}, \"trace\": {\"path\": \"a\"}}",
               "mixed.json: $.cluster: system vllm runs its own instances "
               "(system.params.instances): set prefill and decode to 0");
    EXPECT_ERR("sys.json", "{\"system\": {\"kind\": \"sglang\"}, \"trace\": {\"path\": \"a\"}}",
               "sys.json: $.system.kind: unknown system 'sglang' (valid: pd, vllm, vllm_pc, vllm_cp)");
    EXPECT_ERR("obj.json", "{\"cluster\": 3}", "obj.json: $.cluster: expected an object");
    EXPECT_ERR("leaf.json", "{\"slo\": {\"ttft_s\": {}}}", "leaf.json: $.slo.ttft_s: expected a number");
    EXPECT_ERR("arr.json", "[1]", "arr.json: $: expected an object");
    char names[512], want[640];
    sim_place_names(names, sizeof names);
    snprintf(want, sizeof want,
             "pol.json: $.scheduler.policy: unknown placement policy 'magic' (valid: %s)", names);
    EXPECT_ERR("pol.json",
               "{\"trace\": {\"generator\": {\"kind\": \"kimi\"}}, \"scheduler\": {\"policy\": \"magic\"}}",
               want);
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
    /* Keys of a shared section the chosen plug-in does not read. */
    EXPECT_ERR("unread.json",
               "{\"trace\": {\"generator\": {\"kind\": \"arxiv\", \"input\": {\"mean\": 100}}}}",
               "unread.json: $.trace.generator.input.mean: generator 'arxiv' does not read it "
               "(it reads: requests, rate_rps); leave it out");
    EXPECT_ERR("unread2.json", "{\"trace\": {\"generator\": {\"kind\": \"kimi\", \"prompt_tok\": 4096}}}",
               "unread2.json: $.trace.generator.prompt_tok: generator 'kimi' does not read it");
    EXPECT_ERR("nogen.json", "{\"trace\": {\"path\": \"a\", \"generator\": {\"rate_rps\": 9}}}",
               "nogen.json: $.trace.generator.rate_rps: only a generator reads it, and this config "
               "replays a trace file (trace.path); leave it out");
    EXPECT_ERR("mfu.json", "{\"cost\": {\"mfu\": 0.3}, \"trace\": {\"path\": \"a\"}}",
               "mfu.json: $.cost.mfu: cost model 'fitted' does not read it (it reads: calibration)");
    EXPECT_ERR("calib.json",
               "{\"cost\": {\"model\": \"roofline\", \"calibration\": \"x\"}, \"trace\": {\"path\": \"a\"}}",
               "calib.json: $.cost.calibration: cost model 'roofline' does not read it "
               "(it reads: mfu, mbu, overhead_s)");
    EXPECT_ERR("cparams.json",
               "{\"cache\": {\"policy\": \"lfu\", \"params\": {\"k\": 2}}, \"trace\": {\"path\": \"a\"}}",
               "cparams.json: $.cache.params.k: not a parameter of eviction policy 'lfu' (its parameters: none)");
    EXPECT_ERR("fmt.json", "{\"trace\": {\"path\": \"a\", \"format\": \"parquet\"}}",
               "fmt.json: $.trace.format: unknown trace format 'parquet'");
    EXPECT_ERR("bw.json", "{\"cache\": {\"ssd_read_gbs\": 0}, \"trace\": {\"path\": \"a\"}}",
               "bw.json: $.cache.ssd_read_gbs: 0 is out of range [0.01, 100000] (or exactly -1)");
    sim_evict_names(names, sizeof names);
    snprintf(want, sizeof want,
             "evict.json: $.cache.policy: unknown eviction policy 'no_such_policy' (valid: %s)",
             names);
    EXPECT_ERR("evict.json", "{\"cache\": {\"policy\": \"no_such_policy\"}, \"trace\": {\"path\": \"a\"}}",
               want);
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
    ck_assert_msg(strstr(err.msg, "expected PATH=VALUE"), "%s", err.msg);
}
END_TEST

/* A value a --set or a sweep axis gave is blamed on it, not on the file;
 * a file's value, loaded after, is the file's again. */
START_TEST(test_set_blamed)
{
    static const struct {
        const char *set, *want;
    } cases[] = {
        {"scheduler.policy=kv-centric", "--set scheduler.policy=kv-centric: unknown placement "
                                        "policy 'kv-centric' (valid: "},
        {"model=foo", "--set model=foo: unknown model 'foo'"},
        {"hardware=bar", "--set hardware=bar: unknown hardware 'bar'"},
        {"system.kind=x", "--set system.kind=x: unknown system 'x'"},
        {"admission.policy=x", "--set admission.policy=x: unknown admission policy 'x'"},
        {"cache.policy=x", "--set cache.policy=x: unknown eviction policy 'x'"},
        {"cost.model=x", "--set cost.model=x: unknown cost model 'x'"},
        {"trace.format=x", "--set trace.format=x: unknown trace format 'x'"},
        {"trace.generator.kind=x", "--set trace.generator.kind=x: unknown generator 'x'"},
        {"cache.scope=x", "--set cache.scope=x: unknown scope 'x'"},
        {"name=a/b", "--set name=a/b: 'a/b' is not a plain name"},
        {"scheduler.params.foo=1", "--set scheduler.params.foo=1: not a parameter of placement"},
        {"scheduler.params={\"foo\": 1}", "--set scheduler.params={\"foo\": 1}: not a parameter"},
        {"trace.generator.prompt_tok=5000",
         "--set trace.generator.prompt_tok=5000: generator 'kimi' does not read it"},
    };
    const char *t = "{\"trace\": {\"generator\": {\"kind\": \"kimi\"}}}";
    const char *p = tests_write_file(tests_tmpdir(), "blame.json", t, strlen(t));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_err_t err;
        sim_config_defaults(&cfg);
        ck_assert_int_eq(sim_config_load(&cfg, p, &err), 0);
        ck_assert_msg(sim_config_set(&cfg, cases[i].set, &err) == 0, "%s", err.msg);
        ck_assert_int_eq(sim_config_validate(&cfg, "blame.json", &err), -1);
        ck_assert_msg(strstr(err.msg, cases[i].want) == err.msg, "%s: got %s", cases[i].set,
                      err.msg);
    }
    /* A sweep's axis value names the axis; the file's own value the file. */
    sim_err_t err;
    sim_config_defaults(&cfg);
    json_t *v = json_string("lfu2");
    ck_assert_int_eq(
        sim_config_set_json(&cfg, "cache.policy", v, "spec.json: $.axes.cache.policy[1]", &err), 0);
    json_decref(v);
    ck_assert_int_eq(sim_config_set(&cfg, "trace.generator.kind=kimi", &err), 0);
    ck_assert_int_eq(sim_config_validate(&cfg, "base.json", &err), -1);
    char names[512], want[640];
    sim_evict_names(names, sizeof names);
    snprintf(want, sizeof want,
             "spec.json: $.axes.cache.policy[1]: unknown eviction policy 'lfu2' (valid: %s)", names);
    ck_assert_str_eq(err.msg, want);
    ck_assert_int_eq(sim_config_set(&cfg, "cache.policy=lru", &err), 0);
    EXPECT_ERR("own.json", "{\"model\": \"m9\", \"trace\": {\"generator\": {\"kind\": \"kimi\"}}}",
               "own.json: $.model: unknown model 'm9'");
    /* The file loaded over a --set value takes the blame back. */
    sim_config_defaults(&cfg);
    ck_assert_int_eq(sim_config_set(&cfg, "model=m8", &err), 0);
    const char *t2 = "{\"model\": \"m7\", \"trace\": {\"generator\": {\"kind\": \"kimi\"}}}";
    p = tests_write_file(tests_tmpdir(), "later.json", t2, strlen(t2));
    ck_assert_int_eq(sim_config_load(&cfg, p, &err), 0);
    ck_assert_int_eq(sim_config_validate(&cfg, "later.json", &err), -1);
    ck_assert_msg(strstr(err.msg, "later.json: $.model: unknown model 'm7'") == err.msg, "%s",
                  err.msg);
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
    /* the same effective configuration; the plug-ins' parameters, stored as
     * given, are now all explicit */
    json_t *ja = sim_config_to_json(&a), *jb = sim_config_to_json(&b);
    ck_assert(json_equal(ja, jb));
    json_decref(ja);
    json_decref(jb);
    ck_assert_int_eq(b.scheduler.params.n, 3);
    a.system.params = b.system.params;
    a.scheduler.params = b.scheduler.params;
    a.admission.params = b.admission.params;
    /* who set what is not a setting: a's came from --set, b's from a file */
    ck_assert_int_eq(a.n_origins, 3);
    ck_assert_int_eq(b.n_origins, 0);
    a.n_origins = 0;
    memset(a.origins, 0, sizeof a.origins);
    ck_assert_int_eq(memcmp(&a, &b, sizeof a), 0);
}
END_TEST

/* Plug-in parameters: checked against the chosen policy's own table. */
START_TEST(test_plugin_params)
{
    static const char gen[] = "\"trace\": {\"generator\": {\"kind\": \"kimi\"}}";
    char text[1024];
#define CFG(body) (snprintf(text, sizeof text, "{%s, %s}", gen, body), text)
    EXPECT_ERR("p1.json", CFG("\"scheduler\": {\"policy\": \"random\", \"params\": "
                              "{\"slo_reject\": 0}}"),
               "p1.json: $.scheduler.params.slo_reject: not a parameter of placement policy "
               "'random' (its parameters: none)");
    EXPECT_ERR("p2.json", CFG("\"scheduler\": {\"params\": {\"slo_rejct\": 0}}"),
               "(its parameters: kvcache_balancing_threshold, slo_reject, handoff_aware)");
    EXPECT_ERR("p3.json", CFG("\"scheduler\": {\"params\": {\"slo_reject\": 2}}"),
               "p3.json: $.scheduler.params.slo_reject: 2 is out of range [0, 1]");
    EXPECT_ERR("p4.json", CFG("\"scheduler\": {\"params\": {\"slo_reject\": 0.5}}"),
               "$.scheduler.params.slo_reject: expected an integer");
    EXPECT_ERR("p5.json", CFG("\"scheduler\": {\"params\": {\"kvcache_balancing_threshold\": "
                              "\"2\"}}"),
               "$.scheduler.params.kvcache_balancing_threshold: expected a number");
    EXPECT_ERR("p6.json", CFG("\"admission\": {\"policy\": \"predictive\", \"params\": "
                              "{\"predictor\": \"psychic\"}}"),
               "$.admission.params.predictor: unknown value 'psychic' (valid: system, oracle)");
    EXPECT_ERR("p7.json", CFG("\"scheduler\": {\"kvcache_balancing_threshold\": 2}"),
               "p7.json: $.scheduler.kvcache_balancing_threshold: now "
               "scheduler.params.kvcache_balancing_threshold");
    EXPECT_ERR("p8.json", CFG("\"scheduler\": {\"params\": [1]}"),
               "$.scheduler.params: expected an object of placement policy parameters");
    /* good: file, then --set over it; the effective config lists them all */
    sim_err_t err;
    ck_assert_msg(load_text("p9.json", CFG("\"admission\": {\"policy\": \"predictive\", "
                                           "\"params\": {\"threshold\": 0.8}}"), &err) == 0,
                  "%s", err.msg);
    ck_assert_int_eq(sim_config_set(&cfg, "admission.params.horizon_s=5", &err), 0);
    ck_assert_int_eq(sim_config_set(&cfg, "admission.params.threshold=0.7", &err), 0);
    ck_assert_int_eq(sim_config_validate(&cfg, "p9.json", &err), 0);
    json_t *j = sim_config_to_json(&cfg), *p = json_object_get(json_object_get(j, "admission"), "params");
    ck_assert_uint_eq(json_object_size(p), 5);
    ck_assert(json_real_value(json_object_get(p, "threshold")) == 0.7);
    ck_assert(json_real_value(json_object_get(p, "horizon_s")) == 5);
    ck_assert_str_eq(json_string_value(json_object_get(p, "predictor")), "system");
    json_decref(j);
    ck_assert_int_eq(sim_config_set(&cfg, "scheduler.kvcache_balancing_threshold=2", &err), -1);
    ck_assert(strstr(err.msg, "now scheduler.params.kvcache_balancing_threshold") != NULL);
    ck_assert_int_eq(sim_config_set(&cfg, "admission.params={\"horizon_s\": 3}", &err), 0);
    ck_assert_int_eq(cfg.admission.params.n, 1);
    ck_assert_int_eq(sim_config_set(&cfg, "admission.params=[1]", &err), -1);
    ck_assert(strstr(err.msg, "expected an object of admission policy parameters") != NULL);
    /* a whole object replaces the one before */
    json_t *empty = json_object();
    ck_assert_int_eq(sim_config_set_json(&cfg, "admission.params", empty, "x", &err), 0);
    json_decref(empty);
    ck_assert_int_eq(cfg.admission.params.n, 0);
    void *obj;
    ck_assert_int_eq(sim_config_plugin_params(&cfg, "admission.params", "x", &obj, &err), 0);
    ck_assert_ptr_nonnull(obj);
    ck_assert(*(double *)obj == 1); /* threshold, the first field: back to its default */
    sim_free(obj);
#undef CFG
}
END_TEST

/* Serving systems: system.kind picks one, system.params is checked against
 * its own table (chunk_tokens only on vllm_cp, prefill_tokens not on it,
 * none on pd); the colocated systems take no prefill or decode instances
 * and no admission control; the former colocated keys name their new
 * place. */
START_TEST(test_system_params)
{
    static const char base[] = "\"trace\": {\"path\": \"a\"}, \"cluster\": {\"prefill\": 0, "
                               "\"decode\": 0}";
    char text[1024];
#define SYS(body) (snprintf(text, sizeof text, "{%s, %s}", base, body), text)
    sim_err_t err;
    ck_assert_msg(load_text("s0.json", SYS("\"system\": {\"kind\": \"vllm_cp\", \"params\": "
                                           "{\"instances\": 4, \"chunk_tokens\": 256}}"), &err) == 0,
                  "%s", err.msg);
    EXPECT_ERR("s1.json",
               SYS("\"system\": {\"kind\": \"vllm\", \"params\": {\"chunk_tokens\": 256}}"),
               "s1.json: $.system.params.chunk_tokens: not a parameter of system 'vllm' (its "
               "parameters: instances, routing, max_seqs, cpu_per_seq_s, cpu_per_step_s, "
               "prefill_tokens)");
    EXPECT_ERR("s2.json", SYS("\"system\": {\"kind\": \"vllm_cp\", \"params\": "
                              "{\"prefill_tokens\": 8192}}"),
               "s2.json: $.system.params.prefill_tokens: not a parameter of system 'vllm_cp'");
    EXPECT_ERR("s3.json",
               "{\"trace\": {\"path\": \"a\"}, \"system\": {\"params\": {\"instances\": 4}}}",
               "s3.json: $.system.params.instances: not a parameter of system 'pd' (its "
               "parameters: none)");
    EXPECT_ERR("s4.json",
               SYS("\"system\": {\"kind\": \"vllm_pc\", \"params\": {\"routing\": \"random\"}}"),
               "$.system.params.routing: unknown value 'random' (valid: least_loaded, round_robin)");
    EXPECT_ERR("s5.json",
               SYS("\"system\": {\"kind\": \"vllm\"}, \"admission\": {\"policy\": \"early\"}"),
               "s5.json: $.admission.policy: admission control needs prefill and decode instances "
               "(system pd; this config runs vllm)");
    EXPECT_ERR("s6.json", "{\"trace\": {\"path\": \"a\"}, \"cluster\": {\"prefill\": 0}}",
               "s6.json: $.cluster: need at least one prefill and one decode instance (system pd)");
    /* the former keys, in a file and by --set */
    EXPECT_ERR("m1.json", SYS("\"colocated\": {\"system\": \"vllm_pc\"}"),
               "m1.json: $.colocated.system: now system.kind, the serving system");
    EXPECT_ERR("m2.json", "{\"cluster\": {\"colocated\": 4}}",
               "m2.json: $.cluster.colocated: now system.params.instances");
    EXPECT_ERR("m3.json", SYS("\"colocated\": {\"chunk_tokens\": 256}"),
               "m3.json: $.colocated.chunk_tokens: now system.params.chunk_tokens, a parameter of "
               "the chosen system (vllm_cp)");
    EXPECT_ERR("m4.json", SYS("\"colocated\": {\"turbo\": 1}"),
               "m4.json: $.colocated.turbo: unknown key (valid here: none)");
    sim_config_defaults(&cfg);
    ck_assert_int_eq(sim_config_set(&cfg, "colocated.routing=round_robin", &err), -1);
    ck_assert_msg(strstr(err.msg, "--set colocated.routing=round_robin: now system.params.routing, "
                                  "a parameter of the chosen system"), "%s", err.msg);
    ck_assert_int_eq(sim_config_type("system.kind"), SIM_CFG_STRING);
    ck_assert_int_eq(sim_config_type("system.params.max_seqs"), SIM_CFG_PARAM);
    ck_assert_int_eq(sim_config_type("colocated.max_seqs"), SIM_CFG_NONE);
    char names[256];
    sim_system_names(names, sizeof names);
    ck_assert_str_eq(names, "pd, vllm, vllm_pc, vllm_cp");
#undef SYS
}
END_TEST

/* The effective config's shape for the serving system: "system" right
 * after "hardware", holding "kind" and every parameter of that system in
 * its table's order; no "colocated" object and no cluster.colocated. */
START_TEST(test_system_config_shape)
{
    sim_err_t err;
    sim_config_defaults(&cfg);
    const char *sets[] = {"system.kind=vllm_cp", "system.params.instances=2",
                          "system.params.chunk_tokens=1024", "system.params.routing=round_robin",
                          "cluster.prefill=0", "cluster.decode=0"};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        ck_assert_msg(sim_config_set(&cfg, sets[i], &err) == 0, "%s", err.msg);
    json_t *j = sim_config_to_json(&cfg);
    char *text = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(10));
    ck_assert_msg(strstr(text, "\"hardware\":\"a800x8\",\"system\":{\"kind\":\"vllm_cp\",\"params\":"
                               "{\"instances\":2,\"routing\":\"round_robin\",\"max_seqs\":256,"
                               "\"cpu_per_seq_s\":0.00015,\"cpu_per_step_s\":0.0,"
                               "\"chunk_tokens\":1024}},\"cluster\":{\"prefill\":0,\"decode\":0,"
                               "\"inline_prefill\":1,") != NULL,
                  "%s", text);
    ck_assert_ptr_null(json_object_get(j, "colocated"));
    ck_assert_ptr_null(json_object_get(json_object_get(j, "cluster"), "colocated"));
    free(text); /* json_dumps: jansson's allocator */
    json_decref(j);
    sim_config_defaults(&cfg);
    j = sim_config_to_json(&cfg);
    text = json_dumps(json_object_get(j, "system"), JSON_COMPACT);
    ck_assert_str_eq(text, "{\"kind\":\"pd\",\"params\":{}}");
    free(text);
    json_decref(j);
}
END_TEST

/* text of j as writer w writes it (caller frees) */
static char *written(int (*w)(FILE *, const json_t *), const json_t *j)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(w(f, j), 0);
    fclose(f);
    return buf;
}

/* config.json keeps every double exactly, and is byte for byte what the
 * 10-digit writer gives wherever 10 digits suffice. */
START_TEST(test_exact_config_json)
{
    static const char *const exps[] = {"experiments/default.json", "experiments/conversation_8p8d.json",
                                       "experiments/fast25/capacity_conversation_vllm.json",
                                       "experiments/arxiv/table3_overload.json"};
    sim_err_t err;
    for (size_t i = 0; i < sizeof exps / sizeof exps[0]; i++) {
        sim_config_defaults(&cfg);
        ck_assert_msg(sim_config_load(&cfg, exps[i], &err) == 0, "%s", err.msg);
        json_t *j = sim_config_to_json(&cfg);
        char *a = written(sim_json_write, j), *b = written(sim_json_write_exact, j);
        ck_assert_str_eq(a, b);
        free(a), free(b);
        json_decref(j);
    }
    json_t *j = json_pack("{s:f, s:f, s:f, s:f, s:{}}", "a", 0.1 + 0.2, "b", 1e300, "c", 1e-7,
                          "d", 2.0, "e");
    char *t = written(sim_json_write_exact, j);
    ck_assert_str_eq(t, "{\n  \"a\": 0.30000000000000004,\n  \"b\": 1e300,\n  \"c\": 1e-7,\n"
                        "  \"d\": 2.0,\n  \"e\": {}\n}\n");
    json_t *back = json_loads(t, 0, NULL);
    ck_assert(json_equal(j, back));
    free(t);
    json_decref(back);
    json_decref(j);
}
END_TEST

/* Physical quantities: plausible ranges with a sentinel outside them
 * (-1: the hardware's; 0: off), enforced where they enter (file, --set)
 * and again by validate for a struct set directly. Before: nic_gbps 1e-9
 * overflowed ns arithmetic, metrics.interval_s 1e-9 wrote GBs and 1e-10
 * silently turned the time series off. */
START_TEST(test_physical_ranges)
{
    static const char tr[] = "\"trace\": {\"path\": \"a\"}";
    char text[512];
#define WITH(body) (snprintf(text, sizeof text, "{%s, %s}", tr, body), text)
    EXPECT_ERR("n1.json", WITH("\"network\": {\"nic_gbps\": 1e-9}"),
               "n1.json: $.network.nic_gbps: 1e-09 is out of range [0.01, 100000] (or exactly -1)");
    EXPECT_ERR("n2.json", WITH("\"network\": {\"nic_gbps\": 2e5}"),
               "n2.json: $.network.nic_gbps: 200000 is out of range");
    EXPECT_ERR("n3.json", WITH("\"network\": {\"nic_gbps\": -0.5}"),
               "n3.json: $.network.nic_gbps: -0.5 is out of range");
    EXPECT_ERR("m1.json", WITH("\"metrics\": {\"interval_s\": 1e-9}"),
               "m1.json: $.metrics.interval_s: 1e-09 is out of range [0.001, 1e+06] (or exactly 0)");
    EXPECT_ERR("m2.json", WITH("\"metrics\": {\"interval_s\": 1e-10}"),
               "m2.json: $.metrics.interval_s: 1e-10 is out of range");
    EXPECT_ERR("d1.json", WITH("\"cache\": {\"dram_load_gbs\": 1e-300}"),
               "d1.json: $.cache.dram_load_gbs: 1e-300 is out of range [0.01, 100000] (or exactly -1)");
    EXPECT_ERR("s1.json", WITH("\"slo\": {\"ttft_s\": 1e-6}"),
               "s1.json: $.slo.ttft_s: 1e-06 is out of range [0.001, 100000]");
    sim_err_t err;
    static const char *const good[] = {
        "\"network\": {\"nic_gbps\": -1}", "\"network\": {\"nic_gbps\": 0.01}",
        "\"network\": {\"nic_gbps\": 1e5}", "\"metrics\": {\"interval_s\": 0}",
        "\"metrics\": {\"interval_s\": 0.001}", "\"cache\": {\"ssd_read_gbs\": -1}",
        "\"cache\": {\"ssd_read_gbs\": 0.5}", "\"slo\": {\"tbt_s\": 0.001}",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        ck_assert_msg(load_text("g.json", WITH(good[i]), &err) == 0, "%s: %s", good[i], err.msg);
#undef WITH
    /* --set, the same ranges */
    sim_config_defaults(&cfg);
    ck_assert_int_eq(sim_config_set(&cfg, "network.nic_gbps=1e-9", &err), -1);
    ck_assert_str_eq(err.msg, "--set network.nic_gbps=1e-9: 1e-09 is out of range [0.01, 100000] "
                              "(or exactly -1)");
    ck_assert_int_eq(sim_config_set(&cfg, "metrics.interval_s=0", &err), 0);
    ck_assert_int_eq(sim_config_set(&cfg, "metrics.interval_s=0.0005", &err), -1);
    /* set directly, caught by validate */
    ck_assert_int_eq(sim_config_set(&cfg, "trace.path=a", &err), 0);
    ck_assert_int_eq(sim_config_validate(&cfg, "v.json", &err), 0);
    cfg.network.nic_gbps = 1e-9;
    ck_assert_int_eq(sim_config_validate(&cfg, "v.json", &err), -1);
    ck_assert_str_eq(err.msg, "v.json: $.network.nic_gbps: 1e-09 is out of range [0.01, 100000] "
                              "(or exactly -1)");
    cfg.network.nic_gbps = -1;
    cfg.metrics.interval_s = 1e-10;
    ck_assert_int_eq(sim_config_validate(&cfg, "v.json", &err), -1);
    ck_assert_msg(strstr(err.msg, "v.json: $.metrics.interval_s: 1e-10 is out of range"), "%s",
                  err.msg);
    cfg.metrics.interval_s = 15;
    cfg.cluster.decode = 5000;
    ck_assert_int_eq(sim_config_validate(&cfg, "v.json", &err), -1);
    ck_assert_str_eq(err.msg, "v.json: $.cluster.decode: 5000 is out of range [0, 4096]");
}
END_TEST

/* The one checked seconds -> ns conversion: rounds to the nearest ns,
 * refuses what is not a duration or would overflow int64 arithmetic. */
START_TEST(test_s_to_ns)
{
    sim_time_t ns = 7;
    ck_assert_int_eq(sim_s_to_ns(0, &ns), 0);
    ck_assert_int_eq(ns, 0);
    ck_assert_int_eq(sim_s_to_ns(0.05, &ns), 0);
    ck_assert_int_eq(ns, 50000000);
    ck_assert_int_eq(sim_s_to_ns(1.5e-9, &ns), 0);
    ck_assert_int_eq(ns, 2);
    ck_assert_int_eq(sim_s_to_ns(1e6, &ns), 0); /* the longest config duration */
    ck_assert_int_eq(ns, INT64_C(1000000000000000));
    ck_assert_int_eq(sim_s_to_ns(4.6e9, &ns), 0);
    ck_assert(ns > 0 && ns <= SIM_MAX_DURATION_NS);
    ns = 7;
    ck_assert_int_eq(sim_s_to_ns(4.7e9, &ns), -1);
    ck_assert_int_eq(sim_s_to_ns(1e300, &ns), -1);
    ck_assert_int_eq(sim_s_to_ns(-1e-9, &ns), -1);
    ck_assert_int_eq(sim_s_to_ns(NAN, &ns), -1);
    ck_assert_int_eq(sim_s_to_ns(INFINITY, &ns), -1);
    ck_assert_int_eq(ns, 7); /* untouched on failure */
}
END_TEST

/* A dotted key in a file is not the nested path it spells: a located
 * error with the nested form to write. */
START_TEST(test_dotted_key)
{
    EXPECT_ERR("flat.json", "{\"cluster.prefill\": 2, \"trace\": {\"path\": \"a\"}}",
               "flat.json: $.cluster.prefill: the key \"cluster.prefill\" holds a '.': a config "
               "file nests it, {\"cluster\": {\"prefill\": ...}} (dotted paths are for --set)");
    EXPECT_ERR("flat2.json", "{\"trace\": {\"generator.kind\": \"kimi\"}}",
               "flat2.json: $.trace.generator.kind: the key \"generator.kind\" holds a '.': a "
               "config file nests it, {\"generator\": {\"kind\": ...}}");
    EXPECT_ERR("flat3.json", "{\"a.b.\": 1}", "flat3.json: $.a.b.: the key \"a.b.\" holds a '.'");
    /* --set takes dotted paths, as before */
    sim_err_t err;
    sim_config_defaults(&cfg);
    ck_assert_int_eq(sim_config_set(&cfg, "cluster.prefill=2", &err), 0);
    ck_assert_int_eq(cfg.cluster.prefill, 2);
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
    tcase_add_test(tc, test_set_blamed);
    tcase_add_test(tc, test_expand);
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_plugin_params);
    tcase_add_test(tc, test_exact_config_json);
    tcase_add_test(tc, test_system_params);
    tcase_add_test(tc, test_system_config_shape);
    tcase_add_test(tc, test_physical_ranges);
    tcase_add_test(tc, test_s_to_ns);
    tcase_add_test(tc, test_dotted_key);
    suite_add_tcase(s, tc);
    return s;
}
