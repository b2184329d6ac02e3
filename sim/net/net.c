/* sim/net/net.c: see net.h. Rates come from progressive filling (water-
 * filling): raise every unfrozen flow's rate together until a resource
 * (a sender's egress or a receiver's ingress) or a flow's own cap is
 * exhausted, freeze the flows held there, repeat. Flows that share no
 * resource, even through other flows, do not affect each other's rates,
 * so a change refills only the connected component(s) of the flow/
 * resource graph it touches: O(rounds x flows) per change, where the
 * rounds are at most the component's resources plus its capped flows.
 * A round freezes the flows within 1e-12 (relative) of its level, to
 * absorb rounding; each component has its own levels, so a near-equal
 * level elsewhere never freezes its flows (one level for all flows would
 * move rates in their last bits on changes they share nothing with). */
#include "sim/net/net.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/hmap.h"
#include "sim/core/metrics.h"

enum { F_FREE = 0, F_SETUP, F_ACTIVE };

typedef struct flow {
    int32_t src, dst, link;
    uint8_t state;
    uint8_t frozen;
    double left; /* bytes still to move (while active: in the active list's hot part) */
    double rate; /* bytes/s while active */
    double cap;  /* 0: none */
    double new_rate; /* water-filling result */
    sim_time_t start_ns;
    sim_event_id_t ev;
    sim_event_fn done;
    void *obj;
    int64_t arg;
    uint32_t pos;       /* index in active[] */
    uint32_t next_free;
    /* [0]: the active flows of the sender's egress, [1]: of the receiver's
     * ingress (a resource's side, r & 1) */
    uint32_t next[2], prev[2];
    int32_t res[2]; /* its resources: RES_E(src), RES_I(dst) */
    uint32_t seen;               /* component search epoch */
} flow_t;

/* An active flow's progress, kept beside active[]. Its bytes move at a
 * constant rate between changes of that rate, so left is kept as of t0
 * (its last change) and brought forward only when the rate changes or the
 * flow ends: one subtraction per constant-rate interval, whatever happens
 * elsewhere in the network. The byte counters (per link, per sender) are
 * kept apart, as of counted_ns, so reading them (sim_net_settle) never
 * moves a flow. */
typedef struct flow_hot {
    double rate;
    double left;    /* bytes still to move, as of t0 */
    double size;    /* all its bytes */
    double counted; /* of them, added to the counters (as of counted_ns) */
    sim_time_t t0, counted_ns;
    int32_t link, src;
} flow_hot_t;

/* A resource is 2 x node for its egress, 2 x node + 1 for its ingress. */
#define RES_E(node) (2 * (int32_t)(node))
#define RES_I(node) (2 * (int32_t)(node) + 1)

struct sim_net {
    sim_evq_t *q;
    sim_net_profile_t prof;
    sim_time_t latency_ns; /* prof.latency_s, rounded once */
    int n_nodes;
    double *cap_node;  /* egress = ingress capacity per node: NIC x efficiency */
    double *nic;
    /* Per resource (2 x n_nodes, one index for both sides, no branch on
     * the side): */
    double *rem;    /* water-filling scratch: capacity left */
    int32_t *cnt;   /* and unfrozen flows */
    uint32_t *head; /* first active flow */
    uint32_t *seen; /* component search epoch */
    uint32_t epoch;
    int32_t *res;    /* the refilled components' resources (2 x n_nodes) */
    uint32_t *comp;  /* their flows */
    uint32_t *live;  /* water-filling scratch: a component's unfrozen flows */
    double *live_sh; /* beside each: its share in the round */
    uint32_t *moved; /* active[] positions of the flows whose rate changes */
    size_t cap_scratch; /* of comp, live, live_sh and moved */
    int reference;      /* refill every flow at each change */
    const sim_obs_t *obs; /* told of each flow that ends (NULL: none) */
    int32_t *uf;        /* the reference's union-find over resources */
    double *lvl;        /* and its per-component levels */
    int32_t *n_out, *n_in; /* flows (setup or active) per node */
    double *share_out, *share_in; /* cap_node over n_out + 1, n_in + 1: kept, not divided per query */
    /* Each node's (share_out, share_in) pair interned: nodes with equal
     * pairs have equal ids (NO_SHARE_ID: a pair whose key another holds). */
    uint32_t *share_id;
    sim_hmap_t share_index; /* key of a pair -> id */
    /* [node][n_out][n_in] for counts below SHARE_MEMO: the id share_lookup
     * gave that pair (SHARE_UNASKED: not yet asked).
     * A node's pair is a function of its counts and ids are never
     * dropped, so the hash is asked once per node and pair of counts. */
    uint32_t *share_memo;
    struct share_pair {
        double out, in;
    } *id_pair; /* [id] */
    size_t n_ids, cap_ids;
    /* Nodes whose id changed since sim_net_share_changes last read them,
     * once each (changed[node]); NULL until it is first called. */
    uint32_t *changes;
    uint8_t *changed;
    size_t n_changes;
    double *sent;
    flow_t *f;
    size_t n_f, cap_f;
    uint32_t free_head;
    uint32_t *active;
    flow_hot_t *hot; /* [k]: of active[k] */
    size_t n_active, cap_active, cap_hot;
    sim_net_link_stats_t link[SIM_N_NET_LINKS];
    int64_t n_moving[SIM_N_NET_LINKS]; /* active flows with a rate > 0 */
    /* While n_moving[l] > 0: since when link[l].busy_ns has not counted */
    sim_time_t busy_since[SIM_N_NET_LINKS];
};

