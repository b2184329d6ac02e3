/* calib/fit.c: see fit.h. Measurements file: {source, date, hardware,
 * models[], prefill: [{n_tok, prefix_tok, s}], decode: [{batch, ctx_tok,
 * s}]}. Every point must be positive; fits are relative-error weighted. */
#include "calib/fit.h"

#include <jansson.h>
#include <stdio.h>

#include "models/fit.h"
#include "sim/jsonx.h"
#include "sim/out.h"

typedef struct sect_spec {
    const char *name;
    const char *xa, *xb; /* the two point fields */
    const char *form;
} sect_spec_t;

static const sect_spec_t sects[2] = {
    {"prefill", "n_tok", "prefix_tok", "T(n, p) = c0 + c1*(n - p) + c2*(n^2 - p^2) seconds"},
    {"decode", "batch", "ctx_tok", "T(B, ctx) = d0 + d1*B + d2*ctx seconds"},
};

/* Fit one section; returns a new JSON object or NULL (err filled). */
static json_t *fit_sect(const json_t *root, const sect_spec_t *sp, int is_prefill,
                        const char *file, FILE *report, sim_err_t *err)
{
    json_t *pts;
    if (sim_json_arr(root, sp->name, file, "$", &pts, err) != 0)
        return NULL;
    size_t n = json_array_size(pts);
    if (n < MODEL_FIT_NCOEF) {
        sim_errf(err, "%s: $.%s: need at least %d points, got %zu", file, sp->name,
                 MODEL_FIT_NCOEF, n);
        return NULL;
    }
    double *x = sim_xmalloc(n * MODEL_FIT_NCOEF * sizeof *x, "fit design");
    double *y = sim_xmalloc(n * sizeof *y, "fit y");
    json_t *out = NULL;
    for (size_t i = 0; i < n; i++) {
        json_t *pt = json_array_get(pts, i);
        char at[64];
        double a, b, s;
        snprintf(at, sizeof at, "$.%s[%zu]", sp->name, i);
        if (sim_json_num(pt, sp->xa, file, at, &a, err) != 0 ||
            sim_json_num(pt, sp->xb, file, at, &b, err) != 0 ||
            sim_json_num(pt, "s", file, at, &s, err) != 0)
            goto done;
        if (!(s > 0) || !(a > 0) || !(b >= 0) || (is_prefill && b > a)) {
            sim_errf(err, "%s: %s: need s > 0, %s > 0, 0 <= %s%s", file, at, sp->xa, sp->xb,
                     is_prefill ? " <= n_tok" : "");
            goto done;
        }
        double *r = &x[i * MODEL_FIT_NCOEF];
        r[0] = 1;
        r[1] = is_prefill ? a - b : a;
        r[2] = is_prefill ? a * a - b * b : b;
        y[i] = s;
    }
    model_fit_t fit;
    if (model_fit_wls(x, y, n, &fit) != 0) {
        sim_errf(err, "%s: $.%s: least-squares fit failed (points too few or degenerate)", file,
                 sp->name);
        goto done;
    }
    out = json_object();
    json_object_set_new(out, "form", json_string(sp->form));
    json_t *c = json_array();
    for (size_t j = 0; j < MODEL_FIT_NCOEF; j++)
        json_array_append_new(c, json_real(fit.coef[j]));
    json_object_set_new(out, "coef", c);
    json_object_set_new(out, "n_points", json_integer((json_int_t)fit.n_points));
    json_object_set_new(out, "r2", json_real(fit.r2));
    json_object_set_new(out, "max_rel_err", json_real(fit.max_rel_err));
    json_object_set_new(out, "mean_rel_err", json_real(fit.mean_rel_err));
    if (report)
        fprintf(report, "%-8s %zu points  R^2 %.5f  max rel err %.2f%%  mean %.2f%%\n",
                sp->name, n, fit.r2, 100 * fit.max_rel_err, 100 * fit.mean_rel_err);
done:
    sim_free(x);
    sim_free(y);
    return out;
}

int calib_fit_file(const char *in_path, const char *out_path, FILE *report, sim_err_t *err)
{
    json_t *root, *out = NULL, *models;
    const char *src, *date, *hw;
    int rc = -1;
    if (sim_json_load(in_path, &root, err) != 0)
        return -1;
    if (sim_json_str(root, "source", in_path, "$", &src, err) != 0 ||
        sim_json_str(root, "date", in_path, "$", &date, err) != 0 ||
        sim_json_str(root, "hardware", in_path, "$", &hw, err) != 0 ||
        sim_json_arr(root, "models", in_path, "$", &models, err) != 0)
        goto done;
    out = json_object();
    json_object_set_new(out, "hardware", json_string(hw));
    json_object_set(out, "models", models);
    json_object_set_new(out, "source", json_string(src));
    json_object_set_new(out, "date", json_string(date));
    json_object_set_new(out, "measurements", json_string(in_path));
    for (int i = 0; i < 2; i++) {
        json_t *s = fit_sect(root, &sects[i], i == 0, in_path, report, err);
        if (!s)
            goto done;
        json_object_set_new(out, sects[i].name, s);
    }
    rc = sim_out_write_json(out_path, out, err);
done:
    json_decref(out);
    json_decref(root);
    return rc;
}
