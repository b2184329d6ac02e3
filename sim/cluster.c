/* sim/cluster.c: prefill instances (FIFO, one request at a time), the P->D
 * KV hand-off, and decode instances (continuous batching, one event per
 * iteration). A decode instance logs each iteration's end time in a ring
 * so a finishing request's token intervals are read back without any
 * per-token allocation or event. */
#include "sim/cluster.h"

#include <math.h>
#include <string.h>

typedef struct prefill_inst {
    sim_req_t *head, *tail; /* FIFO of placed requests */
    sim_req_t *running;
    sim_time_t run_end_ns;
    sim_time_t queued_pred_ns; /* sum of predictions of the queue */
} prefill_inst_t;

typedef struct decode_inst {
    int idx;
    sim_req_t **batch; /* min-heap on finish_iter */
    size_t n_batch, cap_batch;
    sim_req_t *wait_head, *wait_tail; /* KV ready, not yet admitted */
    sim_req_t **fresh; /* joined before the running iteration */
    size_t n_fresh, cap_fresh;
    int64_t kv_used_tok; /* reserved: input + output of each batch member */
    int64_t ctx_tok;     /* current context tokens of the batch */
    int64_t iter;        /* iterations completed */
    sim_time_t *ring;    /* end time of iteration k at ring[k & (ring_cap-1)] */
    size_t ring_cap;
    int running;
    sim_time_t iter_start_ns;
    int64_t n_assigned; /* requests placed here and not finished */
    int64_t tok_assigned;
} decode_inst_t;

struct sim_cluster {
    sim_cluster_args_t a;
    sim_evq_t *evq;
    sim_metrics_t *m;
    void *place_st, *admit_st;
    prefill_inst_t *pf;
    decode_inst_t *dc;
    int64_t kv_cap_tok;
    int64_t kv_bytes_per_tok;
    double kv_bytes_per_s;
    sim_kvpool_t *pool;
    trace_t *trace;
    int64_t n_arrived, n_done;
    int trace_failed;
    sim_err_t trace_err;
    sim_req_t *live; /* every allocated, unfinished request (incl. the read-ahead) */
    int64_t *scratch; /* TBT intervals of the request being finished */
    size_t cap_scratch;
};

/* ---- request end ---- */

static void req_free(sim_cluster_t *c, sim_req_t *r)
{
    if (r->live_prev)
        r->live_prev->live_next = r->live_next;
    else
        c->live = r->live_next;
    if (r->live_next)
        r->live_next->live_prev = r->live_prev;
    sim_free(r->blocks);
    sim_free(r);
}

static void finish(sim_cluster_t *c, sim_req_t *r, sim_req_status_t st)
{
    SIM_ASSERT(r->status == SIM_REQ_ACTIVE);
    r->status = st;
    r->finish_ns = sim_evq_now(c->evq);
    if (r->decode_inst >= 0) {
        decode_inst_t *d = &c->dc[r->decode_inst];
        d->n_assigned--;
        d->tok_assigned -= r->input_tok;
    }
    sim_metrics_request_done(c->m, r);
    c->n_done++;
    req_free(c, r);
}

/* ---- decode ---- */

static int heap_less(const sim_req_t *x, const sim_req_t *y)
{
    return x->finish_iter < y->finish_iter || (x->finish_iter == y->finish_iter && x->id < y->id);
}

static void heap_set(decode_inst_t *d, size_t i, sim_req_t *r)
{
    d->batch[i] = r;
    r->heap_pos = i;
}

static void heap_push(decode_inst_t *d, sim_req_t *r)
{
    sim_grow((void **)&d->batch, &d->cap_batch, d->n_batch + 1, sizeof *d->batch, "decode batch");
    size_t i = d->n_batch++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!heap_less(r, d->batch[p]))
            break;
        heap_set(d, i, d->batch[p]);
        i = p;
    }
    heap_set(d, i, r);
}

static sim_req_t *heap_pop(decode_inst_t *d)
{
    sim_req_t *top = d->batch[0];
    sim_req_t *last = d->batch[--d->n_batch];
    size_t i = 0, n = d->n_batch;
    if (n > 0) {
        for (;;) {
            size_t ch = 2 * i + 1;
            if (ch >= n)
                break;
            if (ch + 1 < n && heap_less(d->batch[ch + 1], d->batch[ch]))
                ch++;
            if (!heap_less(d->batch[ch], last))
                break;
            heap_set(d, i, d->batch[ch]);
            i = ch;
        }
        heap_set(d, i, last);
    }
    return top;
}

/* Make the ring hold at least need iterations, keeping the entries of the
 * last old-capacity iterations. */
