/* tests/test_search.c: the capacity search. The bisection core on
 * synthetic step functions (threshold found within tolerance, integer
 * parameters exactly, a failing lower bound gives no capacity, the probe
 * cap stops a search that never brackets or never converges, probe errors
 * propagate), and the SLO search end to end on one colocated instance
 * whose capacity follows from the cost model. */
#include "tests/tests.h"

#include <math.h>
#include <string.h>

#include "models/cost.h"
#include "sim/exp/search.h"

/* A step function: passes below threshold; counts its calls. */
typedef struct step {
    double threshold;
    int calls;
    int fail_at_call; /* > 0: that call returns an error */
} step_t;

static int step_probe(void *ud, sim_search_probe_t *p, sim_err_t *err)
{
    step_t *s = ud;
    if (++s->calls == s->fail_at_call)
        return sim_errf(err, "probe %d broke", s->calls);
    p->requests = 7;
    p->ttft_norm = p->value / s->threshold;
    p->pass = p->value <= s->threshold;
    return 0;
}

START_TEST(test_bisect_finds_threshold)
{
    static const double thresholds[] = {3.7, 1.0, 1.01, 0.3, 1000.5, 2.0};
    for (size_t k = 0; k < sizeof thresholds / sizeof thresholds[0]; k++) {
        for (int t = 0; t < 3; t++) {
            double tol = t == 0 ? 0.02 : t == 1 ? 0.005 : 0.1;
            step_t s = {.threshold = thresholds[k]};
            sim_search_args_t a = {.lo = 0.25, .tol = tol, .max_probes = 40};
            sim_search_result_t r;
            sim_err_t err;
            ck_assert_msg(sim_search_bisect(&a, step_probe, &s, &r, &err) == 0, "%s", err.msg);
            ck_assert_int_eq(r.found, 1);
            ck_assert_int_eq(r.n_probes, s.calls);
            /* lo passed, hi failed, and the bracket is within tolerance */
            ck_assert(r.capacity == r.lo && r.lo <= s.threshold && r.hi > s.threshold);
            ck_assert((r.hi - r.lo) / r.lo <= tol);
            ck_assert(r.capacity >= s.threshold / (1 + tol));
            /* the order: lo, then doubling, then midpoints */
            ck_assert_double_eq(r.probes[0].value, 0.25);
            ck_assert_double_eq(r.probes[1].value, 0.5);
            ck_assert_int_eq(r.probes[0].requests, 7);
            /* no more probes than doubling plus bisection need */
            int doublings = (int)ceil(log2(s.threshold / 0.25)) + 1;
            ck_assert_int_le(r.n_probes, 1 + doublings + (int)ceil(log2(1 / tol)) + 1);
            sim_search_result_free(&r);
        }
    }
}
END_TEST

START_TEST(test_bisect_integer_and_hi)
{
    step_t s = {.threshold = 37};
    sim_search_args_t a = {.lo = 1, .tol = 0.02, .integer = 1, .max_probes = 30};
    sim_search_result_t r;
    sim_err_t err;
    ck_assert(sim_search_bisect(&a, step_probe, &s, &r, &err) == 0);
    ck_assert_double_eq(r.capacity, 37); /* integers: exact */
    ck_assert_double_eq(r.hi, 38);
    for (int i = 0; i < r.n_probes; i++)
        ck_assert_double_eq(r.probes[i].value, floor(r.probes[i].value));
    sim_search_result_free(&r);

    /* A given --hi that passes keeps doubling from there. */
    step_t s2 = {.threshold = 10};
    sim_search_args_t a2 = {.lo = 1, .hi = 3, .tol = 0.01, .max_probes = 30};
    ck_assert(sim_search_bisect(&a2, step_probe, &s2, &r, &err) == 0);
    ck_assert_double_eq(r.probes[1].value, 3);
    ck_assert_double_eq(r.probes[2].value, 6);
    ck_assert_double_eq(r.probes[3].value, 12);
    ck_assert(r.capacity <= 10 && r.capacity >= 10 / 1.01);
    /* every value is what %.9g prints */
    for (int i = 0; i < r.n_probes; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%.9g", r.probes[i].value);
        ck_assert_double_eq(strtod(buf, NULL), r.probes[i].value);
    }
    sim_search_result_free(&r);
}
END_TEST

