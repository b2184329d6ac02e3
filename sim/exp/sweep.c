/* sim/exp/sweep.c: see sweep.h. Workers share one counter of the next point
 * under a mutex; each point's run touches only its own config, directory
 * and result slot, so the outputs are those of a serial run whatever the
 * schedule. sweep.csv is written once, after every point, in point order. */
#include "sim/exp/sweep.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sim/exp/compare.h"
#include "sim/core/jsonx.h"
#include "sim/exp/out.h"
#include "sim/exp/run.h"
#include "traces/store.h"

/* The spec's JSON, kept for the axis values (borrowed by axes). */
typedef struct spec_priv {
    json_t *root;
    json_t ***vals; /* vals[a][j]: axis a's j-th value */
} spec_priv_t;

static const char *const spec_keys[] = {"base", "set", "axes", "mode", "description"};

/* A JSON scalar as --set would take it (null: "", the key left as the
 * base has it); -1 for other types. */
static int value_text(const json_t *v, char *buf, size_t len)
{
    if (json_is_null(v))
        snprintf(buf, len, "%s", "");
    else if (json_is_integer(v))
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        sim_fmt_shortest(json_real_value(v), buf, len);
    else if (json_is_string(v))
        snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_object(v)) { /* a plug-in's parameters */
        char *t = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
        snprintf(buf, len, "%s", t ? t : "");
        free(t);
    } else
        return -1;
    return 0;
}

void sim_sweep_spec_free(sim_sweep_spec_t *s)
{
    if (!s)
        return;
    spec_priv_t *p = s->priv;
    for (int a = 0; a < s->n_axes; a++) {
        for (int j = 0; j < s->axes[a].n; j++)
            sim_free(s->axes[a].text[j]);
        sim_free(s->axes[a].text);
        sim_free(s->axes[a].path);
        if (p && p->vals)
            sim_free(p->vals[a]);
    }
    if (p) {
        sim_free(p->vals);
        json_decref(p->root);
        sim_free(p);
    }
    sim_free(s->axes);
    sim_free(s->base);
    sim_free(s->base_path);
    sim_free(s->file);
    free(s->canon); /* from json_dumps */
    memset(s, 0, sizeof *s);
}

static int check_keys(const json_t *root, const char *file, sim_err_t *err)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)root, key, v) {
        size_t k = 0, n = sizeof spec_keys / sizeof spec_keys[0];
        while (k < n && strcmp(key, spec_keys[k]) != 0)
            k++;
        if (k == n)
            return sim_errf(err, "%s: $.%s: unknown key (valid here: base, set, axes, mode, "
                                 "description)", file, key);
    }
    return 0;
}

/* s->base = defaults < base file < "set". */
static int load_base(sim_sweep_spec_t *s, const json_t *root, sim_err_t *err)
{
    const json_t *b = json_object_get(root, "base");
    if (!b)
        return sim_errf(err, "%s: $.base: missing (the experiment every point starts from)",
                        s->file);
    if (!json_is_string(b) || !json_string_length(b))
        return sim_errf(err, "%s: $.base: expected a file name", s->file);
    const char *bp = json_string_value(b), *slash = strrchr(s->file, '/');
    size_t n = strlen(s->file) + strlen(bp) + 2;
    s->base_path = sim_xmalloc(n, "sweep base path");
    if (bp[0] == '/' || !slash)
        snprintf(s->base_path, n, "%s", bp);
    else
        snprintf(s->base_path, n, "%.*s/%s", (int)(slash - s->file), s->file, bp);
    s->base = sim_xmalloc(sizeof *s->base, "sweep base config");
    sim_config_defaults(s->base);
    if (sim_config_load(s->base, s->base_path, err) != 0)
        return -1;
    const json_t *set = json_object_get(root, "set");
    if (!set)
        return 0;
    if (!json_is_object(set))
        return sim_errf(err, "%s: $.set: expected an object of config paths and values", s->file);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)set, key, v) {
        char where[600];
        snprintf(where, sizeof where, "%s: $.set.%s", s->file, key);
        if (sim_config_set_json(s->base, key, v, where, err) != 0)
            return -1;
    }
    return 0;
}

