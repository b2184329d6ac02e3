/* sim/serve/policy/place_cache_aware.c: the paper's cache-aware baseline: the
 * prefill instance with the lowest queue + prefill time given the prefix
 * its own node caches; never fetches, never rejects. Decode least loaded. */
#include "sim/serve/cluster.h"
#include "sim/serve/place.h"

static void *ca_init(const sim_cluster_t *c, const void *params)
{
    (void)params;
    return sim_place_scratch_new(c);
}

static int ca_place(void *st, const sim_cluster_t *c, const sim_req_t *r, sim_place_decision_t *out)
{
    sim_place_scratch_t *s = st;
    int best = sim_place_kv_estimate(c, r, 0, 0, -1, s);
    out->prefill = best;
    out->decode = sim_place_decode_least_loaded(c, r);
    out->pred_ttft_ns = s->est[best].ttft_ns;
    return SIM_PLACE_OK;
}

const sim_place_ops_t sim_place_cache_aware = {
    .name = "cache_aware",
    .help = "least queue + prefill time given each node's own cached prefix; never fetches",
    .init = ca_init,
    .free = sim_place_scratch_free,
    .place = ca_place,
};