START_TEST(test_bisect_lower_bound_fails)
{
    step_t s = {.threshold = 0.1};
    sim_search_args_t a = {.lo = 0.5, .tol = 0.02, .max_probes = 20};
    sim_search_result_t r;
    sim_err_t err;
    ck_assert(sim_search_bisect(&a, step_probe, &s, &r, &err) == 0);
    ck_assert_int_eq(r.found, 0);
    ck_assert_double_eq(r.capacity, 0);
    ck_assert_double_eq(r.lo, 0);
    ck_assert_double_eq(r.hi, 0.5);
    ck_assert_int_eq(r.n_probes, 1);
    sim_search_result_free(&r);
}
END_TEST

/* A parameter with a range bound: bracketing stops at the bound; when the
 * bound passes, the capacity is at least the bound (at_bound); when it
 * fails, the search bisects below it as usual. */
START_TEST(test_bisect_range_bound)
{
    step_t s = {.threshold = 1e9};
    sim_search_args_t a = {.lo = 100, .max = 1000, .tol = 0.02, .max_probes = 30};
    sim_search_result_t r;
    sim_err_t err;
    ck_assert_msg(sim_search_bisect(&a, step_probe, &s, &r, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(r.found, 1);
    ck_assert_int_eq(r.at_bound, 1);
    ck_assert_double_eq(r.capacity, 1000);
    ck_assert_int_eq(r.n_probes, 5); /* 100, 200, 400, 800, 1000 */
    for (int i = 0; i < r.n_probes; i++)
        ck_assert(r.probes[i].value <= 1000);
    sim_search_result_free(&r);

    step_t s2 = {.threshold = 900};
    ck_assert(sim_search_bisect(&a, step_probe, &s2, &r, &err) == 0);
    ck_assert_int_eq(r.at_bound, 0);
    ck_assert(r.capacity <= 900 && r.capacity >= 900 / 1.02 && r.hi <= 1000);
    sim_search_result_free(&r);

    /* lo at the bound: one probe */
    sim_search_args_t a3 = {.lo = 1000, .max = 1000, .tol = 0.02, .max_probes = 30};
    step_t s3 = {.threshold = 1e9};
    ck_assert(sim_search_bisect(&a3, step_probe, &s3, &r, &err) == 0);
    ck_assert_int_eq(r.at_bound, 1);
    ck_assert_int_eq(r.n_probes, 1);
    sim_search_result_free(&r);
}
END_TEST

START_TEST(test_bisect_caps)
{
    /* never fails: stops at the cap with an error, never runs away */
    step_t s = {.threshold = INFINITY};
    sim_search_args_t a = {.lo = 1, .tol = 0.02, .max_probes = 12};
    sim_search_result_t r;
    sim_err_t err;
    ck_assert_int_eq(sim_search_bisect(&a, step_probe, &s, &r, &err), -1);
    ck_assert_msg(strstr(err.msg, "never bracketed") != NULL, "%s", err.msg);
    ck_assert_msg(strstr(err.msg, "1 to 2048") != NULL, "%s", err.msg);
    ck_assert_int_eq(s.calls, 12);
    ck_assert_int_eq(r.n_probes, 12);
    sim_search_result_free(&r);

    /* bracketed, but the cap is reached before the tolerance */
    step_t s2 = {.threshold = 5};
    sim_search_args_t a2 = {.lo = 1, .hi = 1e6, .tol = 0.001, .max_probes = 6};
    ck_assert_int_eq(sim_search_bisect(&a2, step_probe, &s2, &r, &err), -1);
    ck_assert_msg(strstr(err.msg, "not narrowed to tolerance") != NULL, "%s", err.msg);
    ck_assert_int_eq(s2.calls, 6);
    sim_search_result_free(&r);

    /* a probe's error stops the search and is passed on */
    step_t s3 = {.threshold = 5, .fail_at_call = 4};
    sim_search_args_t a3 = {.lo = 1, .tol = 0.02, .max_probes = 20};
    ck_assert_int_eq(sim_search_bisect(&a3, step_probe, &s3, &r, &err), -1);
    ck_assert_str_eq(err.msg, "probe 4 broke");
    ck_assert_int_eq(s3.calls, 4);
    sim_search_result_free(&r);
}
END_TEST

/* One vLLM instance, prompts of 8,192 tokens prefilled one per step,
 * one-token answers (a request ends with its prefill), arrivals almost
 * exactly 1 / rate apart (gamma, cv 0.01): the instance serves one request
 * per prefill time S (the cost model's), so the sustained capacity is
 * mu = 1 / S. Below mu
 * nothing queues (P90 TTFT = S); above it the backlog grows with every
 * request and P90 TTFT passes the 10 S threshold within a 1,500-request
 * run as soon as the rate is 0.7% above mu. */
static void known_config(sim_config_t *c)
{
    sim_config_defaults(c);
    snprintf(c->name, sizeof c->name, "known");
    c->cluster.prefill = c->cluster.decode = 0;
    sim_err_t err;
    ck_assert_int_eq(sim_config_set(c, "system.kind=vllm", &err), 0);
    ck_assert_int_eq(sim_config_set(c, "system.params.instances=1", &err), 0);
    ck_assert_int_eq(sim_config_set(c, "system.params.prefill_tokens=8192", &err), 0);
    c->metrics.interval_s = 0;
    trace_gen_params_t *g = &c->trace.generator;
    snprintf(g->kind, sizeof g->kind, "kimi");
    g->rate_rps = 0.2;
    snprintf(g->arrival, sizeof g->arrival, "gamma");
    g->arrival_cv = 0.01;
    snprintf(g->input.dist, sizeof g->input.dist, "constant");
    g->input.mean = 8192;
    g->input.min = g->input.max = 8192;
    snprintf(g->output.dist, sizeof g->output.dist, "constant");
    g->output.mean = 1;
    g->output.min = g->output.max = 1;
    g->system_prompt_tok = 0;
    g->p_continue = 0;
}

START_TEST(test_slo_search_known_capacity)
{
    static sim_config_t c;
    known_config(&c);
    model_cost_t *cost = tests_a800_cost();
    double s = (double)model_cost_prefill_ns(cost, 8192, 0) / 1e9, mu = 1 / s;
    model_cost_free(cost);
    sim_search_slo_args_t a = {
        .exp = &c, .exp_src = "known", .ref = &c, .ref_src = "known",
        .param = "trace.generator.rate_rps", .ttft_factor = 10, .tbt_factor = 5,
        .min_requests = 1500, .lifetimes = 10, .data_dir = ".",
        .bisect = {.lo = 0.2, .tol = 0.02, .max_probes = 20},
    };
    sim_search_slo_t r, r2;
    sim_err_t err;
    ck_assert_msg(sim_search_slo(&a, &r, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(r.search.found, 1);
    ck_assert_msg(fabs(r.search.capacity / mu - 1) <= 0.02, "capacity %g, known %g",
                  r.search.capacity, mu);
    /* the reference at lo: one request's prefill (plus the engine's CPU
     * time per sequence, well under 0.1%), no queue, no intervals */
    ck_assert_double_eq_tol(r.ref.ttft_p90_s, s, 1e-3 * s);
    ck_assert_double_eq(r.ref.tbt_p90_s, 0);
    ck_assert_double_eq_tol(r.ref_lifetime_s, s, 1e-3 * s);
    ck_assert_double_eq_tol(r.ttft_max_s, 10 * r.ref.ttft_p90_s, 1e-12);
    /* the probe at lo is the reference run itself */
    ck_assert_double_eq_tol(r.search.probes[0].ttft_norm, 0.1, 1e-12);
    for (int i = 0; i < r.search.n_probes; i++)
        ck_assert_int_eq(r.search.probes[i].requests, 1500); /* 10 L rate < 1500 here */
    /* deterministic: a second search probes the same values with the same results */
    ck_assert(sim_search_slo(&a, &r2, &err) == 0);
    ck_assert_int_eq(r2.search.n_probes, r.search.n_probes);
    ck_assert(memcmp(r.search.probes, r2.search.probes,
                     (size_t)r.search.n_probes * sizeof *r.search.probes) == 0);
    sim_search_slo_free(&r);
    sim_search_slo_free(&r2);

    /* steady state: at 2,000 lifetimes a run grows past 1,500 requests */
    a.lifetimes = 2000;
    a.bisect.max_probes = 3;
    a.ttft_p90_s = 1e6; /* absolute: nothing fails, so the cap stops it */
    ck_assert_int_eq(sim_search_slo(&a, &r, &err), -1);
    ck_assert_msg(strstr(err.msg, "known: trace.generator.rate_rps: never bracketed") != NULL,
                  "%s", err.msg);
    ck_assert_int_eq(r.search.n_probes, 3);
    ck_assert_int_eq(r.search.probes[2].requests, (int64_t)ceil(2000 * r.ref_lifetime_s * 0.8));
    ck_assert_double_eq(r.ttft_max_s, 1e6);
    sim_search_slo_free(&r);
}
END_TEST

Suite *test_search_suite(void)
{
    Suite *s = suite_create("search");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_bisect_finds_threshold);
    tcase_add_test(tc, test_bisect_integer_and_hi);
    tcase_add_test(tc, test_bisect_lower_bound_fails);
    tcase_add_test(tc, test_bisect_range_bound);
    tcase_add_test(tc, test_bisect_caps);
    tcase_add_test(tc, test_slo_search_known_capacity);
    suite_add_tcase(s, tc);
    return s;
}
