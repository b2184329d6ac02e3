/* tests/test_check.c: the run-directory checker (sim/exp/check.c) on a run
 * made by hand: four requests (two completed, one rejected at arrival, one
 * after prefill) whose summary, time series and config were computed from
 * them on paper, so every invariant holds. Then each invariant fails on a
 * copy tampered in one place, named in its message with file and line;
 * unreadable inputs are refused with their file and line; known failures
 * are reported but count only when strict. */
#include "tests/tests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/exp/check.h"

static const char cfg_json[] =
    "{\n"
    "  \"seed\": 7,\n"
    "  \"system\": {\n"
    "    \"kind\": \"pd\",\n"
    "    \"params\": {}\n"
    "  },\n"
    "  \"cluster\": {\n"
    "    \"prefill\": 2,\n"
    "    \"decode\": 1\n"
    "  },\n"
    "  \"metrics\": {\n"
    "    \"interval_s\": 1.0\n"
    "  },\n"
    "  \"slo\": {\n"
    "    \"ttft_s\": 2.0,\n"
    "    \"tbt_s\": 0.1\n"
    "  }\n"
    "}\n";

/* Row by row, in the order they end (finish_s 0.5, 1.6, 1.8, 2.0):
 *   id 2  rejected at arrival
 *   id 0  completed: ttft 1.0, 10 intervals of mean 0.05, top10 0.08,
 *         fetched one block, kv_ready = 0 + 0.2 + 0.8, one prefill stall
 *   id 3  rejected after prefill: its 0.7 s prefill is wasted
 *   id 1  completed: fully cached (600 = input), nothing moved (transfer 0,
 *         kv_ready = 0.25 + 0.05 + 0.3), misses the TBT SLO, one preemption */
static const char req_csv[] =
    "id,arrival_s,input_tokens,output_tokens,status,prefill_instance,decode_instance,"
    "cached_tokens,ttft_s,tbt_mean_s,tbt_p90_s,tbt_max_s,tbt_top10_s,finish_s,queue_s,"
    "prefill_s,transfer_s,cached_dram_tokens,cached_ssd_tokens,load_s,fetched_tokens,fetch_s,"
    "kv_ready_s,decode_load_s,decode_start_s,preemptions,prefill_stalls,prefill_stall_s\n"
    "2,0.500000,1000,10,rejected_at_arrival,-1,-1,0,,,,,,0.500000,,,,,,,,,,,,0,0,0.000000\n"
    "0,0.000000,1500,11,completed,0,0,512,1.000000,0.050000,0.060000,0.080000,0.080000,"
    "1.600000,0.200000,0.600000,0.800000,512,0,0.004000,512,0.050000,1.000000,0.000000,"
    "1.000000,0,1,0.020000\n"
    "3,1.000000,2048,20,rejected_after_prefill,1,0,1024,,,,,,1.800000,0.100000,0.700000,"
    "0.700000,512,512,0.010000,0,0.000000,,,,0,0,0.000000\n"
    "1,0.250000,600,3,completed,1,0,600,0.500000,0.100000,0.120000,0.120000,0.120000,"
    "2.000000,0.050000,0.300000,0.000000,600,0,0.001000,0,0.000000,0.600000,0.000000,"
    "0.750000,1,0,0.000000\n";

/* ttft: mean (1.0 + 0.5) / 2, p50 rank 1, p90/p99 rank 2. tbt mean: (10 x
 * 0.05 + 2 x 0.1) / 12. Met: id 0 only. Span: arrivals 0 to 1. Hit rates
 * over the prefilled rows (ids 0, 1, 3): 2136, 1624 and 512 of 4148.
 * Decoded in batches: 10 + 2 tokens less 1 preemption = 11 x 1.0. Bytes:
 * the time series' 12 Gb of pd and 0.8 Gb of fetch. The pool: 4
 * evictions = 2 demotions + 2 drops; 11 inserts - 2 drops = 9 replicas of
 * 8 blocks (mean 1.125, the last row's), one block twice. */
