/* tests/test_evq.c: event order, tie-breaking, lazy cancel, record reuse. */
#include "tests/tests.h"

#include <signal.h>
#include <stdio.h>

#include <gsl/gsl_rng.h>

#include "sim/core/evq.h"
#include "sim/core/rng.h"

typedef struct log {
    int64_t args[4096];
    sim_time_t times[4096];
    int n;
    sim_evq_t *q;
} log_t;

static void record(void *ctx, void *obj, int64_t arg)
{
    log_t *l = ctx;
    (void)obj;
    l->args[l->n] = arg;
    l->times[l->n] = sim_evq_now(l->q);
    l->n++;
}

static void stamp(void *ctx, void *obj, int64_t arg)
{
    log_t *l = ctx;
    record(ctx, obj, arg);
    if (arg == 10) {
        /* At 5: one event at 20 placed as if scheduled at 12 (the last of
         * a chain 5 -> 12 -> 20), and plain ones at 20 from now. */
        sim_evq_at_as_of(l->q, 20, 12, record, NULL, 11);
        sim_evq_after(l->q, 15, record, NULL, 12);
    }
    if (arg == 13) /* at 15: after 12, so after the chain's event at 20 */
        sim_evq_after(l->q, 5, record, NULL, 14);
}

START_TEST(test_at_as_of)
{
    static log_t l;
    l.n = 0;
    sim_evq_t *q = sim_evq_new(&l);
    l.q = q;
    sim_evq_after(q, 20, record, NULL, 1); /* scheduled at 0 */
    sim_evq_after(q, 5, stamp, NULL, 10);
    sim_evq_after(q, 15, stamp, NULL, 13);
    while (sim_evq_step(q)) {
        sim_evq_pos_t p = sim_evq_current(q);
        ck_assert_int_eq(p.t, sim_evq_now(q));
    }
    int64_t want[] = {10, 13, 1, 12, 11, 14};
    ck_assert_int_eq(l.n, 6);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(l.args[i], want[i]);
    sim_evq_free(q);
}
END_TEST

START_TEST(test_order_and_ties)
{
    static log_t l;
    l.n = 0;
    sim_evq_t *q = sim_evq_new(&l);
    l.q = q;
    sim_evq_after(q, 30, record, NULL, 1);
    sim_evq_after(q, 10, record, NULL, 2);
    sim_evq_after(q, 10, record, NULL, 3);
    sim_evq_after(q, 20, record, NULL, 4);
    sim_evq_after(q, 10, record, NULL, 5);
    while (sim_evq_step(q))
        ;
    int64_t want[] = {2, 3, 5, 4, 1};
    ck_assert_int_eq(l.n, 5);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(l.args[i], want[i]);
    ck_assert_int_eq(sim_evq_now(q), 30);
    ck_assert_uint_eq(sim_evq_executed(q), 5);
    sim_evq_free(q);
}
END_TEST

static void chain(void *ctx, void *obj, int64_t arg)
{
    log_t *l = ctx;
    record(ctx, obj, arg);
    if (arg < 3) {
        /* Zero delay from inside a handler runs after events already at now. */
        sim_evq_after(l->q, 0, chain, NULL, arg + 1);
    }
}

START_TEST(test_zero_delay_from_handler)
{
    static log_t l;
    l.n = 0;
    sim_evq_t *q = sim_evq_new(&l);
    l.q = q;
    sim_evq_after(q, 5, chain, NULL, 0);
    sim_evq_after(q, 5, record, NULL, 100);
    while (sim_evq_step(q))
        ;
    int64_t want[] = {0, 100, 1, 2, 3};
    ck_assert_int_eq(l.n, 5);
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(l.args[i], want[i]);
        ck_assert_int_eq(l.times[i], 5);
    }
    sim_evq_free(q);
}
END_TEST

START_TEST(test_cancel)
{
    static log_t l;
    l.n = 0;
    sim_evq_t *q = sim_evq_new(&l);
    l.q = q;
    sim_event_id_t a = sim_evq_after(q, 10, record, NULL, 1);
    sim_event_id_t b = sim_evq_after(q, 20, record, NULL, 2);
    ck_assert_uint_eq(sim_evq_pending(q), 2);
    ck_assert_int_eq(sim_evq_cancel(q, a), 1);
    ck_assert_int_eq(sim_evq_cancel(q, a), 0);
    ck_assert_uint_eq(sim_evq_pending(q), 1);
    ck_assert_int_eq(sim_evq_step(q), 1);
    ck_assert_int_eq(l.n, 1);
    ck_assert_int_eq(l.args[0], 2);
    /* b ran; its id is stale even though its record is reused. */
    sim_event_id_t c = sim_evq_after(q, 1, record, NULL, 3);
    ck_assert_int_eq(sim_evq_cancel(q, b), 0);
    ck_assert_int_eq(sim_evq_cancel(q, 0), 0);
    ck_assert_int_eq(sim_evq_step(q), 1);
    ck_assert_int_eq(l.args[1], 3);
    ck_assert_int_eq(sim_evq_cancel(q, c), 0);
    ck_assert_int_eq(sim_evq_step(q), 0);
    sim_evq_free(q);
}
END_TEST

/* Random pushes and cancels against a brute-force model of the order. */
START_TEST(test_random_against_model)
{
    static log_t l;
    l.n = 0;
    sim_evq_t *q = sim_evq_new(&l);
    l.q = q;
    gsl_rng *r = sim_rng_new(7, 99);
    enum { N = 2000 };
    static sim_time_t t[N];
    static int cancelled[N];
    static sim_event_id_t ids[N];
    for (int i = 0; i < N; i++) {
        t[i] = (sim_time_t)gsl_rng_uniform_int(r, 50);
        ids[i] = sim_evq_after(q, t[i], record, NULL, i);
        cancelled[i] = 0;
    }
    for (int i = 0; i < N; i += 7) {
        cancelled[i] = 1;
        ck_assert_int_eq(sim_evq_cancel(q, ids[i]), 1);
    }
    while (sim_evq_step(q))
        ;
    /* Expected: stable order by time among the survivors. */
    int k = 0;
    for (sim_time_t tt = 0; tt < 50; tt++)
        for (int i = 0; i < N; i++)
            if (!cancelled[i] && t[i] == tt) {
                ck_assert_int_lt(k, l.n);
                ck_assert_int_eq(l.args[k], i);
                k++;
            }
    ck_assert_int_eq(k, l.n);
    for (int i = 1; i < l.n; i++)
        ck_assert_int_ge(l.times[i], l.times[i - 1]);
    gsl_rng_free(r);
    sim_evq_free(q);
}
END_TEST

START_TEST(test_negative_delay_asserts)
{
    sim_evq_t *q = sim_evq_new(NULL);
    tests_capture_stderr();
    sim_evq_after(q, -1, record, NULL, 0);
}
END_TEST

Suite *test_evq_suite(void)
{
    Suite *s = suite_create("evq");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_order_and_ties);
    tcase_add_test(tc, test_at_as_of);
    tcase_add_test(tc, test_zero_delay_from_handler);
    tcase_add_test(tc, test_cancel);
    tcase_add_test(tc, test_random_against_model);
    tcase_add_test_raise_signal(tc, test_negative_delay_asserts, SIGABRT);
    suite_add_tcase(s, tc);
    return s;
}
