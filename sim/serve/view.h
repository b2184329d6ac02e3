/* sim/serve/view.h: what a cluster is built from (sim_cluster_args_t) and
 * the read-only view of it that placement and admission policies use
 * (sim/serve/place.h, sim/serve/admit.h): the cluster's generic part is
 * in sim/serve/cluster.c, the pd system's instances in
 * sim/serve/pd_view.c and sim/serve/decode_pick.c. The names keep the
 * cluster's prefix: a policy sees one cluster. Apart from
 * sim/serve/cluster.h so that the policies' code includes no header that
 * includes theirs. */
#ifndef SIM_VIEW_H
#define SIM_VIEW_H

#include <stdint.h>

#include "models/cost.h"
#include "models/hw.h"
#include "models/llm.h"
#include "sim/core/evq.h"
#include "sim/core/request.h"
#include "sim/net/net.h"
#include "sim/pool/kvpool.h"
#include "sim/serve/system.h"

typedef struct sim_cluster sim_cluster_t;
typedef struct sim_place_ops sim_place_ops_t;
typedef struct sim_admit_ops sim_admit_ops_t;

/* The pd system's instances (sim/serve/pd.c, sim/serve/prefill*.c,
 * sim/serve/decode.c); all 0 under a colocated system. */
typedef struct sim_cluster_pd {
    int n_prefill;
    int n_decode;
    int64_t decode_max_batch;
    int decode_load_layerwise;  /* arriving KV goes to VRAM layer by layer (sim/serve/decode.c) */
    int prefill_group;          /* nodes per prefill instance (CPP stages) */
    int64_t prefill_chunk_tok;  /* CPP chunk size */
    int inline_prefill;         /* short prefills may run on the decode node */
    sim_time_t inline_stall_ns; /* ... when prefill + one iteration stays within this */
    sim_time_t schedule_ns;     /* the Conductor's decision time per request */
} sim_cluster_pd_t;

/* The KVCache pool of the pd system's nodes: NULL policy = no reuse.
 * Capacities per node in blocks (-1 unlimited, 0 none). */
typedef struct sim_cluster_pool {
    const sim_evict_ops_t *policy;
    const void *policy_params;    /* its cache.params struct (NULL: none) */
    int64_t dram_blocks;
    int64_t ssd_blocks;
    double dram_load_bytes_per_s; /* DRAM -> GPU (host-to-device) */
    double ssd_read_bytes_per_s;
    sim_time_t store_overhead_ns;
    int hot_fetches;              /* replicate a prefix every this many fetches (0: off) */
    int hot_replicas;             /* extra replicas made each time */
} sim_cluster_pool_t;

/* The network: a transport profile and each node's NIC. */
typedef struct sim_cluster_net {
    const sim_net_profile_t *profile;
    double nic_bytes_per_s;
} sim_cluster_net_t;

/* What a cluster is built from. A plug-in's params point to the struct
 * its table describes (NULL: it has none) and outlive the cluster. */
typedef struct sim_cluster_args {
    const model_hw_t *hw;
    const model_llm_t *llm;
    const model_cost_t *cost;
    const sim_system_ops_t *system;
    const void *system_params;
    const sim_place_ops_t *place;
    const void *place_params;
    const sim_admit_ops_t *admit;
    const void *admit_params;
    sim_cluster_pd_t pd;
    sim_cluster_pool_t pool;
    sim_cluster_net_t net;
    double vram_reserve_frac;  /* share of VRAM kept for activations */
    int cache_global;          /* placements may fetch a prefix another node holds */
    sim_time_t ts_interval_ns; /* time-series row period (0: none; see SIM_TS_MAX_ROWS) */
    uint64_t seed;             /* master seed (policies derive their streams) */
    sim_time_t slo_ttft_ns;
    sim_time_t slo_tbt_ns;
    /* Reference modes (docs/development.md): the same results, slower. */
    struct {
        int decode_step; /* decode one event per iteration (sim/serve/decode_step.c) */
        int place_scan;  /* placement estimates every prefill instance (sim/serve/place.c) */
        int view_check;  /* check each indexed prefill view against the pass */
    } debug;
} sim_cluster_args_t;

