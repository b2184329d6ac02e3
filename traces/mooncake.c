/* traces/mooncake.c: the "mooncake" source, Mooncake FAST'25 JSONL records
 * ({"timestamp": ms, "input_length", "output_length", "hash_ids": [...]}),
 * one per line: read by a typed scanner where the record is plain and
 * valid, else parsed with cJSON, which gives the located error or reads
 * the unusual form (both yield the same record). Invariant: every record yielded is
 * valid (lengths in range, ceil(input/512) ids, timestamps non-decreasing,
 * no field given twice); a timestamp written as a plain decimal is read
 * exactly to the ns from its text (cJSON holds only a double);
 * the first bad record stops the stream with "PATH:LINE: message". */
#include "traces/trace_int.h"

#include <math.h>
#include <string.h>

#include <cJSON.h>

/* Largest integer a double (cJSON's number type) holds exactly. */
#define MC_MAX_EXACT 9007199254740992.0
/* Timestamps past this many ms would overflow int64 ns (about 292 years). */
#define MC_MAX_TS_MS 9.2e12
#define MC_MAX_TS_MS_INT INT64_C(9200000000000)

/* One hash id as the record writes it: an integer, or a string (str
 * borrowed from the line or from cJSON's value until the record is done). */
typedef struct mc_id {
    const char *str; /* NULL: the integer v */
    size_t len;
    uint64_t v;
} mc_id_t;

typedef struct mc_state {
    trace_lines_t *lines;
    uint64_t *blocks;         /* the record's 512-token block ids */
    size_t blocks_cap;
    mc_id_t *ids;             /* the record's hash ids, one per block_size tokens */
    size_t ids_cap;
    int64_t block_tok;        /* the file's block size (trace.block_size) */
    trace_idmap_t map;        /* ids past 2^53 and strings, to dense ids */
    trace_idmap_t reqs;       /* request_id -> key */
    trace_idmap_t sessions;   /* session_id -> session */
    int64_t *deps;            /* the record's wait_for keys */
    size_t deps_cap;
    sim_time_t prev_ns;
    trace_json_arena_t arena; /* the current record's parsed values */
    int oracle;               /* every record through cJSON (fuzzing's oracle) */
} mc_state_t;

/* trace_mooncake_oracle's setting, taken by each reader at its open. */
static _Thread_local int oracle_on;

void trace_mooncake_oracle(int on)
{
    oracle_on = on;
}

static void mc_close(void *state)
{
    mc_state_t *s = state;
    if (!s)
        return;
    trace_lines_close(s->lines);
    trace_json_arena_free(&s->arena);
    trace_idmap_free(&s->map);
    trace_idmap_free(&s->reqs);
    trace_idmap_free(&s->sessions);
    sim_free(s->deps);
    sim_free(s->blocks);
    sim_free(s->ids);
    sim_free(s);
}

/* 1 when tok is a block size the reader re-blocks exactly: a divisor of
 * TRACE_BLOCK_TOK (a pool block is then a whole number of trace blocks). */
static int block_size_ok(int64_t tok)
{
    return tok >= 1 && tok <= TRACE_BLOCK_TOK && TRACE_BLOCK_TOK % tok == 0;
}

static void *mc_open(const trace_open_args_t *args, trace_lines_t *lines, sim_err_t *err)
{
    int64_t bs = args->block_tok ? args->block_tok : TRACE_BLOCK_TOK;
    if (!block_size_ok(bs)) {
        sim_errf(err, "$.trace.block_size: must divide the pool's block of %d tokens (got %lld)",
                 (int)TRACE_BLOCK_TOK, (long long)bs);
        trace_lines_close(lines);
        return NULL;
    }
    mc_state_t *s = sim_xcalloc(1, sizeof *s, "mooncake");
    s->lines = lines;
    s->block_tok = bs;
    s->oracle = oracle_on;
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

/* ---- a timestamp's own text ---- */

/* Past what cJSON skips between tokens (bytes 1..32; lines never hold
 * NUL). */
static inline const char *skip_ws(const char *p)
{
    while ((unsigned char)(*p - 1) < 32)
        p++;
    return p;
}

/* Past the string that starts at p (its opening quote). */
static const char *skip_string(const char *p)
{
    for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && p[1])
            p++;
    return *p ? p + 1 : p;
}

/* Past the value that starts at p (valid JSON: cJSON parsed it). */
static const char *skip_value(const char *p)
{
    if (*p == '"')
        return skip_string(p);
    if (*p != '{' && *p != '[') {
        while (*p && (unsigned char)*p > 32 && !strchr(",]}", *p))
            p++;
        return p;
    }
    int depth = 0;
    while (*p) {
        if (*p == '"') {
            p = skip_string(p);
            continue;
        }
        depth += (*p == '{' || *p == '[') - (*p == '}' || *p == ']');
        p++;
        if (depth == 0)
            break;
    }
    return p;
}

/* The text of the value of member k (0-based) of the object that text
 * holds, or NULL. cJSON keeps an object's members in the text's order,
 * not their text. O(length of the text). */
