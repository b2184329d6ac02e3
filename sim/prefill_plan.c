/* sim/prefill_plan.c: planning a prefill: the longest leading run of a
 * request's blocks its instance's node pool holds (plus what a planned
 * fetch brings), their load time from DRAM and SSD, and the compute time,
 * as one pass or as a chunked pipeline over the prefill group. The plan
 * only reads the cluster: the same call gives the predictions placement
 * and admission use and the schedule the instance runs. */
#include "sim/prefill_int.h"

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

void sim_prefill_plan(const sim_cluster_t *c, int i, const sim_req_t *r, uint32_t lead_min,
                      sim_prefill_plan_t *pl)
{
    memset(pl, 0, sizeof *pl);
    if (c->pool) {
        int node = sim_cluster_pool_node(c, i);
        uint32_t by_tier[SIM_N_TIERS];
        uint32_t local = sim_kvpool_prefix(c->pool, node, r->blocks, r->n_blocks, by_tier);
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
        double kvb = (double)c->kv_bytes_per_tok;
        double load_s = (double)pl->dram_tok * kvb / c->a.pool.dram_load_bytes_per_s +
                        (double)pl->ssd_tok * kvb / c->a.pool.ssd_read_bytes_per_s;
        pl->load_ns = (sim_time_t)llround(load_s * 1e9);
    }
    /* At least the last token is computed: it yields the first output. */
    int64_t p = SIM_MIN(pl->cached_tok, r->input_tok - 1);
    pl->n_chunks = uncached_chunk_count(c, r->input_tok - p);
    sim_time_t pipe;
    if (pl->n_chunks == 1) {
        pl->compute_ns = model_cost_prefill_ns(c->a.cost, r->input_tok, p);
        pipe = pl->compute_ns;
    } else {
        /* G stages of 1/G of the layers: fill with the longest chunk, then
         * one stage-time per chunk (activations assumed fast). */
        sim_time_t mx = 0;
        int g = c->a.pd.prefill_group;
        for (int64_t j = 0; j < pl->n_chunks; j++) {
            sim_time_t t = sim_prefill_chunk_ns(c, r, p, j, pl->n_chunks);
            pl->compute_ns += t;
            mx = SIM_MAX(mx, t);
        }
        pipe = pl->compute_ns / g + (g - 1) * (mx / g);
    }
    pl->dur_ns = SIM_MAX(pipe, pl->load_ns) + (c->pool ? c->a.pool.store_overhead_ns : 0);
}

sim_time_t sim_prefill_predict_ns(const sim_cluster_t *c, int i, const sim_req_t *r,
                                  uint32_t lead_blocks)
{
    sim_prefill_plan_t pl;
    sim_prefill_plan(c, i, r, lead_blocks, &pl);
    return pl.dur_ns;
}
