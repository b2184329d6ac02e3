/* tests/test_kvpool.c: the KVCache pool: each eviction policy against
 * exact hit/miss counts on hand-made sequences, pinning, demotion and
 * promotion, replicas, capacity and structure invariants under random
 * operations, LRU step by step against a sorted-list reference, the
 * all-nodes prefix walk against per-node walks, and the trace cache
 * analysis against a deliberately plain second implementation on the
 * real traces. */
#include "tests/tests.h"

#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "sim/pool/evict.h"
#include "sim/core/hmap.h"
#include "sim/pool/kvpool.h"
#include "sim/core/rng.h"
#include "traces/trace.h"

static sim_kvpool_t *pool1(const char *policy, int64_t dram, int64_t ssd)
{
    int64_t caps[SIM_N_TIERS] = {dram, ssd};
    return sim_kvpool_new(1, caps, sim_evict_find(policy), NULL, 0);
}

/* Access single-block requests; returns the hits. */
static int run_seq(sim_kvpool_t *p, const uint64_t *ids, size_t n)
{
    int hits = 0;
    for (size_t i = 0; i < n; i++) {
        hits += (int)sim_kvpool_access(p, 0, &ids[i], 1);
        ck_assert_int_eq(sim_kvpool_check(p), 0);
    }
    return hits;
}

START_TEST(test_lru_exact)
{
    /* Worked by hand, capacity 3: hits at accesses 4, 6, 9, 10. */
    const uint64_t seq[] = {1, 2, 3, 1, 4, 1, 2, 5, 1, 2, 3, 4, 5};
    sim_kvpool_t *p = pool1("lru", 3, 0);
    ck_assert_int_eq(run_seq(p, seq, 13), 4);
    ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 3), SIM_TIER_DRAM);
    ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 4), SIM_TIER_DRAM);
    ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 5), SIM_TIER_DRAM);
    ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 1), -1);
    sim_kvpool_counts_t k = sim_kvpool_counts(p);
    ck_assert_int_eq(k.inserts, 9);
    ck_assert_int_eq(k.evictions, 6);
    ck_assert_int_eq(k.drops, 6);
    ck_assert_int_eq(k.demotions, 0);
    sim_kvpool_free(p);
}
END_TEST

START_TEST(test_lfu_vs_lru_exact)
{
    /* 1 is hot; when 4 arrives LRU evicts 1 (least recent), LFU evicts 2
     * (used once, the oldest of the rarely used). */
    const uint64_t seq[] = {1, 1, 1, 2, 3, 4, 1};
    sim_kvpool_t *lru = pool1("lru", 3, 0), *lfu = pool1("lfu", 3, 0);
    ck_assert_int_eq(run_seq(lru, seq, 7), 2);
    ck_assert_int_eq(run_seq(lfu, seq, 7), 3);
    ck_assert_int_eq(sim_kvpool_tier_of(lfu, 0, 2), -1);
    ck_assert_int_eq(sim_kvpool_tier_of(lfu, 0, 3), SIM_TIER_DRAM);
    sim_kvpool_free(lru);
    sim_kvpool_free(lfu);
}
END_TEST

/* Length-aware evicts the deepest block of a request first, which keeps
 * the prefix that can still hit; LRU and LFU evict its first block. */
START_TEST(test_length_aware_exact)
{
    const uint64_t a[] = {10, 11, 12}, b[] = {20};
    const char *pols[] = {"lru", "lfu", "length_aware"};
    const uint32_t want_lead[] = {0, 0, 2};
    for (int i = 0; i < 3; i++) {
        sim_kvpool_t *p = pool1(pols[i], 3, 0);
        ck_assert_uint_eq(sim_kvpool_access(p, 0, a, 3), 0);
        ck_assert_uint_eq(sim_kvpool_access(p, 0, b, 1), 0);
        ck_assert_msg(sim_kvpool_prefix(p, 0, a, 3, NULL) == want_lead[i], "%s", pols[i]);
        ck_assert_uint_eq(sim_kvpool_access(p, 0, a, 3), want_lead[i]);
        ck_assert_int_eq(sim_kvpool_check(p), 0);
        sim_kvpool_free(p);
    }
    /* Frequency still comes first: a hot deep block outlives a cold shallow one. */
    sim_kvpool_t *p = pool1("length_aware", 2, 0);
    const uint64_t hot[] = {1, 2}, cold[] = {3}, other[] = {4};
    sim_kvpool_access(p, 0, hot, 2);
    sim_kvpool_access(p, 0, hot, 2); /* 1 and 2 at freq 2 */
    sim_kvpool_access(p, 0, cold, 1); /* evicts 2 (deeper of two equals) */
    ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 2), -1);
    sim_kvpool_access(p, 0, other, 1); /* evicts 3 (freq 1) not 1 (freq 2) */
    ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 1), SIM_TIER_DRAM);
    ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 3), -1);
    sim_kvpool_free(p);
}
END_TEST

START_TEST(test_pinning)
{
    sim_kvpool_t *p = pool1("lru", 2, 0);
    const uint64_t one[] = {1}, two[] = {2}, three[] = {3}, four[] = {4};
    sim_kvpool_access(p, 0, one, 1);
    sim_kvpool_access(p, 0, two, 1);
    sim_kvpool_pin(p, 0, one, 1); /* 1 is least recent but in use */
    sim_kvpool_access(p, 0, three, 1);
    ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 1), SIM_TIER_DRAM);
    ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 2), -1);
    sim_kvpool_pin(p, 0, three, 1);
    sim_kvpool_pin(p, 0, three, 1); /* pins nest */
    sim_kvpool_access(p, 0, four, 1); /* everything pinned: refused */
    ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 4), -1);
    ck_assert_int_eq(sim_kvpool_counts(p).rejected, 1);
    ck_assert_int_eq(sim_kvpool_size(p, 0, SIM_TIER_DRAM), 2);
    ck_assert_int_eq(sim_kvpool_check(p), 0);
    sim_kvpool_unpin(p, 0, three, 1);
    sim_kvpool_access(p, 0, four, 1); /* 3 still pinned once, 1 pinned */
    ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 4), -1);
    sim_kvpool_unpin(p, 0, three, 1);
    sim_kvpool_access(p, 0, four, 1);
    ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 3), -1);
    ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 4), SIM_TIER_DRAM);
    sim_kvpool_unpin(p, 0, one, 1);
    ck_assert_int_eq(sim_kvpool_check(p), 0);
    sim_kvpool_free(p);
}
END_TEST

START_TEST(test_demotion_and_promotion)
{
    sim_kvpool_t *p = pool1("lru", 2, 2);
    const uint64_t req[] = {1, 2, 3};
    ck_assert_uint_eq(sim_kvpool_access(p, 0, req, 3), 0);
    /* DRAM holds 2 and 3; 1 went down to SSD. */
    ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 1), SIM_TIER_SSD);
    ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 3), SIM_TIER_DRAM);
    uint32_t by[SIM_N_TIERS];
    ck_assert_uint_eq(sim_kvpool_prefix(p, 0, req, 3, by), 3);
    ck_assert_uint_eq(by[SIM_TIER_DRAM], 2);
    ck_assert_uint_eq(by[SIM_TIER_SSD], 1);
    /* Reuse promotes 1 to DRAM; the least recent DRAM block goes down. */
    ck_assert_uint_eq(sim_kvpool_access(p, 0, req, 1), 1);
    ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 1), SIM_TIER_DRAM);
    ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 2), SIM_TIER_SSD);
    const uint64_t more[] = {4, 5, 6};
    sim_kvpool_access(p, 0, more, 3);
    sim_kvpool_counts_t k = sim_kvpool_counts(p);
    ck_assert_int_eq(k.promotions, 1);
    ck_assert_int_eq(k.demotions, 5);
    ck_assert_int_eq(k.drops, 2); /* SSD full: its oldest blocks leave the node */
    ck_assert_int_le(sim_kvpool_size(p, 0, SIM_TIER_SSD), 2);
    ck_assert_int_le(sim_kvpool_size(p, 0, SIM_TIER_DRAM), 2);
    ck_assert_int_eq(sim_kvpool_check(p), 0);
    sim_kvpool_free(p);
    /* No DRAM at all: blocks go straight to SSD. */
    p = pool1("lru", 0, 5);
    sim_kvpool_access(p, 0, req, 3);
    ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 2), SIM_TIER_SSD);
    sim_kvpool_free(p);
}
END_TEST

