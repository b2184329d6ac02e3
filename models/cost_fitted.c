/* models/cost_fitted.c: the "fitted" cost model: a prefill polynomial and
 * the decode roofline of models/roof.h (fixed time, achieved HBM and FLOPs
 * fractions) from a calibration file written by `calib fit` from
 * measurements. The fractions are of the experiment's model and hardware,
 * so a file fitted for one 70B model serves the other. The built-in file
 * for a hardware is <data_dir>/models/calib/<hardware>.json and lists the
 * models it covers. */
#include "models/cost.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/fit.h"
#include "models/roof.h"
#include "sim/jsonx.h"

typedef struct fitted {
    double prefill[MODEL_FIT_NCOEF];
    int decode_linear; /* a file from before the bounded form: decode_lin */
    double decode_lin[MODEL_FIT_NCOEF];
    model_roof_t roof;
    model_roof_eff_t eff;
    char source[8192];
} fitted_t;

static int read_coef(const json_t *root, const char *sect, const char *file, double c[3],
                     sim_err_t *err)
{
    json_t *s = json_object_get(root, sect), *arr;
    char at[64];
    snprintf(at, sizeof at, "$.%s", sect);
    if (!json_is_object(s))
        return sim_errf(err, "%s: %s: missing or not an object", file, at);
    if (sim_json_arr(s, "coef", file, at, &arr, err) != 0)
        return -1;
    if (json_array_size(arr) != MODEL_FIT_NCOEF)
        return sim_errf(err, "%s: %s.coef: expected %d numbers", file, at, MODEL_FIT_NCOEF);
    for (size_t i = 0; i < MODEL_FIT_NCOEF; i++) {
        json_t *v = json_array_get(arr, i);
        if (!json_is_number(v))
            return sim_errf(err, "%s: %s.coef[%zu]: expected a number", file, at, i);
        c[i] = json_number_value(v);
    }
    return 0;
}

/* $.decode: the bounded form (d0_s, eff_mem_weights, eff_mem_kv, eff_cmp,
 * n_gpus), or the old linear one (coef), still read. */
static int read_decode(const json_t *root, const char *file, const model_cost_args_t *a,
                       fitted_t *f, sim_err_t *err)
{
    json_t *s = json_object_get(root, "decode");
    if (!json_is_object(s))
        return sim_errf(err, "%s: $.decode: missing or not an object", file);
    if (json_object_get(s, "coef")) {
        f->decode_linear = 1;
        return read_coef(root, "decode", file, f->decode_lin, err);
    }
    static const char *const keys[] = {"eff_mem_weights", "eff_mem_kv", "eff_cmp"};
    double eff[3], n_gpus;
    if (sim_json_num(s, "d0_s", file, "$.decode", &f->eff.overhead_s, err) != 0 ||
        sim_json_num(s, "n_gpus", file, "$.decode", &n_gpus, err) != 0)
        return -1;
    if (!(f->eff.overhead_s >= 0) || !isfinite(f->eff.overhead_s))
        return sim_errf(err, "%s: $.decode.d0_s: must be >= 0 seconds (got %g)", file,
                        f->eff.overhead_s);
    for (int k = 0; k < 3; k++) {
        if (sim_json_num(s, keys[k], file, "$.decode", &eff[k], err) != 0)
            return -1;
        if (!(eff[k] > 0 && eff[k] <= 1))
            return sim_errf(err, "%s: $.decode.%s: must be in (0, 1], a fraction of the peak "
                                 "(got %g)", file, keys[k], eff[k]);
    }
    if (!(n_gpus >= 1 && n_gpus <= a->hw->n_gpus) || n_gpus != floor(n_gpus))
        return sim_errf(err, "%s: $.decode.n_gpus: must be a whole number from 1 to %d, the GPUs "
                             "of a '%s' node (got %g)", file, a->hw->n_gpus, a->hw->name, n_gpus);
    f->eff.mem_weights = eff[0];
    f->eff.mem_kv = eff[1];
    f->eff.cmp = eff[2];
    model_roof_init(&f->roof, a->hw, a->llm, (int)n_gpus);
    return 0;
}

