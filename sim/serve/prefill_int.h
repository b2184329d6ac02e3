/* sim/serve/prefill_int.h: internal to the prefill side of the pd system
 * (sim/serve/prefill.c and the files it is split into): a prefill's plan, the
 * chunked pipeline, the KV stream to the decode node and hot-spot
 * replication, and the calls between them. */
#ifndef SIM_PREFILL_INT_H
#define SIM_PREFILL_INT_H

#include "sim/serve/pd_int.h"

/* How a prefill of a request on an instance goes (sim/serve/prefill_plan.c). */
typedef struct sim_prefill_plan {
    uint32_t lead;
    int64_t cached_tok, dram_tok, ssd_tok;
    int64_t n_chunks; /* 1: no pipeline */
    sim_time_t load_ns;
    sim_time_t compute_ns; /* whole-model time, summed over chunks */
    sim_time_t dur_ns;     /* predicted prefill time */
} sim_prefill_plan_t;

/* One request's chunked pipeline (struct cpp_job is named in
 * sim/core/request.h; defined in sim/serve/prefill_cpp.c). */
typedef struct cpp_job sim_prefill_cpp_t;

/* prefill_plan.c */
/* How a prefill of r on instance i would go with the pool as it is now;
 * lead_min: blocks a planned fetch will have brought (into DRAM). */
void sim_prefill_plan(const sim_cluster_t *c, int i, const sim_req_t *r, uint32_t lead_min,
                      sim_prefill_plan_t *pl);
/* The same from the node's run of r as sim_kvpool_prefix gives it now
 * (local blocks, by_tier of them in each tier). */
void sim_prefill_plan_run(const sim_cluster_t *c, int i, const sim_req_t *r, uint32_t local,
                          const uint32_t by_tier[SIM_N_TIERS], uint32_t lead_min,
                          sim_prefill_plan_t *pl);
/* Whole-model time of chunk j of k for a request with p tokens reused;
 * the pass's fixed part is paid by the first chunk only. */
sim_time_t sim_prefill_chunk_ns(const sim_cluster_t *c, const sim_req_t *r, int64_t p, int64_t j,
                                int64_t k);

/* prefill.c */
/* Event: r's prefill on instance arg ended (its last chunk, under CPP). */
void sim_prefill_done(void *ctx, void *obj, int64_t arg);

/* prefill_cpp.c */
/* Start r's chunked pipeline on instance i as planned by pl; it schedules
 * done (sim_prefill_done: passed in, so that the pipeline calls nothing of
 * prefill.c) with (r, i) when the last chunk leaves the last stage. Freed
 * with sim_prefill_cpp_free (accepts NULL), which the end does itself. */
sim_prefill_cpp_t *sim_prefill_cpp_start(sim_cluster_t *c, sim_req_t *r, int i,
                                         const sim_prefill_plan_t *pl, sim_event_fn done);
void sim_prefill_cpp_free(sim_prefill_cpp_t *job);

/* prefill_stream.c */
/* Start r's KV streams from every stage node of instance i to its decode
 * node, held to the rate at which a prefill of expected_ns produces
 * layers, the last layer held back. */
void sim_prefill_stream_start(sim_cluster_t *c, sim_req_t *r, int i, sim_time_t expected_ns);
/* Prefill ended: lift the streams' caps and send the last layer. */
void sim_prefill_stream_tail(sim_cluster_t *c, sim_req_t *r, int i);
/* Stop r's streams (it was rejected after prefill). */
void sim_prefill_stream_cancel(sim_cluster_t *c, sim_req_t *r);

/* prefill_repl.c */
/* r's fetch to instance dst_inst landed: count it for its source and,
 * every cache.hot_fetches fetches of a prefix, replicate it. */
void sim_prefill_hot_spot(sim_cluster_t *c, const sim_req_t *r, int dst_inst);

#endif
