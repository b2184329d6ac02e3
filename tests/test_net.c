/* tests/test_net.c: the fluid network against hand-computed completion
 * times: an isolated transfer, a shared sender (and the speed-up when one
 * flow ends), a shared receiver, a capped flow, byte conservation, a
 * finish too far away for int64 ns; the incremental refill of rates
 * against the reference refill of every flow, and flows left alone on
 * their NICs queued in the same order; reading the counters moving
 * no flow; and the fitted transport profiles. */
#include "tests/tests.h"

#include <math.h>
#include <string.h>

#include "sim/core/evq.h"
#include "sim/net/net.h"

typedef struct rec {
    sim_evq_t *q;
    sim_time_t done_at[8];
} rec_t;

static void on_done(void *ctx, void *obj, int64_t arg)
{
    rec_t *r = obj;
    (void)ctx;
    r->done_at[arg] = sim_evq_now(r->q);
}

/* 1 ms setup, the whole NIC usable: easy arithmetic. */
static const sim_net_profile_t ideal = {.name = "ideal", .latency_s = 1e-3, .efficiency = 1.0};

static sim_net_t *net(rec_t *r, int nodes, double gbytes_per_s)
{
    static double nic[8];
    for (int i = 0; i < nodes; i++)
        nic[i] = gbytes_per_s * 1e9;
    memset(r, 0, sizeof *r);
    r->q = sim_evq_new(NULL);
    return sim_net_new(r->q, nodes, nic, &ideal);
}

#define MS (SIM_NS_PER_MS)

START_TEST(test_isolated)
{
    rec_t r;
    sim_net_t *n = net(&r, 2, 10); /* 10 GB/s */
    sim_net_start(n, 0, 1, 1e9, SIM_LINK_PD, 0, on_done, &r, 0);
    ck_assert_int_eq(sim_net_estimate_ns(n, 0, 1, 1e9), 1 * MS + 200 * MS); /* as a 2nd flow */
    while (sim_evq_step(r.q))
        ;
    ck_assert_int_eq(r.done_at[0], 1 * MS + 100 * MS); /* latency + 1 GB / 10 GB/s */
    sim_net_link_stats_t s = sim_net_link_stats(n, SIM_LINK_PD);
    ck_assert_double_eq_tol(s.bytes, 1e9, 1e-3);
    ck_assert_int_eq(s.busy_ns, 100 * MS);
    ck_assert_int_eq(s.flow_ns, 101 * MS);
    ck_assert_int_eq(s.flows, 1);
    ck_assert_double_eq_tol(sim_net_take_sent(n, 0), 1e9, 1e-3);
    ck_assert_double_eq(sim_net_take_sent(n, 0), 0);
    sim_net_free(n);
    sim_evq_free(r.q);
}
END_TEST

/* Two flows from node 0 share its egress; when the short one ends the
 * long one gets the whole NIC. */
START_TEST(test_shared_sender)
{
    rec_t r;
    sim_net_t *n = net(&r, 3, 10);
    sim_net_start(n, 0, 1, 1e9, SIM_LINK_PD, 0, on_done, &r, 0);
    sim_net_start(n, 0, 2, 3e9, SIM_LINK_FETCH, 0, on_done, &r, 1);
    while (sim_evq_step(r.q))
        ;
    /* Both at 5 GB/s from 1 ms: the 1 GB one ends at 1 + 200 ms, by then
     * the other has 2 GB left, now at 10 GB/s: + 200 ms. */
    ck_assert_int_eq(r.done_at[0], 201 * MS);
    ck_assert_int_eq(r.done_at[1], 401 * MS);
    double total = sim_net_link_stats(n, SIM_LINK_PD).bytes + sim_net_link_stats(n, SIM_LINK_FETCH).bytes;
    ck_assert_double_eq_tol(total, 4e9, 1e-2);
    sim_net_free(n);
    sim_evq_free(r.q);
}
END_TEST

/* Node 2 receives from 0 and 1: its ingress is the bottleneck; a third
 * flow 0 -> 3 then gets what 0 has left (max-min: 5 + 5 into node 2, 5 out
 * of node 0 to node 3). */
