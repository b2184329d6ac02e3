/* sim/serve/colocated.c: the colocated systems vllm, vllm_pc and vllm_cp,
 * vLLM v0.5-like: one node does both phases. Each step is either a prefill
 * step (waiting prompts first: running decodes stall, so their TBT spikes)
 * or a decode iteration; with chunked prefill (vllm_cp), one iteration
 * mixes every running decode with a chunk of the head prompt under a token
 * budget. KV is allocated as it grows; when an iteration would not fit, the
 * latest admitted requests are preempted and later recomputed (prompt +
 * tokens so far). vllm_pc adds an HBM prefix cache (LRU) of prompt blocks
 * in the VRAM running requests do not use. Invariant: kv_used is the
 * context of running requests. */
#include "sim/serve/cluster_int.h"
#include "sim/serve/reqq.h"

#include <math.h>
#include <string.h>

/* ---- parameters (system.params) ---- */

typedef struct coloc_params {
    int64_t instances;
    char routing[16];
    int64_t max_seqs;
    double cpu_per_seq_s;
    double cpu_per_step_s;
    int64_t prefill_tokens; /* vllm, vllm_pc */
    int64_t chunk_tokens;   /* vllm_cp */
} coloc_params_t;

/* The parameters every colocated system takes, as fields of a table over
 * coloc_params_t. */
#define COLOC_COMMON_FIELDS                                                                        \
    SIM_PARAM_I("instances", coloc_params_t, instances, 1, 4096, "16",                             \
                "colocated instances, one node each (16: the nodes of the default 8P+8D)"),        \
    SIM_PARAM_E("routing", coloc_params_t, routing, "least_loaded|round_robin", "least_loaded",    \
                "across instances: least_loaded (fewest requests) or round_robin"),                \
    SIM_PARAM_I("max_seqs", coloc_params_t, max_seqs, 1, 65536, "256",                             \
                "most sequences an instance runs at once (vLLM's max_num_seqs; prompts in a "      \
                "step count)"),                                                                    \
    SIM_PARAM_N("cpu_per_seq_s", coloc_params_t, cpu_per_seq_s, 0, 1, "0.00015",                   \
                "CPU time per sequence per engine step, not overlapped with the GPU (vLLM v0.5: "  \
                "scheduling, input preparation, output processing, detokenization)"),              \
    SIM_PARAM_N("cpu_per_step_s", coloc_params_t, cpu_per_step_s, 0, 1, "0",                       \
                "CPU time per engine step whatever its size, not overlapped with the GPU")

/* Prefill steps (vllm, vllm_pc); vllm_cp budgets chunks instead. */
#define COLOC_PREFILL_TOKENS                                                                       \
    SIM_PARAM_I("prefill_tokens", coloc_params_t, prefill_tokens, 512, 16777216, "16384",          \
                "most prompt tokens batched in one prefill step (at least one prompt)")

static const sim_param_t vllm_fields[] = {COLOC_COMMON_FIELDS, COLOC_PREFILL_TOKENS};
static const sim_params_t vllm_params = SIM_PARAMS(vllm_fields, coloc_params_t);
static const sim_param_t vllm_pc_fields[] = {COLOC_COMMON_FIELDS, COLOC_PREFILL_TOKENS};
static const sim_params_t vllm_pc_params = SIM_PARAMS(vllm_pc_fields, coloc_params_t);
static const sim_param_t vllm_cp_fields[] = {
    COLOC_COMMON_FIELDS,
    SIM_PARAM_I("chunk_tokens", coloc_params_t, chunk_tokens, 16, 1048576, "512",
                "token budget of an iteration (its decodes + a prompt chunk)"),
};
static const sim_params_t vllm_cp_params = SIM_PARAMS(vllm_cp_fields, coloc_params_t);

/* ---- state ---- */

typedef struct coloc coloc_t;