static const char *member_text(const char *text, int k)
{
    const char *p = text;
    if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
        p += 3; /* a UTF-8 byte order mark, which cJSON skips */
    p = skip_ws(p);
    if (*p != '{')
        return NULL;
    for (int i = 0;; i++) {
        p = skip_ws(p + 1); /* past '{' or ',' */
        if (*p != '"')
            return NULL;
        p = skip_ws(skip_string(p));
        if (*p != ':')
            return NULL;
        p = skip_ws(p + 1);
        if (i == k)
            return p;
        p = skip_ws(skip_value(p));
        if (*p != ',')
            return NULL;
    }
}

enum { TS_EXACT, TS_OTHER, TS_NEGATIVE, TS_ABSURD };

/* A timestamp literal of ms, [-]DIGITS[.DIGITS], into exact ns: TS_EXACT
 * (*ns set) when its fraction has at most 6 significant digits, TS_OTHER
 * for another form (an exponent, a fraction finer than 1 ns: the caller
 * rounds the double), else TS_NEGATIVE or TS_ABSURD (past MC_MAX_TS_MS). */
static int exact_ns(const char *p, sim_time_t *ns)
{
    int neg = *p == '-', nd = 0, nf = 0, big = 0;
    int64_t ms = 0, frac = 0;
    for (p += neg; *p >= '0' && *p <= '9'; p++, nd++) {
        ms = ms * 10 + (*p - '0');
        big |= ms > MC_MAX_TS_MS_INT;
        if (big)
            ms = 0; /* no overflow: the value is refused anyway */
    }
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++) {
            if (nf == 6 && *p != '0')
                return TS_OTHER; /* below 1 ns */
            if (nf < 6) {
                frac = frac * 10 + (*p - '0');
                nf++;
            }
        }
    if (nd == 0 || *p == 'e' || *p == 'E' || *p == '.')
        return TS_OTHER;
    for (; nf < 6; nf++)
        frac *= 10;
    if (neg && (big || ms || frac))
        return TS_NEGATIVE;
    if (big || ms > MC_MAX_TS_MS_INT || (ms == MC_MAX_TS_MS_INT && frac))
        return TS_ABSURD;
    *ns = ms * SIM_NS_PER_MS + frac;
    return TS_EXACT;
}

/* The record's "timestamp" (ms) as ns into *ns: present, a number, within
 * [0, MC_MAX_TS_MS] and not before prev_ns (the previous record's). Read
 * exactly from the record's text where it is a plain decimal (a double's
 * ms x 1e6 is off past 2^53 ns), else rounded from the double. 0, or -1
 * with err at path:line. */
static int get_timestamp(const cJSON *obj, const char *text, sim_time_t prev_ns, sim_time_t *ns,
                         const char *path, long long line, sim_err_t *err)
{
    const cJSON *ts = NULL;
    int k = 0;
    for (const cJSON *it = obj->child; it && !ts; it = it->next, k++)
        if (it->string && strcmp(it->string, "timestamp") == 0)
            ts = it;
    if (!ts)
        return sim_errf(err, "%s:%lld: missing field 'timestamp'", path, line);
    if (!cJSON_IsNumber(ts))
        return sim_errf(err, "%s:%lld: field 'timestamp' must be a number (ms)", path, line);
    double ms = ts->valuedouble;
    const char *lit = member_text(text, k - 1);
    int how = lit ? exact_ns(lit, ns) : TS_OTHER;
    if (how == TS_NEGATIVE || (how == TS_OTHER && ms < 0))
        return sim_errf(err, "%s:%lld: field 'timestamp' is negative (%.15g ms)", path, line, ms);
    if (how == TS_ABSURD || (how == TS_OTHER && ms > MC_MAX_TS_MS))
        return sim_errf(err, "%s:%lld: field 'timestamp' is absurd (%.15g ms)", path, line, ms);
    if (how == TS_OTHER)
        *ns = (sim_time_t)llround(ms * 1e6);
    if (*ns < prev_ns)
        return sim_errf(err,
                        "%s:%lld: field 'timestamp' goes back in time (%.15g ms < previous %.15g ms)",
                        path, line, ms, (double)prev_ns / 1e6);
    return 0;
}

/* An unsigned decimal literal of plain digits at p (no sign, fraction or
 * exponent, up to a delimiter) into *v: 1; 0 for another form; -1 past
 * 2^64 - 1. */
static int plain_uint(const char *p, uint64_t *v)
{
    uint64_t x = 0;
    const char *s = p;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (x > (UINT64_MAX - d) / 10)
            return -1;
        x = x * 10 + d;
    }
    if (p == s || *p == '.' || *p == 'e' || *p == 'E')
        return 0;
    *v = x;
    return 1;
}

/* One integer hash id (lit: its text, or NULL) into *v: a non-negative
 * integer below 2^64, one at or past 2^53 written as plain digits (a
 * double no longer holds every integer there: its text is read). n is
 * its index, for messages. 0, or -1 with err at path:line. */