#define NO_FLOW UINT32_MAX

#define SHARE_MEMO 8
#define SHARE_UNASKED (NO_SHARE_ID - 1) /* above every id */

/* The id of node's share pair, interned. */
static uint32_t share_lookup(sim_net_t *n, int node)
{
    double o = n->share_out[node], i = n->share_in[node];
    uint64_t a, b;
    memcpy(&a, &o, sizeof a);
    memcpy(&b, &i, sizeof b);
    uint64_t key = a ^ (b * UINT64_C(0x9E3779B97F4A7C15) >> 7);
    int inserted;
    uint32_t *id = sim_hmap_upsert(&n->share_index, key, (uint32_t)n->n_ids, &inserted);
    if (inserted) {
        SIM_ASSERT(n->n_ids < SHARE_UNASKED); /* ids stay below the memo's marks */
        sim_grow((void **)&n->id_pair, &n->cap_ids, n->n_ids + 1, sizeof *n->id_pair,
                 "net share ids");
        n->id_pair[n->n_ids++] = (struct share_pair){o, i};
    }
    return n->id_pair[*id].out == o && n->id_pair[*id].in == i ? *id : NO_SHARE_ID;
}

/* share_lookup, its answer kept in *m (NULL: nowhere): out of line, as
 * the memo answers the most. */
__attribute__((noinline)) static uint32_t share_ask(sim_net_t *n, int node, uint32_t *m)
{
    uint32_t id = share_lookup(n, node);
    if (m)
        *m = id;
    return id;
}

/* Node's share pair changed: its id. */
static inline __attribute__((always_inline)) void share_intern(sim_net_t *n, int node)
{
    uint32_t a = (uint32_t)n->n_out[node], b = (uint32_t)n->n_in[node], now;
    if ((a | b) < SHARE_MEMO) { /* both below: counts are never negative */
        uint32_t *m = &n->share_memo[((size_t)node * SHARE_MEMO + a) * SHARE_MEMO + b];
        now = *m;
        if (now == SHARE_UNASKED)
            now = share_ask(n, node, m);
    } else {
        now = share_ask(n, node, NULL);
    }
    if (n->changes && now != n->share_id[node] && !n->changed[node]) {
        n->changed[node] = 1;
        n->changes[n->n_changes++] = (uint32_t)node;
    }
    n->share_id[node] = now;
}

sim_net_t *sim_net_new(sim_evq_t *q, int n_nodes, const double *nic_bytes_per_s,
                       const sim_net_profile_t *profile)
{
    sim_net_t *n = sim_xcalloc(1, sizeof *n, "net");
    size_t nn = (size_t)n_nodes;
    n->q = q;
    n->prof = *profile;
    n->latency_ns = (sim_time_t)llround(profile->latency_s * 1e9);
    n->n_nodes = n_nodes;
    n->cap_node = sim_xcalloc(nn, sizeof *n->cap_node, "net capacity");
    n->nic = sim_xcalloc(nn, sizeof *n->nic, "net nic");
    n->rem = sim_xcalloc(2 * nn, sizeof *n->rem, "net scratch");
    n->cnt = sim_xcalloc(2 * nn, sizeof *n->cnt, "net scratch");
    n->head = sim_xcalloc(2 * nn, sizeof *n->head, "net lists");
    n->seen = sim_xcalloc(2 * nn, sizeof *n->seen, "net scratch");
    n->res = sim_xcalloc(2 * nn, sizeof *n->res, "net scratch");
    n->n_out = sim_xcalloc(nn, sizeof *n->n_out, "net counts");
    n->n_in = sim_xcalloc(nn, sizeof *n->n_in, "net counts");
    n->share_out = sim_xcalloc(nn, sizeof *n->share_out, "net shares");
    n->share_in = sim_xcalloc(nn, sizeof *n->share_in, "net shares");
    n->sent = sim_xcalloc(nn, sizeof *n->sent, "net sent");
    n->share_id = sim_xcalloc(nn, sizeof *n->share_id, "net share ids");
    n->share_memo = sim_xmalloc(nn * SHARE_MEMO * SHARE_MEMO * sizeof *n->share_memo,
                                "net share ids");
    for (size_t k = 0; k < nn * SHARE_MEMO * SHARE_MEMO; k++)
        n->share_memo[k] = SHARE_UNASKED;
    sim_hmap_init(&n->share_index);
    for (size_t i = 0; i < nn; i++) {
        n->nic[i] = nic_bytes_per_s[i];
        n->cap_node[i] = nic_bytes_per_s[i] * profile->efficiency;
        n->share_out[i] = n->share_in[i] = n->cap_node[i];
        share_intern(n, (int)i);
        n->head[RES_E(i)] = n->head[RES_I(i)] = NO_FLOW;
    }
    n->free_head = NO_FLOW;
    return n;
}

void sim_net_set_obs(sim_net_t *n, const sim_obs_t *obs) { n->obs = obs; }

void sim_net_free(sim_net_t *n)
{
    if (!n)
        return;
    sim_free(n->cap_node);
    sim_free(n->nic);
    sim_free(n->rem);
    sim_free(n->cnt);
    sim_free(n->head);
    sim_free(n->seen);
    sim_free(n->res);
    sim_free(n->comp);
    sim_free(n->live);
    sim_free(n->live_sh);
    sim_free(n->moved);
    sim_free(n->uf);
    sim_free(n->lvl);
    sim_free(n->n_out);
    sim_free(n->n_in);
    sim_free(n->share_out);
    sim_free(n->share_in);
    sim_free(n->share_id);
    sim_free(n->share_memo);
    sim_free(n->changes);
    sim_free(n->changed);
    sim_free(n->id_pair);
    sim_hmap_free(&n->share_index);
    sim_free(n->sent);
    sim_free(n->f);
    sim_free(n->active);
    sim_free(n->hot);
    sim_free(n);
}

