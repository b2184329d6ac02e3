/* models/cost_fitted.c: the "fitted" cost model: the prefill pass of
 * models/fit.h (fixed part, dense GEMMs, attention at a utilization that
 * ramps with the pass's new tokens; files without a ramp are the form
 * before it) and the decode roofline of models/roof.h (fixed time, achieved HBM and FLOPs
 * fractions) from a calibration file written by `calib fit` from
 * measurements. The fractions are of the experiment's model and hardware,
 * so a file fitted for one 70B model serves the other. The built-in file
 * for a hardware is <data_dir>/models/calib/<hardware>.json and lists the
 * models it covers. Every number a file gives is checked for physics when
 * it is read (plausible_prefill, plausible_decode): a file can make the
 * simulator slow, never make it crash or time run backwards. */
#include "models/cost.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/fit.h"
#include "models/roof.h"
#include "sim/core/jsonx.h"

typedef struct fitted {
    double prefill[MODEL_FIT_NCOEF];
    double prefill_ramp_tok; /* h of the prefill form; 0 in files from before it */
    int decode_linear; /* a file from before the bounded form: decode_lin */
    double decode_lin[MODEL_FIT_NCOEF];
    model_roof_t roof;
    model_roof_eff_t eff;
    char source[8192];
    char path[4096]; /* the calibration file read */
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
        /* Each term is work that costs time: a negative one makes long
         * passes take negative time. */
        if (!(c[i] >= 0) || !isfinite(c[i]))
            return sim_errf(err, "%s: %s.coef[%zu]: must be a finite number >= 0 (got %g)", file,
                            at, i, c[i]);
    }
    return 0;
}

/* ---- the file's keys: every key known, every number in a range ----
 * A calibration file holds the fitted parameters that the model reads
 * (checked, for physics, where they are read) and provenance
 * (fit quality, the peaks the fractions are of, the GPU measured) that
 * tools and readers trust. A misspelt key would be ignored silently and
 * a provenance number of 1e300 would mislead, so unknown keys are
 * refused with their JSON path, as in configs, and every number has a
 * physical range (docs/calibration.md lists them). */

/* Bandwidths (HBM of a node, host-to-device) stay below 1 PB/s and
 * FLOPs below 1 EFLOPS: far above any node (8 x H200: 38.4 TB/s,
 * 7.9 PFLOPS), far below a typo's 1e300. */
#define CALIB_MAX_BYTES_PER_S 1e15
#define CALIB_MAX_FLOPS_PER_S 1e18

/* CK_READ: a parameter the model reads, checked there (type, range,
 * physics) with the message that names its effect. */
typedef enum { CK_STR, CK_NUM, CK_INT, CK_ARR, CK_OBJ, CK_READ } calib_kind_t;

typedef struct calib_key {
    const char *key;
    calib_kind_t kind;
    double lo, hi;  /* CK_NUM, CK_INT: the range, lo excluded when lo_open */
    int lo_open;
    const char *unit;
    const struct calib_key *sub; /* CK_OBJ: its keys, ending with a NULL key */
} calib_key_t;

#define K_STR(k) {k, CK_STR, 0, 0, 0, NULL, NULL}
#define K_ARR(k) {k, CK_ARR, 0, 0, 0, NULL, NULL}
#define K_READ(k) {k, CK_READ, 0, 0, 0, NULL, NULL}
#define K_OBJ(k, sub) {k, CK_OBJ, 0, 0, 0, NULL, sub}
#define K_NUM(k, lo, hi, open, unit) {k, CK_NUM, lo, hi, open, unit, NULL}
#define K_INT(k, lo, hi, unit) {k, CK_INT, lo, hi, 0, unit, NULL}
/* A fit's quality, in every fitted section. */
#define K_FIT                                                                                      \
    K_INT("n_points", 0, 1e9, "points"), K_NUM("r2", -1e6, 1, 0, ""),                            \
        K_NUM("max_rel_err", 0, 1e6, 0, ""), K_NUM("mean_rel_err", 0, 1e6, 0, "")

