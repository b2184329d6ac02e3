/* sim/metrics.h: what a run measures. Finished requests stream into
 * requests.csv as they end and into fixed-size aggregates (counters and
 * log-linear histograms), so memory does not grow with trace length. */
#ifndef SIM_METRICS_H
#define SIM_METRICS_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "sim/request.h"

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
void sim_metrics_decode_iter(sim_metrics_t *m, sim_time_t ns, int64_t batch);
void sim_metrics_kv_handoff(sim_metrics_t *m, int64_t bytes, sim_time_t ns);

/* Counters for tests and the printed table. */
typedef struct sim_metrics_counts {
    int64_t total, completed, rejected_arrival, rejected_prefill, met_slo;
} sim_metrics_counts_t;
sim_metrics_counts_t sim_metrics_counts(const sim_metrics_t *m);

/* The summary object (caller json_decref). cache (may be NULL: no pool)
 * gets the token hit rates over prefilled requests added and becomes
 * $.cache; sim holds the run facts (events, seed, ...) and becomes $.sim.
 * Both are stolen. */
json_t *sim_metrics_summary(const sim_metrics_t *m, json_t *cache, json_t *sim);

/* Per-request TBT statistics from its ordered token intervals (ns):
 * mean, nearest-rank p90, max, and mean of the longest ceil(10%). scratch
 * is reordered. n may be 0 (all zero). O(n). */
void sim_metrics_tbt_stats(int64_t *scratch, size_t n, double *mean_s, double *p90_s,
                           double *max_s, double *top10_s);

#endif
