/* sim/serve/pd_int.h: internal to the pd system (sim/serve/pd.c,
 * sim/serve/pd_view.c, sim/serve/prefill*.c, sim/serve/decode*.c): its
 * state, owned by the system (the cluster's system_st, built by pd_init),
 * and the calls between its files. They call one another and the
 * cluster's public API (sim/serve/cluster.h, sim/serve/cluster_int.h); the
 * cluster calls them only through sim_system_pd's ops.
 * Node numbering: prefill instance i owns nodes i*G .. i*G+G-1 (G =
 * prefill group size; its first node holds its share of the KVCache
 * pool), decode instance j is node P*G + j. */
#ifndef SIM_PD_INT_H
#define SIM_PD_INT_H

#include "sim/serve/cluster_int.h"

typedef struct prefill_inst {
    sim_req_t *head, *tail; /* FIFO of placed requests */
    sim_req_t *running;
    sim_time_t run_end_ns;     /* predicted end of the running prefill */
    sim_time_t queued_pred_ns; /* sum of predictions of the queue */
} prefill_inst_t;

typedef struct decode_inst {
    sim_batch_t b;     /* the running batch */
    sim_req_t *wait_head, *wait_tail; /* KV in VRAM, not yet admitted */
    sim_req_t **fresh; /* joined before the running iteration */
    size_t n_fresh, cap_fresh;
    int64_t kv_used_tok; /* reserved: input + output of each batch member */
    int64_t ctx_tok;     /* current context tokens of the batch */
    int running;
    sim_time_t iter_start_ns; /* start of iteration b.iter */
    /* Iterations b.iter .. span_end run as one event at the end of
     * span_end (sim/serve/decode_span.c); their end times are in the ring ahead of
     * b.iter. span_end == b.iter when one iteration (or none) runs. */
    int64_t span_end;
    int64_t span_planned;    /* the last iteration whose end time is worked out */
    /* The span's last iteration unless cut; span_end is behind it while
     * the span works its end times out ahead a piece at a time. */
    int64_t span_target;
    sim_time_t span_prev_iv;    /* the interval of iteration span_planned */
    uint64_t span_bucket_end;   /* the end of the last run's TBT bucket */
    uint64_t span_seq;       /* sequence number of the span's event */
    sim_event_id_t span_ev;  /* its id */
    /* Bit k & (b.ring_cap - 1): iteration k's token interval (its ring
     * entry less the one before) may be shorter than iteration k - 1's;
     * between marks the intervals never fall (sim/serve/decode_span.c). */
    uint64_t *marks;
    /* The running span's token intervals after its first, cut where
     * they fall or leave a TBT histogram bucket (sim/serve/decode_span.c). */
    struct sim_span_run *runs;
    size_t n_runs, cap_runs;
    int64_t n_assigned; /* requests placed here and not finished */
    int64_t tok_assigned; /* their input tokens */
    int64_t rsv_assigned; /* their input + output tokens (VRAM they will reserve) */
    /* KV on its way: requests whose prefill has started (here or on a
     * prefill node) and that have not joined the batch yet. */
    int64_t n_inbound, ctx_inbound, rsv_inbound;
    sim_req_t *inline_head, *inline_tail; /* short prefills to run here */
    int64_t stall_n;     /* inlined prefills run while the batch waited */
    sim_time_t stall_ns; /* and their time */
    /* The node's host-to-device path (PCIe) is taken, in the order KV
     * becomes ready, until this time (sim_decode_kv_ready). */
    sim_time_t h2d_free_ns;
} decode_inst_t;

/* sim/serve/decode_pick.c: busy decode instances by the least load they could
 * have (sim_cluster_decode_least_loaded searches it). */
typedef struct sim_dpick sim_dpick_t;
sim_dpick_t *sim_dpick_new(int n_decode);
void sim_dpick_free(sim_dpick_t *p); /* accepts NULL */
/* Decode instance j's assigned counts changed. */
void sim_dpick_update(sim_cluster_t *c, int j);
/* 1 once a load fell below its bound and every search became a scan. */
int sim_dpick_fell_back(const sim_cluster_t *c);

/* A class of prefill instances in sim_cluster_prefill_view: alike in
 * their run of the request (common: the common run, else none) and their
 * network share pair; rep has the least wait (ties: lowest index), first
 * the lowest index. */
