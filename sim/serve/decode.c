/* sim/serve/decode.c: decode instances: continuous batching. A request arrives
 * when its KV is in the node's DRAM, is loaded into VRAM (host-to-device),
 * then joins a batch at an iteration boundary when a slot and VRAM for its
 * whole KV (input + output) are free. The batch and its ring of iteration
 * end times are in sim/serve/batch.h. Iterations run one event each
 * (sim/serve/decode_step.c, the reference, under debug.decode_step) or,
 * by default, as spans of iterations between batch changes
 * (sim/serve/decode_span.c, the same results with fewer events); this file
 * is the model both share: admission to the batch, an iteration's end,
 * completions, inlined prefills and the KV's load into VRAM. */
#include "sim/serve/pd_int.h"
#include "sim/serve/reqq.h"

#include <math.h>

static void decode_complete(sim_cluster_t *c, decode_inst_t *d, sim_req_t *r)
{
    size_t n = (size_t)(r->output_tok - 1);
    int64_t upto = r->join_iter + (int64_t)n;
    SIM_ASSERT(n == 0 || (upto <= d->b.iter && d->b.iter - r->join_iter <= (int64_t)d->b.ring_cap));
    if (c->a.debug.decode_step)
        sim_decode_step_tbt_stats(c, d, r, n);
    else
        sim_decode_span_tbt_stats(c, d, r, n);
    d->kv_used_tok -= r->input_tok + r->output_tok;
    d->ctx_tok -= r->input_tok + r->output_tok;
    r->prefill_stalls += d->stall_n - r->stall_mark;
    r->prefill_stall_ns += d->stall_ns - r->stall_mark_ns;
    sim_cluster_note_decode(c, sim_evq_now(c->evq) - r->decode_join_ns);
    sim_cluster_finish(c, r, SIM_REQ_COMPLETED);
}

static void decode_iter_done(void *ctx, void *obj, int64_t arg);

/* Start iteration b.iter now with the batch as it is (in span mode, the
 * iterations up to the next completion). */
static void iter_start(sim_cluster_t *c, decode_inst_t *d)
{
    if (c->a.debug.decode_step)
        sim_decode_step_start(c, d, decode_iter_done);
    else
        sim_decode_span_start(c, d, decode_iter_done);
}

/* Something joins at the next boundary: in span mode, end the span there
 * (stepping ends every iteration there). */
static void iter_cut(sim_cluster_t *c, decode_inst_t *d)
{
    if (!c->a.debug.decode_step)
        sim_decode_span_cut(c, d, decode_iter_done);
}

/* Queue r for a batch slot (its KV is in VRAM). */
static void wait_append(decode_inst_t *d, sim_req_t *r)
{
    sim_reqq_push_back(&d->wait_head, &d->wait_tail, r);
}

static void inline_done(void *ctx, void *obj, int64_t arg);

/* As of the running event: a span's iterations before it have ended. */
int64_t sim_decode_iter_now(const sim_cluster_t *c, int j)
{
    return sim_decode_span_next(c, &sim_pd(c)->dc[j]);
}

int64_t sim_decode_ctx_now(const sim_cluster_t *c, int j)
{
    const decode_inst_t *d = &sim_pd(c)->dc[j];
    return d->ctx_tok + (sim_decode_span_next(c, d) - d->b.iter) * (int64_t)d->b.n;
}

/* Admit waiting requests in FIFO order while the batch has a slot and the
 * VRAM left after weights holds their whole KV (input + output), then start
 * an iteration (a span) if the batch is not empty. */
static void decode_kick(sim_cluster_t *c, decode_inst_t *d)
{
    SIM_ASSERT(!d->running);
    if (d->inline_head) {
        /* A short prefill runs between iterations: the batch waits. */
        sim_req_t *r = sim_reqq_pop_front(&d->inline_head, &d->inline_tail);
        r->prefill_start_ns = sim_evq_now(c->evq);
        sim_time_t t = model_cost_prefill_ns(c->a.cost, r->input_tok, 0);
        sim_metrics_prefill_busy(c->m, t);
        d->running = 1;
        sim_evq_after(c->evq, t, inline_done, r, r->decode_inst);
        return;
    }
    while (d->wait_head && (int64_t)d->b.n < c->a.pd.decode_max_batch) {
        sim_req_t *r = d->wait_head;
        int64_t need = r->input_tok + r->output_tok;
        if (d->kv_used_tok + need > c->kv_cap_tok)
            break;
        sim_reqq_pop_front(&d->wait_head, &d->wait_tail);
        sim_cluster_inbound(c, r, 0);
        /* The first token reaches the user as the request joins: its wait
         * for the KV's load and for a slot is in TTFT (docs/model.md). */
        r->first_token_ns = r->decode_join_ns = sim_evq_now(c->evq);
        r->join_iter = d->b.iter;
        r->finish_iter = d->b.iter + r->output_tok - 2;
        r->stall_mark = d->stall_n;
        r->stall_mark_ns = d->stall_ns;
        d->kv_used_tok += need;
        d->ctx_tok += r->input_tok + 1;
        sim_decode_ring_reserve(c, d, (size_t)r->output_tok + 1);
        sim_batch_push(&d->b, r);
        sim_grow((void **)&d->fresh, &d->cap_fresh, d->n_fresh + 1, sizeof *d->fresh,
                 "decode fresh");
        d->fresh[d->n_fresh++] = r;
    }
    if (d->b.n > 0)
        iter_start(c, d);
}