typedef struct coloc_inst {
    coloc_t *s;
    int idx;
    sim_req_t *wait_head, *wait_tail; /* prompts to (re)compute, FIFO */
    sim_req_t *run_head, *run_tail;   /* running decodes, admission order */
    sim_batch_t b;                    /* running; iterations are token-producing steps */
    int64_t n_run;
    int64_t kv_used;   /* context tokens of running requests */
    int busy;
    sim_time_t step_start;
    sim_req_t **step_pf; /* prompts finishing in this step */
    size_t n_step_pf, cap_step_pf;
    sim_req_t *chunk_req; /* chunked mode: the prompt in progress */
    int64_t chunk_tok;    /* its chunk in this step */
    sim_time_t chunk_ns;  /* the time its chunk adds to the step */
    int step_decodes;     /* this step is (also) a decode iteration */
    sim_req_t **fresh;    /* joined the running set since the last iteration */
    size_t n_fresh, cap_fresh;
    int64_t outstanding;  /* routed, not finished */
    /* Prefill stalls the running batch has seen: each prefill step run
     * while decodes wait, or each chunk riding a decode iteration, and the
     * time it added. A request's share is the growth while it ran. */
    int64_t stall_n;
    sim_time_t stall_ns;
} coloc_inst_t;

/* A colocated system's per-run state: its settings in the units steps
 * use, and its instances. */
struct coloc {
    int chunked;            /* vllm_cp */
    int route_least;        /* else round robin */
    int n;                  /* instances */
    int64_t max_seqs;
    int64_t prefill_tok;    /* most prompt tokens in one prefill step */
    int64_t chunk_tok;      /* token budget of a chunked iteration */
    sim_time_t cpu_seq_ns;  /* CPU time per sequence per step, serialized with the GPU */
    sim_time_t cpu_step_ns; /* CPU time per step whatever its size */
    coloc_inst_t *inst;
    sim_kvpool_t *cache;    /* vllm_pc: the HBM prefix caches (one node each) */
    int rr;
};

/* A running request's context: what it held when it joined plus one token
 * per iteration since (kept implicit: no per-iteration loop over the batch). */
static int64_t cur_ctx(const coloc_inst_t *o, const sim_req_t *r)
{
    return r->ctx_tok + (o->b.iter - r->join_iter);
}

/* ---- running set: heap by finish iteration + admission-order list ---- */

static void run_add(coloc_inst_t *o, sim_req_t *r)
{
    r->stall_mark = o->stall_n;
    r->stall_mark_ns = o->stall_ns;
    sim_batch_push(&o->b, r);
    r->run_next = NULL;
    r->run_prev = o->run_tail;
    if (o->run_tail)
        o->run_tail->run_next = r;
    else
        o->run_head = r;
    o->run_tail = r;
    o->n_run++;
}

static void run_remove(coloc_inst_t *o, sim_req_t *r)
{
    r->prefill_stalls += o->stall_n - r->stall_mark;
    r->prefill_stall_ns += o->stall_ns - r->stall_mark_ns;
    sim_batch_remove(&o->b, r);
    if (r->run_prev)
        r->run_prev->run_next = r->run_next;
    else
        o->run_head = r->run_next;
    if (r->run_next)
        r->run_next->run_prev = r->run_prev;
    else
        o->run_tail = r->run_prev;
    o->n_run--;
}

/* ---- steps ---- */

static void step_done(void *ctx, void *obj, int64_t arg);

static void wait_push(coloc_inst_t *o, sim_req_t *r, int front)
{
    if (front)
        sim_reqq_push_front(&o->wait_head, &o->wait_tail, r);
    else
        sim_reqq_push_back(&o->wait_head, &o->wait_tail, r);
}

static sim_req_t *wait_pop(coloc_inst_t *o)
{
    return sim_reqq_pop_front(&o->wait_head, &o->wait_tail);
}

/* Context a prompt needs computed: the prompt, plus what it generated
 * before a preemption. */
static int64_t prompt_ctx(const sim_req_t *r) { return r->input_tok + (r->gen_tok > 0 ? r->gen_tok - 1 : 0); }