START_TEST(test_receiver_bound)
{
    rec_t r;
    sim_net_t *n = net(&r, 4, 10);
    sim_net_start(n, 0, 2, 1e9, SIM_LINK_PD, 0, on_done, &r, 0);
    sim_net_start(n, 1, 2, 1e9, SIM_LINK_PD, 0, on_done, &r, 1);
    sim_net_start(n, 0, 3, 1e9, SIM_LINK_PD, 0, on_done, &r, 2);
    while (sim_evq_step(r.q))
        ;
    /* All three at 5 GB/s: each 1 GB in 200 ms. */
    ck_assert_int_eq(r.done_at[0], 201 * MS);
    ck_assert_int_eq(r.done_at[1], 201 * MS);
    ck_assert_int_eq(r.done_at[2], 201 * MS);
    sim_net_free(n);
    sim_evq_free(r.q);
    /* Two into one receiver, different senders: half each. */
    n = net(&r, 3, 10);
    sim_net_start(n, 0, 2, 1e9, SIM_LINK_PD, 0, on_done, &r, 0);
    sim_net_start(n, 1, 2, 2e9, SIM_LINK_PD, 0, on_done, &r, 1);
    while (sim_evq_step(r.q))
        ;
    ck_assert_int_eq(r.done_at[0], 201 * MS);
    ck_assert_int_eq(r.done_at[1], 301 * MS);
    sim_net_free(n);
    sim_evq_free(r.q);
}
END_TEST

static sim_net_t *cap_net;
static uint32_t cap_flow;
static void lift_cap(void *ctx, void *obj, int64_t arg)
{
    (void)ctx;
    (void)obj;
    (void)arg;
    sim_net_set_cap(cap_net, cap_flow, 0);
}

/* A flow capped at 2 GB/s leaves 8 to its neighbour; lifting the cap at
 * 101 ms splits the rest evenly. */
START_TEST(test_capped_flow)
{
    rec_t r;
    sim_net_t *n = net(&r, 3, 10);
    cap_net = n;
    cap_flow = sim_net_start(n, 0, 1, 1e9, SIM_LINK_PD, 2e9, on_done, &r, 0);
    sim_net_start(n, 0, 2, 1.6e9, SIM_LINK_PD, 0, on_done, &r, 1);
    sim_evq_at(r.q, 101 * MS, lift_cap, NULL, 0);
    while (sim_evq_step(r.q))
        ;
    /* 1..101 ms: 0.2 GB and 0.8 GB moved; then 5 + 5: flow 1 has 0.8 GB
     * left -> 160 ms; flow 0 has 0.8 GB left too -> both end at 261 ms. */
    ck_assert_int_eq(r.done_at[0], 261 * MS);
    ck_assert_int_eq(r.done_at[1], 261 * MS);
    ck_assert_double_eq_tol(sim_net_link_stats(n, SIM_LINK_PD).bytes, 2.6e9, 1e-2);
    sim_net_free(n);
    sim_evq_free(r.q);
}
END_TEST

/* A transfer whose finish lies past SIM_MAX_DURATION_NS (1e30 bytes at
 * 10 GB/s: 1e20 s) is held at that bound, not converted out of int64;
 * so is an estimate of one. */
START_TEST(test_finish_bound)
{
    rec_t r;
    sim_net_t *n = net(&r, 2, 10);
    sim_net_start(n, 0, 1, 1e30, SIM_LINK_PD, 0, on_done, &r, 0);
    ck_assert(sim_evq_step(r.q)); /* setup over */
    ck_assert_double_eq(sim_net_rate(n, 0), 10e9);
    ck_assert(sim_evq_step(r.q));
    ck_assert_int_eq(r.done_at[0], 1 * MS + SIM_MAX_DURATION_NS);
    ck_assert_int_eq(sim_evq_step(r.q), 0);
    /* the estimate: rounded as llround, halves included; held likewise */
    for (int k = 0; k < 20000; k++) {
        double bytes = k < 10000 ? k * 0.5 : exp((k - 10000) * 0.0035);
        sim_time_t want = (sim_time_t)llround((1e-3 + bytes / 10e9) * 1e9);
        if (sim_net_estimate_ns(n, 0, 1, bytes) != want)
            ck_abort_msg("%.17g bytes: %lld ns, not %lld", bytes,
                         (long long)sim_net_estimate_ns(n, 0, 1, bytes), (long long)want);
    }
    ck_assert_int_eq(sim_net_estimate_ns(n, 0, 1, 1e30), SIM_MAX_DURATION_NS);
    sim_net_free(n);
    sim_evq_free(r.q);
}
END_TEST

