/* tests/test_summary.c: the parts of summary.json the components build.
 * The KV pool's $.cache (sim_kvpool_summary_json) and the network's
 * $.transfer (sim_net_summary_json) against the functions sim/exp/run.c used
 * to build them with (cache_json and transfer_json, kept here verbatim as
 * the reference), on a pool that replayed a real trace and a network that
 * moved real flows, compared as written by sim_json_write, byte for byte;
 * and their place in sim_metrics_summary. */
#include "tests/tests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/pool/evict.h"
#include "sim/core/evq.h"
#include "sim/core/jsonx.h"
#include "sim/pool/kvpool.h"
#include "sim/core/metrics.h"
#include "sim/net/net.h"
#include "traces/trace.h"

/* ---- the reference: sim/exp/run.c's cache_json and transfer_json as they
 * were before the components built their own (the policy name passed in
 * place of cfg->cache.policy). ---- */

static json_t *ref_cache_json(const char *policy, const sim_kvpool_t *pool)
{
    if (!pool)
        return NULL;
    json_t *o = json_object();
    sim_kvpool_counts_t k = sim_kvpool_counts(pool);
    json_object_set_new(o, "policy", json_string(policy));
    json_object_set_new(o, "dram_blocks_per_node", json_integer(sim_kvpool_capacity(pool, 0, SIM_TIER_DRAM)));
    json_object_set_new(o, "ssd_blocks_per_node", json_integer(sim_kvpool_capacity(pool, 0, SIM_TIER_SSD)));
    json_object_set_new(o, "inserts", json_integer(k.inserts));
    json_object_set_new(o, "evictions", json_integer(k.evictions));
    json_object_set_new(o, "demotions", json_integer(k.demotions));
    json_object_set_new(o, "promotions", json_integer(k.promotions));
    json_object_set_new(o, "drops", json_integer(k.drops));
    json_object_set_new(o, "replications", json_integer(k.replications));
    int64_t blocks;
    double mean;
    uint32_t max;
    sim_kvpool_replica_stats(pool, &blocks, &mean, &max);
    json_t *r = json_object();
    json_object_set_new(r, "blocks", json_integer(blocks));
    json_object_set_new(r, "mean", json_real(mean));
    json_object_set_new(r, "max", json_integer(max));
    json_object_set_new(o, "replicas", r);
    return o;
}

static json_t *ref_transfer_json(sim_net_t *net, const sim_net_profile_t *prof)
{
    static const char *const names[SIM_N_NET_LINKS] = {"pd", "fetch", "stage", "replication"};
    json_t *o = json_object();
    json_object_set_new(o, "transport", json_string(prof->name));
    json_object_set_new(o, "latency_s", sim_metrics_num(prof->latency_s));
    json_object_set_new(o, "efficiency", sim_metrics_num(prof->efficiency));
    for (int l = 0; l < SIM_N_NET_LINKS; l++) {
        sim_net_link_stats_t st = sim_net_link_stats(net, l);
        json_t *x = json_object();
        json_object_set_new(x, "bytes", json_integer((json_int_t)llround(st.bytes)));
        json_object_set_new(x, "busy_s", sim_metrics_num((double)st.busy_ns / 1e9));
        json_object_set_new(x, "flow_s", sim_metrics_num((double)st.flow_ns / 1e9));
        json_object_set_new(x, "flows", json_integer(st.flows));
        json_object_set_new(o, names[l], x);
    }
    return o;
}

/* ---- helpers ---- */

/* j as summary.json holds it (sim_json_write), malloc'd; free() it. */
static char *written(const json_t *j)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(sim_json_write(f, j), 0);
    ck_assert_int_eq(fclose(f), 0);
    return buf;
}

/* mine and ref (both stolen) write the same bytes. */
static void assert_same_json(json_t *mine, json_t *ref)
{
    char *a = written(mine), *b = written(ref);
    ck_assert_msg(strcmp(a, b) == 0, "component:\n%s\nrun.c:\n%s", a, b);
    free(a);
    free(b);
    json_decref(mine);
    json_decref(ref);
}

static const int N_NODES = 4;

