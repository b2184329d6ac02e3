/* sim/run.h: one experiment run from a configuration: builds the cost
 * model, trace source, cluster and metrics, runs to the end and writes
 * summary.json, requests.csv and config.json atomically. Invariant: on any
 * error nothing is left in the output directory that was not there. */
#ifndef SIM_RUN_H
#define SIM_RUN_H

#include <jansson.h>

#include "sim/config.h"
#include "sim/metrics.h"

typedef struct sim_run_opts {
    const char *config_src; /* config file name for messages */
    const char *out_dir;    /* NULL: write no files */
    const char *data_dir;   /* root of the built-in data (models/calib) */
    int progress;           /* show a progress line on stderr */
} sim_run_opts_t;

typedef struct sim_run_result {
    sim_metrics_counts_t counts;
    uint64_t events;
    double wall_s;
    json_t *summary; /* owned by the caller: json_decref */
} sim_run_result_t;

/* 0, or -1 with err filled ("file: $.path: ..." / "trace:line: ..."). */
int sim_run(const sim_config_t *cfg, const sim_run_opts_t *o, sim_run_result_t *res,
            sim_err_t *err);

#endif
