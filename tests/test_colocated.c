/* tests/test_colocated.c: the vLLM-like baselines: a prefill stalls the
 * running decodes (exact times, two requests), chunked prefill bounds the
 * iteration time, preemption frees VRAM and recomputes, the HBM prefix
 * cache hits on a repeated prompt; and the dataset generators' means. */
#include "tests/tests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/cost.h"
#include "sim/exp/run.h"

static sim_config_t cfg;

/* --set assignment on cfg, which must succeed. */
static void set(const char *assignment)
{
    sim_err_t err;
    ck_assert_msg(sim_config_set(&cfg, assignment, &err) == 0, "%s", err.msg);
}

static void coloc_config(const char *trace, const char *system, int instances)
{
    char a[128];
    sim_config_defaults(&cfg);
    snprintf(cfg.trace.path, sizeof cfg.trace.path, "%s", trace);
    cfg.cluster.prefill = cfg.cluster.decode = 0;
    snprintf(a, sizeof a, "system.kind=%s", system);
    set(a);
    snprintf(a, sizeof a, "system.params.instances=%d", instances);
    set(a);
}

/* The configured system's parameter key, as the effective config has it. */
static double sys_param(const char *key)
{
    json_t *j = sim_config_to_json(&cfg);
    json_t *v = json_object_get(json_object_get(json_object_get(j, "system"), "params"), key);
    ck_assert_msg(json_is_number(v), "system.params.%s", key);
    double x = json_number_value(v);
    json_decref(j);
    return x;
}

/* Run; returns requests.csv (free it) and the summary via *sum. */
static char *run_csv(const char *name, json_t **sum)
{
    char out[512];
    snprintf(out, sizeof out, "%s/%s", tests_tmpdir(), name);
    sim_run_opts_t o = {.config_src = name, .out_dir = out, .data_dir = "."};
    sim_run_result_t res;
    sim_err_t err;
    ck_assert_msg(sim_run(&cfg, &o, &res, &err) == 0, "%s", err.msg);
    if (sum)
        *sum = res.summary;
    else
        json_decref(res.summary);
    char p[600];
    snprintf(p, sizeof p, "%s/requests.csv", out);
    char *csv = tests_read_file(p, NULL);
    ck_assert_ptr_nonnull(csv);
    return csv;
}

/* The row of request id in csv (rows are in completion order). */
static int row_of(const char *csv, int id)
{
    for (int row = 1;; row++)
        if ((int)csv_field(csv, row, 0) == id)
            return row;
}

static const int two[][3] = {{0, 1000, 40}, {500, 8000, 3}};

/* Request 1 arrives while request 0 decodes: at the next iteration
 * boundary its prefill runs and request 0 waits the whole of it, exactly
 * the predicted prefill step (prefill + the engine's CPU work for one
 * sequence). Every step also pays the CPU work per sequence in it. */
START_TEST(test_prefill_stalls_decodes)
{
    coloc_config(tests_trace_of("stall.jsonl", two, 2), "vllm", 1);
    char *csv = run_csv("stall", NULL);
    model_cost_t *c = tests_a800_cost();
    double cpu = sys_param("cpu_per_seq_s");
    ck_assert_double_gt(cpu, 0);
    double t = (double)model_cost_prefill_ns(c, 1000, 0) / 1e9 + cpu;
    int64_t ctx0 = 1001;
    while (t < 0.5) { /* request 0 alone */
        t += (double)model_cost_decode_ns(c, 1, ctx0) / 1e9 + cpu;
        ctx0++;
    }
    double step = (double)model_cost_prefill_ns(c, 8000, 0) / 1e9 + cpu;
    double stall_gap = step + (double)model_cost_decode_ns(c, 2, ctx0 + 8001) / 1e9 + 2 * cpu;
    model_cost_free(c);
    int r0 = row_of(csv, 0), r1 = row_of(csv, 1);
    ck_assert_double_eq_tol(csv_field(csv, r1, 8), t + step - 0.5, 2e-6); /* ttft of request 1 */
    ck_assert_double_eq_tol(csv_field(csv, r0, 11), stall_gap, 2e-6);     /* tbt_max of request 0 */
    ck_assert_double_eq(csv_field(csv, r0, 26), 1);                      /* prefill_stalls */
    ck_assert_double_eq_tol(csv_field(csv, r0, 27), step, 2e-6);          /* prefill_stall_s */
    ck_assert_double_eq(csv_field(csv, r1, 26), 0);
    free(csv);
}
END_TEST

