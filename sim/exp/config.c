/* sim/exp/config.c: see config.h. The field table below is the schema: adding
 * a config key is one line here plus the struct member. */
#include "sim/exp/config.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "models/cost.h"
#include "models/hw.h"
#include "models/llm.h"
#include "sim/serve/admit.h"
#include "sim/pool/evict.h"
#include "sim/core/jsonx.h"
#include "sim/net/net.h"
#include "sim/core/params.h"
#include "sim/serve/place.h"
#include "sim/serve/system.h"

typedef sim_param_t field_t;

#define FI(p, m, lo, hi, d, h) SIM_PARAM_I(p, sim_config_t, m, lo, hi, d, h)
#define FD(p, m, lo, hi, d, h) SIM_PARAM_N(p, sim_config_t, m, lo, hi, d, h)
/* A number in [lo, hi] or exactly the sentinel x (-1: the hardware's; 0: off). */
#define FX(p, m, x, lo, hi, d, h) SIM_PARAM_NX(p, sim_config_t, m, x, lo, hi, d, h)
#define FS(p, m, d, h) SIM_PARAM_S(p, sim_config_t, m, d, h)
/* A string naming an entry of the registry whose names fn lists (--help). */
#define FN(p, m, d, fn, h) SIM_PARAM_SN(p, sim_config_t, m, d, fn, h)
#define BIG 9007199254740992.0 /* 2^53: exact in a double */

/* The names trace.format and trace.generator.kind take, for the help. */
static void format_names(char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "auto, ");
    if (n < len)
        trace_source_names(buf + n, len - n, 0);
}

static void generator_names(char *buf, size_t len) { trace_source_names(buf, len, 1); }

