/* sim/exp/compare.c: see compare.h. Both summaries are flattened into arrays
 * sorted by path, so the table is one merge of the two and a bound's
 * metric is a binary search. */
#include "sim/exp/compare.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/core/jsonx.h"

#define PATH_LEN 1024

/* Fields that are not a function of the run's inputs. */
static const struct {
    const char *path, *why;
} skipped[] = {
    {"sim.wall_s", "the run's wall-clock time, not a function of its inputs"},
};

const char *sim_cmp_skipped(const char *path)
{
    for (size_t i = 0; i < sizeof skipped / sizeof skipped[0]; i++)
        if (strcmp(path, skipped[i].path) == 0)
            return skipped[i].why;
    return NULL;
}

static void add(sim_cmp_flat_t *f, const char *path, double v)
{
    sim_grow((void **)&f->m, &f->cap, f->n + 1, sizeof f->m[0], "compare metrics");
    f->m[f->n].path = sim_xstrdup(path, "compare metric path");
    f->m[f->n].value = v;
    f->n++;
}

/* Add the numeric leaves under j, whose dotted path is path[0..len). */
static int walk(const json_t *j, char *path, size_t len, sim_cmp_flat_t *f, sim_err_t *err)
{
    if (json_is_number(j)) {
        if (!sim_cmp_skipped(path))
            add(f, path, json_number_value(j));
        return 0;
    }
    if (json_is_object(j)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)j, k, v) {
            int n = snprintf(path + len, PATH_LEN - len, "%s%s", len ? "." : "", k);
            if (n < 0 || (size_t)n >= PATH_LEN - len)
                return sim_errf(err, "%s: $.%.*s: path too long", f->file, (int)len, path);
            if (walk(v, path, len + (size_t)n, f, err) != 0)
                return -1;
        }
        path[len] = '\0';
        return 0;
    }
    if (json_is_array(j)) {
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v) {
            int n = snprintf(path + len, PATH_LEN - len, "[%zu]", i);
            if (n < 0 || (size_t)n >= PATH_LEN - len)
                return sim_errf(err, "%s: $.%.*s: path too long", f->file, (int)len, path);
            if (walk(v, path, len + (size_t)n, f, err) != 0)
                return -1;
        }
        path[len] = '\0';
    }
    return 0; /* strings, booleans, null: not metrics */
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const sim_cmp_metric_t *)a)->path, ((const sim_cmp_metric_t *)b)->path);
}

int sim_cmp_flatten(const json_t *j, const char *file, sim_cmp_flat_t *out, sim_err_t *err)
{
    char path[PATH_LEN] = "";
    memset(out, 0, sizeof *out);
    out->file = sim_xstrdup(file, "compare file name");
    if (!json_is_object(j))
        return sim_errf(err, "%s: $: expected an object (a summary.json)", file);
    if (walk(j, path, 0, out, err) != 0)
        return -1;
    if (out->n == 0)
        return sim_errf(err, "%s: $: no numeric metrics (not a summary.json?)", file);
    qsort(out->m, out->n, sizeof out->m[0], by_path);
    for (size_t i = 1; i < out->n; i++)
        if (strcmp(out->m[i - 1].path, out->m[i].path) == 0)
            return sim_errf(err, "%s: $.%s: two fields flatten to this path", file, out->m[i].path);
    return 0;
}

int sim_cmp_load(const char *path, sim_cmp_flat_t *out, sim_err_t *err)
{
    struct stat st;
    char *file;
    size_t len = strlen(path);
    memset(out, 0, sizeof *out);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        file = sim_xmalloc(len + sizeof "/summary.json", "compare file name");
        snprintf(file, len + sizeof "/summary.json", "%s%s", path,
                 len && path[len - 1] == '/' ? "summary.json" : "/summary.json");
    } else {
        file = sim_xstrdup(path, "compare file name");
    }
    json_t *j;
    int rc = sim_json_load(file, &j, err);
    if (rc == 0) {
        rc = sim_cmp_flatten(j, file, out, err);
        json_decref(j);
    }
    sim_free(file);
    return rc;
}

