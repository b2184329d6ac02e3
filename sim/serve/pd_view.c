/* sim/serve/pd_view.c: the cluster's view (sim/serve/view.h) of the pd
 * system's instances, for placement, admission and forecasts: queue waits,
 * predictions, decode loads and the prefill view with its classes. The
 * names keep the cluster's prefix, as policies see one cluster; the state
 * they read is the pd system's (sim/serve/pd_int.h). Each call is O(1)
 * unless its comment in view.h says otherwise. */
#include "sim/serve/pd_int.h"

#include <string.h>

/* The pass of sim_cluster_prefill_view over every instance: the class of
 * share id s and run common is slot 2 x s + common, at used[at] for the
 * call that last stamped the slot. */
typedef struct view_slot {
    uint64_t stamp;
    uint32_t at;
} view_slot_t;

struct sim_view_scratch {
    view_slot_t *cl;
    size_t cap_cl;
    sim_view_class_t *used; /* this call's classes, in first use */
    size_t cap_used;
    uint64_t stamp;
    /* the pass's view, under debug.view_check (docs/development.md) */
    sim_prefill_view_t ref;
};

struct sim_view_scratch *sim_pd_view_new(void)
{
    return sim_xcalloc(1, sizeof(struct sim_view_scratch), "prefill view");
}

void sim_pd_view_free(struct sim_view_scratch *vs)
{
    if (!vs)
        return;
    sim_free(vs->cl);
    sim_free(vs->used);
    sim_free(vs->ref.inst);
    sim_free(vs->ref.lead);
    sim_free(vs->ref.wait);
    sim_free(vs->ref.send);
    sim_free(vs->ref.recv);
    sim_free(vs->ref.hold);
    sim_free(vs->ref.hold_send);
    sim_free(vs);
}

int sim_cluster_prefill_node(const sim_cluster_t *c, int i) { return sim_cluster_pool_node(c, i); }

sim_time_t sim_cluster_prefill_wait_ns(const sim_cluster_t *c, int i)
{
    return sim_prefill_wait_at(&sim_pd(c)->pf[i], sim_evq_now(c->evq));
}

sim_time_t sim_cluster_prefill_pred_ns(const sim_cluster_t *c, int i, const sim_req_t *r)
{
    return sim_prefill_predict_ns(c, i, r, 0);
}

sim_time_t sim_cluster_prefill_pred_view_ns(const sim_cluster_t *c, int i, const sim_req_t *r,
                                            uint32_t lead_min)
{
    return sim_prefill_predict_scanned_ns(c, i, r, lead_min);
}

void sim_cluster_prefix_by_instance(const sim_cluster_t *c, const sim_req_t *r, uint32_t *out)
{
    if (!c->pool) {
        memset(out, 0, (size_t)c->a.pd.n_prefill * sizeof *out);
        return;
    }
    sim_kvpool_prefix_all(c->pool, r->blocks, r->n_blocks, sim_pd(c)->prefix_scratch);
    sim_pd(c)->scanned = r;
    if (c->a.pd.prefill_group == 1) { /* instance i is node i */
        memcpy(out, sim_pd(c)->prefix_scratch, (size_t)c->a.pd.n_prefill * sizeof *out);
        return;
    }
    for (int i = 0; i < c->a.pd.n_prefill; i++)
        out[i] = sim_pd(c)->prefix_scratch[sim_cluster_pool_node(c, i)];
}

void sim_cluster_prefill_pred_all(const sim_cluster_t *c, const sim_req_t *r, const uint32_t *leads,
                                  const uint32_t *lead_min, sim_time_t *out)
{
    sim_prefill_predict_all(c, r, leads, lead_min, out);
}

sim_time_t sim_cluster_handoff_estimate_ns(const sim_cluster_t *c, int i, int j, const sim_req_t *r)
{
    return sim_net_estimate_ns(c->net, sim_cluster_pool_node(c, i), sim_cluster_decode_node(c, j),
                               (double)(r->input_tok * c->kv_bytes_per_tok));
}