static const char sum_json[] =
    "{\n"
    "  \"requests\": {\n"
    "    \"total\": 4,\n"
    "    \"completed\": 2,\n"
    "    \"rejected_at_arrival\": 1,\n"
    "    \"rejected_after_prefill\": 1\n"
    "  },\n"
    "  \"ttft_s\": {\n"
    "    \"mean\": 0.75,\n"
    "    \"p50\": 0.5,\n"
    "    \"p90\": 1.0,\n"
    "    \"p99\": 1.0\n"
    "  },\n"
    "  \"tbt_s\": {\n"
    "    \"mean\": 0.0583333333,\n"
    "    \"p90\": 0.08,\n"
    "    \"p99\": 0.12\n"
    "  },\n"
    "  \"tbt_top10_s\": {\n"
    "    \"mean\": 0.1,\n"
    "    \"p50\": 0.08,\n"
    "    \"p90\": 0.12,\n"
    "    \"p99\": 0.12\n"
    "  },\n"
    "  \"throughput_rps\": 2.0,\n"
    "  \"goodput_rps\": 1.0,\n"
    "  \"slo\": {\n"
    "    \"ttft_s\": 2.0,\n"
    "    \"tbt_s\": 0.1,\n"
    "    \"met\": 1,\n"
    "    \"attainment\": 0.5,\n"
    "    \"effective_request_capacity\": 0.25\n"
    "  },\n"
    "  \"trace\": {\n"
    "    \"span_s\": 1.0,\n"
    "    \"input_tokens\": 5148,\n"
    "    \"output_tokens_completed\": 14,\n"
    "    \"cached_tokens_completed\": 1112\n"
    "  },\n"
    "  \"prefill\": {\n"
    "    \"busy_s\": 3.0,\n"
    "    \"wasted_s\": 0.7,\n"
    "    \"mean_queue_s\": 0.125\n"
    "  },\n"
    "  \"decode\": {\n"
    "    \"iterations\": 11,\n"
    "    \"busy_s\": 1.5,\n"
    "    \"preemptions\": 1,\n"
    "    \"stalls_per_request\": 0.5,\n"
    "    \"stall_s_per_request\": 0.01,\n"
    "    \"stall_s_mean\": 0.02,\n"
    "    \"stalled_share\": 0.5,\n"
    "    \"slot_wait_s_mean\": 0.075,\n"
    "    \"slot_wait_s_max\": 0.15,\n"
    "    \"mean_batch\": 1.0\n"
    "  },\n"
    "  \"transfer\": {\n"
    "    \"transport\": \"rdma\",\n"
    "    \"latency_s\": 0.003,\n"
    "    \"efficiency\": 0.9,\n"
    "    \"pd\": {\n"
    "      \"bytes\": 1500000000,\n"
    "      \"busy_s\": 0.5,\n"
    "      \"flow_s\": 0.8,\n"
    "      \"flows\": 2\n"
    "    },\n"
    "    \"fetch\": {\n"
    "      \"bytes\": 100000000,\n"
    "      \"busy_s\": 0.05,\n"
    "      \"flow_s\": 0.05,\n"
    "      \"flows\": 1\n"
    "    },\n"
    "    \"stage\": {\n"
    "      \"bytes\": 0,\n"
    "      \"busy_s\": 0.0,\n"
    "      \"flow_s\": 0.0,\n"
    "      \"flows\": 0\n"
    "    },\n"
    "    \"replication\": {\n"
    "      \"bytes\": 16,\n"
    "      \"busy_s\": 0.001,\n"
    "      \"flow_s\": 0.002,\n"
    "      \"flows\": 1\n"
    "    },\n"
    "    \"h2d\": {\n"
    "      \"bytes\": 10,\n"
    "      \"busy_s\": 0.011\n"
    "    },\n"
    "    \"ssd\": {\n"
    "      \"bytes\": 5,\n"
    "      \"busy_s\": 0.012\n"
    "    }\n"
    "  },\n"
    "  \"cache\": {\n"
    "    \"policy\": \"lru\",\n"
    "    \"dram_blocks_per_node\": 100,\n"
    "    \"ssd_blocks_per_node\": 200,\n"
    "    \"inserts\": 11,\n"
    "    \"evictions\": 4,\n"
    "    \"demotions\": 2,\n"
    "    \"promotions\": 1,\n"
    "    \"drops\": 2,\n"
    "    \"replications\": 6,\n"
    "    \"replicas\": {\n"
    "      \"blocks\": 8,\n"
    "      \"mean\": 1.125,\n"
    "      \"max\": 2\n"
    "    },\n"
    "    \"hit_rate_tokens\": 0.514946962,\n"
    "    \"hit_rate_dram\": 0.391513983,\n"
    "    \"hit_rate_ssd\": 0.12343298,\n"
    "    \"cached_tokens\": 2136\n"
    "  },\n"
    "  \"sim\": {\n"
    "    \"events\": 100,\n"
    "    \"seed\": 7,\n"
    "    \"version\": \"test\"\n"
    "  }\n"
    "}\n";

/* Two rows, at 1 and 2 x metrics.interval_s; loads of 2P + 1D; the last
 * is the pool's end state. */
static const char ts_csv[] =
    "time_s,pd_gbps,fetch_gbps,stage_gbps,repl_gbps,nic_util_mean,nic_util_max,flows,in_flight,"
    "prefill_wait_s_max,replicas_mean,blocks_multi,hot_replications,prefill_load_mean,"
    "decode_load_mean,p0_load,p1_load,d0_load\n"
    "1.000,8.0000,0.8000,0.0000,0.0000,0.01000,0.02000,1,3,0.4000,1.00000,1,1,0.1500,0.3000,"
    "0.1000,0.2000,0.3000\n"
    "2.000,4.0000,0.0000,0.0000,0.0000,0.00500,0.01000,0,0,0.2000,1.12500,1,1,0.0500,0.2000,"
    "0.0000,0.1000,0.2000\n";