void sim_cmp_flat_free(sim_cmp_flat_t *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n; i++)
        sim_free(f->m[i].path);
    sim_free(f->m);
    sim_free(f->file);
    memset(f, 0, sizeof *f);
}

const sim_cmp_metric_t *sim_cmp_find(const sim_cmp_flat_t *f, const char *path)
{
    sim_cmp_metric_t key = {.path = (char *)path};
    return f->n ? bsearch(&key, f->m, f->n, sizeof f->m[0], by_path) : NULL;
}

int sim_cmp_parse_bound(const char *arg, sim_cmp_bound_t *b, sim_err_t *err)
{
    memset(b, 0, sizeof *b);
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return sim_errf(err, "--max-regress %s: expected METRIC=BOUND (e.g. ttft_s.p90=5%% or "
                             "slo.attainment=-0.01)", arg);
    size_t mlen = (size_t)(eq - arg);
    if (mlen >= sizeof b->metric)
        return sim_errf(err, "--max-regress %s: metric name too long", arg);
    memcpy(b->metric, arg, mlen);
    b->metric[mlen] = '\0';
    const char *p = eq + 1;
    if (*p == '-' || *p == '+')
        b->falling_bad = *p++ == '-';
    /* Digits or '.' next: no second sign, blank, inf, nan or hex. */
    char *end;
    double v = strtod(p, &end);
    int bad = !(isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) ||
              end == p || !isfinite(v) || strncmp(p, "0x", 2) == 0 || strncmp(p, "0X", 2) == 0;
    if (!bad && *end == '%') {
        b->percent = 1;
        end++;
    }
    if (bad || *end)
        return sim_errf(err, "--max-regress %s: bad bound '%s': expected a number, optionally "
                             "signed, optionally followed by %% (5%%, -5%%, 0.01, -0.01)", arg, eq + 1);
    b->amount = v;
    return 0;
}

sim_cmp_eval_t sim_cmp_eval(const sim_cmp_bound_t *b, double base, double new_val)
{
    sim_cmp_eval_t e = {.base = base, .new_val = new_val};
    double allow = b->percent ? fabs(base) * b->amount / 100 : b->amount;
    double slack = 1e-9 * fmax(fabs(base), fabs(new_val));
    double delta = new_val - base;
    if (b->falling_bad) {
        e.limit = base - allow;
        e.violated = -delta > allow + slack;
    } else {
        e.limit = base + allow;
        e.violated = delta > allow + slack;
    }
    return e;
}

/* The metric a bound names, from f; -1 with a located message when it is
 * not one of f's numeric metrics. */
static int lookup(const sim_cmp_flat_t *f, const sim_cmp_bound_t *b, double *v, sim_err_t *err)
{
    const sim_cmp_metric_t *m = sim_cmp_find(f, b->metric);
    if (m) {
        *v = m->value;
        return 0;
    }
    const char *why = sim_cmp_skipped(b->metric);
    if (why)
        return sim_errf(err, "--max-regress %s: not compared (%s)", b->metric, why);
    return sim_errf(err, "--max-regress %s: %s: $.%s: no such numeric metric", b->metric, f->file,
                    b->metric);
}

int sim_cmp_check(const sim_cmp_flat_t *base, const sim_cmp_flat_t *new_f,
                  const sim_cmp_bound_t *b, size_t n_b, sim_cmp_eval_t *evals, sim_err_t *err)
{
    double *vb = sim_xcalloc(n_b + 1, sizeof *vb, "compare values");
    double *vn = sim_xcalloc(n_b + 1, sizeof *vn, "compare values");
    int n_viol = 0;
    for (size_t i = 0; i < n_b; i++)
        if (lookup(base, &b[i], &vb[i], err) != 0 || lookup(new_f, &b[i], &vn[i], err) != 0) {
            n_viol = -1;
            goto done;
        }
    for (size_t i = 0; i < n_b; i++) {
        sim_cmp_eval_t e = sim_cmp_eval(&b[i], vb[i], vn[i]);
        n_viol += e.violated;
        if (evals)
            evals[i] = e;
    }
done:
    sim_free(vb);
    sim_free(vn);
    return n_viol;
}

