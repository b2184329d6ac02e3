/* sim/cli/main.c: the mooncake-sim command line. Subcommands run, trace,
 * search, compare, calib and bench live here, sweep and capacity in
 * sim/cli/cmd.c and check in sim/exp/check.c (sim_check_cmd); each declares
 * its options in one table (sim/core/opts.h) that drives both parsing and
 * --help, and the shared option parser prints option errors and --help.
 *
 * Who prints: the command drivers (this file's, cmd.c's and
 * sim_check_cmd) print every error message and return the process's exit
 * status to main: 2 for bad input (config, trace, CLI), 1 for other
 * failures. Library code below them returns its errors in a sim_err_t and
 * writes to stderr only progress lines (run, search, and sweep with each
 * failed point as it happens; off with --quiet) and the warning that a
 * recorded input file changed (sim/exp/run.c); a failed internal
 * assertion or allocation prints and aborts (sim/core/util.c). Nothing in
 * the simulator calls exit(): the process ends by returning from main, or
 * on a signal in the output cleanup's handler (sim/exp/out.c). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "calib/fit.h"
#include "calib/report.h"
#include "calib/tcp.h"
#include "sim/exp/check.h"
#include "sim/exp/compare.h"
#include "sim/exp/config.h"
#include "sim/core/jsonx.h"
#include "sim/cli/cmd.h"
#include "sim/core/opts.h"
#include "sim/exp/out.h"
#include "sim/exp/run.h"
#include "sim/exp/search.h"
#include "traces/trace.h"


#define EXIT_USAGE 2

/* Print e; the exit status: 1 for a failure of the system (e->io: a
 * write, fsync or rename of an output), 2 for bad input. */
static int fail_err(const sim_err_t *e)
{
    fprintf(stderr, "mooncake-sim: %s\n", e->msg);
    return e->io ? 1 : EXIT_USAGE;
}

/* The ids of the options of this file's commands; each command's table
 * (sim/core/opts.h) holds those it takes. */
enum opt_id {
    OPT_HELP, OPT_OUT, OPT_FORCE, OPT_SEED, OPT_SET, OPT_QUIET, OPT_HELP_CONFIG,
    OPT_FORMAT, OPT_POLICY, OPT_CAPS, OPT_BLOCK,
    OPT_LO, OPT_HI, OPT_TOL, OPT_PARAM, OPT_REF, OPT_TTFT_F, OPT_TBT_F, OPT_TTFT_ABS,
    OPT_TBT_ABS, OPT_MIN_REQ, OPT_LIFE, OPT_MAXP,
    OPT_MAX_REGRESS,
    OPT_PLOT, OPT_HARDWARE, OPT_MODEL, OPT_CONNECT, OPT_LISTEN, OPT_SIZES, OPT_ITERS,
    OPT_TRACE, OPT_REPEAT, OPT_STRICT, OPT_TIMELINE, OPT_TIMELINE_WINDOW,
};

/* Root of the built-in data: the directory above the executable's bin/,
 * else the current directory. */
static void data_dir(char *buf, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    snprintf(buf, len, ".");
    if (n <= 0)
        return;
    exe[n] = '\0';
    for (int up = 0; up < 2; up++) {
        char *s = strrchr(exe, '/');
        if (!s)
            return;
        *s = '\0';
    }
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s/models/calib", exe);
    if (access(probe, R_OK) == 0)
        snprintf(buf, len, "%s", exe);
}

/* ---- run ---- */

/* A --set argument just parsed (arg) checked against the word after it,
 * argv[optind]: getopt has not moved that word yet. -1 when it holds an
 * '=', else the exit status after the message. */
static int set_arg_error(const char *arg, int argc, char **argv)
{
    sim_err_t err;
    if (sim_config_check_set_arg(arg, optind < argc ? argv[optind] : NULL, &err) == 0)
        return -1;
    return fail_err(&err);
}

/* Load path and apply --set overrides and --seed; 0 or -1. */
static int load_config(sim_config_t *cfg, const char *path, const char **sets, int n_sets,
                       const char *seed, sim_err_t *err)
{
    sim_config_defaults(cfg);
    if (sim_config_load(cfg, path, err) != 0)
        return -1;
    for (int i = 0; i < n_sets; i++)
        if (sim_config_set(cfg, sets[i], err) != 0)
            return -1;
    return seed ? sim_config_set_seed(cfg, seed, err) : 0;
}


static const char run_usage[] =
    "usage: mooncake-sim run EXP.json [options]\n"
    "Simulate one experiment and write DIR/summary.json (the metrics), requests.csv\n"
    "(one row per request), timeseries.csv (every metrics.interval_s; a header only\n"
    "when 0), config.json (the effective config, which reruns it) and timing.json\n"
    "(wall and CPU time, events; not a result). See docs/outputs.md.\n"
    "A DIR whose config.json is another experiment's is refused (exit 2) unless --force.\n\n";

static const sim_opt_t run_opts[] = {
    {OPT_OUT, "out", 'o', "DIR", "output directory (default results/<name>)"},
    {OPT_FORCE, "force", 'f', NULL, "overwrite DIR even if it holds a different experiment"},
    {OPT_SEED, "seed", 's', "N", "master seed (overrides the config's seed)"},
    {OPT_SET, "set", 'S', "PATH=VAL", "override one config value (repeatable)"},
    {OPT_QUIET, "quiet", 'q', NULL, "no table on stdout, no progress line"},
    {OPT_TIMELINE, "timeline", 0, "FILE",
     "also write a Perfetto timeline (Trace Event JSON; zstd when FILE\n"
     "ends in .zst; docs/timeline.md); other outputs are unchanged"},
    {OPT_TIMELINE_WINDOW, "timeline-window", 0, "W",
     "what it covers: requests:A-B, time:X-Ys or all\n(default " SIM_TIMELINE_DEFAULT_WINDOW ")"},
    {OPT_HELP, "help", 'h', NULL, "this help; --help-config lists every config key"},
    {OPT_HELP_CONFIG, "help-config", 0, NULL, NULL}, /* named in --help's line */
    {0},
};

