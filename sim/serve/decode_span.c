/* sim/serve/decode_span.c: the decode model's accelerator. Iterations
 * between batch changes run as one event (a span) with the results of one
 * event per iteration (sim/serve/decode_step.c, the reference the tests
 * compare against: tests/decode_span.sh, tests/test_decode.c): the span's
 * end times go into the ring ahead, from the same cost-model calls and
 * integer sums, a piece at a time as simulated time reaches them (the
 * event moves to each piece's end: sim_evq_at_more); its event, and each
 * iteration inside it when compared with another event, takes the place
 * in the queue's order that iteration's own event would have had
 * (scheduled at the previous iteration's end,
 * sim_evq_at_as_of). A span ends at the next completion; an arrival that
 * would join (or a prefill to inline) cuts it at the next boundary; other
 * readers see the state as of the running event through
 * sim_decode_span_next. A marks bitmap beside the ring and runs of token
 * intervals let the span's TBT histogram adds and a finishing request's
 * TBT statistics skip the per-iteration reads. One order is not kept: an
 * event scheduled exactly at an iteration's end inside a span, and due
 * exactly at a later iteration's end, meets that iteration as if it had
 * been scheduled after the iteration's own event (stepping orders it by
 * which of the two scheduling events ran first); it takes two coincidences
 * to the nanosecond. */
#include "sim/serve/pd_int.h"
#include "sim/core/heap.h"
#include "sim/core/hist.h"

/* ---- a finishing request's TBT statistics from runs of intervals ----
 * Its n intervals are its first (from its first token to the end of the
 * iteration it joined, J) and then the ring's differences for iterations
 * J+1 .. J+n-1. Those split into runs at the marked iterations, and no
 * run's intervals fall (each is one span's iteration times at a context
 * that grows). The longest tenth is taken from the runs' ends (by a
 * scan of a few runs or a max-heap of more), not from a selection over
 * all n: the mean's sum telescopes, the max is the first taken, and P90
 * is the last taken or the next. The same values as
 * sim_metrics_tbt_stats over the n intervals. */

typedef struct sim_tbt_run {
    int64_t v;      /* the interval at hi */
    int64_t lo, hi; /* iterations; hi is the next to take */
} tbt_run_t;

static int64_t interval_at(const decode_inst_t *d, const sim_req_t *r, int64_t i)
{
    sim_time_t prev = i == r->join_iter ? r->first_token_ns : sim_batch_ring_at(&d->b, i - 1);
    return sim_batch_ring_at(&d->b, i) - prev;
}

/* The sum of the s intervals at hi - s + 1 .. hi (s >= 1): a difference
 * of end times. */
static int64_t run_sum(const decode_inst_t *d, const sim_req_t *r, int64_t hi, size_t s)
{
    int64_t first = hi - (int64_t)s + 1;
    sim_time_t before = first == r->join_iter ? r->first_token_ns : sim_batch_ring_at(&d->b, first - 1);
    return sim_batch_ring_at(&d->b, hi) - before;
}

/* How many of the intervals at hi, hi - 1, .., hi - cap + 1 (of one run,
 * so falling going back; the one at hi no less than least) are no less
 * than least: doubling steps back, then halving. */
static size_t stretch(const decode_inst_t *d, const sim_req_t *r, int64_t hi, size_t cap,
                      int64_t least)
{
    if (least == INT64_MIN) /* the last run: all of it */
        return cap;
    size_t good = 1, bad = cap + 1; /* the first good hold; bad: known less, or past cap */
    for (size_t step = 1; good + step < bad; step *= 2) {
        if (interval_at(d, r, hi - (int64_t)(good + step) + 1) < least) {
            bad = good + step;
            break;
        }
        good += step;
    }
    while (bad - good > 1) {
        size_t mid = good + (bad - good) / 2;
        if (interval_at(d, r, hi - (int64_t)mid + 1) >= least)
            good = mid;
        else
            bad = mid;
    }
    return good;
}

/* Runs up to this many are scanned for the best, more go in a heap. */
#define TBT_SCAN_RUNS 16

