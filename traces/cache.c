/* traces/cache.c: the trace cache analysis behind `trace cache`: the
 * KVCache pool of sim/pool/kvpool.c with one node and one DRAM tier per
 * capacity, replayed without timing, the eviction policy with its
 * parameters at their defaults. Memory is the pools' blocks (bounded
 * by the capacities, or the distinct blocks when unlimited). */
#include "traces/trace.h"

#include "sim/pool/evict.h"
#include "sim/core/hmap.h"
#include "sim/pool/kvpool.h"

int trace_cache_analysis(const trace_open_args_t *args, const char *policy,
                         const int64_t *cap_tok, size_t n_caps, double *hit_rate, sim_err_t *err)
{
    const sim_evict_ops_t *pol = sim_evict_find(policy);
    if (!pol) {
        char names[256];
        sim_evict_names(names, sizeof names);
        return sim_errf(err, "unknown eviction policy '%s' (valid: %s)", policy, names);
    }
    trace_t *t = trace_open(args, err);
    if (!t)
        return -1;
    sim_kvpool_t **pools = sim_xcalloc(n_caps, sizeof *pools, "cache analysis pools");
    double *hit = sim_xcalloc(n_caps, sizeof *hit, "cache analysis hits");
    for (size_t i = 0; i < n_caps; i++) {
        int64_t caps[SIM_N_TIERS] = {cap_tok[i] < 0 ? -1 : cap_tok[i] / TRACE_BLOCK_TOK, 0};
        pools[i] = sim_kvpool_new(1, caps, pol, NULL, SIM_KVPOOL_DENSE_IDS);
    }
    /* Ids are remapped once to dense 0, 1, ... so each pool indexes a
     * direct array instead of hashing every block again. */
    sim_hmap_t dense;
    sim_hmap_init(&dense);
    uint64_t *ids = NULL;
    size_t cap_ids = 0;
    double total = 0;
    trace_req_t r;
    int rc;
    while ((rc = trace_next(t, &r, err)) == TRACE_OK) {
        total += (double)r.input_tok;
        sim_grow((void **)&ids, &cap_ids, r.n_blocks, sizeof *ids, "cache analysis ids");
        for (uint32_t k = 0; k < r.n_blocks; k++)
            ids[k] = *sim_hmap_upsert(&dense, r.blocks[k], (uint32_t)dense.n, NULL);
        for (size_t i = 0; i < n_caps; i++) {
            uint32_t lead = sim_kvpool_access(pools[i], 0, ids, r.n_blocks);
            hit[i] += (double)SIM_MIN((int64_t)lead * TRACE_BLOCK_TOK, r.input_tok);
        }
    }
    for (size_t i = 0; i < n_caps; i++) {
        hit_rate[i] = total > 0 ? hit[i] / total : 0;
        sim_kvpool_free(pools[i]);
    }
    sim_free(pools);
    sim_free(hit);
    sim_free(ids);
    sim_hmap_free(&dense);
    trace_close(t);
    return rc == TRACE_ERR ? -1 : 0;
}
