/* sim/serve/prefill_pick.c: the prefill view's classes without a pass over
 * every instance. sim_cluster_prefill_view sorts the instances the pool's
 * scan does not list into classes by run (the common run or none) and
 * network share pair, and wants each class's member of least wait (ties:
 * lowest index) and its lowest index. The instances sit here by share id
 * (sim_net_share_ids), each id with a bitmap of its members and two
 * min-heaps by (key, index): idle instances with a queue (key: the queue's
 * predictions) and running ones (key: the predicted end of the running
 * prefill plus the queue's predictions, an absolute time, so the key does
 * not age; with groups of one a prefill ends at its predicted end, so that
 * end is never behind the clock and the wait is key - now). Idle
 * instances with nothing queued wait 0 and are in a bitmap. A class's
 * lowest index and its lowest-index idle member come from the bitmaps a
 * word at a time (run, member and not listed). A class of at most FEW
 * members with none idle has its members' waits read one by one; a larger
 * one has the heaps searched depth first from the root, a subtree ending
 * at a member in the class (everything below it comes after it) or at one
 * that cannot beat the best found, so members of the other run or listed
 * are what it visits (with 512 instances most of an id's members often
 * hold the request's common run, and the few that do not lie deep).
 * Changes are taken lazily: the network records the nodes whose share id
 * changed, sim/serve/prefill.c touches an instance whose queue or prefill
 * changed, and the next view re-files those. debug.view_check compares
 * every view with the pass over every instance (sim/serve/pd_view.c). */
#include "sim/serve/pd_int.h"

#include <string.h>

#include "sim/core/heap.h"

#define NONE UINT32_MAX

/* An instance in a heap; PLACED records its position. */
typedef struct ppick_node {
    sim_time_t key;
    uint32_t i;
    uint32_t *pos;
} ppick_node_t;

#define NODE_LESS(a, b) ((a)->key < (b)->key || ((a)->key == (b)->key && (a)->i < (b)->i))
#define NODE_PLACED(h, k) ((h)[k].pos[(h)[k].i] = (uint32_t)(k))
SIM_HEAP_DEFINE(ppick_heap, ppick_node_t, NODE_LESS, NODE_PLACED)

enum { IDLE, QUEUED, RUNNING }; /* idle with nothing queued, idle with a queue, running */

typedef struct ppick_heap_s {
    ppick_node_t *h;
    size_t n, cap;
} ppick_heap_s;

/* The instances of one share id. */
typedef struct ppick_id {
    uint32_t n;        /* members */
    uint32_t n_idle;   /* of them IDLE */
    uint32_t live_at;  /* its place in live[] while it has members */
    ppick_heap_s heap[2]; /* QUEUED, RUNNING */
} ppick_id_t;

struct sim_ppick {
    int n_inst;
    size_t n_words;
    /* [i]: the id i is filed under (NONE: NO_SHARE_ID, in noid[]), its
     * state, key and heap position, and whether it awaits re-filing */
    uint32_t *id, *pos, *noid_at;
    uint8_t *state, *dirty;
    sim_time_t *key;
    ppick_id_t *ids;
    size_t cap_ids;
    uint64_t *members; /* n_words per id */
    uint64_t *idle;    /* bit i: IDLE */
    uint64_t *listed;  /* bit i: listed by this view's scan (0 between views) */
    uint32_t *live;    /* ids with members */
    size_t n_live, cap_live;
    uint32_t *noid; /* instances without an id */
    size_t n_noid;
    uint32_t *todo; /* instances to re-file */
    size_t n_todo;
    int filed; /* every instance filed once (at the first view) */
    uint32_t *stack; /* heap_best's */
    size_t cap_stack;
    sim_view_class_t *cls;
    size_t cap_cls;
};

sim_ppick_t *sim_ppick_new(int n_prefill)
{
    sim_ppick_t *p = sim_xcalloc(1, sizeof *p, "prefill pick");
    size_t n = (size_t)n_prefill;
    p->n_inst = n_prefill;
    p->n_words = (n + 63) / 64;
    p->id = sim_xmalloc(n * sizeof *p->id, "prefill pick");
    p->pos = sim_xmalloc(n * sizeof *p->pos, "prefill pick");
    p->noid_at = sim_xmalloc(n * sizeof *p->noid_at, "prefill pick");
    p->state = sim_xcalloc(n, sizeof *p->state, "prefill pick");
    p->dirty = sim_xcalloc(n, sizeof *p->dirty, "prefill pick");
    p->key = sim_xcalloc(n, sizeof *p->key, "prefill pick");
    p->idle = sim_xcalloc(p->n_words, sizeof *p->idle, "prefill pick");
    p->listed = sim_xcalloc(p->n_words, sizeof *p->listed, "prefill pick");
    p->noid = sim_xmalloc(n * sizeof *p->noid, "prefill pick");
    p->todo = sim_xmalloc(n * sizeof *p->todo, "prefill pick");
    return p;
}

