/* sim/exp/check.c: see check.h. The checker is an independent reader of the
 * outputs: it knows the files only as docs/outputs.md describes them (its
 * own copy of the documented headers and keys), never through the
 * simulator's writers, so a writer that drifts from docs/outputs.md fails here.
 * Every comparison allows exactly the rounding of the values compared:
 *   requests.csv   seconds with 6 decimals: each within 5e-7 of the truth;
 *                  a sum or difference of k of them is off by at most k/2
 *                  us and, all being whole microseconds, by a whole number:
 *                  1 us for three values, 2 us for four (on exact ties);
 *   summary.json   reals with 9 significant digits: within 5e-9 relative
 *                  on each side of a recomputation (SUM_REL allows 3e-8);
 *   percentiles    log-linear histograms, within 0.1% (docs/outputs.md; exact below
 *                  2 us), of a sample that requests.csv holds rounded;
 *   timeseries.csv time_s 3 decimals, utilizations 5, loads 4. */
#include "sim/exp/check.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <jansson.h>

#include "models/hw.h"
#include "models/llm.h"
#include "sim/core/jsonx.h"
#include "sim/core/opts.h"

#define CSV_HALF 5e-7     /* half the last digit of a 6-decimal field, s */
#define ROW_US 1e-6       /* one whole microsecond: see the file comment */
#define SLACK 1e-9        /* strtod noise on values whose rounding keeps their order */
#define SUM_REL 3e-8      /* 9-digit summary values on both sides, plus float noise */
#define HIST_REL 1e-3     /* docs/outputs.md: percentiles within 0.1% */
#define TS_TIME_HALF 5e-4 /* timeseries.csv time_s: 3 decimals */
#define TS_UTIL_HALF 5e-6 /* nic_util_*, replicas_mean: 5 decimals */
#define TS_LOAD_HALF 5e-5 /* loads: 4 decimals */
#define BLOCK_TOK 512     /* docs/model.md: the pool's blocks are 512 tokens */
#define SHOW 5            /* violations printed per invariant unless show_all */

/* ---- the invariants ---- */

enum inv {
    INV_IDS, INV_COUNTS, INV_FIELDS, INV_END_ORDER, INV_NONNEG, INV_FINISH, INV_FIRST_TOKEN,
    INV_AFTER_PREFILL, INV_TBT_ORDER, INV_CACHED, INV_TIERS, INV_FETCHED, INV_KV_READY,
    INV_TTFT, INV_TOP10, INV_TBT, INV_SLO, INV_RATES, INV_TOKENS, INV_PREFILL, INV_DECODE,
    INV_TRANSFER, INV_CACHE, INV_SIM, INV_TS_COLUMNS, INV_TS_TIME, INV_TS_NONNEG, INV_TS_NIC,
    INV_TS_POOL, INV_TS_LOADS, INV_INSTANCES, INV_LOAD, INV_BYTES, INV_BUSY, INV_ITERS,
    INV_EVENTS, INV_POOL, INV_TS_BYTES, N_INV
};

static const struct {
    const char *name, *file, *what;
} inv[N_INV] = {
    [INV_IDS] = {"ids", "requests.csv",
                 "one row per id 0..n-1, each exactly once; n = summary requests.total"},
    [INV_COUNTS] = {"counts", "summary.json",
                    "requests.{completed, rejected_at_arrival, rejected_after_prefill} are the "
                    "rows of each status and add up to requests.total"},
    [INV_FIELDS] = {"fields", "requests.csv",
                    "fields that apply are present, those that do not are empty: ttft_s and "
                    "tbt_* on completed rows only; queue_s..fetch_s on prefilled rows only; "
                    "kv_ready_s, decode_load_s, decode_start_s together, completed rows only"},
    [INV_END_ORDER] = {"end_order", "requests.csv",
                       "rows in the order requests end: finish_s never decreases"},
    [INV_NONNEG] = {"nonneg", "requests.csv",
                    "every time, token count and counter >= 0 (instances may be -1)"},
    [INV_FINISH] = {"finish", "requests.csv", "finish_s >= arrival_s"},
    [INV_FIRST_TOKEN] = {"first_token", "requests.csv",
                         "completed: finish_s >= arrival_s + ttft_s (1 us for rounding)"},
    [INV_AFTER_PREFILL] = {"after_prefill", "requests.csv",
                           "completed: ttft_s >= queue_s + prefill_s (the first token comes "
                           "out of the prefill; 1 us)"},
    [INV_TBT_ORDER] = {"tbt_order", "requests.csv",
                       "tbt_mean_s, tbt_p90_s, tbt_top10_s <= tbt_max_s and tbt_mean_s <= "
                       "tbt_top10_s (the mean of the longest 10%)"},
    [INV_CACHED] = {"cached", "requests.csv",
                    "cached_tokens <= input_tokens; with the pool on ($.cache), cached_tokens = "
                    "min(512 x leading blocks, input_tokens), its hit tokens"},
    [INV_TIERS] = {"tiers", "requests.csv",
                   "cached_dram_tokens + cached_ssd_tokens <= cached_tokens"},
    [INV_FETCHED] = {"fetched", "requests.csv",
                     "fetched_tokens <= cached_tokens (a fetch brings part of the reused "
                     "prefix) and <= input_tokens"},
    [INV_KV_READY] = {"kv_ready", "requests.csv",
                      "kv_ready_s = arrival_s + queue_s + transfer_s (transfer_s runs from "
                      "prefill start until all KV is on the decode node; when it is 0, nothing "
                      "moved and the KV is ready at prefill end: + prefill_s); decode_start_s "
                      "lies in [kv_ready_s + decode_load_s, finish_s] and is arrival_s + ttft_s "
                      "(the first token reaches the user as the request joins its batch); 2 us"},
    [INV_TTFT] = {"ttft", "summary.json",
                  "ttft_s.mean (within 5e-7) and p50/p90/p99 (within 0.1%) over completed rows"},
    [INV_TOP10] = {"tbt_top10", "summary.json",
                   "tbt_top10_s.mean and p50/p90/p99 likewise from tbt_top10_s"},
    [INV_TBT] = {"tbt", "summary.json",
                 "tbt_s.mean = mean of tbt_mean_s weighted by output_tokens - 1 intervals; "
                 "tbt_s.p90/p99 in [0, max tbt_max_s] (their exact check needs every token "
                 "interval, which requests.csv does not hold)"},
    [INV_SLO] = {"slo", "summary.json",
                 "slo.ttft_s/tbt_s = config.json's; slo.met = completed rows with ttft_s and "
                 "tbt_top10_s within them (rows within 5e-7 of a bound count either way); "
                 "attainment = met / completed; effective_request_capacity = met / total"},
    [INV_RATES] = {"rates", "summary.json",
                   "trace.span_s = last - first arrival_s (to the last finish_s when they "
                   "coincide); throughput_rps = completed / span_s; goodput_rps = met / span_s"},
    [INV_TOKENS] = {"tokens", "summary.json",
                    "trace.input_tokens = sum of input_tokens; output_tokens_completed and "
                    "cached_tokens_completed = their sums over completed rows"},
    [INV_PREFILL] = {"prefill", "summary.json",
                     "prefill.mean_queue_s = mean queue_s over completed rows; prefill.wasted_s "
                     "= sum of prefill_s over rejected_after_prefill rows; busy_s >= 0"},
    [INV_DECODE] = {"decode", "summary.json",
                    "decode.preemptions = sum of preemptions; stalls_per_request, "
                    "stall_s_per_request, stall_s_mean, stalled_share from prefill_stalls and "
                    "prefill_stall_s over completed rows; slot_wait_s_mean and slot_wait_s_max "
                    "of decode_start_s - kv_ready_s - decode_load_s over completed rows that have "
                    "them (1.5 us); iterations, busy_s, mean_batch >= 0"},
    [INV_TRANSFER] = {"transfer", "summary.json",
                      "per link class bytes, busy_s, flow_s, flows >= 0 and busy_s <= flow_s "
                      "(time with a flow <= sum of flow durations); no flows, nothing moved; "
                      "h2d/ssd bytes, busy_s >= 0; fetch moved bytes iff a row fetched tokens "
                      "(bytes: their conservation)"},
    [INV_CACHE] = {"cache", "summary.json",
                   "when present: hit_rate_tokens/_dram/_ssd and cached_tokens from the "
                   "prefilled rows; replicas.mean >= 1 when replicas.blocks > 0, max >= mean; "
                   "demotions <= evictions; counters >= 0"},
    [INV_SIM] = {"sim", "summary.json", "sim.seed = config.json's seed; sim.events >= 0"},
    [INV_TS_COLUMNS] = {"ts_columns", "timeseries.csv",
                        "one p<i>_load column per prefill instance and one d<j>_load per decode "
                        "instance of config.json's cluster (pd), or one of each per instance "
                        "(system.params.instances, colocated); no rows when metrics.interval_s "
                        "= 0"},
    [INV_TS_TIME] = {"ts_time", "timeseries.csv",
                     "time_s increases; each row one metrics.interval_s after the one before, "
                     "the first at 1 x (the last may end a partial interval earlier), or a "
                     "whole number of intervals later across an idle span: the two rows idle "
                     "(no flow, nothing in flight, every rate, utilization, wait and load 0) "
                     "and otherwise equal"},
    [INV_TS_NONNEG] = {"ts_nonneg", "timeseries.csv",
                       "every rate, utilization, count and load >= 0"},
    [INV_TS_NIC] = {"ts_nic", "timeseries.csv",
                    "nic_util_mean <= nic_util_max <= 1 (bytes sent over interval x NIC)"},
    [INV_TS_POOL] = {"ts_pool", "timeseries.csv",
                     "replicas_mean is 0 (nothing held) or >= 1; hot_replications never decreases"},
    [INV_TS_LOADS] = {"ts_loads", "timeseries.csv",
                      "prefill_load_mean and decode_load_mean are the means of the instance "
                      "columns (within 1e-4); the largest p<i>_load x slo.ttft_s is "
                      "prefill_wait_s_max (within the rounding of both)"},
    [INV_INSTANCES] = {"instances", "requests.csv",
                       "prefill_instance and decode_instance in [-1, n): n = config.json's "
                       "cluster.prefill and cluster.decode (pd), system.params.instances "
                       "(colocated); prefilled rows name a prefill instance, completed rows a "
                       "decode instance (>= 0)"},
    [INV_LOAD] = {"load", "requests.csv",
                  "pd with the pool on: load_s = cached_dram_tokens x KV bytes per token / "
                  "the DRAM load bandwidth + cached_ssd_tokens x KV bytes / the SSD read "
                  "bandwidth (config.json's cache.dram_load_gbs, cache.ssd_read_gbs, else the "
                  "hardware's), rounded to the ns, within 5e-7; pool off: load_s and both tiers 0"},
    [INV_BYTES] = {"bytes", "summary.json",
                   "pd, KV bytes per token of config.json's model: transfer.fetch.bytes = KV x "
                   "sum of fetched_tokens; transfer.ssd.bytes = KV x sum of cached_ssd_tokens; "
                   "transfer.h2d.bytes = KV x (sum of cached_dram_tokens + input_tokens of the "
                   "rows whose KV moved to their decode batch, kv_ready_s with transfer_s > 0: "
                   "what was received is loaded); transfer.pd.bytes between KV x the "
                   "input_tokens of those rows and of every prefilled row with output_tokens > 1 "
                   "but the inlined ones (transfer_s 0; a stream cut by a rejection moves part)"},
    [INV_BUSY] = {"busy", "summary.json",
                  "prefill.busy_s, decode.busy_s <= their instances x the last finish_s (pd "
                  "prefill counts the decode instances too when cluster.inline_prefill); pd with "
                  "cluster.prefill_group = 1: prefill.busy_s = sum of prefill_s over prefilled "
                  "rows (5e-7 each)"},
    [INV_ITERS] = {"iterations", "summary.json",
                   "decode.iterations x decode.mean_batch = sum of output_tokens - 1 - "
                   "preemptions over completed rows (one token per request per iteration; a "
                   "recompute yields one; mean_batch's 9 digits); "
                   "decode.iterations >= the largest output_tokens - 1"},
    [INV_EVENTS] = {"events", "summary.json",
                    "sim.events = timing.json's events when it is there; >= requests.total + "
                    "timeseries rows - 1 (an arrival per request, a tick per row but the last)"},
    [INV_POOL] = {"pool", "summary.json",
                  "when $.cache is there: evictions = demotions + drops; replicas held = inserts - "
                  "drops = replicas.blocks x replicas.mean, within the capacity nodes x "
                  "(dram + ssd blocks per node) when bounded (nodes: cluster.prefill x "
                  "prefill_group + cluster.decode); replicas.max <= nodes; the last timeseries "
                  "row is the end state: its replicas_mean = replicas.mean (5 decimals), "
                  "blocks_multi <= min(blocks, held - blocks), hot_replications = "
                  "transfer.replication.flows; every row replicas_mean <= nodes"},
    [INV_TS_BYTES] = {"ts_bytes", "timeseries.csv",
                      "per link class, the sum of rate x interval over the rows = summary.json's "
                      "transfer.<class>.bytes, within the rounding of the rates (4 decimals) and "
                      "times (3 decimals)"},
};