/* The incremental refill against the reference refill of every flow:
 * two networks driven by the same random script (flows starting between
 * random nodes with random sizes, some capped; cancels; caps set and
 * lifted; finishes) must give every flow the same rate after every event
 * and finish every flow at the same ns. */
enum { FZ_NODES = 16, FZ_FLOWS = 2048, FZ_OPS = 800 };

typedef struct fz {
    sim_evq_t *q;
    sim_net_t *n;
    uint64_t rng;
    uint32_t live[FZ_FLOWS]; /* flow ids running */
    int64_t tag[FZ_FLOWS];   /* their tags */
    size_t n_live;
    int64_t n_started;
    sim_time_t done_at[FZ_FLOWS];
    int64_t order[FZ_FLOWS]; /* tags in the order they finished */
    size_t n_done;
} fz_t;

static uint64_t fz_next(fz_t *z)
{
    uint64_t x = (z->rng += 0x9E3779B97F4A7C15u);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9u;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBu;
    return x ^ (x >> 31);
}

static double fz_unif(fz_t *z, double lo, double hi)
{
    return lo + (hi - lo) * (double)(fz_next(z) >> 11) / 9007199254740992.0;
}

static void fz_drop(fz_t *z, int64_t tag)
{
    for (size_t k = 0; k < z->n_live; k++)
        if (z->tag[k] == tag) {
            z->live[k] = z->live[--z->n_live];
            z->tag[k] = z->tag[z->n_live];
            return;
        }
    ck_abort_msg("flow %lld not live", (long long)tag);
}

static void fz_done(void *ctx, void *obj, int64_t arg)
{
    fz_t *z = obj;
    (void)ctx;
    z->done_at[arg] = sim_evq_now(z->q);
    z->order[z->n_done++] = arg;
    fz_drop(z, arg);
}

/* Start n flows of one size and cap from one random sender to distinct
 * receivers: alike flows finish at the same ns, so the order in which
 * their completions are queued shows. */
static void fz_start(fz_t *z, int n)
{
    int src = (int)(fz_next(z) % FZ_NODES);
    int off = (int)(fz_next(z) % (FZ_NODES - 1));
    double cap = fz_next(z) % 3 == 0 ? fz_unif(z, 0.5e9, 6e9) : 0;
    double bytes = fz_next(z) % 8 == 0 ? 0 : fz_unif(z, 1e6, 2e9);
    for (int k = 0; k < n && z->n_started < FZ_FLOWS; k++) {
        int dst = (src + 1 + (off + k) % (FZ_NODES - 1)) % FZ_NODES;
        z->live[z->n_live] = sim_net_start(z->n, src, dst, bytes, SIM_LINK_PD, cap, fz_done, z, z->n_started);
        z->tag[z->n_live++] = z->n_started++;
    }
}

/* One scripted change, chosen by the network's own generator: both
 * networks choose alike as long as they behave alike. */
static void fz_op(void *ctx, void *obj, int64_t arg)
{
    fz_t *z = obj;
    (void)ctx;
    (void)arg;
    uint64_t u = fz_next(z) % 10;
    if (u < 6 || z->n_live == 0) {
        fz_start(z, u == 0 ? 3 : 1);
    } else if (u < 8 && z->n_live > 0) {
        size_t k = fz_next(z) % z->n_live;
        sim_net_cancel(z->n, z->live[k]);
        z->done_at[z->tag[k]] = -1;
        fz_drop(z, z->tag[k]);
    } else if (z->n_live > 0) {
        size_t k = fz_next(z) % z->n_live;
        sim_net_set_cap(z->n, z->live[k], fz_next(z) % 2 ? fz_unif(z, 0.5e9, 6e9) : 0);
    }
}