static int get_id(const cJSON *id, const char *lit, size_t n, uint64_t *v, const char *path,
                  long long line, sim_err_t *err)
{
    /* The usual case first, without floor() (a library call): in range,
     * the id converts to an integer and back unchanged exactly when it is
     * one. NaN and the rest fail it and meet the checks below. (The type
     * test is cJSON_IsNumber's, inline: this runs once per id.) */
    double d = id->valuedouble;
    if ((id->type & 0xFF) == cJSON_Number && d >= 0 && d < MC_MAX_EXACT &&
        (double)(int64_t)d == d) {
        *v = (uint64_t)(int64_t)d;
        return 0;
    }
    if (!cJSON_IsNumber(id))
        return sim_errf(err, "%s:%lld: hash_ids[%zu] must be an integer or a string", path, line,
                        n);
    if (id->valuedouble != floor(id->valuedouble))
        return sim_errf(err, "%s:%lld: hash_ids[%zu] must be an integer", path, line, n);
    if (id->valuedouble < 0)
        return sim_errf(err, "%s:%lld: hash_ids[%zu] is negative (%.15g)", path, line, n,
                        id->valuedouble);
    int how = lit ? plain_uint(lit, v) : 0;
    if (how < 0)
        return sim_errf(err, "%s:%lld: hash_ids[%zu] is too large (%.*s >= 2^64)", path, line, n,
                        (int)SIM_MIN(skip_value(lit) - lit, 40), lit);
    if (how == 0)
        return sim_errf(err, "%s:%lld: hash_ids[%zu] is too large for its form (%.17g >= 2^53: "
                        "write such an id as plain digits)", path, line, n, id->valuedouble);
    return 0;
}

/* 1 when the number literal at p ([-]DIGITS[.DIGITS][(e|E)[+-]DIGITS],
 * valid JSON) is an integer, judged on its digits: 4503599627370496.5
 * is not, though its nearest double is; 1.5e1 and 100e-2 are. */
static int literal_integral(const char *p)
{
    int nz = 0, tz_int = 0, nf_sig = 0;
    long e = 0;
    if (*p == '-')
        p++;
    for (; *p >= '0' && *p <= '9'; p++) {
        tz_int = *p == '0' ? tz_int + 1 : 0;
        nz |= *p != '0';
    }
    if (*p == '.')
        for (int i = 1; *++p >= '0' && *p <= '9'; i++)
            if (*p != '0') {
                nf_sig = i;
                nz = 1;
            }
    if (*p == 'e' || *p == 'E') {
        int neg = *++p == '-';
        p += *p == '-' || *p == '+';
        for (; *p >= '0' && *p <= '9'; p++)
            if (e < 1000000) /* past any digit count: the sign decides */
                e = e * 10 + (*p - '0');
        e = neg ? -e : e;
    }
    /* The digits times 10^(e - nf_sig), whose trailing zeros (only in the
     * integer part when the fraction has a nonzero digit) lift it. */
    return !nz || e - nf_sig + (nf_sig ? 0 : tz_int) >= 0;
}

/* The index of the first element of the array whose text starts at p
 * that is a number with a fraction or an exponent making it no integer,
 * its literal into *lit; -1 when there is none before the first element
 * that is neither a number nor a string (get_id refuses that one first).
 * The cJSON path's (the scanner refuses such a literal itself). */
static long first_fraction(const char *p, const char **lit)
{
    if (!p || *p != '[')
        return -1;
    p = skip_ws(p + 1);
    for (long i = 0; *p == '-' || (*p >= '0' && *p <= '9') || *p == '"'; i++) {
        if (*p != '"' && !literal_integral(p)) {
            *lit = p;
            return i;
        }
        p = skip_ws(skip_value(p));
        if (*p != ',')
            return -1;
        p = skip_ws(p + 1);
    }
    return -1;
}

/* The record's n hash ids (s->ids, one per bs tokens of in_tok) as
 * 512-token block ids into s->blocks: block k is named by the last trace
 * block it contains (exact for chained hashes; a partial last block by
 * the last id), mapped to a dense id where it is a string or past 2^53.
 * Only the ids that name a block are mapped. 0, or -1 when the map is
 * full. */
static int reblock(mc_state_t *s, size_t n, int64_t in_tok, int64_t bs)
{
    size_t nb = (size_t)((in_tok + TRACE_BLOCK_TOK - 1) / TRACE_BLOCK_TOK);
    size_t r = (size_t)(TRACE_BLOCK_TOK / bs);
    sim_grow((void **)&s->blocks, &s->blocks_cap, nb, sizeof *s->blocks, "mooncake.blocks");
    for (size_t k = 0; k < nb; k++) {
        const mc_id_t *id = &s->ids[SIM_MIN((k + 1) * r, n) - 1];
        if (id->str) {
            if (trace_idmap_str(&s->map, id->str, id->len, &s->blocks[k]) != 0)
                return -1;
        } else if (id->v >= TRACE_MAPPED_ID_BASE) {
            if (trace_idmap_int(&s->map, id->v, &s->blocks[k]) != 0)
                return -1;
        } else {
            s->blocks[k] = id->v;
        }
    }
    return 0;
}

