/* sim/exp/run.c: see run.h. */
#include "sim/exp/run.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "models/cost.h"
#include "sim/serve/cluster.h"
#include "sim/pool/evict.h"
#include "sim/exp/inputs.h"
#include "sim/core/jsonx.h"
#include "sim/pool/kvpool.h"
#include "sim/net/net.h"
#include "sim/exp/out.h"
#include "sim/serve/system.h"
#include "traces/store.h"

static void progress_line(void *ud, const sim_cluster_t *c)
{
    (void)ud;
    fprintf(stderr, "\r  simulated %8.1f s, %lld requests, %lld in flight   ",
            (double)sim_cluster_now(c) / 1e9, (long long)sim_cluster_n_arrived(c),
            (long long)sim_cluster_n_in_flight(c));
}

/* Blocks per node of a tier: tokens from the config, or (-1) the
 * hardware's bytes over the model's KV bytes per token. */
static int64_t tier_blocks(int64_t cfg_tokens, double hw_bytes, const model_llm_t *llm)
{
    double tokens = cfg_tokens >= 0 ? (double)cfg_tokens
                                    : hw_bytes / (double)model_llm_kv_bytes_per_tok(llm);
    return (int64_t)(tokens / TRACE_BLOCK_TOK);
}

static void prefix_src(sim_err_t *err, const char *src)
{
    if (err && strncmp(err->msg, "$.", 2) == 0) {
        sim_err_t e = *err;
        sim_errf(err, "%s: %s", src, e.msg);
        err->io = e.io;
    }
}

/* $.network.transport: a built-in profile, else a network calibration (a
 * path, or NAME for <data_dir>/models/calib/NAME.json). */
static int net_profile(const sim_config_t *cfg, const sim_run_opts_t *o, double nic_bytes_per_s,
                       const char *src, sim_net_profile_t *prof, char *path, size_t len,
                       sim_err_t *err)
{
    const char *t = cfg->network.transport;
    if (sim_net_profile_get(t, prof) == 0)
        return 0;
    char exp[SIM_CFG_PATH];
    if (sim_config_expand(t, exp, sizeof exp, src, "$.network.transport", err) != 0)
        return -1;
    model_calib_path(exp, o->data_dir, path, len);
    if (sim_net_profile_file(t, path, nic_bytes_per_s, prof, err) == 0)
        return 0;
    char names[128];
    sim_net_profile_names(names, sizeof names);
    sim_err_t e = *err;
    return sim_errf(err, "%s: $.network.transport: '%s' is neither a transport (valid: %s) nor a "
                         "usable network calibration: %s",
                    src, t, names, e.msg);
}

/* v as compact JSON in buf, cut to fit with "..." (for messages). */
static void show_json(const json_t *v, char *buf, size_t len)
{
    if (!v) {
        snprintf(buf, len, "absent");
        return;
    }
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(10));
    size_t n = s ? strlen(s) : 0;
    if (n < len)
        snprintf(buf, len, "%s", s ? s : "?");
    else
        snprintf(buf, len, "%.*s...", (int)(len - 4), s);
    free(s); /* from json_dumps (jansson's allocator, not sim_xmalloc) */
}

/* The first place where old and now differ, depth first in now's key
 * order, then keys only old has: its path appended to at[len], and the
 * two values there (NULL where a key is absent). 1 when found, else 0. */
static int first_diff(const json_t *old, const json_t *now, char *at, size_t len,
                      const json_t **a, const json_t **b)
{
    if (json_equal(old, now))
        return 0;
    if (json_is_object(old) && json_is_object(now)) {
        size_t n = strlen(at);
        const char *k;
        const json_t *v;
        json_object_foreach((json_t *)now, k, v) {
            snprintf(at + n, len - n, ".%s", k);
            if (first_diff(json_object_get(old, k), v, at, len, a, b))
                return 1;
        }
        json_object_foreach((json_t *)old, k, v) {
            if (!json_object_get(now, k)) {
                snprintf(at + n, len - n, ".%s", k);
                *a = v;
                *b = NULL;
                return 1;
            }
        }
        at[n] = '\0';
    }
    *a = old;
    *b = now;
    return 1;
}

