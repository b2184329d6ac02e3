/* calib/fit.c: see fit.h. Three kinds of measurement file, told apart by
 * "kind": points measured end to end (the paper's figures: prefill and
 * decode [{..., s}]), "gpu" (calib/gpu per-layer GEMM and attention times,
 * scaled to a node by the layer count, and host-device copies) and
 * "network" (calib/net transfer times by size). Every fit is weighted
 * least squares on relative error; every point must be positive. Decode
 * is the roofline of models/roof.h: its compute fraction comes from the
 * prefill fit, its fixed time and HBM fractions from the decode points,
 * and a fraction above 100% is refused, not clamped. */
#include "calib/fit.h"

#include <gsl/gsl_fit.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/fit.h"
#include "models/roof.h"
#include "sim/core/jsonx.h"
#include "sim/exp/out.h"

/* A table of points being collected for one fit. */
typedef struct pts {
    double *y;
    double *a, *b; /* the two inputs as measured */
    size_t n, cap;
} pts_t;

static void pts_add(pts_t *p, double a, double b, double y)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->y = sim_xrealloc(p->y, p->cap * sizeof *p->y, "fit y");
        p->a = sim_xrealloc(p->a, p->cap * sizeof *p->a, "fit a");
        p->b = sim_xrealloc(p->b, p->cap * sizeof *p->b, "fit b");
    }
    p->a[p->n] = a;
    p->b[p->n] = b;
    p->y[p->n++] = y;
}

static void pts_free(pts_t *p)
{
    sim_free(p->y);
    sim_free(p->a);
    sim_free(p->b);
}

/* Decode rows as measured: batch, total context, seconds per step, and
 * for gpu files its weight-GEMM and attention parts (else -1). */
typedef struct drow {
    double b, ctx, s, gemm_s, attn_s;
} drow_t;

typedef struct drows {
    drow_t *r;
    size_t n, cap;
} drows_t;

static void drows_add(drows_t *d, drow_t row)
{
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 64;
        d->r = sim_xrealloc(d->r, d->cap * sizeof *d->r, "fit decode rows");
    }
    d->r[d->n++] = row;
}

/* $.prefill: the form, its coefficients, its ramp and the fit's
 * statistics. New reference. */
static json_t *fit_json(const char *form, const model_fit_t *f, double ramp_tok)
{
    json_t *out = json_object(), *c = json_array();
    json_object_set_new(out, "form", json_string(form));
    for (size_t j = 0; j < MODEL_FIT_NCOEF; j++)
        json_array_append_new(c, json_real(f->coef[j]));
    json_object_set_new(out, "coef", c);
    json_object_set_new(out, "ramp_tok", json_real(ramp_tok));
    json_object_set_new(out, "n_points", json_integer((json_int_t)f->n_points));
    json_object_set_new(out, "r2", json_real(f->r2));
    json_object_set_new(out, "max_rel_err", json_real(f->max_rel_err));
    json_object_set_new(out, "mean_rel_err", json_real(f->mean_rel_err));
    return out;
}

/* Fit the prefill form (models/fit.h) to p, append residual rows to res
 * (may be NULL) and a line to report. NULL with err on a degenerate set. */