/* One edit of the hand-made run: in file, the only occurrence of old
 * becomes new_text; what names the invariant (or the message) expected. */
typedef struct edit {
    const char *file, *old, *new_text, *what;
} edit_t;

/* text with the only occurrence of old replaced (malloc'd). */
static char *replaced(const char *text, const char *old, const char *new_text)
{
    const char *at = strstr(text, old);
    ck_assert_msg(at != NULL, "'%s' not in the hand-made run", old);
    ck_assert_msg(strstr(at + 1, old) == NULL, "'%s' is not unique", old);
    size_t n = strlen(text) - strlen(old) + strlen(new_text);
    char *s = malloc(n + 1);
    ck_assert_ptr_nonnull(s);
    size_t pre = (size_t)(at - text);
    memcpy(s, text, pre);
    strcpy(s + pre, new_text);
    strcat(s, at + strlen(old));
    return s;
}

/* The hand-made run in a fresh directory name, with e applied (may be
 * NULL) and the file skip (may be NULL) left out. Returns its path
 * (static storage, rotates over 4). */
static const char *make_run(const char *name, const edit_t *e, const char *skip)
{
    static char paths[4][512];
    static int next;
    char *dir = paths[next++ % 4];
    snprintf(dir, 512, "%s/%s", tests_tmpdir(), name);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    static const char *const names[] = {"config.json", "summary.json", "requests.csv",
                                        "timeseries.csv"};
    const char *texts[] = {cfg_json, sum_json, req_csv, ts_csv};
    for (int i = 0; i < 4; i++) {
        if (skip && strcmp(skip, names[i]) == 0)
            continue;
        char *t = e && strcmp(e->file, names[i]) == 0 ? replaced(texts[i], e->old, e->new_text)
                                                      : strdup(texts[i]);
        tests_write_file(dir, names[i], t, strlen(t));
        free(t);
    }
    return dir;
}

/* sim_check_dir on dir; what it printed in *text (caller frees). */
static int64_t check(const char *dir, int strict, sim_check_result_t *res, char **text,
                     sim_err_t *err)
{
    FILE *out = tmpfile();
    ck_assert_ptr_nonnull(out);
    sim_check_opts_t o = {.out = out, .strict = strict};
    int64_t n = sim_check_dir(dir, &o, res, err);
    long len = ftell(out);
    *text = calloc((size_t)len + 1, 1);
    rewind(out);
    ck_assert(fread(*text, 1, (size_t)len, out) == (size_t)len);
    fclose(out);
    return n;
}

START_TEST(test_hand_made_run_holds)
{
    const char *dir = make_run("base", NULL, NULL);
    char *text;
    sim_err_t err;
    sim_check_result_t res;
    int64_t n = check(dir, 1, &res, &text, &err);
    ck_assert_msg(n == 0, "%s", n < 0 ? err.msg : text);
    ck_assert_ptr_nonnull(strstr(text, "ok (4 requests, 2 timeseries rows"));
    ck_assert_int_eq(res.requests, 4);
    ck_assert_int_eq(res.ts_rows, 2);
    ck_assert_int_eq(res.known, 0);
    free(text);
}
END_TEST