/* Tokens of r's prompt the HBM prefix cache holds (vllm_pc). */
static int64_t cached_prefix(const coloc_inst_t *o, const sim_req_t *r)
{
    if (!o->s->cache || r->gen_tok > 0)
        return 0;
    uint32_t lead = sim_kvpool_prefix(o->s->cache, o->idx, r->blocks, r->n_blocks, NULL);
    return SIM_MIN((int64_t)lead * TRACE_BLOCK_TOK, r->input_tok - 1);
}

/* Preempt the latest admitted running requests until need more tokens
 * fit; they go back to the front of the queue to be recomputed. */
static void make_room(sim_cluster_t *c, coloc_inst_t *o, int64_t need)
{
    while (o->run_tail && o->kv_used + need > c->kv_cap_tok) {
        sim_req_t *v = o->run_tail;
        run_remove(o, v);
        o->kv_used -= cur_ctx(o, v);
        /* Keep its intervals so far: the ring moves on without it. */
        size_t n = (size_t)(o->b.iter - v->join_iter);
        sim_grow((void **)&v->tbt_saved, &v->cap_tbt_saved, v->n_tbt_saved + n,
                 sizeof *v->tbt_saved, "preempted intervals");
        sim_batch_intervals(&o->b, v->join_iter, o->b.iter, v->last_tok_ns,
                            v->tbt_saved + v->n_tbt_saved);
        v->n_tbt_saved += n;
        /* the tokens it decoded since it joined are kept: the recompute
         * covers them, and it resumes after the last */
        v->gen_tok += (int64_t)n;
        if (o->b.iter > v->join_iter)
            v->last_tok_ns = sim_batch_ring_at(&o->b, o->b.iter - 1);
        v->ctx_tok = 0;
        v->prefilled_tok = 0;
        v->preemptions++;
        wait_push(o, v, 1);
    }
}

/* A prefill step (vLLM v0.5: prefills first): as many waiting prompts as
 * fit the step's token budget, the batch limit and the VRAM; else, with
 * none, a decode iteration. Returns the step's time (0: nothing to run). */
static sim_time_t prefill_step(sim_cluster_t *c, coloc_inst_t *o)
{
    const coloc_t *s = o->s;
    sim_time_t dur = 0, cpu = s->cpu_seq_ns;
    int64_t budget = s->prefill_tok;
    while (o->wait_head && o->n_run + (int64_t)o->n_step_pf < s->max_seqs) {
        sim_req_t *r = o->wait_head;
        int64_t ctx = prompt_ctx(r), cached = cached_prefix(o, r);
        if (o->n_step_pf > 0 && ctx - cached > budget)
            break;
        if (o->kv_used + ctx + 1 > c->kv_cap_tok)
            break;
        wait_pop(o);
        budget -= ctx - cached;
        r->cached_tok = cached;
        r->ctx_tok = ctx;
        o->kv_used += ctx;
        if (r->gen_tok == 0)
            r->prefill_start_ns = sim_evq_now(c->evq);
        /* Batched prompts share one pass's fixed part. */
        sim_time_t t = model_cost_prefill_ns(c->a.cost, ctx, cached);
        if (o->n_step_pf > 0)
            t -= SIM_MIN(t, model_cost_prefill_fixed_ns(c->a.cost));
        t += cpu; /* the engine's per-sequence CPU work, GPU idle */
        sim_metrics_prefill_busy(c->m, t);
        dur += t;
        sim_grow((void **)&o->step_pf, &o->cap_step_pf, o->n_step_pf + 1, sizeof *o->step_pf,
                 "coloc step");
        o->step_pf[o->n_step_pf++] = r;
    }
    if (o->n_step_pf == 0 && o->n_run > 0) {
        make_room(c, o, o->n_run);
        o->step_decodes = o->n_run > 0;
        if (o->step_decodes)
            dur = model_cost_decode_ns(c->a.cost, o->n_run, o->kv_used) + cpu * o->n_run;
    }
    return dur;
}

