/* tests/test_sim.c: the simulation end to end: a hand-computed request,
 * TTFT to the KV hand-off on a slow NIC, the inlining budget, decode VRAM
 * admission, conservation, determinism, no leaks, the
 * per-request TBT statistics and histogram percentiles against brute force,
 * an output directory holding another experiment, located run errors, the
 * time-series bound and its skipped idle spans, write failures as I/O errors, and the golden run on
 * the conversation trace. */
#include "tests/tests.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>

#include "models/cost.h"
#include "models/hw.h"
#include "models/llm.h"
#include "sim/exp/check.h"
#include "sim/core/hist.h"
#include "sim/core/jsonx.h"
#include "sim/core/metrics.h"
#include "sim/net/net.h"
#include "sim/core/rng.h"
#include "sim/exp/run.h"

static sim_config_t cfg;

static void gen_config(int64_t requests)
{
    sim_err_t err;
    sim_config_defaults(&cfg);
    ck_assert_int_eq(sim_config_set(&cfg, "trace.generator.kind=kimi", &err), 0);
    cfg.trace.generator.requests = requests;
}

static int run(const char *out, sim_run_result_t *res, sim_err_t *err)
{
    sim_run_opts_t o = {.config_src = "test.json", .out_dir = out, .data_dir = "."};
    return sim_run(&cfg, &o, res, err);
}

/* dir/name in one of 64 rotating static buffers (enough for any test). */
static char *path_in(const char *dir, const char *name)
{
    static char buf[64][512];
    static int k;
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s/%s", dir, name);
    char *p = buf[k++ % 64];
    memcpy(p, tmp, sizeof tmp);
    return p;
}

/* One request, computed by hand from the cost model: TTFT is the
 * Conductor's scheduling time, its prefill, the part of the KV hand-off
 * left after prefill and the decode node's load of the last layer into
 * VRAM (the layers before it were loaded as they landed, during prefill);
 * then output-1 decode iterations. With the layer-wise load off, the whole
 * prompt's load follows the last byte instead. */
START_TEST(test_single_request_by_hand)
{
    const char *d = tests_tmpdir();
    const char *line = "{\"timestamp\": 1000, \"input_length\": 8192, \"output_length\": 4, "
                       "\"hash_ids\": [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]}\n";
    const char *tp = tests_write_file(d, "one.jsonl", line, strlen(line));
    model_cost_args_t a = {.hw = model_hw_find("a800x8"), .llm = model_llm_find("llama2-70b"),
                           .calibration = "", .data_dir = "."};
    sim_err_t err;
    model_cost_t *c = model_cost_new("fitted", &a, &err);
    ck_assert_ptr_nonnull(c);
    double prefill = (double)model_cost_prefill_ns(c, 8192, 0) / 1e9;
    double it1 = (double)model_cost_decode_ns(c, 1, 8193) / 1e9;
    double it2 = (double)model_cost_decode_ns(c, 1, 8194) / 1e9;
    double it3 = (double)model_cost_decode_ns(c, 1, 8195) / 1e9;
    model_cost_free(c);
    /* The KV streams during prefill at the rate layers are produced; its
     * last layer (1/80) leaves at prefill end after the setup latency, at
     * the full NIC rate. */
    sim_net_profile_t rdma;
    ck_assert_int_eq(sim_net_profile_get("rdma", &rdma), 0);
    double bytes = 8192.0 * 327680;
    double tail = rdma.latency_s + bytes / 80 / (rdma.efficiency * 100e9);
    double h2d = bytes / 128e9;
    for (int layerwise = 1; layerwise >= 0; layerwise--) {
        sim_config_defaults(&cfg);
        snprintf(cfg.trace.path, sizeof cfg.trace.path, "%s", tp);
        ck_assert_int_eq(cfg.cluster.decode_load_layerwise, 1);
        cfg.cluster.decode_load_layerwise = layerwise;
        sim_run_result_t res;
        const char *out = path_in(d, layerwise ? "by_hand" : "by_hand_whole");
        ck_assert_msg(run(out, &res, &err) == 0, "%s", err.msg);
        json_decref(res.summary);
        ck_assert_int_eq(res.counts.completed, 1);
        double load = layerwise ? h2d / 80 : h2d; /* after the last byte */
        double sched = cfg.scheduler.schedule_s;
        ck_assert_double_eq_tol(sched, 0.05, 1e-12);
        double ready = sched + prefill + tail, start = ready + load;
        char *csv = tests_read_file(path_in(out, "requests.csv"), NULL);
        ck_assert_ptr_nonnull(csv);
        ck_assert_double_eq_tol(csv_field(csv, 1, 1), 1.0, 1e-9);  /* arrival_s */
        ck_assert_double_eq_tol(csv_field(csv, 1, 8), start, 3e-6); /* ttft_s */
        ck_assert_double_eq_tol(csv_field(csv, 1, 9), (it1 + it2 + it3) / 3, 2e-6);
        ck_assert_double_eq_tol(csv_field(csv, 1, 11), it3, 2e-6); /* tbt_max_s */
        ck_assert_double_eq_tol(csv_field(csv, 1, 12), it3, 2e-6); /* top 10% of 3 = max */
        ck_assert_double_eq_tol(csv_field(csv, 1, 13), 1.0 + start + it1 + it2 + it3,
                                3e-6);                                      /* finish_s */
        ck_assert_double_eq_tol(csv_field(csv, 1, 14), sched, 2e-6);        /* queue_s */
        ck_assert_double_eq_tol(csv_field(csv, 1, 15), prefill, 2e-6);      /* prefill_s */
        ck_assert_double_eq_tol(csv_field(csv, 1, 16), prefill + tail, 2e-6); /* transfer_s */
        ck_assert_double_eq_tol(csv_field(csv, 1, 22), 1.0 + ready, 2e-6); /* kv_ready_s */
        ck_assert_double_eq_tol(csv_field(csv, 1, 23), load, 2e-6);        /* decode_load_s */
        ck_assert_double_eq_tol(csv_field(csv, 1, 24), 1.0 + start, 3e-6); /* decode_start_s */
        free(csv);
    }
}
END_TEST

/* On a slow NIC (5 Gbps) a 16,000-token prompt's KV (5.2 GB) is still
 * streaming seconds after its prefill ends. TTFT ends when the request
 * joins its decode batch: the Conductor's scheduling time (the whole
 * queue_s of an idle cluster) + prefill + the part of the transfer left
 * after prefill + the load into VRAM left after the stream; the first TBT
 * interval is then one iteration. Before, TTFT ended at prefill end
 * (ttft_s = queue_s + prefill_s) and the whole tail of the transfer (over
 * 5 s here) fell into the first interval. */
