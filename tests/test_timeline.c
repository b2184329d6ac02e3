/* tests/test_timeline.c: the timeline writer (sim/exp/timeline.c) driven
 * through its observer: windows parse or fail with the option named; a
 * request's phases are contiguous from its arrival to its end with a
 * boundary at its first token, in exact microseconds; overlapping flows of
 * one NIC go on different lanes; requests outside the window get no
 * track; a .zst name gives the same JSON compressed. */
#include "tests/tests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "sim/exp/timeline.h"

START_TEST(test_window_parse)
{
    sim_timeline_window_t w;
    sim_err_t err;
    ck_assert_int_eq(sim_timeline_window_parse("requests:0-300", &w, &err), 0);
    ck_assert(!w.by_time && w.lo == 0 && w.hi == 300);
    ck_assert_int_eq(sim_timeline_window_parse("time:1.5-600s", &w, &err), 0);
    ck_assert(w.by_time && w.lo == 1500000000 && w.hi == INT64_C(600000000000));
    ck_assert_int_eq(sim_timeline_window_parse("time:0-2", &w, &err), 0);
    ck_assert(w.by_time && w.hi == 2000000000);
    ck_assert_int_eq(sim_timeline_window_parse("all", &w, &err), 0);
    ck_assert(w.hi == INT64_MAX);
    const char *bad[] = {"requests:5-2", "requests:3-3", "requests:-1-4", "requests:0-",
                         "time:1-xs", "time:-5s", "frames:0-9", "", "requests:1.5-3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(sim_timeline_window_parse(bad[i], &w, &err) == -1, "%s", bad[i]);
        ck_assert_msg(strstr(err.msg, "--timeline-window") != NULL, "%s", err.msg);
    }
}
END_TEST

/* The events of a committed timeline (caller json_decref). */
static json_t *read_events(const char *path)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    ck_assert_msg(doc != NULL, "%s:%d: %s", path, je.line, je.text);
    ck_assert_str_eq(json_string_value(json_object_get(doc, "displayTimeUnit")), "ns");
    json_t *evs = json_incref(json_object_get(doc, "traceEvents"));
    json_decref(doc);
    ck_assert(json_is_array(evs));
    return evs;
}

static int64_t ns_of(const json_t *e, const char *key)
{
    return (int64_t)llround(json_number_value(json_object_get(e, key)) * 1000);
}

/* Drive an observer with two requests (one in the window) and three flows. */
static void drive(const sim_obs_t *o)
{
    sim_req_t r = {.id = 0, .arrival_ns = 1000, .status = SIM_REQ_COMPLETED, .output_tok = 5,
                   .fetch_src = 2, .fetch_ns = 700, .prefill_start_ns = 4000,
                   .prefill_end_ns = 9001, .kv_ready_ns = 9500, .decode_load_ns = 250,
                   .decode_join_ns = 12345, .first_token_ns = 12345, .finish_ns = 99999};
    sim_obs_arrive(o, &r, r.arrival_ns);
    sim_obs_admit(o, &r, r.arrival_ns + 500, 1);
    sim_obs_flow(o, 1, 2, 0, 1e6, 2000, 8000);
    sim_obs_flow(o, 1, 3, 1, 2e6, 3000, 9000); /* overlaps the first: lane 1 */
    sim_obs_flow(o, 1, 3, 0, 3e6, 8500, 9500); /* the first's lane is free again */
    sim_obs_span(o, SIM_OBS_PREFILL, 3, "prefill", 4000, 9001, 100, 0);
    sim_obs_request_done(o, &r, 500);
    sim_req_t late = r;
    late.id = 1;
    sim_obs_request_done(o, &late, 500);
}

START_TEST(test_phases_tile)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tl_tile.json", tests_tmpdir());
    sim_timeline_window_t w;
    sim_err_t err;
    ck_assert_int_eq(sim_timeline_window_parse("requests:0-1", &w, &err), 0);
    sim_timeline_t *t = sim_timeline_open(path, &w, 30, 0.1, &err);
    ck_assert(t != NULL);
    drive(sim_timeline_obs(t));
    ck_assert_int_eq(sim_timeline_commit(t, &err), 0);
    json_t *evs = read_events(path);
    const char *want[] = {"schedule", "fetch", "queue", "prefill", "transfer", "load",
                          "decode slot wait", "decode"};
    const int64_t bounds[] = {1000, 1500, 2200, 4000, 9001, 9500, 9750, 12345, 99999};
    size_t k = 0, i;
    int lanes[3] = {-1, -1, -1}, n_flow = 0;
    json_t *e;
    json_array_foreach(evs, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        int pid = (int)json_integer_value(json_object_get(e, "pid"));
        if (strcmp(ph, "X") != 0)
            continue;
        if (pid == 4)
            lanes[n_flow++] = (int)json_integer_value(json_object_get(e, "tid")) - 1024;
        if (pid != 5)
            continue;
        ck_assert_int_eq(json_integer_value(json_object_get(e, "tid")), 0); /* id 1: no track */
        ck_assert_uint_lt(k, 8);
        ck_assert_str_eq(json_string_value(json_object_get(e, "name")), want[k]);
        ck_assert_int_eq(ns_of(e, "ts"), bounds[k]);
        ck_assert_int_eq(ns_of(e, "ts") + ns_of(e, "dur"), bounds[k + 1]);
        json_t *a = json_object_get(e, "args");
        ck_assert_str_eq(json_string_value(json_object_get(a, "slo")), "met");
        k++;
    }
    ck_assert_uint_eq(k, 8);
    ck_assert_int_eq(n_flow, 3);
    ck_assert(lanes[0] == 0 && lanes[1] == 1 && lanes[2] == 0);
    json_decref(evs);
    unlink(path);
}
END_TEST

START_TEST(test_zst_same_json)
{
    char plain[4096], zst[4200], cmd[8600];
    snprintf(plain, sizeof plain, "%s/tl_plain.json", tests_tmpdir());
    snprintf(zst, sizeof zst, "%s.zst", plain);
    sim_timeline_window_t w;
    sim_err_t err;
    ck_assert_int_eq(sim_timeline_window_parse("all", &w, &err), 0);
    for (int z = 0; z < 2; z++) {
        sim_timeline_t *t = sim_timeline_open(z ? zst : plain, &w, 30, 0.1, &err);
        ck_assert(t != NULL);
        drive(sim_timeline_obs(t));
        ck_assert_int_eq(sim_timeline_commit(t, &err), 0);
    }
    snprintf(cmd, sizeof cmd, "zstd -qdc %s | cmp -s - %s", zst, plain);
    if (system("command -v zstd >/dev/null 2>&1") == 0)
        ck_assert_int_eq(system(cmd), 0);
    unlink(plain);
    unlink(zst);
}
END_TEST

START_TEST(test_open_fails)
{
    sim_timeline_window_t w = {.lo = 0, .hi = 10};
    sim_err_t err;
    ck_assert(sim_timeline_open("/nonexistent-dir/t.json", &w, 30, 0.1, &err) == NULL);
    ck_assert_msg(strstr(err.msg, "/nonexistent-dir/t.json") != NULL, "%s", err.msg);
    sim_timeline_abort(NULL);
}
END_TEST

Suite *test_timeline_suite(void)
{
    Suite *s = suite_create("timeline");
    TCase *tc = tcase_create("timeline");
    tcase_add_test(tc, test_window_parse);
    tcase_add_test(tc, test_phases_tile);
    tcase_add_test(tc, test_zst_same_json);
    tcase_add_test(tc, test_open_fails);
    suite_add_tcase(s, tc);
    return s;
}