static void print_row(FILE *out, int w, const char *path, double base, double nv)
{
    double d = nv - base;
    fprintf(out, "%-*s %18.12g %18.12g %+18.12g", w, path, base, nv, d);
    if (base != 0)
        fprintf(out, " %+9.2f%%\n", 100 * d / fabs(base));
    else
        fprintf(out, " %10s\n", d == 0 ? "+0.00%" : "n/a");
}

/* Merge step over two sorted lists: <0 take a->m[i], >0 b->m[k], 0 both. */
static int merge_order(const sim_cmp_flat_t *a, size_t i, const sim_cmp_flat_t *b, size_t k)
{
    if (i == a->n)
        return 1;
    if (k == b->n)
        return -1;
    return strcmp(a->m[i].path, b->m[k].path);
}

/* The metrics a reader looks at first, in this order, at the head of the
 * table: latency (TTFT, TBT), the SLO, capacity, throughput. */
static const char *const headline[] = {
    "ttft_s.p50",     "ttft_s.p90",
    "ttft_s.p99",     "tbt_s.p90",
    "tbt_s.p99",      "tbt_top10_s.p90",
    "slo.attainment", "slo.effective_request_capacity",
    "throughput_rps", "goodput_rps",
};
#define N_HEADLINE (sizeof headline / sizeof headline[0])

static int is_headline(const char *path)
{
    for (size_t i = 0; i < N_HEADLINE; i++)
        if (strcmp(path, headline[i]) == 0)
            return 1;
    return 0;
}

void sim_cmp_print_table(FILE *out, const sim_cmp_flat_t *base, const sim_cmp_flat_t *new_f)
{
    int w = (int)strlen("metric");
    for (size_t i = 0; i < base->n; i++)
        w = SIM_MAX(w, (int)strlen(base->m[i].path));
    fprintf(out, "base: %s\nnew:  %s\n", base->file, new_f->file);
    fprintf(out, "%-*s %18s %18s %18s %10s\n", w, "metric", "base", "new", "delta", "rel");
    int n_head = 0;
    for (size_t h = 0; h < N_HEADLINE; h++) {
        const sim_cmp_metric_t *a = sim_cmp_find(base, headline[h]);
        const sim_cmp_metric_t *b = sim_cmp_find(new_f, headline[h]);
        if (a && b) {
            print_row(out, w, a->path, a->value, b->value);
            n_head++;
        }
    }
    if (n_head)
        fprintf(out, "(the rest by path)\n");
    size_t i = 0, k = 0, n_only = 0;
    while (i < base->n || k < new_f->n) {
        int c = merge_order(base, i, new_f, k);
        if (c == 0) {
            if (!is_headline(base->m[i].path))
                print_row(out, w, base->m[i].path, base->m[i].value, new_f->m[k].value);
            i++, k++;
        } else {
            n_only++;
            *(c < 0 ? &i : &k) += 1;
        }
    }
    /* The metrics of one summary only, after the table. */
    for (i = k = 0; n_only && (i < base->n || k < new_f->n);) {
        int c = merge_order(base, i, new_f, k);
        if (c == 0) {
            i++, k++;
        } else if (c < 0) {
            fprintf(out, "only in base: %s = %.12g\n", base->m[i].path, base->m[i].value);
            i++;
        } else {
            fprintf(out, "only in new:  %s = %.12g\n", new_f->m[k].path, new_f->m[k].value);
            k++;
        }
    }
}

