/* models/cost_roofline.c: the "roofline" cost model, derived from specs
 * when no calibration exists: prefill is compute-bound (FLOPs / (GPUs x
 * peak x mfu)), a decode iteration is the slower of reading weights and KV
 * (bytes / (GPUs x HBM x mbu)) and its FLOPs; plus a fixed overhead. */
#include "models/cost.h"

#include <stdio.h>

typedef struct roofline {
    double flops_per_s;        /* node peak x mfu */
    double bytes_per_s;        /* node HBM x mbu */
    double linear_flops_per_tok;
    double attn_flops_coef;    /* x (n^2 - p^2) for prefill, x ctx for decode */
    double weight_bytes;
    double kv_bytes_per_tok;
    double overhead_s;
    char source[1024];
} roofline_t;

static void *roofline_init(const model_cost_args_t *a, sim_err_t *err)
{
    if (!(a->mfu > 0 && a->mfu <= 1) || !(a->mbu > 0 && a->mbu <= 1) || !(a->overhead_s >= 0)) {
        sim_errf(err, "roofline cost model: mfu and mbu must be in (0, 1], overhead_s >= 0");
        return NULL;
    }
    const model_llm_t *m = a->llm;
    roofline_t *r = sim_xcalloc(1, sizeof *r, "roofline cost");
    double d = m->d_model, kv_dim = d * m->n_kv_heads / m->n_heads;
    /* Weights per layer touched per token: Q, O (d x d), K, V (d x kv_dim),
     * gate/up/down (3 x d x d_ff); 2 FLOPs per multiply-add. */
    double per_layer = 2 * d * d + 2 * d * kv_dim + 3 * d * m->d_ff;
    r->linear_flops_per_tok = 2 * per_layer * m->n_layers;
    /* Attention scores and values: 4 d FLOPs per (query, key) pair per
     * layer (the paper's 4 n^2 d term). */
    r->attn_flops_coef = 4 * d * m->n_layers;
    double peak = a->hw->n_gpus * a->hw->gpu_tflops_bf16 * 1e12;
    r->flops_per_s = peak * a->mfu;
    r->bytes_per_s = a->hw->n_gpus * a->hw->hbm_bytes_per_s * a->mbu;
    r->weight_bytes = m->weight_bytes;
    r->kv_bytes_per_tok = (double)model_llm_kv_bytes_per_tok(m);
    r->overhead_s = a->overhead_s;
    snprintf(r->source, sizeof r->source,
             "roofline from specs (%s on %s; mfu %.3g, mbu %.3g, overhead %.3g s)", m->name,
             a->hw->name, a->mfu, a->mbu, a->overhead_s);
    return r;
}

static void roofline_free(void *st) { sim_free(st); }

static double roofline_prefill_s(const void *st, int64_t n_tok, int64_t prefix_tok)
{
    const roofline_t *r = st;
    double n = (double)n_tok, p = (double)prefix_tok;
    if (n_tok == prefix_tok)
        return 0;
    double flops = r->linear_flops_per_tok * (n - p) + r->attn_flops_coef * (n * n - p * p);
    return r->overhead_s + flops / r->flops_per_s;
}

static double roofline_decode_s(const void *st, int64_t batch, int64_t ctx_tok)
{
    const roofline_t *r = st;
    double bytes = r->weight_bytes + r->kv_bytes_per_tok * (double)ctx_tok;
    double flops = r->linear_flops_per_tok * (double)batch + r->attn_flops_coef * (double)ctx_tok;
    double tm = bytes / r->bytes_per_s, tc = flops / r->flops_per_s;
    return r->overhead_s + (tm > tc ? tm : tc);
}

static const char *roofline_source(const void *st) { return ((const roofline_t *)st)->source; }

const model_cost_ops_t model_cost_roofline = {
    .name = "roofline",
    .help = "derived from GPU specs (peak FLOPs, HBM bandwidth) with utilization factors",
    .init = roofline_init,
    .free = roofline_free,
    .prefill_s = roofline_prefill_s,
    .decode_s = roofline_decode_s,
    .source = roofline_source,
};
