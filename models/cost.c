/* models/cost.c: the cost-model registry and the thin wrappers callers use
 * instead of touching the ops table. */
#include "models/cost.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include <stdatomic.h>
#define LINE_AVX2 1
#endif

#include "sim/core/registry.h"

static const model_cost_ops_t *const cost_registry[] = {
    &model_cost_fitted,
    &model_cost_roofline,
};

/* A batch's decode line as line_ns uses it (its intercept and slope in
 * ns, ok 0 when the model gives none): decode spans ask for a handful of
 * batch sizes over and over, and an op's state is immutable, so the line
 * is a function of the batch; kept direct-mapped by the batch's low bits
 * (batch 0 marks an empty slot; batches are >= 1). */
#define LINE_MEMO 64
typedef struct line_memo {
    int64_t batch;
    double f, k;
    int ok;
} line_memo_t;

struct model_cost {
    const model_cost_ops_t *ops;
    void *st;
    int scalar; /* model_cost_set_scalar */
    /* LINE_MEMO of them; written through a const model: a model serves
     * one run, one thread. */
    line_memo_t *memo;
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
    model_cost_t *c = sim_xcalloc(1, sizeof *c, "cost model"); /* scalar 0 until set */
    c->ops = ops;
    c->st = st;
    c->memo = sim_xcalloc(LINE_MEMO, sizeof *c->memo, "cost model lines");
    return c;
}

void model_cost_free(model_cost_t *c)
{
    if (!c)
        return;
    c->ops->free(c->st);
    sim_free(c->memo);
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

/* A line's ns this near a half or nearer: line_round gives -1, and
 * decode_s is asked instead. */
#define LINE_NEAR_HALF 0x1p-16

/* model_cost_decode_ns(batch, ctx) for a model whose decode_s is a line
 * in the context, without its two divisions: -1 where decode_s must be
 * asked. The ns is x' = F + K * ctx rounded half up, with F = fixed * 1e9
 * and K = a / b / c * 1e9 rounded once per batch (the memo), where the
 * model computes x = (fixed + a * ctx / b / c) * 1e9. Every term is
 * positive and each side takes at most six roundings of a relative 2^-53,
 * so |x' - x| < 13 * 2^-53 * x': below 2^31 ns (2.1 s, longer than any
 * real model's iteration), under 2^-18. Rounding half up gives the same
 * integer to every value strictly between two halves, so when x' is more
 * than 2^-16 (four times that) from a half, x rounds as x' does. Nearer
 * (about one iteration in 30,000), or from 2^31 ns on, decode_s itself is
 * asked. Where the processor has AVX2, four go at once: the same
 * products, sums and comparisons a lane each, so the same integers on any
 * machine. */
static sim_time_t line_round(double f, double k, int64_t ctx)
{
    double x = f + k * (double)ctx;
    if (x >= 0 && x < 0x1p31) {
        int32_t t = (int32_t)x;
        double d = x - (double)t - 0.5;
        if (d > LINE_NEAR_HALF || d < -LINE_NEAR_HALF)
            return (sim_time_t)t + (d > 0);
    }
    return -1; /* decode_s is asked */
}

#if LINE_AVX2
/* One iteration the group's vector test sent back: line_round's, or
 * decode_s near a half or from 2^31 ns on. */
static sim_time_t line_one(const model_cost_t *c, double f, double k, int64_t batch, int64_t ctx)
{
    sim_time_t t = line_round(f, k, ctx);
    return t >= 0 ? t : checked_ns(c->ops->decode_s(c->st, batch, ctx));
}
/* line_ns's loop four at a time; returns how many it wrote (a multiple
 * of four); *asked = 1 when any of the four of a group is near a half
 * (line_round's test, a lane each). */
__attribute__((target("avx2"))) static int64_t line_avx2(const model_cost_t *c, double f, double k,
                                                       int64_t batch, int64_t ctx_tok, int64_t count,
                                                       sim_time_t *out, int *asked)
{
    /* Every x' is below 2^31 ns when the last is (x' never falls as the
     * context grows: line_ns), so the lanes test only the half; past it
     * the scalar path takes them all, to the same integers. x' >= 0. */
    int64_t n4 = count & ~(int64_t)3;
    if (n4 == 0 || !(f + k * (double)(ctx_tok + (n4 - 1) * batch) < 0x1p31))
        return 0;
    const __m256d half = _mm256_set1_pd(0.5), tol = _mm256_set1_pd(LINE_NEAR_HALF),
                  kk = _mm256_set1_pd(k), ff = _mm256_set1_pd(f),
                  abs = _mm256_castsi256_pd(_mm256_set1_epi64x(INT64_MAX)),
                  step = _mm256_set1_pd((double)(4 * batch));
    __m256d ctx = _mm256_set_pd((double)(ctx_tok + 3 * batch), (double)(ctx_tok + 2 * batch),
                                (double)(ctx_tok + batch), (double)ctx_tok);
    int64_t j = 0;
    for (; j < n4; j += 4, ctx = _mm256_add_pd(ctx, step)) {
        __m256d x = _mm256_add_pd(ff, _mm256_mul_pd(kk, ctx));
        __m128i t = _mm256_cvttpd_epi32(x);
        __m256d d = _mm256_sub_pd(_mm256_sub_pd(x, _mm256_cvtepi32_pd(t)), half);
        __m256d ok = _mm256_cmp_pd(_mm256_and_pd(d, abs), tol, _CMP_GT_OS);
        if (__builtin_expect(_mm256_movemask_pd(ok) == 15, 1)) {
            __m256i up = _mm256_castpd_si256(_mm256_cmp_pd(d, _mm256_setzero_pd(), _CMP_GT_OS));
            _mm256_storeu_si256((__m256i *)(void *)(out + j),
                                _mm256_sub_epi64(_mm256_cvtepi32_epi64(t), up));
            continue;
        }
        *asked = 1;
        for (int64_t q = j; q < j + 4; q++)
            out[q] = line_one(c, f, k, batch, ctx_tok + q * batch);
    }
    return j;
}

/* 1 when the processor has AVX2 (model_cost_set_scalar turns its use off
 * for one model: the tests run both ways); asked once, in a relaxed
 * atomic, as threads may ask at once and all get the same answer. */
static int have_avx2(void)
{
    static atomic_int known; /* 0: not asked, 1: no, 2: yes */
    int v = atomic_load_explicit(&known, memory_order_relaxed);
    if (!v) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx2") ? 2 : 1;
        atomic_store_explicit(&known, v, memory_order_relaxed);
    }
    return v == 2;
}
#endif