static void print_table(const json_t *s, double wall_s, const sim_config_t *cfg, const char *out)
{
    const json_t *rq = json_object_get(s, "requests"), *tt = json_object_get(s, "ttft_s"),
                 *tb = json_object_get(s, "tbt_s"), *slo = json_object_get(s, "slo"),
                 *sim = json_object_get(s, "sim");
#define NUM(o, k) json_number_value(json_object_get((o), (k)))
#define INT(o, k) (long long)json_integer_value(json_object_get((o), (k)))
    printf("mooncake-sim: %s  (%lldP + %lldD, %s on %s, %s, %s)\n", cfg->name,
           (long long)cfg->cluster.prefill, (long long)cfg->cluster.decode, cfg->model,
           cfg->hardware, cfg->scheduler.policy, cfg->admission.policy);
    printf("  requests     %lld total, %lld completed, %lld rejected at arrival, %lld after "
           "prefill\n",
           INT(rq, "total"), INT(rq, "completed"), INT(rq, "rejected_at_arrival"),
           INT(rq, "rejected_after_prefill"));
    printf("  TTFT s       mean %.3f  p50 %.3f  p90 %.3f  p99 %.3f\n", NUM(tt, "mean"),
           NUM(tt, "p50"), NUM(tt, "p90"), NUM(tt, "p99"));
    printf("  TBT s        mean %.4f  p90 %.4f  p99 %.4f\n", NUM(tb, "mean"), NUM(tb, "p90"),
           NUM(tb, "p99"));
    printf("  throughput   %.3f req/s   goodput %.3f req/s\n", NUM(s, "throughput_rps"),
           NUM(s, "goodput_rps"));
    printf("  SLO          TTFT <= %g s, TBT <= %g s: attainment %.4f, effective capacity "
           "%.4f\n",
           NUM(slo, "ttft_s"), NUM(slo, "tbt_s"), NUM(slo, "attainment"),
           NUM(slo, "effective_request_capacity"));
    const json_t *cache = json_object_get(s, "cache");
    if (cache)
        printf("  KVCache      %s, token hit rate %.3f (DRAM %.3f, SSD %.3f)\n",
               json_string_value(json_object_get(cache, "policy")), NUM(cache, "hit_rate_tokens"),
               NUM(cache, "hit_rate_dram"), NUM(cache, "hit_rate_ssd"));
    else
        printf("  KVCache      off\n");
    printf("  simulation   %lld events in %.3f s wall (seed %lld)\n", INT(sim, "events"),
           wall_s, INT(sim, "seed"));
    if (out)
        printf("  results      %s/\n", out);
#undef NUM
#undef INT
}

static int cmd_run(int argc, char **argv)
{
    const char *out = NULL, *seed = NULL, *arg, *timeline = NULL;
    const char *window = SIM_TIMELINE_DEFAULT_WINDOW;
    const char **sets = calloc((size_t)argc, sizeof *sets);
    int n_sets = 0, quiet = 0, force = 0, id, rc = -1;
    if (!sets)
        return 1;
    sim_opts_t *op = sim_opts_new(run_opts, argc, argv);
    while (rc < 0 && (id = sim_opts_next(op, &arg)) != SIM_OPTS_END) {
        switch (id) {
        case OPT_OUT: out = arg; break;
        case OPT_FORCE: force = 1; break;
        case OPT_SEED: seed = arg; break;
        case OPT_SET:
            sets[n_sets++] = arg;
            rc = set_arg_error(arg, argc, argv);
            break;
        case OPT_QUIET: quiet = 1; break;
        case OPT_TIMELINE: timeline = arg; break;
        case OPT_TIMELINE_WINDOW: window = arg; break;
        case OPT_HELP: rc = sim_opts_help(run_usage, run_opts, ""); break;
        case OPT_HELP_CONFIG: sim_config_print_schema(stdout); rc = 0; break;
        default: rc = sim_opts_usage_error("run", "bad option"); break;
        }
    }
    sim_opts_free(op);
    if (rc < 0 && optind != argc - 1)
        rc = sim_opts_usage_error("run", "expected exactly one experiment file");
    if (rc >= 0) {
        free(sets);
        return rc;
    }
    const char *path = argv[optind];
    sim_config_t *cfg = malloc(sizeof *cfg);
    sim_err_t err;
    sim_run_result_t res;
    char dd[PATH_MAX], outbuf[PATH_MAX + 16];
    if (!cfg) {
        free(sets);
        return 1;
    }
    sim_timeline_window_t tw;
    if (sim_timeline_window_parse(window, &tw, &err) != 0 ||
        load_config(cfg, path, sets, n_sets, seed, &err) != 0)
        goto bad;
    if (!out) {
        snprintf(outbuf, sizeof outbuf, "results/%s", cfg->name);
        out = outbuf;
    }
    data_dir(dd, sizeof dd);
    sim_run_opts_t ro = {.config_src = path, .out_dir = out, .data_dir = dd, .progress = !quiet,
                         .force = force, .timeline = timeline, .timeline_window = tw};
    if (sim_run(cfg, &ro, &res, &err) != 0)
        goto bad;
    if (!quiet)
        print_table(res.summary, res.wall_s, cfg, out);
    json_decref(res.summary);
    rc = 0;
    goto done;
bad:
    rc = fail_err(&err);
done:
    free(cfg);
    free(sets);
    return rc;
}

/* ---- trace ---- */

static const char trace_usage[] =
    "usage: mooncake-sim trace stats FILE [--format NAME] [--block-size N]\n"
    "       mooncake-sim trace cache FILE [--policy NAME]\n"
    "                                     --capacity-tokens N[,N...] [--format NAME]\n"
    "                                     [--block-size N]\n"
    "       mooncake-sim trace gen EXP.json [--out FILE] [--set PATH=VAL]... [--seed N]\n"
    "stats: statistics of a trace file (Mooncake JSONL or Azure CSV, plain or zstd) as JSON.\n"
    "cache: token-weighted prefix hit rate of one global KVCache pool per capacity\n"
    "       (tokens; inf = unlimited), replayed without timing; prints JSON.\n"
    "gen:   write the trace an experiment replays (its generator, or its file converted)\n"
    "       as Mooncake JSONL, with the experiment's speed and limit applied.\n\n";

