/* traces/trace.c: the source registry and the trace_t wrapper around one
 * source: format detection, replay speed and request limit. Invariant:
 * the wrapper holds O(1) state; everything else streams from the source. */
#include "traces/trace.h"

#include <math.h>
#include <string.h>

#include "sim/core/registry.h"
#include "traces/lines.h"

/* Adding a source = one new file defining its ops table + one line here. */
static const trace_source_ops_t *const sources[] = {
    &trace_source_mooncake,
    &trace_source_azure,
    &trace_source_kimi,
    &trace_source_arxiv,
    &trace_source_leval,
    &trace_source_longctx,
};
#define N_SOURCES (sizeof sources / sizeof sources[0])

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

trace_t *trace_open(const trace_open_args_t *args, sim_err_t *err)
{
    const trace_source_ops_t *ops = NULL;
    trace_lines_t *lines = NULL; /* the reader detection opened, handed on */
    char names[128];
    /* speed 0 means "not set" (a zeroed args struct replays at 1x). */
    double speed = args->speed == 0 ? 1.0 : args->speed;
    if (!(speed > 0) || !isfinite(speed)) {
        sim_errf(err, "$.trace.speed: must be > 0 (got %g)", args->speed);
        return NULL;
    }
    if (args->limit < 0) {
        sim_errf(err, "$.trace.limit: must be >= 0 (got %lld)", (long long)args->limit);
        return NULL;
    }
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
    trace_t *t = sim_xcalloc(1, sizeof *t, "trace");
    t->ops = ops;
    t->state = state;
    t->speed = speed;
    t->limit = args->limit;
    t->output_cap = args->output_cap > 0 ? args->output_cap : 0;
    t->path = ops->is_generator ? NULL : sim_xstrdup(args->path, "trace path");
    return t;
}

int trace_next(trace_t *t, trace_req_t *out, sim_err_t *err)
{
    if (t->failed)
        return sim_errf(err, "%s", t->first_err.msg);
    if (t->limit > 0 && t->n_out >= t->limit)
        return TRACE_END;
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

void trace_close(trace_t *t)
{
    if (!t)
        return;
    t->ops->close(t->state);
    sim_free(t->path);
    sim_free(t);
}
