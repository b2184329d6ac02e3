/* sim/serve/policy/place_round_robin.c: prefill instances in turn, ignoring
 * load; decode by the shared least-loaded balancer. */
#include "sim/serve/cluster.h"
#include "sim/serve/place.h"

typedef struct rr {
    int next;
} rr_t;

static void *rr_init(const sim_cluster_t *c, const void *params)
{
    (void)c, (void)params;
    return sim_xcalloc(1, sizeof(rr_t), "round_robin");
}

static void rr_free(void *st) { sim_free(st); }

static int rr_place(void *st, const sim_cluster_t *c, const sim_req_t *r, sim_place_decision_t *out)
{
    rr_t *rr = st;
    int p = rr->next;
    rr->next = (rr->next + 1) % sim_cluster_n_prefill(c);
    sim_place_on(c, r, p, out);
    return SIM_PLACE_OK;
}

const sim_place_ops_t sim_place_round_robin = {
    .name = "round_robin",
    .help = "prefill instances in turn; decode least loaded",
    .init = rr_init,
    .free = rr_free,
    .place = rr_place,
};
