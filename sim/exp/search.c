/* sim/exp/search.c: see search.h. The core knows nothing of the simulator;
 * the SLO layer below it turns a value into one in-memory sim_run. */
#include "sim/exp/search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "sim/core/jsonx.h"
#include "sim/core/metrics.h"
#include "sim/exp/out.h"
#include "sim/exp/run.h"
#include "traces/store.h"

/* ---- the core ---- */

/* v rounded to 9 significant digits (what %.9g prints), so the values in
 * probes.csv and search.json are exactly the values run. */
static double canon(double v, int integer)
{
    if (integer)
        return floor(v);
    char buf[32];
    snprintf(buf, sizeof buf, "%.9g", v);
    return strtod(buf, NULL);
}

static int probe(sim_search_result_t *res, double v, sim_search_probe_fn fn, void *ud,
                 sim_err_t *err)
{
    sim_search_probe_t *p = &res->probes[res->n_probes++];
    memset(p, 0, sizeof *p);
    p->value = v;
    if (fn(ud, p, err) != 0)
        return -1;
    return p->pass ? 1 : 0;
}

/* v, or the range bound when v is above it. */
static double clamp_max(const sim_search_args_t *a, double v)
{
    return a->max > 0 && v > a->max ? a->max : v;
}

int sim_search_bisect(const sim_search_args_t *a, sim_search_probe_fn fn, void *ud,
                      sim_search_result_t *res, sim_err_t *err)
{
    SIM_ASSERT(a->lo > 0 && a->tol > 0 && a->max_probes >= 2);
    SIM_ASSERT(a->hi == 0 || a->hi > a->lo);
    memset(res, 0, sizeof *res);
    res->probes = sim_xcalloc((size_t)a->max_probes, sizeof *res->probes, "search probes");
    double lo = canon(a->lo, a->integer);
    int r = probe(res, lo, fn, ud, err);
    if (r < 0)
        return -1;
    if (r == 0) {
        res->hi = lo;
        return 0;
    }
    /* Bracket: double hi until a probe fails, never above max: when the
     * bound itself passes, the capacity is at least the bound. */
    double hi = clamp_max(a, canon(a->hi > 0 ? a->hi : 2 * lo, a->integer));
    for (;;) {
        if (a->max > 0 && lo >= a->max) {
            res->found = res->at_bound = 1;
            res->capacity = res->lo = res->hi = lo;
            return 0;
        }
        if (res->n_probes == a->max_probes)
            return sim_errf(err, "never bracketed: every value from %.9g to %.9g passed (%d probes, "
                                 "the cap); raise --max-probes or --hi, or check that the SLO "
                                 "depends on the parameter",
                            res->probes[0].value, lo, res->n_probes);
        r = probe(res, hi, fn, ud, err);
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        lo = hi;
        hi = clamp_max(a, canon(2 * hi, a->integer));
    }
    /* Bisect, keeping lo passed and hi failed. */
    for (;;) {
        if ((hi - lo) / lo <= a->tol || (a->integer && hi - lo <= 1))
            break;
        double mid = canon(lo + (hi - lo) / 2, a->integer);
        if (mid <= lo || mid >= hi) /* 9 digits cannot split it further */
            break;
        if (res->n_probes == a->max_probes) {
            res->lo = lo;
            res->hi = hi;
            return sim_errf(err, "bracket [%.9g, %.9g] not narrowed to tolerance %g within %d "
                                 "probes (the cap); raise --max-probes or the tolerance, or give "
                                 "a closer --hi",
                            lo, hi, a->tol, res->n_probes);
        }
        r = probe(res, mid, fn, ud, err);
        if (r < 0)
            return -1;
        if (r)
            lo = mid;
        else
            hi = mid;
    }
    res->found = 1;
    res->capacity = res->lo = lo;
    res->hi = hi;
    return 0;
}

void sim_search_result_free(sim_search_result_t *res)
{
    if (!res)
        return;
    sim_free(res->probes);
    res->probes = NULL;
    res->n_probes = 0;
}

/* ---- the SLO layer ---- */

typedef struct slo_ctx {
    const sim_search_slo_args_t *a;
    sim_search_slo_t *out;
    sim_config_t *cfg;     /* scratch: the run being probed */
    sim_config_t *ref_cfg; /* exactly what the reference ran */
    int64_t rejected;      /* of the last run */
    int64_t completed;
    int64_t ref_rejected;  /* of the reference run */
    int64_t ref_completed;
    int probe_failed;      /* the error came from a run, not from the core */
    trace_store_t *traces; /* the trace files the runs read, parsed once */
} slo_ctx_t;