START_TEST(test_replicas)
{
    int64_t caps[SIM_N_TIERS] = {10, 0};
    sim_kvpool_t *p = sim_kvpool_new(3, caps, &sim_evict_lru, NULL, 0);
    const uint64_t req[] = {7, 8, 9};
    sim_kvpool_access(p, 0, req, 3);
    ck_assert_uint_eq(sim_kvpool_prefix(p, 1, req, 3, NULL), 0);
    ck_assert_uint_eq(sim_kvpool_replicate(p, 1, req, 2, 0), 2);
    ck_assert_uint_eq(sim_kvpool_replicate(p, 1, req, 2, 0), 0); /* already there */
    ck_assert_uint_eq(sim_kvpool_prefix(p, 1, req, 3, NULL), 2);
    ck_assert_uint_eq(sim_kvpool_replicas(p, 7), 2);
    ck_assert_uint_eq(sim_kvpool_replicas(p, 9), 1);
    ck_assert_uint_eq(sim_kvpool_replicas(p, 99), 0);
    int64_t blocks;
    double mean;
    uint32_t max;
    sim_kvpool_replica_stats(p, &blocks, &mean, &max);
    ck_assert_int_eq(blocks, 3);
    ck_assert_double_eq_tol(mean, 5.0 / 3.0, 1e-12);
    ck_assert_uint_eq(max, 2);
    ck_assert_int_eq(sim_kvpool_counts(p).replications, 2);
    ck_assert_int_eq(sim_kvpool_check(p), 0);
    sim_kvpool_free(p);
}
END_TEST

/* A replica's fetch count belongs to the replica: it counts from 1 again
 * once the block left the node and came back (its entry reused). */
START_TEST(test_fetch_counts)
{
    int64_t caps[SIM_N_TIERS] = {2, 0};
    sim_kvpool_t *p = sim_kvpool_new(2, caps, &sim_evict_lru, NULL, 0);
    const uint64_t a[] = {1, 2}, b[] = {3, 4};
    ck_assert_uint_eq(sim_kvpool_note_fetch(p, 0, a, 2), 0); /* not held */
    sim_kvpool_access(p, 0, a, 2);
    ck_assert_uint_eq(sim_kvpool_note_fetch(p, 0, a, 2), 1);
    ck_assert_uint_eq(sim_kvpool_note_fetch(p, 0, a, 1), 2);
    ck_assert_uint_eq(sim_kvpool_note_fetch(p, 1, a, 2), 0);
    ck_assert_uint_eq(sim_kvpool_note_fetch(p, 0, a, 0), 0);
    ck_assert_uint_eq(sim_kvpool_note_fetch(p, 0, a + 1, 1), 1);
    sim_kvpool_access(p, 0, b, 2); /* evicts 1 and 2; their entries are reused */
    ck_assert_uint_eq(sim_kvpool_note_fetch(p, 0, b, 2), 1);
    ck_assert_uint_eq(sim_kvpool_note_fetch(p, 0, b + 1, 1), 1);
    sim_kvpool_access(p, 0, a, 2);
    ck_assert_uint_eq(sim_kvpool_note_fetch(p, 0, a, 2), 1);
    ck_assert_uint_eq(sim_kvpool_note_fetch(p, 0, b, 2), 0);
    ck_assert_int_eq(sim_kvpool_check(p), 0);
    sim_kvpool_free(p);
}
END_TEST

/* LRU kept in a heap (no list): must evict exactly as the list does. */
static void lru_heap_key(const sim_evict_stats_t *s, const void *params, uint64_t k[SIM_EVICT_KEYS])
{
    (void)params;
    k[0] = s->tick;
    k[1] = k[2] = 0;
}
static const sim_evict_ops_t lru_heap = {.name = "lru_heap", .key = lru_heap_key};

/* Random multi-node traffic with pins, demotions and replication: the
 * invariants hold after every step, capacities are never exceeded, and the
 * list and heap forms of LRU agree step by step. */
START_TEST(test_random_invariants)
{
    int64_t caps[SIM_N_TIERS] = {16, 24};
    sim_kvpool_t *a = sim_kvpool_new(3, caps, &sim_evict_lru, NULL, 0);
    sim_kvpool_t *b = sim_kvpool_new(3, caps, &lru_heap, NULL, 0);
    sim_kvpool_t *c = sim_kvpool_new(3, caps, &sim_evict_length_aware, NULL, SIM_KVPOOL_DENSE_IDS);
    sim_kvpool_t *pools[3] = {a, b, c};
    gsl_rng *r = sim_rng_new(11, 500);
    uint64_t req[12];
    uint64_t pinned[3][12];    /* per node: the request whose prefix is pinned */
    uint32_t n_pin[3][3] = {{0}}; /* per pool and node: blocks pinned */
    int busy[3] = {0, 0, 0};
    for (int step = 0; step < 4000; step++) {
        int node = (int)gsl_rng_uniform_int(r, 3);
        uint32_t n = 1 + (uint32_t)gsl_rng_uniform_int(r, 12);
        uint64_t base = gsl_rng_uniform_int(r, 8) * 100; /* 8 "sessions" */
        for (uint32_t k = 0; k < n; k++)
            req[k] = base + k;
        unsigned op = (unsigned)gsl_rng_uniform_int(r, 10);
        int pin = op == 0 && !busy[node], unpin = op == 2 && busy[node];
        uint32_t lead[3];
        for (int i = 0; i < 3; i++) {
            sim_kvpool_t *p = pools[i];
            if (pin) { /* a prefill starts on node: its reused prefix is pinned */
                lead[i] = n_pin[i][node] = sim_kvpool_prefix(p, node, req, n, NULL);
                sim_kvpool_pin(p, node, req, lead[i]);
            } else if (op == 1) {
                lead[i] = sim_kvpool_replicate(p, (node + 1) % 3, req, n, step % 3 == 0);
            } else {
                lead[i] = sim_kvpool_access(p, node, req, n);
            }
            if (unpin) /* the node's prefill ends */
                sim_kvpool_unpin(p, node, pinned[node], n_pin[i][node]);
            ck_assert_msg(sim_kvpool_check(p) == 0, "pool %d step %d op %u", i, step, op);
            for (int nd = 0; nd < 3; nd++) {
                ck_assert_int_le(sim_kvpool_size(p, nd, SIM_TIER_DRAM), 16);
                ck_assert_int_le(sim_kvpool_size(p, nd, SIM_TIER_SSD), 24);
            }
        }
        ck_assert_uint_eq(lead[0], lead[1]);
        if (pin) {
            memcpy(pinned[node], req, n * sizeof *req);
            busy[node] = 1;
        }
        if (unpin)
            busy[node] = 0;
    }
    sim_kvpool_counts_t ka = sim_kvpool_counts(a), kb = sim_kvpool_counts(b);
    ck_assert_int_eq(ka.evictions, kb.evictions);
    ck_assert_int_eq(ka.demotions, kb.demotions);
    ck_assert_int_gt(ka.demotions, 100);
    ck_assert_int_gt(ka.promotions, 10);
    gsl_rng_free(r);
    for (int i = 0; i < 3; i++)
        sim_kvpool_free(pools[i]);
}
END_TEST