/* Flow h's left brought forward to now at its rate (> 0 or not). */
static void flow_move(flow_hot_t *h, sim_time_t now)
{
    sim_time_t dt = now - h->t0;
    h->t0 = now;
    if (dt <= 0 || h->rate <= 0)
        return;
    double moved = h->rate * (double)dt / 1e9;
    h->left -= moved < h->left ? moved : h->left;
}

/* Flow h's bytes since counted_ns into its link's and sender's counters
 * (never past its size). */
static inline __attribute__((always_inline)) void flow_count(sim_net_t *n, flow_hot_t *h,
                                                             sim_time_t now)
{
    sim_time_t dt = now - h->counted_ns;
    h->counted_ns = now;
    if (dt <= 0 || h->rate <= 0)
        return;
    double moved = h->rate * (double)dt / 1e9, rest = h->size - h->counted;
    if (moved > rest)
        moved = rest;
    h->counted += moved;
    n->link[h->link].bytes += moved;
    n->sent[h->src] += moved;
}

/* Flow h, already brought to now, given rate; the links' counts of
 * moving flows follow. A link's
 * busy time grows by the length of each stretch in which its count is
 * above 0, added when the stretch ends (or the counters are settled):
 * the count changes only here, so this is the time it was above 0, in
 * integer ns, whatever happened in between. */
static inline __attribute__((always_inline)) void flow_rate_at(sim_net_t *n, flow_hot_t *h, double rate,
                                                             sim_time_t now)
{
    if ((rate > 0) != (h->rate > 0)) {
        int32_t l = h->link;
        if (rate > 0) {
            if (n->n_moving[l]++ == 0)
                n->busy_since[l] = now;
        } else if (--n->n_moving[l] == 0) {
            n->link[l].busy_ns += now - n->busy_since[l];
        }
    }
    h->rate = rate;
}

/* flow_rate_at for flow h not yet brought to now: brought first. */
static inline __attribute__((always_inline)) void flow_set_rate(sim_net_t *n, flow_hot_t *h, double rate,
                                                              sim_time_t now)
{
    flow_count(n, h, now);
    flow_move(h, now);
    flow_rate_at(n, h, rate, now);
}

void sim_net_settle(sim_net_t *n)
{
    sim_time_t now = sim_evq_now(n->q);
    for (int l = 0; l < SIM_N_NET_LINKS; l++)
        if (n->n_moving[l] > 0) {
            n->link[l].busy_ns += now - n->busy_since[l];
            n->busy_since[l] = now;
        }
    for (size_t k = 0; k < n->n_active; k++)
        flow_count(n, &n->hot[k], now);
}

static void flow_done(void *ctx, void *obj, int64_t arg);

/* When a flow with left bytes to move at rate (> 0) from now finishes,
 * rounded up to the ns. A finish further away than SIM_MAX_DURATION_NS
 * (an absurd size over a tiny share), the bound of every duration, is held
 * there (and at the end of int64 time) rather than converted out of
 * int64; the flow's rate is recomputed at the next change of its
 * component anyway. */
static sim_time_t flow_finish_ns(sim_time_t now, double left, double rate)
{
    double ns = left / rate * 1e9;
    sim_time_t dt = SIM_MAX_DURATION_NS;
    if (ns <= (double)SIM_MAX_DURATION_NS)
        dt = (sim_time_t)ceil(ns);
    if (dt < 0)
        dt = 0;
    return dt > INT64_MAX - now ? INT64_MAX : now + dt;
}

/* Give flow id its new rate; when it changed (or the flow has no
 * completion queued), queue its completion again. */
static void flow_apply(sim_net_t *n, uint32_t id, sim_time_t now)
{
    flow_t *f = &n->f[id];
    if (f->new_rate == f->rate && f->ev)
        return;
    flow_set_rate(n, &n->hot[f->pos], f->new_rate, now);
    f->rate = f->new_rate;
    if (f->ev)
        sim_evq_cancel(n->q, f->ev);
    f->ev = 0;
    if (f->rate > 0)
        f->ev = sim_evq_at(n->q, flow_finish_ns(now, n->hot[f->pos].left, f->rate), flow_done, n,
                           id);
}

/* Add active flow id to its sender's egress and receiver's ingress lists. */
static void flow_link(sim_net_t *n, uint32_t id)
{
    flow_t *f = &n->f[id];
    for (int side = 0; side < 2; side++) {
        int32_t r = f->res[side];
        f->prev[side] = NO_FLOW;
        f->next[side] = n->head[r];
        if (f->next[side] != NO_FLOW)
            n->f[f->next[side]].prev[side] = id;
        n->head[r] = id;
    }
}

static inline __attribute__((always_inline)) void flow_unlink(sim_net_t *n, uint32_t id)
{
    flow_t *f = &n->f[id];
    for (int side = 0; side < 2; side++) {
        if (f->prev[side] != NO_FLOW)
            n->f[f->prev[side]].next[side] = f->next[side];
        else
            n->head[f->res[side]] = f->next[side];
        if (f->next[side] != NO_FLOW)
            n->f[f->next[side]].prev[side] = f->prev[side];
    }
}

