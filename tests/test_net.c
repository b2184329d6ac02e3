/* tests/test_net.c: the fluid network against hand-computed completion
 * times: an isolated transfer, a shared sender (and the speed-up when one
 * flow ends), a shared receiver, a capped flow, byte conservation; and the
 * fitted transport profiles. */
#include "tests/tests.h"

#include <math.h>
#include <string.h>

#include "sim/evq.h"
#include "sim/net.h"

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
    tcase_add_test(tc, test_profiles);
    tcase_add_test(tc, test_profile_file);
    suite_add_tcase(s, tc);
    return s;
}