static void *fitted_init(const model_cost_args_t *a, sim_err_t *err)
{
    /* A path; a bare name of a built-in file; or, empty, the built-in
     * file for (hardware, model), else for the hardware. */
    char path[4096];
    const char *dd = a->data_dir ? a->data_dir : ".";
    const char *cal = a->calibration ? a->calibration : "";
    if (cal[0])
        model_calib_path(cal, a->data_dir, path, sizeof path);
    else {
        snprintf(path, sizeof path, "%s/models/calib/%s-%s.json", dd, a->hw->name, a->llm->name);
        FILE *probe = fopen(path, "r");
        if (probe)
            fclose(probe);
        else
            snprintf(path, sizeof path, "%s/models/calib/%s.json", dd, a->hw->name);
    }
    json_t *root;
    if (sim_json_load(path, &root, err) != 0) {
        if (!cal[0])
            sim_errf(err, "no built-in calibration for hardware '%s' (%s); use cost.model "
                          "\"roofline\" or set cost.calibration",
                     a->hw->name, path);
        return NULL;
    }
    fitted_t *f = sim_xcalloc(1, sizeof *f, "fitted cost");
    const char *hw, *src;
    json_t *models;
    if (sim_json_str(root, "hardware", path, "$", &hw, err) != 0 ||
        sim_json_str(root, "source", path, "$", &src, err) != 0 ||
        sim_json_arr(root, "models", path, "$", &models, err) != 0 ||
        read_coef(root, "prefill", path, f->prefill, err) != 0)
        goto fail;
    if (strcmp(hw, a->hw->name) != 0) {
        sim_errf(err, "%s: $.hardware: calibration is for '%s', the experiment uses '%s'", path,
                 hw, a->hw->name);
        goto fail;
    }
    int covered = 0;
    for (size_t i = 0; i < json_array_size(models); i++) {
        const char *m = json_string_value(json_array_get(models, i));
        covered |= m && strcmp(m, a->llm->name) == 0;
    }
    if (!covered) {
        sim_errf(err, "%s: $.models: calibration does not cover model '%s'", path, a->llm->name);
        goto fail;
    }
    if (read_decode(root, path, a, f, err) != 0)
        goto fail;
    /* Built-in files are named relative to the project so results do not
     * depend on where it is checked out. */
    const char *shown = strstr(path, "/models/calib/");
    snprintf(f->source, sizeof f->source, "%s (%s)%s", src, shown ? shown + 1 : path,
             f->decode_linear ? " [linear decode form, not bounded outside its data]" : "");
    json_decref(root);
    return f;
fail:
    json_decref(root);
    sim_free(f);
    return NULL;
}

static void fitted_free(void *st) { sim_free(st); }

static double fitted_prefill_s(const void *st, int64_t n_tok, int64_t prefix_tok)
{
    const fitted_t *f = st;
    if (n_tok == prefix_tok)
        return 0;
    return model_fit_prefill_eval(f->prefill, (double)n_tok, (double)prefix_tok);
}

static double fitted_decode_s(const void *st, int64_t batch, int64_t ctx_tok)
{
    const fitted_t *f = st;
    if (f->decode_linear)
        return model_fit_decode_linear_eval(f->decode_lin, (double)batch, (double)ctx_tok);
    return model_roof_decode_s(&f->roof, &f->eff, (double)batch, (double)ctx_tok);
}

static const char *fitted_source(const void *st) { return ((const fitted_t *)st)->source; }

const model_cost_ops_t model_cost_fitted = {
    .name = "fitted",
    .help = "fitted to measurements (a calibration file): prefill polynomial, decode roofline",
    .init = fitted_init,
    .free = fitted_free,
    .prefill_s = fitted_prefill_s,
    .decode_s = fitted_decode_s,
    .source = fitted_source,
};
