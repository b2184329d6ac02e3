/* sim/serve/policy/admit_early.c: early rejection: before prefill, admit only
 * if the greater of the prefill load and the current decode load is within
 * the threshold. Deciding on today's decode load for a request that will
 * reach decode later is what makes the two loads swing in anti-phase. */
#include "sim/serve/admit.h"
#include "sim/serve/cluster.h"

typedef struct early_params {
    double threshold;
} early_params_t;

static const sim_param_t early_fields[] = {SIM_ADMIT_THRESHOLD(early_params_t, threshold)};
static const sim_params_t early_params = SIM_PARAMS(early_fields, early_params_t);

static int early_arrival(void *st, const sim_cluster_t *c, const sim_req_t *r)
{
    double thr = ((const early_params_t *)st)->threshold;
    return sim_admit_prefill_load(c, r) <= thr && sim_admit_decode_load_now(c) <= thr;
}

const sim_admit_ops_t sim_admit_early = {
    .name = "early",
    .help = "before prefill: max(prefill load, current decode load) within the threshold",
    .params = &early_params,
    .init = sim_admit_params_state,
    .free = NULL,
    .at_arrival = early_arrival,
    .after_prefill = sim_admit_always,
};