sim_time_t sim_cluster_fetch_estimate_ns(const sim_cluster_t *c, int src, int dst,
                                         const sim_req_t *r, uint32_t have, uint32_t want)
{
    int64_t tok = SIM_MIN((int64_t)want * TRACE_BLOCK_TOK, r->input_tok) -
                  SIM_MIN((int64_t)have * TRACE_BLOCK_TOK, r->input_tok);
    return sim_net_estimate_ns(c->net, sim_cluster_pool_node(c, src), sim_cluster_pool_node(c, dst),
                               (double)(tok * c->kv_bytes_per_tok));
}

void sim_cluster_prefill_state(const sim_cluster_t *c, sim_time_t *wait, double *send, double *recv)
{
    sim_time_t now = sim_evq_now(c->evq);
    const double *out = sim_net_send_shares(c->net), *in = sim_net_recv_shares(c->net);
    for (int i = 0; i < c->a.pd.n_prefill; i++) {
        wait[i] = sim_prefill_wait_at(&sim_pd(c)->pf[i], now);
        int node = sim_cluster_pool_node(c, i);
        send[i] = out[node];
        recv[i] = in[node];
    }
}

/* v's holders of its longest run (top_len): every candidate with it, and
 * the first instance of each class with it (the rest of the class share
 * its send share). */
static void view_holders(const sim_cluster_t *c, sim_prefill_view_t *v, const sim_view_class_t *cls,
                         size_t n_cls, uint32_t common_len, const double *out)
{
    uint32_t top = v->top_len;
    v->n_hold = 0;
    for (int k = 0; top > 0 && k < v->n; k++)
        if (v->lead[k] == top) {
            v->hold[v->n_hold] = v->inst[k];
            v->hold_send[v->n_hold++] = v->send[k];
        }
    for (size_t u = 0; top > 0 && u < n_cls; u++) {
        const sim_view_class_t *g = &cls[u];
        if ((g->common ? common_len : 0) != top || g->first == g->rep)
            continue;
        int k = v->n_hold++;
        for (; k > 0 && v->hold[k - 1] > g->first; k--) {
            v->hold[k] = v->hold[k - 1];
            v->hold_send[k] = v->hold_send[k - 1];
        }
        v->hold[k] = g->first;
        v->hold_send[k] = out[sim_cluster_pool_node(c, g->first)];
    }
}