static const field_t fields[] = {
    FS("name", name, "default", "experiment name: results go to results/<name> unless --out"),
    FS("description", description, "", "free text, copied to the effective config"),
    FI("seed", seed, 0, BIG, "42", "master random seed; every random stream derives from it"),
    FN("model", model, "llama2-70b", model_llm_names, "model descriptor (models/llm.c)"),
    FN("hardware", hardware, "a800x8", model_hw_names,
       "hardware descriptor of every node (models/hw.c)"),
    FN("system.kind", system.kind, "pd", sim_system_names,
       "serving system (each one's meaning and parameters, under system.params below); its own "
       "parameters go in system.params"),
    FI("cluster.prefill", cluster.prefill, 0, 4096, "8",
       "pd: prefill instances (cluster.prefill_group nodes each; 0 under a colocated system)"),
    FI("cluster.decode", cluster.decode, 0, 4096, "8",
       "pd: decode instances (one node each; 0 under a colocated system)"),
    FI("cluster.inline_prefill", cluster.inline_prefill, 0, 1, "1",
       "a short prefill may run on its decode node (see cluster.inline_stall_s)"),
    FD("cluster.inline_stall_s", cluster.inline_stall_s, 0, 1e3, "0.1",
       "inlining: longest decode stall (the prefill plus one iteration) an inlined prefill may "
       "cause, s"),
    FI("cluster.decode_max_batch", cluster.decode_max_batch, 1, 65536, "256",
       "most requests in one decode batch"),
    FI("cluster.decode_load_layerwise", cluster.decode_load_layerwise, 0, 1, "1",
       "a decode node loads arriving KV into VRAM layer by layer as it lands, so only the last "
       "layer's load follows the stream's end; 0: the whole prompt's load after the last byte"),
    FD("cluster.vram_reserve_frac", cluster.vram_reserve_frac, 0, 0.9, "0.1",
       "share of decode VRAM kept for activations, not given to KVCache"),
    FI("cluster.prefill_group", cluster.prefill_group, 1, 64, "1",
       "nodes per prefill instance; above 1, long prompts run as a chunked pipeline (CPP)"),
    FI("cluster.prefill_chunk", cluster.prefill_chunk, 128, 16777216, "8192",
       "CPP chunk, tokens: uncached prompts longer than this are cut into chunks"),
    FS("trace.path", trace.path, "",
       "trace file (Mooncake JSONL or Azure CSV, plain or zstd); ${VAR} expands"),
    FN("trace.format", trace.format, "auto", format_names,
       "auto (detect from the content) or a reader: mooncake (JSONL), azure (CSV)"),
    FD("trace.speed", trace.speed, 1e-6, 1e6, "1",
       "replay-speed multiplier: 2 replays twice as fast (an arrival pushed past int64 ns is an "
       "error of the record)"),
    FI("trace.limit", trace.limit, 0, BIG, "0", "replay only the first N requests (0 = all)"),
    FI("trace.output_cap", trace.output_cap, 0, BIG, "0",
       "cut every request's output to at most this many tokens (0 = as in the trace)"),
    FI("trace.block_size", trace.block_size, 1, 512, "512",
       "Mooncake files: tokens per hash id, a divisor of 512 (a record's own block_size field "
       "wins); re-blocked exactly to the pool's 512-token blocks"),
    FN("trace.generator.kind", trace.generator.kind, "", generator_names,
       "synthetic generator instead of a file (kimi, arxiv, leval, longctx, agentic); empty = none; each reads only some trace.generator keys (listed at the end)"),
    FI("trace.generator.requests", trace.generator.requests, 1, 1e9, "2000",
       "requests to generate"),
    FD("trace.generator.rate_rps", trace.generator.rate_rps, 1e-6, 1e6, "3.5",
       "mean arrival rate, requests per second"),
    FS("trace.generator.arrival", trace.generator.arrival, "periodic",
       "arrival process: poisson, gamma, burst (Poisson-spaced bursts) or periodic"),
    FD("trace.generator.arrival_cv", trace.generator.arrival_cv, 0.01, 100, "2",
       "gamma arrivals: coefficient of variation of the gaps"),
    FD("trace.generator.burst_period_s", trace.generator.burst_period_s, 1e-3, 1e6, "3",
       "burst/periodic arrivals: (mean) time between bursts"),
    FS("trace.generator.input.dist", trace.generator.input.dist, "lognormal",
       "new prompt tokens per turn: constant, uniform, exponential, lognormal"),
    FD("trace.generator.input.mean", trace.generator.input.mean, 1, 1e7, "7500",
       "mean new prompt tokens per turn"),
    FD("trace.generator.input.cv", trace.generator.input.cv, 0, 100, "2.5",
       "coefficient of variation of new prompt tokens"),
    FI("trace.generator.input.min", trace.generator.input.min, 1, 16777216, "16",
       "fewest new prompt tokens"),
    FI("trace.generator.input.max", trace.generator.input.max, 1, 16777216, "131072",
       "most new prompt tokens"),
    FS("trace.generator.output.dist", trace.generator.output.dist, "lognormal",
       "output tokens: constant, uniform, exponential, lognormal"),
    FD("trace.generator.output.mean", trace.generator.output.mean, 1, 1e6, "343",
       "mean output tokens"),
    FD("trace.generator.output.cv", trace.generator.output.cv, 0, 100, "0.6",
       "coefficient of variation of output tokens"),
    FI("trace.generator.output.min", trace.generator.output.min, 1, 1048576, "1",
       "fewest output tokens"),
    FI("trace.generator.output.max", trace.generator.output.max, 1, 1048576, "2000",
       "most output tokens"),
    FI("trace.generator.system_prompt_tok", trace.generator.system_prompt_tok, 0, 16777216,
       "1536", "shared system prompt opening every request"),
    FD("trace.generator.p_continue", trace.generator.p_continue, 0, 1, "0.4",
       "probability an arrival is the next turn of an open session"),
    FD("trace.generator.turn_gap_s", trace.generator.turn_gap_s, 0, 1e6, "30",
       "a session's next turn comes at least this long after its previous one"),
    FI("trace.generator.max_sessions", trace.generator.max_sessions, 1, 1e7, "256",
       "open sessions kept; the oldest closes first"),
    FI("trace.generator.max_context_tok", trace.generator.max_context_tok, 2, 16777216,
       "131072", "a turn that would exceed this starts a new session"),
    FI("trace.generator.prompt_tok", trace.generator.prompt_tok, 1024, 16777216, "32768",
       "longctx generator: prompt length in tokens"),
    FN("scheduler.policy", scheduler.policy, "kvcentric", sim_place_names,
       "placement policy (each one's meaning and parameters, under scheduler.params below); its "
       "own parameters go in scheduler.params"),
    FD("scheduler.schedule_s", scheduler.schedule_s, 0, 1e3, "0.05",
       "the Conductor's decision time per request, s, inside TTFT (FAST'25 Fig. 14's Schedule "
       "column; disaggregated serving only)"),
    FN("admission.policy", admission.policy, "none", sim_admit_names,
       "admission control policy (each one's meaning and parameters, under admission.params "
       "below); its own parameters go in admission.params"),
    FN("cost.model", cost.model, "fitted", model_cost_names,
       "cost model: fitted (calibration file) or roofline"),
    FS("cost.calibration", cost.calibration, "",
       "cost.model fitted: a calibration file, or the name of a built-in one (models/calib/NAME.json); "
       "empty = the built-in one for the hardware and model"),
    FD("cost.mfu", cost.mfu, 1e-3, 1, "0.5", "roofline: FLOPs utilization"),
    FD("cost.mbu", cost.mbu, 1e-3, 1, "0.5", "roofline: HBM bandwidth utilization"),
    FD("cost.overhead_s", cost.overhead_s, 0, 10, "0.005", "roofline: fixed time per pass"),
    FI("cache.enabled", cache.enabled, 0, 1, "1",
       "1: prefill reuses the KVCache pool (DRAM + SSD of every node); 0: no reuse"),
    FS("cache.scope", cache.scope, "global",
       "local: a prefill node reuses its own pool; global: it also fetches a longer prefix "
       "another node holds"),
    FN("cache.policy", cache.policy, "lru", sim_evict_names,
       "eviction policy of the pool (each one's meaning and parameters, under cache.params "
       "below); its own parameters go in cache.params"),
    FI("cache.dram_tokens", cache.dram_tokens, -1, BIG, "-1",
       "DRAM pool per node, tokens (-1: the hardware's dram_pool_bytes)"),
    FI("cache.ssd_tokens", cache.ssd_tokens, -1, BIG, "-1",
       "SSD tier per node, tokens (-1: the hardware's SSD; 0: none)"),
    FI("cache.hot_fetches", cache.hot_fetches, 0, 1000000, "4",
       "hot-spot replication: every this many fetches of a prefix, replicate it (0: off)"),
    FI("cache.hot_replicas", cache.hot_replicas, 0, 64, "1",
       "hot-spot replication: extra replicas made each time"),
    FX("cache.dram_load_gbs", cache.dram_load_gbs, -1, 0.01, 1e5, "-1",
       "DRAM -> GPU load bandwidth per node, GB/s (-1: the hardware's host-to-device); 10 MB/s "
       "(below any PCIe link) to 100 TB/s (above any HBM): slower would stretch one load past "
       "days, and ns arithmetic past its range"),
    FX("cache.ssd_read_gbs", cache.ssd_read_gbs, -1, 0.01, 1e5, "-1",
       "SSD read bandwidth per node, GB/s (-1: the hardware's); 10 MB/s (a slow disk) to 100 TB/s"),
    FD("cache.store_overhead_s", cache.store_overhead_s, 0, 100, "0",
       "extra prefill time to store new blocks layer-wise (the fitted a800x8 model's "
       "intercept already holds the paper's ~0.1 s)"),
    FS("network.transport", network.transport, "rdma",
       "transport profile: rdma or tcp (FAST'25 Fig. 12), or a network calibration file from calib "
       "fit (a path, or NAME for models/calib/NAME.json)"),
    FX("network.nic_gbps", network.nic_gbps, -1, 0.01, 1e5, "-1",
       "NIC bandwidth per node, Gbps (-1: the hardware's, a800x8 4 x 200); 10 Mbps (old "
       "Ethernet) to 100 Tbps (30x today's 8 x 400): slower would stretch one KVCache transfer "
       "past months and its time past int64 ns"),
    FX("metrics.interval_s", metrics.interval_s, 0, 1e-3, 1e6, "15",
       "period of timeseries.csv rows, seconds (0: no time series); at least 1 ms (shorter than "
       "any pass the cost models give), and a run stops with an error before writing more than "
       "1e6 rows: use at least the simulated span / 1e6"),
    FD("slo.ttft_s", slo.ttft_s, 1e-3, 1e5, "30",
       "time-to-first-token SLO, seconds; 1 ms (below any prefill pass) to about a day"),
    FD("slo.tbt_s", slo.tbt_s, 1e-3, 1e5, "0.1",
       "time-between-tokens SLO (mean of a request's longest 10% of intervals), seconds; 1 ms "
       "(below any decode pass) to about a day"),
};

#define N_FIELDS (sizeof fields / sizeof fields[0])
static const sim_params_t table = SIM_PARAMS(fields, sim_config_t);

static const field_t *find_field(const char *path) { return sim_params_find(&table, path); }

/* Is prefix the path of an object holding fields (prefix + ".")? */
static int is_object_path(const char *prefix)
{
    size_t n = strlen(prefix);
    for (size_t i = 0; i < N_FIELDS; i++)
        if (strncmp(fields[i].key, prefix, n) == 0 && fields[i].key[n] == '.')
            return 1;
    return 0;
}

/* "a, b, c": the keys allowed directly under prefix ("" = top level). */
static void keys_under(const char *prefix, char *buf, size_t len)
{
    size_t n = strlen(prefix), off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < N_FIELDS; i++) {
        const char *p = fields[i].key;
        if (n && (strncmp(p, prefix, n) != 0 || p[n] != '.'))
            continue;
        const char *k = n ? p + n + 1 : p;
        size_t kl = strcspn(k, ".");
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)kl, k);
        int dup = 0;
        for (size_t j = 0; j < i && !dup; j++) {
            const char *q = fields[j].key;
            if (n && (strncmp(q, prefix, n) != 0 || q[n] != '.'))
                continue;
            const char *kq = n ? q + n + 1 : q;
            dup = strcspn(kq, ".") == kl && strncmp(kq, k, kl) == 0;
        }
        if (!dup)
            sim_names_append(buf, len, &off, key);
    }
}

