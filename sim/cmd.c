/* sim/cmd.c: see cmd.h. Option parsing and messages live here; the work is
 * in sweep.c (points on a thread pool), mpi.c (ranks) and search.c (the
 * bisection core shared with the SLO search). */
#include "sim/cmd.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim/jsonx.h"
#include "sim/mpi.h"
#include "sim/out.h"
#include "sim/run.h"
#include "sim/search.h"
#include "sim/sweep.h"

#define EXIT_USAGE 2

static int usage(const char *cmd, const char *msg)
{
    fprintf(stderr, "mooncake-sim %s: %s (try 'mooncake-sim %s --help')\n", cmd, msg, cmd);
    return EXIT_USAGE;
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* An integer option in [1, max]; 0 or -1. */
static int opt_int(const char *opt, const char *text, long max, int *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end || v < 1 || v > max)
        return -1;
    (void)opt;
    *out = (int)v;
    return 0;
}

/* The default directory: results/ and the spec's file name without its
 * folder and .json. */
static void default_out(const char *spec, const char *suffix, char *buf, size_t len)
{
    const char *b = strrchr(spec, '/');
    b = b ? b + 1 : spec;
    size_t n = strlen(b);
    if (n > 5 && strcmp(b + n - 5, ".json") == 0)
        n -= 5;
    snprintf(buf, len, "results/%.*s%s", (int)n, b, suffix);
}

/* ---- sweep ---- */

static const char sweep_help[] =
    "usage: mooncake-sim sweep SPEC.json [options]\n"
    "Run every point of a sweep: a base experiment, overrides for every point and\n"
    "axes of values. SPEC.json (strict JSON):\n"
    "  {\"base\": \"exp.json\",                (relative to SPEC's folder)\n"
    "   \"set\": {\"trace.limit\": 2000},      (optional: applied to every point)\n"
    "   \"axes\": {\"scheduler.policy\": [\"kvcentric\", \"random\"], \"seed\": [1, 2]},\n"
    "   \"mode\": \"grid\"}                    (grid: cartesian product, last axis\n"
    "                                       fastest; list: equal-length axes zipped)\n"
    "Each point runs in this process, on a pool of workers, and writes its run's\n"
    "files to DIR/<point>/ (the point's number and key=value per axis). DIR/sweep.csv\n"
    "has one row per point, in point order: point, dir, each axis by its config path,\n"
    "status (ok or failed), error, then every number of the point's summary.json by\n"
    "dotted path (ttft_s.p90, slo.attainment, ...). DIR/spec.json\n"
    "records the spec. The files are the same, byte for byte, for any -j and any\n"
    "number of MPI ranks. A point that fails (a bad value, a run error) is reported\n"
    "with its error and does not stop the others.\n"
    "Across machines: mpirun -n K mooncake-sim sweep SPEC.json splits the points over\n"
    "the ranks (point i on rank i mod K) and gathers the rows on rank 0, which writes\n"
    "sweep.csv and spec.json; DIR must be on a file system every rank sees.\n\n"
    "  -o, --out DIR   output directory (default results/<SPEC name>)\n"
    "  -j, --jobs N    worker threads (default: the cores of the machine, shared by\n"
    "                  the ranks on it)\n"
    "  -f, --force     write into DIR even when it holds a different sweep\n"
    "  -n, --dry-run   list the points (directory and overrides) and stop\n"
    "  -q, --quiet     no progress line, failure lines or closing line\n"
    "  -h, --help      this help\n"
    "Exit status: 0 every point ran, 1 some point failed, 2 bad spec or options.\n";

static void list_points(const sim_sweep_spec_t *s)
{
    int *idx = sim_xmalloc(sizeof *idx * (size_t)s->n_axes, "sweep index");
    for (int i = 0; i < s->n_points; i++) {
        char dir[256];
        sim_sweep_point_dir(s, i, dir, sizeof dir);
        sim_sweep_point_index(s, i, idx);
        printf("%s", dir);
        for (int a = 0; a < s->n_axes; a++)
            printf(" %s=%s", s->axes[a].path, s->axes[a].text[idx[a]]);
        putchar('\n');
    }
    sim_free(idx);
}