/* Replay up to limit requests of the trace at path through a pool of
 * N_NODES nodes with small DRAM and SSD tiers (so blocks are evicted,
 * demoted and promoted), round robin, each request's prefix pinned while
 * it "runs" and every third one replicated to the next node (half of them
 * cold). Free with sim_kvpool_free. */
static sim_kvpool_t *replayed_pool(const char *path, int64_t limit, const char *policy)
{
    int64_t caps[SIM_N_TIERS] = {120, 400};
    sim_kvpool_t *p = sim_kvpool_new(N_NODES, caps, sim_evict_find(policy), NULL, 0);
    trace_open_args_t a = {.path = path, .format = "auto", .speed = 1, .limit = limit};
    sim_err_t err;
    trace_t *t = trace_open(&a, &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    trace_req_t r;
    int st;
    for (int i = 0; (st = trace_next(t, &r, &err)) == TRACE_OK; i++) {
        int node = i % N_NODES;
        sim_kvpool_access(p, node, r.blocks, r.n_blocks);
        sim_kvpool_pin(p, node, r.blocks, r.n_blocks);
        if (i % 3 == 0)
            sim_kvpool_replicate(p, (node + 1) % N_NODES, r.blocks, r.n_blocks, i % 2);
        sim_kvpool_unpin(p, node, r.blocks, r.n_blocks);
    }
    ck_assert_msg(st == TRACE_END, "%s", err.msg);
    trace_close(t);
    ck_assert_int_eq(sim_kvpool_check(p), 0);
    return p;
}

/* A Mooncake JSONL trace of n requests in sessions that grow a shared
 * prefix turn by turn, each with a tail block of its own; its path. */
static const char *session_trace(int n)
{
    static char text[1 << 20];
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        int s = i % 11, turn = i / 11, nb = 2 + (turn * 3 + s) % 40;
        k += (size_t)snprintf(text + k, sizeof text - k,
                              "{\"timestamp\": %d, \"input_length\": %d, \"output_length\": 9, "
                              "\"hash_ids\": [",
                              i * 50, nb * 512);
        for (int b = 0; b + 1 < nb; b++)
            k += (size_t)snprintf(text + k, sizeof text - k, "%d,", s * 1000 + b);
        k += (size_t)snprintf(text + k, sizeof text - k, "%d]}\n", 100000 + i);
        ck_assert_uint_lt(k, sizeof text - 256);
    }
    return tests_write_file(tests_tmpdir(), "sessions.jsonl", text, k);
}

static void flow_done(void *ctx, void *obj, int64_t arg)
{
    (void)ctx;
    (*(int *)obj)++;
    (void)arg;
}

/* Move flows of every link class between N_NODES nodes on 25 GB/s NICs
 * under profile prof, overlapping (so they share NICs), some rate-capped,
 * one cancelled, and run them to the end. *q gets the queue (free after
 * the network). */
static sim_net_t *flowed_net(const sim_net_profile_t *prof, sim_evq_t **q, int *done)
{
    double nic[4] = {25e9, 25e9, 25e9, 25e9};
    *q = sim_evq_new(NULL);
    sim_net_t *n = sim_net_new(*q, N_NODES, nic, prof);
    uint32_t cancel = 0;
    for (int i = 0; i < 40; i++) {
        int src = i % N_NODES, dst = (i * 3 + 1) % N_NODES;
        if (dst == src)
            dst = (dst + 1) % N_NODES;
        double bytes = 1e6 * (double)(1 + (i * 37) % 500) + 0.25 * i;
        uint32_t id = sim_net_start(n, src, dst, bytes, i % SIM_N_NET_LINKS,
                                    i % 5 == 0 ? 3e9 : 0, flow_done, done, i);
        if (i == 17)
            cancel = id;
        sim_evq_step(*q); /* stagger the starts */
    }
    sim_net_cancel(n, cancel);
    while (sim_evq_step(*q))
        ;
    sim_net_settle(n);
    return n;
}

/* ---- tests ---- */