void sim_ppick_free(sim_ppick_t *p)
{
    if (!p)
        return;
    for (size_t s = 0; s < p->cap_ids; s++) {
        sim_free(p->ids[s].heap[0].h);
        sim_free(p->ids[s].heap[1].h);
    }
    sim_free(p->ids);
    sim_free(p->members);
    sim_free(p->id);
    sim_free(p->pos);
    sim_free(p->noid_at);
    sim_free(p->state);
    sim_free(p->dirty);
    sim_free(p->key);
    sim_free(p->idle);
    sim_free(p->listed);
    sim_free(p->live);
    sim_free(p->noid);
    sim_free(p->todo);
    sim_free(p->stack);
    sim_free(p->cls);
    sim_free(p);
}

static void bit_set(uint64_t *b, uint32_t i) { b[i / 64] |= UINT64_C(1) << (i % 64); }
static void bit_clear(uint64_t *b, uint32_t i) { b[i / 64] &= ~(UINT64_C(1) << (i % 64)); }
static int bit_get(const uint64_t *b, uint32_t i) { return (int)(b[i / 64] >> (i % 64) & 1); }

void sim_ppick_touch(sim_cluster_t *c, int i)
{
    sim_ppick_t *p = sim_pd(c)->ppick;
    if (p && p->filed && !p->dirty[i]) {
        p->dirty[i] = 1;
        p->todo[p->n_todo++] = (uint32_t)i;
    }
}

/* Room for id s (its slot zeroed, its bitmap empty). */
static void id_room(sim_ppick_t *p, uint32_t s)
{
    size_t cap = p->cap_ids;
    if (s < cap)
        return;
    sim_grow((void **)&p->ids, &p->cap_ids, (size_t)s + 1, sizeof *p->ids, "prefill pick ids");
    memset(p->ids + cap, 0, (p->cap_ids - cap) * sizeof *p->ids);
    p->members = sim_xrealloc(p->members, p->cap_ids * p->n_words * sizeof *p->members,
                              "prefill pick ids");
    memset(p->members + cap * p->n_words, 0,
           (p->cap_ids - cap) * p->n_words * sizeof *p->members);
}

/* File instance i under its node's share id now, with its state now. */
static void file_in(const sim_cluster_t *c, sim_ppick_t *p, uint32_t i, uint32_t s)
{
    const prefill_inst_t *f = &sim_pd(c)->pf[i];
    int st = f->running ? RUNNING : f->queued_pred_ns != 0 ? QUEUED : IDLE;
    p->id[i] = s;
    p->state[i] = (uint8_t)st;
    p->key[i] = st == RUNNING ? f->run_end_ns + f->queued_pred_ns : f->queued_pred_ns;
    if (st == IDLE)
        bit_set(p->idle, i);
    if (s == NO_SHARE_ID) {
        p->noid_at[i] = (uint32_t)p->n_noid;
        p->noid[p->n_noid++] = i;
        return;
    }
    id_room(p, s);
    ppick_id_t *g = &p->ids[s];
    bit_set(p->members + (size_t)s * p->n_words, i);
    if (g->n++ == 0) {
        sim_grow((void **)&p->live, &p->cap_live, p->n_live + 1, sizeof *p->live,
                 "prefill pick ids");
        g->live_at = (uint32_t)p->n_live;
        p->live[p->n_live++] = s;
    }
    if (st == IDLE) {
        g->n_idle++;
    } else {
        ppick_heap_s *h = &g->heap[st - QUEUED];
        ppick_node_t x = {.key = p->key[i], .i = i, .pos = p->pos};
        ppick_heap_push(&h->h, &h->n, &h->cap, x, "prefill pick heap");
    }
}

/* Undo file_in. */
static void file_out(sim_ppick_t *p, uint32_t i)
{
    uint32_t s = p->id[i];
    bit_clear(p->idle, i);
    if (s == NO_SHARE_ID) {
        uint32_t last = p->noid[--p->n_noid];
        p->noid[p->noid_at[i]] = last;
        p->noid_at[last] = p->noid_at[i];
        return;
    }
    ppick_id_t *g = &p->ids[s];
    bit_clear(p->members + (size_t)s * p->n_words, i);
    if (--g->n == 0) {
        uint32_t last = p->live[--p->n_live];
        p->live[g->live_at] = last;
        p->ids[last].live_at = g->live_at;
    }
    if (p->state[i] == IDLE) {
        g->n_idle--;
    } else {
        ppick_heap_s *h = &g->heap[p->state[i] - QUEUED];
        ppick_heap_remove(h->h, &h->n, p->pos[i]);
    }
}

