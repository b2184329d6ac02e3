/* sim/serve/prefill_plan.c: planning a prefill: the longest leading run of a
 * request's blocks its instance's node pool holds (plus what a planned
 * fetch brings), their load time from DRAM and SSD, and the compute time,
 * as one pass or as a chunked pipeline over the prefill group. The plan
 * only reads the cluster: the same call gives the predictions placement
 * and admission use and the schedule the instance runs. */
#include "sim/serve/prefill_int.h"

#include <math.h>
#include <string.h>

static int64_t uncached_chunk_count(const sim_cluster_t *c, int64_t uncached)
{
    if (c->a.pd.prefill_group <= 1 || uncached <= c->a.pd.prefill_chunk_tok)
        return 1;
    return (uncached + c->a.pd.prefill_chunk_tok - 1) / c->a.pd.prefill_chunk_tok;
}

sim_time_t sim_prefill_chunk_ns(const sim_cluster_t *c, const sim_req_t *r, int64_t p, int64_t j,
                                int64_t k)
{
    int64_t ch = c->a.pd.prefill_chunk_tok;
    int64_t start = p + j * ch;
    int64_t end = j == k - 1 ? r->input_tok : start + ch;
    sim_time_t t = model_cost_prefill_ns(c->a.cost, end, start);
    if (j > 0)
        t -= SIM_MIN(t, model_cost_prefill_fixed_ns(c->a.cost));
    return t;
}

/* Given what the pool holds, a plan depends on the request only through
 * its input length: the lead (which fixes the tokens reused) and the
 * tokens loaded from DRAM and from SSD decide the rest. So the rest is a
 * pure function of (input, lead, DRAM, SSD tokens), kept in a small
 * direct-mapped memo: placement plans one request on every instance, and
 * most of them hold the same. */
typedef struct sim_prefill_memo_slot {
    int64_t input_tok, lead, dram_tok, ssd_tok; /* input_tok 0: empty */
    int64_t n_chunks;
    sim_time_t load_ns, compute_ns, dur_ns;
} sim_prefill_memo_slot_t;

#define PLAN_MEMO_SLOTS 64

/* The last prediction from a scan (sim_prefill_predict_scanned_ns): its
 * inputs (input_tok 0: none) and its answer. */
typedef struct sim_prefill_last {
    int64_t input_tok;
    uint32_t local, lead_min, by_tier[SIM_N_TIERS];
    sim_time_t dur_ns;
} sim_prefill_last_t;

struct sim_prefill_memo {
    sim_prefill_memo_slot_t slot[PLAN_MEMO_SLOTS];
    sim_prefill_last_t last;
};

struct sim_prefill_memo *sim_prefill_memo_new(void)
{
    return sim_xcalloc(1, sizeof(struct sim_prefill_memo), "prefill plan memo");
}

/* The load, compute and duration of pl (lead and tokens set) into m. */
static void plan_fill(const sim_cluster_t *c, const sim_req_t *r, const sim_prefill_plan_t *pl,
                      sim_prefill_memo_slot_t *m)
{
    m->input_tok = r->input_tok;
    m->lead = pl->lead;
    m->dram_tok = pl->dram_tok;
    m->ssd_tok = pl->ssd_tok;
    m->load_ns = 0;
    if (c->pool) {
        double kvb = (double)c->kv_bytes_per_tok;
        double load_s = (double)pl->dram_tok * kvb / c->a.pool.dram_load_bytes_per_s +
                        (double)pl->ssd_tok * kvb / c->a.pool.ssd_read_bytes_per_s;
        m->load_ns = (sim_time_t)llround(load_s * 1e9);
    }
    /* At least the last token is computed: it yields the first output. */
    int64_t p = SIM_MIN(pl->cached_tok, r->input_tok - 1);
    m->n_chunks = uncached_chunk_count(c, r->input_tok - p);
    m->compute_ns = 0;
    sim_time_t pipe;
    if (m->n_chunks == 1) {
        m->compute_ns = model_cost_prefill_ns(c->a.cost, r->input_tok, p);
        pipe = m->compute_ns;
    } else {
        /* G stages of 1/G of the layers: fill with the longest chunk, then
         * one stage-time per chunk (activations assumed fast). */
        sim_time_t mx = 0;
        int g = c->a.pd.prefill_group;
        for (int64_t j = 0; j < m->n_chunks; j++) {
            sim_time_t t = sim_prefill_chunk_ns(c, r, p, j, m->n_chunks);
            m->compute_ns += t;
            mx = SIM_MAX(mx, t);
        }
        pipe = m->compute_ns / g + (g - 1) * (mx / g);
    }
    m->dur_ns = SIM_MAX(pipe, m->load_ns) + (c->pool ? c->a.pool.store_overhead_ns : 0);
}

/* The plan's lead and tokens from node's own run (local blocks, by_tier
 * of them in each tier) and lead_min blocks a fetch brings; then the rest
 * from the memo. */
