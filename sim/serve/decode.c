/* sim/serve/decode.c: decode instances: continuous batching. A request arrives
 * when its KV is in the node's DRAM, is loaded into VRAM (host-to-device),
 * then joins a batch at an iteration boundary when a slot and VRAM for its
 * whole KV (input + output) are free. The batch and its ring of iteration
 * end times are in sim/serve/batch.h.
 * Iterations between batch changes run as one event (a span), with the
 * results of one event per iteration (MOONCAKE_SIM_DECODE_STEP=1 selects
 * that, the reference the tests compare against): the span's end times go
 * into the ring ahead, from the same cost-model calls and integer sums;
 * its event, and each iteration inside it when compared with another
 * event, takes the place in the queue's order that iteration's own event
 * would have had (scheduled at the previous iteration's end,
 * sim_evq_at_as_of). A span ends at the next completion; an arrival that
 * would join (or a prefill to inline) cuts it at the next boundary; other
 * readers see the state as of the running event through
 * sim_decode_iter_now and sim_decode_ctx_now. One order is not kept: an
 * event scheduled exactly at an iteration's end inside a span, and due
 * exactly at a later iteration's end, meets that iteration as if it had
 * been scheduled after the iteration's own event (stepping orders it by
 * which of the two scheduling events ran first); it takes two coincidences
 * to the nanosecond. */
#include "sim/serve/pd_int.h"
#include "sim/core/hist.h"
#include "sim/serve/reqq.h"

#include <math.h>

/* ---- a finishing request's TBT statistics from runs of intervals ----
 * Its n intervals are its first (from its first token to the end of the
 * iteration it joined, J) and then the ring's differences for iterations
 * J+1 .. J+n-1. Those split into runs at the marked iterations, and no
 * run's intervals fall (each is one span's iteration times at a context
 * that grows). The longest tenth is taken from the runs' ends by a
 * max-heap, not from a selection over all n: the mean's sum telescopes,
 * the max is the first taken, and P90 is the last taken or the next. The
 * same values as sim_metrics_tbt_stats over the n intervals. */

typedef struct sim_tbt_run {
    int64_t v;      /* the interval at hi */
    int64_t lo, hi; /* iterations; hi is the next to take */
} tbt_run_t;

static int64_t interval_at(const decode_inst_t *d, const sim_req_t *r, int64_t i)
{
    sim_time_t prev = i == r->join_iter ? r->first_token_ns : sim_batch_ring_at(&d->b, i - 1);
    return sim_batch_ring_at(&d->b, i) - prev;
}

/* The first marked iteration in [from, upto], or upto + 1. */
static int64_t next_mark(const decode_inst_t *d, int64_t from, int64_t upto)
{
    size_t mask = d->b.ring_cap - 1;
    for (int64_t i = from; i <= upto;) {
        size_t slot = (size_t)i & mask, off = slot % 64;
        int64_t span = SIM_MIN((int64_t)(64 - off), upto - i + 1);
        uint64_t w = d->marks[slot / 64] >> off;
        if (span < 64)
            w &= (UINT64_C(1) << span) - 1;
        if (w)
            return i + __builtin_ctzll(w);
        i += span;
    }
    return upto + 1;
}

static void run_sift(tbt_run_t *h, size_t n, size_t i)
{
    tbt_run_t x = h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h[c + 1].v > h[c].v)
            c++;
        if (h[c].v <= x.v)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

