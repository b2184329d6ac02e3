/* traces/mooncake.c: the "mooncake" source, Mooncake FAST'25 JSONL records
 * ({"timestamp": ms, "input_length", "output_length", "hash_ids": [...]}),
 * one per line, parsed with cJSON. Invariant: every record yielded is
 * valid (lengths in range, ceil(input/512) ids, timestamps non-decreasing);
 * the first bad record stops the stream with "PATH:LINE: message". */
#include "traces/lines.h"

#include <math.h>
#include <string.h>

#include <cJSON.h>

/* Largest integer a double (cJSON's number type) holds exactly. */
#define MC_MAX_EXACT 9007199254740992.0
/* Timestamps past this many ms would overflow int64 ns (about 292 years). */
#define MC_MAX_TS_MS 9.2e12

typedef struct mc_state {
    trace_lines_t *lines;
    uint64_t *blocks;
    size_t blocks_cap;
    sim_time_t prev_ns;
} mc_state_t;

static void mc_close(void *state)
{
    mc_state_t *s = state;
    if (!s)
        return;
    trace_lines_close(s->lines);
    sim_free(s->blocks);
    sim_free(s);
}

static void *mc_open(const trace_open_args_t *args, sim_err_t *err)
{
    trace_lines_t *lines = trace_lines_open(args->path, err);
    if (!lines)
        return NULL;
    mc_state_t *s = sim_xcalloc(1, sizeof *s, "mooncake");
    s->lines = lines;
    return s;
}

/* An integer-valued length field in [1, max] into *v; 0 or -1. */
static int get_len(const cJSON *obj, const char *name, int64_t max, int64_t *v,
                   const char *path, long long line, sim_err_t *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!it)
        return sim_errf(err, "%s:%lld: missing field '%s'", path, line, name);
    if (!cJSON_IsNumber(it))
        return sim_errf(err, "%s:%lld: field '%s' must be a number", path, line, name);
    double d = it->valuedouble;
    if (d != floor(d))
        return sim_errf(err, "%s:%lld: field '%s' must be an integer (got %.15g)", path, line,
                        name, d);
    if (d < 1)
        return sim_errf(err, "%s:%lld: field '%s' must be >= 1 (got %.15g)", path, line, name, d);
    if (d > (double)max)
        return sim_errf(err, "%s:%lld: field '%s' is absurd (%.15g > %lld)", path, line, name, d,
                        (long long)max);
    *v = (int64_t)d;
    return 0;
}

static int mc_next(void *state, trace_req_t *out, sim_err_t *err)
{
    mc_state_t *s = state;
    const char *text;
    size_t len;
    int rc = trace_lines_next_nonblank(s->lines, &text, &len, err);
    if (rc != TRACE_OK)
        return rc;
    const char *path = trace_lines_path(s->lines);
    long long line = (long long)trace_lines_lineno(s->lines);
    const char *end = NULL;
    /* len + 1: cJSON checks for the terminating NUL inside the length. */
    cJSON *obj = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    if (!obj) {
        long long col = end ? (long long)(end - text) + 1 : 1;
        return sim_errf(err, "%s:%lld: bad JSON (column %lld)", path, line, col);
    }
    rc = TRACE_ERR;
    if (!cJSON_IsObject(obj)) {
        sim_errf(err, "%s:%lld: expected a JSON object", path, line);
        goto done;
    }
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(obj, "timestamp");
    if (!ts) {
        sim_errf(err, "%s:%lld: missing field 'timestamp'", path, line);
        goto done;
    }
    if (!cJSON_IsNumber(ts)) {
        sim_errf(err, "%s:%lld: field 'timestamp' must be a number (ms)", path, line);
        goto done;
    }
    double ms = ts->valuedouble;
    if (ms < 0) {
        sim_errf(err, "%s:%lld: field 'timestamp' is negative (%.15g ms)", path, line, ms);
        goto done;
    }
    if (ms > MC_MAX_TS_MS) {
        sim_errf(err, "%s:%lld: field 'timestamp' is absurd (%.15g ms)", path, line, ms);
        goto done;
    }
    sim_time_t ns = (sim_time_t)llround(ms * 1e6);
    if (ns < s->prev_ns) {
        sim_errf(err, "%s:%lld: field 'timestamp' goes back in time (%.15g ms < previous %.15g ms)",
                 path, line, ms, (double)s->prev_ns / 1e6);
        goto done;
    }
    int64_t in_tok, out_tok;
    if (get_len(obj, "input_length", TRACE_MAX_INPUT_TOK, &in_tok, path, line, err) < 0 ||
        get_len(obj, "output_length", TRACE_MAX_OUTPUT_TOK, &out_tok, path, line, err) < 0)
        goto done;
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(obj, "hash_ids");
    if (!ids) {
        sim_errf(err, "%s:%lld: missing field 'hash_ids'", path, line);
        goto done;
    }
    if (!cJSON_IsArray(ids)) {
        sim_errf(err, "%s:%lld: field 'hash_ids' must be an array", path, line);
        goto done;
    }
    size_t want = (size_t)((in_tok + TRACE_BLOCK_TOK - 1) / TRACE_BLOCK_TOK);
    size_t n = 0;
    const cJSON *id;
    cJSON_ArrayForEach(id, ids) {
        if (!cJSON_IsNumber(id) || id->valuedouble != floor(id->valuedouble)) {
            sim_errf(err, "%s:%lld: hash_ids[%zu] must be an integer", path, line, n);
            goto done;
        }
        if (id->valuedouble < 0) {
            sim_errf(err, "%s:%lld: hash_ids[%zu] is negative (%.15g)", path, line, n,
                     id->valuedouble);
            goto done;
        }
        /* At 2^53 and above a double no longer holds every integer: 2^53 + 1
         * arrives as 2^53, so two different ids would become one. */
        if (id->valuedouble >= MC_MAX_EXACT) {
            sim_errf(err, "%s:%lld: hash_ids[%zu] is too large (%.17g >= 2^53)", path, line, n,
                     id->valuedouble);
            goto done;
        }
        if (n < want) {
            sim_grow((void **)&s->blocks, &s->blocks_cap, n + 1, sizeof *s->blocks,
                     "mooncake.blocks");
            s->blocks[n] = (uint64_t)id->valuedouble;
        }
        n++;
    }
    if (n != want) {
        sim_errf(err, "%s:%lld: hash_ids has %zu ids, expected %zu = ceil(input_length %lld / %d)",
                 path, line, n, want, (long long)in_tok, (int)TRACE_BLOCK_TOK);
        goto done;
    }
    s->prev_ns = ns;
    out->arrival_ns = ns;
    out->input_tok = in_tok;
    out->output_tok = out_tok;
    out->n_blocks = (uint32_t)n;
    out->blocks = s->blocks;
    out->record = line;
    rc = TRACE_OK;
done:
    cJSON_Delete(obj);
    return rc;
}

const trace_source_ops_t trace_source_mooncake = {
    .name = "mooncake",
    .help = "Mooncake JSONL: {timestamp ms, input_length, output_length, hash_ids}",
    .is_generator = 0,
    .open = mc_open,
    .next = mc_next,
    .close = mc_close,
};