/* One 8,000-token prompt alone: chunked prefill costs the 16 passes of its
 * chunks, each a pass of up to 512 new tokens over the chunks before it
 * (the cost model's low utilization and attention over the prefix), each
 * paying its own fixed part as no decodes share its iterations, plus the
 * engine's CPU work of the extra steps; more than one unchunked pass. */
START_TEST(test_chunked_prefill_passes)
{
    static const int one[][3] = {{0, 8000, 1}};
    const char *tp = tests_trace_of("reread.jsonl", one, 1);
    double busy[2];
    for (int cp = 0; cp < 2; cp++) {
        coloc_config(tp, cp ? "vllm_cp" : "vllm", 1);
        json_t *sum;
        free(run_csv(cp ? "reread1" : "reread0", &sum));
        busy[cp] = json_real_value(json_object_get(json_object_get(sum, "prefill"), "busy_s"));
        json_decref(sum);
    }
    model_cost_t *c = tests_a800_cost();
    double passes = 0;
    int chunks = 0;
    for (int64_t done = 0; done < 8000; done += 512, chunks++)
        passes += (double)model_cost_prefill_ns(c, SIM_MIN(done + 512, 8000), done) / 1e9;
    ck_assert_int_eq(chunks, 16);
    double whole = (double)model_cost_prefill_ns(c, 8000, 0) / 1e9;
    ck_assert_double_gt(passes, 1.1 * whole);
    model_cost_free(c);
    double cpu = sys_param("cpu_per_seq_s");
    ck_assert_double_eq_tol(busy[1] - busy[0], passes - whole + (chunks - 1) * cpu, 1e-6 * chunks);
}
END_TEST

/* The CPU work per sequence per step is serialized with the GPU: a lone
 * request's token interval grows by it, a batch of 8 by 8 times it. */
START_TEST(test_cpu_overhead_per_sequence)
{
    static const int eight[][3] = {{0, 1000, 20}, {0, 1000, 20}, {0, 1000, 20}, {0, 1000, 20},
                                   {0, 1000, 20}, {0, 1000, 20}, {0, 1000, 20}, {0, 1000, 20}};
    const char *tp = tests_trace_of("cpu8.jsonl", eight, 8);
    double mean[2];
    for (int k = 0; k < 2; k++) {
        coloc_config(tp, "vllm", 1);
        set(k ? "system.params.cpu_per_seq_s=0.001" : "system.params.cpu_per_seq_s=0");
        char *csv = run_csv(k ? "cpu1" : "cpu0", NULL);
        mean[k] = csv_field(csv, row_of(csv, 1), 9); /* tbt_mean (0 prefilled alone first) */
        free(csv);
    }
    ck_assert_double_eq_tol(mean[1] - mean[0], 8 * 0.001, 1e-6);
}
END_TEST

/* system.params.max_seqs = 1 runs requests one at a time (vLLM's
 * max_num_seqs): the second waits for the first to finish. */
START_TEST(test_max_seqs_one_at_a_time)
{
    static const int pair[][3] = {{0, 4000, 30}, {0, 4000, 30}};
    coloc_config(tests_trace_of("seq1.jsonl", pair, 2), "vllm", 1);
    set("system.params.max_seqs=1");
    char *csv = run_csv("seq1", NULL);
    int r0 = row_of(csv, 0), r1 = row_of(csv, 1);
    double fin0 = csv_field(csv, r0, 13), ttft1 = csv_field(csv, r1, 8);
    ck_assert_double_ge(ttft1, fin0);
    ck_assert_double_eq(csv_field(csv, r0, 26), 0); /* nobody stalled it */
    free(csv);
}
END_TEST

/* A one-token answer ends with its prompt pass: it has no token intervals
 * (it never joined the running batch, whose iterations are not its). */
