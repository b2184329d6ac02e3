/* sim/admit.h: admission policies (plug-ins). A policy may reject a
 * request at arrival (before any work) or after its prefill (the prefill
 * work is then wasted and counted). */
#ifndef SIM_ADMIT_H
#define SIM_ADMIT_H

#include <stddef.h>

#include "sim/params.h"
#include "sim/request.h"

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
#include "sim/policy/admit_list.h"
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

const sim_admit_ops_t *sim_admit_find(const char *name);
void sim_admit_names(char *buf, size_t len);

#endif
