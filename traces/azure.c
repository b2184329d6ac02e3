/* traces/azure.c: the "azure" source, the Azure LLM inference CSV traces
 * (TIMESTAMP,ContextTokens,GeneratedTokens). Timestamps become ns from the
 * first record by exact integer calendar arithmetic (no mktime, no time
 * zone). The trace has no prefix hashes, so every request gets fresh block
 * ids from a counter: no two requests share a block. */
#include "traces/lines.h"

#include <string.h>

#define AZ_HEADER "TIMESTAMP,ContextTokens,GeneratedTokens"

typedef struct az_state {
    trace_lines_t *lines;
    uint64_t *blocks;
    size_t blocks_cap;
    uint64_t next_id;
    int have_first;
    int64_t first_ns; /* absolute ns since 1970 of the first record */
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

/* "YYYY-MM-DD HH:MM:SS[.f{1,9}]" into ns since 1970 (UTC); 0 or -1. */
static int parse_timestamp(const char *s, size_t n, int64_t *ns)
{
    const char *p = s, *end = s + n;
    int64_t y, mo, d, h, mi, sec, frac = 0;
    if (digits(&p, end, 4, &y) || expect(&p, end, '-') || digits(&p, end, 2, &mo) ||
        expect(&p, end, '-') || digits(&p, end, 2, &d) || expect(&p, end, ' ') ||
        digits(&p, end, 2, &h) || expect(&p, end, ':') || digits(&p, end, 2, &mi) ||
        expect(&p, end, ':') || digits(&p, end, 2, &sec))
        return -1;
    if (p < end) {
        if (expect(&p, end, '.') || p == end)
            return -1;
        int nd = 0;
        while (p < end && nd < 9 && *p >= '0' && *p <= '9') {
            frac = frac * 10 + (*p++ - '0');
            nd++;
        }
        if (p != end)
            return -1; /* not a digit, or more than 9 (finer than ns) */
        for (; nd < 9; nd++)
            frac *= 10;
    }
    /* Years 1900..2200 keep ns since 1970 well inside int64. */
    if (y < 1900 || y > 2200 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || sec > 59)
        return -1;
    int64_t days = days_from_civil(y, mo, d);
    *ns = ((days * 24 + h) * 60 + mi) * 60 * SIM_NS_PER_S + sec * SIM_NS_PER_S + frac;
    return 0;
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
    int64_t abs_ns, in_tok, out_tok;
    if (parse_timestamp(text, (size_t)(c1 - text), &abs_ns) < 0)
        return sim_errf(err, "%s:%lld: bad TIMESTAMP '%.*s' (expected YYYY-MM-DD HH:MM:SS.fffffff)",
                        path, line, (int)SIM_MIN(c1 - text, 64), text);
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
        s->first_ns = abs_ns;
    }
    sim_time_t ns = abs_ns - s->first_ns;
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
