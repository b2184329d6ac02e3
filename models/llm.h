/* models/llm.h: LLM shape descriptors (layers, widths, GQA, precision),
 * looked up by name. The KV bytes per token follow from the shape:
 * 2 (K and V) x layers x kv_heads x head_dim x bytes per element. */
#ifndef MODEL_LLM_H
#define MODEL_LLM_H

#include <stddef.h>
#include <stdint.h>

typedef struct model_llm {
    const char *name;
    const char *source;
    int n_layers;
    int d_model;
    int n_heads;
    int n_kv_heads;
    int d_ff;
    int vocab;
    int bytes_per_elem;
    double n_params;
    double weight_bytes;
} model_llm_t;

/* NULL when unknown. */
const model_llm_t *model_llm_find(const char *name);
void model_llm_names(char *buf, size_t len);

/* KV cache bytes per token (327,680 for the 70B models). */
int64_t model_llm_kv_bytes_per_tok(const model_llm_t *m);
/* FLOPs of the weight GEMMs per token (2 per multiply-add): Q and O
 * (d x d), K and V (d x kv_dim), gate/up/down (3 x d x d_ff) per layer. */
double model_llm_linear_flops_per_tok(const model_llm_t *m);
/* FLOPs of attention per (query, key) pair: scores and values, 4 d per
 * layer (the paper's 4 n^2 d term). */
double model_llm_attn_flops_per_pair(const model_llm_t *m);

#endif
