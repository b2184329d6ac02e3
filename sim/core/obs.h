/* sim/core/obs.h: an observer of a run (the timeline, sim/exp/timeline.c):
 * the serving layers report what happened through one ops table, so they
 * never include the writer's layer. Every call goes through an inline
 * wrapper that does nothing when the observer is NULL (the default): a
 * run without one pays a test per hook. An observer only reads; it never
 * changes what the run does, so outputs are the same with or without one. */
#ifndef SIM_OBS_H
#define SIM_OBS_H

#include <stdint.h>

#include "sim/core/request.h"

/* The instance tracks a span lands on. */
typedef enum sim_obs_track {
    SIM_OBS_PREFILL = 0, /* idx: prefill instance */
    SIM_OBS_DECODE,      /* idx: decode instance */
    SIM_OBS_COLOC,       /* idx: colocated instance */
    SIM_OBS_N_TRACKS
} sim_obs_track_t;

/* The counters sampled with each timeseries.csv row (idx as noted). */
typedef enum sim_obs_counter {
    SIM_OBS_NIC_UTIL = 0, /* idx: node; bytes sent / (interval x NIC) */
    SIM_OBS_LINK_GBPS,    /* idx: link class (sim/net/net.h); Gbit/s over the interval */
    SIM_OBS_POOL_BLOCKS,  /* idx: tier; blocks held over all nodes */
    SIM_OBS_IN_FLIGHT,    /* idx: 0; requests */
    SIM_OBS_N_COUNTERS
} sim_obs_counter_t;

typedef struct sim_obs_ops {
    /* r arrived (its id is set). */
    void (*arrive)(void *st, const sim_req_t *r, sim_time_t now_ns);
    /* Admission at arrival decided r's fate at now_ns: accepted 1 or 0. */
    void (*admit)(void *st, const sim_req_t *r, sim_time_t now_ns, int accepted);
    /* r ended (any status; its record as the metrics read it). schedule_ns:
     * the scheduler's decision time that passed after its arrival. */
    void (*request_done)(void *st, const sim_req_t *r, sim_time_t schedule_ns);
    /* Instance idx of track was busy with what over [start_ns, end_ns]:
     * n is a count the span carries (its batch or tokens), req a request
     * id or -1. name is a static string. */
    void (*span)(void *st, sim_obs_track_t track, int idx, const char *name, sim_time_t start_ns,
                 sim_time_t end_ns, int64_t n, int64_t req);
    /* A network flow of link class link from src to dst ended (or was
     * cancelled) at end_ns, bytes moved. */
    void (*flow)(void *st, int src, int dst, int link, double bytes, sim_time_t start_ns,
                 sim_time_t end_ns);
    /* Counter kind's series idx reads v at now_ns. */
    void (*counter)(void *st, sim_obs_counter_t kind, int idx, sim_time_t now_ns, double v);
} sim_obs_ops_t;

typedef struct sim_obs {
    const sim_obs_ops_t *ops;
    void *st;
} sim_obs_t;

static inline void sim_obs_arrive(const sim_obs_t *o, const sim_req_t *r, sim_time_t now_ns)
{
    if (o)
        o->ops->arrive(o->st, r, now_ns);
}

static inline void sim_obs_admit(const sim_obs_t *o, const sim_req_t *r, sim_time_t now_ns,
                                 int accepted)
{
    if (o)
        o->ops->admit(o->st, r, now_ns, accepted);
}

static inline void sim_obs_request_done(const sim_obs_t *o, const sim_req_t *r,
                                        sim_time_t schedule_ns)
{
    if (o)
        o->ops->request_done(o->st, r, schedule_ns);
}

static inline void sim_obs_span(const sim_obs_t *o, sim_obs_track_t track, int idx,
                                const char *name, sim_time_t start_ns, sim_time_t end_ns,
                                int64_t n, int64_t req)
{
    if (o)
        o->ops->span(o->st, track, idx, name, start_ns, end_ns, n, req);
}

static inline void sim_obs_flow(const sim_obs_t *o, int src, int dst, int link, double bytes,
                                sim_time_t start_ns, sim_time_t end_ns)
{
    if (o)
        o->ops->flow(o->st, src, dst, link, bytes, start_ns, end_ns);
}

static inline void sim_obs_counter(const sim_obs_t *o, sim_obs_counter_t kind, int idx,
                                   sim_time_t now_ns, double v)
{
    if (o)
        o->ops->counter(o->st, kind, idx, now_ns, v);
}

#endif
