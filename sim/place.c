/* sim/place.c: the placement registry and the shared decode balancer. */
#include "sim/place.h"

#include <string.h>

#include "sim/registry.h"

#include "sim/cluster.h"

static const sim_place_ops_t *const place_registry[] = {
    &sim_place_round_robin,
    &sim_place_least_loaded,
};

const sim_place_ops_t *sim_place_find(const char *name)
{
    return sim_registry_find((const void *const *)place_registry, SIM_REGISTRY_LEN(place_registry), name);
}

void sim_place_names(char *buf, size_t len)
{
    sim_registry_names((const void *const *)place_registry, SIM_REGISTRY_LEN(place_registry), buf, len);
}

int sim_place_decode_least_loaded(const sim_cluster_t *c, const sim_req_t *r)
{
    int best = 0;
    sim_time_t best_t = INT64_MAX;
    for (int j = 0; j < sim_cluster_n_decode(c); j++) {
        sim_time_t t = sim_cluster_decode_pred_iter_ns(c, j, r);
        if (t < best_t) {
            best_t = t;
            best = j;
        }
    }
    return best;
}