START_TEST(test_ttft_ends_at_handoff_slow_nic)
{
    static const int one[][3] = {{1000, 16000, 3}};
    sim_config_defaults(&cfg);
    snprintf(cfg.trace.path, sizeof cfg.trace.path, "%s", tests_trace_of("slow.jsonl", one, 1));
    cfg.network.nic_gbps = 5;
    sim_run_result_t res;
    sim_err_t err;
    const char *out = path_in(tests_tmpdir(), "slow_nic");
    ck_assert_msg(run(out, &res, &err) == 0, "%s", err.msg);
    json_decref(res.summary);
    ck_assert_int_eq(res.counts.completed, 1);
    char *csv = tests_read_file(path_in(out, "requests.csv"), NULL);
    ck_assert_ptr_nonnull(csv);
    double arrival = csv_field(csv, 1, 1), ttft = csv_field(csv, 1, 8);
    double queue = csv_field(csv, 1, 14), prefill = csv_field(csv, 1, 15);
    double kv_ready = csv_field(csv, 1, 22), h2d = csv_field(csv, 1, 23);
    double sched = cfg.scheduler.schedule_s;
    double tail = kv_ready - arrival - queue - prefill; /* transfer left after prefill */
    ck_assert_double_eq_tol(queue, sched, 2e-6);
    ck_assert_double_eq_tol(ttft, sched + prefill + tail + h2d, 4e-6);
    ck_assert_double_gt(ttft - prefill - queue, 0.5);
    /* The slow stream left the node's PCIe ahead: only the last layer's
     * load (1/80 of 5.2 GB at 128 GB/s) follows it. */
    ck_assert_double_eq_tol(h2d, 16000.0 * 327680 / 80 / 128e9, 2e-6);
    /* The larger of 2 intervals: one iteration. */
    model_cost_t *c = tests_a800_cost();
    double it2 = (double)model_cost_decode_ns(c, 1, 16002) / 1e9;
    model_cost_free(c);
    ck_assert_double_eq_tol(csv_field(csv, 1, 11), it2, 4e-6); /* tbt_max_s */
    free(csv);
}
END_TEST

/* Decode-side inlining has its own budget, cluster.inline_stall_s (0.1 s:
 * the prefill plus one decode iteration), independent of the TBT SLO.
 * Three 2,000-token prompts (prefill about 0.3 s) under a TBT SLO of
 * 1000 s: by default none is inlined (each prefills on the prefill node
 * and its KV crosses P->D); with a 10 s budget all are (no P->D bytes, no
 * transfer). Before, the gate was slo.tbt_s and inlined them all by
 * default: inline_stall_s = slo.tbt_s, the old-equivalent, does too. */
START_TEST(test_inline_stall_budget)
{
    static const int three[][3] = {{0, 2000, 4}, {1000, 2000, 4}, {2000, 2000, 4}};
    const char *tp = tests_trace_of("inline.jsonl", three, 3);
    for (int v = 0; v < 3; v++) {
        sim_config_defaults(&cfg);
        snprintf(cfg.trace.path, sizeof cfg.trace.path, "%s", tp);
        cfg.cluster.prefill = cfg.cluster.decode = 1;
        cfg.cache.enabled = 0;
        cfg.slo.tbt_s = 1000;
        if (v == 0)
            ck_assert_double_eq(cfg.cluster.inline_stall_s, 0.1);
        else
            cfg.cluster.inline_stall_s = v == 1 ? 10 : cfg.slo.tbt_s;
        int inlined = v > 0;
        sim_run_result_t res;
        sim_err_t err;
        const char *out = path_in(tests_tmpdir(), v == 0 ? "inl0" : v == 1 ? "inl1" : "inl2");
        ck_assert_msg(run(out, &res, &err) == 0, "%s", err.msg);
        ck_assert_int_eq(res.counts.completed, 3);
        json_t *pd = json_object_get(json_object_get(res.summary, "transfer"), "pd");
        double pd_bytes = (double)json_integer_value(json_object_get(pd, "bytes"));
        ck_assert_double_eq_tol(pd_bytes, (inlined ? 0 : 3 * 2000.0 * 327680), 1e3);
        json_decref(res.summary);
        char *csv = tests_read_file(path_in(out, "requests.csv"), NULL);
        for (int row = 1; row <= 3; row++) {
            ck_assert_double_eq(csv_field(csv, row, 5), 0); /* prefill_instance */
            double prefill = csv_field(csv, row, 15), transfer = csv_field(csv, row, 16);
            ck_assert_double_gt(prefill, 0.1);
            if (inlined)
                ck_assert_double_eq(transfer, 0);
            else /* the stream ends after its prefill on the prefill node */
                ck_assert_double_gt(transfer, prefill);
        }
        free(csv);
    }
}
END_TEST

/* With one batch slot, the second of two simultaneous requests joins only
 * when the first finishes; a request too large for decode VRAM is refused
 * at arrival. */
START_TEST(test_decode_admission)
{
    const char *d = tests_tmpdir();
    char text[65536];
    int n = snprintf(text, sizeof text,
                     "{\"timestamp\": 0, \"input_length\": 1000, \"output_length\": 50, "
                     "\"hash_ids\": [0, 1]}\n"
                     "{\"timestamp\": 0, \"input_length\": 1000, \"output_length\": 50, "
                     "\"hash_ids\": [2, 3]}\n"
                     "{\"timestamp\": 0, \"input_length\": 1400000, \"output_length\": 5, "
                     "\"hash_ids\": [");
    for (int i = 0; i < 2735; i++) /* ceil(1400000 / 512) */
        n += snprintf(text + n, sizeof text - (size_t)n, "%s%d", i ? "," : "", 10 + i);
    n += snprintf(text + n, sizeof text - (size_t)n, "]}\n");
    const char *tp = tests_write_file(d, "adm.jsonl", text, (size_t)n);
    sim_config_defaults(&cfg);
    snprintf(cfg.trace.path, sizeof cfg.trace.path, "%s", tp);
    cfg.cluster.decode = 1;
    cfg.cluster.decode_max_batch = 1;
    sim_run_result_t res;
    sim_err_t err;
    const char *out = path_in(d, "adm");
    ck_assert_msg(run(out, &res, &err) == 0, "%s", err.msg);
    json_decref(res.summary);
    ck_assert_int_eq(res.counts.total, 3);
    ck_assert_int_eq(res.counts.completed, 2);
    ck_assert_int_eq(res.counts.rejected_arrival, 1);
    char *csv = tests_read_file(path_in(out, "requests.csv"), NULL);
    ck_assert_ptr_nonnull(strstr(csv, "rejected_at_arrival"));
    /* Rows in completion order: the rejection, then request 0, then 1;
     * request 1 waits for the slot through request 0's whole decode, in
     * its TTFT (it arrived at 0), not in its token intervals. */
    double fin0 = csv_field(csv, 2, 13), max1 = csv_field(csv, 3, 11);
    double ttft1 = csv_field(csv, 3, 8), start1 = csv_field(csv, 3, 24);
    ck_assert_double_gt(ttft1, fin0 - 1e-6);
    ck_assert_double_eq_tol(start1, ttft1, 2e-6);
    ck_assert_double_lt(max1, 0.1);
    free(csv);
}
END_TEST

START_TEST(test_conservation_and_no_leaks)
{
    size_t live0 = sim_alloc_live_count(), bytes0 = sim_alloc_live_bytes();
    gen_config(1500);
    cfg.cluster.prefill = 2;
    cfg.cluster.decode = 2;
    cfg.trace.speed = 4; /* overload: long queues and full batches */
    sim_run_result_t res;
    sim_err_t err;
    ck_assert_msg(run(NULL, &res, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(res.counts.total, 1500);
    ck_assert_int_eq(res.counts.completed + res.counts.rejected_arrival +
                         res.counts.rejected_prefill, 1500);
    ck_assert_int_le(res.counts.met_slo, res.counts.completed);
    json_t *s = res.summary;
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(s, "sim"), "events")),
                     (json_int_t)res.events);
    json_decref(s);
    ck_assert_uint_eq(sim_alloc_live_count(), live0);
    ck_assert_uint_eq(sim_alloc_live_bytes(), bytes0);
}
END_TEST

/* The allocator's large blocks (own mappings, grown by moving pages):
 * zeroed by sim_xcalloc, contents kept across growth from a small block,
 * within the mapping and past it, and after a shrink; sim_grow_zeroed's
 * new elements zero in the heap and in mappings, after a shrink too;
 * live counts exact. */
