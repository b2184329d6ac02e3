/* sim/serve/prefill.c: prefill instances. FIFO, one request at a time. A request
 * reuses the longest leading run of its blocks in the instance's node pool
 * (after an optional remote fetch that lands before it starts); the load
 * to the GPU overlaps with compute. Its KV streams to the decode node
 * layer by layer while it runs. Here: the queue, the fetch, the start and
 * the end of a prefill; the plan is in sim/serve/prefill_plan.c, the chunked
 * pipeline of a prefill group in sim/serve/prefill_cpp.c, the KV stream in
 * sim/serve/prefill_stream.c and hot-spot replication in sim/serve/prefill_repl.c. */
#include "sim/serve/prefill_int.h"
#include "sim/serve/reqq.h"

static void prefill_kick(sim_cluster_t *c, int i);

void sim_prefill_done(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    sim_req_t *r = obj;
    int i = (int)arg;
    sim_pd(c)->pf[i].running = NULL;
    sim_ppick_touch(c, i);
    r->prefill_end_ns = sim_evq_now(c->evq);
    r->first_token_ns = r->prefill_end_ns; /* moved to the decode join when KV moves */
    sim_obs_span(c->obs, SIM_OBS_PREFILL, i, "prefill", r->prefill_start_ns, r->prefill_end_ns,
                 r->input_tok, r->id);
    r->prefill_done = 1;
    if (c->pool) {
        /* Reused blocks are touched, new ones stored in the node's DRAM
         * pool (layer by layer during prefill: no serialized copy). */
        int node = sim_cluster_pool_node(c, i);
        sim_kvpool_release_access(c->pool, node, r->blocks, r->cached_blocks, r->n_blocks);
    }
    if (!c->a.admit->after_prefill(c->admit_st, c, r)) {
        sim_prefill_stream_cancel(c, r);
        sim_cluster_finish(c, r, SIM_REQ_REJECTED_PREFILL);
    } else if (r->output_tok <= 1) {
        sim_cluster_finish(c, r, SIM_REQ_COMPLETED); /* the first token was the last */
    } else {
        sim_prefill_stream_tail(c, r, i);
    }
    prefill_kick(c, i);
}

/* Start r, just taken from the front of instance i's queue, as planned
 * by pl (sim_prefill_plan with no fetch to come, the pool as it is now). */
static void prefill_start(sim_cluster_t *c, int i, sim_req_t *r, const sim_prefill_plan_t *pl);

/* Take the front of instance i's queue off it. */
static sim_req_t *prefill_pop(sim_cluster_t *c, int i)
{
    prefill_inst_t *p = &sim_pd(c)->pf[i];
    sim_req_t *r = sim_reqq_pop_front(&p->head, &p->tail);
    p->queued_pred_ns -= r->pred_prefill_ns;
    sim_ppick_touch(c, i);
    return r;
}

static void prefill_kick(sim_cluster_t *c, int i)
{
    prefill_inst_t *p = &sim_pd(c)->pf[i];
    if (p->running || !p->head || p->head->fetch_pending)
        return;
    sim_req_t *r = prefill_pop(c, i);
    sim_prefill_plan_t pl;
    sim_prefill_plan(c, i, r, 0, &pl);
    prefill_start(c, i, r, &pl);
}

static void prefill_start(sim_cluster_t *c, int i, sim_req_t *r, const sim_prefill_plan_t *pl)
{
    prefill_inst_t *p = &sim_pd(c)->pf[i];
    r->cached_tok = pl->cached_tok;
    r->cached_dram_tok = pl->dram_tok;
    r->cached_ssd_tok = pl->ssd_tok;
    r->cached_blocks = pl->lead;
    r->load_ns = pl->load_ns;
    if (c->pool) { /* the reused prefix is in use: never evicted meanwhile */
        int node = sim_cluster_pool_node(c, i);
        if (r->fetch_src >= 0 && r->fetch_blocks <= pl->lead) {
            /* The fetch's hold (fetch_done) pins the first fetch_blocks,
             * present, at least once: pinning the lead and releasing the
             * hold leaves those counts as they were (a pin or unpin that
             * keeps a count above 0 only counts), so only the rest are
             * pinned. */
            sim_kvpool_pin(c->pool, node, r->blocks + r->fetch_blocks,
                           pl->lead - r->fetch_blocks);
        } else {
            sim_kvpool_pin(c->pool, node, r->blocks, pl->lead);
            if (r->fetch_src >= 0) /* the fetch's hold (fetch_done) */
                sim_kvpool_unpin(c->pool, node, r->blocks, r->fetch_blocks);
        }
    }
    r->prefill_start_ns = sim_evq_now(c->evq);
    sim_cluster_inbound(c, r, 1); /* its KV streams from now on */
    p->running = r;
    p->run_end_ns = r->prefill_start_ns + pl->dur_ns;
    sim_metrics_prefill_busy(c->m, pl->n_chunks == 1 ? pl->dur_ns : pl->compute_ns);
    sim_metrics_tier_load(c->m, pl->dram_tok * c->kv_bytes_per_tok,
                          pl->ssd_tok * c->kv_bytes_per_tok, pl->load_ns);
    if (r->output_tok > 1)
        sim_prefill_stream_start(c, r, i, pl->dur_ns);
    if (pl->n_chunks == 1)
        sim_evq_after(c->evq, pl->dur_ns, sim_prefill_done, r, i);
    else
        r->cpp = sim_prefill_cpp_start(c, r, i, pl, sim_prefill_done);
}

