/* sim/exp/check.h: the invariant checker of run directories (`mooncake-sim
 * check DIR...`). It reads a run's summary.json, requests.csv,
 * timeseries.csv, config.json and timing.json (when there) and verifies what docs/outputs.md
 * documents: requests conserved, each request's fields consistent, every
 * summary metric equal to its recomputation from requests.csv within the
 * rounding of the printed values, byte, busy-time, iteration, event and
 * pool-block conservation, the network, pool and time-series bounds.
 * Invariant: a check only fails on something docs/outputs.md states;
 * each tolerance is the rounding of the values compared (see check.c). */
#ifndef SIM_CHECK_H
#define SIM_CHECK_H

#include <stdint.h>
#include <stdio.h>

#include "sim/core/util.h"

/* How to report. */
typedef struct sim_check_opts {
    FILE *out;     /* violations, known failures and the verdict line */
    int quiet;     /* print only violations (no verdict for a passing run) */
    int strict;    /* known failures (see sim_check_list) count as violations */
    int show_all;  /* print every violation; else the first 5 per invariant */
} sim_check_opts_t;

/* What one directory's check found. */
typedef struct sim_check_result {
    int64_t violations; /* failing instances (known ones included when strict) */
    int64_t known;      /* instances of known failures, not counted unless strict */
    int64_t requests;   /* rows of requests.csv */
    int64_t ts_rows;    /* rows of timeseries.csv */
} sim_check_result_t;

/* Check the run directory dir. Each violation is one line on o->out,
 * "DIR/FILE:LINE: message [invariant]" (summary.json lines name the JSON
 * path too), then a verdict line "DIR: ok (...)" or "DIR: N violations".
 * Returns the number of violations (>= 0; *res filled when not NULL), or
 * -1 with err ("DIR/FILE:LINE: message") when an input cannot be read: a
 * file missing, invalid JSON, a documented summary or config key missing,
 * a CSV header other than the documented one, a row with the wrong number
 * of fields, or a field that is not a number (or a status). Reads each
 * file once; O(n log n) in requests (the percentiles sort). */
int64_t sim_check_dir(const char *dir, const sim_check_opts_t *o, sim_check_result_t *res,
                      sim_err_t *err);

/* Print every invariant: its name, the file it reads and what it checks. */
void sim_check_list(FILE *f);

/* The command: argv[0] is "check"; options --quiet, --strict, --all,
 * --list, --help; operands are run directories. Prints its own messages.
 * Returns the exit status: 0 every invariant holds in every directory, 1
 * a violation, 2 bad input (an unreadable directory or a bad option;
 * the others are still checked). */
int sim_check_cmd(int argc, char **argv);

#endif
