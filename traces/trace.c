/* traces/trace.c: the source registry and the trace_t wrapper around one
 * source: format detection, replay speed and request limit. Invariant:
 * the wrapper holds O(1) state; everything else streams from the source. */
#include "traces/trace.h"

#include <math.h>
#include <string.h>

#include "sim/core/registry.h"
#include "traces/trace_int.h"

/* Adding a source = one new file defining its ops table + one line here. */
static const trace_source_ops_t *const sources[] = {
    &trace_source_mooncake,
    &trace_source_azure,
    &trace_source_kimi,
    &trace_source_arxiv,
    &trace_source_leval,
    &trace_source_longctx,
    &trace_source_agentic,
};
#define N_SOURCES (sizeof sources / sizeof sources[0])

/* A request held until the requests it waits on finish: its record, with
 * its own copy of the blocks, and what is left to wait for. */
typedef struct trace_held {
    trace_req_t r;
    uint64_t *blocks;
    uint32_t n_wait;      /* keys still unfinished */
    sim_time_t ready_ns;  /* the latest finish among those done */
} trace_held_t;

/* One waiter of a key: a held request (index), and the key's next. */
typedef struct trace_waiter {
    uint32_t held, next; /* next: index + 1, 0 = none */
} trace_waiter_t;

/* The dependency state of a trace after trace_hold_deps. */
typedef struct trace_deps {
    sim_time_t *finish_ns;   /* per key (index key - 1): -1 until done */
    uint32_t *waiters;       /* per key: its first waiter + 1, 0 = none */
    size_t n_keys, keys_cap, waiters_cap;
    trace_waiter_t *w;       /* waiter nodes, freed ones chained by next */
    size_t n_w, w_cap;
    uint32_t w_free;         /* first free waiter node + 1 */
    trace_held_t *held;      /* held requests; free slots chained by n_wait */
    size_t n_held, held_cap;
    uint32_t held_free;      /* first free slot + 1 */
    uint32_t *out;           /* released, in release order (held indices) */
    size_t out_head, out_len, out_cap;
    uint32_t last;           /* the slot handed out last + 1, freed at the next call */
} trace_deps_t;

struct trace {
    const trace_source_ops_t *ops;
    void *state;
    double speed;
    int64_t limit;
    int64_t output_cap;
    int64_t n_out;
    int failed;           /* an error is sticky: later calls repeat it */
    sim_err_t first_err;
    char *path;           /* the file, for "no requests"; NULL for a generator */
    trace_deps_t *deps;   /* NULL until trace_hold_deps */
};

const trace_source_ops_t *trace_source_find(const char *name)
{
    if (!name)
        return NULL;
    return sim_registry_find((const void *const *)sources, N_SOURCES, name);
}

void trace_source_names(char *buf, size_t len, int generators)
{
    if (len == 0)
        return;
    buf[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; i < N_SOURCES; i++) {
        if ((sources[i]->is_generator != 0) != (generators != 0))
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", sources[i]->name);
        if (n < 0 || (size_t)n >= len - used) {
            buf[used] = '\0'; /* whole names only */
            return;
        }
        used += (size_t)n;
    }
}

/* Peek at the first non-blank decoded line of path and name its format;
 * the reader, that line given back, goes to *lines for the source. NULL
 * with err filled when it cannot be read or recognized. */
static const trace_source_ops_t *detect(const char *path, trace_lines_t **lines, sim_err_t *err)
{
    trace_lines_t *r = trace_lines_open(path, err);
    if (!r)
        return NULL;
    const trace_source_ops_t *ops = NULL;
    const char *line;
    size_t len;
    int rc = trace_lines_next_nonblank(r, &line, &len, err);
    if (rc == TRACE_OK) {
        while (*line == ' ' || *line == '\t')
            line++;
        if (line[0] == '{')
            ops = &trace_source_mooncake;
        else if (strncmp(line, "TIMESTAMP", 9) == 0)
            ops = &trace_source_azure;
        else
            sim_errf(err, "%s:%lld: cannot detect trace format (expected Mooncake JSONL or Azure CSV)",
                     path, (long long)trace_lines_lineno(r));
    } else if (rc == TRACE_END) {
        sim_errf(err, "%s: no requests (the file is empty)", path);
    }
    if (ops) {
        trace_lines_unread(r);
        *lines = r;
    } else {
        trace_lines_close(r);
    }
    return ops;
}

/* The replay speed args asks for into *speed; 0, or -1 with err filled
 * when it or the limit is out of range. */
static int check_args(const trace_open_args_t *args, double *speed, sim_err_t *err)
{
    /* speed 0 means "not set" (a zeroed args struct replays at 1x). */
    *speed = args->speed == 0 ? 1.0 : args->speed;
    if (!(*speed > 0) || !isfinite(*speed))
        return sim_errf(err, "$.trace.speed: must be > 0 (got %g)", args->speed);
    if (args->limit < 0)
        return sim_errf(err, "$.trace.limit: must be >= 0 (got %lld)", (long long)args->limit);
    return 0;
}

