/* sim/serve/pd.c: the pd system, Mooncake's prefill/decode disaggregation:
 * cluster.prefill prefill instances of cluster.prefill_group nodes each
 * (their first nodes hold the KVCache pool) and cluster.decode decode
 * instances. An arriving request waits the Conductor's decision time, is
 * admitted by the admission policy and placed by the placement policy, then
 * either prefills on its decode node between iterations (inlining) or
 * queues on its prefill instance (sim/serve/prefill.c), whose KV streams to its
 * decode instance (sim/serve/decode.c). Invariant: a decode instance's assigned
 * counts cover exactly the requests placed there and not ended. */
#include "sim/serve/pd_int.h"

#include <math.h>

static int pd_n_nodes(const sim_cluster_args_t *a, const void *params)
{
    (void)params;
    return a->pd.n_prefill * a->pd.prefill_group + a->pd.n_decode;
}

static void *pd_init(sim_cluster_t *c, const void *params)
{
    (void)params;
    const sim_cluster_args_t *a = &c->a;
    sim_pd_t *pd = sim_xcalloc(1, sizeof *pd, "pd system");
    pd->pf = sim_xcalloc((size_t)a->pd.n_prefill, sizeof *pd->pf, "prefill instances");
    pd->dc = sim_xcalloc((size_t)a->pd.n_decode, sizeof *pd->dc, "decode instances");
    pd->dpick = sim_dpick_new(a->pd.n_decode);
    pd->prefix_scratch = sim_xcalloc((size_t)c->n_nodes, sizeof *pd->prefix_scratch,
                                     "prefix scratch");
    pd->view_mark = sim_xcalloc((size_t)c->n_nodes, sizeof *pd->view_mark, "prefill view marks");
    pd->view = sim_pd_view_new();
    pd->plan_memo = sim_prefill_memo_new();
    if (a->pool.policy) {
        int64_t caps[SIM_N_TIERS] = {a->pool.dram_blocks, a->pool.ssd_blocks};
        c->pool = sim_kvpool_new(c->n_nodes, caps, a->pool.policy, a->pool.policy_params, 0);
        /* Only there does the view read the instances, and only there does
         * a running prefill end at its predicted end (sim/serve/prefill_pick.c).
         * Below SIM_PPICK_MIN_INSTANCES the pass over every instance costs
         * less than keeping the index (callgrind: equal at 32). */
        if (a->pd.prefill_group == 1 && a->pd.n_prefill >= SIM_PPICK_MIN_INSTANCES)
            pd->ppick = sim_ppick_new(a->pd.n_prefill);
    }
    return pd;
}

static void pd_free(sim_cluster_t *c, void *st)
{
    sim_pd_t *pd = st;
    if (!pd)
        return;
    for (int j = 0; j < c->a.pd.n_decode; j++) {
        decode_inst_t *d = &pd->dc[j];
        sim_free(d->b.heap);
        sim_free(d->fresh);
        sim_free(d->runs);
        sim_decode_rings_free(c, d);
    }
    sim_free(pd->pf);
    sim_free(pd->dc);
    sim_dpick_free(pd->dpick);
    sim_ppick_free(pd->ppick);
    sim_free(pd->prefix_scratch);
    sim_free(pd->view_mark);
    sim_pd_view_free(pd->view);
    sim_free(pd->plan_memo);
    sim_free(pd->tbt_runs);
    sim_kvpool_free(c->pool);
    c->pool = NULL;
    sim_free(pd);
}