/* Set key=v in cfg. An error, now or when the run checks the config,
 * names the experiment and the run ("exp.json: a run with key=v: ..."),
 * not a --set. */
static int set_num(sim_config_t *cfg, const char *key, double v, int integer, const char *src,
                   sim_err_t *err)
{
    char where[1200];
    snprintf(where, sizeof where, integer ? "%s: a run with %s=%.0f" : "%s: a run with %s=%.9g",
             src, key, v);
    json_t *j = integer ? json_integer((json_int_t)v) : json_real(v);
    int rc = sim_config_set_json(cfg, key, j, where, err);
    json_decref(j);
    return rc;
}

/* cfg = base with param = value and, for generated traces, the run's
 * request count. lifetime_s <= 0 uses min_requests. */
static int configure(slo_ctx_t *c, const sim_config_t *base, const char *src, double value,
                     double lifetime_s, sim_err_t *err)
{
    const sim_search_slo_args_t *a = c->a;
    *c->cfg = *base;
    if (set_num(c->cfg, a->param, value, a->bisect.integer, src, err) != 0)
        return -1;
    if (!c->cfg->trace.generator.kind[0])
        return 0; /* a trace file: replayed as configured */
    double n = (double)a->min_requests;
    if (lifetime_s > 0) {
        double want = ceil(a->lifetimes * lifetime_s * c->cfg->trace.generator.rate_rps);
        n = want > n ? want : n;
    }
    return set_num(c->cfg, "trace.generator.requests", n, 1, src, err);
}

static double norm(double v, double max)
{
    if (max > 0)
        return v / max;
    return v > 0 ? INFINITY : 0;
}

static double p90_of(const json_t *summary, const char *key)
{
    return json_number_value(json_object_get(json_object_get(summary, key), "p90"));
}

/* Run c->cfg in memory: its requests and P90s into *p, its completed and
 * rejected counts into c, its mean lifetime into *lifetime_s (may be NULL). */
static int run_cfg(slo_ctx_t *c, const char *src, sim_search_probe_t *p, double *lifetime_s,
                   sim_err_t *err)
{
    sim_run_opts_t ro = {.config_src = src, .out_dir = NULL, .data_dir = c->a->data_dir,
                         .traces = c->traces};
    sim_run_result_t res;
    if (sim_run(c->cfg, &ro, &res, err) != 0)
        return -1;
    p->requests = res.counts.total;
    p->ttft_p90_s = p90_of(res.summary, "ttft_s");
    /* The arXiv paper's SLOs are P90s over requests: of each request's
     * TTFT and of its TBT (the mean of its longest 10% of intervals, the
     * SLO's per-request TBT), not over every token interval, where a
     * backlog that delays requests shows little (docs/cli.md). */
    p->tbt_p90_s = p90_of(res.summary, "tbt_top10_s");
    p->tbt_interval_p90_s = p90_of(res.summary, "tbt_s");
    json_decref(res.summary);
    c->completed = res.counts.completed;
    c->rejected = res.counts.rejected_arrival + res.counts.rejected_prefill;
    if (lifetime_s)
        *lifetime_s = c->completed ? res.counts.lifetime_s_sum / (double)c->completed : 0;
    return 0;
}

static void judge(const slo_ctx_t *c, sim_search_probe_t *p)
{
    const sim_search_slo_t *o = c->out;
    p->ttft_norm = norm(p->ttft_p90_s, o->ttft_max_s);
    p->tbt_norm = norm(p->tbt_p90_s, o->tbt_max_s);
    p->pass = p->ttft_p90_s <= o->ttft_max_s && p->tbt_p90_s <= o->tbt_max_s &&
              c->completed > 0 && 10 * c->rejected <= p->requests;
}

static void progress(const slo_ctx_t *c, const char *what, const sim_search_probe_t *p)
{
    if (!c->a->progress)
        return;
    fprintf(stderr, "search: %s %s=%.9g, %lld requests: P90 TTFT %.4g s (%.3f), P90 TBT %.4g s "
                    "(%.3f): %s\n",
            what, c->a->param, p->value, (long long)p->requests, p->ttft_p90_s, p->ttft_norm,
            p->tbt_p90_s, p->tbt_norm, p->pass ? "pass" : "fail");
}