/* Bring the filing up to date: every instance at the first view, then
 * those whose share id, queue or prefill changed since the last. */
static void refile(const sim_cluster_t *c, sim_ppick_t *p)
{
    size_t n_changed;
    const uint32_t *changed = sim_net_share_changes(c->net, &n_changed);
    const uint32_t *ids = sim_net_share_ids(c->net, &(size_t){0});
    if (!p->filed) {
        for (uint32_t i = 0; i < (uint32_t)p->n_inst; i++)
            file_in(c, p, i, ids[i]);
        p->filed = 1;
        return;
    }
    for (size_t k = 0; k < n_changed; k++) {
        uint32_t nd = changed[k]; /* node nd is instance nd (groups of one) */
        if (nd < (uint32_t)p->n_inst && !p->dirty[nd]) {
            p->dirty[nd] = 1;
            p->todo[p->n_todo++] = nd;
        }
    }
    for (size_t k = 0; k < p->n_todo; k++) {
        uint32_t i = p->todo[k];
        p->dirty[i] = 0;
        file_out(p, i);
        file_in(c, p, i, ids[i]);
    }
    p->n_todo = 0;
}

/* Instance i is in the class of run common (and not listed). */
static int in_class(const sim_ppick_t *p, const uint64_t *common, int in_common, uint32_t i)
{
    return bit_get(common, i) == in_common && !bit_get(p->listed, i);
}

/* The least member of heap h in the class, by (wait, index) with wait
 * key - base, if it comes before (best_wait, best); else best unchanged.
 * Depth first with the bound: a member in the class ends its subtree (all
 * below come after it), and so does one that cannot beat the best. */
static void heap_search(sim_ppick_t *p, const ppick_heap_s *h, sim_time_t base,
                        const uint64_t *common, int in_common, int *best, sim_time_t *best_wait)
{
    sim_grow((void **)&p->stack, &p->cap_stack, h->n, sizeof *p->stack, "prefill pick search");
    uint32_t *st = p->stack;
    size_t top = 0, n = h->n;
    st[top++] = 0;
    while (top > 0) {
        size_t at = st[--top];
        const ppick_node_t *x = &h->h[at];
        sim_time_t w = x->key - base;
        if (*best >= 0 && (w > *best_wait || (w == *best_wait && (int)x->i > *best)))
            continue;
        if (in_class(p, common, in_common, x->i)) {
            *best = (int)x->i;
            *best_wait = w;
            continue;
        }
        if (2 * at + 2 < n)
            st[top++] = (uint32_t)(2 * at + 2);
        if (2 * at + 1 < n)
            st[top++] = (uint32_t)(2 * at + 1);
    }
}

static inline void heap_best(sim_ppick_t *p, const ppick_heap_s *h, sim_time_t base,
                             const uint64_t *common, int in_common, int *best,
                             sim_time_t *best_wait)
{
    if (h->n != 0)
        heap_search(p, h, base, common, in_common, best, best_wait);
}

/* At most this many members in a class: their waits are read one by one
 * rather than searched for in the heaps, where the members of the other
 * run or listed would be visited first. */
#define FEW 8

/* The number of bits set in x (SWAR: the build targets x86-64 without
 * popcnt, where __builtin_popcountll is a library call). */
static inline int pop64(uint64_t x)
{
    x -= (x >> 1) & UINT64_C(0x5555555555555555);
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (int)((x * UINT64_C(0x0101010101010101)) >> 56);
}

/* The least of a class's members mb[0..n) (none idle, in index order)
 * by (wait, index). */
static int few_best(const sim_ppick_t *p, const uint32_t *mb, int n, sim_time_t now,
                    sim_time_t *best_wait)
{
    int best = -1;
    for (int k = 0; k < n; k++) {
        uint32_t i = mb[k];
        sim_time_t w = p->state[i] == RUNNING ? p->key[i] - now : p->key[i];
        if (best < 0 || w < *best_wait) {
            best = (int)i;
            *best_wait = w;
        }
    }
    return best;
}

