/* tests/test_admission.c: overload handling: on a hand-built overload,
 * early rejection turns away before prefill the requests the baseline
 * rejects after prefill (and wastes); the predictive forecast of the
 * decode batch matches the replay when decode times are uniform; every
 * request ends exactly once under every policy. */
#include "tests/tests.h"

#include <stdlib.h>
#include <string.h>

#include "models/cost.h"
#include "sim/cluster_int.h"
#include "sim/config.h"
#include "sim/run.h"

static sim_config_t cfg;

/* Eight 2,000-token requests 2 s apart, 1P + 1D, each decoding 600
 * tokens (about 16 s), and a TBT SLO (20 ms) below one decode iteration
 * (26 ms): the decode side is always over its SLO once busy. */
static const int eight[][3] = {{0, 2000, 600},     {2000, 2000, 600},  {4000, 2000, 600},
                               {6000, 2000, 600},  {8000, 2000, 600},  {10000, 2000, 600},
                               {12000, 2000, 600}, {14000, 2000, 600}};

static json_t *run_policy(const char *policy, char **csv)
{
    sim_config_defaults(&cfg);
    snprintf(cfg.trace.path, sizeof cfg.trace.path, "%s", tests_trace_of("over.jsonl", eight, 8));
    cfg.cluster.prefill = cfg.cluster.decode = 1;
    cfg.scheduler.slo_reject = 0;
    cfg.slo.tbt_s = 0.02;
    snprintf(cfg.admission.policy, sizeof cfg.admission.policy, "%s", policy);
    char out[512];
    snprintf(out, sizeof out, "%s/adm_%s", tests_tmpdir(), policy);
    sim_run_opts_t o = {.config_src = "over.json", .out_dir = out, .data_dir = "."};
    sim_run_result_t res;
    sim_err_t err;
    ck_assert_msg(sim_run(&cfg, &o, &res, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(res.counts.total, 8);
    ck_assert_int_eq(res.counts.completed + res.counts.rejected_arrival + res.counts.rejected_prefill, 8);
    char p[600];
    snprintf(p, sizeof p, "%s/requests.csv", out);
    *csv = tests_read_file(p, NULL);
    return res.summary;
}

/* status of request id in a requests.csv */
static int status_of(const char *csv, int id)
{
    char key[32];
    snprintf(key, sizeof key, "\n%d,", id);
    const char *row = strstr(csv, key);
    ck_assert_ptr_nonnull(row);
    const char *st = row + 1;
    for (int k = 0; k < 4; k++)
        st = strchr(st, ',') + 1;
    return strncmp(st, "completed", 9) == 0 ? 0 : strncmp(st, "rejected_at_arrival", 19) == 0 ? 1 : 2;
}

START_TEST(test_early_rejects_what_baseline_wastes)
{
    char *cb, *ce, *cn;
    json_t *sb = run_policy("baseline", &cb), *se = run_policy("early", &ce);
    json_t *sn = run_policy("none", &cn);
    int late = 0, early_only = 0;
    for (int id = 0; id < 8; id++) {
        int b = status_of(cb, id), e = status_of(ce, id);
        ck_assert_int_ne(b, 1);       /* the baseline never rejects up front here */
        ck_assert_int_ne(e, 2);       /* early never rejects after prefill */
        if (b == 2) {
            late++;
            /* Each one the baseline prefilled for nothing, early turned
             * away at arrival, or served because decode was idle then. */
            early_only += e == 1;
        }
        ck_assert_int_eq(status_of(cn, id), 0);
    }
    ck_assert_int_eq(late, 8);
    ck_assert_int_ge(early_only, 6);
    ck_assert_double_gt(json_number_value(json_object_get(json_object_get(sb, "prefill"), "wasted_s")), 0.3);
    ck_assert_double_eq(json_number_value(json_object_get(json_object_get(se, "prefill"), "wasted_s")), 0);
    json_decref(sb);
    json_decref(se);
    json_decref(sn);
    free(cb);
    free(ce);
    free(cn);
}
END_TEST

/* Decode iterations of exactly 30 ms (a calibration with no batch or
 * context term): every request decodes for (output - 1) x 30 ms, the
 * uniform t_d the system-level forecast assumes. Forecast from 9 s ahead
 * of the arrival of request 4 and replay to that time: the batch matches. */
START_TEST(test_forecast_matches_replay)
{
    const char *d = tests_tmpdir();
    const char *calib =
        "{\"hardware\": \"a800x8\", \"models\": [\"llama2-70b\"], \"source\": \"test\",\n"
        " \"prefill\": {\"coef\": [0.1, 1e-4, 0]}, \"decode\": {\"coef\": [0.03, 0, 0]}}\n";
    const char *cp = tests_write_file(d, "flat.json", calib, strlen(calib));
    static const int reqs[][3] = {{0, 1000, 301},     {3000, 1000, 301}, {6000, 1000, 301},
                                  {9000, 1000, 301},  {12000, 1000, 301}, {13000, 1000, 301},
                                  {14000, 1000, 301}, {15000, 1000, 301}};
    const char *tp = tests_trace_of("flat.jsonl", reqs, 8);
    sim_config_defaults(&cfg);
    snprintf(cfg.trace.path, sizeof cfg.trace.path, "%s", tp);
    snprintf(cfg.cost.calibration, sizeof cfg.cost.calibration, "%s", cp);
    cfg.cluster.prefill = cfg.cluster.decode = 1;
    cfg.cluster.inline_prefill = 0;
    cfg.metrics.interval_s = 0;
    /* Build the run by hand to stop it midway. */
    model_cost_args_t ca = {.hw = model_hw_find("a800x8"), .llm = model_llm_find("llama2-70b"),
                            .calibration = cp, .data_dir = "."};
    sim_err_t err;
    model_cost_t *cost = model_cost_new("fitted", &ca, &err);
    ck_assert_msg(cost != NULL, "%s", err.msg);
    sim_net_profile_t prof;
    ck_assert_int_eq(sim_net_profile_get("rdma", &prof), 0);
    sim_metrics_t *m = sim_metrics_new(NULL, 30, 0.1);
    sim_cluster_args_t a = {
        .hw = ca.hw, .llm = ca.llm, .cost = cost, .place = &sim_place_load_balance,
        .admit = &sim_admit_none, .n_prefill = 1, .n_decode = 1, .decode_max_batch = 256,
        .vram_reserve_frac = 0.1, .prefill_group = 1, .prefill_chunk_tok = 8192,
        .net_profile = &prof, .nic_bytes_per_s = 100e9, .slo_ttft_ns = 30 * SIM_NS_PER_S,
        .slo_tbt_ns = SIM_NS_PER_S / 10, .dram_load_bytes_per_s = 128e9,
    };
    sim_cluster_t *c = sim_cluster_new(&a, m, &err);
    ck_assert_ptr_nonnull(c);
    trace_open_args_t ta = {.path = tp, .format = "auto", .speed = 1};
    trace_t *t = trace_open(&ta, &err);
    ck_assert_ptr_nonnull(t);
    sim_cluster_attach_trace(c, t);
    while (sim_evq_now(c->evq) < 12500 * SIM_NS_PER_MS)
        ck_assert_int_eq(sim_evq_step(c->evq), 1);
    /* Every request decodes 300 iterations of 30 ms. */
    sim_time_t t_d = 300 * 30 * SIM_NS_PER_MS;
    for (int ahead = 1; ahead <= 9; ahead += 2) {
        /* from a fresh copy of the state: re-run to 12.5 s each time is
         * not needed, the forecast does not change the state */
        sim_time_t at = sim_evq_now(c->evq) + ahead * SIM_NS_PER_S;
        int64_t n, ctx, rsv;
        sim_cluster_forecast_decode(c, at, t_d, 0, &n, &ctx, &rsv);
        ck_assert_int_eq(rsv, n * 1301);
        /* Replay: how many of the requests known at 12.5 s decode at that
         * time? Each joins right after its prefill and leaves 9 s later.
         * (Later arrivals are unknown to a forecast made now.) */
        int64_t expect = 0;
        for (int i = 0; i < 8 && reqs[i][0] <= 12500; i++) {
            double join = reqs[i][0] / 1000.0 + 0.1 + 1000 * 1e-4; /* prefill */
            double when = (double)at / 1e9;
            expect += join + 0.05 <= when && when < join + 9.0 - 0.05;
        }
        ck_assert_msg(n == expect, "%d s ahead: forecast %lld, replay %lld", ahead, (long long)n,
                      (long long)expect);
    }
    sim_cluster_free(c);
    trace_close(t);
    sim_metrics_free(m);
    model_cost_free(cost);
}
END_TEST

/* Conservation with every policy on an overloaded generated workload. */
START_TEST(test_conservation_all_policies)
{
    const char *pols[] = {"none", "baseline", "early", "predictive"};
    for (int i = 0; i < 4; i++) {
        sim_err_t err;
        sim_config_defaults(&cfg);
        ck_assert_int_eq(sim_config_set(&cfg, "trace.generator.kind=kimi", &err), 0);
        cfg.trace.generator.requests = 600;
        cfg.trace.speed = 6;
        cfg.cluster.prefill = 2;
        cfg.cluster.decode = 1;
        cfg.scheduler.slo_reject = 0;
        snprintf(cfg.admission.policy, sizeof cfg.admission.policy, "%s", pols[i]);
        sim_run_opts_t o = {.config_src = "cons.json", .data_dir = "."};
        sim_run_result_t res;
        ck_assert_msg(sim_run(&cfg, &o, &res, &err) == 0, "%s", err.msg);
        ck_assert_int_eq(res.counts.total, 600);
        ck_assert_int_eq(res.counts.completed + res.counts.rejected_arrival +
                             res.counts.rejected_prefill, 600);
        if (i >= 2)
            ck_assert_int_eq(res.counts.rejected_prefill, 0);
        if (i == 0)
            ck_assert_int_eq(res.counts.completed, 600);
        json_decref(res.summary);
    }
}
END_TEST

Suite *test_admission_suite(void)
{
    Suite *s = suite_create("admission");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_early_rejects_what_baseline_wastes);
    tcase_add_test(tc, test_forecast_matches_replay);
    tcase_add_test(tc, test_conservation_all_policies);
    suite_add_tcase(s, tc);
    return s;
}