void sim_config_defaults(sim_config_t *cfg)
{
    sim_params_defaults(&table, cfg);
    memset(cfg->inputs, 0, sizeof cfg->inputs);
    cfg->n_origins = 0;
}

/* ---- where a value came from ---- */

/* Forget who set path and every key under it ("scheduler.params" drops
 * "scheduler.params.KEY" too): the value is the file's, or about to be
 * another setter's. */
static void origin_drop(sim_config_t *cfg, const char *path)
{
    size_t n = strlen(path);
    int k = 0;
    for (int i = 0; i < cfg->n_origins; i++) {
        const char *p = cfg->origins[i].path;
        if (strncmp(p, path, n) == 0 && (p[n] == '\0' || p[n] == '.'))
            continue;
        if (k != i)
            cfg->origins[k] = cfg->origins[i];
        k++;
    }
    cfg->n_origins = k;
}

/* Record that where set path (after the file). A full table keeps its
 * entries: the key's messages then name the file, as they would without
 * the record. */
static void origin_put(sim_config_t *cfg, const char *path, const char *where)
{
    origin_drop(cfg, path);
    if (cfg->n_origins == SIM_CFG_MAX_ORIGINS || strlen(path) >= sizeof cfg->origins[0].path)
        return;
    sim_cfg_origin_t *o = &cfg->origins[cfg->n_origins++];
    snprintf(o->path, sizeof o->path, "%s", path);
    size_t wl = strlen(where);
    if (wl < sizeof o->where)
        memcpy(o->where, where, wl + 1);
    else /* a long --set value: cut, and say so */
        snprintf(o->where, sizeof o->where, "%.*s...", (int)sizeof o->where - 4, where);
}

/* The location to name in a message about the value of path: who set it
 * after the file ("--set model=x"), else "src: $.path". A plug-in
 * parameter ("scheduler.params.KEY") set with its whole object names the
 * object's setter. Returns buf. */
static const char *origin_at(const sim_config_t *cfg, const char *path, const char *src, char *buf,
                             size_t len)
{
    const sim_cfg_origin_t *best = NULL;
    size_t best_n = 0;
    for (int i = 0; i < cfg->n_origins; i++) {
        const char *p = cfg->origins[i].path;
        size_t n = strlen(p);
        if (strncmp(path, p, n) == 0 && (path[n] == '\0' || path[n] == '.') && n >= best_n) {
            best = &cfg->origins[i];
            best_n = n;
        }
    }
    if (best)
        snprintf(buf, len, "%s", best->where);
    else
        snprintf(buf, len, "%s: $.%s", src, path);
    return buf;
}

const char *sim_config_input_value(const sim_config_t *cfg, sim_input_kind_t k)
{
    return k == SIM_INPUT_TRACE         ? cfg->trace.path
           : k == SIM_INPUT_CALIBRATION ? cfg->cost.calibration
                                        : cfg->network.transport;
}

/* ---- plug-in parameters ---- */

/* A config object holding the parameters of the plug-in another key
 * names: stored as given (key, text, JSON kind) and checked against the
 * plug-in's own table once the plug-in is known (validate). */
typedef struct group {
    const char *path;   /* "scheduler.params" */
    const char *policy; /* the key naming the plug-in: "scheduler.policy" */
    const char *what;   /* "placement policy" */
    size_t off;         /* of the sim_cfg_params_t in sim_config_t */
    const sim_params_t *(*table)(const char *name); /* NULL: no such plug-in */
    void (*names)(char *buf, size_t len);            /* every plug-in's name */
    const char *(*help)(const char *name);          /* a plug-in's one-line help */
} group_t;

/* FN(name): the parameter table of the plug-in of type T that FIND
 * returns for name, or NULL when there is none by that name. */
#define PLUGIN_TABLE(fn, T, find)                                \
    static const sim_params_t *fn(const char *name)              \
    {                                                            \
        const T *o = find(name);                                 \
        return o ? sim_plugin_params(o->params) : NULL;          \
    }
PLUGIN_TABLE(place_table, sim_place_ops_t, sim_place_find)
PLUGIN_TABLE(admit_table, sim_admit_ops_t, sim_admit_find)
PLUGIN_TABLE(evict_table, sim_evict_ops_t, sim_evict_find)
PLUGIN_TABLE(system_table, sim_system_ops_t, sim_system_find)

/* FN(name): the help of the plug-in of type T named name (which exists). */
#define PLUGIN_HELP(fn, T, find)                 \
    static const char *fn(const char *name)      \
    {                                            \
        const T *o = find(name);                 \
        return o && o->help ? o->help : "";      \
    }
PLUGIN_HELP(place_help, sim_place_ops_t, sim_place_find)
PLUGIN_HELP(admit_help, sim_admit_ops_t, sim_admit_find)
PLUGIN_HELP(evict_help, sim_evict_ops_t, sim_evict_find)
PLUGIN_HELP(system_help, sim_system_ops_t, sim_system_find)

static const group_t groups[] = {
    {"system.params", "system.kind", "system", offsetof(sim_config_t, system.params),
     system_table, sim_system_names, system_help},
    {"scheduler.params", "scheduler.policy", "placement policy",
     offsetof(sim_config_t, scheduler.params), place_table, sim_place_names, place_help},
    {"admission.params", "admission.policy", "admission policy",
     offsetof(sim_config_t, admission.params), admit_table, sim_admit_names, admit_help},
    {"cache.params", "cache.policy", "eviction policy", offsetof(sim_config_t, cache.params),
     evict_table, sim_evict_names, evict_help},
};
#define N_GROUPS (sizeof groups / sizeof groups[0])

/* Keys that became a plug-in's parameters or choice: a located hint, not
 * just "unknown key". */
#define POLICY_PARAM "a parameter of the chosen policy"
#define SYSTEM_PARAM "a parameter of the chosen system"
static const struct {
    const char *old, *now, *what;
} moved[] = {
    {"scheduler.kvcache_balancing_threshold", "scheduler.params.kvcache_balancing_threshold",
     POLICY_PARAM},
    {"scheduler.slo_reject", "scheduler.params.slo_reject", POLICY_PARAM},
    {"scheduler.handoff_aware", "scheduler.params.handoff_aware", POLICY_PARAM},
    {"admission.threshold", "admission.params.threshold", POLICY_PARAM},
    {"admission.t_d_s", "admission.params.t_d_s", POLICY_PARAM},
    {"admission.t_d_init_s", "admission.params.t_d_init_s", POLICY_PARAM},
    {"admission.horizon_s", "admission.params.horizon_s", POLICY_PARAM},
    {"admission.predictor", "admission.params.predictor", POLICY_PARAM},
    {"cluster.colocated", "system.params.instances",
     "a parameter of the colocated systems (with system.kind vllm, vllm_pc or vllm_cp)"},
    {"colocated.system", "system.kind", "the serving system"},
    {"colocated.routing", "system.params.routing", SYSTEM_PARAM},
    {"colocated.chunk_tokens", "system.params.chunk_tokens", SYSTEM_PARAM " (vllm_cp)"},
    {"colocated.prefill_tokens", "system.params.prefill_tokens", SYSTEM_PARAM " (vllm, vllm_pc)"},
    {"colocated.max_seqs", "system.params.max_seqs", SYSTEM_PARAM},
    {"colocated.cpu_per_seq_s", "system.params.cpu_per_seq_s", SYSTEM_PARAM},
    {"colocated.cpu_per_step_s", "system.params.cpu_per_step_s", SYSTEM_PARAM},
};
#define N_MOVED (sizeof moved / sizeof moved[0])

