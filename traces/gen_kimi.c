/* traces/gen_kimi.c: the "kimi" generator, seeded synthetic chat traffic:
 * multi-turn sessions whose turns extend the previous prompt, so block ids
 * really repeat. Invariant: same parameters + seed give the same sequence
 * (one GSL stream each for arrivals, lengths, sessions); memory is bounded
 * by max_sessions (each open session keeps its ids), never by `requests`. */
#include "traces/lines.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "sim/rng.h"

enum { DIST_CONSTANT, DIST_UNIFORM, DIST_EXPONENTIAL, DIST_LOGNORMAL };
static const char *const dist_names[] = {"constant", "uniform", "exponential", "lognormal"};
#define DIST_VALID "constant, uniform, exponential, lognormal"

enum { ARR_POISSON, ARR_GAMMA, ARR_BURST, ARR_PERIODIC };
static const char *const arrival_names[] = {"poisson", "gamma", "burst", "periodic"};
#define ARR_VALID "poisson, gamma, burst, periodic"

/* Open sessions are picked with gsl_rng_uniform_int (32-bit range). */
#define KIMI_MAX_SESSIONS (1 << 24)

typedef struct kimi_len {
    trace_len_dist_t d;
    int kind;
    double mu, sigma; /* lognormal */
} kimi_len_t;

/* An open session: the ids of its last turn's prompt. Slots past the open
 * ones keep their buffers for reuse. */
typedef struct kimi_session {
    uint64_t *ids;
    size_t ids_cap;
    int64_t input_tok;  /* last turn's prompt */
    int64_t output_tok; /* last turn's output */
    sim_time_t last_ns; /* last turn's arrival */
} kimi_session_t;

typedef struct kimi_state {
    trace_gen_params_t p;
    int arrival;
    kimi_len_t in, out;
    gsl_rng *r_arr, *r_len, *r_sess;
    int64_t n_done;
    sim_time_t t_ns;
    int64_t burst_left;
    /* Open sessions, oldest first: ring[(head + i) % cap], i < n_open. */
    kimi_session_t *ring;
    size_t cap, head, n_open;
    uint64_t sys_blocks; /* full system-prompt blocks: ids 0..sys_blocks-1 */
    uint64_t next_id;
} kimi_state_t;

static int find_name(const char *name, size_t size, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strncmp(name, names[i], size) == 0)
            return i;
    return -1;
}

/* Validate a length distribution at $.trace.generator.<what>; 0 or -1. */
static int len_init(kimi_len_t *l, const trace_len_dist_t *d, const char *what, int64_t max_ok,
                    sim_err_t *err)
{
    l->d = *d;
    l->kind = find_name(d->dist, sizeof d->dist, dist_names, 4);
    if (l->kind < 0)
        return sim_errf(err, "$.trace.generator.%s.dist: unknown distribution '%.*s' (valid: %s)",
                        what, (int)sizeof d->dist, d->dist, DIST_VALID);
    if (!(d->mean > 0) || !isfinite(d->mean))
        return sim_errf(err, "$.trace.generator.%s.mean: must be > 0 (got %g)", what, d->mean);
    if (!(d->cv >= 0) || !isfinite(d->cv))
        return sim_errf(err, "$.trace.generator.%s.cv: must be >= 0 (got %g)", what, d->cv);
    if (d->min < 1)
        return sim_errf(err, "$.trace.generator.%s.min: must be >= 1 (got %lld)", what,
                        (long long)d->min);
    if (d->max < d->min)
        return sim_errf(err, "$.trace.generator.%s.max: must be >= min %lld (got %lld)", what,
                        (long long)d->min, (long long)d->max);
    if (d->max > max_ok)
        return sim_errf(err, "$.trace.generator.%s.max: must be <= %lld (got %lld)", what,
                        (long long)max_ok, (long long)d->max);
    double s2 = log1p(d->cv * d->cv);
    l->sigma = sqrt(s2);
    l->mu = log(d->mean) - s2 / 2;
    return 0;
}