/* ---- LRU against a sorted-list reference ----
 * A plain model of the pool under LRU, from kvpool.h's rules: each node
 * keeps its blocks in an array; a tier's victim is its unpinned block with
 * the smallest tick, found by a scan; DRAM victims go down to SSD when it
 * has room to make (else they leave the node, as SSD's victims do); a
 * reused SSD block comes up to DRAM; cold replicas take ticks below every
 * real one, in the order they were made. */

enum { REF_NODES = 16, REF_SLOTS = 40, REF_FREE = -1, REF_MOVING = -2 };

typedef struct ref_blk {
    uint64_t id, tick;
    int tier; /* REF_FREE: an empty slot; REF_MOVING: between tiers */
    uint32_t pins;
} ref_blk_t;

typedef struct ref_pool {
    ref_blk_t b[REF_NODES][REF_SLOTS];
    int64_t cap[REF_NODES][SIM_N_TIERS];
    uint64_t tick, cold_tick;
    sim_kvpool_counts_t c;
} ref_pool_t;

static void ref_init(ref_pool_t *m, const int64_t caps[SIM_N_TIERS])
{
    memset(m, 0, sizeof *m);
    for (int n = 0; n < REF_NODES; n++) {
        for (int s = 0; s < REF_SLOTS; s++)
            m->b[n][s].tier = REF_FREE;
        for (int t = 0; t < SIM_N_TIERS; t++)
            m->cap[n][t] = caps[t];
    }
    m->tick = UINT64_C(1) << 62;
}

static int ref_find(const ref_pool_t *m, int node, uint64_t id)
{
    for (int s = 0; s < REF_SLOTS; s++)
        if (m->b[node][s].tier >= 0 && m->b[node][s].id == id)
            return s;
    return -1;
}

static int64_t ref_size(const ref_pool_t *m, int node, int tier)
{
    int64_t k = 0;
    for (int s = 0; s < REF_SLOTS; s++)
        k += m->b[node][s].tier == tier;
    return k;
}

static int ref_put(ref_pool_t *m, int node, int s, int tier);

/* Evict tier's least recent unpinned block; -1 when there is none. */
static int ref_evict(ref_pool_t *m, int node, int tier)
{
    int v = -1;
    for (int s = 0; s < REF_SLOTS; s++) {
        const ref_blk_t *x = &m->b[node][s];
        if (x->tier == tier && x->pins == 0 && (v < 0 || x->tick < m->b[node][v].tick))
            v = s;
    }
    if (v < 0)
        return -1;
    m->c.evictions++;
    m->b[node][v].tier = REF_MOVING;
    if (tier == SIM_TIER_DRAM && m->cap[node][SIM_TIER_SSD] != 0 &&
        ref_put(m, node, v, SIM_TIER_SSD) == 0) {
        m->c.demotions++;
    } else {
        m->c.drops++;
        m->b[node][v].tier = REF_FREE;
    }
    return 0;
}

static int ref_put(ref_pool_t *m, int node, int s, int tier)
{
    while (ref_size(m, node, tier) >= m->cap[node][tier])
        if (ref_evict(m, node, tier) != 0)
            return -1;
    m->b[node][s].tier = tier;
    return 0;
}

/* A block new to node; 1 if stored. */
static int ref_store(ref_pool_t *m, int node, uint64_t id, int cold)
{
    int top = m->cap[node][SIM_TIER_DRAM] != 0 ? SIM_TIER_DRAM : SIM_TIER_SSD;
    if (m->cap[node][top] == 0)
        return 0;
    int s = 0;
    while (m->b[node][s].tier != REF_FREE)
        s++;
    ck_assert_int_lt(s, REF_SLOTS);
    m->b[node][s] = (ref_blk_t){.id = id, .tick = cold ? ++m->cold_tick : ++m->tick,
                                .tier = REF_MOVING};
    if (ref_put(m, node, s, top) != 0) {
        m->c.rejected++;
        m->b[node][s].tier = REF_FREE;
        return 0;
    }
    m->c.inserts++;
    return 1;
}

/* Reuse of the block in slot s: newest tick, up from SSD. */
static void ref_reuse(ref_pool_t *m, int node, int s)
{
    ref_blk_t *x = &m->b[node][s];
    x->tick = ++m->tick;
    if (x->tier != SIM_TIER_SSD || m->cap[node][SIM_TIER_DRAM] == 0)
        return;
    x->tier = REF_MOVING;
    if (ref_put(m, node, s, SIM_TIER_DRAM) == 0)
        m->c.promotions++;
    else
        ck_assert_int_eq(ref_put(m, node, s, SIM_TIER_SSD), 0);
}

static uint32_t ref_access(ref_pool_t *m, int node, const uint64_t *blocks, uint32_t n, int cold,
                           int replica)
{
    uint32_t lead = 0, made = 0;
    int run = 1;
    for (uint32_t k = 0; k < n; k++) {
        int s = ref_find(m, node, blocks[k]);
        if (s < 0) {
            run = 0;
            made += (uint32_t)ref_store(m, node, blocks[k], cold);
        } else {
            lead += (uint32_t)run;
            if (!cold)
                ref_reuse(m, node, s);
        }
    }
    m->c.replications += replica ? made : 0;
    return replica ? made : lead;
}

static void ref_pin(ref_pool_t *m, int node, const uint64_t *blocks, uint32_t n, int delta)
{
    for (uint32_t k = 0; k < n; k++) {
        int s = ref_find(m, node, blocks[k]);
        if (s < 0)
            break;
        ref_blk_t *x = &m->b[node][s];
        x->pins = delta > 0 ? x->pins + 1 : x->pins - 1;
        if (delta < 0 && x->pins == 0)
            x->tick = ++m->tick;
    }
}

static void ref_set_capacity(ref_pool_t *m, int node, int tier, int64_t cap)
{
    m->cap[node][tier] = cap;
    while (ref_size(m, node, tier) > cap && ref_evict(m, node, tier) == 0)
        ;
}

/* Every block's tier on every node, the sizes and the counters agree. */
static void ref_compare(const ref_pool_t *m, const sim_kvpool_t *p, const uint64_t *ids, int n_ids,
                        int step)
{
    ck_assert_msg(sim_kvpool_check(p) == 0, "step %d", step);
    /* One assertion per step: Check marks every assertion it passes. */
    int bad_node = -1, bad_id = -1, bad_tier = -1;
    for (int node = 0; node < REF_NODES && bad_node < 0; node++) {
        for (int i = 0; i < n_ids && bad_node < 0; i++) {
            int s = ref_find(m, node, ids[i]);
            if (sim_kvpool_tier_of(p, node, ids[i]) != (s < 0 ? -1 : m->b[node][s].tier)) {
                bad_node = node;
                bad_id = i;
            }
        }
        for (int t = 0; t < SIM_N_TIERS && bad_node < 0; t++)
            if (sim_kvpool_size(p, node, t) != ref_size(m, node, t)) {
                bad_node = node;
                bad_tier = t;
            }
    }
    ck_assert_msg(bad_node < 0, "step %d node %d: block #%d / tier %d size differ", step, bad_node,
                  bad_id, bad_tier);
    sim_kvpool_counts_t k = sim_kvpool_counts(p);
    ck_assert_int_eq(k.inserts, m->c.inserts);
    ck_assert_int_eq(k.evictions, m->c.evictions);
    ck_assert_int_eq(k.demotions, m->c.demotions);
    ck_assert_int_eq(k.promotions, m->c.promotions);
    ck_assert_int_eq(k.drops, m->c.drops);
    ck_assert_int_eq(k.rejected, m->c.rejected);
    ck_assert_int_eq(k.replications, m->c.replications);
}

/* Block x of the test's universe: sequential ids, or (sparse) some of
 * them far apart, which moves the pool's index to its hash map midway. */
static uint64_t ref_id(uint64_t x, int sparse)
{
    return sparse && x % 7 == 5 ? x * UINT64_C(0x9E3779B97F4A7C15) : x;
}

