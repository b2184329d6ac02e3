/* traces/gen_kimi.c: the "kimi" generator, seeded synthetic chat traffic:
 * multi-turn sessions whose turns extend the previous prompt, so block ids
 * really repeat. Invariant: same parameters + seed give the same sequence
 * (one GSL stream each for arrivals, lengths, sessions); memory is bounded
 * by max_sessions (each open session keeps its ids), never by `requests`. */
#include "traces/trace_int.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "sim/core/rng.h"

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

/* An open session: the ids of its last turn's prompt. Closed sessions
 * keep their buffers for reuse. */
typedef struct kimi_session {
    uint64_t *ids;
    size_t ids_cap;
    int64_t input_tok;  /* last turn's prompt */
    int64_t output_tok; /* last turn's output */
    sim_time_t last_ns; /* last turn's arrival */
    uint32_t at;        /* its place in the age order */
    uint32_t gen;       /* bumped at each turn and at closing: stale wait entries */
    int ready;          /* counted in the ready tree */
} kimi_session_t;

/* A session waiting for its user: ready once last_ns is turn_gap_s old. */
typedef struct kimi_wait {
    uint32_t si, gen;
    sim_time_t last_ns;
} kimi_wait_t;

#define NO_SESSION UINT32_MAX

typedef struct kimi_state {
    trace_gen_params_t p;
    int arrival;
    kimi_len_t in, out;
    gsl_rng *r_arr, *r_len, *r_sess;
    int64_t n_done;
    sim_time_t t_ns;
    int64_t burst_left;
    sim_time_t gap_ns; /* turn_gap_s */
    /* Open sessions (see "open sessions" below). */
    kimi_session_t *sess; /* every session slot made; closed ones on the free stack */
    size_t n_sess, cap_sess;
    uint32_t *free_sess;
    size_t n_free, cap_free;
    uint32_t *ord; /* sessions by age, oldest first, NO_SESSION where one closed */
    size_t n_ord, cap_ord, first; /* first: the oldest open one's place */
    int32_t *tree; /* Fenwick tree over ord: ready sessions */
    size_t n_open, n_ready;
    kimi_wait_t *wq; /* sessions not yet ready, by last_ns (a ring) */
    size_t wq_head, n_wq, cap_wq;
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
    for (size_t i = 0; i < s->n_sess; i++)
        sim_free(s->sess[i].ids);
    sim_free(s->sess);
    sim_free(s->free_sess);
    sim_free(s->ord);
    sim_free(s->tree);
    sim_free(s->wq);
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
    /* Beyond 2^62 ns (146 years) no session is ever ready again. */
    double gap = s->p.turn_gap_s * 1e9;
    s->gap_ns = gap < 0x1p62 ? (sim_time_t)llround(gap) : (sim_time_t)1 << 62;
    return s;
}

/* ---- open sessions ----
 * In age order (creation order) in ord, where a closed session leaves a
 * hole until the array is compacted (amortized O(1) a session). The
 * sessions ready to go on are counted in a Fenwick tree over ord, so the
 * k-th ready one in age order is found in O(log n); sessions become ready
 * in the order of their last turns (arrivals only move forward), so those
 * not yet ready wait in a FIFO. Memory is bounded by max_sessions. */

static void tree_add(kimi_state_t *s, size_t at, int32_t d)
{
    for (size_t i = at + 1; i <= s->cap_ord; i += i & -i)
        s->tree[i - 1] += d;
}

/* The place in ord of the k-th (0-based) ready session. */
static size_t tree_find(const kimi_state_t *s, size_t k)
{
    size_t at = 0, step = 1;
    while (step * 2 <= s->cap_ord)
        step *= 2;
    for (; step > 0; step /= 2)
        if (at + step <= s->cap_ord && (size_t)s->tree[at + step - 1] <= k) {
            at += step;
            k -= (size_t)s->tree[at - 1];
        }
    return at;
}

static void set_ready(kimi_state_t *s, kimi_session_t *x, int ready)
{
    if (x->ready == ready)
        return;
    x->ready = ready;
    tree_add(s, x->at, ready ? 1 : -1);
    s->n_ready = ready ? s->n_ready + 1 : s->n_ready - 1;
}

/* Mark ready every session whose last turn is at or before ready_before. */
static void wake(kimi_state_t *s, sim_time_t ready_before)
{
    while (s->n_wq > 0 && s->wq[s->wq_head].last_ns <= ready_before) {
        kimi_wait_t w = s->wq[s->wq_head];
        s->wq_head = (s->wq_head + 1) % s->cap_wq;
        s->n_wq--;
        if (s->sess[w.si].gen == w.gen)
            set_ready(s, &s->sess[w.si], 1);
    }
}

/* Queue si to wake; drops stale entries first when they could pile up. */
static void wait_push(kimi_state_t *s, uint32_t si)
{
    if (s->n_wq == s->cap_wq) {
        size_t live = 0;
        for (size_t i = 0; i < s->n_wq; i++) {
            kimi_wait_t w = s->wq[(s->wq_head + i) % s->cap_wq];
            live += s->sess[w.si].gen == w.gen;
        }
        size_t ncap = SIM_MAX(2 * (live + 1), (size_t)16);
        kimi_wait_t *nq = sim_xmalloc(ncap * sizeof *nq, "kimi.waiting");
        size_t n = 0;
        for (size_t i = 0; i < s->n_wq; i++) {
            kimi_wait_t w = s->wq[(s->wq_head + i) % s->cap_wq];
            if (s->sess[w.si].gen == w.gen)
                nq[n++] = w;
        }
        sim_free(s->wq);
        s->wq = nq;
        s->cap_wq = ncap;
        s->wq_head = 0;
        s->n_wq = n;
    }
    kimi_session_t *x = &s->sess[si];
    s->wq[(s->wq_head + s->n_wq++) % s->cap_wq] = (kimi_wait_t){si, x->gen, x->last_ns};
}

