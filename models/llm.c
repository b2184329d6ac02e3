/* models/llm.c: the model descriptor table (public model cards). */
#include "models/llm.h"

#include "sim/core/util.h"

#include <stdio.h>
#include <string.h>

static const model_llm_t llm_table[] = {
    {
        .name = "llama2-70b",
        .source = "Llama 2 70B model card; the arXiv Mooncake paper's model",
        .n_layers = 80, .d_model = 8192, .n_heads = 64, .n_kv_heads = 8,
        .d_ff = 28672, .vocab = 32000, .bytes_per_elem = 2,
        .n_params = 69.0e9, .weight_bytes = 140e9,
    },
    {
        .name = "llama3-70b",
        .source = "Llama 3 70B model card; the FAST'25 Mooncake paper's model",
        .n_layers = 80, .d_model = 8192, .n_heads = 64, .n_kv_heads = 8,
        .d_ff = 28672, .vocab = 128256, .bytes_per_elem = 2,
        .n_params = 70.6e9, .weight_bytes = 141e9,
    },
    {
        .name = "llama3-8b",
        .source = "Llama 3 8B model card",
        .n_layers = 32, .d_model = 4096, .n_heads = 32, .n_kv_heads = 8,
        .d_ff = 14336, .vocab = 128256, .bytes_per_elem = 2,
        .n_params = 8.03e9, .weight_bytes = 16.1e9,
    },
};

const model_llm_t *model_llm_find(const char *name)
{
    for (size_t i = 0; i < sizeof llm_table / sizeof llm_table[0]; i++)
        if (strcmp(llm_table[i].name, name) == 0)
            return &llm_table[i];
    return NULL;
}

void model_llm_names(char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof llm_table / sizeof llm_table[0]; i++)
        sim_names_append(buf, len, &off, llm_table[i].name);
}

int64_t model_llm_kv_bytes_per_tok(const model_llm_t *m)
{
    int head_dim = m->d_model / m->n_heads;
    return (int64_t)2 * m->n_layers * m->n_kv_heads * head_dim * m->bytes_per_elem;
}

double model_llm_linear_flops_per_tok(const model_llm_t *m)
{
    double d = m->d_model, kv_dim = d * m->n_kv_heads / m->n_heads;
    double per_layer = 2 * d * d + 2 * d * kv_dim + 3 * d * m->d_ff;
    return 2 * per_layer * m->n_layers;
}

double model_llm_attn_flops_per_pair(const model_llm_t *m)
{
    return 4.0 * m->d_model * m->n_layers;
}
