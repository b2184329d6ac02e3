/* sim/serve/cluster.h: the simulated cluster: the nodes a serving system
 * (sim/serve/system.h) runs on, arrivals, the end of every request and the
 * time series; what it is built from and the read-only view that
 * placement and admission policies use are in sim/serve/view.h. Invariant: every request
 * that arrives ends exactly once (completed or rejected) and is reported to
 * the metrics before it is freed. */
#ifndef SIM_CLUSTER_H
#define SIM_CLUSTER_H

#include <stdint.h>

#include "sim/core/metrics.h"
#include "sim/serve/admit.h"
#include "sim/serve/place.h"
#include "sim/serve/system.h"
#include "sim/serve/view.h"
#include "traces/trace.h"

typedef struct sim_cluster sim_cluster_t;

/* timeseries.csv: a row at every multiple of the interval while anything
 * happens, and a last one at the end of the run. An idle span (nothing in
 * flight, no flow, nothing scheduled before the next arrival) is written
 * as its first and last rows, which are equal, as would be every row
 * between them: those are skipped and cost no event, so rows and events
 * follow the busy time, not the span.
 * It is bounded: at most SIM_TS_MAX_ROWS rows, and fewer when
 * many instances widen a row (SIM_TS_FIXED_COLS + the system's load
 * columns) past SIM_TS_MAX_CELLS cells in all (about 1 GB). A run that
 * would write more stops with an error naming metrics.interval_s, so no
 * interval, speed or bandwidth can make a run fill a disk. */
#define SIM_TS_MAX_ROWS INT64_C(1000000)
#define SIM_TS_MAX_CELLS INT64_C(100000000)
#define SIM_TS_FIXED_COLS 15

/* A cluster with its own event queue, reporting finished requests to m.
 * NULL with err filled when the model does not fit the decode VRAM. Free
 * with sim_cluster_free (accepts NULL; frees requests still in flight). */
sim_cluster_t *sim_cluster_new(const sim_cluster_args_t *a, sim_metrics_t *m, sim_err_t *err);
void sim_cluster_free(sim_cluster_t *c);

/* Report the run to obs (NULL: nobody): requests, the instances' spans,
 * the network's flows and the time series' counters (sim/core/obs.h).
 * obs outlives c. Call before sim_cluster_attach_trace. */
void sim_cluster_set_obs(sim_cluster_t *c, const sim_obs_t *obs);

/* Feed the cluster from trace t: arrivals are read one ahead, so memory
 * follows requests in flight, not trace length. */
void sim_cluster_attach_trace(sim_cluster_t *c, trace_t *t);

/* Called every 2^16 events while running (may be NULL). */
typedef void (*sim_cluster_progress_fn)(void *ud, const sim_cluster_t *c);

/* Run every event. 0 on success; -1 with err filled when the trace fails
 * mid-run (the run is then abandoned). */
int sim_cluster_run(sim_cluster_t *c, sim_cluster_progress_fn progress, void *ud, sim_err_t *err);

/* The system's time-series load columns: p<i>_load and d<j>_load
 * (sim_system_ops_t ts_cols; docs/outputs.md). */
void sim_cluster_ts_cols(const sim_cluster_t *c, int *n_prefill, int *n_decode);
/* Events run so far. */
uint64_t sim_cluster_events(const sim_cluster_t *c);
/* Requests arrived / still in flight (conservation checks). */
int64_t sim_cluster_n_arrived(const sim_cluster_t *c);
int64_t sim_cluster_n_in_flight(const sim_cluster_t *c);
/* KV capacity of one (decode or colocated) instance, tokens. */
int64_t sim_cluster_decode_kv_cap_tok(const sim_cluster_t *c);
/* The pd system's KVCache pool (nodes as in sim/serve/pd_int.h), or NULL
 * when reuse is off or another system runs; the network. */
const sim_kvpool_t *sim_cluster_kvpool(const sim_cluster_t *c);
sim_net_t *sim_cluster_net(sim_cluster_t *c);

#endif