static int load_axes(sim_sweep_spec_t *s, spec_priv_t *p, const json_t *root, sim_err_t *err)
{
    const json_t *ax = json_object_get(root, "axes");
    if (!ax || !json_is_object(ax) || json_object_size(ax) == 0)
        return sim_errf(err, "%s: $.axes: expected an object of config paths and value arrays",
                        s->file);
    s->n_axes = (int)json_object_size(ax);
    s->axes = sim_xcalloc((size_t)s->n_axes, sizeof *s->axes, "sweep axes");
    p->vals = sim_xcalloc((size_t)s->n_axes, sizeof *p->vals, "sweep axis values");
    const char *key;
    json_t *arr;
    int a = 0;
    double points = 1;
    json_object_foreach((json_t *)ax, key, arr) {
        sim_sweep_axis_t *x = &s->axes[a];
        x->path = sim_xstrdup(key, "sweep axis path");
        if (sim_config_type(key) == SIM_CFG_NONE)
            return sim_errf(err, "%s: $.axes.%s: unknown config path (see run --help-config)",
                            s->file, key);
        if (!json_is_array(arr) || json_array_size(arr) == 0)
            return sim_errf(err, "%s: $.axes.%s: expected a non-empty array of values", s->file,
                            key);
        if (json_array_size(arr) > SIM_SWEEP_MAX_POINTS)
            return sim_errf(err, "%s: $.axes.%s: more than %d values", s->file, key,
                            SIM_SWEEP_MAX_POINTS);
        x->n = (int)json_array_size(arr);
        x->text = sim_xcalloc((size_t)x->n, sizeof *x->text, "sweep axis texts");
        p->vals[a] = sim_xcalloc((size_t)x->n, sizeof *p->vals[a], "sweep axis values");
        for (int j = 0; j < x->n; j++) {
            char buf[1024];
            json_t *v = json_array_get(arr, (size_t)j);
            if (value_text(v, buf, sizeof buf) != 0)
                return sim_errf(err, "%s: $.axes.%s[%d]: expected a number, a string, null "
                                     "or (for a plug-in's params) an object",
                                s->file, key, j);
            x->text[j] = sim_xstrdup(buf, "sweep axis value");
            p->vals[a][j] = v;
        }
        if (s->list && x->n != s->axes[0].n)
            return sim_errf(err, "%s: $.axes.%s: %d values, but $.axes.%s has %d (mode \"list\" "
                                 "zips axes of equal length)",
                            s->file, key, x->n, s->axes[0].path, s->axes[0].n);
        points *= x->n;
        a++;
    }
    if (s->list)
        points = s->axes[0].n;
    if (points > SIM_SWEEP_MAX_POINTS)
        return sim_errf(err, "%s: $.axes: %.0f points; at most %d", s->file, points,
                        SIM_SWEEP_MAX_POINTS);
    s->n_points = (int)points;
    return 0;
}