/* The end of iteration b.iter at t: its log entry, metrics and context
 * growth, as the iteration's own event does them. */
static void iter_end(sim_cluster_t *c, decode_inst_t *d, sim_time_t t)
{
    sim_time_t dur = t - d->iter_start_ns;
    int64_t k = d->b.iter;
    /* A request that decoded in the previous iteration got its last token
     * when that one ended; an inlined prefill may have run since. */
    sim_time_t prev_end = k > 0 ? sim_batch_ring_at(&d->b, k - 1) : d->iter_start_ns;
    sim_batch_iter_end(&d->b, t);
    sim_metrics_decode_iter(c->m, dur, (int64_t)d->b.n);
    sim_obs_span(c->obs, SIM_OBS_DECODE, (int)(d - sim_pd(c)->dc), "iteration", t - dur, t,
                 (int64_t)d->b.n, -1);
    /* Requests in their first step: the interval since their first token
     * (hand-off and waiting included); the rest: since the previous
     * iteration ended (this iteration, plus any inlined prefill before it). */
    sim_metrics_tbt(c->m, t - prev_end, (uint64_t)(d->b.n - d->n_fresh));
    for (size_t i = 0; i < d->n_fresh; i++)
        sim_metrics_tbt(c->m, t - d->fresh[i]->first_token_ns, 1);
    d->n_fresh = 0;
    d->ctx_tok += (int64_t)d->b.n;
    d->iter_start_ns = t;
}

static void decode_iter_done(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    decode_inst_t *d = obj;
    (void)arg;
    int64_t k = d->span_end;
    /* A member that finishes now was last touched when it joined: its
     * lines (the TBT statistics and the record read most of it) are asked
     * for together, ahead of the iteration's own bookkeeping. A hint. */
    if (d->b.n > 0 && sim_batch_top_finish(&d->b) == k) {
        uintptr_t from = (uintptr_t)d->b.heap[0].r, to = from + sizeof(sim_req_t);
        for (uintptr_t a = from & ~(uintptr_t)63; a < to; a += 64)
            __builtin_prefetch((const void *)a);
    }
    sim_time_t now = sim_evq_now(c->evq);
    iter_end(c, d, d->b.iter < k ? sim_batch_ring_at(&d->b, d->b.iter) : now);
    if (d->b.iter <= k) {
        /* The span's other iterations: no member is fresh and none waited
         * for a prefill, so each token interval is the iteration's time. */
        int64_t lo = d->b.iter;
        size_t m = (size_t)(k - lo + 1);
        d->b.iter = k;
        sim_batch_iter_end(&d->b, now);
        sim_metrics_decode_span(c->m, m, (int64_t)d->b.n, now - d->iter_start_ns);
        sim_obs_span(c->obs, SIM_OBS_DECODE, (int)(d - sim_pd(c)->dc), "span", d->iter_start_ns,
                     now, (int64_t)m, -1);
        sim_decode_span_tbt(c, d, lo, k, now);
        d->ctx_tok += (int64_t)m * (int64_t)d->b.n;
        d->iter_start_ns = now;
    }
    d->span_end = d->b.iter;
    d->running = 0;
    while (d->b.n > 0 && sim_batch_top_finish(&d->b) == k)
        decode_complete(c, d, sim_batch_pop(&d->b));
    SIM_ASSERT(d->b.n == 0 || sim_batch_top_finish(&d->b) > k);
    decode_kick(c, d);
}

