/* models/roof.c: see roof.h. */
#include "models/roof.h"

#include <string.h>

#include "sim/util.h"

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

/* out[j] = fixed + a * ctx / b / c at ctx = ctx_tok + j * batch, j < count:
 * the doubles the scalar expression gives. The contexts are integers below
 * 2^53, so stepping them in doubles is exact; with GCC's vector extension
 * two go at once, each lane doing the scalar's operations in its order
 * (the divisions dominate an iteration's cost). */
static void line_span(double fixed, double a, double b, double c, int64_t ctx_tok, int64_t batch,
                      int64_t count, double *out)
{
    int64_t j = 0;
#if defined(__GNUC__)
    typedef double v2d __attribute__((vector_size(16)));
    v2d ctx = {(double)ctx_tok, (double)(ctx_tok + batch)};
    const double step = (double)(2 * batch);
    for (; j + 2 <= count; j += 2) {
        v2d v = fixed + a * ctx / b / c;
        memcpy(out + j, &v, sizeof v);
        ctx += step;
    }
#endif
    for (; j < count; j++)
        out[j] = fixed + a * (double)(ctx_tok + j * batch) / b / c;
}

int model_roof_decode_line(const model_roof_t *r, const model_roof_eff_t *e, int64_t batch,
                           model_cost_line_t *l)
{
    model_roof_parts_t p;
    model_roof_decode_parts(r, (double)batch, 0, &p);
    l->fixed = e->overhead_s + max2(p.weights_s / e->mem_weights, p.gemm_s / e->cmp);
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
    model_cost_line_t l;
    if (model_roof_decode_line(r, e, batch, &l)) {
        line_span(l.fixed, l.a, l.b, l.c, ctx_tok, batch, count, out);
        return;
    }
    for (int64_t j = 0; j < count; j++) {
        double ctx = (double)(ctx_tok + j * batch);
        /* as model_roof_decode_parts and model_roof_decode_s compute them */
        double kv_s = r->kv_bytes_per_tok * ctx / r->hbm_bytes_per_s;
        double attn_s = r->attn_flops_per_pair * ctx / r->peak_flops_per_s;
        out[j] = l.fixed + max2(kv_s / e->mem_kv, attn_s / e->cmp);
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