int sim_sweep_spec_load(sim_sweep_spec_t *s, const char *path, sim_err_t *err)
{
    memset(s, 0, sizeof *s);
    s->file = sim_xstrdup(path, "sweep spec name");
    spec_priv_t *p = sim_xcalloc(1, sizeof *p, "sweep spec");
    s->priv = p;
    if (sim_json_load(path, &p->root, err) != 0)
        goto fail;
    if (!json_is_object(p->root)) {
        sim_errf(err, "%s: $: expected an object", path);
        goto fail;
    }
    if (check_keys(p->root, path, err) != 0)
        goto fail;
    const json_t *mode = json_object_get(p->root, "mode");
    if (mode) {
        const char *m = json_string_value(mode);
        if (!m || (strcmp(m, "grid") != 0 && strcmp(m, "list") != 0)) {
            sim_errf(err, "%s: $.mode: expected \"grid\" (cartesian product) or \"list\" "
                          "(zipped axes)", path);
            goto fail;
        }
        s->list = strcmp(m, "list") == 0;
    }
    const json_t *d = json_object_get(p->root, "description");
    if (d && !json_is_string(d)) {
        sim_errf(err, "%s: $.description: expected a string", path);
        goto fail;
    }
    if (load_base(s, p->root, err) != 0 || load_axes(s, p, p->root, err) != 0)
        goto fail;
    /* spec.json: the spec as given and the base it resolved to, so a
     * changed base file also makes a different sweep. */
    json_t *rec = json_object();
    json_object_set(rec, "spec", p->root);
    json_object_set_new(rec, "base_config", sim_config_to_json(s->base));
    s->canon = json_dumps(rec, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(rec);
    if (!s->canon) {
        sim_errf(err, "%s: cannot encode the spec", path);
        goto fail;
    }
    return 0;
fail:
    sim_sweep_spec_free(s);
    return -1;
}

void sim_sweep_point_index(const sim_sweep_spec_t *s, int i, int *idx)
{
    SIM_ASSERT(i >= 0 && i < s->n_points);
    for (int a = s->n_axes - 1; a >= 0; a--) {
        if (s->list) {
            idx[a] = i;
        } else {
            idx[a] = i % s->axes[a].n;
            i /= s->axes[a].n;
        }
    }
}

void sim_sweep_point_dir(const sim_sweep_spec_t *s, int i, char *buf, size_t len)
{
    int width = 1;
    for (int n = s->n_points - 1; n >= 10; n /= 10)
        width++;
    char name[256];
    size_t o = (size_t)snprintf(name, sizeof name, "%0*d", width < 3 ? 3 : width, i);
    int idx[64];
    int *ix = s->n_axes <= 64 ? idx : sim_xmalloc(sizeof *ix * (size_t)s->n_axes, "sweep index");
    sim_sweep_point_index(s, i, ix);
    for (int a = 0; a < s->n_axes && o < 160; a++) {
        const char *key = strrchr(s->axes[a].path, '.');
        key = key ? key + 1 : s->axes[a].path;
        o += (size_t)snprintf(name + o, sizeof name - o, "_%s=%s", key,
                              s->axes[a].text[ix[a]]);
        if (o >= sizeof name)
            o = sizeof name - 1;
    }
    if (ix != idx)
        sim_free(ix);
    if (o > 160)
        o = 160;
    name[o] = '\0';
    for (char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '_' || *c == '-' || *c == '='))
            *c = '-';
    snprintf(buf, len, "%s", name);
}

int sim_sweep_point_config(const sim_sweep_spec_t *s, int i, sim_config_t *cfg, sim_err_t *err)
{
    const spec_priv_t *p = s->priv;
    int *idx = sim_xmalloc(sizeof *idx * (size_t)s->n_axes, "sweep index");
    sim_sweep_point_index(s, i, idx);
    *cfg = *s->base;
    int rc = 0;
    for (int a = 0; a < s->n_axes && rc == 0; a++) {
        char where[600];
        snprintf(where, sizeof where, "%s: $.axes.%s[%d]", s->file, s->axes[a].path, idx[a]);
        if (!json_is_null(p->vals[a][idx[a]]))
            rc = sim_config_set_json(cfg, s->axes[a].path, p->vals[a][idx[a]], where, err);
    }
    sim_free(idx);
    if (rc != 0)
        return -1;
    char src[1024], dir[256];
    sim_sweep_point_dir(s, i, dir, sizeof dir);
    snprintf(src, sizeof src, "%s (point %s)", s->file, dir);
    return sim_config_validate(cfg, src, err);
}

/* ---- running ---- */

