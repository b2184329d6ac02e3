/* sim/core/metrics.h: what a run measures. Finished requests stream into
 * requests.csv as they end and into fixed-size aggregates (counters and
 * log-linear histograms), so memory does not grow with trace length. */
#ifndef SIM_METRICS_H
#define SIM_METRICS_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "sim/core/request.h"

typedef struct sim_metrics sim_metrics_t;

/* csv may be NULL (no per-request file). SLOs in seconds. Free with
 * sim_metrics_free (accepts NULL). */
sim_metrics_t *sim_metrics_new(FILE *csv, double ttft_slo_s, double tbt_slo_s);
void sim_metrics_free(sim_metrics_t *m);

/* Header line of requests.csv (written by sim_metrics_new when csv). */
extern const char sim_metrics_csv_header[];

void sim_metrics_arrival(sim_metrics_t *m, const sim_req_t *r);
/* A request ended (any status): one CSV row and the aggregates. */
void sim_metrics_request_done(sim_metrics_t *m, const sim_req_t *r);
/* count token intervals of length interval_ns (all of them, for the
 * run-wide TBT percentiles). */
void sim_metrics_tbt(sim_metrics_t *m, sim_time_t interval_ns, uint64_t count);
/* Busy time of one prefill (GPU time) / one decode iteration of batch. */
void sim_metrics_prefill_busy(sim_metrics_t *m, sim_time_t ns);
/* n_iter decode iterations of batch requests, busy_ns in all (as n_iter
 * calls of sim_metrics_decode_iter would count them); their token
 * intervals go in through sim_metrics_tbt_run. */
void sim_metrics_decode_span(sim_metrics_t *m, size_t n_iter, int64_t batch, sim_time_t busy_ns);
/* n token intervals that share v's histogram bucket (sim_hist_bucket_end),
 * summing to sum, the largest mx, each count times (as sim_metrics_tbt
 * for each would count them). */
void sim_metrics_tbt_run(sim_metrics_t *m, sim_time_t v, uint64_t n, sim_time_t sum, sim_time_t mx,
                         uint64_t count);
void sim_metrics_decode_iter(sim_metrics_t *m, sim_time_t ns, int64_t batch);
/* A prefill's prefix load: bytes read from DRAM and from SSD, and the
 * load's duration. */
void sim_metrics_tier_load(sim_metrics_t *m, int64_t dram_bytes, int64_t ssd_bytes, sim_time_t ns);
/* A decode node's host-to-device load of a request's KV. */
void sim_metrics_h2d(sim_metrics_t *m, int64_t bytes, sim_time_t ns);

/* One row of timeseries.csv. */
typedef struct sim_metrics_ts {
    double time_s;
    double link_gbps[4];  /* P->D, fetch, stage, replication: Gbit/s over the interval */
    double nic_util_mean; /* bytes sent / (interval x NIC), over nodes */
    double nic_util_max;
    int64_t flows;        /* transfers in progress at the row's time */
    int64_t in_flight;    /* requests */
    double prefill_wait_s_max;
    double replicas_mean;  /* replicas per distinct block held */
    int64_t blocks_multi;  /* blocks with more than one replica */
    int64_t hot_replications; /* hot-spot replications so far */
    /* Per-instance loads (the admission policies' definitions): prefill
     * queue wait / TTFT SLO and decode iteration time / TBT SLO. */
    const double *prefill_load;
    const double *decode_load;
} sim_metrics_ts_t;

/* Header line of timeseries.csv. */
extern const char sim_metrics_ts_header[];
/* Write the header now and rows to ts from here on (ts may be NULL); rows
 * carry n_prefill and n_decode per-instance loads. */
void sim_metrics_set_timeseries(sim_metrics_t *m, FILE *ts, int n_prefill, int n_decode);
void sim_metrics_ts_row(sim_metrics_t *m, const sim_metrics_ts_t *row);

/* Counters for tests, the printed table and the capacity search. */
typedef struct sim_metrics_counts {
    int64_t total, completed, rejected_arrival, rejected_prefill, met_slo;
    double lifetime_s_sum; /* arrival to completion, summed over completed requests */
} sim_metrics_counts_t;
sim_metrics_counts_t sim_metrics_counts(const sim_metrics_t *m);

/* The summary object (caller json_decref). cache (the pool's part,
 * sim_kvpool_summary_json; may be NULL: no pool) gets the token hit rates
 * over prefilled requests added and becomes $.cache; transfer (the
 * network's link classes, sim_net_summary_json) gets host-to-device and
 * SSD added and becomes $.transfer; sim holds the run facts (events, seed,
 * ...) and becomes $.sim. All three are stolen. */
json_t *sim_metrics_summary(const sim_metrics_t *m, json_t *cache, json_t *transfer, json_t *sim);

/* A JSON number rounded to 9 significant digits (stable, readable). */
json_t *sim_metrics_num(double v);

/* Per-request TBT statistics from its ordered token intervals (ns):
 * mean, nearest-rank p90, max, and mean of the longest ceil(10%). scratch
 * is reordered. n may be 0 (all zero). O(n). */
void sim_metrics_tbt_stats(int64_t *scratch, size_t n, double *mean_s, double *p90_s,
                           double *max_s, double *top10_s);

#endif