START_TEST(test_large_blocks)
{
    size_t live0 = sim_alloc_live_count(), bytes0 = sim_alloc_live_bytes();
    size_t n0 = (size_t)3 << 20; /* 3 MiB: over the large-block size */
    unsigned char *z = sim_xcalloc(n0, 1, "test zeroed");
    for (size_t i = 0; i < n0; i += 4093)
        ck_assert_uint_eq(z[i], 0);
    ck_assert_uint_eq(z[n0 - 1], 0);
    if (sim_alloc_large_mapped()) /* on a cache line */
        ck_assert_uint_eq((uintptr_t)z % 64, 0);
    ck_assert_uint_eq(sim_alloc_live_bytes(), bytes0 + n0);
    sim_free(z);
    uint32_t *a = NULL;
    size_t cap = 0, filled = 0;
    /* 1 KiB to 32 MiB: a small block, the move to a mapping, then
     * mappings grown by moving their pages */
    size_t sizes[] = {256, 1 << 17, 1 << 18, 1 << 19, 1 << 20, 1 << 21, 1 << 22, (1 << 22) + 7};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        sim_grow((void **)&a, &cap, sizes[k], sizeof *a, "test growth");
        ck_assert_uint_ge(cap, sizes[k]);
        for (size_t i = 0; i < filled; i++)
            if (a[i] != (uint32_t)(i * 2654435761u))
                ck_abort_msg("element %zu lost at size %zu", i, sizes[k]);
        for (; filled < sizes[k]; filled++)
            a[filled] = (uint32_t)(filled * 2654435761u);
        if (sim_alloc_large_mapped() && cap * sizeof *a >= (1 << 20))
            ck_assert_uint_eq((uintptr_t)a % 64, 0);
        ck_assert_uint_eq(sim_alloc_live_bytes(), bytes0 + cap * sizeof *a);
    }
    /* a little more, inside the mapping's last huge page */
    a = sim_xrealloc(a, (cap + 1024) * sizeof *a, "test in place");
    for (size_t i = 0; i < filled; i++)
        if (a[i] != (uint32_t)(i * 2654435761u))
            ck_abort_msg("element %zu lost growing in place", i);
    ck_assert_uint_eq(sim_alloc_live_bytes(), bytes0 + (cap + 1024) * sizeof *a);
    a = sim_xrealloc(a, 1000 * sizeof *a, "test shrink");
    for (size_t i = 0; i < 1000; i++)
        ck_assert_uint_eq(a[i], (uint32_t)(i * 2654435761u));
    ck_assert_uint_eq(sim_alloc_live_bytes(), bytes0 + 1000 * sizeof *a);
    /* grown zeroed again from there: what the shrink gave up reads zero */
    cap = 1000;
    sim_grow_zeroed((void **)&a, &cap, 5000, sizeof *a, "test zeroed growth");
    for (size_t i = 1000; i < cap; i++)
        if (a[i] != 0)
            ck_abort_msg("element %zu not zero after the shrink and growth", i);
    sim_free(a);
    /* zeroed growth from a small block in the heap, through the move to a
     * mapping and growth within and past it: each new element is zero */
    cap = 0;
    a = NULL;
    for (size_t need = 1; need <= ((size_t)3 << 20); need = need * 3 + 1) {
        size_t old = cap;
        sim_grow_zeroed((void **)&a, &cap, need, sizeof *a, "test zeroed growth");
        for (size_t i = old; i < cap; i += (i < 4096 ? 1 : 4093))
            if (a[i] != 0)
                ck_abort_msg("element %zu of %zu not zero", i, cap);
        for (size_t i = old; i < cap; i++)
            a[i] = 0xdeadbeefu;
    }
    sim_free(a);
    ck_assert_uint_eq(sim_alloc_live_count(), live0);
    ck_assert_uint_eq(sim_alloc_live_bytes(), bytes0);
}
END_TEST

/* The slab: blocks zeroed (fresh, recycled, and past the first chunk),
 * never overlapping, recycled by size class, larger ones from the
 * allocator; nothing left live after every block is released and the
 * slab freed. */
START_TEST(test_slab)
{
    size_t live0 = sim_alloc_live_count(), bytes0 = sim_alloc_live_bytes();
    sim_slab_t s = {0};
    enum { N = 400 };
    static unsigned char *blk[N];
    static size_t len[N];
    /* sizes from 1 byte to one past the largest class; 400 of them span
     * several chunks */
    for (size_t i = 0; i < N; i++) {
        size_t n = i % 7 == 0 ? 1 + i : i % 7 == 1 ? 64 : i % 7 == 2 ? 65 : (size_t)1 << (8 + i % 7);
        if (i == 5)
            n = SIM_SLAB_MAX;
        if (i == 6)
            n = SIM_SLAB_MAX + 1;
        len[i] = n;
        blk[i] = sim_slab_alloc(&s, n, "test slab");
        for (size_t k = 0; k < n; k++)
            if (blk[i][k] != 0)
                ck_abort_msg("block %zu (%zu bytes) not zero at %zu", i, n, k);
        memset(blk[i], (int)(i % 251) + 1, n);
    }
    for (size_t i = 0; i < N; i++)
        for (size_t k = 0; k < len[i]; k++)
            if (blk[i][k] != (unsigned char)(i % 251 + 1))
                ck_abort_msg("block %zu overwritten at %zu", i, k);
    /* a released block comes back for its class, zeroed */
    if (!SIM_UNDER_ASAN) {
        unsigned char *old = blk[3];
        sim_slab_release(&s, blk[3], len[3]);
        blk[3] = sim_slab_alloc(&s, len[3] - 1, "test slab again");
        ck_assert_ptr_eq(blk[3], old);
        len[3]--;
        for (size_t k = 0; k < len[3]; k++)
            ck_assert_uint_eq(blk[3][k], 0);
    }
    sim_slab_release(&s, NULL, 64);
    for (size_t i = 0; i < N; i++)
        sim_slab_release(&s, blk[i], len[i]);
    sim_slab_free(&s);
    ck_assert_uint_eq(s.n_chunks, 0);
    ck_assert_uint_eq(sim_alloc_live_count(), live0);
    ck_assert_uint_eq(sim_alloc_live_bytes(), bytes0);
}
END_TEST

/* summary.json, which holds no wall-clock time (that is timing.json's). */
static char *summary_sans_wall(const char *dir)
{
    char *s = tests_read_file(path_in(dir, "summary.json"), NULL);
    ck_assert_ptr_nonnull(s);
    ck_assert_ptr_null(strstr(s, "wall_s"));
    char *t = tests_read_file(path_in(dir, "timing.json"), NULL);
    ck_assert_ptr_nonnull(t);
    ck_assert_ptr_nonnull(strstr(t, "\"wall_s\""));
    free(t);
    return s;
}

static void assert_same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *x = tests_read_file(a, &na), *y = tests_read_file(b, &nb);
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(y);
    ck_assert_msg(na == nb && memcmp(x, y, na) == 0, "%s and %s differ", a, b);
    free(x);
    free(y);
}

START_TEST(test_deterministic_outputs)
{
    const char *d = tests_tmpdir();
    const char *o1 = path_in(d, "det1"), *o2 = path_in(d, "det2"), *o3 = path_in(d, "det3");
    sim_run_result_t res;
    sim_err_t err;
    gen_config(800);
    ck_assert_msg(run(o1, &res, &err) == 0, "%s", err.msg);
    json_decref(res.summary);
    ck_assert_msg(run(o2, &res, &err) == 0, "%s", err.msg);
    json_decref(res.summary);
    assert_same_file(path_in(o1, "requests.csv"), path_in(o2, "requests.csv"));
    assert_same_file(path_in(o1, "config.json"), path_in(o2, "config.json"));
    char *s1 = summary_sans_wall(o1), *s2 = summary_sans_wall(o2);
    ck_assert_str_eq(s1, s2);
    free(s2);
    cfg.seed = 43; /* another seed: another workload */
    ck_assert_msg(run(o3, &res, &err) == 0, "%s", err.msg);
    json_decref(res.summary);
    char *s3 = summary_sans_wall(o3);
    ck_assert_str_ne(s1, s3);
    free(s1);
    free(s3);
}
END_TEST