/* eff as it reads back from config.json: written by sim_json_write_exact
 * and parsed, so that a rerun of the same experiment compares equal to the
 * file its first run wrote. New reference, or NULL
 * when the round trip fails. */
static json_t *as_written(const json_t *eff)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return NULL;
    int ok = sim_json_write_exact(f, eff) == 0;
    ok = fclose(f) == 0 && ok;
    json_t *j = ok ? json_loadb(buf, n, JSON_REJECT_DUPLICATES, NULL) : NULL;
    free(buf); /* from open_memstream (libc's allocator, not sim_xmalloc) */
    return j;
}

/* value, a path as config key k takes it, made absolute in eff (at k)
 * when it is relative: a name (a built-in calibration or transport), a
 * ${VAR} path and an absolute path stay as given, as does one whose
 * absolute form would not fit the key. */
static void absolute_value(json_t *eff, sim_input_kind_t k, const char *value)
{
    int path_like = k == SIM_INPUT_TRACE || strchr(value, '/') || strstr(value, ".json");
    char abs[SIM_CFG_PATH];
    size_t cap = k == SIM_INPUT_TRANSPORT ? SIM_CFG_STR : SIM_CFG_PATH;
    if (!path_like || value[0] == '/' || strstr(value, "${") ||
        sim_input_abs_path(value, abs, sizeof abs) != 0 || strlen(abs) >= cap)
        return;
    const char *key = sim_input_key(k), *dot = strchr(key, '.');
    char sect[32];
    snprintf(sect, sizeof sect, "%.*s", (int)(dot - key), key);
    json_object_set_new(json_object_get(eff, sect), dot + 1, json_string(abs));
}

/* eff's relative input paths made absolute and its "inputs" section: per
 * file the run read, the value as first given (carried from the config's
 * own record while it applies), the absolute file, its size and hash. A
 * record whose hash differs from the file now is a warning on warn.
 * 0, or -1 with err (a file that cannot be read again). */
static int record_inputs(const sim_config_t *cfg, const char *src,
                         char read[SIM_INPUT_N][SIM_CFG_PATH + 64], json_t *eff, FILE *warn,
                         sim_err_t *err)
{
    json_t *inputs = json_object();
    for (int k = 0; k < SIM_INPUT_N; k++) {
        const char *file = read[k];
        if (!file[0])
            continue;
        const char *value = sim_config_input_value(cfg, (sim_input_kind_t)k);
        const sim_input_rec_t *rec = &cfg->inputs[k];
        int applies = rec->have && strcmp(rec->value, value) == 0;
        int64_t bytes;
        uint64_t h;
        if (sim_input_hash_file(file, &bytes, &h, err) != 0) {
            json_decref(inputs);
            return -1;
        }
        if (applies && (h != rec->fnv1a64 || bytes != rec->bytes))
            fprintf(warn,
                    "mooncake-sim: warning: %s: $.inputs.%s: %s is not the file this config "
                    "recorded (%" PRId64 " bytes, fnv1a64 %016" PRIx64 " then; %" PRId64
                    " bytes, %016" PRIx64 " now): results may differ from the recorded run's\n",
                    src, sim_input_name((sim_input_kind_t)k), file, rec->bytes, rec->fnv1a64,
                    bytes, h);
        char real[PATH_MAX], hex[17];
        if (sim_input_abs_path(file, real, sizeof real) != 0)
            snprintf(real, sizeof real, "%s", file);
        snprintf(hex, sizeof hex, "%016" PRIx64, h);
        json_t *e = json_object();
        json_object_set_new(e, "given", json_string(applies ? rec->given : value));
        json_object_set_new(e, "file", json_string(real));
        json_object_set_new(e, "bytes", json_integer((json_int_t)bytes));
        json_object_set_new(e, "fnv1a64", json_string(hex));
        json_object_set_new(inputs, sim_input_name((sim_input_kind_t)k), e);
        absolute_value(eff, (sim_input_kind_t)k, value);
    }
    json_object_set_new(eff, "inputs", inputs);
    return 0;
}

/* Refuse to overwrite dir when it holds a config.json other than eff (the
 * run's effective config): an earlier run of a different experiment, or a
 * config.json that cannot be read. No config.json (or no dir) is fine.
 * Writes nothing. 0, or -1 with err filled. */