/* Each invariant broken in one place. */
static const edit_t breaks[] = {
    {"requests.csv", "\n3,1.000000", "\n0,1.000000", "[ids]"},
    {"requests.csv", "\n1,0.250000,600,3,completed,1,0,600,0.500000,0.100000,0.120000,0.120000,"
     "0.120000,2.000000,0.050000,0.300000,0.000000,600,0,0.001000,0,0.000000,0.600000,0.000000,"
     "0.750000,1,0,0.000000", "", "no row of id 1"},
    {"summary.json", "\"completed\": 2,", "\"completed\": 3,", "[counts]"},
    {"summary.json", "\"total\": 4,", "\"total\": 5,", "[counts]"},
    {"summary.json", "\"total\": 4,", "\"total\": 1000000000000,",
     "no rows of ids 4..999999999999 (999999999996 ids"},
    {"requests.csv", "\n3,1.000000", "\n7,1.000000",
     "id 7 (rejected_after_prefill): id outside 0..3"},
    {"requests.csv", "\n3,1.000000", "\n0,1.000000", "requests.csv:4: id 0: a second row of this "
     "id (the first is line 3)"},
    {"requests.csv", "-1,-1,0,,,,,,0.500000", "-1,-1,0,0.100000,,,,,0.500000", "[fields]"},
    {"requests.csv", "512,1.000000,0.050000", "512,,0.050000", "[fields]"},
    {"requests.csv", "1.600000", "1.900000", "[end_order]"},
    {"requests.csv", "512,512,0.010000", "512,512,-0.010000", "[nonneg]"},
    {"requests.csv", ",,,,,0.500000,", ",,,,,0.400000,", "[finish]"},
    {"requests.csv", "600,0.500000,", "600,1.900000,", "[first_token]"},
    {"requests.csv", "1.600000,0.200000", "1.600000,0.500000", "[after_prefill]"},
    {"requests.csv", "0.050000,0.060000", "0.050000,0.090000", "[tbt_order]"},
    {"requests.csv", "0.050000,0.060000,0.080000,0.080000", "0.090000,0.060000,0.095000,0.080000",
     "[tbt_order]"},
    {"requests.csv", "20,rejected_after_prefill,1,0,1024", "20,rejected_after_prefill,1,0,1000",
     "[cached]"},
    {"requests.csv", "3,completed,1,0,600", "3,completed,1,0,700", "[cached]"},
    {"requests.csv", "512,512,0.010000", "512,600,0.010000", "[tiers]"},
    {"requests.csv", "0.004000,512,", "0.004000,2000,", "[fetched]"},
    {"requests.csv", "0.050000,1.000000,0.000000", "0.050000,1.100000,0.000000", "[kv_ready]"},
    {"requests.csv", "0.600000,0.000000,0.750000", "0.600000,0.000000,0.500000", "[kv_ready]"},
    {"requests.csv", "1.000000,0.000000,1.000000", "1.000000,0.010000,1.000000", "[kv_ready]"},
    {"requests.csv", "0.600000,0.000000,0.750000", "0.600000,0.000000,0.760000", "[kv_ready]"},
    {"summary.json", "\"mean\": 0.75,", "\"mean\": 0.7501,", "[ttft]"},
    {"summary.json", "\"p90\": 1.0,", "\"p90\": 1.002,", "summary.json:11: $.ttft_s.p90"},
    {"summary.json", "\"mean\": 0.1,", "\"mean\": 0.1001,", "[tbt_top10]"},
    {"summary.json", "\"p50\": 0.08,", "\"p50\": 0.12,", "[tbt_top10]"},
    {"summary.json", "\"mean\": 0.0583333333,", "\"mean\": 0.07,", "[tbt]"},
    {"summary.json", "\"p99\": 0.12\n  },\n  \"tbt_top10_s\"",
     "\"p99\": 0.13\n  },\n  \"tbt_top10_s\"", "[tbt]"},
    {"summary.json", "\"met\": 1,", "\"met\": 2,", "[slo]"},
    {"config.json", "\"tbt_s\": 0.1\n", "\"tbt_s\": 0.15\n", "[slo]"},
    {"summary.json", "\"attainment\": 0.5,", "\"attainment\": 0.4,", "[slo]"},
    {"summary.json", "\"span_s\": 1.0,", "\"span_s\": 1.1,", "[rates]"},
    {"summary.json", "\"throughput_rps\": 2.0,", "\"throughput_rps\": 2.1,", "[rates]"},
    {"summary.json", "\"goodput_rps\": 1.0,", "\"goodput_rps\": 0.9,", "[rates]"},
    {"summary.json", "\"input_tokens\": 5148,", "\"input_tokens\": 5149,", "[tokens]"},
    {"summary.json", "\"cached_tokens_completed\": 1112", "\"cached_tokens_completed\": 1111",
     "[tokens]"},
    {"summary.json", "\"wasted_s\": 0.7,", "\"wasted_s\": 0.71,", "[prefill]"},
    {"summary.json", "\"mean_queue_s\": 0.125", "\"mean_queue_s\": 0.126", "[prefill]"},
    {"summary.json", "\"preemptions\": 1,", "\"preemptions\": 0,", "[decode]"},
    {"summary.json", "\"stalled_share\": 0.5,", "\"stalled_share\": 0.6,", "[decode]"},
    {"summary.json", "\"slot_wait_s_mean\": 0.075,", "\"slot_wait_s_mean\": 0.08,", "[decode]"},
    {"summary.json", "\"slot_wait_s_max\": 0.15,", "\"slot_wait_s_max\": 0.1,", "[decode]"},
    {"summary.json", "\"stall_s_mean\": 0.02,", "\"stall_s_mean\": 0.03,", "[decode]"},
    {"summary.json", "\"busy_s\": 0.5,", "\"busy_s\": 0.9,", "[transfer]"},
    {"summary.json", "\"bytes\": 0,", "\"bytes\": 10,", "[transfer]"},
    {"summary.json", "\"bytes\": 100000000,", "\"bytes\": 0,", "[transfer]"},
    {"summary.json", "\"bytes\": 5,", "\"bytes\": -5,", "[transfer]"},
    {"summary.json", "\"hit_rate_tokens\": 0.514946962", "\"hit_rate_tokens\": 0.52", "[cache]"},
    {"summary.json", "\"cached_tokens\": 2136\n", "\"cached_tokens\": 2137\n", "[cache]"},
    {"summary.json", "\"mean\": 1.125,", "\"mean\": 0.9,", "[cache]"},
    {"summary.json", "\"demotions\": 2,", "\"demotions\": 5,", "[cache]"},
    {"summary.json", "\"seed\": 7,", "\"seed\": 8,", "[sim]"},
    {"config.json", "\"decode\": 1", "\"decode\": 2", "[ts_columns]"},
    {"config.json", "\"interval_s\": 1.0", "\"interval_s\": 0", "[ts_columns]"},
    {"timeseries.csv", "\n2.000,", "\n1.000,", "[ts_time]"},
    {"timeseries.csv", "\n1.000,", "\n0.500,", "[ts_time]"},
    {"timeseries.csv", "0.1000,0.2000,0.3000\n", "0.1000,0.2000,-0.3000\n", "[ts_nonneg]"},
    {"timeseries.csv", "0.02000,1,3", "1.20000,1,3", "[ts_nic]"},
    {"timeseries.csv", "1,3,0.4000,", "1,3,0.1000,", "[ts_loads]"},
    {"timeseries.csv", "0.00500,0.01000", "0.02000,0.01000", "[ts_nic]"},
    {"timeseries.csv", "1.12500,1,1,", "0.50000,1,1,", "[ts_pool]"},
    {"timeseries.csv", "1.12500,1,1,", "1.12500,1,0,", "[ts_pool]"},
    {"timeseries.csv", "0.1500,0.3000", "0.2500,0.3000", "[ts_loads]"},
    {"requests.csv", "20,rejected_after_prefill,1,0,1024", "20,rejected_after_prefill,2,0,1024",
     "requests.csv:4: id 3 (rejected_after_prefill): prefill_instance 2 outside [-1, 2)"},
    {"requests.csv", "3,completed,1,0,600", "3,completed,1,1,600", "[instances]"},
    {"requests.csv", "20,rejected_after_prefill,1,0,1024", "20,rejected_after_prefill,-1,0,1024",
     "[instances]"},
    {"requests.csv", "0.004000,512,", "0.004000,1000,",
     "requests.csv:3: id 0 (completed): fetched_tokens 1000 > cached_tokens 512"},
    {"summary.json", "\"iterations\": 11,", "\"iterations\": 22,",
     "summary.json:46: $.decode.iterations = 22"},
    {"summary.json", "\"iterations\": 11,", "\"iterations\": 9,", "[iterations]"},
    {"summary.json", "\"busy_s\": 3.0,", "\"busy_s\": 6.0,", "$.prefill.busy_s = 6"},
    {"summary.json", "\"busy_s\": 1.5,", "\"busy_s\": 3.0,", "$.decode.busy_s = 3"},
    {"summary.json", "\"events\": 100,", "\"events\": 4,", "[events]"},
    {"summary.json", "\"evictions\": 4,", "\"evictions\": 8,", "$.cache.evictions = 8"},
    {"summary.json", "\"inserts\": 11,", "\"inserts\": 22,", "$.cache.inserts = 22"},
    {"summary.json", "\"max\": 2\n", "\"max\": 4\n", "[pool]"},
    {"timeseries.csv", "1.12500,1,1,", "1.25000,1,1,", "timeseries.csv:3: replicas_mean 1.25000"},
    {"timeseries.csv", "1.12500,1,1,", "1.12500,2,1,", "timeseries.csv:3: blocks_multi 2"},
    {"timeseries.csv", "1.12500,1,1,", "1.12500,1,2,", "timeseries.csv:3: hot_replications 2"},
    {"timeseries.csv", "\n2.000,4.0000,0.0000", "\n2.000,8.0000,0.0000",
     "timeseries.csv: pd_gbps x each row's interval adds up to 2000000000 bytes"},
    {"timeseries.csv", "\n1.000,8.0000,0.8000", "\n1.000,8.0000,1.6000", "[ts_bytes]"},
};