typedef struct sim_view_class {
    int rep, first;
    int common;
    sim_time_t rep_wait;
} sim_view_class_t;

/* sim/serve/prefill_pick.c: the prefill instances by share pair and wait, so
 * that the view finds each class's members without a pass over every
 * instance. Kept under pd with the pool on and groups of one. */
typedef struct sim_ppick sim_ppick_t;
#define SIM_PPICK_MIN_INSTANCES 32
sim_ppick_t *sim_ppick_new(int n_prefill);
void sim_ppick_free(sim_ppick_t *p); /* accepts NULL */
/* Prefill instance i's queue or running prefill changed (sim/serve/prefill.c). */
void sim_ppick_touch(sim_cluster_t *c, int i);
/* The view's candidates (v->n, inst, lead, wait, send, recv; v->top_len)
 * from the pool's scan ru, and its classes (*cls, *n_cls; valid until
 * the next call). */
void sim_ppick_view(const sim_cluster_t *c, const sim_kvpool_runs_t *ru, sim_prefill_view_t *v,
                    const sim_view_class_t **cls, size_t *n_cls);

/* Candidate k of v (sim_cluster_prefill_view): instance i with its run,
 * wait and shares. */
static inline void sim_view_put(sim_prefill_view_t *v, int k, int i, uint32_t lead,
                                sim_time_t wait, double send, double recv)
{
    v->inst[k] = i;
    v->lead[k] = lead;
    v->wait[k] = wait;
    v->send[k] = send;
    v->recv[k] = recv;
}

/* Put instance i into v's candidates, which are in index order. */
static inline void sim_view_insert(sim_prefill_view_t *v, int i, uint32_t lead,
                                   sim_time_t wait, double send, double recv)
{
    int k = v->n++;
    for (; k > 0 && v->inst[k - 1] > i; k--)
        sim_view_put(v, k, v->inst[k - 1], v->lead[k - 1], v->wait[k - 1], v->send[k - 1],
                     v->recv[k - 1]);
    sim_view_put(v, k, i, lead, wait, send, recv);
}

/* Instance p's queue wait at now: what its running prefill has left by
 * prediction, plus the predictions of its queue. */
static inline sim_time_t sim_prefill_wait_at(const prefill_inst_t *p, sim_time_t now)
{
    sim_time_t rest = p->running ? p->run_end_ns - now : 0;
    return (rest > 0 ? rest : 0) + p->queued_pred_ns;
}

/* The pd system's per-run state (pd_init's, freed by pd_free). */
typedef struct sim_pd {
    prefill_inst_t *pf;
    decode_inst_t *dc;
    sim_dpick_t *dpick;
    sim_ppick_t *ppick; /* with the pool, groups of one; else NULL */
    uint32_t *prefix_scratch; /* per node, for sim_cluster_prefix_by_instance */
    uint8_t *view_mark;       /* per node, 0 between calls: sim_cluster_prefill_view's listed nodes */
    struct sim_view_scratch *view; /* sim_cluster_prefill_view's classes (sim/serve/pd_view.c) */
    /* The compute part of recent prefill plans, by (input, reused)
     * tokens: placement plans one request on every instance, and most of
     * them reuse the same prefix (sim/serve/prefill_plan.c). */
    struct sim_prefill_memo *plan_memo;
    struct sim_tbt_run *tbt_runs; /* a finishing request's runs of intervals (decode_span.c) */
    size_t cap_tbt_runs;
    int64_t hot_replications;
    /* The request whose blocks the pool's last scan from here walked
     * (sim_kvpool_prefix_scan, sim_kvpool_prefix_all); pd_dispatch clears
     * it first, so there it names a scan of the pool as it is. */
    const sim_req_t *scanned;
} sim_pd_t;

/* The pd state of a cluster that runs the pd system. */
static inline sim_pd_t *sim_pd(const sim_cluster_t *c) { return (sim_pd_t *)c->system_st; }

static inline int sim_cluster_pool_node(const sim_cluster_t *c, int prefill_inst)
{
    return prefill_inst * c->a.pd.prefill_group;
}

static inline int sim_cluster_decode_node(const sim_cluster_t *c, int decode_inst)
{
    return c->a.pd.n_prefill * c->a.pd.prefill_group + decode_inst;
}

/* sim/serve/pd_view.c: the view scratch of a new pd system, and its free
 * (accepts NULL). */