static void plan_from(const sim_cluster_t *c, int node, const sim_req_t *r, uint32_t local,
                      const uint32_t by_tier[SIM_N_TIERS], uint32_t lead_min,
                      sim_prefill_plan_t *pl)
{
    memset(pl, 0, sizeof *pl);
    if (c->pool) {
        pl->lead = local > lead_min ? local : lead_min;
        int64_t full = (int64_t)pl->lead * TRACE_BLOCK_TOK;
        pl->cached_tok = SIM_MIN(full, r->input_tok);
        pl->dram_tok = (int64_t)(by_tier[SIM_TIER_DRAM] + (pl->lead - local)) * TRACE_BLOCK_TOK;
        pl->ssd_tok = (int64_t)by_tier[SIM_TIER_SSD] * TRACE_BLOCK_TOK;
        if (full > r->input_tok) { /* the partial last block counts its real tokens */
            int last = pl->lead > local ? SIM_TIER_DRAM
                                        : sim_kvpool_tier_of(c->pool, node, r->blocks[pl->lead - 1]);
            *(last == SIM_TIER_SSD ? &pl->ssd_tok : &pl->dram_tok) -= full - r->input_tok;
        }
    }
    uint64_t h = (uint64_t)r->input_tok * UINT64_C(0x9E3779B97F4A7C15) ^
                 (uint64_t)pl->lead * UINT64_C(0xC2B2AE3D27D4EB4F) ^
                 (uint64_t)pl->dram_tok * UINT64_C(0x165667B19E3779F9) ^ (uint64_t)pl->ssd_tok;
    sim_prefill_memo_slot_t *m = &sim_pd(c)->plan_memo->slot[(h ^ h >> 29) % PLAN_MEMO_SLOTS];
    if (m->input_tok != r->input_tok || m->lead != pl->lead || m->dram_tok != pl->dram_tok ||
        m->ssd_tok != pl->ssd_tok)
        plan_fill(c, r, pl, m);
    pl->load_ns = m->load_ns;
    pl->n_chunks = m->n_chunks;
    pl->compute_ns = m->compute_ns;
    pl->dur_ns = m->dur_ns;
}

void sim_prefill_plan(const sim_cluster_t *c, int i, const sim_req_t *r, uint32_t lead_min,
                      sim_prefill_plan_t *pl)
{
    int node = sim_cluster_pool_node(c, i);
    uint32_t by_tier[SIM_N_TIERS] = {0};
    uint32_t local = c->pool ? sim_kvpool_prefix(c->pool, node, r->blocks, r->n_blocks, by_tier) : 0;
    plan_from(c, node, r, local, by_tier, lead_min, pl);
}

void sim_prefill_plan_run(const sim_cluster_t *c, int i, const sim_req_t *r, uint32_t local,
                          const uint32_t by_tier[SIM_N_TIERS], uint32_t lead_min,
                          sim_prefill_plan_t *pl)
{
    plan_from(c, sim_cluster_pool_node(c, i), r, local, by_tier, lead_min, pl);
}

void sim_prefill_predict_all(const sim_cluster_t *c, const sim_req_t *r, const uint32_t *leads,
                             const uint32_t *lead_min, sim_time_t *out)
{
    /* An instance whose node holds what the previous one's holds, and
     * that is planned the same fetch, has the same plan; a run that is the
     * whole request also depends on its last block's tier, so it is
     * planned afresh. */
    static const uint32_t none[SIM_N_TIERS];
    const uint32_t *tiers = c->pool ? sim_kvpool_prefix_all_tiers(c->pool) : NULL;
    const uint32_t *prev_by = none;
    uint32_t prev_local = 0, prev_min = 0;
    sim_time_t prev = -1;
    for (int i = 0; i < c->a.pd.n_prefill; i++) {
        int node = sim_cluster_pool_node(c, i);
        const uint32_t *by_tier = tiers ? &tiers[(size_t)node * SIM_N_TIERS] : none;
        uint32_t local = leads[i];
        if (prev >= 0 && local == prev_local && lead_min[i] == prev_min &&
            memcmp(by_tier, prev_by, SIM_N_TIERS * sizeof *by_tier) == 0 && local < r->n_blocks) {
            out[i] = prev;
            continue;
        }
        sim_prefill_plan_t pl;
        plan_from(c, node, r, local, by_tier, lead_min[i], &pl);
        out[i] = prev = pl.dur_ns;
        prev_local = local;
        prev_min = lead_min[i];
        prev_by = by_tier;
    }
}

sim_time_t sim_prefill_predict_scanned_ns(const sim_cluster_t *c, int i, const sim_req_t *r,
                                          uint32_t lead_blocks)
{
    /* The scan's answer is sim_kvpool_prefix's (both read the same walk
     * of r's blocks, and nothing moved since). The plan is a function of
     * (input, own run, its blocks per tier, lead_blocks), save that an
     * own run that is the lead and covers more than the input also reads
     * its last block's tier (plan_from): so one like the last prediction,
     * and not such a run, has its duration (the candidates of one
     * placement mostly hold alike). */
    int node = sim_cluster_pool_node(c, i);
    uint32_t by_tier[SIM_N_TIERS] = {0};
    uint32_t local = c->pool ? sim_kvpool_scan_node(c->pool, node, by_tier) : 0;
    sim_prefill_last_t *m = &sim_pd(c)->plan_memo->last;
    int reuse = lead_blocks > local || (int64_t)local * TRACE_BLOCK_TOK <= r->input_tok;
    if (reuse && m->input_tok == r->input_tok && m->local == local &&
        m->lead_min == lead_blocks && memcmp(m->by_tier, by_tier, sizeof by_tier) == 0)
        return m->dur_ns;
    sim_prefill_plan_t pl;
    plan_from(c, node, r, local, by_tier, lead_blocks, &pl);
    if (reuse) {
        m->input_tok = r->input_tok;
        m->local = local;
        m->lead_min = lead_blocks;
        memcpy(m->by_tier, by_tier, sizeof by_tier);
        m->dur_ns = pl.dur_ns;
    }
    return pl.dur_ns;
}

sim_time_t sim_prefill_predict_ns(const sim_cluster_t *c, int i, const sim_req_t *r,
                                  uint32_t lead_blocks)
{
    sim_prefill_plan_t pl;
    sim_prefill_plan(c, i, r, lead_blocks, &pl);
    return pl.dur_ns;
}