START_TEST(test_one_token_has_no_intervals)
{
    static const int reqs[][3] = {{0, 1000, 40}, {500, 2000, 1}};
    coloc_config(tests_trace_of("one.jsonl", reqs, 2), "vllm", 1);
    char *csv = run_csv("one", NULL);
    int r1 = row_of(csv, 1);
    ck_assert_double_eq(csv_field(csv, r1, 9), 0);  /* tbt_mean */
    ck_assert_double_eq(csv_field(csv, r1, 11), 0); /* tbt_max */
    ck_assert_double_gt(csv_field(csv, row_of(csv, 0), 11), 0);
    free(csv);
}
END_TEST

/* With a 512-token budget the long prompt is computed in chunks between
 * decode tokens: request 0 never waits long. */
START_TEST(test_chunked_prefill_bounds_iterations)
{
    coloc_config(tests_trace_of("chunk.jsonl", two, 2), "vllm_cp", 1);
    char *csv = run_csv("chunk", NULL);
    model_cost_t *c = tests_a800_cost();
    /* The worst iteration: two decodes at the largest context plus the
     * costliest chunk (the first, as if it paid the pass's fixed part, or
     * the last, which attends to everything before it and shares the pass
     * with the decodes). */
    double first = (double)model_cost_prefill_ns(c, 511, 0);
    double last = (double)(model_cost_prefill_ns(c, 8000, 8000 - 511) - model_cost_prefill_fixed_ns(c));
    double bound = ((double)model_cost_decode_ns(c, 2, 1050 + 8001) + fmax(first, last)) / 1e9 +
                   3 * sys_param("cpu_per_seq_s"); /* two decodes and the chunk */
    double whole = (double)model_cost_prefill_ns(c, 8000, 0) / 1e9;
    model_cost_free(c);
    double mx = csv_field(csv, row_of(csv, 0), 11);
    ck_assert_double_le(mx, bound + 1e-6);
    ck_assert_double_lt(mx, whole / 3);
    free(csv);
}
END_TEST

/* VRAM for 21,972 tokens: two 10k-token prompts fit, but their outputs do
 * not; the later one is preempted (its KV freed) and recomputed, prompt
 * and tokens so far, which stalls it for a whole prefill. Both complete. */
START_TEST(test_preemption_recomputes)
{
    static const int big[][3] = {{0, 10000, 2000}, {100, 10000, 2000}};
    coloc_config(tests_trace_of("preempt.jsonl", big, 2), "vllm", 1);
    cfg.cluster.vram_reserve_frac = 0.77;
    json_t *sum;
    char *csv = run_csv("preempt", &sum);
    json_t *req = json_object_get(sum, "requests");
    ck_assert_int_eq(json_integer_value(json_object_get(req, "completed")), 2);
    ck_assert_int_ge(json_integer_value(json_object_get(json_object_get(sum, "decode"), "preemptions")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(sum, "sim"), "decode_kv_capacity_tokens")), 21972);
    json_decref(sum);
    int r0 = row_of(csv, 0), r1 = row_of(csv, 1);
    ck_assert_double_eq(csv_field(csv, r0, 25), 0);
    ck_assert_double_ge(csv_field(csv, r1, 25), 1);
    ck_assert_double_lt(csv_field(csv, r0, 13), csv_field(csv, r1, 13)); /* 0 finishes first */
    model_cost_t *c = tests_a800_cost();
    double recompute = (double)model_cost_prefill_ns(c, 10000, 0) / 1e9;
    model_cost_free(c);
    ck_assert_double_gt(csv_field(csv, r1, 11), recompute); /* its longest wait */
    free(csv);
}
END_TEST

/* vllm_pc: the same prompt again hits the HBM prefix cache (all but the
 * last token) and its prefill is that much shorter; plain vllm does not. */