static void ring_reserve(decode_inst_t *d, size_t need)
{
    if (need <= d->ring_cap)
        return;
    size_t n = d->ring_cap ? d->ring_cap : 64;
    while (n < need)
        n *= 2;
    sim_time_t *ring = sim_xcalloc(n, sizeof *ring, "decode ring");
    int64_t keep = (int64_t)d->ring_cap < d->iter ? (int64_t)d->ring_cap : d->iter;
    for (int64_t k = d->iter - keep; k < d->iter; k++)
        ring[(size_t)k & (n - 1)] = d->ring[(size_t)k & (d->ring_cap - 1)];
    sim_free(d->ring);
    d->ring = ring;
    d->ring_cap = n;
}

static sim_time_t ring_at(const decode_inst_t *d, int64_t k)
{
    SIM_ASSERT(k < d->iter && d->iter - k <= (int64_t)d->ring_cap);
    return d->ring[(size_t)k & (d->ring_cap - 1)];
}

static void decode_complete(sim_cluster_t *c, decode_inst_t *d, sim_req_t *r)
{
    size_t n = (size_t)(r->output_tok - 1);
    sim_grow((void **)&c->scratch, &c->cap_scratch, n, sizeof *c->scratch, "tbt scratch");
    sim_time_t prev = r->first_token_ns;
    for (size_t k = 0; k < n; k++) {
        sim_time_t t = ring_at(d, r->join_iter + (int64_t)k);
        c->scratch[k] = t - prev;
        prev = t;
    }
    sim_metrics_tbt_stats(c->scratch, n, &r->tbt_mean_s, &r->tbt_p90_s, &r->tbt_max_s,
                          &r->tbt_top10_s);
    d->kv_used_tok -= r->input_tok + r->output_tok;
    d->ctx_tok -= r->input_tok + r->output_tok;
    finish(c, r, SIM_REQ_COMPLETED);
}

static void decode_iter_done(void *ctx, void *obj, int64_t arg);

/* Admit waiting requests in FIFO order while the batch has a slot and the
 * VRAM left after weights holds their whole KV (input + output), then start
 * an iteration if the batch is not empty. */
static void decode_kick(sim_cluster_t *c, decode_inst_t *d)
{
    SIM_ASSERT(!d->running);
    while (d->wait_head && (int64_t)d->n_batch < c->a.decode_max_batch) {
        sim_req_t *r = d->wait_head;
        int64_t need = r->input_tok + r->output_tok;
        if (d->kv_used_tok + need > c->kv_cap_tok)
            break;
        d->wait_head = r->next;
        if (!d->wait_head)
            d->wait_tail = NULL;
        r->next = NULL;
        r->join_iter = d->iter;
        r->finish_iter = d->iter + r->output_tok - 2;
        d->kv_used_tok += need;
        d->ctx_tok += r->input_tok + 1;
        ring_reserve(d, (size_t)r->output_tok + 1);
        heap_push(d, r);
        sim_grow((void **)&d->fresh, &d->cap_fresh, d->n_fresh + 1, sizeof *d->fresh,
                 "decode fresh");
        d->fresh[d->n_fresh++] = r;
    }
    if (d->n_batch == 0)
        return;
    sim_time_t dur = model_cost_decode_ns(c->a.cost, (int64_t)d->n_batch, d->ctx_tok);
    d->running = 1;
    d->iter_start_ns = sim_evq_now(c->evq);
    sim_evq_after(c->evq, dur, decode_iter_done, d, 0);
}

static void decode_iter_done(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    decode_inst_t *d = obj;
    (void)arg;
    sim_time_t now = sim_evq_now(c->evq);
    sim_time_t dur = now - d->iter_start_ns;
    int64_t k = d->iter;
    d->ring[(size_t)k & (d->ring_cap - 1)] = now;
    d->iter++;
    d->running = 0;
    sim_metrics_decode_iter(c->m, dur, (int64_t)d->n_batch);
    /* Requests in their first step: the interval since their first token
     * (hand-off and waiting included); the rest: this iteration. */
    sim_metrics_tbt(c->m, dur, (uint64_t)(d->n_batch - d->n_fresh));
    for (size_t i = 0; i < d->n_fresh; i++)
        sim_metrics_tbt(c->m, now - d->fresh[i]->first_token_ns, 1);
    d->n_fresh = 0;
    d->ctx_tok += (int64_t)d->n_batch;
    while (d->n_batch > 0 && d->batch[0]->finish_iter == k)
        decode_complete(c, d, heap_pop(d));
    SIM_ASSERT(d->n_batch == 0 || d->batch[0]->finish_iter > k);
    decode_kick(c, d);
}