/* The runs by their interval at hi, largest first: the one heap
 * (sim/core/heap.h) as a max-heap. */
static inline int run_more(const tbt_run_t *a, const tbt_run_t *b) { return a->v > b->v; }
SIM_HEAP_DEFINE(run_heap, tbt_run_t, run_more, SIM_HEAP_UNTRACKED)

/* A finishing request's runs (ending at iteration last) into
 * tbt_runs: the first interval alone, then [lo, hi] between marks, a new
 * one at each marked iteration from J + 2 on (J + 1 starts one anyway):
 * the marks' words walked once, their set bits taken in order. At most n
 * runs. Returns how many. */
static size_t tbt_runs(sim_cluster_t *c, const decode_inst_t *d, const sim_req_t *r, int64_t last)
{
    int64_t J = r->join_iter;
    sim_grow((void **)&sim_pd(c)->tbt_runs, &sim_pd(c)->cap_tbt_runs, (size_t)(last - J) + 1,
             sizeof *sim_pd(c)->tbt_runs, "tbt runs");
    tbt_run_t *runs = sim_pd(c)->tbt_runs;
    const sim_time_t *ring = d->b.ring;
    size_t mask = d->b.ring_cap - 1, nr = 0;
    runs[nr++] = (tbt_run_t){.v = ring[(size_t)J & mask] - r->first_token_ns, .lo = J, .hi = J};
    if (last > J) {
        int64_t lo = J + 1;
        /* A word at a time, base the iteration at its bit 0 (a ring's
         * capacity is a multiple of 64: iteration i's bit is bit i % 64),
         * masked to J + 2 .. last. */
        int64_t base = (J + 2) & ~(int64_t)63;
        uint64_t w = d->marks[((size_t)base & mask) / 64] & (~UINT64_C(0) << ((J + 2) & 63));
        while (base <= last) {
            if (last - base < 63)
                w &= (UINT64_C(2) << (last - base)) - 1;
            for (; w; w &= w - 1) {
                int64_t hi = base + __builtin_ctzll(w) - 1;
                runs[nr++] = (tbt_run_t){
                    .v = ring[(size_t)hi & mask] - ring[(size_t)(hi - 1) & mask], .lo = lo, .hi = hi};
                lo = hi + 1;
            }
            base += 64;
            w = d->marks[((size_t)base & mask) / 64];
        }
        runs[nr++] = (tbt_run_t){
            .v = ring[(size_t)last & mask] - ring[(size_t)(last - 1) & mask], .lo = lo, .hi = last};
    }
    return nr;
}