struct sim_view_scratch *sim_pd_view_new(void);
void sim_pd_view_free(struct sim_view_scratch *vs);

/* sim/serve/decode.c: count r's KV as on its way to its decode instance
 * (on = 1, when its prefill starts) or no longer (on = 0: it joined the
 * batch or ended). */
void sim_cluster_inbound(sim_cluster_t *c, sim_req_t *r, int on);

/* sim/serve/prefill_plan.c: the plan memo of a new pd system (freed with sim_free). */
struct sim_prefill_memo *sim_prefill_memo_new(void);
/* sim_cluster_prefill_pred_all's work (sim/serve/prefill_plan.c). */
void sim_prefill_predict_all(const sim_cluster_t *c, const sim_req_t *r, const uint32_t *leads,
                             const uint32_t *lead_min, sim_time_t *out);

/* prefill.c (sim/serve/prefill_plan.c for the prediction) */
/* Queue a placed request (fetch started if it asks for one). scanned: the
 * pool's last scan (sim_kvpool_prefix_scan) walked r's blocks and nothing
 * in the pool changed since, so its runs are read from it. */
void sim_prefill_enqueue(sim_cluster_t *c, sim_req_t *r, int scanned);
/* Predicted prefill time of r on instance i, assuming lead_blocks cached
 * when larger than what the node holds now (a planned fetch). */
sim_time_t sim_prefill_predict_ns(const sim_cluster_t *c, int i, const sim_req_t *r,
                                  uint32_t lead_blocks);
/* The same right after the pool's scan of r's blocks
 * (sim_kvpool_prefix_scan, as sim_cluster_prefill_view makes it), nothing
 * in the pool changed since: the node's run from the scan, O(1). */
sim_time_t sim_prefill_predict_scanned_ns(const sim_cluster_t *c, int i, const sim_req_t *r,
                                          uint32_t lead_blocks);
/* Free what a request still holds in prefill (an abandoned run). */
void sim_prefill_release(sim_req_t *r);

/* decode.c */
/* Iterations completed by decode instance j and its batch's context
 * tokens as of the running event (iterations inside a span included). */
int64_t sim_decode_iter_now(const sim_cluster_t *c, int j);
int64_t sim_decode_ctx_now(const sim_cluster_t *c, int j);
/* Run r's prefill on decode instance j between iterations (inlining). */
void sim_decode_inline(sim_cluster_t *c, sim_req_t *r);
/* All of r's KV is in the decode node's DRAM: load it into VRAM, then
 * queue it for a batch. */
void sim_decode_kv_ready(sim_cluster_t *c, sim_req_t *r);

/* decode_step.c (the reference) and decode_span.c (its accelerator):
 * start iteration b.iter of d's batch now, with done (decode.c's end of
 * iteration) scheduled at its end (the span's last iteration's end), and
 * the TBT statistics of r, finishing with n token intervals. */
void sim_decode_step_start(sim_cluster_t *c, decode_inst_t *d, sim_event_fn done);
void sim_decode_step_tbt_stats(sim_cluster_t *c, const decode_inst_t *d, sim_req_t *r, size_t n);
void sim_decode_span_start(sim_cluster_t *c, decode_inst_t *d, sim_event_fn done);
void sim_decode_span_tbt_stats(sim_cluster_t *c, const decode_inst_t *d, sim_req_t *r, size_t n);
/* decode_span.c */
/* The first iteration of the running span whose end comes after the
 * running event (b.iter when no span runs). O(log span). */
int64_t sim_decode_span_next(const sim_cluster_t *c, const decode_inst_t *d);
/* Something joins at the next boundary: end the span there (done as for
 * sim_decode_span_start). */
void sim_decode_span_cut(sim_cluster_t *c, decode_inst_t *d, sim_event_fn done);
/* The token intervals of iterations lo..k (the span's after its first,
 * run up to k, which ended now) into the TBT histogram, each for every
 * member. */
void sim_decode_span_tbt(sim_cluster_t *c, const decode_inst_t *d, int64_t lo, int64_t k,
                         sim_time_t now);
/* The ring holds need iterations; its marks follow it. */
void sim_decode_ring_reserve(sim_cluster_t *c, decode_inst_t *d, size_t need);
/* Give instance d's iteration ring and marks back to the cluster's slab. */
void sim_decode_rings_free(sim_cluster_t *c, decode_inst_t *d);

#endif
