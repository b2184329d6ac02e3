/* traces/gen_agentic.c: the "agentic" generator, seeded agent sessions in
 * the shape of agentic Mooncake rows: sessions start with Poisson arrivals
 * at rate_rps; each turn waits for the previous turn of its session to
 * finish plus a tool wait (exponential, mean turn_gap_s) and extends its
 * prompt (the previous prompt, its output and new input), so the leading
 * block ids repeat; a session goes on with probability p_continue while
 * its context stays within max_context_tok. A session's turns follow its
 * first one in record order. Invariant: seeded and deterministic; memory
 * is one session's ids, never grows with `requests`. */
#include "traces/trace_int.h"

#include <math.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "sim/core/rng.h"

/* Ids of fresh blocks start here, past the shared system prompt's. */
#define AG_FIRST_FRESH_ID (UINT64_C(1) << 32)

typedef struct ag_state {
    trace_gen_params_t p;
    gsl_rng *r_arr, *r_len, *r_sess;
    int64_t n_done;
    sim_time_t t_ns;          /* the current session's first turn */
    uint64_t next_id;
    uint64_t *ids;            /* the current session's prompt blocks */
    size_t cap_ids;
    int64_t prompt_tok;       /* its last prompt */
    int64_t output_tok;       /* its last output */
    int64_t session;          /* 1-based, 0 before the first */
    int64_t dep;              /* the key the current turn waits on (out->deps) */
} ag_state_t;

static const char *const ag_reads[] = {"requests", "rate_rps", "input.mean", "output.mean",
                                       "system_prompt_tok", "p_continue", "turn_gap_s",
                                       "max_context_tok", NULL};

static void ag_close(void *state)
{
    ag_state_t *s = state;
    if (!s)
        return;
    sim_free(s->ids);
    gsl_rng_free(s->r_arr);
    gsl_rng_free(s->r_len);
    gsl_rng_free(s->r_sess);
    sim_free(s);
}

static void *ag_open(const trace_open_args_t *args, sim_err_t *err)
{
    const trace_gen_params_t *p = args->gen;
    if (p->requests < 1)
        return sim_errf(err, "$.trace.generator.requests: must be >= 1"), NULL;
    if (!(p->rate_rps > 0) || !isfinite(p->rate_rps))
        return sim_errf(err, "$.trace.generator.rate_rps: must be > 0"), NULL;
    if (p->system_prompt_tok + 1 >= p->max_context_tok)
        return sim_errf(err, "$.trace.generator.max_context_tok: must exceed system_prompt_tok "
                        "+ 1 (got %lld)", (long long)p->max_context_tok), NULL;
    ag_state_t *s = sim_xcalloc(1, sizeof *s, "agentic generator");
    s->p = *p;
    s->r_arr = sim_rng_new(args->seed, SIM_RNG_ARRIVALS);
    s->r_len = sim_rng_new(args->seed, SIM_RNG_LENGTHS);
    s->r_sess = sim_rng_new(args->seed, SIM_RNG_SESSIONS);
    s->next_id = AG_FIRST_FRESH_ID;
    return s;
}

/* An exponential length of the given mean, in [1, hi]. */
static int64_t exp_tok(gsl_rng *r, double mean, int64_t hi)
{
    int64_t v = (int64_t)llround(gsl_ran_exponential(r, mean));
    return v < 1 ? 1 : v > hi ? hi : v;
}

static int ag_next(void *state, trace_req_t *out, sim_err_t *err)
{
    ag_state_t *s = state;
    if (s->n_done >= s->p.requests)
        return TRACE_END;
    int64_t in_new = exp_tok(s->r_len, s->p.input.mean, TRACE_MAX_INPUT_TOK);
    int64_t outp = exp_tok(s->r_len, s->p.output.mean, TRACE_MAX_OUTPUT_TOK);
    int64_t ctx = s->prompt_tok + s->output_tok + in_new;
    int turn = s->session > 0 && gsl_rng_uniform(s->r_sess) < s->p.p_continue &&
               ctx + outp <= s->p.max_context_tok && ctx <= TRACE_MAX_INPUT_TOK;
    size_t keep; /* leading blocks whose tokens the previous turn holds */
    if (turn) {
        keep = (size_t)((s->prompt_tok + s->output_tok) / TRACE_BLOCK_TOK);
        out->wait_ns = (sim_time_t)llround(gsl_ran_exponential(s->r_sess, s->p.turn_gap_s) * 1e9);
    } else {
        if (s->session > 0) {
            double gap_ns = gsl_ran_exponential(s->r_arr, 1.0 / s->p.rate_rps) * 1e9;
            if ((double)s->t_ns + gap_ns >= TRACE_GEN_MAX_NS)
                return sim_errf(err, "$.trace.generator.rate_rps: request %lld arrives beyond "
                                "the simulated time range", (long long)(s->n_done + 1));
            s->t_ns += (sim_time_t)llround(gap_ns);
        }
        s->session++;
        ctx = SIM_MIN(s->p.system_prompt_tok + in_new, SIM_MIN(s->p.max_context_tok - 1,
                                                                 TRACE_MAX_INPUT_TOK));
        keep = (size_t)(SIM_MIN(s->p.system_prompt_tok, ctx) / TRACE_BLOCK_TOK);
        out->wait_ns = 0;
    }
    size_t nb = (size_t)((ctx + TRACE_BLOCK_TOK - 1) / TRACE_BLOCK_TOK);
    sim_grow((void **)&s->ids, &s->cap_ids, nb + 1, sizeof *s->ids, "agentic ids");
    if (!turn)
        for (size_t b = 0; b < keep; b++) /* the shared system prompt */
            s->ids[b] = b + 1;
    for (size_t b = keep; b < nb; b++)
        s->ids[b] = s->next_id++;
    s->prompt_tok = ctx;
    s->output_tok = outp;
    s->n_done++;
    out->arrival_ns = s->t_ns;
    out->input_tok = ctx;
    out->output_tok = outp;
    out->n_blocks = (uint32_t)nb;
    out->blocks = s->ids;
    out->record = s->n_done;
    out->key = s->n_done;
    out->session = s->session;
    s->dep = s->n_done - 1; /* the session's previous turn */
    out->n_deps = turn ? 1 : 0;
    out->deps = turn ? &s->dep : NULL;
    return TRACE_OK;
}

const trace_source_ops_t trace_source_agentic = {
    .name = "agentic",
    .help = "agent sessions: each turn waits for the previous one plus a tool wait",
    .is_generator = 1,
    .reads = ag_reads,
    .open = ag_open,
    .next = ag_next,
    .close = ag_close,
};