/* The head prompt's chunk within room tokens, reserving its context when
 * it starts (NULL when it does not fit the VRAM); sets chunk_req and
 * chunk_tok and returns the chunk's time. */
static sim_time_t chunk_of(sim_cluster_t *c, coloc_inst_t *o, int64_t room)
{
    sim_req_t *r = o->wait_head;
    if (r->prefilled_tok == 0) { /* starting: reserve its context */
        int64_t ctx = prompt_ctx(r), cached = cached_prefix(o, r);
        if (o->kv_used + o->n_run + ctx + 1 > c->kv_cap_tok)
            return 0;
        r->cached_tok = cached;
        r->prefilled_tok = cached;
        r->ctx_tok = ctx;
        o->kv_used += ctx;
        if (r->gen_tok == 0)
            r->prefill_start_ns = sim_evq_now(c->evq);
    }
    o->chunk_req = r;
    o->chunk_tok = SIM_MIN(room, r->ctx_tok - r->prefilled_tok);
    /* The chunk is a pass of chunk_tok new tokens over the prompt's tokens
     * before it, costed as any pass: its low utilization (a few hundred
     * tokens) and its attention over the prefix, compute that grows with
     * the prefix and runs at the chunk's utilization, are in the form
     * (models/fit.h), so nothing is added for the prefix's KV: reading it
     * from HBM takes far less than that attention (8k tokens of a 70B
     * model's KV, 2.7 GB, read in under 0.5 ms on an A800 node against
     * some 26 ms of attention for a 300-token chunk). The pass's fixed
     * part is charged once per pass: when the iteration also runs decodes,
     * their step already pays it (as batched prompts share one pass in
     * prefill_step); a chunk alone pays its own. */
    sim_time_t t = model_cost_prefill_ns(c->a.cost, r->prefilled_tok + o->chunk_tok,
                                         r->prefilled_tok);
    if (o->step_decodes)
        t -= SIM_MIN(t, model_cost_prefill_fixed_ns(c->a.cost));
    t += o->s->cpu_seq_ns;
    sim_metrics_prefill_busy(c->m, t);
    o->chunk_ns = t;
    return t;
}

/* A chunked iteration (vllm_cp): every running decode plus a chunk of the
 * head prompt, within the token budget. Returns its time (0: nothing). */
static sim_time_t chunked_step(sim_cluster_t *c, coloc_inst_t *o)
{
    const coloc_t *s = o->s;
    sim_time_t dur = 0;
    if (o->n_run > 0) {
        make_room(c, o, o->n_run);
        o->step_decodes = o->n_run > 0;
    }
    int64_t room = s->chunk_tok - o->n_run;
    if (o->wait_head && room > 0 && o->n_run < s->max_seqs)
        dur += chunk_of(c, o, room);
    if (o->step_decodes)
        dur += model_cost_decode_ns(c->a.cost, o->n_run, o->kv_used) + s->cpu_seq_ns * o->n_run;
    return dur;
}

static void kick(sim_cluster_t *c, coloc_inst_t *o)
{
    if (o->busy)
        return;
    const coloc_t *s = o->s;
    if (s->cache) /* the prefix cache lives in VRAM running requests leave free */
        sim_kvpool_set_capacity(s->cache, o->idx, SIM_TIER_DRAM,
                                (c->kv_cap_tok - o->kv_used) / TRACE_BLOCK_TOK);
    o->n_step_pf = 0;
    o->chunk_req = NULL;
    o->chunk_tok = 0;
    o->step_decodes = 0;
    sim_time_t dur = s->chunked ? chunked_step(c, o) : prefill_step(c, o);
    if (!o->step_decodes && o->n_step_pf == 0 && !o->chunk_req)
        return; /* idle: nothing fits or nothing to do */
    dur += s->cpu_step_ns;
    if (!o->step_decodes) /* a prefill step: the prompts hold the GPU */
        sim_metrics_prefill_busy(c->m, s->cpu_step_ns);
    o->busy = 1;
    o->step_start = sim_evq_now(c->evq);
    sim_evq_after(c->evq, dur, step_done, o, 0);
}