static int check_out_dir(const char *dir, const json_t *eff, sim_err_t *err)
{
    static const char *const hint = "use --force to overwrite or choose another --out";
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/config.json", dir);
    if (stat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
        return 0;
    json_t *old = NULL;
    sim_err_t e;
    if (sim_json_load(path, &old, &e) != 0)
        return sim_errf(err, "%s: holds a config.json that cannot be read (%s); %s", dir, e.msg,
                        hint);
    json_t *now = as_written(eff);
    if (!now) {
        json_decref(old);
        return sim_errf(err, "%s: cannot encode the effective config", dir);
    }
    /* The same experiment over inputs that changed is still the same
     * experiment (the change is a warning of its own). */
    if (json_is_object(old))
        json_object_del(old, "inputs");
    json_object_del(now, "inputs");
    char at[256] = "$", va[64], vb[64];
    const json_t *a = NULL, *b = NULL;
    int rc = 0;
    if (first_diff(old, now, at, sizeof at, &a, &b)) {
        show_json(a, va, sizeof va);
        show_json(b, vb, sizeof vb);
        rc = sim_errf(err,
                      "%s: holds a different experiment (config.json differs at %s: %s there, "
                      "%s in this run); %s",
                      dir, at, va, vb, hint);
    }
    json_decref(old);
    json_decref(now);
    return rc;
}

/* What one run holds; released by run_close. */
typedef struct run_state {
    const model_hw_t *hw;
    const model_llm_t *llm;
    double nic_bytes_per_s;
    double cpu0; /* the thread's CPU seconds when the run began */
    sim_net_profile_t prof;
    void *system_params, *place_params, *admit_params, *evict_params;
    model_cost_t *cost;
    trace_t *trace;
    sim_metrics_t *m;
    sim_cluster_t *cl;
    sim_timeline_t *tl; /* NULL: no timeline */
    json_t *summary, *eff;
    char read[SIM_INPUT_N][SIM_CFG_PATH + 64]; /* the input files read ("": none) */
    sim_out_dir_t dir; /* the output directory, published whole */
    sim_out_file_t csv, fsum, fcfg, tsf, ftim;
} run_state_t;

/* What a run's directory may hold. */
const char *const sim_run_out_names[] = {"summary.json", "requests.csv", "timeseries.csv",
                                        "config.json", "timing.json", NULL};

/* The plug-ins' parameters, the network profile, the cost model and the
 * trace. 0, or -1 with err filled. */
static int run_inputs(const sim_config_t *cfg, const sim_run_opts_t *o, const char *src,
                      run_state_t *s, sim_err_t *err)
{
    char calib[SIM_CFG_PATH], tpath[SIM_CFG_PATH];
    char *ppath = s->read[SIM_INPUT_TRANSPORT];
    ppath[0] = '\0';
    if (sim_config_expand(cfg->cost.calibration, calib, sizeof calib, src, "$.cost.calibration",
                          err) != 0)
        return -1;
    model_cost_args_t ca = {
        .hw = s->hw, .llm = s->llm, .calibration = calib, .data_dir = o->data_dir,
        .mfu = cfg->cost.mfu, .mbu = cfg->cost.mbu, .overhead_s = cfg->cost.overhead_s,
    };
    if (sim_config_plugin_params(cfg, "system.params", src, &s->system_params, err) != 0 ||
        sim_config_plugin_params(cfg, "scheduler.params", src, &s->place_params, err) != 0 ||
        sim_config_plugin_params(cfg, "admission.params", src, &s->admit_params, err) != 0 ||
        sim_config_plugin_params(cfg, "cache.params", src, &s->evict_params, err) != 0)
        return -1;
    if (net_profile(cfg, o, s->nic_bytes_per_s, src, &s->prof, ppath, sizeof s->read[0], err) != 0)
        return -1;
    s->cost = model_cost_new(cfg->cost.model, &ca, err);
    if (!s->cost) {
        sim_err_t e = *err;
        return sim_errf(err, "%s: $.cost: %s", src, e.msg);
    }
    model_cost_set_scalar(s->cost, cfg->debug.no_avx2);
    trace_open_args_t ta;
    if (sim_config_trace_args(cfg, src, tpath, sizeof tpath, &ta, err) != 0)
        return -1;
    s->trace = trace_store_open(o->traces, &ta, err);
    if (!s->trace) {
        prefix_src(err, src);
        return -1;
    }
    const char *cf = model_cost_file(s->cost);
    snprintf(s->read[SIM_INPUT_CALIBRATION], sizeof s->read[0], "%s", cf ? cf : "");
    snprintf(s->read[SIM_INPUT_TRACE], sizeof s->read[0], "%s", cfg->trace.path[0] ? tpath : "");
    return 0;
}

/* Config seconds at $.key as ns, through the one checked conversion. The
 * fields' ranges keep every one far inside int64 (the longest, 1e6 s, is
 * 1e15 ns), so a failure here is a range that was widened too far. */
static int to_ns(double s, const char *key, const char *src, sim_time_t *ns, sim_err_t *err)
{
    if (sim_s_to_ns(s, ns) != 0)
        return sim_errf(err, "%s: $.%s: %g s is not a duration in [0, %g] s", src, key, s,
                        (double)SIM_MAX_DURATION_NS / 1e9);
    return 0;
}

/* The cluster the config describes, over the run's inputs. 0, or -1 with
 * err located at the config key. */
static int cluster_args(const sim_config_t *cfg, const run_state_t *s, const char *src,
                        sim_cluster_args_t *ka, sim_err_t *err)
{
    const model_hw_t *hw = s->hw;
    sim_time_t inline_stall_ns, schedule_ns, store_ns, ts_ns, ttft_ns, tbt_ns;
    if (to_ns(cfg->cluster.inline_stall_s, "cluster.inline_stall_s", src, &inline_stall_ns,
              err) != 0 ||
        to_ns(cfg->scheduler.schedule_s, "scheduler.schedule_s", src, &schedule_ns, err) != 0 ||
        to_ns(cfg->cache.store_overhead_s, "cache.store_overhead_s", src, &store_ns, err) != 0 ||
        to_ns(cfg->metrics.interval_s, "metrics.interval_s", src, &ts_ns, err) != 0 ||
        to_ns(cfg->slo.ttft_s, "slo.ttft_s", src, &ttft_ns, err) != 0 ||
        to_ns(cfg->slo.tbt_s, "slo.tbt_s", src, &tbt_ns, err) != 0)
        return -1;
    *ka = (sim_cluster_args_t){
        .hw = hw, .llm = s->llm, .cost = s->cost,
        .system = sim_system_find(cfg->system.kind),
        .system_params = s->system_params,
        .place = sim_place_find(cfg->scheduler.policy),
        .place_params = s->place_params,
        .admit = sim_admit_find(cfg->admission.policy),
        .admit_params = s->admit_params,
        .pd = {
            .n_prefill = (int)cfg->cluster.prefill, .n_decode = (int)cfg->cluster.decode,
            .decode_max_batch = cfg->cluster.decode_max_batch,
            .decode_load_layerwise = (int)cfg->cluster.decode_load_layerwise,
            .prefill_group = (int)cfg->cluster.prefill_group,
            .prefill_chunk_tok = cfg->cluster.prefill_chunk,
            .inline_prefill = (int)cfg->cluster.inline_prefill,
            .inline_stall_ns = inline_stall_ns,
            .schedule_ns = schedule_ns,
        },
        .pool = {
            .policy = cfg->cache.enabled ? sim_evict_find(cfg->cache.policy) : NULL,
            .policy_params = s->evict_params,
            .dram_blocks = tier_blocks(cfg->cache.dram_tokens, hw->dram_pool_bytes, s->llm),
            .ssd_blocks = tier_blocks(cfg->cache.ssd_tokens, hw->ssd_bytes, s->llm),
            .dram_load_bytes_per_s =
                cfg->cache.dram_load_gbs > 0 ? cfg->cache.dram_load_gbs * 1e9 : hw->h2d_bytes_per_s,
            .ssd_read_bytes_per_s = cfg->cache.ssd_read_gbs > 0 ? cfg->cache.ssd_read_gbs * 1e9
                                                                : hw->ssd_read_bytes_per_s,
            .store_overhead_ns = store_ns,
            .hot_fetches = (int)cfg->cache.hot_fetches,
            .hot_replicas = (int)cfg->cache.hot_replicas,
        },
        .net = {.profile = &s->prof, .nic_bytes_per_s = s->nic_bytes_per_s},
        .vram_reserve_frac = cfg->cluster.vram_reserve_frac,
        .cache_global = strcmp(cfg->cache.scope, "global") == 0,
        .ts_interval_ns = ts_ns,
        .seed = (uint64_t)cfg->seed,
        .slo_ttft_ns = ttft_ns,
        .slo_tbt_ns = tbt_ns,
        .debug = {.decode_step = cfg->debug.decode_step,
                  .place_scan = cfg->debug.place_scan,
                  .view_check = cfg->debug.view_check},
    };
    return 0;
}

/* The summary of a finished run (new reference). */
static json_t *run_summary(const sim_config_t *cfg, run_state_t *s, const sim_run_result_t *res)
{
    json_t *simj = json_object();
    json_object_set_new(simj, "events", json_integer((json_int_t)res->events));
    json_object_set_new(simj, "seed", json_integer((json_int_t)cfg->seed));
    json_object_set_new(simj, "version", json_string(sim_version));
    json_object_set_new(simj, "cost_model", json_string(model_cost_name(s->cost)));
    json_object_set_new(simj, "cost_source", json_string(model_cost_source(s->cost)));
    json_object_set_new(simj, "decode_kv_capacity_tokens",
                        json_integer(sim_cluster_decode_kv_cap_tok(s->cl)));
    json_t *cache = sim_kvpool_summary_json(sim_cluster_kvpool(s->cl), cfg->cache.policy);
    return sim_metrics_summary(s->m, cache, sim_net_summary_json(sim_cluster_net(s->cl), &s->prof),
                               simj);
}

/* summary.json, config.json and timing.json beside the CSVs, then every
 * file committed. 0 or -1. */
static int write_outputs(run_state_t *s, const sim_run_result_t *res,
                         sim_err_t *err)
{
    /* timing.json: the one output that is not a function of the inputs,
     * kept apart so summaries compare with cmp. */
    json_t *tj = json_object();
    json_object_set_new(tj, "wall_s", json_real(res->wall_s));
    json_object_set_new(tj, "cpu_s", json_real(sim_thread_cpu_s() - s->cpu0));
    json_object_set_new(tj, "peak_rss_mib", json_real(sim_peak_rss_mib()));
    json_object_set_new(tj, "events", json_integer((json_int_t)res->events));
    json_object_set_new(tj, "events_per_s",
                        json_real(res->wall_s > 0 ? (double)res->events / res->wall_s : 0));
    int bad = sim_out_dir_open(&s->dir, &s->fsum, "summary.json", err) != 0 ||
              sim_out_dir_open(&s->dir, &s->fcfg, "config.json", err) != 0 ||
              sim_out_dir_open(&s->dir, &s->ftim, "timing.json", err) != 0;
    /* A failed write names its file and the reason (sim_out_fail). */
    if (!bad && sim_json_write(s->fsum.f, s->summary) != 0)
        bad = sim_out_fail(&s->fsum, err) != 0;
    if (!bad && sim_json_write_exact(s->fcfg.f, s->eff) != 0)
        bad = sim_out_fail(&s->fcfg, err) != 0;
    if (!bad && sim_json_write(s->ftim.f, tj) != 0)
        bad = sim_out_fail(&s->ftim, err) != 0;
    json_decref(tj);
    if (bad || sim_out_commit(&s->csv, err) != 0 || sim_out_commit(&s->tsf, err) != 0 ||
        sim_out_commit(&s->fsum, err) != 0 || sim_out_commit(&s->fcfg, err) != 0 ||
        sim_out_commit(&s->ftim, err) != 0)
        return -1;
    return sim_out_dir_commit(&s->dir, err);
}

/* Simulate with the run's cluster: res's wall time, events and counts. 0,
 * or -1 when the trace fails mid-run. */
static int simulate(const sim_run_opts_t *o, run_state_t *s, sim_run_result_t *res,
                    sim_err_t *err)
{
    double t0 = sim_mono_s();
    sim_cluster_attach_trace(s->cl, s->trace);
    int show = o->progress && isatty(STDERR_FILENO);
    if (sim_cluster_run(s->cl, show ? progress_line : NULL, NULL, err) != 0) {
        if (show)
            fputc('\n', stderr);
        return -1;
    }
    if (show)
        fprintf(stderr, "\r%70s\r", "");
    res->wall_s = sim_mono_s() - t0;
    res->events = sim_cluster_events(s->cl);
    res->counts = sim_metrics_counts(s->m);
    return 0;
}

static void run_close(run_state_t *s)
{
    sim_out_abort(&s->csv);
    sim_out_abort(&s->tsf);
    sim_out_abort(&s->fsum);
    sim_out_abort(&s->fcfg);
    sim_out_abort(&s->ftim);
    sim_out_dir_abort(&s->dir); /* a no-op once published */
    json_decref(s->summary);
    json_decref(s->eff);
    sim_cluster_free(s->cl);
    sim_timeline_abort(s->tl);
    sim_free(s->system_params);
    sim_free(s->place_params);
    sim_free(s->admit_params);
    sim_free(s->evict_params);
    sim_metrics_free(s->m);
    trace_close(s->trace);
    model_cost_free(s->cost);
}

int sim_run(const sim_config_t *cfg, const sim_run_opts_t *o, sim_run_result_t *res,
            sim_err_t *err)
{
    const char *src = o->config_src ? o->config_src : "config";
    memset(res, 0, sizeof *res);
    if (sim_config_validate(cfg, src, err) != 0)
        return -1;
    run_state_t s = {.hw = model_hw_find(cfg->hardware), .llm = model_llm_find(cfg->model),
                     .cpu0 = sim_thread_cpu_s()};
    s.nic_bytes_per_s = cfg->network.nic_gbps > 0 ? cfg->network.nic_gbps * 1e9 / 8
                                                  : model_hw_nic_bytes_per_s(s.hw);
    int rc = -1;
    if (run_inputs(cfg, o, src, &s, err) != 0)
        goto done;
    if (o->out_dir) {
        s.eff = sim_config_to_json(cfg);
        /* Begun (the directory locked) before the check: a run published
         * between the two would be replaced unchecked. */
        if (record_inputs(cfg, src, s.read, s.eff, o->warn ? o->warn : stderr, err) != 0 ||
            sim_out_dir_begin(&s.dir, o->out_dir, sim_run_out_names, err) != 0 ||
            (!o->force && check_out_dir(o->out_dir, s.eff, err) != 0) ||
            sim_out_dir_open(&s.dir, &s.csv, "requests.csv", err) != 0 ||
            sim_out_dir_open(&s.dir, &s.tsf, "timeseries.csv", err) != 0)
            goto done;
    }
    s.m = sim_metrics_new(o->out_dir ? s.csv.f : o->requests, cfg->slo.ttft_s, cfg->slo.tbt_s);
    sim_cluster_args_t ka;
    if (cluster_args(cfg, &s, src, &ka, err) != 0)
        goto done;
    s.cl = sim_cluster_new(&ka, s.m, err);
    if (!s.cl) {
        prefix_src(err, src); /* "$.model, $.cluster.vram_reserve_frac: ..." */
        goto done;
    }
    int ts_np, ts_nd;
    sim_cluster_ts_cols(s.cl, &ts_np, &ts_nd);
    sim_metrics_set_timeseries(s.m, s.tsf.f, ts_np, ts_nd);
    if (o->timeline) {
        s.tl = sim_timeline_open(o->timeline, &o->timeline_window, cfg->slo.ttft_s,
                                 cfg->slo.tbt_s, err);
        if (!s.tl)
            goto done;
        sim_cluster_set_obs(s.cl, sim_timeline_obs(s.tl));
    }
    if (simulate(o, &s, res, err) != 0) {
        prefix_src(err, src); /* "$.metrics.interval_s: ..."; trace errors hold their file */
        goto done;
    }
    if (s.tl) { /* committed before the result directory */
        sim_timeline_t *tl = s.tl;
        s.tl = NULL;
        if (sim_timeline_commit(tl, err) != 0)
            goto done;
    }
    s.summary = run_summary(cfg, &s, res);
    if (o->out_dir && write_outputs(&s, res, err) != 0)
        goto done;
    res->cpu_s = sim_thread_cpu_s() - s.cpu0;
    res->summary = s.summary;
    s.summary = NULL;
    rc = 0;
done:
    run_close(&s);
    return rc;
}