static int moved_err(const char *path, const char *where, sim_err_t *err)
{
    for (size_t i = 0; i < N_MOVED; i++)
        if (strcmp(path, moved[i].old) == 0)
            return sim_errf(err, "%s: now %s, %s (see --help-config)", where, moved[i].now,
                            moved[i].what);
    return 0;
}

/* Is path an object only moved keys were under ("colocated")? Walked into,
 * so that each key in it gets its own hint. */
static int is_moved_object(const char *path)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < N_MOVED; i++)
        if (strncmp(moved[i].old, path, n) == 0 && moved[i].old[n] == '.')
            return 1;
    return 0;
}

/* The group path is, or the group whose path prefixes path + ".". */
static const group_t *group_of(const char *path, int exact)
{
    for (size_t i = 0; i < N_GROUPS; i++) {
        size_t n = strlen(groups[i].path);
        if (strncmp(path, groups[i].path, n) == 0 &&
            (exact ? path[n] == '\0' : path[n] == '.' && path[n + 1]))
            return &groups[i];
    }
    return NULL;
}

static sim_cfg_params_t *kvs(sim_config_t *cfg, const group_t *g)
{
    return (sim_cfg_params_t *)((char *)cfg + g->off);
}

static const sim_cfg_params_t *ckvs(const sim_config_t *cfg, const group_t *g)
{
    return (const sim_cfg_params_t *)((const char *)cfg + g->off);
}

/* Store key = value (as given) in a group, replacing an earlier value. */
static int kv_put(sim_cfg_params_t *ps, const char *key, const json_t *v, const char *text,
                  const char *where, sim_err_t *err)
{
    sim_cfg_param_t e = {.kind = SIM_CFG_PARAM_TEXT};
    if (strlen(key) >= sizeof e.key)
        return sim_errf(err, "%s: parameter name longer than %zu bytes", where, sizeof e.key - 1);
    snprintf(e.key, sizeof e.key, "%s", key);
    if (v) {
        if (json_is_integer(v)) {
            e.kind = SIM_CFG_PARAM_INT;
            snprintf(e.text, sizeof e.text, "%lld", (long long)json_integer_value(v));
        } else if (json_is_real(v)) {
            e.kind = SIM_CFG_PARAM_REAL;
            sim_fmt_shortest(json_real_value(v), e.text, sizeof e.text);
        } else if (json_is_string(v)) {
            e.kind = SIM_CFG_PARAM_STRING;
            text = json_string_value(v);
        } else {
            return sim_errf(err, "%s: expected a number or a string", where);
        }
    }
    if (text) {
        if (strlen(text) >= sizeof e.text)
            return sim_errf(err, "%s: value longer than %zu bytes", where, sizeof e.text - 1);
        snprintf(e.text, sizeof e.text, "%s", text);
    }
    int i = 0;
    while (i < ps->n && strcmp(ps->v[i].key, key) != 0)
        i++;
    if (i == SIM_CFG_MAX_PARAMS)
        return sim_errf(err, "%s: more than %d parameters", where, SIM_CFG_MAX_PARAMS);
    ps->v[i] = e;
    ps->n += i == ps->n;
    return 0;
}

/* Check one stored value against its field and set it in obj. */
static int kv_apply(const sim_param_t *p, const sim_cfg_param_t *e, void *obj, const char *where,
                    sim_err_t *err)
{
    int numeric = p->type == SIM_PARAM_INT || p->type == SIM_PARAM_NUM;
    if (e->kind == SIM_CFG_PARAM_STRING && numeric)
        return sim_errf(err, "%s: expected a number", where);
    if ((e->kind == SIM_CFG_PARAM_INT || e->kind == SIM_CFG_PARAM_REAL) && !numeric)
        return sim_errf(err, "%s: expected a string", where);
    if (e->kind == SIM_CFG_PARAM_REAL && p->type == SIM_PARAM_INT)
        return sim_errf(err, "%s: expected an integer", where);
    return sim_params_set_text(p, obj, e->text, where, err);
}

/* The group's plug-in parameters: its table's defaults with the stored
 * values applied, into a new struct (*out; NULL when the plug-in has no
 * parameters). 0, or -1 with "src: $.scheduler.params.KEY: ...". */
static int group_build(const sim_config_t *cfg, const group_t *g, const char *src, void **out,
                       sim_err_t *err)
{
    *out = NULL;
    const char *name = (const char *)cfg + find_field(g->policy)->off;
    const sim_params_t *t = g->table(name);
    const sim_cfg_params_t *ps = ckvs(cfg, g);
    char where[1200];
    if (!t)
        return sim_errf(err, "%s: unknown %s '%s'",
                        origin_at(cfg, g->policy, src, where, sizeof where), g->what, name);
    void *obj = t->n ? sim_xmalloc(t->size, "plug-in parameters") : NULL;
    if (obj)
        sim_params_defaults(t, obj);
    for (int i = 0; i < ps->n; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s.%s", g->path, ps->v[i].key);
        origin_at(cfg, path, src, where, sizeof where);
        const sim_param_t *p = sim_params_find(t, ps->v[i].key);
        if (!p) {
            char keys[512];
            sim_params_keys(t, keys, sizeof keys);
            sim_free(obj);
            return sim_errf(err, "%s: not a parameter of %s '%s' (its parameters: %s)", where,
                            g->what, name, keys);
        }
        if (kv_apply(p, &ps->v[i], obj, where, err) != 0) {
            sim_free(obj);
            return -1;
        }
    }
    *out = obj;
    return 0;
}

int sim_config_plugin_params(const sim_config_t *cfg, const char *group, const char *src,
                             void **out, sim_err_t *err)
{
    const group_t *g = group_of(group, 1);
    SIM_ASSERT(g != NULL);
    return group_build(cfg, g, src, out, err);
}

/* The group as the effective config shows it: every parameter of the
 * plug-in with its value, or what was given when it does not check. */
static json_t *group_json(const sim_config_t *cfg, const group_t *g)
{
    void *obj;
    sim_err_t e;
    if (group_build(cfg, g, "", &obj, &e) == 0) {
        const char *name = (const char *)cfg + find_field(g->policy)->off;
        json_t *j = sim_params_to_json(g->table(name), obj);
        sim_free(obj);
        return j;
    }
    json_t *j = json_object();
    const sim_cfg_params_t *ps = ckvs(cfg, g);
    for (int i = 0; i < ps->n; i++)
        json_object_set_new(j, ps->v[i].key, json_string(ps->v[i].text));
    return j;
}

