/* calib/report.c: see report.h. */
#include "calib/report.h"

#include <math.h>
#include <string.h>

#include <jansson.h>

#include "calib/fit.h"
#include "models/cost.h"
#include "models/roof.h"
#include "sim/core/jsonx.h"
#include "sim/exp/out.h"

static const int64_t PROMPTS[] = {8192, 16384, 32768, 65536, 131072};
/* Decode steps shown: batch x context per request. */
static const int64_t STEPS[][2] = {{1, 8192},   {1, 131072}, {16, 8192},
                                   {64, 8192},  {256, 4096}, {16, 131072}};
/* The roofline cost model at the config's defaults (sim/exp/config.c cost.*). */
static const double ROOF_MFU = 0.5, ROOF_MBU = 0.5, ROOF_OVERHEAD_S = 0.005;

static const char *str_or(const json_t *j, const char *dflt)
{
    const char *v = json_string_value(j);
    return v ? v : dflt;
}

/* The decode section: its form, parameters and what they mean. */
static void print_decode(FILE *out, const json_t *s)
{
    json_t *c = json_object_get(s, "coef");
    if (c) { /* the linear form of older files */
        fprintf(out, "           coef %.6g, %.6g, %.6g (linear: not bounded outside its data)\n",
                json_number_value(json_array_get(c, 0)), json_number_value(json_array_get(c, 1)),
                json_number_value(json_array_get(c, 2)));
        return;
    }
    json_t *ach = json_object_get(s, "achieved");
    double hbm = json_number_value(json_object_get(s, "hbm_bytes_per_s"));
    double peak = json_number_value(json_object_get(s, "peak_flops_per_s"));
    fprintf(out, "           d0 %.4g ms (fixed per step), on %lld GPUs (fitted to %s)\n",
            1e3 * json_number_value(json_object_get(s, "d0_s")),
            (long long)json_integer_value(json_object_get(s, "n_gpus")),
            str_or(json_object_get(s, "fit_model"), "?"));
    fprintf(out, "           HBM: weights %.1f%% (%.3g TB/s), KV %.1f%% (%.3g TB/s) of %.3g TB/s\n",
            100 * json_number_value(json_object_get(s, "eff_mem_weights")),
            json_number_value(json_object_get(ach, "weights_hbm_bytes_per_s")) / 1e12,
            100 * json_number_value(json_object_get(s, "eff_mem_kv")),
            json_number_value(json_object_get(ach, "kv_hbm_bytes_per_s")) / 1e12, hbm / 1e12);
    fprintf(out, "           tensor cores %.1f%% (%.3g of %.3g PFLOPS)\n",
            100 * json_number_value(json_object_get(s, "eff_cmp")),
            json_number_value(json_object_get(ach, "flops_per_s")) / 1e15, peak / 1e15);
}

/* Decode step times of c beside the roofline at its defaults and the HBM
 * floor (100% of bandwidth and FLOPs on the whole node). */
static int print_steps(FILE *out, const model_cost_t *c, const model_cost_args_t *a, sim_err_t *err)
{
    model_cost_args_t ra = *a;
    ra.mfu = ROOF_MFU;
    ra.mbu = ROOF_MBU;
    ra.overhead_s = ROOF_OVERHEAD_S;
    model_cost_t *r = model_cost_new("roofline", &ra, err);
    if (!r)
        return -1;
    model_roof_t roof;
    model_roof_init(&roof, a->hw, a->llm, a->hw->n_gpus);
    fprintf(out, "\n  decode step, ms (%s on %s)\n  %14s  %10s  %10s  %10s\n", a->llm->name,
            a->hw->name, "batch x ctx", "this file", "roofline", "HBM floor");
    for (size_t i = 0; i < sizeof STEPS / sizeof STEPS[0]; i++) {
        int64_t b = STEPS[i][0], ctx = b * STEPS[i][1];
        char shape[32];
        snprintf(shape, sizeof shape, "%lld x %lldk", (long long)b, (long long)(STEPS[i][1] / 1024));
        fprintf(out, "  %14s  %10.2f  %10.2f  %10.2f\n", shape,
                (double)model_cost_decode_ns(c, b, ctx) / 1e6,
                (double)model_cost_decode_ns(r, b, ctx) / 1e6,
                1e3 * model_roof_decode_floor_s(&roof, (double)b, (double)ctx));
    }
    fprintf(out, "  (roofline: mbu %.2g, mfu %.2g, overhead %.3g s, the config defaults)\n", ROOF_MBU,
            ROOF_MFU, ROOF_OVERHEAD_S);
    model_cost_free(r);
    return 0;
}

/* The paper's FAST'25 Fig. 14 point for (n, cached share) from the
 * calibration data, or -1. kind: "prefill" or "decode". */
