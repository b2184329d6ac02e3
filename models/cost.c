/* models/cost.c: the cost-model registry and the thin wrappers callers use
 * instead of touching the ops table. */
#include "models/cost.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/registry.h"

static const model_cost_ops_t *const cost_registry[] = {
    &model_cost_fitted,
    &model_cost_roofline,
};

struct model_cost {
    const model_cost_ops_t *ops;
    void *st;
};

const model_cost_ops_t *model_cost_find(const char *name)
{
    return sim_registry_find((const void *const *)cost_registry, SIM_REGISTRY_LEN(cost_registry), name);
}

void model_cost_names(char *buf, size_t len)
{
    sim_registry_names((const void *const *)cost_registry, SIM_REGISTRY_LEN(cost_registry), buf, len);
}

/* The model at the extremes of its domain (cost.h): finite, >= 0 and
 * within int64 ns at the largest and the smallest passes, hence
 * everywhere (the functions are monotone). Names the first that is not.
 * 0 or -1. */
static int check_domain(const model_cost_ops_t *ops, const void *st, sim_err_t *err)
{
    const struct {
        int decode;
        int64_t a, b;
    } pts[] = {
        {0, 1, 0},
        {0, MODEL_COST_MAX_TOK, 0},
        {0, MODEL_COST_MAX_TOK, MODEL_COST_MAX_TOK - 1},
        {1, 1, 0},
        {1, MODEL_COST_MAX_BATCH, MODEL_COST_MAX_CTX_TOK},
    };
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        double s = pts[i].decode ? ops->decode_s(st, pts[i].a, pts[i].b)
                                 : ops->prefill_s(st, pts[i].a, pts[i].b);
        sim_time_t ns;
        if (model_cost_s_to_ns(s, &ns) != 0)
            return sim_errf(err, "cost model '%s': a %s of %lld %s takes %g s, which is not a "
                                 "duration the simulator's int64 ns clock holds",
                            ops->name, pts[i].decode ? "decode step" : "prefill",
                            (long long)pts[i].a, pts[i].decode ? "requests" : "tokens", s);
    }
    return 0;
}

model_cost_t *model_cost_new(const char *name, const model_cost_args_t *a, sim_err_t *err)
{
    const model_cost_ops_t *ops = model_cost_find(name);
    if (!ops) {
        char names[256];
        model_cost_names(names, sizeof names);
        sim_errf(err, "unknown cost model '%s' (valid: %s)", name, names);
        return NULL;
    }
    void *st = ops->init(a, err);
    if (!st)
        return NULL;
    if (check_domain(ops, st, err) != 0) {
        ops->free(st);
        return NULL;
    }
    model_cost_t *c = sim_xmalloc(sizeof *c, "cost model");
    c->ops = ops;
    c->st = st;
    return c;
}

void model_cost_free(model_cost_t *c)
{
    if (!c)
        return;
    c->ops->free(c->st);
    sim_free(c);
}

int model_cost_s_to_ns(double s, sim_time_t *ns)
{
    double x = s * 1e9;
    /* 0x1p63 is exact; every double below it is at most 2^63 - 1024, so
     * the rounded value fits (and NaN fails the comparison). */
    if (!(x >= 0 && x < 0x1p63))
        return -1;
    /* llround without the libm call (this runs for every cost the
     * schedulers ask for): truncate, then round a half or more up; the
     * difference is exact (below 2^52 by Sterbenz, integral above). */
    sim_time_t t = (sim_time_t)x;
    *ns = t + (x - (double)t >= 0.5);
    return 0;
}

/* A model's value in ns: model_cost_new checked the domain's extremes, so
 * failing here is a bug (a non-monotone plug-in), not bad input. */
static sim_time_t checked_ns(double s)
{
    sim_time_t ns = 0;
    int representable = model_cost_s_to_ns(s, &ns) == 0;
    SIM_ASSERT(representable);
    return ns;
}

/* checked_ns of each of the n values of s into out. With GCC's vector
 * extension two go at once while both are below 2^31 ns (2.1 s: every
 * iteration time of a real model), each lane doing checked_ns's
 * operations in its order, so the results are the same integers: the
 * products are the same doubles, truncation of a value in int32's range
 * is the one cvttpd2dq gives, and the difference and comparison follow. */
