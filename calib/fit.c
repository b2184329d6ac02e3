/* calib/fit.c: see fit.h. Three kinds of measurement file, told apart by
 * "kind": points measured end to end (the paper's figures: prefill and
 * decode [{..., s}]), "gpu" (calib/gpu per-layer GEMM and attention times,
 * scaled to a node by the layer count, and host-device copies) and
 * "network" (calib/net transfer times by size). Every fit is weighted
 * least squares on relative error; every point must be positive. */
#include "calib/fit.h"

#include <gsl/gsl_fit.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/fit.h"
#include "sim/jsonx.h"
#include "sim/out.h"

/* A table of points being collected for one fit. */
typedef struct pts {
    double *x; /* MODEL_FIT_NCOEF regressors per point */
    double *y;
    double *a, *b; /* the two inputs as measured, for residuals */
    size_t n, cap;
} pts_t;

static void pts_add(pts_t *p, const double row[MODEL_FIT_NCOEF], double a, double b, double y)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->x = sim_xrealloc(p->x, p->cap * MODEL_FIT_NCOEF * sizeof *p->x, "fit x");
        p->y = sim_xrealloc(p->y, p->cap * sizeof *p->y, "fit y");
        p->a = sim_xrealloc(p->a, p->cap * sizeof *p->a, "fit a");
        p->b = sim_xrealloc(p->b, p->cap * sizeof *p->b, "fit b");
    }
    memcpy(&p->x[p->n * MODEL_FIT_NCOEF], row, MODEL_FIT_NCOEF * sizeof *row);
    p->a[p->n] = a;
    p->b[p->n] = b;
    p->y[p->n++] = y;
}

static void pts_free(pts_t *p)
{
    sim_free(p->x);
    sim_free(p->y);
    sim_free(p->a);
    sim_free(p->b);
}

static json_t *fit_json(const char *form, const model_fit_t *f)
{
    json_t *out = json_object(), *c = json_array();
    json_object_set_new(out, "form", json_string(form));
    for (size_t j = 0; j < MODEL_FIT_NCOEF; j++)
        json_array_append_new(c, json_real(f->coef[j]));
    json_object_set_new(out, "coef", c);
    json_object_set_new(out, "n_points", json_integer((json_int_t)f->n_points));
    json_object_set_new(out, "r2", json_real(f->r2));
    json_object_set_new(out, "max_rel_err", json_real(f->max_rel_err));
    json_object_set_new(out, "mean_rel_err", json_real(f->mean_rel_err));
    return out;
}

/* Fit a three-term model to p, append residual rows to res (may be NULL)
 * and a line to report. NULL with err on a degenerate set. */
static json_t *fit_poly(const char *name, const char *form, const pts_t *p, const char *file,
                        FILE *report, FILE *res, sim_err_t *err)
{
    model_fit_t f;
    if (p->n < MODEL_FIT_NCOEF || model_fit_wls(p->x, p->y, p->n, &f) != 0) {
        sim_errf(err, "%s: $.%s: least-squares fit failed (need 3 or more distinct points, got %zu)",
                 file, name, p->n);
        return NULL;
    }
    for (size_t i = 0; res && i < p->n; i++) {
        double pred = 0;
        for (size_t j = 0; j < MODEL_FIT_NCOEF; j++)
            pred += f.coef[j] * p->x[i * MODEL_FIT_NCOEF + j];
        fprintf(res, "%s,%zu,%.10g,%.10g,%.10g,%.10g,%.6f\n", name, i, p->a[i], p->b[i], p->y[i],
                pred, (pred - p->y[i]) / p->y[i]);
    }
    if (report)
        fprintf(report, "%-8s %zu points  R^2 %.5f  max rel err %.2f%%  mean %.2f%%\n", name, p->n,
                f.r2, 100 * f.max_rel_err, 100 * f.mean_rel_err);
    return fit_json(form, &f);
}

