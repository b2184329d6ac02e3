/* sim/exp/config.h: the experiment configuration. One declarative field table
 * (path, type, offset, range, default, help) drives JSON parsing, defaults,
 * range checks, --set overrides, --help and the effective-config dump.
 * Invariant: every key a user can write is in the table; others are errors. */
#ifndef SIM_CONFIG_H
#define SIM_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "sim/exp/inputs.h"
#include "sim/core/util.h"
#include "traces/trace.h"

#define SIM_CFG_STR 256
#define SIM_CFG_PATH 1024

/* A plug-in's parameters as the config gave them ("scheduler.params":
 * {...} or --set scheduler.params.KEY=V; admission.params and
 * system.params alike): key, value text and the JSON kind it came as;
 * checked against the plug-in's table by validate. */
#define SIM_CFG_MAX_PARAMS 16
enum { SIM_CFG_PARAM_TEXT, SIM_CFG_PARAM_INT, SIM_CFG_PARAM_REAL, SIM_CFG_PARAM_STRING };
typedef struct sim_cfg_param {
    char key[64];
    char text[256];
    int kind;
} sim_cfg_param_t;
typedef struct sim_cfg_params {
    int n;
    sim_cfg_param_t v[SIM_CFG_MAX_PARAMS];
} sim_cfg_params_t;

/* Where a key's value came from when something after the experiment file
 * set it (a --set, a sweep spec's set or axis): validate names it instead
 * of the file. One entry per key, the last setter's; keys not here (and
 * any beyond SIM_CFG_MAX_ORIGINS distinct ones) name the file. */
#define SIM_CFG_MAX_ORIGINS 32
typedef struct sim_cfg_origin {
    char path[96];   /* "scheduler.policy", "scheduler.params.slo_reject" */
    char where[416]; /* "--set scheduler.policy=x", "spec.json: $.axes.model[1]" */
} sim_cfg_origin_t;

typedef struct sim_config {
    char name[SIM_CFG_STR];
    char description[SIM_CFG_PATH];
    int64_t seed;
    char model[SIM_CFG_STR];
    char hardware[SIM_CFG_STR];
    struct {
        char kind[SIM_CFG_STR];
        sim_cfg_params_t params; /* the serving system's own */
    } system;
    struct {
        int64_t prefill;
        int64_t decode;
        int64_t decode_max_batch;
        int64_t decode_load_layerwise;
        double vram_reserve_frac;
        int64_t prefill_group;
        int64_t prefill_chunk;
        int64_t inline_prefill;
        double inline_stall_s;
    } cluster;
    struct {
        char path[SIM_CFG_PATH];
        char format[SIM_CFG_STR];
        double speed;
        int64_t limit;
        int64_t output_cap;
        int64_t block_size;
        trace_gen_params_t generator;
    } trace;
    struct {
        char policy[SIM_CFG_STR];
        double schedule_s;
        sim_cfg_params_t params; /* the placement policy's own */
    } scheduler;
    struct {
        char policy[SIM_CFG_STR];
        sim_cfg_params_t params; /* the admission policy's own */
    } admission;
    struct {
        char model[SIM_CFG_STR];
        char calibration[SIM_CFG_PATH];
        double mfu;
        double mbu;
        double overhead_s;
    } cost;
    struct {
        int64_t enabled;
        char scope[SIM_CFG_STR];
        char policy[SIM_CFG_STR];
        sim_cfg_params_t params; /* the eviction policy's own */
        int64_t dram_tokens;
        int64_t ssd_tokens;
        int64_t hot_fetches;
        int64_t hot_replicas;
        double dram_load_gbs;
        double ssd_read_gbs;
        double store_overhead_s;
    } cache;
    struct {
        char transport[SIM_CFG_STR];
        double nic_gbps;
    } network;
    struct {
        double interval_s;
    } metrics;
    struct {
        double ttft_s;
        double tbt_s;
    } slo;
    /* Reference modes for the tests (docs/development.md, "Reference
     * modes"): set only by --set debug.NAME=0|1, never by a file; not in
     * the field table, the help or the effective config. Each gives the
     * same outputs as the default, slower. */
    struct {
        int decode_step; /* one event per decode iteration (sim/serve/decode_step.c) */
        int place_scan;  /* placement estimates every prefill instance */
        int view_check;  /* every indexed prefill view is checked against the pass */
        int no_avx2;     /* the cost model's decode line one iteration at a time */
    } debug;
    /* The input files an earlier run's config.json recorded ($.inputs):
     * not a setting; the run compares them with the files it reads. */
    sim_input_rec_t inputs[SIM_INPUT_N];
    /* Not a setting: who set which key after the file (see above). */
    int n_origins;
    sim_cfg_origin_t origins[SIM_CFG_MAX_ORIGINS];
} sim_config_t;

