/* tests/test_conductor.c: Algorithm 1 on hand-built cluster states, one
 * case per branch (no transfer, transfer, the threshold, own prefix 0, a
 * tie, rejection on TTFT, rejection on TBT, local scope, the KV hand-off
 * in TTFT); the decode balancer's VRAM term; hot-spot replication and
 * cold replicas; determinism; and the paper's ordering of the placements
 * on a slice of the conversation trace. White-box: it
 * reaches into the cluster (sim/serve/cluster_int.h) to set pool and queues. */
#include "tests/tests.h"

#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "models/cost.h"
#include "sim/serve/pd_int.h"
#include "sim/exp/config.h"
#include "sim/pool/evict.h"
#include "sim/core/rng.h"
#include "sim/exp/run.h"

typedef struct world {
    model_cost_t *cost;
    sim_metrics_t *m;
    sim_cluster_t *c;
    void *pp; /* the Conductor's parameters */
    sim_net_profile_t prof;
    uint64_t blocks[16];
    sim_req_t r;
} world_t;

/* n_prefill prefill and n_decode decode instances of a800x8, an empty
 * pool, the Conductor's parameters as given. */
static void world_new_pd(world_t *w, int n_prefill, int n_decode, int global, double threshold)
{
    memset(w, 0, sizeof *w);
    model_cost_args_t ca = {.hw = model_hw_find("a800x8"), .llm = model_llm_find("llama2-70b"),
                            .calibration = "", .data_dir = "."};
    sim_err_t err;
    w->cost = model_cost_new("fitted", &ca, &err);
    ck_assert_ptr_nonnull(w->cost);
    ck_assert_int_eq(sim_net_profile_get("rdma", &w->prof), 0);
    w->m = sim_metrics_new(NULL, 30, 0.1);
    char thr[64];
    snprintf(thr, sizeof thr, "kvcache_balancing_threshold=%.17g", threshold);
    const char *const sets[] = {thr, "slo_reject=1", NULL};
    w->pp = tests_params(sim_place_kvcentric.params, sets);
    sim_cluster_args_t a = {
        .hw = ca.hw, .llm = ca.llm, .cost = w->cost, .system = &sim_system_pd,
        .place = &sim_place_kvcentric, .place_params = w->pp, .admit = &sim_admit_none,
        .pd = {.n_prefill = n_prefill, .n_decode = n_decode, .decode_max_batch = 256,
               .prefill_group = 1, .prefill_chunk_tok = 8192},
        .pool = {.policy = &sim_evict_lru, .dram_blocks = 1000, .ssd_blocks = 0,
                 .dram_load_bytes_per_s = 128e9, .ssd_read_bytes_per_s = 12e9},
        .net = {.profile = &w->prof, .nic_bytes_per_s = 100e9},
        .vram_reserve_frac = 0.1, .cache_global = global, .slo_ttft_ns = 30 * SIM_NS_PER_S,
        .slo_tbt_ns = SIM_NS_PER_S / 10,
    };
    w->c = sim_cluster_new(&a, w->m, &err);
    ck_assert_ptr_nonnull(w->c);
    for (int b = 0; b < 16; b++)
        w->blocks[b] = (uint64_t)b;
    w->r.input_tok = 8000;
    w->r.output_tok = 10;
    w->r.n_blocks = 16;
    w->r.blocks = w->blocks;
}

/* 2 or 3 prefill instances and one decode instance. */
static void world_new(world_t *w, int n_prefill, int global, double threshold)
{
    world_new_pd(w, n_prefill, 1, global, threshold);
}

static void world_free(world_t *w)
{
    sim_cluster_free(w->c);
    sim_free(w->pp);
    sim_metrics_free(w->m);
    model_cost_free(w->cost);
}

/* Prefill instance i's node holds the request's first n blocks. */
static void holds(world_t *w, int i, uint32_t n)
{
    sim_kvpool_access(w->c->pool, sim_cluster_pool_node(w->c, i), w->blocks, n);
}