START_TEST(test_each_invariant_breaks)
{
    const edit_t *e = &breaks[_i];
    char name[32], *text;
    snprintf(name, sizeof name, "break%d", _i);
    const char *dir = make_run(name, e, NULL);
    sim_err_t err;
    int64_t n = check(dir, 0, NULL, &text, &err);
    ck_assert_msg(n > 0, "%s: '%s' -> '%s' passed (%s)", e->file, e->old, e->new_text,
                  n < 0 ? err.msg : text);
    ck_assert_msg(strstr(text, e->what) != NULL, "%s: '%s' -> '%s': no '%s' in:\n%s", e->file,
                  e->old, e->new_text, e->what, text);
    free(text);
}
END_TEST

/* Violations name the file and line: a row of requests.csv by its line
 * and id, a summary value by its line and JSON path. */
START_TEST(test_located)
{
    edit_t e = {"requests.csv", "600,0.500000,", "600,1.900000,", ""};
    const char *dir = make_run("located", &e, NULL);
    char *text;
    sim_err_t err;
    ck_assert_int_gt(check(dir, 0, NULL, &text, &err), 0);
    ck_assert_msg(strstr(text, "/located/requests.csv:5: id 1 (completed): finish_s 2.000000 < "
                               "arrival_s 0.250000 + ttft_s 1.900000") != NULL, "%s", text);
    ck_assert_msg(strstr(text, "/located/summary.json:9: $.ttft_s.mean = 0.75: recomputed 1.45") !=
                      NULL, "%s", text);
    free(text);
}
END_TEST

