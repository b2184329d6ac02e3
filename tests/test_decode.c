/* tests/test_decode.c: decode iterations between batch changes run as one
 * event with the results of one event per iteration
 * (debug.decode_step, sim/serve/decode_step.c), also where events tie to the nanosecond:
 * a flat 30 ms iteration, inlined prefills of exactly 200 ms, arrivals on
 * whole 10 ms and time-series rows every 60 ms put iteration ends of both
 * instances, joins and samples on the same instants. Samples of each
 * instance's state as readers see it, on those instants, match too. */
#include "tests/tests.h"

#include <stdlib.h>
#include <string.h>

#include "models/cost.h"
#include "sim/serve/pd_int.h"
#include "sim/exp/config.h"
#include "sim/exp/run.h"

/* 1,000-token prompts (inlined) and a few of 9,000 (prefilled on the
 * prefill node, their KV sent), arriving on whole 10 ms. */
static const int reqs[][3] = {
    {0, 1000, 40},    {0, 1000, 7},     {10, 1000, 12},   {20, 9000, 30},   {30, 1000, 3},
    {60, 1000, 25},   {90, 1000, 2},    {120, 1000, 18},  {150, 9000, 9},   {180, 1000, 33},
    {200, 1000, 5},   {210, 1000, 14},  {240, 1000, 21},  {300, 1000, 4},   {330, 9000, 27},
    {360, 1000, 8},   {390, 1000, 16},  {420, 1000, 6},   {450, 1000, 30},  {480, 1000, 11},
    {600, 1000, 9},   {630, 1000, 19},  {660, 9000, 5},   {690, 1000, 26},  {720, 1000, 3},
    {900, 1000, 13},  {930, 1000, 22},  {960, 1000, 7},   {990, 1000, 35},  {1020, 1000, 10},
    {1200, 1000, 15}, {1230, 9000, 8},  {1260, 1000, 28}, {1290, 1000, 2},  {1320, 1000, 17},
};

/* Longer outputs: spans of hundreds of iterations, worked out a piece at
 * a time, and requests whose longest tenth spans several runs. */
static const int long_reqs[][3] = {
    {0, 1000, 700},   {0, 1000, 300},   {10, 1000, 450},  {20, 9000, 260},  {30, 1000, 90},
    {400, 1000, 520}, {900, 1000, 140}, {1500, 1000, 610}, {2400, 9000, 330}, {3000, 1000, 200},
    {3020, 1000, 380}, {5000, 1000, 129}, {5010, 1000, 257}, {9000, 1000, 640}, {12000, 1000, 75},
};

/* The trace and the decode coefficients tie_run uses. */
static const int (*tie_reqs)[3] = reqs;
static int tie_n = (int)(sizeof reqs / sizeof reqs[0]);
static const char *tie_decode = "[0.03, 0, 0]";

typedef struct tie_out {
    char *csv, *ts;
    json_t *summary;
    uint64_t events;
} tie_out_t;

static void tie_run(const char *name, int decode_step, const char *const *set, tie_out_t *o)
{
    char calib[512];
    snprintf(calib, sizeof calib,
             "{\"hardware\": \"a800x8\", \"models\": [\"llama2-70b\"], \"source\": \"test\",\n"
             " \"prefill\": {\"coef\": [0.1, 1e-4, 0]}, \"decode\": {\"coef\": %s}}\n",
             tie_decode);
    const char *cp = tests_write_file(tests_tmpdir(), "flat_decode.json", calib, strlen(calib));
    static sim_config_t cfg;
    sim_config_defaults(&cfg);
    int n = tie_n;
    snprintf(cfg.trace.path, sizeof cfg.trace.path, "%s", tests_trace_of("ties.jsonl", tie_reqs, n));
    snprintf(cfg.cost.calibration, sizeof cfg.cost.calibration, "%s", cp);
    cfg.cluster.prefill = 1;
    cfg.cluster.decode = 2;
    tests_cfg_set(&cfg, "cluster.inline_stall_s=10");
    tests_cfg_set(&cfg, "scheduler.schedule_s=0.01");
    tests_cfg_set(&cfg, "scheduler.policy=round_robin");
    tests_cfg_set(&cfg, "metrics.interval_s=0.06");
    for (; *set; set++)
        tests_cfg_set(&cfg, *set);
    char out[512], p[600];
    snprintf(out, sizeof out, "%s/ties_%s", tests_tmpdir(), name);
    sim_run_opts_t ro = {.config_src = "ties.json", .out_dir = out, .data_dir = "."};
    sim_run_result_t res;
    sim_err_t err;
    cfg.debug.decode_step = decode_step;
    int rc = sim_run(&cfg, &ro, &res, &err);
    ck_assert_msg(rc == 0, "%s", err.msg);
    ck_assert_int_eq(res.counts.total, n);
    snprintf(p, sizeof p, "%s/requests.csv", out);
    o->csv = tests_read_file(p, NULL);
    snprintf(p, sizeof p, "%s/timeseries.csv", out);
    o->ts = tests_read_file(p, NULL);
    json_t *sim = json_object_get(res.summary, "sim");
    json_object_del(sim, "events");
    json_object_del(sim, "wall_s");
    o->summary = res.summary;
    o->events = res.events;
}

