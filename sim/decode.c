/* sim/decode.c: decode instances: continuous batching with one event per
 * iteration. A request arrives when its KV is in the node's DRAM, is
 * loaded into VRAM (host-to-device), then joins a batch at an iteration
 * boundary when a slot and VRAM for its whole KV (input + output) are free.
 * The batch and its ring of iteration end times are in sim/batch.h. */
#include "sim/cluster_int.h"
#include "sim/reqq.h"

#include <math.h>

static void decode_complete(sim_cluster_t *c, decode_inst_t *d, sim_req_t *r)
{
    size_t n = (size_t)(r->output_tok - 1);
    int64_t upto = r->join_iter + (int64_t)n;
    SIM_ASSERT(n == 0 || (upto <= d->b.iter && d->b.iter - r->join_iter <= (int64_t)d->b.ring_cap));
    sim_grow((void **)&c->scratch, &c->cap_scratch, n, sizeof *c->scratch, "tbt scratch");
    sim_batch_intervals(&d->b, r->join_iter, upto, r->first_token_ns, c->scratch);
    sim_metrics_tbt_stats(c->scratch, n, &r->tbt_mean_s, &r->tbt_p90_s, &r->tbt_max_s,
                          &r->tbt_top10_s);
    d->kv_used_tok -= r->input_tok + r->output_tok;
    d->ctx_tok -= r->input_tok + r->output_tok;
    r->prefill_stalls += d->stall_n - r->stall_mark;
    r->prefill_stall_ns += d->stall_ns - r->stall_mark_ns;
    sim_cluster_note_decode(c, sim_evq_now(c->evq) - r->decode_join_ns);
    sim_cluster_finish(c, r, SIM_REQ_COMPLETED);
}

static void decode_iter_done(void *ctx, void *obj, int64_t arg);

/* Queue r for a batch slot (its KV is in VRAM). */
static void wait_append(decode_inst_t *d, sim_req_t *r)
{
    sim_reqq_push_back(&d->wait_head, &d->wait_tail, r);
}

/* Admit waiting requests in FIFO order while the batch has a slot and the
 * VRAM left after weights holds their whole KV (input + output), then start
 * an iteration if the batch is not empty. */
static void inline_done(void *ctx, void *obj, int64_t arg);

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
        r->decode_join_ns = sim_evq_now(c->evq);
        r->join_iter = d->b.iter;
        r->finish_iter = d->b.iter + r->output_tok - 2;
        r->stall_mark = d->stall_n;
        r->stall_mark_ns = d->stall_ns;
        d->kv_used_tok += need;
        d->ctx_tok += r->input_tok + 1;
        sim_batch_ring_reserve(&d->b, (size_t)r->output_tok + 1);
        sim_batch_push(&d->b, r);
        sim_grow((void **)&d->fresh, &d->cap_fresh, d->n_fresh + 1, sizeof *d->fresh,
                 "decode fresh");
        d->fresh[d->n_fresh++] = r;
    }
    if (d->b.n == 0)
        return;
    sim_time_t dur = model_cost_decode_ns(c->a.cost, (int64_t)d->b.n, d->ctx_tok);
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
    int64_t k = d->b.iter;
    /* A request that decoded in the previous iteration got its last token
     * when that one ended; an inlined prefill may have run since. */
    sim_time_t prev_end = k > 0 ? sim_batch_ring_at(&d->b, k - 1) : d->iter_start_ns;
    sim_batch_iter_end(&d->b, now);
    d->running = 0;
    sim_metrics_decode_iter(c->m, dur, (int64_t)d->b.n);
    /* Requests in their first step: the interval since their first token
     * (hand-off and waiting included); the rest: since the previous
     * iteration ended (this iteration, plus any inlined prefill before it). */
    sim_metrics_tbt(c->m, now - prev_end, (uint64_t)(d->b.n - d->n_fresh));
    for (size_t i = 0; i < d->n_fresh; i++)
        sim_metrics_tbt(c->m, now - d->fresh[i]->first_token_ns, 1);
    d->n_fresh = 0;
    d->ctx_tok += (int64_t)d->b.n;
    while (d->b.n > 0 && d->b.heap[0]->finish_iter == k)
        decode_complete(c, d, sim_batch_pop(&d->b));
    SIM_ASSERT(d->b.n == 0 || d->b.heap[0]->finish_iter > k);
    decode_kick(c, d);
}

/* The KV is in VRAM: wait for a batch slot. */
static void kv_in_vram(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    sim_req_t *r = obj;
    decode_inst_t *d = &c->dc[arg];
    wait_append(d, r);
    if (!d->running)
        decode_kick(c, d);
}

/* An inlined prefill ended on the decode node: the first token is out and
 * the KV is already in VRAM. */
static void inline_done(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    sim_req_t *r = obj;
    decode_inst_t *d = &c->dc[arg];
    d->running = 0;
    if (d->b.n > 0) { /* the batch waited for it */
        d->stall_n++;
        d->stall_ns += sim_evq_now(c->evq) - r->prefill_start_ns;
    }
    r->first_token_ns = r->prefill_end_ns = sim_evq_now(c->evq);
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
    decode_inst_t *d = &c->dc[r->decode_inst];
    sim_cluster_inbound(c, r, 1);
    sim_reqq_push_back(&d->inline_head, &d->inline_tail, r);
    if (!d->running)
        decode_kick(c, d);
}

void sim_decode_kv_ready(sim_cluster_t *c, sim_req_t *r)
{
    r->kv_ready_ns = sim_evq_now(c->evq);
    int64_t bytes = r->input_tok * c->kv_bytes_per_tok;
    r->decode_load_ns = (sim_time_t)llround((double)bytes / c->a.pool.dram_load_bytes_per_s * 1e9);
    sim_metrics_h2d(c->m, bytes, r->decode_load_ns);
    sim_evq_after(c->evq, r->decode_load_ns, kv_in_vram, r, r->decode_inst);
}
