/* models/cost.h: cost models as plug-ins. A cost model turns work into
 * time: prefill of n tokens over a cached prefix of p, and one decode
 * iteration of a batch. Invariant: cost functions are pure (state is
 * immutable after init; no globals, no RNG). */
#ifndef MODEL_COST_H
#define MODEL_COST_H

#include <stdint.h>

#include "models/hw.h"
#include "models/llm.h"
#include "sim/core/util.h"

/* What a cost model may read when it is built. */
typedef struct model_cost_args {
    const model_hw_t *hw;
    const model_llm_t *llm;
    const char *calibration; /* calibration file; "" = the built-in one for hw */
    const char *data_dir;    /* where built-in calibration files live */
    double mfu;              /* roofline: model FLOPs utilization of prefill */
    double mbu;              /* roofline: memory-bandwidth utilization of decode */
    double overhead_s;       /* roofline: fixed per-pass overhead */
} model_cost_args_t;

/* The domain every cost model answers for. model_cost_new evaluates each
 * model at its extremes and refuses one whose values there are not finite
 * or do not fit int64 nanoseconds; the wrappers assert their arguments lie
 * inside. Prefill: the longest prompt plus the longest output
 * (TRACE_MAX_INPUT_TOK + TRACE_MAX_OUTPUT_TOK, as a preempted request is
 * recomputed; readers and generators keep within both), rounded up to a
 * power of two with room to spare. Decode: the requests in flight at one
 * instance and their context (a forecast counts every request placed
 * there), bounded only by memory: 2^32 requests or 2^48 tokens in flight
 * would take terabytes (each request keeps an 8-byte prefix-block id per
 * 512 tokens). */
#define MODEL_COST_MAX_TOK (INT64_C(1) << 26)
#define MODEL_COST_MAX_BATCH (INT64_C(1) << 32)
#define MODEL_COST_MAX_CTX_TOK (INT64_C(1) << 48)

/* Plausible passes, which calibration files must give (a located error
 * otherwise): a prefill of up to MODEL_COST_PLAUSIBLE_TOK tokens (the
 * longest context of the supported models, Llama 3's 128 Ki) and a decode
 * step of up to MODEL_COST_PLAUSIBLE_BATCH requests (the largest batch the
 * config lets an instance run) of that context each take at most
 * MODEL_COST_PLAUSIBLE_S; and no pass beats the node's peak (see
 * cost_fitted.c). */
#define MODEL_COST_PLAUSIBLE_TOK INT64_C(131072)
#define MODEL_COST_PLAUSIBLE_BATCH INT64_C(65536)
#define MODEL_COST_PLAUSIBLE_S 3600.0

/* A decode iteration's time as a line in its context (decode_line). */
typedef struct model_cost_line {
    double fixed, a, b, c;
} model_cost_line_t;

/* A plug-in's functions must be non-decreasing in n_tok, batch and ctx_tok
 * and non-increasing in prefix_tok (so the extremes bound the domain). */
typedef struct model_cost_ops {
    const char *name;
    const char *help;
    /* The cost.* keys it reads besides model, NULL-terminated; the config
     * refuses a changed key it does not read. */
    const char *const *reads;
    /* Returns immutable state, or NULL with err filled. */
    void *(*init)(const model_cost_args_t *a, sim_err_t *err);
    void (*free)(void *st);
    /* Seconds to prefill n_tok tokens of which the first prefix_tok are
     * cached (0 <= prefix_tok <= n_tok). */
    double (*prefill_s)(const void *st, int64_t n_tok, int64_t prefix_tok);
    /* Seconds of one decode iteration of batch requests whose contexts sum
     * to ctx_tok tokens. */
    double (*decode_s)(const void *st, int64_t batch, int64_t ctx_tok);
    /* Where the numbers come from (for summary.json). */
    const char *(*source)(const void *st);
    /* The calibration file it read, or NULL (none; may be NULL itself). */
    const char *(*file)(const void *st);
    /* 1 when context adds to a decode iteration apart from the batch:
     * decode_s(b, x + a) - decode_s(b, x) is the same for every batch b
     * and context x (a roofline or linear step: its KV term is linear in
     * context and summed with the batch's terms). Decode placement then
     * bounds a candidate's load after r joins without computing it. */
    int decode_ctx_additive;
    /* Optional: decode_s for count iterations of one batch whose context
     * grows by batch tokens each, out[j] = decode_s(batch, ctx_tok + j *
     * batch), bit for bit; decode spans then ask once, not per iteration. */
    void (*decode_span_s)(const void *st, int64_t batch, int64_t ctx_tok, int64_t count,
                          double *out);
    /* Optional: 1 when decode_s(batch, x) is a straight line in the
     * context x, fixed + a * x / b / c evaluated left to right in
     * doubles, for every x (fixed >= 0; a, b, c > 0; all finite), with
     * the four into l; else 0. Decode spans then round their iterations
     * to ns without the divisions, to the same integers
     * (model_cost_decode_span_ns). */
    int (*decode_line)(const void *st, int64_t batch, struct model_cost_line *l);
} model_cost_ops_t;