/* Random traffic on 16 nodes: accesses, pins and releases, cold and warm
 * replicas, capacity changes; the pool's LRU state equals the reference
 * after every step. Blocks reach more replicas than the pool keeps in
 * plain chains (8) and fall back below 4, so both ways of finding a
 * node's replica are exercised. */
static void ref_random_run(const int64_t caps[SIM_N_TIERS], int sparse, unsigned long seed)
{
    sim_kvpool_t *p = sim_kvpool_new(REF_NODES, caps, &sim_evict_lru, NULL, 0);
    ref_pool_t *m = malloc(sizeof *m);
    ref_init(m, caps);
    gsl_rng *r = sim_rng_new(seed, 501);
    enum { SESSIONS = 6, LEN = 10 };
    uint64_t ids[SESSIONS * LEN], req[LEN], pinned[REF_NODES][LEN];
    uint32_t n_pin[REF_NODES] = {0};
    int busy[REF_NODES] = {0};
    uint32_t max_rep = 0;
    for (int i = 0; i < SESSIONS * LEN; i++)
        ids[i] = ref_id((uint64_t)(i / LEN) * 100 + (uint64_t)(i % LEN), sparse);
    for (int step = 0; step < 3000; step++) {
        int node = (int)gsl_rng_uniform_int(r, REF_NODES);
        uint32_t n = 1 + (uint32_t)gsl_rng_uniform_int(r, LEN);
        uint64_t base = gsl_rng_uniform_int(r, SESSIONS) * 100;
        for (uint32_t k = 0; k < n; k++)
            req[k] = ref_id(base + k, sparse);
        unsigned op = (unsigned)gsl_rng_uniform_int(r, 20);
        if (op < 2 && !busy[node]) { /* a prefill starts: its reused prefix is pinned */
            n_pin[node] = sim_kvpool_prefix(p, node, req, n, NULL);
            sim_kvpool_pin(p, node, req, n_pin[node]);
            ref_pin(m, node, req, n_pin[node], 1);
            memcpy(pinned[node], req, n * sizeof *req);
            busy[node] = 1;
        } else if (op < 4 && busy[node]) { /* it ends */
            sim_kvpool_unpin(p, node, pinned[node], n_pin[node]);
            ref_pin(m, node, pinned[node], n_pin[node], -1);
            busy[node] = 0;
        } else if (op < 7) {
            int cold = op < 5;
            ck_assert_uint_eq(sim_kvpool_replicate(p, node, req, n, cold),
                              ref_access(m, node, req, n, cold, 1));
        } else if (op == 7) { /* a present tier of an idle node shrinks or grows */
            int tier = (int)gsl_rng_uniform_int(r, SIM_N_TIERS);
            int64_t cap = 1 + (int64_t)gsl_rng_uniform_int(r, (unsigned long)caps[tier] + 2);
            if (caps[tier] > 0 && !busy[node]) {
                sim_kvpool_set_capacity(p, node, tier, cap);
                ref_set_capacity(m, node, tier, cap);
            }
        } else {
            ck_assert_uint_eq(sim_kvpool_access(p, node, req, n),
                              ref_access(m, node, req, n, 0, 0));
        }
        ref_compare(m, p, ids, SESSIONS * LEN, step);
        int64_t nb;
        double mean;
        uint32_t mx;
        sim_kvpool_replica_stats(p, &nb, &mean, &mx);
        max_rep = mx > max_rep ? mx : max_rep;
    }
    ck_assert_uint_ge(max_rep, 8);
    sim_kvpool_counts_t k = sim_kvpool_counts(p);
    ck_assert_int_gt(k.evictions, 100);
    if (caps[SIM_TIER_DRAM] > 0 && caps[SIM_TIER_SSD] > 0)
        ck_assert_int_gt(k.demotions, 50);
    gsl_rng_free(r);
    free(m);
    sim_kvpool_free(p);
}

START_TEST(test_lru_vs_reference)
{
    const int64_t both[SIM_N_TIERS] = {6, 10}, ssd_only[SIM_N_TIERS] = {0, 9},
                  dram_only[SIM_N_TIERS] = {8, 0};
    for (unsigned long seed = 1; seed <= 3; seed++) {
        ref_random_run(both, 0, seed);
        ref_random_run(both, 1, seed);
        ref_random_run(ssd_only, 0, seed);
        ref_random_run(dram_only, 1, seed);
    }
}
END_TEST

/* The per-node prefix by a walk of its own: tier_of block by block. */
static uint32_t plain_prefix(const sim_kvpool_t *p, int node, const uint64_t *blocks, uint32_t n,
                             uint32_t by_tier[SIM_N_TIERS])
{
    memset(by_tier, 0, SIM_N_TIERS * sizeof *by_tier);
    uint32_t k = 0;
    for (; k < n; k++) {
        int t = sim_kvpool_tier_of(p, node, blocks[k]);
        if (t < 0)
            break;
        by_tier[t]++;
    }
    return k;
}

/* Random pools of many nodes (replicas, demotions, evictions): the one
 * walk of sim_kvpool_prefix_all equals every node's own prefix (its
 * blocks per tier too, sim_kvpool_prefix_all_tiers), and
 * sim_kvpool_prefix answers right after it (from what the walk kept) for
 * the same list, for a list that differs only beyond a node's run, for
 * the same array changed in place, and after the pool changed. 24 nodes,
 * and 130 (the walk's node sets span three words, the last in part). */