static trace_t *wrap(const trace_source_ops_t *ops, void *state, const trace_open_args_t *args,
                     double speed)
{
    trace_t *t = sim_xcalloc(1, sizeof *t, "trace");
    t->ops = ops;
    t->state = state;
    t->speed = speed;
    t->limit = args->limit;
    t->output_cap = args->output_cap > 0 ? args->output_cap : 0;
    t->path = ops->is_generator ? NULL : sim_xstrdup(args->path, "trace path");
    return t;
}

trace_t *trace_wrap(const trace_source_ops_t *ops, void *state, const trace_open_args_t *args,
                    sim_err_t *err)
{
    double speed;
    if (check_args(args, &speed, err) != 0) {
        ops->close(state);
        return NULL;
    }
    return wrap(ops, state, args, speed);
}

trace_t *trace_open(const trace_open_args_t *args, sim_err_t *err)
{
    const trace_source_ops_t *ops = NULL;
    trace_lines_t *lines = NULL; /* the reader detection opened, handed on */
    char names[128];
    double speed;
    if (check_args(args, &speed, err) != 0)
        return NULL;
    const char *fmt = args->format;
    if (!fmt || !fmt[0] || strcmp(fmt, "auto") == 0) {
        if (args->gen && args->gen->kind[0]) {
            ops = trace_source_find(args->gen->kind);
            if (!ops || !ops->is_generator) {
                trace_source_names(names, sizeof names, 1);
                sim_errf(err, "$.trace.generator.kind: unknown generator '%s' (valid: %s)",
                         args->gen->kind, names);
                return NULL;
            }
        } else {
            if (!args->path || !args->path[0]) {
                sim_errf(err, "$.trace: neither a trace file nor a generator is given");
                return NULL;
            }
            ops = detect(args->path, &lines, err);
            if (!ops)
                return NULL;
        }
    } else {
        ops = trace_source_find(fmt);
        if (!ops) {
            trace_source_names(names, sizeof names, 0);
            size_t used = strlen(names);
            if (used + 3 < sizeof names) {
                memcpy(names + used, ", ", 3);
                trace_source_names(names + used + 2, sizeof names - used - 2, 1);
            }
            sim_errf(err, "$.trace.format: unknown trace format '%s' (valid: auto, %s)", fmt, names);
            return NULL;
        }
    }
    if (ops->is_generator && !args->gen) {
        sim_errf(err, "$.trace.generator: missing (source '%s' is a generator)", ops->name);
        return NULL;
    }
    if (!ops->is_generator && (!args->path || !args->path[0])) {
        sim_errf(err, "$.trace.path: missing (source '%s' reads a file)", ops->name);
        return NULL;
    }
    if (ops->open_lines && !lines && !(lines = trace_lines_open(args->path, err)))
        return NULL;
    void *state = ops->open_lines ? ops->open_lines(args, lines, err) : ops->open(args, err);
    if (!state)
        return NULL;
    return wrap(ops, state, args, speed);
}

static void hold(trace_t *t, const trace_req_t *r);

/* One record from the source, speed, limit and cap applied. */
static int next_record(trace_t *t, trace_req_t *out, sim_err_t *err)
{
    if (t->failed)
        return sim_errf(err, "%s", t->first_err.msg);
    if (t->limit > 0 && t->n_out >= t->limit)
        return TRACE_END;
    /* Sources that know no dependencies leave these fields alone. */
    out->key = out->session = 0;
    out->n_deps = 0;
    out->deps = NULL;
    out->wait_ns = 0;
    int rc = t->ops->next(t->state, out, &t->first_err);
    if (rc == TRACE_OK && t->speed != 1.0) {
        double ns = (double)out->arrival_ns / t->speed;
        if (ns >= 9.2e18)
            rc = sim_errf(&t->first_err, "$.trace.speed: %g makes record %lld arrive beyond "
                          "the simulated time range", t->speed, (long long)out->record);
        else
            out->arrival_ns = (sim_time_t)llround(ns);
    }
    /* A trace that yields nothing is an error wherever it is read: a run
     * of it would report a span and rates over no requests at all. */
    if (rc == TRACE_END && t->n_out == 0)
        rc = t->path ? sim_errf(&t->first_err, "%s: no requests (the file holds no records)",
                                t->path)
                     : sim_errf(&t->first_err, "$.trace.generator: no requests");
    if (rc == TRACE_ERR) {
        t->failed = 1;
        return sim_errf(err, "%s", t->first_err.msg);
    }
    if (rc == TRACE_OK) {
        t->n_out++;
        if (t->output_cap && out->output_tok > t->output_cap)
            out->output_tok = t->output_cap;
    }
    return rc;
}

int trace_next(trace_t *t, trace_req_t *out, sim_err_t *err)
{
    int rc;
    while ((rc = next_record(t, out, err)) == TRACE_OK && t->deps && out->n_deps > 0)
        hold(t, out);
    return rc;
}

/* ---- dependencies ---- */

