/* sim/net.c: see net.h. Rates come from progressive filling (water-
 * filling): raise every unfrozen flow's rate together until a resource
 * (a sender's egress or a receiver's ingress) or a flow's own cap is
 * exhausted, freeze the flows held there, repeat. O(flows^2) per change,
 * with flows the transfers in progress (tens), never the cluster size. */
#include "sim/net.h"

#include <math.h>
#include <string.h>

#include "sim/metrics.h"

enum { F_FREE = 0, F_SETUP, F_ACTIVE };

typedef struct flow {
    int32_t src, dst, link;
    uint8_t state;
    uint8_t frozen;
    double left; /* bytes still to move */
    double rate; /* bytes/s while active */
    double cap;  /* 0: none */
    sim_time_t start_ns;
    sim_event_id_t ev;
    sim_event_fn done;
    void *obj;
    int64_t arg;
    uint32_t pos;       /* index in active[] */
    uint32_t next_free;
} flow_t;

struct sim_net {
    sim_evq_t *q;
    sim_net_profile_t prof;
    int n_nodes;
    double *cap_node;  /* egress = ingress capacity per node: NIC x efficiency */
    double *nic;
    double *rem_e, *rem_i; /* water-filling scratch */
    int32_t *cnt_e, *cnt_i;
    double *new_rate; /* per active flow; water-filling scratch */
    size_t cap_new_rate;
    int32_t *n_out, *n_in; /* flows (setup or active) per node */
    double *sent;
    flow_t *f;
    size_t n_f, cap_f;
    uint32_t free_head;
    uint32_t *active;
    size_t n_active, cap_active;
    sim_time_t settled_ns;
    sim_net_link_stats_t link[SIM_N_NET_LINKS];
};

#define NO_FLOW UINT32_MAX

sim_net_t *sim_net_new(sim_evq_t *q, int n_nodes, const double *nic_bytes_per_s,
                       const sim_net_profile_t *profile)
{
    sim_net_t *n = sim_xcalloc(1, sizeof *n, "net");
    size_t nn = (size_t)n_nodes;
    n->q = q;
    n->prof = *profile;
    n->n_nodes = n_nodes;
    n->cap_node = sim_xcalloc(nn, sizeof *n->cap_node, "net capacity");
    n->nic = sim_xcalloc(nn, sizeof *n->nic, "net nic");
    n->rem_e = sim_xcalloc(nn, sizeof *n->rem_e, "net scratch");
    n->rem_i = sim_xcalloc(nn, sizeof *n->rem_i, "net scratch");
    n->cnt_e = sim_xcalloc(nn, sizeof *n->cnt_e, "net scratch");
    n->cnt_i = sim_xcalloc(nn, sizeof *n->cnt_i, "net scratch");
    n->n_out = sim_xcalloc(nn, sizeof *n->n_out, "net counts");
    n->n_in = sim_xcalloc(nn, sizeof *n->n_in, "net counts");
    n->sent = sim_xcalloc(nn, sizeof *n->sent, "net sent");
    for (size_t i = 0; i < nn; i++) {
        n->nic[i] = nic_bytes_per_s[i];
        n->cap_node[i] = nic_bytes_per_s[i] * profile->efficiency;
    }
    n->free_head = NO_FLOW;
    n->settled_ns = sim_evq_now(q);
    return n;
}

void sim_net_free(sim_net_t *n)
{
    if (!n)
        return;
    sim_free(n->cap_node);
    sim_free(n->nic);
    sim_free(n->rem_e);
    sim_free(n->rem_i);
    sim_free(n->cnt_e);
    sim_free(n->cnt_i);
    sim_free(n->new_rate);
    sim_free(n->n_out);
    sim_free(n->n_in);
    sim_free(n->sent);
    sim_free(n->f);
    sim_free(n->active);
    sim_free(n);
}

/* Move every active flow's bytes up to now. */
void sim_net_settle(sim_net_t *n)
{
    sim_time_t now = sim_evq_now(n->q);
    sim_time_t dt = now - n->settled_ns;
    n->settled_ns = now;
    if (dt <= 0)
        return;
    int busy[SIM_N_NET_LINKS] = {0};
    for (size_t k = 0; k < n->n_active; k++) {
        flow_t *f = &n->f[n->active[k]];
        if (f->rate <= 0)
            continue;
        double moved = f->rate * (double)dt / 1e9;
        if (moved > f->left)
            moved = f->left;
        f->left -= moved;
        n->link[f->link].bytes += moved;
        n->sent[f->src] += moved;
        busy[f->link] = 1;
    }
    for (int l = 0; l < SIM_N_NET_LINKS; l++)
        if (busy[l])
            n->link[l].busy_ns += dt;
}

static void flow_done(void *ctx, void *obj, int64_t arg);

/* The rate an unfrozen flow would get at this round: its equal share of
 * what is left on its sender's egress and its receiver's ingress, under
 * its own cap. */
static double flow_share(const sim_net_t *n, const flow_t *f)
{
    double share = fmin(n->rem_e[f->src] / n->cnt_e[f->src], n->rem_i[f->dst] / n->cnt_i[f->dst]);
    return f->cap > 0 ? fmin(share, f->cap) : share;
}

/* Water-filling over the active flows, then reschedule the completions of
 * flows whose rate changed. */