/* r is done. ran: it left the running set now (else it finished with the
 * token its prompt pass produced and holds no intervals in the ring). */
static void finish_request(sim_cluster_t *c, coloc_inst_t *o, sim_req_t *r, int ran)
{
    /* Intervals from before preemptions first, then this run's. */
    size_t k = r->n_tbt_saved, n = k + (ran ? (size_t)(o->b.iter - r->join_iter) : 0);
    sim_grow((void **)&c->scratch, &c->cap_scratch, n + 1, sizeof *c->scratch, "tbt scratch");
    if (k)
        memcpy(c->scratch, r->tbt_saved, k * sizeof *c->scratch);
    if (ran)
        sim_batch_intervals(&o->b, r->join_iter, o->b.iter, r->last_tok_ns, c->scratch + k);
    sim_metrics_tbt_stats(c->scratch, n, &r->tbt_mean_s, &r->tbt_p90_s, &r->tbt_max_s,
                          &r->tbt_top10_s);
    o->outstanding--;
    sim_cluster_finish(c, r, SIM_REQ_COMPLETED);
}

/* A prompt is computed: its first (or next, after a preemption) token
 * comes out now, and it joins the running set. */
static void prompt_done(sim_cluster_t *c, coloc_inst_t *o, sim_req_t *r, sim_time_t now)
{
    if (o->s->cache && r->gen_tok == 0)
        sim_kvpool_access(o->s->cache, o->idx, r->blocks, r->n_blocks);
    if (r->gen_tok == 0) {
        r->first_token_ns = r->prefill_end_ns = now;
    } else { /* the token after a recompute: its interval spans the stall */
        sim_grow((void **)&r->tbt_saved, &r->cap_tbt_saved, r->n_tbt_saved + 1,
                 sizeof *r->tbt_saved, "preempted intervals");
        r->tbt_saved[r->n_tbt_saved++] = now - r->last_tok_ns;
        sim_metrics_tbt(c->m, now - r->last_tok_ns, 1); /* the run-wide TBT counts it too */
    }
    r->gen_tok++;
    r->last_tok_ns = now;
    r->prefilled_tok = 0;
    if (r->gen_tok >= r->output_tok) {
        o->kv_used -= r->ctx_tok;
        finish_request(c, o, r, 0);
        return;
    }
    r->ctx_tok += 1;
    o->kv_used += 1;
    r->join_iter = o->b.iter;
    sim_grow((void **)&o->fresh, &o->cap_fresh, o->n_fresh + 1, sizeof *o->fresh, "coloc fresh");
    o->fresh[o->n_fresh++] = r;
    r->finish_iter = o->b.iter + (r->output_tok - r->gen_tok) - 1;
    sim_batch_ring_reserve(&o->b, (size_t)(r->output_tok - r->gen_tok) + 1, &c->slab);
    run_add(o, r);
}

/* A step's name on the timeline: what it ran, and whether running
 * decodes waited for a prefill in it (stall, as step_done works out). */
static const char *coloc_step_name(const coloc_inst_t *o, int stall)
{
    if (o->n_step_pf > 0 || o->chunk_req)
        return stall ? "prefill step (stall)" : o->step_decodes ? "mixed step" : "prefill step";
    return "decode step";
}