/* One length in tokens, rounded and clamped to [min, max]. */
static int64_t len_sample(const kimi_len_t *l, gsl_rng *r)
{
    double x = l->d.mean;
    switch (l->kind) {
    case DIST_UNIFORM:
        x = gsl_ran_flat(r, l->d.mean * (1 - l->d.cv), l->d.mean * (1 + l->d.cv));
        break;
    case DIST_EXPONENTIAL:
        x = gsl_ran_exponential(r, l->d.mean);
        break;
    case DIST_LOGNORMAL:
        x = gsl_ran_lognormal(r, l->mu, l->sigma);
        break;
    default:
        break;
    }
    /* Clamp before rounding so a huge draw cannot overflow llround. */
    if (!(x >= (double)l->d.min))
        return l->d.min;
    if (x >= (double)l->d.max)
        return l->d.max;
    int64_t v = (int64_t)llround(x);
    return SIM_MIN(SIM_MAX(v, l->d.min), l->d.max);
}

static int validate(kimi_state_t *s, sim_err_t *err)
{
    const trace_gen_params_t *p = &s->p;
    if (p->requests < 1)
        return sim_errf(err, "$.trace.generator.requests: must be >= 1 (got %lld)",
                        (long long)p->requests);
    if (!(p->rate_rps > 0) || !isfinite(p->rate_rps))
        return sim_errf(err, "$.trace.generator.rate_rps: must be > 0 (got %g)", p->rate_rps);
    s->arrival = find_name(p->arrival, sizeof p->arrival, arrival_names, 4);
    if (s->arrival < 0)
        return sim_errf(err, "$.trace.generator.arrival: unknown arrival process '%.*s' (valid: %s)",
                        (int)sizeof p->arrival, p->arrival, ARR_VALID);
    if (s->arrival == ARR_GAMMA && (!(p->arrival_cv > 0) || !isfinite(p->arrival_cv)))
        return sim_errf(err, "$.trace.generator.arrival_cv: must be > 0 for gamma arrivals (got %g)",
                        p->arrival_cv);
    if ((s->arrival == ARR_BURST || s->arrival == ARR_PERIODIC) && (!(p->burst_period_s > 0) || !isfinite(p->burst_period_s)))
        return sim_errf(err, "$.trace.generator.burst_period_s: must be > 0 for burst arrivals (got %g)",
                        p->burst_period_s);
    if (len_init(&s->in, &p->input, "input", TRACE_MAX_INPUT_TOK, err) < 0 ||
        len_init(&s->out, &p->output, "output", TRACE_MAX_OUTPUT_TOK, err) < 0)
        return -1;
    if (p->system_prompt_tok < 0)
        return sim_errf(err, "$.trace.generator.system_prompt_tok: must be >= 0 (got %lld)",
                        (long long)p->system_prompt_tok);
    if (!(p->turn_gap_s >= 0) || !isfinite(p->turn_gap_s))
        return sim_errf(err, "$.trace.generator.turn_gap_s: must be >= 0 (got %g)", p->turn_gap_s);
    if (!(p->p_continue >= 0 && p->p_continue <= 1))
        return sim_errf(err, "$.trace.generator.p_continue: must be in [0, 1] (got %g)",
                        p->p_continue);
    if (p->max_sessions < 1 || p->max_sessions > KIMI_MAX_SESSIONS)
        return sim_errf(err, "$.trace.generator.max_sessions: must be in [1, %d] (got %lld)",
                        KIMI_MAX_SESSIONS, (long long)p->max_sessions);
    if (p->max_context_tok < p->system_prompt_tok + 1)
        return sim_errf(err, "$.trace.generator.max_context_tok: must be >= system_prompt_tok + 1 "
                        "= %lld (got %lld)", (long long)(p->system_prompt_tok + 1),
                        (long long)p->max_context_tok);
    if (p->max_context_tok > TRACE_MAX_INPUT_TOK)
        return sim_errf(err, "$.trace.generator.max_context_tok: must be <= %lld (got %lld)",
                        (long long)TRACE_MAX_INPUT_TOK, (long long)p->max_context_tok);
    return 0;
}