static const sim_opt_t trace_opts[] = {
    {OPT_FORMAT, "format", 'f', "NAME", "stats, cache: auto (default), mooncake or azure"},
    {OPT_BLOCK, "block-size", 'b', "N",
     "stats, cache: tokens per hash id of a Mooncake file, a divisor of 512 (default 512)"},
    {OPT_POLICY, "policy", 'p', "NAME", "cache: eviction policy (default lru; the names: run --help-config)"},
    {OPT_CAPS, "capacity-tokens", 'c', "LIST",
     "cache: comma-separated capacities in tokens or inf"},
    {OPT_OUT, "out", 'o', "FILE", "gen: output file, written atomically (default stdout)"},
    {OPT_SET, "set", 'S', "PATH=VAL", "gen: override one config value (repeatable)"},
    {OPT_SEED, "seed", 's', "N", "gen: master seed"},
    {OPT_HELP, "help", 'h', NULL, "this help"},
    {0},
};

static int trace_gen(const char *exp, const char *out, const char **sets, int n_sets,
                     const char *seed)
{
    sim_config_t *cfg = malloc(sizeof *cfg);
    sim_err_t err;
    char tpath[SIM_CFG_PATH];
    trace_open_args_t ta;
    sim_out_file_t o = {0};
    int rc = EXIT_USAGE;
    if (!cfg)
        return 1;
    if (load_config(cfg, exp, sets, n_sets, seed, &err) != 0 ||
        sim_config_validate(cfg, exp, &err) != 0 ||
        sim_config_trace_args(cfg, exp, tpath, sizeof tpath, &ta, &err) != 0)
        goto bad;
    if (out && sim_out_open_path(&o, out, &err) != 0)
        goto bad;
    FILE *dst = out ? o.f : stdout;
    if (trace_write_jsonl(&ta, dst, &err) != 0) {
        if (ferror(dst) && out) /* the write failed, not the trace: say why */
            sim_out_fail(&o, &err);
        else if (ferror(dst))
            sim_out_flush_stream(stdout, "stdout", &err);
        else if (strncmp(err.msg, "$.", 2) == 0) {
            sim_err_t e = err;
            sim_errf(&err, "%s: %s", exp, e.msg);
        }
        goto bad;
    }
    if (out ? sim_out_commit(&o, &err) != 0 : sim_out_flush_stream(stdout, "stdout", &err) != 0)
        goto bad;
    rc = 0;
    goto done;
bad:
    sim_out_abort(&o);
    rc = fail_err(&err);
done:
    free(cfg);
    return rc;
}

/* Parse "N[,N...]" of token capacities ("inf" = -1, 1e6 allowed). */
static int parse_caps(const char *opt, const char *list, int64_t *caps, size_t max, size_t *n,
                      sim_err_t *err)
{
    *n = 0;
    const char *p = list;
    while (*p) {
        char item[64], *end;
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof item || *n == max)
            return sim_errf(err, "%s %s: expected N[,N...] (at most %zu)", opt, list, max);
        memcpy(item, p, len);
        item[len] = '\0';
        if (strcmp(item, "inf") == 0) {
            caps[(*n)++] = -1;
        } else {
            double v = strtod(item, &end);
            if (*end || !(v >= 0) || v > 9e15 || v != (double)(int64_t)v)
                return sim_errf(err, "%s: '%s' is not a count or inf", opt, item);
            caps[(*n)++] = (int64_t)v;
        }
        p += len + (p[len] == ',');
    }
    if (*n == 0)
        return sim_errf(err, "%s: expected at least one value", opt);
    return 0;
}

static int trace_cache(const char *path, const char *fmt, int64_t block_tok, const char *policy,
                       const char *list)
{
    enum { MAX_CAPS = 64 };
    int64_t caps[MAX_CAPS];
    double rate[MAX_CAPS];
    size_t n;
    sim_err_t err;
    if (!list) {
        sim_errf(&err, "trace cache: --capacity-tokens is required");
        return fail_err(&err);
    }
    if (parse_caps("--capacity-tokens", list, caps, MAX_CAPS, &n, &err) != 0)
        return fail_err(&err);
    trace_open_args_t ta = {.path = path, .format = fmt, .speed = 1, .block_tok = block_tok};
    if (trace_cache_analysis(&ta, policy, caps, n, rate, &err) != 0)
        return fail_err(&err);
    json_t *o = json_object();
    for (size_t i = 0; i < n; i++) {
        char k[32];
        if (caps[i] < 0)
            snprintf(k, sizeof k, "inf");
        else
            snprintf(k, sizeof k, "%lld", (long long)caps[i]);
        json_object_set_new(o, k, json_real(rate[i]));
    }
    sim_json_write(stdout, o); /* a failed write shows in the flush */
    json_decref(o);
    return sim_out_flush_stream(stdout, "stdout", &err) != 0 ? fail_err(&err) : 0;
}

static int cmd_trace(int argc, char **argv)
{
    const char *fmt = "auto", *out = NULL, *seed = NULL, *policy = "lru", *caps = NULL, *arg;
    int64_t block_tok = 0;
    const char **sets = calloc((size_t)argc, sizeof *sets);
    int n_sets = 0, id, rc = -1;
    if (!sets)
        return 1;
    sim_opts_t *op = sim_opts_new(trace_opts, argc, argv);
    while (rc < 0 && (id = sim_opts_next(op, &arg)) != SIM_OPTS_END) {
        switch (id) {
        case OPT_FORMAT: fmt = arg; break;
        case OPT_BLOCK: {
            char *end;
            long long v = strtoll(arg, &end, 10);
            if (end == arg || *end || v < 1 || v > 512 || 512 % v != 0) {
                rc = sim_opts_usage_error("trace", "--block-size: expected a divisor of 512");
                break;
            }
            block_tok = v;
            break;
        }
        case OPT_POLICY: policy = arg; break;
        case OPT_CAPS: caps = arg; break;
        case OPT_OUT: out = arg; break;
        case OPT_SET:
            sets[n_sets++] = arg;
            rc = set_arg_error(arg, argc, argv);
            break;
        case OPT_SEED: seed = arg; break;
        case OPT_HELP: rc = sim_opts_help(trace_usage, trace_opts, ""); break;
        default: rc = sim_opts_usage_error("trace", "bad option"); break;
        }
    }
    sim_opts_free(op);
    if (rc >= 0)
        goto done;
    if (argc - optind == 2 && strcmp(argv[optind], "stats") == 0) {
        trace_open_args_t ta = {.path = argv[optind + 1], .format = fmt, .speed = 1,
                                .block_tok = block_tok};
        sim_err_t err;
        rc = trace_stats(&ta, stdout, &err) != 0 ? fail_err(&err) : 0;
    } else if (argc - optind == 2 && strcmp(argv[optind], "cache") == 0) {
        rc = trace_cache(argv[optind + 1], fmt, block_tok, policy, caps);
    } else if (argc - optind == 2 && strcmp(argv[optind], "gen") == 0) {
        rc = trace_gen(argv[optind + 1], out, sets, n_sets, seed);
    } else {
        rc = sim_opts_usage_error("trace", "expected 'stats FILE', 'cache FILE' or 'gen EXP.json'");
    }
done:
    free(sets);
    return rc;
}