static const calib_key_t calib_prefill[] = {
    K_STR("form"), K_READ("coef"), K_READ("ramp_tok"), K_FIT, {NULL}};
static const calib_key_t calib_achieved[] = {
    K_NUM("weights_hbm_bytes_per_s", 0, CALIB_MAX_BYTES_PER_S, 1, "bytes/s"),
    K_NUM("kv_hbm_bytes_per_s", 0, CALIB_MAX_BYTES_PER_S, 1, "bytes/s"),
    K_NUM("flops_per_s", 0, CALIB_MAX_FLOPS_PER_S, 1, "FLOP/s"), {NULL}};
static const calib_key_t calib_derivation[] = {
    K_STR("d0_s"), K_STR("eff_mem_weights"), K_STR("eff_mem_kv"), K_STR("eff_cmp"), {NULL}};
static const calib_key_t calib_decode[] = {
    K_STR("form"), K_READ("coef"), K_READ("d0_s"), K_READ("eff_mem_weights"),
    K_READ("eff_mem_kv"), K_READ("eff_cmp"), K_READ("n_gpus"), K_STR("fit_model"),
    K_NUM("hbm_bytes_per_s", 0, CALIB_MAX_BYTES_PER_S, 1, "bytes/s"),
    K_NUM("peak_flops_per_s", 0, CALIB_MAX_FLOPS_PER_S, 1, "FLOP/s"),
    K_OBJ("achieved", calib_achieved), K_OBJ("derivation", calib_derivation), K_FIT, {NULL}};
static const calib_key_t calib_gpu[] = {
    K_STR("name"), K_INT("driver", 0, 1e9, ""), K_INT("runtime", 0, 1e9, ""),
    K_INT("sm_clock_mhz", 0, 1e5, "MHz"), K_INT("mem_clock_mhz", 0, 1e5, "MHz"),
    K_NUM("memory_gb", 0, 1e5, 1, "GB"), K_INT("count_used", 1, 1024, "GPUs"), {NULL}};
static const calib_key_t calib_h2d[] = {
    K_STR("form"), K_NUM("latency_s", 0, 10, 0, "s"),
    K_NUM("bandwidth_bytes_per_s", 0, CALIB_MAX_BYTES_PER_S, 1, "bytes/s"), K_FIT, {NULL}};
static const calib_key_t calib_root[] = {
    K_STR("kind"), K_STR("hardware"), K_ARR("models"), K_STR("source"), K_STR("date"),
    K_STR("measurements"), K_OBJ("prefill", calib_prefill), K_OBJ("decode", calib_decode),
    K_OBJ("gpu", calib_gpu), K_OBJ("h2d", calib_h2d), {NULL}};

/* The keys of keys[], comma-separated, into buf. */
static void calib_key_names(const calib_key_t *keys, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const calib_key_t *k = keys; k->key && used < len; k++) {
        int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", k->key);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* obj (at JSON path at) against keys: no unknown key, each known one of
 * its type and in its range (keys may be absent: the readers say which
 * they need). 0, or -1 with "file: $.path: message". */
static int check_keys(const json_t *obj, const calib_key_t *keys, const char *file,
                      const char *at, sim_err_t *err)
{
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)obj, name, v) {
        const calib_key_t *k = keys;
        while (k->key && strcmp(k->key, name) != 0)
            k++;
        char here[256];
        snprintf(here, sizeof here, "%s.%s", at, name);
        if (!k->key) {
            char names[512];
            calib_key_names(keys, names, sizeof names);
            return sim_errf(err, "%s: %s: unknown key (valid here: %s)", file, here, names);
        }
        switch (k->kind) {
        case CK_STR:
            if (!json_is_string(v))
                return sim_errf(err, "%s: %s: expected a string", file, here);
            break;
        case CK_READ:
            break;
        case CK_ARR:
            if (!json_is_array(v))
                return sim_errf(err, "%s: %s: expected an array", file, here);
            break;
        case CK_OBJ:
            if (!json_is_object(v))
                return sim_errf(err, "%s: %s: expected an object", file, here);
            if (check_keys(v, k->sub, file, here, err) != 0)
                return -1;
            break;
        case CK_NUM:
        case CK_INT: {
            if (!json_is_number(v))
                return sim_errf(err, "%s: %s: expected a number", file, here);
            double x = json_number_value(v);
            int in = (k->lo_open ? x > k->lo : x >= k->lo) && x <= k->hi;
            if (k->kind == CK_INT && in && x != floor(x))
                return sim_errf(err, "%s: %s: must be a whole number (got %g)", file, here, x);
            if (!in)
                return sim_errf(err, "%s: %s: must be in %c%g, %g]%s%s (got %g)", file, here,
                                k->lo_open ? '(' : '[', k->lo, k->hi, k->unit[0] ? " " : "",
                                k->unit, x);
            break;
        }
        }
    }
    return 0;
}