/* Resource r joins this search's component: seen, its whole capacity
 * left, no flows counted yet. */
static inline __attribute__((always_inline)) void res_open(sim_net_t *n, int32_t r, size_t *nr)
{
    n->seen[r] = n->epoch;
    n->rem[r] = n->cap_node[r >> 1];
    n->cnt[r] = 0;
    n->res[(*nr)++] = r;
}

/* Append the component of resource r0 (unless already seen) to
 * n->res[*nr..] and n->comp[*nc..]: every resource and active flow
 * reachable from it through shared resources, each resource's capacity
 * and count of flows set for the water-filling. O(component). */
static void comp_collect(sim_net_t *n, int32_t r0, size_t *nr, size_t *nc)
{
    if (n->seen[r0] == n->epoch)
        return;
    size_t head = *nr;
    res_open(n, r0, nr);
    while (head < *nr) {
        int32_t r = n->res[head++];
        int side = r & 1;
        for (uint32_t id = n->head[r]; id != NO_FLOW; id = n->f[id].next[side]) {
            flow_t *f = &n->f[id];
            if (f->seen == n->epoch)
                continue;
            f->seen = n->epoch;
            n->comp[(*nc)++] = id;
            int32_t other = f->res[side ^ 1];
            if (n->seen[other] != n->epoch)
                res_open(n, other, nr);
            n->cnt[r]++;
            n->cnt[other]++;
        }
    }
}

/* Whether every active flow of resource r is alone on its other
 * resource: then they and their resources are a component, a star
 * about r. */
static inline __attribute__((always_inline)) int star_at(const sim_net_t *n, int32_t r)
{
    int side = r & 1;
    for (uint32_t id = n->head[r]; id != NO_FLOW; id = n->f[id].next[side]) {
        const flow_t *f = &n->f[id];
        if (n->head[f->res[side ^ 1]] != id || f->next[side ^ 1] != NO_FLOW)
            return 0;
    }
    return 1;
}

/* The usual small component, a star (a resource whose flows each have
 * their other resource to themselves), when it holds r: refilled, its
 * flows appended to n->comp[*nc..] (unless this search has them
 * already), 1. 0 when r's component is no star (then no resource of it
 * is at the centre of one: comp_collect it). A star is found from any
 * of its resources (at r, or at the other resource of r's one flow), so
 * a component goes whole one way or the other.
 *
 * fill_component's rounds on a star, the same doubles: a flow's other
 * resource is its own, so its share there stays its capacity (x / 1 is
 * x) and, with its cap, is the flow's own limit, taken once; its share
 * is the least of that and the centre's. So a round's level is the
 * least of the centre's share and the live flows' limits, and the flows
 * within 1e-12 of it freeze: all when the centre's share is, else those
 * whose limit is. The centre loses the level for each flow frozen, in
 * the same sequence; the other resources' subtractions are unread.
 * O(star x rounds). */
static int star_fill(sim_net_t *n, int32_t r, size_t *nc)
{
    uint32_t id = n->head[r];
    if (id == NO_FLOW)
        return 1;
    int32_t c = r;
    if (!star_at(n, r)) {
        const flow_t *f = &n->f[id];
        c = f->res[(r & 1) ^ 1];
        if (f->next[r & 1] != NO_FLOW || !star_at(n, c))
            return 0;
    }
    if (n->f[n->head[c]].seen == n->epoch)
        return 1; /* the other seed's star */
    int side = c & 1;
    uint32_t *live = n->live;
    double *lim = n->live_sh;
    size_t nl = 0;
    for (id = n->head[c]; id != NO_FLOW; id = n->f[id].next[side]) {
        flow_t *f = &n->f[id];
        double x = n->cap_node[f->res[side ^ 1] >> 1];
        if (f->cap > 0 && f->cap < x)
            x = f->cap;
        f->seen = n->epoch;
        n->comp[(*nc)++] = id;
        live[nl] = id;
        lim[nl++] = x;
    }
    double rem = n->cap_node[c >> 1];
    int32_t cnt = (int32_t)nl;
    while (nl > 0) {
        double cs = rem / cnt, level = INFINITY;
        if (cs < level)
            level = cs;
        for (size_t k = 0; k < nl; k++)
            if (lim[k] < level)
                level = lim[k];
        if (level < 0)
            level = 0;
        double thr = level + level * 1e-12;
        int all = !(cs > thr);
        for (size_t k = 0; k < nl;) {
            if (!all && lim[k] > thr) {
                k++;
                continue;
            }
            n->f[live[k]].new_rate = level;
            rem -= level;
            cnt--;
            live[k] = live[--nl];
            lim[k] = lim[nl];
        }
    }
    return 1;
}

/* The rate an unfrozen flow would get at this round: its equal share of
 * what is left on its sender's egress and its receiver's ingress, under
 * its own cap. */
static inline __attribute__((always_inline)) double flow_share(const sim_net_t *n, const flow_t *f)
{
    double e = n->rem[f->res[0]] / n->cnt[f->res[0]];
    double i = n->rem[f->res[1]] / n->cnt[f->res[1]];
    double s = e < i ? e : i;
    return f->cap > 0 && f->cap < s ? f->cap : s;
}

