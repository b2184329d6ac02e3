/* sim/exp/run.h: one experiment run from a configuration: builds the cost
 * model, trace source, cluster and metrics, runs to the end and writes
 * summary.json, requests.csv, timeseries.csv, config.json and timing.json
 * (wall time: the one output not a function of the inputs) atomically. Invariant: on any
 * error nothing is left in the output directory that was not there, and a
 * directory holding another experiment's config.json is not overwritten
 * unless asked to. */
#ifndef SIM_RUN_H
#define SIM_RUN_H

#include <stdio.h>

#include <jansson.h>

#include "sim/exp/config.h"
#include "sim/core/metrics.h"
#include "sim/exp/timeline.h"

typedef struct sim_run_opts {
    const char *config_src; /* config file name for messages */
    const char *out_dir;    /* NULL: write no files */
    const char *data_dir;   /* root of the built-in data (models/calib) */
    int progress;           /* show a progress line on stderr */
    int force;              /* overwrite out_dir even when its config.json is
                               another experiment's (0: refuse, see sim_run) */
    FILE *requests;         /* with out_dir NULL: requests.csv's text goes
                               here (NULL: nowhere) */
    FILE *warn;             /* warnings (an input that is not the file a
                               config recorded); NULL: stderr */
    const char *timeline;   /* write the run's timeline here (NULL: none;
                               sim/exp/timeline.h) */
    sim_timeline_window_t timeline_window; /* what it covers */
    struct trace_store *traces; /* trace files parsed once and shared by
                                   runs (traces/store.h); NULL: the run
                                   reads its trace itself */
} sim_run_opts_t;

typedef struct sim_run_result {
    sim_metrics_counts_t counts;
    uint64_t events;
    double wall_s; /* the simulation loop, wall clock */
    double cpu_s;  /* the whole run (trace, simulation, outputs) on its thread */
    json_t *summary; /* owned by the caller: json_decref */
} sim_run_result_t;

/* 0, or -1 with err filled ("file: $.path: ..." / "trace:line: ..."). With
 * out_dir set and force 0, a run whose effective config (the config.json it
 * would write) differs from a config.json already in out_dir, or finds one
 * it cannot read, fails before simulating: "DIR: holds a different
 * experiment (config.json differs at $.path: OLD there, NEW in this run);
 * ...". An out_dir without config.json, or with the same one, is written
 * over. */
int sim_run(const sim_config_t *cfg, const sim_run_opts_t *o, sim_run_result_t *res,
            sim_err_t *err);

/* The files a run's directory holds, NULL-terminated: what tells a run's
 * directory from others (a sweep's points, a directory to refuse). */
extern const char *const sim_run_out_names[];

#endif