static int place(world_t *w, sim_place_decision_t *d)
{
    memset(d, 0, sizeof *d);
    d->fetch_src = -1;
    void *st = sim_place_kvcentric.init(w->c, w->pp);
    int rc = sim_place_kvcentric.place(st, w->c, &w->r, d);
    sim_place_kvcentric.free(st);
    return rc;
}

START_TEST(test_alg1_no_transfer)
{
    world_t w;
    world_new(&w, 2, 1, 1.5);
    holds(&w, 1, 16); /* instance 1 has it all, both idle */
    sim_place_decision_t d;
    ck_assert_int_eq(place(&w, &d), SIM_PLACE_OK);
    ck_assert_int_eq(d.prefill, 1);
    ck_assert_int_eq(d.fetch_src, -1);
    world_free(&w);
}
END_TEST

/* The holder is busy for 30 s; the idle instance holds nothing (own
 * prefix 0 counts as above the threshold): it fetches all 16 blocks. */
START_TEST(test_alg1_transfer_from_zero)
{
    world_t w;
    world_new(&w, 2, 1, 1.5);
    holds(&w, 0, 16);
    sim_pd(w.c)->pf[0].queued_pred_ns = 30 * SIM_NS_PER_S;
    sim_place_decision_t d;
    ck_assert_int_eq(place(&w, &d), SIM_PLACE_OK);
    ck_assert_int_eq(d.prefill, 1);
    ck_assert_int_eq(d.fetch_src, sim_cluster_pool_node(w.c, 0));
    ck_assert_uint_eq(d.fetch_blocks, 16);
    /* Its estimate: transfer + prefill with the whole prefix cached. */
    sim_time_t xfer = sim_cluster_fetch_estimate_ns(w.c, 0, 1, &w.r, 0, 16);
    ck_assert_int_eq(d.pred_ttft_ns, xfer + sim_prefill_predict_ns(w.c, 1, &w.r, 16));
    world_free(&w);
}
END_TEST

/* Own prefix 4 blocks, best 16 elsewhere (ratio 4): fetched under
 * threshold 1.5, recomputed beyond the own 4 under threshold 5. */
START_TEST(test_alg1_threshold)
{
    for (int v = 0; v < 2; v++) {
        world_t w;
        world_new(&w, 2, 1, v ? 5.0 : 1.5);
        holds(&w, 0, 16);
        holds(&w, 1, 4);
        sim_pd(w.c)->pf[0].queued_pred_ns = 30 * SIM_NS_PER_S;
        sim_place_decision_t d;
        ck_assert_int_eq(place(&w, &d), SIM_PLACE_OK);
        ck_assert_int_eq(d.prefill, 1);
        if (v == 0) {
            ck_assert_int_eq(d.fetch_src, sim_cluster_pool_node(w.c, 0));
            ck_assert_uint_eq(d.fetch_blocks, 16);
        } else {
            ck_assert_int_eq(d.fetch_src, -1);
            ck_assert_int_eq(d.pred_ttft_ns, sim_prefill_predict_ns(w.c, 1, &w.r, 0));
        }
        world_free(&w);
    }
}
END_TEST

/* A fetch only wins when it is cheaper than waiting: with the holder
 * nearly idle, the request queues there instead. */
START_TEST(test_alg1_wait_beats_fetch)
{
    world_t w;
    world_new(&w, 2, 1, 1.5);
    holds(&w, 0, 16);
    sim_pd(w.c)->pf[0].queued_pred_ns = SIM_NS_PER_MS; /* 1 ms of queue */
    sim_place_decision_t d;
    ck_assert_int_eq(place(&w, &d), SIM_PLACE_OK);
    ck_assert_int_eq(d.prefill, 0);
    ck_assert_int_eq(d.fetch_src, -1);
    world_free(&w);
}
END_TEST

