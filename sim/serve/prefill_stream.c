/* sim/serve/prefill_stream.c: the KV stream from a prefill instance to its
 * request's decode node. Every stage node streams its layers' KV while
 * prefill runs, held to the rate at which layers are produced; the last
 * layer leaves only when prefill ends. When the last stream lands the KV
 * is handed to the decode instance (sim_decode_kv_ready); TTFT ends when
 * the request joins its batch there. */
#include "sim/serve/prefill_int.h"

#define NO_FLOW UINT32_MAX

static void maybe_kv_ready(sim_cluster_t *c, sim_req_t *r)
{
    if (r->prefill_done && r->n_streams == 0) {
        /* The KV is handed to the decode instance (FAST'25 Fig. 14 counts
         * the P->D transfer in TTFT). */
        r->transfer_ns = sim_evq_now(c->evq) - r->prefill_start_ns;
        sim_decode_kv_ready(c, r);
    }
}

static void stream_done(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    sim_req_t *r = obj;
    r->streams[arg] = NO_FLOW;
    r->n_streams--;
    maybe_kv_ready(c, r);
}

/* Every stage node streams its layers' KV from the start of prefill, no
 * faster than they are produced (expected_ns); the last layer is held
 * back until prefill ends (sim_prefill_stream_tail). */
void sim_prefill_stream_start(sim_cluster_t *c, sim_req_t *r, int i, sim_time_t expected_ns)
{
    int g = c->a.pd.prefill_group;
    double bytes = (double)(r->input_tok * c->kv_bytes_per_tok);
    double last_layer = bytes / c->a.llm->n_layers;
    int dst = sim_cluster_decode_node(c, r->decode_inst);
    r->streams = g + 1 <= (int)(sizeof r->streams_in / sizeof r->streams_in[0])
                     ? r->streams_in
                     : sim_xmalloc((size_t)(g + 1) * sizeof *r->streams, "request streams");
    for (int s = 0; s <= g; s++)
        r->streams[s] = NO_FLOW;
    for (int s = 0; s < g; s++) {
        double b = bytes / g - (s == g - 1 ? last_layer : 0);
        double cap = expected_ns > 0 ? b / ((double)expected_ns / 1e9) : 0;
        r->streams[s] = sim_net_start(c->net, sim_cluster_pool_node(c, i) + s, dst, b, SIM_LINK_PD,
                                      cap, stream_done, r, s);
        r->n_streams++;
    }
}

void sim_prefill_stream_tail(sim_cluster_t *c, sim_req_t *r, int i)
{
    int g = c->a.pd.prefill_group;
    for (int s = 0; s < g; s++)
        if (r->streams[s] != NO_FLOW)
            sim_net_set_cap(c->net, r->streams[s], 0);
    double last_layer = (double)(r->input_tok * c->kv_bytes_per_tok) / c->a.llm->n_layers;
    r->streams[g] = sim_net_start(c->net, sim_cluster_pool_node(c, i) + g - 1,
                                  sim_cluster_decode_node(c, r->decode_inst), last_layer,
                                  SIM_LINK_PD, 0, stream_done, r, g);
    r->n_streams++;
}

void sim_prefill_stream_cancel(sim_cluster_t *c, sim_req_t *r)
{
    for (int s = 0; r->streams && s <= c->a.pd.prefill_group; s++)
        if (r->streams[s] != NO_FLOW) {
            sim_net_cancel(c->net, r->streams[s]);
            r->streams[s] = NO_FLOW;
        }
    r->n_streams = 0;
}
