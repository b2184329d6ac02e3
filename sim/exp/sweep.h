/* sim/exp/sweep.h: design-space sweeps. A sweep spec (strict JSON) names a
 * base experiment, overrides applied to every point and axes whose values
 * combine into points (grid: cartesian product, last axis fastest; list:
 * equal-length axes zipped). Each point is one self-contained sim_run into
 * its own directory; a pool of threads runs them, and sweep.csv gathers one
 * row per point in point order. Invariant: the outputs depend only on the
 * spec and the code, never on the number of workers, ranks or their order. */
#ifndef SIM_SWEEP_H
#define SIM_SWEEP_H

#include <stdio.h>

#include <jansson.h>

#include "sim/exp/config.h"
#include "sim/core/util.h"

typedef struct sim_sweep_axis {
    char *path;   /* config key path ("network.nic_gbps") */
    char **text;  /* each value as --set would take it */
    int n;        /* values; >= 1 */
} sim_sweep_axis_t;

typedef struct sim_sweep_spec {
    char *file;            /* the spec file, for messages */
    char *base_path;       /* the base experiment, resolved against the spec's folder */
    sim_config_t *base;    /* the base with every "set" override applied */
    sim_sweep_axis_t *axes;
    int n_axes;
    int list;              /* 1: "mode": "list" (zipped); 0: grid */
    int n_points;
    char *canon;           /* what spec.json holds: {"spec": the spec as given,
                              "base_config": the base with "set" applied} */
    void *priv;            /* the parsed JSON the axis values come from */
} sim_sweep_spec_t;

/* Load and check a spec: JSON syntax (file:line:col), keys, value types,
 * config paths, the base experiment and the "set" overrides (file: $.path:
 * message). Axis values are checked per point, so one bad value fails only
 * its points. At most SIM_SWEEP_MAX_POINTS points. 0, or -1 with err;
 * *s is freed on error. Free with sim_sweep_spec_free. */
#define SIM_SWEEP_MAX_POINTS 1000000
int sim_sweep_spec_load(sim_sweep_spec_t *s, const char *path, sim_err_t *err);
void sim_sweep_spec_free(sim_sweep_spec_t *s);

/* The value index of each axis for point i (idx holds n_axes). */
void sim_sweep_point_index(const sim_sweep_spec_t *s, int i, int *idx);

/* The point's directory name: its zero-padded number then key=value per
 * axis (the key's last component; characters outside [A-Za-z0-9._-]
 * become '-'), at most 160 bytes. */
void sim_sweep_point_dir(const sim_sweep_spec_t *s, int i, char *buf, size_t len);

/* The point's configuration: the base with its axis values applied and
 * validated. 0, or -1 with "spec: $.axes.KEY[j]: message". */
int sim_sweep_point_config(const sim_sweep_spec_t *s, int i, sim_config_t *cfg, sim_err_t *err);

/* One point's outcome: the run's summary (owned; NULL when it failed) or
 * its error. */
typedef struct sim_sweep_result {
    json_t *summary;
    int failed;
    char error[SIM_ERR_LEN];
} sim_sweep_result_t;

typedef struct sim_sweep_opts {
    const char *out_dir;  /* the sweep's directory; points go beneath it */
    const char *data_dir; /* root of the built-in data */
    int jobs;             /* worker threads, >= 1 */
    int progress;         /* a progress line on stderr, and failures as they happen */
    int rank, n_ranks;    /* run points i with i % n_ranks == rank (1 rank: all) */
} sim_sweep_opts_t;

/* Run this rank's points on o->jobs threads, filling res[i] for each of
 * them (res holds s->n_points, zeroed by the caller; other ranks' entries
 * are left alone). A failed point does not stop the others. Returns the
 * number of failed points. */
int sim_sweep_run(const sim_sweep_spec_t *s, const sim_sweep_opts_t *o, sim_sweep_result_t *res);

/* Write out_dir/sweep.csv (columns point, dir, each axis's path, status,
 * error, then every numeric summary leaf by dotted path in first-seen
 * order) and out_dir/spec.json, atomically; then remove every point
 * directory that is not one of s's points that ran (an earlier spec's, a
 * point that failed this time) and the hidden leftovers of writers no
 * longer alive, so out_dir holds exactly this sweep. 0 or -1. */
int sim_sweep_write(const sim_sweep_spec_t *s, const sim_sweep_result_t *res, const char *out_dir,
                    sim_err_t *err);

/* 0 when out_dir holds no spec.json or the same spec; -1 with a message
 * naming the directory when it holds a different sweep. */
int sim_sweep_check_out(const sim_sweep_spec_t *s, const char *out_dir, sim_err_t *err);

/* 0 when out_dir is absent or holds only a sweep's files (sweep.csv,
 * spec.json, point directories holding a run's files, hidden entries);
 * else -1 with a message naming the directory and what it holds ("holds a
 * run's output (summary.json), not a sweep's" for a run's directory);
 * err->io set only when it cannot be read. */
int sim_sweep_check_dir(const char *out_dir, sim_err_t *err);

void sim_sweep_results_free(sim_sweep_result_t *res, int n);

#endif