void sim_decode_span_tbt_stats(sim_cluster_t *c, const decode_inst_t *d, sim_req_t *r, size_t n)
{
    r->tbt_mean_s = r->tbt_p90_s = r->tbt_max_s = r->tbt_top10_s = 0;
    if (n == 0)
        return;
    int64_t J = r->join_iter, last = J + (int64_t)n - 1;
    size_t top = (n + 9) / 10, r90 = (9 * n + 9) / 10;
    /* The takes below read mostly the intervals before the last one, a
     * line of the ring per eight: their lines are asked for together,
     * ahead of the reads (a finishing request's ring is long cold). */
    size_t pmask = d->b.ring_cap - 1;
    for (int64_t i = last, lo = SIM_MAX(J, last - (int64_t)top - 7); i >= lo; i -= 8)
        __builtin_prefetch(&d->b.ring[(size_t)i & pmask]);
    r->tbt_mean_s = (double)(sim_batch_ring_at(&d->b, last) - r->first_token_ns) / (double)n / 1e9;
    size_t nr = tbt_runs(c, d, r, last);
    tbt_run_t *h = sim_pd(c)->tbt_runs;
    size_t takes = top + (r90 - 1 < n - top); /* and the next below the tenth */
    int64_t sum = 0, v = 0;
    /* Each take reads the best run (the largest interval at its hi) one
     * interval further back. While that interval is no less than the
     * other runs' best (next_best), it stays the best: such a stretch of
     * takes is found at once, by a search back through the run (its
     * intervals fall going back), and its sum is a difference of two end
     * times. A few runs are scanned for the best and the next best each
     * time; more are a max-heap, the best at the root and the next best
     * its larger child. Which of two equal intervals goes first does not
     * change what is taken: the takes are the multiset's largest. */
    int scan = nr <= TBT_SCAN_RUNS;
    if (!scan)
        run_heap_heapify(h, nr);
    for (size_t k = 0;;) {
        size_t b = 0;
        int64_t next_best = INT64_MIN;
        if (scan) {
            for (size_t q = 1; q < nr; q++) {
                if (h[q].v > h[b].v) {
                    next_best = h[b].v;
                    b = q;
                } else if (h[q].v > next_best) {
                    next_best = h[q].v;
                }
            }
        } else if (nr >= 2) {
            next_best = nr < 3 || h[1].v > h[2].v ? h[1].v : h[2].v;
        }
        int64_t hi = h[b].hi, lo = h[b].lo;
        /* nt takes, of the intervals at hi, hi - 1, .., hi - nt + 1: all
         * that are no less than the next best (the one at hi is), up to
         * the run's start and the takes. */
        size_t cap = SIM_MIN((size_t)(hi - lo) + 1, takes - k);
        size_t nt = stretch(d, r, hi, cap, next_best);
        if (k == 0)
            r->tbt_max_s = (double)h[b].v / 1e9;
        if (k < top) {
            size_t s_ = SIM_MIN(nt, top - k);
            sum += s_ == 1 ? h[b].v : run_sum(d, r, hi, s_);
            if (k + s_ == top)
                r->tbt_p90_s =
                    (double)(s_ == 1 ? h[b].v : interval_at(d, r, hi - (int64_t)s_ + 1)) / 1e9;
        }
        v = nt == 1 ? h[b].v : interval_at(d, r, hi - (int64_t)nt + 1);
        k += nt;
        if (k == takes)
            break;
        if (hi - (int64_t)nt >= lo) {
            h[b].hi = hi - (int64_t)nt;
            h[b].v = interval_at(d, r, h[b].hi);
        } else {
            h[b] = h[--nr];
        }
        if (!scan)
            run_heap_down(h, nr, 0, h[0]);
    }
    r->tbt_top10_s = (double)sum / (double)top / 1e9;
    if (takes > top)
        r->tbt_p90_s = (double)v / 1e9;
}

/* Where the event of iteration i's end (i in b.iter .. span_end) stands
 * in the queue's order: scheduled when iteration i started. */
static sim_evq_pos_t iter_pos(const decode_inst_t *d, int64_t i)
{
    return (sim_evq_pos_t){
        .t = sim_batch_ring_at(&d->b, i),
        .pushed = i == d->b.iter ? d->iter_start_ns : sim_batch_ring_at(&d->b, i - 1),
        .seq = d->span_seq};
}

int64_t sim_decode_span_next(const sim_cluster_t *c, const decode_inst_t *d)
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

/* The marks and runs of count intervals x of iterations from i on (their
 * end times at, their ring slots from slot on), one at a time; prev is
 * the interval before them, updated. Returns the bucket end. */
static uint64_t span_marks(decode_inst_t *d, int64_t i, const sim_time_t *at, const sim_time_t *x,
                           size_t count, size_t slot, sim_time_t *prev, uint64_t bucket_end)
{
    uint64_t *marks = d->marks;
    sim_time_t p = *prev;
    for (size_t q = 0; q < count; q++) {
        if (x[q] < p || (uint64_t)x[q] >= bucket_end) {
            if (x[q] < p)
                marks[(slot + q) / 64] |= UINT64_C(1) << ((slot + q) % 64);
            bucket_end = run_open(d, i + (int64_t)q, x[q], at[q] - x[q], p);
        }
        p = x[q];
    }
    *prev = p;
    return bucket_end;
}

/* span_fill's piece of len intervals x (iterations from i on, ring
 * slots from slot on, at their end times at) when none falls below the
 * one before it (model_cost_decode_span_ns says so): only the first can
 * fall (below *prev), so span_marks takes it, and after it a run opens
 * only where an interval reaches the bucket's end, which a binary search
 * finds (the intervals rise and are not negative, so the test is false
 * and then true); the rest is the sum. The same ring, marks and runs as
 * span_marks over all of them. Returns the end of the last. */