typedef struct pool {
    const sim_sweep_spec_t *s;
    const sim_sweep_opts_t *o;
    sim_sweep_result_t *res;
    pthread_mutex_t mu;
    int next;   /* the next point to hand out */
    int mine;   /* points of this rank */
    int done, failed;
    double t0;
    int tty;
    trace_store_t *traces; /* the trace files the points read, parsed once */
} pool_t;

static void run_point(pool_t *p, int i, sim_config_t *cfg)
{
    const sim_sweep_spec_t *s = p->s;
    sim_sweep_result_t *r = &p->res[i];
    sim_err_t err;
    char dir[256], path[PATH_MAX];
    sim_sweep_point_dir(s, i, dir, sizeof dir);
    if (snprintf(path, sizeof path, "%s/%s", p->o->out_dir, dir) >= (int)sizeof path) {
        sim_errf(&err, "%s/%s: path too long", p->o->out_dir, dir);
        goto fail;
    }
    if (sim_sweep_point_config(s, i, cfg, &err) != 0)
        goto fail;
    sim_run_opts_t ro = {.config_src = s->base_path, .out_dir = path, .data_dir = p->o->data_dir,
                         .force = 1 /* sim_sweep_check_out guards the sweep's directory */,
                         .traces = p->traces};
    sim_run_result_t rr;
    if (sim_run(cfg, &ro, &rr, &err) != 0)
        goto fail;
    r->summary = rr.summary;
    return;
fail:
    r->failed = 1;
    snprintf(r->error, sizeof r->error, "%s", err.msg);
}

/* Under p->mu: the point's outcome and the progress line. */
static void report(pool_t *p, int i)
{
    p->done++;
    if (p->res[i].failed) {
        p->failed++;
        if (p->o->progress) {
            char dir[256];
            sim_sweep_point_dir(p->s, i, dir, sizeof dir);
            fprintf(stderr, "%smooncake-sim sweep: point %s failed: %s\n", p->tty ? "\r\033[K" : "",
                    dir, p->res[i].error);
        }
    }
    if (p->tty) {
        double el = sim_mono_s() - p->t0;
        fprintf(stderr, "\r  sweep: %d/%d points, %d failed, %.1f s elapsed, ~%.0f s left   ",
                p->done, p->mine, p->failed, el,
                p->done ? el / p->done * (p->mine - p->done) : 0.0);
    }
}

static int take(pool_t *p)
{
    const sim_sweep_opts_t *o = p->o;
    int i = p->next;
    while (i < p->s->n_points && i % o->n_ranks != o->rank)
        i++;
    p->next = i + 1;
    return i < p->s->n_points ? i : -1;
}

static void *worker(void *ud)
{
    pool_t *p = ud;
    sim_config_t *cfg = sim_xmalloc(sizeof *cfg, "sweep point config");
    for (;;) {
        pthread_mutex_lock(&p->mu);
        int i = take(p);
        pthread_mutex_unlock(&p->mu);
        if (i < 0)
            break;
        run_point(p, i, cfg);
        pthread_mutex_lock(&p->mu);
        report(p, i);
        pthread_mutex_unlock(&p->mu);
    }
    sim_free(cfg);
    return NULL;
}

int sim_sweep_run(const sim_sweep_spec_t *s, const sim_sweep_opts_t *o, sim_sweep_result_t *res)
{
    pool_t p = {.s = s, .o = o, .res = res, .t0 = sim_mono_s()};
    p.tty = o->progress && isatty(STDERR_FILENO);
    for (int i = o->rank; i < s->n_points; i += o->n_ranks)
        p.mine++;
    int jobs = o->jobs < p.mine ? o->jobs : p.mine;
    /* One run's directory in flight per worker, each in the signal
     * handler's table, which grows only before the workers start. */
    sim_out_reserve(jobs + 8);
    p.traces = trace_store_new(TRACE_STORE_MAX_BYTES);
    pthread_mutex_init(&p.mu, NULL);
    if (jobs <= 1) {
        worker(&p);
    } else {
        pthread_t *t = sim_xmalloc(sizeof *t * (size_t)jobs, "sweep workers");
        int started = 0;
        for (; started < jobs; started++)
            if (pthread_create(&t[started], NULL, worker, &p) != 0)
                break;
        if (started == 0)
            worker(&p); /* no thread could start: run them here */
        for (int k = 0; k < started; k++)
            pthread_join(t[k], NULL);
        sim_free(t);
    }
    pthread_mutex_destroy(&p.mu);
    trace_store_free(p.traces);
    if (p.tty)
        fputs("\r\033[K", stderr);
    return p.failed;
}