static double paper_point(const json_t *pts, const char *kind, int64_t n, int cached)
{
    json_t *arr = json_object_get(pts, kind);
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *p = json_array_get(arr, i);
        const char *from = json_string_value(json_object_get(p, "from"));
        if (!from || strncmp(from, "fast25_fig14", 12) != 0)
            continue;
        if (kind[0] == 'p') {
            double pn = json_number_value(json_object_get(p, "n_tok"));
            double pp = json_number_value(json_object_get(p, "prefix_tok"));
            if ((int64_t)pn == n && ((pp > 0) == (cached != 0)))
                return json_number_value(json_object_get(p, "s"));
        } else if ((int64_t)json_number_value(json_object_get(p, "ctx_tok")) == n + 64) {
            return 128 * json_number_value(json_object_get(p, "s"));
        }
    }
    return -1;
}

/* The calibration's provenance: its source, date, hardware and models. */
static void print_header(FILE *out, const char *path, const json_t *root)
{
    const char *src = json_string_value(json_object_get(root, "source"));
    const char *date = json_string_value(json_object_get(root, "date"));
    const char *hw = json_string_value(json_object_get(root, "hardware"));
    json_t *models = json_object_get(root, "models");
    fprintf(out, "calibration %s\n  source   %s\n  date     %s\n", path, src ? src : "?",
            date ? date : "?");
    if (hw)
        fprintf(out, "  hardware %s, models", hw);
    for (size_t i = 0; i < json_array_size(models); i++)
        fprintf(out, " %s", json_string_value(json_array_get(models, i)));
    fputc('\n', out);
}

/* Every fitted section the file holds (prefill, decode, h2d, network):
 * its form, its parameters and the fit's statistics. */
static void print_sections(FILE *out, const json_t *root)
{
    static const char *const sects[] = {"prefill", "decode", "h2d", "network"};
    for (size_t k = 0; k < 4; k++) {
        json_t *s = json_object_get(root, sects[k]);
        if (!s)
            continue;
        fprintf(out, "  %-8s %s\n", sects[k], str_or(json_object_get(s, "form"), "?"));
        json_t *c = json_object_get(s, "coef");
        if (!strcmp(sects[k], "decode"))
            print_decode(out, s);
        else if (c)
            fprintf(out, "           coef %.6g, %.6g, %.6g\n", json_number_value(json_array_get(c, 0)),
                    json_number_value(json_array_get(c, 1)), json_number_value(json_array_get(c, 2)));
        else
            fprintf(out, "           latency %.4g s, bandwidth %.4g GB/s\n",
                    json_number_value(json_object_get(s, "latency_s")),
                    json_number_value(json_object_get(s, "bandwidth_bytes_per_s")) / 1e9);
        fprintf(out, "           %lld points, R^2 %.5f, max rel err %.2f%%, mean %.2f%%\n",
                (long long)json_integer_value(json_object_get(s, "n_points")),
                json_number_value(json_object_get(s, "r2")),
                100 * json_number_value(json_object_get(s, "max_rel_err")),
                100 * json_number_value(json_object_get(s, "mean_rel_err")));
    }
}

/* Prefill (no prefix, 95% cached) and 128-token decode times of c for
 * each of PROMPTS, beside the paper's measurements when paper (the
 * FAST'25 data file, may be NULL) is given. */
static void print_predictions(FILE *out, const model_cost_t *c, const json_t *paper)
{
    fprintf(out, "\n  predictions%s\n",
            paper ? " (in brackets: the paper's measurements on A800 nodes, FAST'25 Fig. 14)" : "");
    fprintf(out, "  %8s  %-18s  %-18s  %-20s\n", "prompt", "  prefill 0% s", "  prefill 95% s",
            "  decode 128 tok s");
    for (size_t i = 0; i < sizeof PROMPTS / sizeof PROMPTS[0]; i++) {
        int64_t n = PROMPTS[i];
        double p0 = (double)model_cost_prefill_ns(c, n, 0) / 1e9;
        double p95 = (double)model_cost_prefill_ns(c, n, (int64_t)llround(0.95 * (double)n)) / 1e9;
        double d128 = 0;
        for (int k = 0; k < 128; k++)
            d128 += (double)model_cost_decode_ns(c, 1, n + k) / 1e9;
        char b0[32] = "", b1[32] = "", b2[32] = "";
        if (paper) {
            snprintf(b0, sizeof b0, " (%.2f)", paper_point(paper, "prefill", n, 0));
            snprintf(b1, sizeof b1, " (%.2f)", paper_point(paper, "prefill", n, 1));
            snprintf(b2, sizeof b2, " (%.2f)", paper_point(paper, "decode", n, 0));
        }
        fprintf(out, "  %7lldk  %10.2f%-8s  %10.2f%-8s  %12.2f%-8s\n", (long long)(n / 1024), p0,
                b0, p95, b1, d128, b2);
    }
}

/* What the fitted cost model of the calibration at path predicts on its
 * hardware and first model: the prompt table (with the paper's points
 * from data_dir's calib/data when they are there) and the decode steps.
 * 0, or -1 with err (unknown hardware or model, a cost model that cannot
 * load). */