/* ---- search ---- */

static const char search_usage[] =
    "usage: mooncake-sim search EXP.json --lo X [options]\n"
    "Sustained capacity: the highest value of one config parameter (default the\n"
    "arrival rate, trace.generator.rate_rps) at which EXP meets the arXiv paper's SLO,\n"
    "P90 TTFT and P90 TBT (summary.json ttft_s.p90, tbt_s.p90) within 10x and 5x of\n"
    "what a reference run measures at the lower bound.\n"
    "The reference (REF, default EXP) runs first at X. Then EXP runs at X, which must\n"
    "pass (else the capacity is none, exit 0), at Y, doubled while it passes, and\n"
    "at midpoints until (hi - lo) / lo <= T; the capacity is the last passing value.\n"
    "Steady state, not a transient backlog: a run of a generated trace has\n"
    "max(N, ceil(K x L x rate)) requests (trace.generator.requests), L being the\n"
    "mean request lifetime (arrival to completion) in the reference run at X, so it\n"
    "lasts K lifetimes or more. A run also fails when it completes no request or\n"
    "rejects over 10% of them. Writes DIR/probes.csv (one row per run of EXP) and\n"
    "DIR/search.json; prints one line. Same inputs, same outputs, byte for byte.\n\n";

static const sim_opt_t search_opts[] = {
    {OPT_LO, "lo", 'l', "X", "lower bound, the lowest tested value (required, > 0)"},
    {OPT_HI, "hi", 'H', "Y", "first upper bound tried (default 2 X)"},
    {OPT_TOL, "tol", 't', "T", "relative tolerance (default 0.02)"},
    {OPT_PARAM, "param", 'p', "P",
     "numeric config key searched (default trace.generator.rate_rps)"},
    {OPT_REF, "ref", 'r', "REF.json",
     "reference experiment whose P90s at X set the thresholds\n(default EXP itself)"},
    {OPT_TTFT_F, "ttft-factor", 0, "F", "P90 TTFT threshold = F x the reference's (default 10)"},
    {OPT_TBT_F, "tbt-factor", 0, "F", "P90 TBT threshold = F x the reference's (default 5)"},
    {OPT_TTFT_ABS, "ttft-p90", 0, "S",
     "absolute P90 TTFT threshold, seconds (instead of the factor)"},
    {OPT_TBT_ABS, "tbt-p90", 0, "S", "absolute P90 TBT threshold, seconds (instead of the factor)"},
    {OPT_MIN_REQ, "min-requests", 0, "N", "N: fewest requests in a run (default 1500)"},
    {OPT_LIFE, "lifetimes", 0, "K", "K: mean lifetimes a run lasts at least (default 10)"},
    {OPT_MAXP, "max-probes", 0, "N", "hard cap on runs of EXP, bracketing included (default 20)"},
    {OPT_SET, "set", 'S', "PATH=VAL", "override one config value of EXP and REF (repeatable)"},
    {OPT_SEED, "seed", 's', "N", "master seed of EXP and REF"},
    {OPT_OUT, "out", 'o', "DIR", "output directory (default results/<name>-search)"},
    {OPT_QUIET, "quiet", 'q', NULL, "no progress lines on stderr"},
    {OPT_HELP, "help", 'h', NULL, "this help"},
    {0},
};

/* search's command line as given. */
typedef struct search_cli {
    sim_search_slo_args_t a;
    const char *out, *seed, *ref_path, *lo_text, *hi_text;
    const char **sets; /* n_sets of them */
    int n_sets, quiet;
    double min_req, max_probes;
} search_cli_t;

/* text as a number in [min, max] (integer when integer); 0 or -1. */
static int opt_num(const char *opt, const char *text, double min, double max, int integer,
                   double *out, sim_err_t *err)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !(v >= min && v <= max) || (integer && v != floor(v)))
        return sim_errf(err, "--%s %s: expected %s in [%g, %g]", opt, text,
                        integer ? "an integer" : "a number", min, max);
    *out = v;
    return 0;
}

/* --lo / --hi: a finite value > 0 (an integer for an integer key). */
static int opt_bound(const char *opt, const char *text, int integer, double *out, sim_err_t *err)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !(v > 0) || !isfinite(v) || (integer && v != floor(v)))
        return sim_errf(err, "--%s %s: expected %s > 0", opt, text,
                        integer ? "an integer (the parameter is one)" : "a number");
    *out = v;
    return 0;
}

/* One option of search (sim_opts_next's id and arg) into c: -1 to go on,
 * else the exit status (--help, a bad option or value). */
static int search_opt(search_cli_t *c, int id, const char *arg)
{
    const sim_opt_t *o = sim_opts_find(search_opts, id);
    sim_search_slo_args_t *a = &c->a;
    sim_err_t err;
    int bad = 0;
    switch (id) {
    case OPT_LO: c->lo_text = arg; break;
    case OPT_HI: c->hi_text = arg; break;
    case OPT_TOL: bad = opt_num(o->name, arg, 1e-6, 1, 0, &a->bisect.tol, &err); break;
    case OPT_PARAM: a->param = arg; break;
    case OPT_REF: c->ref_path = arg; break;
    case OPT_SET: c->sets[c->n_sets++] = arg; break;
    case OPT_SEED: c->seed = arg; break;
    case OPT_OUT: c->out = arg; break;
    case OPT_QUIET: c->quiet = 1; break;
    case OPT_HELP: return sim_opts_help(search_usage, search_opts, "");
    case OPT_TTFT_F: bad = opt_num(o->name, arg, 1e-9, 1e9, 0, &a->ttft_factor, &err); break;
    case OPT_TBT_F: bad = opt_num(o->name, arg, 1e-9, 1e9, 0, &a->tbt_factor, &err); break;
    case OPT_TTFT_ABS: bad = opt_num(o->name, arg, 1e-9, 1e9, 0, &a->ttft_p90_s, &err); break;
    case OPT_TBT_ABS: bad = opt_num(o->name, arg, 1e-9, 1e9, 0, &a->tbt_p90_s, &err); break;
    case OPT_MIN_REQ: bad = opt_num(o->name, arg, 1, 1e9, 1, &c->min_req, &err); break;
    case OPT_LIFE: bad = opt_num(o->name, arg, 0, 1e6, 0, &a->lifetimes, &err); break;
    case OPT_MAXP: bad = opt_num(o->name, arg, 2, 1000, 1, &c->max_probes, &err); break;
    default: return sim_opts_usage_error("search", "bad option");
    }
    return bad ? fail_err(&err) : -1;
}

