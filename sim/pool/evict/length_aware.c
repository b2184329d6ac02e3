/* sim/pool/evict/length_aware.c: the paper's LengthAwareCache, "similar to
 * LFUCache but prioritizing evicting cache blocks occurring later in
 * requests". Exact rule: evict the least frequently used block; among
 * equally frequent ones, the one at the deepest position in its requests
 * (a deep block only helps when every block before it hits too); then the
 * least recently used. */
#include "sim/pool/evict.h"

static void la_key(const sim_evict_stats_t *s, const void *params, uint64_t k[SIM_EVICT_KEYS])
{
    (void)params;
    k[0] = s->freq;
    k[1] = UINT32_MAX - (uint64_t)s->pos; /* deeper = smaller = evicted sooner */
    k[2] = s->tick;
}

const sim_evict_ops_t sim_evict_length_aware = {
    .name = "length_aware",
    .help = "LFU that evicts blocks deeper in requests first among equals, then LRU",
    .key = la_key,
};
