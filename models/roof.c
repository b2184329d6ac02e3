/* models/roof.c: see roof.h. */
#include "models/roof.h"

#include "sim/core/util.h"

void model_roof_init(model_roof_t *r, const model_hw_t *hw, const model_llm_t *m, int n_gpus)
{
    SIM_ASSERT(n_gpus >= 1 && n_gpus <= hw->n_gpus);
    r->weight_bytes = m->weight_bytes;
    r->kv_bytes_per_tok = (double)model_llm_kv_bytes_per_tok(m);
    r->linear_flops_per_tok = model_llm_linear_flops_per_tok(m);
    r->attn_flops_per_pair = model_llm_attn_flops_per_pair(m);
    r->hbm_bytes_per_s = n_gpus * hw->hbm_bytes_per_s;
    r->peak_flops_per_s = n_gpus * hw->gpu_tflops_bf16 * 1e12;
    r->n_gpus = n_gpus;
}

void model_roof_decode_parts(const model_roof_t *r, double batch, double ctx_tok,
                             model_roof_parts_t *out)
{
    out->weights_s = r->weight_bytes / r->hbm_bytes_per_s;
    out->gemm_s = r->linear_flops_per_tok * batch / r->peak_flops_per_s;
    out->kv_s = r->kv_bytes_per_tok * ctx_tok / r->hbm_bytes_per_s;
    out->attn_s = r->attn_flops_per_pair * ctx_tok / r->peak_flops_per_s;
}

static double max2(double a, double b) { return a > b ? a : b; }

double model_roof_decode_s(const model_roof_t *r, const model_roof_eff_t *e, double batch,
                           double ctx_tok)
{
    model_roof_parts_t p;
    model_roof_decode_parts(r, batch, ctx_tok, &p);
    return e->overhead_s + max2(p.weights_s / e->mem_weights, p.gemm_s / e->cmp) +
           max2(p.kv_s / e->mem_kv, p.attn_s / e->cmp);
}

/* A decode step's part that does not grow with the context. */
static double decode_fixed_s(const model_roof_t *r, const model_roof_eff_t *e, int64_t batch)
{
    model_roof_parts_t p;
    model_roof_decode_parts(r, (double)batch, 0, &p);
    return e->overhead_s + max2(p.weights_s / e->mem_weights, p.gemm_s / e->cmp);
}

int model_roof_decode_line(const model_roof_t *r, const model_roof_eff_t *e, int64_t batch,
                           model_cost_line_t *l)
{
    l->fixed = decode_fixed_s(r, e, batch);
    /* Both context terms are a per-token rate times the context, each
     * computed in three roundings (a few parts in 1e16): when one rate
     * exceeds the other by a part in a million, its term is the larger at
     * every context (and at 0 both are 0), so max2 picks it and the other
     * need not be computed. */
    double kv_rate = r->kv_bytes_per_tok / r->hbm_bytes_per_s / e->mem_kv;
    double attn_rate = r->attn_flops_per_pair / r->peak_flops_per_s / e->cmp;
    if (kv_rate > attn_rate * (1 + 1e-6)) {
        l->a = r->kv_bytes_per_tok;
        l->b = r->hbm_bytes_per_s;
        l->c = e->mem_kv;
        return 1;
    }
    if (attn_rate > kv_rate * (1 + 1e-6)) {
        l->a = r->attn_flops_per_pair;
        l->b = r->peak_flops_per_s;
        l->c = e->cmp;
        return 1;
    }
    return 0;
}

void model_roof_decode_span_s(const model_roof_t *r, const model_roof_eff_t *e, int64_t batch,
                              int64_t ctx_tok, int64_t count, double *out)
{
    double fixed = decode_fixed_s(r, e, batch);
    for (int64_t j = 0; j < count; j++) {
        double ctx = (double)(ctx_tok + j * batch);
        /* as model_roof_decode_parts and model_roof_decode_s compute them */
        double kv_s = r->kv_bytes_per_tok * ctx / r->hbm_bytes_per_s;
        double attn_s = r->attn_flops_per_pair * ctx / r->peak_flops_per_s;
        out[j] = fixed + max2(kv_s / e->mem_kv, attn_s / e->cmp);
    }
}

double model_roof_decode_floor_s(const model_roof_t *r, double batch, double ctx_tok)
{
    const model_roof_eff_t full = {.overhead_s = 0, .mem_weights = 1, .mem_kv = 1, .cmp = 1};
    return model_roof_decode_s(r, &full, batch, ctx_tok);
}

double model_roof_prefill_flops(const model_roof_t *r, double n, double p)
{
    return r->linear_flops_per_tok * (n - p) + r->attn_flops_per_pair * (n * n - p * p);
}