static void kv_arrived(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    sim_req_t *r = obj;
    decode_inst_t *d = &c->dc[arg];
    r->next = NULL;
    if (d->wait_tail)
        d->wait_tail->next = r;
    else
        d->wait_head = r;
    d->wait_tail = r;
    if (!d->running)
        decode_kick(c, d);
}

/* ---- P->D hand-off ---- */

/* The KV hand-off from a prefill node to a decode node: setup latency plus
 * bytes over the achieved NIC bandwidth. The one place a network model
 * plugs in. */
static sim_time_t kv_handoff_ns(const sim_cluster_t *c, int64_t bytes)
{
    return c->a.kv_setup_ns + (sim_time_t)llround((double)bytes / c->kv_bytes_per_s * 1e9);
}

/* ---- prefill ---- */

/* How a prefill of r on instance i would go with the pool as it is now:
 * the longest leading run of its blocks on the node is reused; loading it
 * to the GPU is layer-wise and overlapped with computing the new tokens,
 * so the time is max(load, compute) (plus any extra store overhead). */
typedef struct prefill_plan {
    uint32_t lead;
    int64_t cached_tok, dram_tok, ssd_tok;
    sim_time_t load_ns, dur_ns;
} prefill_plan_t;

static void plan_prefill(const sim_cluster_t *c, int i, const sim_req_t *r, prefill_plan_t *pl)
{
    memset(pl, 0, sizeof *pl);
    if (c->pool) {
        uint32_t by_tier[SIM_N_TIERS];
        pl->lead = sim_kvpool_prefix(c->pool, i, r->blocks, r->n_blocks, by_tier);
        int64_t full = (int64_t)pl->lead * TRACE_BLOCK_TOK;
        pl->cached_tok = SIM_MIN(full, r->input_tok);
        pl->dram_tok = (int64_t)by_tier[SIM_TIER_DRAM] * TRACE_BLOCK_TOK;
        pl->ssd_tok = (int64_t)by_tier[SIM_TIER_SSD] * TRACE_BLOCK_TOK;
        if (full > r->input_tok) { /* the partial last block counts its real tokens */
            int last = sim_kvpool_tier_of(c->pool, i, r->blocks[pl->lead - 1]);
            *(last == SIM_TIER_SSD ? &pl->ssd_tok : &pl->dram_tok) -= full - r->input_tok;
        }
        double kvb = (double)c->kv_bytes_per_tok;
        double load_s = (double)pl->dram_tok * kvb / c->a.dram_load_bytes_per_s +
                        (double)pl->ssd_tok * kvb / c->a.ssd_read_bytes_per_s;
        pl->load_ns = (sim_time_t)llround(load_s * 1e9);
    }
    /* At least the last token is computed: it yields the first output. */
    int64_t p = SIM_MIN(pl->cached_tok, r->input_tok - 1);
    sim_time_t compute = model_cost_prefill_ns(c->a.cost, r->input_tok, p);
    pl->dur_ns = SIM_MAX(compute, pl->load_ns) + (c->pool ? c->a.store_overhead_ns : 0);
}

static void prefill_done(void *ctx, void *obj, int64_t arg);

static void prefill_kick(sim_cluster_t *c, int i)
{
    prefill_inst_t *p = &c->pf[i];
    if (p->running || !p->head)
        return;
    sim_req_t *r = p->head;
    p->head = r->next;
    if (!p->head)
        p->tail = NULL;
    r->next = NULL;
    p->queued_pred_ns -= r->pred_prefill_ns;
    prefill_plan_t pl;
    plan_prefill(c, i, r, &pl);
    r->cached_tok = pl.cached_tok;
    r->cached_dram_tok = pl.dram_tok;
    r->cached_ssd_tok = pl.ssd_tok;
    r->cached_blocks = pl.lead;
    r->load_ns = pl.load_ns;
    if (c->pool) /* the reused prefix is in use: never evicted meanwhile */
        sim_kvpool_pin(c->pool, i, r->blocks, pl.lead);
    sim_time_t dur = pl.dur_ns;
    r->prefill_start_ns = sim_evq_now(c->evq);
    p->running = r;
    p->run_end_ns = r->prefill_start_ns + dur;
    sim_metrics_prefill_busy(c->m, dur);
    sim_evq_after(c->evq, dur, prefill_done, r, i);
}