START_TEST(test_policies_differ)
{
    sim_run_result_t a, b;
    sim_err_t err;
    gen_config(600);
    cfg.trace.speed = 3;
    ck_assert_int_eq(run(NULL, &a, &err), 0);
    snprintf(cfg.scheduler.policy, sizeof cfg.scheduler.policy, "round_robin");
    ck_assert_int_eq(run(NULL, &b, &err), 0);
    double ta = json_number_value(json_object_get(json_object_get(a.summary, "ttft_s"), "mean"));
    double tb = json_number_value(json_object_get(json_object_get(b.summary, "ttft_s"), "mean"));
    /* Least-loaded placement queues less than blind rotation. */
    ck_assert_double_lt(ta, tb);
    json_decref(a.summary);
    json_decref(b.summary);
}
END_TEST

/* The pool: the same prompt again reuses every block, loads them from
 * DRAM (overlapped with computing the last token) and is far faster; with
 * cache.enabled = 0 nothing is reused. */
START_TEST(test_prefix_reuse)
{
    const char *d = tests_tmpdir();
    char text[4096];
    int n = 0;
    for (int rep = 0; rep < 2; rep++) {
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "{\"timestamp\": %d, \"input_length\": 8000, \"output_length\": 2, "
                      "\"hash_ids\": [",
                      rep * 100000);
        for (int b = 0; b < 16; b++)
            n += snprintf(text + n, sizeof text - (size_t)n, "%s%d", b ? "," : "", b);
        n += snprintf(text + n, sizeof text - (size_t)n, "]}\n");
    }
    const char *tp = tests_write_file(d, "twice.jsonl", text, (size_t)n);
    model_cost_args_t a = {.hw = model_hw_find("a800x8"), .llm = model_llm_find("llama2-70b"),
                           .calibration = "", .data_dir = "."};
    sim_err_t err;
    model_cost_t *c = model_cost_new("fitted", &a, &err);
    double full = (double)model_cost_prefill_ns(c, 8000, 0) / 1e9;
    double last = (double)model_cost_prefill_ns(c, 8000, 7999) / 1e9;
    model_cost_free(c);
    for (int enabled = 0; enabled <= 1; enabled++) {
        sim_config_defaults(&cfg);
        snprintf(cfg.trace.path, sizeof cfg.trace.path, "%s", tp);
        cfg.cluster.prefill = 1;
        cfg.cache.enabled = enabled;
        sim_run_result_t res;
        const char *out = path_in(d, enabled ? "reuse1" : "reuse0");
        ck_assert_msg(run(out, &res, &err) == 0, "%s", err.msg);
        json_t *cache = json_object_get(res.summary, "cache");
        ck_assert_int_eq(cache != NULL, enabled);
        if (enabled)
            ck_assert_double_eq_tol(
                json_number_value(json_object_get(cache, "hit_rate_tokens")), 0.5, 1e-9);
        json_decref(res.summary);
        char *csv = tests_read_file(path_in(out, "requests.csv"), NULL);
        ck_assert_double_eq(csv_field(csv, 1, 7), 0);             /* first: nothing cached */
        ck_assert_double_eq_tol(csv_field(csv, 1, 15), full, 2e-6); /* prefill_s */
        ck_assert_double_eq(csv_field(csv, 2, 7), enabled ? 8000 : 0);
        ck_assert_double_eq(csv_field(csv, 2, 17), enabled ? 8000 : 0); /* from DRAM */
        double load = 8000.0 * 327680 / 128e9;
        ck_assert_double_eq_tol(csv_field(csv, 2, 19), enabled ? load : 0, 2e-6);
        ck_assert_double_eq_tol(csv_field(csv, 2, 15), enabled ? SIM_MAX(last, load) : full, 2e-6);
        free(csv);
    }
}
END_TEST

/* A chunked pipeline over 4 stage nodes, computed by hand: chunk j leaves
 * stage s when both its input arrived and stage s finished chunk j-1; the
 * activations (8192 tokens x 8192 x 2 bytes) cross each boundary in setup
 * latency + bytes / (efficiency x NIC). One chunk is a plain prefill. */
START_TEST(test_cpp_pipeline)
{
    static const int one[][3] = {{0, 32768, 1}};
    const char *tp = tests_trace_of("cpp.jsonl", one, 1);
    model_cost_t *c = tests_a800_cost();
    sim_net_profile_t rdma;
    ck_assert_int_eq(sim_net_profile_get("rdma", &rdma), 0);
    enum { G = 4, K = 4 };
    sim_time_t xfer = llround(rdma.latency_s * 1e9) +
                      (sim_time_t)ceil(2.0 * 8192 * 8192 / (100e9 * rdma.efficiency) * 1e9);
    sim_time_t end[G][K];
    for (int s = 0; s < G; s++)
        for (int j = 0; j < K; j++) {
            sim_time_t t = model_cost_prefill_ns(c, (j + 1) * 8192, j * 8192);
            if (j > 0) /* the pass's fixed part is paid once */
                t -= model_cost_prefill_fixed_ns(c);
            sim_time_t st = t / G;
            sim_time_t ready = s == 0 ? 0 : end[s - 1][j] + xfer;
            sim_time_t prev = j == 0 ? 0 : end[s][j - 1];
            end[s][j] = (ready > prev ? ready : prev) + st;
        }
    double plain = (double)model_cost_prefill_ns(c, 32768, 0) / 1e9;
    model_cost_free(c);
    sim_err_t err;
    double ttft[3];
    for (int v = 0; v < 3; v++) { /* group 1; group 4 (pipeline); group 4, one chunk */
        sim_config_defaults(&cfg);
        snprintf(cfg.trace.path, sizeof cfg.trace.path, "%s", tp);
        cfg.cluster.prefill_group = v ? G : 1;
        cfg.cluster.prefill_chunk = v == 2 ? 32768 : 8192;
        sim_run_result_t res;
        const char *out = path_in(tests_tmpdir(), v == 0 ? "cpp0" : v == 1 ? "cpp1" : "cpp2");
        ck_assert_msg(run(out, &res, &err) == 0, "%s", err.msg);
        if (v == 1) {
            json_t *st = json_object_get(json_object_get(res.summary, "transfer"), "stage");
            ck_assert_int_eq(json_integer_value(json_object_get(st, "flows")), (G - 1) * K);
            ck_assert_int_eq(json_integer_value(json_object_get(st, "bytes")),
                             (json_int_t)(G - 1) * K * 2 * 8192 * 8192);
        }
        json_decref(res.summary);
        char *csv = tests_read_file(path_in(out, "requests.csv"), NULL);
        ttft[v] = csv_field(csv, 1, 15); /* prefill_s */
        free(csv);
    }
    ck_assert_double_eq_tol(ttft[0], plain, 2e-6);
    ck_assert_double_eq_tol(ttft[1], (double)end[G - 1][K - 1] / 1e9, 2e-6);
    ck_assert_double_lt(ttft[1], plain * 0.6); /* the pipeline pays off */
    ck_assert_double_eq_tol(ttft[2], plain, 2e-6);
}
END_TEST