/* The error for a dotted key ("cluster.prefill") in a config file, with
 * the nested form to write instead ({"cluster": {"prefill": ...}}). */
static int nested_hint(const char *key, const char *where, sim_err_t *err)
{
    char nested[256];
    size_t o = 0, depth = 0;
    for (const char *p = key; *p && o + 8 < sizeof nested;) {
        size_t n = strcspn(p, ".");
        o += (size_t)snprintf(nested + o, sizeof nested - o, "{\"%.*s\": ", (int)n, p);
        depth++;
        p += n + (p[n] == '.');
    }
    if (o + 3 + depth < sizeof nested) {
        o += (size_t)snprintf(nested + o, sizeof nested - o, "...");
        for (; depth; depth--)
            nested[o++] = '}';
        nested[o] = '\0';
    } else {
        snprintf(nested, sizeof nested, "nested objects");
    }
    return sim_errf(err, "%s: the key \"%s\" holds a '.': a config file nests it, %s (dotted "
                         "paths are for --set)",
                    where, key, nested);
}

static int walk(sim_config_t *cfg, const json_t *obj, const char *prefix, const char *src,
                sim_err_t *err)
{
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)obj, key, val) {
        char path[256], where[512];
        if (snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", key) >=
            (int)sizeof path)
            return sim_errf(err, "%s: $.%s...: key path too long", src, prefix);
        snprintf(where, sizeof where, "%s: $.%s", src, path);
        /* A dotted key would read as the nested path it spells (and two
         * spellings of one key would escape the duplicate check): dotted
         * paths are for --set and sweeps only. */
        if (strchr(key, '.'))
            return nested_hint(key, where, err);
        if (!*prefix && strcmp(key, "inputs") == 0) { /* an earlier run's record */
            memset(cfg->inputs, 0, sizeof cfg->inputs);
            if (sim_input_parse(val, src, cfg->inputs, err) != 0)
                return -1;
            continue;
        }
        const field_t *f = find_field(path);
        const group_t *g = group_of(path, 1);
        if (f) {
            if (sim_params_set_json(f, cfg, val, where, err) != 0)
                return -1;
            origin_drop(cfg, path);
        } else if (g) {
            if (!json_is_object(val))
                return sim_errf(err, "%s: expected an object of %s parameters", where, g->what);
            origin_drop(cfg, path);
            const char *k;
            json_t *v;
            json_object_foreach(val, k, v) {
                char w2[800];
                snprintf(w2, sizeof w2, "%s.%s", where, k);
                if (kv_put(kvs(cfg, g), k, v, NULL, w2, err) != 0)
                    return -1;
            }
        } else if (is_object_path(path) || is_moved_object(path)) {
            if (!json_is_object(val))
                return sim_errf(err, "%s: expected an object", where);
            if (walk(cfg, val, path, src, err) != 0)
                return -1;
        } else {
            if (moved_err(path, where, err) != 0)
                return -1;
            char keys[1024];
            keys_under(prefix, keys, sizeof keys);
            return sim_errf(err, "%s: unknown key (valid here: %s)", where,
                            keys[0] ? keys : "none");
        }
    }
    return 0;
}

/* Is o a Mooncake trace record ({"timestamp": ..., "input_length": ...})? */
static int is_trace_record(const json_t *o)
{
    return json_is_object(o) && json_object_get(o, "timestamp") &&
           (json_object_get(o, "input_length") || json_object_get(o, "hash_ids"));
}

/* Does path hold a trace rather than an experiment: zstd-compressed (no
 * experiment file is), an Azure CSV header, or a first line that is a
 * Mooncake record? Read only when the file failed to load as JSON. */
static int looks_like_trace(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int trace = 0;
    while ((n = getline(&line, &cap, f)) > 0) {
        if (n >= 4 && (unsigned char)line[0] == 0x28 && (unsigned char)line[1] == 0xb5 &&
            (unsigned char)line[2] == 0x2f && (unsigned char)line[3] == 0xfd) {
            trace = 1; /* the zstd frame magic, FD2FB528 little-endian */
            break;
        }
        const char *p = line + strspn(line, " \t\r\n");
        if (!*p)
            continue;
        if (strncmp(p, "TIMESTAMP,", 10) == 0) {
            trace = 1;
        } else if (*p == '{') {
            json_t *o = json_loads(p, JSON_DISABLE_EOF_CHECK, NULL);
            trace = is_trace_record(o);
            json_decref(o);
        }
        break;
    }
    free(line);
    fclose(f);
    return trace;
}

/* The error for a trace given where an experiment file belongs: the
 * example names path as a JSON string (escaped). Returns -1. */
static int trace_not_experiment(const char *path, sim_err_t *err)
{
    json_t *s = json_string(path); /* NULL when path is not UTF-8 */
    char *q = s ? json_dumps(s, JSON_ENCODE_ANY) : NULL;
    sim_errf(err, "%s looks like a trace, not an experiment file: name it in an experiment's "
                  "trace.path (for example {\"trace\": {\"path\": %s}})",
             path, q ? q : "\"...\"");
    free(q);
    json_decref(s);
    return -1;
}

/* After a file or text is read: a record applies while its key keeps the
 * value this file gives it. */
static void inputs_snapshot(sim_config_t *cfg)
{
    for (int k = 0; k < SIM_INPUT_N; k++)
        if (cfg->inputs[k].have)
            snprintf(cfg->inputs[k].value, sizeof cfg->inputs[k].value, "%s",
                     sim_config_input_value(cfg, (sim_input_kind_t)k));
}

int sim_config_load(sim_config_t *cfg, const char *path, sim_err_t *err)
{
    json_t *root;
    if (sim_json_load(path, &root, err) != 0)
        return looks_like_trace(path) ? trace_not_experiment(path, err) : -1;
    int rc;
    if (!json_is_object(root))
        rc = sim_errf(err, "%s: $: expected an object", path);
    else if (is_trace_record(root)) /* a trace of one request */
        rc = trace_not_experiment(path, err);
    else
        rc = walk(cfg, root, "", path, err);
    json_decref(root);
    inputs_snapshot(cfg);
    return rc;
}

int sim_config_load_text(sim_config_t *cfg, const char *text, const char *src, sim_err_t *err)
{
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        if (json_error_code(&je) == json_error_stack_overflow)
            return sim_errf(err, "%s:%d:%d: JSON nested deeper than %d levels", src, je.line,
                            je.column, JSON_PARSER_MAX_DEPTH);
        if (je.line <= 0)
            return sim_errf(err, "%s: %s", src, je.text);
        return sim_errf(err, "%s:%d:%d: %s", src, je.line, je.column, je.text);
    }
    int rc = json_is_object(root) ? walk(cfg, root, "", src, err)
                                  : sim_errf(err, "%s: $: expected an object", src);
    json_decref(root);
    inputs_snapshot(cfg);
    return rc;
}