/* Water-fill the nc flows ids[0..nc) of one component as comp_collect
 * left it; sets each flow's new_rate. Each round every unfrozen flow's
 * share is the least of its resources' (capacity left over unfrozen
 * flows) and its cap; the round's level is the least share (never below
 * 0) and the flows within 1e-12 of it freeze there: the reference's
 * flow-by-flow test (flow_share, full_round), so the same rounds, levels
 * and subtractions, so the same doubles. The freezing flows' subtractions
 * come after the round's shares are taken and all subtract the same
 * level, so their order is free. (A share is never NaN: capacities are
 * positive, and a level of infinity freezes every flow left.) */
static void fill_component(sim_net_t *n, const uint32_t *ids, size_t nc)
{
    uint32_t *live = n->live;
    double *sh = n->live_sh;
    memcpy(live, ids, nc * sizeof *live);
    for (size_t nl = nc; nl > 0;) {
        if (nl == 1) { /* it freezes at its share: the last round, its subtractions unread */
            flow_t *f = &n->f[live[0]];
            double x = flow_share(n, f), level = INFINITY;
            if (x < level)
                level = x;
            f->new_rate = level < 0 ? 0 : level;
            return;
        }
        double level = INFINITY;
        for (size_t k = 0; k < nl; k++) {
            double x = flow_share(n, &n->f[live[k]]);
            sh[k] = x;
            if (x < level)
                level = x;
        }
        if (level < 0)
            level = 0;
        double thr = level + level * 1e-12;
        for (size_t k = 0; k < nl;) {
            if (sh[k] > thr) {
                k++;
                continue;
            }
            flow_t *f = &n->f[live[k]];
            f->new_rate = level;
            n->rem[f->res[0]] -= level;
            n->rem[f->res[1]] -= level;
            n->cnt[f->res[0]]--;
            n->cnt[f->res[1]]--;
            live[k] = live[--nl];
            sh[k] = sh[nl];
        }
    }
}

/* A fresh component search: nothing seen yet. */
static void epoch_next(sim_net_t *n)
{
    if (++n->epoch != 0)
        return;
    memset(n->seen, 0, 2 * (size_t)n->n_nodes * sizeof *n->seen);
    for (size_t i = 0; i < n->n_f; i++)
        n->f[i].seen = 0;
    n->epoch = 1;
}

static void scratch_grow(sim_net_t *n, size_t need)
{
    if (need <= n->cap_scratch)
        return;
    size_t cap = n->cap_scratch;
    sim_grow((void **)&n->comp, &cap, need, sizeof *n->comp, "net scratch");
    cap = n->cap_scratch;
    sim_grow((void **)&n->live, &cap, need, sizeof *n->live, "net scratch");
    cap = n->cap_scratch;
    sim_grow((void **)&n->live_sh, &cap, need, sizeof *n->live_sh, "net scratch");
    cap = n->cap_scratch;
    sim_grow((void **)&n->moved, &cap, need, sizeof *n->moved, "net scratch");
    n->cap_scratch = cap;
}

static int32_t uf_find(int32_t *uf, int32_t r)
{
    while (uf[r] != r) {
        uf[r] = uf[uf[r]];
        r = uf[r];
    }
    return r;
}

/* Label active[k] with its component (a resource of it) in comp[k]. */
static void full_label(sim_net_t *n)
{
    for (size_t k = 0; k < n->n_active; k++) {
        const flow_t *f = &n->f[n->active[k]];
        n->uf[RES_E(f->src)] = RES_E(f->src);
        n->uf[RES_I(f->dst)] = RES_I(f->dst);
    }
    for (size_t k = 0; k < n->n_active; k++) {
        const flow_t *f = &n->f[n->active[k]];
        int32_t a = uf_find(n->uf, RES_E(f->src)), b = uf_find(n->uf, RES_I(f->dst));
        if (a != b)
            n->uf[a] = b;
    }
    for (size_t k = 0; k < n->n_active; k++)
        n->comp[k] = (uint32_t)uf_find(n->uf, RES_E(n->f[n->active[k]].src));
}

/* One round of the reference over every unfrozen flow: the least share
 * per component, then freeze the flows within 1e-12 of their
 * component's. Returns how many froze. */
static size_t full_round(sim_net_t *n)
{
    size_t froze = 0;
    for (size_t k = 0; k < n->n_active; k++)
        if (!n->f[n->active[k]].frozen)
            n->lvl[n->comp[k]] = INFINITY;
    for (size_t k = 0; k < n->n_active; k++) {
        const flow_t *f = &n->f[n->active[k]];
        double s = f->frozen ? INFINITY : flow_share(n, f);
        if (s < n->lvl[n->comp[k]])
            n->lvl[n->comp[k]] = s;
    }
    for (size_t k = 0; k < n->n_active; k++) {
        flow_t *f = &n->f[n->active[k]];
        double level = n->lvl[n->comp[k]] < 0 ? 0 : n->lvl[n->comp[k]];
        if (!f->frozen && flow_share(n, f) <= level + level * 1e-12) {
            f->frozen = 1;
            f->new_rate = level;
        }
    }
    for (size_t k = 0; k < n->n_active; k++) {
        flow_t *f = &n->f[n->active[k]];
        if (f->frozen != 1)
            continue;
        f->frozen = 2; /* applied */
        n->rem[f->res[0]] -= f->new_rate;
        n->rem[f->res[1]] -= f->new_rate;
        n->cnt[f->res[0]]--;
        n->cnt[f->res[1]]--;
        froze++;
    }
    return froze;
}

/* The reference: every active flow refilled from scratch, flow by flow,
 * each component at its own levels, then every rate applied in active[]
 * order. O(flows^2) per change. */
