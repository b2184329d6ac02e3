/* sim/pool/evict.c: the eviction-policy registry. */
#include "sim/pool/evict.h"

#include "sim/core/registry.h"

static const sim_evict_ops_t *const evict_registry[] = {
    &sim_evict_lru,
    &sim_evict_lfu,
    &sim_evict_length_aware,
};

const sim_evict_ops_t *sim_evict_find(const char *name)
{
    return sim_registry_find((const void *const *)evict_registry,
                             SIM_REGISTRY_LEN(evict_registry), name);
}

void sim_evict_names(char *buf, size_t len)
{
    sim_registry_names((const void *const *)evict_registry, SIM_REGISTRY_LEN(evict_registry), buf,
                       len);
}
