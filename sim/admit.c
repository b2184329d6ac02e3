/* sim/admit.c: the admission registry. */
#include "sim/admit.h"

#include <string.h>

#include "sim/registry.h"

static const sim_admit_ops_t *const admit_registry[] = {
    &sim_admit_none,
};

const sim_admit_ops_t *sim_admit_find(const char *name)
{
    return sim_registry_find((const void *const *)admit_registry, SIM_REGISTRY_LEN(admit_registry), name);
}

void sim_admit_names(char *buf, size_t len)
{
    sim_registry_names((const void *const *)admit_registry, SIM_REGISTRY_LEN(admit_registry), buf, len);
}
