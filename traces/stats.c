/* traces/stats.c: `trace stats` (one JSON summary of any source) and the
 * cJSON-vs-jansson parse benchmark. Invariant: stats streams the source
 * through trace_next; only the per-request lengths (for exact percentiles,
 * 16 bytes a request) and the set of distinct block ids with their use
 * counts (an id_set: 9 bytes a slot, at most 3/4 full, so 12-24 bytes a
 * distinct id, about 230 MB at the peak of growth for 10^7 of them) are
 * kept, both O(trace) by design: the counts are exact. */
#include "traces/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>
#include <jansson.h>

#include "sim/core/hmap.h"
#include "sim/core/jsonx.h"
#include "traces/trace_int.h"

/* ---- trace_stats ---- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted v[0..n): the smallest value with at
 * least pct% of the values at or below it. */
static int64_t pctl(const int64_t *v, size_t n, unsigned pct)
{
    if (n == 0)
        return 0;
    size_t rank = (pct * n + 99) / 100;
    return v[rank ? rank - 1 : 0];
}

/* ---- id_set: distinct block ids and how many requests use each ----
 * Open addressing with linear probing over two arrays, the ids and a
 * one-byte count each (0: an empty slot), at most 3/4 full. A count
 * saturates at 255; the uses past it, for the few ids that many requests
 * share (a system prompt's), go to a hash map. */
typedef struct id_set {
    uint64_t *id;
    uint8_t *cnt;
    size_t cap, n; /* cap: 0 or a power of two */
    sim_hmap_t more; /* id -> uses past 255 */
} id_set_t;

#define ID_CNT_SAT 255u

static size_t id_home(uint64_t k, size_t mask)
{
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    k ^= k >> 33;
    return (size_t)k & mask;
}

static size_t id_find(const id_set_t *s, uint64_t k)
{
    size_t mask = s->cap - 1, i = id_home(k, mask);
    while (s->cnt[i] && s->id[i] != k)
        i = (i + 1) & mask;
    return i;
}

static int id_has(const id_set_t *s, uint64_t k) { return s->cap && s->cnt[id_find(s, k)]; }

static void id_grow(id_set_t *s)
{
    id_set_t old = *s;
    s->cap = old.cap ? old.cap * 2 : 1024;
    s->id = sim_xmalloc(s->cap * sizeof *s->id, "trace_stats.ids");
    s->cnt = sim_xcalloc_grown(s->cap, 1, "trace_stats.ids");
    for (size_t i = 0; i < old.cap; i++)
        if (old.cnt[i]) {
            size_t j = id_find(s, old.id[i]);
            s->id[j] = old.id[i];
            s->cnt[j] = old.cnt[i];
        }
    sim_free(old.id);
    sim_free(old.cnt);
}

/* One more use of id k. */
static void id_use(id_set_t *s, uint64_t k)
{
    if ((s->n + 1) * 4 > s->cap * 3)
        id_grow(s);
    size_t i = id_find(s, k);
    if (!s->cnt[i]) {
        s->id[i] = k;
        s->n++;
    }
    if (s->cnt[i] < ID_CNT_SAT)
        s->cnt[i]++;
    else
        (*sim_hmap_upsert(&s->more, k, 0, NULL))++;
}

static void id_set_free(id_set_t *s)
{
    sim_free(s->id);
    sim_free(s->cnt);
    sim_hmap_free(&s->more);
}

/* What trace_stats keeps of the stream: every request's lengths (sorted
 * at the end, for exact percentiles), the requests using each block id,
 * and running sums. */
typedef struct stats_acc {
    int64_t *in, *out; /* input and output tokens per request */
    size_t cap_in, cap_out, n;
    id_set_t refs; /* block id -> requests using it */
    uint64_t total_blocks;
    double sum_in, sum_out;
    double ideal_hit; /* tokens an unlimited pool would have served */
    sim_time_t first_ns, last_ns;
} stats_acc_t;

/* Account one request r: its lengths, arrival and blocks, and the
 * leading blocks an unlimited pool would already hold. O(blocks). */