static void tbt_from_runs(sim_cluster_t *c, const decode_inst_t *d, sim_req_t *r, size_t n)
{
    r->tbt_mean_s = r->tbt_p90_s = r->tbt_max_s = r->tbt_top10_s = 0;
    if (n == 0)
        return;
    int64_t J = r->join_iter, last = J + (int64_t)n - 1;
    size_t top = (n + 9) / 10, r90 = (9 * n + 9) / 10;
    /* The takes below read mostly the intervals before the last one, a
     * line of the ring per eight: their lines are asked for together,
     * ahead of the reads (a finishing request's ring is long cold). */
    for (int64_t i = last; i >= J && i + (int64_t)top + 8 > last; i -= 8)
        __builtin_prefetch(&d->b.ring[(size_t)i & (d->b.ring_cap - 1)]);
    r->tbt_mean_s = (double)(sim_batch_ring_at(&d->b, last) - r->first_token_ns) / (double)n / 1e9;
    /* The runs: the first interval alone, then [lo, hi] between marks. */
    size_t nr = 0;
    for (int64_t lo = J; lo <= last;) {
        int64_t end = lo == J ? J + 1 : next_mark(d, lo + 1, last); /* the next run's start */
        sim_grow((void **)&sim_pd(c)->tbt_runs, &sim_pd(c)->cap_tbt_runs, nr + 1, sizeof *sim_pd(c)->tbt_runs, "tbt runs");
        sim_pd(c)->tbt_runs[nr++] = (tbt_run_t){.v = interval_at(d, r, end - 1), .lo = lo, .hi = end - 1};
        lo = end;
    }
    tbt_run_t *h = sim_pd(c)->tbt_runs;
    for (size_t i = nr / 2; i-- > 0;)
        run_sift(h, nr, i);
    size_t takes = top + (r90 - 1 < n - top); /* and the next below the tenth */
    int64_t sum = 0, v = 0;
    /* Each take reads the root's run one interval further back. While
     * that interval is no less than the root's children (the next best),
     * sifting would leave the root in place: the takes go on without it. */
    int64_t next_best = 0; /* the root's larger child, known once sifted */
    int sifted = 0;
    for (size_t k = 0; k < takes; k++) {
        v = h[0].v;
        if (k == 0)
            r->tbt_max_s = (double)v / 1e9;
        if (k < top)
            sum += v;
        if (k + 1 == top)
            r->tbt_p90_s = (double)v / 1e9;
        if (h[0].hi > h[0].lo) {
            h[0].hi--;
            h[0].v = interval_at(d, r, h[0].hi);
            if (sifted && h[0].v >= next_best)
                continue;
        } else {
            h[0] = h[--nr];
        }
        run_sift(h, nr, 0);
        sifted = 1;
        next_best = nr < 2 ? INT64_MIN : nr < 3 || h[1].v > h[2].v ? h[1].v : h[2].v;
    }
    r->tbt_top10_s = (double)sum / (double)top / 1e9;
    if (takes > top)
        r->tbt_p90_s = (double)v / 1e9;
}

static void decode_complete(sim_cluster_t *c, decode_inst_t *d, sim_req_t *r)
{
    size_t n = (size_t)(r->output_tok - 1);
    int64_t upto = r->join_iter + (int64_t)n;
    SIM_ASSERT(n == 0 || (upto <= d->b.iter && d->b.iter - r->join_iter <= (int64_t)d->b.ring_cap));
    if (d->step_mode == 1) { /* the reference: a selection over every interval */
        sim_grow((void **)&c->scratch, &c->cap_scratch, n, sizeof *c->scratch, "tbt scratch");
        sim_batch_intervals(&d->b, r->join_iter, upto, r->first_token_ns, c->scratch);
        sim_metrics_tbt_stats(c->scratch, n, &r->tbt_mean_s, &r->tbt_p90_s, &r->tbt_max_s,
                              &r->tbt_top10_s);
    } else {
        tbt_from_runs(c, d, r, n);
    }
    d->kv_used_tok -= r->input_tok + r->output_tok;
    d->ctx_tok -= r->input_tok + r->output_tok;
    r->prefill_stalls += d->stall_n - r->stall_mark;
    r->prefill_stall_ns += d->stall_ns - r->stall_mark_ns;
    sim_cluster_note_decode(c, sim_evq_now(c->evq) - r->decode_join_ns);
    sim_cluster_finish(c, r, SIM_REQ_COMPLETED);
}

static void decode_iter_done(void *ctx, void *obj, int64_t arg);
static void span_start(sim_cluster_t *c, decode_inst_t *d);

/* Queue r for a batch slot (its KV is in VRAM). */
static void wait_append(decode_inst_t *d, sim_req_t *r)
{
    sim_reqq_push_back(&d->wait_head, &d->wait_tail, r);
}

static void inline_done(void *ctx, void *obj, int64_t arg);

/* Where the event of iteration i's end (i in b.iter .. span_end) stands
 * in the queue's order: scheduled when iteration i started. */
static sim_evq_pos_t iter_pos(const decode_inst_t *d, int64_t i)
{
    return (sim_evq_pos_t){
        .t = sim_batch_ring_at(&d->b, i),
        .pushed = i == d->b.iter ? d->iter_start_ns : sim_batch_ring_at(&d->b, i - 1),
        .seq = d->span_seq};
}

/* The first iteration of the running span whose end comes after the
 * running event (b.iter when no span runs). O(log span). */