/* The record's "block_size" (tokens per hash id) into *bs when present:
 * an integer dividing TRACE_BLOCK_TOK. 0, or -1 with err at path:line. */
static int get_block_size(const cJSON *obj, int64_t *bs, const char *path, long long line,
                          sim_err_t *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, "block_size");
    if (!it)
        return 0;
    if (!cJSON_IsNumber(it))
        return sim_errf(err, "%s:%lld: field 'block_size' must be a number", path, line);
    double d = it->valuedouble;
    if (d != floor(d) || !(d >= 1 && d <= TRACE_BLOCK_TOK) || !block_size_ok((int64_t)d))
        return sim_errf(err, "%s:%lld: field 'block_size' must divide the pool's block of %d "
                        "tokens (got %.15g)", path, line, (int)TRACE_BLOCK_TOK, d);
    *bs = (int64_t)d;
    return 0;
}

/* The record's "hash_ids" (parsed from text) into s->blocks, *n_out
 * 512-token blocks: an array of exactly ceil(in_tok / bs) valid ids,
 * integers or non-empty strings (every id is checked before the count;
 * each integer judged on its text), re-blocked. 0, or -1 with err at
 * path:line. */
static int get_blocks(mc_state_t *s, const cJSON *obj, const char *text, int64_t in_tok,
                      int64_t bs, uint32_t *n_out, const char *path, long long line,
                      sim_err_t *err)
{
    const cJSON *ids = NULL;
    int k = 0;
    for (const cJSON *it = obj->child; it && !ids; it = it->next, k++)
        if (it->string && strcmp(it->string, "hash_ids") == 0)
            ids = it;
    if (!ids)
        return sim_errf(err, "%s:%lld: missing field 'hash_ids'", path, line);
    if (!cJSON_IsArray(ids))
        return sim_errf(err, "%s:%lld: field 'hash_ids' must be an array", path, line);
    const char *lit = NULL, *arr = member_text(text, k - 1);
    long bad = first_fraction(arr, &lit);
    /* Each element's own text, walked beside cJSON's values. */
    const char *el = arr && *arr == '[' ? skip_ws(arr + 1) : NULL;
    size_t want = (size_t)((in_tok + bs - 1) / bs);
    size_t n = 0;
    const cJSON *id;
    cJSON_ArrayForEach(id, ids) {
        if (bad >= 0 && n == (size_t)bad)
            return sim_errf(err, "%s:%lld: hash_ids[%zu] must be an integer (got %.*s)", path,
                            line, n, (int)SIM_MIN(skip_value(lit) - lit, 40), lit);
        sim_grow((void **)&s->ids, &s->ids_cap, n + 1, sizeof *s->ids, "mooncake.ids");
        mc_id_t *x = &s->ids[n];
        *x = (mc_id_t){0};
        if (cJSON_IsString(id)) {
            x->str = id->valuestring;
            x->len = strlen(id->valuestring);
            if (x->len == 0)
                return sim_errf(err, "%s:%lld: hash_ids[%zu] is an empty string", path, line, n);
        } else if (get_id(id, el, n, &x->v, path, line, err) != 0) {
            return -1;
        }
        if (el) {
            el = skip_ws(skip_value(el));
            el = *el == ',' ? skip_ws(el + 1) : NULL;
        }
        n++;
    }
    if (n != want)
        return sim_errf(err,
                        "%s:%lld: hash_ids has %zu ids, expected %zu = ceil(input_length %lld / %lld)",
                        path, line, n, want, (long long)in_tok, (long long)bs);
    if (reblock(s, n, in_tok, bs) != 0)
        return sim_errf(err, "%s:%lld: more than %u distinct hash ids past 2^53 or strings", path,
                        line, (unsigned)UINT32_MAX - 1);
    *n_out = (uint32_t)((in_tok + TRACE_BLOCK_TOK - 1) / TRACE_BLOCK_TOK);
    return 0;
}

/* ---- agentic sessions ----
 * The fields of agentic Mooncake rows (NVIDIA Dynamo's): request_id (a
 * string or an integer: what later rows wait on), session_id, wait_for
 * (the request_ids of earlier rows this one waits on), delay and
 * tool_wait_ms (ms after the last of them finishes). Read on the cJSON
 * path only (the scanner leaves a row holding any of them). */

/* A request or session id (a non-empty string, or an integer in
 * [0, 2^53)) through map m into *key (1-based, dense). insert: 1 when it
 * must be new (a row's own request_id), 0 when it must be known (a
 * wait_for entry), -1 either. what names it in messages. 0, or -1 with
 * err at path:line. */
