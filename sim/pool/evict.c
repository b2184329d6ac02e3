/* sim/pool/evict.c: the eviction-policy registry (evict/evict_list.h). */
#include "sim/pool/evict.h"

#include "sim/core/registry.h"

static const sim_evict_ops_t *const evict_registry[] = {
#define SIM_EVICT(name) &sim_evict_##name,
#include "sim/pool/evict/evict_list.h"
#undef SIM_EVICT
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

const sim_evict_ops_t *sim_evict_at(size_t i)
{
    return i < SIM_REGISTRY_LEN(evict_registry) ? evict_registry[i] : NULL;
}