START_TEST(test_prefix_all_vs_per_node)
{
    enum { MAX_NODES = 130, LEN = 16 };
    const int64_t caps[SIM_N_TIERS] = {20, 30};
    size_t n_pol = 0;
    while (sim_evict_at(n_pol))
        n_pol++;
    for (int pi = 0; pi < (int)(2 * n_pol); pi++) { /* every policy, 24 nodes then 130 */
        const int NODES = pi < (int)n_pol ? 24 : MAX_NODES;
        sim_kvpool_t *p = sim_kvpool_new(NODES, caps, sim_evict_at((size_t)pi % n_pol), NULL, 0);
        gsl_rng *r = sim_rng_new(7 + (unsigned long)pi, 502);
        uint64_t req[LEN], other[LEN];
        uint32_t all[MAX_NODES], by[SIM_N_TIERS], want_by[SIM_N_TIERS];
        for (int step = 0; step < 1500; step++) {
            uint32_t n = 1 + (uint32_t)gsl_rng_uniform_int(r, LEN);
            uint64_t base = gsl_rng_uniform_int(r, 10) * 100;
            for (uint32_t k = 0; k < n; k++)
                req[k] = base + k;
            int node = (int)gsl_rng_uniform_int(r, (unsigned long)NODES);
            if (gsl_rng_uniform_int(r, 3) == 0)
                sim_kvpool_replicate(p, node, req, n, (int)gsl_rng_uniform_int(r, 2));
            else
                sim_kvpool_access(p, node, req, n);
            /* A query sharing some leading blocks with the last request. */
            uint32_t keep = (uint32_t)gsl_rng_uniform_int(r, n + 1);
            for (uint32_t k = 0; k < n; k++)
                req[k] = k < keep ? req[k] : 5000 + gsl_rng_uniform_int(r, 3);
            /* The scan alone: each node listed, in the common set or without a
             * run, as its own walk says; sim_kvpool_prefix answers from it. */
            sim_kvpool_prefix_scan(p, req, n);
            sim_kvpool_runs_t runs;
            sim_kvpool_scan_runs(p, &runs);
            int listed[MAX_NODES] = {0}, wrong = -1;
            for (size_t q = 0; q < runs.n_listed; q++)
                listed[runs.listed[q]]++;
            for (int nd = 0; nd < NODES && wrong < 0; nd++) {
                uint32_t want = plain_prefix(p, nd, req, n, want_by);
                int in_common = (int)(runs.common[nd / 64] >> (nd % 64) & 1);
                uint32_t len = listed[nd] ? sim_kvpool_scan_node(p, nd, by)
                                          : in_common ? runs.common_len : 0;
                if (!listed[nd])
                    memcpy(by, in_common ? runs.common_by : (uint32_t[SIM_N_TIERS]){0}, sizeof by);
                if (listed[nd] > 1 || (listed[nd] && in_common) || len != want ||
                    memcmp(by, want_by, sizeof by) || sim_kvpool_scan_node(p, nd, NULL) != want ||
                    sim_kvpool_prefix(p, nd, req, n, by) != want || memcmp(by, want_by, sizeof by))
                    wrong = nd;
            }
            ck_assert_msg(wrong < 0, "%d nodes, step %d: the scan's run of node %d differs", NODES,
                          step, wrong);
            sim_kvpool_prefix_all(p, req, n, all);
            memcpy(other, req, sizeof req);
            uint32_t cut = (uint32_t)gsl_rng_uniform_int(r, n); /* other differs from here */
            other[cut] = 7777;
            /* One assertion a step (Check records every one that passes). */
            int bad = -1;
            for (int nd = 0; nd < NODES && bad < 0; nd++) {
                uint32_t want = plain_prefix(p, nd, req, n, want_by);
                if (all[nd] != want ||
                    memcmp(sim_kvpool_prefix_all_tiers(p) + nd * SIM_N_TIERS, want_by, sizeof by) ||
                    sim_kvpool_prefix(p, nd, req, n, by) != want || memcmp(by, want_by, sizeof by))
                    bad = nd;
                want = plain_prefix(p, nd, other, n, want_by);
                if (sim_kvpool_prefix(p, nd, other, n, by) != want || memcmp(by, want_by, sizeof by))
                    bad = nd;
            }
            ck_assert_msg(bad < 0, "%d nodes, step %d: node %d's prefix differs", NODES, step, bad);
            req[cut] = 7777; /* the same array, changed in place */
            for (int nd = 0; nd < NODES && bad < 0; nd++)
                if (sim_kvpool_prefix(p, nd, req, n, NULL) != plain_prefix(p, nd, req, n, want_by))
                    bad = nd;
            sim_kvpool_prefix_all(p, req, n, all);
            sim_kvpool_access(p, node, req, n); /* the pool changes */
            for (int nd = 0; nd < NODES && bad < 0; nd++)
                if (sim_kvpool_prefix(p, nd, req, n, NULL) != plain_prefix(p, nd, req, n, want_by))
                    bad = nd;
            ck_assert_msg(bad < 0, "%d nodes, step %d: node %d's prefix differs after a change",
                          NODES, step, bad);
            if (step % 100 == 0)
                ck_assert_int_eq(sim_kvpool_check(p), 0);
        }
        int64_t blocks, replicas, multi;
        sim_kvpool_replica_totals(p, &blocks, &replicas, &multi);
        ck_assert_int_gt(multi, 10); /* the walks did meet replicas */
        ck_assert_int_gt(sim_kvpool_counts(p).demotions, 100);
        gsl_rng_free(r);
        sim_kvpool_free(p);
    }
}
END_TEST

/* A prefix every node holds on SSD (demoted) is one common run counted
 * on SSD; held on SSD by half the nodes and in DRAM by the others, each
 * node gets its own run. */
START_TEST(test_prefix_scan_tiers)
{
    enum { NODES = 70, LEN = 3 };
    const int64_t caps[SIM_N_TIERS] = {20, 30};
    sim_kvpool_t *p = sim_kvpool_new(NODES, caps, sim_evict_find("lru"), NULL, 0);
    const uint64_t sys[LEN + 1] = {1, 2, 3, 4};
    uint64_t other[20];
    for (int nd = 0; nd < NODES; nd++)
        sim_kvpool_access(p, nd, sys, LEN);
    for (int round = 0; round < 2; round++) {
        /* round 0: every node's DRAM refills, the prefix goes to SSD; round
         * 1: the first half uses it again (back in DRAM) */
        for (int nd = 0; nd < NODES; nd++) {
            if (round == 1 && nd < NODES / 2) {
                sim_kvpool_access(p, nd, sys, LEN);
                continue;
            }
            if (round == 1)
                continue;
            for (size_t k = 0; k < 20; k++)
                other[k] = 1000 + (uint64_t)nd * 100 + k;
            sim_kvpool_access(p, nd, other, 20);
        }
        sim_kvpool_prefix_scan(p, sys, LEN + 1);
        sim_kvpool_runs_t runs;
        sim_kvpool_scan_runs(p, &runs);
        uint32_t by[SIM_N_TIERS];
        if (round == 0) {
            ck_assert_uint_eq(runs.common_len, LEN);
            ck_assert_uint_eq(runs.common_by[SIM_TIER_SSD], LEN);
            ck_assert_uint_eq(runs.n_listed, 0);
        } else {
            ck_assert_uint_eq(runs.n_listed, NODES);
        }
        for (int nd = 0; nd < NODES; nd++) {
            ck_assert_uint_eq(sim_kvpool_scan_node(p, nd, by), LEN);
            int dram = round == 1 && nd < NODES / 2;
            ck_assert_uint_eq(by[dram ? SIM_TIER_DRAM : SIM_TIER_SSD], LEN);
        }
    }
    ck_assert_int_eq(sim_kvpool_check(p), 0);
    sim_kvpool_free(p);
}
END_TEST

/* ---- the trace cache analysis against a plain implementation ---- */

typedef struct plain_blk {
    uint64_t id, freq, tick;
    uint32_t pos;
} plain_blk_t;

/* Is x a better victim than y under policy pol? Written out per policy
 * from the rules in docs/model.md, independently of the key functions. */
static int plain_before(int pol, const plain_blk_t *x, const plain_blk_t *y)
{
    if (pol == 0)
        return x->tick < y->tick;
    if (x->freq != y->freq)
        return x->freq < y->freq;
    if (pol == 2 && x->pos != y->pos)
        return x->pos > y->pos;
    return x->tick < y->tick;
}

/* Linear scans over an array: O(capacity) per access, obviously right. */
static double plain_hit_rate(const char *path, int64_t limit, int pol, size_t cap_blocks)
{
    plain_blk_t *c = calloc(cap_blocks, sizeof *c);
    size_t n = 0;
    uint64_t tick = 0;
    double hit = 0, total = 0;
    sim_err_t err;
    trace_open_args_t a = {.path = path, .format = "auto", .speed = 1, .limit = limit};
    trace_t *t = trace_open(&a, &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    trace_req_t r;
    while (trace_next(t, &r, &err) == TRACE_OK) {
        int run = 1;
        uint32_t lead = 0;
        for (uint32_t k = 0; k < r.n_blocks; k++) {
            size_t j = 0;
            while (j < n && c[j].id != r.blocks[k])
                j++;
            if (j < n) {
                lead += (uint32_t)run;
                c[j].freq++;
                c[j].tick = ++tick;
                continue;
            }
            run = 0;
            if (n == cap_blocks) {
                size_t v = 0;
                for (size_t q = 1; q < n; q++)
                    if (plain_before(pol, &c[q], &c[v]))
                        v = q;
                c[v] = c[--n];
            }
            c[n++] = (plain_blk_t){.id = r.blocks[k], .freq = 1, .tick = ++tick, .pos = k};
        }
        total += (double)r.input_tok;
        hit += (double)SIM_MIN((int64_t)lead * 512, r.input_tok);
    }
    trace_close(t);
    free(c);
    return hit / total;
}

static void compare_with_plain(const char *file, int64_t limit)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", tests_traces_dir(), file);
    const char *pols[] = {"lru", "lfu", "length_aware"};
    int64_t caps[] = {40 * 512, 400 * 512, 3000 * 512};
    for (int pol = 0; pol < 3; pol++) {
        double fast[3];
        sim_err_t err;
        trace_open_args_t a = {.path = path, .format = "auto", .speed = 1, .limit = limit};
        ck_assert_msg(trace_cache_analysis(&a, pols[pol], caps, 3, fast, &err) == 0, "%s", err.msg);
        for (int i = 0; i < 3; i++) {
            double plain = plain_hit_rate(path, limit, pol, (size_t)(caps[i] / 512));
            ck_assert_msg(fast[i] == plain, "%s %s cap %lld: pool %.10f, plain %.10f", file,
                          pols[pol], (long long)caps[i], fast[i], plain);
        }
    }
}

