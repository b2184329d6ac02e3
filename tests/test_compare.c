/* tests/test_compare.c: comparing two run summaries. Flattening (dotted
 * paths, sorted, non-numeric leaves and sim.wall_s left out), bound
 * parsing (percent and absolute, either sign; malformed ones refused),
 * each bound's direction at and around its limit, and the whole compare
 * on files: identical summaries pass, an injected regression fails, a
 * malformed bound, an unknown metric or a broken file is bad input. */
#include "tests/tests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/exp/compare.h"

/* A small summary in the shape run writes; ttft p90 and attainment are
 * the values a test varies. */
static const char *summary(const char *name, double p90, double attainment)
{
    char text[1024];
    int n = snprintf(text, sizeof text,
                     "{\"requests\": {\"total\": 200, \"completed\": 200},\n"
                     " \"ttft_s\": {\"mean\": 1.2, \"p50\": 0.5, \"p90\": %.10g, \"p99\": 19.7},\n"
                     " \"slo\": {\"met\": 200, \"attainment\": %.10g},\n"
                     " \"cache\": {\"policy\": \"lru\", \"hit_rate_tokens\": 0.28},\n"
                     " \"sim\": {\"events\": 20266, \"wall_s\": 0.0053, \"version\": \"x\"}}\n",
                     p90, attainment);
    return tests_write_file(tests_tmpdir(), name, text, (size_t)n);
}

static sim_cmp_bound_t bound(const char *arg)
{
    sim_cmp_bound_t b;
    sim_err_t err;
    ck_assert_msg(sim_cmp_parse_bound(arg, &b, &err) == 0, "%s: %s", arg, err.msg);
    return b;
}

/* sim_cmp_compare with the given bounds; output kept in *text (caller
 * frees) when text is not NULL. */
static int compare(const char *base, const char *nw, const char *const *args, size_t n, int quiet,
                   char **text, sim_err_t *err)
{
    sim_cmp_bound_t b[8];
    ck_assert(n <= 8);
    for (size_t i = 0; i < n; i++)
        b[i] = bound(args[i]);
    FILE *out = tmpfile();
    ck_assert_ptr_nonnull(out);
    int rc = sim_cmp_compare(base, nw, b, n, quiet, out, err);
    if (text) {
        long len = ftell(out);
        *text = calloc((size_t)len + 1, 1);
        rewind(out);
        ck_assert(fread(*text, 1, (size_t)len, out) == (size_t)len);
    }
    fclose(out);
    return rc;
}

START_TEST(test_flatten)
{
    json_error_t je;
    json_t *j = json_loads("{\"b\": {\"y\": 2, \"x\": 1.5, \"s\": \"str\", \"t\": true, \"n\": null},"
                           " \"a\": 3, \"arr\": [4, {\"k\": 5}],"
                           " \"sim\": {\"wall_s\": 9.9, \"events\": 7}}",
                           0, &je);
    ck_assert_ptr_nonnull(j);
    sim_cmp_flat_t f;
    sim_err_t err;
    ck_assert_msg(sim_cmp_flatten(j, "s.json", &f, &err) == 0, "%s", err.msg);
    static const char *const paths[] = {"a", "arr[0]", "arr[1].k", "b.x", "b.y", "sim.events"};
    static const double values[] = {3, 4, 5, 1.5, 2, 7};
    ck_assert_uint_eq(f.n, 6);
    for (size_t i = 0; i < f.n; i++) {
        ck_assert_str_eq(f.m[i].path, paths[i]);
        ck_assert_double_eq(f.m[i].value, values[i]);
        ck_assert_ptr_eq(sim_cmp_find(&f, paths[i]), &f.m[i]);
    }
    ck_assert_ptr_null(sim_cmp_find(&f, "sim.wall_s"));
    ck_assert_ptr_null(sim_cmp_find(&f, "b.s"));
    ck_assert_ptr_nonnull(sim_cmp_skipped("sim.wall_s"));
    ck_assert_ptr_null(sim_cmp_skipped("sim.events"));
    sim_cmp_flat_free(&f);
    json_decref(j);

    /* not an object; no numbers at all */
    j = json_loads("[1, 2]", 0, &je);
    ck_assert_int_eq(sim_cmp_flatten(j, "arr.json", &f, &err), -1);
    ck_assert_str_eq(err.msg, "arr.json: $: expected an object (a summary.json)");
    sim_cmp_flat_free(&f);
    json_decref(j);
    j = json_loads("{\"a\": \"x\"}", 0, &je);
    ck_assert_int_eq(sim_cmp_flatten(j, "str.json", &f, &err), -1);
    ck_assert(strstr(err.msg, "str.json: $: no numeric metrics") == err.msg);
    sim_cmp_flat_free(&f);
    json_decref(j);
}
END_TEST