int sim_cmd_sweep(int argc, char **argv, const char *data_dir)
{
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'}, {"jobs", required_argument, NULL, 'j'},
        {"force", no_argument, NULL, 'f'},     {"dry-run", no_argument, NULL, 'n'},
        {"quiet", no_argument, NULL, 'q'},     {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL;
    int jobs = 0, force = 0, dry = 0, quiet = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:j:fnqh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'j':
            if (opt_int("jobs", optarg, 4096, &jobs) != 0) {
                fprintf(stderr, "mooncake-sim sweep: --jobs %s: expected an integer in [1, 4096]\n",
                        optarg);
                return EXIT_USAGE;
            }
            break;
        case 'f': force = 1; break;
        case 'n': dry = 1; break;
        case 'q': quiet = 1; break;
        case 'h': fputs(sweep_help, stdout); return 0;
        default: return usage("sweep", "bad option");
        }
    }
    if (optind != argc - 1)
        return usage("sweep", "expected exactly one sweep spec");
    const char *path = argv[optind];
    int rank, n_ranks;
    if (sim_mpi_init(&rank, &n_ranks) != 0) {
        fprintf(stderr, "mooncake-sim sweep: started by an MPI launcher with several ranks, but "
                        "this build has no MPI (install Open MPI's mpicc, libopenmpi-dev, and "
                        "rebuild)\n");
        return EXIT_USAGE;
    }
    double t0 = mono_s();
    sim_sweep_spec_t spec;
    sim_err_t err;
    char outbuf[PATH_MAX];
    int rc = EXIT_USAGE;
    sim_sweep_result_t *res = NULL;
    if (sim_sweep_spec_load(&spec, path, &err) != 0) {
        if (rank == 0)
            fprintf(stderr, "mooncake-sim: %s\n", err.msg);
        sim_mpi_finalize();
        return EXIT_USAGE;
    }
    if (!out) {
        default_out(path, "", outbuf, sizeof outbuf);
        out = outbuf;
    }
    if (dry) {
        if (rank == 0)
            list_points(&spec);
        rc = 0;
        goto done;
    }
    int ok = 1;
    if (rank == 0 && !force && sim_sweep_check_out(&spec, out, &err) != 0) {
        fprintf(stderr, "mooncake-sim: %s\n", err.msg);
        ok = 0;
    }
    if (!sim_mpi_bcast_int(ok))
        goto done;
    if (!jobs) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        int local = sim_mpi_local_ranks();
        jobs = cores > local ? (int)(cores / local) : 1;
    }
    res = sim_xcalloc((size_t)spec.n_points, sizeof *res, "sweep results");
    sim_sweep_opts_t so = {.out_dir = out, .data_dir = data_dir, .jobs = jobs,
                           .progress = !quiet, .rank = rank, .n_ranks = n_ranks};
    sim_sweep_run(&spec, &so, res);
    if (sim_mpi_gather(&spec, res, rank, n_ranks, &err) != 0) {
        if (rank == 0)
            fprintf(stderr, "mooncake-sim: %s\n", err.msg);
        rc = sim_mpi_bcast_int(1);
        goto done;
    }
    if (rank == 0) {
        int failed = 0;
        for (int i = 0; i < spec.n_points; i++)
            failed += res[i].failed;
        if (sim_sweep_write(&spec, res, out, &err) != 0) {
            fprintf(stderr, "mooncake-sim: %s\n", err.msg);
            rc = 1;
        } else {
            rc = failed ? 1 : 0;
            if (!quiet)
                printf("sweep: %d points, %d failed, %.2f s wall (%d rank%s x %d worker%s); "
                       "%s/sweep.csv\n",
                       spec.n_points, failed, mono_s() - t0, n_ranks, n_ranks == 1 ? "" : "s",
                       jobs, jobs == 1 ? "" : "s", out);
        }
    }
    rc = sim_mpi_bcast_int(rc);
done:
    if (res)
        sim_sweep_results_free(res, spec.n_points);
    sim_free(res);
    sim_sweep_spec_free(&spec);
    sim_mpi_finalize();
    return rc;
}

/* ---- capacity ---- */

