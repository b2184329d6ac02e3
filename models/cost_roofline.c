/* models/cost_roofline.c: the "roofline" cost model, derived from specs
 * when no calibration exists: prefill is compute-bound (FLOPs / (GPUs x
 * peak x mfu)); a decode step is the roofline of models/roof.h with both
 * HBM fractions at mbu and the FLOPs fraction at mfu; plus a fixed
 * overhead per pass. */
#include "models/cost.h"

#include <stdio.h>

#include "models/roof.h"

typedef struct roofline {
    model_roof_t roof;
    model_roof_eff_t eff;
    char source[1024];
} roofline_t;

static void *roofline_init(const model_cost_args_t *a, sim_err_t *err)
{
    if (!(a->mfu > 0 && a->mfu <= 1) || !(a->mbu > 0 && a->mbu <= 1) || !(a->overhead_s >= 0)) {
        sim_errf(err, "roofline cost model: mfu and mbu must be in (0, 1], overhead_s >= 0");
        return NULL;
    }
    roofline_t *r = sim_xcalloc(1, sizeof *r, "roofline cost");
    model_roof_init(&r->roof, a->hw, a->llm, a->hw->n_gpus);
    r->eff = (model_roof_eff_t){.overhead_s = a->overhead_s, .mem_weights = a->mbu,
                                .mem_kv = a->mbu, .cmp = a->mfu};
    snprintf(r->source, sizeof r->source,
             "roofline from specs (%s on %s; mfu %.3g, mbu %.3g, overhead %.3g s)", a->llm->name,
             a->hw->name, a->mfu, a->mbu, a->overhead_s);
    return r;
}

static void roofline_free(void *st) { sim_free(st); }

static double roofline_prefill_s(const void *st, int64_t n_tok, int64_t prefix_tok)
{
    const roofline_t *r = st;
    if (n_tok == prefix_tok)
        return 0;
    double flops = model_roof_prefill_flops(&r->roof, (double)n_tok, (double)prefix_tok);
    return r->eff.overhead_s + flops / (r->roof.peak_flops_per_s * r->eff.cmp);
}

static double roofline_decode_s(const void *st, int64_t batch, int64_t ctx_tok)
{
    const roofline_t *r = st;
    return model_roof_decode_s(&r->roof, &r->eff, (double)batch, (double)ctx_tok);
}

static void roofline_decode_span_s(const void *st, int64_t batch, int64_t ctx_tok, int64_t count,
                                   double *out)
{
    const roofline_t *r = st;
    model_roof_decode_span_s(&r->roof, &r->eff, batch, ctx_tok, count, out);
}

static int roofline_decode_line(const void *st, int64_t batch, model_cost_line_t *l)
{
    const roofline_t *r = st;
    return model_roof_decode_line(&r->roof, &r->eff, batch, l);
}

static const char *roofline_source(const void *st) { return ((const roofline_t *)st)->source; }

const model_cost_ops_t model_cost_roofline = {
    .name = "roofline",
    .help = "derived from GPU specs (peak FLOPs, HBM bandwidth) with utilization factors",
    .reads = (const char *const[]){"mfu", "mbu", "overhead_s", NULL},
    .init = roofline_init,
    .free = roofline_free,
    .prefill_s = roofline_prefill_s,
    .decode_s = roofline_decode_s,
    .source = roofline_source,
    .decode_ctx_additive = 1,
    .decode_span_s = roofline_decode_span_s,
    .decode_line = roofline_decode_line,
};
