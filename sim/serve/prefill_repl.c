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

void sim_prefill_hot_spot(sim_cluster_t *c, const sim_req_t *r, int dst_inst)
{
    uint32_t served = sim_kvpool_note_fetch(c->pool, r->fetch_src, r->blocks, r->fetch_blocks);
    if (c->a.pool.hot_fetches <= 0 || served == 0 || served % (uint32_t)c->a.pool.hot_fetches != 0)
        return;
    uint32_t *lead = sim_xmalloc((size_t)c->a.pd.n_prefill * sizeof *lead, "hot-spot leads");
    sim_cluster_prefix_by_instance(c, r, lead);
    /* Every instance is looked at: its wait inline, at one clock reading
     * (nothing here moves the clock or an instance's queue). */
    const prefill_inst_t *pf = sim_pd(c)->pf;
    sim_time_t now = sim_evq_now(c->evq);
    for (int made = 0; made < c->a.pool.hot_replicas; made++) {
        int best = -1;
        sim_time_t best_wait = INT64_MAX;
        for (int i = 0; i < c->a.pd.n_prefill; i++) {
            int node = sim_cluster_pool_node(c, i);
            if (i == dst_inst || node == r->fetch_src || lead[i] >= r->fetch_blocks)
                continue;
            sim_time_t w = sim_prefill_wait_at(&pf[i], now);
            if (w < best_wait) {
                best_wait = w;
                best = i;
            }
        }
        if (best < 0)
            break;
        repl_job_t *job = sim_xmalloc(sizeof *job, "replication");
        job->n = r->fetch_blocks;
        job->blocks = sim_xmalloc((size_t)job->n * sizeof *job->blocks, "replication blocks");
        memcpy(job->blocks, r->blocks, (size_t)job->n * sizeof *job->blocks);
        job->src = r->fetch_src;
        job->dst = sim_cluster_pool_node(c, best);
        int64_t tok = SIM_MIN((int64_t)job->n * TRACE_BLOCK_TOK, r->input_tok) -
                      SIM_MIN((int64_t)lead[best] * TRACE_BLOCK_TOK, r->input_tok);
        sim_kvpool_pin(c->pool, job->src, job->blocks, job->n);
        sim_net_start(c->net, job->src, job->dst, (double)(tok * c->kv_bytes_per_tok), SIM_LINK_REPL,
                      0, repl_done, job, 0);
        lead[best] = r->fetch_blocks;
        sim_pd(c)->hot_replications++;
    }
    sim_free(lead);
}