START_TEST(test_alg1_tie_and_local_scope)
{
    world_t w;
    world_new(&w, 3, 1, 1.5);
    sim_place_decision_t d; /* nothing cached anywhere, all idle: a tie */
    ck_assert_int_eq(place(&w, &d), SIM_PLACE_OK);
    ck_assert_int_eq(d.prefill, 0);
    world_free(&w);
    world_new(&w, 2, 0, 1.5); /* local scope: never fetch */
    holds(&w, 0, 16);
    sim_pd(w.c)->pf[0].queued_pred_ns = 30 * SIM_NS_PER_S;
    ck_assert_int_eq(place(&w, &d), SIM_PLACE_OK);
    ck_assert_int_eq(d.prefill, 1);
    ck_assert_int_eq(d.fetch_src, -1);
    world_free(&w);
}
END_TEST

START_TEST(test_alg1_reject_ttft_and_tbt)
{
    world_t w;
    world_new(&w, 2, 1, 1.5);
    sim_pd(w.c)->pf[0].queued_pred_ns = sim_pd(w.c)->pf[1].queued_pred_ns = 40 * SIM_NS_PER_S;
    sim_place_decision_t d;
    ck_assert_int_eq(place(&w, &d), SIM_PLACE_REJECT); /* 40 s queues > 30 s SLO */
    tests_params_set(sim_place_kvcentric.params, w.pp, "slo_reject=0");
    ck_assert_int_eq(place(&w, &d), SIM_PLACE_OK);
    world_free(&w);
    world_new(&w, 2, 1, 1.5);
    w.c->a.slo_tbt_ns = SIM_NS_PER_MS; /* no decode iteration is that fast */
    ck_assert_int_eq(place(&w, &d), SIM_PLACE_REJECT);
    w.c->a.slo_tbt_ns = SIM_NS_PER_S / 10;
    ck_assert_int_eq(place(&w, &d), SIM_PLACE_OK);
    world_free(&w);
}
END_TEST

/* SelectDecodingInstance weighs VRAM: instance 0 has one request placed
 * on it and the shorter iteration, but that request reserves all but
 * 5,000 tokens of its KV capacity, too little for r (8,000 + 10);
 * instance 1 has 20 requests well within its VRAM. Load = max(iteration / TBT SLO,
 * reservations / capacity): 1 wins, and 0's load with r is above 1.
 * Before, the balancer compared iteration times only and picked 0, where
 * r would have waited for VRAM. */
START_TEST(test_decode_balancer_respects_vram)
{
    world_t w;
    world_new_pd(&w, 2, 2, 1, 1.5);
    int64_t cap = sim_cluster_decode_kv_cap_tok(w.c);
    decode_inst_t *d0 = &sim_pd(w.c)->dc[0], *d1 = &sim_pd(w.c)->dc[1];
    d0->n_assigned = 1;
    d0->tok_assigned = 1000;
    d0->rsv_assigned = cap - 5000;
    d1->n_assigned = 20;
    d1->tok_assigned = 20 * 2000;
    d1->rsv_assigned = 20 * 2500;
    sim_dpick_update(w.c, 0);
    sim_dpick_update(w.c, 1);
    /* The old rule (iteration time alone) favours 0. */
    ck_assert_int_lt(model_cost_decode_ns(w.cost, 2, 1000 + 8000),
                     model_cost_decode_ns(w.cost, 21, 20 * 2000 + 8000));
    ck_assert_int_lt(sim_cluster_decode_pred_iter_ns(w.c, 0, &w.r),
                     sim_cluster_decode_pred_iter_ns(w.c, 1, &w.r));
    ck_assert_int_eq(sim_place_decode_least_loaded(w.c, &w.r), 1);
    ck_assert_double_gt(sim_cluster_decode_pred_load(w.c, 0, &w.r), 1);
    ck_assert_double_lt(sim_cluster_decode_pred_load(w.c, 1, &w.r), 1);
    sim_place_decision_t d;
    ck_assert_int_eq(place(&w, &d), SIM_PLACE_OK); /* the Conductor, SLO check on */
    ck_assert_int_eq(d.decode, 1);
    d0->rsv_assigned = 20000; /* room again: the shorter iteration wins */
    sim_dpick_update(w.c, 0);
    ck_assert_int_eq(sim_place_decode_least_loaded(w.c, &w.r), 0);
    world_free(&w);
}
END_TEST

