/* sim/policy/admit_none.c: admit every request; nothing is rejected for
 * load (requests that can never fit a decode instance are still refused
 * by the cluster). */
#include "sim/admit.h"

static int none_admit(void *st, const sim_cluster_t *c, const sim_req_t *r)
{
    (void)st;
    (void)c;
    (void)r;
    return 1;
}

const sim_admit_ops_t sim_admit_none = {
    .name = "none",
    .help = "admit everything",
    .init = NULL,
    .free = NULL,
    .at_arrival = none_admit,
    .after_prefill = none_admit,
};
