/* sim/place.c: the placement registry and the shared decode balancer. */
#include "sim/place.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/registry.h"

#include "sim/cluster.h"

static const sim_place_ops_t *const place_registry[] = {
#define SIM_PLACE(name) &sim_place_##name,
#include "sim/policy/place_list.h"
#undef SIM_PLACE
};

const sim_place_ops_t *sim_place_find(const char *name)
{
    return sim_registry_find((const void *const *)place_registry, SIM_REGISTRY_LEN(place_registry), name);
}

void sim_place_names(char *buf, size_t len)
{
    sim_registry_names((const void *const *)place_registry, SIM_REGISTRY_LEN(place_registry), buf, len);
}

int sim_place_decode_least_loaded(const sim_cluster_t *c, const sim_req_t *r)
{
    return sim_cluster_decode_least_loaded(c, r);
}

void sim_place_on(const sim_cluster_t *c, const sim_req_t *r, int p, sim_place_decision_t *out)
{
    out->prefill = p;
    out->decode = sim_place_decode_least_loaded(c, r);
    out->pred_ttft_ns = sim_cluster_prefill_wait_ns(c, p) + sim_cluster_prefill_pred_ns(c, p, r);
}

/* Holder i (in index order) with send share: a share not seen before
 * goes into s with i, its first holder; *fastest is the first holder of
 * the largest share, *top that share. */
static void add_holder(sim_place_scratch_t *s, int i, double share, int *fastest, double *top)
{
    int k = 0;
    while (k < s->n_shares && s->shares[k] != share)
        k++;
    if (k < s->n_shares)
        return;
    if (*fastest < 0 || share > *top) {
        *fastest = i;
        *top = share;
    }
    s->shares[s->n_shares] = share;
    s->holders[s->n_shares++] = i;
}

/* The longest prefix any instance holds, and its holders by distinct
 * send share (each with its first holder in index order) into s; the
 * index of the first holder of the largest share (-1 without fetches). */
static int fetch_sources(const uint32_t *leads, int n, int allow_fetch, uint32_t *best_len,
                         sim_place_scratch_t *s)
{
    uint32_t top_len = 0;
    for (int i = 0; i < n; i++)
        top_len = leads[i] > top_len ? leads[i] : top_len;
    *best_len = top_len;
    s->n_shares = 0;
    int fastest = -1;
    double top = 0;
    for (int i = 0; allow_fetch && i < n; i++)
        if (leads[i] == top_len)
            add_holder(s, i, s->send[i], &fastest, &top);
    return fastest;
}

/* The last fetch planned in one estimate (ok 0: none yet). */
typedef struct fetch_memo {
    int ok;
    double recv;
    uint32_t own;
    int from;
    sim_time_t ns;
} fetch_memo_t;

/* Fetching blocks [own, best_len) of r to instance i: the first holder,
 * in index order, whose link to i sends it soonest, and the estimate.
 * The largest send share attains the least estimate (it never grows with
 * the share), and holders of one share estimate alike, so the first
 * holder of the first share that equals it is the one a scan of every
 * holder would pick. The answer depends on i only through its receive
 * share, so it is kept in m for the next instance with the same share
 * and own prefix. */
static sim_time_t fetch_plan(const sim_cluster_t *c, const sim_req_t *r, int i, double recv,
                             uint32_t own, uint32_t best_len, int fastest,
                             const sim_place_scratch_t *s, fetch_memo_t *m, int *from)
{
    if (!m->ok || m->recv != recv || m->own != own) {
        m->ns = sim_cluster_fetch_estimate_ns(c, fastest, i, r, own, best_len);
        m->from = -1;
        for (int k = 0; k < s->n_shares; k++) {
            int h = s->holders[k];
            if (sim_cluster_fetch_estimate_ns(c, h, i, r, own, best_len) == m->ns) {
                m->from = h;
                break;
            }
        }
        m->ok = 1;
        m->recv = recv;
        m->own = own;
    }
    *from = m->from;
    return m->ns;
}

/* Instance i's estimate into s->est[i] given its own run, queue wait and
 * network shares, the longest run anywhere (best_len) and its fastest
 * holder; the fetch plan and the hand-off estimate are kept in the memos
 * (both depend on i only through what is passed). */
typedef struct handoff_memo {
    double send; /* -1: none yet */
    sim_time_t ns;
} handoff_memo_t;

static sim_time_t handoff(const sim_cluster_t *c, const sim_req_t *r, int i, double send,
                          int decode, handoff_memo_t *m)
{
    if (send != m->send) {
        m->send = send;
        m->ns = sim_cluster_handoff_estimate_ns(c, i, decode, r);
    }
    return m->ns;
}

/* Algorithm 1 over the view's candidates only (sim_cluster_prefill_view):
 * an instance left out has a candidate alike in everything but a wait no
 * longer than its own and a lower index, so the choice is the full
 * scan's. -1 when there is no view (the pool is off). */
