/* traces/azure.c: the "azure" source, the Azure LLM inference CSV traces
 * (TIMESTAMP,ContextTokens,GeneratedTokens). Timestamps (any year 0000 to
 * 9999) become ns from the first record by exact integer calendar
 * arithmetic (no mktime, no time zone), within AZ_MAX_SPAN_S of it. The trace has no prefix hashes, so every request gets fresh block
 * ids from a counter: no two requests share a block. */
#include "traces/trace_int.h"

#include <stdio.h>
#include <string.h>

#define AZ_HEADER "TIMESTAMP,ContextTokens,GeneratedTokens"

typedef struct az_state {
    trace_lines_t *lines;
    uint64_t *blocks;
    size_t blocks_cap;
    uint64_t next_id;
    int have_first;
    int64_t first_s;       /* seconds since 1970 of the first record */
    int64_t first_frac_ns; /* and its ns past that second */
    sim_time_t prev_ns;
} az_state_t;

static void az_close(void *state)
{
    az_state_t *s = state;
    if (!s)
        return;
    trace_lines_close(s->lines);
    sim_free(s->blocks);
    sim_free(s);
}

static void *az_open(const trace_open_args_t *args, trace_lines_t *lines, sim_err_t *err)
{
    const char *text;
    size_t len;
    int rc = trace_lines_next_nonblank(lines, &text, &len, err);
    if (rc == TRACE_END)
        sim_errf(err, "%s:1: missing header (expected %s)", args->path, AZ_HEADER);
    else if (rc == TRACE_OK && strcmp(text, AZ_HEADER) != 0)
        sim_errf(err, "%s:%lld: bad header '%.64s' (expected %s)", args->path,
                 (long long)trace_lines_lineno(lines), text, AZ_HEADER);
    else if (rc == TRACE_OK) {
        az_state_t *s = sim_xcalloc(1, sizeof *s, "azure");
        s->lines = lines;
        return s;
    }
    trace_lines_close(lines);
    return NULL;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
 * (H. Hinnant's days_from_civil). Exact for any int64 year in range. */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int days_in_month(int64_t y, int64_t m)
{
    static const int dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return dim[m - 1] + (m == 2 && leap);
}

/* n decimal digits at *p into *v, advancing *p; 0 or -1. */
static int digits(const char **p, const char *end, int n, int64_t *v)
{
    int64_t x = 0;
    for (int i = 0; i < n; i++) {
        if (*p >= end || **p < '0' || **p > '9')
            return -1;
        x = x * 10 + (**p - '0');
        (*p)++;
    }
    *v = x;
    return 0;
}

static int expect(const char **p, const char *end, char c)
{
    if (*p >= end || **p != c)
        return -1;
    (*p)++;
    return 0;
}

/* A relative arrival (ns from the first row) stays within this many
 * seconds, about 292 years, as in Mooncake traces (int64 ns). */
#define AZ_MAX_SPAN_S INT64_C(9200000000)

enum { TS_OK = 0, TS_FORM = -1, TS_DATE = -2 };

/* "YYYY-MM-DD HH:MM:SS[.f{1,9}]", any year 0000 to 9999 of the proleptic
 * Gregorian calendar (UTC), into seconds since 1970 (*s) and ns (*ns).
 * TS_OK; TS_FORM when the text has another form; TS_DATE when a field is
 * out of its range, *what naming it ("month 13"). */
static int parse_timestamp(const char *s, size_t n, int64_t *sec_out, int64_t *ns_out,
                           char *what, size_t what_len)
{
    const char *p = s, *end = s + n;
    int64_t y, mo, d, h, mi, sec, frac = 0;
    if (digits(&p, end, 4, &y) || expect(&p, end, '-') || digits(&p, end, 2, &mo) ||
        expect(&p, end, '-') || digits(&p, end, 2, &d) || expect(&p, end, ' ') ||
        digits(&p, end, 2, &h) || expect(&p, end, ':') || digits(&p, end, 2, &mi) ||
        expect(&p, end, ':') || digits(&p, end, 2, &sec))
        return TS_FORM;
    if (p < end) {
        if (expect(&p, end, '.') || p == end)
            return TS_FORM;
        int nd = 0;
        while (p < end && nd < 9 && *p >= '0' && *p <= '9') {
            frac = frac * 10 + (*p++ - '0');
            nd++;
        }
        if (p != end)
            return TS_FORM; /* not a digit, or more than 9 (finer than ns) */
        for (; nd < 9; nd++)
            frac *= 10;
    }
    const char *field = NULL;
    int64_t v = 0;
    if (mo < 1 || mo > 12)
        field = "month", v = mo;
    else if (d < 1 || d > days_in_month(y, mo))
        field = "day", v = d;
    else if (h > 23)
        field = "hour", v = h;
    else if (mi > 59)
        field = "minute", v = mi;
    else if (sec > 59)
        field = "second", v = sec;
    if (field) {
        snprintf(what, what_len, "%s %02lld", field, (long long)v);
        return TS_DATE;
    }
    /* Seconds since 1970 of years 0000..9999: within +-3.2e11, no overflow. */
    *sec_out = ((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60 + sec;
    *ns_out = frac;
    return TS_OK;
}

/* A decimal token count (digits only) into *v; 0 or -1 (also on overflow
 * past 18 digits, which no valid count reaches). */
static int parse_count(const char *s, size_t n, int64_t *v)
{
    if (n == 0 || n > 18)
        return -1;
    int64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        x = x * 10 + (s[i] - '0');
    }
    *v = x;
    return 0;
}

static int az_next(void *state, trace_req_t *out, sim_err_t *err)
{
    az_state_t *s = state;
    const char *text;
    size_t len;
    int rc = trace_lines_next_nonblank(s->lines, &text, &len, err);
    if (rc != TRACE_OK)
        return rc;
    const char *path = trace_lines_path(s->lines);
    long long line = (long long)trace_lines_lineno(s->lines);
    const char *c1 = memchr(text, ',', len);
    const char *c2 = c1 ? memchr(c1 + 1, ',', len - (size_t)(c1 + 1 - text)) : NULL;
    if (!c2 || memchr(c2 + 1, ',', len - (size_t)(c2 + 1 - text)))
        return sim_errf(err, "%s:%lld: bad row: expected 3 fields (%s)", path, line, AZ_HEADER);
    int64_t abs_s, frac_ns, in_tok, out_tok;
    int tlen = (int)SIM_MIN(c1 - text, 64);
    char what[48];
    int ts = parse_timestamp(text, (size_t)(c1 - text), &abs_s, &frac_ns, what, sizeof what);
    if (ts == TS_FORM)
        return sim_errf(err, "%s:%lld: bad TIMESTAMP '%.*s' (expected YYYY-MM-DD "
                             "HH:MM:SS[.fffffff], up to 9 fractional digits)",
                        path, line, tlen, text);
    if (ts == TS_DATE)
        return sim_errf(err, "%s:%lld: bad TIMESTAMP '%.*s': %s out of range", path, line, tlen,
                        text, what);
    if (parse_count(c1 + 1, (size_t)(c2 - c1 - 1), &in_tok) < 0)
        return sim_errf(err, "%s:%lld: bad ContextTokens '%.*s' (expected an integer)", path, line,
                        (int)SIM_MIN(c2 - c1 - 1, 64), c1 + 1);
    const char *e = text + len;
    if (parse_count(c2 + 1, (size_t)(e - c2 - 1), &out_tok) < 0)
        return sim_errf(err, "%s:%lld: bad GeneratedTokens '%.*s' (expected an integer)", path,
                        line, (int)SIM_MIN(e - c2 - 1, 64), c2 + 1);
    if (in_tok < 1 || in_tok > TRACE_MAX_INPUT_TOK)
        return sim_errf(err, "%s:%lld: ContextTokens %lld out of range [1, %lld]", path, line,
                        (long long)in_tok, (long long)TRACE_MAX_INPUT_TOK);
    if (out_tok < 1 || out_tok > TRACE_MAX_OUTPUT_TOK)
        return sim_errf(err, "%s:%lld: GeneratedTokens %lld out of range [1, %lld]", path, line,
                        (long long)out_tok, (long long)TRACE_MAX_OUTPUT_TOK);
    if (!s->have_first) {
        s->have_first = 1;
        s->first_s = abs_s;
        s->first_frac_ns = frac_ns;
    }
    /* From the first row, in int64: seconds first (a span of 10^4 years
     * fits), ns once the span is known to be in range. */
    int64_t span_s = abs_s - s->first_s;
    if (span_s < 0 || (span_s == 0 && frac_ns < s->first_frac_ns))
        return sim_errf(err, "%s:%lld: TIMESTAMP '%.*s' goes back in time (before the first row)",
                        path, line, tlen, text);
    if (span_s > AZ_MAX_SPAN_S)
        return sim_errf(err, "%s:%lld: TIMESTAMP '%.*s' out of range: more than %lld s (about "
                             "292 years) after the first row",
                        path, line, tlen, text, (long long)AZ_MAX_SPAN_S);
    sim_time_t ns = span_s * SIM_NS_PER_S + frac_ns - s->first_frac_ns;
    if (ns < s->prev_ns)
        return sim_errf(err, "%s:%lld: TIMESTAMP '%.*s' goes back in time (before the previous row)",
                        path, line, (int)(c1 - text), text);
    size_t n = (size_t)((in_tok + TRACE_BLOCK_TOK - 1) / TRACE_BLOCK_TOK);
    sim_grow((void **)&s->blocks, &s->blocks_cap, n, sizeof *s->blocks, "azure.blocks");
    for (size_t i = 0; i < n; i++)
        s->blocks[i] = s->next_id++;
    s->prev_ns = ns;
    out->arrival_ns = ns;
    out->input_tok = in_tok;
    out->output_tok = out_tok;
    out->n_blocks = (uint32_t)n;
    out->blocks = s->blocks;
    out->record = line;
    return TRACE_OK;
}

const trace_source_ops_t trace_source_azure = {
    .name = "azure",
    .help = "Azure LLM inference CSV: TIMESTAMP,ContextTokens,GeneratedTokens (no prefix sharing)",
    .is_generator = 0,
    .open_lines = az_open,
    .next = az_next,
    .close = az_close,
};