static void recompute_full(sim_net_t *n, sim_time_t now)
{
    full_label(n);
    for (size_t k = 0; k < n->n_active; k++) {
        flow_t *f = &n->f[n->active[k]];
        n->rem[f->res[0]] = n->cap_node[f->src];
        n->rem[f->res[1]] = n->cap_node[f->dst];
        n->cnt[f->res[0]] = n->cnt[f->res[1]] = 0;
    }
    for (size_t k = 0; k < n->n_active; k++) {
        flow_t *f = &n->f[n->active[k]];
        f->frozen = 0;
        n->cnt[f->res[0]]++;
        n->cnt[f->res[1]]++;
    }
    for (size_t unfrozen = n->n_active; unfrozen > 0;)
        unfrozen -= full_round(n);
    for (size_t k = 0; k < n->n_active; k++)
        flow_apply(n, n->active[k], now);
}

static int pos_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

#define LONE_NOT (NO_FLOW - 1)

/* Resource r's component when it is small: NO_FLOW when r holds no
 * active flow; when it holds one that shares its other resource with
 * none, that flow, its new_rate set (its NICs' capacities under its cap:
 * the one round fill_component would run, the same doubles); else
 * LONE_NOT. */
static uint32_t fill_lone(sim_net_t *n, int32_t r)
{
    uint32_t id = n->head[r];
    if (id == NO_FLOW)
        return NO_FLOW;
    flow_t *f = &n->f[id];
    int side = r & 1;
    int32_t other = f->res[side ^ 1];
    if (f->next[side] != NO_FLOW || n->head[other] != id || f->next[side ^ 1] != NO_FLOW)
        return LONE_NOT;
    double level = INFINITY, a = n->cap_node[r >> 1], b = n->cap_node[other >> 1];
    if (a < level) /* the shares (x / 1 is x); their least is order-free */
        level = a;
    if (b < level)
        level = b;
    if (f->cap > 0 && f->cap < level)
        level = f->cap;
    f->new_rate = level < 0 ? 0 : level;
    return id;
}

/* The components of seeds[0..ns) (ns <= 2) when each is empty or one
 * lone flow: their rates applied in active[] order, 1; else 0. */
static inline __attribute__((always_inline)) int recompute_lone(sim_net_t *n, const int32_t *seeds,
                                                                 int ns, sim_time_t now)
{
    uint32_t id[2] = {NO_FLOW, NO_FLOW};
    for (int s = 0; s < ns; s++)
        if ((id[s] = fill_lone(n, seeds[s])) == LONE_NOT)
            return 0;
    if (ns == 2 && id[0] == id[1])
        id[1] = NO_FLOW;
    if (ns == 2 && id[0] != NO_FLOW && id[1] != NO_FLOW && n->f[id[1]].pos < n->f[id[0]].pos) {
        uint32_t t = id[0];
        id[0] = id[1];
        id[1] = t;
    }
    for (int s = 0; s < ns; s++)
        if (id[s] != NO_FLOW)
            flow_apply(n, id[s], now);
    return 1;
}

/* Refill the components holding resources seeds[0..ns), each on its own,
 * then apply their new rates in active[] order: the order in which the
 * reference queues completions, as every other flow keeps its rate. Only
 * the flows flow_apply would act on (a new rate, or no completion
 * queued) are sorted and applied: for the others it does nothing. */
static void recompute(sim_net_t *n, const int32_t *seeds, int ns, sim_time_t now)
{
    if (n->reference) {
        recompute_full(n, now);
        return;
    }
    if (ns <= 2 && recompute_lone(n, seeds, ns, now))
        return;
    epoch_next(n);
    size_t nr = 0, nc = 0;
    for (int s = 0; s < ns; s++) {
        size_t c0 = nc;
        if (star_fill(n, seeds[s], &nc))
            continue;
        comp_collect(n, seeds[s], &nr, &nc);
        if (nc > c0)
            fill_component(n, n->comp + c0, nc - c0);
    }
    uint32_t *mv = n->moved;
    size_t nm = 0;
    for (size_t k = 0; k < nc; k++) {
        const flow_t *f = &n->f[n->comp[k]];
        if (f->new_rate != f->rate || !f->ev)
            mv[nm++] = f->pos;
    }
    if (nm > 16) {
        qsort(mv, nm, sizeof *mv, pos_cmp);
    } else { /* the usual few: an insertion sort, no calls */
        for (size_t k = 1; k < nm; k++) {
            uint32_t x = mv[k];
            size_t j = k;
            for (; j > 0 && mv[j - 1] > x; j--)
                mv[j] = mv[j - 1];
            mv[j] = x;
        }
    }
    for (size_t k = 0; k < nm; k++)
        flow_apply(n, n->active[mv[k]], now);
}

void sim_net_set_reference(sim_net_t *n, int on)
{
    n->reference = on;
    if (on && !n->uf) {
        n->uf = sim_xcalloc(2 * (size_t)n->n_nodes, sizeof *n->uf, "net reference");
        n->lvl = sim_xcalloc(2 * (size_t)n->n_nodes, sizeof *n->lvl, "net reference");
    }
}

double sim_net_left(const sim_net_t *n, uint32_t id)
{
    SIM_ASSERT(id < n->n_f && n->f[id].state != F_FREE);
    const flow_t *f = &n->f[id];
    if (f->state != F_ACTIVE)
        return f->left;
    flow_hot_t h = n->hot[f->pos];
    flow_move(&h, sim_evq_now(n->q));
    return h.left;
}

