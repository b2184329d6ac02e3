/* tests/test_trace.c: unit tests of traces/: the line reader (plain, zstd,
 * truncated), the Mooncake and Azure readers with every user error and its
 * line number, format detection, speed and limit, the kimi generator's
 * determinism, distributions and prefix sharing, and trace_stats. Tests
 * on the real traces run only when MOONCAKE_TRACES names them. */
#include "tests/tests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>
#include <jansson.h>
#include <malloc.h>
#include <zstd.h>

#include "sim/core/util.h"
#include "traces/store.h"
#include "traces/trace_int.h"
#include "traces/trace.h"

/* ---- helpers ---- */

/* Write text to the test directory; the path is copied into path. */
static void write_text(char *path, size_t cap, const char *name, const char *text)
{
    snprintf(path, cap, "%s", tests_write_file(tests_tmpdir(), name, text, strlen(text)));
}

/* Write text zstd-compressed (level 3), keeping only the first keep bytes
 * of the frame when keep > 0. Returns the compressed size. */
static size_t write_zstd(char *path, size_t cap, const char *name, const char *text, size_t keep)
{
    size_t n = strlen(text);
    size_t zcap = ZSTD_compressBound(n);
    void *z = malloc(zcap);
    ck_assert_ptr_nonnull(z);
    size_t zn = ZSTD_compress(z, zcap, text, n, 3);
    ck_assert(!ZSTD_isError(zn));
    snprintf(path, cap, "%s", tests_write_file(tests_tmpdir(), name, z, keep ? keep : zn));
    free(z);
    return zn;
}

static trace_t *open_file(const char *path, const char *format, sim_err_t *err)
{
    trace_open_args_t a = {.path = path, .format = format, .speed = 1.0};
    return trace_open(&a, err);
}

/* Stream the whole trace at path; returns the count, the last status in
 * *rc and the error in err. */
static int64_t drain(const char *path, const char *format, int *rc, sim_err_t *err)
{
    trace_t *t = open_file(path, format, err);
    if (!t) {
        *rc = TRACE_ERR;
        return 0;
    }
    trace_req_t r;
    int64_t n = 0;
    while ((*rc = trace_next(t, &r, err)) == TRACE_OK)
        n++;
    trace_close(t);
    return n;
}

/* A copy of the records of a source, for comparisons. */
typedef struct rec {
    sim_time_t arrival_ns;
    int64_t input_tok, output_tok, record;
    uint32_t n_blocks;
    uint64_t *blocks;
} rec_t;

static rec_t *collect(trace_t *t, size_t *n, sim_err_t *err)
{
    size_t cap = 64;
    rec_t *v = malloc(cap * sizeof *v);
    trace_req_t r;
    int rc;
    *n = 0;
    while ((rc = trace_next(t, &r, err)) == TRACE_OK) {
        if (*n == cap) {
            cap *= 2;
            v = realloc(v, cap * sizeof *v);
        }
        ck_assert_ptr_nonnull(v);
        rec_t *x = &v[(*n)++];
        x->arrival_ns = r.arrival_ns;
        x->input_tok = r.input_tok;
        x->output_tok = r.output_tok;
        x->record = r.record;
        x->n_blocks = r.n_blocks;
        x->blocks = malloc((r.n_blocks + 1) * sizeof *x->blocks);
        memcpy(x->blocks, r.blocks, r.n_blocks * sizeof *x->blocks);
    }
    ck_assert_msg(rc == TRACE_END, "unexpected error: %s", err->msg);
    return v;
}

static void free_recs(rec_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].blocks);
    free(v);
}

static void assert_same(const rec_t *a, size_t na, const rec_t *b, size_t nb)
{
    ck_assert_uint_eq(na, nb);
    for (size_t i = 0; i < na; i++) {
        ck_assert_int_eq(a[i].arrival_ns, b[i].arrival_ns);
        ck_assert_int_eq(a[i].input_tok, b[i].input_tok);
        ck_assert_int_eq(a[i].output_tok, b[i].output_tok);
        ck_assert_int_eq(a[i].record, b[i].record);
        ck_assert_uint_eq(a[i].n_blocks, b[i].n_blocks);
        ck_assert(memcmp(a[i].blocks, b[i].blocks, a[i].n_blocks * sizeof *a[i].blocks) == 0);
    }
}

/* ---- the line reader ---- */

START_TEST(test_lines_plain_and_zstd)
{
    size_t live = sim_alloc_live_count();
    /* A 300,000-byte line spans several refills of the 128 KiB buffer. */
    size_t big = 300000;
    size_t cap = big + 64;
    char *text = malloc(cap);
    strcpy(text, "one\r\n\ntwo\n");
    size_t n = strlen(text);
    memset(text + n, 'x', big);
    n += big;
    strcpy(text + n, "\r\nlast");
    char paths[2][512];
    write_text(paths[0], sizeof paths[0], "lines.txt", text);
    write_zstd(paths[1], sizeof paths[1], "lines.txt.zst", text, 0);
    for (int k = 0; k < 2; k++) {
        sim_err_t err = {{0}, 0};
        trace_lines_t *r = trace_lines_open(paths[k], &err);
        ck_assert_ptr_nonnull(r);
        ck_assert_int_eq(trace_lines_is_zstd(r), k);
        const char *line;
        size_t len;
        ck_assert_int_eq(trace_lines_next(r, &line, &len, &err), TRACE_OK);
        ck_assert_str_eq(line, "one");
        ck_assert_int_eq(trace_lines_next(r, &line, &len, &err), TRACE_OK);
        ck_assert_str_eq(line, "");
        ck_assert_int_eq(trace_lines_next(r, &line, &len, &err), TRACE_OK);
        ck_assert_str_eq(line, "two");
        /* Given back, a line returns once more with its number. */
        trace_lines_unread(r);
        ck_assert_int_eq(trace_lines_next(r, &line, &len, &err), TRACE_OK);
        ck_assert_str_eq(line, "two");
        ck_assert_uint_eq(len, 3);
        ck_assert_int_eq(trace_lines_lineno(r), 3);
        ck_assert_int_eq(trace_lines_next(r, &line, &len, &err), TRACE_OK);
        ck_assert_uint_eq(len, big);
        trace_lines_unread(r); /* one that spans refills, too */
        ck_assert_int_eq(trace_lines_next(r, &line, &len, &err), TRACE_OK);
        ck_assert_uint_eq(len, big);
        ck_assert_uint_eq(strlen(line), big);
        ck_assert_int_eq(line[0], 'x');
        ck_assert_int_eq(line[big - 1], 'x');
        ck_assert_int_eq(trace_lines_lineno(r), 4);
        ck_assert_int_eq(trace_lines_next(r, &line, &len, &err), TRACE_OK);
        ck_assert_str_eq(line, "last");
        ck_assert_int_eq(trace_lines_lineno(r), 5);
        ck_assert_int_eq(trace_lines_next(r, &line, &len, &err), TRACE_END);
        ck_assert_int_eq(trace_lines_next(r, &line, &len, &err), TRACE_END);
        trace_lines_close(r);
    }
    free(text);
    ck_assert_uint_eq(sim_alloc_live_count(), live);
}
END_TEST

/* Records parsed into an arena: one past its size spills to malloc and
 * grows it, values read back intact either way, what spilled is freed
 * (spilling again and again does not add to the C library's bytes in
 * use, which count its per-thread cache of freed blocks, so only a
 * bound is checked), and bad JSON still says where it broke. */
static void json_check(trace_json_arena_t *a, const char *text, size_t len, size_t n,
                       size_t mul, size_t add, const char *x)
{
    const char *end = NULL;
    cJSON *o = trace_json_parse(a, text, len, &end);
    ck_assert_ptr_nonnull(o);
    size_t i = 0;
    const cJSON *id;
    cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(o, "hash_ids")) {
        ck_assert_double_eq(id->valuedouble, (double)(i * mul + add));
        i++;
    }
    ck_assert_uint_eq(i, n);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(o, "x")->valuestring, x);
    trace_json_release(a, o);
}

START_TEST(test_json_arena)
{
    size_t live = sim_alloc_live_count();
    size_t n_big = 20000; /* 20,000 nodes: well past the first arena */
    size_t cap = n_big * 8 + 64;
    char *big = malloc(cap);
    size_t len = (size_t)snprintf(big, cap, "{\"hash_ids\": [");
    for (size_t i = 0; i < n_big; i++)
        len += (size_t)snprintf(big + len, cap - len, i ? ", %zu" : "%zu", i * 3);
    len += (size_t)snprintf(big + len, cap - len, "], \"x\": \"end\"}");
    char small[] = "{\"hash_ids\": [7, 8], \"x\": \"small\"}";
    trace_json_arena_t a = {0};
    size_t used[6];
    for (int k = 0; k < 6; k++) { /* a fresh arena each time: every big one spills */
        json_check(&a, small, strlen(small), 2, 1, 7, "small");
        json_check(&a, big, len, n_big, 3, 0, "end");
        ck_assert_uint_eq(a.spilled > 0, !SIM_UNDER_ASAN);
        trace_json_arena_free(&a);
        used[k] = mallinfo2().uordblks;
    }
    ck_assert_msg(used[5] < used[1] + 65536, "%zu bytes in use, then %zu", used[1], used[5]);
    /* Grown, the arena holds the big one; the small one after it too. */
    json_check(&a, big, len, n_big, 3, 0, "end");
    json_check(&a, big, len, n_big, 3, 0, "end");
    ck_assert_uint_eq(a.spilled, 0);
    json_check(&a, small, strlen(small), 2, 1, 7, "small");
    char bad[] = "{\"hash_ids\": [1, 2,, 3]}";
    const char *end = NULL;
    ck_assert_ptr_null(trace_json_parse(&a, bad, strlen(bad), &end));
    ck_assert_ptr_nonnull(end);
    ck_assert_int_eq(end - bad, 19);
    trace_json_release(&a, NULL);
    trace_json_arena_free(&a);
    free(big);
    ck_assert_uint_eq(sim_alloc_live_count(), live);
}
END_TEST