/* search's options and operand into c (c->sets has room for argc): -1 to
 * go on, else the exit status. */
static int search_parse(int argc, char **argv, search_cli_t *c)
{
    const char *arg;
    int id, rc = -1;
    sim_opts_t *op = sim_opts_new(search_opts, argc, argv);
    while (rc < 0 && (id = sim_opts_next(op, &arg)) != SIM_OPTS_END)
        rc = id == OPT_SET && set_arg_error(arg, argc, argv) >= 0 ? EXIT_USAGE
                                                                 : search_opt(c, id, arg);
    sim_opts_free(op);
    if (rc >= 0)
        return rc;
    if (optind != argc - 1)
        return sim_opts_usage_error("search", "expected exactly one experiment file");
    if (!c->lo_text)
        return sim_opts_usage_error("search", "--lo is required");
    c->a.exp_src = argv[optind];
    c->a.ref_src = c->ref_path ? c->ref_path : c->a.exp_src;
    c->a.min_requests = (int64_t)c->min_req;
    c->a.bisect.max_probes = (int)c->max_probes;
    c->a.progress = !c->quiet;
    return -1;
}

/* --param, --lo and --hi against the parameter's type; 0 or -1. */
static int search_check(search_cli_t *c, sim_err_t *err)
{
    sim_search_slo_args_t *a = &c->a;
    sim_config_type_t pt = sim_config_type(a->param);
    a->bisect.integer = pt == SIM_CFG_INT;
    if (pt == SIM_CFG_NONE)
        return sim_errf(err, "--param %s: unknown config key (see 'mooncake-sim run "
                             "--help-config')", a->param);
    if (pt == SIM_CFG_STRING || strcmp(a->param, "trace.generator.requests") == 0)
        return sim_errf(err, "--param %s: %s", a->param,
                        pt == SIM_CFG_STRING ? "not a numeric config key"
                                             : "the search sets it itself (see --min-requests)");
    if (opt_bound("lo", c->lo_text, a->bisect.integer, &a->bisect.lo, err) != 0 ||
        (c->hi_text && opt_bound("hi", c->hi_text, a->bisect.integer, &a->bisect.hi, err) != 0))
        return -1;
    if (c->hi_text && !(a->bisect.hi > a->bisect.lo))
        return sim_errf(err, "--hi %s: must be above --lo %s", c->hi_text, c->lo_text);
    a->bisect.max = sim_config_max(a->param);
    return 0;
}

/* The line search prints on stdout. */
static void search_report(const sim_search_slo_args_t *a, const sim_search_slo_t *res,
                          const char *out)
{
    const sim_search_result_t *r = &res->search;
    if (r->at_bound)
        printf("search: %s capacity >= %.9g, the key's range bound (within the SLO there; %d "
               "probes; P90 TTFT <= %.4g s, P90 TBT <= %.4g s); results in %s/\n",
               a->param, r->capacity, r->n_probes, res->ttft_max_s, res->tbt_max_s, out);
    else if (r->found)
        printf("search: %s capacity %.9g (bracket [%.9g, %.9g], tolerance %g, %d probes; P90 TTFT "
               "<= %.4g s, P90 TBT <= %.4g s); results in %s/\n",
               a->param, r->capacity, r->lo, r->hi, a->bisect.tol, r->n_probes, res->ttft_max_s,
               res->tbt_max_s, out);
    else
        printf("search: %s capacity none: the lower bound %.9g fails (P90 TTFT %.4g s, limit "
               "%.4g s; P90 TBT %.4g s, limit %.4g s); results in %s/\n",
               a->param, r->probes[0].value, r->probes[0].ttft_p90_s, res->ttft_max_s,
               r->probes[0].tbt_p90_s, res->tbt_max_s, out);
}

/* Load EXP (and REF), search, write and report; the exit status. */
static int search_run(search_cli_t *c)
{
    sim_search_slo_args_t *a = &c->a;
    sim_config_t *exp = malloc(sizeof *exp), *ref = malloc(sizeof *ref);
    sim_search_slo_t res = {0};
    sim_err_t err;
    char dd[PATH_MAX], outbuf[PATH_MAX + 16];
    const char *out = c->out;
    int rc = EXIT_USAGE;
    if (!exp || !ref) {
        rc = 1;
        goto done;
    }
    if (search_check(c, &err) != 0)
        goto bad;
    if (load_config(exp, a->exp_src, c->sets, c->n_sets, c->seed, &err) != 0 ||
        sim_config_validate(exp, a->exp_src, &err) != 0)
        goto bad;
    if (c->ref_path && (load_config(ref, c->ref_path, c->sets, c->n_sets, c->seed, &err) != 0 ||
                        sim_config_validate(ref, c->ref_path, &err) != 0))
        goto bad;
    a->exp = exp;
    a->ref = c->ref_path ? ref : exp;
    if (!out) {
        snprintf(outbuf, sizeof outbuf, "results/%s-search", exp->name);
        out = outbuf;
    }
    data_dir(dd, sizeof dd);
    a->data_dir = dd;
    if (sim_search_slo(a, &res, &err) != 0 || sim_search_write(out, a, &res, &err) != 0)
        goto bad;
    search_report(a, &res, out);
    rc = 0;
    goto done;
bad:
    rc = fail_err(&err);
done:
    sim_search_slo_free(&res);
    free(exp);
    free(ref);
    return rc;
}

static int cmd_search(int argc, char **argv)
{
    search_cli_t c = {
        .a = {.param = "trace.generator.rate_rps", .ttft_factor = 10, .tbt_factor = 5,
              .lifetimes = 10, .bisect = {.tol = 0.02}},
        .min_req = 1500, .max_probes = 20,
    };
    c.sets = calloc((size_t)argc, sizeof *c.sets);
    if (!c.sets)
        return 1;
    int rc = search_parse(argc, argv, &c);
    if (rc < 0)
        rc = search_run(&c);
    free(c.sets);
    return rc;
}