/* time = latency + bytes / bandwidth, by GSL's weighted linear fit. */
static json_t *fit_link(const char *name, const double *bytes, const double *s, size_t n,
                        const char *file, FILE *report, FILE *res, sim_err_t *err)
{
    if (n < 2) {
        sim_errf(err, "%s: $.%s: need at least 2 sizes, got %zu", file, name, n);
        return NULL;
    }
    double *w = sim_xmalloc(n * sizeof *w, "fit w");
    for (size_t i = 0; i < n; i++)
        w[i] = 1.0 / (s[i] * s[i]);
    double c0, c1, v00, v01, v11, chisq;
    gsl_fit_wlinear(bytes, 1, w, 1, s, 1, n, &c0, &c1, &v00, &v01, &v11, &chisq);
    sim_free(w);
    if (!(c1 > 0)) {
        sim_errf(err, "%s: $.%s: times do not grow with size; cannot fit a bandwidth", file, name);
        return NULL;
    }
    double mean = 0, ss_tot = 0, ss_res = 0, max_rel = 0, sum_rel = 0;
    for (size_t i = 0; i < n; i++)
        mean += s[i] / (double)n;
    for (size_t i = 0; i < n; i++) {
        double pred = c0 + c1 * bytes[i], rel = fabs(pred - s[i]) / s[i];
        ss_res += (pred - s[i]) * (pred - s[i]);
        ss_tot += (s[i] - mean) * (s[i] - mean);
        max_rel = rel > max_rel ? rel : max_rel;
        sum_rel += rel;
        if (res)
            fprintf(res, "%s,%zu,%.10g,0,%.10g,%.10g,%.6f\n", name, i, bytes[i], s[i], pred,
                    (pred - s[i]) / s[i]);
    }
    json_t *o = json_object();
    json_object_set_new(o, "form", json_string("t(bytes) = latency_s + bytes / bandwidth"));
    json_object_set_new(o, "latency_s", json_real(c0 > 0 ? c0 : 0));
    json_object_set_new(o, "bandwidth_bytes_per_s", json_real(1.0 / c1));
    json_object_set_new(o, "n_points", json_integer((json_int_t)n));
    json_object_set_new(o, "r2", json_real(ss_tot > 0 ? 1 - ss_res / ss_tot : 1));
    json_object_set_new(o, "max_rel_err", json_real(max_rel));
    json_object_set_new(o, "mean_rel_err", json_real(sum_rel / (double)n));
    if (report)
        fprintf(report, "%-8s %zu points  latency %.3g s  bandwidth %.3g GB/s  max rel err %.2f%%\n",
                name, n, c0, 1e-9 / c1, 100 * max_rel);
    return o;
}

/* Read arr[i].key as a positive (or, with zero_ok, non-negative) number. */
static int num_at(const json_t *arr, size_t i, const char *sect, const char *key, int zero_ok,
                  const char *file, double *out, sim_err_t *err)
{
    char at[96];
    snprintf(at, sizeof at, "$.%s[%zu]", sect, i);
    if (sim_json_num(json_array_get(arr, i), key, file, at, out, err) != 0)
        return -1;
    if (!(zero_ok ? *out >= 0 : *out > 0) || !isfinite(*out))
        return sim_errf(err, "%s: %s.%s: must be %s (got %g)", file, at, key,
                        zero_ok ? ">= 0" : "> 0", *out);
    return 0;
}

static void prefill_row(double n, double p, double row[MODEL_FIT_NCOEF])
{
    row[0] = 1;
    row[1] = n - p;
    row[2] = n * n - p * p;
}

static void decode_row(double b, double ctx, double row[MODEL_FIT_NCOEF])
{
    row[0] = 1;
    row[1] = b;
    row[2] = ctx;
}

static const char PREFILL_FORM[] = "T(n, p) = c0 + c1*(n - p) + c2*(n^2 - p^2) seconds";
static const char DECODE_FORM[] = "T(B, ctx) = d0 + d1*B + d2*ctx seconds";

/* Collect prefill and decode points: end-to-end seconds ("s"), or per
 * layer GEMM + attention seconds scaled by the layer count (gpu). */
