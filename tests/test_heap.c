/* tests/test_heap.c: the generic heap (sim/core/heap.h) against a sorted model,
 * index tracking through remove, heapify, the pinned order of equal keys,
 * and the intrusive request FIFO (sim/serve/reqq.h). */
#include "tests/tests.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/core/heap.h"
#include "sim/serve/reqq.h"

typedef struct item {
    int key;
    int seq;
    size_t pos; /* index in the tracked heap */
} item_t;

static int item_less(const item_t *a, const item_t *b)
{
    return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

static int item_cmp(const void *a, const void *b)
{
    return item_less(a, b) ? -1 : item_less(b, a) ? 1 : 0;
}

/* By value, a total order (key, seq): the event queue's kind. */
SIM_HEAP_DEFINE(t_heap, item_t, item_less, SIM_HEAP_UNTRACKED)

/* By key only: equal keys are ties the sift rules settle. */
static int key_less(const item_t *a, const item_t *b) { return a->key < b->key; }
SIM_HEAP_DEFINE(t_keyheap, item_t, key_less, SIM_HEAP_UNTRACKED)

/* By pointer with index tracking: the decode batch's kind. */
static int ptr_less(item_t *const *a, item_t *const *b) { return item_less(*a, *b); }
static void ptr_placed(item_t **h, size_t i) { h[i]->pos = i; }
SIM_HEAP_DEFINE(t_pheap, item_t *, ptr_less, ptr_placed)

static uint64_t rnd_state;
static int rnd(int n)
{
    rnd_state = rnd_state * 6364136223846793005u + 1442695040888963407u;
    return (int)((rnd_state >> 33) % (uint64_t)n);
}

START_TEST(test_pops_in_sorted_order)
{
    enum { N = 2000 };
    static item_t model[N];
    item_t *h = NULL;
    size_t n = 0, cap = 0;
    rnd_state = 1;
    for (int i = 0; i < N; i++) {
        item_t x = {.key = rnd(50), .seq = i}; /* many equal keys */
        model[i] = x;
        t_heap_push(&h, &n, &cap, x, "test heap");
    }
    ck_assert_uint_eq(n, N);
    qsort(model, N, sizeof *model, item_cmp);
    for (int i = 0; i < N; i++) {
        item_t x = t_heap_pop(h, &n);
        ck_assert_int_eq(x.key, model[i].key);
        ck_assert_int_eq(x.seq, model[i].seq); /* ties by insertion order */
    }
    ck_assert_uint_eq(n, 0);
    sim_free(h);
}
END_TEST

START_TEST(test_interleaved_push_pop)
{
    item_t *h = NULL;
    size_t n = 0, cap = 0;
    int seq = 0, last_key = -1, last_seq = -1;
    rnd_state = 7;
    /* Keys pushed are never below the last popped one, as in the event
     * queue, so pops never go back in (key, seq) order. */
    for (int round = 0; round < 5000; round++) {
        if (n == 0 || rnd(3) != 0) {
            item_t x = {.key = (last_key < 0 ? 0 : last_key) + rnd(20), .seq = seq++};
            t_heap_push(&h, &n, &cap, x, "test heap");
        } else {
            item_t x = t_heap_pop(h, &n);
            ck_assert(x.key > last_key || (x.key == last_key && x.seq > last_seq));
            last_key = x.key;
            last_seq = x.seq;
        }
    }
    sim_free(h);
}
END_TEST

static void check_tracked(item_t **h, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(h[i]->pos, i);
        if (i > 0)
            ck_assert(!ptr_less(&h[i], &h[(i - 1) / 2]));
    }
}

START_TEST(test_remove_tracks_index)
{
    enum { N = 600 };
    static item_t items[N];
    static int in[N];
    item_t **h = NULL;
    size_t n = 0, cap = 0;
    rnd_state = 3;
    for (int i = 0; i < N; i++) {
        items[i] = (item_t){.key = rnd(40), .seq = i};
        t_pheap_push(&h, &n, &cap, &items[i], "test heap");
        in[i] = 1;
        check_tracked(h, n);
        if (rnd(3) == 0) { /* take out a random member, found by its index */
            int k;
            do
                k = rnd(i + 1);
            while (!in[k]);
            t_pheap_remove(h, &n, items[k].pos);
            in[k] = 0;
            check_tracked(h, n);
        }
    }
    /* The rest pops in order, each the least of those still in. */
    item_t *prev = NULL;
    while (n > 0) {
        item_t *x = t_pheap_pop(h, &n);
        ck_assert(in[x->seq]);
        in[x->seq] = 0;
        if (prev)
            ck_assert(item_less(prev, x));
        prev = x;
        check_tracked(h, n);
    }
    for (int i = 0; i < N; i++)
        ck_assert(!in[i]);
    sim_free(h);
}
END_TEST

