/* sim/prefill.c: prefill instances. FIFO, one request at a time. A request
 * reuses the longest leading run of its blocks in the instance's node pool
 * (after an optional remote fetch that lands before it starts); the load
 * to the GPU overlaps with compute. Its KV streams to the decode node
 * layer by layer while it runs: the stream is held to the rate at which
 * layers are produced and its last layer leaves only when prefill ends. A
 * group of G nodes runs long prompts as a chunked pipeline (CPP): chunks
 * flow through G stages of layers, activations crossing the network. */
#include "sim/cluster_int.h"
#include "sim/reqq.h"

#include <math.h>
#include <string.h>

#define NO_FLOW UINT32_MAX

typedef struct prefill_plan {
    uint32_t lead;
    int64_t cached_tok, dram_tok, ssd_tok;
    int64_t n_chunks; /* 1: no pipeline */
    sim_time_t load_ns;
    sim_time_t compute_ns; /* whole-model time, summed over chunks */
    sim_time_t dur_ns;     /* predicted prefill time */
} prefill_plan_t;

/* State of one request's chunked pipeline. */
typedef struct cpp_job {
    sim_req_t *r;
    int inst, stages;
    int64_t k;            /* chunks */
    int64_t *next;        /* per stage: next chunk to compute */
    uint8_t *busy;        /* per stage */
    uint8_t *arrived;     /* [stage * k + chunk]: its input is at the stage */
    sim_time_t *stage_ns; /* per chunk: time on one stage */
    double *act_bytes;    /* per chunk: activations crossing a stage boundary */
    int64_t done;         /* chunks through the last stage */
    sim_time_t min_end_ns;
} cpp_job_t;

/* ---- planning ---- */

static int64_t uncached_chunk_count(const sim_cluster_t *c, int64_t uncached)
{
    if (c->a.pd.prefill_group <= 1 || uncached <= c->a.pd.prefill_chunk_tok)
        return 1;
    return (uncached + c->a.pd.prefill_chunk_tok - 1) / c->a.pd.prefill_chunk_tok;
}

/* Whole-model time of chunk j of k for a request with p tokens reused;
 * the pass's fixed part is paid by the first chunk only. */
static sim_time_t chunk_compute_ns(const sim_cluster_t *c, const sim_req_t *r, int64_t p, int64_t j,
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

/* How a prefill of r on instance i would go with the pool as it is now;
 * lead_min: blocks a planned fetch will have brought (into DRAM). */
static void plan_prefill(const sim_cluster_t *c, int i, const sim_req_t *r, uint32_t lead_min,
                         prefill_plan_t *pl)
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
            sim_time_t t = chunk_compute_ns(c, r, p, j, pl->n_chunks);
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
    prefill_plan_t pl;
    plan_prefill(c, i, r, lead_blocks, &pl);
    return pl.dur_ns;
}

/* ---- the KV stream to the decode node ---- */

static void maybe_kv_ready(sim_cluster_t *c, sim_req_t *r)
{
    if (r->prefill_done && r->n_streams == 0) {
        /* TTFT ends here: the KV is handed to the decode instance (FAST'25
         * Fig. 14 counts the P->D transfer in TTFT). */
        r->first_token_ns = sim_evq_now(c->evq);
        r->transfer_ns = r->first_token_ns - r->prefill_start_ns;
        sim_decode_kv_ready(c, r);
    }
}

static void stream_done(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    sim_req_t *r = obj;
    r->streams[arg] = NO_FLOW;
    r->n_streams--;
    maybe_kv_ready(c, r);
}

/* Every stage node streams its layers' KV from the start of prefill, no
 * faster than they are produced (expected_ns); the last layer is held
 * back until prefill ends (stream_tail). */