void sim_sweep_results_free(sim_sweep_result_t *res, int n)
{
    for (int i = 0; res && i < n; i++) {
        json_decref(res[i].summary);
        res[i].summary = NULL;
    }
}

/* ---- sweep.csv ---- */

typedef struct leaf {
    char *path;
    char text[40];
} leaf_t;

typedef struct leaves {
    leaf_t *v;
    size_t n, cap;
} leaves_t;

/* The numeric leaves of j under the dotted path path[0..len), in the
 * summary's own order (what sim_cmp_skipped names is left out). */
static void flatten(const json_t *j, char *path, size_t len, leaves_t *out)
{
    if (json_is_object(j)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)j, k, v) {
            int w = snprintf(path + len, 1024 - len, "%s%s", len ? "." : "", k);
            if (w > 0 && len + (size_t)w < 1024)
                flatten(v, path, len + (size_t)w, out);
            path[len] = '\0';
        }
        return;
    }
    if (!json_is_number(j) || sim_cmp_skipped(path))
        return;
    sim_grow((void **)&out->v, &out->cap, out->n + 1, sizeof out->v[0], "sweep leaves");
    leaf_t *l = &out->v[out->n++];
    l->path = sim_xstrdup(path, "sweep column");
    if (json_is_integer(j))
        snprintf(l->text, sizeof l->text, "%lld", (long long)json_integer_value(j));
    else
        sim_fmt_shortest(json_real_value(j), l->text, sizeof l->text);
}

static void leaves_clear(leaves_t *l)
{
    for (size_t i = 0; i < l->n; i++)
        sim_free(l->v[i].path);
    l->n = 0;
}

/* The column of name: the one at *cursor when it matches (the common case:
 * every summary has the same shape), else a search; appended when new. */
static size_t column(char ***cols, size_t *n, size_t *cap, size_t *cursor, const char *name)
{
    size_t c = *cursor;
    if (c >= *n || strcmp((*cols)[c], name) != 0) {
        for (c = 0; c < *n && strcmp((*cols)[c], name) != 0; c++)
            ;
        if (c == *n) {
            sim_grow((void **)cols, cap, *n + 1, sizeof **cols, "sweep columns");
            (*cols)[(*n)++] = sim_xstrdup(name, "sweep column");
        }
    }
    *cursor = c + 1;
    return c;
}

static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* The metric columns of sweep.csv: every numeric leaf of every summary,
 * first seen first. */
typedef struct columns {
    char **v;
    size_t n, cap;
} columns_t;

static void columns_free(columns_t *c)
{
    for (size_t i = 0; i < c->n; i++)
        sim_free(c->v[i]);
    sim_free(c->v);
}

/* Collect the columns of the points that have a summary into *cols; lv is
 * scratch (left empty). */
static void sweep_columns(const sim_sweep_spec_t *s, const sim_sweep_result_t *res,
                          columns_t *cols, leaves_t *lv)
{
    char path[1024];
    for (int i = 0; i < s->n_points; i++) {
        if (!res[i].summary)
            continue;
        path[0] = '\0';
        flatten(res[i].summary, path, 0, lv);
        size_t cur = 0;
        for (size_t k = 0; k < lv->n; k++)
            column(&cols->v, &cols->n, &cols->cap, &cur, lv->v[k].path);
        leaves_clear(lv);
    }
}

/* sweep.csv's header: point, dir, one column per axis, status, error,
 * then the metric columns. */