/* Id s's class of run in_common: 1 and *out when it has a member. */
static int id_class(sim_ppick_t *p, uint32_t s, const uint64_t *common, int in_common,
                    sim_time_t now, sim_view_class_t *out)
{
    const uint64_t *mem = p->members + (size_t)s * p->n_words;
    const ppick_id_t *g = &p->ids[s];
    uint64_t flip = in_common ? 0 : ~UINT64_C(0);
    /* heaps of at most FEW members are searched in at most FEW visits */
    int first = -1, best = -1, n_few = g->n - g->n_idle > FEW ? 0 : FEW + 1;
    uint32_t few[FEW];
    sim_time_t best_wait = 0;
    for (size_t w = 0; w < p->n_words; w++) {
        uint64_t m = mem[w] & (common[w] ^ flip) & ~p->listed[w];
        if (!m)
            continue;
        if (first < 0)
            first = (int)(w * 64) + __builtin_ctzll(m);
        if (m & p->idle[w]) { /* waits 0: only a running one ending now ties it */
            best = (int)(w * 64) + __builtin_ctzll(m & p->idle[w]);
            break;
        }
        if (n_few <= FEW && n_few + pop64(m) <= FEW) {
            for (; m; m &= m - 1)
                few[n_few++] = (uint32_t)(w * 64) + (uint32_t)__builtin_ctzll(m);
            continue;
        }
        n_few = FEW + 1; /* too many to read: the heaps */
        if (g->n_idle == 0) /* no member is idle: nothing more to find */
            break;
    }
    if (first < 0)
        return 0;
    if (best < 0 && n_few <= FEW) {
        best = few_best(p, few, n_few, now, &best_wait);
    } else {
        if (best < 0)
            heap_best(p, &g->heap[0], 0, common, in_common, &best, &best_wait);
        heap_best(p, &g->heap[1], now, common, in_common, &best, &best_wait);
    }
    SIM_ASSERT(best >= 0 && best_wait >= 0);
    *out = (sim_view_class_t){.rep = best, .first = first, .common = in_common,
                              .rep_wait = best_wait};
    return 1;
}

void sim_ppick_view(const sim_cluster_t *c, const sim_kvpool_runs_t *ru, sim_prefill_view_t *v,
                    const sim_view_class_t **cls, size_t *n_cls)
{
    sim_ppick_t *p = sim_pd(c)->ppick;
    refile(c, p);
    sim_time_t now = sim_evq_now(c->evq);
    const double *out = sim_net_send_shares(c->net), *in = sim_net_recv_shares(c->net);
    uint32_t n = (uint32_t)p->n_inst, top = 0;
    v->n = 0;
    /* Listed instances (in index order) and those without an id: one
     * candidate each. */
    for (size_t q = 0; q < ru->n_listed; q++)
        if (ru->listed[q] < n)
            bit_set(p->listed, ru->listed[q]);
    for (size_t w = 0; w < p->n_words; w++)
        for (uint64_t x = p->listed[w]; x; x &= x - 1) {
            uint32_t i = (uint32_t)(w * 64) + (uint32_t)__builtin_ctzll(x);
            uint32_t lead = sim_kvpool_scan_node(c->pool, (int)i, NULL);
            top = lead > top ? lead : top;
            sim_view_insert(v, (int)i, lead, sim_prefill_wait_at(&sim_pd(c)->pf[i], now), out[i], in[i]);
        }
    for (size_t q = 0; q < p->n_noid; q++) {
        uint32_t i = p->noid[q];
        if (bit_get(p->listed, i))
            continue;
        uint32_t lead = bit_get(ru->common, i) ? ru->common_len : 0;
        top = lead > top ? lead : top;
        sim_view_insert(v, (int)i, lead, sim_prefill_wait_at(&sim_pd(c)->pf[i], now), out[i], in[i]);
    }
    /* The classes: each id, the common run and none. Whether any
     * unlisted instance has each run, from the bitmaps a word at a time
     * (bits past the last instance are in no id's members): a run that
     * none has has no class in any id, and its look-ups are skipped. */
    uint64_t any[2] = {0, 0}; /* [in_common] */
    size_t last = p->n_words - 1; /* n_inst >= SIM_PPICK_MIN_INSTANCES: a word at least */
    for (size_t w = 0; w < last; w++) {
        uint64_t free = ~p->listed[w];
        any[1] |= ru->common[w] & free;
        any[0] |= ~ru->common[w] & free;
    }
    uint64_t free = ~p->listed[last] & (n % 64 == 0 ? ~UINT64_C(0) : (UINT64_C(1) << (n % 64)) - 1);
    any[1] |= ru->common[last] & free;
    any[0] |= ~ru->common[last] & free;
    sim_grow((void **)&p->cls, &p->cap_cls, 2 * p->n_live, sizeof *p->cls, "prefill pick classes");
    size_t k = 0;
    for (size_t u = 0; u < p->n_live; u++)
        for (int in_common = 1; in_common >= 0; in_common--) {
            if (!any[in_common])
                continue;
            sim_view_class_t *g = &p->cls[k];
            if (!id_class(p, p->live[u], ru->common, in_common, now, g))
                continue;
            k++;
            uint32_t lead = in_common ? ru->common_len : 0;
            top = lead > top ? lead : top;
            sim_view_insert(v, g->rep, lead, g->rep_wait, out[g->rep], in[g->rep]);
        }
    for (size_t q = 0; q < ru->n_listed; q++)
        if (ru->listed[q] < n)
            bit_clear(p->listed, ru->listed[q]);
    v->top_len = top;
    *cls = p->cls;
    *n_cls = k;
}