START_TEST(test_prefix_cache_hits)
{
    static const int again[][3] = {{0, 8000, 4}, {60000, 8000, 4}};
    const char *tp = tests_trace_of("again.jsonl", again, 2);
    model_cost_t *c = tests_a800_cost();
    double full = (double)model_cost_prefill_ns(c, 8000, 0) / 1e9;
    double hit = (double)model_cost_prefill_ns(c, 8000, 7999) / 1e9;
    model_cost_free(c);
    for (int pc = 0; pc < 2; pc++) {
        coloc_config(tp, pc ? "vllm_pc" : "vllm", 1);
        char *csv = run_csv(pc ? "pc1" : "pc0", NULL);
        int r1 = row_of(csv, 1);
        ck_assert_double_eq(csv_field(csv, r1, 7), pc ? 7999 : 0);
        ck_assert_double_eq_tol(csv_field(csv, r1, 8), (pc ? hit : full) + sys_param("cpu_per_seq_s"),
                                2e-6);
        free(csv);
    }
}
END_TEST

/* Routing: least_loaded spreads simultaneous requests, round_robin in turn. */
START_TEST(test_routing)
{
    static const int four[][3] = {{0, 2000, 50}, {0, 2000, 50}, {0, 2000, 50}, {0, 2000, 50}};
    coloc_config(tests_trace_of("route.jsonl", four, 4), "vllm", 2);
    char *csv = run_csv("route", NULL);
    int on1 = 0;
    for (int id = 0; id < 4; id++)
        on1 += csv_field(csv, row_of(csv, id), 5) == 1;
    ck_assert_int_eq(on1, 2);
    free(csv);
}
END_TEST

static double gen_mean(const char *kind, int output, double *reuse)
{
    trace_gen_params_t g;
    memset(&g, 0, sizeof g);
    snprintf(g.kind, sizeof g.kind, "%s", kind);
    g.requests = 20000;
    g.rate_rps = 2;
    g.prompt_tok = 65536;
    trace_open_args_t a = {.gen = &g, .seed = 9, .speed = 1};
    sim_err_t err;
    trace_t *t = trace_open(&a, &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    trace_req_t r;
    double sum = 0, n = 0, total_blocks = 0, seen_blocks = 0;
    uint64_t max_id = 0;
    int first = 1;
    while (trace_next(t, &r, &err) == TRACE_OK) {
        sum += (double)(output ? r.output_tok : r.input_tok);
        n++;
        for (uint32_t b = 0; b < r.n_blocks; b++) {
            total_blocks++;
            if (!first && r.blocks[b] <= max_id)
                seen_blocks++; /* ids are handed out in order: a lower one was seen */
        }
        for (uint32_t b = 0; b < r.n_blocks; b++)
            max_id = r.blocks[b] > max_id ? r.blocks[b] : max_id;
        first = 0;
    }
    trace_close(t);
    if (reuse)
        *reuse = seen_blocks / total_blocks;
    return sum / n;
}

START_TEST(test_dataset_generators)
{
    double reuse;
    ck_assert_double_eq_tol(gen_mean("arxiv", 0, &reuse), 8088, 8088 * 0.02);
    ck_assert_double_lt(reuse, 0.001);
    ck_assert_double_eq_tol(gen_mean("arxiv", 1, NULL), 229, 229 * 0.02);
    ck_assert_double_eq_tol(gen_mean("leval", 0, &reuse), 19019, 19019 * 0.02);
    ck_assert_double_gt(reuse, 0.8);
    ck_assert_double_eq_tol(gen_mean("leval", 1, NULL), 72, 72 * 0.02);
    ck_assert_double_eq(gen_mean("longctx", 0, &reuse), 65536);
    ck_assert_double_eq_tol(reuse, 0.5, 0.01);
    ck_assert_double_eq(gen_mean("longctx", 1, NULL), 512);
}
END_TEST

Suite *test_colocated_suite(void)
{
    Suite *s = suite_create("colocated");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_prefill_stalls_decodes);
    tcase_add_test(tc, test_chunked_prefill_passes);
    tcase_add_test(tc, test_cpu_overhead_per_sequence);
    tcase_add_test(tc, test_max_seqs_one_at_a_time);
    tcase_add_test(tc, test_one_token_has_no_intervals);
    tcase_add_test(tc, test_chunked_prefill_bounds_iterations);
    tcase_add_test(tc, test_preemption_recomputes);
    tcase_add_test(tc, test_prefix_cache_hits);
    tcase_add_test(tc, test_routing);
    tcase_add_test(tc, test_dataset_generators);
    suite_add_tcase(s, tc);
    return s;
}