static void write_header(FILE *f, const sim_sweep_spec_t *s, const columns_t *cols)
{
    fputs("point,dir", f);
    for (int a = 0; a < s->n_axes; a++) {
        fputc(',', f);
        csv_field(f, s->axes[a].path);
    }
    fputs(",status,error", f);
    for (size_t c = 0; c < cols->n; c++) {
        fputc(',', f);
        csv_field(f, cols->v[c]);
    }
    fputc('\n', f);
}

/* Point i's row: its directory and axis values, its status and error, and
 * its summary's value in each metric column ("" where it has none, as for
 * a failed point). row (cols->n), idx (s->n_axes) and lv are scratch. */
static void write_row(FILE *f, const sim_sweep_spec_t *s, int i, const sim_sweep_result_t *r,
                      columns_t *cols, const char **row, int *idx, leaves_t *lv)
{
    char dir[256], path[1024];
    sim_sweep_point_dir(s, i, dir, sizeof dir);
    sim_sweep_point_index(s, i, idx);
    fprintf(f, "%d,", i);
    csv_field(f, dir);
    for (int a = 0; a < s->n_axes; a++) {
        fputc(',', f);
        csv_field(f, s->axes[a].text[idx[a]]);
    }
    fputs(r->failed ? ",failed," : ",ok,", f);
    if (r->failed)
        csv_field(f, r->error);
    for (size_t c = 0; c < cols->n; c++)
        row[c] = "";
    if (r->summary) {
        path[0] = '\0';
        flatten(r->summary, path, 0, lv);
        size_t cur = 0;
        for (size_t k = 0; k < lv->n; k++)
            row[column(&cols->v, &cols->n, &cols->cap, &cur, lv->v[k].path)] = lv->v[k].text;
    }
    for (size_t c = 0; c < cols->n; c++) {
        fputc(',', f);
        fputs(row[c], f);
    }
    fputc('\n', f);
    leaves_clear(lv);
}

/* ---- the sweep's directory ---- */

static int is_run_file(const char *name)
{
    for (size_t i = 0; sim_run_out_names[i]; i++)
        if (strcmp(sim_run_out_names[i], name) == 0)
            return 1;
    return 0;
}

static int is_sweep_file(const char *name)
{
    return strcmp(name, "sweep.csv") == 0 || strcmp(name, "spec.json") == 0;
}

/* 1 when path is a directory holding nothing but a run's files and hidden
 * entries (an empty one too): a point's directory. */