START_TEST(test_parse_bound)
{
    sim_cmp_bound_t b = bound("ttft_s.p90=5%");
    ck_assert_str_eq(b.metric, "ttft_s.p90");
    ck_assert(b.percent && !b.falling_bad && b.amount == 5);
    b = bound("slo.attainment=-0.01");
    ck_assert_str_eq(b.metric, "slo.attainment");
    ck_assert(!b.percent && b.falling_bad && b.amount == 0.01);
    b = bound("cache.hit_rate_tokens=-2.5%");
    ck_assert(b.percent && b.falling_bad && b.amount == 2.5);
    b = bound("prefill.wasted_s=+3");
    ck_assert(!b.percent && !b.falling_bad && b.amount == 3);
    b = bound("x=.5");
    ck_assert(b.amount == 0.5);

    static const char *const bad[] = {"ttft_s.p90", "=5%", "ttft_s.p90=", "ttft_s.p90=x",
                                      "ttft_s.p90=5%%", "ttft_s.p90=--5", "ttft_s.p90=5 %",
                                      "ttft_s.p90= 5", "ttft_s.p90=inf", "ttft_s.p90=nan",
                                      "ttft_s.p90=0x10", "ttft_s.p90=%", "ttft_s.p90=5%x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sim_err_t err;
        ck_assert_msg(sim_cmp_parse_bound(bad[i], &b, &err) == -1, "%s accepted", bad[i]);
        ck_assert_msg(strstr(err.msg, "--max-regress ") == err.msg, "%s", err.msg);
        ck_assert_msg(strstr(err.msg, bad[i]) != NULL, "%s", err.msg);
    }
}
END_TEST

START_TEST(test_eval_directions)
{
    /* P%: NEW may exceed BASE by at most P% of |BASE| */
    sim_cmp_bound_t b = bound("m=5%");
    ck_assert(!sim_cmp_eval(&b, 2, 2).violated);
    ck_assert(!sim_cmp_eval(&b, 2, 2.1).violated); /* exactly +5%: allowed */
    ck_assert(sim_cmp_eval(&b, 2, 2.2).violated);
    ck_assert(!sim_cmp_eval(&b, 2, 0.1).violated); /* falling is fine */
    ck_assert_double_eq_tol(sim_cmp_eval(&b, 2, 2).limit, 2.1, 1e-12);
    ck_assert(sim_cmp_eval(&b, -2, -1.8).violated); /* of |BASE|: -2 may rise to -1.9 */
    ck_assert(!sim_cmp_eval(&b, 0, 0).violated);
    ck_assert(sim_cmp_eval(&b, 0, 1e-6).violated);
    /* -P%: NEW may fall below BASE by at most P% of |BASE| */
    b = bound("m=-5%");
    ck_assert(!sim_cmp_eval(&b, 2, 1.9).violated);
    ck_assert(sim_cmp_eval(&b, 2, 1.8).violated);
    ck_assert(!sim_cmp_eval(&b, 2, 9).violated);
    /* -D: NEW may fall below BASE by at most D */
    b = bound("m=-0.01");
    ck_assert(!sim_cmp_eval(&b, 1, 0.99).violated);
    ck_assert(sim_cmp_eval(&b, 1, 0.98).violated);
    ck_assert(!sim_cmp_eval(&b, 0.5, 0.495).violated);
    ck_assert(!sim_cmp_eval(&b, 0.5, 0.7).violated);
    /* D: NEW may exceed BASE by at most D */
    b = bound("m=0.5");
    ck_assert(!sim_cmp_eval(&b, 3, 3.5).violated);
    ck_assert(sim_cmp_eval(&b, 3, 3.6).violated);
    ck_assert(!sim_cmp_eval(&b, 3, -10).violated);
    /* zero bounds: no change at all in the bad direction */
    b = bound("m=0");
    ck_assert(!sim_cmp_eval(&b, 3, 3).violated && sim_cmp_eval(&b, 3, 3.001).violated);
    b = bound("m=-0");
    ck_assert(!sim_cmp_eval(&b, 3, 3).violated && sim_cmp_eval(&b, 3, 2.999).violated);
}
END_TEST