/* Session si's turn at t: it waits for its user again. */
static void session_turn(kimi_state_t *s, uint32_t si, sim_time_t t)
{
    kimi_session_t *x = &s->sess[si];
    set_ready(s, x, 0);
    x->last_ns = t;
    x->gen++;
    wait_push(s, si);
}

static void session_remove(kimi_state_t *s, uint32_t si)
{
    kimi_session_t *x = &s->sess[si];
    set_ready(s, x, 0);
    x->gen++;
    s->ord[x->at] = NO_SESSION;
    s->n_open--;
    while (s->first < s->n_ord && s->ord[s->first] == NO_SESSION)
        s->first++;
    sim_grow((void **)&s->free_sess, &s->cap_free, s->n_free + 1, sizeof *s->free_sess,
             "kimi.sessions");
    s->free_sess[s->n_free++] = si;
}

/* ord is full: move the open sessions to a fresh array with as much room
 * again, in order, and rebuild the tree. */
static void order_compact(kimi_state_t *s)
{
    size_t ncap = SIM_MAX(2 * (s->n_open + 1), (size_t)16);
    uint32_t *nord = sim_xmalloc(ncap * sizeof *nord, "kimi.sessions");
    int32_t *ntree = sim_xcalloc(ncap, sizeof *ntree, "kimi.sessions");
    size_t n = 0;
    for (size_t i = s->first; i < s->n_ord; i++)
        if (s->ord[i] != NO_SESSION) {
            s->sess[s->ord[i]].at = (uint32_t)n;
            ntree[n] = s->sess[s->ord[i]].ready;
            nord[n++] = s->ord[i];
        }
    for (size_t i = 1; i <= ncap; i++) /* O(n) Fenwick build */
        if (i + (i & -i) <= ncap)
            ntree[i + (i & -i) - 1] += ntree[i - 1];
    sim_free(s->ord);
    sim_free(s->tree);
    s->ord = nord;
    s->tree = ntree;
    s->cap_ord = ncap;
    s->n_ord = n;
    s->first = 0;
}

/* A new session, the youngest (its turn is the caller's); closes the
 * oldest when max_sessions are open. */
static uint32_t session_add(kimi_state_t *s)
{
    if (s->n_open == (size_t)s->p.max_sessions)
        session_remove(s, s->ord[s->first]);
    if (s->n_ord == s->cap_ord)
        order_compact(s);
    uint32_t si;
    if (s->n_free > 0) {
        si = s->free_sess[--s->n_free];
    } else {
        sim_grow((void **)&s->sess, &s->cap_sess, s->n_sess + 1, sizeof *s->sess, "kimi.sessions");
        si = (uint32_t)s->n_sess++;
        memset(&s->sess[si], 0, sizeof s->sess[si]);
    }
    kimi_session_t *x = &s->sess[si];
    x->ready = 0;
    x->at = (uint32_t)s->n_ord;
    s->ord[s->n_ord++] = si;
    s->n_open++;
    return si;
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
    uint32_t xi = NO_SESSION;
    int64_t in_tok = 0;
    /* Sessions whose last turn is at least turn_gap_s old can go on; a
     * user answers only after reading the previous reply. O(log n_open). */
    wake(s, s->t_ns - s->gap_ns);
    size_t n_ready = u < p->p_continue ? s->n_ready : 0;
    if (n_ready > 0) {
        size_t k = (size_t)gsl_rng_uniform_int(s->r_sess, (unsigned long)n_ready);
        uint32_t ci = s->ord[tree_find(s, k)];
        kimi_session_t *c = &s->sess[ci];
        int64_t tok = c->input_tok + c->output_tok + new_tok;
        if (tok <= p->max_context_tok) {
            /* The previous prompt's full blocks are unchanged; its partial
             * last block now continues with new tokens: fresh ids. */
            size_t keep = (size_t)(c->input_tok / TRACE_BLOCK_TOK);
            size_t n = (size_t)((tok + TRACE_BLOCK_TOK - 1) / TRACE_BLOCK_TOK);
            session_ids(c, n);
            for (size_t b = keep; b < n; b++)
                c->ids[b] = s->next_id++;
            xi = ci;
            in_tok = tok;
        } else {
            session_remove(s, ci); /* context full: the user starts over */
        }
    }
    if (xi == NO_SESSION) {
        xi = session_add(s);
        kimi_session_t *x = &s->sess[xi];
        in_tok = SIM_MIN(p->system_prompt_tok + new_tok, p->max_context_tok);
        size_t n = (size_t)((in_tok + TRACE_BLOCK_TOK - 1) / TRACE_BLOCK_TOK);
        session_ids(x, n);
        size_t b = 0;
        for (; b < s->sys_blocks && b < n; b++)
            x->ids[b] = b;
        for (; b < n; b++)
            x->ids[b] = s->next_id++;
    }
    kimi_session_t *x = &s->sess[xi];
    x->input_tok = in_tok;
    x->output_tok = out_tok;
    session_turn(s, xi, s->t_ns);
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