static void stream_start(sim_cluster_t *c, sim_req_t *r, int i, sim_time_t expected_ns)
{
    int g = c->a.pd.prefill_group;
    double bytes = (double)(r->input_tok * c->kv_bytes_per_tok);
    double last_layer = bytes / c->a.llm->n_layers;
    int dst = sim_cluster_decode_node(c, r->decode_inst);
    r->streams = sim_xmalloc((size_t)(g + 1) * sizeof *r->streams, "request streams");
    for (int s = 0; s <= g; s++)
        r->streams[s] = NO_FLOW;
    for (int s = 0; s < g; s++) {
        double b = bytes / g - (s == g - 1 ? last_layer : 0);
        double cap = expected_ns > 0 ? b / ((double)expected_ns / 1e9) : 0;
        r->streams[s] = sim_net_start(c->net, sim_cluster_pool_node(c, i) + s, dst, b, SIM_LINK_PD,
                                      cap, stream_done, r, s);
        r->n_streams++;
    }
}

static void stream_tail(sim_cluster_t *c, sim_req_t *r, int i)
{
    int g = c->a.pd.prefill_group;
    for (int s = 0; s < g; s++)
        if (r->streams[s] != NO_FLOW)
            sim_net_set_cap(c->net, r->streams[s], 0);
    double last_layer = (double)(r->input_tok * c->kv_bytes_per_tok) / c->a.llm->n_layers;
    r->streams[g] = sim_net_start(c->net, sim_cluster_pool_node(c, i) + g - 1,
                                  sim_cluster_decode_node(c, r->decode_inst), last_layer,
                                  SIM_LINK_PD, 0, stream_done, r, g);
    r->n_streams++;
}

static void stream_cancel(sim_cluster_t *c, sim_req_t *r)
{
    for (int s = 0; r->streams && s <= c->a.pd.prefill_group; s++)
        if (r->streams[s] != NO_FLOW) {
            sim_net_cancel(c->net, r->streams[s]);
            r->streams[s] = NO_FLOW;
        }
    r->n_streams = 0;
}

/* ---- prefill execution ---- */

static void prefill_kick(sim_cluster_t *c, int i);

static void prefill_done(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    sim_req_t *r = obj;
    int i = (int)arg;
    c->pf[i].running = NULL;
    r->prefill_end_ns = sim_evq_now(c->evq);
    r->first_token_ns = r->prefill_end_ns; /* moved to the hand-off when KV moves */
    r->prefill_done = 1;
    if (c->pool) {
        /* Reused blocks are touched, new ones stored in the node's DRAM
         * pool (layer by layer during prefill: no serialized copy). */
        int node = sim_cluster_pool_node(c, i);
        sim_kvpool_unpin(c->pool, node, r->blocks, r->cached_blocks);
        sim_kvpool_access(c->pool, node, r->blocks, r->n_blocks);
    }
    if (!c->a.admit->after_prefill(c->admit_st, c, r)) {
        stream_cancel(c, r);
        sim_cluster_finish(c, r, SIM_REQ_REJECTED_PREFILL);
    } else if (r->output_tok <= 1) {
        sim_cluster_finish(c, r, SIM_REQ_COMPLETED); /* the first token was the last */
    } else {
        stream_tail(c, r, i);
    }
    prefill_kick(c, i);
}

/* ---- chunked pipeline ---- */

static void cpp_stage_done(void *ctx, void *obj, int64_t arg);

static void cpp_try_start(sim_cluster_t *c, cpp_job_t *job, int s)
{
    int64_t j = job->next[s];
    if (job->busy[s] || j >= job->k || !job->arrived[(int64_t)s * job->k + j])
        return;
    job->busy[s] = 1;
    sim_evq_after(c->evq, job->stage_ns[j], cpp_stage_done, job, s);
}

static void cpp_arrive(void *ctx, void *obj, int64_t arg)
{
    cpp_job_t *job = obj;
    job->arrived[arg] = 1;
    cpp_try_start(ctx, job, (int)(arg / job->k));
}

static void cpp_free(cpp_job_t *job)
{
    if (!job)
        return;
    sim_free(job->next);
    sim_free(job->busy);
    sim_free(job->arrived);
    sim_free(job->stage_ns);
    sim_free(job->act_bytes);
    sim_free(job);
}