extern const model_cost_ops_t model_cost_fitted;
extern const model_cost_ops_t model_cost_roofline;

const model_cost_ops_t *model_cost_find(const char *name);
void model_cost_names(char *buf, size_t len);

typedef struct model_cost model_cost_t;

/* Build the named cost model. NULL with err filled on bad input. Free with
 * model_cost_free (accepts NULL). */
model_cost_t *model_cost_new(const char *name, const model_cost_args_t *a, sim_err_t *err);
void model_cost_free(model_cost_t *c);

/* s seconds as ns rounded to the nearest into *ns: 0, or -1 when s is not
 * finite, negative or not below 2^63 ns (about 292 years). */
int model_cost_s_to_ns(double s, sim_time_t *ns);

/* Durations in ns, rounded to the nearest ns, never negative, never
 * overflowing (checked when the model was built; asserted here). */
sim_time_t model_cost_prefill_ns(const model_cost_t *c, int64_t n_tok, int64_t prefix_tok);
sim_time_t model_cost_decode_ns(const model_cost_t *c, int64_t batch, int64_t ctx_tok);
/* model_cost_decode_ns(batch, ctx_tok + j * batch) into out[j] for j <
 * count: the iterations of one batch, its context growing a token per
 * request each. Returns 1 when out is known never to fall (each no less
 * than the one before; a line model's, every one rounded from the line),
 * else 0 (it may or may not). It keeps each batch's line in the model
 * (a cache written through the const pointer): one thread at a time
 * per model, as each run builds its own. */
int model_cost_decode_span_ns(const model_cost_t *c, int64_t batch, int64_t ctx_tok,
                              int64_t count, sim_time_t *out);
/* Compute decode spans one iteration at a time even where the processor
 * has AVX2 (scalar = 1; a reference mode: the same integers, slower). */
void model_cost_set_scalar(model_cost_t *c, int scalar);
/* A lower bound on model_cost_decode_ns(b, x + a) - model_cost_decode_ns(b, x)
 * for every batch b and context x: what a tokens of context add to any
 * iteration (0 unless the model declares decode_ctx_additive; the two
 * roundings to the ns are allowed for). */
sim_time_t model_cost_decode_ctx_add_ns(const model_cost_t *c, int64_t a);
/* The fixed part of one prefill pass (a prefill's time extrapolated to
 * no tokens: T(1) - (T(2) - T(1))): charged once per pass, so work that
 * shares a pass with other work (batched prompts, a chunk riding a
 * decode step, a pipelined chunk after the prompt's first) does not pay
 * it again. */
sim_time_t model_cost_prefill_fixed_ns(const model_cost_t *c);
const char *model_cost_name(const model_cost_t *c);
const char *model_cost_source(const model_cost_t *c);
/* The calibration file the cost model read, or NULL when it read none. */
const char *model_cost_file(const model_cost_t *c);

/* The file a calibration NAME names: NAME itself when it is a path (has a
 * '/' or ".json"), else <data_dir or .>/models/calib/NAME.json. */
void model_calib_path(const char *name, const char *data_dir, char *out, size_t len);

#endif