/* The balancer's search (a heap of bounds, idle instances in a bitmap)
 * picks what a scan of every instance picks: 300 decode instances, many
 * idle or alike (ties), random loads near the VRAM bound, random
 * requests, and counts changed between searches. */
START_TEST(test_decode_balancer_search_is_scan)
{
    world_t w;
    world_new_pd(&w, 1, 300, 1, 1.5);
    int64_t cap = sim_cluster_decode_kv_cap_tok(w.c);
    gsl_rng *g = sim_rng_new(11, 7);
    for (int step = 0; step < 3000; step++) {
        /* From step 1500 on no instance is idle (an idle one always wins). */
        int lo = step == 1500 ? 0 : (int)gsl_rng_uniform_int(g, 300);
        int hi = step == 1500 ? 300 : lo + 1;
        for (int j = lo; j < hi; j++) {
            decode_inst_t *d = &sim_pd(w.c)->dc[j];
            unsigned kind = (unsigned)gsl_rng_uniform_int(g, 4);
            kind += kind == 0 && step >= 1500;
            d->n_assigned = kind == 0 ? 0 : 1 + (int64_t)gsl_rng_uniform_int(g, kind == 1 ? 2 : 60);
            d->tok_assigned =
                d->n_assigned * (kind == 1 ? 1000 : 1 + (int64_t)gsl_rng_uniform_int(g, 6000));
            d->rsv_assigned = kind == 0   ? 0
                              : kind == 1 ? d->tok_assigned /* alike: ties */
                                          : SIM_MIN(cap, d->tok_assigned + (int64_t)gsl_rng_uniform_int(
                                                                              g, (unsigned long)cap));
            sim_dpick_update(w.c, j);
        }
        w.r.input_tok = 1 + (int64_t)gsl_rng_uniform_int(g, 30000);
        w.r.output_tok = 1 + (int64_t)gsl_rng_uniform_int(g, 2000);
        int best = 0;
        double best_t = sim_cluster_decode_pred_load(w.c, 0, &w.r);
        for (int k = 1; k < 300; k++) {
            double t = sim_cluster_decode_pred_load(w.c, k, &w.r);
            if (t < best_t) {
                best_t = t;
                best = k;
            }
        }
        ck_assert_msg(sim_place_decode_least_loaded(w.c, &w.r) == best, "step %d", step);
    }
    ck_assert_int_eq(sim_dpick_fell_back(w.c), 0); /* the bounds held: it searched */
    gsl_rng_free(g);
    world_free(&w);
}
END_TEST

/* The prediction for every instance at once (one prefix walk, plans
 * shared by instances that hold alike) equals each instance's own: 12
 * instances of small DRAM over SSD holding random runs (the whole
 * request, partial last block included, in either tier), random planned
 * fetches. */
