/* sim/serve/system.h: serving systems (plug-ins), in the manner of ROSS's LP
 * types. The cluster owns the event queue, the network, arrivals, the end
 * of every request, the metrics and the view policies read; a system owns
 * the instances on the cluster's nodes and what happens to a request from
 * its arrival on. `pd` is Mooncake's prefill/decode disaggregation;
 * `vllm`, `vllm_pc` and `vllm_cp` are colocated vLLM-like engines.
 * Invariant: a system ends every request it is handed exactly once, through
 * sim_cluster_finish. */
#ifndef SIM_SYSTEM_H
#define SIM_SYSTEM_H

#include <stddef.h>

#include "sim/core/metrics.h"
#include "sim/core/params.h"
#include "sim/core/request.h"

typedef struct sim_cluster sim_cluster_t;
typedef struct sim_cluster_args sim_cluster_args_t;

typedef struct sim_system_ops {
    const char *name;
    const char *help;
    /* The system's own parameters (system.params): a table over a struct
     * of its own; NULL when it has none. */
    const sim_params_t *params;
    /* 1: it runs the cluster's prefill and decode instances (cluster.prefill,
     * cluster.decode), places requests by the placement policy and admits
     * them by the admission policy. 0: it runs instances of its own (its
     * parameters say how many), places them itself and admits every request
     * whose KV fits an instance (the config then asks for no prefill or
     * decode instances and admission none). */
    int disaggregated;
    /* Nodes it occupies, one NIC each (the network's size). params: the
     * filled struct (NULL without a table). */
    int (*n_nodes)(const sim_cluster_args_t *a, const void *params);
    /* Build its instances: called once the cluster's event queue, network
     * and KV capacity exist, before the policies' init. Returns its
     * per-run state (NULL allowed); params stays alive until free. */
    void *(*init)(sim_cluster_t *c, const void *params);
    /* Free st and what init built (requests still in flight are the
     * cluster's). */
    void (*free)(sim_cluster_t *c, void *st);
    /* r has arrived (id assigned, the metrics told): admit it
     * (sim_cluster_admit) and queue it on an instance, or end it. */
    void (*arrive)(void *st, sim_cluster_t *c, sim_req_t *r);
    /* r is ending, before the metrics see it, or is dropped with an
     * abandoned run (as the cluster is freed, before free): drop what the
     * system counts and holds for it. NULL: nothing to drop. */
    void (*release)(void *st, sim_cluster_t *c, sim_req_t *r);
    /* Its time-series load columns (docs/outputs.md): *n_prefill p<i>_load
     * and *n_decode d<j>_load columns, known before init. */
    void (*ts_cols)(const sim_cluster_args_t *a, const void *params, int *n_prefill,
                    int *n_decode);
    /* A time-series row's system part: the loads (pl, dl: ts_cols'
     * counts), prefill_wait_s_max and hot_replications of row (0 on
     * entry). */
    void (*ts_loads)(void *st, sim_cluster_t *c, sim_metrics_ts_t *row, double *pl, double *dl);
} sim_system_ops_t;

#define SIM_SYSTEM(name) extern const sim_system_ops_t sim_system_##name;
#include "sim/serve/policy/system_list.h"
#undef SIM_SYSTEM

/* The system called name, or NULL. O(systems). */
const sim_system_ops_t *sim_system_find(const char *name);
/* "pd, vllm, ...": every system, in registry order. */
void sim_system_names(char *buf, size_t len);

#endif