/* ---- fetch and queueing ---- */

static void fetch_done(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    sim_req_t *r = obj;
    int i = (int)arg;
    int node = sim_cluster_pool_node(c, i);
    sim_kvpool_unpin(c->pool, r->fetch_src, r->blocks, r->fetch_blocks);
    sim_prefill_hot_spot(c, r, i);
    sim_kvpool_replicate(c->pool, node, r->blocks, r->fetch_blocks, 0);
    /* The fetched prefix is this request's until its prefill reads it:
     * Mooncake's prefill node loads the reusable prefix from remote memory
     * and then prefills the rest (FAST'25 Sec. 3, workflow step 1 "KVCache
     * Reuse"), so the copy is held from landing to prefill_kick; unpinned,
     * the stores of prefills queued ahead could evict it, wasting the
     * fetch. What a tier full of pinned blocks refused is not held. */
    /* The node's run of the whole request, cut at fetch_blocks, is its run
     * of those; the run and its tiers also plan a prefill that starts now
     * (a pin moves no block). */
    uint32_t by_tier[SIM_N_TIERS];
    uint32_t run = sim_kvpool_prefix(c->pool, node, r->blocks, r->n_blocks, by_tier);
    r->fetch_blocks = SIM_MIN(run, r->fetch_blocks);
    sim_kvpool_pin(c->pool, node, r->blocks, r->fetch_blocks);
    r->fetch_ns = sim_evq_now(c->evq) - r->fetch_ns;
    r->fetch_pending = 0;
    prefill_inst_t *p = &sim_pd(c)->pf[i];
    if (!p->running && p->head == r) { /* what prefill_kick would start */
        sim_prefill_plan_t pl;
        sim_prefill_plan_run(c, i, r, run, by_tier, 0, &pl);
        prefill_start(c, i, prefill_pop(c, i), &pl);
    } else {
        prefill_kick(c, i);
    }
}

/* Node's run of r's blocks (and by_tier, when not NULL): from the pool's
 * scan when scanned (it walked r's blocks and nothing in the pool changed
 * since: the answer sim_kvpool_prefix gives from its memo), else a look-up. */
static uint32_t node_run(const sim_cluster_t *c, const sim_req_t *r, int node, int scanned,
                         uint32_t by_tier[SIM_N_TIERS])
{
    if (scanned)
        return sim_kvpool_scan_node(c->pool, node, by_tier);
    return sim_kvpool_prefix(c->pool, node, r->blocks, r->n_blocks, by_tier);
}

void sim_prefill_enqueue(sim_cluster_t *c, sim_req_t *r, int scanned)
{
    int i = r->prefill_inst;
    prefill_inst_t *p = &sim_pd(c)->pf[i];
    int node = sim_cluster_pool_node(c, i);
    uint32_t lead_after = 0;
    /* The node's run, for the fetch and sim_prefill_plan's plan (a pin
     * moves no block) */
    uint32_t by_tier[SIM_N_TIERS] = {0};
    uint32_t local = c->pool ? node_run(c, r, node, scanned, by_tier) : 0;
    if (r->fetch_src >= 0 && c->pool) {
        /* The source holds the fetched blocks: its run of the whole
         * list reaches that far. */
        uint32_t there = node_run(c, r, r->fetch_src, scanned, NULL);
        SIM_ASSERT(r->fetch_src != node && there >= r->fetch_blocks && r->fetch_blocks > local);
        int64_t have = SIM_MIN((int64_t)local * TRACE_BLOCK_TOK, r->input_tok);
        int64_t after = SIM_MIN((int64_t)r->fetch_blocks * TRACE_BLOCK_TOK, r->input_tok);
        r->fetched_tok = after - have;
        r->fetch_pending = 1;
        r->fetch_ns = sim_evq_now(c->evq); /* start; the duration once it lands */
        sim_kvpool_pin(c->pool, r->fetch_src, r->blocks, r->fetch_blocks);
        sim_net_start(c->net, r->fetch_src, node, (double)(r->fetched_tok * c->kv_bytes_per_tok),
                      SIM_LINK_FETCH, 0, fetch_done, r, i);
        lead_after = r->fetch_blocks;
    } else {
        r->fetch_src = -1;
    }
    sim_prefill_plan_t pl;
    sim_prefill_plan_run(c, i, r, local, by_tier, lead_after, &pl);
    r->pred_prefill_ns = pl.dur_ns;
    p->queued_pred_ns += r->pred_prefill_ns;
    sim_ppick_touch(c, i);
    sim_reqq_push_back(&p->head, &p->tail, r);
    /* Starting at once, with no fetch (lead_after 0) and nothing in the
     * pool changed since, r runs the plan its prediction made: the one
     * prefill_kick would make again. */
    if (!p->running && p->head == r && !r->fetch_pending)
        prefill_start(c, i, prefill_pop(c, i), &pl);
    else
        prefill_kick(c, i);
}

void sim_prefill_release(sim_req_t *r)
{
    sim_prefill_cpp_free(r->cpp);
    r->cpp = NULL;
    if (r->streams != r->streams_in)
        sim_free(r->streams);
    r->streams = NULL;
}