/* Inputs the checker cannot read: -1 with the file (and line). */
static const edit_t unreadable[] = {
    {"summary.json", "\"requests\": {", "\"requests\" {", "summary.json:2:"},
    {"summary.json", "  \"goodput_rps\": 1.0,\n", "", "summary.json: $.goodput_rps: missing"},
    {"summary.json", "\"span_s\": 1.0,", "\"span_s\": \"1\",",
     "summary.json:35: $.trace.span_s: expected a number"},
    {"summary.json", "\"max\": 2\n", "\"maxi\": 2\n", "$.cache.replicas.max: missing"},
    {"config.json", "    \"ttft_s\": 2.0,\n", "", "config.json: $.slo.ttft_s: missing"},
    {"requests.csv", "prefill_stall_s\n", "stall_s\n", "requests.csv:1: not the documented header"},
    {"requests.csv", "0,0,0.000000\n0,", "0,0.000000\n0,",
     "requests.csv:2: 27 fields, expected 28"},
    {"requests.csv", "1.600000", "1.6x", "requests.csv:3: finish_s '1.6x' is not a number"},
    {"requests.csv", "600,3,completed", "600.5,3,completed",
     "requests.csv:5: input_tokens '600.5' is not a whole number"},
    {"requests.csv", "rejected_after_prefill", "rejected", "requests.csv:4: status 'rejected'"},
    {"timeseries.csv", "decode_load_mean,", "decode_load,", "timeseries.csv:1: column 15"},
    {"timeseries.csv", "d0_load", "x0_load", "column 18 is 'x0_load', expected d0_load"},
    {"timeseries.csv", "0.1000,0.2000,0.3000\n", "0.1000,0.2000\n", "timeseries.csv:2: 17 fields"},
};

START_TEST(test_unreadable)
{
    const edit_t *e = &unreadable[_i];
    char name[32], *text;
    snprintf(name, sizeof name, "unreadable%d", _i);
    sim_err_t err;
    int64_t n = check(make_run(name, e, NULL), 0, NULL, &text, &err);
    ck_assert_msg(n == -1, "%s: '%s' -> '%s' read: %s", e->file, e->old, e->new_text, text);
    ck_assert_msg(strstr(err.msg, e->what) != NULL, "expected '%s' in: %s", e->what, err.msg);
    free(text);
}
END_TEST

START_TEST(test_missing_file)
{
    static const char *const files[] = {"config.json", "summary.json", "requests.csv",
                                        "timeseries.csv"};
    for (int i = 0; i < 4; i++) {
        char name[32], *text, want[64];
        snprintf(name, sizeof name, "missing%d", i);
        sim_err_t err;
        ck_assert_int_eq(check(make_run(name, NULL, files[i]), 0, NULL, &text, &err), -1);
        snprintf(want, sizeof want, "%s/%s: ", name, files[i]);
        ck_assert_msg(strstr(err.msg, want) != NULL, "%s", err.msg);
        free(text);
    }
}
END_TEST

/* A run-wide TBT mean below the per-request intervals' is a violation,
 * preemptions or not (the simulator adds the interval of the token after
 * a recompute, and an inlined prefill's stall, to the run-wide TBT). */
START_TEST(test_tbt_mean_low)
{
    edit_t low = {"summary.json", "\"mean\": 0.0583333333,", "\"mean\": 0.05,", ""};
    char *text;
    sim_err_t err;
    sim_check_result_t res;
    const char *dir = make_run("tbt_low", &low, NULL);
    ck_assert_int_gt(check(dir, 0, &res, &text, &err), 0);
    ck_assert_int_eq(res.known, 0);
    ck_assert_msg(strstr(text, "$.tbt_s.mean = 0.05: recomputed 0.0583333333"), "%s", text);
    free(text);
}
END_TEST

/* The hand-made summary with transfer.pd.bytes and transfer.fetch.bytes
 * set to what another time series moves (malloc'd). */
static char *sum_with_bytes(const char *pd, const char *fetch)
{
    char *a = replaced(sum_json, "\"bytes\": 1500000000,", pd);
    char *b = replaced(a, "\"bytes\": 100000000,", fetch);
    free(a);
    return b;
}

/* timeseries.csv writes time_s with 3 decimals: below 1 ms intervals
 * repeat times, a known failure. At 1 ms and above they must increase. */