/* $.cache of a pool that replayed a trace, for each policy. */
static void check_cache(const char *path, int64_t limit)
{
    for (size_t i = 0; sim_evict_at(i); i++) { /* every registered policy */
        const char *name = sim_evict_at(i)->name;
        sim_kvpool_t *p = replayed_pool(path, limit, name);
        sim_kvpool_counts_t k = sim_kvpool_counts(p);
        ck_assert_int_gt(k.evictions, 0);
        ck_assert_int_gt(k.demotions, 0);
        ck_assert_int_gt(k.promotions, 0);
        ck_assert_int_gt(k.drops, 0);
        ck_assert_int_gt(k.replications, 0);
        assert_same_json(sim_kvpool_summary_json(p, name),
                         ref_cache_json(name, p));
        sim_kvpool_free(p);
    }
}

START_TEST(test_cache_json_sessions)
{
    check_cache(session_trace(3000), 0);
}
END_TEST

START_TEST(test_cache_json_conversation)
{
    char path[512];
    snprintf(path, sizeof path, "%s/conversation_trace.jsonl.zst", tests_traces_dir());
    check_cache(path, 3000);
}
END_TEST

/* Without a pool there is no $.cache. */
START_TEST(test_cache_json_no_pool)
{
    ck_assert_ptr_null(sim_kvpool_summary_json(NULL, "lru"));
    ck_assert_ptr_null(ref_cache_json("lru", NULL));
}
END_TEST

/* $.transfer of a network that moved flows, for each built-in profile. */
START_TEST(test_transfer_json)
{
    static const char *const names[] = {"rdma", "tcp"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        sim_net_profile_t prof;
        ck_assert_int_eq(sim_net_profile_get(names[i], &prof), 0);
        sim_evq_t *q;
        int done = 0;
        sim_net_t *n = flowed_net(&prof, &q, &done);
        ck_assert_int_eq(done, 39);
        for (int l = 0; l < SIM_N_NET_LINKS; l++)
            ck_assert_int_gt(sim_net_link_stats(n, l).flows, 0);
        assert_same_json(sim_net_summary_json(n, &prof), ref_transfer_json(n, &prof));
        sim_net_free(n);
        sim_evq_free(q);
    }
}
END_TEST

/* In the summary, metrics adds its keys after the components' own: the
 * hit rates after the pool's, host-side copies after the links. */
START_TEST(test_summary_key_order)
{
    sim_kvpool_t *p = replayed_pool(session_trace(500), 0, "lru");
    sim_net_profile_t prof;
    ck_assert_int_eq(sim_net_profile_get("rdma", &prof), 0);
    sim_evq_t *q;
    int done = 0;
    sim_net_t *n = flowed_net(&prof, &q, &done);
    sim_metrics_t *m = sim_metrics_new(NULL, 30, 0.1);
    json_t *s = sim_metrics_summary(m, sim_kvpool_summary_json(p, "lru"),
                                    sim_net_summary_json(n, &prof), json_object());
    static const char *const cache_keys[] = {
        "policy", "dram_blocks_per_node", "ssd_blocks_per_node", "inserts", "evictions",
        "demotions", "promotions", "drops", "replications", "replicas", "hit_rate_tokens",
        "hit_rate_dram", "hit_rate_ssd", "cached_tokens"};
    static const char *const transfer_keys[] = {
        "transport", "latency_s", "efficiency", "pd", "fetch", "stage", "replication", "h2d",
        "ssd"};
    const char *k;
    json_t *v;
    size_t i = 0;
    json_object_foreach(json_object_get(s, "cache"), k, v)
        ck_assert_str_eq(k, cache_keys[i++]);
    ck_assert_uint_eq(i, sizeof cache_keys / sizeof cache_keys[0]);
    i = 0;
    json_object_foreach(json_object_get(s, "transfer"), k, v)
        ck_assert_str_eq(k, transfer_keys[i++]);
    ck_assert_uint_eq(i, sizeof transfer_keys / sizeof transfer_keys[0]);
    json_decref(s);
    sim_metrics_free(m);
    sim_net_free(n);
    sim_evq_free(q);
    sim_kvpool_free(p);
}
END_TEST

Suite *test_summary_suite(void)
{
    Suite *s = suite_create("summary");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_cache_json_sessions);
    TESTS_ADD_TRACE_TEST(tc, test_cache_json_conversation);
    tcase_add_test(tc, test_cache_json_no_pool);
    tcase_add_test(tc, test_transfer_json);
    tcase_add_test(tc, test_summary_key_order);
    suite_add_tcase(s, tc);
    return s;
}
