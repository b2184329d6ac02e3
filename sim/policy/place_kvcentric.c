/* sim/policy/place_kvcentric.c: Mooncake's Conductor (Algorithm 1 of the
 * paper). For every prefill instance: its own cached prefix, and, when
 * the best prefix cluster-wide is longer by more than
 * kvcache_balancing_threshold (and the scope is global), the time to fetch
 * the difference from the best holder given the network's state now; TTFT
 * = T_transfer + T_queue + T_prefill; the lowest wins. The decode instance
 * is the least loaded by predicted TBT. A request whose predicted TTFT or
 * TBT misses its SLO is rejected at once (HTTP 429). Once placed, the
 * chosen fetch starts and makes a replica on the chosen node. */
#include "sim/cluster.h"
#include "sim/place.h"

static void *kvc_init(const sim_cluster_t *c) { return sim_place_scratch_new(c); }

static int kvc_place(void *st, const sim_cluster_t *c, const sim_req_t *r, sim_place_decision_t *out)
{
    sim_place_scratch_t *s = st;
    const sim_cluster_args_t *a = sim_cluster_args(c);
    /* SelectDecodingInstance first, so that each prefill instance's TTFT
     * can count the KV hand-off to it. */
    out->decode = sim_place_decode_least_loaded(c, r);
    int best = sim_place_kv_estimate(c, r, a->cache_global, a->kvcache_threshold,
                                     a->handoff_aware ? out->decode : -1, s->leads, s->est);
    const sim_place_est_t *e = &s->est[best];
    out->prefill = best;
    out->pred_ttft_ns = e->ttft_ns;
    if (e->fetch_from >= 0) {
        out->fetch_src = sim_cluster_prefill_node(c, e->fetch_from);
        out->fetch_blocks = e->lead_blocks;
    }
    if (a->slo_reject &&
        (e->ttft_ns > a->slo_ttft_ns ||
         sim_cluster_decode_pred_load(c, out->decode, r) > 1))
        return SIM_PLACE_REJECT;
    return SIM_PLACE_OK;
}

const sim_place_ops_t sim_place_kvcentric = {
    .name = "kvcentric",
    .help = "Mooncake's Conductor (Algorithm 1): cache, queue and transfer-aware TTFT; "
            "rejects at arrival when an SLO would be missed",
    .init = kvc_init,
    .free = sim_place_scratch_free,
    .place = kvc_place,
};