START_TEST(test_known_ts_time)
{
    static const char *const rows[] = {"0.000,", "0.001,", "0.001,"};
    char ts[4096], *text;
    /* Each row as the last (the pool's end state): 4 Gb/s of pd for 1 ms. */
    const char *row = strchr(strchr(ts_csv, '\n') + 1, '\n') + 1, *rest = strchr(row, ',') + 1;
    size_t hdr = (size_t)(strchr(ts_csv, '\n') + 1 - ts_csv), k = hdr;
    char *sum = sum_with_bytes("\"bytes\": 500000,", "\"bytes\": 1,");
    memcpy(ts, ts_csv, hdr);
    size_t rest_len = (size_t)(strchr(rest, '\n') - rest) + 1;
    for (int i = 0; i < 3; i++) {
        k += (size_t)snprintf(ts + k, sizeof ts - k, "%s", rows[i]);
        memcpy(ts + k, rest, rest_len);
        k += rest_len;
    }
    edit_t e = {"config.json", "\"interval_s\": 1.0", "\"interval_s\": 0.0004", ""};
    const char *dir = make_run("known_ts", &e, NULL);
    tests_write_file(dir, "timeseries.csv", ts, k);
    tests_write_file(dir, "summary.json", sum, strlen(sum));
    sim_err_t err;
    sim_check_result_t res;
    ck_assert_msg(check(dir, 0, &res, &text, &err) == 0, "%s", text);
    ck_assert_int_eq(res.known, 1);
    ck_assert_ptr_nonnull(strstr(text, "timeseries.csv:4: known failure"));
    free(text);
    ck_assert_int_eq(check(dir, 1, &res, &text, &err), 1);
    free(text);
    edit_t ms = {"config.json", "\"interval_s\": 1.0", "\"interval_s\": 0.001", ""};
    dir = make_run("known_ts_ms", &ms, NULL);
    tests_write_file(dir, "timeseries.csv", ts, k);
    tests_write_file(dir, "summary.json", sum, strlen(sum));
    free(sum);
    ck_assert_int_gt(check(dir, 0, &res, &text, &err), 0);
    ck_assert_int_eq(res.known, 0);
    ck_assert_ptr_nonnull(strstr(text, "[ts_time]"));
    free(text);
}
END_TEST

/* The time series skips an idle span's rows but its first and last: a
 * gap of whole intervals holds between two idle rows equal but for
 * time_s. A gap after a busy row, between unequal rows or off the grid
 * breaks ts_time. */
START_TEST(test_ts_idle_span)
{
    static const char idle[] = "0.0000,0.0000,0.0000,0.0000,0.00000,0.00000,0,0,0.0000,1.12500,1,1,"
                               "0.0000,0.0000,0.0000,0.0000,0.0000\n";
    static const char busy[] = "4.0000,0.0000,0.0000,0.0000,0.00500,0.01000,1,1,0.2000,1.12500,1,1,"
                               "0.0500,0.2000,0.0000,0.1000,0.2000\n";
    const char *hdr_end = strchr(ts_csv, '\n') + 1, *row1_end = strchr(hdr_end, '\n') + 1;
    /* rows at 1 (busy), 2 (idle), 5 (idle), 5.5 (the last) */
    static const struct {
        const char *t2, *r2, *t3, *r3, *what;
    } cases[] = {
        {"2.000,", idle, "5.000,", idle, NULL},
        {"2.000,", busy, "5.000,", busy, "[ts_time]"},  /* not idle */
        {"2.000,", idle, "5.000,", busy, "[ts_time]"},  /* not equal */
        {"2.000,", idle, "5.400,", idle, "[ts_time]"},  /* off the grid */
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char ts[4096];
        size_t n = (size_t)(row1_end - ts_csv);
        memcpy(ts, ts_csv, n);
        n += (size_t)snprintf(ts + n, sizeof ts - n, "%s%s%s%s5.500,%s", cases[k].t2, cases[k].r2,
                              cases[k].t3, cases[k].r3, cases[k].r3);
        char name[32];
        snprintf(name, sizeof name, "idle_span%zu", k);
        const char *dir = make_run(name, NULL, NULL);
        tests_write_file(dir, "timeseries.csv", ts, n);
        /* The first row's 8 Gb/s of pd and 0.8 of fetch over 1 s. */
        char *sum = sum_with_bytes("\"bytes\": 1000000000,", "\"bytes\": 100000000,");
        tests_write_file(dir, "summary.json", sum, strlen(sum));
        free(sum);
        sim_err_t err;
        sim_check_result_t res;
        char *text;
        int64_t bad = check(dir, 1, &res, &text, &err);
        if (!cases[k].what)
            ck_assert_msg(bad == 0, "case %zu: %s", k, text);
        else
            ck_assert_msg(bad > 0 && strstr(text, "timeseries.csv:4:") && strstr(text, cases[k].what),
                          "case %zu: %s", k, text);
        free(text);
    }
}
END_TEST

/* One instant: every request arrived at time 0, so the span runs to the
 * last completion (2.0 s): throughput 2 / 2, goodput 1 / 2. */