static json_t *fit_prefill(const char *form, const pts_t *p, const char *file, FILE *report,
                           FILE *res, sim_err_t *err)
{
    model_fit_t f;
    double h = 0;
    if (p->n < MODEL_FIT_NCOEF || model_fit_prefill(p->a, p->b, p->y, p->n, &f, &h) != 0) {
        sim_errf(err, "%s: $.prefill: least-squares fit failed (need 3 or more distinct points "
                      "that some ramp fits with every coefficient >= 0, got %zu points)",
                 file, p->n);
        return NULL;
    }
    for (size_t i = 0; res && i < p->n; i++) {
        double pred = model_fit_prefill_eval(f.coef, h, p->a[i], p->b[i]);
        fprintf(res, "prefill,%zu,%.10g,%.10g,%.10g,%.10g,%.6f\n", i, p->a[i], p->b[i], p->y[i],
                pred, (pred - p->y[i]) / p->y[i]);
    }
    if (report)
        fprintf(report, "%-8s %zu points  R^2 %.5f  max rel err %.2f%%  mean %.2f%%  ramp %.0f "
                        "tokens\n", "prefill", p->n, f.r2, 100 * f.max_rel_err,
                100 * f.mean_rel_err, h);
    return fit_json(form, &f, h);
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

static const char PREFILL_FORM[] =
    "T(n, p) = c0 + c1*k + c2*(k + h)*(n + p) seconds, k = n - p new tokens, h = ramp_tok: "
    "fixed time per pass, dense time per token, attention time per unit of n^2 - p^2 at "
    "utilization k / (k + h)";
static const char DECODE_FORM[] =
    "T(B, ctx) = d0 + max(W / (HBM e_w), F_lin B / (FLOPS e_c)) + max(KV ctx / (HBM e_kv), "
    "F_attn ctx / (FLOPS e_c)) seconds; W, KV per token, F_lin per token and F_attn per "
    "(query, key) of the model, HBM and FLOPS the peaks of n_gpus GPUs (models/roof.h)";

/* Collect prefill and decode points: end-to-end seconds ("s"), or per
 * layer GEMM + attention seconds scaled by the layer count (gpu). */
static int collect(const json_t *root, int gpu, double layers, const char *file, pts_t *pf,
                   drows_t *dc, sim_err_t *err)
{
    const char *ps = gpu ? "prefill_layer" : "prefill", *ds = gpu ? "decode_layer" : "decode";
    json_t *pa, *da;
    if (sim_json_arr(root, ps, file, "$", &pa, err) != 0 ||
        sim_json_arr(root, ds, file, "$", &da, err) != 0)
        return -1;
    for (size_t i = 0; i < json_array_size(pa); i++) {
        double n, p, s, g, a;
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
        pts_add(pf, n, p, s);
    }
    for (size_t i = 0; i < json_array_size(da); i++) {
        drow_t d = {.gemm_s = -1, .attn_s = -1};
        double g, a;
        if (num_at(da, i, ds, "batch", 0, file, &d.b, err) || num_at(da, i, ds, "ctx_tok", 1, file, &d.ctx, err))
            return -1;
        if (gpu) {
            if (num_at(da, i, ds, "gemm_s", 0, file, &g, err) || num_at(da, i, ds, "attn_s", 0, file, &a, err))
                return -1;
            d.gemm_s = layers * g;
            d.attn_s = layers * a;
            d.s = d.gemm_s + d.attn_s;
            d.ctx *= d.b; /* per-request context in the file; the model takes the batch's total */
        } else if (num_at(da, i, ds, "s", 0, file, &d.s, err)) {
            return -1;
        }
        drows_add(dc, d);
    }
    return 0;
}

/* The instance the measurements are of: its hardware, model ("model", else
 * the first of "models") and GPU count ("tp", else the node's). */
static int decode_instance(const json_t *root, const char *hw_name, const json_t *models,
                           const char *file, model_roof_t *roof, const char **llm_name,
                           sim_err_t *err)
{
    char names[512];
    const model_hw_t *hw = model_hw_find(hw_name);
    if (!hw) {
        model_hw_names(names, sizeof names);
        return sim_errf(err, "%s: $.hardware: unknown hardware '%s' (valid: %s)", file, hw_name,
                        names);
    }
    const char *at = "$.model";
    const json_t *mj = json_object_get(root, "model");
    if (!mj) {
        at = "$.models[0]";
        mj = json_array_get(models, 0);
    }
    const model_llm_t *m = json_is_string(mj) ? model_llm_find(json_string_value(mj)) : NULL;
    if (!m) {
        model_llm_names(names, sizeof names);
        return sim_errf(err, "%s: %s: the decode fit needs a known model (valid: %s)", file, at,
                        names);
    }
    double tp = hw->n_gpus;
    if (json_object_get(root, "tp") && sim_json_num(root, "tp", file, "$", &tp, err) != 0)
        return -1;
    if (!(tp >= 1 && tp <= hw->n_gpus) || tp != floor(tp))
        return sim_errf(err, "%s: $.tp: must be a whole number from 1 to %d (got %g)", file,
                        hw->n_gpus, tp);
    model_roof_init(roof, hw, m, (int)tp);
    *llm_name = m->name;
    return 0;
}

/* The tensor cores' fraction of peak FLOPs into *e_c, from the prefill's
 * dense per-token cost c1 (seconds per token): those are the same weight
 * GEMMs, at compute-bound sizes. 0, or -1 with err when it falls outside
 * (0, 100%] (the hardware, tp or layers do not match the measurements). */
static int decode_eff_cmp(const model_roof_t *roof, double c1, const char *file, double *e_c,
                          sim_err_t *err)
{
    *e_c = roof->linear_flops_per_tok / (c1 * roof->peak_flops_per_s);
    if (!(c1 > 0) || !(*e_c <= 1))
        return sim_errf(err, "%s: $.prefill: c1 = %g s per token implies %.3g%% of the %g TFLOPS "
                             "of %d GPUs (must be in (0, 100%%]); check hardware, tp and layers",
                        file, c1, 100 * *e_c, roof->peak_flops_per_s / 1e12, roof->n_gpus);
    return 0;
}

/* The roofline-fit points of the decode rows: memory times at the full
 * HBM bandwidth, compute times at e_c of the peak. A gpu row gives one
 * weight-GEMM point g[i] and one attention point a[i]; an end-to-end row
 * one point a[i] over both parts (g is left alone). y[i] gets row i's
 * measured step time. All arrays hold dc->n. */
static void decode_points(const model_roof_t *roof, double e_c, int gpu, const drows_t *dc,
                          model_fit_roof_pt_t *g, model_fit_roof_pt_t *a, double *y)
{
    for (size_t i = 0; i < dc->n; i++) {
        model_roof_parts_t p;
        model_roof_decode_parts(roof, dc->r[i].b, dc->r[i].ctx, &p);
        y[i] = dc->r[i].s;
        if (gpu) {
            g[i] = (model_fit_roof_pt_t){.m = {p.weights_s, 0}, .c = {p.gemm_s / e_c, 0}, .y = dc->r[i].gemm_s};
            a[i] = (model_fit_roof_pt_t){.m = {p.kv_s, 0}, .c = {p.attn_s / e_c, 0}, .y = dc->r[i].attn_s};
        } else {
            a[i] = (model_fit_roof_pt_t){.m = {p.weights_s, p.kv_s},
                                         .c = {p.gemm_s / e_c, p.attn_s / e_c}, .y = y[i]};
        }
    }
}

/* Fit eff's fixed time and HBM fractions (eff->cmp already set) to the n
 * points of decode_points: gpu files fit the weights' fraction to the
 * GEMM points (g) and the fixed time and KV fraction to the attention
 * points (a); end-to-end points cannot split the two reads, so one
 * fraction serves both. 0, or -1 with err when the points cannot tell the
 * fixed time from the HBM time, or a fraction exceeds 100% (refused, not
 * clamped: the hardware would be slower than measured). */
static int decode_fit_eff(const model_roof_t *roof, int gpu, const model_fit_roof_pt_t *g,
                          const model_fit_roof_pt_t *a, size_t n, const char *ds, const char *file,
                          model_roof_eff_t *eff, sim_err_t *err)
{
    double u_w = 1, u_kv = 1, zero;
    if ((gpu && model_fit_roof(g, n, 0, &zero, &u_w) != 0) ||
        model_fit_roof(a, n, 1, &eff->overhead_s, &u_kv) != 0)
        return sim_errf(err, "%s: $.%s: decode fit failed: the points need at least two "
                             "different contexts to tell the fixed time from the HBM time",
                        file, ds);
    if (!gpu)
        u_w = u_kv;
    eff->mem_weights = 1 / u_w;
    eff->mem_kv = 1 / u_kv;
    const char *what[2] = {"weight reads", "KV reads"};
    double fr[2] = {eff->mem_weights, eff->mem_kv};
    for (int k = 0; k < 2; k++)
        if (!(fr[k] <= 1))
            return sim_errf(err, "%s: $.%s: the %s would run at %.3g%% of the %.4g TB/s HBM "
                                 "bandwidth of %d GPUs: faster than the hardware; check "
                                 "hardware, tp and layers",
                            file, ds, what[k], 100 * fr[k], roof->hbm_bytes_per_s / 1e12,
                            roof->n_gpus);
    return 0;
}

/* Predict every decode row with the fitted roofline: a residual row each
 * to res (may be NULL), the fit's statistics against the measured y[] to
 * *f. */
static void decode_residuals(const model_roof_t *roof, const model_roof_eff_t *eff,
                             const drows_t *dc, const double *y, FILE *res, model_fit_t *f)
{
    double *pred = sim_xmalloc(dc->n * sizeof *pred, "fit pred");
    for (size_t i = 0; i < dc->n; i++) {
        pred[i] = model_roof_decode_s(roof, eff, dc->r[i].b, dc->r[i].ctx);
        if (res)
            fprintf(res, "decode,%zu,%.10g,%.10g,%.10g,%.10g,%.6f\n", i, dc->r[i].b, dc->r[i].ctx,
                    y[i], pred[i], (pred[i] - y[i]) / y[i]);
    }
    model_fit_stats(pred, y, dc->n, f);
    sim_free(pred);
}

/* $.decode.derivation: where each parameter comes from, which depends on
 * whether the GEMM and attention parts were timed apart (gpu). New
 * reference. */
static json_t *decode_derivation_json(int gpu)
{
    json_t *why = json_object();
    json_object_set_new(why, "d0_s", json_string(
        gpu ? "fixed time per step: fitted to the attention parts (kernel time that does not grow "
              "with context)"
            : "fixed time per step (launches, tensor-parallel all-reduce latency, sampling): fitted"));
    json_object_set_new(why, "eff_mem_weights", json_string(
        gpu ? "HBM fraction of the weight GEMMs: fitted to the GEMM parts (no fixed term: "
              "launch time counts as reading time)"
            : "HBM fraction of the weight reads: equal to eff_mem_kv (end-to-end points cannot "
              "split the weights' time from d0)"));
    json_object_set_new(why, "eff_mem_kv", json_string(
        gpu ? "HBM fraction of the attention's KV reads: fitted to the attention parts"
            : "HBM fraction of all decode reads: fitted"));
    json_object_set_new(why, "eff_cmp", json_string(
        "peak-FLOPs fraction of the tensor cores: F_lin / (prefill c1 x FLOPS), the prefill's "
        "dense per-token cost being the same weight GEMMs at compute-bound sizes"));
    return why;
}

/* $.decode of the calibration: the form, the fitted efficiencies of the
 * instance roof (model llm_name), the rates they achieve, their
 * derivation and the fit's statistics f. New reference. */
static json_t *decode_json(int gpu, const model_roof_t *roof, const model_roof_eff_t *eff,
                           const char *llm_name, const model_fit_t *f)
{
    json_t *o = json_object(), *ach = json_object();
    json_object_set_new(o, "form", json_string(DECODE_FORM));
    json_object_set_new(o, "d0_s", json_real(eff->overhead_s));
    json_object_set_new(o, "eff_mem_weights", json_real(eff->mem_weights));
    json_object_set_new(o, "eff_mem_kv", json_real(eff->mem_kv));
    json_object_set_new(o, "eff_cmp", json_real(eff->cmp));
    json_object_set_new(o, "n_gpus", json_integer(roof->n_gpus));
    json_object_set_new(o, "fit_model", json_string(llm_name));
    json_object_set_new(o, "hbm_bytes_per_s", json_real(roof->hbm_bytes_per_s));
    json_object_set_new(o, "peak_flops_per_s", json_real(roof->peak_flops_per_s));
    json_object_set_new(ach, "weights_hbm_bytes_per_s", json_real(eff->mem_weights * roof->hbm_bytes_per_s));
    json_object_set_new(ach, "kv_hbm_bytes_per_s", json_real(eff->mem_kv * roof->hbm_bytes_per_s));
    json_object_set_new(ach, "flops_per_s", json_real(eff->cmp * roof->peak_flops_per_s));
    json_object_set_new(o, "achieved", ach);
    json_object_set_new(o, "derivation", decode_derivation_json(gpu));
    json_object_set_new(o, "n_points", json_integer((json_int_t)f->n_points));
    json_object_set_new(o, "r2", json_real(f->r2));
    json_object_set_new(o, "max_rel_err", json_real(f->max_rel_err));
    json_object_set_new(o, "mean_rel_err", json_real(f->mean_rel_err));
    return o;
}

/* Fit the decode roofline: e_c from the prefill's c1; then d0 and one HBM
 * fraction from end-to-end points (they cannot split the weights' time
 * from the fixed time), or, where the GEMM and attention parts are timed
 * apart (gpu), e_w from the GEMM parts and d0 and e_kv from attention.
 * Residual rows go to res and a summary to report (both may be NULL).
 * $.decode (new reference), or NULL with err. */
static json_t *fit_decode(const json_t *root, int gpu, const char *hw_name, const json_t *models,
                          double c1, const drows_t *dc, const char *file, FILE *report, FILE *res,
                          sim_err_t *err)
{
    const char *ds = gpu ? "decode_layer" : "decode";
    model_roof_t roof;
    const char *llm_name = NULL;
    double e_c;
    if (decode_instance(root, hw_name, models, file, &roof, &llm_name, err) != 0)
        return NULL;
    if (dc->n < 2) {
        sim_errf(err, "%s: $.%s: need at least 2 points, got %zu", file, ds, dc->n);
        return NULL;
    }
    if (decode_eff_cmp(&roof, c1, file, &e_c, err) != 0)
        return NULL;
    model_fit_roof_pt_t *g = sim_xcalloc(dc->n, sizeof *g, "fit decode");
    model_fit_roof_pt_t *a = sim_xcalloc(dc->n, sizeof *a, "fit decode");
    double *y = sim_xmalloc(dc->n * sizeof *y, "fit y");
    model_roof_eff_t eff = {.cmp = e_c};
    json_t *o = NULL;
    decode_points(&roof, e_c, gpu, dc, g, a, y);
    if (decode_fit_eff(&roof, gpu, g, a, dc->n, ds, file, &eff, err) == 0) {
        model_fit_t f;
        decode_residuals(&roof, &eff, dc, y, res, &f);
        o = decode_json(gpu, &roof, &eff, llm_name, &f);
        if (report)
            fprintf(report,
                    "%-8s %zu points  R^2 %.5f  max rel err %.2f%%  mean %.2f%%\n"
                    "         d0 %.3g ms, HBM %.1f%% (weights) %.1f%% (KV), tensor cores %.1f%% of %d GPUs\n",
                    "decode", f.n_points, f.r2, 100 * f.max_rel_err, 100 * f.mean_rel_err,
                    1e3 * eff.overhead_s, 100 * eff.mem_weights, 100 * eff.mem_kv, 100 * eff.cmp,
                    roof.n_gpus);
    }
    sim_free(g);
    sim_free(a);
    sim_free(y);
    return o;
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

/* The file's "kind" (default "points") into *kind (borrowed from root),
 * with *gpu and *net set for the two other kinds. 0, or -1 with err when
 * it is not a string or not a kind this tool reads. */
static int fit_kind(const json_t *root, const char *file, const char **kind, int *gpu, int *net,
                    sim_err_t *err)
{
    json_t *k = json_object_get(root, "kind");
    if (k && !json_is_string(k))
        return sim_errf(err, "%s: $.kind: expected a string", file);
    *kind = k ? json_string_value(k) : "points";
    *gpu = strcmp(*kind, "gpu") == 0;
    *net = strcmp(*kind, "network") == 0;
    if (!*gpu && !*net && strcmp(*kind, "points") != 0)
        return sim_errf(err, "%s: $.kind: unknown kind '%s' (valid: points, gpu, network)", file,
                        *kind);
    return 0;
}

/* The calibration's provenance, before any fit: kind, the instance's
 * hardware and models (NULL for a network file), source, date and the
 * measurements file it was fitted to. New reference. */
static json_t *fit_header(const char *kind, const char *hw, json_t *models, const char *src,
                          const char *date, const char *in_path)
{
    json_t *out = json_object();
    json_object_set_new(out, "kind", json_string(kind));
    if (hw)
        json_object_set_new(out, "hardware", json_string(hw));
    if (models)
        json_object_set(out, "models", models);
    json_object_set_new(out, "source", json_string(src));
    json_object_set_new(out, "date", json_string(date));
    json_object_set_new(out, "measurements", json_string(in_path));
    return out;
}

/* A network file's fits into out: the transport's name, the testbed's NIC
 * rate when the file gives one (efficiencies are relative to it) and the
 * link's latency and bandwidth ("network"). Residual rows go to res, a
 * line to report (may be NULL). 0, or -1 with err. */
static int fit_network(const json_t *root, json_t *out, const char *file, FILE *report, FILE *res,
                       sim_err_t *err)
{
    const char *tr = "?";
    json_t *t = json_object_get(root, "transport"), *sect;
    if (json_is_string(t))
        tr = json_string_value(t);
    json_object_set_new(out, "transport", json_string(tr));
    if (json_object_get(root, "nic_bytes_per_s")) { /* the testbed's NICs, for efficiency */
        double nic;
        if (sim_json_num(root, "nic_bytes_per_s", file, "$", &nic, err) != 0)
            return -1;
        if (!(nic > 0))
            return sim_errf(err, "%s: $.nic_bytes_per_s: must be > 0", file);
        json_object_set_new(out, "nic_bytes_per_s", json_real(nic));
    }
    if (!(sect = fit_sizes(root, "points", "s", "network", file, report, res, err)))
        return -1;
    json_object_set_new(out, "network", sect);
    return 0;
}

/* An instance's fits into out: prefill, then decode (its compute fraction
 * from the prefill's c1), and for gpu files (per-layer times scaled by
 * "layers", their "gpu" object carried over) the host-device copies when
 * measured. Residual rows go to res, lines to report (may be NULL). 0, or
 * -1 with err. */
static int fit_instance(const json_t *root, json_t *out, int gpu, const char *hw,
                        const json_t *models, const char *file, FILE *report, FILE *res,
                        sim_err_t *err)
{
    pts_t pf = {0};
    drows_t dc = {0};
    double layers = 1;
    json_t *sect;
    int rc = -1;
    if (gpu) {
        if (sim_json_num(root, "layers", file, "$", &layers, err) != 0)
            goto done;
        json_t *g = json_object_get(root, "gpu");
        if (g)
            json_object_set(out, "gpu", g);
    }
    if (collect(root, gpu, layers, file, &pf, &dc, err) != 0)
        goto done;
    if (!(sect = fit_prefill(PREFILL_FORM, &pf, file, report, res, err)))
        goto done;
    json_object_set_new(out, "prefill", sect);
    double c1 = json_number_value(json_array_get(json_object_get(sect, "coef"), 1));
    if (!(sect = fit_decode(root, gpu, hw, models, c1, &dc, file, report, res, err)))
        goto done;
    json_object_set_new(out, "decode", sect);
    if (gpu && json_object_get(root, "copies")) {
        if (!(sect = fit_sizes(root, "copies", "h2d_s", "h2d", file, report, res, err)))
            goto done;
        json_object_set_new(out, "h2d", sect);
    }
    rc = 0;
done:
    pts_free(&pf);
    sim_free(dc.r);
    return rc;
}

/* OUT.residuals.png from OUT.residuals.csv by gnuplot, and a line saying
 * how that went to report (may be NULL). A missing gnuplot is not an
 * error: the CSV is the result. */
static void plot_residuals(const char *out_path, FILE *report)
{
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

int calib_fit_file(const char *in_path, const char *out_path, FILE *report, int plot,
                   sim_err_t *err)
{
    json_t *root, *out = NULL, *models = NULL;
    const char *src, *date, *hw = NULL, *kind = "points";
    sim_out_file_t res = {0};
    int gpu = 0, net = 0, rc = -1;
    if (sim_json_load(in_path, &root, err) != 0)
        return -1;
    if (fit_kind(root, in_path, &kind, &gpu, &net, err) != 0 ||
        sim_json_str(root, "source", in_path, "$", &src, err) != 0 ||
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
    out = fit_header(kind, hw, models, src, date, in_path);
    if ((net ? fit_network(root, out, in_path, report, res.f, err)
             : fit_instance(root, out, gpu, hw, models, in_path, report, res.f, err)) != 0)
        goto done;
    if (sim_out_write_json(out_path, out, err) != 0 || sim_out_commit(&res, err) != 0)
        goto done;
    if (plot)
        plot_residuals(out_path, report);
    rc = 0;
done:
    sim_out_abort(&res);
    json_decref(out);
    json_decref(root);
    return rc;
}
