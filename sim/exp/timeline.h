/* sim/exp/timeline.h: the run's timeline in the Trace Event format that
 * Perfetto and chrome://tracing open (docs/timeline.md): instance tracks,
 * per-request phase tracks, network flows and the time series' counters,
 * within a window of requests or of time. It observes the run through
 * sim/core/obs.h and never changes it. Written atomically (a temporary
 * renamed on commit), zstd-compressed when the name ends in ".zst". */
#ifndef SIM_TIMELINE_H
#define SIM_TIMELINE_H

#include <stdint.h>

#include "sim/core/obs.h"
#include "sim/core/util.h"

/* What the timeline covers: requests with ids in [lo, hi) (by_time 0) or
 * arriving in [lo, hi) ns (by_time 1); see docs/timeline.md. */
typedef struct sim_timeline_window {
    int by_time;
    int64_t lo, hi;
} sim_timeline_window_t;

/* The window when none is given: the first 1,000 requests. */
#define SIM_TIMELINE_DEFAULT_WINDOW "requests:0-1000"

/* Parse "requests:A-B" (ids A..B-1), "time:X-Y" or "time:X-Ys" (seconds,
 * arrivals in [X, Y)) or "all". 0, or -1 with err naming the option. */
int sim_timeline_window_parse(const char *s, sim_timeline_window_t *w, sim_err_t *err);

typedef struct sim_timeline sim_timeline_t;

/* A timeline to be written to path, judging SLOs by ttft_slo_s and
 * tbt_slo_s as the metrics do. NULL with err filled when path cannot be
 * opened. Commit with sim_timeline_commit or drop with sim_timeline_abort
 * (either frees it). */
sim_timeline_t *sim_timeline_open(const char *path, const sim_timeline_window_t *w,
                                  double ttft_slo_s, double tbt_slo_s, sim_err_t *err);
/* The observer to hand the cluster (owned by t). */
const sim_obs_t *sim_timeline_obs(sim_timeline_t *t);
/* Finish the file and rename it into place; frees t. 0, or -1 with err
 * ("PATH: write failed: REASON"), the file not published. */
int sim_timeline_commit(sim_timeline_t *t, sim_err_t *err);
/* Remove the temporary and free t (NULL ok). */
void sim_timeline_abort(sim_timeline_t *t);

#endif
