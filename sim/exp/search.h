/* sim/exp/search.h: sustained capacity by bisection. The core
 * (sim_search_bisect) finds the highest value of one parameter at which a
 * probe passes, to a relative tolerance, from any probe function; the SLO
 * layer (sim_search_slo) probes simulator runs against the arXiv paper's
 * P90 TTFT / P90 TBT SLO. Invariants: the bracket's lo has passed and its
 * hi has failed; the same inputs probe the same values in the same order. */
#ifndef SIM_SEARCH_H
#define SIM_SEARCH_H

#include <stdint.h>

#include "sim/exp/config.h"
#include "sim/core/util.h"

/* One probe: the value tried and what it measured. The core sets value
 * and reads pass; the other fields are the probe function's to fill. */
typedef struct sim_search_probe {
    double value;          /* the searched parameter's value */
    int64_t requests;      /* requests in the run */
    double ttft_p90_s;     /* summary.json ttft_s.p90 */
    double tbt_p90_s;      /* summary.json tbt_top10_s.p90: over requests, of each one's TBT */
    double tbt_interval_p90_s; /* summary.json tbt_s.p90: over all token intervals (reported) */
    double ttft_norm;      /* ttft_p90_s over its threshold */
    double tbt_norm;       /* tbt_p90_s over its threshold */
    double metric;         /* a capacity search's target metric */
    int pass;              /* 1: within the SLO */
} sim_search_probe_t;

/* Run one probe at p->value and fill the rest of *p. 0, or -1 with err
 * filled (the search stops and returns it). */
typedef int (*sim_search_probe_fn)(void *ud, sim_search_probe_t *p, sim_err_t *err);

typedef struct sim_search_args {
    double lo;      /* > 0; probed first: when it fails there is no capacity */
    double hi;      /* first upper bound tried (0: 2 lo); > lo */
    double max;     /* the parameter's range bound (0: none): never probed above */
    double tol;     /* > 0: converged when (hi - lo) / lo <= tol */
    int integer;    /* integer parameter: midpoints round down; hi - lo <= 1 converges */
    int max_probes; /* >= 2: hard cap on probes, bracketing included */
} sim_search_args_t;

typedef struct sim_search_result {
    int found;                  /* 0: lo failed, capacity 0 */
    int at_bound;               /* every probe passed up to max: capacity >= max, hi = max */
    double capacity;            /* the highest value that passed (= bracket lo); 0 when !found */
    double lo, hi;              /* final bracket: lo passed (0 when !found), hi failed */
    sim_search_probe_t *probes; /* in the order run; freed by sim_search_result_free */
    int n_probes;
} sim_search_result_t;

/* Bracket and bisect. Probes lo; if it fails, found = 0. Otherwise probes
 * hi, doubling it (lo takes the passing value) until one fails, then
 * bisects at the arithmetic midpoint until converged. Non-integer values
 * are rounded to 9 significant digits before probing, so each value
 * printed with %.9g is exactly the value run. At most max_probes probes
 * and no more than needed: O(log2(hi / lo) + log2(1 / tol)) when the
 * probes are monotone. 0; or -1 with err filled when fn fails, when no
 * probe fails within the cap (never bracketed) or the cap stops the
 * bisection short of the tolerance. *res is filled in every case (the
 * probes so far on error); release it with sim_search_result_free. */
int sim_search_bisect(const sim_search_args_t *a, sim_search_probe_fn fn, void *ud,
                      sim_search_result_t *res, sim_err_t *err);
void sim_search_result_free(sim_search_result_t *res);

/* ---- the SLO search over simulator runs ---- */

typedef struct sim_search_slo_args {
    const sim_config_t *exp; /* the searched experiment (--set applied) */
    const char *exp_src;     /* its file, for messages and search.json */
    const sim_config_t *ref; /* the reference experiment; may be exp */
    const char *ref_src;
    const char *param;       /* a numeric config key, not trace.generator.requests */
    double ttft_factor;      /* threshold = factor x the reference's P90 at lo */
    double tbt_factor;
    double ttft_p90_s;       /* > 0: an absolute threshold instead (factor unused) */
    double tbt_p90_s;
    int64_t min_requests;    /* generator runs: at least this many requests */
    double lifetimes;        /* ... and lifetimes x L x rate (L: the reference's mean lifetime) */
    const char *data_dir;    /* root of the built-in data (models/calib) */
    int progress;            /* one line per run on stderr */
    sim_search_args_t bisect;
} sim_search_slo_args_t;

typedef struct sim_search_slo {
    sim_search_result_t search;
    sim_search_probe_t ref;  /* the reference run at lo (norms against the thresholds) */
    double ref_lifetime_s;   /* its mean request lifetime, arrival to completion */
    double ttft_max_s;       /* the thresholds used */
    double tbt_max_s;
} sim_search_slo_t;

/* Run the reference at lo (min_requests requests, or max(min_requests,
 * ceil(lifetimes x L x lo)) from a first run's L when that is more), set
 * the thresholds, then search: each probe runs the experiment with param
 * = value and, when it generates its trace, max(min_requests,
 * ceil(lifetimes x L x rate)) requests (rate: its trace.generator.rate_rps
 * at that value). A probe passes when P90 TTFT and P90 TBT are within the
 * thresholds, at least one request completed and at most 10% were
 * rejected. Runs are in memory (no files). 0 or -1 (err filled: a bad
 * config, a failed run, an unbracketed search); free *out with
 * sim_search_slo_free in both cases. */
int sim_search_slo(const sim_search_slo_args_t *a, sim_search_slo_t *out, sim_err_t *err);
void sim_search_slo_free(sim_search_slo_t *s);

/* Write dir/probes.csv (value, requests, ttft_p90_s, tbt_p90_s, ttft_norm,
 * tbt_norm, pass, tbt_interval_p90_s: one row per probe, in the order run) and dir/search.json
 * atomically; dir is created as needed and removed again on failure when
 * it was new. 0 or -1. */
int sim_search_write(const char *dir, const sim_search_slo_args_t *a, const sim_search_slo_t *s,
                     sim_err_t *err);

#endif