int sim_config_set_json(sim_config_t *cfg, const char *path, const json_t *v, const char *where,
                        sim_err_t *err)
{
    const field_t *f = find_field(path);
    const group_t *g = group_of(path, 0);
    if (g) {
        if (kv_put(kvs(cfg, g), path + strlen(g->path) + 1, v, NULL, where, err) != 0)
            return -1;
        origin_put(cfg, path, where);
        return 0;
    }
    if ((g = group_of(path, 1)) != NULL) { /* the whole object: replaces what was there */
        if (!json_is_object(v))
            return sim_errf(err, "%s: expected an object of %s parameters", where, g->what);
        kvs(cfg, g)->n = 0;
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)v, k, x) {
            char w2[800];
            snprintf(w2, sizeof w2, "%s.%s", where, k);
            if (kv_put(kvs(cfg, g), k, x, NULL, w2, err) != 0)
                return -1;
        }
        origin_put(cfg, path, where);
        return 0;
    }
    if (!f) {
        if (moved_err(path, where, err) != 0)
            return -1;
        return sim_errf(err, "%s: unknown config path '%s' (see --help-config)", where, path);
    }
    if (sim_params_set_json(f, cfg, v, where, err) != 0)
        return -1;
    origin_put(cfg, path, where);
    return 0;
}

int sim_config_check_set_arg(const char *arg, const char *next, sim_err_t *err)
{
    const char *eq = strchr(arg, '=');
    if (eq && eq != arg)
        return 0;
    char *end;
    int value = next && (next[0] != '-' || (strtod(next, &end), end != next && !*end));
    if (value && !eq)
        return sim_errf(err, "--set %.200s: expected PATH=VALUE (write --set %.200s=%.200s)", arg,
                        arg, next);
    return sim_errf(err, "--set %.200s: expected PATH=VALUE", arg);
}

/* --set debug.NAME=0|1: a reference mode (sim_config_t's debug). 1 when
 * path is one (then 0, or -1 with err filled for a bad value), 0 when it
 * is not under debug. */
static int debug_set(sim_config_t *cfg, const char *path, const char *value, const char *where,
                     int *rc, sim_err_t *err)
{
    static const struct {
        const char *name;
        size_t off;
    } keys[] = {
        {"debug.decode_step", offsetof(sim_config_t, debug.decode_step)},
        {"debug.place_scan", offsetof(sim_config_t, debug.place_scan)},
        {"debug.view_check", offsetof(sim_config_t, debug.view_check)},
        {"debug.no_avx2", offsetof(sim_config_t, debug.no_avx2)},
    };
    if (strncmp(path, "debug.", 6) != 0)
        return 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (strcmp(path, keys[i].name) != 0)
            continue;
        if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0) {
            *rc = sim_errf(err, "%s: expected 0 or 1", where);
            return 1;
        }
        *(int *)((char *)cfg + keys[i].off) = value[0] == '1';
        *rc = 0;
        return 1;
    }
    *rc = sim_errf(err, "%s: unknown debug switch '%s' (valid: debug.decode_step, "
                   "debug.place_scan, debug.view_check, debug.no_avx2)", where, path);
    return 1;
}

int sim_config_set(sim_config_t *cfg, const char *assignment, sim_err_t *err)
{
    const char *eq = strchr(assignment, '=');
    char path[256], where[600];
    if (!eq || eq == assignment)
        return sim_errf(err, "--set %.200s: expected PATH=VALUE", assignment);
    snprintf(path, sizeof path, "%.*s", (int)(eq - assignment), assignment);
    snprintf(where, sizeof where, "--set %s", assignment);
    int debug_rc;
    if (debug_set(cfg, path, eq + 1, where, &debug_rc, err))
        return debug_rc;
    const field_t *f = find_field(path);
    const group_t *g = group_of(path, 0);
    if (g) {
        if (kv_put(kvs(cfg, g), path + strlen(g->path) + 1, NULL, eq + 1, where, err) != 0)
            return -1;
        origin_put(cfg, path, where);
        return 0;
    }
    if (group_of(path, 1)) { /* --set 'scheduler.params={"slo_reject": 0}' */
        json_error_t je;
        json_t *v = json_loads(eq + 1, JSON_REJECT_DUPLICATES, &je);
        if (!v)
            return sim_errf(err, "%s: expected a JSON object: %s", where, je.text);
        int rc = sim_config_set_json(cfg, path, v, where, err);
        json_decref(v);
        return rc;
    }
    if (!f) {
        if (moved_err(path, where, err) != 0)
            return -1;
        return sim_errf(err, "%s: unknown config path '%s' (see --help-config)", where, path);
    }
    if (sim_params_set_text(f, cfg, eq + 1, where, err) != 0)
        return -1;
    origin_put(cfg, path, where);
    return 0;
}

int sim_config_set_seed(sim_config_t *cfg, const char *text, sim_err_t *err)
{
    sim_err_t e;
    if (strlen(text) > 20 || sim_params_set_text(find_field("seed"), cfg, text, "--seed", &e) != 0)
        return sim_errf(err, "--seed %.40s%s: expected an integer in [0, 2^53]", text,
                        strlen(text) > 40 ? "..." : "");
    return 0;
}

sim_config_type_t sim_config_type(const char *path)
{
    const field_t *f = find_field(path);
    if (!f)
        return group_of(path, 0) || group_of(path, 1) ? SIM_CFG_PARAM : SIM_CFG_NONE;
    return f->type == SIM_PARAM_INT   ? SIM_CFG_INT
           : f->type == SIM_PARAM_NUM ? SIM_CFG_NUM
                                      : SIM_CFG_STRING;
}

double sim_config_max(const char *path)
{
    const field_t *f = find_field(path);
    if (!f || (f->type != SIM_PARAM_INT && f->type != SIM_PARAM_NUM))
        return 0;
    return f->max;
}

int sim_config_expand(const char *in, char *out, size_t len, const char *src, const char *at,
                      sim_err_t *err)
{
    size_t o = 0;
    for (const char *p = in; *p;) {
        const char *val;
        size_t vl;
        if (p[0] == '$' && p[1] == '{') {
            const char *end = strchr(p + 2, '}');
            if (!end)
                return sim_errf(err, "%s: %s: unterminated ${ in '%s'", src, at, in);
            char var[128];
            snprintf(var, sizeof var, "%.*s", (int)(end - p - 2), p + 2);
            val = getenv(var);
            if (!val || !*val)
                return sim_errf(err, "%s: %s: environment variable %s is not set", src, at, var);
            vl = strlen(val);
            p = end + 1;
        } else {
            val = p++;
            vl = 1;
        }
        if (o + vl >= len)
            return sim_errf(err, "%s: %s: expanded path too long", src, at);
        memcpy(out + o, val, vl);
        o += vl;
    }
    out[o] = '\0';
    return 0;
}