static void stats_add(stats_acc_t *a, const trace_req_t *r)
{
    sim_grow((void **)&a->in, &a->cap_in, a->n + 1, sizeof *a->in, "trace_stats.input");
    sim_grow((void **)&a->out, &a->cap_out, a->n + 1, sizeof *a->out, "trace_stats.output");
    a->in[a->n] = r->input_tok;
    a->out[a->n] = r->output_tok;
    if (a->n == 0)
        a->first_ns = r->arrival_ns;
    a->last_ns = r->arrival_ns;
    a->n++;
    a->sum_in += (double)r->input_tok;
    a->sum_out += (double)r->output_tok;
    a->total_blocks += r->n_blocks;
    /* An unlimited pool hits the leading blocks seen before. */
    uint32_t lead = 0;
    while (lead < r->n_blocks && id_has(&a->refs, r->blocks[lead]))
        lead++;
    a->ideal_hit += (double)SIM_MIN((int64_t)lead * TRACE_BLOCK_TOK, r->input_tok);
    for (uint32_t i = 0; i < r->n_blocks; i++)
        id_use(&a->refs, r->blocks[i]);
}

/* The block statistics into o: distinct blocks, reuse, the share used by
 * one request only, the most requests on one block, the ideal hit rate. */
static void stats_blocks_json(const stats_acc_t *a, json_t *o)
{
    size_t it = 0, once = 0;
    uint64_t id;
    uint32_t cnt, max_refs = 0;
    for (size_t i = 0; i < a->refs.cap; i++) {
        once += a->refs.cnt[i] == 1;
        max_refs = SIM_MAX(max_refs, a->refs.cnt[i]);
    }
    while (sim_hmap_next(&a->refs.more, &it, &id, &cnt))
        max_refs = SIM_MAX(max_refs, ID_CNT_SAT + cnt);
    size_t uniq = a->refs.n;
    json_object_set_new(o, "unique_blocks", json_integer((json_int_t)uniq));
    json_object_set_new(o, "block_reuse",
                        json_real(a->total_blocks ? 1.0 - (double)uniq / (double)a->total_blocks
                                                  : 0.0));
    json_object_set_new(o, "blocks_used_once_share",
                        json_real(uniq ? (double)once / (double)uniq : 0.0));
    json_object_set_new(o, "max_block_refs", json_integer(max_refs));
    json_object_set_new(o, "ideal_hit_rate_tokens",
                        json_real(a->sum_in > 0 ? a->ideal_hit / a->sum_in : 0.0));
}

/* The summary of the whole stream; sorts a's lengths. New reference. */
static json_t *stats_json(stats_acc_t *a)
{
    size_t n = a->n;
    if (n > 0) {
        qsort(a->in, n, sizeof *a->in, cmp_i64);
        qsort(a->out, n, sizeof *a->out, cmp_i64);
    }
    double span_s = (double)(a->last_ns - a->first_ns) / 1e9;
    double dn = n ? (double)n : 1.0;
    json_t *obj = json_object();
    json_object_set_new(obj, "requests", json_integer((json_int_t)n));
    json_object_set_new(obj, "span_s", json_real(span_s));
    json_object_set_new(obj, "mean_rate_rps", json_real(span_s > 0 ? (double)n / span_s : 0.0));
    json_object_set_new(obj, "mean_input", json_real(a->sum_in / dn));
    json_object_set_new(obj, "p50_input", json_integer(pctl(a->in, n, 50)));
    json_object_set_new(obj, "p99_input", json_integer(pctl(a->in, n, 99)));
    json_object_set_new(obj, "max_input", json_integer(n ? a->in[n - 1] : 0));
    json_object_set_new(obj, "mean_output", json_real(a->sum_out / dn));
    json_object_set_new(obj, "p50_output", json_integer(pctl(a->out, n, 50)));
    json_object_set_new(obj, "p99_output", json_integer(pctl(a->out, n, 99)));
    json_object_set_new(obj, "max_output", json_integer(n ? a->out[n - 1] : 0));
    json_object_set_new(obj, "total_blocks", json_integer((json_int_t)a->total_blocks));
    stats_blocks_json(a, obj);
    return obj;
}

int trace_stats(const trace_open_args_t *args, FILE *out, sim_err_t *err)
{
    trace_t *t = trace_open(args, err);
    if (!t)
        return -1;
    stats_acc_t a = {0};
    sim_hmap_init(&a.refs.more);
    json_t *obj = NULL;
    trace_req_t r;
    int st, rc = -1;
    while ((st = trace_next(t, &r, err)) == TRACE_OK)
        stats_add(&a, &r);
    if (st == TRACE_ERR)
        goto done;
    obj = stats_json(&a);
    if (sim_json_write(out, obj) != 0) {
        sim_errf(err, "trace stats: cannot write the output");
        goto done;
    }
    rc = 0;
done:
    json_decref(obj);
    id_set_free(&a.refs);
    sim_free(a.in);
    sim_free(a.out);
    trace_close(t);
    return rc;
}