double sim_net_rate(const sim_net_t *n, uint32_t id)
{
    SIM_ASSERT(id < n->n_f && n->f[id].state != F_FREE);
    return n->f[id].state == F_ACTIVE ? n->f[id].rate : 0;
}

/* Active flow id out of active[] and its lists; brought: its progress
 * and counters are as of now already (flow_done), so bringing them would
 * change nothing. */
static inline __attribute__((always_inline)) void active_remove(sim_net_t *n, uint32_t id,
                                                                sim_time_t now, int brought)
{
    uint32_t pos = n->f[id].pos;
    flow_hot_t *h = &n->hot[pos];
    if (brought)
        flow_rate_at(n, h, 0, now); /* it stops moving */
    else
        flow_set_rate(n, h, 0, now);
    n->f[id].left = h->left;
    uint32_t last = n->active[--n->n_active];
    n->active[pos] = last;
    n->hot[pos] = n->hot[n->n_active];
    n->f[last].pos = pos;
    flow_unlink(n, id);
}

/* A flow from src to dst starts (d = 1) or ends (-1): the counts and the
 * shares a new flow would get, divided once here. */
static inline __attribute__((always_inline)) void count_flow(sim_net_t *n, int src, int dst,
                                                             int d)
{
    n->n_out[src] += d;
    n->n_in[dst] += d;
    n->share_out[src] = n->cap_node[src] / (n->n_out[src] + 1);
    n->share_in[dst] = n->cap_node[dst] / (n->n_in[dst] + 1);
    share_intern(n, src);
    share_intern(n, dst);
}

/* Take flow id out of the network (settled beforehand); done: it is
 * active, brought to now and its completion is the event running
 * (flow_done), so there is nothing to bring or cancel. */
static inline __attribute__((always_inline)) void flow_release(sim_net_t *n, uint32_t id,
                                                               sim_time_t now, int done)
{
    flow_t *f = &n->f[id];
    if (f->state == F_ACTIVE)
        active_remove(n, id, now, done);
    if (f->ev)
        sim_evq_cancel(n->q, f->ev);
    count_flow(n, f->src, f->dst, -1);
    n->link[f->link].flow_ns += now - f->start_ns;
    f->state = F_FREE;
    f->ev = 0;
    f->next_free = n->free_head;
    n->free_head = id;
}

static void flow_done(void *ctx, void *obj, int64_t arg)
{
    sim_net_t *n = obj;
    uint32_t id = (uint32_t)arg;
    flow_t *f = &n->f[id];
    SIM_ASSERT(f->state == F_ACTIVE);
    /* Rounding: whatever is left (< 1 byte per ns of slack) arrives now. */
    flow_hot_t *h = &n->hot[f->pos];
    sim_time_t now = sim_evq_now(n->q);
    flow_count(n, h, now);
    double rest = h->size - h->counted;
    n->link[f->link].bytes += rest;
    n->sent[f->src] += rest;
    h->left = 0;
    n->link[f->link].flows++;
    sim_obs_flow(n->obs, f->src, f->dst, f->link, h->size, f->start_ns, now);
    sim_event_fn done = f->done;
    void *dobj = f->obj;
    int64_t darg = f->arg;
    f->ev = 0; /* this very event */
    int32_t seeds[2] = {RES_E(f->src), RES_I(f->dst)};
    flow_release(n, id, now, 1);
    recompute(n, seeds, 2, now);
    done(ctx, dobj, darg);
}

void sim_net_cancel(sim_net_t *n, uint32_t id)
{
    SIM_ASSERT(n->f[id].state != F_FREE);
    int was_active = n->f[id].state == F_ACTIVE;
    int32_t seeds[2] = {RES_E(n->f[id].src), RES_I(n->f[id].dst)};
    sim_time_t now = sim_evq_now(n->q);
    flow_release(n, id, now, 0);
    if (was_active)
        recompute(n, seeds, 2, now);
}

static void flow_activate(void *ctx, void *obj, int64_t arg)
{
    sim_net_t *n = obj;
    uint32_t id = (uint32_t)arg;
    (void)ctx;
    flow_t *f = &n->f[id];
    SIM_ASSERT(f->state == F_SETUP);
    f->state = F_ACTIVE;
    f->ev = 0;
    f->rate = 0;
    sim_grow((void **)&n->active, &n->cap_active, n->n_active + 1, sizeof *n->active, "net active");
    sim_grow((void **)&n->hot, &n->cap_hot, n->n_active + 1, sizeof *n->hot, "net active");
    f->pos = (uint32_t)n->n_active;
    sim_time_t now = sim_evq_now(n->q);
    n->hot[f->pos] = (flow_hot_t){.rate = 0,
                                  .left = f->left,
                                  .size = f->left,
                                  .t0 = now,
                                  .counted_ns = now,
                                  .link = f->link,
                                  .src = f->src};
    n->active[n->n_active++] = id;
    scratch_grow(n, n->n_active); /* the refills' scratch holds every active flow */
    flow_link(n, id);
    int32_t seed = RES_E(f->src);
    recompute(n, &seed, 1, now);
}