static const char capacity_help[] =
    "usage: mooncake-sim capacity EXP.json --vary KEY --target METRIC>=X [options]\n"
    "The highest value of a numeric config key (KEY: trace.speed, trace.generator.\n"
    "rate_rps, ...) at which the run's METRIC (a number of summary.json by dotted path:\n"
    "slo.attainment, ttft_s.p90, goodput_rps, ...) meets the target; the operator is\n"
    ">=, <=, > or <. The target must get harder to meet as KEY grows.\n"
    "Runs EXP at --lo (default: EXP's own value of KEY), which must meet the target\n"
    "(else there is no capacity, exit 0), then at --hi, doubled while the target is\n"
    "met, then at midpoints until (hi - lo) / lo <= tol. Each run is the experiment as\n"
    "configured but for KEY: a generated trace keeps its trace.generator.requests.\n"
    "Prints the value; writes DIR/probes.csv (one row per run, in the order run) and\n"
    "DIR/capacity.json. Same inputs, same outputs, byte for byte.\n\n"
    "  -v, --vary KEY        the numeric config key varied (required)\n"
    "  -T, --target M>=X     the target (required)\n"
    "  -l, --lo X            first value, which must meet the target (default EXP's)\n"
    "  -H, --hi Y            first upper bound tried (default 2 lo)\n"
    "  -t, --tol T           relative tolerance (default 0.02)\n"
    "      --max-probes N    hard cap on runs, bracketing included (default 30)\n"
    "  -S, --set PATH=VAL    override one config value (repeatable)\n"
    "  -s, --seed N          master seed\n"
    "  -o, --out DIR         output directory (default results/<name>-capacity)\n"
    "  -q, --quiet           no progress lines on stderr\n"
    "  -h, --help            this help\n";

typedef enum { OP_GE, OP_LE, OP_GT, OP_LT } op_t;
static const char *const op_text[] = {">=", "<=", ">", "<"};

typedef struct cap_ctx {
    const sim_config_t *base;
    sim_config_t *cfg;
    const char *src, *key, *metric, *data_dir;
    op_t op;
    double target;
    int integer, progress;
} cap_ctx_t;

/* METRIC="M>=X": the metric path, operator and bound. 0 or -1. */
static int parse_target(const char *t, char *metric, size_t len, op_t *op, double *x)
{
    const char *p = strpbrk(t, "<>");
    if (!p || p == t)
        return -1;
    snprintf(metric, len, "%.*s", (int)(p - t), t);
    int eq = p[1] == '=';
    *op = p[0] == '>' ? (eq ? OP_GE : OP_GT) : (eq ? OP_LE : OP_LT);
    const char *num = p + 1 + eq;
    char *end;
    *x = strtod(num, &end);
    return end == num || *end || !isfinite(*x) ? -1 : 0;
}

/* The number at dotted path in j; 0, or -1 when there is none. */
static int lookup(const json_t *j, const char *path, double *out)
{
    char part[256];
    while (*path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof part)
            return -1;
        memcpy(part, path, n);
        part[n] = '\0';
        j = json_object_get(j, part);
        path += n + (dot ? 1 : 0);
    }
    if (!json_is_number(j))
        return -1;
    *out = json_number_value(j);
    return 0;
}

static int cap_probe(void *ud, sim_search_probe_t *p, sim_err_t *err)
{
    cap_ctx_t *c = ud;
    *c->cfg = *c->base;
    char where[600];
    json_t *v = c->integer ? json_integer((json_int_t)p->value) : json_real(p->value);
    snprintf(where, sizeof where, "%s: a run with %s=%.9g", c->src, c->key, p->value);
    int rc = sim_config_set_json(c->cfg, c->key, v, where, err);
    json_decref(v);
    if (rc != 0 || sim_config_validate(c->cfg, c->src, err) != 0)
        return -1;
    sim_run_opts_t ro = {.config_src = c->src, .data_dir = c->data_dir};
    sim_run_result_t res;
    if (sim_run(c->cfg, &ro, &res, err) != 0)
        return -1;
    p->requests = res.counts.total;
    rc = lookup(res.summary, c->metric, &p->metric);
    json_decref(res.summary);
    if (rc != 0)
        return sim_errf(err, "--target: summary.json has no number at '%s' (for example "
                             "slo.attainment, ttft_s.p90, tbt_s.p90, goodput_rps)",
                        c->metric);
    double m = p->metric, x = c->target;
    p->pass = c->op == OP_GE ? m >= x : c->op == OP_LE ? m <= x : c->op == OP_GT ? m > x : m < x;
    if (c->progress)
        fprintf(stderr, "  capacity: %s=%.9g -> %s %.6g: %s\n", c->key, p->value, c->metric, m,
                p->pass ? "meets" : "misses");
    return 0;
}

