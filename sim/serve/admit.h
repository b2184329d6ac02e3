/* sim/serve/admit.h: admission policies (plug-ins). A policy may reject a
 * request at arrival (before any work) or after its prefill (the prefill
 * work is then wasted and counted). */
#ifndef SIM_ADMIT_H
#define SIM_ADMIT_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/params.h"
#include "sim/core/request.h"

typedef struct sim_cluster sim_cluster_t;

typedef struct sim_admit_ops {
    const char *name;
    const char *help;
    /* The policy's own parameters (admission.params); NULL: none. */
    const sim_params_t *params;
    /* Per-run state; may be NULL. params: the filled struct (NULL without
     * a table), alive until free. */
    void *(*init)(const sim_cluster_t *c, const void *params);
    void (*free)(void *st);
    /* 1 to admit r at arrival, 0 to reject it (HTTP 429). */
    int (*at_arrival)(void *st, const sim_cluster_t *c, const sim_req_t *r);
    /* 1 to hand r to its decode instance after prefill, 0 to reject. */
    int (*after_prefill)(void *st, const sim_cluster_t *c, const sim_req_t *r);
} sim_admit_ops_t;

#define SIM_ADMIT(name) extern const sim_admit_ops_t sim_admit_##name;
#include "sim/serve/policy/admit_list.h"
#undef SIM_ADMIT

/* The threshold every load-based policy takes, as a field of its
 * parameter struct T (member m, a double). */
#define SIM_ADMIT_THRESHOLD(T, m)                                   \
    SIM_PARAM_N("threshold", T, m, 0.01, 100, "1",                  \
                "a predicted load (TTFT / TTFT SLO, TBT / TBT SLO) above this rejects")

/* init for a policy whose state is its parameter struct. */
void *sim_admit_params_state(const sim_cluster_t *c, const void *params);

/* Admits every request: an at_arrival or after_prefill for any policy
 * that does not check at that point. */
int sim_admit_always(void *st, const sim_cluster_t *c, const sim_req_t *r);

/* Loads as the paper defines them (1 = at the SLO). */
/* Prefill: r's best predicted TTFT / TTFT SLO. */
double sim_admit_prefill_load(const sim_cluster_t *c, const sim_req_t *r);
/* Decode: the mean load over decode instances (sim_cluster_decode_load_now). */
double sim_admit_decode_load_now(const sim_cluster_t *c);

/* The decode-load forecast (the predictive policy): the mean decode load
 * over decode instances at absolute time at_ns. Requests decoding now stay
 * for their expected remaining decode time (sim_cluster_decode_residual_ns
 * with t_d_ns and learned); requests in prefill join when their predicted
 * prefill ends (sim_cluster_stamp_prefill_ends) and stay t_d_ns; requests
 * prefilled and on their way join now. With oracle, each leaves after its
 * real remaining tokens at its instance's current iteration time. O(requests
 * in flight); the cluster is unchanged but for the requests' scratch stamp. */
double sim_admit_forecast_load(const sim_cluster_t *c, sim_time_t at_ns, sim_time_t t_d_ns,
                               int learned, int oracle);
/* The forecast's batch per decode instance: n[j] requests with ctx[j]
 * context tokens reserving rsv[j] tokens of VRAM at at_ns (arrays of
 * n_decode entries, overwritten), from which sim_admit_forecast_load
 * computes the load (sim_cluster_decode_load). */
void sim_admit_forecast_decode(const sim_cluster_t *c, sim_time_t at_ns, sim_time_t t_d_ns,
                               int learned, int oracle, int64_t *n, int64_t *ctx, int64_t *rsv);

const sim_admit_ops_t *sim_admit_find(const char *name);
void sim_admit_names(char *buf, size_t len);
/* The i-th policy of the registry, in list order; NULL past the end. */
const sim_admit_ops_t *sim_admit_at(size_t i);

#endif