static int get_key(trace_idmap_t *m, const cJSON *it, int insert, const char *what,
                   int64_t *key, const char *path, long long line, sim_err_t *err)
{
    uint32_t before = m->n;
    uint64_t id;
    int rc;
    char txt[48];
    if (cJSON_IsString(it) && it->valuestring[0]) {
        rc = trace_idmap_str(m, it->valuestring, strlen(it->valuestring), &id);
        snprintf(txt, sizeof txt, "'%.40s'", it->valuestring);
    } else if (cJSON_IsNumber(it) && it->valuedouble >= 0 && it->valuedouble < MC_MAX_EXACT &&
               it->valuedouble == floor(it->valuedouble)) {
        rc = trace_idmap_int(m, (uint64_t)it->valuedouble, &id);
        snprintf(txt, sizeof txt, "%.15g", it->valuedouble);
    } else {
        return sim_errf(err, "%s:%lld: %s must be a non-empty string or an integer in [0, 2^53)",
                        path, line, what);
    }
    if (rc != 0)
        return sim_errf(err, "%s:%lld: more than %u distinct ids", path, line,
                        (unsigned)UINT32_MAX - 1);
    int fresh = m->n != before;
    if (insert == 1 && !fresh)
        return sim_errf(err, "%s:%lld: %s %s repeats an earlier row's", path, line, what, txt);
    if (insert == 0 && fresh)
        return sim_errf(err, "%s:%lld: %s %s is no earlier row's request_id", path, line, what,
                        txt);
    *key = (int64_t)(id - TRACE_MAPPED_ID_BASE) + 1;
    return 0;
}

/* A duration field in ms (absent: 0) added to *ns: a number in
 * [0, MC_MAX_TS_MS]. 0, or -1 with err at path:line. */
static int get_wait(const cJSON *obj, const char *name, sim_time_t *ns, const char *path,
                    long long line, sim_err_t *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!it)
        return 0;
    if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0 && it->valuedouble <= MC_MAX_TS_MS))
        return sim_errf(err, "%s:%lld: field '%s' must be a number of ms in [0, %.3g]", path,
                        line, name, MC_MAX_TS_MS);
    *ns += (sim_time_t)llround(it->valuedouble * 1e6);
    return *ns <= MC_MAX_TS_MS_INT * SIM_NS_PER_MS ? 0
           : sim_errf(err, "%s:%lld: delay plus tool_wait_ms is absurd", path, line);
}

/* The agentic fields of a record into out (deps borrowed from s), over
 * the zeroes trace.c's next_record put there. 0, or -1 with err at
 * path:line. wait_for is resolved before the row's own
 * request_id is taken, so a row cannot wait on itself. */
static int get_agentic(mc_state_t *s, const cJSON *obj, trace_req_t *out, const char *path,
                       long long line, sim_err_t *err)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(obj, "wait_for");
    const cJSON *rid = cJSON_GetObjectItemCaseSensitive(obj, "request_id");
    const cJSON *sid = cJSON_GetObjectItemCaseSensitive(obj, "session_id");
    if (w && !cJSON_IsArray(w))
        return sim_errf(err, "%s:%lld: field 'wait_for' must be an array of request_ids", path,
                        line);
    size_t n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, w) {
        char what[40];
        snprintf(what, sizeof what, "wait_for[%zu]", n);
        sim_grow((void **)&s->deps, &s->deps_cap, n + 1, sizeof *s->deps, "mooncake.deps");
        if (get_key(&s->reqs, it, 0, what, &s->deps[n], path, line, err) != 0)
            return -1;
        n++;
    }
    if (get_wait(obj, "delay", &out->wait_ns, path, line, err) != 0 ||
        get_wait(obj, "tool_wait_ms", &out->wait_ns, path, line, err) != 0)
        return -1;
    if (rid && get_key(&s->reqs, rid, 1, "request_id", &out->key, path, line, err) != 0)
        return -1;
    if (sid && get_key(&s->sessions, sid, -1, "session_id", &out->session, path, line, err) != 0)
        return -1;
    out->n_deps = (uint32_t)n;
    out->deps = n ? s->deps : NULL;
    return 0;
}

/* ---- the typed scanner ----
 * The usual record read without a tree: one pass over the line that
 * accepts only a strict subset of what cJSON accepts (plain strings
 * without escapes, numbers of JSON's own grammar and at most
 * SCAN_MAX_NUM bytes, nesting up to SCAN_MAX_DEPTH) and yields a record
 * only when every check of mc_record passes. Anything else (an error, a
 * duplicate field, a fraction in a length, an escape in a key) is left to
 * the cJSON path, which reads it with the located messages: so a record
 * comes out identical either way, and an error reads identically. */

/* cJSON 1.7.15 reads at most 63 bytes of a number literal; longer ones
 * take the cJSON path, whatever it makes of them. */
#define SCAN_MAX_NUM 40
#define SCAN_MAX_DEPTH 32

/* Past the plain string whose opening quote is at p, or NULL (an escape,
 * a control byte, no closing quote). */
static const char *scan_string(const char *p)
{
    for (p++;; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            return p + 1;
        if (c < 0x20 || c == '\\')
            return NULL;
    }
}