static int slo_probe(void *ud, sim_search_probe_t *p, sim_err_t *err)
{
    slo_ctx_t *c = ud;
    const sim_search_slo_args_t *a = c->a;
    double v = p->value;
    c->probe_failed = 1;
    if (configure(c, a->exp, a->exp_src, v, c->out->ref_lifetime_s, err) != 0)
        return -1;
    if (memcmp(c->cfg, c->ref_cfg, sizeof *c->cfg) == 0) {
        *p = c->out->ref; /* the very run the reference made: same numbers */
        c->completed = c->ref_completed;
        c->rejected = c->ref_rejected;
    } else if (run_cfg(c, a->exp_src, p, NULL, err) != 0) {
        return -1;
    }
    c->probe_failed = 0;
    p->value = v;
    judge(c, p);
    progress(c, "probe", p);
    return 0;
}

/* The reference run at lo: thresholds and the mean lifetime L. */
static int reference(slo_ctx_t *c, sim_err_t *err)
{
    const sim_search_slo_args_t *a = c->a;
    sim_search_slo_t *o = c->out;
    double lo = canon(a->bisect.lo, a->bisect.integer), life;
    sim_search_probe_t *p = &o->ref;
    if (configure(c, a->ref, a->ref_src, lo, 0, err) != 0 ||
        run_cfg(c, a->ref_src, p, &life, err) != 0)
        return -1;
    double rate = c->cfg->trace.generator.rate_rps;
    int64_t n0 = c->cfg->trace.generator.requests;
    if (c->cfg->trace.generator.kind[0] && ceil(a->lifetimes * life * rate) > (double)n0) {
        /* a long lifetime at lo: rerun the reference at its own steady-state size */
        if (configure(c, a->ref, a->ref_src, lo, life, err) != 0 ||
            run_cfg(c, a->ref_src, p, &life, err) != 0)
            return -1;
    }
    if (c->completed == 0)
        return sim_errf(err, "%s: the reference run at %s=%.9g completed no request", a->ref_src,
                        a->param, lo);
    *c->ref_cfg = *c->cfg;
    c->ref_completed = c->completed;
    c->ref_rejected = c->rejected;
    p->value = lo;
    o->ref_lifetime_s = life;
    o->ttft_max_s = a->ttft_p90_s > 0 ? a->ttft_p90_s : a->ttft_factor * p->ttft_p90_s;
    o->tbt_max_s = a->tbt_p90_s > 0 ? a->tbt_p90_s : a->tbt_factor * p->tbt_p90_s;
    judge(c, p);
    progress(c, "reference", p);
    return 0;
}

int sim_search_slo(const sim_search_slo_args_t *a, sim_search_slo_t *out, sim_err_t *err)
{
    memset(out, 0, sizeof *out);
    SIM_ASSERT(a->min_requests >= 1 && a->lifetimes >= 0);
    slo_ctx_t c = {.a = a, .out = out};
    c.cfg = sim_xmalloc(sizeof *c.cfg, "search config");
    c.ref_cfg = sim_xmalloc(sizeof *c.ref_cfg, "search config");
    c.traces = trace_store_new(TRACE_STORE_MAX_BYTES);
    int rc = -1;
    if (reference(&c, err) == 0) {
        rc = sim_search_bisect(&a->bisect, slo_probe, &c, &out->search, err);
        if (rc != 0 && !c.probe_failed) {
            sim_err_t e = *err;
            sim_errf(err, "%s: %s: %s", a->exp_src, a->param, e.msg);
        }
    }
    sim_free(c.cfg);
    sim_free(c.ref_cfg);
    trace_store_free(c.traces);
    return rc;
}

void sim_search_slo_free(sim_search_slo_t *s)
{
    if (s)
        sim_search_result_free(&s->search);
}

/* ---- outputs ---- */

static void csv_num(FILE *f, double v, const char *sep)
{
    if (isinf(v))
        fprintf(f, "inf%s", sep);
    else
        fprintf(f, "%.9g%s", v, sep);
}

static void write_csv(FILE *f, const sim_search_result_t *r)
{
    fputs("value,requests,ttft_p90_s,tbt_p90_s,ttft_norm,tbt_norm,pass,tbt_interval_p90_s\n", f);
    for (int i = 0; i < r->n_probes; i++) {
        const sim_search_probe_t *p = &r->probes[i];
        fprintf(f, "%.9g,%lld,", p->value, (long long)p->requests);
        csv_num(f, p->ttft_p90_s, ",");
        csv_num(f, p->tbt_p90_s, ",");
        csv_num(f, p->ttft_norm, ",");
        csv_num(f, p->tbt_norm, ",");
        fprintf(f, "%d,", p->pass);
        csv_num(f, p->tbt_interval_p90_s, "\n");
    }
}