int sim_config_trace_args(const sim_config_t *cfg, const char *src, char *path_buf, size_t len,
                          trace_open_args_t *out, sim_err_t *err)
{
    if (sim_config_expand(cfg->trace.path, path_buf, len, src, "$.trace.path", err) != 0)
        return -1;
    /* `make traces` stores the upstream files uncompressed: a missing
     * X.jsonl.zst falls back to X.jsonl (the format is detected by content). */
    size_t n = strlen(path_buf);
    if (n > 4 && strcmp(path_buf + n - 4, ".zst") == 0 && access(path_buf, F_OK) != 0) {
        path_buf[n - 4] = '\0';
        if (access(path_buf, F_OK) != 0)
            path_buf[n - 4] = '.';
    }
    /* A variable set to the wrong folder reads otherwise as a missing file:
     * name the variable, its value and what the folder lacks. */
    const char *var = strstr(cfg->trace.path, "${");
    if (var && access(path_buf, F_OK) != 0 && errno == ENOENT) {
        size_t vl = strcspn(var + 2, "}");
        const char *rest = var + 2 + vl + (var[2 + vl] == '}');
        rest += *rest == '/';
        size_t rl = strlen(rest);
        int zst = rl > 4 && strcmp(rest + rl - 4, ".zst") == 0;
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)vl, var + 2);
        return sim_errf(err, "%s: $.trace.path: %s is %s, which does not hold %s%s%.*s%s: set it "
                             "to the folder holding the traces",
                        src, name, getenv(name), rest, zst ? " (or " : "", zst ? (int)rl - 4 : 0,
                        rest, zst ? ")" : "");
    }
    *out = (trace_open_args_t){
        .path = path_buf, .format = cfg->trace.format, .gen = &cfg->trace.generator,
        .seed = (uint64_t)cfg->seed, .speed = cfg->trace.speed, .limit = cfg->trace.limit,
        .output_cap = cfg->trace.output_cap, .block_tok = cfg->trace.block_size,
    };
    return 0;
}

/* 1 when field p holds the same value in a and b. */
static int field_equal(const field_t *p, const sim_config_t *a, const sim_config_t *b)
{
    const char *x = (const char *)a + p->off, *y = (const char *)b + p->off;
    switch (p->type) {
    case SIM_PARAM_INT:
        return *(const int64_t *)(const void *)x == *(const int64_t *)(const void *)y;
    case SIM_PARAM_NUM:
        return *(const double *)(const void *)x == *(const double *)(const void *)y;
    default:
        return strcmp(x, y) == 0;
    }
}

/* 1 when key ("input.mean") is one of reads or under one ("input"). */
static int key_read(const char *key, const char *const *reads)
{
    for (; reads && *reads; reads++) {
        size_t n = strlen(*reads);
        if (strncmp(key, *reads, n) == 0 && (key[n] == '\0' || key[n] == '.'))
            return 1;
    }
    return 0;
}

/* Plug-ins that share one config section (the generators' trace.generator,
 * the cost models' cost) each read some of its keys: a key under prefix
 * (other than the one naming the plug-in, skip) that the chosen plug-in
 * does not read must keep its default, so that no setting is silently
 * ignored. who names the plug-in ("generator 'arxiv'"); reads NULL: the
 * section is unused and who says why. 0, or -1 with "src: $.KEY: ...". */
static int check_unread(const sim_config_t *c, const char *prefix, const char *skip,
                        const char *const *reads, const char *who, const char *src,
                        sim_err_t *err)
{
    sim_config_t *dflt = sim_xmalloc(sizeof *dflt, "config defaults");
    sim_config_defaults(dflt);
    size_t plen = strlen(prefix);
    const field_t *bad = NULL;
    for (size_t i = 0; i < table.n && !bad; i++) {
        const field_t *p = &table.p[i];
        if (strncmp(p->key, prefix, plen) == 0 && strcmp(p->key + plen, skip) != 0 &&
            !key_read(p->key + plen, reads) && !field_equal(p, c, dflt))
            bad = p;
    }
    sim_free(dflt);
    if (!bad)
        return 0;
    char at[1200];
    origin_at(c, bad->key, src, at, sizeof at);
    if (!reads)
        return sim_errf(err, "%s: %s; leave it out", at, who);
    char list[512] = "";
    for (const char *const *r = reads; r && *r; r++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", r == reads ? "" : ", ",
                 *r);
    return sim_errf(err, "%s: %s does not read it (it reads: %s); leave it out", at, who, list);
}

/* Where the value of key came from, for validate's messages (needs c, src
 * and a buffer at in scope). */
#define AT(key) origin_at(c, key, src, at, sizeof at)

/* The names the config gives each registry: hardware, model, cost model,
 * system and policies. 0, or -1 listing the valid names. */
static int validate_names(const sim_config_t *c, const char *src, sim_err_t *err)
{
    char names[512], at[1200];
    if (!model_hw_find(c->hardware)) {
        model_hw_names(names, sizeof names);
        return sim_errf(err, "%s: unknown hardware '%s' (valid: %s)", AT("hardware"),
                        c->hardware, names);
    }
    if (!model_llm_find(c->model)) {
        model_llm_names(names, sizeof names);
        return sim_errf(err, "%s: unknown model '%s' (valid: %s)", AT("model"), c->model, names);
    }
    if (!model_cost_find(c->cost.model)) {
        model_cost_names(names, sizeof names);
        return sim_errf(err, "%s: unknown cost model '%s' (valid: %s)", AT("cost.model"),
                        c->cost.model, names);
    }
    char who[300];
    snprintf(who, sizeof who, "cost model '%s'", c->cost.model);
    if (check_unread(c, "cost.", "model", model_cost_find(c->cost.model)->reads, who, src, err) != 0)
        return -1;
    if (!sim_system_find(c->system.kind)) {
        sim_system_names(names, sizeof names);
        return sim_errf(err, "%s: unknown system '%s' (valid: %s)", AT("system.kind"),
                        c->system.kind, names);
    }
    if (!sim_place_find(c->scheduler.policy)) {
        sim_place_names(names, sizeof names);
        return sim_errf(err, "%s: unknown placement policy '%s' (valid: %s)",
                        AT("scheduler.policy"), c->scheduler.policy, names);
    }
    if (!sim_admit_find(c->admission.policy)) {
        sim_admit_names(names, sizeof names);
        return sim_errf(err, "%s: unknown admission policy '%s' (valid: %s)",
                        AT("admission.policy"), c->admission.policy, names);
    }
    if (!sim_evict_find(c->cache.policy)) {
        sim_evict_names(names, sizeof names);
        return sim_errf(err, "%s: unknown eviction policy '%s' (valid: %s)", AT("cache.policy"),
                        c->cache.policy, names);
    }
    return 0;
}

/* What the chosen system runs on: pd, prefill and decode instances; a
 * colocated system, instances of its own (system.params.instances), with
 * no prefill or decode ones and no admission control (which judges a
 * request by its prefill and decode instances). */