static void fz_init(fz_t *z, int reference, uint64_t seed, sim_time_t span_ns)
{
    double nic[FZ_NODES];
    memset(z, 0, sizeof *z);
    for (int i = 0; i < FZ_NODES; i++)
        nic[i] = i % 4 == 3 ? 25e9 : 12.5e9;
    z->q = sim_evq_new(NULL);
    z->n = sim_net_new(z->q, FZ_NODES, nic, &ideal);
    sim_net_set_reference(z->n, reference);
    z->rng = seed;
    for (int k = 0; k < FZ_OPS; k++)
        sim_evq_at(z->q, (sim_time_t)(fz_next(z) % (uint64_t)span_ns), fz_op, z, 0);
}

/* One event on each of two fuzzed networks run in lockstep; they must
 * agree on whether there was one, its time and the live flows. 0 when
 * both are done. Assertions only on a mismatch: each one costs. */
static int fz_step_both(fz_t *x, fz_t *y)
{
    int a = sim_evq_step(x->q), b = sim_evq_step(y->q);
    if (a != b || sim_evq_now(x->q) != sim_evq_now(y->q) || x->n_live != y->n_live)
        ck_abort_msg("event %d/%d at %lld/%lld ns", a, b, (long long)sim_evq_now(x->q),
                     (long long)sim_evq_now(y->q));
    return a;
}

START_TEST(test_incremental_matches_reference)
{
    static fz_t inc, ref;
    size_t most_live[3] = {0};
    for (uint64_t seed = 0; seed < 3; seed++) {
        /* crowded (one component most of the time), then sparse (many
         * small ones, merging and splitting) */
        sim_time_t span_ns = (seed == 0 ? 2 : 12) * SIM_NS_PER_S;
        fz_init(&inc, 0, seed, span_ns);
        fz_init(&ref, 1, seed, span_ns);
        for (;;) { /* assertions only on a mismatch: each one costs */
            if (!fz_step_both(&inc, &ref))
                break;
            for (size_t k = 0; k < inc.n_live; k++) {
                double x = sim_net_rate(inc.n, inc.live[k]), y = sim_net_rate(ref.n, ref.live[k]);
                if (inc.live[k] != ref.live[k] || x != y)
                    ck_abort_msg("flow %u/%u: %.17g vs %.17g", inc.live[k], ref.live[k], x, y);
            }
            /* Share ids: equal exactly when the (send, receive) pairs are
             * (two NIC speeds: 25/2 and 12.5/1 GB/s meet). */
            size_t n_ids;
            const uint32_t *ids = sim_net_share_ids(inc.n, &n_ids);
            const double *so = sim_net_send_shares(inc.n), *si = sim_net_recv_shares(inc.n);
            for (int x = 0; x < FZ_NODES; x++)
                for (int y = 0; y < FZ_NODES; y++)
                    if (ids[x] >= n_ids ||
                        (ids[x] == ids[y]) != (so[x] == so[y] && si[x] == si[y]))
                        ck_abort_msg("nodes %d, %d: share ids %u, %u of %zu for (%g, %g), (%g, %g)", x,
                                     y, ids[x], ids[y], n_ids, so[x], si[x], so[y], si[y]);
            if (inc.n_live > most_live[seed])
                most_live[seed] = inc.n_live;
        }
        ck_assert_int_eq(inc.n_started, ref.n_started);
        ck_assert_int_gt(inc.n_started, FZ_OPS / 3);
        ck_assert(memcmp(inc.done_at, ref.done_at, sizeof inc.done_at) == 0);
        ck_assert_uint_eq(inc.n_done, ref.n_done);
        ck_assert(memcmp(inc.order, ref.order, sizeof inc.order) == 0);
        ck_assert_uint_eq(sim_evq_executed(inc.q), sim_evq_executed(ref.q));
        sim_net_settle(inc.n);
        sim_net_settle(ref.n);
        ck_assert(sim_net_link_stats(inc.n, SIM_LINK_PD).bytes == sim_net_link_stats(ref.n, SIM_LINK_PD).bytes);
        sim_net_free(inc.n);
        sim_net_free(ref.n);
        sim_evq_free(inc.q);
        sim_evq_free(ref.q);
    }
    ck_assert_uint_gt(most_live[0], 4 * FZ_NODES);
    ck_assert_uint_lt(most_live[1], 3 * FZ_NODES);
}
END_TEST

