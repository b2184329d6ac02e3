/* sim/serve/place.h: placement policies (plug-ins). For each admitted request a
 * policy picks a prefill instance and a decode instance, or rejects it.
 * Policies read the cluster only through the sim_cluster_* view (queues,
 * predictions, and in later layers caches and the network). */
#ifndef SIM_PLACE_H
#define SIM_PLACE_H

#include <stddef.h>

#include "sim/core/params.h"
#include "sim/core/request.h"

typedef struct sim_cluster sim_cluster_t;

enum { SIM_PLACE_OK = 0, SIM_PLACE_REJECT = 1 };

typedef struct sim_place_decision {
    int prefill; /* instance index */
    int decode;
    sim_time_t pred_ttft_ns; /* the policy's estimate (queue + prefill) */
    int fetch_src;          /* node to fetch a longer prefix from before prefill; -1: none */
    uint32_t fetch_blocks;  /* leading blocks the instance holds once it lands */
} sim_place_decision_t;

typedef struct sim_place_ops {
    const char *name;
    const char *help;
    /* The policy's own parameters (scheduler.params): a table over a
     * struct of its own; NULL when it has none. */
    const sim_params_t *params;
    /* Per-run state (NULL allowed when the policy keeps none); params is
     * the filled struct (NULL without a table), alive until free. */
    void *(*init)(const sim_cluster_t *c, const void *params);
    void (*free)(void *st);
    /* Decide for r; SIM_PLACE_OK with out filled, or SIM_PLACE_REJECT. */
    int (*place)(void *st, const sim_cluster_t *c, const sim_req_t *r, sim_place_decision_t *out);
} sim_place_ops_t;

#define SIM_PLACE(name) extern const sim_place_ops_t sim_place_##name;
#include "sim/serve/policy/place_list.h"
#undef SIM_PLACE

const sim_place_ops_t *sim_place_find(const char *name);
void sim_place_names(char *buf, size_t len);
/* The i-th policy of the registry, in list order; NULL past the end. */
const sim_place_ops_t *sim_place_at(size_t i);

/* SelectDecodingInstance, shared by policies: the instance with the lowest
 * predicted load were r to join it, counting every request placed there
 * and not finished (in its batch, KV on its way, queued for prefill): the
 * iteration time over the TBT SLO or, when greater, the VRAM they reserve
 * over its capacity (ties: lowest index). */
int sim_place_decode_least_loaded(const sim_cluster_t *c, const sim_req_t *r);

/* Place r on prefill instance p: decode by the shared balancer above,
 * pred_ttft_ns = p's queue wait + r's predicted prefill there with what its
 * node holds (no fetch planned). Leaves fetch_src and fetch_blocks alone. */
void sim_place_on(const sim_cluster_t *c, const sim_req_t *r, int p, sim_place_decision_t *out);

/* Algorithm 1's estimate for r on one prefill instance. */
typedef struct sim_place_est {
    sim_time_t ttft_ns;     /* transfer (0: none) + queue + prefill (+ hand-off left) */
    uint32_t lead_blocks;   /* what it would hold after the fetch */
    int fetch_from;         /* prefill instance holding the longer prefix; -1: recompute */
} sim_place_est_t;

/* Per-instance scratch for sim_place_kv_estimate, owned by a policy.
 * leads, wait, send and recv are by instance when every instance is
 * estimated, by candidate (sim_prefill_view_t) otherwise. */
typedef struct sim_place_scratch {
    uint32_t *leads;      /* each instance's own cached prefix, blocks */
    sim_place_est_t *est; /* each instance's estimate */
    /* The holders of the longest prefix by send share (sim_cluster_prefill_state):
     * each distinct share once, with the first holder (in index order)
     * that has it; a source's estimate depends on nothing else. */
    int *holders;
    double *shares;
    int n_shares;
    uint32_t *lead_min;  /* each instance's lead with its planned fetch */
    sim_time_t *pred;    /* its predicted prefill time with that lead */
    sim_time_t *wait;    /* its queue wait (sim_cluster_prefill_state) */
    double *send, *recv; /* its node's network shares */
    /* sim_cluster_prefill_view's candidates and holders */
    int *cand, *hold;
    double *hold_send;
    int full_scan; /* estimate every instance (debug.place_scan) */
} sim_place_scratch_t;
sim_place_scratch_t *sim_place_scratch_new(const sim_cluster_t *c);
void sim_place_scratch_free(void *scratch);

/* Algorithm 1: estimate r on the prefill instances (into s->est; the
 * returned instance's entry is always filled). With allow_fetch, an
 * instance whose own prefix is
 * shorter than the best one cluster-wide fetches the difference when
 * best / own > threshold (own = 0 with best > 0 counts as above) from the
 * holder that can send it soonest; otherwise it recomputes beyond its own
 * prefix. With decode >= 0, the TTFT also counts the part of the KV
 * hand-off to that decode instance that prefill does not cover (the KV
 * streams while prefill runs), from the network's state now. Returns the
 * instance with the lowest TTFT (ties: lowest index). With the pool on,
 * only the candidates of sim_cluster_prefill_view are estimated (the
 * instances alike in all but the queue wait are one candidate, the one
 * that waits least): one scan of the pool's holders of r's blocks and one
 * pass over the instances' waits and shares, then O(candidates x distinct
 * send shares of the longest prefix's holders). Without it, every
 * instance is estimated (s->leads gets each one's own prefix). */
int sim_place_kv_estimate(const sim_cluster_t *c, const sim_req_t *r, int allow_fetch,
                          double threshold, int decode, sim_place_scratch_t *s);

#endif