/* The line's iterations, x' = f + k * ctx (f = fixed * 1e9, k = a / b /
 * c * 1e9, as the memo keeps them). Returns 1 when every iteration's ns
 * is x' rounded (none asked decode_s): then they never fall. The contexts rise, K > 0 and F >= 0,
 * and a product, a sum, truncation and the half-up step are each
 * nondecreasing in their argument (IEEE rounding is monotone; the
 * contexts are exact integers in doubles, the AVX2 lanes' as the scalar
 * path's), so x' and its rounding never fall as the context grows. A
 * value decode_s gives is within 2^-18 of x', not ordered with it. */
static int line_ns(const model_cost_t *c, double f, double k, int64_t batch, int64_t ctx_tok,
                   int64_t count, sim_time_t *out)
{
    int64_t j = 0;
    int asked = 0;
#if LINE_AVX2
    if (!c->scalar && have_avx2())
        j = line_avx2(c, f, k, batch, ctx_tok, count, out, &asked);
#endif
    for (; j < count; j++) {
        sim_time_t t = line_round(f, k, ctx_tok + j * batch);
        if (t < 0) {
            asked = 1;
            t = checked_ns(c->ops->decode_s(c->st, batch, ctx_tok + j * batch));
        }
        out[j] = t;
    }
    return !asked;
}

void model_cost_set_scalar(model_cost_t *c, int scalar) { c->scalar = scalar; }

int model_cost_decode_span_ns(const model_cost_t *c, int64_t batch, int64_t ctx_tok,
                              int64_t count, sim_time_t *out)
{
    SIM_ASSERT(batch >= 1 && batch <= MODEL_COST_MAX_BATCH && count >= 0);
    SIM_ASSERT(ctx_tok >= 0 && (count == 0 || ctx_tok + (count - 1) * batch <= MODEL_COST_MAX_CTX_TOK));
    line_memo_t *mo = &c->memo[batch & (LINE_MEMO - 1)];
    if (mo->batch != batch) {
        model_cost_line_t line;
        mo->batch = batch;
        mo->ok = c->ops->decode_line && c->ops->decode_line(c->st, batch, &line) &&
                 line.fixed >= 0 && line.a > 0 && line.b > 0 && line.c > 0;
        if (mo->ok) {
            mo->f = line.fixed * 1e9;
            mo->k = line.a / line.b / line.c * 1e9;
        }
    }
    if (mo->ok)
        return line_ns(c, mo->f, mo->k, batch, ctx_tok, count, out);
    if (!c->ops->decode_span_s) {
        for (int64_t j = 0; j < count; j++)
            out[j] = checked_ns(c->ops->decode_s(c->st, batch, ctx_tok + j * batch));
        return 0;
    }
    double s[64];
    for (int64_t j = 0; j < count; j += 64) {
        int64_t m = count - j < 64 ? count - j : 64;
        c->ops->decode_span_s(c->st, batch, ctx_tok + j * batch, m, s);
        span_to_ns(s, m, out + j);
    }
    return 0;
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

const char *model_cost_name(const model_cost_t *c) { return c->ops->name; }
const char *model_cost_source(const model_cost_t *c) { return c->ops->source(c->st); }
const char *model_cost_file(const model_cost_t *c)
{
    return c->ops->file ? c->ops->file(c->st) : NULL;
}

void model_calib_path(const char *name, const char *data_dir, char *out, size_t len)
{
    if (strchr(name, '/') || strstr(name, ".json"))
        snprintf(out, len, "%s", name);
    else
        snprintf(out, len, "%s/models/calib/%s.json", data_dir ? data_dir : ".", name);
}
