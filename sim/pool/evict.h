/* sim/pool/evict.h: eviction policies (plug-ins) for the KVCache pool, one
 * file each under sim/pool/evict/ and one line in evict_list.h. A policy
 * is one of two kinds:
 *   a priority (key): it maps a block's access statistics to a key, and
 *     the pool evicts the unpinned block with the smallest key (ties:
 *     smallest block id), keeping the order itself (tick-sorted runs for
 *     recency keys, O(1); else a heap by key, O(log n) per access);
 *   an order of its own (order): the policy keeps its queues and
 *     metadata per tier, told of every block that enters, is used, is
 *     pinned, is released or leaves, and names the victims. */
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

/* A policy's own order over one bounded tier of one node. Blocks are
 * named by slot: unique in the pool while the block is in the tier,
 * reused after it leaves. A block is evictable while unpinned: it enters
 * held (not evictable), becomes evictable at on_unpin and stops being so
 * at on_pin; the pool calls on_remove only for a held block. */
typedef struct sim_evict_order {
    /* The state of one tier; params as for key. */
    void *(*init)(const void *params);
    void (*free)(void *st);
    /* Block slot (id, its statistics: freq 0 for a replica made ahead of
     * use) enters the tier, held: stored, demoted or promoted. */
    void (*on_insert)(void *st, uint32_t slot, uint64_t id, const sim_evict_stats_t *s);
    /* An access to block slot in the tier, held or evictable. */
    void (*on_hit)(void *st, uint32_t slot);
    /* Block slot (held) leaves the tier other than as a victim. */
    void (*on_remove)(void *st, uint32_t slot);
    void (*on_pin)(void *st, uint32_t slot);   /* evictable -> held */
    void (*on_unpin)(void *st, uint32_t slot); /* held -> evictable */
    /* The next victim of a tier of cap blocks, taken out of the state;
     * called only while some block is evictable. */
    uint32_t (*pick_victim)(void *st, int64_t cap);
    /* 0 when the state is consistent and holds n_evictable evictable
     * blocks, else -1 (sim_kvpool_check). */
    int (*check)(const void *st, int64_t n_evictable);
} sim_evict_order_t;

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
    /* A policy with an order of its own sets this instead of key. */
    const sim_evict_order_t *order;
} sim_evict_ops_t;

#define SIM_EVICT(name) extern const sim_evict_ops_t sim_evict_##name;
#include "sim/pool/evict/evict_list.h"
#undef SIM_EVICT

const sim_evict_ops_t *sim_evict_find(const char *name);
void sim_evict_names(char *buf, size_t len);
/* The i-th policy of the registry, in list order; NULL past the end. */
const sim_evict_ops_t *sim_evict_at(size_t i);

#endif