static json_t *factor_json(double absolute, double factor)
{
    return absolute > 0 ? json_null() : sim_metrics_num(factor);
}

static json_t *search_json(const sim_search_slo_args_t *a, const sim_search_slo_t *s)
{
    const sim_search_result_t *r = &s->search;
    json_t *o = json_object(), *x;
    json_object_set_new(o, "experiment", json_string(a->exp_src));
    json_object_set_new(o, "param", json_string(a->param));
    json_object_set_new(o, "found", json_boolean(r->found));
    json_object_set_new(o, "at_bound", json_boolean(r->at_bound));
    json_object_set_new(o, "capacity", sim_metrics_num(r->capacity));
    json_object_set_new(o, "tolerance", sim_metrics_num(a->bisect.tol));
    json_object_set_new(o, "probes", json_integer(r->n_probes));
    x = json_object();
    json_object_set_new(x, "lo", sim_metrics_num(r->lo));
    json_object_set_new(x, "hi", sim_metrics_num(r->hi));
    json_object_set_new(o, "bracket", x);
    x = json_object();
    json_object_set_new(x, "lo", sim_metrics_num(canon(a->bisect.lo, a->bisect.integer)));
    json_object_set_new(x, "hi", a->bisect.hi > 0 ? sim_metrics_num(a->bisect.hi) : json_null());
    json_object_set_new(x, "max_probes", json_integer(a->bisect.max_probes));
    json_object_set_new(o, "start", x);
    x = json_object();
    json_object_set_new(x, "ttft_p90_s", sim_metrics_num(s->ttft_max_s));
    json_object_set_new(x, "tbt_p90_s", sim_metrics_num(s->tbt_max_s));
    json_object_set_new(x, "ttft_factor", factor_json(a->ttft_p90_s, a->ttft_factor));
    json_object_set_new(x, "tbt_factor", factor_json(a->tbt_p90_s, a->tbt_factor));
    json_object_set_new(o, "thresholds", x);
    x = json_object();
    json_object_set_new(x, "experiment", json_string(a->ref_src));
    json_object_set_new(x, "value", sim_metrics_num(s->ref.value));
    json_object_set_new(x, "requests", json_integer(s->ref.requests));
    json_object_set_new(x, "ttft_p90_s", sim_metrics_num(s->ref.ttft_p90_s));
    json_object_set_new(x, "tbt_p90_s", sim_metrics_num(s->ref.tbt_p90_s));
    json_object_set_new(x, "tbt_interval_p90_s", sim_metrics_num(s->ref.tbt_interval_p90_s));
    json_object_set_new(x, "mean_lifetime_s", sim_metrics_num(s->ref_lifetime_s));
    json_object_set_new(o, "reference", x);
    x = json_object();
    json_object_set_new(x, "min", json_integer(a->min_requests));
    json_object_set_new(x, "lifetimes", sim_metrics_num(a->lifetimes));
    json_object_set_new(o, "requests", x);
    x = json_object();
    json_object_set_new(x, "version", json_string(sim_version));
    json_object_set_new(x, "seed", json_integer((json_int_t)a->exp->seed));
    json_object_set_new(o, "sim", x);
    json_object_set_new(o, "config", sim_config_to_json(a->exp));
    if (a->ref != a->exp)
        json_object_set_new(o, "reference_config", sim_config_to_json(a->ref));
    return o;
}

int sim_search_write(const char *dir, const sim_search_slo_args_t *a, const sim_search_slo_t *s,
                     sim_err_t *err)
{
    sim_out_file_t csv = {0}, js = {0};
    int created = 0, rc = -1;
    json_t *j = NULL;
    if (sim_out_mkdirs(dir, &created, err) != 0 ||
        sim_out_open(&csv, dir, "probes.csv", err) != 0 ||
        sim_out_open(&js, dir, "search.json", err) != 0)
        goto done;
    write_csv(csv.f, &s->search);
    j = search_json(a, s);
    if (sim_json_write(js.f, j) != 0) {
        sim_out_fail(&js, err);
        goto done;
    }
    if (sim_out_commit(&csv, err) != 0)
        goto done;
    if (sim_out_commit(&js, err) != 0) {
        unlink(csv.final_path); /* both or neither */
        goto done;
    }
    rc = 0;
done:
    sim_out_abort(&csv);
    sim_out_abort(&js);
    json_decref(j);
    if (rc != 0 && created)
        rmdir(dir);
    return rc;
}