START_TEST(test_cache_analysis_conversation_vs_plain)
{
    compare_with_plain("conversation_trace.jsonl.zst", 2500);
}
END_TEST

START_TEST(test_cache_analysis_synthetic_vs_plain)
{
    compare_with_plain("synthetic_trace.jsonl.zst", 1500);
}
END_TEST

/* Unlimited capacity is the ideal hit rate `trace stats` reports. */
START_TEST(test_cache_analysis_unlimited_is_ideal)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/conversation_trace.jsonl.zst", tests_traces_dir());
    int64_t caps[] = {-1, 1000000000};
    double rate[2];
    sim_err_t err;
    trace_open_args_t a = {.path = path, .format = "auto", .speed = 1};
    ck_assert_int_eq(trace_cache_analysis(&a, "lfu", caps, 2, rate, &err), 0);
    ck_assert_double_eq(rate[0], rate[1]);
    ck_assert_double_eq_tol(rate[0], 0.3736237491, 1e-9);
    ck_assert_int_eq(trace_cache_analysis(&a, "no_such_policy", caps, 1, rate, &err), -1);
    char names[256], want[300];
    sim_evict_names(names, sizeof names);
    snprintf(want, sizeof want, "(valid: %s)", names);
    ck_assert_msg(strstr(err.msg, want), "%s", err.msg);
}
END_TEST

START_TEST(test_hmap)
{
    sim_hmap_t m;
    sim_hmap_init(&m);
    gsl_rng *r = sim_rng_new(3, 77);
    enum { N = 5000 };
    static uint32_t ref[N]; /* value + 1, 0 = absent */
    memset(ref, 0, sizeof ref);
    for (int step = 0; step < 200000; step++) {
        uint64_t k = gsl_rng_uniform_int(r, N);
        uint64_t key = k * UINT64_C(0x9E3779B97F4A7C15); /* spread, incl. huge keys */
        if (gsl_rng_uniform(r) < 0.45) {
            ck_assert_int_eq(sim_hmap_del(&m, key), ref[k] != 0);
            ref[k] = 0;
        } else {
            sim_hmap_put(&m, key, (uint32_t)step);
            ref[k] = (uint32_t)step + 1;
        }
        if (step % 1000 == 0) {
            size_t live = 0;
            uint64_t q = 0; /* the first key the map answers wrongly (N: none) */
            for (; q < N; q++) {
                uint32_t *v = sim_hmap_get(&m, q * UINT64_C(0x9E3779B97F4A7C15));
                if ((v ? *v + 1 : 0) != ref[q])
                    break;
                live += v != NULL;
            }
            ck_assert_msg(q == N, "step %d: key %llu", step, (unsigned long long)q);
            ck_assert_uint_eq(live, m.n);
        }
    }
    gsl_rng_free(r);
    sim_hmap_free(&m);
}
END_TEST

/* A prefill's end, sim_kvpool_release_access, against the two calls it
 * stands for (sim_kvpool_unpin, then sim_kvpool_access): random traffic
 * on two pools, one ending prefills each way, with up to two prefills
 * pinned per node (so pins nest and some blocks stay pinned), ids
 * repeated within a request, small tiers that promotions and stores keep
 * full, and each policy (LRU's runs, LRU on the heap, LFU, length-aware).
 * After every step both pools hold the same blocks in the same tiers,
 * with the same counts and answers: a victim taken in another order
 * would show in one of them. */
static void release_run(const sim_evict_ops_t *ops, const int64_t caps[SIM_N_TIERS],
                        unsigned long seed)
{
    enum { NODES = 3, LEN = 12, SLOTS = 2 };
    sim_kvpool_t *a = sim_kvpool_new(NODES, caps, ops, NULL, 0);
    sim_kvpool_t *b = sim_kvpool_new(NODES, caps, ops, NULL, 0);
    gsl_rng *r = sim_rng_new(seed, 502);
    uint64_t req[LEN], pinned[NODES][SLOTS][LEN];
    uint32_t n_req[NODES][SLOTS], n_pin[NODES][SLOTS];
    int busy[NODES][SLOTS] = {{0}};
    int64_t ends = 0, released_promoted = 0;
    for (int step = 0; step < 3000; step++) {
        int node = (int)gsl_rng_uniform_int(r, NODES), slot = (int)gsl_rng_uniform_int(r, SLOTS);
        uint32_t n = 1 + (uint32_t)gsl_rng_uniform_int(r, LEN);
        uint64_t base = gsl_rng_uniform_int(r, 6) * 100;
        for (uint32_t k = 0; k < n; k++)
            req[k] = base + k;
        if (n > 3 && gsl_rng_uniform_int(r, 4) == 0) /* an id used twice */
            req[n - 1] = req[gsl_rng_uniform_int(r, n - 1)];
        unsigned op = (unsigned)gsl_rng_uniform_int(r, 10);
        uint32_t la = 0, lb = 0;
        if (op < 3 && !busy[node][slot]) { /* a prefill starts: its prefix is pinned */
            n_pin[node][slot] = sim_kvpool_prefix(a, node, req, n, NULL);
            ck_assert_uint_eq(n_pin[node][slot], sim_kvpool_prefix(b, node, req, n, NULL));
            sim_kvpool_pin(a, node, req, n_pin[node][slot]);
            sim_kvpool_pin(b, node, req, n_pin[node][slot]);
            memcpy(pinned[node][slot], req, n * sizeof *req);
            n_req[node][slot] = n;
            busy[node][slot] = 1;
        } else if (op < 6 && busy[node][slot]) { /* it ends */
            const uint64_t *q = pinned[node][slot];
            uint32_t np = n_pin[node][slot], nq = n_req[node][slot];
            for (uint32_t k = 0; k < np; k++)
                released_promoted += sim_kvpool_tier_of(a, node, q[k]) == SIM_TIER_SSD;
            sim_kvpool_unpin(a, node, q, np);
            la = sim_kvpool_access(a, node, q, nq);
            lb = sim_kvpool_release_access(b, node, q, np, nq);
            busy[node][slot] = 0;
            ends++;
        } else if (op < 7) {
            int cold = step % 2 == 0;
            la = sim_kvpool_replicate(a, (node + 1) % NODES, req, n, cold);
            lb = sim_kvpool_replicate(b, (node + 1) % NODES, req, n, cold);
        } else {
            la = sim_kvpool_access(a, node, req, n);
            lb = sim_kvpool_access(b, node, req, n);
        }
        ck_assert_uint_eq(la, lb);
        ck_assert_int_eq(sim_kvpool_check(a), 0);
        ck_assert_int_eq(sim_kvpool_check(b), 0);
        /* Compared first and asserted once: Check records every
         * assertion that passes, which over these 432 a step was most of
         * the test's time. */
        int bad_node = -1;
        uint64_t bad_id = 0;
        for (int nd = 0; nd < NODES && bad_node < 0; nd++) {
            for (int t = 0; t < SIM_N_TIERS; t++)
                if (sim_kvpool_size(a, nd, t) != sim_kvpool_size(b, nd, t))
                    bad_node = nd;
            for (uint64_t s6 = 0; s6 < 6 && bad_node < 0; s6++)
                for (uint64_t k = 0; k < LEN && bad_node < 0; k++)
                    if (sim_kvpool_tier_of(a, nd, s6 * 100 + k) !=
                        sim_kvpool_tier_of(b, nd, s6 * 100 + k)) {
                        bad_node = nd;
                        bad_id = s6 * 100 + k;
                    }
        }
        ck_assert_msg(bad_node < 0, "%s step %d node %d: tier sizes or block %llu differ", ops->name,
                      step, bad_node, (unsigned long long)bad_id);
        sim_kvpool_counts_t ka = sim_kvpool_counts(a), kb = sim_kvpool_counts(b);
        ck_assert_int_eq(ka.evictions, kb.evictions);
        ck_assert_int_eq(ka.demotions, kb.demotions);
        ck_assert_int_eq(ka.promotions, kb.promotions);
        ck_assert_int_eq(ka.drops, kb.drops);
        ck_assert_int_eq(ka.inserts, kb.inserts);
    }
    ck_assert_int_gt(ends, 300);
    if (caps[SIM_TIER_DRAM] > 0 && caps[SIM_TIER_SSD] > 0)
        ck_assert_int_gt(released_promoted, 20);
    ck_assert_int_gt(sim_kvpool_counts(a).evictions, 100);
    gsl_rng_free(r);
    sim_kvpool_free(a);
    sim_kvpool_free(b);
}

