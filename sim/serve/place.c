/* sim/serve/place.c: the placement registry, the shared decode balancer and
 * Algorithm 1's estimate (sim_place_kv_estimate). */
#include "sim/serve/place.h"

#include "sim/serve/view.h"
#include "sim/core/registry.h"

static const sim_place_ops_t *const place_registry[] = {
#define SIM_PLACE(name) &sim_place_##name,
#include "sim/serve/policy/place_list.h"
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

const sim_place_ops_t *sim_place_at(size_t i)
{
    return i < SIM_REGISTRY_LEN(place_registry) ? place_registry[i] : NULL;
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

/* What one request's estimates share: its arguments, the longest run
 * anywhere (best_len) and its fastest holder, and the memos of the last
 * fetch plan and hand-off estimate (each depends on the instance only
 * through the shares it is keyed by). */
typedef struct kv_est {
    const sim_cluster_t *c;
    const sim_req_t *r;
    sim_place_scratch_t *s;
    int allow_fetch, decode;
    double threshold;
    uint32_t best_len;
    int fastest;
    fetch_memo_t fetch;
    double handoff_send; /* -1: none yet */
    sim_time_t handoff_ns;
} kv_est_t;

/* Instance i's planned fetch (own: its run; recv: its node's receive
 * share) into s->est[i]: the transfer time, the holder and the lead it
 * would then have. */
static void est_fetch(kv_est_t *x, int i, uint32_t own, double recv)
{
    sim_place_est_t *e = &x->s->est[i];
    e->lead_blocks = own;
    e->ttft_ns = 0;
    e->fetch_from = -1;
    if (x->allow_fetch && x->best_len > own &&
        (own == 0 || (double)x->best_len / (double)own > x->threshold)) {
        e->ttft_ns = fetch_plan(x->c, x->r, i, recv, own, x->best_len, x->fastest, x->s,
                                &x->fetch, &e->fetch_from);
        e->lead_blocks = x->best_len;
    }
}

/* The rest of instance i's TTFT: its queue wait, prefill_ns with that
 * lead and, with a decode instance, what of the hand-off (from its node,
 * send share send) prefill does not cover. Returns it. */
static sim_time_t est_finish(kv_est_t *x, int i, sim_time_t wait, sim_time_t prefill_ns,
                             double send)
{
    sim_place_est_t *e = &x->s->est[i];
    e->ttft_ns += wait + prefill_ns;
    if (x->decode >= 0) {
        if (send != x->handoff_send) {
            x->handoff_send = send;
            x->handoff_ns = sim_cluster_handoff_estimate_ns(x->c, i, x->decode, x->r);
        }
        e->ttft_ns += x->handoff_ns > prefill_ns ? x->handoff_ns - prefill_ns : 0;
    }
    return e->ttft_ns;
}

/* An estimate t from a node of send share send beats the best so far
 * (bt, bsend): it is lower, or (when the hand-off is priced) equal from a
 * node with a larger send share. */
static int beats(const kv_est_t *x, sim_time_t t, double send, sim_time_t bt, double bsend)
{
    return t < bt || (t == bt && x->decode >= 0 && send > bsend);
}

/* Algorithm 1 over the view's candidates only (sim_cluster_prefill_view):
 * an instance left out has a candidate alike in everything but a wait no
 * longer than its own and a lower index, so the choice is the full
 * scan's. Of equal estimates that price the hand-off (handoff_aware) the
 * one whose node has the largest send share wins (then the lowest index): a cold prompt's stream hides behind
 * its prefill on every idle instance alike, and the node whose NIC is
 * least busy delivers it soonest; by index alone new sessions, and their
 * later turns, piled onto the first instances' NICs. -1 when there is no
 * view (the pool is off). */
static int kv_estimate_view(kv_est_t *x)
{
    sim_place_scratch_t *s = x->s;
    sim_prefill_view_t v = {.inst = s->cand, .lead = s->leads, .wait = s->wait, .send = s->send,
                            .recv = s->recv, .hold = s->hold, .hold_send = s->hold_send};
    if (sim_cluster_prefill_view(x->c, x->r, &v) != 0)
        return -1;
    x->best_len = v.top_len;
    s->n_shares = 0;
    double top = 0;
    for (int k = 0; x->allow_fetch && k < v.n_hold; k++)
        add_holder(s, v.hold[k], v.hold_send[k], &x->fastest, &top);
    int best = -1;
    double best_send = 0;
    for (int k = 0; k < v.n; k++) {
        int i = v.inst[k];
        est_fetch(x, i, v.lead[k], v.recv[k]);
        /* The rest (a prediction, and a hand-off's excess over it) is
         * never below 0: past the best already, it can neither win nor
         * tie. */
        if (best >= 0 && s->est[i].ttft_ns + v.wait[k] > s->est[best].ttft_ns)
            continue;
        sim_time_t prefill_ns =
            sim_cluster_prefill_pred_view_ns(x->c, i, x->r, s->est[i].lead_blocks);
        sim_time_t t = est_finish(x, i, v.wait[k], prefill_ns, v.send[k]);
        if (best < 0 || beats(x, t, v.send[k], s->est[best].ttft_ns, best_send)) {
            best = i;
            best_send = v.send[k];
        }
    }
    return best;
}

int sim_place_kv_estimate(const sim_cluster_t *c, const sim_req_t *r, int allow_fetch,
                          double threshold, int decode, sim_place_scratch_t *s)
{
    kv_est_t x = {.c = c, .r = r, .s = s, .allow_fetch = allow_fetch, .decode = decode,
                  .threshold = threshold, .fastest = -1, .handoff_send = -1};
    if (!s->full_scan) {
        int best = kv_estimate_view(&x);
        if (best >= 0)
            return best;
    }
    /* Every instance: its run from one walk, waits and shares from one
     * pass, and the predictions of all in one call. */
    int n = sim_cluster_n_prefill(c);
    sim_cluster_prefix_by_instance(c, r, s->leads);
    sim_cluster_prefill_state(c, s->wait, s->send, s->recv);
    x.fastest = fetch_sources(s->leads, n, allow_fetch, &x.best_len, s);
    for (int i = 0; i < n; i++) {
        est_fetch(&x, i, s->leads[i], s->recv[i]);
        s->lead_min[i] = s->est[i].lead_blocks;
    }
    sim_cluster_prefill_pred_all(c, r, s->leads, s->lead_min, s->pred);
    int best = 0;
    for (int i = 0; i < n; i++)
        if (beats(&x, est_finish(&x, i, s->wait[i], s->pred[i], s->send[i]), s->send[i],
                  s->est[best].ttft_ns, s->send[best]))
            best = i;
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
    /* debug.place_scan: estimate every instance (the reference the tests
     * compare the candidates' choice against). */
    s->full_scan = sim_cluster_args(c)->debug.place_scan;
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