/* ---- compare ---- */

static const char compare_usage[] =
    "usage: mooncake-sim compare BASE NEW [--max-regress METRIC=BOUND]... [--quiet]\n"
    "Compare two run summaries metric by metric. BASE and NEW are each a run directory\n"
    "(holding summary.json, as 'run --out DIR' writes) or a summary.json file; or\n"
    "both are sweep directories of the same points (holding sweep.csv), compared\n"
    "point by point with every bound applied to every point (a point that failed\n"
    "in NEW only counts as a violation).\n"
    "Every numeric field is a metric named by its dotted path (ttft_s.p90,\n"
    "slo.attainment, requests.completed, cache.hit_rate_tokens); sim.wall_s, the\n"
    "wall-clock time older versions kept there, is left out. Prints metric, base,\n"
    "new, delta and relative\n"
    "delta for each metric in both, sorted by path, then those in only one, then\n"
    "each bound's outcome.\n"
    "BOUND (the sign is as written; '+' is the same as none):\n"
    "  P%     lower is better: NEW may exceed BASE by at most P% of |BASE|\n"
    "  -P%    higher is better: NEW may fall below BASE by at most P% of |BASE|\n"
    "  D      higher is worse: NEW - BASE may be at most D\n"
    "  -D     lower is worse: BASE - NEW may be at most D\n"
    "Bounds are inclusive, with a relative slack of 1e-9.\n"
    "Exit status: 0 no bound violated, 1 a bound violated (each violation printed),\n"
    "2 bad input (a missing or invalid file, a malformed bound, a metric not in both).\n\n";

static const sim_opt_t compare_opts[] = {
    {OPT_MAX_REGRESS, "max-regress", 'm', "METRIC=BOUND", "a regression bound (repeatable)"},
    {OPT_QUIET, "quiet", 'q', NULL, "print only the violations"},
    {OPT_HELP, "help", 'h', NULL, "this help"},
    {0},
};

static int cmd_compare(int argc, char **argv)
{
    sim_cmp_bound_t *b = calloc((size_t)argc, sizeof *b);
    size_t n_b = 0;
    const char *arg;
    int quiet = 0, id, rc = -1;
    sim_err_t err;
    if (!b)
        return 1;
    sim_opts_t *op = sim_opts_new(compare_opts, argc, argv);
    while (rc < 0 && (id = sim_opts_next(op, &arg)) != SIM_OPTS_END) {
        switch (id) {
        case OPT_MAX_REGRESS:
            if (sim_cmp_parse_bound(arg, &b[n_b++], &err) != 0)
                rc = fail_err(&err);
            break;
        case OPT_QUIET: quiet = 1; break;
        case OPT_HELP: rc = sim_opts_help(compare_usage, compare_opts, ""); break;
        default: rc = sim_opts_usage_error("compare", "bad option"); break;
        }
    }
    sim_opts_free(op);
    if (rc >= 0)
        goto done;
    if (argc - optind != 2) {
        rc = sim_opts_usage_error("compare", "expected BASE and NEW (run directories or summary.json files)");
        goto done;
    }
    rc = sim_cmp_compare(argv[optind], argv[optind + 1], b, n_b, quiet, stdout, &err);
    if (rc < 0)
        rc = fail_err(&err);
done:
    free(b);
    return rc;
}

/* ---- calib ---- */

static const char calib_usage[] =
    "usage: mooncake-sim calib fit MEASUREMENTS.json -o CALIBRATION.json [--plot]\n"
    "       mooncake-sim calib report CALIBRATION.json\n"
    "       mooncake-sim calib roofline --hardware H --model M -o CALIBRATION.json\n"
    "       mooncake-sim calib tcp [--connect HOST:PORT | --listen PORT] [--sizes LIST]\n"
    "                              [--iters N] -o MEASUREMENTS.json\n"
    "fit:      GSL weighted least squares of the prefill and decode models (from end-to-end\n"
    "          points or calib/gpu per-layer times), host-device copies and network time by\n"
    "          size; writes coefficients, R^2, relative errors, OUT.residuals.csv (and .png\n"
    "          with --plot).\n"
    "report:   a calibration's models, errors and predictions beside the paper's points.\n"
    "roofline: a calibration sampled from GPU specs, marked as not measured.\n"
    "tcp:      TCP time by message size, on loopback (default) or between two hosts.\n\n";

static const sim_opt_t calib_opts[] = {
    {OPT_OUT, "out", 'o', "FILE", "file to write (atomically)"},
    {OPT_PLOT, "plot", 'p', NULL, "fit: also draw the residual plot (gnuplot)"},
    {OPT_HARDWARE, "hardware", 'H', "H", "roofline: hardware descriptor"},
    {OPT_MODEL, "model", 'm', "M", "roofline: model descriptor"},
    {OPT_CONNECT, "connect", 'c', "H:P", "tcp: measure to a server on another host"},
    {OPT_LISTEN, "listen", 'l', "PORT", "tcp: be that server"},
    {OPT_SIZES, "sizes", 'z', "LIST",
     "tcp: message sizes in bytes (default 4096,65536,1048576,16777216,67108864)"},
    {OPT_ITERS, "iters", 'n', "N", "tcp: messages per size, median kept (default 10)"},
    {OPT_HELP, "help", 'h', NULL, "this help"},
    {0},
};

/* calib's command line as given. */
typedef struct calib_cli {
    const char *out, *hw, *model, *conn, *sizes;
    int plot, listen_port, iters;
} calib_cli_t;

/* calib's options into c: -1 to go on, else the exit status. */
static int calib_parse(int argc, char **argv, calib_cli_t *c)
{
    const char *arg;
    int id, rc = -1;
    sim_opts_t *op = sim_opts_new(calib_opts, argc, argv);
    while (rc < 0 && (id = sim_opts_next(op, &arg)) != SIM_OPTS_END) {
        switch (id) {
        case OPT_OUT: c->out = arg; break;
        case OPT_PLOT: c->plot = 1; break;
        case OPT_HARDWARE: c->hw = arg; break;
        case OPT_MODEL: c->model = arg; break;
        case OPT_CONNECT: c->conn = arg; break;
        case OPT_LISTEN: c->listen_port = atoi(arg); break;
        case OPT_SIZES: c->sizes = arg; break;
        case OPT_ITERS: c->iters = atoi(arg); break;
        case OPT_HELP: rc = sim_opts_help(calib_usage, calib_opts, ""); break;
        default: rc = sim_opts_usage_error("calib", "bad option"); break;
        }
    }
    sim_opts_free(op);
    return rc;
}

