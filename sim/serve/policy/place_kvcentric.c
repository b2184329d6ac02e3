/* sim/serve/policy/place_kvcentric.c: Mooncake's Conductor (Algorithm 1 of the
 * paper). For every prefill instance: its own cached prefix, and, when
 * the best prefix cluster-wide is longer by more than
 * kvcache_balancing_threshold (and the scope is global), the time to fetch
 * the difference from the best holder given the network's state now; TTFT
 * = T_transfer + T_queue + T_prefill; the lowest wins. The decode instance
 * is the least loaded by predicted TBT. A request whose predicted TTFT or
 * TBT misses its SLO is rejected at once (HTTP 429). Once placed, the
 * chosen fetch starts and makes a replica on the chosen node. */
#include "sim/serve/cluster.h"
#include "sim/serve/place.h"

typedef struct kvc_params {
    double kvcache_balancing_threshold;
    int64_t slo_reject;
    int64_t handoff_aware;
} kvc_params_t;

static const sim_param_t kvc_fields[] = {
    SIM_PARAM_N("kvcache_balancing_threshold", kvc_params_t, kvcache_balancing_threshold, 1, 1e9,
                "1.5", "fetch a longer prefix another node holds when best / own exceeds this"),
    SIM_PARAM_I("slo_reject", kvc_params_t, slo_reject, 0, 1, "1",
                "reject at arrival a request predicted to miss its TTFT or TBT SLO"),
    SIM_PARAM_I("handoff_aware", kvc_params_t, handoff_aware, 0, 1, "1",
                "a prefill instance's predicted TTFT counts the part of the KV hand-off to the "
                "decode instance that its prefill does not cover (the network's state now)"),
};
static const sim_params_t kvc_params = SIM_PARAMS(kvc_fields, kvc_params_t);

typedef struct kvc {
    sim_place_scratch_t *s;
    const kvc_params_t *p;
} kvc_t;

static void *kvc_init(const sim_cluster_t *c, const void *params)
{
    kvc_t *k = sim_xmalloc(sizeof *k, "kvcentric");
    k->s = sim_place_scratch_new(c);
    k->p = params;
    return k;
}

static void kvc_free(void *st)
{
    kvc_t *k = st;
    if (k)
        sim_place_scratch_free(k->s);
    sim_free(k);
}

static int kvc_place(void *st, const sim_cluster_t *c, const sim_req_t *r, sim_place_decision_t *out)
{
    const kvc_t *k = st;
    sim_place_scratch_t *s = k->s;
    const sim_cluster_args_t *a = sim_cluster_args(c);
    /* SelectDecodingInstance first, so that each prefill instance's TTFT
     * can count the KV hand-off to it. */
    out->decode = sim_place_decode_least_loaded(c, r);
    int best = sim_place_kv_estimate(c, r, a->cache_global, k->p->kvcache_balancing_threshold,
                                     k->p->handoff_aware ? out->decode : -1, s);
    const sim_place_est_t *e = &s->est[best];
    out->prefill = best;
    out->pred_ttft_ns = e->ttft_ns;
    if (e->fetch_from >= 0) {
        out->fetch_src = sim_cluster_prefill_node(c, e->fetch_from);
        out->fetch_blocks = e->lead_blocks;
    }
    if (k->p->slo_reject &&
        (e->ttft_ns > a->slo_ttft_ns ||
         sim_cluster_decode_pred_load(c, out->decode, r) > 1))
        return SIM_PLACE_REJECT;
    return SIM_PLACE_OK;
}

const sim_place_ops_t sim_place_kvcentric = {
    .name = "kvcentric",
    .help = "Mooncake's Conductor (Algorithm 1): cache, queue and transfer-aware TTFT; "
            "rejects at arrival when an SLO would be missed",
    .params = &kvc_params,
    .init = kvc_init,
    .free = kvc_free,
    .place = kvc_place,
};