void sim_check_list(FILE *f)
{
    for (int i = 0; i < N_INV; i++)
        fprintf(f, "%-14s %-15s %s\n", inv[i].name, inv[i].file, inv[i].what);
}

/* ---- the files as documented ---- */

enum col {
    C_ID, C_ARRIVAL, C_INPUT, C_OUTPUT, C_STATUS, C_PINST, C_DINST, C_CACHED, C_TTFT,
    C_TBT_MEAN, C_TBT_P90, C_TBT_MAX, C_TBT_TOP10, C_FINISH, C_QUEUE, C_PREFILL, C_TRANSFER,
    C_CDRAM, C_CSSD, C_LOAD, C_FETCHED, C_FETCH_S, C_KV_READY, C_DLOAD, C_DSTART, C_PREEMPT,
    C_STALLS, C_STALL_S, N_COLS
};

static const char *const col_name[N_COLS] = {
    "id", "arrival_s", "input_tokens", "output_tokens", "status", "prefill_instance",
    "decode_instance", "cached_tokens", "ttft_s", "tbt_mean_s", "tbt_p90_s", "tbt_max_s",
    "tbt_top10_s", "finish_s", "queue_s", "prefill_s", "transfer_s", "cached_dram_tokens",
    "cached_ssd_tokens", "load_s", "fetched_tokens", "fetch_s", "kv_ready_s", "decode_load_s",
    "decode_start_s", "preemptions", "prefill_stalls", "prefill_stall_s",
};

#define BIT(c) (UINT32_C(1) << (c))
/* Columns holding whole numbers. */
static const uint32_t int_cols = BIT(C_ID) | BIT(C_INPUT) | BIT(C_OUTPUT) | BIT(C_PINST) |
                                 BIT(C_DINST) | BIT(C_CACHED) | BIT(C_CDRAM) | BIT(C_CSSD) |
                                 BIT(C_FETCHED) | BIT(C_PREEMPT) | BIT(C_STALLS);
/* Present on every row. */
static const uint32_t all_cols = BIT(C_ID) | BIT(C_ARRIVAL) | BIT(C_INPUT) | BIT(C_OUTPUT) |
                                 BIT(C_STATUS) | BIT(C_PINST) | BIT(C_DINST) | BIT(C_CACHED) |
                                 BIT(C_FINISH) | BIT(C_PREEMPT) | BIT(C_STALLS) | BIT(C_STALL_S);
/* Completed rows only. */
static const uint32_t done_cols =
    BIT(C_TTFT) | BIT(C_TBT_MEAN) | BIT(C_TBT_P90) | BIT(C_TBT_MAX) | BIT(C_TBT_TOP10);
/* Prefilled rows (completed, rejected after prefill) only. */
static const uint32_t prefill_cols = BIT(C_QUEUE) | BIT(C_PREFILL) | BIT(C_TRANSFER) |
                                     BIT(C_CDRAM) | BIT(C_CSSD) | BIT(C_LOAD) | BIT(C_FETCHED) |
                                     BIT(C_FETCH_S);
/* Together or not at all, completed rows only. */
static const uint32_t kv_cols = BIT(C_KV_READY) | BIT(C_DLOAD) | BIT(C_DSTART);

enum status { ST_COMPLETED, ST_REJ_ARRIVAL, ST_REJ_PREFILL, N_ST };
static const char *const st_name[N_ST] = {"completed", "rejected_at_arrival",
                                          "rejected_after_prefill"};

/* timeseries.csv's fixed columns, then p<i>_load..., d<j>_load... */
enum ts_col {
    T_TIME, T_PD, T_FETCH, T_STAGE, T_REPL, T_UTIL_MEAN, T_UTIL_MAX, T_FLOWS, T_IN_FLIGHT,
    T_WAIT_MAX, T_REPLICAS, T_MULTI, T_HOT, T_PLOAD, T_DLOAD, N_TS_FIXED
};
static const char *const ts_name[N_TS_FIXED] = {
    "time_s", "pd_gbps", "fetch_gbps", "stage_gbps", "repl_gbps", "nic_util_mean",
    "nic_util_max", "flows", "in_flight", "prefill_wait_s_max", "replicas_mean",
    "blocks_multi", "hot_replications", "prefill_load_mean", "decode_load_mean",
};

/* summary.json's documented numeric keys; cache.* only when $.cache is. */
static const char *const sum_keys[] = {
    "requests.total", "requests.completed", "requests.rejected_at_arrival",
    "requests.rejected_after_prefill", "ttft_s.mean", "ttft_s.p50", "ttft_s.p90", "ttft_s.p99",
    "tbt_s.mean", "tbt_s.p90", "tbt_s.p99", "tbt_top10_s.mean", "tbt_top10_s.p50",
    "tbt_top10_s.p90", "tbt_top10_s.p99", "throughput_rps", "goodput_rps", "slo.ttft_s",
    "slo.tbt_s", "slo.met", "slo.attainment", "slo.effective_request_capacity", "trace.span_s",
    "trace.input_tokens", "prefill.busy_s", "prefill.wasted_s", "prefill.mean_queue_s",
    "decode.iterations", "decode.busy_s", "decode.mean_batch", "decode.preemptions",
    "decode.stalls_per_request", "decode.stall_s_per_request", "decode.stall_s_mean",
    "decode.stalled_share", "decode.slot_wait_s_mean", "decode.slot_wait_s_max",
    "transfer.h2d.bytes", "transfer.h2d.busy_s", "transfer.ssd.bytes",
    "transfer.ssd.busy_s", "sim.events", "sim.seed",
};
static const char *const link_names[] = {"pd", "fetch", "stage", "replication"};
static const char *const cache_keys[] = {
    "cache.dram_blocks_per_node", "cache.ssd_blocks_per_node", "cache.hit_rate_tokens",
    "cache.hit_rate_dram", "cache.hit_rate_ssd", "cache.cached_tokens", "cache.inserts",
    "cache.evictions", "cache.demotions", "cache.promotions", "cache.drops",
    "cache.replications", "cache.replicas.blocks", "cache.replicas.mean", "cache.replicas.max",
};

/* ---- one directory's check ---- */

typedef struct req_row {
    double v[N_COLS];
    uint32_t have; /* BIT(col) when the field is not empty */
    int status;
    long line;
} req_row_t;

typedef struct ck {
    const sim_check_opts_t *o;
    char dir[4096];
    char path[4096 + 32];
    json_t *sum, *cfg;
    char *sum_text; /* summary.json as written, for line numbers */
    double slo_ttft_s, slo_tbt_s, interval_s, seed;
    int64_t n_prefill, n_decode;
    int pd;   /* system.kind is pd (disaggregated), not a colocated one */
    int pool; /* summary.json has $.cache: the KVCache pool is on */
    /* From config.json through the model and hardware tables; 0 where a
     * key is absent or names nothing known (the checks using it are
     * skipped). */
    double kv_bytes;             /* KV bytes per token of $.model */
    double dram_bps, ssd_bps;    /* the pool's load bandwidths, bytes/s */
    int64_t n_inst;              /* colocated: system.params.instances */
    int64_t group;               /* cluster.prefill_group (pd) */
    int inline_prefill;          /* cluster.inline_prefill (pd) */
    int64_t timing_events;       /* timing.json's events; -1 when absent */
    req_row_t *rows;
    size_t n_rows, cap_rows;
    double *ts; /* ts_rows x ts_cols */
    size_t ts_rows, ts_cols, cap_ts;
    int64_t ts_np, ts_nd; /* its p<i>_load and d<j>_load columns */
    int64_t n_bad[N_INV], n_known[N_INV];
    int64_t violations, known;
} ck_t;

static const char *file_path(ck_t *c, const char *name)
{
    snprintf(c->path, sizeof c->path, "%s/%s", c->dir, name);
    return c->path;
}

/* One violation (known: a known failure) of invariant id at file:line
 * (line 0: none). Printed unless SHOW of its kind were already. */
static void report(ck_t *c, int id, int known, const char *file, long line, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static void report(ck_t *c, int id, int known, const char *file, long line, const char *fmt, ...)
{
    int64_t n = known ? ++c->n_known[id] : ++c->n_bad[id];
    if (known)
        c->known++;
    if (!known || c->o->strict)
        c->violations++;
    if (!c->o->show_all && n > SHOW)
        return;
    FILE *f = c->o->out;
    fprintf(f, "%s/%s", c->dir, file);
    if (line > 0)
        fprintf(f, ":%ld", line);
    fputs(": ", f);
    if (known)
        fputs(c->o->strict ? "known failure: " : "known failure (counted only with --strict): ",
              f);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fprintf(f, " [%s]\n", inv[id].name);
}

/* The value at a dotted path ("cache.replicas.mean") of root, or NULL. */
static const json_t *jpath(const json_t *root, const char *path)
{
    char key[128];
    const json_t *j = root;
    while (j && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        j = json_is_object(j) ? json_object_get(j, key) : NULL;
        path += n + (path[n] == '.');
    }
    return j;
}

/* The line of path's key in a JSON text written with 2-space indents, one
 * key per line (as every result file is); 0 when not found. O(text). */
static long json_line(const char *text, const char *path)
{
    long line = 0;
    int depth = 1;
    size_t n = strcspn(path, ".");
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p), ind = 0;
        line++;
        while (ind < len && p[ind] == ' ')
            ind++;
        if (depth > 1 && ind < (size_t)(2 * depth) && ind < len)
            return 0; /* the parent object closed */
        if (ind == (size_t)(2 * depth) && p[ind] == '"' && strncmp(p + ind + 1, path, n) == 0 &&
            p[ind + 1 + n] == '"') {
            path += n;
            if (!*path)
                return line;
            path++;
            n = strcspn(path, ".");
            depth++;
        }
        if (!eol)
            break;
        p = eol + 1;
    }
    return 0;
}