void sim_cmp_print_eval(FILE *out, const sim_cmp_bound_t *b, const sim_cmp_eval_t *e)
{
    const char *dir = b->falling_bad ? "fall" : "rise";
    char amount[64];
    if (b->percent)
        snprintf(amount, sizeof amount, "%g%%", b->amount);
    else
        snprintf(amount, sizeof amount, "%g", b->amount);
    double d = e->new_val - e->base;
    char rel[32] = "";
    if (e->base != 0)
        snprintf(rel, sizeof rel, ", %+.2f%%", 100 * d / fabs(e->base));
    fprintf(out, "%s %s: %.12g -> %.12g (%+.12g%s); may %s by at most %s (limit %.12g)\n",
            e->violated ? "VIOLATED" : "ok", b->metric, e->base, e->new_val, d, rel, dir, amount,
            e->limit);
}

/* ---- sweeps: point by point ---- */

typedef struct sweep_points {
    char **dir;
    int *ok;
    size_t n, cap;
} sweep_points_t;

static void points_free(sweep_points_t *p)
{
    for (size_t i = 0; i < p->n; i++)
        sim_free(p->dir[i]);
    sim_free(p->dir);
    sim_free(p->ok);
    memset(p, 0, sizeof *p);
}

/* Split one CSV line in place into at most max fields (RFC 4180 quoting:
 * "a,b" and "" inside quotes). Returns the number of fields. */
static int csv_split(char *line, char **fields, int max)
{
    int n = 0;
    char *r = line, *w = line;
    while (n < max) {
        fields[n++] = w;
        int quoted = *r == '"';
        r += quoted;
        for (; *r; r++) {
            if (quoted && *r == '"') {
                if (r[1] != '"') {
                    quoted = 0;
                    continue;
                }
                r++;
            } else if (!quoted && *r == ',') {
                break;
            }
            *w++ = *r;
        }
        int more = *r == ',';
        *w++ = '\0';
        if (!more)
            break;
        r++;
    }
    return n;
}

/* The dir and status columns of sweep_dir/sweep.csv. 0 or -1. */
static int read_points(const char *sweep_dir, sweep_points_t *p, sim_err_t *err)
{
    char path[PATH_LEN + 16];
    snprintf(path, sizeof path, "%s/sweep.csv", sweep_dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return sim_errf(err, "%s: cannot open", path);
    char *line = NULL, *fields[4096];
    size_t cap = 0;
    int c_dir = -1, c_status = -1, lineno = 0, rc = 0;
    while (rc == 0 && getline(&line, &cap, f) > 0) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        int n = csv_split(line, fields, 4096);
        if (lineno == 1) {
            for (int i = 0; i < n; i++) {
                c_dir = strcmp(fields[i], "dir") ? c_dir : i;
                c_status = strcmp(fields[i], "status") ? c_status : i;
            }
            if (c_dir < 0 || c_status < 0)
                rc = sim_errf(err, "%s:1: no dir and status columns (not a sweep.csv)", path);
            continue;
        }
        if (n <= c_status || n <= c_dir) {
            rc = sim_errf(err, "%s:%d: too few columns", path, lineno);
            break;
        }
        sim_grow((void **)&p->dir, &p->cap, p->n + 1, sizeof *p->dir, "compare points");
        p->ok = sim_xrealloc(p->ok, p->cap * sizeof *p->ok, "compare point status");
        p->dir[p->n] = sim_xstrdup(fields[c_dir], "compare point");
        p->ok[p->n++] = !strcmp(fields[c_status], "ok");
    }
    free(line);
    fclose(f);
    if (rc == 0 && lineno == 0)
        rc = sim_errf(err, "%s: empty", path);
    return rc;
}

