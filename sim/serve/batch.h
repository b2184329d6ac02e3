/* sim/serve/batch.h: internal to sim/serve/decode.c and
 * sim/serve/colocated.c: a running batch of an instance that produces one token per request per iteration.
 * Members sit in a min-heap (sim/core/heap.h) on (finish_iter, id), a total
 * order, so the next to finish is on top; in a batch that tracks them
 * (one whose members may leave before they finish), each member's
 * heap_pos is its index. A heap slot holds the member's key beside its pointer (neither
 * changes while it is a member), so sifting compares within the array and
 * the top's finish is read without touching the request. The instance
 * logs iteration end times in a ring, so a finishing request's token
 * intervals are read back without per-token events or allocations. */
#ifndef SIM_BATCH_H
#define SIM_BATCH_H

#include <string.h>

#include "sim/core/heap.h"
#include "sim/core/request.h"

/* A member in the heap: its key, copied when it joins, and itself. */
typedef struct sim_batch_slot {
    int64_t finish_iter;
    int64_t id;
    sim_req_t *r;
} sim_batch_slot_t;

typedef struct sim_batch {
    sim_batch_slot_t *heap; /* min-heap on (finish_iter, id) */
    size_t n, cap;
    int64_t iter;       /* iterations completed */
    sim_time_t *ring;   /* end time of iteration k at ring[k & (ring_cap-1)]; from iter
                         * on, those planned ahead (sim/serve/decode_span.c's spans) */
    size_t ring_cap;
    /* Members' heap_pos kept (sim_batch_remove needs it). A batch whose
     * members only leave from the top does without: each sift would
     * otherwise store into every request it moves, requests long out of
     * cache in a large batch. */
    int tracked;
} sim_batch_t;

/* Heap order on members: (finish_iter, id), a total order. */
static inline int sim_batch_less(const sim_batch_slot_t *x, const sim_batch_slot_t *y)
{
    return x->finish_iter < y->finish_iter || (x->finish_iter == y->finish_iter && x->id < y->id);
}

/* Keep each member's heap_pos its index, for sim_batch_remove. */
static inline void sim_batch_placed(sim_batch_slot_t *h, size_t i) { h[i].r->heap_pos = i; }

SIM_HEAP_DEFINE(sim_batch_heap, sim_batch_slot_t, sim_batch_less, sim_batch_placed)
/* The same sifts without the stores: the same heap, move for move. */
SIM_HEAP_DEFINE(sim_batch_uheap, sim_batch_slot_t, sim_batch_less, SIM_HEAP_UNTRACKED)

/* Add r, whose finish_iter is set. */
static inline void sim_batch_push(sim_batch_t *b, sim_req_t *r)
{
    sim_batch_slot_t x = {.finish_iter = r->finish_iter, .id = r->id, .r = r};
    if (b->tracked)
        sim_batch_heap_push(&b->heap, &b->n, &b->cap, x, "batch");
    else
        sim_batch_uheap_push(&b->heap, &b->n, &b->cap, x, "batch");
}

/* Take r (a member) out of the heap; the batch tracks positions. */
static inline void sim_batch_remove(sim_batch_t *b, sim_req_t *r)
{
    SIM_ASSERT(b->tracked);
    sim_batch_heap_remove(b->heap, &b->n, r->heap_pos);
}

static inline sim_req_t *sim_batch_pop(sim_batch_t *b)
{
    return b->tracked ? sim_batch_heap_pop(b->heap, &b->n).r : sim_batch_uheap_pop(b->heap, &b->n).r;
}

/* The finish iteration of the next member to finish; b->n > 0. */
static inline int64_t sim_batch_top_finish(const sim_batch_t *b) { return b->heap[0].finish_iter; }

/* Give the ring back to slab (a NULL ring is fine). */
static inline void sim_batch_ring_free(sim_batch_t *b, sim_slab_t *slab)
{
    sim_slab_release(slab, b->ring, b->ring_cap * sizeof *b->ring);
    b->ring = NULL;
}

/* Make the ring hold at least need iterations, keeping the entries of the
 * last old-capacity iterations. Rings come from the instances' slab: one
 * per instance, thousands of instances. */
static inline void sim_batch_ring_reserve(sim_batch_t *b, size_t need, sim_slab_t *slab)
{
    if (need <= b->ring_cap)
        return;
    size_t n = b->ring_cap ? b->ring_cap : 64;
    while (n < need)
        n *= 2;
    /* Not zeroed: an entry is written before it is read (the kept ones
     * below, the rest as iterations are worked out or end). */
    sim_time_t *ring = sim_slab_alloc_raw(slab, n * sizeof *ring, "iteration ring");
    int64_t keep = (int64_t)b->ring_cap < b->iter ? (int64_t)b->ring_cap : b->iter;
    /* A piece at a time between the two rings' wraps (three at most). */
    for (int64_t k = b->iter - keep; k < b->iter;) {
        size_t from = (size_t)k & (b->ring_cap - 1), to = (size_t)k & (n - 1);
        size_t len = SIM_MIN((size_t)(b->iter - k), SIM_MIN(b->ring_cap - from, n - to));
        memcpy(ring + to, b->ring + from, len * sizeof *ring);
        k += (int64_t)len;
    }
    sim_batch_ring_free(b, slab);
    b->ring = ring;
    b->ring_cap = n;
}

/* The end time of iteration k; valid for the last ring_cap completed. */
static inline sim_time_t sim_batch_ring_at(const sim_batch_t *b, int64_t k)
{
    return b->ring[(size_t)k & (b->ring_cap - 1)];
}

/* Log the end of the running iteration at t. */
static inline void sim_batch_iter_end(sim_batch_t *b, sim_time_t t)
{
    b->ring[(size_t)b->iter & (b->ring_cap - 1)] = t;
    b->iter++;
}

/* The token intervals of iterations from .. upto-1, the first measured
 * from a token at prev, into out (upto - from of them). Only the last
 * ring_cap iterations are still in the ring. */
static inline void sim_batch_intervals(const sim_batch_t *b, int64_t from, int64_t upto,
                                       sim_time_t prev, int64_t *out)
{
    for (int64_t k = from; k < upto; k++) {
        sim_time_t t = sim_batch_ring_at(b, k);
        *out++ = t - prev;
        prev = t;
    }
}

#endif