/* A summary.json value known to be present (checked at load). */
static double S(const ck_t *c, const char *path)
{
    return json_number_value(jpath(c->sum, path));
}

static int64_t SI(const ck_t *c, const char *path) { return (int64_t)llround(S(c, path)); }

/* A violation of summary.json at path: "$.path = VALUE: message". */
static void sum_bad(ck_t *c, int id, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void sum_bad(ck_t *c, int id, const char *path, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    report(c, id, 0, "summary.json", json_line(c->sum_text, path), "$.%s = %.10g: %s", path,
           S(c, path), msg);
}

/* summary path against want recomputed from requests.csv (how: from what);
 * abs_tol is the rounding of the recomputation's inputs, SUM_REL that of
 * the summary's 9 digits. */
static void expect_near(ck_t *c, int id, const char *path, double want, double abs_tol,
                        const char *how)
{
    double got = S(c, path);
    double tol = abs_tol + SUM_REL * fmax(fabs(got), fabs(want)) + 1e-12;
    if (!(fabs(got - want) <= tol))
        sum_bad(c, id, path, "recomputed %.10g (%s); they differ by %.3g, more than the %.3g "
                "the rounding of the printed values allows",
                want, how, fabs(got - want), tol);
}

static void expect_eq(ck_t *c, int id, const char *path, int64_t want, const char *how)
{
    if (SI(c, path) != want || S(c, path) != (double)want)
        sum_bad(c, id, path, "expected %lld (%s)", (long long)want, how);
}

static void expect_nonneg(ck_t *c, int id, const char *path)
{
    if (!(S(c, path) >= 0))
        sum_bad(c, id, path, "negative");
}

/* ---- reading ---- */

/* Read a whole file into a NUL-terminated buffer (sim_free). NULL with
 * err on failure. */
static char *slurp(const char *path, sim_err_t *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        sim_errf(err, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0, r;
    char *buf = sim_xmalloc(cap, "check: file");
    while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (cap - n < 2) {
            cap *= 2;
            buf = sim_xrealloc(buf, cap, "check: file");
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        sim_free(buf);
        sim_errf(err, "%s: read error", path);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* Iterate over the lines of text in place ('\n' replaced by NUL). *line
 * counts them. NULL at the end. */
static char *next_line(char **p, long *line)
{
    if (!*p || !**p)
        return NULL;
    char *s = *p, *e = strchr(s, '\n');
    if (e) {
        *e = '\0';
        if (e > s && e[-1] == '\r')
            e[-1] = '\0';
        *p = e + 1;
    } else {
        *p = s + strlen(s);
    }
    ++*line;
    return s;
}

/* Parse one number field (whole s); 0 or -1. */
static int parse_num(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return (end == s || *end || errno == ERANGE || !isfinite(*v)) ? -1 : 0;
}

static int load_config(ck_t *c, sim_err_t *err)
{
    const char *path = file_path(c, "config.json");
    if (sim_json_load(path, &c->cfg, err) != 0)
        return -1;
    static const char *const keys[] = {"slo.ttft_s", "slo.tbt_s", "metrics.interval_s",
                                       "cluster.prefill", "cluster.decode", "seed"};
    double v[6];
    for (int i = 0; i < 6; i++) {
        const json_t *j = jpath(c->cfg, keys[i]);
        if (!json_is_number(j))
            return sim_errf(err, "%s: $.%s: %s", path, keys[i],
                            j ? "expected a number" : "missing");
        v[i] = json_number_value(j);
    }
    c->slo_ttft_s = v[0];
    c->slo_tbt_s = v[1];
    c->interval_s = v[2];
    c->n_prefill = (int64_t)v[3];
    c->n_decode = (int64_t)v[4];
    c->seed = v[5];
    const char *kind = json_string_value(jpath(c->cfg, "system.kind"));
    c->pd = !kind || strcmp(kind, "pd") == 0; /* absent before colocated systems: pd */
    c->n_inst = (int64_t)json_number_value(jpath(c->cfg, "system.params.instances"));
    const json_t *g = jpath(c->cfg, "cluster.prefill_group");
    c->group = json_is_number(g) ? (int64_t)json_number_value(g) : 0;
    c->inline_prefill = json_number_value(jpath(c->cfg, "cluster.inline_prefill")) != 0;
    /* As sim/exp/run.c resolves them: a positive setting, else the hardware's. */
    const char *model = json_string_value(jpath(c->cfg, "model"));
    const char *hardware = json_string_value(jpath(c->cfg, "hardware"));
    const model_llm_t *llm = model ? model_llm_find(model) : NULL;
    const model_hw_t *hw = hardware ? model_hw_find(hardware) : NULL;
    const json_t *dg = jpath(c->cfg, "cache.dram_load_gbs");
    const json_t *sg = jpath(c->cfg, "cache.ssd_read_gbs");
    if (llm)
        c->kv_bytes = (double)model_llm_kv_bytes_per_tok(llm);
    if (hw && json_is_number(dg) && json_is_number(sg)) {
        double d = json_number_value(dg), s = json_number_value(sg);
        c->dram_bps = d > 0 ? d * 1e9 : hw->h2d_bytes_per_s;
        c->ssd_bps = s > 0 ? s * 1e9 : hw->ssd_read_bytes_per_s;
    }
    return 0;
}

/* timing.json's events, when the file is there (it is kept apart from the
 * results, so a directory may lack it). */
static int load_timing(ck_t *c, sim_err_t *err)
{
    const char *path = file_path(c, "timing.json");
    json_t *t;
    c->timing_events = -1;
    if (access(path, F_OK) != 0)
        return 0;
    if (sim_json_load(path, &t, err) != 0)
        return -1;
    const json_t *e = json_object_get(t, "events");
    int rc = 0;
    if (!json_is_number(e) || json_number_value(e) < 0)
        rc = sim_errf(err, "%s: $.events: %s", path, e ? "expected a number >= 0" : "missing");
    else
        c->timing_events = (int64_t)llround(json_number_value(e));
    json_decref(t);
    return rc;
}

static int load_summary(ck_t *c, sim_err_t *err)
{
    const char *path = file_path(c, "summary.json");
    if (sim_json_load(path, &c->sum, err) != 0)
        return -1;
    if (!(c->sum_text = slurp(path, err)))
        return -1;
    c->pool = jpath(c->sum, "cache") != NULL;
    char key[64];
    size_t n_sum = sizeof sum_keys / sizeof *sum_keys;
    size_t n_cache = sizeof cache_keys / sizeof *cache_keys;
    for (size_t i = 0; i < n_sum + 16 + n_cache; i++) {
        const char *k;
        if (i < n_sum) {
            k = sum_keys[i];
        } else if (i < n_sum + 16) {
            static const char *const f[] = {"bytes", "busy_s", "flow_s", "flows"};
            snprintf(key, sizeof key, "transfer.%s.%s", link_names[(i - n_sum) / 4],
                     f[(i - n_sum) % 4]);
            k = key;
        } else {
            if (!jpath(c->sum, "cache"))
                break; /* docs/outputs.md: "when the pool is on" */
            k = cache_keys[i - n_sum - 16];
        }
        const json_t *j = jpath(c->sum, k);
        if (!json_is_number(j)) {
            long line = json_line(c->sum_text, k);
            if (line > 0)
                return sim_errf(err, "%s:%ld: $.%s: expected a number", path, line, k);
            return sim_errf(err, "%s: $.%s: missing (docs/outputs.md documents it)", path, k);
        }
    }
    return 0;
}

/* Split line at commas into at most max fields (in place); the count, or
 * max + 1 when there are more. */
static size_t split(char *line, char **f, size_t max)
{
    size_t n = 0;
    for (char *p = line;; p++) {
        if (n == max)
            return max + 1;
        f[n++] = p;
        p = strchr(p, ',');
        if (!p)
            return n;
        *p = '\0';
    }
}

static int read_requests(ck_t *c, sim_err_t *err)
{
    const char *path = file_path(c, "requests.csv");
    char *text = slurp(path, err), *p = text, *s, *f[N_COLS + 1];
    long line = 0;
    int rc = -1;
    if (!text)
        return -1;
    char header[1024] = "";
    for (int i = 0; i < N_COLS; i++)
        snprintf(header + strlen(header), sizeof header - strlen(header), "%s%s", i ? "," : "",
                 col_name[i]);
    if (!(s = next_line(&p, &line)) || strcmp(s, header) != 0) {
        sim_errf(err, "%s:1: not the documented header (%s, ..., %s)", path, col_name[0],
                 col_name[N_COLS - 1]);
        goto done;
    }
    while ((s = next_line(&p, &line))) {
        size_t n = split(s, f, N_COLS);
        if (n != N_COLS) {
            sim_errf(err, "%s:%ld: %s%zu fields, expected %d", path, line,
                     n > N_COLS ? "more than " : "", n > N_COLS ? (size_t)N_COLS : n, N_COLS);
            goto done;
        }
        sim_grow((void **)&c->rows, &c->cap_rows, c->n_rows + 1, sizeof *c->rows, "check: rows");
        req_row_t *r = &c->rows[c->n_rows++];
        memset(r, 0, sizeof *r);
        r->line = line;
        for (int k = 0; k < N_COLS; k++) {
            if (!*f[k])
                continue;
            r->have |= BIT(k);
            if (k == C_STATUS) {
                r->status = -1;
                for (int st = 0; st < N_ST; st++)
                    if (strcmp(f[k], st_name[st]) == 0)
                        r->status = st;
                if (r->status < 0) {
                    sim_errf(err, "%s:%ld: status '%.40s' is none of completed, "
                             "rejected_at_arrival, rejected_after_prefill", path, line, f[k]);
                    goto done;
                }
            } else if (parse_num(f[k], &r->v[k]) != 0 ||
                       ((int_cols & BIT(k)) &&
                        (r->v[k] != floor(r->v[k]) || fabs(r->v[k]) > 0x1p53))) {
                sim_errf(err, "%s:%ld: %s '%.40s' is not %s", path, line, col_name[k], f[k],
                         (int_cols & BIT(k)) ? "a whole number (within 2^53)" : "a number");
                goto done;
            }
        }
        if (!(r->have & BIT(C_STATUS))) {
            sim_errf(err, "%s:%ld: empty status", path, line);
            goto done;
        }
    }
    rc = 0;
done:
    sim_free(text);
    return rc;
}

static int read_timeseries(ck_t *c, sim_err_t *err)
{
    const char *path = file_path(c, "timeseries.csv");
    char *text = slurp(path, err), *p = text, *s, **f = NULL;
    long line = 0;
    int rc = -1;
    if (!text)
        return -1;
    if (!(s = next_line(&p, &line))) {
        sim_errf(err, "%s:1: empty, expected the header", path);
        goto done;
    }
    size_t n_names = 1;
    for (const char *q = s; *q; q++)
        n_names += *q == ',';
    f = sim_xcalloc(n_names + 1, sizeof *f, "check: fields");
    c->ts_cols = split(s, f, n_names);
    /* The documented columns, then p0_load.. and d0_load.. */
    size_t k = 0;
    for (; k < N_TS_FIXED; k++)
        if (k >= c->ts_cols || strcmp(f[k], ts_name[k]) != 0) {
            sim_errf(err, "%s:1: column %zu is '%.40s', the documented header has %s there",
                     path, k + 1, k < c->ts_cols ? f[k] : "", ts_name[k]);
            goto done;
        }
    int64_t np = 0, nd = 0;
    for (; k < c->ts_cols; k++) {
        char want[32];
        snprintf(want, sizeof want, "p%lld_load", (long long)np);
        if (nd == 0 && strcmp(f[k], want) == 0) {
            np++;
            continue;
        }
        snprintf(want, sizeof want, "d%lld_load", (long long)nd);
        if (strcmp(f[k], want) != 0) {
            sim_errf(err, "%s:1: column %zu is '%.40s', expected %s", path, k + 1, f[k], want);
            goto done;
        }
        nd++;
    }
    c->ts_np = np;
    c->ts_nd = nd;
    while ((s = next_line(&p, &line))) {
        size_t n = split(s, f, c->ts_cols);
        if (n != c->ts_cols) {
            sim_errf(err, "%s:%ld: %zu fields, the header has %zu", path, line, n, c->ts_cols);
            goto done;
        }
        sim_grow((void **)&c->ts, &c->cap_ts, (c->ts_rows + 1) * c->ts_cols, sizeof *c->ts,
                 "check: timeseries");
        double *row = c->ts + c->ts_rows * c->ts_cols;
        for (size_t j = 0; j < n; j++)
            if (parse_num(f[j], &row[j]) != 0) {
                sim_errf(err, "%s:%ld: %s '%.40s' is not a number", path, line,
                         j < N_TS_FIXED ? ts_name[j] : "load", f[j]);
                goto done;
            }
        c->ts_rows++;
    }
    rc = 0;
done:
    sim_free(f);
    sim_free(text);
    return rc;
}

/* ---- requests.csv on its own ---- */

#define HAS(r, col) (((r)->have & BIT(col)) != 0)

static void row_bad(ck_t *c, int id, const req_row_t *r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void row_bad(ck_t *c, int id, const req_row_t *r, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    report(c, id, 0, "requests.csv", r->line, "id %.0f (%s): %s", r->v[C_ID],
           st_name[r->status], msg);
}

/* The fields a row of its status must have, and must not. */
static void check_fields(ck_t *c, const req_row_t *r)
{
    uint32_t need = all_cols, forbid = 0;
    if (r->status == ST_COMPLETED)
        need |= done_cols | prefill_cols;
    else
        forbid |= done_cols | kv_cols;
    if (r->status == ST_REJ_PREFILL)
        need |= prefill_cols;
    if (r->status == ST_REJ_ARRIVAL)
        forbid |= prefill_cols;
    for (int k = 0; k < N_COLS; k++) {
        if ((need & BIT(k)) && !HAS(r, k))
            row_bad(c, INV_FIELDS, r, "%s is empty", col_name[k]);
        if ((forbid & BIT(k)) && HAS(r, k))
            row_bad(c, INV_FIELDS, r, "%s = %g, but it does not apply to this status",
                    col_name[k], r->v[k]);
    }
    uint32_t kv = r->have & kv_cols;
    if (kv && kv != kv_cols)
        row_bad(c, INV_FIELDS, r, "kv_ready_s, decode_load_s and decode_start_s are not all "
                "present or all empty");
}

/* The instance columns against config.json's cluster. */
static void check_instances(ck_t *c, const req_row_t *r)
{
    int64_t n[2] = {c->pd ? c->n_prefill : c->n_inst, c->pd ? c->n_decode : c->n_inst};
    static const int col[2] = {C_PINST, C_DINST};
    static const char *const key[2][2] = {{"cluster.prefill", "cluster.decode"},
                                          {"system.params.instances", "system.params.instances"}};
    for (int k = 0; k < 2; k++) {
        double i = r->v[col[k]];
        if (!HAS(r, col[k]) || (i >= -1 && i < (double)n[k]))
            continue;
        row_bad(c, INV_INSTANCES, r, "%s %.0f outside [-1, %lld) (config.json $.%s = %lld)",
                col_name[col[k]], i, (long long)n[k], key[!c->pd][k], (long long)n[k]);
    }
    if (HAS(r, C_PINST) && r->status != ST_REJ_ARRIVAL && r->v[C_PINST] < 0)
        row_bad(c, INV_INSTANCES, r, "prefill_instance %.0f, yet the row was prefilled",
                r->v[C_PINST]);
    if (HAS(r, C_DINST) && r->status == ST_COMPLETED && r->v[C_DINST] < 0)
        row_bad(c, INV_INSTANCES, r, "decode_instance %.0f, yet the request completed",
                r->v[C_DINST]);
}

/* load_s: the time to read the reused prefix from the node's DRAM and SSD,
 * computed as sim/serve/prefill_plan.c does (the same double operations, then
 * rounded to the ns), so only the 6-decimal printing separates them. */
static void check_load(ck_t *c, const req_row_t *r)
{
    const double *v = r->v;
    if (!c->pd || !HAS(r, C_LOAD) || !HAS(r, C_CDRAM) || !HAS(r, C_CSSD))
        return;
    if (!c->pool) {
        if (v[C_LOAD] != 0 || v[C_CDRAM] != 0 || v[C_CSSD] != 0)
            row_bad(c, INV_LOAD, r, "load_s %.6f, cached_dram_tokens %.0f, cached_ssd_tokens "
                    "%.0f with the pool off (no $.cache in summary.json): all 0", v[C_LOAD],
                    v[C_CDRAM], v[C_CSSD]);
        return;
    }
    if (c->kv_bytes <= 0 || c->dram_bps <= 0 || c->ssd_bps <= 0)
        return;
    double load_s = v[C_CDRAM] * c->kv_bytes / c->dram_bps + v[C_CSSD] * c->kv_bytes / c->ssd_bps;
    double want = (double)llround(load_s * 1e9) / 1e9;
    if (fabs(v[C_LOAD] - want) > CSV_HALF + SLACK)
        row_bad(c, INV_LOAD, r, "load_s %.6f, but %.0f DRAM tokens at %.10g B/s and %.0f SSD "
                "tokens at %.10g B/s of %.0f KV bytes each load in %.9f s", v[C_LOAD],
                v[C_CDRAM], c->dram_bps, v[C_CSSD], c->ssd_bps, c->kv_bytes, want);
}

/* Relations inside one row; each is checked only where its fields are. */
static void check_row(ck_t *c, const req_row_t *r)
{
    const double *v = r->v;
    check_fields(c, r);
    for (int k = 0; k < N_COLS; k++)
        if (HAS(r, k) && k != C_STATUS && k != C_PINST && k != C_DINST && v[k] < 0)
            row_bad(c, INV_NONNEG, r, "%s = %.6f < 0", col_name[k], v[k]);
    if (HAS(r, C_FINISH) && HAS(r, C_ARRIVAL) && v[C_FINISH] < v[C_ARRIVAL] - SLACK)
        row_bad(c, INV_FINISH, r, "finish_s %.6f < arrival_s %.6f", v[C_FINISH], v[C_ARRIVAL]);
    if (HAS(r, C_FINISH) && HAS(r, C_ARRIVAL) && HAS(r, C_TTFT) &&
        v[C_FINISH] < v[C_ARRIVAL] + v[C_TTFT] - ROW_US - SLACK)
        row_bad(c, INV_FIRST_TOKEN, r,
                "finish_s %.6f < arrival_s %.6f + ttft_s %.6f by %.6f s (1 us allowed)",
                v[C_FINISH], v[C_ARRIVAL], v[C_TTFT], v[C_ARRIVAL] + v[C_TTFT] - v[C_FINISH]);
    if (HAS(r, C_TTFT) && HAS(r, C_QUEUE) && HAS(r, C_PREFILL) &&
        v[C_TTFT] < v[C_QUEUE] + v[C_PREFILL] - ROW_US - SLACK)
        row_bad(c, INV_AFTER_PREFILL, r,
                "ttft_s %.6f < queue_s %.6f + prefill_s %.6f by %.6f s (1 us allowed)", v[C_TTFT],
                v[C_QUEUE], v[C_PREFILL], v[C_QUEUE] + v[C_PREFILL] - v[C_TTFT]);
    if ((r->have & done_cols) == done_cols) {
        static const int below_max[] = {C_TBT_MEAN, C_TBT_P90, C_TBT_TOP10};
        for (int i = 0; i < 3; i++)
            if (v[below_max[i]] > v[C_TBT_MAX] + SLACK)
                row_bad(c, INV_TBT_ORDER, r, "%s %.6f > tbt_max_s %.6f", col_name[below_max[i]],
                        v[below_max[i]], v[C_TBT_MAX]);
        if (v[C_TBT_MEAN] > v[C_TBT_TOP10] + SLACK)
            row_bad(c, INV_TBT_ORDER, r,
                    "tbt_mean_s %.6f > tbt_top10_s %.6f (the mean of its longest 10%%)",
                    v[C_TBT_MEAN], v[C_TBT_TOP10]);
    }
    if (HAS(r, C_CACHED) && HAS(r, C_INPUT)) {
        double cached = v[C_CACHED], in = v[C_INPUT];
        if (cached > in)
            row_bad(c, INV_CACHED, r, "cached_tokens %.0f > input_tokens %.0f", cached, in);
        else if (c->pool && cached != in && fmod(cached, BLOCK_TOK) != 0)
            row_bad(c, INV_CACHED, r, "cached_tokens %.0f is neither whole 512-token blocks "
                    "nor the input's %.0f tokens", cached, in);
    }
    if (HAS(r, C_CDRAM) && HAS(r, C_CSSD) && HAS(r, C_CACHED) &&
        v[C_CDRAM] + v[C_CSSD] > v[C_CACHED])
        row_bad(c, INV_TIERS, r, "cached_dram_tokens %.0f + cached_ssd_tokens %.0f > "
                "cached_tokens %.0f", v[C_CDRAM], v[C_CSSD], v[C_CACHED]);
    if (HAS(r, C_FETCHED) && HAS(r, C_INPUT) && v[C_FETCHED] > v[C_INPUT])
        row_bad(c, INV_FETCHED, r, "fetched_tokens %.0f > input_tokens %.0f", v[C_FETCHED],
                v[C_INPUT]);
    else if (HAS(r, C_FETCHED) && HAS(r, C_CACHED) && v[C_FETCHED] > v[C_CACHED])
        row_bad(c, INV_FETCHED, r, "fetched_tokens %.0f > cached_tokens %.0f: a fetch brings "
                "part of the prefix the prefill reuses", v[C_FETCHED], v[C_CACHED]);
    check_instances(c, r);
    check_load(c, r);
    if ((r->have & kv_cols) == kv_cols && HAS(r, C_ARRIVAL) && HAS(r, C_QUEUE) &&
        HAS(r, C_TRANSFER) && HAS(r, C_PREFILL) && HAS(r, C_FINISH)) {
        /* Four 6-decimal values: the sum of their roundings is a whole
         * number of microseconds below 2 us, or 2 us on exact ties. */
        int moved = v[C_TRANSFER] > 0;
        double hand = moved ? v[C_TRANSFER] : v[C_PREFILL];
        double want = v[C_ARRIVAL] + v[C_QUEUE] + hand;
        if (fabs(v[C_KV_READY] - want) > 2 * ROW_US + SLACK)
            row_bad(c, INV_KV_READY, r, "kv_ready_s %.6f != arrival_s %.6f + queue_s %.6f + %s "
                    "%.6f = %.6f (2 us allowed)", v[C_KV_READY], v[C_ARRIVAL], v[C_QUEUE],
                    moved ? "transfer_s" : "prefill_s (transfer_s 0: nothing moved)", hand, want);
        if (v[C_DSTART] < v[C_KV_READY] + v[C_DLOAD] - 2 * ROW_US - SLACK)
            row_bad(c, INV_KV_READY, r, "decode_start_s %.6f < kv_ready_s %.6f + decode_load_s "
                    "%.6f (2 us allowed)", v[C_DSTART], v[C_KV_READY], v[C_DLOAD]);
        if (HAS(r, C_TTFT) && fabs(v[C_DSTART] - v[C_ARRIVAL] - v[C_TTFT]) > 2 * ROW_US + SLACK)
            row_bad(c, INV_KV_READY, r, "decode_start_s %.6f != arrival_s %.6f + ttft_s %.6f "
                    "(2 us allowed)", v[C_DSTART], v[C_ARRIVAL], v[C_TTFT]);
        if (v[C_DSTART] > v[C_FINISH] + SLACK)
            row_bad(c, INV_KV_READY, r, "decode_start_s %.6f > finish_s %.6f", v[C_DSTART],
                    v[C_FINISH]);
    }
}

/* An id and the line of its row, for sorting. */
typedef struct id_line {
    double id;
    long line;
} id_line_t;

static int by_id_line(const void *a, const void *b)
{
    const id_line_t *x = a, *y = b;
    if (x->id != y->id)
        return (x->id > y->id) - (x->id < y->id);
    return (x->line > y->line) - (x->line < y->line);
}

/* Conservation: the rows' ids are 0..total-1, each once. Sorting the ids
 * (O(n log n)) rather than marking 0..total-1 keeps memory to the rows
 * whatever total claims; missing ids are reported as ranges. */
static void check_ids(ck_t *c)
{
    double total = S(c, "requests.total");
    id_line_t *a = sim_xmalloc((c->n_rows + 1) * sizeof *a, "check: ids");
    size_t n = 0;
    for (size_t i = 0; i < c->n_rows; i++) {
        const req_row_t *r = &c->rows[i];
        if (!HAS(r, C_ID))
            continue;
        if (r->v[C_ID] < 0 || r->v[C_ID] >= total)
            row_bad(c, INV_IDS, r, "id outside 0..%.0f (summary requests.total = %.0f)",
                    total - 1, total);
        else
            a[n++] = (id_line_t){r->v[C_ID], r->line};
    }
    qsort(a, n, sizeof *a, by_id_line);
    double expect = 0; /* the next id without a row so far */
    for (size_t i = 0, first = 0; i <= n; i++) {
        double id = i < n ? a[i].id : total;
        if (i > 0 && i < n && id == a[i - 1].id) {
            report(c, INV_IDS, 0, "requests.csv", a[i].line, "id %.0f: a second row of this id "
                   "(the first is line %ld)", id, a[first].line);
            continue;
        }
        first = i;
        if (id > expect + 1)
            report(c, INV_IDS, 0, "requests.csv", 0, "no rows of ids %.0f..%.0f (%.0f ids; "
                   "summary requests.total = %.0f)", expect, id - 1, id - expect, total);
        else if (id > expect)
            report(c, INV_IDS, 0, "requests.csv", 0, "no row of id %.0f (summary "
                   "requests.total = %.0f)", expect, total);
        expect = id + 1;
    }
    sim_free(a);
}

/* The row order, then each row on its own. */
static void check_requests(ck_t *c)
{
    double prev_finish = -INFINITY;
    long prev_line = 0;
    check_ids(c);
    for (size_t i = 0; i < c->n_rows; i++) {
        const req_row_t *r = &c->rows[i];
        if (HAS(r, C_FINISH)) {
            if (r->v[C_FINISH] < prev_finish - SLACK)
                row_bad(c, INV_END_ORDER, r, "finish_s %.6f comes after a row that ended at "
                        "%.6f (line %ld); rows are in the order requests end",
                        r->v[C_FINISH], prev_finish, prev_line);
            prev_finish = r->v[C_FINISH];
            prev_line = r->line;
        }
        check_row(c, r);
    }
}

/* ---- summary.json against requests.csv ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The nearest-rank percentile of sorted[0..n-1] as the histograms take
 * it: rank ceil(q n), at least 1; 0 for no samples. */
static double rank_value(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return 0;
    double rank = ceil(q * (double)n);
    size_t k = rank < 1 ? 1 : (rank > (double)n ? n : (size_t)rank);
    return sorted[k - 1];
}

/* PREFIX.mean and the percentiles of column col over completed rows. */
static void check_dist(ck_t *c, int id, const char *prefix, int col, const char *const *keys,
                       const double *qs, int n_q)
{
    double *x = sim_xmalloc((c->n_rows + 1) * sizeof *x, "check: samples");
    size_t n = 0;
    double sum = 0;
    for (size_t i = 0; i < c->n_rows; i++)
        if (c->rows[i].status == ST_COMPLETED && HAS(&c->rows[i], col)) {
            x[n++] = c->rows[i].v[col];
            sum += c->rows[i].v[col];
        }
    char path[64], how[160];
    snprintf(path, sizeof path, "%s.mean", prefix);
    snprintf(how, sizeof how, "mean %s of %zu completed rows, each within 5e-7", col_name[col], n);
    expect_near(c, id, path, n ? sum / (double)n : 0, CSV_HALF, how);
    qsort(x, n, sizeof *x, cmp_double);
    for (int k = 0; k < n_q; k++) {
        double want = rank_value(x, n, qs[k]);
        snprintf(path, sizeof path, "%s.%s", prefix, keys[k]);
        snprintf(how, sizeof how, "nearest rank of %s over %zu completed rows; histogram "
                 "percentiles are within 0.1%%", col_name[col], n);
        expect_near(c, id, path, want, HIST_REL * want + CSV_HALF * (1 + HIST_REL), how);
    }
    sim_free(x);
}

/* Sums over rows, by status where it matters. */
typedef struct tally {
    int64_t n[N_ST], input, output_done, cached_done, preempt;
    int64_t pre_input, pre_cached, pre_dram, pre_ssd, fetched; /* prefilled rows */
    int64_t stalls, stalled, intervals, waiters;
    double queue_done, wasted, stall_s, tbt_weighted, tbt_max, wait_s, wait_max;
    double first_arrival, last_arrival, last_finish;
    int64_t met_lo, met_hi;
    int64_t kv_input;     /* input_tokens of rows with kv_ready_s and transfer_s > 0:
                           * streamed, received and loaded */
    int64_t kv_inline;    /* input_tokens of rows with kv_ready_s and transfer_s 0: their
                           * KV never moved (a prefill inlined on the decode node) */
    int64_t stream_input; /* input_tokens of prefilled rows with output_tokens > 1 */
    int64_t decoded_max;  /* the largest output_tokens - 1 of a completed row (the sum
                           * is intervals) */
    int64_t preempt_done;         /* preemptions of completed rows */
    double prefill_s;     /* sum of prefill_s over prefilled rows */
} tally_t;

static tally_t tally_rows(const ck_t *c)
{
    tally_t t;
    memset(&t, 0, sizeof t);
    t.first_arrival = INFINITY;
    t.last_arrival = t.last_finish = -INFINITY;
    for (size_t i = 0; i < c->n_rows; i++) {
        const req_row_t *r = &c->rows[i];
        const double *v = r->v;
        t.n[r->status]++;
        t.input += (int64_t)v[C_INPUT];
        t.preempt += (int64_t)v[C_PREEMPT];
        t.first_arrival = fmin(t.first_arrival, v[C_ARRIVAL]);
        t.last_arrival = fmax(t.last_arrival, v[C_ARRIVAL]);
        t.last_finish = fmax(t.last_finish, v[C_FINISH]);
        if (r->status != ST_REJ_ARRIVAL) {
            t.pre_input += (int64_t)v[C_INPUT];
            t.pre_cached += (int64_t)v[C_CACHED];
            t.pre_dram += (int64_t)v[C_CDRAM];
            t.pre_ssd += (int64_t)v[C_CSSD];
            t.fetched += (int64_t)v[C_FETCHED];
            t.prefill_s += v[C_PREFILL];
            if (v[C_OUTPUT] > 1)
                t.stream_input += (int64_t)v[C_INPUT];
        }
        if ((r->have & kv_cols) == kv_cols)
            *(v[C_TRANSFER] > 0 ? &t.kv_input : &t.kv_inline) += (int64_t)v[C_INPUT];
        if (r->status == ST_REJ_PREFILL)
            t.wasted += v[C_PREFILL];
        if (r->status != ST_COMPLETED)
            continue;
        t.output_done += (int64_t)v[C_OUTPUT];
        t.cached_done += (int64_t)v[C_CACHED];
        t.queue_done += v[C_QUEUE];
        t.stalls += (int64_t)v[C_STALLS];
        t.stalled += v[C_STALLS] > 0;
        t.stall_s += v[C_STALL_S];
        if ((r->have & kv_cols) == kv_cols) {
            double w = v[C_DSTART] - v[C_KV_READY] - v[C_DLOAD];
            t.waiters++;
            t.wait_s += w;
            t.wait_max = fmax(t.wait_max, w);
        }
        /* A request of n tokens has n - 1 token intervals. */
        int64_t iv = v[C_OUTPUT] > 1 ? (int64_t)v[C_OUTPUT] - 1 : 0;
        t.intervals += iv;
        t.preempt_done += (int64_t)v[C_PREEMPT];
        t.decoded_max = iv > t.decoded_max ? iv : t.decoded_max;
        t.tbt_weighted += v[C_TBT_MEAN] * (double)iv;
        t.tbt_max = fmax(t.tbt_max, v[C_TBT_MAX]);
        /* Met for sure, or possibly (within the rounding of a bound). */
        double ttft = v[C_TTFT], top10 = v[C_TBT_TOP10];
        t.met_lo += ttft + CSV_HALF <= c->slo_ttft_s && top10 + CSV_HALF <= c->slo_tbt_s;
        t.met_hi += ttft - CSV_HALF <= c->slo_ttft_s && top10 - CSV_HALF <= c->slo_tbt_s;
    }
    if (c->n_rows == 0)
        t.first_arrival = t.last_arrival = t.last_finish = 0;
    return t;
}

static void check_counts(ck_t *c, const tally_t *t)
{
    static const char *const keys[N_ST] = {"requests.completed", "requests.rejected_at_arrival",
                                           "requests.rejected_after_prefill"};
    char how[96];
    for (int st = 0; st < N_ST; st++) {
        snprintf(how, sizeof how, "rows with status %s", st_name[st]);
        expect_eq(c, INV_COUNTS, keys[st], t->n[st], how);
    }
    int64_t sum = SI(c, keys[0]) + SI(c, keys[1]) + SI(c, keys[2]);
    if (sum != SI(c, "requests.total"))
        sum_bad(c, INV_COUNTS, "requests.total", "completed + rejected_at_arrival + "
                "rejected_after_prefill = %lld", (long long)sum);
    expect_eq(c, INV_COUNTS, "requests.total", (int64_t)c->n_rows, "rows of requests.csv");
}

static void check_latency(ck_t *c, const tally_t *t)
{
    static const char *const k3[] = {"p50", "p90", "p99"};
    static const double q3[] = {0.5, 0.9, 0.99};
    check_dist(c, INV_TTFT, "ttft_s", C_TTFT, k3, q3, 3);
    check_dist(c, INV_TOP10, "tbt_top10_s", C_TBT_TOP10, k3, q3, 3);
    char how[160];
    snprintf(how, sizeof how, "tbt_mean_s of completed rows weighted by their %lld token "
             "intervals (output_tokens - 1 each)", (long long)t->intervals);
    double want = t->intervals ? t->tbt_weighted / (double)t->intervals : 0;
    expect_near(c, INV_TBT, "tbt_s.mean", want, CSV_HALF, how);
    for (int k = 1; k < 3; k++) {
        char path[32];
        snprintf(path, sizeof path, "tbt_s.%s", k3[k]);
        double p = S(c, path), hi = t->tbt_max * (1 + HIST_REL) + CSV_HALF;
        if (!(p >= 0 && p <= hi * (1 + SUM_REL)))
            sum_bad(c, INV_TBT, path, "outside [0, %.10g], the largest tbt_max_s (+0.1%%)", hi);
    }
}

static void check_slo_rates(ck_t *c, const tally_t *t)
{
    expect_near(c, INV_SLO, "slo.ttft_s", c->slo_ttft_s, 0, "config.json $.slo.ttft_s");
    expect_near(c, INV_SLO, "slo.tbt_s", c->slo_tbt_s, 0, "config.json $.slo.tbt_s");
    int64_t met = SI(c, "slo.met"), done = SI(c, "requests.completed"),
            total = SI(c, "requests.total");
    if (met < t->met_lo || met > t->met_hi || S(c, "slo.met") != (double)met)
        sum_bad(c, INV_SLO, "slo.met", "completed rows within ttft_s <= %g and tbt_top10_s <= "
                "%g: %lld for certain, %lld counting those within 5e-7 of a bound",
                c->slo_ttft_s, c->slo_tbt_s, (long long)t->met_lo, (long long)t->met_hi);
    expect_near(c, INV_SLO, "slo.attainment", done ? (double)met / (double)done : 0, 0,
                "slo.met / requests.completed");
    expect_near(c, INV_SLO, "slo.effective_request_capacity",
                total ? (double)met / (double)total : 0, 0, "slo.met / requests.total");
    /* docs/outputs.md: per second of trace span, first to last arrival; when every
     * request arrived at one instant the simulator measures to the last
     * completion instead (sim/core/metrics.c summary_span_s). */
    double span = t->last_arrival - t->first_arrival;
    const char *how = "last - first arrival_s";
    if (span <= 0) {
        span = fmax(t->last_finish - t->first_arrival, 0);
        how = "every arrival at one instant: last finish_s - arrival_s";
    }
    expect_near(c, INV_RATES, "trace.span_s", span, 2 * CSV_HALF, how);
    double span_s = S(c, "trace.span_s");
    expect_near(c, INV_RATES, "throughput_rps", span_s > 0 ? (double)done / span_s : 0, 0,
                "requests.completed / trace.span_s");
    expect_near(c, INV_RATES, "goodput_rps", span_s > 0 ? (double)met / span_s : 0, 0,
                "slo.met / trace.span_s");
}

static void check_work(ck_t *c, const tally_t *t)
{
    int64_t done = t->n[ST_COMPLETED];
    double nc = (double)(done ? done : 1);
    char how[128];
    expect_eq(c, INV_TOKENS, "trace.input_tokens", t->input, "sum of input_tokens");
    if (json_is_number(jpath(c->sum, "trace.output_tokens_completed")))
        expect_eq(c, INV_TOKENS, "trace.output_tokens_completed", t->output_done,
                  "sum of output_tokens over completed rows");
    if (json_is_number(jpath(c->sum, "trace.cached_tokens_completed")))
        expect_eq(c, INV_TOKENS, "trace.cached_tokens_completed", t->cached_done,
                  "sum of cached_tokens over completed rows");
    expect_near(c, INV_PREFILL, "prefill.mean_queue_s", done ? t->queue_done / nc : 0, CSV_HALF,
                "mean queue_s over completed rows");
    snprintf(how, sizeof how, "sum of prefill_s over %lld rejected_after_prefill rows, each "
             "within 5e-7", (long long)t->n[ST_REJ_PREFILL]);
    expect_near(c, INV_PREFILL, "prefill.wasted_s", t->wasted,
                CSV_HALF * (double)t->n[ST_REJ_PREFILL], how);
    expect_nonneg(c, INV_PREFILL, "prefill.busy_s");
    expect_eq(c, INV_DECODE, "decode.preemptions", t->preempt, "sum of preemptions");
    expect_near(c, INV_DECODE, "decode.stalls_per_request", (double)t->stalls / nc, 0,
                "sum of prefill_stalls / completed rows");
    expect_near(c, INV_DECODE, "decode.stall_s_per_request", t->stall_s / nc, CSV_HALF,
                "sum of prefill_stall_s / completed rows");
    expect_near(c, INV_DECODE, "decode.stall_s_mean",
                t->stalls ? t->stall_s / (double)t->stalls : 0, CSV_HALF,
                "sum of prefill_stall_s / sum of prefill_stalls, completed rows");
    expect_near(c, INV_DECODE, "decode.stalled_share", (double)t->stalled / nc, 0,
                "completed rows with prefill_stalls > 0 / completed rows");
    expect_near(c, INV_DECODE, "decode.slot_wait_s_mean", t->waiters ? t->wait_s / (double)t->waiters : 0,
                3 * CSV_HALF, "mean of decode_start_s - kv_ready_s - decode_load_s over completed "
                "rows that have them");
    expect_near(c, INV_DECODE, "decode.slot_wait_s_max", t->waiters ? t->wait_max : 0, 3 * CSV_HALF,
                "max of decode_start_s - kv_ready_s - decode_load_s over completed rows");
    expect_nonneg(c, INV_DECODE, "decode.iterations");
    expect_nonneg(c, INV_DECODE, "decode.busy_s");
    expect_nonneg(c, INV_DECODE, "decode.mean_batch");
}

static void check_transfer(ck_t *c, const tally_t *t)
{
    char p[4][48];
    static const char *const f[] = {"bytes", "busy_s", "flow_s", "flows"};
    for (int l = 0; l < 4; l++) {
        for (int k = 0; k < 4; k++) {
            snprintf(p[k], sizeof p[k], "transfer.%s.%s", link_names[l], f[k]);
            expect_nonneg(c, INV_TRANSFER, p[k]);
        }
        if (S(c, p[1]) > S(c, p[2]) * (1 + SUM_REL) + 1e-12)
            sum_bad(c, INV_TRANSFER, p[1], "more than %s = %.10g: time with at least one flow "
                    "moving exceeds the sum of the flows' durations", p[2], S(c, p[2]));
        if (S(c, p[3]) == 0 && (S(c, p[0]) != 0 || S(c, p[1]) != 0 || S(c, p[2]) != 0))
            sum_bad(c, INV_TRANSFER, p[3], "no flows, yet %s = %.10g, %s = %.10g, %s = %.10g",
                    p[0], S(c, p[0]), p[1], S(c, p[1]), p[2], S(c, p[2]));
    }
    expect_nonneg(c, INV_TRANSFER, "transfer.h2d.bytes");
    expect_nonneg(c, INV_TRANSFER, "transfer.h2d.busy_s");
    expect_nonneg(c, INV_TRANSFER, "transfer.ssd.bytes");
    expect_nonneg(c, INV_TRANSFER, "transfer.ssd.busy_s");
    /* docs/outputs.md: a fetch moves the bytes of the extra tokens. */
    if ((S(c, "transfer.fetch.bytes") > 0) != (t->fetched > 0))
        sum_bad(c, INV_TRANSFER, "transfer.fetch.bytes", "yet the prefilled rows fetched %lld "
                "tokens", (long long)t->fetched);
}

static void check_cache(ck_t *c, const tally_t *t)
{
    if (!jpath(c->sum, "cache"))
        return;
    double in = (double)t->pre_input;
    expect_eq(c, INV_CACHE, "cache.cached_tokens", t->pre_cached,
              "sum of cached_tokens over prefilled rows");
    expect_near(c, INV_CACHE, "cache.hit_rate_tokens", in > 0 ? (double)t->pre_cached / in : 0,
                0, "cached_tokens / input_tokens over prefilled rows");
    expect_near(c, INV_CACHE, "cache.hit_rate_dram", in > 0 ? (double)t->pre_dram / in : 0, 0,
                "cached_dram_tokens / input_tokens over prefilled rows");
    expect_near(c, INV_CACHE, "cache.hit_rate_ssd", in > 0 ? (double)t->pre_ssd / in : 0, 0,
                "cached_ssd_tokens / input_tokens over prefilled rows");
    for (size_t i = 0; i < sizeof cache_keys / sizeof *cache_keys; i++)
        expect_nonneg(c, INV_CACHE, cache_keys[i]);
    if (S(c, "cache.replicas.blocks") > 0 && S(c, "cache.replicas.mean") < 1)
        sum_bad(c, INV_CACHE, "cache.replicas.mean", "below 1 with %.10g blocks held",
                S(c, "cache.replicas.blocks"));
    if (S(c, "cache.replicas.max") < S(c, "cache.replicas.mean") * (1 - SUM_REL))
        sum_bad(c, INV_CACHE, "cache.replicas.max", "below cache.replicas.mean %.10g",
                S(c, "cache.replicas.mean"));
    if (S(c, "cache.demotions") > S(c, "cache.evictions"))
        sum_bad(c, INV_CACHE, "cache.demotions", "more than cache.evictions = %.10g (demotions "
                "are the evictions from DRAM to SSD)", S(c, "cache.evictions"));
}

/* Byte counts from the token columns (pd; KV bytes per token known). The
 * simulator sums doubles and prints llround, so 1e-9 relative covers it. */
static void check_bytes(ck_t *c, const tally_t *t)
{
    double kvb = c->kv_bytes;
    if (!c->pd || kvb <= 0)
        return;
    char how[160];
    struct {
        const char *path;
        double want;
        const char *what;
    } eq[] = {
        {"transfer.fetch.bytes", kvb * (double)t->fetched, "sum of fetched_tokens"},
        {"transfer.ssd.bytes", kvb * (double)t->pre_ssd, "sum of cached_ssd_tokens"},
        {"transfer.h2d.bytes", kvb * (double)(t->pre_dram + t->kv_input),
         "sum of cached_dram_tokens + input_tokens of the rows with kv_ready_s, transfer_s > 0"},
    };
    for (size_t k = 0; k < sizeof eq / sizeof *eq; k++) {
        double got = S(c, eq[k].path);
        if (fabs(got - eq[k].want) > 1e-9 * eq[k].want + 0.5) {
            snprintf(how, sizeof how, "%.0f KV bytes per token x %s", kvb, eq[k].what);
            sum_bad(c, INV_BYTES, eq[k].path, "expected %.0f (%s)", eq[k].want, how);
        }
    }
    double pd = S(c, "transfer.pd.bytes"), lo = kvb * (double)t->kv_input,
           hi = kvb * (double)(t->stream_input - t->kv_inline);
    if (pd < lo * (1 - 1e-9) - 0.5 || pd > hi * (1 + 1e-9) + 0.5)
        sum_bad(c, INV_BYTES, "transfer.pd.bytes", "outside [%.0f, %.0f]: %.0f KV bytes per "
                "token x the input_tokens the decode side loaded (rows with kv_ready_s, "
                "transfer_s > 0) and of every prefilled row with output_tokens > 1 but the "
                "inlined (kv_ready_s, transfer_s 0)", lo, hi, kvb);
}

/* Busy time within the instances' time, and prefill's from the rows. */
static void check_busy(ck_t *c, const tally_t *t)
{
    double end = fmax(t->last_finish, 0) + CSV_HALF;
    int64_t np = c->pd ? c->n_prefill + (c->inline_prefill ? c->n_decode : 0) : c->n_inst;
    int64_t nd = c->pd ? c->n_decode : c->n_inst;
    double pb = S(c, "prefill.busy_s"), db = S(c, "decode.busy_s");
    if (pb > (double)np * end * (1 + SUM_REL))
        sum_bad(c, INV_BUSY, "prefill.busy_s", "more than %lld instances x the last finish_s "
                "%.6f = %.10g", (long long)np, end - CSV_HALF, (double)np * end);
    if (db > (double)nd * end * (1 + SUM_REL))
        sum_bad(c, INV_BUSY, "decode.busy_s", "more than %lld instances x the last finish_s "
                "%.6f = %.10g", (long long)nd, end - CSV_HALF, (double)nd * end);
    if (c->pd && c->group == 1) {
        int64_t n = t->n[ST_COMPLETED] + t->n[ST_REJ_PREFILL];
        char how[128];
        snprintf(how, sizeof how, "sum of prefill_s over %lld prefilled rows, each within 5e-7",
                 (long long)n);
        expect_near(c, INV_BUSY, "prefill.busy_s", t->prefill_s, CSV_HALF * (double)n, how);
    }
}

/* One token per request per iteration: the batch sizes add up to the
 * tokens decoded after the first, less one per preemption (the recompute
 * of a preempted request yields its next token, as a prefill does). */
static void check_iters(ck_t *c, const tally_t *t)
{
    double it = S(c, "decode.iterations"), mb = S(c, "decode.mean_batch");
    double want = (double)(t->intervals - t->preempt_done);
    if (fabs(it * mb - want) > 2 * SUM_REL * want + 1e-9)
        sum_bad(c, INV_ITERS, "decode.iterations", "x decode.mean_batch %.10g = %.10g, but "
                "completed rows decoded %.0f tokens in batches (sum of output_tokens - 1, "
                "less their %lld preemptions)", mb, it * mb, want, (long long)t->preempt_done);
    if (it < (double)t->decoded_max)
        sum_bad(c, INV_ITERS, "decode.iterations", "fewer than the %lld tokens one completed "
                "row decoded after its first", (long long)t->decoded_max);
}

static void check_events(ck_t *c)
{
    double ev = S(c, "sim.events");
    if (c->timing_events >= 0 && ev != (double)c->timing_events)
        sum_bad(c, INV_EVENTS, "sim.events", "timing.json's events = %lld",
                (long long)c->timing_events);
    double least = S(c, "requests.total") + (c->ts_rows ? (double)c->ts_rows - 1 : 0);
    if (ev < least)
        sum_bad(c, INV_EVENTS, "sim.events", "fewer than requests.total + timeseries rows - 1 "
                "= %.0f (an arrival per request, a tick per row but the last)", least);
}

static void ts_bad(ck_t *c, int id, size_t row, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The pool's counters conserve its blocks; the last timeseries row is the
 * state the summary describes. */
static void check_pool(ck_t *c)
{
    if (!c->pool)
        return;
    double ev = S(c, "cache.evictions"), dem = S(c, "cache.demotions"), drops = S(c, "cache.drops");
    if (ev != dem + drops)
        sum_bad(c, INV_POOL, "cache.evictions", "not cache.demotions + cache.drops = %.0f (an "
                "evicted block goes down to SSD or leaves the node)", dem + drops);
    double held = S(c, "cache.inserts") - drops, blocks = S(c, "cache.replicas.blocks");
    double mean = S(c, "cache.replicas.mean");
    if (fabs(blocks * mean - held) > 1e-9 * held + 1e-6)
        sum_bad(c, INV_POOL, "cache.inserts", "- cache.drops = %.0f replicas held, but "
                "cache.replicas.blocks x cache.replicas.mean = %.0f x %.10g = %.10g", held,
                blocks, mean, blocks * mean);
    int64_t nodes = c->pd ? c->n_prefill * (c->group > 0 ? c->group : 1) + c->n_decode : 0;
    double dram = S(c, "cache.dram_blocks_per_node"), ssd = S(c, "cache.ssd_blocks_per_node");
    if (nodes > 0 && dram >= 0 && ssd >= 0 && held > (double)nodes * (dram + ssd))
        sum_bad(c, INV_POOL, "cache.inserts", "- cache.drops = %.0f replicas held, more than "
                "%lld nodes x (%.0f + %.0f) blocks", held, (long long)nodes, dram, ssd);
    if (nodes > 0 && S(c, "cache.replicas.max") > (double)nodes)
        sum_bad(c, INV_POOL, "cache.replicas.max", "more than the %lld nodes (a block is held "
                "at most once per node)", (long long)nodes);
    if (blocks > held)
        sum_bad(c, INV_POOL, "cache.replicas.blocks", "more than the %.0f replicas held "
                "(cache.inserts - cache.drops)", held);
    if (c->ts_rows == 0)
        return;
    const double *v = c->ts + (c->ts_rows - 1) * c->ts_cols;
    long line = (long)c->ts_rows + 1;
    if (fabs(v[T_REPLICAS] - mean) > TS_UTIL_HALF + SLACK)
        report(c, INV_POOL, 0, "timeseries.csv", line, "replicas_mean %.5f of the last row "
               "(the end of the run), summary.json's cache.replicas.mean is %.10g",
               v[T_REPLICAS], mean);
    if (v[T_MULTI] > blocks || v[T_MULTI] > held - blocks)
        report(c, INV_POOL, 0, "timeseries.csv", line, "blocks_multi %.0f of the last row, "
               "summary.json holds %.0f blocks in %.0f replicas", v[T_MULTI], blocks, held);
    if (v[T_HOT] != S(c, "transfer.replication.flows"))
        report(c, INV_POOL, 0, "timeseries.csv", line, "hot_replications %.0f of the last row, "
               "summary.json's transfer.replication.flows is %.0f (a flow per hot-spot copy)",
               v[T_HOT], S(c, "transfer.replication.flows"));
    for (size_t i = 0; nodes > 0 && i < c->ts_rows; i++)
        if (c->ts[i * c->ts_cols + T_REPLICAS] > (double)nodes + TS_UTIL_HALF)
            ts_bad(c, INV_POOL, i, "replicas_mean %.5f > the %lld nodes of the pool (a block "
                   "is held at most once per node)", c->ts[i * c->ts_cols + T_REPLICAS],
                   (long long)nodes);
}

static void check_summary(ck_t *c)
{
    tally_t t = tally_rows(c);
    check_counts(c, &t);
    check_latency(c, &t);
    check_slo_rates(c, &t);
    check_work(c, &t);
    check_transfer(c, &t);
    check_cache(c, &t);
    expect_near(c, INV_SIM, "sim.seed", c->seed, 0, "config.json $.seed");
    expect_nonneg(c, INV_SIM, "sim.events");
    check_bytes(c, &t);
    check_busy(c, &t);
    check_iters(c, &t);
    check_events(c);
}

/* ---- timeseries.csv ---- */

static void ts_bad(ck_t *c, int id, size_t row, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    report(c, id, 0, "timeseries.csv", (long)row + 2, "%s", msg);
}

/* Rows a and b (nc columns) are an idle span's first and last: equal but
 * for time_s, and idle (no flow, nothing in flight, every rate,
 * utilization, wait and load 0), as every row skipped between them. */
static int ts_idle_pair(const double *a, const double *b, size_t nc)
{
    static const int zero[] = {T_PD,    T_FETCH,     T_STAGE,    T_REPL,  T_UTIL_MEAN, T_UTIL_MAX,
                               T_FLOWS, T_IN_FLIGHT, T_WAIT_MAX, T_PLOAD, T_DLOAD};
    for (size_t k = 1; k < nc; k++)
        if (a[k] != b[k] || (k >= N_TS_FIXED && a[k] != 0))
            return 0;
    for (size_t z = 0; z < sizeof zero / sizeof *zero; z++)
        if (a[zero[z]] != 0)
            return 0;
    return 1;
}

/* time_s: increasing, and on the grid of metrics.interval_s: one interval
 * after the row before (the first at 1 x), or whole intervals after it
 * across a skipped idle span; the last row may end a partial interval.
 * at_prev: the exact grid time of the row before. */
static void check_ts_time(ck_t *c)
{
    double iv = c->interval_s, at_prev = 0;
    for (size_t i = 0; i < c->ts_rows; i++) {
        const double *v = c->ts + i * c->ts_cols, *prev = i ? v - c->ts_cols : NULL;
        if (prev && v[T_TIME] <= prev[T_TIME]) {
            if (iv > 0 && iv < 1e-3)
                report(c, INV_TS_TIME, 1, "timeseries.csv", (long)i + 2,
                       "time_s %.3f does not increase (previous %.3f): time_s is written with "
                       "3 decimals, so metrics.interval_s = %g s < 1 ms repeats times (fix in "
                       "sim/core/metrics.c)", v[T_TIME], prev[T_TIME], iv);
            else
                ts_bad(c, INV_TS_TIME, i, "time_s %.3f does not increase (previous %.3f)",
                       v[T_TIME], prev[T_TIME]);
        }
        if (iv <= 0)
            continue;
        double at = at_prev + iv, tol = TS_TIME_HALF + at * 1e-9 + SLACK;
        int last = i + 1 == c->ts_rows;
        if (v[T_TIME] <= at + tol && (last ? v[T_TIME] >= at - iv - tol : v[T_TIME] >= at - tol)) {
            at_prev = at;
            continue;
        }
        double on = round(v[T_TIME] / iv) * iv;
        if (!last && prev && v[T_TIME] > at &&
            fabs(v[T_TIME] - on) <= TS_TIME_HALF + on * 1e-9 + SLACK &&
            ts_idle_pair(prev, v, c->ts_cols)) {
            at_prev = on; /* the last row of an idle span */
            continue;
        }
        ts_bad(c, INV_TS_TIME, i, "row %zu at time_s %.3f, not %s %.3f (one metrics.interval_s "
               "= %g after the row before)%s", i + 1, v[T_TIME], last ? "within" : "at", at, iv,
               prev && v[T_TIME] > at ? ", nor a later multiple of it after an idle row equal to "
                                        "it (a skipped idle span)" : "");
        at_prev = fmax(on, at);
    }
}

/* Each link class's rate (Gb/s, 4 decimals) times its row's interval
 * (from time_s, 3 decimals; the first from 0) adds up to the class's
 * bytes in summary.json. Rows skipped in an idle span move nothing. The
 * tolerance is the rounding of every rate over its interval plus that of
 * both ends of the interval at the rate. */
static void check_ts_bytes(ck_t *c)
{
    if (c->ts_rows == 0)
        return;
    static const int col[4] = {T_PD, T_FETCH, T_STAGE, T_REPL};
    for (int l = 0; l < 4; l++) {
        double sum = 0, tol = 0, prev = 0;
        for (size_t i = 0; i < c->ts_rows; i++) {
            const double *v = c->ts + i * c->ts_cols;
            double dt = fmax(v[T_TIME] - prev, 0), g = v[col[l]];
            prev = v[T_TIME];
            sum += g * dt;
            tol += TS_LOAD_HALF * dt + (g + TS_LOAD_HALF) * 2 * TS_TIME_HALF;
        }
        double got = sum * 1e9 / 8, want;
        char path[48];
        snprintf(path, sizeof path, "transfer.%s.bytes", link_names[l]);
        want = S(c, path);
        tol = tol * 1e9 / 8 + 1e-9 * want + 1;
        if (fabs(got - want) > tol)
            report(c, INV_TS_BYTES, 0, "timeseries.csv", 0, "%s x each row's interval adds up "
                   "to %.0f bytes, summary.json's %s = %.0f (they differ by %.3g, more than the "
                   "%.3g the rounding of rates and times allows)", ts_name[col[l]], got, path,
                   want, fabs(got - want), tol);
    }
}

static void check_timeseries(ck_t *c)
{
    size_t nc = c->ts_cols;
    int64_t np = c->ts_np, nd = c->ts_nd;
    int64_t want_np = c->pd ? c->n_prefill : c->n_inst, want_nd = c->pd ? c->n_decode : c->n_inst;
    if (np != want_np || nd != want_nd)
        report(c, INV_TS_COLUMNS, 0, "timeseries.csv", 1,
               "%lld prefill and %lld decode load columns, config.json's %s has %lld and %lld "
               "instances", (long long)np, (long long)nd,
               c->pd ? "cluster" : "system.params.instances", (long long)want_np,
               (long long)want_nd);
    if (c->interval_s <= 0 && c->ts_rows > 0)
        report(c, INV_TS_COLUMNS, 0, "timeseries.csv", 2, "%zu rows, but metrics.interval_s "
               "= 0 asks for none", c->ts_rows);
    check_ts_time(c);
    check_ts_bytes(c);
    for (size_t i = 0; i < c->ts_rows; i++) {
        const double *v = c->ts + i * nc, *prev = i ? v - nc : NULL;
        for (size_t k = 0; k < nc; k++)
            if (v[k] < 0)
                ts_bad(c, INV_TS_NONNEG, i, "%s = %g < 0", k < N_TS_FIXED ? ts_name[k] : "load",
                       v[k]);
        if (v[T_UTIL_MEAN] > v[T_UTIL_MAX] + SLACK)
            ts_bad(c, INV_TS_NIC, i, "nic_util_mean %.5f > nic_util_max %.5f", v[T_UTIL_MEAN],
                   v[T_UTIL_MAX]);
        if (v[T_UTIL_MAX] > 1 + TS_UTIL_HALF)
            ts_bad(c, INV_TS_NIC, i, "nic_util_max %.5f > 1: a node sent more than its NIC "
                   "carries in the interval", v[T_UTIL_MAX]);
        if (v[T_REPLICAS] != 0 && v[T_REPLICAS] < 1 - SLACK)
            ts_bad(c, INV_TS_POOL, i, "replicas_mean %.5f is neither 0 nor >= 1",
                   v[T_REPLICAS]);
        if (prev && v[T_HOT] < prev[T_HOT])
            ts_bad(c, INV_TS_POOL, i, "hot_replications %.0f < %.0f before (a count so far)",
                   v[T_HOT], prev[T_HOT]);
        for (int side = 0; side < 2; side++) {
            int64_t n = side ? nd : np;
            size_t from = N_TS_FIXED + (side ? (size_t)np : 0);
            if (n == 0)
                continue;
            double sum = 0;
            for (size_t k = from; k < from + (size_t)n; k++)
                sum += v[k];
            int col = side ? T_DLOAD : T_PLOAD;
            if (fabs(sum / (double)n - v[col]) > 2 * TS_LOAD_HALF + SLACK)
                ts_bad(c, INV_TS_LOADS, i, "%s %.4f, the mean of its %lld instance columns is "
                       "%.6f", ts_name[col], v[col], (long long)n, sum / (double)n);
        }
        /* A prefill load is its instance's queue wait over the TTFT SLO. */
        double pmax = 0;
        for (size_t k = N_TS_FIXED; k < N_TS_FIXED + (size_t)np; k++)
            pmax = fmax(pmax, v[k]);
        if (np > 0 && fabs(pmax * c->slo_ttft_s - v[T_WAIT_MAX]) >
                          TS_LOAD_HALF * c->slo_ttft_s + TS_LOAD_HALF + SLACK)
            ts_bad(c, INV_TS_LOADS, i, "the largest p<i>_load %.4f x slo.ttft_s %g is %.6f s, "
                   "prefill_wait_s_max %.4f", pmax, c->slo_ttft_s, pmax * c->slo_ttft_s,
                   v[T_WAIT_MAX]);
    }
}

/* ---- the directory ---- */

static void ck_free(ck_t *c)
{
    json_decref(c->sum);
    json_decref(c->cfg);
    sim_free(c->sum_text);
    sim_free(c->rows);
    sim_free(c->ts);
    sim_free(c);
}

int64_t sim_check_dir(const char *dir, const sim_check_opts_t *o, sim_check_result_t *res,
                      sim_err_t *err)
{
    ck_t *c = sim_xcalloc(1, sizeof *c, "check");
    c->o = o;
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    for (size_t n = strlen(c->dir); n > 1 && c->dir[n - 1] == '/'; n--)
        c->dir[n - 1] = '\0';
    if (load_config(c, err) != 0 || load_summary(c, err) != 0 || load_timing(c, err) != 0 ||
        read_requests(c, err) != 0 || read_timeseries(c, err) != 0) {
        ck_free(c);
        return -1;
    }
    check_requests(c);
    check_summary(c);
    check_timeseries(c);
    check_pool(c);
    FILE *f = o->out;
    for (int i = 0; i < N_INV && !o->show_all; i++)
        for (int known = 0; known < 2; known++) {
            int64_t n = known ? c->n_known[i] : c->n_bad[i];
            if (n > SHOW)
                fprintf(f, "%s: [%s] %lld more %s not shown (--all shows them)\n", c->dir,
                        inv[i].name, (long long)(n - SHOW),
                        known ? "known failures" : "violations");
        }
    if (c->violations)
        fprintf(f, "%s: %lld violation%s\n", c->dir, (long long)c->violations,
                c->violations == 1 ? "" : "s");
    else if (!o->quiet || c->known)
        fprintf(f, "%s: ok (%zu requests, %zu timeseries rows, %d invariants%s)\n", c->dir,
                c->n_rows, c->ts_rows, N_INV, c->known ? "; known failures above" : "");
    if (res)
        *res = (sim_check_result_t){.violations = c->violations, .known = c->known,
                                    .requests = (int64_t)c->n_rows, .ts_rows = (int64_t)c->ts_rows};
    int64_t v = c->violations;
    ck_free(c);
    return v;
}

/* ---- the command ---- */

enum { OPT_QUIET, OPT_STRICT, OPT_ALL, OPT_LIST, OPT_HELP };

static const char check_usage[] =
    "usage: mooncake-sim check DIR [DIR...] [--quiet] [--strict] [--all]\n"
    "Verify a run directory's outputs (summary.json, requests.csv, timeseries.csv,\n"
    "config.json) against what docs/outputs.md documents: requests conserved, each\n"
    "request's fields consistent, every summary metric equal to its recomputation from\n"
    "requests.csv within the rounding of the printed values (6-decimal rows, 9-digit\n"
    "summary, percentiles within the histograms' 0.1%), bytes, busy time, iterations,\n"
    "events and pool blocks conserved, network, pool and time-series bounds\n"
    "('check --list' names each invariant). Each violation is a line\n"
    "'DIR/FILE:LINE: message [invariant]'. A known failure (a documented property the\n"
    "simulator is known to break) is printed but counts only with --strict.\n"
    "Exit status: 0 every invariant holds, 1 a violation, 2 an unreadable directory\n"
    "(a missing file, invalid JSON, an undocumented header or field) or a bad option.\n\n";

static const sim_opt_t check_opts[] = {
    {OPT_QUIET, "quiet", 'q', NULL, "print only violations and known failures"},
    {OPT_STRICT, "strict", 0, NULL, "count known failures as violations"},
    {OPT_ALL, "all", 'a', NULL, "print every violation (default: 5 per invariant)"},
    {OPT_LIST, "list", 'l', NULL, "list the invariants and exit"},
    {OPT_HELP, "help", 'h', NULL, "this help"},
    {0},
};

int sim_check_cmd(int argc, char **argv)
{
    sim_check_opts_t o = {.out = stdout};
    const char *arg;
    int id, rc = -1;
    sim_opts_t *op = sim_opts_new(check_opts, argc, argv);
    while (rc < 0 && (id = sim_opts_next(op, &arg)) != SIM_OPTS_END) {
        switch (id) {
        case OPT_QUIET: o.quiet = 1; break;
        case OPT_STRICT: o.strict = 1; break;
        case OPT_ALL: o.show_all = 1; break;
        case OPT_LIST: sim_check_list(stdout); rc = 0; break;
        case OPT_HELP: rc = sim_opts_help(check_usage, check_opts, ""); break;
        default: rc = sim_opts_usage_error("check", "bad option"); break;
        }
    }
    sim_opts_free(op);
    if (rc >= 0)
        return rc;
    if (optind >= argc)
        return sim_opts_usage_error("check", "expected at least one run directory");
    rc = 0;
    for (int i = optind; i < argc; i++) {
        sim_err_t err;
        int64_t n = sim_check_dir(argv[i], &o, NULL, &err);
        fflush(stdout);
        if (n < 0) {
            fprintf(stderr, "mooncake-sim check: %s\n", err.msg);
            rc = 2;
        } else if (n > 0 && rc == 0) {
            rc = 1;
        }
    }
    return rc;
}
