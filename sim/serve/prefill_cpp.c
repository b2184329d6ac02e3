/* sim/serve/prefill_cpp.c: chunked pipeline prefill (CPP) across a prefill
 * group of G nodes: the prompt's uncached tokens flow as chunks through G
 * stages of 1/G of the layers each; a stage computes one chunk at a time,
 * in order, once the chunk's activations have crossed the network from the
 * stage before. The prefill ends when the last chunk leaves the last stage,
 * and never before its planned load from the pool is done. */
#include "sim/serve/prefill_int.h"

/* State of one request's chunked pipeline. */
struct cpp_job {
    sim_req_t *r;
    int inst, stages;
    int64_t k;            /* chunks */
    int64_t *next;        /* per stage: next chunk to compute */
    uint8_t *busy;        /* per stage */
    uint8_t *arrived;     /* [stage * k + chunk]: its input is at the stage */
    sim_time_t *stage_ns; /* per chunk: time on one stage */
    double *act_bytes;    /* per chunk: activations crossing a stage boundary */
    int64_t done;         /* chunks through the last stage */
    sim_time_t min_end_ns;
    sim_event_fn done_fn; /* scheduled at the end (r, inst) */
};

static void cpp_stage_done(void *ctx, void *obj, int64_t arg);

static void cpp_try_start(sim_cluster_t *c, sim_prefill_cpp_t *job, int s)
{
    int64_t j = job->next[s];
    if (job->busy[s] || j >= job->k || !job->arrived[(int64_t)s * job->k + j])
        return;
    job->busy[s] = 1;
    sim_evq_after(c->evq, job->stage_ns[j], cpp_stage_done, job, s);
}

static void cpp_arrive(void *ctx, void *obj, int64_t arg)
{
    sim_prefill_cpp_t *job = obj;
    job->arrived[arg] = 1;
    cpp_try_start(ctx, job, (int)(arg / job->k));
}

void sim_prefill_cpp_free(sim_prefill_cpp_t *job)
{
    if (!job)
        return;
    sim_free(job->next);
    sim_free(job->busy);
    sim_free(job->arrived);
    sim_free(job->stage_ns);
    sim_free(job->act_bytes);
    sim_free(job);
}

static void cpp_stage_done(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    sim_prefill_cpp_t *job = obj;
    int s = (int)arg;
    int64_t j = job->next[s]++;
    job->busy[s] = 0;
    int node = sim_cluster_pool_node(c, job->inst) + s;
    if (s + 1 < job->stages)
        sim_net_start(c->net, node, node + 1, job->act_bytes[j], SIM_LINK_STAGE, 0, cpp_arrive, job,
                      (int64_t)(s + 1) * job->k + j);
    else
        job->done++;
    cpp_try_start(c, job, s);
    if (job->done < job->k)
        return;
    sim_req_t *r = job->r;
    int i = job->inst;
    sim_event_fn done_fn = job->done_fn;
    sim_time_t now = sim_evq_now(c->evq), end = SIM_MAX(now, job->min_end_ns);
    r->cpp = NULL;
    sim_prefill_cpp_free(job);
    sim_evq_at(c->evq, end, done_fn, r, i);
}

static sim_prefill_cpp_t *cpp_new(sim_cluster_t *c, sim_req_t *r, int i,
                                  const sim_prefill_plan_t *pl)
{
    sim_prefill_cpp_t *job = sim_xcalloc(1, sizeof *job, "cpp job");
    int g = c->a.pd.prefill_group;
    int64_t k = pl->n_chunks;
    job->r = r;
    job->inst = i;
    job->stages = g;
    job->k = k;
    job->next = sim_xcalloc((size_t)g, sizeof *job->next, "cpp next");
    job->busy = sim_xcalloc((size_t)g, sizeof *job->busy, "cpp busy");
    job->arrived = sim_xcalloc((size_t)(g * k), sizeof *job->arrived, "cpp arrived");
    job->stage_ns = sim_xcalloc((size_t)k, sizeof *job->stage_ns, "cpp times");
    job->act_bytes = sim_xcalloc((size_t)k, sizeof *job->act_bytes, "cpp activations");
    int64_t p = SIM_MIN(pl->cached_tok, r->input_tok - 1);
    /* One token's hidden state, BF16, crosses each stage boundary. */
    double act_per_tok = 2.0 * c->a.llm->d_model;
    for (int64_t j = 0; j < k; j++) {
        job->stage_ns[j] = sim_prefill_chunk_ns(c, r, p, j, k) / g;
        int64_t start = p + j * c->a.pd.prefill_chunk_tok;
        int64_t end = j == k - 1 ? r->input_tok : start + c->a.pd.prefill_chunk_tok;
        job->act_bytes[j] = act_per_tok * (double)(end - start);
        job->arrived[j] = 1; /* stage 0 has every chunk's tokens */
    }
    job->min_end_ns =
        sim_evq_now(c->evq) + pl->load_ns + (c->pool ? c->a.pool.store_overhead_ns : 0);
    return job;
}

sim_prefill_cpp_t *sim_prefill_cpp_start(sim_cluster_t *c, sim_req_t *r, int i,
                                         const sim_prefill_plan_t *pl, sim_event_fn done)
{
    sim_prefill_cpp_t *job = cpp_new(c, r, i, pl);
    job->done_fn = done;
    cpp_try_start(c, job, 0);
    return job;
}
