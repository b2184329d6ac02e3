/* sim/place.c: the placement registry and the shared decode balancer. */
#include "sim/place.h"

#include <math.h>
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
    for (int i = 0; allow_fetch && i < n; i++) {
        if (leads[i] != top_len)
            continue;
        double share = s->send[i];
        int k = 0;
        while (k < s->n_shares && s->shares[k] != share)
            k++;
        if (k == s->n_shares) {
            s->shares[s->n_shares] = share;
            s->holders[s->n_shares++] = i;
            if (fastest < 0 || share > top) {
                fastest = i;
                top = share;
            }
        }
    }
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
static sim_time_t fetch_plan(const sim_cluster_t *c, const sim_req_t *r, int i, uint32_t own,
                             uint32_t best_len, int fastest, const sim_place_scratch_t *s,
                             fetch_memo_t *m, int *from)
{
    double recv = s->recv[i];
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

int sim_place_kv_estimate(const sim_cluster_t *c, const sim_req_t *r, int allow_fetch,
                          double threshold, int decode, sim_place_scratch_t *s)
{
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
            e->ttft_ns = fetch_plan(c, r, i, own, best_len, fastest, s, &memo, &e->fetch_from);
            e->lead_blocks = best_len;
        }
        s->lead_min[i] = e->lead_blocks;
    }
    sim_cluster_prefill_pred_all(c, r, leads, s->lead_min, s->pred);
    /* The hand-off estimate depends on i only through its send share. */
    double last_send = -1;
    sim_time_t last_h = 0;
    int best = 0;
    for (int i = 0; i < n; i++) {
        sim_place_est_t *e = &s->est[i];
        sim_time_t prefill_ns = s->pred[i];
        e->ttft_ns += s->wait[i] + prefill_ns;
        if (decode >= 0) {
            double send = s->send[i];
            if (send != last_send) {
                last_send = send;
                last_h = sim_cluster_handoff_estimate_ns(c, i, decode, r);
            }
            e->ttft_ns += last_h > prefill_ns ? last_h - prefill_ns : 0;
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
    sim_free(s);
}
