/* sim/pool/evict.h: eviction policies (plug-ins) for the KVCache pool. A policy
 * is a priority: it maps a block's access statistics to a key, and the
 * pool evicts the unpinned block with the smallest key (ties: smallest
 * block id). The pool keeps blocks in a heap by key: O(log n) per access. */
#ifndef SIM_EVICT_H
#define SIM_EVICT_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/params.h"

/* What the pool knows of a block in a tier. */
typedef struct sim_evict_stats {
    uint64_t freq; /* accesses since it entered the node (insert counts 1) */
    uint64_t tick; /* pool-wide access counter at its last access */
    uint32_t pos;  /* its index in the requests that use it (fixed: ids are chained) */
} sim_evict_stats_t;

#define SIM_EVICT_KEYS 3

typedef struct sim_evict_ops {
    const char *name;
    const char *help;
    /* The policy's own parameters (cache.params): a table over a struct
     * of params->size bytes; NULL: none. */
    const sim_params_t *params;
    /* Priority key: smallest is evicted first. params: the filled struct
     * (NULL without a table). Pure. */
    void (*key)(const sim_evict_stats_t *s, const void *params, uint64_t key[SIM_EVICT_KEYS]);
    /* 1 when the key is the access tick alone: the pool then keeps blocks
     * in an access-ordered list (O(1)) instead of a heap; same order. */
    int recency_order;
} sim_evict_ops_t;

extern const sim_evict_ops_t sim_evict_lru;
extern const sim_evict_ops_t sim_evict_lfu;
extern const sim_evict_ops_t sim_evict_length_aware;

const sim_evict_ops_t *sim_evict_find(const char *name);
void sim_evict_names(char *buf, size_t len);

#endif