static int collect(const json_t *root, int gpu, double layers, const char *file, pts_t *pf,
                   pts_t *dc, sim_err_t *err)
{
    const char *ps = gpu ? "prefill_layer" : "prefill", *ds = gpu ? "decode_layer" : "decode";
    json_t *pa, *da;
    if (sim_json_arr(root, ps, file, "$", &pa, err) != 0 ||
        sim_json_arr(root, ds, file, "$", &da, err) != 0)
        return -1;
    for (size_t i = 0; i < json_array_size(pa); i++) {
        double n, p, s, g, a, row[MODEL_FIT_NCOEF];
        if (num_at(pa, i, ps, "n_tok", 0, file, &n, err) || num_at(pa, i, ps, "prefix_tok", 1, file, &p, err))
            return -1;
        if (gpu) {
            if (num_at(pa, i, ps, "gemm_s", 0, file, &g, err) || num_at(pa, i, ps, "attn_s", 0, file, &a, err))
                return -1;
            s = layers * (g + a);
        } else if (num_at(pa, i, ps, "s", 0, file, &s, err)) {
            return -1;
        }
        if (p > n)
            return sim_errf(err, "%s: $.%s[%zu]: prefix_tok %g exceeds n_tok %g", file, ps, i, p, n);
        prefill_row(n, p, row);
        pts_add(pf, row, n, p, s);
    }
    for (size_t i = 0; i < json_array_size(da); i++) {
        double b, ctx, s, g, a, row[MODEL_FIT_NCOEF];
        if (num_at(da, i, ds, "batch", 0, file, &b, err) || num_at(da, i, ds, "ctx_tok", 1, file, &ctx, err))
            return -1;
        if (gpu) {
            if (num_at(da, i, ds, "gemm_s", 0, file, &g, err) || num_at(da, i, ds, "attn_s", 0, file, &a, err))
                return -1;
            s = layers * (g + a);
            ctx *= b; /* per-request context in the file; the model takes the batch's total */
        } else if (num_at(da, i, ds, "s", 0, file, &s, err)) {
            return -1;
        }
        decode_row(b, ctx, row);
        pts_add(dc, row, b, ctx, s);
    }
    return 0;
}

/* Fit "copies" (gpu) or "points" (network): bytes -> seconds. */
static json_t *fit_sizes(const json_t *root, const char *sect, const char *tkey, const char *name,
                         const char *file, FILE *report, FILE *res, sim_err_t *err)
{
    json_t *arr;
    if (sim_json_arr(root, sect, file, "$", &arr, err) != 0)
        return NULL;
    size_t n = json_array_size(arr);
    double *bytes = sim_xmalloc((n + 1) * sizeof *bytes, "fit bytes");
    double *s = sim_xmalloc((n + 1) * sizeof *s, "fit s");
    json_t *out = NULL;
    for (size_t i = 0; i < n; i++)
        if (num_at(arr, i, sect, "bytes", 0, file, &bytes[i], err) ||
            num_at(arr, i, sect, tkey, 0, file, &s[i], err))
            goto done;
    out = fit_link(name, bytes, s, n, file, report, res, err);
done:
    sim_free(bytes);
    sim_free(s);
    return out;
}