/* ---- trace_bench_parse ---- */

#define BENCH_REPS 5

/* What both parsers must extract identically. */
typedef struct bench_sums {
    double ts_ms;
    int64_t in_tok, out_tok, n_ids;
    uint64_t ids;
} bench_sums_t;

/* 0, or -1 when line i is not a Mooncake record cJSON can read; parsed
 * as the reader parses, into the arena ctx. */
static int bench_cjson(void *ctx, const char *s, size_t len, bench_sums_t *sum)
{
    trace_json_arena_t *arena = ctx;
    cJSON *o = trace_json_parse(arena, s, len, NULL);
    if (!o)
        return -1;
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(o, "timestamp");
    const cJSON *il = cJSON_GetObjectItemCaseSensitive(o, "input_length");
    const cJSON *ol = cJSON_GetObjectItemCaseSensitive(o, "output_length");
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(o, "hash_ids");
    int rc = -1;
    if (cJSON_IsNumber(ts) && cJSON_IsNumber(il) && cJSON_IsNumber(ol) && cJSON_IsArray(ids)) {
        sum->ts_ms += ts->valuedouble;
        sum->in_tok += (int64_t)il->valuedouble;
        sum->out_tok += (int64_t)ol->valuedouble;
        const cJSON *id;
        cJSON_ArrayForEach(id, ids) {
            sum->ids += (uint64_t)id->valuedouble;
            sum->n_ids++;
        }
        rc = 0;
    }
    trace_json_release(arena, o);
    return rc;
}

/* The integers of one line summed into *sum: each maximal run of digits
 * read as a number, the least a reader of the line must do. The count of
 * runs, 0 when the line holds none. */
static int64_t scan_integers(const char *s, uint64_t *sum)
{
    int64_t n = 0;
    uint64_t acc = *sum;
    while (*s) {
        if ((unsigned)(*s - '0') > 9) {
            s++;
            continue;
        }
        uint64_t v = 0;
        do
            v = v * 10 + (uint64_t)(*s++ - '0');
        while ((unsigned)(*s - '0') <= 9);
        acc += v;
        n++;
    }
    *sum = acc;
    return n;
}

int trace_bench_floor(const char *path, int64_t *lines, sim_err_t *err)
{
    trace_lines_t *r = trace_lines_open(path, err);
    if (!r)
        return -1;
    const char *line;
    size_t len;
    int st;
    volatile uint64_t sum = 0; /* kept, so the scan is not optimized away */
    uint64_t acc = 0;
    *lines = 0;
    while ((st = trace_lines_next_nonblank(r, &line, &len, err)) == TRACE_OK) {
        if (scan_integers(line, &acc) == 0) {
            st = TRACE_ERR;
            sim_errf(err, "%s:%lld: not a Mooncake record (no integers)", path,
                     (long long)trace_lines_lineno(r));
            break;
        }
        (*lines)++;
    }
    sum = acc;
    (void)sum;
    trace_lines_close(r);
    return st == TRACE_ERR ? -1 : 0;
}

static int bench_jansson(void *ctx, const char *s, size_t len, bench_sums_t *sum)
{
    (void)ctx;
    json_error_t jerr;
    json_t *o = json_loadb(s, len, 0, &jerr);
    if (!o)
        return -1;
    json_t *ts = json_object_get(o, "timestamp");
    json_t *il = json_object_get(o, "input_length");
    json_t *ol = json_object_get(o, "output_length");
    json_t *ids = json_object_get(o, "hash_ids");
    int rc = -1;
    if (json_is_number(ts) && json_is_number(il) && json_is_number(ol) && json_is_array(ids)) {
        sum->ts_ms += json_number_value(ts);
        sum->in_tok += (int64_t)json_number_value(il);
        sum->out_tok += (int64_t)json_number_value(ol);
        size_t i;
        json_t *id;
        json_array_foreach(ids, i, id) {
            sum->ids += (uint64_t)json_number_value(id);
            sum->n_ids++;
        }
        rc = 0;
    }
    json_decref(o);
    return rc;
}