static void prefill_done(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    sim_req_t *r = obj;
    int i = (int)arg;
    c->pf[i].running = NULL;
    r->first_token_ns = sim_evq_now(c->evq);
    if (c->pool) {
        /* Reused blocks are touched, new ones stored in the node's DRAM
         * pool (layer by layer during prefill: no serialized copy). */
        sim_kvpool_unpin(c->pool, i, r->blocks, r->cached_blocks);
        sim_kvpool_access(c->pool, i, r->blocks, r->n_blocks);
    }
    if (!c->a.admit->after_prefill(c->admit_st, c, r)) {
        finish(c, r, SIM_REQ_REJECTED_PREFILL);
    } else if (r->output_tok <= 1) {
        finish(c, r, SIM_REQ_COMPLETED); /* the first token was the last */
    } else {
        int64_t bytes = r->input_tok * c->kv_bytes_per_tok;
        r->transfer_ns = kv_handoff_ns(c, bytes);
        sim_metrics_kv_handoff(c->m, bytes, r->transfer_ns);
        sim_evq_after(c->evq, r->transfer_ns, kv_arrived, r, r->decode_inst);
    }
    prefill_kick(c, i);
}

/* ---- arrivals ---- */

static void arrival(void *ctx, void *obj, int64_t arg);

/* Read the next trace record and schedule its arrival. */
static void pull_next(sim_cluster_t *c)
{
    trace_req_t tr;
    int rc = trace_next(c->trace, &tr, &c->trace_err);
    if (rc == TRACE_END)
        return;
    if (rc == TRACE_ERR) {
        c->trace_failed = 1;
        return;
    }
    sim_req_t *r = sim_xcalloc(1, sizeof *r, "request");
    r->id = c->n_arrived + 1; /* provisional; fixed at arrival */
    r->arrival_ns = tr.arrival_ns;
    r->input_tok = tr.input_tok;
    r->output_tok = tr.output_tok;
    r->n_blocks = tr.n_blocks;
    r->blocks = sim_xmalloc((size_t)tr.n_blocks * sizeof *r->blocks, "request blocks");
    if (tr.n_blocks)
        memcpy(r->blocks, tr.blocks, (size_t)tr.n_blocks * sizeof *r->blocks);
    r->prefill_inst = r->decode_inst = -1;
    r->live_next = c->live;
    if (c->live)
        c->live->live_prev = r;
    c->live = r;
    sim_time_t at = tr.arrival_ns < sim_evq_now(c->evq) ? sim_evq_now(c->evq) : tr.arrival_ns;
    sim_evq_at(c->evq, at, arrival, r, 0);
}

static void arrival(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    sim_req_t *r = obj;
    (void)arg;
    r->id = c->n_arrived++;
    sim_metrics_arrival(c->m, r);
    pull_next(c);
    /* A request whose KV could never fit a decode instance cannot be
     * served by any policy: refused at once. */
    if (r->input_tok + r->output_tok > c->kv_cap_tok ||
        !c->a.admit->at_arrival(c->admit_st, c, r)) {
        finish(c, r, SIM_REQ_REJECTED_ARRIVAL);
        return;
    }
    sim_place_decision_t dec;
    if (c->a.place->place(c->place_st, c, r, &dec) != SIM_PLACE_OK) {
        finish(c, r, SIM_REQ_REJECTED_ARRIVAL);
        return;
    }
    SIM_ASSERT(dec.prefill >= 0 && dec.prefill < c->a.n_prefill);
    SIM_ASSERT(dec.decode >= 0 && dec.decode < c->a.n_decode);
    r->prefill_inst = dec.prefill;
    r->decode_inst = dec.decode;
    decode_inst_t *d = &c->dc[dec.decode];
    d->n_assigned++;
    d->tok_assigned += r->input_tok;
    prefill_inst_t *p = &c->pf[dec.prefill];
    r->pred_prefill_ns = sim_cluster_prefill_pred_ns(c, dec.prefill, r);
    p->queued_pred_ns += r->pred_prefill_ns;
    if (p->tail)
        p->tail->next = r;
    else
        p->head = r;
    p->tail = r;
    prefill_kick(c, dec.prefill);
}

/* ---- life cycle ---- */