START_TEST(test_lines_empty_and_missing)
{
    char path[512];
    sim_err_t err = {{0}, 0};
    write_text(path, sizeof path, "empty.txt", "");
    trace_lines_t *r = trace_lines_open(path, &err);
    ck_assert_ptr_nonnull(r);
    const char *line;
    size_t len;
    ck_assert_int_eq(trace_lines_next(r, &line, &len, &err), TRACE_END);
    trace_lines_close(r);

    snprintf(path, sizeof path, "%s/no-such-file.jsonl", tests_tmpdir());
    ck_assert_ptr_null(trace_lines_open(path, &err));
    char want[600];
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory", path);
    ck_assert_str_eq(err.msg, want);
    /* The same through trace_open, auto and named. */
    ck_assert_ptr_null(open_file(path, "auto", &err));
    ck_assert_str_eq(err.msg, want);
    ck_assert_ptr_null(open_file(path, "mooncake", &err));
    ck_assert_str_eq(err.msg, want);
    /* A directory opens but cannot be read. */
    ck_assert_ptr_null(open_file(tests_tmpdir(), "auto", &err));
    snprintf(want, sizeof want, "%s: cannot open: Is a directory", tests_tmpdir());
    ck_assert_str_eq(err.msg, want);
}
END_TEST

/* ---- Mooncake ---- */

static const char good_jsonl[] =
    "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 10, \"hash_ids\": [0, 1]}\n"
    "\n"
    "{\"timestamp\": 1.5, \"input_length\": 512, \"output_length\": 1, \"hash_ids\": [0], "
    "\"extra\": {\"x\": [1, \"y\"]}}\r\n"
    "{\"input_length\": 1025, \"hash_ids\": [0, 1, 2], \"output_length\": 7, \"timestamp\": 1.5}\r\n"
    "   \n"
    "{\"timestamp\": 2.0000006, \"input_length\": 1, \"output_length\": 1048576, \"hash_ids\": [9007199254740991]}\n"
    "{\"timestamp\": 1000.0000004, \"input_length\": 16777216, \"output_length\": 3, \"hash_ids\": [";

/* good_jsonl plus the 32768 ids of its last record (no final newline). */
static char *good_jsonl_text(void)
{
    size_t cap = sizeof good_jsonl + 32768 * 8 + 16;
    char *s = malloc(cap);
    size_t n = (size_t)snprintf(s, cap, "%s", good_jsonl);
    for (int i = 0; i < 32768; i++)
        n += (size_t)snprintf(s + n, cap - n, "%s%d", i ? ", " : "", i + 100);
    snprintf(s + n, cap - n, "]}");
    return s;
}