static int cap_write(const char *dir, const cap_ctx_t *c, const sim_search_args_t *a,
                     const sim_search_result_t *r, sim_err_t *err)
{
    int created;
    if (sim_out_mkdirs(dir, &created, err) != 0)
        return -1;
    sim_out_file_t f = {0};
    if (sim_out_open(&f, dir, "probes.csv", err) != 0)
        goto fail;
    fprintf(f.f, "probe,value,requests,%s,pass\n", c->metric);
    for (int i = 0; i < r->n_probes; i++) {
        char m[40];
        sim_sweep_fmt_num(r->probes[i].metric, m, sizeof m);
        fprintf(f.f, "%d,%.9g,%lld,%s,%d\n", i, r->probes[i].value,
                (long long)r->probes[i].requests, m, r->probes[i].pass);
    }
    if (sim_out_commit(&f, err) != 0)
        goto fail;
    json_t *j = json_object();
    char target[320];
    snprintf(target, sizeof target, "%s%s%.17g", c->metric, op_text[c->op], c->target);
    json_object_set_new(j, "experiment", json_string(c->src));
    json_object_set_new(j, "vary", json_string(c->key));
    json_object_set_new(j, "target", json_string(target));
    json_object_set_new(j, "tol", json_real(a->tol));
    json_object_set_new(j, "found", json_boolean(r->found));
    json_object_set_new(j, "capacity", json_real(r->capacity));
    json_object_set_new(j, "lo", json_real(r->lo));
    json_object_set_new(j, "hi", json_real(r->hi));
    json_object_set_new(j, "probes", json_integer(r->n_probes));
    json_object_set_new(j, "seed", json_integer(c->base->seed));
    json_object_set_new(j, "version", json_string(sim_version));
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/capacity.json", dir);
    int rc = sim_out_write_json(path, j, err);
    json_decref(j);
    if (rc == 0)
        return 0;
    snprintf(path, sizeof path, "%s/probes.csv", dir);
    remove(path);
fail:
    sim_out_abort(&f);
    if (created)
        rmdir(dir);
    return -1;
}