/* cache.scope global with the Conductor: instance 0 computed a prefix and
 * is then busy with a long prompt; the same prefix arriving next goes to
 * idle instance 1, which fetches it (latency + bytes at what instance 0's
 * NIC has left), waits for it at the head of its queue, keeps a replica
 * and reuses all of it. */
START_TEST(test_remote_fetch)
{
    static const int three[][3] = {{0, 8000, 2}, {10000, 120000, 2}, {11000, 8000, 2}};
    const char *tp = tests_trace_of("fetch.jsonl", three, 3);
    sim_config_defaults(&cfg);
    snprintf(cfg.trace.path, sizeof cfg.trace.path, "%s", tp);
    cfg.cluster.prefill = 2;
    snprintf(cfg.scheduler.policy, sizeof cfg.scheduler.policy, "kvcentric");
    snprintf(cfg.cache.scope, sizeof cfg.cache.scope, "global");
    sim_run_result_t res;
    sim_err_t err;
    const char *out = path_in(tests_tmpdir(), "fetch");
    ck_assert_msg(run(out, &res, &err) == 0, "%s", err.msg);
    json_t *cache = json_object_get(res.summary, "cache");
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(cache, "replicas"), "max")), 2);
    json_t *fetch = json_object_get(json_object_get(res.summary, "transfer"), "fetch");
    ck_assert_int_eq(json_integer_value(json_object_get(fetch, "bytes")), (json_int_t)8000 * 327680);
    json_decref(res.summary);
    sim_net_profile_t rdma;
    ck_assert_int_eq(sim_net_profile_get("rdma", &rdma), 0);
    char *csv = tests_read_file(path_in(out, "requests.csv"), NULL);
    ck_assert_double_eq(csv_field(csv, 2, 0), 2);    /* the third request */
    ck_assert_double_eq(csv_field(csv, 2, 5), 1);    /* prefill instance 1 */
    ck_assert_double_eq(csv_field(csv, 2, 7), 8000); /* all reused */
    ck_assert_double_eq(csv_field(csv, 2, 20), 8000); /* fetched */
    /* Alone it would take latency + bytes / (efficiency x NIC); instance
     * 0's egress also streams its long prompt's KV (a few GB/s). */
    double alone = rdma.latency_s + 8000.0 * 327680 / (rdma.efficiency * 100e9);
    double fetch_s = csv_field(csv, 2, 21);
    ck_assert_double_ge(fetch_s, alone - 2e-6);
    ck_assert_double_le(fetch_s, alone * 1.05);
    /* queued behind it, after the Conductor's scheduling time */
    ck_assert_double_eq_tol(csv_field(csv, 2, 14), cfg.scheduler.schedule_s + fetch_s, 2e-6);
    free(csv);
}
END_TEST

/* On a congested network (10 Gbps NICs) every streamed byte is accounted
 * once, and TTFT ends when a request joins its decode batch, after its KV
 * has landed and what was left of its load into VRAM. */