static void kimi_close(void *state)
{
    kimi_state_t *s = state;
    if (!s)
        return;
    for (size_t i = 0; i < s->cap; i++)
        sim_free(s->ring[i].ids);
    sim_free(s->ring);
    gsl_rng_free(s->r_arr); /* GSL accepts NULL */
    gsl_rng_free(s->r_len);
    gsl_rng_free(s->r_sess);
    sim_free(s);
}

static void *kimi_open(const trace_open_args_t *args, sim_err_t *err)
{
    kimi_state_t *s = sim_xcalloc(1, sizeof *s, "kimi");
    s->p = *args->gen;
    if (validate(s, err) < 0) {
        kimi_close(s);
        return NULL;
    }
    s->r_arr = sim_rng_new(args->seed, SIM_RNG_ARRIVALS);
    s->r_len = sim_rng_new(args->seed, SIM_RNG_LENGTHS);
    s->r_sess = sim_rng_new(args->seed, SIM_RNG_SESSIONS);
    s->sys_blocks = (uint64_t)(s->p.system_prompt_tok / TRACE_BLOCK_TOK);
    s->next_id = s->sys_blocks;
    return s;
}

static kimi_session_t *slot(kimi_state_t *s, size_t i) { return &s->ring[(s->head + i) % s->cap]; }

/* Remove open session i (0 = oldest), keeping age order; its buffer moves
 * to the first spare slot. O(n_open). */
static void session_remove(kimi_state_t *s, size_t i)
{
    kimi_session_t gone = *slot(s, i);
    if (i == 0) {
        s->head = (s->head + 1) % s->cap;
    } else {
        for (size_t j = i; j + 1 < s->n_open; j++)
            *slot(s, j) = *slot(s, j + 1);
    }
    s->n_open--;
    if (i != 0)
        *slot(s, s->n_open) = gone;
}

/* A slot for a new session, the youngest; closes the oldest when
 * max_sessions are open and grows the ring (up to max_sessions) when full. */
static kimi_session_t *session_add(kimi_state_t *s)
{
    if (s->n_open == (size_t)s->p.max_sessions) {
        session_remove(s, 0);
    } else if (s->n_open == s->cap) {
        size_t ncap = SIM_MIN(SIM_MAX(s->cap * 2, (size_t)16), (size_t)s->p.max_sessions);
        kimi_session_t *nr = sim_xcalloc(ncap, sizeof *nr, "kimi.sessions");
        for (size_t i = 0; i < s->cap; i++)
            nr[i] = *slot(s, i);
        sim_free(s->ring);
        s->ring = nr;
        s->cap = ncap;
        s->head = 0;
    }
    s->n_open++;
    return slot(s, s->n_open - 1);
}

/* Make room for n ids in session x. */
static void session_ids(kimi_session_t *x, size_t n)
{
    sim_grow((void **)&x->ids, &x->ids_cap, n, sizeof *x->ids, "kimi.ids");
}

static int next_arrival(kimi_state_t *s, sim_err_t *err)
{
    const trace_gen_params_t *p = &s->p;
    double gap_s = 0;
    int first = s->n_done == 0;
    switch (s->arrival) {
    case ARR_POISSON:
        if (!first)
            gap_s = gsl_ran_exponential(s->r_arr, 1.0 / p->rate_rps);
        break;
    case ARR_GAMMA:
        if (!first) {
            double k = 1.0 / (p->arrival_cv * p->arrival_cv);
            gap_s = gsl_ran_gamma(s->r_arr, k, 1.0 / (p->rate_rps * k));
        }
        break;
    default: /* ARR_BURST: Poisson burst starts, ARR_PERIODIC: one every
              * burst_period_s (as the conversation trace's 3 s batches);
              * a Poisson count (>= 1) in each */
        if (s->burst_left == 0) {
            if (!first)
                gap_s = s->arrival == ARR_PERIODIC
                            ? p->burst_period_s
                            : gsl_ran_exponential(s->r_arr, p->burst_period_s);
            unsigned int n = gsl_ran_poisson(s->r_arr, p->rate_rps * p->burst_period_s);
            s->burst_left = n > 0 ? (int64_t)n : 1;
        }
        s->burst_left--;
        break;
    }
    double t = (double)s->t_ns + gap_s * 1e9;
    if (t >= TRACE_GEN_MAX_NS)
        return sim_errf(err, "$.trace.generator.rate_rps: request %lld arrives beyond the "
                        "simulated time range", (long long)(s->n_done + 1));
    s->t_ns += (sim_time_t)llround(gap_s * 1e9);
    return 0;
}