static int is_point_dir(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    DIR *dh = opendir(path);
    if (!dh)
        return 0;
    struct dirent *e;
    int ok = 1;
    while (ok && (e = readdir(dh)) != NULL)
        ok = e->d_name[0] == '.' || is_run_file(e->d_name);
    closedir(dh);
    return ok;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Remove from out_dir every point directory but those of s's points that
 * ran (an earlier spec's points, a point that failed this time), and the
 * leftovers of writers no longer alive. 0 or -1. */
static int prune(const sim_sweep_spec_t *s, const sim_sweep_result_t *res, const char *out_dir,
                 sim_err_t *err)
{
    char **keep = sim_xcalloc((size_t)s->n_points + 1, sizeof *keep, "sweep points kept");
    size_t n = 0;
    for (int i = 0; i < s->n_points; i++) {
        if (res[i].failed)
            continue;
        char dir[256];
        sim_sweep_point_dir(s, i, dir, sizeof dir);
        keep[n++] = sim_xstrdup(dir, "sweep point kept");
    }
    qsort(keep, n, sizeof *keep, cmp_str);
    int rc = 0;
    DIR *dh = opendir(out_dir);
    if (!dh)
        rc = sim_errf_io(err, "%s: cannot read: %s", out_dir, strerror(errno));
    struct dirent *e;
    char path[PATH_MAX];
    while (rc == 0 && dh && (e = readdir(dh)) != NULL) {
        const char *name = e->d_name;
        if (name[0] == '.' || is_sweep_file(name) || bsearch(&name, keep, n, sizeof *keep, cmp_str))
            continue;
        if (snprintf(path, sizeof path, "%s/%s", out_dir, name) < (int)sizeof path &&
            is_point_dir(path))
            rc = sim_out_remove_run(path, err);
    }
    if (dh)
        closedir(dh);
    for (size_t i = 0; i < n; i++)
        sim_free(keep[i]);
    sim_free(keep);
    return rc == 0 ? sim_out_reclaim(out_dir, NULL, err) : rc;
}

int sim_sweep_check_dir(const char *out_dir, sim_err_t *err)
{
    DIR *dh = opendir(out_dir);
    if (!dh) {
        if (errno == ENOENT)
            return 0;
        if (errno == ENOTDIR)
            return sim_errf(err, "%s: not a directory", out_dir);
        return sim_errf_io(err, "%s: cannot read: %s", out_dir, strerror(errno));
    }
    struct dirent *e;
    char path[PATH_MAX];
    int rc = 0;
    while (rc == 0 && (e = readdir(dh)) != NULL) {
        const char *name = e->d_name;
        if (name[0] == '.' || is_sweep_file(name))
            continue;
        if (is_run_file(name))
            rc = sim_errf(err, "%s: holds a run's output (%s), not a sweep's; choose another --out",
                          out_dir, name);
        else if (snprintf(path, sizeof path, "%s/%s", out_dir, name) >= (int)sizeof path ||
                 !is_point_dir(path))
            rc = sim_errf(err, "%s: holds '%s', which is not a sweep's output; choose a new or "
                               "empty --out",
                          out_dir, name);
    }
    closedir(dh);
    return rc;
}

int sim_sweep_write(const sim_sweep_spec_t *s, const sim_sweep_result_t *res, const char *out_dir,
                    sim_err_t *err)
{
    columns_t cols = {0};
    leaves_t lv = {0};
    sweep_columns(s, res, &cols, &lv);
    sim_out_file_t f = {0}, fs = {0};
    int created, rc = -1;
    const char **row = sim_xcalloc(cols.n ? cols.n : 1, sizeof *row, "sweep row");
    int *idx = sim_xmalloc(sizeof *idx * (size_t)s->n_axes, "sweep index");
    if (sim_out_mkdirs(out_dir, &created, err) != 0 ||
        sim_out_open(&f, out_dir, "sweep.csv", err) != 0 ||
        sim_out_open(&fs, out_dir, "spec.json", err) != 0)
        goto done;
    write_header(f.f, s, &cols);
    for (int i = 0; i < s->n_points; i++)
        write_row(f.f, s, i, &res[i], &cols, row, idx, &lv);
    fputs(s->canon, fs.f);
    fputc('\n', fs.f);
    if (sim_out_commit(&f, err) != 0 || sim_out_commit(&fs, err) != 0 ||
        prune(s, res, out_dir, err) != 0)
        goto done;
    rc = 0;
done:
    sim_out_abort(&f);
    sim_out_abort(&fs);
    columns_free(&cols);
    sim_free(lv.v);
    sim_free(row);
    sim_free(idx);
    return rc;
}

int sim_sweep_check_out(const sim_sweep_spec_t *s, const char *out_dir, sim_err_t *err)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/spec.json", out_dir);
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT ? 0 : sim_errf_io(err, "%s: cannot read: %s", path, strerror(errno));
    size_t want = strlen(s->canon), n = 0;
    char *buf = sim_xmalloc(want + 2, "sweep spec.json");
    n = fread(buf, 1, want + 2, f);
    fclose(f);
    int same = n == want + 1 && memcmp(buf, s->canon, want) == 0 && buf[want] == '\n';
    sim_free(buf);
    if (same)
        return 0;
    return sim_errf(err, "%s: holds a different sweep (its spec.json differs from %s); use "
                         "--force to overwrite it or choose another --out",
                    out_dir, s->file);
}