static sim_time_t fill_rising(decode_inst_t *d, int64_t i, sim_time_t *at, const sim_time_t *x,
                              size_t len, size_t slot, sim_time_t t, sim_time_t *prev,
                              uint64_t *bucket_end)
{
    at[0] = t += x[0];
    uint64_t be = *bucket_end;
    if (x[0] < *prev || (uint64_t)x[0] >= be) /* span_marks's test */
        be = span_marks(d, i, at, x, 1, slot, prev, be);
    for (size_t q = 1; q < len;) {
        size_t lo = q, hi = len;
        if ((uint64_t)x[len - 1] < be)
            lo = len; /* none reaches it: the search's answer at once */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if ((uint64_t)x[mid] >= be)
                hi = mid;
            else
                lo = mid + 1;
        }
        for (; q + 4 <= lo; q += 4) {
            at[q] = t += x[q];
            at[q + 1] = t += x[q + 1];
            at[q + 2] = t += x[q + 2];
            at[q + 3] = t += x[q + 3];
        }
        for (; q < lo; q++)
            at[q] = t += x[q];
        if (lo == len)
            break;
        at[lo] = t += x[lo];
        be = run_open(d, i + (int64_t)lo, x[lo], at[lo] - x[lo], x[lo - 1]);
        q = lo + 1;
    }
    *prev = x[len - 1];
    *bucket_end = be;
    return t;
}

/* The end times of iterations i .. i + m - 1 of the running span (after
 * its first), the one before ending at t, into the ring, from their
 * intervals iv; their marks, and the runs the span's end will add to
 * the TBT histogram (sim_decode_span_tbt): a run ends where an interval
 * falls or leaves the bucket of the run's first, so the end reads none of
 * them back from the ring. The interval before them and the bucket of
 * the last run are in d (span_prev_iv, span_bucket_end). rising: iv never
 * falls (fill_rising). Returns the end of iteration i + m - 1. */
static sim_time_t span_fill(decode_inst_t *d, int64_t i, size_t m, const sim_time_t *iv,
                            sim_time_t t, int rising)
{
    sim_time_t *ring = d->b.ring;
    size_t mask = d->b.ring_cap - 1, slot = (size_t)(i - 1) & mask;
    sim_time_t prev_iv = d->span_prev_iv;
    uint64_t bucket_end = d->span_bucket_end;
    marks_clear(d->marks, d->b.ring_cap, (size_t)i & mask, m);
    /* A piece of the ring at a time (it wraps at most once). */
    for (size_t j = 0; j < m;) {
        size_t from = (slot + 1) & mask, len = SIM_MIN(m - j, mask + 1 - from);
        sim_time_t *at = ring + from;
        const sim_time_t *x = iv + j;
        if (rising) {
            t = fill_rising(d, i + (int64_t)j, at, x, len, from, t, &prev_iv, &bucket_end);
            slot = from + len - 1;
            j += len;
            continue;
        }
        size_t q = 0;
        /* Four at a time: when none of the four falls, they cannot leave
         * the bucket unless the last does, so one test of the four finds
         * almost every group without a mark or a run (a line model's
         * intervals never fall); a group with one goes one at a time. */
        for (; q + 4 <= len; q += 4) {
            sim_time_t x0 = x[q], x1 = x[q + 1], x2 = x[q + 2], x3 = x[q + 3];
            at[q] = t += x0;
            at[q + 1] = t += x1;
            at[q + 2] = t += x2;
            at[q + 3] = t += x3;
            int quiet = (x0 >= prev_iv) & (x1 >= x0) & (x2 >= x1) & (x3 >= x2) &
                        ((uint64_t)x3 < bucket_end);
            if (!quiet)
                bucket_end = span_marks(d, i + (int64_t)(j + q), at + q, x + q, 4, from + q,
                                        &prev_iv, bucket_end);
            prev_iv = x3;
        }
        for (size_t r = q; r < len; r++)
            at[r] = t += x[r];
        bucket_end = span_marks(d, i + (int64_t)(j + q), at + q, x + q, len - q, from + q,
                                &prev_iv, bucket_end);
        slot = from + len - 1;
        j += len;
    }
    if (d->n_runs > 0)
        d->runs[d->n_runs - 1].last = prev_iv;
    d->span_prev_iv = prev_iv;
    d->span_bucket_end = bucket_end;
    return t;
}

