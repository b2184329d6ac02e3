/* sim/evq.h: the event queue. Virtual int64 nanosecond time; events pop in
 * total (time, sequence) order, so ties pop in insertion order; cancel is
 * lazy (marked, dropped when popped). Event records come from a free list.
 * push O(log n), pop O(log n) amortized, cancel O(1). */
#ifndef SIM_EVQ_H
#define SIM_EVQ_H

#include <stddef.h>
#include <stdint.h>

#include "sim/util.h"

typedef struct sim_evq sim_evq_t;
/* An event handler: ctx is the queue's context, obj and arg the event's. */
typedef void (*sim_event_fn)(void *ctx, void *obj, int64_t arg);
/* Identifies a scheduled event; 0 is never a valid id. */
typedef uint64_t sim_event_id_t;

/* A new empty queue at time 0 whose handlers get ctx. Free with
 * sim_evq_free (accepts NULL). */
sim_evq_t *sim_evq_new(void *ctx);
void sim_evq_free(sim_evq_t *q);

/* Current simulated time: the time of the event being run or last run. */
sim_time_t sim_evq_now(const sim_evq_t *q);

/* Schedule fn(ctx, obj, arg) delay_ns after now; delay_ns < 0 is a bug
 * (asserted). Returns the event's id. */
sim_event_id_t sim_evq_after(sim_evq_t *q, sim_time_t delay_ns, sim_event_fn fn, void *obj,
                             int64_t arg);
/* Schedule at absolute time t_ns >= now (asserted). */
sim_event_id_t sim_evq_at(sim_evq_t *q, sim_time_t t_ns, sim_event_fn fn, void *obj,
                          int64_t arg);

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