static int kimi_next(void *state, trace_req_t *out, sim_err_t *err)
{
    kimi_state_t *s = state;
    const trace_gen_params_t *p = &s->p;
    if (s->n_done >= p->requests)
        return TRACE_END;
    if (next_arrival(s, err) < 0)
        return TRACE_ERR;
    /* Fixed draw order per request keeps the streams aligned. */
    double u = gsl_rng_uniform(s->r_sess);
    int64_t new_tok = len_sample(&s->in, s->r_len);
    int64_t out_tok = len_sample(&s->out, s->r_len);
    kimi_session_t *x = NULL;
    int64_t in_tok = 0;
    /* Sessions whose last turn is at least turn_gap_s old can go on; a
     * user answers only after reading the previous reply. O(n_open). */
    sim_time_t ready_before = s->t_ns - (sim_time_t)llround(p->turn_gap_s * 1e9);
    size_t n_ready = 0;
    if (u < p->p_continue)
        for (size_t j = 0; j < s->n_open; j++)
            n_ready += slot(s, j)->last_ns <= ready_before;
    if (n_ready > 0) {
        size_t k = (size_t)gsl_rng_uniform_int(s->r_sess, (unsigned long)n_ready), i = 0;
        for (;; i++)
            if (slot(s, i)->last_ns <= ready_before && k-- == 0)
                break;
        kimi_session_t *c = slot(s, i);
        int64_t tok = c->input_tok + c->output_tok + new_tok;
        if (tok <= p->max_context_tok) {
            /* The previous prompt's full blocks are unchanged; its partial
             * last block now continues with new tokens: fresh ids. */
            size_t keep = (size_t)(c->input_tok / TRACE_BLOCK_TOK);
            size_t n = (size_t)((tok + TRACE_BLOCK_TOK - 1) / TRACE_BLOCK_TOK);
            session_ids(c, n);
            for (size_t b = keep; b < n; b++)
                c->ids[b] = s->next_id++;
            x = c;
            in_tok = tok;
        } else {
            session_remove(s, i); /* context full: the user starts over */
        }
    }
    if (!x) {
        x = session_add(s);
        in_tok = SIM_MIN(p->system_prompt_tok + new_tok, p->max_context_tok);
        size_t n = (size_t)((in_tok + TRACE_BLOCK_TOK - 1) / TRACE_BLOCK_TOK);
        session_ids(x, n);
        size_t b = 0;
        for (; b < s->sys_blocks && b < n; b++)
            x->ids[b] = b;
        for (; b < n; b++)
            x->ids[b] = s->next_id++;
    }
    x->input_tok = in_tok;
    x->output_tok = out_tok;
    x->last_ns = s->t_ns;
    s->n_done++;
    out->arrival_ns = s->t_ns;
    out->input_tok = in_tok;
    out->output_tok = out_tok;
    out->n_blocks = (uint32_t)((in_tok + TRACE_BLOCK_TOK - 1) / TRACE_BLOCK_TOK);
    out->blocks = x->ids;
    out->record = s->n_done;
    return TRACE_OK;
}

const trace_source_ops_t trace_source_kimi = {
    .name = "kimi",
    .help = "synthetic multi-turn chat sessions with a shared system prompt (seeded)",
    .is_generator = 1,
    .reads = (const char *const[]){"requests", "rate_rps", "arrival", "arrival_cv",
                                   "burst_period_s", "input", "output", "system_prompt_tok",
                                   "p_continue", "turn_gap_s", "max_sessions", "max_context_tok",
                                   NULL},
    .open = kimi_open,
    .next = kimi_next,
    .close = kimi_close,
};