void trace_hold_deps(trace_t *t)
{
    if (!t->deps)
        t->deps = sim_xcalloc(1, sizeof *t->deps, "trace deps");
}

static void deps_free(trace_deps_t *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n_held; i++)
        sim_free(d->held[i].blocks);
    sim_free(d->finish_ns);
    sim_free(d->waiters);
    sim_free(d->w);
    sim_free(d->held);
    sim_free(d->out);
    sim_free(d);
}

/* Key k known (finish -1, no waiters until then). */
static void key_room(trace_deps_t *d, int64_t k)
{
    while ((int64_t)d->n_keys < k) {
        size_t cap = d->keys_cap;
        sim_grow((void **)&d->finish_ns, &d->keys_cap, d->n_keys + 1, sizeof *d->finish_ns,
                 "trace deps keys");
        sim_grow((void **)&d->waiters, &cap, d->n_keys + 1, sizeof *d->waiters,
                 "trace deps keys");
        d->finish_ns[d->n_keys] = -1;
        d->waiters[d->n_keys] = 0;
        d->n_keys++;
    }
}

static void release(trace_t *t, uint32_t h)
{
    trace_deps_t *d = t->deps;
    trace_held_t *x = &d->held[h];
    double wait = (double)x->r.wait_ns / t->speed;
    x->r.arrival_ns = x->ready_ns + (sim_time_t)llround(wait);
    if (d->out_head == d->out_len)
        d->out_head = d->out_len = 0;
    sim_grow((void **)&d->out, &d->out_cap, d->out_len + 1, sizeof *d->out, "trace deps out");
    d->out[d->out_len++] = h;
}

static void hold(trace_t *t, const trace_req_t *r)
{
    trace_deps_t *d = t->deps;
    uint32_t h;
    if (d->held_free) {
        h = d->held_free - 1;
        d->held_free = d->held[h].n_wait;
    } else {
        sim_grow((void **)&d->held, &d->held_cap, d->n_held + 1, sizeof *d->held,
                 "trace deps held");
        h = (uint32_t)d->n_held++;
        d->held[h].blocks = NULL;
    }
    trace_held_t *x = &d->held[h];
    uint64_t *blocks = sim_xrealloc(x->blocks, (size_t)r->n_blocks * sizeof *blocks + 1,
                                    "trace deps blocks");
    memcpy(blocks, r->blocks, (size_t)r->n_blocks * sizeof *blocks);
    *x = (trace_held_t){.r = *r, .blocks = blocks, .ready_ns = 0};
    x->r.blocks = blocks;
    x->r.deps = NULL; /* not kept */
    key_room(d, r->key);
    for (uint32_t i = 0; i < r->n_deps; i++) {
        int64_t k = r->deps[i];
        SIM_ASSERT(k >= 1);
        key_room(d, k);
        if (d->finish_ns[k - 1] >= 0) {
            x->ready_ns = SIM_MAX(x->ready_ns, d->finish_ns[k - 1]);
            continue;
        }
        uint32_t wi;
        if (d->w_free) {
            wi = d->w_free - 1;
            d->w_free = d->w[wi].next;
        } else {
            sim_grow((void **)&d->w, &d->w_cap, d->n_w + 1, sizeof *d->w, "trace deps waiters");
            wi = (uint32_t)d->n_w++;
        }
        d->w[wi] = (trace_waiter_t){.held = h, .next = d->waiters[k - 1]};
        d->waiters[k - 1] = wi + 1;
        x->n_wait++;
    }
    if (x->n_wait == 0)
        release(t, h);
}

void trace_done(trace_t *t, int64_t key, sim_time_t finish_ns)
{
    trace_deps_t *d = t->deps;
    if (!d || key < 1)
        return;
    key_room(d, key);
    d->finish_ns[key - 1] = finish_ns;
    for (uint32_t wi = d->waiters[key - 1]; wi;) {
        trace_waiter_t *w = &d->w[wi - 1];
        uint32_t next = w->next;
        trace_held_t *x = &d->held[w->held];
        x->ready_ns = SIM_MAX(x->ready_ns, finish_ns);
        if (--x->n_wait == 0)
            release(t, w->held);
        w->next = d->w_free;
        d->w_free = wi;
        wi = next;
    }
    d->waiters[key - 1] = 0;
}

int trace_released(trace_t *t, trace_req_t *out)
{
    trace_deps_t *d = t->deps;
    if (!d)
        return TRACE_END;
    if (d->last) { /* the slot handed out last is free again */
        d->held[d->last - 1].n_wait = d->held_free;
        d->held_free = d->last;
        d->last = 0;
    }
    if (d->out_head == d->out_len)
        return TRACE_END;
    uint32_t h = d->out[d->out_head++];
    *out = d->held[h].r;
    d->last = h + 1;
    return TRACE_OK;
}

void trace_close(trace_t *t)
{
    if (!t)
        return;
    t->ops->close(t->state);
    deps_free(t->deps);
    sim_free(t->path);
    sim_free(t);
}