/* Past the JSON number (RFC 8259 grammar, at most SCAN_MAX_NUM bytes)
 * at p, or NULL. */
static const char *scan_number(const char *p)
{
    const char *s = p;
    p += *p == '-';
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9')
            p++;
    else
        return NULL;
    if (*p == '.') {
        if (!(*++p >= '0' && *p <= '9'))
            return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        p += *p == '+' || *p == '-';
        if (!(*p >= '0' && *p <= '9'))
            return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return p - s <= SCAN_MAX_NUM ? p : NULL;
}

/* Past the value at p (any JSON value within the scanner's subset), or
 * NULL. */
static const char *scan_value(const char *p, int depth)
{
    switch (*p) {
    case '"':
        return scan_string(p);
    case '{':
    case '[': {
        char close = *p == '{' ? '}' : ']';
        if (depth >= SCAN_MAX_DEPTH)
            return NULL;
        p = skip_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (close == '}') {
                if (*p != '"' || !(p = scan_string(p)))
                    return NULL;
                p = skip_ws(p);
                if (*p != ':')
                    return NULL;
                p = skip_ws(p + 1);
            }
            if (!(p = scan_value(p, depth + 1)))
                return NULL;
            p = skip_ws(p);
            if (*p == close)
                return p + 1;
            if (*p != ',')
                return NULL;
            p = skip_ws(p + 1);
        }
    }
    case 't':
        return strncmp(p, "true", 4) == 0 ? p + 4 : NULL;
    case 'f':
        return strncmp(p, "false", 5) == 0 ? p + 5 : NULL;
    case 'n':
        return strncmp(p, "null", 4) == 0 ? p + 4 : NULL;
    default:
        return scan_number(p);
    }
}

/* The count of leading digits of the 8 bytes at p when 1 to 7 (p's line
 * is readable that far: TRACE_LINE_PAD), their value into *v; else 0.
 * Byte by byte b = c ^ '0' is below 10 exactly for a digit c, and bit 7
 * of ((b & 0x7f) + 0x76) | b is set exactly when b >= 10, with no carry
 * between bytes (0x7f + 0x76 < 0x100): the first such bit ends the
 * digits. Shifted to the top, the digits combine in pairs, fours and
 * eights by multiplications whose fields never overlap (the usual eight
 * digits in three steps; leading zero bytes add nothing). */
static inline int scan_digits8(const char *p, uint64_t *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t x;
    memcpy(&x, p, sizeof x);
    x ^= UINT64_C(0x3030303030303030);
    uint64_t stop = (((x & UINT64_C(0x7f7f7f7f7f7f7f7f)) + UINT64_C(0x7676767676767676)) | x) &
                    UINT64_C(0x8080808080808080);
    if (stop == 0 || (stop & 0x80))
        return 0; /* 8 digits or more, or none */
    int n = __builtin_ctzll(stop) >> 3;
    x <<= 64 - 8 * n;
    x = ((x & UINT64_C(0x0f0f0f0f0f0f0f0f)) * 2561) >> 8;
    x = ((x & UINT64_C(0x00ff00ff00ff00ff)) * 6553601) >> 16;
    *v = ((x & UINT64_C(0x0000ffff0000ffff)) * UINT64_C(42949672960001)) >> 32;
    return n;
#else
    (void)p;
    (void)v;
    return 0;
#endif
}

/* An unsigned integer without sign, fraction, exponent or leading zero,
 * of at most max_digits digits, into *v; past it, or NULL. */
static inline const char *scan_uint(const char *p, int max_digits, uint64_t *v)
{
    const char *s = p;
    uint64_t x = 0;
    unsigned d;
    int n = scan_digits8(p, &x);
    if (n > 0) { /* the usual short integer */
        if (n > max_digits || (n > 1 && *p == '0'))
            return NULL;
        *v = x;
        p += n;
    } else if (*p == '0') {
        *v = 0;
        p++;
        if (*p >= '0' && *p <= '9') /* a leading zero */
            return NULL;
    } else {
        /* Every digit, then the count judged (x may wrap past 19 digits:
         * that many are refused). */
        while ((d = (unsigned)(unsigned char)*p - '0') < 10) {
            x = x * 10 + d;
            p++;
        }
        if (p == s || p - s > max_digits)
            return NULL;
        *v = x;
    }
    /* A fraction or exponent after it: another form. */
    if (*p == '.' || *p == 'e' || *p == 'E')
        return NULL;
    return p;
}

/* A timestamp literal DIGITS[.DIGITS] (no sign, no exponent, a fraction
 * of at most 6 significant digits: exact_ns's TS_EXACT form) into *ns;
 * past it, or NULL. */
static const char *scan_timestamp(const char *p, sim_time_t *ns)
{
    const char *q = scan_number(p);
    if (!q || *p == '-' || memchr(p, 'e', (size_t)(q - p)) || memchr(p, 'E', (size_t)(q - p)))
        return NULL;
    return exact_ns(p, ns) == TS_EXACT ? q : NULL;
}

