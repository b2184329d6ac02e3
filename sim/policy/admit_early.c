/* sim/policy/admit_early.c: early rejection: before prefill, admit only
 * if the greater of the prefill load and the current decode load is within
 * the threshold. Deciding on today's decode load for a request that will
 * reach decode later is what makes the two loads swing in anti-phase. */
#include "sim/admit.h"
#include "sim/cluster.h"

static int early_arrival(void *st, const sim_cluster_t *c, const sim_req_t *r)
{
    (void)st;
    double thr = sim_cluster_args(c)->admit_threshold;
    return sim_admit_prefill_load(c, r) <= thr &&
           sim_admit_decode_load(c, sim_cluster_now(c)) <= thr;
}

const sim_admit_ops_t sim_admit_early = {
    .name = "early",
    .help = "before prefill: max(prefill load, current decode load) within the threshold",
    .init = NULL,
    .free = NULL,
    .at_arrival = early_arrival,
    .after_prefill = sim_admit_always,
};