/* The view by a pass over every instance; its classes in sim_pd(c)->view. */
static size_t view_pass(const sim_cluster_t *c, const sim_kvpool_runs_t *ru, sim_prefill_view_t *v)
{
    for (size_t q = 0; q < ru->n_listed; q++)
        sim_pd(c)->view_mark[ru->listed[q]] = 1;
    const double *out = sim_net_send_shares(c->net), *in = sim_net_recv_shares(c->net);
    size_t n_ids;
    const uint32_t *ids = sim_net_share_ids(c->net, &n_ids);
    struct sim_view_scratch *vs = sim_pd(c)->view;
    size_t cap = vs->cap_cl;
    if (2 * n_ids > cap) { /* new slots zeroed: stamp 0, never a pass's */
        sim_grow((void **)&vs->cl, &vs->cap_cl, 2 * n_ids, sizeof *vs->cl, "prefill view");
        memset(vs->cl + cap, 0, (vs->cap_cl - cap) * sizeof *vs->cl);
    }
    sim_grow((void **)&vs->used, &vs->cap_used, 2 * n_ids, sizeof *vs->used, "prefill view");
    uint64_t stamp = ++vs->stamp;
    size_t n_used = 0;
    sim_time_t now = sim_evq_now(c->evq);
    uint32_t top = 0;
    int any_common = 0; /* a prefill instance of the common set, not listed */
    v->n = 0;
    const uint8_t *mark = sim_pd(c)->view_mark;
    const uint64_t *common = ru->common;
    const prefill_inst_t *pf = sim_pd(c)->pf;
    size_t n = (size_t)c->a.pd.n_prefill, group = (size_t)c->a.pd.prefill_group;
    for (size_t i = 0, node = 0; i < n; i++, node += group) {
        unsigned cls = (unsigned)(common[node / 64] >> (node % 64)) & 1;
        sim_time_t w = sim_prefill_wait_at(&pf[i], now);
        uint32_t id = ids[node];
        if (mark[node] || id == NO_SHARE_ID) {
            uint32_t lead = mark[node] ? sim_kvpool_scan_node(c->pool, (int)node, NULL)
                                       : cls ? ru->common_len : 0;
            top = lead > top ? lead : top;
            sim_view_put(v, v->n++, (int)i, lead, w, out[node], in[node]);
            continue;
        }
        any_common |= (int)cls;
        size_t k = 2 * (size_t)id + cls;
        view_slot_t *sl = &vs->cl[k];
        if (sl->stamp != stamp) {
            *sl = (view_slot_t){.stamp = stamp, .at = (uint32_t)n_used};
            vs->used[n_used++] =
                (sim_view_class_t){.rep = (int)i, .first = (int)i, .common = (int)cls, .rep_wait = w};
        } else if (w < vs->used[sl->at].rep_wait) {
            vs->used[sl->at].rep = (int)i;
            vs->used[sl->at].rep_wait = w;
        }
    }
    for (size_t q = 0; q < ru->n_listed; q++)
        sim_pd(c)->view_mark[ru->listed[q]] = 0;
    if (any_common && ru->common_len > top)
        top = ru->common_len;
    for (size_t u = 0; u < n_used; u++) {
        const sim_view_class_t *g = &vs->used[u];
        int node = sim_cluster_pool_node(c, g->rep);
        sim_view_insert(v, g->rep, g->common ? ru->common_len : 0, g->rep_wait, out[node], in[node]);
    }
    v->top_len = top;
    return n_used;
}

/* The indexed view v against the pass's: every field, or abort. */
static void view_check(const sim_cluster_t *c, const sim_kvpool_runs_t *ru,
                       const sim_prefill_view_t *v)
{
    struct sim_view_scratch *vs = sim_pd(c)->view;
    sim_prefill_view_t *ref = &vs->ref;
    if (!ref->inst) {
        size_t n = (size_t)c->a.pd.n_prefill;
        ref->inst = sim_xmalloc(n * sizeof *ref->inst, "prefill view check");
        ref->lead = sim_xmalloc(n * sizeof *ref->lead, "prefill view check");
        ref->wait = sim_xmalloc(n * sizeof *ref->wait, "prefill view check");
        ref->send = sim_xmalloc(n * sizeof *ref->send, "prefill view check");
        ref->recv = sim_xmalloc(n * sizeof *ref->recv, "prefill view check");
        ref->hold = sim_xmalloc(n * sizeof *ref->hold, "prefill view check");
        ref->hold_send = sim_xmalloc(n * sizeof *ref->hold_send, "prefill view check");
    }
    size_t n_cls = view_pass(c, ru, ref);
    view_holders(c, ref, vs->used, n_cls, ru->common_len, sim_net_send_shares(c->net));
    size_t n = (size_t)v->n, h = (size_t)v->n_hold;
    SIM_ASSERT(ref->n == v->n && ref->top_len == v->top_len && ref->n_hold == v->n_hold);
    SIM_ASSERT(!memcmp(ref->inst, v->inst, n * sizeof *v->inst) &&
               !memcmp(ref->lead, v->lead, n * sizeof *v->lead) &&
               !memcmp(ref->wait, v->wait, n * sizeof *v->wait) &&
               !memcmp(ref->send, v->send, n * sizeof *v->send) &&
               !memcmp(ref->recv, v->recv, n * sizeof *v->recv));
    SIM_ASSERT(!memcmp(ref->hold, v->hold, h * sizeof *v->hold) &&
               !memcmp(ref->hold_send, v->hold_send, h * sizeof *v->hold_send));
}