static int validate_system(const sim_config_t *c, const char *src, sim_err_t *err)
{
    const sim_system_ops_t *sys = sim_system_find(c->system.kind);
    char at[1200];
    if (sys->disaggregated && (c->cluster.prefill < 1 || c->cluster.decode < 1))
        return sim_errf(err, "%s: $.cluster: need at least one prefill and one decode instance "
                             "(system %s)",
                        src, sys->name);
    if (!sys->disaggregated && (c->cluster.prefill != 0 || c->cluster.decode != 0))
        return sim_errf(err, "%s: $.cluster: system %s runs its own instances "
                             "(system.params.instances): set prefill and decode to 0",
                        src, sys->name);
    if (!sys->disaggregated && strcmp(c->admission.policy, "none") != 0)
        return sim_errf(err, "%s: admission control needs prefill and decode instances (system "
                             "pd; this config runs %s)",
                        AT("admission.policy"), sys->name);
    return 0;
}

/* The trace source: a file in a known format, or a known generator. */
static int validate_trace(const sim_config_t *c, const char *src, sim_err_t *err)
{
    char names[512], at[1200];
    int has_path = c->trace.path[0] != '\0', has_gen = c->trace.generator.kind[0] != '\0';
    if (has_path == has_gen)
        return sim_errf(err, "%s: $.trace: set exactly one of trace.path and "
                             "trace.generator.kind",
                        src);
    if (has_gen) {
        const trace_source_ops_t *g = trace_source_find(c->trace.generator.kind);
        if (!g || !g->is_generator) {
            trace_source_names(names, sizeof names, 1);
            return sim_errf(err, "%s: unknown generator '%s' (valid: %s)",
                            AT("trace.generator.kind"), c->trace.generator.kind, names);
        }
        char who[300];
        snprintf(who, sizeof who, "generator '%s'", g->name);
        if (check_unread(c, "trace.generator.", "kind", g->reads, who, src, err) != 0)
            return -1;
    } else if (check_unread(c, "trace.generator.", "kind", NULL,
                            "only a generator reads it, and this config replays a trace file (trace.path)", src, err) != 0) {
        return -1;
    }
    if (strcmp(c->trace.format, "auto") != 0) {
        const trace_source_ops_t *r = trace_source_find(c->trace.format);
        if (!r || r->is_generator) {
            trace_source_names(names, sizeof names, 0);
            return sim_errf(err, "%s: unknown trace format '%s' (valid: auto, %s)",
                            AT("trace.format"), c->trace.format, names);
        }
    }
    return 0;
}

int sim_config_validate(const sim_config_t *c, const char *src, sim_err_t *err)
{
    char at[1200];
    /* Results go to results/<name> without --out: a name must stay inside. */
    if (!c->name[0] || !strcmp(c->name, ".") || !strcmp(c->name, "..") || strchr(c->name, '/') ||
        strchr(c->name, '\\'))
        return sim_errf(err,
                        "%s: '%s' is not a plain name (results go to results/<name>: "
                        "not empty, '.' or '..', no '/' or '\\')",
                        AT("name"), c->name);
    /* Every number within its field's range again: a program may have set
     * the struct directly, and the run's ns arithmetic relies on them. */
    snprintf(at, sizeof at, "%s: $.", src);
    if (sim_params_check(&table, c, at, err) != 0)
        return -1;
    if (validate_names(c, src, err) != 0)
        return -1;
    for (size_t i = 0; i < N_GROUPS; i++) {
        void *obj;
        if (group_build(c, &groups[i], src, &obj, err) != 0)
            return -1;
        sim_free(obj);
    }
    if (validate_system(c, src, err) != 0)
        return -1;
    /* network.transport: a built-in profile, else a network calibration
     * file that sim_run resolves (it knows the data directory). */
    if (!c->network.transport[0])
        return sim_errf(err, "%s: empty", AT("network.transport"));
    if (strcmp(c->cache.scope, "local") != 0 && strcmp(c->cache.scope, "global") != 0)
        return sim_errf(err, "%s: unknown scope '%s' (valid: local, global)", AT("cache.scope"),
                        c->cache.scope);
    return validate_trace(c, src, err);
}

/* The object at dotted path's parent in root (created as needed); *leaf
 * gets the last component. */
static json_t *parent_of(json_t *root, const char *path, const char **leaf)
{
    json_t *obj = root;
    const char *p = path, *dot;
    while ((dot = strchr(p, '.')) != NULL) {
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(dot - p), p);
        json_t *sub = json_object_get(obj, key);
        if (!sub) {
            sub = json_object();
            json_object_set_new(obj, key, sub);
        }
        obj = sub;
        p = dot + 1;
    }
    *leaf = p;
    return obj;
}

json_t *sim_config_to_json(const sim_config_t *cfg)
{
    json_t *root = json_object();
    const char *leaf;
    for (size_t i = 0; i < N_FIELDS; i++) {
        json_t *obj = parent_of(root, fields[i].key, &leaf);
        json_object_set_new(obj, leaf, sim_params_get_json(&fields[i], cfg));
    }
    for (size_t i = 0; i < N_GROUPS; i++) {
        json_t *obj = parent_of(root, groups[i].path, &leaf);
        json_object_set_new(obj, leaf, group_json(cfg, &groups[i]));
    }
    return root;
}

/* "  - PREFIX=NAME: a, b" for one plug-in sharing a section. */
static void print_reads(FILE *f, const char *prefix, const char *name, const char *const *reads)
{
    fprintf(f, "  - %s=%s:", prefix, name);
    for (const char *const *r = reads; r && *r; r++)
        fprintf(f, "%s %s", r == reads ? "" : ",", *r);
    fprintf(f, "\n");
}

/* Which keys of a shared section each plug-in reads (the others must keep
 * their defaults). */
static void print_shared(FILE *f)
{
    char names[512], *save = NULL;
    fprintf(f, "\nKeys each generator and cost model reads (the others of trace.generator "
               "and cost must keep their defaults):\n");
    trace_source_names(names, sizeof names, 1);
    for (char *n = strtok_r(names, ", ", &save); n; n = strtok_r(NULL, ", ", &save))
        print_reads(f, "trace.generator.kind", n, trace_source_find(n)->reads);
    model_cost_names(names, sizeof names);
    save = NULL;
    for (char *n = strtok_r(names, ", ", &save); n; n = strtok_r(NULL, ", ", &save))
        print_reads(f, "cost.model", n, model_cost_find(n)->reads);
}

void sim_config_print_schema(FILE *f)
{
    fprintf(f, "Experiment config keys (JSON; dotted paths are nested objects):\n\n");
    sim_params_print(&table, "", f);
    for (size_t i = 0; i < N_GROUPS; i++) {
        const group_t *g = &groups[i];
        char names[512], prefix[64];
        fprintf(f, "\n%s: the parameters of the chosen %s (%s), for each:\n", g->path, g->what,
                g->policy);
        g->names(names, sizeof names);
        snprintf(prefix, sizeof prefix, "%s.", g->path);
        char *save = NULL;
        for (char *n = strtok_r(names, ", ", &save); n; n = strtok_r(NULL, ", ", &save)) {
            const sim_params_t *t = g->table(n);
            fprintf(f, "  %s=%s:%s\n", g->policy, n, t && t->n ? "" : " none");
            if (g->help(n)[0])
                fprintf(f, "    %s\n", g->help(n));
            sim_params_print(t, prefix, f);
        }
    }
    print_shared(f);
}