static void tie_free(tie_out_t *o)
{
    free(o->csv);
    free(o->ts);
    json_decref(o->summary);
}

/* Run sets[] stepped and in spans on the trace and decode coefficients
 * set above; the outputs must match, with fewer events in spans. */
static void spans_match_steps(const char *tag, const char *const (*sets)[5], int n_sets)
{
    for (int i = 0; i < n_sets; i++) {
        char a[64], b[64];
        snprintf(a, sizeof a, "%s%d_step", tag, i);
        snprintf(b, sizeof b, "%s%d_span", tag, i);
        tie_out_t s, t;
        tie_run(a, 1, sets[i], &s);
        tie_run(b, 0, sets[i], &t);
        ck_assert_msg(!strcmp(s.csv, t.csv), "%s: requests.csv differs", sets[i][0]);
        ck_assert_msg(!strcmp(s.ts, t.ts), "%s: timeseries.csv differs", sets[i][0]);
        ck_assert_msg(json_equal(s.summary, t.summary), "%s: summary.json differs", sets[i][0]);
        ck_assert_uint_lt(t.events, s.events);
        tie_free(&s);
        tie_free(&t);
    }
}

START_TEST(test_spans_match_steps_on_ties)
{
    /* Admission reads decode state mid-span: the load now (early), the
     * forecast (predictive; its oracle counts iterations left). A TBT SLO
     * of 30 ms makes a busy instance's load 1, so the decisions turn on it. */
    static const char *const sets[][5] = {
        {"admission.policy=none", NULL},
        {"admission.policy=early", "slo.tbt_s=0.03", "admission.params.threshold=0.9", NULL},
        {"admission.policy=predictive", "slo.tbt_s=0.03", "admission.params.threshold=0.9", NULL},
        {"admission.policy=predictive", "slo.tbt_s=0.03", "admission.params.threshold=0.9",
         "admission.params.predictor=oracle", NULL},
    };
    tie_reqs = reqs;
    tie_n = (int)(sizeof reqs / sizeof reqs[0]);
    tie_decode = "[0.03, 0, 0]";
    spans_match_steps("", sets, (int)(sizeof sets / sizeof sets[0]));
}
END_TEST

/* Spans of hundreds of iterations: their end times worked out a piece at
 * a time while arrivals, inlined prefills and samples meet them, flat
 * (ties) and with a time that grows with the context (runs of intervals
 * across TBT buckets, the longest tenth taken from several). */
START_TEST(test_long_spans_match_steps)
{
    static const char *const sets[][5] = {
        {"admission.policy=none", NULL},
        {"admission.policy=predictive", "slo.tbt_s=0.03", "admission.params.threshold=0.9",
         "admission.params.predictor=oracle", NULL},
    };
    static const char *const coefs[] = {"[0.03, 0, 0]", "[0.02, 1e-4, 3e-7]"};
    tie_reqs = long_reqs;
    tie_n = (int)(sizeof long_reqs / sizeof long_reqs[0]);
    for (int k = 0; k < 2; k++) {
        tie_decode = coefs[k];
        spans_match_steps(k ? "long_grow" : "long_flat", sets, (int)(sizeof sets / sizeof sets[0]));
    }
}
END_TEST

/* ---- the state readers see mid-span ---- */

enum { PROBE_CAP = 1 << 15 };

typedef struct probe_log {
    sim_cluster_t *c;
    int64_t v[PROBE_CAP];
    int n;
} probe_log_t;