START_TEST(test_mooncake_good_plain_zstd)
{
    size_t live = sim_alloc_live_count();
    char *text = good_jsonl_text();
    char plain[512], zst[512];
    write_text(plain, sizeof plain, "good.jsonl", text);
    write_zstd(zst, sizeof zst, "good.jsonl.zst", text, 0);
    free(text);
    sim_err_t err = {{0}, 0};
    size_t n1, n2;
    trace_t *t = open_file(plain, "auto", &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    rec_t *a = collect(t, &n1, &err);
    trace_close(t);
    t = open_file(zst, "mooncake", &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    rec_t *b = collect(t, &n2, &err);
    trace_close(t);
    assert_same(a, n1, b, n2);
    /* Detected after blank lines: the reader that detection opened goes
     * on from the first record, numbered as in the file. */
    char *text2 = good_jsonl_text();
    char *lead = malloc(strlen(text2) + 8);
    strcpy(lead, "\n  \n");
    strcat(lead, text2);
    free(text2);
    write_zstd(zst, sizeof zst, "lead.jsonl.zst", lead, 0);
    free(lead);
    size_t n3;
    t = open_file(zst, "auto", &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    rec_t *c = collect(t, &n3, &err);
    trace_close(t);
    ck_assert_uint_eq(n3, n1);
    for (size_t i = 0; i < n3; i++) {
        ck_assert_int_eq(c[i].record, a[i].record + 2);
        c[i].record = a[i].record;
    }
    assert_same(a, n1, c, n3);
    free_recs(c, n3);
    ck_assert_uint_eq(n1, 5);
    const int64_t line[] = {1, 3, 4, 6, 7};
    const sim_time_t at[] = {0, 1500000, 1500000, 2000001, 1000000000};
    const int64_t in[] = {600, 512, 1025, 1, 16777216};
    const int64_t out[] = {10, 1, 7, 1048576, 3};
    const uint32_t nb[] = {2, 1, 3, 1, 32768};
    for (size_t i = 0; i < n1; i++) {
        ck_assert_int_eq(a[i].record, line[i]);
        ck_assert_int_eq(a[i].arrival_ns, at[i]);
        ck_assert_int_eq(a[i].input_tok, in[i]);
        ck_assert_int_eq(a[i].output_tok, out[i]);
        ck_assert_uint_eq(a[i].n_blocks, nb[i]);
    }
    ck_assert_uint_eq(a[2].blocks[2], 2);
    ck_assert_uint_eq(a[3].blocks[0], UINT64_C(9007199254740991));
    ck_assert_uint_eq(a[4].blocks[32767], 32867);
    free_recs(a, n1);
    free_recs(b, n2);
    ck_assert_uint_eq(sim_alloc_live_count(), live);
}
END_TEST

/* Each bad record sits on line 4, after two good lines and a blank one. */
static const struct {
    const char *rec;
    const char *msg;
} bad_cases[] = {
    {"{\"timestamp\": 3, \"input_length\": 1,", "bad JSON"},
    {"not json", "bad JSON"},
    {"[1, 2]", "expected a JSON object"},
    {"{\"timestamp\": 3, \"input_length\": 600, \"output_length\": 1, \"hash_ids\": [0, "
     "4503599627370496.5]}", "hash_ids[1] must be an integer (got 4503599627370496.5)"},
    {"{\"timestamp\": 3, \"input_length\": 600, \"output_length\": 1, \"hash_ids\": [25e-1, 2]}",
     "hash_ids[0] must be an integer (got 25e-1)"},
    {"{\"input_length\": 1, \"output_length\": 1, \"hash_ids\": [0]}", "missing field 'timestamp'"},
    {"{\"timestamp\": 3, \"output_length\": 1, \"hash_ids\": [0]}", "missing field 'input_length'"},
    {"{\"timestamp\": 3, \"input_length\": 1, \"hash_ids\": [0]}", "missing field 'output_length'"},
    {"{\"timestamp\": 3, \"input_length\": 1, \"output_length\": 1}", "missing field 'hash_ids'"},
    {"{\"timestamp\": \"3\", \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [0]}",
     "field 'timestamp' must be a number"},
    {"{\"timestamp\": 3, \"input_length\": \"1\", \"output_length\": 1, \"hash_ids\": [0]}",
     "field 'input_length' must be a number"},
    {"{\"timestamp\": 3, \"input_length\": 1, \"output_length\": null, \"hash_ids\": [0]}",
     "field 'output_length' must be a number"},
    {"{\"timestamp\": 3, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": 0}",
     "field 'hash_ids' must be an array"},
    {"{\"timestamp\": 3, \"input_length\": 1.5, \"output_length\": 1, \"hash_ids\": [0]}",
     "field 'input_length' must be an integer"},
    {"{\"timestamp\": 3, \"input_length\": -5, \"output_length\": 1, \"hash_ids\": []}",
     "field 'input_length' must be >= 1 (got -5)"},
    {"{\"timestamp\": 3, \"input_length\": 0, \"output_length\": 1, \"hash_ids\": []}",
     "field 'input_length' must be >= 1 (got 0)"},
    {"{\"timestamp\": 3, \"input_length\": 16777217, \"output_length\": 1, \"hash_ids\": []}",
     "field 'input_length' is absurd"},
    {"{\"timestamp\": 3, \"input_length\": 1, \"output_length\": 0, \"hash_ids\": [0]}",
     "field 'output_length' must be >= 1 (got 0)"},
    {"{\"timestamp\": 3, \"input_length\": 1, \"output_length\": -1, \"hash_ids\": [0]}",
     "field 'output_length' must be >= 1 (got -1)"},
    {"{\"timestamp\": 3, \"input_length\": 1, \"output_length\": 1048577, \"hash_ids\": [0]}",
     "field 'output_length' is absurd"},
    {"{\"timestamp\": -1, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [0]}",
     "field 'timestamp' is negative"},
    {"{\"timestamp\": 1.9, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [0]}",
     "goes back in time (1.9 ms < previous 2 ms)"},
    {"{\"timestamp\": 1e300, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [0]}",
     "field 'timestamp' is absurd"},
    {"{\"timestamp\": 3, \"input_length\": 1025, \"output_length\": 1, \"hash_ids\": [0, 1]}",
     "hash_ids has 2 ids, expected 3"},
    {"{\"timestamp\": 3, \"input_length\": 512, \"output_length\": 1, \"hash_ids\": [0, 1]}",
     "hash_ids has 2 ids, expected 1"},
    {"{\"timestamp\": 3, \"input_length\": 600, \"output_length\": 1, \"hash_ids\": [0, -1]}",
     "hash_ids[1] is negative"},
    {"{\"timestamp\": 3, \"input_length\": 600, \"output_length\": 1, \"hash_ids\": [0.5, 1]}",
     "hash_ids[0] must be an integer"},
    {"{\"timestamp\": 3, \"input_length\": 600, \"output_length\": 1, \"hash_ids\": [0, null]}",
     "hash_ids[1] must be an integer or a string"},
    {"{\"timestamp\": 3, \"input_length\": 600, \"output_length\": 1, \"hash_ids\": [0, \"\"]}",
     "hash_ids[1] is an empty string"},
    {"{\"timestamp\": 3, \"input_length\": 600, \"output_length\": 1, \"hash_ids\": [\"a]\", "
     "4503599627370496.5]}", "hash_ids[1] must be an integer (got 4503599627370496.5)"},
    {"{\"timestamp\": 3, \"input_length\": 600, \"output_length\": 1, \"hash_ids\": [0, 1e17]}",
     "hash_ids[1] is too large"},
    /* At 2^53 and past, an id is read from its digits (a double no
     * longer holds every integer): another form is refused. */
    {"{\"timestamp\": 3, \"input_length\": 600, \"output_length\": 1, \"hash_ids\": [0, 18446744073709551616]}",
     "hash_ids[1] is too large (18446744073709551616 >= 2^64)"},
    {"{\"timestamp\": 3, \"input_length\": 600, \"output_length\": 1, \"hash_ids\": [9007199254740992.0, 1]}",
     "hash_ids[0] is too large for its form (9007199254740992 >= 2^53"},
    {"{\"timestamp\": 3, \"input_length\": 600, \"output_length\": 1, \"block_size\": 3, "
     "\"hash_ids\": [0]}", "field 'block_size' must divide the pool's block of 512 tokens (got 3)"},
    {"{\"timestamp\": 3, \"input_length\": 600, \"output_length\": 1, \"block_size\": 1024, "
     "\"hash_ids\": [0]}", "field 'block_size' must divide the pool's block of 512 tokens (got 1024)"},
    {"{\"timestamp\": 3, \"input_length\": 600, \"output_length\": 1, \"block_size\": \"16\", "
     "\"hash_ids\": [0]}", "field 'block_size' must be a number"},
    {"{\"timestamp\": 3, \"input_length\": 600, \"output_length\": 1, \"block_size\": 16, "
     "\"hash_ids\": [0, 1]}", "hash_ids has 2 ids, expected 38 = ceil(input_length 600 / 16)"},
    {"{\"timestamp\": 3, \"input_length\": 600, \"output_length\": 1, \"block_size\": 16, "
     "\"block_size\": 16, \"hash_ids\": [0, 1]}", "duplicate field 'block_size'"},
    /* cJSON keeps duplicates and finds the first: another parser would
     * read the last, so a duplicate of a field the reader takes is an
     * error, as in configs */
    {"{\"timestamp\": 3, \"input_length\": 10, \"input_length\": 20, \"output_length\": 1, "
     "\"hash_ids\": [0]}",
     "duplicate field 'input_length'"},
    {"{\"timestamp\": 3, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [0], "
     "\"timestamp\": 1}",
     "duplicate field 'timestamp'"},
    {"{\"timestamp\": 3, \"output_length\": 1, \"input_length\": 10, \"output_length\": 9, "
     "\"hash_ids\": [0]}",
     "duplicate field 'output_length'"},
    {"{\"timestamp\": 3, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [0], "
     "\"hash_ids\": [1]}",
     "duplicate field 'hash_ids'"},
};

START_TEST(test_mooncake_errors)
{
    size_t live = sim_alloc_live_count();
    char text[1024], path[512];
    snprintf(text, sizeof text,
             "{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [0]}\n"
             "{\"timestamp\": 2, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [1]}\n"
             "\n%s\n"
             "{\"timestamp\": 9, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [2]}\n",
             bad_cases[_i].rec);
    write_text(path, sizeof path, "bad.jsonl", text);
    for (int fmt = 0; fmt < 2; fmt++) {
        sim_err_t err = {{0}, 0};
        int rc;
        int64_t n = drain(path, fmt ? "mooncake" : "auto", &rc, &err);
        ck_assert_int_eq(rc, TRACE_ERR);
        ck_assert_int_eq(n, 2);
        ck_assert_msg(strstr(err.msg, "bad.jsonl:4: ") != NULL, "case %d: %s", _i, err.msg);
        ck_assert_msg(strstr(err.msg, bad_cases[_i].msg) != NULL, "case %d: %s", _i, err.msg);
    }
    /* An error is sticky: the record after the bad one is not read. */
    sim_err_t err = {{0}, 0}, err2 = {{0}, 0};
    trace_t *t = open_file(path, "auto", &err);
    trace_req_t r;
    while (trace_next(t, &r, &err) == TRACE_OK)
        ;
    ck_assert_int_eq(trace_next(t, &r, &err2), TRACE_ERR);
    ck_assert_str_eq(err2.msg, err.msg);
    trace_close(t);
    ck_assert_uint_eq(sim_alloc_live_count(), live);
}
END_TEST

/* The typed scanner against its oracle, the cJSON reader
 * (trace_mooncake_oracle): on lines inside and outside the scanner's
 * subset, valid and not, the same records and the same error message. */
static const char *const oracle_lines[] = {
    "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8]}",
    "{\"hash_ids\": [7, 8], \"output_length\": 3, \"input_length\": 600, \"timestamp\": 5}",
    "\t{ \"timestamp\" :5 ,\"input_length\":600,\"output_length\":3,\"hash_ids\":[ 7 ,8 ] }  ",
    "\001{\"timestamp\": 5,\002\"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8]}\037",
    "{\"timestamp\": 5, \"x\": {\"a\": [1, -2.5e+3, true, false, null, \"s\", {}], \"b\": []}, "
    "\"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8], \"y\": \"\xc3\xa9\"}",
    "{\"timestamp\": 5.5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8]}",
    "{\"timestamp\": 5.123456000, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8]}",
    "{\"timestamp\": 5.1234567, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8]}",
    "{\"timestamp\": 5e0, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8]}",
    "{\"timestamp\": 05, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8]}",
    "{\"timestamp\": -0, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8]}",
    "{\"timestamp\": 5.00000000000000000000000000000000000000000000000000000000000000001, "
    "\"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8]}",
    "{\"timestamp\": 5, \"input_length\": 600.0, \"output_length\": 3, \"hash_ids\": [7, 8]}",
    "{\"timestamp\": 5, \"input_length\": 6e2, \"output_length\": 03, \"hash_ids\": [7, 8]}",
    "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7.0, 8e0]}",
    "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [07, 8]}",
    "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8, 9]}",
    "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": []}",
    "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 9007199254740991]}",
    "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 9007199254740992]}",
    "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 12345678901234567]}",
    "{\"time\\u0073tamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8]}",
    "{\"timestamp\": 5, \"s\": \"a\\\"b\\n\", \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8]}",
    "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8]} x",
    "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8],}",
    "{\"timestamp\": 5, \"t\": truex, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8]}",
    "{\"timestamp\": 5, \"t\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]], "
    "\"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8]}",
    "\xef\xbb\xbf{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8]}",
    "{\"timestamp\": 5, \"timestamp\": 6, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8]}",
    "{\"timestamp\": 1, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8]}",
    "{\"timestamp\": 5, \"input_length\": 16777217, \"output_length\": 3, \"hash_ids\": [7, 8]}",
    "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 1048577, \"hash_ids\": [7, 8]}",
    "{\"timestamp\": 9200000000001, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8]}",
    "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [\"a\", \"b\\u0063\"]}",
    "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [\"a\", 8]}",
    "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [\"\", 8]}",
    "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 18446744073709551615]}",
    "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 18446744073709551616]}",
    "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 9223372036854775808]}",
    "{\"timestamp\": 5, \"input_length\": 40, \"output_length\": 3, \"block_size\": 16, \"hash_ids\": [7, 8, 9]}",
    "{\"timestamp\": 5, \"input_length\": 40, \"output_length\": 3, \"block_size\": 16.0, \"hash_ids\": [7, 8, 9]}",
    "{\"timestamp\": 5, \"input_length\": 40, \"output_length\": 3, \"block_size\": 24, \"hash_ids\": [7, 8]}",
    "{\"timestamp\": 5, \"input_length\": 40, \"output_length\": 3, \"block_size\": 0, \"hash_ids\": [7]}",
    "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8], "
    "\"request_id\": \"a\", \"session_id\": 4}",
    "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8], "
    "\"wait_for\": [\"a\"], \"delay\": 1.5, \"tool_wait_ms\": 2}",
    "{}",
    "[]",
};

/* Digest of a whole read of path as mooncake: records, end and message. */
static uint64_t oracle_digest(const char *path, int oracle, char *msg, size_t cap)
{
    trace_mooncake_oracle(oracle);
    sim_err_t err = {{0}, 0};
    trace_t *t = open_file(path, "mooncake", &err);
    trace_mooncake_oracle(0);
    ck_assert_msg(t != NULL, "%s", err.msg);
    uint64_t h = 1469598103934665603u;
    trace_req_t r;
    int rc;
    while ((rc = trace_next(t, &r, &err)) == TRACE_OK) {
        uint64_t v[4] = {(uint64_t)r.arrival_ns, (uint64_t)r.input_tok, (uint64_t)r.output_tok,
                         (uint64_t)r.record};
        for (int i = 0; i < 4; i++)
            h = (h ^ v[i]) * 1099511628211u;
        for (uint32_t i = 0; i < r.n_blocks; i++)
            h = (h ^ r.blocks[i]) * 1099511628211u;
    }
    snprintf(msg, cap, "%d %s", rc, rc == TRACE_ERR ? err.msg : "");
    trace_close(t);
    return h;
}

START_TEST(test_mooncake_scanner_oracle)
{
    size_t live = sim_alloc_live_count();
    char text[2048], path[512], m1[SIM_ERR_LEN + 8], m2[SIM_ERR_LEN + 8];
    snprintf(text, sizeof text,
             "{\"timestamp\": 2, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [0]}\n"
             "%s\n"
             "{\"timestamp\": 9, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [2]}\n",
             oracle_lines[_i]);
    write_text(path, sizeof path, "oracle.jsonl", text);
    uint64_t h1 = oracle_digest(path, 0, m1, sizeof m1);
    uint64_t h2 = oracle_digest(path, 1, m2, sizeof m2);
    ck_assert_msg(h1 == h2, "line %d: the scanner's records differ from cJSON's", _i);
    ck_assert_str_eq(m1, m2);
    ck_assert_uint_eq(sim_alloc_live_count(), live);
}
END_TEST

/* Timestamps are read exactly from their text: an integer or plain
 * decimal literal of ms with at most 6 fraction digits is that many ns
 * even past 2^53 ns (104 days), where a double's ms x 1e6 would be off;
 * other literals (exponents, finer than 1 ns) round as a double does;
 * past 9.2e12 ms (int64 ns) is refused, at its line. */
START_TEST(test_mooncake_exact_timestamps)
{
    static const struct {
        const char *ts;
        sim_time_t ns; /* -1: refused */
    } cases[] = {
        {"0", 0},
        {"-0", 0},
        {"1500.25", 1500250000},
        {"2.0000006", 2000001},                      /* sub-ns: rounded, as a double */
        {"1e3", 1000000000},                          /* an exponent: as a double */
        {"576460752305", INT64_C(576460752305000000)}, /* a double says ...305000064 */
        {"576460752305.000001", INT64_C(576460752305000001)},
        {"9007199254.740993", INT64_C(9007199254740993)}, /* 2^53 + 1 ns */
        {"9200000000000", INT64_C(9200000000000000000)},
        {"9200000000000.000000", INT64_C(9200000000000000000)},
        {"9200000000000.000001", -1},
        {"9200000000001", -1},
        {"123456789012345678901234567890", -1},
        {"-0.5", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256], path[512];
        snprintf(text, sizeof text,
                 "{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [0]}\n"
                 "{\"x\": {\"timestamp\": 7}, \"timestamp\" :%s , \"input_length\": 1, "
                 "\"output_length\": 1, \"hash_ids\": [1]}\n",
                 cases[i].ts);
        write_text(path, sizeof path, "exact.jsonl", text);
        sim_err_t err = {{0}, 0};
        trace_t *t = open_file(path, "mooncake", &err);
        ck_assert_msg(t != NULL, "%s", err.msg);
        trace_req_t r;
        ck_assert_int_eq(trace_next(t, &r, &err), TRACE_OK);
        int rc = trace_next(t, &r, &err);
        if (cases[i].ns < 0) {
            ck_assert_msg(rc == TRACE_ERR && strstr(err.msg, "exact.jsonl:2: field 'timestamp' is"),
                          "%s: rc %d, %s", cases[i].ts, rc, err.msg);
        } else {
            ck_assert_msg(rc == TRACE_OK, "%s: %s", cases[i].ts, err.msg);
            ck_assert_msg(r.arrival_ns == cases[i].ns, "%s: %lld ns, expected %lld", cases[i].ts,
                          (long long)r.arrival_ns, (long long)cases[i].ns);
        }
        trace_close(t);
    }
}
END_TEST

START_TEST(test_zstd_truncated)
{
    size_t live = sim_alloc_live_count();
    /* Enough distinct records that the frame has several blocks. */
    size_t cap = 1 << 22, n = 0;
    char *text = malloc(cap);
    for (int i = 0; i < 20000; i++)
        n += (size_t)snprintf(text + n, cap - n,
                              "{\"timestamp\": %d, \"input_length\": %d, \"output_length\": %d, "
                              "\"hash_ids\": [%d, %d]}\n",
                              i, 513 + (i * 7919) % 511, 1 + i % 977, 2 * i, 2 * i + 1);
    char path[512];
    size_t zn = write_zstd(path, sizeof path, "whole.jsonl.zst", text, 0);
    sim_err_t err = {{0}, 0};
    int rc;
    ck_assert_int_eq(drain(path, "auto", &rc, &err), 20000);
    ck_assert_int_eq(rc, TRACE_END);
    const size_t keeps[] = {zn / 2, zn - 1, 6};
    for (size_t k = 0; k < 3; k++) {
        write_zstd(path, sizeof path, "cut.jsonl.zst", text, keeps[k]);
        int64_t got = drain(path, "mooncake", &rc, &err);
        ck_assert_int_eq(rc, TRACE_ERR);
        ck_assert_int_lt(got, 20000);
        ck_assert_msg(strstr(err.msg, "cut.jsonl.zst:") && strstr(err.msg, ": truncated zstd stream"),
                      "%s", err.msg);
        /* The line number is the one being read when the data ran out. */
        char want[64];
        snprintf(want, sizeof want, ".zst:%lld: ", (long long)got + 1);
        ck_assert_msg(strstr(err.msg, want) != NULL, "%s (after %lld records)", err.msg,
                      (long long)got);
    }
    /* Corrupt bytes in the middle: an error, never a crash. */
    write_zstd(path, sizeof path, "corrupt.jsonl.zst", text, 0);
    size_t len;
    char *z = tests_read_file(path, &len);
    for (size_t i = len / 2; i < len / 2 + 64; i++)
        z[i] = (char)(z[i] ^ 0x5A);
    snprintf(path, sizeof path, "%s", tests_write_file(tests_tmpdir(), "corrupt.jsonl.zst", z, len));
    free(z);
    drain(path, "mooncake", &rc, &err);
    ck_assert_int_eq(rc, TRACE_ERR);
    ck_assert_ptr_nonnull(strstr(err.msg, "corrupt.jsonl.zst:"));
    free(text);
    ck_assert_uint_eq(sim_alloc_live_count(), live);
}
END_TEST

/* ---- Azure ---- */

static const char good_csv[] =
    "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
    "2023-11-16 18:17:03.9799600,4808,10\r\n"
    "2023-11-16 18:17:04.0319600,3180,8\r\n"
    "\r\n"
    "2023-11-16 23:59:59.9999990,512,1\r\n"
    "2023-12-31 23:59:59.5,1,1\r\n"
    "2024-01-01 00:00:00,513,2\r\n"
    "2024-03-01 00:00:00.000000001,1,1\r\n"
    "2024-03-01 00:00:00.000000001,1,1";

START_TEST(test_azure_good)
{
    size_t live = sim_alloc_live_count();
    char plain[512], zst[512];
    write_text(plain, sizeof plain, "az.csv", good_csv);
    write_zstd(zst, sizeof zst, "az.csv.zst", good_csv, 0);
    sim_err_t err = {{0}, 0};
    size_t n1, n2;
    trace_t *t = open_file(plain, NULL, &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    rec_t *a = collect(t, &n1, &err);
    trace_close(t);
    t = open_file(zst, "azure", &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    rec_t *b = collect(t, &n2, &err);
    trace_close(t);
    assert_same(a, n1, b, n2);
    ck_assert_uint_eq(n1, 7);
    const sim_time_t at[] = {0,
                             52000000,
                             INT64_C(20576020039000),
                             INT64_C(3908575520040000),
                             INT64_C(3908576020040000),
                             INT64_C(9092576020040001),
                             INT64_C(9092576020040001)};
    const int64_t line[] = {2, 3, 5, 6, 7, 8, 9};
    for (size_t i = 0; i < n1; i++) {
        ck_assert_int_eq(a[i].arrival_ns, at[i]);
        ck_assert_int_eq(a[i].record, line[i]);
    }
    ck_assert_int_eq(a[0].input_tok, 4808);
    ck_assert_int_eq(a[0].output_tok, 10);
    /* Fresh ids from a counter: 10 blocks 0..9, then 7 blocks 10..16. */
    ck_assert_uint_eq(a[0].n_blocks, 10);
    ck_assert_uint_eq(a[0].blocks[0], 0);
    ck_assert_uint_eq(a[0].blocks[9], 9);
    ck_assert_uint_eq(a[1].n_blocks, 7);
    ck_assert_uint_eq(a[1].blocks[0], 10);
    ck_assert_uint_eq(a[1].blocks[6], 16);
    ck_assert_uint_eq(a[2].n_blocks, 1);
    ck_assert_uint_eq(a[2].blocks[0], 17);
    ck_assert_uint_eq(a[4].n_blocks, 2);
    free_recs(a, n1);
    free_recs(b, n2);
    ck_assert_uint_eq(sim_alloc_live_count(), live);
}
END_TEST

static const struct {
    const char *row;
    const char *msg;
} bad_rows[] = {
    {"2023-11-16 18:17:05.0,12", "bad row: expected 3 fields"},
    {"2023-11-16 18:17:05.0,12,3,4", "bad row: expected 3 fields"},
    {"2023-11-16T18:17:05.0,12,3", "bad TIMESTAMP '2023-11-16T18:17:05.0'"},
    {"2023-02-29 18:17:05.0,12,3", "bad TIMESTAMP '2023-02-29 18:17:05.0': day 29 out of range"},
    {"2023-11-16 24:00:00,12,3", "bad TIMESTAMP '2023-11-16 24:00:00': hour 24 out of range"},
    {"2023-13-16 18:17:05,12,3", "month 13 out of range"},
    {"2023-11-16 18:60:05,12,3", "minute 60 out of range"},
    {"2023-11-16 18:17:60,12,3", "second 60 out of range"},
    {"2323-11-16 18:17:05,12,3", "out of range: more than 9200000000 s"},
    {"2023-11-16 18:17:05.1234567891,12,3", "bad TIMESTAMP"},
    {"2023-11-16 18:17:05.,12,3", "bad TIMESTAMP"},
    {"2023-11-16 18:17:05.0,x12,3", "bad ContextTokens 'x12'"},
    {"2023-11-16 18:17:05.0,,3", "bad ContextTokens ''"},
    {"2023-11-16 18:17:05.0,-3,3", "bad ContextTokens '-3'"},
    {"2023-11-16 18:17:05.0,12,3.5", "bad GeneratedTokens '3.5'"},
    {"2023-11-16 18:17:05.0,0,3", "ContextTokens 0 out of range"},
    {"2023-11-16 18:17:05.0,16777217,3", "ContextTokens 16777217 out of range"},
    {"2023-11-16 18:17:05.0,12,0", "GeneratedTokens 0 out of range"},
    {"2023-11-16 18:17:03.0,12,3", "goes back in time"},
};

START_TEST(test_azure_errors)
{
    size_t live = sim_alloc_live_count();
    char text[512], path[512];
    snprintf(text, sizeof text,
             "TIMESTAMP,ContextTokens,GeneratedTokens\n"
             "2023-11-16 18:17:03.9799600,4808,10\n"
             "%s\n"
             "2023-11-16 18:17:09.0,1,1\n",
             bad_rows[_i].row);
    write_text(path, sizeof path, "az_bad.csv", text);
    sim_err_t err = {{0}, 0};
    int rc;
    ck_assert_int_eq(drain(path, "auto", &rc, &err), 1);
    ck_assert_int_eq(rc, TRACE_ERR);
    ck_assert_msg(strstr(err.msg, "az_bad.csv:3: ") != NULL, "row %d: %s", _i, err.msg);
    ck_assert_msg(strstr(err.msg, bad_rows[_i].msg) != NULL, "row %d: %s", _i, err.msg);
    ck_assert_uint_eq(sim_alloc_live_count(), live);
}
END_TEST

START_TEST(test_azure_bad_header)
{
    char path[512];
    sim_err_t err = {{0}, 0};
    write_text(path, sizeof path, "az_hdr.csv", "TIMESTAMP,Context,Generated\n2023-11-16 18:17:03,1,1\n");
    ck_assert_ptr_null(open_file(path, "auto", &err));
    ck_assert_msg(strstr(err.msg, "az_hdr.csv:1: bad header 'TIMESTAMP,Context,Generated'") != NULL,
                  "%s", err.msg);
    write_text(path, sizeof path, "az_empty.csv", "\n\n");
    ck_assert_ptr_null(open_file(path, "azure", &err));
    ck_assert_msg(strstr(err.msg, "az_empty.csv:1: missing header") != NULL, "%s", err.msg);
}
END_TEST

/* A trace with no requests is one error whatever its format: before, a
 * header-only Azure CSV ran with 0 requests (span_s 1e-9) while an empty
 * JSONL failed detection. Other keys than the reader's may repeat. */
START_TEST(test_no_requests)
{
    char path[512];
    sim_err_t err = {{0}, 0};
    int rc;
    static const struct {
        const char *name, *text, *format, *msg;
    } cases[] = {
        {"hdr.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n", "auto",
         "hdr.csv: no requests (the file holds no records)"},
        {"hdr2.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n\n\n", "azure",
         "hdr2.csv: no requests (the file holds no records)"},
        {"e.jsonl", "", "auto", "e.jsonl: no requests (the file is empty)"},
        {"blank.jsonl", "\n  \n\n", "auto", "blank.jsonl: no requests (the file is empty)"},
        {"e2.jsonl", "", "mooncake", "e2.jsonl: no requests (the file holds no records)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_text(path, sizeof path, cases[i].name, cases[i].text);
        ck_assert_int_eq(drain(path, cases[i].format, &rc, &err), 0);
        ck_assert_int_eq(rc, TRACE_ERR);
        ck_assert_msg(strstr(err.msg, cases[i].msg) != NULL, "%s: %s", cases[i].name, err.msg);
    }
    /* the error is sticky, and a limit does not hide it */
    trace_open_args_t a = {.path = path, .format = "mooncake", .speed = 1, .limit = 5};
    trace_t *t = trace_open(&a, &err);
    ck_assert_ptr_nonnull(t);
    trace_req_t r;
    ck_assert_int_eq(trace_next(t, &r, &err), TRACE_ERR);
    ck_assert_int_eq(trace_next(t, &r, &err), TRACE_ERR);
    ck_assert_msg(strstr(err.msg, "no requests") != NULL, "%s", err.msg);
    trace_close(t);
    /* one record is enough; unknown keys may repeat */
    write_text(path, sizeof path, "one.jsonl",
               "{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [0], "
               "\"note\": 1, \"note\": 2}\n");
    ck_assert_int_eq(drain(path, "auto", &rc, &err), 1);
    ck_assert_int_eq(rc, TRACE_END);
}
END_TEST

/* ---- detection, registry, speed, limit ---- */

START_TEST(test_detect_and_registry)
{
    char path[512];
    sim_err_t err = {{0}, 0};
    write_text(path, sizeof path, "garbage.txt", "hello,world\n{\"timestamp\": 0}\n");
    ck_assert_ptr_null(open_file(path, "auto", &err));
    ck_assert_msg(strstr(err.msg, "garbage.txt:1: cannot detect trace format (expected Mooncake "
                                  "JSONL or Azure CSV)") != NULL, "%s", err.msg);
    write_zstd(path, sizeof path, "garbage.zst", "%PDF-1.4\n", 0);
    ck_assert_ptr_null(open_file(path, "auto", &err));
    ck_assert_ptr_nonnull(strstr(err.msg, "garbage.zst:1: cannot detect trace format"));
    write_text(path, sizeof path, "empty.jsonl", "");
    ck_assert_ptr_null(open_file(path, "auto", &err));
    ck_assert_msg(strstr(err.msg, "empty.jsonl: no requests (the file is empty)") != NULL, "%s",
                  err.msg);
    /* A named format reads it as zero records: the same error. */
    int rc;
    ck_assert_int_eq(drain(path, "mooncake", &rc, &err), 0);
    ck_assert_int_eq(rc, TRACE_ERR);
    ck_assert_msg(strstr(err.msg, "empty.jsonl: no requests") != NULL, "%s", err.msg);
    /* An Azure file read as Mooncake fails on its first line. */
    write_text(path, sizeof path, "az2.csv", good_csv);
    drain(path, "mooncake", &rc, &err);
    ck_assert_int_eq(rc, TRACE_ERR);
    ck_assert_ptr_nonnull(strstr(err.msg, "az2.csv:1: bad JSON"));
    ck_assert_int_eq(drain(path, "", &rc, &err), 7);

    ck_assert_ptr_null(open_file(path, "parquet", &err));
    ck_assert_str_eq(err.msg,
                     "$.trace.format: unknown trace format 'parquet' (valid: auto, mooncake, azure, kimi, arxiv, leval, longctx, agentic)");
    trace_gen_params_t g = {.kind = "poisson-chat"};
    trace_open_args_t a = {.gen = &g, .speed = 1};
    ck_assert_ptr_null(trace_open(&a, &err));
    ck_assert_str_eq(err.msg, "$.trace.generator.kind: unknown generator 'poisson-chat' (valid: kimi, arxiv, leval, longctx, agentic)");
    g.kind[0] = '\0';
    ck_assert_ptr_null(trace_open(&a, &err));
    ck_assert_ptr_nonnull(strstr(err.msg, "$.trace"));

    char names[64];
    trace_source_names(names, sizeof names, 0);
    ck_assert_str_eq(names, "mooncake, azure");
    trace_source_names(names, sizeof names, 1);
    ck_assert_str_eq(names, "kimi, arxiv, leval, longctx, agentic");
    trace_source_names(names, 12, 0); /* "mooncake, azure" does not fit */
    ck_assert_str_eq(names, "mooncake");
    trace_source_names(names, 3, 0);
    ck_assert_str_eq(names, "");
    const char *all[] = {"mooncake", "azure", "kimi"};
    for (int i = 0; i < 3; i++) {
        const trace_source_ops_t *ops = trace_source_find(all[i]);
        ck_assert_ptr_nonnull(ops);
        ck_assert_str_eq(ops->name, all[i]);
        ck_assert_ptr_nonnull(ops->help);
        ck_assert_int_eq(ops->is_generator, i == 2);
    }
    ck_assert_ptr_null(trace_source_find("auto"));
    ck_assert_ptr_null(trace_source_find(NULL));
}
END_TEST

START_TEST(test_speed_and_limit)
{
    size_t live = sim_alloc_live_count();
    char path[512];
    write_text(path, sizeof path, "speed.jsonl",
               "{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [0]}\n"
               "{\"timestamp\": 1, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [0]}\n"
               "{\"timestamp\": 1000, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [0]}\n"
               "{\"timestamp\": 3000, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [0]}\n");
    sim_err_t err = {{0}, 0};
    trace_open_args_t a = {.path = path, .format = "auto", .speed = 3.0, .limit = 0};
    trace_t *t = trace_open(&a, &err);
    size_t n;
    rec_t *v = collect(t, &n, &err);
    trace_close(t);
    ck_assert_uint_eq(n, 4);
    ck_assert_int_eq(v[1].arrival_ns, 333333);
    ck_assert_int_eq(v[2].arrival_ns, 333333333);
    ck_assert_int_eq(v[3].arrival_ns, 1000000000);
    free_recs(v, n);
    a.speed = 0.5;
    a.limit = 2;
    t = trace_open(&a, &err);
    v = collect(t, &n, &err);
    trace_close(t);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(v[1].arrival_ns, 2000000);
    free_recs(v, n);
    a.limit = 10; /* beyond the end: all */
    t = trace_open(&a, &err);
    v = collect(t, &n, &err);
    trace_close(t);
    ck_assert_uint_eq(n, 4);
    free_recs(v, n);
    a.speed = -1;
    ck_assert_ptr_null(trace_open(&a, &err));
    ck_assert_str_eq(err.msg, "$.trace.speed: must be > 0 (got -1)");
    a.speed = NAN;
    ck_assert_ptr_null(trace_open(&a, &err));
    a.speed = 1;
    a.limit = -2;
    ck_assert_ptr_null(trace_open(&a, &err));
    ck_assert_str_eq(err.msg, "$.trace.limit: must be >= 0 (got -2)");
    ck_assert_uint_eq(sim_alloc_live_count(), live);
}
END_TEST

/* ---- the kimi generator ---- */

static trace_gen_params_t kimi_params(void)
{
    trace_gen_params_t g = {
        .kind = "kimi",
        .requests = 2000,
        .rate_rps = 5.0,
        .arrival = "poisson",
        .arrival_cv = 1.0,
        .burst_period_s = 3.0,
        .input = {.dist = "lognormal", .mean = 300, .cv = 1.0, .min = 1, .max = 4000},
        .output = {.dist = "exponential", .mean = 100, .cv = 0, .min = 1, .max = 2000},
        .system_prompt_tok = 1100,
        .p_continue = 0.7,
        .max_sessions = 16,
        .max_context_tok = 8000,
    };
    return g;
}

static rec_t *gen(const trace_gen_params_t *g, uint64_t seed, size_t *n)
{
    sim_err_t err = {{0}, 0};
    trace_open_args_t a = {.gen = g, .seed = seed, .speed = 1.0};
    trace_t *t = trace_open(&a, &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    rec_t *v = collect(t, n, &err);
    trace_close(t);
    return v;
}

START_TEST(test_kimi_determinism)
{
    size_t live = sim_alloc_live_count();
    trace_gen_params_t g = kimi_params();
    size_t n1, n2, n3;
    rec_t *a = gen(&g, 42, &n1);
    rec_t *b = gen(&g, 42, &n2);
    rec_t *c = gen(&g, 43, &n3);
    ck_assert_uint_eq(n1, 2000);
    assert_same(a, n1, b, n2);
    int differ = 0;
    for (size_t i = 0; i < n1; i++)
        differ += a[i].arrival_ns != c[i].arrival_ns || a[i].input_tok != c[i].input_tok;
    ck_assert_int_gt(differ, 1000);
    ck_assert_int_eq(a[0].arrival_ns, 0);
    ck_assert_int_eq(a[0].record, 1);
    ck_assert_int_eq(a[1999].record, 2000);
    free_recs(a, n1);
    free_recs(b, n2);
    free_recs(c, n3);
    ck_assert_uint_eq(sim_alloc_live_count(), live);
}
END_TEST

/* Sample mean of input and output over n requests without sessions. */
static void kimi_means(const char *in_dist, double in_cv, const char *out_dist, double *mi,
                       double *mo)
{
    trace_gen_params_t g = kimi_params();
    g.requests = 20000;
    g.system_prompt_tok = 0;
    g.p_continue = 0;
    g.max_context_tok = 1 << 20;
    snprintf(g.input.dist, sizeof g.input.dist, "%s", in_dist);
    g.input.mean = 2000;
    g.input.cv = in_cv;
    g.input.max = 1 << 20;
    snprintf(g.output.dist, sizeof g.output.dist, "%s", out_dist);
    g.output.mean = 300;
    g.output.cv = 0.5;
    g.output.max = 1 << 20;
    sim_err_t err = {{0}, 0};
    trace_open_args_t a = {.gen = &g, .seed = 7, .speed = 1.0};
    trace_t *t = trace_open(&a, &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    trace_req_t r;
    double si = 0, so = 0;
    int64_t n = 0;
    while (trace_next(t, &r, &err) == TRACE_OK) {
        si += (double)r.input_tok;
        so += (double)r.output_tok;
        ck_assert_uint_eq(r.n_blocks, (uint32_t)((r.input_tok + 511) / 512));
        n++;
    }
    trace_close(t);
    ck_assert_int_eq(n, 20000);
    *mi = si / (double)n;
    *mo = so / (double)n;
}

START_TEST(test_kimi_length_means)
{
    double mi, mo;
    kimi_means("constant", 0, "constant", &mi, &mo);
    ck_assert_double_eq(mi, 2000);
    ck_assert_double_eq(mo, 300);
    kimi_means("lognormal", 1.0, "lognormal", &mi, &mo);
    ck_assert_msg(fabs(mi / 2000 - 1) < 0.03, "lognormal input mean %g", mi);
    ck_assert_msg(fabs(mo / 300 - 1) < 0.03, "lognormal output mean %g", mo);
    kimi_means("uniform", 0.5, "exponential", &mi, &mo);
    ck_assert_msg(fabs(mi / 2000 - 1) < 0.03, "uniform input mean %g", mi);
    ck_assert_msg(fabs(mo / 300 - 1) < 0.03, "exponential output mean %g", mo);
}
END_TEST

/* Record of a session's last turn, found by its first non-system id. */
typedef struct turn {
    uint64_t key;
    int64_t input_tok, output_tok;
    uint32_t n_blocks;
    uint64_t *blocks;
} turn_t;

START_TEST(test_kimi_shared_prefix)
{
    size_t live = sim_alloc_live_count();
    trace_gen_params_t g = kimi_params();
    g.requests = 5000;
    /* Prompts of >= 1100 + 512 tokens: a next turn keeps at least one full
     * block past the system prompt, which identifies its session here. */
    g.input.mean = 800;
    g.input.cv = 0.5;
    g.input.min = 512;
    sim_err_t err = {{0}, 0};
    trace_open_args_t a = {.gen = &g, .seed = 1, .speed = 1.0};
    trace_t *t = trace_open(&a, &err);
    ck_assert_ptr_nonnull(t);
    const uint64_t sysb = 1100 / 512;
    turn_t *turns = calloc(5000, sizeof *turns);
    size_t n_turns = 0;
    uint64_t max_id = sysb - 1; /* ids 0..sysb-1: the system prompt */
    int64_t n_cont = 0, n_new = 0, peak_live = 0;
    trace_req_t r;
    while (trace_next(t, &r, &err) == TRACE_OK) {
        ck_assert_int_le(r.input_tok, 8000);
        ck_assert_uint_eq(r.n_blocks, (uint32_t)((r.input_tok + 511) / 512));
        ck_assert_uint_gt(r.n_blocks, sysb);
        /* Every request opens with the shared system blocks. */
        for (uint64_t b = 0; b < sysb; b++)
            ck_assert_uint_eq(r.blocks[b], b);
        turn_t *prev = NULL;
        for (size_t i = 0; i < n_turns; i++)
            if (turns[i].key == r.blocks[sysb])
                prev = &turns[i];
        uint32_t keep = (uint32_t)sysb;
        if (prev) {
            /* A next turn: the previous prompt + output + new tokens; the
             * previous full blocks are identical. */
            n_cont++;
            ck_assert_int_gt(r.input_tok, prev->input_tok + prev->output_tok);
            keep = (uint32_t)(prev->input_tok / 512);
            for (uint32_t b = 0; b < keep; b++)
                ck_assert_uint_eq(r.blocks[b], prev->blocks[b]);
        } else {
            n_new++;
            ck_assert_int_le(r.input_tok, 1100 + 4000);
            prev = &turns[n_turns++];
            prev->key = r.blocks[sysb];
        }
        /* The rest are fresh ids, handed out in increasing order. */
        for (uint32_t b = keep; b < r.n_blocks; b++) {
            ck_assert_uint_gt(r.blocks[b], max_id);
            max_id = r.blocks[b];
        }
        prev->input_tok = r.input_tok;
        prev->output_tok = r.output_tok;
        prev->n_blocks = r.n_blocks;
        free(prev->blocks);
        prev->blocks = malloc(r.n_blocks * sizeof *prev->blocks);
        memcpy(prev->blocks, r.blocks, r.n_blocks * sizeof *prev->blocks);
        int64_t l = (int64_t)sim_alloc_live_bytes();
        peak_live = SIM_MAX(peak_live, l);
    }
    trace_close(t);
    ck_assert_int_gt(n_cont, 2500);
    ck_assert_int_gt(n_new, 500);
    for (size_t i = 0; i < n_turns; i++)
        free(turns[i].blocks);
    free(turns);
    /* Bounded by max_sessions (16 sessions of <= 16 ids), not requests. */
    ck_assert_int_lt(peak_live - (int64_t)live, 64 * 1024);
    ck_assert_uint_eq(sim_alloc_live_count(), live);
}
END_TEST

START_TEST(test_kimi_memory_bounded)
{
    size_t live = sim_alloc_live_bytes();
    trace_gen_params_t g = kimi_params();
    g.requests = 200000;
    g.max_sessions = 4;
    sim_err_t err = {{0}, 0};
    trace_open_args_t a = {.gen = &g, .seed = 3, .speed = 1.0};
    trace_t *t = trace_open(&a, &err);
    trace_req_t r;
    size_t peak = 0;
    int64_t n = 0;
    while (trace_next(t, &r, &err) == TRACE_OK) {
        peak = SIM_MAX(peak, sim_alloc_live_bytes() - live);
        n++;
    }
    trace_close(t);
    ck_assert_int_eq(n, 200000);
    ck_assert_uint_lt(peak, 16 * 1024);
    ck_assert_uint_eq(sim_alloc_live_bytes(), live);
}
END_TEST

/* Mean arrival rate (n-1)/span over n requests of the given process. */
static double kimi_rate(const char *arrival, double cv, int64_t n_req, int *same_instant)
{
    trace_gen_params_t g = kimi_params();
    g.requests = n_req;
    g.rate_rps = 5.0;
    snprintf(g.arrival, sizeof g.arrival, "%s", arrival);
    g.arrival_cv = cv;
    g.burst_period_s = 3.0;
    sim_err_t err = {{0}, 0};
    trace_open_args_t a = {.gen = &g, .seed = 11, .speed = 1.0};
    trace_t *t = trace_open(&a, &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    trace_req_t r;
    sim_time_t last = -1;
    int64_t n = 0;
    *same_instant = 0;
    while (trace_next(t, &r, &err) == TRACE_OK) {
        ck_assert_int_ge(r.arrival_ns, last);
        *same_instant += r.arrival_ns == last;
        last = r.arrival_ns;
        n++;
    }
    trace_close(t);
    ck_assert_int_eq(n, n_req);
    return (double)(n - 1) / ((double)last / 1e9);
}

START_TEST(test_kimi_arrivals)
{
    int same;
    double rate = kimi_rate("poisson", 1, 20000, &same);
    ck_assert_msg(fabs(rate / 5.0 - 1) < 0.03, "poisson rate %g", rate);
    ck_assert_int_lt(same, 5);
    rate = kimi_rate("gamma", 2.0, 40000, &same);
    ck_assert_msg(fabs(rate / 5.0 - 1) < 0.05, "gamma rate %g", rate);
    rate = kimi_rate("burst", 1, 100000, &same);
    ck_assert_msg(fabs(rate / 5.0 - 1) < 0.05, "burst rate %g", rate);
    /* Bursts of about 15 at one instant: most arrivals share theirs. */
    ck_assert_int_gt(same, 80000);
}
END_TEST

/* A session's next turn comes at least turn_gap_s after its previous turn;
 * periodic bursts land on multiples of the period. */
START_TEST(test_kimi_turn_gap_and_periodic)
{
    trace_gen_params_t g = kimi_params();
    g.requests = 3000;
    g.system_prompt_tok = 0; /* block 0 of a prompt then names its session */
    g.input.min = 512;
    g.turn_gap_s = 20;
    g.max_sessions = 512; /* sessions must outlive the gap */
    snprintf(g.arrival, sizeof g.arrival, "periodic");
    g.burst_period_s = 3;
    sim_err_t err = {{0}, 0};
    trace_open_args_t a = {.gen = &g, .seed = 5, .speed = 1.0};
    trace_t *t = trace_open(&a, &err);
    ck_assert_ptr_nonnull(t);
    enum { MAXS = 3000 };
    static uint64_t key[MAXS];
    static sim_time_t last[MAXS];
    size_t n_sess = 0;
    int64_t n_cont = 0;
    trace_req_t r;
    while (trace_next(t, &r, &err) == TRACE_OK) {
        ck_assert_int_eq(r.arrival_ns % (3 * SIM_NS_PER_S), 0);
        size_t i = 0;
        while (i < n_sess && key[i] != r.blocks[0])
            i++;
        if (i < n_sess) {
            n_cont++;
            ck_assert_int_ge(r.arrival_ns - last[i], 20 * SIM_NS_PER_S);
        } else {
            ck_assert_uint_lt(n_sess, MAXS);
            key[n_sess++] = r.blocks[0];
        }
        last[i] = r.arrival_ns;
    }
    trace_close(t);
    ck_assert_int_gt(n_cont, 1000);
}
END_TEST

static const struct {
    const char *what;
    const char *msg;
} kimi_bad[] = {
    {"input.dist", "$.trace.generator.input.dist: unknown distribution 'zipf' (valid: constant, "
                   "uniform, exponential, lognormal)"},
    {"output.min", "$.trace.generator.output.min: must be >= 1 (got 0)"},
    {"input.max", "$.trace.generator.input.max: must be >= min 1 (got 0)"},
    {"input.mean", "$.trace.generator.input.mean: must be > 0 (got 0)"},
    {"output.cv", "$.trace.generator.output.cv: must be >= 0 (got -1)"},
    {"rate_rps", "$.trace.generator.rate_rps: must be > 0 (got 0)"},
    {"requests", "$.trace.generator.requests: must be >= 1 (got 0)"},
    {"arrival", "$.trace.generator.arrival: unknown arrival process 'weibull' (valid: poisson, "
                "gamma, burst, periodic)"},
    {"arrival_cv", "$.trace.generator.arrival_cv: must be > 0 for gamma arrivals (got 0)"},
    {"burst_period_s", "$.trace.generator.burst_period_s: must be > 0 for burst arrivals (got 0)"},
    {"p_continue", "$.trace.generator.p_continue: must be in [0, 1] (got 1.5)"},
    {"max_sessions", "$.trace.generator.max_sessions: must be in [1, 16777216] (got 0)"},
    {"max_context_tok", "$.trace.generator.max_context_tok: must be >= system_prompt_tok + 1 = "
                        "1101 (got 1100)"},
};

START_TEST(test_kimi_validation)
{
    size_t live = sim_alloc_live_count();
    trace_gen_params_t g = kimi_params();
    const char *w = kimi_bad[_i].what;
    if (!strcmp(w, "input.dist"))
        snprintf(g.input.dist, sizeof g.input.dist, "zipf");
    else if (!strcmp(w, "output.min"))
        g.output.min = 0;
    else if (!strcmp(w, "input.max"))
        g.input.max = 0;
    else if (!strcmp(w, "input.mean"))
        g.input.mean = 0;
    else if (!strcmp(w, "output.cv"))
        g.output.cv = -1;
    else if (!strcmp(w, "rate_rps"))
        g.rate_rps = 0;
    else if (!strcmp(w, "requests"))
        g.requests = 0;
    else if (!strcmp(w, "arrival"))
        snprintf(g.arrival, sizeof g.arrival, "weibull");
    else if (!strcmp(w, "arrival_cv")) {
        snprintf(g.arrival, sizeof g.arrival, "gamma");
        g.arrival_cv = 0;
    } else if (!strcmp(w, "burst_period_s")) {
        snprintf(g.arrival, sizeof g.arrival, "burst");
        g.burst_period_s = 0;
    } else if (!strcmp(w, "p_continue"))
        g.p_continue = 1.5;
    else if (!strcmp(w, "max_sessions"))
        g.max_sessions = 0;
    else if (!strcmp(w, "max_context_tok"))
        g.max_context_tok = 1100;
    sim_err_t err = {{0}, 0};
    trace_open_args_t a = {.gen = &g, .format = "auto", .seed = 1, .speed = 1.0};
    ck_assert_ptr_null(trace_open(&a, &err));
    ck_assert_str_eq(err.msg, kimi_bad[_i].msg);
    ck_assert_uint_eq(sim_alloc_live_count(), live);
}
END_TEST

/* ---- trace_stats and the bench ---- */

START_TEST(test_stats_small)
{
    size_t live = sim_alloc_live_count();
    char path[512];
    write_text(path, sizeof path, "stats.jsonl",
               "{\"timestamp\": 0, \"input_length\": 1000, \"output_length\": 10, \"hash_ids\": [0, 1]}\n"
               "{\"timestamp\": 500, \"input_length\": 1024, \"output_length\": 20, \"hash_ids\": [0, 2]}\n"
               "{\"timestamp\": 1000, \"input_length\": 1536, \"output_length\": 30, \"hash_ids\": [0, 2, 3]}\n"
               "{\"timestamp\": 2000, \"input_length\": 100, \"output_length\": 40, \"hash_ids\": [4]}\n");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sim_err_t err = {{0}, 0};
    trace_open_args_t a = {.path = path, .format = "auto", .speed = 1.0};
    ck_assert_int_eq(trace_stats(&a, f, &err), 0);
    fclose(f);
    json_error_t jerr;
    json_t *o = json_loads(buf, 0, &jerr);
    ck_assert_msg(o != NULL, "%s", buf);
    ck_assert_int_eq(json_integer_value(json_object_get(o, "requests")), 4);
    ck_assert_double_eq(json_real_value(json_object_get(o, "span_s")), 2.0);
    ck_assert_double_eq(json_real_value(json_object_get(o, "mean_rate_rps")), 2.0);
    ck_assert_double_eq(json_real_value(json_object_get(o, "mean_input")), 915.0);
    ck_assert_int_eq(json_integer_value(json_object_get(o, "p50_input")), 1000);
    ck_assert_int_eq(json_integer_value(json_object_get(o, "p99_input")), 1536);
    ck_assert_int_eq(json_integer_value(json_object_get(o, "max_input")), 1536);
    ck_assert_double_eq(json_real_value(json_object_get(o, "mean_output")), 25.0);
    ck_assert_int_eq(json_integer_value(json_object_get(o, "p50_output")), 20);
    ck_assert_int_eq(json_integer_value(json_object_get(o, "p99_output")), 40);
    ck_assert_int_eq(json_integer_value(json_object_get(o, "max_output")), 40);
    ck_assert_int_eq(json_integer_value(json_object_get(o, "total_blocks")), 8);
    ck_assert_int_eq(json_integer_value(json_object_get(o, "unique_blocks")), 5);
    ck_assert_double_eq(json_real_value(json_object_get(o, "block_reuse")), 0.375);
    json_decref(o);
    /* Keys come in a fixed order, two-space indented. */
    const char *keys[] = {"requests", "span_s", "mean_rate_rps", "mean_input", "p50_input",
                          "p99_input", "max_input", "mean_output", "p50_output", "p99_output",
                          "max_output", "total_blocks", "unique_blocks", "block_reuse"};
    const char *p = buf;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char k[64];
        snprintf(k, sizeof k, "\n  \"%s\": ", keys[i]);
        const char *q = strstr(p, k);
        ck_assert_msg(q != NULL, "key %s out of order in\n%s", keys[i], buf);
        p = q;
    }
    free(buf);

    /* An error in the source is the stats' error. */
    write_text(path, sizeof path, "stats_bad.jsonl",
               "{\"timestamp\": 0, \"input_length\": 1000, \"output_length\": 10, \"hash_ids\": [0]}\n");
    f = open_memstream(&buf, &len);
    ck_assert_int_eq(trace_stats(&a, f, &err), -1);
    fclose(f);
    free(buf);
    ck_assert_ptr_nonnull(strstr(err.msg, "stats_bad.jsonl:1: hash_ids has 1 ids, expected 2"));
    ck_assert_uint_eq(sim_alloc_live_count(), live);
}
END_TEST

START_TEST(test_stats_generator_and_bench)
{
    size_t live = sim_alloc_live_count();
    trace_gen_params_t g = kimi_params();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sim_err_t err = {{0}, 0};
    trace_open_args_t a = {.gen = &g, .seed = 5, .speed = 1.0, .limit = 1500};
    ck_assert_int_eq(trace_stats(&a, f, &err), 0);
    fclose(f);
    json_t *o = json_loads(buf, 0, NULL);
    ck_assert_ptr_nonnull(o);
    ck_assert_int_eq(json_integer_value(json_object_get(o, "requests")), 1500);
    /* Sessions and the system prompt make blocks repeat. */
    ck_assert_double_gt(json_real_value(json_object_get(o, "block_reuse")), 0.3);
    json_decref(o);
    free(buf);

    char *text = good_jsonl_text();
    char path[512];
    write_zstd(path, sizeof path, "bench.jsonl.zst", text, 0);
    free(text);
    f = open_memstream(&buf, &len);
    ck_assert_int_eq(trace_bench_parse(path, f, &err), 0);
    fclose(f);
    ck_assert_msg(strstr(buf, ": 5 records") && strstr(buf, "cjson") && strstr(buf, "jansson") &&
                      strstr(buf, "faster: "),
                  "%s", buf);
    free(buf);
    write_text(path, sizeof path, "bench_bad.jsonl", "{\"timestamp\": 0}\n\n[\n");
    f = open_memstream(&buf, &len);
    ck_assert_int_eq(trace_bench_parse(path, f, &err), -1);
    fclose(f);
    free(buf);
    ck_assert_ptr_nonnull(strstr(err.msg, "bench_bad.jsonl:1: "));
    ck_assert_uint_eq(sim_alloc_live_count(), live);
}
END_TEST

/* ---- the real traces ---- */

static int64_t real_count(const char *rel, sim_time_t *last, uint64_t *first_ids_zero)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", tests_traces_dir(), rel);
    sim_err_t err = {{0}, 0};
    trace_t *t = open_file(path, "auto", &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    trace_req_t r;
    int64_t n = 0;
    int rc;
    *first_ids_zero = 0;
    while ((rc = trace_next(t, &r, &err)) == TRACE_OK) {
        n++;
        *last = r.arrival_ns;
        *first_ids_zero += r.blocks[0] == 0;
    }
    ck_assert_msg(rc == TRACE_END, "%s", err.msg);
    trace_close(t);
    return n;
}

START_TEST(test_real_conversation)
{
    sim_time_t last = 0;
    uint64_t z;
    ck_assert_int_eq(real_count("conversation_trace.jsonl.zst", &last, &z), 12031);
    ck_assert_int_eq(last, INT64_C(3536999000000));
    ck_assert_uint_eq(z, 12031); /* block 0 opens every request */
}
END_TEST

START_TEST(test_real_synthetic)
{
    sim_time_t last = 0;
    uint64_t z;
    ck_assert_int_eq(real_count("synthetic_trace.jsonl.zst", &last, &z), 3993);
    ck_assert_int_eq(last, INT64_C(1022025000000));
}
END_TEST

START_TEST(test_real_azure_code)
{
    sim_time_t last = 0;
    uint64_t z;
    /* 8,819 data rows: SOURCE.md's 8,818 is `wc -l` of a file whose last
     * row has no newline. */
    ck_assert_int_eq(real_count("azure/AzureLLMInferenceTrace_code.csv.zst", &last, &z), 8819);
    ck_assert_int_gt(last, INT64_C(3400) * SIM_NS_PER_S);
    ck_assert_uint_eq(z, 1); /* fresh ids: only the first request has id 0 */
}
END_TEST


/* ---- the store: files parsed once, replayed per run ---- */

/* Append one record's every field to buf (at *n, of cap). */
static void show_req(char *buf, size_t cap, size_t *n, const char *tag, const trace_req_t *r)
{
    *n += (size_t)snprintf(buf + *n, cap - *n, "%s %lld %lld %lld %lld k%lld s%lld w%lld [",
                           tag, (long long)r->arrival_ns, (long long)r->input_tok,
                           (long long)r->output_tok, (long long)r->record, (long long)r->key,
                           (long long)r->session, (long long)r->wait_ns);
    for (uint32_t i = 0; i < r->n_blocks && *n < cap; i++)
        *n += (size_t)snprintf(buf + *n, cap - *n, " %llu", (unsigned long long)r->blocks[i]);
    *n += (size_t)snprintf(buf + *n, cap - *n, " ] deps");
    for (uint32_t i = 0; r->deps && i < r->n_deps && *n < cap; i++) /* released: not kept */
        *n += (size_t)snprintf(buf + *n, cap - *n, " %lld", (long long)r->deps[i]);
    *n += (size_t)snprintf(buf + *n, cap - *n, "\n");
}

/* Everything a run sees of args, opened through st (NULL: trace_open):
 * the records, the released ones when deps are held (each keyed record
 * finishing 1 ms after it arrives), and how the stream ends. malloc'd. */
static char *replay_text(trace_store_t *st, const trace_open_args_t *a, int hold)
{
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    sim_err_t err = {{0}, 0};
    trace_t *t = trace_store_open(st, a, &err);
    if (!t) {
        snprintf(buf, cap, "open: %s\n", err.msg);
        return buf;
    }
    if (hold)
        trace_hold_deps(t);
    trace_req_t r;
    int rc;
    while ((rc = trace_next(t, &r, &err)) == TRACE_OK) {
        show_req(buf, cap, &n, "next", &r);
        if (hold && r.key)
            trace_done(t, r.key, r.arrival_ns + 1000000);
        while (hold && trace_released(t, &r) == TRACE_OK) {
            show_req(buf, cap, &n, "released", &r);
            if (r.key)
                trace_done(t, r.key, r.arrival_ns + 1000000);
        }
    }
    snprintf(buf + n, cap - n, "end %d: %s\n", rc, rc == TRACE_ERR ? err.msg : "");
    trace_close(t);
    return buf;
}

/* Every run's view through a store equals trace_open's: per-run speed,
 * limit, output cap and dependency holding over one parsed copy. */
static void assert_store_same(trace_store_t *st, const char *path, int64_t block_tok)
{
    static const double speeds[] = {1, 2.5};
    static const int64_t limits[] = {0, 2, 4};
    static const int64_t caps[] = {0, 5};
    for (int hold = 0; hold < 2; hold++)
        for (size_t i = 0; i < 2; i++)
            for (size_t j = 0; j < 3; j++)
                for (size_t k = 0; k < 2; k++) {
                    trace_open_args_t a = {.path = path, .format = "auto", .speed = speeds[i],
                                           .limit = limits[j], .output_cap = caps[k],
                                           .block_tok = block_tok};
                    char *want = replay_text(NULL, &a, hold), *got = replay_text(st, &a, hold);
                    ck_assert_msg(strcmp(want, got) == 0, "streamed:\n%s\nstored:\n%s", want,
                                  got);
                    free(want);
                    free(got);
                }
}

static const char store_jsonl[] =
    "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 10, \"hash_ids\": [0, 1], "
    "\"request_id\": \"a\", \"session_id\": 4}\n"
    "{\"timestamp\": 1.5, \"input_length\": 512, \"output_length\": 1, \"hash_ids\": [0]}\n"
    "{\"timestamp\": 2, \"input_length\": 700, \"output_length\": 9, \"hash_ids\": [0, 5], "
    "\"wait_for\": [\"a\"], \"delay\": 1.5, \"tool_wait_ms\": 2, \"session_id\": 4}\n"
    "{\"timestamp\": 3, \"input_length\": 1025, \"output_length\": 7, \"hash_ids\": [0, 1, 2]}\n"
    "{\"timestamp\": 4, \"input_length\": 40, \"output_length\": 30, \"hash_ids\": [8]}\n";

START_TEST(test_store_replays_as_streamed)
{
    size_t live = sim_alloc_live_count();
    char path[512], zst[512];
    write_text(path, sizeof path, "store.jsonl", store_jsonl);
    write_zstd(zst, sizeof zst, "store.jsonl.zst", store_jsonl, 0);
    trace_store_t *st = trace_store_new(TRACE_STORE_MAX_BYTES);
    assert_store_same(st, path, 0);
    ck_assert_int_eq(trace_store_entries(st), 1); /* one parse served every run */
    /* 5 records of 80 bytes, 9 ids and 1 dependency of 8 */
    ck_assert_int_eq(trace_store_bytes(st), 5 * 80 + 10 * 8);
    assert_store_same(st, zst, 0);
    ck_assert_int_eq(trace_store_entries(st), 2);
    /* a block size re-blocks the records: a key of its own */
    assert_store_same(st, path, 512);
    ck_assert_int_eq(trace_store_entries(st), 2); /* 0 reads as 512 */
    assert_store_same(st, path, 256); /* line 1: too few ids for 256-token blocks */
    ck_assert_int_eq(trace_store_entries(st), 3);
    trace_store_free(st);
    ck_assert_uint_eq(sim_alloc_live_count(), live);
}
END_TEST

START_TEST(test_store_errors_as_streamed)
{
    size_t live = sim_alloc_live_count();
    char bad[512], empty[512], junk[512], missing[512];
    write_text(bad, sizeof bad, "store_bad.jsonl",
               "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 10, \"hash_ids\": [0, 1]}\n"
               "{\"timestamp\": 1, \"input_length\": 600, \"output_length\": 10, \"hash_ids\": [0, 1]}\n"
               "{\"timestamp\": 2, \"input_length\": 600, \"output_length\": 10, \"hash_ids\": [0]}\n");
    write_text(empty, sizeof empty, "store_empty.jsonl", "\n\n");
    write_text(junk, sizeof junk, "store_junk.txt", "hello\n");
    snprintf(missing, sizeof missing, "%s/store_missing.jsonl", tests_tmpdir());
    trace_store_t *st = trace_store_new(TRACE_STORE_MAX_BYTES);
    /* records, then the located error of line 3 on every replay; a limit
     * that stops before it reports none, as a streamed run does */
    assert_store_same(st, bad, 0);
    ck_assert_int_eq(trace_store_entries(st), 1);
    trace_open_args_t a = {.path = bad, .speed = 1};
    char *got = replay_text(st, &a, 0);
    ck_assert_msg(strstr(got, "store_bad.jsonl:3: ") != NULL, "%s", got);
    free(got);
    /* files that fail at open are streamed (each run reports it) */
    assert_store_same(st, empty, 0);
    assert_store_same(st, junk, 0);
    assert_store_same(st, missing, 0);
    ck_assert_int_eq(trace_store_entries(st), 1);
    /* out-of-range run arguments, after a stored parse: trace_open's error */
    trace_open_args_t neg = {.path = bad, .speed = -1};
    char *want = replay_text(NULL, &neg, 0);
    got = replay_text(st, &neg, 0);
    ck_assert_str_eq(got, want);
    ck_assert(strstr(got, "$.trace.speed: must be > 0") != NULL);
    free(want);
    free(got);
    neg = (trace_open_args_t){.path = bad, .speed = 1, .limit = -1};
    want = replay_text(NULL, &neg, 0);
    got = replay_text(st, &neg, 0);
    ck_assert_str_eq(got, want);
    free(want);
    free(got);
    trace_store_free(st);
    ck_assert_uint_eq(sim_alloc_live_count(), live);
}
END_TEST

START_TEST(test_store_bound_and_identity)
{
    size_t live = sim_alloc_live_count();
    char path[512];
    write_text(path, sizeof path, "store_id.jsonl", store_jsonl);
    /* over the bound: streamed by every run, nothing held */
    trace_store_t *st = trace_store_new(5 * 80 + 10 * 8 - 1);
    assert_store_same(st, path, 0);
    ck_assert_int_eq(trace_store_entries(st), 0);
    ck_assert_int_eq(trace_store_bytes(st), 0);
    trace_store_free(st);
    st = trace_store_new(0);
    assert_store_same(st, path, 0);
    ck_assert_int_eq(trace_store_entries(st), 0);
    trace_store_free(st);
    /* a file that changes between runs is parsed again */
    st = trace_store_new(TRACE_STORE_MAX_BYTES);
    assert_store_same(st, path, 0);
    write_text(path, sizeof path, "store_id.jsonl",
               "{\"timestamp\": 0, \"input_length\": 60, \"output_length\": 1, \"hash_ids\": [3]}\n");
    assert_store_same(st, path, 0);
    ck_assert_int_eq(trace_store_entries(st), 2);
    /* a generator is never stored */
    trace_gen_params_t g = kimi_params();
    g.requests = 50;
    trace_open_args_t a = {.gen = &g, .seed = 7, .speed = 1};
    char *want = replay_text(NULL, &a, 0), *got = replay_text(st, &a, 0);
    ck_assert_str_eq(got, want);
    free(want);
    free(got);
    ck_assert_int_eq(trace_store_entries(st), 2);
    trace_store_free(st);
    ck_assert_uint_eq(sim_alloc_live_count(), live);
}
END_TEST

Suite *test_trace_suite(void)
{
    Suite *s = suite_create("trace");
    (void)tests_tmpdir(); /* create it once, in the parent, before forks */
    TCase *tc = tcase_create("files");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_lines_plain_and_zstd);
    tcase_add_test(tc, test_lines_empty_and_missing);
    tcase_add_test(tc, test_json_arena);
    tcase_add_test(tc, test_mooncake_good_plain_zstd);
    tcase_add_test(tc, test_mooncake_exact_timestamps);
    tcase_add_loop_test(tc, test_mooncake_scanner_oracle, 0,
                        (int)(sizeof oracle_lines / sizeof oracle_lines[0]));
    tcase_add_loop_test(tc, test_mooncake_errors, 0,
                        (int)(sizeof bad_cases / sizeof bad_cases[0]));
    tcase_add_test(tc, test_zstd_truncated);
    tcase_add_test(tc, test_azure_good);
    tcase_add_loop_test(tc, test_azure_errors, 0, (int)(sizeof bad_rows / sizeof bad_rows[0]));
    tcase_add_test(tc, test_azure_bad_header);
    tcase_add_test(tc, test_no_requests);
    tcase_add_test(tc, test_detect_and_registry);
    tcase_add_test(tc, test_speed_and_limit);
    tcase_add_test(tc, test_stats_small);
    suite_add_tcase(s, tc);

    tc = tcase_create("kimi");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_kimi_determinism);
    tcase_add_test(tc, test_kimi_length_means);
    tcase_add_test(tc, test_kimi_shared_prefix);
    tcase_add_test(tc, test_kimi_memory_bounded);
    tcase_add_test(tc, test_kimi_arrivals);
    tcase_add_test(tc, test_kimi_turn_gap_and_periodic);
    tcase_add_loop_test(tc, test_kimi_validation, 0, (int)(sizeof kimi_bad / sizeof kimi_bad[0]));
    tcase_add_test(tc, test_stats_generator_and_bench);
    tcase_add_test(tc, test_store_replays_as_streamed);
    tcase_add_test(tc, test_store_errors_as_streamed);
    tcase_add_test(tc, test_store_bound_and_identity);
    suite_add_tcase(s, tc);

    tc = tcase_create("real");
    tcase_set_timeout(tc, 120);
    TESTS_ADD_TRACE_TEST(tc, test_real_conversation);
    TESTS_ADD_TRACE_TEST(tc, test_real_synthetic);
    TESTS_ADD_TRACE_TEST(tc, test_real_azure_code);
    suite_add_tcase(s, tc);
    return s;
}
