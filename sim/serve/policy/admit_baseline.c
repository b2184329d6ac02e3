/* sim/serve/policy/admit_baseline.c: the paper's baseline: before prefill,
 * admit on the prefill load alone; when prefill is done, check the decode
 * instance it was given and reject then if it cannot keep the TBT SLO
 * (the prefill work is wasted and counted). */
#include "sim/serve/admit.h"
#include "sim/serve/cluster.h"

typedef struct base_params {
    double threshold;
} base_params_t;

static const sim_param_t base_fields[] = {SIM_ADMIT_THRESHOLD(base_params_t, threshold)};
static const sim_params_t base_params = SIM_PARAMS(base_fields, base_params_t);

static int base_arrival(void *st, const sim_cluster_t *c, const sim_req_t *r)
{
    return sim_admit_prefill_load(c, r) <= ((const base_params_t *)st)->threshold;
}

static int base_after_prefill(void *st, const sim_cluster_t *c, const sim_req_t *r)
{
    return sim_cluster_decode_load_now(c, r->decode_inst, r) <= ((const base_params_t *)st)->threshold;
}

const sim_admit_ops_t sim_admit_baseline = {
    .name = "baseline",
    .help = "prefill load before prefill; the decode instance's TBT only after prefill",
    .params = &base_params,
    .init = sim_admit_params_state,
    .free = NULL,
    .at_arrival = base_arrival,
    .after_prefill = base_after_prefill,
};
