/* tests/test_admission.c: overload handling: on a hand-built overload,
 * early rejection turns away before prefill the requests the baseline
 * rejects after prefill (and wastes); the predictive forecast of the
 * decode batch matches the replay when decode times are uniform and keeps
 * requests that outlive the mean decode time; the decode load now counts
 * KV on its way and VRAM; every request ends exactly once under every
 * admission policy, and under every placement and eviction policy of the
 * registries. */
#include "tests/tests.h"

#include <stdlib.h>
#include <string.h>

#include "models/cost.h"
#include "sim/serve/pd_int.h"
#include "sim/exp/config.h"
#include "sim/exp/run.h"
#include "sim/pool/evict.h"
#include "sim/serve/place.h"

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
    tests_cfg_set(&cfg, "scheduler.params.slo_reject=0");
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

/* A hand-built 1P + 1D cluster (a800x8, llama2-70b) with flat costs:
 * prefill 0.1 s + 0.1 ms per token, every decode iteration exactly 30 ms
 * (no batch or context term); TBT SLO 0.1 s; no inlining, no Conductor
 * scheduling time; fed from a trace of reqs, nothing run yet. White-box:
 * tests step its queue (sim/serve/cluster_int.h) to stop it midway. */
typedef struct flat {
    model_cost_t *cost;
    sim_metrics_t *m;
    sim_net_profile_t prof;
    trace_t *t;
    sim_cluster_t *c;
} flat_t;

static void flat_new(flat_t *f, const char *name, const int (*reqs)[3], int n)
{
    const char *calib =
        "{\"hardware\": \"a800x8\", \"models\": [\"llama2-70b\"], \"source\": \"test\",\n"
        " \"prefill\": {\"coef\": [0.1, 1e-4, 0]}, \"decode\": {\"coef\": [0.03, 0, 0]}}\n";
    const char *cp = tests_write_file(tests_tmpdir(), "flat.json", calib, strlen(calib));
    model_cost_args_t ca = {.hw = model_hw_find("a800x8"), .llm = model_llm_find("llama2-70b"),
                            .calibration = cp, .data_dir = "."};
    sim_err_t err;
    f->cost = model_cost_new("fitted", &ca, &err);
    ck_assert_msg(f->cost != NULL, "%s", err.msg);
    ck_assert_int_eq(sim_net_profile_get("rdma", &f->prof), 0);
    f->m = sim_metrics_new(NULL, 30, 0.1);
    sim_cluster_args_t a = {
        .hw = ca.hw, .llm = ca.llm, .cost = f->cost, .system = &sim_system_pd,
        .place = &sim_place_load_balance, .admit = &sim_admit_none,
        .pd = {.n_prefill = 1, .n_decode = 1, .decode_max_batch = 256, .prefill_group = 1,
               .prefill_chunk_tok = 8192},
        .pool = {.dram_load_bytes_per_s = 128e9},
        .net = {.profile = &f->prof, .nic_bytes_per_s = 100e9},
        .vram_reserve_frac = 0.1, .slo_ttft_ns = 30 * SIM_NS_PER_S, .slo_tbt_ns = SIM_NS_PER_S / 10,
    };
    f->c = sim_cluster_new(&a, f->m, &err);
    ck_assert_ptr_nonnull(f->c);
    trace_open_args_t ta = {.path = tests_trace_of(name, reqs, n), .format = "auto", .speed = 1};
    f->t = trace_open(&ta, &err);
    ck_assert_msg(f->t != NULL, "%s", err.msg);
    sim_cluster_attach_trace(f->c, f->t);
}

static void flat_mark(void *ctx, void *obj, int64_t arg)
{
    (void)ctx;
    (void)obj;
    (void)arg;
}

/* Run events until simulated time reaches at_ns (an event marks it: decode
 * iterations between batch changes are no events of their own). */
static void flat_run_to(flat_t *f, sim_time_t at_ns)
{
    sim_evq_at(f->c->evq, at_ns, flat_mark, NULL, 0);
    while (sim_evq_now(f->c->evq) < at_ns)
        ck_assert_int_eq(sim_evq_step(f->c->evq), 1);
}

static void flat_free(flat_t *f)
{
    sim_cluster_free(f->c);
    trace_close(f->t);
    sim_metrics_free(f->m);
    model_cost_free(f->cost);
}

/* Every request decodes (output - 1) x 30 ms, the uniform t_d the
 * system-level forecast assumes. Forecast from 9 s ahead of the arrival
 * of request 4 and replay to that time: the batch matches. */
