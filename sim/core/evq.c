/* sim/core/evq.c: a min-heap (sim/core/heap.h) of (time, scheduling time,
 * sequence, slot) keys over a slab of event records recycled through a
 * free list. A record's generation changes each time it is reused, so a
 * stale id never cancels a newer event. The key order is total (sequence
 * numbers are unique), so the pops' order is the keys' order whatever
 * the heap's layout: how a pop's hole is filled (below) is free. */
#include "sim/core/evq.h"

#include <string.h>

#include "sim/core/heap.h"

typedef struct ev_rec {
    sim_event_fn fn;
    void *obj;
    int64_t arg;
    union {
        sim_event_more_fn more; /* while scheduled: sim_evq_at_more's, or NULL */
        uint32_t next_free;     /* while free */
    } u;
    uint32_t gen;
    uint8_t live;      /* scheduled and not yet run */
    uint8_t cancelled; /* dropped when popped */
} ev_rec_t;

typedef struct ev_key {
    sim_time_t t, pushed;
    uint64_t seq;
    uint32_t slot;
} ev_key_t;

struct sim_evq {
    sim_evq_head_t head; /* first: sim_evq_now reads it (evq.h) */
    void *ctx;
    uint64_t seq;
    uint64_t executed;
    sim_evq_pos_t cur; /* of the event being run or last run */
    size_t n_live;
    /* heap[0] is a hole: the event run last left it, and the next push
     * fills it (or the next step, with the last key). */
    int hole;
    ev_key_t *heap; /* inside heap_mem, placed as heap_reserve says */
    void *heap_mem;
    size_t n_heap, cap_heap;
    ev_rec_t *recs;
    size_t n_recs, cap_recs;
    uint32_t free_head; /* UINT32_MAX = empty */
};

#define NO_SLOT UINT32_MAX

sim_evq_t *sim_evq_new(void *ctx)
{
    sim_evq_t *q = sim_xcalloc(1, sizeof *q, "evq");
    q->ctx = ctx;
    q->free_head = NO_SLOT;
    return q;
}

void sim_evq_free(sim_evq_t *q)
{
    if (!q)
        return;
    sim_free(q->heap_mem);
    sim_free(q->recs);
    sim_free(q);
}

size_t sim_evq_pending(const sim_evq_t *q) { return q->n_live; }
uint64_t sim_evq_executed(const sim_evq_t *q) { return q->executed; }

/* pushed is nondecreasing in seq for events scheduled by sim_evq_at, so
 * among them this is (t, seq) order; it places sim_evq_at_as_of's events. */
static int key_less(const ev_key_t *a, const ev_key_t *b)
{
    return a->t < b->t ||
           (a->t == b->t && (a->pushed < b->pushed || (a->pushed == b->pushed && a->seq < b->seq)));
}

SIM_HEAP_DEFINE(ev_heap, ev_key_t, key_less, SIM_HEAP_UNTRACKED)

/* Room for need keys. A pop walks from the root down, reading both
 * children of a node a level, and with many instances the heap holds
 * about as many keys as fit the L1 cache: the keys start 32 bytes past a
 * cache line, so that each pair of children (2i + 1, 2i + 2) shares one
 * line rather than straddling two. */
_Static_assert(sizeof(ev_key_t) == 32, "evq keys are half a cache line");
static void heap_reserve(sim_evq_t *q, size_t need)
{
    if (need <= q->cap_heap)
        return;
    size_t cap = q->cap_heap ? 2 * q->cap_heap : 256;
    while (cap < need)
        cap *= 2;
    void *mem = sim_xmalloc(cap * sizeof(ev_key_t) + 96, "evq heap");
    ev_key_t *h = (ev_key_t *)((((uintptr_t)mem + 32 + 63) & ~(uintptr_t)63) - 32);
    if (q->n_heap)
        memcpy(h, q->heap, q->n_heap * sizeof *h);
    sim_free(q->heap_mem);
    q->heap_mem = mem;
    q->heap = h;
    q->cap_heap = cap;
}

/* A record past the last: the free list is empty. */
static uint32_t rec_new(sim_evq_t *q)
{
    SIM_ASSERT(q->n_recs < NO_SLOT);
    sim_grow((void **)&q->recs, &q->cap_recs, q->n_recs + 1, sizeof *q->recs, "evq records");
    q->recs[q->n_recs].gen = 0;
    return (uint32_t)q->n_recs++;
}

/* A free record, off the free list when it has one (inline in push). */
static inline __attribute__((always_inline)) uint32_t rec_alloc(sim_evq_t *q)
{
    if (q->free_head != NO_SLOT) {
        uint32_t s = q->free_head;
        q->free_head = q->recs[s].u.next_free;
        return s;
    }
    return rec_new(q);
}

static void rec_release(sim_evq_t *q, uint32_t s)
{
    q->recs[s].live = 0;
    q->recs[s].gen++;
    q->recs[s].u.next_free = q->free_head;
    q->free_head = s;
}

sim_evq_pos_t sim_evq_current(const sim_evq_t *q) { return q->cur; }
uint64_t sim_evq_next_seq(const sim_evq_t *q) { return q->seq; }