static int print_model(FILE *out, const char *path, const char *data_dir, const char *hw,
                       const char *llm, sim_err_t *err)
{
    model_cost_args_t a = {.hw = model_hw_find(hw), .llm = model_llm_find(llm),
                           .calibration = path, .data_dir = data_dir};
    if (!a.hw || !a.llm)
        return sim_errf(err, "%s: $.hardware / $.models: unknown hardware or model", path);
    model_cost_t *c = model_cost_new("fitted", &a, err);
    if (!c)
        return -1;
    char pp[4200];
    snprintf(pp, sizeof pp, "%s/calib/data/paper-a800x8-llama70b.json", data_dir ? data_dir : ".");
    json_t *paper = NULL;
    sim_json_load(pp, &paper, NULL);
    print_predictions(out, c, paper);
    json_decref(paper);
    int rc = print_steps(out, c, &a, err);
    model_cost_free(c);
    return rc;
}

int calib_report(const char *path, const char *data_dir, FILE *out, sim_err_t *err)
{
    json_t *root;
    if (sim_json_load(path, &root, err) != 0)
        return -1;
    print_header(out, path, root);
    print_sections(out, root);
    const char *hw = json_string_value(json_object_get(root, "hardware"));
    json_t *models = json_object_get(root, "models");
    int rc = 0;
    if (json_object_get(root, "prefill") && hw && json_array_size(models) > 0)
        rc = print_model(out, path, data_dir, hw, json_string_value(json_array_get(models, 0)),
                         err);
    json_decref(root);
    return rc;
}

int calib_roofline(const char *hardware, const char *model, const char *out_path, FILE *report,
                   sim_err_t *err)
{
    model_cost_args_t a = {.hw = model_hw_find(hardware), .llm = model_llm_find(model),
                           .mfu = ROOF_MFU, .mbu = ROOF_MBU, .overhead_s = ROOF_OVERHEAD_S};
    char names[512];
    if (!a.hw) {
        model_hw_names(names, sizeof names);
        return sim_errf(err, "--hardware %s: unknown hardware (valid: %s)", hardware, names);
    }
    if (!a.llm) {
        model_llm_names(names, sizeof names);
        return sim_errf(err, "--model %s: unknown model (valid: %s)", model, names);
    }
    model_cost_t *c = model_cost_new("roofline", &a, err);
    if (!c)
        return -1;
    json_t *root = json_object(), *pf = json_array(), *dc = json_array(), *ms = json_array();
    char src[1200];
    snprintf(src, sizeof src, "spec-derived roofline, NOT MEASURED: %s (%s)", model_cost_source(c),
             a.hw->source);
    json_object_set_new(root, "about", json_string("Points sampled from the roofline cost model "
                                                   "(no measurement), to be fitted like measurements."));
    json_object_set_new(root, "source", json_string(src));
    json_object_set_new(root, "date", json_string("not measured"));
    json_object_set_new(root, "hardware", json_string(hardware));
    /* The two 70B models share their shapes, hence one calibration. */
    if (!strcmp(model, "llama2-70b") || !strcmp(model, "llama3-70b")) {
        json_array_append_new(ms, json_string("llama2-70b"));
        json_array_append_new(ms, json_string("llama3-70b"));
    } else {
        json_array_append_new(ms, json_string(model));
    }
    json_object_set_new(root, "models", ms);
    json_object_set_new(root, "model", json_string(model)); /* the one sampled */
    for (int64_t n = 4096; n <= 131072; n *= 2)
        for (int cached = 0; cached < 2; cached++) {
            int64_t p = cached ? (int64_t)llround(0.95 * (double)n) : 0;
            json_t *pt = json_object();
            json_object_set_new(pt, "n_tok", json_integer(n));
            json_object_set_new(pt, "prefix_tok", json_integer(p));
            json_object_set_new(pt, "s", json_real((double)model_cost_prefill_ns(c, n, p) / 1e9));
            json_array_append_new(pf, pt);
        }
    for (int64_t b = 1; b <= 256; b *= 2)
        for (int64_t ctx = 2048; ctx <= 32768; ctx *= 4) {
            json_t *pt = json_object();
            json_object_set_new(pt, "batch", json_integer(b));
            json_object_set_new(pt, "ctx_tok", json_integer(b * ctx));
            json_object_set_new(pt, "s", json_real((double)model_cost_decode_ns(c, b, b * ctx) / 1e9));
            json_array_append_new(dc, pt);
        }
    json_object_set_new(root, "prefill", pf);
    json_object_set_new(root, "decode", dc);
    model_cost_free(c);
    char pts[4200];
    snprintf(pts, sizeof pts, "%s.points.json", out_path);
    int rc = sim_out_write_json(pts, root, err);
    json_decref(root);
    if (rc == 0)
        rc = calib_fit_file(pts, out_path, report, 0, err);
    return rc;
}