static void step_done(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    coloc_inst_t *o = obj;
    (void)arg;
    sim_time_t now = sim_evq_now(c->evq);
    o->busy = 0;
    /* A stall: running decodes waited for a prefill in this step. */
    int stall = o->n_run > 0 && (o->n_step_pf > 0 || (o->chunk_req && o->step_decodes));
    sim_obs_span(c->obs, SIM_OBS_COLOC, o->idx, coloc_step_name(o, stall), o->step_start, now,
                 o->n_run, -1);
    if (stall) {
        o->stall_n++; /* the running requests waited for a prefill */
        o->stall_ns += o->n_step_pf > 0 ? now - o->step_start : o->chunk_ns;
    }
    if (o->step_decodes) {
        int64_t k = o->b.iter;
        /* Run-wide TBT: requests that produced a token last iteration
         * waited since then (prefill stalls included); new ones since
         * their previous token. */
        int64_t n_new = 0;
        for (size_t i = 0; i < o->n_fresh; i++) {
            sim_req_t *r = o->fresh[i];
            if (r->join_iter == k && r->heap_pos < o->b.n && o->b.heap[r->heap_pos].r == r) {
                sim_metrics_tbt(c->m, now - r->last_tok_ns, 1);
                n_new++;
            }
        }
        o->n_fresh = 0;
        if (o->n_run > n_new)
            sim_metrics_tbt(c->m, now - sim_batch_ring_at(&o->b, k - 1),
                            (uint64_t)(o->n_run - n_new));
        sim_batch_iter_end(&o->b, now);
        sim_metrics_decode_iter(c->m, now - o->step_start, o->n_run);
        o->kv_used += o->n_run;
        while (o->b.n > 0 && sim_batch_top_finish(&o->b) == k) {
            sim_req_t *r = o->b.heap[0].r;
            run_remove(o, r);
            o->kv_used -= cur_ctx(o, r);
            finish_request(c, o, r, 1);
        }
    }
    for (size_t i = 0; i < o->n_step_pf; i++)
        prompt_done(c, o, o->step_pf[i], now);
    if (o->chunk_req) {
        sim_req_t *r = o->chunk_req;
        r->prefilled_tok += o->chunk_tok;
        if (r->prefilled_tok >= r->ctx_tok) {
            wait_pop(o);
            prompt_done(c, o, r, now);
        }
    }
    kick(c, o);
}

/* ---- the systems ---- */

static int coloc_n_nodes(const sim_cluster_args_t *a, const void *params)
{
    (void)a;
    return (int)((const coloc_params_t *)params)->instances;
}

/* A colocated system over p: vllm_pc with prefix_cache (an HBM cache per
 * instance), vllm_cp with chunked. Freed by coloc_free. */
static coloc_t *coloc_new(sim_cluster_t *c, const coloc_params_t *p, int prefix_cache,
                          int chunked)
{
    coloc_t *s = sim_xcalloc(1, sizeof *s, "colocated system");
    *s = (coloc_t){
        .chunked = chunked,
        .route_least = strcmp(p->routing, "least_loaded") == 0,
        .n = (int)p->instances,
        .max_seqs = p->max_seqs,
        .prefill_tok = p->prefill_tokens,
        .chunk_tok = p->chunk_tokens,
        .cpu_seq_ns = (sim_time_t)llround(p->cpu_per_seq_s * 1e9),
        .cpu_step_ns = (sim_time_t)llround(p->cpu_per_step_s * 1e9),
    };
    s->inst = sim_xcalloc((size_t)s->n, sizeof *s->inst, "colocated instances");
    for (int i = 0; i < s->n; i++) {
        s->inst[i].s = s;
        s->inst[i].idx = i;
        s->inst[i].b.tracked = 1; /* preemption takes members out anywhere */
    }
    if (prefix_cache) {
        int64_t caps[SIM_N_TIERS] = {c->kv_cap_tok / TRACE_BLOCK_TOK, 0};
        s->cache = sim_kvpool_new(s->n, caps, &sim_evict_lru, NULL, 0);
    }
    return s;
}

static void *vllm_init(sim_cluster_t *c, const void *p) { return coloc_new(c, p, 0, 0); }
static void *vllm_pc_init(sim_cluster_t *c, const void *p) { return coloc_new(c, p, 1, 0); }
static void *vllm_cp_init(sim_cluster_t *c, const void *p) { return coloc_new(c, p, 0, 1); }