/* The KV is in VRAM: wait for a batch slot. */
static void kv_in_vram(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    sim_req_t *r = obj;
    decode_inst_t *d = &sim_pd(c)->dc[arg];
    /* It joins at the next boundary when nothing waits before it and a
     * slot and VRAM are free; else not before a completion (these do not
     * change within a span). */
    int joins = !d->wait_head && (int64_t)d->b.n < c->a.pd.decode_max_batch &&
                d->kv_used_tok + r->input_tok + r->output_tok <= c->kv_cap_tok;
    wait_append(d, r);
    if (!d->running)
        decode_kick(c, d);
    else if (joins)
        iter_cut(c, d);
}

/* An inlined prefill ended on the decode node: the first token is out and
 * the KV is already in VRAM. */
static void inline_done(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    sim_req_t *r = obj;
    decode_inst_t *d = &sim_pd(c)->dc[arg];
    d->running = 0;
    if (d->b.n > 0) { /* the batch waited for it */
        d->stall_n++;
        d->stall_ns += sim_evq_now(c->evq) - r->prefill_start_ns;
    }
    r->first_token_ns = r->prefill_end_ns = sim_evq_now(c->evq);
    sim_obs_span(c->obs, SIM_OBS_DECODE, (int)arg,
                 d->b.n ? "inlined prefill (stall)" : "inlined prefill", r->prefill_start_ns,
                 r->prefill_end_ns, r->input_tok, r->id);
    r->prefill_done = 1;
    r->kv_ready_ns = r->first_token_ns;
    if (!c->a.admit->after_prefill(c->admit_st, c, r)) {
        sim_cluster_finish(c, r, SIM_REQ_REJECTED_PREFILL);
    } else if (r->output_tok <= 1) {
        sim_cluster_finish(c, r, SIM_REQ_COMPLETED);
    } else {
        wait_append(d, r);
    }
    decode_kick(c, d);
}

void sim_decode_inline(sim_cluster_t *c, sim_req_t *r)
{
    decode_inst_t *d = &sim_pd(c)->dc[r->decode_inst];
    sim_cluster_inbound(c, r, 1);
    sim_reqq_push_back(&d->inline_head, &d->inline_tail, r);
    if (!d->running)
        decode_kick(c, d);
    else
        iter_cut(c, d);
}

/* All of r's KV is in the node's DRAM: when is it in VRAM? The node's
 * host-to-device path (PCIe, dram_load_bytes_per_s) loads it; loads take
 * that path one after another, in the order their KV becomes ready.
 * Layer by layer (the default): each layer is loaded as soon as it has
 * landed, as the stream delivers it from the start of prefill (arXiv
 * Sec. 4 streams each layer's KV to the decode node's DRAM; Sec. 5.2
 * overlaps layer-wise loads with the work they feed), so all but the last
 * layer's load runs from the stream's start (or when the path frees) and
 * the last layer's follows the last byte: ready at
 * max(begin + whole - last, now) + last. Else the whole prompt's load
 * starts at the last byte (or when the path frees). */
void sim_decode_kv_ready(sim_cluster_t *c, sim_req_t *r)
{
    decode_inst_t *d = &sim_pd(c)->dc[r->decode_inst];
    sim_time_t now = sim_evq_now(c->evq);
    r->kv_ready_ns = now;
    int64_t bytes = r->input_tok * c->kv_bytes_per_tok;
    sim_time_t whole = (sim_time_t)llround((double)bytes / c->a.pool.dram_load_bytes_per_s * 1e9);
    sim_time_t end;
    if (c->a.pd.decode_load_layerwise) {
        sim_time_t last = (sim_time_t)llround((double)whole / c->a.llm->n_layers);
        sim_time_t begin = SIM_MAX(r->prefill_start_ns, d->h2d_free_ns);
        end = SIM_MAX(begin + whole - last, now) + last;
    } else {
        end = SIM_MAX(now, d->h2d_free_ns) + whole;
    }
    d->h2d_free_ns = end;
    r->decode_load_ns = end - now;
    sim_metrics_h2d(c->m, bytes, whole);
    sim_evq_after(c->evq, r->decode_load_ns, kv_in_vram, r, r->decode_inst);
}

void sim_cluster_inbound(sim_cluster_t *c, sim_req_t *r, int on)
{
    if (r->inbound == on || r->decode_inst < 0)
        return;
    decode_inst_t *d = &sim_pd(c)->dc[r->decode_inst];
    int64_t s = on ? 1 : -1;
    r->inbound = on;
    d->n_inbound += s;
    d->ctx_inbound += s * r->input_tok;
    d->rsv_inbound += s * (r->input_tok + r->output_tok);
}
