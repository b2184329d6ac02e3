/* sim/serve/decode_step.c: the stepped decode model, the reference: each
 * iteration of a decode batch is an event of its own, scheduled when the
 * iteration starts, of the cost model's time for the batch and its context
 * as they are (sim/serve/decode.c does the rest: admission to the batch,
 * the iteration's end, completions). A finishing request's TBT statistics
 * are a selection over every one of its intervals. Selected by
 * debug.decode_step (docs/development.md); sim/serve/decode_span.c runs the
 * same model faster, and the tests compare the two byte for byte. */
#include "sim/serve/pd_int.h"

void sim_decode_step_start(sim_cluster_t *c, decode_inst_t *d, sim_event_fn done)
{
    sim_time_t now = sim_evq_now(c->evq);
    sim_time_t t = now + model_cost_decode_ns(c->a.cost, (int64_t)d->b.n, d->ctx_tok);
    d->running = 1;
    d->iter_start_ns = now;
    d->span_end = d->b.iter;
    d->span_ev = sim_evq_at(c->evq, t, done, d, 0);
}

void sim_decode_step_tbt_stats(sim_cluster_t *c, const decode_inst_t *d, sim_req_t *r, size_t n)
{
    sim_grow((void **)&c->scratch, &c->cap_scratch, n, sizeof *c->scratch, "tbt scratch");
    sim_batch_intervals(&d->b, r->join_iter, r->join_iter + (int64_t)n, r->first_token_ns,
                        c->scratch);
    sim_metrics_tbt_stats(c->scratch, n, &r->tbt_mean_s, &r->tbt_p90_s, &r->tbt_max_s,
                          &r->tbt_top10_s);
}