int calib_fit_file(const char *in_path, const char *out_path, FILE *report, int plot,
                   sim_err_t *err)
{
    json_t *root, *out = NULL, *models = NULL, *sect;
    const char *src, *date, *hw = NULL, *kind = "points";
    pts_t pf = {0}, dc = {0};
    sim_out_file_t res = {0};
    int rc = -1;
    if (sim_json_load(in_path, &root, err) != 0)
        return -1;
    json_t *k = json_object_get(root, "kind");
    if (k && !json_is_string(k)) {
        sim_errf(err, "%s: $.kind: expected a string", in_path);
        goto done;
    }
    if (k)
        kind = json_string_value(k);
    int gpu = strcmp(kind, "gpu") == 0, net = strcmp(kind, "network") == 0;
    if (!gpu && !net && strcmp(kind, "points") != 0) {
        sim_errf(err, "%s: $.kind: unknown kind '%s' (valid: points, gpu, network)", in_path, kind);
        goto done;
    }
    if (sim_json_str(root, "source", in_path, "$", &src, err) != 0 ||
        sim_json_str(root, "date", in_path, "$", &date, err) != 0)
        goto done;
    if (!net && (sim_json_str(root, "hardware", in_path, "$", &hw, err) != 0 ||
                 sim_json_arr(root, "models", in_path, "$", &models, err) != 0))
        goto done;
    /* Residuals beside the output: OUT.residuals.csv (and .png). */
    char rpath[4200];
    snprintf(rpath, sizeof rpath, "%s.residuals.csv", out_path);
    if (sim_out_open_path(&res, rpath, err) != 0)
        goto done;
    fputs("model,point,a,b,measured_s,fitted_s,rel_err\n", res.f);
    out = json_object();
    json_object_set_new(out, "kind", json_string(kind));
    if (hw)
        json_object_set_new(out, "hardware", json_string(hw));
    if (models)
        json_object_set(out, "models", models);
    json_object_set_new(out, "source", json_string(src));
    json_object_set_new(out, "date", json_string(date));
    json_object_set_new(out, "measurements", json_string(in_path));
    if (net) {
        const char *tr = "?";
        json_t *t = json_object_get(root, "transport");
        if (json_is_string(t))
            tr = json_string_value(t);
        json_object_set_new(out, "transport", json_string(tr));
        if (json_object_get(root, "nic_bytes_per_s")) { /* the testbed's NICs, for efficiency */
            double nic;
            if (sim_json_num(root, "nic_bytes_per_s", in_path, "$", &nic, err) != 0)
                goto done;
            if (!(nic > 0)) {
                sim_errf(err, "%s: $.nic_bytes_per_s: must be > 0", in_path);
                goto done;
            }
            json_object_set_new(out, "nic_bytes_per_s", json_real(nic));
        }
        if (!(sect = fit_sizes(root, "points", "s", "network", in_path, report, res.f, err)))
            goto done;
        json_object_set_new(out, "network", sect);
    } else {
        double layers = 1;
        if (gpu) {
            if (sim_json_num(root, "layers", in_path, "$", &layers, err) != 0)
                goto done;
            json_t *g = json_object_get(root, "gpu");
            if (g)
                json_object_set(out, "gpu", g);
        }
        if (collect(root, gpu, layers, in_path, &pf, &dc, err) != 0)
            goto done;
        if (!(sect = fit_poly("prefill", PREFILL_FORM, &pf, in_path, report, res.f, err)))
            goto done;
        json_object_set_new(out, "prefill", sect);
        if (!(sect = fit_poly("decode", DECODE_FORM, &dc, in_path, report, res.f, err)))
            goto done;
        json_object_set_new(out, "decode", sect);
        if (gpu && json_object_get(root, "copies")) {
            if (!(sect = fit_sizes(root, "copies", "h2d_s", "h2d", in_path, report, res.f, err)))
                goto done;
            json_object_set_new(out, "h2d", sect);
        }
    }
    if (sim_out_write_json(out_path, out, err) != 0 || sim_out_commit(&res, err) != 0)
        goto done;
    if (plot) {
        char cmd[8192];
        snprintf(cmd, sizeof cmd,
                 "gnuplot -e \"datafile='%s.residuals.csv'; outfile='%s.residuals.png'\" "
                 "plots/calib_residuals.gp 2>/dev/null",
                 out_path, out_path);
        if (system(cmd) != 0 && report)
            fprintf(report, "residual plot: gnuplot failed (needs plots/calib_residuals.gp)\n");
        else if (report)
            fprintf(report, "residuals: %s.residuals.csv, %s.residuals.png\n", out_path, out_path);
    }
    rc = 0;
done:
    sim_out_abort(&res);
    pts_free(&pf);
    pts_free(&dc);
    json_decref(out);
    json_decref(root);
    return rc;
}