START_TEST(test_stream_invariants)
{
    gen_config(400);
    cfg.network.nic_gbps = 10;
    tests_cfg_set(&cfg, "scheduler.params.slo_reject=0"); /* every request runs, however late */
    cfg.cluster.prefill = 3;
    cfg.cluster.decode = 2;
    const char *out = path_in(tests_tmpdir(), "congested");
    sim_run_result_t res;
    sim_err_t err;
    ck_assert_msg(run(out, &res, &err) == 0, "%s", err.msg);
    json_t *pd = json_object_get(json_object_get(res.summary, "transfer"), "pd");
    double pd_bytes = (double)json_integer_value(json_object_get(pd, "bytes"));
    json_decref(res.summary);
    char *csv = tests_read_file(path_in(out, "requests.csv"), NULL);
    double streamed = 0;
    int rows = 0;
    for (const char *line = strchr(csv, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        rows++;
        double arrival = csv_field(line - 0, 0, 1), ttft = csv_field(line, 0, 8);
        double out_tok = csv_field(line, 0, 3), kv_ready = csv_field(line, 0, 22);
        if (out_tok > 1) {
            double load = csv_field(line, 0, 23), start = csv_field(line, 0, 24);
            streamed += csv_field(line, 0, 2) * 327680;
            ck_assert_double_eq_tol(start, arrival + ttft, 2e-6);
            ck_assert_double_ge(start + 2e-6, kv_ready + load);
        }
    }
    ck_assert_int_eq(rows, 400);
    ck_assert_double_eq_tol(pd_bytes, streamed, streamed * 1e-9);
    free(csv);
}
END_TEST

/* A bad record mid-trace abandons the run: exit path, nothing written. */
START_TEST(test_bad_trace_leaves_nothing)
{
    const char *d = tests_tmpdir();
    const char *text = "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 5, \"hash_ids\": [0]}\n"
                       "{\"timestamp\": 5, \"input_length\": 10, \"output_length\": 5, \"hash_ids\": [1]}\n"
                       "{\"timestamp\": 3, \"input_length\": 10, \"output_length\": 5, \"hash_ids\": [2]}\n";
    const char *tp = tests_write_file(d, "nonmono.jsonl", text, strlen(text));
    sim_config_defaults(&cfg);
    snprintf(cfg.trace.path, sizeof cfg.trace.path, "%s", tp);
    sim_run_result_t res;
    sim_err_t err;
    size_t live0 = sim_alloc_live_count();
    const char *out = path_in(d, "never");
    ck_assert_int_eq(run(out, &res, &err), -1);
    ck_assert_msg(strstr(err.msg, "nonmono.jsonl:3:") != NULL, "%s", err.msg);
    ck_assert_int_eq(access(out, F_OK), -1);
    ck_assert_uint_eq(sim_alloc_live_count(), live0);
}
END_TEST

/* Run errors name the config keys they come from: a reserve that leaves
 * the model no room names the reserve as well as the model (before: only
 * $.model); a trace of no requests is an error (before: a header-only
 * Azure CSV ran, span_s 1e-9). Nothing is written. */
START_TEST(test_run_errors_located)
{
    static const int one[][3] = {{1000, 600, 3}};
    const char *d = tests_tmpdir();
    sim_run_result_t res;
    sim_err_t err;
    sim_config_defaults(&cfg);
    snprintf(cfg.trace.path, sizeof cfg.trace.path, "%s", tests_trace_of("vram.jsonl", one, 1));
    cfg.cluster.vram_reserve_frac = 0.9;
    const char *out = path_in(d, "vram_out");
    ck_assert_int_eq(run(out, &res, &err), -1);
    ck_assert_msg(strstr(err.msg, "test.json: $.model, $.cluster.vram_reserve_frac: model "
                                  "llama2-70b (140 GB of weights) does not fit the VRAM a node "
                                  "keeps after the reserve") != NULL, "%s", err.msg);
    ck_assert_msg(strstr(err.msg, "(a800x8: 8 x 80 GB x (1 - 0.9) = 64 GB)") != NULL, "%s", err.msg);
    ck_assert_int_eq(err.io, 0);
    ck_assert_int_eq(access(out, F_OK), -1);
    cfg.cluster.vram_reserve_frac = 0.1;
    static const char hdr[] = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
    snprintf(cfg.trace.path, sizeof cfg.trace.path, "%s",
             tests_write_file(d, "hdr_only.csv", hdr, strlen(hdr)));
    out = path_in(d, "hdr_out");
    ck_assert_int_eq(run(out, &res, &err), -1);
    ck_assert_msg(strstr(err.msg, "hdr_only.csv: no requests (the file holds no records)") != NULL,
                  "%s", err.msg);
    ck_assert_int_eq(access(out, F_OK), -1);
}
END_TEST

/* Rows of DIR/timeseries.csv (lines less the header). */
static int ts_rows_of(const char *dir)
{
    char *ts = tests_read_file(path_in(dir, "timeseries.csv"), NULL);
    ck_assert_ptr_nonnull(ts);
    int rows = -1;
    for (const char *p = ts; *p; p++)
        rows += *p == '\n';
    free(ts);
    return rows;
}

/* timeseries.csv is bounded (SIM_TS_MAX_ROWS): a run whose interval
 * would write more rows stops with an error naming metrics.interval_s and
 * writes nothing. Before, a 1e-9 s interval wrote GBs. Here 1 ms over one
 * request that decodes 40,000 tokens, 1,071 s busy (idle spans cost no
 * rows, so the bound is about busy time). */
START_TEST(test_timeseries_bounded)
{
    static const int one[][3] = {{0, 600, 40000}};
    sim_run_result_t res;
    sim_err_t err;
    sim_config_defaults(&cfg);
    snprintf(cfg.trace.path, sizeof cfg.trace.path, "%s", tests_trace_of("long.jsonl", one, 1));
    tests_cfg_set(&cfg, "metrics.interval_s=0.001");
    size_t live0 = sim_alloc_live_count();
    const char *out = path_in(tests_tmpdir(), "ts_out");
    ck_assert_int_eq(run(out, &res, &err), -1);
    ck_assert_msg(strstr(err.msg, "test.json: $.metrics.interval_s: 0.001 s would write more than "
                                  "1000000 rows of timeseries.csv") != NULL, "%s", err.msg);
    ck_assert_int_eq(access(out, F_OK), -1);
    ck_assert_uint_eq(sim_alloc_live_count(), live0);
    /* a coarser interval runs */
    tests_cfg_set(&cfg, "metrics.interval_s=1");
    ck_assert_msg(run(out, &res, &err) == 0, "%s", err.msg);
    json_decref(res.summary);
    ck_assert_int_ge(ts_rows_of(out), 1071); /* a row a second to the request's end */
}
END_TEST

/* 50 short requests gap_s apart, as a Mooncake trace (timestamps in ms
 * past int range at 10^6 s). */
static const char *sparse_trace(const char *name, long long gap_s)
{
    static char text[8192];
    size_t k = 0;
    for (int i = 0; i < 50; i++)
        k += (size_t)snprintf(text + k, sizeof text - k,
                              "{\"timestamp\": %lld, \"input_length\": 600, \"output_length\": 3, "
                              "\"hash_ids\": [0, 1]}\n",
                              (long long)i * gap_s * 1000);
    return tests_write_file(tests_tmpdir(), name, text, k);
}

/* The time series skips idle spans: 50 requests 10^6 s apart (a sampler
 * ticking every 15 s through them would run 3.3e6 events and hit the row
 * bound) finish in well under a second; at 10^4 s apart the run writes
 * each burst's rows plus an idle span's first and last row (164, where a
 * row every interval would be 32,667), and both runs pass `check`. */
START_TEST(test_timeseries_skips_idle)
{
    static const long long gaps[] = {1000000, 10000};
    for (int g = 0; g < 2; g++) {
        sim_run_result_t res;
        sim_err_t err;
        sim_config_defaults(&cfg);
        snprintf(cfg.trace.path, sizeof cfg.trace.path, "%s",
                 sparse_trace(g ? "sparse4.jsonl" : "sparse6.jsonl", gaps[g]));
        tests_cfg_set(&cfg, "metrics.interval_s=15");
        const char *out = path_in(tests_tmpdir(), g ? "sparse4_out" : "sparse6_out");
        double t0 = sim_mono_s();
        ck_assert_msg(run(out, &res, &err) == 0, "%s", err.msg);
        double wall_s = sim_mono_s() - t0;
        ck_assert_msg(wall_s < 0.5, "%lld s apart: %.3f s", gaps[g], wall_s);
        json_t *req = json_object_get(res.summary, "requests"), *sim = json_object_get(res.summary, "sim");
        ck_assert_int_eq(json_integer_value(json_object_get(req, "completed")), 50);
        ck_assert_int_lt(json_integer_value(json_object_get(sim, "events")), 1000);
        json_decref(res.summary);
        /* per request: its busy interval, the idle span's two ends */
        int rows = ts_rows_of(out);
        ck_assert_msg(rows >= 3 * 49 && rows <= 4 * 50, "%d rows", rows);
        FILE *devnull = fopen("/dev/null", "w");
        ck_assert_ptr_nonnull(devnull);
        sim_check_opts_t o = {.out = devnull};
        sim_check_result_t cr;
        ck_assert_int_eq(sim_check_dir(out, &o, &cr, &err), 0);
        fclose(devnull);
    }
}
END_TEST

/* A write that fails (here the file-size limit, as a full disk would) is
 * the system's failure, not bad input: err.io is set, so `run` exits 1
 * (main.c), and nothing is published. */
START_TEST(test_write_failure_is_io)
{
    static const int reqs[][3] = {{0, 600, 3}, {10, 700, 3}, {20, 800, 3}, {30, 900, 3}};
    sim_run_result_t res;
    sim_err_t err;
    sim_config_defaults(&cfg);
    snprintf(cfg.trace.path, sizeof cfg.trace.path, "%s", tests_trace_of("io.jsonl", reqs, 4));
    const char *out = path_in(tests_tmpdir(), "io_out");
    struct rlimit old, small;
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
    small = old;
    small.rlim_cur = 256; /* bytes: requests.csv's header alone is longer */
    void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
    int rc = run(out, &res, &err);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, was);
    ck_assert_int_eq(rc, -1);
    ck_assert_msg(err.io == 1 && strstr(err.msg, "write failed") != NULL, "io %d: %s", err.io,
                  err.msg);
    ck_assert_int_eq(access(out, F_OK), -1);
    /* the same run without the limit succeeds */
    ck_assert_msg(run(out, &res, &err) == 0, "%s", err.msg);
    json_decref(res.summary);
}
END_TEST


/* An output directory whose config.json is another experiment's (or
 * unreadable) is refused before anything is written, naming the first key
 * that differs; the same experiment reruns over it byte for byte; force
 * overwrites. */