static void recompute(sim_net_t *n)
{
    size_t unfrozen = 0;
    for (size_t k = 0; k < n->n_active; k++) {
        flow_t *f = &n->f[n->active[k]];
        n->rem_e[f->src] = n->cap_node[f->src];
        n->rem_i[f->dst] = n->cap_node[f->dst];
        n->cnt_e[f->src] = n->cnt_i[f->dst] = 0;
    }
    for (size_t k = 0; k < n->n_active; k++) {
        flow_t *f = &n->f[n->active[k]];
        f->frozen = 0;
        n->cnt_e[f->src]++;
        n->cnt_i[f->dst]++;
        unfrozen++;
    }
    sim_grow((void **)&n->new_rate, &n->cap_new_rate, n->n_active + 1, sizeof *n->new_rate,
             "net rates");
    double *new_rate = n->new_rate;
    while (unfrozen > 0) {
        double level = INFINITY;
        for (size_t k = 0; k < n->n_active; k++) {
            const flow_t *f = &n->f[n->active[k]];
            if (!f->frozen)
                level = fmin(level, flow_share(n, f));
        }
        if (level < 0)
            level = 0;
        /* Freeze every flow held at this level (its resource or its cap). */
        double eps = level * 1e-12;
        for (size_t k = 0; k < n->n_active; k++) {
            flow_t *f = &n->f[n->active[k]];
            if (!f->frozen && flow_share(n, f) <= level + eps) {
                f->frozen = 1;
                new_rate[k] = level;
            }
        }
        for (size_t k = 0; k < n->n_active; k++) {
            flow_t *f = &n->f[n->active[k]];
            if (f->frozen != 1)
                continue;
            f->frozen = 2; /* applied */
            n->rem_e[f->src] -= level;
            n->rem_i[f->dst] -= level;
            n->cnt_e[f->src]--;
            n->cnt_i[f->dst]--;
            unfrozen--;
        }
    }
    sim_time_t now = sim_evq_now(n->q);
    for (size_t k = 0; k < n->n_active; k++) {
        uint32_t id = n->active[k];
        flow_t *f = &n->f[id];
        if (new_rate[k] == f->rate && f->ev)
            continue;
        f->rate = new_rate[k];
        if (f->ev)
            sim_evq_cancel(n->q, f->ev);
        f->ev = 0;
        if (f->rate > 0) {
            double s = f->left / f->rate;
            sim_time_t dt = (sim_time_t)ceil(s * 1e9);
            f->ev = sim_evq_at(n->q, now + (dt > 0 ? dt : 0), flow_done, n, id);
        }
    }
}

static void active_remove(sim_net_t *n, uint32_t id)
{
    uint32_t pos = n->f[id].pos;
    uint32_t last = n->active[--n->n_active];
    n->active[pos] = last;
    n->f[last].pos = pos;
}

/* Take flow id out of the network (settled beforehand). */
static void flow_release(sim_net_t *n, uint32_t id)
{
    flow_t *f = &n->f[id];
    if (f->state == F_ACTIVE)
        active_remove(n, id);
    if (f->ev)
        sim_evq_cancel(n->q, f->ev);
    n->n_out[f->src]--;
    n->n_in[f->dst]--;
    n->link[f->link].flow_ns += sim_evq_now(n->q) - f->start_ns;
    f->state = F_FREE;
    f->ev = 0;
    f->next_free = n->free_head;
    n->free_head = id;
}

static void flow_done(void *ctx, void *obj, int64_t arg)
{
    sim_net_t *n = obj;
    uint32_t id = (uint32_t)arg;
    sim_net_settle(n);
    flow_t *f = &n->f[id];
    SIM_ASSERT(f->state == F_ACTIVE);
    /* Rounding: whatever is left (< 1 byte per ns of slack) arrives now. */
    n->link[f->link].bytes += f->left;
    n->sent[f->src] += f->left;
    f->left = 0;
    n->link[f->link].flows++;
    sim_event_fn done = f->done;
    void *dobj = f->obj;
    int64_t darg = f->arg;
    f->ev = 0; /* this very event */
    flow_release(n, id);
    recompute(n);
    done(ctx, dobj, darg);
}

void sim_net_cancel(sim_net_t *n, uint32_t id)
{
    SIM_ASSERT(n->f[id].state != F_FREE);
    sim_net_settle(n);
    int was_active = n->f[id].state == F_ACTIVE;
    flow_release(n, id);
    if (was_active)
        recompute(n);
}

static void flow_activate(void *ctx, void *obj, int64_t arg)
{
    sim_net_t *n = obj;
    uint32_t id = (uint32_t)arg;
    (void)ctx;
    sim_net_settle(n);
    flow_t *f = &n->f[id];
    SIM_ASSERT(f->state == F_SETUP);
    f->state = F_ACTIVE;
    f->ev = 0;
    f->rate = 0;
    sim_grow((void **)&n->active, &n->cap_active, n->n_active + 1, sizeof *n->active, "net active");
    f->pos = (uint32_t)n->n_active;
    n->active[n->n_active++] = id;
    recompute(n);
}

uint32_t sim_net_start(sim_net_t *n, int src, int dst, double bytes, int link, double cap_bytes_per_s,
                       sim_event_fn done, void *obj, int64_t arg)
{
    SIM_ASSERT(src >= 0 && src < n->n_nodes && dst >= 0 && dst < n->n_nodes && src != dst);
    SIM_ASSERT(link >= 0 && link < SIM_N_NET_LINKS && bytes >= 0);
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
    f->state = F_SETUP;
    f->start_ns = sim_evq_now(n->q);
    n->n_out[src]++;
    n->n_in[dst]++;
    f->ev = sim_evq_after(n->q, (sim_time_t)llround(n->prof.latency_s * 1e9), flow_activate, n, id);
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
        sim_net_settle(n);
        recompute(n);
    }
}

sim_time_t sim_net_estimate_ns(const sim_net_t *n, int src, int dst, double bytes)
{
    double rate = fmin(n->cap_node[src] / (n->n_out[src] + 1), n->cap_node[dst] / (n->n_in[dst] + 1));
    return (sim_time_t)llround((n->prof.latency_s + bytes / rate) * 1e9);
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