/* calib tcp: time TCP messages by size; the exit status. */
static int calib_tcp(const calib_cli_t *c)
{
    int64_t sz[32] = {4096, 65536, 1048576, 16777216, 67108864};
    size_t n = 5;
    sim_err_t err;
    if (c->sizes && parse_caps("--sizes", c->sizes, sz, 32, &n, &err) != 0)
        return fail_err(&err);
    for (size_t i = 0; i < n; i++)
        if (sz[i] <= 0)
            return sim_opts_usage_error("calib", "--sizes: every size must be > 0 bytes");
    if (c->iters < 1 || c->iters > 100000)
        return sim_opts_usage_error("calib", "--iters: expected 1 to 100000");
    calib_tcp_args_t ta = {.connect = c->conn, .listen_port = c->listen_port, .sizes = sz,
                           .n_sizes = n, .iters = c->iters};
    if (calib_tcp_bench(&ta, c->out, stdout, &err) != 0)
        return fail_err(&err);
    return 0;
}

static int cmd_calib(int argc, char **argv)
{
    calib_cli_t c = {.iters = 10};
    int rc = calib_parse(argc, argv, &c);
    if (rc >= 0)
        return rc;
    sim_err_t err;
    const char *sub = optind < argc ? argv[optind] : "";
    if (!strcmp(sub, "fit") && argc - optind == 2 && c.out) {
        if (calib_fit_file(argv[optind + 1], c.out, stdout, c.plot, &err) != 0)
            return fail_err(&err);
        return 0;
    }
    if (!strcmp(sub, "report") && argc - optind == 2) {
        char dd[PATH_MAX];
        data_dir(dd, sizeof dd);
        if (calib_report(argv[optind + 1], dd, stdout, &err) != 0)
            return fail_err(&err);
        return 0;
    }
    if (!strcmp(sub, "roofline") && argc - optind == 1 && c.out && c.hw && c.model) {
        if (calib_roofline(c.hw, c.model, c.out, stdout, &err) != 0)
            return fail_err(&err);
        return 0;
    }
    if (!strcmp(sub, "tcp") && argc - optind == 1 && (c.out || c.listen_port > 0))
        return calib_tcp(&c);
    return sim_opts_usage_error("calib", "expected 'fit FILE -o OUT', 'report FILE', 'roofline -H H -m M -o "
                                "OUT' or 'tcp -o OUT'");
}

/* ---- bench ---- */

static const char bench_usage[] =
    "usage: mooncake-sim bench [--trace FILE] [--repeat N] [--strict]\n"
    "Replay a whole trace (default: $MOONCAKE_TRACES/conversation_trace.jsonl.zst) on\n"
    "8 prefill + 8 decode a800x8 nodes, with cache-blind placement and with the Conductor,\n"
    "and print wall time, events and events per second; then compare the cJSON and\n"
    "jansson trace parsers, and time the sweep driver against a plain loop of runs.\n\n";

static const sim_opt_t bench_opts[] = {
    {OPT_TRACE, "trace", 't', "FILE", "trace to replay"},
    {OPT_REPEAT, "repeat", 'r', "N", "runs to time (best and median reported; default 5)"},
    {OPT_STRICT, "strict", 0, NULL, "exit 1 when a measurement is over its budget"},
    {OPT_HELP, "help", 'h', NULL, "this help"},
    {0},
};

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* bench's options into tpath (len bytes; the default trace when none) and
 * *repeat: -1 to go on, else the exit status. */
static int bench_parse(int argc, char **argv, char *tpath, size_t len, int *repeat, int *strict)
{
    const char *arg;
    int id, rc = -1;
    sim_opts_t *op = sim_opts_new(bench_opts, argc, argv);
    while (rc < 0 && (id = sim_opts_next(op, &arg)) != SIM_OPTS_END) {
        switch (id) {
        case OPT_TRACE: snprintf(tpath, len, "%s", arg); break;
        case OPT_REPEAT: *repeat = atoi(arg); break;
        case OPT_STRICT: *strict = 1; break;
        case OPT_HELP: rc = sim_opts_help(bench_usage, bench_opts, ""); break;
        default: rc = sim_opts_usage_error("bench", "bad option"); break;
        }
    }
    sim_opts_free(op);
    if (rc >= 0)
        return rc;
    if (*repeat < 1 || *repeat > 1000 || optind != argc)
        return sim_opts_usage_error("bench", "bad arguments");
    if (!tpath[0]) {
        const char *d = getenv("MOONCAKE_TRACES");
        if (!d || !*d) {
            fprintf(stderr, "mooncake-sim bench: set MOONCAKE_TRACES to the folder holding "
                            "conversation_trace.jsonl.zst, or pass --trace FILE\n");
            return EXIT_USAGE;
        }
        snprintf(tpath, len, "%s/conversation_trace.jsonl.zst", d);
        if (access(tpath, R_OK) != 0) /* as `make traces` stores it */
            snprintf(tpath, len, "%s/conversation_trace.jsonl", d);
        if (access(tpath, R_OK) != 0) {
            fprintf(stderr, "mooncake-sim bench: MOONCAKE_TRACES is %s, which holds no "
                            "conversation_trace.jsonl.zst (or .jsonl): set it to the folder "
                            "holding the traces, or pass --trace FILE\n", d);
            return EXIT_USAGE;
        }
    }
    return -1;
}

/* Time repeat runs of tpath on each of two set-ups and print them; 0 or
 * the exit status of a failed run. *over counts the set-ups whose best
 * run is over the 1 s budget. */