typedef int (*bench_fn)(void *ctx, const char *s, size_t len, bench_sums_t *sum);

/* Best-of-BENCH_REPS seconds to parse all lines; -1 on a line it rejects
 * (*bad gets its index). */
static double bench_run(bench_fn fn, void *ctx, const char *text, const size_t *off, const size_t *len,
                        const int64_t *lineno, size_t n, bench_sums_t *sum, int64_t *bad)
{
    double best = INFINITY;
    for (int rep = 0; rep < BENCH_REPS; rep++) {
        bench_sums_t s = {0};
        double t0 = sim_mono_s();
        for (size_t i = 0; i < n; i++) {
            if (fn(ctx, text + off[i], len[i], &s) < 0) {
                *bad = lineno[i];
                return -1;
            }
        }
        double dt = sim_mono_s() - t0;
        best = SIM_MIN(best, dt);
        *sum = s;
    }
    return best;
}

int trace_bench_parse(const char *path, FILE *out, sim_err_t *err)
{
    int rc = -1;
    char *text = NULL;
    size_t *off = NULL, *len = NULL;
    int64_t *lineno = NULL;
    size_t text_cap = 0, text_len = 0, off_cap = 0, len_cap = 0, no_cap = 0, n = 0;
    trace_lines_t *r = trace_lines_open(path, err);
    if (!r)
        return -1;
    const char *line;
    size_t ll;
    int st;
    /* Load every record line (this is a benchmark; memory is fine). */
    while ((st = trace_lines_next_nonblank(r, &line, &ll, err)) == TRACE_OK) {
        sim_grow((void **)&text, &text_cap, text_len + ll + 1, 1, "bench.text");
        sim_grow((void **)&off, &off_cap, n + 1, sizeof *off, "bench.off");
        sim_grow((void **)&len, &len_cap, n + 1, sizeof *len, "bench.len");
        sim_grow((void **)&lineno, &no_cap, n + 1, sizeof *lineno, "bench.lineno");
        memcpy(text + text_len, line, ll + 1);
        off[n] = text_len;
        len[n] = ll;
        lineno[n] = trace_lines_lineno(r);
        text_len += ll + 1;
        n++;
    }
    if (st == TRACE_ERR)
        goto done;
    bench_sums_t sc = {0}, sj = {0};
    int64_t bad = 0;
    trace_json_arena_t arena = {0};
    double tc = bench_run(bench_cjson, &arena, text, off, len, lineno, n, &sc, &bad);
    trace_json_arena_free(&arena);
    if (tc < 0) {
        sim_errf(err, "%s:%lld: cJSON cannot read this Mooncake record", path, (long long)bad);
        goto done;
    }
    double tj = bench_run(bench_jansson, NULL, text, off, len, lineno, n, &sj, &bad);
    if (tj < 0) {
        sim_errf(err, "%s:%lld: jansson cannot read this Mooncake record", path, (long long)bad);
        goto done;
    }
    /* Same numbers in the same order: the sums agree bit for bit. */
    if (sc.ts_ms != sj.ts_ms || sc.in_tok != sj.in_tok || sc.out_tok != sj.out_tok ||
        sc.n_ids != sj.n_ids || sc.ids != sj.ids) {
        sim_errf(err, "%s: cJSON and jansson extract different numbers", path);
        goto done;
    }
    double rc_s = tc > 0 ? (double)n / tc : 0, rj_s = tj > 0 ? (double)n / tj : 0;
    fprintf(out, "bench-parse: %s: %zu records, %.1f MB, best of %d runs\n", path, n,
            (double)text_len / 1e6, BENCH_REPS);
    fprintf(out, "  cjson    %.6f s  %.0f records/s\n", tc, rc_s);
    fprintf(out, "  jansson  %.6f s  %.0f records/s\n", tj, rj_s);
    fprintf(out, "  faster: %s (%.2fx)\n", tc <= tj ? "cjson" : "jansson",
            tc <= tj ? (tc > 0 ? tj / tc : 1.0) : (tj > 0 ? tc / tj : 1.0));
    fprintf(out, "  checksums: input_tok %lld, output_tok %lld, hash_ids %lld (both parsers)\n",
            (long long)sc.in_tok, (long long)sc.out_tok, (long long)sc.n_ids);
    rc = 0;
done:
    trace_lines_close(r);
    sim_free(text);
    sim_free(off);
    sim_free(len);
    sim_free(lineno);
    return rc;
}