/* Every schedule's one body: inlined into each entry point below, so a
 * schedule is one call, not a chain of wrappers. */
static inline __attribute__((always_inline)) sim_event_id_t
push(sim_evq_t *q, sim_time_t t_ns, sim_time_t pushed_ns, sim_event_fn fn, sim_event_more_fn more,
     void *obj, int64_t arg)
{
    SIM_ASSERT(t_ns >= q->head.now);
    SIM_ASSERT(pushed_ns <= t_ns);
    SIM_ASSERT(fn != NULL);
    uint32_t s = rec_alloc(q);
    ev_rec_t *r = &q->recs[s];
    r->fn = fn;
    r->obj = obj;
    r->arg = arg;
    r->u.more = more;
    r->live = 1;
    r->cancelled = 0;
    ev_key_t k = {.t = t_ns, .pushed = pushed_ns, .seq = q->seq++, .slot = s};
    if (q->hole) {
        /* The running event's hole at the root: the key sifts down from
         * there, not up from a new leaf after the last key has filled the
         * hole (most events schedule one while they run, mostly soon, so
         * it stops high). */
        q->hole = 0;
        ev_heap_down(q->heap, q->n_heap, 0, k);
    } else {
        heap_reserve(q, q->n_heap + 1);
        ev_heap_up(q->heap, q->n_heap++, k);
    }
    q->n_live++;
    /* gen + 1 keeps ids nonzero. */
    return ((uint64_t)(r->gen + 1u) << 32) | s;
}

sim_event_id_t sim_evq_at(sim_evq_t *q, sim_time_t t_ns, sim_event_fn fn, void *obj,
                          int64_t arg)
{
    return push(q, t_ns, q->head.now, fn, NULL, obj, arg);
}

sim_event_id_t sim_evq_at_as_of(sim_evq_t *q, sim_time_t t_ns, sim_time_t pushed_ns,
                                sim_event_fn fn, void *obj, int64_t arg)
{
    return push(q, t_ns, pushed_ns, fn, NULL, obj, arg);
}

sim_event_id_t sim_evq_at_more(sim_evq_t *q, sim_time_t t_ns, sim_time_t pushed_ns,
                               sim_event_fn fn, sim_event_more_fn more, void *obj, int64_t arg)
{
    return push(q, t_ns, pushed_ns, fn, more, obj, arg);
}

sim_event_id_t sim_evq_after(sim_evq_t *q, sim_time_t delay_ns, sim_event_fn fn, void *obj,
                             int64_t arg)
{
    SIM_ASSERT(delay_ns >= 0);
    SIM_ASSERT(delay_ns <= INT64_MAX - q->head.now);
    return push(q, q->head.now + delay_ns, q->head.now, fn, NULL, obj, arg);
}

int sim_evq_cancel(sim_evq_t *q, sim_event_id_t id)
{
    uint32_t s = (uint32_t)(id & 0xffffffffu);
    uint32_t gen = (uint32_t)(id >> 32) - 1u;
    if (id == 0 || s >= q->n_recs)
        return 0;
    ev_rec_t *r = &q->recs[s];
    if (!r->live || r->cancelled || r->gen != gen)
        return 0;
    r->cancelled = 1;
    q->n_live--;
    return 1;
}

/* Fill the root's hole with the last key, by Floyd's rule (PFX_sink). */
static void fill_hole(sim_evq_t *q)
{
    q->hole = 0;
    if (--q->n_heap > 0)
        ev_heap_sink(q->heap, q->n_heap, q->heap[q->n_heap]);
}

int sim_evq_step(sim_evq_t *q)
{
    if (q->hole)
        fill_hole(q);
    while (q->n_heap > 0) {
        ev_key_t top = q->heap[0];
        ev_rec_t *r = &q->recs[top.slot];
        if (r->u.more && !r->cancelled) {
            sim_evq_pos_t pos = {.t = top.t, .pushed = top.pushed, .seq = top.seq}, was = pos;
            if (r->u.more(q->ctx, r->obj, r->arg, &pos)) {
                pos.seq = top.seq;
                SIM_ASSERT(pos.pushed <= pos.t && sim_evq_pos_less(was, pos));
                ev_heap_down(q->heap, q->n_heap, 0,
                             (ev_key_t){.t = pos.t, .pushed = pos.pushed, .seq = top.seq, .slot = top.slot});
                continue;
            }
        }
        if (r->cancelled) {
            fill_hole(q);
            rec_release(q, top.slot);
            continue;
        }
        q->hole = 1;
        /* Event time never decreases: the engine's first invariant. */
        SIM_ASSERT(top.t >= q->head.now);
        q->head.now = top.t;
        q->cur = (sim_evq_pos_t){.t = top.t, .pushed = top.pushed, .seq = top.seq};
        sim_event_fn fn = r->fn;
        void *obj = r->obj;
        int64_t arg = r->arg;
        q->n_live--;
        rec_release(q, top.slot);
        q->executed++;
        fn(q->ctx, obj, arg);
        return 1;
    }
    return 0;
}