int sim_cmd_capacity(int argc, char **argv, const char *data_dir)
{
    enum { O_MAXP = 256 };
    static const struct option opts[] = {
        {"vary", required_argument, NULL, 'v'}, {"target", required_argument, NULL, 'T'},
        {"lo", required_argument, NULL, 'l'},   {"hi", required_argument, NULL, 'H'},
        {"tol", required_argument, NULL, 't'},  {"max-probes", required_argument, NULL, O_MAXP},
        {"set", required_argument, NULL, 'S'},  {"seed", required_argument, NULL, 's'},
        {"out", required_argument, NULL, 'o'},  {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0},
    };
    const char *key = NULL, *target = NULL, *lo_t = NULL, *hi_t = NULL, *out = NULL,
               *seed = NULL;
    sim_search_args_t a = {.tol = 0.02, .max_probes = 30};
    const char **sets = sim_xcalloc((size_t)argc, sizeof *sets, "capacity sets");
    int n_sets = 0, quiet = 0, c, rc = EXIT_USAGE;
    char *end;
    optind = 1;
    while ((c = getopt_long(argc, argv, "v:T:l:H:t:S:s:o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'v': key = optarg; break;
        case 'T': target = optarg; break;
        case 'l': lo_t = optarg; break;
        case 'H': hi_t = optarg; break;
        case 't':
            a.tol = strtod(optarg, &end);
            if (end == optarg || *end || !(a.tol > 0 && a.tol < 1)) {
                sim_free(sets);
                return usage("capacity", "--tol: expected a number in (0, 1)");
            }
            break;
        case O_MAXP:
            if (opt_int("max-probes", optarg, 1000, &a.max_probes) != 0 || a.max_probes < 2) {
                sim_free(sets);
                return usage("capacity", "--max-probes: expected an integer in [2, 1000]");
            }
            break;
        case 'S': sets[n_sets++] = optarg; break;
        case 's': seed = optarg; break;
        case 'o': out = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': fputs(capacity_help, stdout); sim_free(sets); return 0;
        default: sim_free(sets); return usage("capacity", "bad option");
        }
    }
    if (optind != argc - 1) {
        sim_free(sets);
        return usage("capacity", "expected exactly one experiment file");
    }
    if (!key || !target) {
        sim_free(sets);
        return usage("capacity", "--vary KEY and --target METRIC>=X are required");
    }
    const char *src = argv[optind];
    cap_ctx_t cx = {.src = src, .key = key, .data_dir = data_dir, .progress = !quiet};
    char metric[256], outbuf[PATH_MAX];
    sim_config_t *base = sim_xmalloc(sizeof *base, "capacity config");
    sim_config_t *cfg = sim_xmalloc(sizeof *cfg, "capacity run config");
    sim_search_result_t r = {0};
    sim_err_t err;
    cx.base = base;
    cx.cfg = cfg;
    cx.metric = metric;
    sim_config_type_t kt = sim_config_type(key);
    if (kt != SIM_CFG_INT && kt != SIM_CFG_NUM) {
        sim_errf(&err, "--vary %s: not a numeric config key (see run --help-config)", key);
        goto bad;
    }
    cx.integer = kt == SIM_CFG_INT;
    if (parse_target(target, metric, sizeof metric, &cx.op, &cx.target) != 0) {
        sim_errf(&err, "--target %s: expected METRIC>=X, METRIC<=X, METRIC>X or METRIC<X (for "
                       "example slo.attainment>=0.99)", target);
        goto bad;
    }
    sim_config_defaults(base);
    if (sim_config_load(base, src, &err) != 0)
        goto bad;
    for (int i = 0; i < n_sets; i++)
        if (sim_config_set(base, sets[i], &err) != 0)
            goto bad;
    if (seed) {
        char as[64];
        snprintf(as, sizeof as, "seed=%.40s", seed);
        if (sim_config_set(base, as, &err) != 0) {
            sim_errf(&err, "--seed %s: expected an integer in [0, 2^53]", seed);
            goto bad;
        }
    }
    if (sim_config_validate(base, src, &err) != 0)
        goto bad;
    /* The key's current value, read back through the effective config. */
    json_t *cj = sim_config_to_json(base);
    double cur = 0;
    int have = lookup(cj, key, &cur) == 0;
    json_decref(cj);
    const char *bad_bound = NULL;
    if (lo_t) {
        a.lo = strtod(lo_t, &end);
        if (end == lo_t || *end)
            a.lo = -1;
    } else {
        a.lo = have ? cur : -1;
    }
    if (!(a.lo > 0) || !isfinite(a.lo))
        bad_bound = "--lo: expected a number > 0 (the key's value in EXP is not one)";
    if (hi_t) {
        a.hi = strtod(hi_t, &end);
        if (end == hi_t || *end || !isfinite(a.hi) || !(a.hi > a.lo))
            bad_bound = "--hi: expected a number above --lo";
    }
    if (cx.integer && (a.lo != floor(a.lo) || (a.hi && a.hi != floor(a.hi))))
        bad_bound = "--lo/--hi: the key is an integer";
    if (bad_bound) {
        sim_errf(&err, "%s", bad_bound);
        goto bad;
    }
    a.integer = cx.integer;
    if (!out) {
        snprintf(outbuf, sizeof outbuf, "results/%s-capacity", base->name);
        out = outbuf;
    }
    if (sim_search_bisect(&a, cap_probe, &cx, &r, &err) != 0 ||
        cap_write(out, &cx, &a, &r, &err) != 0)
        goto bad;
    if (r.found)
        printf("capacity: %s = %.9g (%s %s %g; bracket [%.9g, %.9g], %d runs); %s/probes.csv\n",
               key, r.capacity, metric, op_text[cx.op], cx.target, r.lo, r.hi, r.n_probes, out);
    else
        printf("capacity: none: %s = %.9g already misses %s %s %g; %s/probes.csv\n", key,
               r.probes[0].value, metric, op_text[cx.op], cx.target, out);
    rc = 0;
    goto done;
bad:
    fprintf(stderr, "mooncake-sim: %s\n", err.msg);
done:
    sim_search_result_free(&r);
    sim_free(base);
    sim_free(cfg);
    sim_free(sets);
    return rc;
}

/* ---- bench: the sweep driver's own cost ---- */

int sim_cmd_bench_sweep(const char *data_dir, const char *tmp_dir)
{
    /* 64 one-request points, run once by sim_run in a loop and once as a
     * sweep on one worker: the difference is the driver (spec, point
     * configs, result slots, sweep.csv). Best of 5 of each. */
    enum { N = 64, REPS = 5 };
    char spec_path[PATH_MAX + 32], base_path[PATH_MAX + 32], dir[PATH_MAX + 64];
    snprintf(base_path, sizeof base_path, "%s/bench-base.json", tmp_dir);
    snprintf(spec_path, sizeof spec_path, "%s/bench-sweep.json", tmp_dir);
    FILE *f = fopen(base_path, "w");
    if (!f)
        return -1;
    fputs("{\"name\": \"bench-sweep\", \"cluster\": {\"prefill\": 1, \"decode\": 1},\n"
          " \"trace\": {\"generator\": {\"kind\": \"kimi\", \"requests\": 1}}}\n", f);
    fclose(f);
    if (!(f = fopen(spec_path, "w")))
        return -1;
    fputs("{\"base\": \"bench-base.json\", \"axes\": {\"seed\": [", f);
    for (int i = 0; i < N; i++)
        fprintf(f, "%s%d", i ? ", " : "", i + 1);
    fputs("]}}\n", f);
    fclose(f);
    sim_sweep_spec_t s;
    sim_err_t err;
    if (sim_sweep_spec_load(&s, spec_path, &err) != 0) {
        fprintf(stderr, "mooncake-sim bench: %s\n", err.msg);
        return -1;
    }
    double loop_best = INFINITY, sweep_best = INFINITY;
    sim_config_t *cfg = sim_xmalloc(sizeof *cfg, "bench config");
    sim_sweep_result_t *res = sim_xcalloc(N, sizeof *res, "bench results");
    int rc = 0;
    for (int r = 0; r < REPS && rc == 0; r++) {
        double t0 = mono_s();
        for (int i = 0; i < N && rc == 0; i++) {
            char pd[256];
            sim_sweep_point_dir(&s, i, pd, sizeof pd);
            snprintf(dir, sizeof dir, "%s/loop/%s", tmp_dir, pd);
            sim_run_opts_t ro = {.config_src = base_path, .out_dir = dir, .data_dir = data_dir,
                                 .force = 1};
            sim_run_result_t rr;
            rc = sim_sweep_point_config(&s, i, cfg, &err) != 0 || sim_run(cfg, &ro, &rr, &err) != 0;
            if (rc == 0)
                json_decref(rr.summary);
        }
        double t1 = mono_s();
        loop_best = SIM_MIN(loop_best, t1 - t0);
        snprintf(dir, sizeof dir, "%s/sweep", tmp_dir);
        sim_sweep_opts_t so = {.out_dir = dir, .data_dir = data_dir, .jobs = 1, .n_ranks = 1};
        rc = rc || sim_sweep_run(&s, &so, res) != 0 || sim_sweep_write(&s, res, dir, &err) != 0;
        sim_sweep_results_free(res, N);
        memset(res, 0, sizeof *res * N);
        sweep_best = SIM_MIN(sweep_best, mono_s() - t1);
    }
    if (rc == 0)
        printf("sweep driver: %d one-request points, %.3f ms per point as a sweep, %.3f ms in a "
               "plain loop of runs: %.3f ms overhead per point (budget 5 ms)\n",
               N, 1e3 * sweep_best / N, 1e3 * loop_best / N, 1e3 * (sweep_best - loop_best) / N);
    else
        fprintf(stderr, "mooncake-sim bench: %s\n", err.msg);
    sim_free(res);
    sim_free(cfg);
    sim_sweep_spec_free(&s);
    return rc ? -1 : 0;
}
