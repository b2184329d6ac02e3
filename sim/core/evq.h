/* sim/core/evq.h: the event queue. Virtual int64 nanosecond time; events pop in
 * total (time, scheduling time, sequence) order, so ties pop in insertion
 * order; cancel is lazy (marked, dropped when popped). Event records come
 * from a free list.
 * push O(log n), pop O(log n) amortized, cancel O(1). */
#ifndef SIM_EVQ_H
#define SIM_EVQ_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/util.h"

typedef struct sim_evq sim_evq_t;
/* An event handler: ctx is the queue's context, obj and arg the event's. */
typedef void (*sim_event_fn)(void *ctx, void *obj, int64_t arg);
/* Identifies a scheduled event; 0 is never a valid id. */
typedef uint64_t sim_event_id_t;

/* A new empty queue at time 0 whose handlers get ctx. Free with
 * sim_evq_free (accepts NULL). */
sim_evq_t *sim_evq_new(void *ctx);
void sim_evq_free(sim_evq_t *q);

/* An event's place in the total order: by time, then the time it was
 * scheduled at, then its sequence number (insertion order). */
typedef struct sim_evq_pos {
    sim_time_t t, pushed;
    uint64_t seq;
} sim_evq_pos_t;

static inline int sim_evq_pos_less(sim_evq_pos_t a, sim_evq_pos_t b)
{
    return a.t < b.t || (a.t == b.t && (a.pushed < b.pushed || (a.pushed == b.pushed && a.seq < b.seq)));
}

/* The head of a queue's state: its clock, for sim_evq_now to read inline
 * (the model asks it several times an event); the rest is opaque. */
typedef struct sim_evq_head {
    sim_time_t now;
} sim_evq_head_t;

/* Current simulated time: the time of the event being run or last run. */
static inline sim_time_t sim_evq_now(const sim_evq_t *q)
{
    return ((const sim_evq_head_t *)(const void *)q)->now;
}

/* Schedule fn(ctx, obj, arg) delay_ns after now; delay_ns < 0 is a bug
 * (asserted). Returns the event's id. */
sim_event_id_t sim_evq_after(sim_evq_t *q, sim_time_t delay_ns, sim_event_fn fn, void *obj,
                             int64_t arg);
/* Schedule at absolute time t_ns >= now (asserted). */
sim_event_id_t sim_evq_at(sim_evq_t *q, sim_time_t t_ns, sim_event_fn fn, void *obj,
                          int64_t arg);

/* Schedule at t_ns >= now, placed among the events at t_ns as if it had
 * been scheduled at pushed_ns <= t_ns (which may be before or after now):
 * for one event that stands for the last of a chain, each link scheduled
 * by the one before, so ties pop as they would have with the chain.
 * sim_evq_at is this with pushed_ns = now, so the order has one rule; the
 * scheduling time is part of every event's key, not a second queue. Its
 * one user is the decode spans (sim/serve/decode_span.c), and it stays:
 * without it a span's event would tie-break by when the span started, not
 * by when its last iteration would have been scheduled, and the spans
 * would no longer give the stepped reference's outputs byte for byte. */
sim_event_id_t sim_evq_at_as_of(sim_evq_t *q, sim_time_t t_ns, sim_time_t pushed_ns,
                                sim_event_fn fn, void *obj, int64_t arg);

/* Asked when an event scheduled by sim_evq_at_more comes to the front of
 * the queue, before it runs: returns 1 to move it later instead, to *pos
 * (which comes in as its place; its t and pushed are set, its seq is
 * kept), where it is asked again; 0 to run it. It runs in no event's
 * place: it reads and updates the event's own state and schedules
 * nothing. */
typedef int (*sim_event_more_fn)(void *ctx, void *obj, int64_t arg, sim_evq_pos_t *pos);

/* sim_evq_at_as_of for an event that may move later as it comes to the
 * front (more): one event for work whose end is worked out a piece at a
 * time, keeping its id and its sequence number; a move is not an event
 * run. Its one user is the decode spans (sim/serve/decode_span.c), which
 * work out their iterations' end times as simulated time reaches them. */
sim_event_id_t sim_evq_at_more(sim_evq_t *q, sim_time_t t_ns, sim_time_t pushed_ns,
                               sim_event_fn fn, sim_event_more_fn more, void *obj, int64_t arg);

/* The place of the event being run (or last run) in the total order. */
sim_evq_pos_t sim_evq_current(const sim_evq_t *q);
/* The sequence number the next scheduled event will get. */
uint64_t sim_evq_next_seq(const sim_evq_t *q);

/* Cancel a pending event. Returns 1 if it was pending, 0 if it already ran,
 * was cancelled, or the id is stale. */
int sim_evq_cancel(sim_evq_t *q, sim_event_id_t id);

/* Pop and run the next live event. Returns 1 if one ran, 0 if none is left. */
int sim_evq_step(sim_evq_t *q);

/* Live (scheduled, not cancelled) events. */
size_t sim_evq_pending(const sim_evq_t *q);
/* Events run so far. */
uint64_t sim_evq_executed(const sim_evq_t *q);

#endif