static int64_t span_next(const sim_cluster_t *c, const decode_inst_t *d)
{
    int64_t lo = d->b.iter, hi = d->span_end;
    if (lo == hi)
        return lo;
    sim_evq_pos_t cur = sim_evq_current(c->evq);
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (sim_evq_pos_less(iter_pos(d, mid), cur))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int64_t sim_decode_iter_now(const sim_cluster_t *c, int j)
{
    return span_next(c, &sim_pd(c)->dc[j]);
}

int64_t sim_decode_ctx_now(const sim_cluster_t *c, int j)
{
    const decode_inst_t *d = &sim_pd(c)->dc[j];
    return d->ctx_tok + (span_next(c, d) - d->b.iter) * (int64_t)d->b.n;
}

/* Clear the marks of the m ring slots from slot from on (wrapping; m is
 * below cap, a power of two, 64 or more). */
static void marks_clear(uint64_t *marks, size_t cap, size_t from, size_t m)
{
    while (m > 0) {
        size_t in_word = 64 - from % 64, take = m < in_word ? m : in_word;
        uint64_t bits = take == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << take) - 1) << (from % 64);
        marks[from / 64] &= ~bits;
        m -= take;
        from = (from + take) & (cap - 1);
    }
}

/* A run of a span's token intervals: from iteration start on, none
 * falls and all share the TBT histogram bucket of the first, v; before
 * is the end time of the iteration before start, last the run's last
 * interval (its largest) when the span runs to its planned end. */
typedef struct sim_span_run {
    int64_t start;
    sim_time_t v, before, last;
} span_run_t;

/* A new run of the span at iteration start (interval v, the iteration
 * before it ending at before); the previous run's last interval was
 * prev. Returns the end of v's bucket. */
static uint64_t run_open(decode_inst_t *d, int64_t start, sim_time_t v, sim_time_t before,
                         sim_time_t prev)
{
    if (d->n_runs > 0)
        d->runs[d->n_runs - 1].last = prev;
    sim_grow((void **)&d->runs, &d->cap_runs, d->n_runs + 1, sizeof *d->runs, "decode runs");
    d->runs[d->n_runs++] = (span_run_t){.start = start, .v = v, .before = before};
    return sim_hist_bucket_end(v);
}

/* Start iteration b.iter now with the batch as it is. In span mode its
 * iterations run to the next completion (the batch's top): their end
 * times go into the ring, each from the context as stepping would grow
 * it, and one event marks the last. */
static void span_start(sim_cluster_t *c, decode_inst_t *d)
{
    if (!d->step_mode)
        d->step_mode = sim_env_flag("MOONCAKE_SIM_DECODE_STEP") ? 1 : 2;
    sim_time_t now = sim_evq_now(c->evq);
    int64_t k = d->b.iter, n = (int64_t)d->b.n;
    int64_t f = d->step_mode == 1 ? k : sim_batch_top_finish(&d->b);
    SIM_ASSERT(f >= k && f - k + 2 <= (int64_t)d->b.ring_cap);
    sim_time_t t = now;
    size_t m = (size_t)(f - k + 1);
    sim_grow((void **)&c->scratch, &c->cap_scratch, m, sizeof *c->scratch, "decode span");
    model_cost_decode_span_ns(c->a.cost, n, d->ctx_tok, (int64_t)m, c->scratch);
    /* The span's first interval also holds any wait since the previous
     * iteration ended (an inlined prefill); the rest are its iteration
     * times. Marked: the first, and each interval below the one before. */
    sim_time_t prev_iv = now + c->scratch[0] - (k > 0 ? sim_batch_ring_at(&d->b, k - 1) : now);
    sim_time_t *ring = d->b.ring;
    const sim_time_t *iv = c->scratch;
    uint64_t *marks = d->marks;
    size_t mask = d->b.ring_cap - 1, slot = (size_t)k & mask;
    marks_clear(marks, d->b.ring_cap, slot, m);
    t += iv[0];
    ring[slot] = t;
    marks[slot / 64] |= UINT64_C(1) << (slot % 64);
    /* The rest a piece of the ring at a time (it wraps at most once):
     * the end times, a running sum; then the marks, mostly none, and the
     * runs the span's end will add to the TBT histogram (span_tbt): a
     * run ends where an interval falls or leaves the bucket of the run's
     * first, so the end reads none of them back from the ring. */
    d->n_runs = 0;
    uint64_t bucket_end = 0; /* none: the second interval opens the first run */
    for (size_t j = 1; j < m;) {
        size_t from = (slot + 1) & mask, len = SIM_MIN(m - j, mask + 1 - from);
        sim_time_t *at = ring + from;
        for (size_t q = 0; q < len; q++) {
            t += iv[j + q];
            at[q] = t;
        }
        for (size_t q = 0; q < len; q++) {
            sim_time_t x = iv[j + q];
            if (x < prev_iv || (uint64_t)x >= bucket_end) {
                if (x < prev_iv)
                    marks[(from + q) / 64] |= UINT64_C(1) << ((from + q) % 64);
                bucket_end = run_open(d, k + (int64_t)(j + q), x, at[q] - x, prev_iv);
            }
            prev_iv = x;
        }
        slot = from + len - 1;
        j += len;
    }
    if (d->n_runs > 0)
        d->runs[d->n_runs - 1].last = prev_iv;
    d->running = 1;
    d->iter_start_ns = now;
    d->span_end = f;
    d->span_planned = f;
    d->span_seq = sim_evq_next_seq(c->evq);
    d->span_ev = sim_evq_at_as_of(c->evq, t, f == k ? now : sim_batch_ring_at(&d->b, f - 1),
                                  decode_iter_done, d, 0);
}

