/* sim/serve/policy/place_random.c: the paper's random baseline: a prefill
 * instance drawn uniformly (its own seeded stream); decode least loaded. */
#include <gsl/gsl_rng.h>

#include "sim/serve/cluster.h"
#include "sim/serve/place.h"
#include "sim/core/rng.h"

static void *random_init(const sim_cluster_t *c, const void *params)
{
    (void)params;
    return sim_rng_new(sim_cluster_args(c)->seed, SIM_RNG_PLACEMENT);
}

static void random_free(void *st) { gsl_rng_free(st); }

static int random_place(void *st, const sim_cluster_t *c, const sim_req_t *r,
                        sim_place_decision_t *out)
{
    int p = (int)gsl_rng_uniform_int(st, (unsigned long)sim_cluster_n_prefill(c));
    sim_place_on(c, r, p, out);
    return SIM_PLACE_OK;
}

const sim_place_ops_t sim_place_random = {
    .name = "random",
    .help = "a prefill instance drawn uniformly at random; decode least loaded",
    .init = random_init,
    .free = random_free,
    .place = random_place,
};
