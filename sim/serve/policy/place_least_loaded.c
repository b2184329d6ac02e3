/* sim/serve/policy/place_least_loaded.c: the prefill instance with the least
 * predicted queue wait (ties to the lowest index), blind to what each node
 * caches; decode by the shared least-loaded balancer. */
#include "sim/serve/cluster.h"
#include "sim/serve/place.h"

static int ll_place(void *st, const sim_cluster_t *c, const sim_req_t *r, sim_place_decision_t *out)
{
    (void)st;
    int best = 0;
    sim_time_t best_t = INT64_MAX;
    for (int i = 0; i < sim_cluster_n_prefill(c); i++) {
        sim_time_t t = sim_cluster_prefill_wait_ns(c, i);
        if (t < best_t) {
            best_t = t;
            best = i;
        }
    }
    sim_place_on(c, r, best, out); /* its wait is best_t again */
    return SIM_PLACE_OK;
}

const sim_place_ops_t sim_place_least_loaded = {
    .name = "least_loaded",
    .help = "prefill instance with the least predicted queue time; decode least loaded",
    .init = NULL,
    .free = NULL,
    .place = ll_place,
};

/* The paper's name for the same policy. */
const sim_place_ops_t sim_place_load_balance = {
    .name = "load_balance",
    .help = "the paper's load-balancing baseline: least predicted queue time, ignoring caches "
            "(same as least_loaded)",
    .init = NULL,
    .free = NULL,
    .place = ll_place,
};
