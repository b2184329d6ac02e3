/* traces/gen_datasets.c: generators for the public datasets of the arXiv
 * paper's end-to-end runs, from their published statistics, with Poisson
 * arrivals at trace.generator.rate_rps:
 *   arxiv   ArXiv Summarization: input mean 8,088, output mean 229
 *           (lognormal, cv 0.4 and 0.5), no shared prefixes;
 *   leval   L-Eval: input mean 19,019, output mean 72: long documents
 *           (mean 18,500 tokens, cv 0.3) each asked about 8 questions (mean
 *           519 tokens), so over 80% of input tokens are reusable;
 *   longctx simulated long-context data: prompts of exactly prompt_tok
 *           tokens, 512 output tokens, the first half of every prompt one
 *           shared context (50% cached once warm).
 * Invariant: seeded and deterministic; memory bounded by the open
 * documents, not by the number of requests. */
#include "traces/trace_int.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "sim/core/rng.h"

enum { DS_ARXIV, DS_LEVAL, DS_LONGCTX };

#define LEVAL_DOC_MEAN 18500.0
#define LEVAL_Q_MEAN 519.0
#define LEVAL_QUESTIONS 8   /* mean questions per document */
#define LEVAL_OPEN_DOCS 16  /* documents being asked about at once */

typedef struct ds_doc {
    uint64_t *ids;
    size_t cap;
    int64_t tok;
} ds_doc_t;

typedef struct ds_state {
    int kind;
    trace_gen_params_t p;
    gsl_rng *r_arr, *r_len, *r_sess;
    int64_t n_done;
    sim_time_t t_ns;
    uint64_t next_id;
    uint64_t *ids;
    size_t cap_ids;
    ds_doc_t docs[LEVAL_OPEN_DOCS];
    int n_docs;
} ds_state_t;

static int64_t lognormal_tok(gsl_rng *r, double mean, double cv, int64_t lo, int64_t hi)
{
    double s2 = log1p(cv * cv);
    double x = gsl_ran_lognormal(r, log(mean) - s2 / 2, sqrt(s2));
    int64_t v = (int64_t)llround(x);
    return v < lo ? lo : v > hi ? hi : v;
}

static void ds_close(void *state)
{
    ds_state_t *s = state;
    if (!s)
        return;
    for (int i = 0; i < LEVAL_OPEN_DOCS; i++)
        sim_free(s->docs[i].ids);
    sim_free(s->ids);
    gsl_rng_free(s->r_arr); /* GSL accepts NULL */
    gsl_rng_free(s->r_len);
    gsl_rng_free(s->r_sess);
    sim_free(s);
}

static void *ds_open(int kind, const trace_open_args_t *args, sim_err_t *err)
{
    const trace_gen_params_t *p = args->gen;
    if (p->requests < 1)
        return sim_errf(err, "$.trace.generator.requests: must be >= 1"), NULL;
    if (!(p->rate_rps > 0) || !isfinite(p->rate_rps))
        return sim_errf(err, "$.trace.generator.rate_rps: must be > 0"), NULL;
    if (kind == DS_LONGCTX && (p->prompt_tok < 2 * TRACE_BLOCK_TOK || p->prompt_tok > TRACE_MAX_INPUT_TOK))
        return sim_errf(err, "$.trace.generator.prompt_tok: must be in [1024, %lld]",
                        (long long)TRACE_MAX_INPUT_TOK), NULL;
    ds_state_t *s = sim_xcalloc(1, sizeof *s, "dataset generator");
    s->kind = kind;
    s->p = *p;
    s->r_arr = sim_rng_new(args->seed, SIM_RNG_ARRIVALS);
    s->r_len = sim_rng_new(args->seed, SIM_RNG_LENGTHS);
    s->r_sess = sim_rng_new(args->seed, SIM_RNG_SESSIONS);
    return s;
}

static void fresh_ids(ds_state_t *s, size_t from, size_t to)
{
    for (size_t b = from; b < to; b++)
        s->ids[b] = s->next_id++;
}

