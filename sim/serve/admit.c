/* sim/serve/admit.c: the admission registry, and the loads admission policies
 * share: the prefill and decode loads now, and the decode-load forecast
 * the predictive policy takes, computed from the cluster's view only. */
#include "sim/serve/admit.h"

#include <string.h>

#include "sim/serve/view.h"
#include "sim/core/registry.h"

static const sim_admit_ops_t *const admit_registry[] = {
#define SIM_ADMIT(name) &sim_admit_##name,
#include "sim/serve/policy/admit_list.h"
#undef SIM_ADMIT
};

const sim_admit_ops_t *sim_admit_find(const char *name)
{
    return sim_registry_find((const void *const *)admit_registry, SIM_REGISTRY_LEN(admit_registry), name);
}

void sim_admit_names(char *buf, size_t len)
{
    sim_registry_names((const void *const *)admit_registry, SIM_REGISTRY_LEN(admit_registry), buf, len);
}

const sim_admit_ops_t *sim_admit_at(size_t i)
{
    return i < SIM_REGISTRY_LEN(admit_registry) ? admit_registry[i] : NULL;
}

void *sim_admit_params_state(const sim_cluster_t *c, const void *params)
{
    (void)c;
    return (void *)params;
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

double sim_admit_decode_load_now(const sim_cluster_t *c)
{
    /* The load as it is: every batch and every KV on its way. */
    double sum = 0;
    int nd = sim_cluster_n_decode(c);
    for (int j = 0; j < nd; j++)
        sum += sim_cluster_decode_load_now(c, j, NULL);
    return nd ? sum / nd : 0;
}

/* ---- the decode-load forecast ---- */

void sim_admit_forecast_decode(const sim_cluster_t *c, sim_time_t at_ns, sim_time_t t_d_ns,
                               int learned, int oracle, int64_t *n, int64_t *ctx, int64_t *rsv)
{
    int nd = sim_cluster_n_decode(c);
    sim_time_t now = sim_cluster_now(c);
    memset(n, 0, (size_t)nd * sizeof *n);
    memset(ctx, 0, (size_t)nd * sizeof *ctx);
    memset(rsv, 0, (size_t)nd * sizeof *rsv);
    /* Each instance's batch now and its iteration time (one request's
     * when idle). */
    sim_cluster_batch_view_t *b = sim_xmalloc((size_t)nd * sizeof *b + 1, "forecast batches");
    sim_time_t *iter = sim_xmalloc((size_t)nd * sizeof *iter + 1, "forecast iter");
    for (int j = 0; j < nd; j++) {
        b[j] = sim_cluster_decode_batch(c, j);
        iter[j] = b[j].n ? model_cost_decode_ns(sim_cluster_cost(c), b[j].n, b[j].ctx_tok)
                         : model_cost_decode_ns(sim_cluster_cost(c), 1, 0);
    }
    /* When each request still in prefill will reach decode: its instance's
     * running prefill ends, then the queue in order. */
    sim_cluster_stamp_prefill_ends(c);
    for (const sim_req_t *r = sim_cluster_live_next(c, NULL); r; r = sim_cluster_live_next(c, r)) {
        if (r->status != SIM_REQ_ACTIVE || r->decode_inst < 0 || r->output_tok <= 1)
            continue;
        int j = r->decode_inst;
        sim_time_t join, leave;
        int64_t rctx = r->input_tok;
        if (r->decode_join_ns > 0) { /* decoding */
            join = r->decode_join_ns;
            rctx += 1 + (b[j].iter - r->join_iter);
            leave = now + (oracle ? (r->finish_iter - b[j].iter + 1) * iter[j]
                                  : sim_cluster_decode_residual_ns(c, now - join, t_d_ns, learned));
        } else {
            /* in prefill (stamped above), or prefilled and on its way */
            join = r->prefill_done || r->prefill_inst < 0 ? now : SIM_MAX(r->forecast_join_ns, now);
            leave = join + (oracle ? (r->output_tok - 1) * iter[j] : t_d_ns);
        }
        if (join <= at_ns && at_ns < leave) {
            n[j]++;
            ctx[j] += rctx;
            rsv[j] += r->input_tok + r->output_tok;
        }
    }
    sim_free(iter);
    sim_free(b);
}

double sim_admit_forecast_load(const sim_cluster_t *c, sim_time_t at_ns, sim_time_t t_d_ns,
                               int learned, int oracle)
{
    int nd = sim_cluster_n_decode(c);
    if (nd == 0)
        return 0;
    int64_t *n = sim_xcalloc((size_t)nd * 3, sizeof *n, "forecast");
    int64_t *ctx = n + nd, *rsv = n + 2 * nd;
    sim_admit_forecast_decode(c, at_ns, t_d_ns, learned, oracle, n, ctx, rsv);
    double sum = 0;
    for (int j = 0; j < nd; j++)
        sum += sim_cluster_decode_load(c, n[j], ctx[j], rsv[j]);
    sim_free(n);
    return sum / nd;
}