/* ---- The view for policies. Times are ns; all O(1). ---- */
int sim_cluster_n_prefill(const sim_cluster_t *c);
int sim_cluster_n_decode(const sim_cluster_t *c);
sim_time_t sim_cluster_now(const sim_cluster_t *c);
const model_cost_t *sim_cluster_cost(const sim_cluster_t *c);
/* Predicted wait before a request placed now would start prefilling on
 * instance i (rest of the running prefill + predictions of the queue). */
sim_time_t sim_cluster_prefill_wait_ns(const sim_cluster_t *c, int i);
/* Predicted prefill time of r on instance i. */
sim_time_t sim_cluster_prefill_pred_ns(const sim_cluster_t *c, int i, const sim_req_t *r);
/* The same were lead_min of r's leading blocks cached there (what a
 * planned fetch brings; the node's own run counts when longer), right
 * after sim_cluster_prefill_view(c, r, ...) filled a view, nothing
 * changed since (what a placement estimating its candidates reads):
 * O(1) of the pool. */
sim_time_t sim_cluster_prefill_pred_view_ns(const sim_cluster_t *c, int i, const sim_req_t *r,
                                            uint32_t lead_min);
/* Predicted decode iteration time on instance j if r joined it, counting
 * every request already assigned there (running, waiting or on its way). */
sim_time_t sim_cluster_decode_pred_iter_ns(const sim_cluster_t *c, int j, const sim_req_t *r);
/* The node holding prefill instance i's share of the pool. */
int sim_cluster_prefill_node(const sim_cluster_t *c, int i);
/* The cluster's parameters (SLOs, threshold, scope, seed, ...). */
const sim_cluster_args_t *sim_cluster_args(const sim_cluster_t *c);
/* For each prefill instance, the leading blocks of r its node holds (out
 * has n_prefill entries); 0 for all when the pool is off. */
void sim_cluster_prefix_by_instance(const sim_cluster_t *c, const sim_req_t *r, uint32_t *out);
/* out[i] = r's predicted prefill time on instance i were lead_min[i] of
 * its leading blocks cached there (what a planned fetch brings; 0: what
 * the node holds now), for every prefill instance, from leads as sim_cluster_prefix_by_instance just gave
 * them (nothing in the pool changed since), without a prefix look-up per
 * instance. */
void sim_cluster_prefill_pred_all(const sim_cluster_t *c, const sim_req_t *r, const uint32_t *leads,
                                  const uint32_t *lead_min, sim_time_t *out);
/* Overload view (admission). */
/* The prefill load r would meet: its lowest predicted TTFT over prefill
 * instances (queue wait + its prefill there), in ns. */
sim_time_t sim_cluster_best_ttft_ns(const sim_cluster_t *c, const sim_req_t *r);
/* Decode instance j's load now (1 = at the SLO): every request in its
 * batch and every request whose KV is on its way there (prefill started,
 * not yet joined), plus r when given and not already counted. The load is
 * the iteration time over the TBT SLO or, when greater, the VRAM those
 * requests reserve (input + output each) over its KV capacity. */
double sim_cluster_decode_load_now(const sim_cluster_t *c, int j, const sim_req_t *r);
/* The same load over every request placed on j and not finished (queued
 * for prefill too), with r added: what placement balances. */
double sim_cluster_decode_pred_load(const sim_cluster_t *c, int j, const sim_req_t *r);
/* The decode instance with the lowest sim_cluster_decode_pred_load for r
 * (ties: the lowest index), found without evaluating every instance
 * (sim/serve/decode_pick.c); the same answer as a scan. */
int sim_cluster_decode_least_loaded(const sim_cluster_t *c, const sim_req_t *r);
/* Expected remaining decode time of a request that has decoded age_ns
 * (what the decode-load forecast, sim_admit_forecast_load, uses):
 * with learned, the mean residual of the observed decode durations longer
 * than age_ns (system level: no request's own length is used); with a set
 * uniform t_d (!learned, or nothing observed that long), what is left of
 * t_d_ns, or t_d_ns again once it has outlived it. */
sim_time_t sim_cluster_decode_residual_ns(const sim_cluster_t *c, sim_time_t age_ns,
                                          sim_time_t t_d_ns, int learned);
