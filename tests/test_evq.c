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

/* Pushes, as-of pushes, events that move later as they come to the front
 * (sim_evq_at_more) and cancels made from handlers while the queue runs,
 * a queue of thousands (past the heap's first growths), against a
 * brute-force model of the order (time, scheduling time, sequence). */
typedef struct churn {
    sim_evq_t *q;
    gsl_rng *r;
    struct churn_ev {
        sim_time_t t, pushed;
        uint64_t seq;
        sim_event_id_t id;
        int live, moves; /* moves: left to make (sim_evq_at_more) */
    } ev[20000];
    int n, ran, moved;
} churn_t;

static void churn_push(churn_t *c);

/* The model's least live event. */
static int churn_least(const churn_t *c)
{
    int best = -1;
    for (int i = 0; i < c->n; i++) {
        const struct churn_ev *e = &c->ev[i];
        if (!e->live)
            continue;
        if (best < 0 || e->t < c->ev[best].t ||
            (e->t == c->ev[best].t && (e->pushed < c->ev[best].pushed ||
                                       (e->pushed == c->ev[best].pushed && e->seq < c->ev[best].seq))))
            best = i;
    }
    return best;
}

/* At the front: the model's least; moves later while it has moves left. */
static int churn_more(void *ctx, void *obj, int64_t arg, sim_evq_pos_t *pos)
{
    churn_t *c = ctx;
    (void)obj;
    struct churn_ev *e = &c->ev[arg];
    ck_assert_int_eq(arg, churn_least(c));
    ck_assert(pos->t == e->t && pos->pushed == e->pushed && pos->seq == e->seq);
    if (e->moves == 0)
        return 0;
    e->moves--;
    e->pushed = e->t;
    e->t += 1 + (sim_time_t)gsl_rng_uniform_int(c->r, 10);
    pos->t = e->t;
    pos->pushed = e->pushed;
    c->moved++;
    return 1;
}

static void churn_run(void *ctx, void *obj, int64_t arg)
{
    churn_t *c = ctx;
    (void)obj;
    /* arg must be the least live event of the model. */
    ck_assert_int_eq(arg, churn_least(c));
    ck_assert_int_eq(sim_evq_now(c->q), c->ev[arg].t);
    c->ev[arg].live = 0;
    c->ran++;
    for (int k = (int)gsl_rng_uniform_int(c->r, 3); k > 0; k--)
        churn_push(c);
    if (c->n > 0 && gsl_rng_uniform_int(c->r, 4) == 0) {
        int i = (int)gsl_rng_uniform_int(c->r, (unsigned long)c->n);
        ck_assert_int_eq(sim_evq_cancel(c->q, c->ev[i].id), c->ev[i].live);
        c->ev[i].live = 0;
    }
}

static void churn_push(churn_t *c)
{
    if (c->n == 20000)
        return;
    sim_time_t now = sim_evq_now(c->q), t = now + (sim_time_t)gsl_rng_uniform_int(c->r, 40);
    /* A third placed as if scheduled earlier (even before now). */
    sim_time_t pushed = gsl_rng_uniform_int(c->r, 3) == 0
                            ? t - (sim_time_t)gsl_rng_uniform_int(c->r, (unsigned long)t + 1)
                            : now;
    struct churn_ev *e = &c->ev[c->n];
    *e = (struct churn_ev){.t = t, .pushed = pushed, .seq = sim_evq_next_seq(c->q), .live = 1};
    /* A quarter move later up to twice as they come to the front. */
    if (gsl_rng_uniform_int(c->r, 4) == 0) {
        e->moves = (int)gsl_rng_uniform_int(c->r, 3);
        e->id = sim_evq_at_more(c->q, t, pushed, churn_run, churn_more, NULL, c->n);
    } else {
        e->id = sim_evq_at_as_of(c->q, t, pushed, churn_run, NULL, c->n);
    }
    c->n++;
}

START_TEST(test_churn_against_model)
{
    static churn_t c;
    c = (churn_t){0};
    c.q = sim_evq_new(&c);
    c.r = sim_rng_new(11, 5);
    for (int i = 0; i < 3000; i++)
        churn_push(&c);
    while (sim_evq_step(c.q))
        ;
    int live = 0;
    for (int i = 0; i < c.n; i++)
        live += c.ev[i].live;
    ck_assert_int_eq(live, 0);
    ck_assert_int_gt(c.ran, 10000);
    ck_assert_int_gt(c.moved, 1000);
    ck_assert_uint_eq(sim_evq_executed(c.q), (uint64_t)c.ran); /* a move is not a run */
    ck_assert_uint_eq(sim_evq_pending(c.q), 0);
    gsl_rng_free(c.r);
    sim_evq_free(c.q);
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
    tcase_add_test(tc, test_churn_against_model);
    tcase_add_test_raise_signal(tc, test_negative_delay_asserts, SIGABRT);
    suite_add_tcase(s, tc);
    return s;
}