START_TEST(test_one_instant_span)
{
    /* Every arrival at 0; id 1 then queues 0.3 s (kv_ready 0 + 0.3 + 0.3)
     * and its ttft is 0.75: ttft mean 0.875, p50 0.75, mean queue 0.25. */
    static const char *const rq[][2] = {
        {"2,0.500000,1000", "2,0.000000,1000"}, {"3,1.000000,2048", "3,0.000000,2048"},
        {"1,0.250000,600", "1,0.000000,600"},   {"600,0.500000,0.100000", "600,0.750000,0.100000"},
        {"2.000000,0.050000,", "2.000000,0.300000,"},
    };
    static const char *const sm[][2] = {
        {"\"span_s\": 1.0,", "\"span_s\": 2.0,"},
        {"\"throughput_rps\": 2.0,", "\"throughput_rps\": 1.0,"},
        {"\"goodput_rps\": 1.0,", "\"goodput_rps\": 0.5,"},
        {"\"mean\": 0.75,", "\"mean\": 0.875,"},
        {"\"p50\": 0.5,", "\"p50\": 0.75,"},
        {"\"mean_queue_s\": 0.125", "\"mean_queue_s\": 0.25"},
    };
    char *r = strdup(req_csv), *s = strdup(sum_json), *t;
    for (size_t i = 0; i < sizeof rq / sizeof *rq; i++, free(r), r = t)
        t = replaced(r, rq[i][0], rq[i][1]);
    for (size_t i = 0; i < sizeof sm / sizeof *sm; i++, free(s), s = t)
        t = replaced(s, sm[i][0], sm[i][1]);
    const char *dir = make_run("instant", NULL, NULL);
    tests_write_file(dir, "requests.csv", r, strlen(r));
    tests_write_file(dir, "summary.json", s, strlen(s));
    char *text;
    sim_err_t err;
    int64_t n = check(dir, 1, NULL, &text, &err);
    ck_assert_msg(n == 0, "%s", n < 0 ? err.msg : text);
    free(text);
    free(r);
    free(s);
}
END_TEST

/* Without the pool ($.cache absent, a colocated system: vllm_pc's own HBM cache keeps at
 * least the last token to compute) cached_tokens need not be whole blocks
 * or the whole input; with it, they must. */
START_TEST(test_cached_without_pool)
{
    const char *from = strstr(sum_json, "  \"cache\": {");
    const char *to = strstr(sum_json, "  \"sim\"");
    char *s = malloc(strlen(sum_json) + 1);
    ck_assert_ptr_nonnull(s);
    memcpy(s, sum_json, (size_t)(from - sum_json));
    strcpy(s + (from - sum_json), to);
    char *r0 = replaced(req_csv, "20,rejected_after_prefill,1,0,1024",
                        "20,rejected_after_prefill,1,0,1000");
    char *r = replaced(r0, "512,512,0.010000", "512,488,0.010000");
    free(r0);
    const char *dir = make_run("no_pool", NULL, NULL);
    char *cf = replaced(cfg_json, "\"kind\": \"pd\",\n    \"params\": {}",
                        "\"kind\": \"vllm_pc\",\n    \"params\": {\"instances\": 2}");
    tests_write_file(dir, "config.json", cf, strlen(cf));
    free(cf);
    /* A colocated run's loads: a p<i>_load and a d<i>_load per instance. */
    char *t0 = replaced(ts_csv, "p1_load,d0_load\n", "p1_load,d0_load,d1_load\n");
    char *t1 = replaced(t0, "0.1000,0.2000,0.3000\n", "0.1000,0.2000,0.3000,0.3000\n");
    char *ts = replaced(t1, "0.0000,0.1000,0.2000\n", "0.0000,0.1000,0.2000,0.2000\n");
    tests_write_file(dir, "timeseries.csv", ts, strlen(ts));
    free(t0);
    free(t1);
    free(ts);
    tests_write_file(dir, "summary.json", s, strlen(s));
    tests_write_file(dir, "requests.csv", r, strlen(r));
    char *text;
    sim_err_t err;
    int64_t n = check(dir, 1, NULL, &text, &err);
    ck_assert_msg(n == 0, "%s", n < 0 ? err.msg : text);
    free(text);
    free(s);
    free(r);
}
END_TEST

START_TEST(test_list)
{
    FILE *f = tmpfile();
    sim_check_list(f);
    long len = ftell(f);
    char *text = calloc((size_t)len + 1, 1);
    rewind(f);
    ck_assert(fread(text, 1, (size_t)len, f) == (size_t)len);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(text, "ids "));
    ck_assert_ptr_nonnull(strstr(text, "ts_loads "));
    free(text);
}
END_TEST

Suite *test_check_suite(void)
{
    Suite *s = suite_create("check");
    TCase *tc = tcase_create("check");
    tcase_add_test(tc, test_hand_made_run_holds);
    tcase_add_loop_test(tc, test_each_invariant_breaks, 0, (int)(sizeof breaks / sizeof *breaks));
    tcase_add_test(tc, test_located);
    tcase_add_loop_test(tc, test_unreadable, 0, (int)(sizeof unreadable / sizeof *unreadable));
    tcase_add_test(tc, test_missing_file);
    tcase_add_test(tc, test_tbt_mean_low);
    tcase_add_test(tc, test_known_ts_time);
    tcase_add_test(tc, test_ts_idle_span);
    tcase_add_test(tc, test_one_instant_span);
    tcase_add_test(tc, test_cached_without_pool);
    tcase_add_test(tc, test_list);
    suite_add_tcase(s, tc);
    return s;
}