START_TEST(test_prefill_pred_all_is_per_instance)
{
    world_t w;
    world_new_pd(&w, 12, 1, 1, 1.5);
    gsl_rng *g = sim_rng_new(5, 9);
    for (int i = 0; i < 12; i++) { /* small DRAM over SSD: runs split between tiers */
        sim_kvpool_set_capacity(w.c->pool, sim_cluster_pool_node(w.c, i), SIM_TIER_SSD, 100);
        sim_kvpool_set_capacity(w.c->pool, sim_cluster_pool_node(w.c, i), SIM_TIER_DRAM,
                                2 + (int64_t)gsl_rng_uniform_int(g, 14));
    }
    uint32_t leads[12], lead_min[12];
    sim_time_t all[12];
    for (int step = 0; step < 200; step++) {
        int i = (int)gsl_rng_uniform_int(g, 12);
        uint32_t from = (uint32_t)gsl_rng_uniform_int(g, 16);
        sim_kvpool_access(w.c->pool, sim_cluster_pool_node(w.c, i), w.blocks + from,
                          (uint32_t)gsl_rng_uniform_int(g, 17 - from));
        w.r.input_tok = 7681 + (int64_t)gsl_rng_uniform_int(g, 512); /* 16 blocks, the last partial */
        sim_cluster_prefix_by_instance(w.c, &w.r, leads);
        for (int k = 0; k < 12; k++)
            lead_min[k] = gsl_rng_uniform_int(g, 2) ? 0 : (uint32_t)gsl_rng_uniform_int(g, 17);
        sim_cluster_prefill_pred_all(w.c, &w.r, leads, lead_min, all);
        for (int k = 0; k < 12; k++)
            ck_assert_int_eq(all[k], sim_prefill_predict_ns(w.c, k, &w.r, lead_min[k]));
    }
    gsl_rng_free(g);
    world_free(&w);
}
END_TEST

/* Cold replicas (made ahead of use) are evicted before blocks that were
 * used, whatever their age. */
START_TEST(test_cold_replicas_evicted_first)
{
    int64_t caps[SIM_N_TIERS] = {4, 0};
    for (size_t i = 0; sim_evict_at(i); i++) { /* every registered policy */
        const char *name = sim_evict_at(i)->name;
        sim_kvpool_t *p = sim_kvpool_new(2, caps, sim_evict_at(i), NULL, 0);
        const uint64_t used[] = {1, 2}, hot[] = {7, 8}, more[] = {3};
        sim_kvpool_access(p, 0, used, 2);
        sim_kvpool_access(p, 1, hot, 2);
        ck_assert_uint_eq(sim_kvpool_replicate(p, 0, hot, 2, 1), 2); /* node 0 now full */
        sim_kvpool_access(p, 0, more, 1);
        /* Length-aware drops the deeper replica (8); the others the older (7). */
        int deeper = strcmp(name, "length_aware") == 0;
        uint64_t gone = deeper ? 8 : 7, kept = deeper ? 7 : 8;
        ck_assert_msg(sim_kvpool_tier_of(p, 0, gone) == -1, "%s kept the cold replica", name);
        ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 1), SIM_TIER_DRAM);
        ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 2), SIM_TIER_DRAM);
        ck_assert_int_eq(sim_kvpool_tier_of(p, 0, kept), SIM_TIER_DRAM);
        ck_assert_uint_eq(sim_kvpool_replicas(p, gone), 1);
        ck_assert_uint_eq(sim_kvpool_replicas(p, kept), 2);
        ck_assert_int_eq(sim_kvpool_check(p), 0);
        uint32_t lead[2];
        sim_kvpool_prefix_all(p, hot, 2, lead);
        ck_assert_uint_eq(lead[0], i == 2 ? 1 : 0);
        ck_assert_uint_eq(lead[1], 2);
        sim_kvpool_free(p);
    }
}
END_TEST

static sim_config_t cfg;

/* Hot-spot replication end to end: two long requests occupy instances 0
 * and 1; a request for the prefix instance 0 computed goes to instance 2
 * and fetches it; with hot_fetches 1 that fetch also replicates the prefix
 * to instance 1, cold: three replicas. */
