/* sim/admit.c: the admission registry. */
#include "sim/admit.h"

#include <string.h>

#include "sim/cluster.h"
#include "sim/registry.h"

static const sim_admit_ops_t *const admit_registry[] = {
    &sim_admit_none,
    &sim_admit_baseline,
    &sim_admit_early,
    &sim_admit_predictive,
};

const sim_admit_ops_t *sim_admit_find(const char *name)
{
    return sim_registry_find((const void *const *)admit_registry, SIM_REGISTRY_LEN(admit_registry), name);
}

void sim_admit_names(char *buf, size_t len)
{
    sim_registry_names((const void *const *)admit_registry, SIM_REGISTRY_LEN(admit_registry), buf, len);
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

double sim_admit_decode_load(const sim_cluster_t *c, sim_time_t at_ns)
{
    const sim_cluster_args_t *a = sim_cluster_args(c);
    sim_time_t t_d = a->admit_t_d_ns ? a->admit_t_d_ns
                                     : sim_cluster_mean_decode_ns(c, a->admit_t_d_init_ns);
    if (at_ns <= sim_cluster_now(c)) {
        /* The load as it is: every batch and every KV on its way. */
        double sum = 0;
        int nd = sim_cluster_n_decode(c);
        for (int j = 0; j < nd; j++)
            sum += sim_cluster_decode_load_now(c, j, NULL);
        return nd ? sum / nd : 0;
    }
    return sim_cluster_forecast_load(c, at_ns, t_d, a->admit_oracle);
}
