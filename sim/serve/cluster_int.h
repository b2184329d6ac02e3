/* sim/serve/cluster_int.h: internal to the cluster (sim/serve/cluster.c)
 * and the systems (sim/serve/pd.c with sim/serve/prefill*.c and
 * sim/serve/decode.c; sim/serve/colocated.c): the cluster's state and the
 * calls between its parts.
 * Node numbering under pd: prefill instance i owns nodes i*G .. i*G+G-1
 * (G = prefill group size; its first node holds its share of the KVCache
 * pool), decode instance j is node P*G + j. A colocated system's instance
 * i is node i. */
#ifndef SIM_CLUSTER_INT_H
#define SIM_CLUSTER_INT_H

#include "sim/serve/batch.h"
#include "sim/serve/cluster.h"
#include "sim/net/net.h"

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
     * span_end (sim/serve/decode.c); their end times are in the ring ahead of
     * b.iter. span_end == b.iter when one iteration (or none) runs. */
    int64_t span_end;
    int64_t span_planned;    /* span_end as the span started (a cut lowers span_end) */
    uint64_t span_seq;       /* sequence number of the span's event */
    sim_event_id_t span_ev;  /* its id */
    int step_mode;           /* 0: not yet read; 1: one event per iteration; 2: spans */
    /* Bit k & (b.ring_cap - 1): iteration k's token interval (its ring
     * entry less the one before) may be shorter than iteration k - 1's;
     * between marks the intervals never fall (sim/serve/decode.c). */
    uint64_t *marks;
    /* The running span's token intervals after its first, cut where
     * they fall or leave a TBT histogram bucket (sim/serve/decode.c). */
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

/* Put instance i into v's candidates, which are in index order
 * (sim/serve/cluster.c). */
void sim_view_insert(sim_prefill_view_t *v, int i, uint32_t lead, sim_time_t wait, double send,
                     double recv);

/* Instance p's queue wait at now: what its running prefill has left by
 * prediction, plus the predictions of its queue. */
static inline sim_time_t sim_prefill_wait_at(const prefill_inst_t *p, sim_time_t now)
{
    sim_time_t rest = p->running ? p->run_end_ns - now : 0;
    return (rest > 0 ? rest : 0) + p->queued_pred_ns;
}

#define SIM_DUR_BUCKETS 96 /* half-octaves of ns: up to 2^48 ns (3 days) */

/* Record one observed decode duration (decode.c at completion). */
void sim_cluster_note_decode(sim_cluster_t *c, sim_time_t dur_ns);

struct sim_cluster {
    sim_cluster_args_t a;
    sim_evq_t *evq;
    sim_metrics_t *m;
    void *system_st, *place_st, *admit_st;
    prefill_inst_t *pf; /* the pd system's instances (NULL under another) */
    decode_inst_t *dc;
    sim_dpick_t *dpick; /* pd only */
    sim_ppick_t *ppick; /* pd with the pool, groups of one; else NULL */
    int n_nodes;
    int64_t kv_cap_tok;
    int64_t kv_bytes_per_tok;
    sim_kvpool_t *pool; /* pd's KVCache pool (NULL: reuse off, or another system) */
    sim_net_t *net;
    trace_t *trace;
    int64_t n_arrived, n_done;
    int trace_failed;   /* the run stopped: a trace error, or the time-series bound */
    sim_err_t trace_err; /* why */
    sim_req_t *live; /* every allocated, unfinished request (incl. the read-ahead) */
    sim_req_t *spare; /* finished requests kept for reuse with their blocks' room,
                       * linked through next: no allocation per request */
    int64_t *scratch; /* TBT intervals of the request being finished; a span's iteration times */
    size_t cap_scratch;
    struct sim_tbt_run *tbt_runs; /* a finishing request's runs of intervals (sim/serve/decode.c) */
    size_t cap_tbt_runs;
    sim_slab_t slab; /* small blocks that live as long as the run: the instances' iteration
                      * rings and marks, the requests and their block ids; freed after
                      * the system */
    sim_net_link_stats_t ts_prev[SIM_N_NET_LINKS]; /* at the last time-series row */
    sim_time_t ts_prev_ns;
    int64_t ts_rows, ts_max_rows; /* time-series rows written by ticks, and the bound */
    int ts_quiet; /* the next row closes an interval in which nothing happened */
    uint32_t *prefix_scratch; /* per node, for sim_cluster_prefix_by_instance */
    uint8_t *view_mark;       /* per node, 0 between calls: sim_cluster_prefill_view's listed nodes */
    struct sim_view_scratch *view; /* sim_cluster_prefill_view's classes */
    /* The compute part of recent prefill plans, by (input, reused)
     * tokens: placement plans one request on every instance, and most of
     * them reuse the same prefix (sim/serve/prefill_plan.c). */
    struct sim_prefill_memo *plan_memo;
    sim_time_t decode_ns_sum;   /* observed decode durations (join to finish) */
    int64_t decode_n;
    /* Their distribution by half-octave of ns, as suffix totals: count and
     * sum of the durations in bucket b or above (entry SIM_DUR_BUCKETS is
     * 0), so the forecast's expected remaining decode time of a running
     * request is O(1). */
    int64_t dur_cnt_ge[SIM_DUR_BUCKETS + 1];
    int64_t dur_sum_ge_ns[SIM_DUR_BUCKETS + 1];
    int64_t hot_replications;
};

static inline int sim_cluster_pool_node(const sim_cluster_t *c, int prefill_inst)
{
    return prefill_inst * c->a.pd.prefill_group;
}

static inline int sim_cluster_decode_node(const sim_cluster_t *c, int decode_inst)
{
    return c->a.pd.n_prefill * c->a.pd.prefill_group + decode_inst;
}

/* cluster.c: a request ends (exactly once). */
void sim_cluster_finish(sim_cluster_t *c, sim_req_t *r, sim_req_status_t st);
/* Admission at arrival, for every system: 1 when r goes on; 0 when it has
 * ended, rejected at arrival (its KV could never fit an instance's VRAM,
 * or the admission policy refused it). */
int sim_cluster_admit(sim_cluster_t *c, sim_req_t *r);
/* Count r's KV as on its way to its decode instance (on = 1, when its
 * prefill starts) or no longer (on = 0: it joined the batch or ended). */
void sim_cluster_inbound(sim_cluster_t *c, sim_req_t *r, int on);

/* sim/serve/prefill_plan.c: the plan memo of a new cluster (freed with sim_free). */
struct sim_prefill_memo *sim_prefill_memo_new(void);
/* sim_cluster_prefill_pred_all's work (sim/serve/prefill_plan.c). */
void sim_prefill_predict_all(const sim_cluster_t *c, const sim_req_t *r, const uint32_t *leads,
                             const uint32_t *lead_min, sim_time_t *out);

/* prefill.c (sim/serve/prefill_plan.c for the prediction) */
/* Queue a placed request (fetch started if it asks for one). */
void sim_prefill_enqueue(sim_cluster_t *c, sim_req_t *r);
/* Predicted prefill time of r on instance i, assuming lead_blocks cached
 * when larger than what the node holds now (a planned fetch). */
sim_time_t sim_prefill_predict_ns(const sim_cluster_t *c, int i, const sim_req_t *r,
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
/* Give instance d's iteration ring and marks back to the cluster's slab. */
void sim_decode_rings_free(sim_cluster_t *c, decode_inst_t *d);

#endif