/* Reading the counters moves no flow: the script run twice, the counters
 * brought up to date after every event of one run only, leaves every
 * flow the same bytes to move (bit for bit) at every event, and finishes
 * every flow at the same ns in the same order. */
START_TEST(test_reading_moves_nothing)
{
    static fz_t seen, unseen;
    for (uint64_t seed = 0; seed < 2; seed++) {
        sim_time_t span_ns = (seed == 0 ? 2 : 12) * SIM_NS_PER_S;
        fz_init(&seen, 0, seed, span_ns);
        fz_init(&unseen, 0, seed, span_ns);
        size_t checked = 0;
        for (;;) {
            int a = fz_step_both(&seen, &unseen);
            sim_net_settle(seen.n);
            if (!a)
                break;
            for (size_t k = 0; k < seen.n_live; k++) {
                double x = sim_net_left(seen.n, seen.live[k]);
                double y = sim_net_left(unseen.n, unseen.live[k]);
                if (x != y)
                    ck_abort_msg("flow %u: %.17g vs %.17g bytes left", seen.live[k], x, y);
                checked++;
            }
        }
        ck_assert_uint_gt(checked, 1000);
        ck_assert(memcmp(seen.done_at, unseen.done_at, sizeof seen.done_at) == 0);
        ck_assert(memcmp(seen.order, unseen.order, sizeof seen.order) == 0);
        sim_net_settle(unseen.n);
        double x = sim_net_link_stats(seen.n, SIM_LINK_PD).bytes;
        double y = sim_net_link_stats(unseen.n, SIM_LINK_PD).bytes;
        ck_assert_double_eq_tol(x, y, 1e-6 * y);
        sim_net_free(seen.n);
        sim_net_free(unseen.n);
        sim_evq_free(seen.q);
        sim_evq_free(unseen.q);
    }
}
END_TEST

typedef struct order_rec {
    int order[4], n;
} order_rec_t;

static void on_done_order(void *ctx, void *obj, int64_t arg)
{
    order_rec_t *o = obj;
    (void)ctx;
    o->order[o->n++] = (int)arg;
}

/* When a flow's end leaves two flows each alone on its NICs (one per side
 * of the ended flow), their new completions are queued in the order the
 * flows became active, whichever side is looked at first: B (2 -> 3) and
 * A (0 -> 1) end at the same ns, B first, in both refills. */
START_TEST(test_lone_flows_keep_order)
{
    for (int reference = 0; reference < 2; reference++) {
        rec_t r;
        order_rec_t o = {{0}, 0};
        sim_net_t *n = net(&r, 4, 10);
        sim_net_set_reference(n, reference);
        sim_net_start(n, 2, 3, 1.5e9, SIM_LINK_PD, 0, on_done_order, &o, 0); /* B */
        sim_net_start(n, 0, 1, 1.5e9, SIM_LINK_PD, 0, on_done_order, &o, 1); /* A */
        sim_net_start(n, 0, 3, 0.5e9, SIM_LINK_PD, 0, on_done_order, &o, 2); /* C: A's and B's NICs */
        while (sim_evq_step(r.q))
            ;
        ck_assert_int_eq(o.n, 3);
        ck_assert_int_eq(o.order[0], 2);
        ck_assert_int_eq(o.order[1], 0);
        ck_assert_int_eq(o.order[2], 1);
        ck_assert_int_eq(sim_evq_now(r.q), 201 * MS);
        sim_net_free(n);
        sim_evq_free(r.q);
    }
}
END_TEST