START_TEST(test_heapify)
{
    enum { N = 777 };
    static item_t h[N], model[N];
    rnd_state = 11;
    for (int i = 0; i < N; i++)
        model[i] = h[i] = (item_t){.key = rnd(100), .seq = i};
    t_heap_heapify(h, N);
    for (size_t i = 1; i < N; i++)
        ck_assert(!item_less(&h[i], &h[(i - 1) / 2]));
    qsort(model, N, sizeof *model, item_cmp);
    size_t n = N;
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(t_heap_pop(h, &n).seq, model[i].seq);
}
END_TEST

/* Under an order with ties, equal keys pop in an order fixed by the sift
 * rules (strict comparisons; the right child only when strictly less).
 * The golden outputs were made with these rules: this pins them. */
START_TEST(test_tie_order_is_pinned)
{
    static const int keys[] = {1, 1, 1, 0, 1, 1, 0, 1};
    static const int want[] = {3, 6, 2, 5, 4, 1, 7, 0};
    item_t *h = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < 8; i++)
        t_keyheap_push(&h, &n, &cap, (item_t){.key = keys[i], .seq = i}, "test heap");
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(t_keyheap_pop(h, &n).seq, want[i]);
    sim_free(h);
}
END_TEST

START_TEST(test_pop_empty_asserts)
{
    item_t h[1];
    size_t n = 0;
    tests_capture_stderr();
    t_heap_pop(h, &n);
}
END_TEST

START_TEST(test_reqq)
{
    sim_req_t r[4] = {{.id = 0}, {.id = 1}, {.id = 2}, {.id = 3}};
    sim_req_t *head = NULL, *tail = NULL;
    ck_assert_ptr_null(sim_reqq_pop_front(&head, &tail));
    sim_reqq_push_back(&head, &tail, &r[0]);
    sim_reqq_push_back(&head, &tail, &r[1]);
    sim_reqq_push_front(&head, &tail, &r[2]); /* 2 0 1 */
    sim_reqq_push_back(&head, &tail, &r[3]);  /* 2 0 1 3 */
    ck_assert_ptr_eq(tail, &r[3]);
    ck_assert_ptr_null(tail->next);
    static const int want[] = {2, 0, 1, 3};
    for (int i = 0; i < 4; i++) {
        sim_req_t *x = sim_reqq_pop_front(&head, &tail);
        ck_assert_int_eq(x->id, want[i]);
        ck_assert_ptr_null(x->next); /* free to join another queue */
    }
    ck_assert_ptr_null(head);
    ck_assert_ptr_null(tail);
    /* push_front into an empty queue sets both ends. */
    sim_reqq_push_front(&head, &tail, &r[1]);
    ck_assert_ptr_eq(head, &r[1]);
    ck_assert_ptr_eq(tail, &r[1]);
    sim_reqq_push_back(&head, &tail, &r[0]);
    ck_assert_ptr_eq(sim_reqq_pop_front(&head, &tail), &r[1]);
    ck_assert_ptr_eq(sim_reqq_pop_front(&head, &tail), &r[0]);
    ck_assert_ptr_null(sim_reqq_pop_front(&head, &tail));
}
END_TEST

Suite *test_heap_suite(void)
{
    Suite *s = suite_create("heap");
    TCase *tc = tcase_create("heap");
    tcase_set_timeout(tc, 60); /* O(n^2) index checks: slow under the sanitizers */
    tcase_add_test(tc, test_pops_in_sorted_order);
    tcase_add_test(tc, test_interleaved_push_pop);
    tcase_add_test(tc, test_remove_tracks_index);
    tcase_add_test(tc, test_heapify);
    tcase_add_test(tc, test_tie_order_is_pinned);
    tcase_add_test_raise_signal(tc, test_pop_empty_asserts, SIGABRT);
    suite_add_tcase(s, tc);
    TCase *tq = tcase_create("reqq");
    tcase_add_test(tq, test_reqq);
    suite_add_tcase(s, tq);
    return s;
}
