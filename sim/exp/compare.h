/* sim/exp/compare.h: compare two run summaries (summary.json) metric by metric
 * and check regression bounds, for CI jobs that guard policy changes. A
 * summary flattens to its numeric leaves under dotted paths
 * ("ttft_s.p90"), sorted by path; fields that are not a function of the
 * run's inputs (sim.wall_s) are left out, so two runs of the same config
 * and seed compare equal. */
#ifndef SIM_COMPARE_H
#define SIM_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "sim/core/util.h"

/* One numeric leaf: its dotted path ("cache.replicas.mean"; array
 * elements as "a[2]") and value. */
typedef struct sim_cmp_metric {
    char *path;
    double value;
} sim_cmp_metric_t;

/* A flattened summary, metrics sorted by path (strcmp). */
typedef struct sim_cmp_flat {
    sim_cmp_metric_t *m;
    size_t n, cap;
    char *file; /* the file it came from, for messages */
} sim_cmp_flat_t;

/* Flatten the object j read from file (used in messages) into *out:
 * numbers (integers and reals) become metrics; strings, booleans and null
 * are not metrics; sim.wall_s is skipped. O(n log n) in leaves. 0, or -1
 * with "file: $: ..." when j is not an object or holds no numeric leaf.
 * *out is owned by the caller in both cases: sim_cmp_flat_free. */
int sim_cmp_flatten(const json_t *j, const char *file, sim_cmp_flat_t *out, sim_err_t *err);

/* Load and flatten a summary: path is a run directory (its summary.json is
 * read) or a summary.json file. 0, or -1 with the file named (and
 * file:line:col for invalid JSON). Free *out with sim_cmp_flat_free. */
int sim_cmp_load(const char *path, sim_cmp_flat_t *out, sim_err_t *err);
void sim_cmp_flat_free(sim_cmp_flat_t *f);

/* The metric at path, or NULL. O(log n). */
const sim_cmp_metric_t *sim_cmp_find(const sim_cmp_flat_t *f, const char *path);

/* Why path is skipped by the flattening (a fixed string), or NULL when it
 * is not. */
const char *sim_cmp_skipped(const char *path);

#define SIM_CMP_METRIC_LEN 128

/* One --max-regress METRIC=BOUND. The sign is textual: a leading '-' makes
 * falling the bad direction ("higher is better"), no sign or '+' makes
 * rising the bad direction ("lower is better").
 *   P%:  NEW may exceed BASE by at most P% of |BASE|
 *   -P%: NEW may fall below BASE by at most P% of |BASE|
 *   D:   NEW - BASE may be at most D
 *   -D:  BASE - NEW may be at most D */
typedef struct sim_cmp_bound {
    char metric[SIM_CMP_METRIC_LEN];
    int percent;      /* 1: amount is a percent of |BASE| */
    int falling_bad;  /* 1: written with a leading '-' (higher is better) */
    double amount;    /* >= 0, finite: P or D without its sign */
} sim_cmp_bound_t;

/* Parse "METRIC=BOUND" (arg as given, for messages). 0, or -1 with
 * "--max-regress ARG: ..." on a malformed argument. */
int sim_cmp_parse_bound(const char *arg, sim_cmp_bound_t *b, sim_err_t *err);

/* The outcome of one bound on one metric. */
typedef struct sim_cmp_eval {
    double base, new_val;
    double limit;   /* the worst NEW value the bound allows */
    int violated;
} sim_cmp_eval_t;

/* Apply b to one metric's values. The comparison is inclusive ("at most")
 * and allows a relative slack of 1e-9 of max(|base|, |new|), well below
 * the 10 significant digits summary.json holds, so a value exactly on the
 * bound passes despite rounding. */
sim_cmp_eval_t sim_cmp_eval(const sim_cmp_bound_t *b, double base, double new_val);

/* Check every bound. Each named metric must be a numeric metric of both
 * summaries: otherwise -1 with "--max-regress ARG: FILE: $.metric: ..."
 * and nothing evaluated. Else the number of violated bounds; evals (n_b
 * entries, may be NULL) receives each outcome. */
int sim_cmp_check(const sim_cmp_flat_t *base, const sim_cmp_flat_t *new_f,
                  const sim_cmp_bound_t *b, size_t n_b, sim_cmp_eval_t *evals, sim_err_t *err);

/* Print the table (metric, base, new, delta, relative delta) to out: the
 * headline metrics both hold first (TTFT p50/p90/p99, TBT p90/p99 and
 * the SLO's top-10% p90, SLO attainment, effective request capacity,
 * throughput, goodput), a line "(the rest by path)", every other metric
 * both hold sorted by path, then the metrics present in only one. */
void sim_cmp_print_table(FILE *out, const sim_cmp_flat_t *base, const sim_cmp_flat_t *new_f);

/* Print one line for a bound's outcome ("VIOLATED ..." or "ok ..."). */
void sim_cmp_print_eval(FILE *out, const sim_cmp_bound_t *b, const sim_cmp_eval_t *e);

/* The whole command: load base and new (directories or files), check the
 * bounds, print the table and every bound's outcome to out, or with
 * quiet only the violations. Two sweep directories (holding sweep.csv) of
 * the same points are compared point by point, every bound on every point;
 * a point failed in new but not in base counts as a violation. Returns 0 when no bound is violated, 1 when
 * one is, -1 on bad input (err filled; nothing printed). */
int sim_cmp_compare(const char *base, const char *new_path, const sim_cmp_bound_t *b, size_t n_b,
                    int quiet, FILE *out, sim_err_t *err);

#endif