/* The array of hash ids at p into s->ids, *n_out of them: integers in
 * scan_uint's form below 10^19 (one past 2^53 is mapped by reblock) and
 * non-empty plain strings; past it, or NULL. Each integer goes to
 * s->blocks[k] too, and *plain says whether every id is an integer below
 * TRACE_MAPPED_ID_BASE: then, with 512-token trace blocks, s->blocks
 * already holds what reblock would write (block k named by id k, as it
 * is). */
static const char *scan_ids(mc_state_t *s, const char *p, size_t *n_out, int *plain)
{
    size_t n = 0;
    uint64_t all = 0; /* every integer id or-ed: below the base iff each is (a power of two) */
    int strs = 0;
    if (*p != '[')
        return NULL;
    p = skip_ws(p + 1);
    if (*p == ']') {
        *n_out = 0;
        *plain = 1;
        return p + 1;
    }
    for (;;) {
        if (n == s->ids_cap || n == s->blocks_cap) { /* (the cJSON path grows ids alone) */
            sim_grow((void **)&s->ids, &s->ids_cap, n + 1, sizeof *s->ids, "mooncake.ids");
            sim_grow((void **)&s->blocks, &s->blocks_cap, n + 1, sizeof *s->blocks,
                     "mooncake.blocks");
        }
        mc_id_t *x = &s->ids[n];
        if (*p == '"') {
            const char *q = scan_string(p);
            if (!q || q == p + 2)
                return NULL;
            *x = (mc_id_t){.str = p + 1, .len = (size_t)(q - p - 2)};
            strs = 1;
            p = q;
        } else {
            x->str = NULL;
            if (!(p = scan_uint(p, 19, &x->v)))
                return NULL;
            s->blocks[n] = x->v;
            all |= x->v;
        }
        n++;
        p = skip_ws(p);
        if (*p == ']') {
            *n_out = n;
            *plain = !strs && all < TRACE_MAPPED_ID_BASE;
            return p + 1;
        }
        if (*p != ',')
            return NULL;
        p = skip_ws(p + 1);
    }
}

/* 1 when the key of klen bytes is one of the agentic fields. */
static int is_agentic_key(const char *key, size_t klen)
{
    static const char *const names[] = {"request_id", "session_id", "wait_for", "delay",
                                        "tool_wait_ms"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == klen && memcmp(key, names[i], klen) == 0)
            return 1;
    return 0;
}

enum { F_TS = 1, F_IN = 2, F_OUT = 4, F_IDS = 8, F_BS = 16 };

/* The record in text into *out (blocks borrowed from s; no agentic
 * fields, which stay as trace.c's next_record zeroed them) when the
 * scanner's subset holds it and every field is valid: 1; else 0, out
 * and s->prev_ns untouched. O(length of the line). */
static int mc_scan(mc_state_t *s, const char *text, trace_req_t *out)
{
    const char *p = skip_ws(text);
    unsigned seen = 0;
    sim_time_t ns = 0;
    uint64_t in_tok = 0, out_tok = 0, bs = (uint64_t)s->block_tok;
    size_t n = 0;
    int plain = 0;
    if (*p != '{')
        return 0;
    p = skip_ws(p + 1);
    for (;;) {
        if (*p != '"')
            return 0;
        const char *key = p + 1;
        if (!(p = scan_string(p)))
            return 0;
        size_t klen = (size_t)(p - 1 - key);
        p = skip_ws(p);
        if (*p != ':')
            return 0;
        p = skip_ws(p + 1);
        unsigned f = 0;
        if (klen == 9 && memcmp(key, "timestamp", 9) == 0) {
            f = F_TS;
            p = scan_timestamp(p, &ns);
        } else if (klen == 12 && memcmp(key, "input_length", 12) == 0) {
            f = F_IN;
            p = scan_uint(p, 9, &in_tok);
        } else if (klen == 13 && memcmp(key, "output_length", 13) == 0) {
            f = F_OUT;
            p = scan_uint(p, 9, &out_tok);
        } else if (klen == 10 && memcmp(key, "block_size", 10) == 0) {
            f = F_BS;
            p = scan_uint(p, 3, &bs);
            if (p && !block_size_ok((int64_t)bs))
                return 0;
        } else if (klen == 8 && memcmp(key, "hash_ids", 8) == 0) {
            f = F_IDS;
            p = scan_ids(s, p, &n, &plain);
        } else if (is_agentic_key(key, klen)) {
            return 0; /* the cJSON path reads them */
        } else {
            p = scan_value(p, 1);
        }
        if (!p || (seen & f))
            return 0;
        seen |= f;
        p = skip_ws(p);
        if (*p == '}')
            break;
        if (*p != ',')
            return 0;
        p = skip_ws(p + 1);
    }
    if (*skip_ws(p + 1) != '\0' || (seen | F_BS) != (F_TS | F_IN | F_OUT | F_IDS | F_BS))
        return 0;
    if (in_tok < 1 || in_tok > (uint64_t)TRACE_MAX_INPUT_TOK || out_tok < 1 ||
        out_tok > (uint64_t)TRACE_MAX_OUTPUT_TOK || ns < s->prev_ns ||
        n != (in_tok + bs - 1) / bs ||
        (!(plain && bs == TRACE_BLOCK_TOK) && reblock(s, n, (int64_t)in_tok, (int64_t)bs) != 0))
        return 0;
    s->prev_ns = ns;
    out->arrival_ns = ns;
    out->input_tok = (int64_t)in_tok;
    out->output_tok = (int64_t)out_tok;
    out->n_blocks = (uint32_t)((in_tok + TRACE_BLOCK_TOK - 1) / TRACE_BLOCK_TOK);
    out->blocks = s->blocks;
    return 1;
}

