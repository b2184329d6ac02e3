/* sim/pool/evict/lru.c: least recently used first. */
#include "sim/pool/evict.h"

static void lru_key(const sim_evict_stats_t *s, const void *params, uint64_t k[SIM_EVICT_KEYS])
{
    (void)params;
    k[0] = s->tick;
    k[1] = 0;
    k[2] = 0;
}

const sim_evict_ops_t sim_evict_lru = {
    .name = "lru",
    .help = "evict the least recently used block",
    .key = lru_key,
    .recency_order = 1,
};