/* Every arg ms: each instance's iterations and context as of now. Every
 * 10 ms comes after the event of an iteration (30 ms) ending at the same
 * instant, scheduled before it; every 60 ms, before. */
static void probe(void *ctx, void *obj, int64_t arg)
{
    probe_log_t *l = obj;
    (void)ctx;
    for (int j = 0; j < 2 && l->n + 2 <= PROBE_CAP; j++) {
        l->v[l->n++] = sim_decode_iter_now(l->c, j);
        l->v[l->n++] = sim_decode_ctx_now(l->c, j);
    }
    if (l->c->live)
        sim_evq_after(l->c->evq, arg * SIM_NS_PER_MS, probe, l, arg);
}

static void probe_run(int decode_step, probe_log_t *l)
{
    const char *calib =
        "{\"hardware\": \"a800x8\", \"models\": [\"llama2-70b\"], \"source\": \"test\",\n"
        " \"prefill\": {\"coef\": [0.1, 1e-4, 0]}, \"decode\": {\"coef\": [0.03, 0, 0]}}\n";
    const char *cp = tests_write_file(tests_tmpdir(), "flat_probe.json", calib, strlen(calib));
    model_cost_args_t ca = {.hw = model_hw_find("a800x8"), .llm = model_llm_find("llama2-70b"),
                            .calibration = cp, .data_dir = "."};
    sim_err_t err;
    model_cost_t *cost = model_cost_new("fitted", &ca, &err);
    ck_assert_msg(cost != NULL, "%s", err.msg);
    sim_net_profile_t prof;
    ck_assert_int_eq(sim_net_profile_get("rdma", &prof), 0);
    sim_metrics_t *m = sim_metrics_new(NULL, 30, 0.1);
    sim_cluster_args_t a = {
        .hw = ca.hw, .llm = ca.llm, .cost = cost, .system = &sim_system_pd,
        .place = &sim_place_load_balance, .admit = &sim_admit_none,
        .pd = {.n_prefill = 1, .n_decode = 2, .decode_max_batch = 256, .prefill_group = 1,
               .prefill_chunk_tok = 8192, .inline_prefill = 1, .inline_stall_ns = 10 * SIM_NS_PER_S},
        .pool = {.dram_load_bytes_per_s = 128e9},
        .net = {.profile = &prof, .nic_bytes_per_s = 100e9},
        .vram_reserve_frac = 0.1, .slo_ttft_ns = 30 * SIM_NS_PER_S, .slo_tbt_ns = SIM_NS_PER_S / 10,
        .debug = {.decode_step = decode_step},
    };
    sim_cluster_t *c = sim_cluster_new(&a, m, &err);
    ck_assert_ptr_nonnull(c);
    int n = (int)(sizeof reqs / sizeof reqs[0]);
    trace_open_args_t ta = {.path = tests_trace_of("probe.jsonl", reqs, n), .format = "auto", .speed = 1};
    trace_t *t = trace_open(&ta, &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    sim_cluster_attach_trace(c, t);
    l->c = c;
    l->n = 0;
    sim_evq_after(c->evq, 0, probe, l, 10);
    sim_evq_after(c->evq, 0, probe, l, 60);
    ck_assert_int_eq(sim_cluster_run(c, NULL, NULL, &err), 0);
    sim_cluster_free(c);
    trace_close(t);
    sim_metrics_free(m);
    model_cost_free(cost);
}

START_TEST(test_readers_see_steps)
{
    static probe_log_t s, t;
    probe_run(1, &s);
    probe_run(0, &t);
    ck_assert_int_gt(s.n, 100);
    ck_assert_int_lt(s.n, PROBE_CAP);
    ck_assert_int_eq(s.n, t.n);
    for (int i = 0; i < s.n; i++)
        ck_assert_msg(s.v[i] == t.v[i], "sample %d (instance %d, %s): %lld stepped, %lld in spans",
                      i / 4, i / 2 % 2, i % 2 ? "context" : "iterations", (long long)s.v[i],
                      (long long)t.v[i]);
}
END_TEST

Suite *test_decode_suite(void)
{
    Suite *s = suite_create("decode");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_spans_match_steps_on_ties);
    tcase_add_test(tc, test_long_spans_match_steps);
    tcase_add_test(tc, test_readers_see_steps);
    suite_add_tcase(s, tc);
    return s;
}