/* A pass of t seconds made of terms term[i], each from the value at at[i]:
 * t within MODEL_COST_PLAUSIBLE_S, blaming the first term that alone
 * exceeds it, else the pass as a whole (at whole). what names the pass.
 * 0 or -1. */
static int plausible_terms(const char *file, double t, const double *term,
                           const char *const *at, int n, const char *whole, const char *what,
                           sim_err_t *err)
{
    for (int i = 0; i < n; i++)
        if (!(term[i] <= MODEL_COST_PLAUSIBLE_S))
            return sim_errf(err, "%s: %s: makes %s take %g s, more than the %g s any pass may "
                                 "take", file, at[i], what, term[i], MODEL_COST_PLAUSIBLE_S);
    if (!(t <= MODEL_COST_PLAUSIBLE_S))
        return sim_errf(err, "%s: %s: makes %s take %g s, more than the %g s any pass may take",
                        file, whole, what, t, MODEL_COST_PLAUSIBLE_S);
    return 0;
}

/* $.prefill against physics: T(n, 0) = c0 + (c1 + c2 h) n + c2 n^2 (c >=
 * 0 and c2 h <= c1, so T grows with n and shrinks with the prefix) takes
 * at most MODEL_COST_PLAUSIBLE_S up to MODEL_COST_PLAUSIBLE_TOK tokens, and
 * at least the weight GEMMs' FLOPs at 100% of every GPU of the node for
 * any n in [1, MODEL_COST_PLAUSIBLE_TOK] (attention is left out of the
 * floor: causal kernels skip up to half of its n^2 pairs). T - floor is a
 * convex parabola, so its ends and its vertex bound it. 0 or -1. */
static int plausible_prefill(const fitted_t *f, const model_cost_args_t *a, const char *file,
                             sim_err_t *err)
{
    const double *c = f->prefill, h = f->prefill_ramp_tok, n_max = (double)MODEL_COST_PLAUSIBLE_TOK;
    const double term[3] = {c[0], c[1] * n_max, c[2] * (n_max + h) * n_max};
    static const char *const at[3] = {"$.prefill.coef[0]", "$.prefill.coef[1]",
                                      "$.prefill.coef[2]"};
    char what[96];
    snprintf(what, sizeof what, "a prefill of %lld tokens", (long long)MODEL_COST_PLAUSIBLE_TOK);
    if (plausible_terms(file, term[0] + term[1] + term[2], term, at, 3, "$.prefill.coef", what,
                        err) != 0)
        return -1;
    model_roof_t node;
    model_roof_init(&node, a->hw, a->llm, a->hw->n_gpus);
    double floor_tok = node.linear_flops_per_tok / node.peak_flops_per_s;
    double ns[3] = {1, n_max, 0};
    int k = 2;
    if (c[2] > 0) {
        ns[2] = (floor_tok - c[1] - c[2] * h) / (2 * c[2]);
        k += ns[2] > 1 && ns[2] < n_max;
    }
    for (int i = 0; i < k; i++) {
        double n = ns[i], t = model_fit_prefill_eval(c, h, n, 0);
        if (t < floor_tok * n)
            return sim_errf(err, "%s: $.prefill.coef: a prefill of %.0f token%s takes %g s, "
                                 "less than the weight GEMMs of '%s' alone at 100%% of the peak "
                                 "FLOPs of %d GPUs of '%s' (%g s)", file, n, n == 1 ? "" : "s", t,
                            a->llm->name, a->hw->n_gpus, a->hw->name, floor_tok * n);
    }
    return 0;
}

