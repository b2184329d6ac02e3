/* sim/pool/evict/lfu.c: least frequently used first (accesses since the block
 * entered the node); among equals, least recently used. */
#include "sim/pool/evict.h"

static void lfu_key(const sim_evict_stats_t *s, const void *params, uint64_t k[SIM_EVICT_KEYS])
{
    (void)params;
    k[0] = s->freq;
    k[1] = s->tick;
    k[2] = 0;
}

const sim_evict_ops_t sim_evict_lfu = {
    .name = "lfu",
    .help = "evict the least frequently used block; ties: least recently used",
    .key = lfu_key,
};
