/* models/roof.h: the roofline of one pass of an LLM on an instance of
 * n GPUs: what a decode step reads from HBM and computes, and its time at
 * given achieved fractions of HBM bandwidth and peak FLOPs. Shared by the
 * roofline and fitted cost models and by `calib fit`, so the form lives
 * in one place. Invariant: pure functions of immutable descriptors. */
#ifndef MODEL_ROOF_H
#define MODEL_ROOF_H

#include "models/cost.h"
#include "models/hw.h"
#include "models/llm.h"

/* The work of one pass and the instance's peak rates (100%). */
typedef struct model_roof {
    double weight_bytes;         /* read once per decode step */
    double kv_bytes_per_tok;     /* read per token of batched context */
    double linear_flops_per_tok; /* weight GEMMs */
    double attn_flops_per_pair;  /* per (query, key) pair */
    double hbm_bytes_per_s;      /* n_gpus x per-GPU HBM bandwidth */
    double peak_flops_per_s;     /* n_gpus x dense BF16 peak */
    int n_gpus;
} model_roof_t;

/* What a decode step achieves: a fixed time per step and fractions in
 * (0, 1] of the peaks. The weight GEMMs and the attention kernel are
 * different kernels, hence two memory fractions. */
typedef struct model_roof_eff {
    double overhead_s; /* launches, tensor-parallel all-reduce latency, sampling */
    double mem_weights; /* HBM bandwidth fraction of the weight reads */
    double mem_kv;      /* HBM bandwidth fraction of the KV reads */
    double cmp;         /* peak-FLOPs fraction of the tensor cores */
} model_roof_eff_t;

/* The four parts of a decode step of batch requests over ctx_tok tokens
 * of context in all, each at 100% of its peak, seconds. */
typedef struct model_roof_parts {
    double weights_s; /* weight bytes / HBM */
    double gemm_s;    /* linear FLOPs x batch / peak */
    double kv_s;      /* KV bytes x ctx / HBM */
    double attn_s;    /* attention FLOPs x ctx / peak */
} model_roof_parts_t;

/* The instance of n_gpus GPUs of hw (1 <= n_gpus <= hw->n_gpus) serving m
 * with tensor parallelism. */
void model_roof_init(model_roof_t *r, const model_hw_t *hw, const model_llm_t *m, int n_gpus);

void model_roof_decode_parts(const model_roof_t *r, double batch, double ctx_tok,
                             model_roof_parts_t *out);

/* Seconds of one decode step:
 *   overhead + max(weights / mem_weights, gemm / cmp) + max(kv / mem_kv, attn / cmp)
 * The weight GEMMs and then attention run one after the other in every
 * layer, so each is bound by its own roofline and the step is their sum
 * (a per-operator roofline, as LLM-Viewer computes it, arXiv 2402.16363).
 * Non-decreasing in batch and in ctx_tok. */
double model_roof_decode_s(const model_roof_t *r, const model_roof_eff_t *e, double batch,
                           double ctx_tok);

/* model_roof_decode_s for count iterations of one batch, the context
 * growing by batch tokens each: out[j] at ctx_tok + j * batch, the same
 * values bit for bit (the batch's terms are computed once). */
void model_roof_decode_span_s(const model_roof_t *r, const model_roof_eff_t *e, int64_t batch,
                              int64_t ctx_tok, int64_t count, double *out);

/* model_roof_decode_s at batch as a line in the context (a cost model's
 * decode_line): 1 when one context term, KV reads or attention, is the
 * larger at every context, with its line into l; 0 when the two rates are
 * within a part in a million of each other (the max then picks per
 * context). */
int model_roof_decode_line(const model_roof_t *r, const model_roof_eff_t *e, int64_t batch,
                           model_cost_line_t *l);

/* The same, seconds at 100% of both peaks and no overhead: the floor no
 * decode step can beat. */
double model_roof_decode_floor_s(const model_roof_t *r, double batch, double ctx_tok);

/* FLOPs of prefilling n_tok tokens over a cached prefix of prefix_tok:
 * linear x (n - p) + attention x (n^2 - p^2). */
double model_roof_prefill_flops(const model_roof_t *r, double n_tok, double prefix_tok);

#endif