START_TEST(test_hot_spot_replication)
{
    char text[1 << 17];
    int k = 0;
    const int reqs[][3] = {{0, 8000, 2}, {5000, 120000, 2}, {5001, 120000, 2}, {6000, 8000, 2}};
    for (int i = 0; i < 4; i++) {
        k += snprintf(text + k, sizeof text - (size_t)k,
                      "{\"timestamp\": %d, \"input_length\": %d, \"output_length\": %d, \"hash_ids\": [",
                      reqs[i][0], reqs[i][1], reqs[i][2]);
        int base = i == 1 ? 1000 : i == 2 ? 2000 : 0;
        for (int b = 0; b < (reqs[i][1] + 511) / 512; b++)
            k += snprintf(text + k, sizeof text - (size_t)k, "%s%d", b ? "," : "", base + b);
        k += snprintf(text + k, sizeof text - (size_t)k, "]}\n");
    }
    const char *tp = tests_write_file(tests_tmpdir(), "hot.jsonl", text, (size_t)k);
    sim_config_defaults(&cfg);
    snprintf(cfg.trace.path, sizeof cfg.trace.path, "%s", tp);
    cfg.cluster.prefill = 3;
    snprintf(cfg.scheduler.policy, sizeof cfg.scheduler.policy, "kvcentric");
    snprintf(cfg.cache.scope, sizeof cfg.cache.scope, "global");
    cfg.cache.hot_fetches = 1;
    sim_run_opts_t o = {.config_src = "hot.json", .data_dir = "."};
    sim_run_result_t res;
    sim_err_t err;
    ck_assert_msg(sim_run(&cfg, &o, &res, &err) == 0, "%s", err.msg);
    json_t *cache = json_object_get(res.summary, "cache");
    json_t *tr = json_object_get(res.summary, "transfer");
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(tr, "fetch"), "flows")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(tr, "replication"), "flows")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(cache, "replicas"), "max")), 3);
    json_decref(res.summary);
    /* Off: no replication. */
    cfg.cache.hot_fetches = 0;
    ck_assert_int_eq(sim_run(&cfg, &o, &res, &err), 0);
    tr = json_object_get(res.summary, "transfer");
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(tr, "replication"), "flows")), 0);
    json_decref(res.summary);
}
END_TEST

/* The CSV row (1-based) of request id. */
static int row_of(const char *csv, int id)
{
    int row = 1;
    for (const char *p = strchr(csv, '\n') + 1; *p; p = strchr(p, '\n') + 1, row++)
        if ((int)csv_field(p, 0, 0) == id)
            return row;
    ck_abort_msg("request %d not in requests.csv", id);
    return -1;
}

/* The Conductor's TTFT counts the KV hand-off left after prefill. On 5
 * Gbps NICs a 16,000-token prompt on prefill instance 0 streams its KV
 * (5.2 GB) to decode instance 0 for seconds after its prefill; a 2,000-
 * token prompt arriving 1 s after that prefill ended finds both prefill
 * queues empty and goes to idle decode instance 1. Its hand-off from node
 * 0 shares node 0's busy egress, from node 1 it has the NIC to itself:
 * handoff_aware (the default) places it on 1 and its TTFT is shorter.
 * With scheduler.params.handoff_aware = 0 (the old estimate: queue + prefill
 * only) the instances tie and it goes to 0 (lowest index). Two decode
 * instances: with one, its ingress would be shared from either prefill
 * node alike and the estimates would tie. No prefix cache. */