/* The iterations a span works out ahead at a time: an arrival that joins
 * cuts most spans long before their planned end (at the next completion),
 * and the end times past the cut are never read. The pieces end at the
 * span's iterations SPAN_AHEAD - 1, 2 SPAN_AHEAD - 1, .. from its start
 * (and at its target); while a request is on its way to the instance (its
 * prefill has started: it joins, cutting the span, when its KV lands) the
 * first of them is cut short, at SPAN_INBOUND. Where the pieces end does
 * not change the end times, marks or runs (span_fill carries the interval
 * before a piece and its bucket across), and sim_decode_span_cut keeps
 * the queue's order as the pieces of SPAN_AHEAD alone would give it. */
#define SPAN_AHEAD 128
#define SPAN_INBOUND 32

/* The length of the piece after iteration e of a span that started at
 * iteration k: up to the next multiple of SPAN_AHEAD from k, and the
 * target. */
static int64_t span_piece(const decode_inst_t *d, int64_t k, int64_t e)
{
    return SIM_MIN(d->span_target - e, SPAN_AHEAD - (e - k + 1) % SPAN_AHEAD);
}

/* The span's event came to the front of the queue at the end of
 * span_end, and the span runs on to span_target: the next iterations'
 * end times, and the event moves to the last of them (sim_evq_at_more). */
static int span_more(void *ctx, void *obj, int64_t arg, sim_evq_pos_t *pos)
{
    sim_cluster_t *c = ctx;
    decode_inst_t *d = obj;
    (void)arg;
    if (d->span_end >= d->span_target)
        return 0;
    int64_t i = d->span_end + 1, n = (int64_t)d->b.n;
    size_t m = (size_t)span_piece(d, d->b.iter, d->span_end);
    sim_grow((void **)&c->scratch, &c->cap_scratch, m, sizeof *c->scratch, "decode span");
    int rising = model_cost_decode_span_ns(c->a.cost, n, d->ctx_tok + (i - d->b.iter) * n,
                                           (int64_t)m, c->scratch);
    pos->t = span_fill(d, i, m, c->scratch, sim_batch_ring_at(&d->b, d->span_end), rising);
    d->span_end += (int64_t)m;
    d->span_planned = d->span_end;
    pos->pushed = sim_batch_ring_at(&d->b, d->span_end - 1);
    return 1;
}

void sim_decode_span_start(sim_cluster_t *c, decode_inst_t *d, sim_event_fn done)
{
    sim_time_t now = sim_evq_now(c->evq);
    int64_t k = d->b.iter, n = (int64_t)d->b.n;
    int64_t f = sim_batch_top_finish(&d->b);
    SIM_ASSERT(f >= k && f - k + 2 <= (int64_t)d->b.ring_cap);
    size_t m = (size_t)SIM_MIN(f - k + 1, d->n_inbound > 0 ? SPAN_INBOUND : SPAN_AHEAD);
    sim_grow((void **)&c->scratch, &c->cap_scratch, m, sizeof *c->scratch, "decode span");
    int rising = model_cost_decode_span_ns(c->a.cost, n, d->ctx_tok, (int64_t)m, c->scratch);
    /* The span's first interval also holds any wait since the previous
     * iteration ended (an inlined prefill); the rest are its iteration
     * times. Marked: the first, and each interval below the one before. */
    const sim_time_t *iv = c->scratch;
    size_t slot = (size_t)k & (d->b.ring_cap - 1);
    sim_time_t t = now + iv[0];
    d->b.ring[slot] = t;
    d->marks[slot / 64] |= UINT64_C(1) << (slot % 64);
    d->n_runs = 0;
    d->span_prev_iv = t - (k > 0 ? sim_batch_ring_at(&d->b, k - 1) : now);
    d->span_bucket_end = 0; /* none: the second interval opens the first run */
    t = span_fill(d, k + 1, m - 1, iv + 1, t, rising);
    d->running = 1;
    d->iter_start_ns = now;
    d->span_end = k + (int64_t)m - 1;
    d->span_planned = d->span_end;
    d->span_target = f;
    d->span_seq = sim_evq_next_seq(c->evq);
    d->span_ev = sim_evq_at_more(c->evq, t, m == 1 ? now : sim_batch_ring_at(&d->b, d->span_end - 1),
                                 done, span_more, d, 0);
}