/* $.decode against physics: each term of a step of
 * MODEL_COST_PLAUSIBLE_BATCH requests of MODEL_COST_PLAUSIBLE_TOK tokens
 * each within MODEL_COST_PLAUSIBLE_S (every term grows with batch and
 * context, so this bounds every smaller step). The bounded form never
 * beats the node's roofline (fractions <= 1, d0 >= 0, n_gpus <= the
 * node's); the linear one must at least read the weights once at 100% of
 * the node's HBM bandwidth. 0 or -1. */
static int plausible_decode(const fitted_t *f, const model_cost_args_t *a, const char *file,
                            sim_err_t *err)
{
    double b = (double)MODEL_COST_PLAUSIBLE_BATCH, ctx = b * (double)MODEL_COST_PLAUSIBLE_TOK;
    char what[128];
    snprintf(what, sizeof what, "a decode step of %.0f requests over %.0f tokens", b, ctx);
    if (f->decode_linear) {
        const double *c = f->decode_lin;
        const double term[3] = {c[0], c[1] * b, c[2] * ctx};
        static const char *const at[3] = {"$.decode.coef[0]", "$.decode.coef[1]",
                                          "$.decode.coef[2]"};
        if (plausible_terms(file, term[0] + term[1] + term[2], term, at, 3, "$.decode.coef",
                            what, err) != 0)
            return -1;
        model_roof_t node;
        model_roof_init(&node, a->hw, a->llm, a->hw->n_gpus);
        double t1 = c[0] + c[1], floor_s = node.weight_bytes / node.hbm_bytes_per_s;
        if (t1 < floor_s)
            return sim_errf(err, "%s: $.decode.coef: a decode step of one request takes %g s, "
                                 "less than reading the weights of '%s' once at 100%% of the HBM "
                                 "bandwidth of %d GPUs of '%s' (%g s)", file, t1, a->llm->name,
                            a->hw->n_gpus, a->hw->name, floor_s);
        return 0;
    }
    model_roof_parts_t p;
    model_roof_decode_parts(&f->roof, b, ctx, &p);
    const double term[5] = {f->eff.overhead_s, p.weights_s / f->eff.mem_weights,
                            p.gemm_s / f->eff.cmp, p.kv_s / f->eff.mem_kv, p.attn_s / f->eff.cmp};
    static const char *const at[5] = {"$.decode.d0_s", "$.decode.eff_mem_weights",
                                      "$.decode.eff_cmp", "$.decode.eff_mem_kv",
                                      "$.decode.eff_cmp"};
    return plausible_terms(file, model_roof_decode_s(&f->roof, &f->eff, b, ctx), term, at, 5,
                           "$.decode", what, err);
}

/* $.prefill.ramp_tok, the attention's ramp h: absent in files written
 * before it, which are read as the form they were fitted to (h = 0). It
 * must keep T non-increasing in the prefix: dT/dp = c2 (h - 2p) - c1 <= 0
 * for every p >= 0, that is c2 h <= c1. 0 or -1. */