static int kv_estimate_view(const sim_cluster_t *c, const sim_req_t *r, int allow_fetch,
                            double threshold, int decode, sim_place_scratch_t *s)
{
    sim_prefill_view_t v = {.inst = s->cand, .lead = s->leads, .wait = s->wait, .send = s->send,
                            .recv = s->recv, .hold = s->hold, .hold_send = s->hold_send};
    if (sim_cluster_prefill_view(c, r, &v) != 0)
        return -1;
    uint32_t best_len = v.top_len;
    s->n_shares = 0;
    int fastest = -1;
    double top = 0;
    for (int k = 0; allow_fetch && k < v.n_hold; k++)
        add_holder(s, v.hold[k], v.hold_send[k], &fastest, &top);
    fetch_memo_t memo = {0};
    handoff_memo_t hm = {.send = -1};
    int best = -1;
    for (int k = 0; k < v.n; k++) {
        int i = v.inst[k];
        sim_place_est_t *e = &s->est[i];
        uint32_t own = v.lead[k];
        e->lead_blocks = own;
        e->ttft_ns = 0;
        e->fetch_from = -1;
        if (allow_fetch && best_len > own &&
            (own == 0 || (double)best_len / (double)own > threshold)) {
            e->ttft_ns = fetch_plan(c, r, i, v.recv[k], own, best_len, fastest, s, &memo,
                                    &e->fetch_from);
            e->lead_blocks = best_len;
        }
        sim_time_t prefill_ns = sim_cluster_prefill_pred_lead_ns(c, i, r, e->lead_blocks);
        e->ttft_ns += v.wait[k] + prefill_ns;
        if (decode >= 0) {
            sim_time_t h = handoff(c, r, i, v.send[k], decode, &hm);
            e->ttft_ns += h > prefill_ns ? h - prefill_ns : 0;
        }
        if (best < 0 || e->ttft_ns < s->est[best].ttft_ns)
            best = i;
    }
    return best;
}

int sim_place_kv_estimate(const sim_cluster_t *c, const sim_req_t *r, int allow_fetch,
                          double threshold, int decode, sim_place_scratch_t *s)
{
    if (!s->full_scan) {
        int best = kv_estimate_view(c, r, allow_fetch, threshold, decode, s);
        if (best >= 0)
            return best;
    }
    int n = sim_cluster_n_prefill(c);
    uint32_t *leads = s->leads;
    sim_cluster_prefix_by_instance(c, r, leads);
    sim_cluster_prefill_state(c, s->wait, s->send, s->recv);
    uint32_t best_len;
    int fastest = fetch_sources(leads, n, allow_fetch, &best_len, s);
    fetch_memo_t memo = {0};
    for (int i = 0; i < n; i++) {
        sim_place_est_t *e = &s->est[i];
        e->lead_blocks = leads[i];
        e->ttft_ns = 0; /* fetching the longer prefix */
        e->fetch_from = -1;
        uint32_t own = leads[i];
        if (allow_fetch && best_len > own &&
            (own == 0 || (double)best_len / (double)own > threshold)) {
            e->ttft_ns =
                fetch_plan(c, r, i, s->recv[i], own, best_len, fastest, s, &memo, &e->fetch_from);
            e->lead_blocks = best_len;
        }
        s->lead_min[i] = e->lead_blocks;
    }
    sim_cluster_prefill_pred_all(c, r, leads, s->lead_min, s->pred);
    /* The hand-off estimate depends on i only through its send share. */
    handoff_memo_t hm = {.send = -1};
    int best = 0;
    for (int i = 0; i < n; i++) {
        sim_place_est_t *e = &s->est[i];
        sim_time_t prefill_ns = s->pred[i];
        e->ttft_ns += s->wait[i] + prefill_ns;
        if (decode >= 0) {
            sim_time_t h = handoff(c, r, i, s->send[i], decode, &hm);
            e->ttft_ns += h > prefill_ns ? h - prefill_ns : 0;
        }
        if (e->ttft_ns < s->est[best].ttft_ns)
            best = i;
    }
    return best;
}

sim_place_scratch_t *sim_place_scratch_new(const sim_cluster_t *c)
{
    sim_place_scratch_t *s = sim_xmalloc(sizeof *s, "placement scratch");
    size_t n = (size_t)sim_cluster_n_prefill(c) + 1;
    s->leads = sim_xmalloc(n * sizeof *s->leads, "placement leads");
    s->est = sim_xmalloc(n * sizeof *s->est, "placement estimates");
    s->holders = sim_xmalloc(n * sizeof *s->holders, "placement holders");
    s->shares = sim_xmalloc(n * sizeof *s->shares, "placement shares");
    s->lead_min = sim_xmalloc(n * sizeof *s->lead_min, "placement leads");
    s->pred = sim_xmalloc(n * sizeof *s->pred, "placement predictions");
    s->wait = sim_xmalloc(n * sizeof *s->wait, "placement waits");
    s->send = sim_xmalloc(n * sizeof *s->send, "placement shares");
    s->recv = sim_xmalloc(n * sizeof *s->recv, "placement shares");
    s->cand = sim_xmalloc(n * sizeof *s->cand, "placement candidates");
    s->hold = sim_xmalloc(n * sizeof *s->hold, "placement holders");
    s->hold_send = sim_xmalloc(n * sizeof *s->hold_send, "placement shares");
    /* MOONCAKE_SIM_PLACE_SCAN=1: estimate every instance (the reference
     * the tests compare the candidates' choice against). */
    const char *e = getenv("MOONCAKE_SIM_PLACE_SCAN");
    s->full_scan = e && e[0] && strcmp(e, "0") != 0;
    return s;
}

void sim_place_scratch_free(void *scratch)
{
    sim_place_scratch_t *s = scratch;
    if (!s)
        return;
    sim_free(s->leads);
    sim_free(s->est);
    sim_free(s->holders);
    sim_free(s->shares);
    sim_free(s->lead_min);
    sim_free(s->pred);
    sim_free(s->wait);
    sim_free(s->send);
    sim_free(s->recv);
    sim_free(s->cand);
    sim_free(s->hold);
    sim_free(s->hold_send);
    sim_free(s);
}
