/* sim/serve/cluster_int.h: internal to the cluster (sim/serve/cluster.c)
 * and the systems (sim/serve/pd.c and its files, sim/serve/pd_int.h;
 * sim/serve/colocated.c): the cluster's generic state (event queue,
 * network, arrivals, the live requests, the time series, the slab) and
 * the calls a system makes into it. The cluster calls a system only
 * through its ops table (sim/serve/system.h); a system's own state is
 * system_st. A colocated system's instance i is node i; pd's numbering is
 * in sim/serve/pd_int.h. */
#ifndef SIM_CLUSTER_INT_H
#define SIM_CLUSTER_INT_H

#include "sim/serve/batch.h"
#include "sim/serve/cluster.h"
#include "sim/net/net.h"

#define SIM_DUR_BUCKETS 96 /* half-octaves of ns: up to 2^48 ns (3 days) */

/* Record one observed decode duration (a system, at completion). */
void sim_cluster_note_decode(sim_cluster_t *c, sim_time_t dur_ns);

struct sim_cluster {
    sim_cluster_args_t a;
    sim_evq_t *evq;
    sim_metrics_t *m;
    void *system_st, *place_st, *admit_st;
    int n_nodes;
    int ts_n_prefill, ts_n_decode; /* the system's time-series load columns */
    int64_t kv_cap_tok;
    int64_t kv_bytes_per_tok;
    sim_kvpool_t *pool; /* pd's KVCache pool (NULL: reuse off, or another system) */
    sim_net_t *net;
    const sim_obs_t *obs; /* the run's observer (NULL: none; sim/core/obs.h) */
    trace_t *trace;
    int64_t n_arrived, n_done;
    int trace_failed;   /* the run stopped: a trace error, or the time-series bound */
    sim_err_t trace_err; /* why */
    sim_req_t *live; /* every allocated, unfinished request (incl. the read-ahead) */
    sim_req_t *spare; /* finished requests kept for reuse with their blocks' room,
                       * linked through next: no allocation per request */
    int64_t *scratch; /* TBT intervals of the request being finished; a span's iteration times */
    size_t cap_scratch;
    sim_slab_t slab; /* small blocks that live as long as the run: the instances' iteration
                      * rings and marks, the requests and their block ids; freed after
                      * the system */
    sim_net_link_stats_t ts_prev[SIM_N_NET_LINKS]; /* at the last time-series row */
    sim_time_t ts_prev_ns;
    int64_t ts_rows, ts_max_rows; /* time-series rows written by ticks, and the bound */
    int ts_quiet; /* the next row closes an interval in which nothing happened */
    double *ts_loads; /* a row's load columns (ts_n_prefill + ts_n_decode) */
    sim_time_t decode_ns_sum;   /* observed decode durations (join to finish) */
    int64_t decode_n;
    struct sim_dur_hist *dur; /* their distribution (below) */
};

/* Observed decode durations by half-octave of ns: each bucket's count and
 * sum, and the suffix totals (count and sum of the durations in bucket b
 * or above; entry SIM_DUR_BUCKETS is 0) that the forecast's expected
 * remaining decode time of a running request reads in O(1). A completion
 * only counts its bucket (O(1)); the first look after it brings the
 * suffix totals up to date, from its bucket down. Behind a pointer, as
 * that look comes through the view's const cluster. */
typedef struct sim_dur_hist {
    int64_t cnt[SIM_DUR_BUCKETS], sum_ns[SIM_DUR_BUCKETS];
    int64_t cnt_ge[SIM_DUR_BUCKETS + 1], sum_ge_ns[SIM_DUR_BUCKETS + 1];
    int stale; /* the suffix totals of buckets stale and below are out of date; -1: none */
} sim_dur_hist_t;

/* cluster.c: a request ends (exactly once). */
void sim_cluster_finish(sim_cluster_t *c, sim_req_t *r, sim_req_status_t st);
/* Admission at arrival, for every system: 1 when r goes on; 0 when it has
 * ended, rejected at arrival (its KV could never fit an instance's VRAM,
 * or the admission policy refused it). */
int sim_cluster_admit(sim_cluster_t *c, sim_req_t *r);

#endif