static int read_ramp(const json_t *root, const char *file, fitted_t *f, sim_err_t *err)
{
    json_t *s = json_object_get(root, "prefill");
    f->prefill_ramp_tok = 0;
    if (!json_object_get(s, "ramp_tok"))
        return 0;
    double h;
    if (sim_json_num(s, "ramp_tok", file, "$.prefill", &h, err) != 0)
        return -1;
    if (!(h >= 0) || !(h <= (double)MODEL_COST_PLAUSIBLE_TOK))
        return sim_errf(err, "%s: $.prefill.ramp_tok: must be a number of tokens from 0 to %lld "
                             "(got %g)", file, (long long)MODEL_COST_PLAUSIBLE_TOK, h);
    if (f->prefill[2] * h > f->prefill[1])
        return sim_errf(err, "%s: $.prefill.ramp_tok: %g tokens make a prefill slower with more "
                             "of its prompt cached (coef[2] x ramp_tok = %g exceeds coef[1] = %g)",
                        file, h, f->prefill[2] * h, f->prefill[1]);
    f->prefill_ramp_tok = h;
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
    if (!json_is_object(root)) {
        sim_errf(err, "%s: $: expected an object", path);
        goto fail;
    }
    if (check_keys(root, calib_root, path, "$", err) != 0 ||
        sim_json_str(root, "hardware", path, "$", &hw, err) != 0 ||
        sim_json_str(root, "source", path, "$", &src, err) != 0 ||
        sim_json_arr(root, "models", path, "$", &models, err) != 0 ||
        read_coef(root, "prefill", path, f->prefill, err) != 0 ||
        read_ramp(root, path, f, err) != 0)
        goto fail;
    if (strcmp(hw, a->hw->name) != 0) {
        sim_errf(err, "%s: $.hardware: calibration is for '%s', the experiment uses '%s'", path,
                 hw, a->hw->name);
        goto fail;
    }
    int covered = 0;
    for (size_t i = 0; i < json_array_size(models); i++) {
        const char *m = json_string_value(json_array_get(models, i));
        if (!m) {
            sim_errf(err, "%s: $.models[%zu]: expected a string (a model name)", path, i);
            goto fail;
        }
        covered |= strcmp(m, a->llm->name) == 0;
    }
    if (!covered) {
        sim_errf(err, "%s: $.models: calibration does not cover model '%s'", path, a->llm->name);
        goto fail;
    }
    if (read_decode(root, path, a, f, err) != 0 || plausible_prefill(f, a, path, err) != 0 ||
        plausible_decode(f, a, path, err) != 0)
        goto fail;
    /* Built-in files are named relative to the project so results do not
     * depend on where it is checked out. */
    snprintf(f->path, sizeof f->path, "%s", path);
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
    return model_fit_prefill_eval(f->prefill, f->prefill_ramp_tok, (double)n_tok,
                                  (double)prefix_tok);
}

static double fitted_decode_s(const void *st, int64_t batch, int64_t ctx_tok)
{
    const fitted_t *f = st;
    if (f->decode_linear)
        return model_fit_decode_linear_eval(f->decode_lin, (double)batch, (double)ctx_tok);
    return model_roof_decode_s(&f->roof, &f->eff, (double)batch, (double)ctx_tok);
}

static void fitted_decode_span_s(const void *st, int64_t batch, int64_t ctx_tok, int64_t count,
                                 double *out)
{
    const fitted_t *f = st;
    if (!f->decode_linear) {
        model_roof_decode_span_s(&f->roof, &f->eff, batch, ctx_tok, count, out);
        return;
    }
    for (int64_t j = 0; j < count; j++)
        out[j] = model_fit_decode_linear_eval(f->decode_lin, (double)batch,
                                              (double)(ctx_tok + j * batch));
}

static int fitted_decode_line(const void *st, int64_t batch, model_cost_line_t *l)
{
    const fitted_t *f = st;
    return !f->decode_linear && model_roof_decode_line(&f->roof, &f->eff, batch, l);
}

static const char *fitted_source(const void *st) { return ((const fitted_t *)st)->source; }
static const char *fitted_file(const void *st) { return ((const fitted_t *)st)->path; }

const model_cost_ops_t model_cost_fitted = {
    .name = "fitted",
    .help = "fitted to measurements (a calibration file): prefill pass with a utilization ramp, "
            "decode roofline",
    .reads = (const char *const[]){"calibration", NULL},
    .init = fitted_init,
    .free = fitted_free,
    .prefill_s = fitted_prefill_s,
    .decode_s = fitted_decode_s,
    .source = fitted_source,
    .file = fitted_file,
    .decode_ctx_additive = 1,
    .decode_span_s = fitted_decode_span_s,
    .decode_line = fitted_decode_line,
};