static void span_to_ns(const double *s, int64_t n, sim_time_t *out)
{
    int64_t q = 0;
#if defined(__GNUC__) && defined(__SSE2__)
    typedef double v2d __attribute__((vector_size(16)));
    typedef int32_t v2si __attribute__((vector_size(8)));
    typedef int64_t v2di __attribute__((vector_size(16)));
    for (; q + 2 <= n; q += 2) {
        v2d x;
        memcpy(&x, s + q, sizeof x);
        x = x * 1e9;
        v2di ok = (x >= 0) & (x < 0x1p31);
        if (!(ok[0] & ok[1])) /* out of the fast range (or NaN): one at a time */
            break;
        v2si t = __builtin_convertvector(x, v2si);
        v2d back = __builtin_convertvector(t, v2d);
        v2di ns = __builtin_convertvector(t, v2di) - ((x - back) >= 0.5);
        memcpy(out + q, &ns, sizeof ns);
    }
#endif
    for (; q < n; q++)
        out[q] = checked_ns(s[q]);
}

sim_time_t model_cost_prefill_ns(const model_cost_t *c, int64_t n_tok, int64_t prefix_tok)
{
    SIM_ASSERT(prefix_tok >= 0 && prefix_tok <= n_tok && n_tok <= MODEL_COST_MAX_TOK);
    return checked_ns(c->ops->prefill_s(c->st, n_tok, prefix_tok));
}

sim_time_t model_cost_decode_ns(const model_cost_t *c, int64_t batch, int64_t ctx_tok)
{
    SIM_ASSERT(batch >= 1 && batch <= MODEL_COST_MAX_BATCH);
    SIM_ASSERT(ctx_tok >= 0 && ctx_tok <= MODEL_COST_MAX_CTX_TOK);
    return checked_ns(c->ops->decode_s(c->st, batch, ctx_tok));
}

void model_cost_decode_span_ns(const model_cost_t *c, int64_t batch, int64_t ctx_tok,
                               int64_t count, sim_time_t *out)
{
    SIM_ASSERT(batch >= 1 && batch <= MODEL_COST_MAX_BATCH && count >= 0);
    SIM_ASSERT(ctx_tok >= 0 && (count == 0 || ctx_tok + (count - 1) * batch <= MODEL_COST_MAX_CTX_TOK));
    if (!c->ops->decode_span_s) {
        for (int64_t j = 0; j < count; j++)
            out[j] = checked_ns(c->ops->decode_s(c->st, batch, ctx_tok + j * batch));
        return;
    }
    double s[64];
    for (int64_t j = 0; j < count; j += 64) {
        int64_t m = count - j < 64 ? count - j : 64;
        c->ops->decode_span_s(c->st, batch, ctx_tok + j * batch, m, s);
        span_to_ns(s, m, out + j);
    }
}

sim_time_t model_cost_decode_ctx_add_ns(const model_cost_t *c, int64_t a)
{
    if (!c->ops->decode_ctx_additive || a <= 0)
        return 0;
    /* Each side is within half a ns of its exact value, and so is each
     * term of the bound: 2 ns covers it, 4 leaves room for the doubles. */
    sim_time_t d = model_cost_decode_ns(c, 1, a) - model_cost_decode_ns(c, 1, 0) - 4;
    return d > 0 ? d : 0;
}

sim_time_t model_cost_prefill_fixed_ns(const model_cost_t *c)
{
    /* The intercept: T(1) less the growth from 1 to 2 tokens, so no
     * token's own work is in it. */
    sim_time_t t1 = model_cost_prefill_ns(c, 1, 0), t2 = model_cost_prefill_ns(c, 2, 0);
    return 2 * t1 > t2 ? 2 * t1 - t2 : 0;
}

sim_time_t model_cost_kv_read_ns(const model_cost_t *c, int64_t tok)
{
    if (tok <= 0)
        return 0;
    sim_time_t a = model_cost_decode_ns(c, 1, 1), b = model_cost_decode_ns(c, 1, 1 + tok);
    return b > a ? b - a : 0;
}

const char *model_cost_name(const model_cost_t *c) { return c->ops->name; }
const char *model_cost_source(const model_cost_t *c) { return c->ops->source(c->st); }

void model_calib_path(const char *name, const char *data_dir, char *out, size_t len)
{
    if (strchr(name, '/') || strstr(name, ".json"))
        snprintf(out, len, "%s", name);
    else
        snprintf(out, len, "%s/models/calib/%s.json", data_dir ? data_dir : ".", name);
}
