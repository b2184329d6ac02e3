/* sim/serve/decode_pick.c: the least-loaded decode instance without a look at
 * every instance. SelectDecodingInstance (sim_place_decode_least_loaded)
 * wants the instance whose predicted load, were r to join it, is lowest
 * (ties: lowest index). That load is at least its iteration time over the
 * TBT SLO, and that time is at least the instance's key, the iteration
 * time with one more request of no context (T(n + 1, ctx), which does not
 * depend on r), plus what r's context adds to any iteration (a bound from
 * the cost model; 0 unless it declares context additive; it never falls
 * as context grows). So the busy instances sit in a min-heap by (key,
 * index), kept as their assigned counts change, and the search visits it
 * best first, stopping at the first bound above the best load found. Idle
 * instances (nothing assigned) are all alike: only the lowest index among
 * them can win, and it is found in a bitmap. The answer is the one a scan
 * of every instance gives; a load found below its bound (a cost model
 * that breaks its declaration) switches to that scan for good. */
#include "sim/serve/pd_int.h"

#include <math.h>

#include "sim/core/heap.h"

#define NONE UINT32_MAX

/* A busy instance in the heap; PLACED records its position. */
typedef struct dpick_node {
    sim_time_t key;
    uint32_t j;
    uint32_t *pos;
} dpick_node_t;

/* A heap position queued for the best-first visit. */
typedef struct dpick_visit {
    sim_time_t key;
    uint32_t j;
    uint32_t at;
} dpick_visit_t;

struct sim_dpick {
    dpick_node_t *heap;
    size_t n, cap;
    uint32_t *pos;  /* [j]: its heap position, or NONE while idle */
    uint64_t *idle; /* bit j: nothing assigned to j */
    size_t n_words;
    dpick_visit_t *visit; /* the search's frontier */
    size_t n_visit, cap_visit;
    int scan; /* the bound failed once: scan every instance */
};

#define NODE_LESS(a, b) ((a)->key < (b)->key || ((a)->key == (b)->key && (a)->j < (b)->j))
#define NODE_PLACED(h, i) ((h)[i].pos[(h)[i].j] = (uint32_t)(i))
SIM_HEAP_DEFINE(dpick_heap, dpick_node_t, NODE_LESS, NODE_PLACED)
SIM_HEAP_DEFINE(dpick_front, dpick_visit_t, NODE_LESS, SIM_HEAP_UNTRACKED)

sim_dpick_t *sim_dpick_new(int n_decode)
{
    sim_dpick_t *p = sim_xcalloc(1, sizeof *p, "decode pick");
    p->pos = sim_xmalloc((size_t)n_decode * sizeof *p->pos, "decode pick");
    p->n_words = ((size_t)n_decode + 63) / 64;
    p->idle = sim_xcalloc(p->n_words, sizeof *p->idle, "decode pick");
    for (int j = 0; j < n_decode; j++) {
        p->pos[j] = NONE;
        p->idle[j / 64] |= UINT64_C(1) << (j % 64);
    }
    return p;
}

void sim_dpick_free(sim_dpick_t *p)
{
    if (!p)
        return;
    sim_free(p->heap);
    sim_free(p->pos);
    sim_free(p->idle);
    sim_free(p->visit);
    sim_free(p);
}

void sim_dpick_update(sim_cluster_t *c, int j)
{
    sim_dpick_t *p = sim_pd(c)->dpick;
    const decode_inst_t *d = &sim_pd(c)->dc[j];
    uint32_t at = p->pos[j];
    if (d->n_assigned == 0) {
        p->idle[j / 64] |= UINT64_C(1) << (j % 64);
        if (at != NONE) {
            dpick_heap_remove(p->heap, &p->n, at);
            p->pos[j] = NONE;
        }
        return;
    }
    p->idle[j / 64] &= ~(UINT64_C(1) << (j % 64));
    dpick_node_t x = {.key = model_cost_decode_ns(c->a.cost, d->n_assigned + 1, d->tok_assigned),
                      .j = (uint32_t)j,
                      .pos = p->pos};
    if (at == NONE)
        dpick_heap_push(&p->heap, &p->n, &p->cap, x, "decode pick heap");
    else if (dpick_heap_down(p->heap, p->n, at, x) == at)
        dpick_heap_up(p->heap, at, x);
}

int sim_dpick_fell_back(const sim_cluster_t *c) { return sim_pd(c)->dpick && sim_pd(c)->dpick->scan; }

static int scan_all(const sim_cluster_t *c, const sim_req_t *r)
{
    int best = 0;
    double best_t = INFINITY;
    for (int j = 0; j < c->a.pd.n_decode; j++) {
        double t = sim_cluster_decode_pred_load(c, j, r);
        if (t < best_t) {
            best_t = t;
            best = j;
        }
    }
    return best;
}

static void visit_push(sim_dpick_t *p, size_t at)
{
    if (at >= p->n)
        return;
    dpick_visit_t v = {.key = p->heap[at].key, .j = p->heap[at].j, .at = (uint32_t)at};
    dpick_front_push(&p->visit, &p->n_visit, &p->cap_visit, v, "decode pick search");
}

int sim_cluster_decode_least_loaded(const sim_cluster_t *c, const sim_req_t *r)
{
    sim_dpick_t *p = sim_pd(c)->dpick;
    if (!p || p->scan)
        return scan_all(c, r);
    sim_time_t add = model_cost_decode_ctx_add_ns(c->a.cost, r->input_tok);
    double slo = (double)c->a.slo_tbt_ns;
    int best = -1;
    double best_t = INFINITY;
    for (size_t w = 0; w < p->n_words; w++)
        if (p->idle[w]) {
            best = (int)(w * 64) + __builtin_ctzll(p->idle[w]);
            best_t = sim_cluster_decode_pred_load(c, best, r);
            break;
        }
    p->n_visit = 0;
    visit_push(p, 0);
    while (p->n_visit > 0) {
        dpick_visit_t v = dpick_front_pop(p->visit, &p->n_visit);
        double bound = (double)(v.key + add) / slo;
        if (bound > best_t)
            break; /* every bound left is at least this one */
        if (bound < best_t || (int)v.j < best) {
            double t = sim_cluster_decode_pred_load(c, (int)v.j, r);
            if (t < bound) {
                p->scan = 1;
                return scan_all(c, r);
            }
            if (t < best_t || (t == best_t && (int)v.j < best)) {
                best_t = t;
                best = (int)v.j;
            }
        }
        visit_push(p, 2 * (size_t)v.at + 1);
        visit_push(p, 2 * (size_t)v.at + 2);
    }
    return best < 0 ? scan_all(c, r) : best;
}