START_TEST(test_alg1_handoff_aware)
{
    model_cost_args_t ca = {.hw = model_hw_find("a800x8"), .llm = model_llm_find("llama2-70b"),
                            .calibration = "", .data_dir = "."};
    sim_err_t err;
    model_cost_t *cost = model_cost_new("fitted", &ca, &err);
    ck_assert_ptr_nonnull(cost);
    sim_config_defaults(&cfg);
    double prefill0 = (double)model_cost_prefill_ns(cost, 16000, 0) / 1e9;
    model_cost_free(cost);
    int arrive1 = (int)((cfg.scheduler.schedule_s + prefill0 + 1.0) * 1000);
    const int reqs[][3] = {{0, 16000, 2}, {arrive1, 2000, 2}};
    const char *tp = tests_trace_of("handoff.jsonl", reqs, 2);
    double ttft1[2];
    for (int aware = 0; aware <= 1; aware++) {
        sim_config_defaults(&cfg);
        ck_assert_int_eq(cfg.scheduler.params.n, 0); /* handoff_aware: its default, 1 */
        snprintf(cfg.trace.path, sizeof cfg.trace.path, "%s", tp);
        cfg.cluster.prefill = cfg.cluster.decode = 2;
        cfg.cluster.inline_prefill = 0;
        cfg.cache.enabled = 0;
        cfg.network.nic_gbps = 5;
        tests_cfg_set(&cfg, aware ? "scheduler.params.handoff_aware=1"
                                  : "scheduler.params.handoff_aware=0");
        char out[512];
        snprintf(out, sizeof out, "%s/handoff%d", tests_tmpdir(), aware);
        sim_run_opts_t o = {.config_src = "handoff.json", .out_dir = out, .data_dir = "."};
        sim_run_result_t res;
        ck_assert_msg(sim_run(&cfg, &o, &res, &err) == 0, "%s", err.msg);
        ck_assert_int_eq(res.counts.completed, 2);
        json_decref(res.summary);
        char p[600];
        snprintf(p, sizeof p, "%s/requests.csv", out);
        char *csv = tests_read_file(p, NULL);
        ck_assert_ptr_nonnull(csv);
        int r0 = row_of(csv, 0), r1 = row_of(csv, 1);
        double placed1 = csv_field(csv, r1, 1) + cfg.scheduler.schedule_s;
        ck_assert_double_eq(csv_field(csv, r0, 5), 0);   /* prefill instance 0 */
        ck_assert_double_eq(csv_field(csv, r0, 6), 0);   /* decode instance 0 */
        ck_assert_double_lt(csv_field(csv, r0, 1) + csv_field(csv, r0, 14) +
                                csv_field(csv, r0, 15), placed1); /* prefill over */
        ck_assert_double_gt(csv_field(csv, r0, 22), placed1 + 1); /* KV still moving */
        ck_assert_double_eq_tol(csv_field(csv, r1, 14), cfg.scheduler.schedule_s, 2e-6);
        ck_assert_double_eq(csv_field(csv, r1, 6), 1);   /* decode instance 1 */
        ck_assert_double_eq(csv_field(csv, r1, 5), aware); /* prefill instance */
        ttft1[aware] = csv_field(csv, r1, 8);
        free(csv);
    }
    ck_assert_double_lt(ttft1[1], ttft1[0]);
}
END_TEST

static double mean_ttft(const char *policy, int64_t limit, char **csv_out)
{
    sim_err_t err;
    sim_config_defaults(&cfg);
    ck_assert_msg(sim_config_load(&cfg, "experiments/fast25/fig5_scheduling.json", &err) == 0,
                  "%s", err.msg);
    snprintf(cfg.scheduler.policy, sizeof cfg.scheduler.policy, "%s", policy);
    if (strcmp(policy, "kvcentric") != 0)
        cfg.scheduler.params.n = 0; /* slo_reject is the Conductor's alone */
    cfg.trace.limit = limit;
    char out[512];
    snprintf(out, sizeof out, "%s/order_%s", tests_tmpdir(), policy);
    sim_run_opts_t o = {.config_src = "fig5_scheduling.json", .out_dir = out, .data_dir = "."};
    sim_run_result_t res;
    ck_assert_msg(sim_run(&cfg, &o, &res, &err) == 0, "%s", err.msg);
    double m = json_number_value(json_object_get(json_object_get(res.summary, "ttft_s"), "mean"));
    json_decref(res.summary);
    if (csv_out) {
        char p[600];
        snprintf(p, sizeof p, "%s/requests.csv", out);
        *csv_out = tests_read_file(p, NULL);
    }
    return m;
}

/* The paper's ordering on the first 1,000 conversation requests, and the
 * Conductor's run is reproducible byte for byte. */