/* Fill cfg with every field's default. */
void sim_config_defaults(sim_config_t *cfg);

/* Read a JSON experiment file over the current values of cfg (start from
 * sim_config_defaults). Strict: unknown keys, wrong types and out-of-range
 * values are errors as "file:line:col: msg" or "file: $.path: msg". */
int sim_config_load(sim_config_t *cfg, const char *path, sim_err_t *err);

/* sim_config_load for an experiment given as JSON text; src names it in
 * messages ("src:line:col: msg", "src: $.path: msg"). */
int sim_config_load_text(sim_config_t *cfg, const char *text, const char *src, sim_err_t *err);

/* Apply one "path=value" override (the CLI's --set). Later checks
 * (sim_config_validate) blame "--set path=value" for the value. */
int sim_config_set(sim_config_t *cfg, const char *assignment, sim_err_t *err);

/* A --set argument as the command line gives it: 0 when it holds an '='
 * after a path; else -1 with "--set PATH: expected PATH=VALUE", plus
 * "(write --set PATH=NEXT)" when next, the word after it on the command
 * line (NULL for none), reads as its value: `--set cluster.prefill 4`
 * leaves 4 as an extra operand. */
int sim_config_check_set_arg(const char *arg, const char *next, sim_err_t *err);

/* Set the key path from a JSON value, as an experiment file would; where
 * prefixes errors ("spec.json: $.axes.seed[2]"), now and in
 * sim_config_validate's messages about the value. A plug-in's whole
 * parameter object ("scheduler.params": {...}) replaces the one before.
 * 0 or -1. */
int sim_config_set_json(sim_config_t *cfg, const char *path, const json_t *v, const char *where,
                        sim_err_t *err);

/* The CLI's --seed TEXT: the whole text an integer in [0, 2^53]. 0, or -1
 * with "--seed TEXT: ..." (a long text is cut in the message, never in
 * the value). */
int sim_config_set_seed(sim_config_t *cfg, const char *text, sim_err_t *err);

/* The type of the config key path (what --set would parse), or
 * SIM_CFG_NONE when there is no such key; SIM_CFG_PARAM for a plug-in
 * parameter ("scheduler.params.KEY"), whose type depends on the plug-in. */
typedef enum { SIM_CFG_NONE, SIM_CFG_INT, SIM_CFG_NUM, SIM_CFG_STRING, SIM_CFG_PARAM } sim_config_type_t;
sim_config_type_t sim_config_type(const char *path);

/* The upper bound of a numeric config key's range (as --help-config
 * prints it), or 0 when path is not a numeric key of the schema. */
double sim_config_max(const char *path);

/* Cross-field and name checks (registries, trace source). src names the
 * config file for messages about values from the file; a value a --set or
 * sim_config_set_json gave is blamed on that ("--set model=x: unknown
 * model 'x' ..."). */
int sim_config_validate(const sim_config_t *cfg, const char *src, sim_err_t *err);

/* Expand ${VAR} in in (environment variables) into out. -1 with
 * "src: $.at: ..." when a variable is unset. */
int sim_config_expand(const char *in, char *out, size_t len, const char *src, const char *at,
                      sim_err_t *err);

/* The trace source the config names, as arguments for trace_open; the
 * expanded trace.path goes into path_buf (len bytes), which must outlive
 * *out. 0 or -1 ("src: $.trace.path: ..."). */
int sim_config_trace_args(const sim_config_t *cfg, const char *src, char *path_buf, size_t len,
                          trace_open_args_t *out, sim_err_t *err);

/* The parameters of the plug-in a group names ("scheduler.params" for
 * scheduler.policy's, "admission.params", "system.params" for
 * system.kind's): the plug-in's defaults with the config's values
 * applied, as a new struct of the plug-in's own type
 * (*out, sim_free; NULL when it has no parameters). 0, or -1 with
 * "src: $.scheduler.params.KEY: ..." (an unknown key lists the valid ones). */
int sim_config_plugin_params(const sim_config_t *cfg, const char *group, const char *src,
                             void **out, sim_err_t *err);

/* The value of the config key whose file input k is (trace.path, ...). */
const char *sim_config_input_value(const sim_config_t *cfg, sim_input_kind_t k);

/* The effective configuration as a new JSON object (caller json_decref).
 * The inputs section is not in it: a run adds it (sim/exp/run.c). */
json_t *sim_config_to_json(const sim_config_t *cfg);

/* Print the schema (path, type, default, range, help) to f. */
void sim_config_print_schema(FILE *f);

#endif