sim_cluster_t *sim_cluster_new(const sim_cluster_args_t *a, sim_metrics_t *m, sim_err_t *err)
{
    int64_t kv_bytes = model_llm_kv_bytes_per_tok(a->llm);
    double vram = a->hw->n_gpus * a->hw->vram_bytes_per_gpu * (1.0 - a->vram_reserve_frac);
    double kv_room = vram - a->llm->weight_bytes;
    if (kv_room < (double)kv_bytes) {
        sim_errf(err, "model %s (%.0f GB of weights) leaves no room for KVCache in %s's VRAM",
                 a->llm->name, a->llm->weight_bytes / 1e9, a->hw->name);
        return NULL;
    }
    sim_cluster_t *c = sim_xcalloc(1, sizeof *c, "cluster");
    c->a = *a;
    c->evq = sim_evq_new(c);
    c->m = m;
    c->kv_bytes_per_tok = kv_bytes;
    c->kv_cap_tok = (int64_t)(kv_room / (double)kv_bytes);
    c->kv_bytes_per_s = model_hw_nic_bytes_per_s(a->hw) * a->kv_efficiency;
    c->pf = sim_xcalloc((size_t)a->n_prefill, sizeof *c->pf, "prefill instances");
    c->dc = sim_xcalloc((size_t)a->n_decode, sizeof *c->dc, "decode instances");
    for (int j = 0; j < a->n_decode; j++)
        c->dc[j].idx = j;
    if (a->cache_policy) {
        int64_t caps[SIM_N_TIERS] = {a->dram_blocks, a->ssd_blocks};
        c->pool = sim_kvpool_new(a->n_prefill + a->n_decode, caps, a->cache_policy, 0);
    }
    c->place_st = a->place->init ? a->place->init(c) : NULL;
    c->admit_st = a->admit->init ? a->admit->init(c) : NULL;
    return c;
}

void sim_cluster_free(sim_cluster_t *c)
{
    if (!c)
        return;
    /* Requests of an abandoned run are still live. */
    while (c->live)
        req_free(c, c->live);
    for (int j = 0; j < c->a.n_decode; j++) {
        decode_inst_t *d = &c->dc[j];
        sim_free(d->batch);
        sim_free(d->fresh);
        sim_free(d->ring);
    }
    if (c->a.place->free)
        c->a.place->free(c->place_st);
    if (c->a.admit->free)
        c->a.admit->free(c->admit_st);
    sim_free(c->pf);
    sim_free(c->dc);
    sim_free(c->scratch);
    sim_kvpool_free(c->pool);
    sim_evq_free(c->evq);
    sim_free(c);
}

void sim_cluster_attach_trace(sim_cluster_t *c, trace_t *t)
{
    c->trace = t;
    pull_next(c);
}

int sim_cluster_run(sim_cluster_t *c, sim_cluster_progress_fn progress, void *ud, sim_err_t *err)
{
    uint64_t n = 0;
    while (!c->trace_failed && sim_evq_step(c->evq))
        if (progress && (++n & 0xffff) == 0)
            progress(ud, c);
    if (c->trace_failed) {
        if (err)
            *err = c->trace_err;
        return -1;
    }
    /* Conservation: everything that arrived has ended. */
    SIM_ASSERT(c->n_done == c->n_arrived && c->live == NULL);
    return 0;
}

uint64_t sim_cluster_events(const sim_cluster_t *c) { return sim_evq_executed(c->evq); }
int64_t sim_cluster_n_arrived(const sim_cluster_t *c) { return c->n_arrived; }
int64_t sim_cluster_n_in_flight(const sim_cluster_t *c) { return c->n_arrived - c->n_done; }
int64_t sim_cluster_decode_kv_cap_tok(const sim_cluster_t *c) { return c->kv_cap_tok; }
const sim_kvpool_t *sim_cluster_kvpool(const sim_cluster_t *c) { return c->pool; }

/* ---- view ---- */

int sim_cluster_n_prefill(const sim_cluster_t *c) { return c->a.n_prefill; }
int sim_cluster_n_decode(const sim_cluster_t *c) { return c->a.n_decode; }
sim_time_t sim_cluster_now(const sim_cluster_t *c) { return sim_evq_now(c->evq); }
const model_cost_t *sim_cluster_cost(const sim_cluster_t *c) { return c->a.cost; }

sim_time_t sim_cluster_prefill_wait_ns(const sim_cluster_t *c, int i)
{
    const prefill_inst_t *p = &c->pf[i];
    sim_time_t rest = p->running ? p->run_end_ns - sim_evq_now(c->evq) : 0;
    return rest + p->queued_pred_ns;
}

sim_time_t sim_cluster_prefill_pred_ns(const sim_cluster_t *c, int i, const sim_req_t *r)
{
    prefill_plan_t pl;
    plan_prefill(c, i, r, &pl);
    return pl.dur_ns;
}

sim_time_t sim_cluster_decode_pred_iter_ns(const sim_cluster_t *c, int j, const sim_req_t *r)
{
    const decode_inst_t *d = &c->dc[j];
    return model_cost_decode_ns(c->a.cost, d->n_assigned + 1,
                                d->tok_assigned + r->input_tok);
}
