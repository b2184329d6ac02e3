/* sim/policy/place_cache_aware.c: the paper's cache-aware baseline: the
 * prefill instance with the lowest queue + prefill time given the prefix
 * its own node caches; never fetches, never rejects. Decode least loaded. */
#include "sim/cluster.h"
#include "sim/place.h"

typedef struct ca {
    uint32_t *leads;
    sim_place_est_t *est;
} ca_t;

static void *ca_init(const sim_cluster_t *c)
{
    ca_t *s = sim_xmalloc(sizeof *s, "cache_aware");
    size_t n = (size_t)sim_cluster_n_prefill(c);
    s->leads = sim_xmalloc(n * sizeof *s->leads, "cache_aware leads");
    s->est = sim_xmalloc(n * sizeof *s->est, "cache_aware estimates");
    return s;
}

static void ca_free(void *st)
{
    ca_t *s = st;
    sim_free(s->leads);
    sim_free(s->est);
    sim_free(s);
}

static int ca_place(void *st, const sim_cluster_t *c, const sim_req_t *r, sim_place_decision_t *out)
{
    ca_t *s = st;
    int best = sim_place_kv_estimate(c, r, 0, 0, s->leads, s->est);
    out->prefill = best;
    out->decode = sim_place_decode_least_loaded(c, r);
    out->pred_ttft_ns = s->est[best].ttft_ns;
    return SIM_PLACE_OK;
}

const sim_place_ops_t sim_place_cache_aware = {
    .name = "cache_aware",
    .help = "least queue + prefill time given each node's own cached prefix; never fetches",
    .init = ca_init,
    .free = ca_free,
    .place = ca_place,
};