void sim_decode_span_cut(sim_cluster_t *c, decode_inst_t *d, sim_event_fn done)
{
    int64_t i = sim_decode_span_next(c, d); /* no later than span_end */
    if (d->span_target < d->b.iter)
        return; /* no span runs (an inlined prefill does): the next starts after it */
    /* With pieces of SPAN_AHEAD alone, the span's event would stand at
     * the end of i's piece: at i itself where a piece ends (at the target,
     * or a multiple of SPAN_AHEAD from the span's start; a cut before
     * made i's piece end at its target), keeping the span's sequence
     * number; else past i, and the cut would move it to i with a new one.
     * The pieces end there too, so the event stands at i in the first
     * case, and the second takes the new number now, as it would have. */
    int keep = i == d->span_target || (i - d->b.iter + 1) % SPAN_AHEAD == 0;
    d->span_target = SIM_MIN(d->span_target, i);
    if (keep) {
        SIM_ASSERT(i == d->span_end);
        return;
    }
    sim_evq_cancel(c->evq, d->span_ev);
    d->span_end = i;
    d->span_ev = sim_evq_at_as_of(c->evq, sim_batch_ring_at(&d->b, i), iter_pos(d, i).pushed,
                                  done, d, 0);
}

/* Bytes of the marks of a ring of ring_cap iterations (a bit each). */
static size_t marks_bytes(size_t ring_cap) { return ring_cap / 64 * sizeof(uint64_t); }

void sim_decode_ring_reserve(sim_cluster_t *c, decode_inst_t *d, size_t need)
{
    size_t old = d->b.ring_cap;
    uint64_t *marks = d->marks;
    sim_batch_ring_reserve(&d->b, need, &c->slab);
    if (marks && d->b.ring_cap == old)
        return;
    d->marks = sim_slab_alloc(&c->slab, marks_bytes(d->b.ring_cap), "iteration marks");
    int64_t keep = (int64_t)old < d->b.iter ? (int64_t)old : d->b.iter;
    /* Both capacities are multiples of 64, so an iteration's bit is at
     * i % 64 in either: a word at a time, masked to the kept ones. */
    for (int64_t i = d->b.iter - keep; marks && i < d->b.iter;) {
        size_t from = (size_t)i & (old - 1), to = (size_t)i & (d->b.ring_cap - 1);
        int64_t e = SIM_MIN((i | 63) + 1, d->b.iter);
        size_t cnt = (size_t)(e - i);
        uint64_t bits = cnt == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << cnt) - 1) << (from % 64);
        d->marks[to / 64] |= marks[from / 64] & bits;
        i = e;
    }
    sim_slab_release(&c->slab, marks, marks_bytes(old));
}

void sim_decode_rings_free(sim_cluster_t *c, decode_inst_t *d)
{
    sim_slab_release(&c->slab, d->marks, marks_bytes(d->b.ring_cap));
    d->marks = NULL;
    sim_batch_ring_free(&d->b, &c->slab);
}

/* One add per run of the span (span_fill opens them, for the iterations
 * sim_decode_span_start works out and those span_more adds): a run's sum
 * telescopes to a difference of end times; a run the cut at k shortened ends on its
 * interval at k, the one read from the ring. */
void sim_decode_span_tbt(sim_cluster_t *c, const decode_inst_t *d, int64_t lo, int64_t k,
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