START_TEST(test_policy_order_conversation)
{
    char *a = NULL, *b = NULL;
    double kv = mean_ttft("kvcentric", 1000, &a);
    double ca = mean_ttft("cache_aware", 1000, NULL);
    double lb = mean_ttft("load_balance", 1000, NULL);
    double rnd = mean_ttft("random", 1000, NULL);
    ck_assert_msg(kv <= ca && ca <= lb && lb <= rnd, "kvcentric %.4f, cache_aware %.4f, "
                  "load_balance %.4f, random %.4f", kv, ca, lb, rnd);
    ck_assert_double_eq(mean_ttft("kvcentric", 1000, &b), kv);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
}
END_TEST

/* requests.csv of a generated run (8 prefill instances) under a placement
 * given as --set lines; caller frees. */
static char *placed(const char *name, const char *const *sets)
{
    sim_config_defaults(&cfg);
    tests_cfg_set(&cfg, "trace.generator.kind=kimi");
    tests_cfg_set(&cfg, "trace.generator.requests=300");
    tests_cfg_set(&cfg, "trace.generator.rate_rps=6");
    for (; *sets; sets++)
        tests_cfg_set(&cfg, *sets);
    char out[512], p[600];
    snprintf(out, sizeof out, "%s/pod_%s", tests_tmpdir(), name);
    sim_run_opts_t o = {.config_src = "pod.json", .out_dir = out, .data_dir = ".", .force = 1};
    sim_run_result_t res;
    sim_err_t err;
    ck_assert_msg(sim_run(&cfg, &o, &res, &err) == 0, "%s", err.msg);
    json_decref(res.summary);
    snprintf(p, sizeof p, "%s/requests.csv", out);
    char *csv = tests_read_file(p, NULL);
    ck_assert_ptr_nonnull(csv);
    return csv;
}

/* The worked example (docs/extending.md) of a policy with a parameter: power_of_d
 * with one choice draws exactly as random; with more it is another policy;
 * a parameter it does not have is refused by name. */
START_TEST(test_power_of_d)
{
    const char *const rnd[] = {"scheduler.policy=random", NULL};
    const char *const d1[] = {"scheduler.policy=power_of_d", "scheduler.params.choices=1", NULL};
    const char *const d2[] = {"scheduler.policy=power_of_d", NULL};
    char *a = placed("random", rnd), *b = placed("d1", d1), *c = placed("d2", d2);
    ck_assert_str_eq(a, b);
    ck_assert_str_ne(a, c);
    free(a), free(b), free(c);
    sim_err_t err;
    sim_config_defaults(&cfg);
    tests_cfg_set(&cfg, "trace.generator.kind=kimi");
    tests_cfg_set(&cfg, "scheduler.policy=power_of_d");
    tests_cfg_set(&cfg, "scheduler.params.d=2");
    ck_assert_int_eq(sim_config_validate(&cfg, "pod.json", &err), -1);
    ck_assert_str_eq(err.msg, "--set scheduler.params.d=2: not a parameter of placement "
                              "policy 'power_of_d' (its parameters: choices)");
}
END_TEST

Suite *test_conductor_suite(void)
{
    Suite *s = suite_create("conductor");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_alg1_no_transfer);
    tcase_add_test(tc, test_alg1_transfer_from_zero);
    tcase_add_test(tc, test_alg1_threshold);
    tcase_add_test(tc, test_alg1_wait_beats_fetch);
    tcase_add_test(tc, test_alg1_tie_and_local_scope);
    tcase_add_test(tc, test_alg1_reject_ttft_and_tbt);
    tcase_add_test(tc, test_decode_balancer_respects_vram);
    tcase_add_test(tc, test_decode_balancer_search_is_scan);
    tcase_add_test(tc, test_prefill_pred_all_is_per_instance);
    tcase_add_test(tc, test_cold_replicas_evicted_first);
    tcase_add_test(tc, test_hot_spot_replication);
    tcase_add_test(tc, test_alg1_handoff_aware);
    tcase_add_test(tc, test_power_of_d);
    TESTS_ADD_TRACE_TEST(tc, test_policy_order_conversation);
    suite_add_tcase(s, tc);
    return s;
}
