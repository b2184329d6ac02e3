/* traces/trace.h: request trace sources behind one interface. A source is
 * a plug-in (a const ops table found by name): file readers (Mooncake JSONL,
 * Azure CSV; plain or zstd, detected by magic) and seeded generators.
 * Invariant: sources stream; memory never grows with trace length. */
#ifndef TRACE_TRACE_H
#define TRACE_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "sim/core/util.h"

#define TRACE_BLOCK_TOK 512
/* Lengths above these are rejected as absurd (a corrupt record, not a
 * workload): 16M prompt tokens, 1M output tokens. */
#define TRACE_MAX_INPUT_TOK INT64_C(16777216)
#define TRACE_MAX_OUTPUT_TOK INT64_C(1048576)

/* Return codes of trace_next and the ops' next. */
enum { TRACE_ERR = -1, TRACE_END = 0, TRACE_OK = 1 };

/* One request as a source yields it. blocks points into the source's
 * storage and stays valid only until the next call on that source. */
typedef struct trace_req {
    sim_time_t arrival_ns;  /* from trace start, after speed scaling */
    int64_t input_tok;      /* prompt tokens, >= 1 */
    int64_t output_tok;     /* tokens to generate, >= 1 */
    uint32_t n_blocks;      /* == ceil(input_tok / 512) */
    const uint64_t *blocks; /* chained prefix-block ids */
    int64_t record;         /* 1-based line (file) or request number (generator) */
    /* Agentic sessions (all 0 / NULL in other traces). key: 1-based handle
     * of a request later records may wait on (its request_id), 0: none;
     * session: 1-based session (its session_id), 0: none; deps: the keys
     * of the earlier requests it waits on; wait_ns: its delay plus tool
     * wait after the last of them finishes (unscaled). */
    int64_t key;
    int64_t session;
    uint32_t n_deps;
    const int64_t *deps;
    sim_time_t wait_ns;
} trace_req_t;

/* A length distribution for a generator, in tokens. */
typedef struct trace_len_dist {
    char dist[16]; /* constant | uniform | exponential | lognormal */
    double mean;   /* mean tokens */
    double cv;     /* coefficient of variation (lognormal; uniform: half-width / mean) */
    int64_t min;   /* samples are clamped to [min, max] */
    int64_t max;
} trace_len_dist_t;

/* Parameters of a synthetic generator (the `trace.generator` config). */
typedef struct trace_gen_params {
    char kind[32];            /* generator source name, e.g. "kimi"; "" = none */
    int64_t requests;         /* requests to generate */
    double rate_rps;          /* mean arrival rate */
    char arrival[16];         /* poisson | gamma | burst | periodic */
    double arrival_cv;        /* gamma: coefficient of variation of gaps (>1 is bursty) */
    double burst_period_s;    /* burst: mean time between bursts; periodic: the period */
    trace_len_dist_t input;   /* new prompt tokens of a turn */
    trace_len_dist_t output;  /* output tokens */
    int64_t system_prompt_tok; /* shared prefix opening every request */
    double p_continue;        /* probability an arrival is the next turn of an open session */
    double turn_gap_s;        /* a session's next turn comes at least this long after its last */
    int64_t max_sessions;     /* open sessions kept; the oldest closes first */
    int64_t max_context_tok;  /* a turn that would exceed this starts a new session */
    int64_t prompt_tok;       /* longctx: every prompt's length */
} trace_gen_params_t;

/* What to open: a file (path, format "auto" or a source name) or a
 * generator (gen->kind names it); seed feeds generators only. */
typedef struct trace_open_args {
    const char *path;
    const char *format;
    const trace_gen_params_t *gen;
    uint64_t seed;
    double speed;  /* replay speed multiplier, > 0: 2 replays twice as fast */
    int64_t limit; /* first N requests; 0 = all */
    int64_t output_cap; /* outputs cut to at most this many tokens; 0 = as recorded */
    int64_t block_tok;  /* Mooncake: tokens per hash id, a divisor of 512; 0 = 512 */
} trace_open_args_t;

struct trace_lines; /* a line reader (traces/trace_int.h), opaque here */

/* A source plug-in. open returns its state (NULL with err filled on
 * error); next returns TRACE_OK / TRACE_END / TRACE_ERR; errors read
 * "file:line: message" for files and "$.trace.generator.x: message" for
 * generator parameters. Arrival times from next are unscaled. */