START_TEST(test_out_dir_holds_other_experiment)
{
    const char *d = tests_tmpdir(), *out = path_in(d, "guard");
    const char *cfg_path = path_in(out, "config.json"), *csv_path = path_in(out, "requests.csv");
    sim_run_opts_t o = {.config_src = "test.json", .out_dir = out, .data_dir = "."};
    sim_run_result_t res;
    sim_err_t err;
    gen_config(30);
    ck_assert_msg(sim_run(&cfg, &o, &res, &err) == 0, "%s", err.msg);
    json_decref(res.summary);
    size_t cfg_len, csv_len, len;
    char *cfg1 = tests_read_file(cfg_path, &cfg_len), *csv1 = tests_read_file(csv_path, &csv_len);
    ck_assert_int_eq(tests_n_entries(out), 5);

    /* the same experiment: written over, the same bytes */
    ck_assert_msg(sim_run(&cfg, &o, &res, &err) == 0, "%s", err.msg);
    json_decref(res.summary);
    char *x = tests_read_file(csv_path, &len);
    ck_assert(len == csv_len && memcmp(x, csv1, len) == 0);
    free(x);

    /* another experiment: refused, nothing touched */
    cfg.cluster.prefill = 4;
    size_t live0 = sim_alloc_live_count();
    ck_assert_int_eq(sim_run(&cfg, &o, &res, &err), -1);
    ck_assert_uint_eq(sim_alloc_live_count(), live0);
    ck_assert_ptr_null(res.summary);
    ck_assert_msg(strncmp(err.msg, out, strlen(out)) == 0 &&
                      strstr(err.msg, ": holds a different experiment (config.json differs at "
                                      "$.cluster.prefill: 8 there, 4 in this run)") != NULL,
                  "%s", err.msg);
    x = tests_read_file(cfg_path, &len);
    ck_assert(len == cfg_len && memcmp(x, cfg1, len) == 0);
    free(x);
    x = tests_read_file(csv_path, &len);
    ck_assert(len == csv_len && memcmp(x, csv1, len) == 0);
    free(x);
    ck_assert_int_eq(tests_n_entries(out), 5);

    /* a key the file lacks, and a string value */
    cfg.cluster.prefill = 8;
    snprintf(cfg.cache.policy, sizeof cfg.cache.policy, "lfu");
    ck_assert_int_eq(sim_run(&cfg, &o, &res, &err), -1);
    ck_assert_msg(strstr(err.msg, "$.cache.policy: \"lru\" there, \"lfu\" in this run") != NULL,
                  "%s", err.msg);
    snprintf(cfg.cache.policy, sizeof cfg.cache.policy, "lru");
    const char *extra = "{\"name\": \"default\", \"old_key\": 1}\n";
    const char *other = path_in(d, "guard_extra");
    ck_assert_int_eq(mkdir(other, 0777), 0);
    tests_write_file(other, "config.json", extra, strlen(extra));
    o.out_dir = other;
    ck_assert_int_eq(sim_run(&cfg, &o, &res, &err), -1);
    ck_assert_msg(strstr(err.msg, "differs at $.description: absent there, \"\" in this run") != NULL,
                  "%s", err.msg);

    /* an unreadable config.json counts as different */
    const char *broken = path_in(d, "guard_broken");
    ck_assert_int_eq(mkdir(broken, 0777), 0);
    tests_write_file(broken, "config.json", "{\"seed\":", 9);
    o.out_dir = broken;
    ck_assert_int_eq(sim_run(&cfg, &o, &res, &err), -1);
    ck_assert_msg(strstr(err.msg, "holds a config.json that cannot be read") != NULL, "%s", err.msg);
    ck_assert_int_eq(tests_n_entries(broken), 1);

    /* force: written over */
    cfg.cluster.prefill = 4;
    o.out_dir = out;
    o.force = 1;
    ck_assert_msg(sim_run(&cfg, &o, &res, &err) == 0, "%s", err.msg);
    json_decref(res.summary);
    x = tests_read_file(cfg_path, NULL);
    ck_assert_ptr_nonnull(strstr(x, "\"prefill\": 4,"));
    free(x);
    ck_assert_int_eq(tests_n_entries(out), 5);
    free(cfg1);
    free(csv1);
}
END_TEST

START_TEST(test_tbt_stats_brute_force)
{
    gsl_rng *r = sim_rng_new(1, 1000);
    int64_t a[2000], b[2000];
    for (int trial = 0; trial < 300; trial++) {
        size_t n = 1 + gsl_rng_uniform_int(r, trial < 50 ? 12 : 2000);
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] = (int64_t)gsl_rng_uniform_int(r, trial % 3 ? 1000000 : 5);
        double mean, p90, mx, top;
        sim_metrics_tbt_stats(a, n, &mean, &p90, &mx, &top);
        for (size_t i = 1; i < n; i++) /* insertion sort: the reference */
            for (size_t j = i; j > 0 && b[j - 1] > b[j]; j--) {
                int64_t t = b[j];
                b[j] = b[j - 1];
                b[j - 1] = t;
            }
        size_t k = (n + 9) / 10, r90 = (9 * n + 9) / 10;
        double s = 0, st = 0;
        for (size_t i = 0; i < n; i++)
            s += (double)b[i];
        for (size_t i = n - k; i < n; i++)
            st += (double)b[i];
        ck_assert_double_eq_tol(mean, s / (double)n / 1e9, 1e-12);
        ck_assert_double_eq_tol(mx, (double)b[n - 1] / 1e9, 1e-15);
        ck_assert_double_eq_tol(p90, (double)b[r90 - 1] / 1e9, 1e-15);
        ck_assert_double_eq_tol(top, st / (double)k / 1e9, 1e-12);
    }
    gsl_rng_free(r);
}
END_TEST

START_TEST(test_hist_percentiles)
{
    sim_hist_t h;
    sim_hist_init(&h);
    for (int64_t v = 1; v <= 100000; v++)
        sim_hist_add(&h, v * 1000, 1);
    ck_assert_int_eq((int64_t)h.total, 100000);
    double qs[] = {0.5, 0.9, 0.99, 1.0};
    for (int i = 0; i < 4; i++) {
        double exact = ceil(qs[i] * 100000) * 1000;
        double got = (double)sim_hist_percentile(&h, qs[i]);
        ck_assert_double_le(fabs(got - exact) / exact, 0.001);
    }
    ck_assert_double_eq_tol(sim_hist_mean(&h), 50000.5 * 1000, 1e-6);
    sim_hist_add(&h, 7, 3); /* small values are exact */
    ck_assert_int_eq(sim_hist_percentile(&h, 1e-9), 7);
    /* Only the groups that values landed in exist: 1e3 .. 1e8 spans
     * octaves 10 to 26, buckets 0 .. 17 x 1024 + 1023. */
    for (size_t g = 0; g < SIM_HIST_GROUPS; g++)
        ck_assert_int_eq(h.group[g] != NULL, g <= 17);
    sim_hist_free(&h);
    /* The largest value has a bucket (the last group's), reported within
     * 0.1% like any other; the sum stays exact past 64 bits. */
    sim_hist_init(&h);
    sim_hist_add(&h, INT64_MAX, 4);
    sim_hist_add_run(&h, INT64_MAX, 3, (__int128)INT64_MAX * 3, INT64_MAX, 2);
    ck_assert_ptr_nonnull(h.group[SIM_HIST_GROUPS - 1]);
    ck_assert_int_ge(sim_hist_percentile(&h, 1.0), INT64_MAX - INT64_MAX / 1024);
    ck_assert_double_eq(sim_hist_mean(&h), (double)INT64_MAX);
    sim_hist_free(&h);
}
END_TEST

/* The bucket of a value by hist.h's rule, computed here on its own:
 * below 2048 the value; else 1024 buckets per octave. */
static size_t ref_bucket(uint64_t u)
{
    if (u < 2048)
        return (size_t)u;
    int shift = 63 - __builtin_clzll(u) - 10;
    return (size_t)(shift + 1) * 1024 + (size_t)((u >> shift) - 1024);
}

/* Runs cut at sim_hist_bucket_end and added with sim_hist_add_run count
 * what the bucket rule says value by value: rising runs (a decode span's
 * times, which share buckets), falls, small exact values and bucket
 * edges; and a run's end is the first value of the next bucket. */
