/* sim/serve/system.c: the serving-system registry. */
#include "sim/serve/system.h"

#include "sim/core/registry.h"

static const sim_system_ops_t *const system_registry[] = {
#define SIM_SYSTEM(name) &sim_system_##name,
#include "sim/serve/policy/system_list.h"
#undef SIM_SYSTEM
};

const sim_system_ops_t *sim_system_find(const char *name)
{
    return sim_registry_find((const void *const *)system_registry,
                             SIM_REGISTRY_LEN(system_registry), name);
}

void sim_system_names(char *buf, size_t len)
{
    sim_registry_names((const void *const *)system_registry, SIM_REGISTRY_LEN(system_registry),
                       buf, len);
}