uint32_t sim_net_start(sim_net_t *n, int src, int dst, double bytes, int link, double cap_bytes_per_s,
                       sim_event_fn done, void *obj, int64_t arg)
{
    /* unsigned: a negative is out of range too, one comparison each */
    SIM_ASSERT((unsigned)src < (unsigned)n->n_nodes && (unsigned)dst < (unsigned)n->n_nodes &&
               src != dst);
    SIM_ASSERT((unsigned)link < SIM_N_NET_LINKS && bytes >= 0);
    uint32_t id;
    if (n->free_head != NO_FLOW) {
        id = n->free_head;
        n->free_head = n->f[id].next_free;
    } else {
        SIM_ASSERT(n->n_f < NO_FLOW);
        sim_grow((void **)&n->f, &n->cap_f, n->n_f + 1, sizeof *n->f, "net flows");
        id = (uint32_t)n->n_f++;
    }
    flow_t *f = &n->f[id];
    memset(f, 0, sizeof *f);
    f->src = src;
    f->dst = dst;
    f->link = link;
    f->left = bytes;
    f->cap = cap_bytes_per_s;
    f->done = done;
    f->obj = obj;
    f->arg = arg;
    f->res[0] = RES_E(src);
    f->res[1] = RES_I(dst);
    f->state = F_SETUP;
    f->start_ns = sim_evq_now(n->q);
    count_flow(n, src, dst, 1);
    f->ev = sim_evq_after(n->q, n->latency_ns, flow_activate, n, id);
    return id;
}

void sim_net_set_cap(sim_net_t *n, uint32_t id, double cap_bytes_per_s)
{
    flow_t *f = &n->f[id];
    SIM_ASSERT(f->state != F_FREE);
    if (f->cap == cap_bytes_per_s)
        return;
    f->cap = cap_bytes_per_s;
    if (f->state == F_ACTIVE) {
        int32_t seed = RES_E(f->src);
        recompute(n, &seed, 1, sim_evq_now(n->q));
    }
}

/* ns rounded to the nearest integer, halves away from 0, as llround does
 * but without the libm call (the schedulers call the estimate for every
 * candidate node); held within +-SIM_MAX_DURATION_NS (NaN: the bound). */
static sim_time_t ns_round(double ns)
{
    if (!(ns < (double)SIM_MAX_DURATION_NS))
        return SIM_MAX_DURATION_NS;
    if (ns <= -(double)SIM_MAX_DURATION_NS)
        return -SIM_MAX_DURATION_NS;
    sim_time_t t = (sim_time_t)ns; /* toward 0 */
    double frac = ns - (double)t;  /* exact */
    if (frac >= 0.5)
        t++;
    else if (frac <= -0.5)
        t--;
    return t;
}

double sim_net_send_share(const sim_net_t *n, int src) { return n->share_out[src]; }

double sim_net_recv_share(const sim_net_t *n, int dst) { return n->share_in[dst]; }

const double *sim_net_send_shares(const sim_net_t *n) { return n->share_out; }
const double *sim_net_recv_shares(const sim_net_t *n) { return n->share_in; }

const uint32_t *sim_net_share_changes(sim_net_t *n, size_t *count)
{
    if (!n->changes) {
        n->changes = sim_xmalloc((size_t)n->n_nodes * sizeof *n->changes, "net share changes");
        n->changed = sim_xcalloc((size_t)n->n_nodes, sizeof *n->changed, "net share changes");
    }
    for (size_t k = 0; k < n->n_changes; k++)
        n->changed[n->changes[k]] = 0;
    *count = n->n_changes;
    n->n_changes = 0;
    return n->changes;
}

const uint32_t *sim_net_share_ids(const sim_net_t *n, size_t *n_ids)
{
    *n_ids = n->n_ids;
    return n->share_id;
}

sim_time_t sim_net_estimate_ns(const sim_net_t *n, int src, int dst, double bytes)
{
    double e = sim_net_send_share(n, src), i = sim_net_recv_share(n, dst);
    double rate = e < i ? e : i;
    return ns_round((n->prof.latency_s + bytes / rate) * 1e9);
}

size_t sim_net_active(const sim_net_t *n)
{
    size_t k = 0;
    for (int i = 0; i < n->n_nodes; i++)
        k += (size_t)n->n_out[i];
    return k;
}

sim_net_link_stats_t sim_net_link_stats(const sim_net_t *n, int link) { return n->link[link]; }

double sim_net_take_sent(sim_net_t *n, int node)
{
    double s = n->sent[node];
    n->sent[node] = 0;
    return s;
}

double sim_net_nic_bytes_per_s(const sim_net_t *n, int node) { return n->nic[node]; }

json_t *sim_net_summary_json(const sim_net_t *n, const sim_net_profile_t *prof)
{
    static const char *const names[SIM_N_NET_LINKS] = {"pd", "fetch", "stage", "replication"};
    json_t *o = json_object();
    json_object_set_new(o, "transport", json_string(prof->name));
    json_object_set_new(o, "latency_s", sim_metrics_num(prof->latency_s));
    json_object_set_new(o, "efficiency", sim_metrics_num(prof->efficiency));
    for (int l = 0; l < SIM_N_NET_LINKS; l++) {
        sim_net_link_stats_t st = sim_net_link_stats(n, l);
        json_t *x = json_object();
        json_object_set_new(x, "bytes", json_integer((json_int_t)llround(st.bytes)));
        json_object_set_new(x, "busy_s", sim_metrics_num((double)st.busy_ns / 1e9));
        json_object_set_new(x, "flow_s", sim_metrics_num((double)st.flow_ns / 1e9));
        json_object_set_new(x, "flows", json_integer(st.flows));
        json_object_set_new(o, names[l], x);
    }
    return o;
}