START_TEST(test_release_access_same)
{
    const int64_t both[SIM_N_TIERS] = {8, 12}, ssd_only[SIM_N_TIERS] = {0, 10},
                  dram_only[SIM_N_TIERS] = {9, 0};
    /* Every registered policy, and LRU kept in a heap. */
    size_t i = 0;
    for (const sim_evict_ops_t *ops = &lru_heap; ops; ops = sim_evict_at(i++)) {
        for (unsigned long seed = 1; seed <= 2; seed++) {
            release_run(ops, both, seed);
            release_run(ops, ssd_only, seed);
            release_run(ops, dram_only, seed);
        }
    }
}
END_TEST

/* The index holds the live blocks only: 4 M distinct ids streamed
 * through a pool of 2 x 2048 blocks (a shared first block kept live all
 * along) leave it as large as after the first 64 K but for the paged
 * array's directory (10 bytes per 1024 ids), where a direct array over
 * every id ever seen would hold 16 MiB; ids spread past the pages' reach
 * (the hash map) leave it no larger at all. */
static void index_stays_bounded(uint64_t stride)
{
    const int64_t caps[SIM_N_TIERS] = {1024, 1024};
    sim_kvpool_t *p = sim_kvpool_new(2, caps, &sim_evict_lru, NULL, 0);
    uint64_t blocks[17];
    size_t early = 0;
    for (uint64_t r = 0; r < (UINT64_C(1) << 18); r++) {
        blocks[0] = 0;
        for (uint64_t k = 0; k < 16; k++)
            blocks[1 + k] = (1 + r * 16 + k) * stride;
        sim_kvpool_access(p, (int)(r & 1), blocks, 17);
        if (r == 4096) {
            early = sim_kvpool_index_bytes(p);
            ck_assert_int_eq(sim_kvpool_check(p), 0);
        }
    }
    ck_assert_int_eq(sim_kvpool_check(p), 0);
    ck_assert_int_eq(sim_kvpool_tier_of(p, 0, 0), SIM_TIER_DRAM);
    size_t late = sim_kvpool_index_bytes(p);
    /* Only the directory grows: 10 bytes per 1024 ids (doubling). */
    ck_assert_msg(late <= early + 2 * 10 * (4 << 10), "index grew from %zu to %zu bytes", early,
                  late);
    ck_assert_uint_le(late, 128 << 10);
    sim_kvpool_free(p);
}

START_TEST(test_index_bounded_by_live)
{
    index_stays_bounded(1);
    index_stays_bounded(UINT64_C(1) << 33);
}
END_TEST

/* Random multi-node traffic with pins, demotions, promotions, cold and
 * warm replicas and capacity changes under every registered policy: the
 * invariants (the policy's own order's included) hold after every step
 * and capacities are never exceeded. */
START_TEST(test_every_policy_invariants)
{
    for (size_t pi = 0; sim_evict_at(pi); pi++) {
        const sim_evict_ops_t *ops = sim_evict_at(pi);
        int64_t caps[SIM_N_TIERS] = {16, 24};
        sim_kvpool_t *p = sim_kvpool_new(3, caps, ops, NULL, 0);
        gsl_rng *r = sim_rng_new(13 + pi, 500);
        uint64_t req[12], pinned[3][12];
        uint32_t n_pin[3] = {0};
        for (int step = 0; step < 3000; step++) {
            int node = (int)gsl_rng_uniform_int(r, 3);
            uint32_t n = 1 + (uint32_t)gsl_rng_uniform_int(r, 12);
            uint64_t base = gsl_rng_uniform_int(r, 8) * 100;
            for (uint32_t k = 0; k < n; k++)
                req[k] = base + k;
            unsigned op = (unsigned)gsl_rng_uniform_int(r, 12);
            if (op == 0 && n_pin[node] == 0) {
                n_pin[node] = sim_kvpool_prefix(p, node, req, n, NULL);
                sim_kvpool_pin(p, node, req, n_pin[node]);
                memcpy(pinned[node], req, n * sizeof *req);
            } else if (op == 1 && n_pin[node] > 0) {
                sim_kvpool_release_access(p, node, pinned[node], n_pin[node], n_pin[node]);
                n_pin[node] = 0;
            } else if (op == 2) {
                sim_kvpool_replicate(p, (node + 1) % 3, req, n, step % 2);
            } else if (op == 3 && step % 50 == 0) {
                sim_kvpool_set_capacity(p, node, SIM_TIER_DRAM, 8 + (step / 50) % 9);
            } else {
                sim_kvpool_access(p, node, req, n);
            }
            ck_assert_msg(sim_kvpool_check(p) == 0, "%s step %d op %u", ops->name, step, op);
            for (int nd = 0; nd < 3; nd++) {
                ck_assert_int_le(sim_kvpool_size(p, nd, SIM_TIER_DRAM), 16);
                ck_assert_int_le(sim_kvpool_size(p, nd, SIM_TIER_SSD), 24);
            }
        }
        ck_assert_msg(sim_kvpool_counts(p).demotions > 100, "%s", ops->name);
        ck_assert_msg(sim_kvpool_counts(p).promotions > 10, "%s", ops->name);
        gsl_rng_free(r);
        sim_kvpool_free(p);
    }
}
END_TEST

/* ---- S3-FIFO against a plain reference ----
 * The rules of sim/pool/evict/s3fifo.c (SOSP'23's Algorithm 1) written
 * with arrays shifted by hand: S, M and the ghost G are arrays, oldest
 * first; no pins, no tiers. */

enum { S3REF_MAX = 256 };

typedef struct s3ref {
    int64_t cap;
    double small_frac;
    uint64_t s_id[S3REF_MAX], m_id[S3REF_MAX], g_id[S3REF_MAX];
    int s_freq[S3REF_MAX], m_freq[S3REF_MAX];
    int n_s, n_m, n_g;
} s3ref_t;

static int s3ref_find(const uint64_t *ids, int n, uint64_t id)
{
    for (int i = 0; i < n; i++)
        if (ids[i] == id)
            return i;
    return -1;
}

/* Take element i out of an array of n (ids and, when freq, freqs). */
static void s3ref_take(uint64_t *ids, int *freq, int *n, int i)
{
    for (int j = i; j + 1 < *n; j++) {
        ids[j] = ids[j + 1];
        if (freq)
            freq[j] = freq[j + 1];
    }
    (*n)--;
}