/* Mean observed decode duration (first decode step to the last token) of
 * completed requests; fallback_ns before the first one. */
sim_time_t sim_cluster_mean_decode_ns(const sim_cluster_t *c, sim_time_t fallback_ns);

/* The load of a decode instance (1 = at the SLO) running n requests of
 * ctx_tok context tokens that reserve rsv_tok tokens of VRAM: its
 * iteration time over the TBT SLO or, when greater, rsv_tok over its KV
 * capacity; 0 when n is 0. The loads above are this of their counts. */
double sim_cluster_decode_load(const sim_cluster_t *c, int64_t n, int64_t ctx_tok, int64_t rsv_tok);

/* ---- The view for forecasts (the decode-load forecast, sim/serve/admit.h). ---- */
/* Decode instance j's running batch: its members, their context tokens,
 * and the iterations it has completed (a member has run iter - join_iter
 * of them). */
typedef struct sim_cluster_batch_view {
    int64_t n;
    int64_t ctx_tok;
    int64_t iter;
} sim_cluster_batch_view_t;
sim_cluster_batch_view_t sim_cluster_decode_batch(const sim_cluster_t *c, int j);
/* The live requests, in no particular order: the first with prev NULL,
 * else the one after prev; NULL after the last. Every request arrived and
 * not ended, and the trace's next record, read ahead (status active, no
 * instance). O(1) each. */
const sim_req_t *sim_cluster_live_next(const sim_cluster_t *c, const sim_req_t *prev);
/* Stamp each request waiting for or running prefill on a pd instance with
 * the time its prefill is predicted to end (r->forecast_join_ns): the
 * running one's predicted end, then each queued one its prediction later
 * than the one before it. Other requests keep their stamp. It writes only
 * that scratch field, hence the view's const cluster. O(requests queued
 * for prefill). */
void sim_cluster_stamp_prefill_ends(const sim_cluster_t *c);

/* Predicted time to hand r's whole KV from prefill instance i's node to
 * decode instance j's, from the network's state now. */
sim_time_t sim_cluster_handoff_estimate_ns(const sim_cluster_t *c, int i, int j, const sim_req_t *r);
/* Predicted time to fetch r's first blocks [have, want) from prefill
 * instance src's node to instance dst's, from the network's state now. */
sim_time_t sim_cluster_fetch_estimate_ns(const sim_cluster_t *c, int src, int dst,
                                         const sim_req_t *r, uint32_t have, uint32_t want);
/* Placement's view of the prefill instances for r without an estimate of
 * each (sim/serve/place.c). An instance whose node the pool's scan does not
 * list (sim_kvpool_prefix_scan) has the common run of r or none; such
 * instances with the same run and the same pair of network shares
 * (sim_net_share_ids) form a class, alike in all an estimate reads but
 * the queue wait, so of each class only the one with the least wait
 * (ties: lowest index) can be placement's choice. The candidates are the
 * listed instances and those; the holders of the longest run are what
 * choosing a fetch source reads. */
typedef struct sim_prefill_view {
    int n;               /* candidates, in index order: */
    int *inst;           /* the instance */
    uint32_t *lead;      /* its own run of r, blocks */
    sim_time_t *wait;    /* its queue wait */
    double *send, *recv; /* its node's network shares */
    uint32_t top_len;    /* the longest run of any instance */
    /* Instances with that run, in index order, each distinct send share
     * among them with at least its first holder: */
    int n_hold;
    int *hold;
    double *hold_send;
} sim_prefill_view_t;
/* Fill v (arrays of n_prefill entries): 0, or -1 when the pool is off. */
int sim_cluster_prefill_view(const sim_cluster_t *c, const sim_req_t *r, sim_prefill_view_t *v);
/* For every prefill instance at once (arrays of n_prefill): its queue
 * wait (sim_cluster_prefill_wait_ns) and its node's send and receive
 * shares (sim_net_send_share, sim_net_recv_share: all that a fetch or
 * hand-off estimate reads of the network's state; of several sources,
 * the one with the largest send share fetches soonest anywhere), in one
 * pass for placement's look at every instance. */
void sim_cluster_prefill_state(const sim_cluster_t *c, sim_time_t *wait, double *send, double *recv);

#endif