static int bench_runs(const char *tpath, int repeat, const char *dd, int *over)
{
    /* Two set-ups: the foundation's (cache-blind placement, local pool)
     * and Mooncake's (the Conductor, global pool with fetches). */
    static const char *const setups[][3] = {
        {"least_loaded, local pool", "least_loaded", "local"},
        {"kvcentric, global pool", "kvcentric", "global"},
    };
    sim_config_t *cfg = malloc(sizeof *cfg);
    if (!cfg)
        return 1;
    sim_run_opts_t ro = {.config_src = "bench", .out_dir = NULL, .data_dir = dd};
    sim_err_t err;
    printf("bench: %s on 8P+8D a800x8 (fitted cost model, RDMA network)\n", tpath);
    for (size_t k = 0; k < sizeof setups / sizeof setups[0]; k++) {
        sim_config_defaults(cfg);
        snprintf(cfg->name, sizeof cfg->name, "bench");
        snprintf(cfg->trace.path, sizeof cfg->trace.path, "%s", tpath);
        snprintf(cfg->scheduler.policy, sizeof cfg->scheduler.policy, "%s", setups[k][1]);
        snprintf(cfg->cache.scope, sizeof cfg->cache.scope, "%s", setups[k][2]);
        double walls[1000];
        sim_run_result_t res = {0};
        for (int i = 0; i < repeat; i++) {
            if (sim_run(cfg, &ro, &res, &err) != 0) {
                free(cfg);
                return fail_err(&err);
            }
            walls[i] = res.wall_s;
            json_decref(res.summary);
        }
        qsort(walls, (size_t)repeat, sizeof walls[0], cmp_dbl);
        printf("  %s:\n", setups[k][0]);
        printf("    requests      %lld (%lld completed)\n", (long long)res.counts.total,
               (long long)res.counts.completed);
        printf("    events        %llu\n", (unsigned long long)res.events);
        printf("    wall time     best %.3f s, median %.3f s over %d runs (budget 1 s)\n",
               walls[0], walls[repeat / 2], repeat);
        printf("    events/s      %.0f (best run)\n", (double)res.events / walls[0]);
        *over += walls[0] > 1.0;
    }
    free(cfg);
    return 0;
}

static int cmd_bench(int argc, char **argv)
{
    char tpath[SIM_CFG_PATH] = "", dd[PATH_MAX];
    int repeat = 5, strict = 0, over = 0;
    int rc = bench_parse(argc, argv, tpath, sizeof tpath, &repeat, &strict);
    if (rc >= 0)
        return rc;
    data_dir(dd, sizeof dd);
    if ((rc = bench_runs(tpath, repeat, dd, &over)) != 0)
        return rc;
    sim_err_t err;
    printf("trace parsers:\n");
    if (trace_bench_parse(tpath, stdout, &err) != 0)
        return fail_err(&err);
    char tmp[] = "/tmp/mooncake-bench-XXXXXX";
    if (!mkdtemp(tmp)) {
        perror("mooncake-sim bench: mkdtemp");
        return 1;
    }
    rc = sim_cmd_bench_sweep(dd, tmp, &over) == 0 ? 0 : 1;
    char rm[sizeof tmp + 16];
    snprintf(rm, sizeof rm, "rm -rf %s", tmp);
    if (system(rm) != 0)
        fprintf(stderr, "mooncake-sim bench: could not remove %s\n", tmp);
    if (rc == 0 && strict && over) {
        fprintf(stderr, "mooncake-sim bench: %d measurement%s over budget\n", over,
                over == 1 ? "" : "s");
        rc = 1;
    }
    return rc;
}

/* ---- main ---- */

static const char main_help[] =
    "usage: mooncake-sim COMMAND [options]\n"
    "A discrete-event simulator of Mooncake, the KVCache-centric disaggregated LLM\n"
    "serving architecture.\n\n"
    "commands:\n"
    "  run EXP.json      simulate one experiment (see 'run --help', 'run --help-config')\n"
    "  trace stats FILE  statistics of a trace file\n"
    "  trace cache FILE  prefix hit rate of a global KVCache pool by capacity\n"
    "  trace gen EXP     write the trace an experiment replays as Mooncake JSONL\n"
    "  sweep SPEC.json   run every point of a design-space sweep, on every core and\n"
    "                    across machines under mpirun (see 'sweep --help')\n"
    "  capacity EXP.json the highest value of a config key at which a summary metric\n"
    "                    meets a target, by bisection (see 'capacity --help')\n"
    "  search EXP.json   sustained capacity: bisect a parameter (the arrival rate) for the\n"
    "                    highest value within the P90 TTFT / TBT SLO (see 'search --help')\n"
    "  compare BASE NEW  compare two runs' summaries, with regression bounds for CI\n"
    "                    (see 'compare --help')\n"
    "  check DIR...      verify a run's outputs against their documented invariants\n"
    "  calib fit ...     fit cost models to measurements; also calib report,\n"
    "                    calib roofline (from GPU specs), calib tcp (network time by\n"
    "                    message size) (see 'calib --help')\n"
    "  bench             replay the conversation trace and report the simulator's speed\n\n"
    "  -h, --help        this help\n"
    "  -V, --version     print the version\n";

static int command(int argc, char **argv)
{
    if (argc < 2)
        return fputs("mooncake-sim: missing command\n\n", stderr), fputs(main_help, stderr),
               EXIT_USAGE;
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        fputs(main_help, stdout);
        return 0;
    }
    if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
        printf("mooncake-sim %s\n", sim_version);
        return 0;
    }
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "trace"))
        return cmd_trace(argc - 1, argv + 1);
    if (!strcmp(cmd, "search"))
        return cmd_search(argc - 1, argv + 1);
    if (!strcmp(cmd, "sweep") || !strcmp(cmd, "capacity")) {
        char dd[PATH_MAX];
        data_dir(dd, sizeof dd);
        return (cmd[0] == 's' ? sim_cmd_sweep : sim_cmd_capacity)(argc - 1, argv + 1, dd);
    }
    if (!strcmp(cmd, "compare"))
        return cmd_compare(argc - 1, argv + 1);
    if (!strcmp(cmd, "check"))
        return sim_check_cmd(argc - 1, argv + 1);
    if (!strcmp(cmd, "calib"))
        return cmd_calib(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench"))
        return cmd_bench(argc - 1, argv + 1);
    fprintf(stderr, "mooncake-sim: unknown command '%s' (valid: run, trace, sweep, capacity, search, compare, check, calib, bench)\n", cmd);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    sim_malloc_tune();
    /* An interrupted run leaves no partial output directory behind. */
    sim_out_install_signal_cleanup();
    int rc = command(argc, argv);
    /* What a command printed on stdout (tables, lines, JSON) reached it,
     * else the command failed (exit 1) even when it said nothing. */
    sim_err_t err;
    if (sim_out_flush_stream(stdout, "stdout", &err) != 0 && rc == 0)
        rc = fail_err(&err);
    return rc;
}