static void s3ref_evict(s3ref_t *c)
{
    if (c->n_s > 0 && ((double)c->n_s >= c->small_frac * (double)c->cap || c->n_m == 0)) {
        while (c->n_s > 0) {
            uint64_t id = c->s_id[0];
            int f = c->s_freq[0];
            s3ref_take(c->s_id, c->s_freq, &c->n_s, 0);
            if (f > 1) {
                c->m_id[c->n_m] = id;
                c->m_freq[c->n_m++] = f;
                continue;
            }
            int64_t gcap = (int64_t)((1 - c->small_frac) * (double)c->cap);
            c->g_id[c->n_g++] = id;
            while (c->n_g > gcap)
                s3ref_take(c->g_id, NULL, &c->n_g, 0);
            return;
        }
    }
    for (;;) {
        uint64_t id = c->m_id[0];
        int f = c->m_freq[0];
        s3ref_take(c->m_id, c->m_freq, &c->n_m, 0);
        if (f == 0)
            return;
        c->m_id[c->n_m] = id;
        c->m_freq[c->n_m++] = f - 1;
    }
}

/* 1 on a hit. */
static int s3ref_access(s3ref_t *c, uint64_t id)
{
    int i = s3ref_find(c->s_id, c->n_s, id);
    if (i >= 0) {
        c->s_freq[i] = c->s_freq[i] < 3 ? c->s_freq[i] + 1 : 3;
        return 1;
    }
    i = s3ref_find(c->m_id, c->n_m, id);
    if (i >= 0) {
        c->m_freq[i] = c->m_freq[i] < 3 ? c->m_freq[i] + 1 : 3;
        return 1;
    }
    while (c->n_s + c->n_m >= c->cap)
        s3ref_evict(c);
    i = s3ref_find(c->g_id, c->n_g, id);
    if (i >= 0) {
        s3ref_take(c->g_id, NULL, &c->n_g, i);
        c->m_id[c->n_m] = id;
        c->m_freq[c->n_m++] = 0;
    } else {
        c->s_id[c->n_s] = id;
        c->s_freq[c->n_s++] = 0;
    }
    return 0;
}

/* A skewed trace of single-block requests through a one-node pool and
 * through the reference: the same hit or miss at every access. Also with
 * small_frac set through the policy's parameter table. */
START_TEST(test_s3fifo_vs_reference)
{
    const sim_evict_ops_t *ops = sim_evict_find("s3fifo");
    ck_assert_ptr_nonnull(ops);
    const struct {
        int64_t cap;
        const char *frac;
    } cases[] = {{10, NULL}, {30, NULL}, {16, "0.25"}, {40, "0.5"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        void *params = calloc(1, ops->params->size);
        sim_params_defaults(ops->params, params);
        sim_err_t err;
        if (cases[c].frac)
            ck_assert_int_eq(sim_params_set_text(sim_params_find(ops->params, "small_frac"),
                                                 params, cases[c].frac, "t: ", &err), 0);
        s3ref_t ref = {.cap = cases[c].cap, .small_frac = cases[c].frac ? atof(cases[c].frac) : 0.1};
        int64_t caps[SIM_N_TIERS] = {cases[c].cap, 0};
        sim_kvpool_t *p = sim_kvpool_new(1, caps, ops, params, 0);
        gsl_rng *r = sim_rng_new(21 + c, 503);
        int hits = 0, from_ghost = 0;
        for (int step = 0; step < 4000; step++) {
            /* Half the accesses to 12 hot ids, the rest over 200. */
            uint64_t id = gsl_rng_uniform_int(r, 2) ? gsl_rng_uniform_int(r, 12)
                                                    : 12 + gsl_rng_uniform_int(r, 200);
            int in_ghost = s3ref_find(ref.g_id, ref.n_g, id) >= 0;
            int want = s3ref_access(&ref, id);
            uint32_t got = sim_kvpool_access(p, 0, &id, 1);
            ck_assert_msg(got == (uint32_t)want, "cap %lld step %d id %llu: pool %u, reference %d",
                          (long long)cases[c].cap, step, (unsigned long long)id, got, want);
            hits += want;
            from_ghost += in_ghost && !want;
            if (step % 97 == 0)
                ck_assert_int_eq(sim_kvpool_check(p), 0);
        }
        ck_assert_int_gt(hits, 1000);
        ck_assert_int_gt(from_ghost, 50); /* the ghost sends blocks to M */
        gsl_rng_free(r);
        sim_kvpool_free(p);
        free(params);
    }
}
END_TEST

/* The all-nodes walk over wide blocks whose holders leave whole words of
 * the node set empty, first the low words, then the high ones: each
 * node's run against per-node lookups, and the pool's invariants (the
 * most replicas per block among them) as blocks leave. */
START_TEST(test_prefix_scan_sparse_words)
{
    enum { NODES = 200, LEN = 4 };
    int64_t caps[SIM_N_TIERS] = {64, 0};
    sim_kvpool_t *p = sim_kvpool_new(NODES, caps, &sim_evict_lru, NULL, 0);
    const uint64_t blocks[LEN] = {1, 2, 3, 4};
    /* Block k on nodes [lo[k], hi[k]): the set moves up, then shrinks down. */
    const int lo[LEN] = {0, 70, 130, 130}, hi[LEN] = {NODES, NODES, NODES, 140};
    for (int k = 0; k < LEN; k++)
        for (int nd = lo[k]; nd < hi[k]; nd++)
            sim_kvpool_replicate(p, nd, &blocks[k], 1, 0);
    ck_assert_int_eq(sim_kvpool_check(p), 0);
    for (int round = 0; round < 2; round++) {
        int64_t n_blocks;
        double mean;
        uint32_t max;
        sim_kvpool_replica_stats(p, &n_blocks, &mean, &max);
        ck_assert_uint_eq(max, round == 0 ? NODES : 3);
        uint32_t all[NODES];
        sim_kvpool_prefix_all(p, blocks, LEN, all);
        for (int nd = 0; nd < NODES; nd++) {
            uint32_t want = 0;
            while (want < LEN && sim_kvpool_tier_of(p, nd, blocks[want]) >= 0)
                want++;
            ck_assert_msg(all[nd] == want, "round %d node %d: scan %u, lookups %u", round, nd,
                          all[nd], want);
        }
        /* Then all nodes but the last three drop everything: the blocks
         * leave the wide map and the most replicas per block falls to 3. */
        for (int nd = 0; nd < NODES - 3 && round == 0; nd++) {
            sim_kvpool_set_capacity(p, nd, SIM_TIER_DRAM, 0);
            ck_assert_int_eq(sim_kvpool_check(p), 0);
        }
    }
    sim_kvpool_free(p);
}
END_TEST

Suite *test_kvpool_suite(void)
{
    Suite *s = suite_create("kvpool");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_hmap);
    tcase_add_test(tc, test_lru_exact);
    tcase_add_test(tc, test_lfu_vs_lru_exact);
    tcase_add_test(tc, test_length_aware_exact);
    tcase_add_test(tc, test_pinning);
    tcase_add_test(tc, test_demotion_and_promotion);
    tcase_add_test(tc, test_replicas);
    tcase_add_test(tc, test_fetch_counts);
    tcase_add_test(tc, test_random_invariants);
    tcase_add_test(tc, test_lru_vs_reference);
    tcase_add_test(tc, test_release_access_same);
    tcase_add_test(tc, test_every_policy_invariants);
    tcase_add_test(tc, test_s3fifo_vs_reference);
    tcase_add_test(tc, test_index_bounded_by_live);
    tcase_add_test(tc, test_prefix_all_vs_per_node);
    tcase_add_test(tc, test_prefix_scan_tiers);
    tcase_add_test(tc, test_prefix_scan_sparse_words);
    TESTS_ADD_TRACE_TEST(tc, test_cache_analysis_conversation_vs_plain);
    TESTS_ADD_TRACE_TEST(tc, test_cache_analysis_synthetic_vs_plain);
    TESTS_ADD_TRACE_TEST(tc, test_cache_analysis_unlimited_is_ideal);
    suite_add_tcase(s, tc);
    return s;
}