/* The fields the reader takes. cJSON keeps every duplicate and finds the
 * first, so {"input_length": 10, "input_length": 20} would read as 10
 * where another parser reads 20: a duplicate of one of these is an error
 * (as in configs). Others are ignored, their duplicates too. */
static const char *const mc_fields[] = {"timestamp", "input_length", "output_length", "hash_ids",
                                        "block_size", "request_id", "session_id", "wait_for",
                                        "delay", "tool_wait_ms"};
#define MC_N_FIELDS (sizeof mc_fields / sizeof mc_fields[0])

/* 0, or -1 with err at path:line naming the first duplicated field. One
 * pass over the record's keys: O(keys x 4). */
static int check_duplicates(const cJSON *obj, const char *path, long long line, sim_err_t *err)
{
    unsigned seen = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, obj) {
        for (unsigned i = 0; i < MC_N_FIELDS; i++) {
            /* Most names differ in their first byte: most pairs end there. */
            if (!it->string || it->string[0] != mc_fields[i][0] ||
                strcmp(it->string, mc_fields[i]) != 0)
                continue;
            if (seen & (1u << i))
                return sim_errf(err, "%s:%lld: duplicate field '%s'", path, line, mc_fields[i]);
            seen |= 1u << i;
        }
    }
    return 0;
}

/* The request of one parsed record (obj, parsed from text) into *out (its
 * blocks borrowed from s until the next record). 0, or -1 with err at path:line on the first
 * invalid field, checked in record order. */
static int mc_record(mc_state_t *s, const cJSON *obj, const char *text, trace_req_t *out,
                     const char *path, long long line, sim_err_t *err)
{
    if (!cJSON_IsObject(obj))
        return sim_errf(err, "%s:%lld: expected a JSON object", path, line);
    sim_time_t ns = 0;
    int64_t in_tok, out_tok, bs = s->block_tok;
    uint32_t n = 0;
    if (check_duplicates(obj, path, line, err) != 0 ||
        get_timestamp(obj, text, s->prev_ns, &ns, path, line, err) != 0 ||
        get_len(obj, "input_length", TRACE_MAX_INPUT_TOK, &in_tok, path, line, err) < 0 ||
        get_len(obj, "output_length", TRACE_MAX_OUTPUT_TOK, &out_tok, path, line, err) < 0 ||
        get_block_size(obj, &bs, path, line, err) != 0 ||
        get_blocks(s, obj, text, in_tok, bs, &n, path, line, err) != 0 ||
        get_agentic(s, obj, out, path, line, err) != 0)
        return -1;
    s->prev_ns = ns;
    out->arrival_ns = ns;
    out->input_tok = in_tok;
    out->output_tok = out_tok;
    out->n_blocks = n;
    out->blocks = s->blocks;
    out->record = line;
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
    if (!s->oracle && mc_scan(s, text, out)) {
        out->record = trace_lines_lineno(s->lines);
        return TRACE_OK;
    }
    const char *path = trace_lines_path(s->lines);
    long long line = (long long)trace_lines_lineno(s->lines);
    const char *end = NULL;
    cJSON *obj = trace_json_parse(&s->arena, text, len, &end);
    if (!obj) {
        long long col = end ? (long long)(end - text) + 1 : 1;
        if (end && trace_json_too_deep(text, end))
            return sim_errf(err, "%s:%lld: JSON nested deeper than %d levels (column %lld)",
                            path, line, (int)CJSON_NESTING_LIMIT, col);
        return sim_errf(err, "%s:%lld: bad JSON (column %lld)", path, line, col);
    }
    rc = mc_record(s, obj, text, out, path, line, err) == 0 ? TRACE_OK : TRACE_ERR;
    trace_json_release(&s->arena, obj);
    return rc;
}

const trace_source_ops_t trace_source_mooncake = {
    .name = "mooncake",
    .help = "Mooncake JSONL: {timestamp ms, input_length, output_length, hash_ids}, optional "
            "block_size and agentic request_id, session_id, wait_for, delay, tool_wait_ms",
    .is_generator = 0,
    .open_lines = mc_open,
    .next = mc_next,
    .close = mc_close,
};
