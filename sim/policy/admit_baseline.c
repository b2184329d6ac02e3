/* sim/policy/admit_baseline.c: the paper's baseline: before prefill,
 * admit on the prefill load alone; when prefill is done, check the decode
 * instance it was given and reject then if it cannot keep the TBT SLO
 * (the prefill work is wasted and counted). */
#include "sim/admit.h"
#include "sim/cluster.h"

static int base_arrival(void *st, const sim_cluster_t *c, const sim_req_t *r)
{
    (void)st;
    return sim_admit_prefill_load(c, r) <= sim_cluster_args(c)->admit_threshold;
}

static int base_after_prefill(void *st, const sim_cluster_t *c, const sim_req_t *r)
{
    (void)st;
    const sim_cluster_args_t *a = sim_cluster_args(c);
    return sim_cluster_decode_load_now(c, r->decode_inst, r) <= a->admit_threshold;
}

const sim_admit_ops_t sim_admit_baseline = {
    .name = "baseline",
    .help = "prefill load before prefill; the decode instance's TBT only after prefill",
    .init = NULL,
    .free = NULL,
    .at_arrival = base_arrival,
    .after_prefill = base_after_prefill,
};