START_TEST(test_hist_add_run_vs_rule)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    static uint64_t want[SIM_HIST_GROUPS * 1024];
    for (int round = 0; round < 200; round++) {
        sim_hist_t a;
        sim_hist_init(&a);
        memset(want, 0, sizeof want);
        int64_t v[300];
        size_t n = gsl_rng_uniform_int(r, 300);
        int64_t x = (int64_t)gsl_rng_uniform_int(r, round % 2 ? 5000 : 40000000);
        for (size_t i = 0; i < n; i++) {
            switch (gsl_rng_uniform_int(r, 4)) {
            case 0: x = (int64_t)gsl_rng_uniform_int(r, 3000); break; /* anywhere, small */
            case 1: x = x >> 1; break;                                /* a fall */
            default: x += (int64_t)gsl_rng_uniform_int(r, 40000); /* a slow rise */
            }
            v[i] = x;
        }
        if (n > 0 && round % 3 == 0)
            v[n - 1] = INT64_C(1) << (11 + round % 40); /* a bucket's first value */
        uint64_t count = 1 + gsl_rng_uniform_int(r, 4);
        __int128 sum = 0;
        int64_t mx = 0;
        for (size_t i = 0; i < n;) {
            uint64_t end = sim_hist_bucket_end(v[i]);
            ck_assert_uint_eq(ref_bucket(end), ref_bucket((uint64_t)v[i]) + 1);
            ck_assert_uint_eq(ref_bucket(end - 1), ref_bucket((uint64_t)v[i]));
            size_t j = i;
            __int128 run_sum = 0;
            int64_t run_max = v[i];
            while (j < n && ref_bucket((uint64_t)v[j]) == ref_bucket((uint64_t)v[i])) {
                run_sum += v[j];
                run_max = v[j] > run_max ? v[j] : run_max;
                want[ref_bucket((uint64_t)v[j])] += count;
                j++;
            }
            sim_hist_add_run(&a, v[i], j - i, run_sum, run_max, count);
            sum += run_sum;
            mx = run_max > mx ? run_max : mx;
            i = j;
        }
        ck_assert_uint_eq(a.total, count * n);
        ck_assert(a.sum == sum * count);
        ck_assert_int_eq(a.max, mx);
        /* The first bucket that differs, asserted once: Check records
         * every assertion that passes, which over 55,296 buckets a round
         * was nearly all of the test's time. */
        size_t bad = 0;
        uint64_t got = 0, exp = 0;
        for (size_t b = 0; b < SIM_HIST_GROUPS * 1024 && got == exp; b++) {
            got = a.group[b / 1024] ? a.group[b / 1024][b % 1024] : 0;
            exp = want[b];
            bad = b;
        }
        ck_assert_msg(got == exp, "round %d: bucket %zu holds %llu, not %llu", round, bad,
                      (unsigned long long)got, (unsigned long long)exp);
        sim_hist_free(&a);
    }
    gsl_rng_free(r);
}
END_TEST

/* ---- golden run: the first 500 requests of the conversation trace ---- */

static const char *const golden_ints[][2] = {
    {"requests", "total"},        {"requests", "completed"},
    {"requests", "rejected_at_arrival"}, {"requests", "rejected_after_prefill"},
    {"slo", "met"},               {"decode", "iterations"},
    {"trace", "input_tokens"},    {"trace", "output_tokens_completed"},
    {"transfer", "kv_handoff_bytes"}, {"sim", "events"},
    {"cache", "inserts"},         {"cache", "evictions"},
    {"cache", "cached_tokens"},
};
static const char *const golden_nums[][2] = {
    {"ttft_s", "mean"}, {"ttft_s", "p90"}, {"tbt_s", "mean"}, {"tbt_s", "p99"},
    {"prefill", "busy_s"}, {"decode", "mean_batch"}, {"goodput_rps", NULL},
    {"cache", "hit_rate_tokens"},
};

static json_t *pick(json_t *s, const char *a, const char *b)
{
    json_t *v = json_object_get(s, a);
    return b ? json_object_get(v, b) : v;
}

START_TEST(test_golden_conversation_500)
{
    sim_err_t err;
    sim_config_defaults(&cfg);
    ck_assert_msg(sim_config_load(&cfg, "tests/golden/conversation_500.json", &err) == 0, "%s",
                  err.msg);
    sim_run_result_t res;
    sim_run_opts_t o = {.config_src = "tests/golden/conversation_500.json", .data_dir = "."};
    ck_assert_msg(sim_run(&cfg, &o, &res, &err) == 0, "%s", err.msg);
    const char *gpath = "tests/golden/conversation_500.expected.json";
    const char *upd = getenv("MOONCAKE_GOLDEN_UPDATE");
    if (upd && strcmp(upd, "1") == 0) {
        json_t *g = json_object();
        for (size_t i = 0; i < sizeof golden_ints / sizeof golden_ints[0]; i++) {
            char k[128];
            snprintf(k, sizeof k, "%s.%s", golden_ints[i][0], golden_ints[i][1]);
            json_object_set(g, k, pick(res.summary, golden_ints[i][0], golden_ints[i][1]));
        }
        for (size_t i = 0; i < sizeof golden_nums / sizeof golden_nums[0]; i++) {
            char k[128];
            snprintf(k, sizeof k, "%s%s%s", golden_nums[i][0], golden_nums[i][1] ? "." : "",
                     golden_nums[i][1] ? golden_nums[i][1] : "");
            json_object_set(g, k, pick(res.summary, golden_nums[i][0], golden_nums[i][1]));
        }
        FILE *f = fopen(gpath, "w");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(sim_json_write(f, g), 0);
        fclose(f);
        json_decref(g);
        printf("golden: wrote %s\n", gpath);
    }
    json_error_t je;
    json_t *g = json_load_file(gpath, 0, &je);
    ck_assert_msg(g != NULL, "%s: %s (make golden-update creates it)", gpath, je.text);
    for (size_t i = 0; i < sizeof golden_ints / sizeof golden_ints[0]; i++) {
        char k[128];
        snprintf(k, sizeof k, "%s.%s", golden_ints[i][0], golden_ints[i][1]);
        json_int_t want = json_integer_value(json_object_get(g, k));
        json_int_t got = json_integer_value(pick(res.summary, golden_ints[i][0], golden_ints[i][1]));
        ck_assert_msg(got == want, "golden %s: got %lld, expected %lld", k, (long long)got,
                      (long long)want);
    }
    for (size_t i = 0; i < sizeof golden_nums / sizeof golden_nums[0]; i++) {
        char k[128];
        snprintf(k, sizeof k, "%s%s%s", golden_nums[i][0], golden_nums[i][1] ? "." : "",
                 golden_nums[i][1] ? golden_nums[i][1] : "");
        double want = json_number_value(json_object_get(g, k));
        double got = json_number_value(pick(res.summary, golden_nums[i][0], golden_nums[i][1]));
        ck_assert_msg(got == want, "golden %s: got %.10g, expected %.10g", k, got, want);
    }
    json_decref(g);
    json_decref(res.summary);
}
END_TEST

Suite *test_sim_suite(void)
{
    Suite *s = suite_create("sim");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_single_request_by_hand);
    tcase_add_test(tc, test_ttft_ends_at_handoff_slow_nic);
    tcase_add_test(tc, test_inline_stall_budget);
    tcase_add_test(tc, test_decode_admission);
    tcase_add_test(tc, test_conservation_and_no_leaks);
    tcase_add_test(tc, test_large_blocks);
    tcase_add_test(tc, test_slab);
    tcase_add_test(tc, test_deterministic_outputs);
    tcase_add_test(tc, test_policies_differ);
    tcase_add_test(tc, test_bad_trace_leaves_nothing);
    tcase_add_test(tc, test_out_dir_holds_other_experiment);
    tcase_add_test(tc, test_prefix_reuse);
    tcase_add_test(tc, test_cpp_pipeline);
    tcase_add_test(tc, test_remote_fetch);
    tcase_add_test(tc, test_stream_invariants);
    tcase_add_test(tc, test_tbt_stats_brute_force);
    tcase_add_test(tc, test_hist_percentiles);
    tcase_add_test(tc, test_hist_add_run_vs_rule);
    tcase_add_test(tc, test_run_errors_located);
    tcase_add_test(tc, test_timeseries_bounded);
    tcase_add_test(tc, test_timeseries_skips_idle);
    tcase_add_test(tc, test_write_failure_is_io);
    TESTS_ADD_TRACE_TEST(tc, test_golden_conversation_500);
    suite_add_tcase(s, tc);
    return s;
}