static void coloc_free(sim_cluster_t *c, void *st)
{
    coloc_t *s = st;
    if (!s)
        return;
    for (int i = 0; i < s->n; i++) {
        sim_free(s->inst[i].b.heap);
        sim_batch_ring_free(&s->inst[i].b, &c->slab);
        sim_free(s->inst[i].step_pf);
        sim_free(s->inst[i].fresh);
    }
    sim_free(s->inst);
    sim_kvpool_free(s->cache);
    sim_free(s);
}

/* One load column of each kind per instance (docs/outputs.md). */
static void coloc_ts_cols(const sim_cluster_args_t *a, const void *params, int *n_prefill,
                          int *n_decode)
{
    (void)a;
    *n_prefill = *n_decode = (int)((const coloc_params_t *)params)->instances;
}

/* Instance i's prefill load: the predicted prefill time of the prompts it
 * has waiting (each as a whole prompt, nothing cached) over the TTFT SLO;
 * its decode load: its running requests' iteration time over the TBT SLO
 * or, when greater, their context over its KV capacity
 * (sim_cluster_decode_load). O(prompts waiting). */
static void coloc_ts_loads(void *st, sim_cluster_t *c, sim_metrics_ts_t *row, double *pl,
                           double *dl)
{
    const coloc_t *s = st;
    for (int i = 0; i < s->n; i++) {
        const coloc_inst_t *o = &s->inst[i];
        sim_time_t w = 0;
        for (const sim_req_t *r = o->wait_head; r; r = r->next)
            w += model_cost_prefill_ns(c->a.cost, prompt_ctx(r), 0);
        row->prefill_wait_s_max = fmax(row->prefill_wait_s_max, (double)w / 1e9);
        pl[i] = (double)w / (double)c->a.slo_ttft_ns;
        dl[i] = sim_cluster_decode_load(c, o->n_run, o->kv_used, o->kv_used);
    }
}

/* Admit r, route it to an instance and queue it. */
static void coloc_arrive(void *st, sim_cluster_t *c, sim_req_t *r)
{
    coloc_t *s = st;
    if (!sim_cluster_admit(c, r))
        return;
    int pick = 0;
    if (s->route_least) {
        for (int i = 1; i < s->n; i++)
            if (s->inst[i].outstanding < s->inst[pick].outstanding)
                pick = i;
    } else {
        pick = s->rr;
        s->rr = (s->rr + 1) % s->n;
    }
    coloc_inst_t *o = &s->inst[pick];
    r->prefill_inst = r->decode_inst = pick;
    o->outstanding++;
    wait_push(o, r, 0);
    kick(c, o);
}

const sim_system_ops_t sim_system_vllm = {
    .name = "vllm",
    .help = "colocated vLLM v0.5-like instances: each step is a prefill step (waiting prompts "
            "first; running decodes stall) or a decode iteration",
    .params = &vllm_params,
    .n_nodes = coloc_n_nodes,
    .init = vllm_init,
    .free = coloc_free,
    .arrive = coloc_arrive,
    .ts_cols = coloc_ts_cols,
    .ts_loads = coloc_ts_loads,
};

const sim_system_ops_t sim_system_vllm_pc = {
    .name = "vllm_pc",
    .help = "vllm with automatic prefix caching: an LRU cache of prompt blocks in the HBM that "
            "running requests leave free",
    .params = &vllm_pc_params,
    .n_nodes = coloc_n_nodes,
    .init = vllm_pc_init,
    .free = coloc_free,
    .arrive = coloc_arrive,
    .ts_cols = coloc_ts_cols,
    .ts_loads = coloc_ts_loads,
};

const sim_system_ops_t sim_system_vllm_cp = {
    .name = "vllm_cp",
    .help = "vllm with chunked prefill: every iteration runs all decodes plus a chunk of the head "
            "prompt within chunk_tokens",
    .params = &vllm_cp_params,
    .n_nodes = coloc_n_nodes,
    .init = vllm_cp_init,
    .free = coloc_free,
    .arrive = coloc_arrive,
    .ts_cols = coloc_ts_cols,
    .ts_loads = coloc_ts_loads,
};
