/* sim/admit.c: the admission registry. */
#include "sim/admit.h"

#include <string.h>

#include "sim/cluster.h"
#include "sim/registry.h"

static const sim_admit_ops_t *const admit_registry[] = {
#define SIM_ADMIT(name) &sim_admit_##name,
#include "sim/policy/admit_list.h"
#undef SIM_ADMIT
};

const sim_admit_ops_t *sim_admit_find(const char *name)
{
    return sim_registry_find((const void *const *)admit_registry, SIM_REGISTRY_LEN(admit_registry), name);
}

void sim_admit_names(char *buf, size_t len)
{
    sim_registry_names((const void *const *)admit_registry, SIM_REGISTRY_LEN(admit_registry), buf, len);
}

void *sim_admit_params_state(const sim_cluster_t *c, const void *params)
{
    (void)c;
    return (void *)params;
}

int sim_admit_always(void *st, const sim_cluster_t *c, const sim_req_t *r)
{
    (void)st;
    (void)c;
    (void)r;
    return 1;
}

double sim_admit_prefill_load(const sim_cluster_t *c, const sim_req_t *r)
{
    return (double)sim_cluster_best_ttft_ns(c, r) / (double)sim_cluster_args(c)->slo_ttft_ns;
}

double sim_admit_decode_load_now(const sim_cluster_t *c)
{
    /* The load as it is: every batch and every KV on its way. */
    double sum = 0;
    int nd = sim_cluster_n_decode(c);
    for (int j = 0; j < nd; j++)
        sum += sim_cluster_decode_load_now(c, j, NULL);
    return nd ? sum / nd : 0;
}