START_TEST(test_compare_identical)
{
    const char *a = summary("same.json", 1.87, 1.0);
    const char *const args[] = {"ttft_s.p90=0%", "slo.attainment=-0", "requests.completed=0",
                                "cache.hit_rate_tokens=-0%"};
    sim_err_t err;
    char *text;
    ck_assert_int_eq(compare(a, a, args, 4, 0, &text, &err), 0);
    ck_assert_msg(strstr(text, "VIOLATED") == NULL, "%s", text);
    ck_assert(strstr(text, "ok ttft_s.p90: 1.87 -> 1.87") != NULL);
    ck_assert(strstr(text, "compare: 4 bounds checked, 0 violated") != NULL);
    ck_assert(strstr(text, "wall_s") == NULL);
    ck_assert(strstr(text, "only in") == NULL);
    /* the headline metrics first, in their order (TTFT before the SLO),
     * then the rest sorted by path, each metric once */
    const char *p50 = strstr(text, "\nttft_s.p50 "), *p90 = strstr(text, "\nttft_s.p90 ");
    const char *p99 = strstr(text, "\nttft_s.p99 "), *att = strstr(text, "\nslo.attainment ");
    const char *rest = strstr(text, "\n(the rest by path)\n");
    const char *hit = strstr(text, "\ncache.hit_rate_tokens ");
    const char *req = strstr(text, "\nrequests.completed ");
    const char *mean = strstr(text, "\nttft_s.mean ");
    ck_assert_msg(p50 && p90 && p99 && att && rest && hit && req && mean, "%s", text);
    ck_assert_msg(p50 < p90 && p90 < p99 && p99 < att && att < rest && rest < hit && hit < req &&
                      req < mean,
                  "%s", text);
    ck_assert_msg(strstr(p50 + 1, "\nttft_s.p50 ") == NULL, "%s", text);
    ck_assert_msg(strstr(att + 1, "\nslo.attainment ") == NULL, "%s", text);
    free(text);
    /* quiet: nothing */
    ck_assert_int_eq(compare(a, a, args, 4, 1, &text, &err), 0);
    ck_assert_str_eq(text, "");
    free(text);
    /* a run directory is read as its summary.json */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/rundir", tests_tmpdir());
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    const char *s = summary("same.json", 1.87, 1.0);
    char *body = tests_read_file(s, NULL);
    tests_write_file(dir, "summary.json", body, strlen(body));
    free(body);
    ck_assert_int_eq(compare(dir, a, args, 4, 1, NULL, &err), 0);
}
END_TEST

START_TEST(test_compare_regressions)
{
    const char *base = summary("base.json", 2.0, 1.0);
    const char *slow = summary("slow.json", 2.2, 1.0);      /* p90 TTFT +10% */
    const char *bit = summary("bit.json", 2.08, 1.0);       /* p90 TTFT +4% */
    const char *drop = summary("drop.json", 2.0, 0.98);     /* attainment -0.02 */
    const char *dip = summary("dip.json", 2.0, 0.995);      /* attainment -0.005 */
    const char *const p90[] = {"ttft_s.p90=5%"};
    const char *const att[] = {"slo.attainment=-0.01"};
    sim_err_t err;
    char *text;
    ck_assert_int_eq(compare(base, slow, p90, 1, 1, &text, &err), 1);
    ck_assert_str_eq(text, "VIOLATED ttft_s.p90: 2 -> 2.2 (+0.2, +10.00%); may rise by at most 5% "
                           "(limit 2.1)\n");
    free(text);
    ck_assert_int_eq(compare(base, bit, p90, 1, 1, NULL, &err), 0);
    ck_assert_int_eq(compare(slow, base, p90, 1, 1, NULL, &err), 0); /* an improvement */
    ck_assert_int_eq(compare(base, drop, att, 1, 0, &text, &err), 1);
    ck_assert(strstr(text, "VIOLATED slo.attainment: 1 -> 0.98") != NULL);
    ck_assert(strstr(text, "compare: 1 bound checked, 1 violated") != NULL);
    free(text);
    ck_assert_int_eq(compare(base, dip, att, 1, 0, NULL, &err), 0);
    /* several bounds: each violation counted, the status is still 1 */
    const char *const both[] = {"ttft_s.p90=5%", "slo.attainment=-0.01", "sim.events=0"};
    const char *worse = summary("worse.json", 2.2, 0.98);
    ck_assert_int_eq(compare(base, worse, both, 3, 0, &text, &err), 1);
    ck_assert(strstr(text, "compare: 3 bounds checked, 2 violated") != NULL);
    free(text);
}
END_TEST