/* Admission and placement of an arrived request. */
static void pd_dispatch(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    sim_req_t *r = obj;
    (void)arg;
    sim_pd(c)->scanned = NULL;
    if (!sim_cluster_admit(c, r))
        return;
    sim_place_decision_t dec = {.fetch_src = -1};
    if (c->a.place->place(c->place_st, c, r, &dec) != SIM_PLACE_OK) {
        sim_cluster_finish(c, r, SIM_REQ_REJECTED_ARRIVAL);
        return;
    }
    SIM_ASSERT(dec.prefill >= 0 && dec.prefill < c->a.pd.n_prefill);
    SIM_ASSERT(dec.decode >= 0 && dec.decode < c->a.pd.n_decode);
    r->prefill_inst = dec.prefill;
    r->decode_inst = dec.decode;
    /* Fetches need the pool and a global scope. */
    r->fetch_src = c->pool && c->a.cache_global ? dec.fetch_src : -1;
    r->fetch_blocks = dec.fetch_blocks;
    decode_inst_t *d = &sim_pd(c)->dc[dec.decode];
    d->n_assigned++;
    d->tok_assigned += r->input_tok;
    d->rsv_assigned += r->input_tok + r->output_tok;
    sim_dpick_update(c, dec.decode);
    /* Decode-side inlining: a short prompt that needs no chunking and
     * whose prefill, stalling the decode batch once, keeps that stall
     * (prefill plus one iteration) within cluster.inline_stall_s runs on
     * its decode node, with no transfer. The budget is its own, not the
     * reported TBT SLO (which experiments may apply afterwards). */
    if (c->a.pd.inline_prefill && r->fetch_src < 0 &&
        r->input_tok <= c->a.pd.prefill_chunk_tok &&
        model_cost_prefill_ns(c->a.cost, r->input_tok, 0) +
                sim_cluster_decode_pred_iter_ns(c, dec.decode, r) <= c->a.pd.inline_stall_ns) {
        sim_decode_inline(c, r);
        return;
    }
    /* Placement and admission only read the cluster: a scan of r's
     * blocks they made is still the pool's state. */
    sim_prefill_enqueue(c, r, sim_pd(c)->scanned == r);
}

static void pd_arrive(void *st, sim_cluster_t *c, sim_req_t *r)
{
    (void)st;
    /* The Conductor's own decision time (FAST'25 Fig. 14, "Schedule")
     * passes before the request is admitted and placed. */
    if (c->a.pd.schedule_ns > 0)
        sim_evq_after(c->evq, c->a.pd.schedule_ns, pd_dispatch, r, 0);
    else
        pd_dispatch(c, r, 0);
}

/* r ends, or is dropped with an abandoned run: it no longer loads its
 * decode instance, and what its prefill holds is freed. */
static void pd_release(void *st, sim_cluster_t *c, sim_req_t *r)
{
    sim_pd_t *pd = st;
    sim_prefill_release(r);
    if (r->decode_inst < 0)
        return;
    decode_inst_t *d = &pd->dc[r->decode_inst];
    d->n_assigned--;
    d->tok_assigned -= r->input_tok;
    d->rsv_assigned -= r->input_tok + r->output_tok;
    sim_dpick_update(c, r->decode_inst);
    sim_cluster_inbound(c, r, 0);
}

/* One load column per prefill and per decode instance. */
static void pd_ts_cols(const sim_cluster_args_t *a, const void *params, int *n_prefill,
                       int *n_decode)
{
    (void)params;
    *n_prefill = a->pd.n_prefill;
    *n_decode = a->pd.n_decode;
}

/* Prefill loads: queue wait / TTFT SLO; decode loads: as admission sees
 * them now (sim_cluster_decode_load_now). */
static void pd_ts_loads(void *st, sim_cluster_t *c, sim_metrics_ts_t *row, double *pl, double *dl)
{
    sim_pd_t *pd = st;
    row->hot_replications = c->pool ? pd->hot_replications : 0;
    for (int i = 0; i < c->a.pd.n_prefill; i++) {
        sim_time_t w = sim_cluster_prefill_wait_ns(c, i);
        row->prefill_wait_s_max = fmax(row->prefill_wait_s_max, (double)w / 1e9);
        pl[i] = (double)w / (double)c->a.slo_ttft_ns;
    }
    for (int j = 0; j < c->a.pd.n_decode; j++)
        dl[j] = sim_cluster_decode_load_now(c, j, NULL);
}

const sim_system_ops_t sim_system_pd = {
    .name = "pd",
    .help = "Mooncake: prefill/decode disaggregation on cluster.prefill prefill and cluster.decode "
            "decode instances, the KVCache pool, scheduler.policy and admission.policy",
    .params = NULL,
    .disaggregated = 1,
    .n_nodes = pd_n_nodes,
    .init = pd_init,
    .free = pd_free,
    .arrive = pd_arrive,
    .release = pd_release,
    .ts_cols = pd_ts_cols,
    .ts_loads = pd_ts_loads,
};
