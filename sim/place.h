/* sim/place.h: placement policies (plug-ins). For each admitted request a
 * policy picks a prefill instance and a decode instance, or rejects it.
 * Policies read the cluster only through the sim_cluster_* view (queues,
 * predictions, and in later layers caches and the network). */
#ifndef SIM_PLACE_H
#define SIM_PLACE_H

#include <stddef.h>

#include "sim/request.h"

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
    /* Per-run state (NULL allowed when the policy keeps none). */
    void *(*init)(const sim_cluster_t *c);
    void (*free)(void *st);
    /* Decide for r; SIM_PLACE_OK with out filled, or SIM_PLACE_REJECT. */
    int (*place)(void *st, const sim_cluster_t *c, const sim_req_t *r, sim_place_decision_t *out);
} sim_place_ops_t;

extern const sim_place_ops_t sim_place_round_robin;
extern const sim_place_ops_t sim_place_least_loaded;

const sim_place_ops_t *sim_place_find(const char *name);
void sim_place_names(char *buf, size_t len);

/* The decode balancer shared by policies: the instance with the lowest
 * predicted iteration time were r to join it (ties: lowest index). */
int sim_place_decode_least_loaded(const sim_cluster_t *c, const sim_req_t *r);

#endif