typedef struct trace_source_ops {
    const char *name;
    const char *help;
    int is_generator;
    /* Generators: the trace.generator keys it reads (besides kind),
     * NULL-terminated; a name covers its sub-keys ("input" covers
     * input.mean). The config refuses a changed key it does not read. */
    const char *const *reads;
    /* One of the two: open for a source that opens its input itself (the
     * generators); open_lines for one that reads args->path line by line,
     * given the reader trace_open opened (format detection's own, its
     * first non-blank line given back, so a file is opened and
     * decompressed once). The source owns the reader, on success and on
     * error. */
    void *(*open)(const trace_open_args_t *args, sim_err_t *err);
    void *(*open_lines)(const trace_open_args_t *args, struct trace_lines *lines, sim_err_t *err);
    int (*next)(void *state, trace_req_t *out, sim_err_t *err);
    void (*close)(void *state);
} trace_source_ops_t;

/* The registry. trace_source_find returns NULL for an unknown name;
 * trace_source_names writes "a, b, c" into buf. */
const trace_source_ops_t *trace_source_find(const char *name);
void trace_source_names(char *buf, size_t len, int generators);

typedef struct trace trace_t;

/* Open a source (detecting the file format when format is "auto" or NULL).
 * Returns NULL and fills err on error. Caller frees with trace_close. */
trace_t *trace_open(const trace_open_args_t *args, sim_err_t *err);
/* Next request, with speed and limit applied. A source that ends before
 * its first request is an error: "PATH: no requests (...)". The limit
 * counts the records read, dependent ones included. */
int trace_next(trace_t *t, trace_req_t *out, sim_err_t *err);
/* A trace over a source state opened elsewhere (traces/store.c's replay
 * of parsed records): speed, limit, output_cap and dependency holding
 * from args, path for messages when ops reads a file. Takes state: it is
 * closed with the trace, or at once when args is out of range (NULL, err
 * filled as trace_open fills it). */
trace_t *trace_wrap(const trace_source_ops_t *ops, void *state, const trace_open_args_t *args,
                    sim_err_t *err);
void trace_close(trace_t *t);

/* Dependencies, for a replay that reports completions. After
 * trace_hold_deps, trace_next yields only requests that wait on none (in
 * record order); one that waits (n_deps > 0) is held until trace_done
 * has been called for each key it waits on, then released at the latest
 * of their finishes plus its wait_ns / speed, and handed out by
 * trace_released in release order (a request whose dependencies all
 * finished before it was read is released at once). Without
 * trace_hold_deps every request comes from trace_next, in record order
 * at its own timestamp (trace stats, cache, gen). Held requests and the
 * finish time of every key are kept: memory grows with the keyed
 * records, 16 bytes each, and with the held ones. */
void trace_hold_deps(trace_t *t);
/* The request of key (> 0) finished at finish_ns. Expected O(its waiters). */
void trace_done(trace_t *t, int64_t key, sim_time_t finish_ns);
/* The next released request into *out (its arrival_ns the release time,
 * blocks valid until the next call): TRACE_OK, or TRACE_END when none is
 * released now (more may be after a later trace_done). */
int trace_released(trace_t *t, trace_req_t *out);

/* `trace stats`: stream the source and print a JSON object with requests,
 * span_s, mean_input, mean_output and more to out. 0 or -1 (err filled). */
int trace_stats(const trace_open_args_t *args, FILE *out, sim_err_t *err);

/* `trace gen`: stream the source and write it as Mooncake JSONL to out
 * (timestamps in ms, exact to the ns). Converts Azure CSV and materializes
 * generators. 0 or -1 (err filled). */
int trace_write_jsonl(const trace_open_args_t *args, FILE *out, sim_err_t *err);

/* `trace cache`: the paper's cache study (no timing, one global pool).
 * For each request in order, the leading run of its blocks in the pool
 * counts as hit tokens (min(512 x run, input)); then every block of the
 * request is accessed in order (inserted when missing, evicting by
 * policy). One pool per capacity in cap_tok (tokens, -1 = unlimited), all
 * fed by one pass. hit_rate[i] gets the token-weighted hit rate of
 * cap_tok[i]. 0 or -1 (err filled). */
int trace_cache_analysis(const trace_open_args_t *args, const char *policy,
                         const int64_t *cap_tok, size_t n_caps, double *hit_rate, sim_err_t *err);

/* Benchmark: parse every record of a Mooncake JSONL file with cJSON and
 * with jansson, print records/s of each to out. 0 or -1. */
int trace_bench_parse(const char *path, FILE *out, sim_err_t *err);

/* The physical floor of any replay of a Mooncake file: stream it (zstd or
 * plain), split it into lines and read every run of digits on each line
 * as an integer, and nothing else (no field names, no validation). *lines
 * gets the records read. 0, or -1 with "PATH:LINE: ..." on a line that
 * holds no integer. */
int trace_bench_floor(const char *path, int64_t *lines, sim_err_t *err);

#endif