START_TEST(test_forecast_matches_replay)
{
    static const int reqs[][3] = {{0, 1000, 301},     {3000, 1000, 301}, {6000, 1000, 301},
                                  {9000, 1000, 301},  {12000, 1000, 301}, {13000, 1000, 301},
                                  {14000, 1000, 301}, {15000, 1000, 301}};
    flat_t f;
    flat_new(&f, "flat.jsonl", reqs, 8);
    flat_run_to(&f, 12500 * SIM_NS_PER_MS);
    /* Every request decodes 300 iterations of 30 ms. */
    sim_time_t t_d = 300 * 30 * SIM_NS_PER_MS;
    for (int ahead = 1; ahead <= 9; ahead += 2) {
        /* the forecast does not change the state: one run serves all */
        sim_time_t at = sim_evq_now(f.c->evq) + ahead * SIM_NS_PER_S;
        int64_t n, ctx, rsv;
        sim_admit_forecast_decode(f.c, at, t_d, 1, 0, &n, &ctx, &rsv);
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
    flat_free(&f);
}
END_TEST

/* early judges decode on its load as it is, KV on its way included: once
 * a request's prefill has started, its KV streams to decode and counts
 * there (one request, 30 ms / 0.1 s = 0.3) though no batch runs yet.
 * Before, early used the forecast at now, which counted only batches and
 * prefilled requests: 0 here (sim_admit_forecast_load at now still
 * gives that). And VRAM counts on its own: reservations of twice the KV
 * capacity give a load above 2 with an iteration far below the SLO
 * (before: the iteration stretched by the overflow, 60 ms, a load of
 * 0.6). */
START_TEST(test_early_counts_kv_on_its_way)
{
    static const int one[][3] = {{0, 1000, 301}};
    flat_t f;
    flat_new(&f, "way.jsonl", one, 1);
    sim_cluster_t *c = f.c;
    while (!sim_pd(c)->pf[0].running)
        ck_assert_int_eq(sim_evq_step(c->evq), 1);
    decode_inst_t *d = &sim_pd(c)->dc[0];
    ck_assert_int_eq((int64_t)d->b.n, 0);
    ck_assert_int_eq(d->n_inbound, 1);
    sim_time_t now = sim_cluster_now(c);
    double load = sim_cluster_decode_load_now(c, 0, NULL);
    ck_assert_double_eq_tol(load, 0.3, 1e-6);
    ck_assert_double_eq_tol(sim_admit_decode_load_now(c), load, 1e-12);
    /* the request itself is not counted twice */
    ck_assert_double_eq_tol(sim_cluster_decode_load_now(c, 0, sim_pd(c)->pf[0].running), load, 1e-12);
    ck_assert_double_eq(sim_admit_forecast_load(c, now, 9 * SIM_NS_PER_S, 1, 0), 0); /* the old */
    int64_t cap = sim_cluster_decode_kv_cap_tok(c);
    d->rsv_inbound += 2 * cap;
    double over = (double)d->rsv_inbound / (double)cap;
    ck_assert_double_gt(sim_cluster_decode_load_now(c, 0, NULL), 2);
    ck_assert_double_lt((double)model_cost_decode_ns(f.cost, 1, 1000) * over /
                            (double)(SIM_NS_PER_S / 10), 1); /* the old stretched TBT */
    d->rsv_inbound -= 2 * cap;
    /* To the end: nothing is left on its way or placed. */
    sim_err_t err;
    ck_assert_int_eq(sim_cluster_run(c, NULL, NULL, &err), 0);
    ck_assert_int_eq(d->n_inbound, 0);
    ck_assert_int_eq(d->rsv_inbound, 0);
    ck_assert_int_eq(d->n_assigned, 0);
    ck_assert_int_eq(d->rsv_assigned, 0);
    ck_assert_double_eq(sim_cluster_decode_load_now(c, 0, NULL), 0);
    flat_free(&f);
}
END_TEST

/* The predictive forecast keeps a request that has decoded longer than
 * the mean: its expected remaining time is the mean residual of the
 * observed decode durations longer than its age. Observed 1, 1, 1 and
 * 10 s (mean 3.25 s): at age 0.5 s, (3 x 0.5 + 9.5) / 4 = 2.75 s; at 2 s,
 * 8 s; beyond every observation, t_d. A request decoding for about 4.8 s
 * (30 s in all) is still in the forecast 1 s ahead. Before, it left at
 * join + t_d, already past: dropped. With a set uniform t_d
 * (admission.params.t_d_s) only t_d counts. */
START_TEST(test_forecast_keeps_long_decodes)
{
    static const int one[][3] = {{0, 1000, 1001}};
    flat_t f;
    flat_new(&f, "long.jsonl", one, 1);
    sim_cluster_t *c = f.c;
    flat_run_to(&f, 5 * SIM_NS_PER_S);
    const int secs[] = {1, 1, 1, 10};
    for (int i = 0; i < 4; i++)
        sim_cluster_note_decode(c, secs[i] * SIM_NS_PER_S);
    sim_time_t t_d = sim_cluster_mean_decode_ns(c, 0);
    ck_assert_int_eq(t_d, 3250 * SIM_NS_PER_MS);
    ck_assert_int_eq(sim_cluster_decode_residual_ns(c, SIM_NS_PER_S / 2, t_d, 1), 2750 * SIM_NS_PER_MS);
    ck_assert_int_eq(sim_cluster_decode_residual_ns(c, 2 * SIM_NS_PER_S, t_d, 1), 8 * SIM_NS_PER_S);
    ck_assert_int_eq(sim_cluster_decode_residual_ns(c, 11 * SIM_NS_PER_S, t_d, 1), t_d);
    const sim_req_t *r = c->live;
    ck_assert_ptr_nonnull(r);
    ck_assert_ptr_null(r->live_next);
    ck_assert_int_gt(r->decode_join_ns, 0); /* decoding */
    sim_time_t now = sim_cluster_now(c), at = now + SIM_NS_PER_S;
    ck_assert_int_gt(now - r->decode_join_ns, t_d);
    ck_assert_int_le(r->decode_join_ns + t_d, at); /* the old leave time */
    int64_t n, ctx, rsv;
    sim_admit_forecast_decode(c, at, t_d, 1, 0, &n, &ctx, &rsv);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(rsv, 1000 + 1001);
    /* a set t_d: what is left of it, observations ignored */
    ck_assert_int_eq(sim_cluster_decode_residual_ns(c, 2 * SIM_NS_PER_S, t_d, 0),
                     t_d - 2 * SIM_NS_PER_S);
    flat_free(&f);
}
END_TEST

/* Conservation with every policy on an overloaded generated workload. */
START_TEST(test_conservation_all_policies)
{
    for (size_t i = 0; sim_admit_at(i); i++) { /* every registered policy */
        sim_err_t err;
        sim_config_defaults(&cfg);
        ck_assert_int_eq(sim_config_set(&cfg, "trace.generator.kind=kimi", &err), 0);
        cfg.trace.generator.requests = 600;
        cfg.trace.speed = 6;
        cfg.cluster.prefill = 2;
        cfg.cluster.decode = 1;
        tests_cfg_set(&cfg, "scheduler.params.slo_reject=0");
        snprintf(cfg.admission.policy, sizeof cfg.admission.policy, "%s", sim_admit_at(i)->name);
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

/* One small generated run: every request completes or is rejected, and
 * the pool's policy is the one named. */
static void small_run_conserves(const char *place, const char *evict)
{
    sim_err_t err;
    sim_config_defaults(&cfg);
    ck_assert_int_eq(sim_config_set(&cfg, "trace.generator.kind=kimi", &err), 0);
    cfg.trace.generator.requests = 300;
    cfg.cluster.prefill = 3;
    cfg.cluster.decode = 2;
    cfg.cache.dram_tokens = 200 * 512; /* small enough to evict */
    cfg.cache.ssd_tokens = 400 * 512;
    snprintf(cfg.scheduler.policy, sizeof cfg.scheduler.policy, "%s", place);
    snprintf(cfg.cache.policy, sizeof cfg.cache.policy, "%s", evict);
    sim_run_opts_t o = {.config_src = "every.json", .data_dir = "."};
    sim_run_result_t res;
    ck_assert_msg(sim_run(&cfg, &o, &res, &err) == 0, "%s/%s: %s", place, evict, err.msg);
    ck_assert_int_eq(res.counts.total, 300);
    ck_assert_int_eq(res.counts.completed + res.counts.rejected_arrival +
                         res.counts.rejected_prefill, 300);
    json_t *c = json_object_get(res.summary, "cache");
    ck_assert_str_eq(json_string_value(json_object_get(c, "policy")), evict);
    ck_assert_msg(json_integer_value(json_object_get(c, "evictions")) > 0, "%s/%s", place, evict);
    json_decref(res.summary);
}

/* Every registered placement policy (with the default eviction), and
 * every eviction policy (with the default placement), each with its
 * parameters at their defaults. */
START_TEST(test_every_policy_runs)
{
    for (size_t i = 0; sim_place_at(i); i++)
        small_run_conserves(sim_place_at(i)->name, "lru");
    for (size_t i = 0; sim_evict_at(i); i++)
        small_run_conserves("kvcentric", sim_evict_at(i)->name);
}
END_TEST

Suite *test_admission_suite(void)
{
    Suite *s = suite_create("admission");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_early_rejects_what_baseline_wastes);
    tcase_add_test(tc, test_every_policy_runs);
    tcase_add_test(tc, test_forecast_matches_replay);
    tcase_add_test(tc, test_early_counts_kv_on_its_way);
    tcase_add_test(tc, test_forecast_keeps_long_decodes);
    tcase_add_test(tc, test_conservation_all_policies);
    suite_add_tcase(s, tc);
    return s;
}