START_TEST(test_compare_bad_input)
{
    const char *base = summary("b2.json", 2.0, 1.0);
    sim_err_t err;
    sim_cmp_bound_t b;
    /* malformed bound */
    ck_assert_int_eq(sim_cmp_parse_bound("ttft_s.p90=five%", &b, &err), -1);
    /* unknown metric, in both or in one only */
    const char *const unknown[] = {"ttft_s.p95=5%"};
    char *text;
    ck_assert_int_eq(compare(base, base, unknown, 1, 0, &text, &err), -1);
    ck_assert_str_eq(text, ""); /* nothing printed on bad input */
    free(text);
    ck_assert_msg(strstr(err.msg, "b2.json: $.ttft_s.p95: no such numeric metric") != NULL, "%s",
                  err.msg);
    const char *fewer = tests_write_file(tests_tmpdir(), "fewer.json",
                                         "{\"ttft_s\": {\"p90\": 2}}", 22);
    const char *const att[] = {"slo.attainment=-0.01"};
    ck_assert_int_eq(compare(base, fewer, att, 1, 0, NULL, &err), -1);
    ck_assert_msg(strstr(err.msg, "fewer.json: $.slo.attainment: no such numeric metric") != NULL,
                  "%s", err.msg);
    /* a metric in only one summary is listed when no bound names it */
    const char *const p90[] = {"ttft_s.p90=5%"};
    ck_assert_int_eq(compare(base, fewer, p90, 1, 0, &text, &err), 0);
    ck_assert(strstr(text, "only in base: slo.attainment = 1\n") != NULL);
    free(text);
    /* non-numeric and skipped fields cannot be bounded */
    const char *const ver[] = {"sim.version=0"}, *const wall[] = {"sim.wall_s=5%"};
    ck_assert_int_eq(compare(base, base, ver, 1, 0, NULL, &err), -1);
    ck_assert_int_eq(compare(base, base, wall, 1, 0, NULL, &err), -1);
    ck_assert(strstr(err.msg, "wall-clock") != NULL);
    /* missing and invalid files */
    char missing[512];
    snprintf(missing, sizeof missing, "%s/no-such-run", tests_tmpdir());
    ck_assert_int_eq(compare(missing, base, NULL, 0, 0, NULL, &err), -1);
    ck_assert(strstr(err.msg, "no-such-run") != NULL);
    const char *broken = tests_write_file(tests_tmpdir(), "broken.json", "{\"a\": 1,\n", 9);
    ck_assert_int_eq(compare(base, broken, NULL, 0, 0, NULL, &err), -1);
    ck_assert_msg(strstr(err.msg, "broken.json:2:") != NULL, "%s", err.msg);
}
END_TEST

Suite *test_compare_suite(void)
{
    Suite *s = suite_create("compare");
    TCase *tc = tcase_create("compare");
    tcase_add_test(tc, test_flatten);
    tcase_add_test(tc, test_parse_bound);
    tcase_add_test(tc, test_eval_directions);
    tcase_add_test(tc, test_compare_identical);
    tcase_add_test(tc, test_compare_regressions);
    tcase_add_test(tc, test_compare_bad_input);
    suite_add_tcase(s, tc);
    return s;
}
