/* tests/test_api.c: the library API (sim/api/mooncake_sim.h) in C: the
 * version, located errors from JSON text and --set overrides, bad calls,
 * and a small run whose in-memory summary and rows are deterministic. */
#include "tests/tests.h"

#include <string.h>

#include "sim/api/mooncake_sim.h"

static const char small_cfg[] =
    "{\"cluster\": {\"prefill\": 1, \"decode\": 1},\n"
    " \"trace\": {\"generator\": {\"kind\": \"kimi\", \"requests\": 50}}}";

START_TEST(test_version)
{
    ck_assert_int_eq(mcs_version(), MCS_VERSION);
    ck_assert_ptr_nonnull(mcs_sim_version());
}
END_TEST

START_TEST(test_located_errors)
{
    char msg[MCS_MSG_LEN];
    mcs_config *c = mcs_config_new();
    ck_assert_int_eq(mcs_config_load_json(c, "{\"seed\": 1,\n \"x\" 2}", "t.json", msg, sizeof msg),
                     MCS_ERR_INPUT);
    ck_assert_msg(strncmp(msg, "t.json:2:", 9) == 0, "%s", msg);
    ck_assert_int_eq(mcs_config_load_json(c, "{\"cluster\": {\"prefil\": 2}}", NULL, msg, sizeof msg),
                     MCS_ERR_INPUT);
    ck_assert_msg(strncmp(msg, "config: $.cluster.prefil", 24) == 0, "%s", msg);
    ck_assert_int_eq(mcs_config_set(c, "cluster.prefill", msg, sizeof msg), MCS_ERR_INPUT);
    ck_assert_msg(strncmp(msg, "--set cluster.prefill", 21) == 0, "%s", msg);
    ck_assert_int_eq(mcs_config_set(c, "cluster.prefill=x", msg, sizeof msg), MCS_ERR_INPUT);
    ck_assert_msg(strstr(msg, "cluster.prefill=x") != NULL, "%s", msg);
    mcs_result *r = (mcs_result *)1;
    ck_assert_int_eq(mcs_run(NULL, NULL, NULL, 0, &r, msg, sizeof msg), MCS_ERR_ARG);
    ck_assert_ptr_null(r);
    ck_assert_int_eq(mcs_config_set(NULL, "seed=1", NULL, 0), MCS_ERR_ARG);
    mcs_config_free(c);
    mcs_config_free(NULL);
    mcs_result_free(NULL);
}
END_TEST

START_TEST(test_run_deterministic)
{
    char msg[MCS_MSG_LEN];
    mcs_config *c = mcs_config_new();
    ck_assert_int_eq(mcs_config_load_json(c, small_cfg, "small", msg, sizeof msg), MCS_OK);
    ck_assert_int_eq(mcs_config_set(c, "seed=7", msg, sizeof msg), MCS_OK);
    mcs_config *d = mcs_config_copy(c);
    mcs_result *a = NULL, *b = NULL;
    ck_assert_int_eq(mcs_run(c, NULL, ".", MCS_RUN_REQUESTS, &a, msg, sizeof msg), MCS_OK);
    ck_assert_int_eq(mcs_run(d, NULL, ".", 0, &b, msg, sizeof msg), MCS_OK);
    ck_assert_str_eq(mcs_result_summary_json(a), mcs_result_summary_json(b));
    ck_assert_ptr_nonnull(strstr(mcs_result_summary_json(a), "\"total\": 50"));
    ck_assert_ptr_null(mcs_result_requests_csv(b));
    const char *rows = mcs_result_requests_csv(a);
    int lines = 0;
    for (const char *p = rows; *p; p++)
        lines += *p == '\n';
    ck_assert_int_eq(lines, 51);
    ck_assert_str_eq(mcs_result_warnings(a), "");
    ck_assert_uint_eq(mcs_result_events(a), mcs_result_events(b));
    char *eff = mcs_config_json(c);
    ck_assert_ptr_nonnull(strstr(eff, "\"seed\": 7"));
    mcs_free(eff);
    mcs_result_free(a);
    mcs_result_free(b);
    mcs_config_free(c);
    mcs_config_free(d);
}
END_TEST

Suite *test_api_suite(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("api");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_version);
    tcase_add_test(tc, test_located_errors);
    tcase_add_test(tc, test_run_deterministic);
    suite_add_tcase(s, tc);
    return s;
}