static void cpp_stage_done(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    cpp_job_t *job = obj;
    int s = (int)arg;
    int64_t j = job->next[s]++;
    job->busy[s] = 0;
    int node = sim_cluster_pool_node(c, job->inst) + s;
    if (s + 1 < job->stages)
        sim_net_start(c->net, node, node + 1, job->act_bytes[j], SIM_LINK_STAGE, 0, cpp_arrive, job,
                      (int64_t)(s + 1) * job->k + j);
    else
        job->done++;
    cpp_try_start(c, job, s);
    if (job->done < job->k)
        return;
    sim_req_t *r = job->r;
    int i = job->inst;
    sim_time_t now = sim_evq_now(c->evq), end = SIM_MAX(now, job->min_end_ns);
    r->cpp = NULL;
    cpp_free(job);
    sim_evq_at(c->evq, end, prefill_done, r, i);
}

static cpp_job_t *cpp_new(sim_cluster_t *c, sim_req_t *r, int i, const prefill_plan_t *pl)
{
    cpp_job_t *job = sim_xcalloc(1, sizeof *job, "cpp job");
    int g = c->a.pd.prefill_group;
    int64_t k = pl->n_chunks;
    job->r = r;
    job->inst = i;
    job->stages = g;
    job->k = k;
    job->next = sim_xcalloc((size_t)g, sizeof *job->next, "cpp next");
    job->busy = sim_xcalloc((size_t)g, sizeof *job->busy, "cpp busy");
    job->arrived = sim_xcalloc((size_t)(g * k), sizeof *job->arrived, "cpp arrived");
    job->stage_ns = sim_xcalloc((size_t)k, sizeof *job->stage_ns, "cpp times");
    job->act_bytes = sim_xcalloc((size_t)k, sizeof *job->act_bytes, "cpp activations");
    int64_t p = SIM_MIN(pl->cached_tok, r->input_tok - 1);
    /* One token's hidden state, BF16, crosses each stage boundary. */
    double act_per_tok = 2.0 * c->a.llm->d_model;
    for (int64_t j = 0; j < k; j++) {
        job->stage_ns[j] = chunk_compute_ns(c, r, p, j, k) / g;
        int64_t start = p + j * c->a.pd.prefill_chunk_tok;
        int64_t end = j == k - 1 ? r->input_tok : start + c->a.pd.prefill_chunk_tok;
        job->act_bytes[j] = act_per_tok * (double)(end - start);
        job->arrived[j] = 1; /* stage 0 has every chunk's tokens */
    }
    job->min_end_ns =
        sim_evq_now(c->evq) + pl->load_ns + (c->pool ? c->a.pool.store_overhead_ns : 0);
    return job;
}

static void prefill_kick(sim_cluster_t *c, int i)
{
    prefill_inst_t *p = &c->pf[i];
    if (p->running || !p->head || p->head->fetch_pending)
        return;
    sim_req_t *r = sim_reqq_pop_front(&p->head, &p->tail);
    p->queued_pred_ns -= r->pred_prefill_ns;
    prefill_plan_t pl;
    plan_prefill(c, i, r, 0, &pl);
    r->cached_tok = pl.cached_tok;
    r->cached_dram_tok = pl.dram_tok;
    r->cached_ssd_tok = pl.ssd_tok;
    r->cached_blocks = pl.lead;
    r->load_ns = pl.load_ns;
    if (c->pool) { /* the reused prefix is in use: never evicted meanwhile */
        int node = sim_cluster_pool_node(c, i);
        sim_kvpool_pin(c->pool, node, r->blocks, pl.lead);
        if (r->fetch_src >= 0) /* the fetch's hold (fetch_done), within pl.lead */
            sim_kvpool_unpin(c->pool, node, r->blocks, r->fetch_blocks);
    }
    r->prefill_start_ns = sim_evq_now(c->evq);
    sim_cluster_inbound(c, r, 1); /* its KV streams from now on */
    p->running = r;
    p->run_end_ns = r->prefill_start_ns + pl.dur_ns;
    sim_metrics_prefill_busy(c->m, pl.n_chunks == 1 ? pl.dur_ns : pl.compute_ns);
    sim_metrics_tier_load(c->m, pl.dram_tok * c->kv_bytes_per_tok,
                          pl.ssd_tok * c->kv_bytes_per_tok, pl.load_ns);
    if (r->output_tok > 1)
        stream_start(c, r, i, pl.dur_ns);
    if (pl.n_chunks == 1) {
        sim_evq_after(c->evq, pl.dur_ns, prefill_done, r, i);
    } else {
        r->cpp = cpp_new(c, r, i, &pl);
        cpp_try_start(c, r->cpp, 0);
    }
}