static int is_sweep(const char *path)
{
    char p[PATH_LEN + 16];
    struct stat st;
    snprintf(p, sizeof p, "%s/sweep.csv", path);
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int compare_one(const char *base, const char *new_path, const sim_cmp_bound_t *b,
                       size_t n_b, int quiet, FILE *out, const char *point, sim_err_t *err);

/* Two sweeps of the same points: each point's summaries compared, every
 * bound applied to every point. A point that failed in NEW but not in
 * BASE is a regression; one that failed in BASE is reported and skipped. */
static int compare_sweeps(const char *base, const char *new_path, const sim_cmp_bound_t *b,
                          size_t n_b, int quiet, FILE *out, sim_err_t *err)
{
    sweep_points_t pb = {0}, pn = {0};
    int rc = -1, worse = 0;
    if (read_points(base, &pb, err) != 0 || read_points(new_path, &pn, err) != 0)
        goto done;
    if (pb.n != pn.n) {
        sim_errf(err, "%s and %s: not the same sweep (%zu points against %zu)", base, new_path,
                 pb.n, pn.n);
        goto done;
    }
    for (size_t i = 0; i < pb.n; i++) {
        if (strcmp(pb.dir[i], pn.dir[i]) != 0) {
            sim_errf(err, "%s and %s: not the same sweep (point %zu is %s against %s)", base,
                     new_path, i, pb.dir[i], pn.dir[i]);
            goto done;
        }
    }
    for (size_t i = 0; i < pb.n; i++) {
        if (!pb.ok[i] || !pn.ok[i]) {
            int regressed = pb.ok[i] && !pn.ok[i];
            worse += regressed;
            fprintf(out, "%s point %s: failed in %s\n", regressed ? "VIOLATED" : "skipped",
                    pb.dir[i], pb.ok[i] ? "new" : pn.ok[i] ? "base" : "both");
            continue;
        }
        char pbp[2 * PATH_LEN], pnp[2 * PATH_LEN];
        snprintf(pbp, sizeof pbp, "%s/%s", base, pb.dir[i]);
        snprintf(pnp, sizeof pnp, "%s/%s", new_path, pn.dir[i]);
        int r = compare_one(pbp, pnp, b, n_b, quiet, out, pb.dir[i], err);
        if (r < 0)
            goto done;
        worse += r;
    }
    if (!quiet)
        fprintf(out, "compare: %zu points, %zu bound%s each, %d point%s regressed\n", pb.n, n_b,
                n_b == 1 ? "" : "s", worse, worse == 1 ? "" : "s");
    rc = worse > 0;
done:
    points_free(&pb);
    points_free(&pn);
    return rc;
}

int sim_cmp_compare(const char *base, const char *new_path, const sim_cmp_bound_t *b, size_t n_b,
                    int quiet, FILE *out, sim_err_t *err)
{
    int sb = is_sweep(base), sn = is_sweep(new_path);
    if (sb != sn)
        return sim_errf(err, "%s: %s, but %s is %s", sb ? base : new_path,
                        "a sweep (holds sweep.csv)", sb ? new_path : base, "not");
    if (sb)
        return compare_sweeps(base, new_path, b, n_b, quiet, out, err);
    return compare_one(base, new_path, b, n_b, quiet, out, NULL, err);
}

static int compare_one(const char *base, const char *new_path, const sim_cmp_bound_t *b,
                       size_t n_b, int quiet, FILE *out, const char *point, sim_err_t *err)
{
    sim_cmp_flat_t fb = {0}, fn = {0};
    sim_cmp_eval_t *ev = sim_xcalloc(n_b + 1, sizeof *ev, "compare outcomes");
    int rc = -1, n_viol;
    if (sim_cmp_load(base, &fb, err) != 0 || sim_cmp_load(new_path, &fn, err) != 0)
        goto done;
    if ((n_viol = sim_cmp_check(&fb, &fn, b, n_b, ev, err)) < 0)
        goto done;
    if (point && !quiet)
        fprintf(out, "== point %s\n", point);
    if (!quiet)
        sim_cmp_print_table(out, &fb, &fn);
    for (size_t i = 0; i < n_b; i++)
        if (!quiet || ev[i].violated) {
            if (point && quiet)
                fprintf(out, "point %s: ", point);
            sim_cmp_print_eval(out, &b[i], &ev[i]);
        }
    if (!quiet)
        fprintf(out, "compare: %zu bound%s checked, %d violated\n", n_b, n_b == 1 ? "" : "s",
                n_viol);
    rc = n_viol > 0;
done:
    sim_free(ev);
    sim_cmp_flat_free(&fb);
    sim_cmp_flat_free(&fn);
    return rc;
}