static int ds_next(void *state, trace_req_t *out, sim_err_t *err)
{
    ds_state_t *s = state;
    if (s->n_done >= s->p.requests)
        return TRACE_END;
    if (s->n_done > 0) {
        double gap_ns = gsl_ran_exponential(s->r_arr, 1.0 / s->p.rate_rps) * 1e9;
        if ((double)s->t_ns + gap_ns >= TRACE_GEN_MAX_NS)
            return sim_errf(err, "$.trace.generator.rate_rps: request %lld arrives beyond the "
                            "simulated time range", (long long)(s->n_done + 1));
        s->t_ns += (sim_time_t)llround(gap_ns);
    }
    int64_t in = 0, outp = 0;
    size_t nb;
    switch (s->kind) {
    case DS_ARXIV:
        in = lognormal_tok(s->r_len, 8088, 0.4, 16, 131072);
        outp = lognormal_tok(s->r_len, 229, 0.5, 1, 2048);
        nb = (size_t)((in + TRACE_BLOCK_TOK - 1) / TRACE_BLOCK_TOK);
        sim_grow((void **)&s->ids, &s->cap_ids, nb, sizeof *s->ids, "dataset ids");
        fresh_ids(s, 0, nb);
        break;
    case DS_LEVAL: {
        /* A new document with probability 1/8 (or when none is open),
         * else another question about an open one. */
        double u = gsl_rng_uniform(s->r_sess);
        int64_t q = lognormal_tok(s->r_len, LEVAL_Q_MEAN, 0.5, 8, 8192);
        outp = lognormal_tok(s->r_len, 72, 0.5, 1, 1024);
        ds_doc_t *d;
        if (s->n_docs == 0 || u < 1.0 / LEVAL_QUESTIONS) {
            int slot = s->n_docs < LEVAL_OPEN_DOCS
                           ? s->n_docs++
                           : (int)gsl_rng_uniform_int(s->r_sess, LEVAL_OPEN_DOCS);
            d = &s->docs[slot];
            d->tok = lognormal_tok(s->r_len, LEVAL_DOC_MEAN, 0.3, 1024, 120000);
            size_t dn = (size_t)(d->tok / TRACE_BLOCK_TOK);
            sim_grow((void **)&d->ids, &d->cap, dn + 1, sizeof *d->ids, "leval doc");
            for (size_t b = 0; b < dn; b++)
                d->ids[b] = s->next_id++;
        } else {
            d = &s->docs[gsl_rng_uniform_int(s->r_sess, (unsigned long)s->n_docs)];
        }
        in = d->tok + q;
        nb = (size_t)((in + TRACE_BLOCK_TOK - 1) / TRACE_BLOCK_TOK);
        size_t shared = (size_t)(d->tok / TRACE_BLOCK_TOK); /* the document's full blocks */
        sim_grow((void **)&s->ids, &s->cap_ids, nb, sizeof *s->ids, "dataset ids");
        memcpy(s->ids, d->ids, shared * sizeof *s->ids);
        fresh_ids(s, shared, nb);
        break;
    }
    default: { /* DS_LONGCTX */
        in = s->p.prompt_tok;
        outp = 512;
        nb = (size_t)((in + TRACE_BLOCK_TOK - 1) / TRACE_BLOCK_TOK);
        size_t shared = (size_t)(in / 2 / TRACE_BLOCK_TOK);
        sim_grow((void **)&s->ids, &s->cap_ids, nb, sizeof *s->ids, "dataset ids");
        if (s->next_id < shared)
            s->next_id = shared; /* ids 0 .. shared-1: the common half */
        for (size_t b = 0; b < shared; b++)
            s->ids[b] = b;
        fresh_ids(s, shared, nb);
        break;
    }
    }
    s->n_done++;
    out->arrival_ns = s->t_ns;
    out->input_tok = in;
    out->output_tok = outp;
    out->n_blocks = (uint32_t)nb;
    out->blocks = s->ids;
    out->record = s->n_done;
    return TRACE_OK;
}

static void *arxiv_open(const trace_open_args_t *a, sim_err_t *e) { return ds_open(DS_ARXIV, a, e); }
static void *leval_open(const trace_open_args_t *a, sim_err_t *e) { return ds_open(DS_LEVAL, a, e); }
static void *longctx_open(const trace_open_args_t *a, sim_err_t *e)
{
    return ds_open(DS_LONGCTX, a, e);
}

/* The datasets' lengths and sharing are their published statistics; only
 * the count and the Poisson rate are the config's. */
static const char *const ds_reads[] = {"requests", "rate_rps", NULL};

const trace_source_ops_t trace_source_arxiv = {
    .name = "arxiv",
    .help = "ArXiv Summarization: input mean 8,088, output mean 229, no shared prefixes",
    .is_generator = 1,
    .reads = ds_reads,
    .open = arxiv_open,
    .next = ds_next,
    .close = ds_close,
};

const trace_source_ops_t trace_source_leval = {
    .name = "leval",
    .help = "L-Eval: input mean 19,019, output mean 72, documents asked several questions",
    .is_generator = 1,
    .reads = ds_reads,
    .open = leval_open,
    .next = ds_next,
    .close = ds_close,
};

const trace_source_ops_t trace_source_longctx = {
    .name = "longctx",
    .help = "long-context prompts of prompt_tok tokens, 512 output, half of each prompt shared",
    .is_generator = 1,
    .reads = (const char *const[]){"requests", "rate_rps", "prompt_tok", NULL},
    .open = longctx_open,
    .next = ds_next,
    .close = ds_close,
};