int sim_cluster_prefill_view(const sim_cluster_t *c, const sim_req_t *r, sim_prefill_view_t *v)
{
    if (!c->pool)
        return -1;
    sim_kvpool_prefix_scan(c->pool, r->blocks, r->n_blocks);
    sim_pd(c)->scanned = r;
    sim_kvpool_runs_t ru;
    sim_kvpool_scan_runs(c->pool, &ru);
    const sim_view_class_t *cls;
    size_t n_cls;
    if (sim_pd(c)->ppick) {
        sim_ppick_view(c, &ru, v, &cls, &n_cls);
    } else {
        n_cls = view_pass(c, &ru, v);
        cls = sim_pd(c)->view->used;
    }
    view_holders(c, v, cls, n_cls, ru.common_len, sim_net_send_shares(c->net));
    /* debug.view_check: the pass checks every indexed view */
    if (sim_pd(c)->ppick && c->a.debug.view_check)
        view_check(c, &ru, v);
    return 0;
}

sim_time_t sim_cluster_decode_pred_iter_ns(const sim_cluster_t *c, int j, const sim_req_t *r)
{
    const decode_inst_t *d = &sim_pd(c)->dc[j];
    return model_cost_decode_ns(c->a.cost, d->n_assigned + 1, d->tok_assigned + r->input_tok);
}

double sim_cluster_decode_pred_load(const sim_cluster_t *c, int j, const sim_req_t *r)
{
    const decode_inst_t *d = &sim_pd(c)->dc[j];
    return sim_cluster_decode_load(c, d->n_assigned + 1, d->tok_assigned + r->input_tok,
                       d->rsv_assigned + r->input_tok + r->output_tok);
}

double sim_cluster_decode_load_now(const sim_cluster_t *c, int j, const sim_req_t *r)
{
    const decode_inst_t *d = &sim_pd(c)->dc[j];
    int64_t n = (int64_t)d->b.n + d->n_inbound, ctx = sim_decode_ctx_now(c, j) + d->ctx_inbound;
    int64_t rsv = d->kv_used_tok + d->rsv_inbound;
    if (r && !r->inbound) {
        n++;
        ctx += r->input_tok;
        rsv += r->input_tok + r->output_tok;
    }
    return sim_cluster_decode_load(c, n, ctx, rsv);
}

sim_time_t sim_cluster_best_ttft_ns(const sim_cluster_t *c, const sim_req_t *r)
{
    sim_time_t best = INT64_MAX;
    for (int i = 0; i < c->a.pd.n_prefill; i++) {
        sim_time_t t = sim_cluster_prefill_wait_ns(c, i) + sim_prefill_predict_ns(c, i, r, 0);
        best = t < best ? t : best;
    }
    return best == INT64_MAX ? 0 : best;
}

sim_cluster_batch_view_t sim_cluster_decode_batch(const sim_cluster_t *c, int j)
{
    const decode_inst_t *d = &sim_pd(c)->dc[j];
    /* As of the running event: a decode span has its iterations ahead in
     * the ring (sim/serve/decode.c). */
    return (sim_cluster_batch_view_t){
        .n = (int64_t)d->b.n, .ctx_tok = sim_decode_ctx_now(c, j), .iter = sim_decode_iter_now(c, j)};
}

void sim_cluster_stamp_prefill_ends(const sim_cluster_t *c)
{
    sim_time_t now = sim_evq_now(c->evq);
    for (int i = 0; i < c->a.pd.n_prefill; i++) {
        const prefill_inst_t *p = &sim_pd(c)->pf[i];
        sim_time_t t = p->running ? p->run_end_ns : now;
        if (p->running)
            p->running->forecast_join_ns = t;
        for (sim_req_t *q = p->head; q; q = q->next) {
            t += q->pred_prefill_ns;
            q->forecast_join_ns = t;
        }
    }
}