/* ---- fetch, hot-spot replication and queueing ---- */

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

/* Hot-spot rule: every cache.hot_fetches fetches served from a prefix's
 * first block, copy the fetched prefix from that holder to the
 * cache.hot_replicas prefill nodes that lack it and have the least
 * predicted queue, as cold replicas (evicted first unless used). */
static void hot_spot(sim_cluster_t *c, const sim_req_t *r, int dst_inst)
{
    uint32_t served = sim_kvpool_note_fetch(c->pool, r->fetch_src, r->blocks, r->fetch_blocks);
    if (c->a.pool.hot_fetches <= 0 || served == 0 || served % (uint32_t)c->a.pool.hot_fetches != 0)
        return;
    uint32_t *lead = sim_xmalloc((size_t)c->a.pd.n_prefill * sizeof *lead, "hot-spot leads");
    sim_cluster_prefix_by_instance(c, r, lead);
    for (int made = 0; made < c->a.pool.hot_replicas; made++) {
        int best = -1;
        sim_time_t best_wait = INT64_MAX;
        for (int i = 0; i < c->a.pd.n_prefill; i++) {
            int node = sim_cluster_pool_node(c, i);
            if (i == dst_inst || node == r->fetch_src || lead[i] >= r->fetch_blocks)
                continue;
            sim_time_t w = sim_cluster_prefill_wait_ns(c, i);
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
        c->hot_replications++;
    }
    sim_free(lead);
}

static void fetch_done(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    sim_req_t *r = obj;
    int i = (int)arg;
    int node = sim_cluster_pool_node(c, i);
    sim_kvpool_unpin(c->pool, r->fetch_src, r->blocks, r->fetch_blocks);
    hot_spot(c, r, i);
    sim_kvpool_replicate(c->pool, node, r->blocks, r->fetch_blocks, 0);
    /* The fetched prefix is this request's until its prefill reads it:
     * Mooncake's prefill node loads the reusable prefix from remote memory
     * and then prefills the rest (FAST'25 Sec. 3, workflow step 1 "KVCache
     * Reuse"), so the copy is held from landing to prefill_kick; unpinned,
     * the stores of prefills queued ahead could evict it, wasting the
     * fetch. What a tier full of pinned blocks refused is not held. */
    r->fetch_blocks = sim_kvpool_prefix(c->pool, node, r->blocks, r->fetch_blocks, NULL);
    sim_kvpool_pin(c->pool, node, r->blocks, r->fetch_blocks);
    r->fetch_ns = sim_evq_now(c->evq) - r->fetch_ns;
    r->fetch_pending = 0;
    prefill_kick(c, i);
}

void sim_prefill_enqueue(sim_cluster_t *c, sim_req_t *r)
{
    int i = r->prefill_inst;
    prefill_inst_t *p = &c->pf[i];
    uint32_t lead_after = 0;
    if (r->fetch_src >= 0 && c->pool) {
        int node = sim_cluster_pool_node(c, i);
        uint32_t local = sim_kvpool_prefix(c->pool, node, r->blocks, r->n_blocks, NULL);
        uint32_t there = sim_kvpool_prefix(c->pool, r->fetch_src, r->blocks, r->fetch_blocks, NULL);
        SIM_ASSERT(r->fetch_src != node && there == r->fetch_blocks && r->fetch_blocks > local);
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
    r->pred_prefill_ns = sim_prefill_predict_ns(c, i, r, lead_after);
    p->queued_pred_ns += r->pred_prefill_ns;
    sim_reqq_push_back(&p->head, &p->tail, r);
    prefill_kick(c, i);
}

void sim_prefill_release(sim_req_t *r)
{
    cpp_free(r->cpp);
    r->cpp = NULL;
    sim_free(r->streams);
    r->streams = NULL;
}