/* Something joins at the next boundary: end the span there. */
static void span_cut(sim_cluster_t *c, decode_inst_t *d)
{
    int64_t i = span_next(c, d);
    if (i >= d->span_end)
        return;
    sim_evq_cancel(c->evq, d->span_ev);
    d->span_end = i;
    d->span_ev = sim_evq_at_as_of(c->evq, sim_batch_ring_at(&d->b, i), iter_pos(d, i).pushed,
                                  decode_iter_done, d, 0);
}

/* Bytes of the marks of a ring of ring_cap iterations (a bit each). */
static size_t marks_bytes(size_t ring_cap) { return ring_cap / 64 * sizeof(uint64_t); }

/* The ring holds need iterations; its marks follow it. */
static void ring_reserve(sim_cluster_t *c, decode_inst_t *d, size_t need)
{
    size_t old = d->b.ring_cap;
    uint64_t *marks = d->marks;
    sim_batch_ring_reserve(&d->b, need, &c->slab);
    if (marks && d->b.ring_cap == old)
        return;
    d->marks = sim_slab_alloc(&c->slab, marks_bytes(d->b.ring_cap), "iteration marks");
    int64_t keep = (int64_t)old < d->b.iter ? (int64_t)old : d->b.iter;
    for (int64_t i = d->b.iter - keep; marks && i < d->b.iter; i++) {
        size_t from = (size_t)i & (old - 1), to = (size_t)i & (d->b.ring_cap - 1);
        if (marks[from / 64] >> (from % 64) & 1)
            d->marks[to / 64] |= UINT64_C(1) << (to % 64);
    }
    sim_slab_release(&c->slab, marks, marks_bytes(old));
}

void sim_decode_rings_free(sim_cluster_t *c, decode_inst_t *d)
{
    sim_slab_release(&c->slab, d->marks, marks_bytes(d->b.ring_cap));
    d->marks = NULL;
    sim_batch_ring_free(&d->b, &c->slab);
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
        ring_reserve(c, d, (size_t)r->output_tok + 1);
        sim_batch_push(&d->b, r);
        sim_grow((void **)&d->fresh, &d->cap_fresh, d->n_fresh + 1, sizeof *d->fresh,
                 "decode fresh");
        d->fresh[d->n_fresh++] = r;
    }
    if (d->b.n > 0)
        span_start(c, d);
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

/* The token intervals of iterations lo..k (the span's after its first,
 * run up to k, which ended now) into the TBT histogram, each for every
 * member: one add per run span_runs found. A run's sum telescopes to a
 * difference of end times; a run the cut at k shortened ends on its
 * interval at k, the one read from the ring. */
static void span_tbt(sim_cluster_t *c, const decode_inst_t *d, int64_t lo, int64_t k,
                     sim_time_t now)
{
    uint64_t count = (uint64_t)d->b.n;
    for (size_t i = 0; i < d->n_runs && d->runs[i].start <= k; i++) {
        const span_run_t *r = &d->runs[i];
        SIM_ASSERT(i > 0 || r->start == lo);
        int whole = i + 1 < d->n_runs && d->runs[i + 1].start <= k + 1;
        int64_t e = whole ? d->runs[i + 1].start - 1 : k;
        sim_time_t end_t = whole ? d->runs[i + 1].before : now;
        sim_time_t last = r->last;
        if (!whole && e < d->span_planned)
            last = now - (e == r->start ? r->before : sim_batch_ring_at(&d->b, e - 1));
        sim_metrics_tbt_run(c->m, r->v, (uint64_t)(e - r->start + 1), end_t - r->before, last,
                            count);
    }
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
        span_tbt(c, d, lo, k, now);
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
        span_cut(c, d);
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
        span_cut(c, d);
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