START_TEST(test_profiles)
{
    sim_net_profile_t p;
    ck_assert_int_eq(sim_net_profile_get("rdma", &p), 0);
    /* 40 GB at about 87 GB/s on 4 x 200 Gbps, as the paper says. */
    double t40 = p.latency_s + 40e9 / (p.efficiency * 100e9);
    ck_assert_double_eq_tol(40e9 / t40 / 1e9, 87, 3);
    ck_assert_double_lt(p.fit_max_rel_err, 0.05);
    ck_assert_double_gt(p.efficiency, 0.85);
    sim_net_profile_t t;
    ck_assert_int_eq(sim_net_profile_get("tcp", &t), 0);
    ck_assert_double_lt(t.efficiency, p.efficiency / 2);
    ck_assert_double_gt(t.latency_s, p.latency_s);
    ck_assert_int_eq(sim_net_profile_get("ib", &t), -1);
    char names[64];
    sim_net_profile_names(names, sizeof names);
    ck_assert_str_eq(names, "rdma, tcp");
}
END_TEST

/* A network calibration file as a transport profile: efficiency against
 * the file's NIC when it names one, else the simulated node's; errors
 * located. */
START_TEST(test_profile_file)
{
    const char *d = tests_tmpdir();
    const char *a = "{\"kind\": \"network\", \"network\": {\"latency_s\": 2e-5,\n"
                    " \"bandwidth_bytes_per_s\": 20e9, \"max_rel_err\": 0.03}}\n";
    const char *b = "{\"kind\": \"network\", \"nic_bytes_per_s\": 25e9, \"network\": {\"latency_s\": 0,\n"
                    " \"bandwidth_bytes_per_s\": 20e9, \"max_rel_err\": 0.03}}\n";
    const char *g = "{\"kind\": \"gpu\", \"network\": {}}\n";
    const char *m = "{\"kind\": \"network\", \"network\": {\"latency_s\": 0}}\n";
    sim_net_profile_t p;
    sim_err_t err;
    ck_assert_int_eq(sim_net_profile_file("a", tests_write_file(d, "a.json", a, strlen(a)), 100e9, &p, &err), 0);
    ck_assert_double_eq_tol(p.efficiency, 0.2, 1e-12);
    ck_assert_double_eq_tol(p.latency_s, 2e-5, 1e-15);
    ck_assert_str_eq(p.name, "a");
    ck_assert_int_eq(sim_net_profile_file("b", tests_write_file(d, "b.json", b, strlen(b)), 100e9, &p, &err), 0);
    ck_assert_double_eq_tol(p.efficiency, 0.8, 1e-12);
    /* faster than the simulated NIC without a NIC of its own: refused */
    ck_assert_int_eq(sim_net_profile_file("a", tests_write_file(d, "a.json", a, strlen(a)), 10e9, &p, &err), -1);
    ck_assert_msg(strstr(err.msg, "a.json: $.network.bandwidth_bytes_per_s: 2e+10 exceeds"), "%s", err.msg);
    ck_assert_int_eq(sim_net_profile_file("g", tests_write_file(d, "g.json", g, strlen(g)), 100e9, &p, &err), -1);
    ck_assert_msg(strstr(err.msg, "g.json: $.kind: 'gpu' is not a network calibration"), "%s", err.msg);
    ck_assert_int_eq(sim_net_profile_file("m", tests_write_file(d, "m.json", m, strlen(m)), 100e9, &p, &err), -1);
    ck_assert_msg(strstr(err.msg, "m.json: $.network.bandwidth_bytes_per_s: missing"), "%s", err.msg);
}
END_TEST

Suite *test_net_suite(void)
{
    Suite *s = suite_create("net");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_isolated);
    tcase_add_test(tc, test_shared_sender);
    tcase_add_test(tc, test_receiver_bound);
    tcase_add_test(tc, test_capped_flow);
    tcase_add_test(tc, test_finish_bound);
    tcase_add_test(tc, test_incremental_matches_reference);
    tcase_add_test(tc, test_reading_moves_nothing);
    tcase_add_test(tc, test_lone_flows_keep_order);
    tcase_add_test(tc, test_profiles);
    tcase_add_test(tc, test_profile_file);
    suite_add_tcase(s, tc);
    return s;
}
