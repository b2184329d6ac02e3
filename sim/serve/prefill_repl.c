/* sim/serve/prefill_repl.c: hot-spot replication of the KVCache pool. Every
 * cache.hot_fetches fetches served from a prefix's first block, the
 * fetched prefix is copied from that holder to the cache.hot_replicas
 * prefill nodes that lack it and have the least predicted queue, as cold
 * replicas (evicted first unless used). The source blocks stay pinned
 * while a copy is on the wire. */
#include "sim/serve/prefill_int.h"

#include <string.h>

/* A replication flow landed: its blocks (the request's first n) become
 * cold replicas on the target. The flow's obj is a small record. */
typedef struct repl_job {
    uint64_t *blocks;
    uint32_t n;
    int src, dst;
} repl_job_t;

static void repl_done(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    repl_job_t *job = obj;
    (void)arg;
    sim_kvpool_unpin(c->pool, job->src, job->blocks, job->n);
    sim_kvpool_replicate(c->pool, job->dst, job->blocks, job->n, 1);
    sim_free(job->blocks);
    sim_free(job);
}

/* Instance i's run of r (its node's, from the scan of r's blocks). */
static uint32_t scanned_lead(const sim_cluster_t *c, int i)
{
    return sim_kvpool_scan_node(c->pool, sim_cluster_pool_node(c, i), NULL);
}

void sim_prefill_hot_spot(sim_cluster_t *c, const sim_req_t *r, int dst_inst)
{
    uint32_t served = sim_kvpool_note_fetch(c->pool, r->fetch_src, r->blocks, r->fetch_blocks);
    if (c->a.pool.hot_fetches <= 0 || served == 0 || served % (uint32_t)c->a.pool.hot_fetches != 0)
        return;
    /* The targets first, then their copies: picking reads only the runs
     * (one scan of r's blocks, before any copy pins a block) and the
     * waits, which nothing here changes (neither the clock nor a queue).
     * Each target is the first instance by (wait, index) that is not
     * the destination, not on the source's node, lacks the prefix and
     * is not picked already; a wait is never below 0, so the first that
     * waits 0 ends the search. */
    int n_pick = c->a.pool.hot_replicas;
    int pick_in[8];
    uint32_t lead_in[8];
    int *pick = pick_in;
    uint32_t *pick_lead = lead_in;
    if (n_pick > 8) {
        pick = sim_xmalloc((size_t)n_pick * sizeof *pick, "hot-spot targets");
        pick_lead = sim_xmalloc((size_t)n_pick * sizeof *pick_lead, "hot-spot leads");
    }
    sim_kvpool_prefix_scan(c->pool, r->blocks, r->n_blocks);
    const prefill_inst_t *pf = sim_pd(c)->pf;
    sim_time_t now = sim_evq_now(c->evq);
    int made = 0;
    for (; made < n_pick; made++) {
        int best = -1;
        sim_time_t best_wait = INT64_MAX;
        for (int i = 0; i < c->a.pd.n_prefill && best_wait > 0; i++) {
            int node = sim_cluster_pool_node(c, i);
            if (i == dst_inst || node == r->fetch_src)
                continue;
            sim_time_t w = sim_prefill_wait_at(&pf[i], now);
            if (w >= best_wait || scanned_lead(c, i) >= r->fetch_blocks)
                continue;
            int k = 0;
            while (k < made && pick[k] != i)
                k++;
            if (k < made)
                continue;
            best_wait = w;
            best = i;
        }
        if (best < 0)
            break;
        pick[made] = best;
        pick_lead[made] = scanned_lead(c, best);
    }
    for (int k = 0; k < made; k++) {
        repl_job_t *job = sim_xmalloc(sizeof *job, "replication");
        job->n = r->fetch_blocks;
        job->blocks = sim_xmalloc((size_t)job->n * sizeof *job->blocks, "replication blocks");
        memcpy(job->blocks, r->blocks, (size_t)job->n * sizeof *job->blocks);
        job->src = r->fetch_src;
        job->dst = sim_cluster_pool_node(c, pick[k]);
        int64_t tok = SIM_MIN((int64_t)job->n * TRACE_BLOCK_TOK, r->input_tok) -
                      SIM_MIN((int64_t)pick_lead[k] * TRACE_BLOCK_TOK, r->input_tok);
        sim_kvpool_pin(c->pool, job->src, job->blocks, job->n);
        sim_net_start(c->net, job->src, job->dst, (double)(tok * c->kv_bytes_per_tok), SIM_LINK_REPL,
                      0, repl_done, job, 0);
        sim_pd(c)->hot_replications++;
    }
    if (pick != pick_in) {
        sim_free(pick);
        sim_free(pick_lead);
    }
}
