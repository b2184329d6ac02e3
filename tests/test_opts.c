/* tests/test_opts.c: option tables: the getopt_long arrays built from a
 * table, parsing by id (short, long, prefix, permuted operands, bad
 * options), the --help lines, and the checks on a table. */
#include "tests/tests.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/opts.h"
#include "sim/core/util.h"

enum { T_OUT = 7, T_QUIET, T_MAXP, T_DRY, T_HIDDEN, T_HELP };

static const sim_opt_t table[] = {
    {T_OUT, "out", 'o', "DIR", "output directory"},
    {T_QUIET, "quiet", 'q', NULL, "no progress"},
    {T_MAXP, "max-probes", 0, "N", "at most N runs\n(default 30)"},
    {T_DRY, "dry-run", 0, NULL, "list and stop"},
    {T_HIDDEN, "help-config", 0, NULL, NULL},
    {T_HELP, "help", 'h', NULL, "this help"},
    {0},
};

/* Parse argv (NULL-terminated) by table, ids into ids[] and args into
 * args[] up to SIM_OPTS_END or SIM_OPTS_BAD (stored too); the count. */
static int parse(char **argv, int *ids, const char **args)
{
    int argc = 0, n = 0;
    while (argv[argc])
        argc++;
    sim_opts_t *p = sim_opts_new(table, argc, argv);
    int saved = opterr;
    opterr = 0; /* getopt's own message is not under test */
    do {
        ids[n] = sim_opts_next(p, &args[n]);
    } while (ids[n++] >= 0);
    opterr = saved;
    sim_opts_free(p);
    return n;
}

START_TEST(test_arrays_from_table)
{
    size_t live = sim_alloc_live_count();
    char *argv[] = {"cmd", NULL};
    sim_opts_t *p = sim_opts_new(table, 1, argv);
    ck_assert_str_eq(sim_opts_short(p), "o:qh");
    const struct option *lo = sim_opts_long(p);
    const char *names[] = {"out", "quiet", "max-probes", "dry-run", "help-config", "help"};
    const int has_arg[] = {required_argument, no_argument, required_argument, no_argument,
                           no_argument, no_argument};
    for (int i = 0; i < 6; i++) {
        ck_assert_str_eq(lo[i].name, names[i]);
        ck_assert_int_eq(lo[i].has_arg, has_arg[i]);
        ck_assert_ptr_null(lo[i].flag);
        ck_assert_int_gt(lo[i].val, 255); /* never a letter or '?' */
    }
    ck_assert_ptr_null(lo[6].name);
    ck_assert_int_eq(lo[6].val, 0);
    sim_opts_free(p);
    ck_assert_uint_eq(sim_alloc_live_count(), live);

    static const sim_opt_t empty[] = {{0}};
    p = sim_opts_new(empty, 1, argv);
    ck_assert_str_eq(sim_opts_short(p), "");
    ck_assert_ptr_null(sim_opts_long(p)[0].name);
    sim_opts_free(p);
    sim_opts_free(NULL);
}
END_TEST

START_TEST(test_parse_by_id)
{
    char *argv[] = {"cmd", "-o", "a", "EXP", "--quiet", "--max-probes=5", "--max", "6",
                    "-qo", "b", "--dry", "--help-config", "--", "-q", NULL};
    int ids[16];
    const char *args[16];
    int n = parse(argv, ids, args);
    const int want[] = {T_OUT, T_QUIET, T_MAXP, T_MAXP, T_QUIET, T_OUT, T_DRY, T_HIDDEN,
                        SIM_OPTS_END};
    const char *want_arg[] = {"a", NULL, "5", "6", NULL, "b", NULL, NULL, NULL};
    ck_assert_int_eq(n, 9);
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(ids[i], want[i]);
        if (want_arg[i])
            ck_assert_str_eq(args[i], want_arg[i]);
        else
            ck_assert_ptr_null(args[i]);
    }
    /* GNU permutation: the operands after the options, "--" ends them. */
    ck_assert_int_eq(optind, 12);
    ck_assert_str_eq(argv[optind], "EXP");
    ck_assert_str_eq(argv[optind + 1], "-q");
    ck_assert_ptr_eq(sim_opts_find(table, T_MAXP), &table[2]);
    ck_assert_ptr_null(sim_opts_find(table, 99));
}
END_TEST

START_TEST(test_bad_options)
{
    char *unknown[] = {"cmd", "-q", "--bogus", "-q", NULL};
    char *short_unknown[] = {"cmd", "-qZ", NULL};
    char *missing[] = {"cmd", "--out", NULL};
    char *missing_short[] = {"cmd", "-o", NULL};
    char *flag_arg[] = {"cmd", "--quiet=1", NULL};
    char *ambiguous[] = {"cmd", "--help", "--he", NULL}; /* help, help-config */
    char *long_only_short[] = {"cmd", "-d", NULL};       /* dry-run has no -d */
    int ids[8];
    const char *args[8];
    ck_assert_int_eq(parse(unknown, ids, args), 2);
    ck_assert_int_eq(ids[1], SIM_OPTS_BAD);
    ck_assert_int_eq(parse(short_unknown, ids, args), 2);
    ck_assert_int_eq(ids[0], T_QUIET);
    ck_assert_int_eq(ids[1], SIM_OPTS_BAD);
    ck_assert_int_eq(parse(missing, ids, args), 1);
    ck_assert_int_eq(ids[0], SIM_OPTS_BAD);
    ck_assert_int_eq(parse(missing_short, ids, args), 1);
    ck_assert_int_eq(ids[0], SIM_OPTS_BAD);
    ck_assert_int_eq(parse(flag_arg, ids, args), 1);
    ck_assert_int_eq(ids[0], SIM_OPTS_BAD);
    ck_assert_int_eq(parse(ambiguous, ids, args), 2);
    ck_assert_int_eq(ids[0], T_HELP);
    ck_assert_int_eq(ids[1], SIM_OPTS_BAD);
    ck_assert_int_eq(parse(long_only_short, ids, args), 1);
    ck_assert_int_eq(ids[0], SIM_OPTS_BAD);
}
END_TEST

static char *help_of(const sim_opt_t *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    sim_opts_print(f, t);
    fclose(f);
    return buf;
}

START_TEST(test_help_lines)
{
    /* Aligned one column past the widest entry ("    --max-probes N", 18). */
    char *h = help_of(table);
    ck_assert_str_eq(h, "  -o, --out DIR       output directory\n"
                        "  -q, --quiet         no progress\n"
                        "      --max-probes N  at most N runs\n"
                        "                      (default 30)\n"
                        "      --dry-run       list and stop\n"
                        "  -h, --help          this help\n");
    free(h);
    /* Wider than SIM_OPTS_HELP_COL: its text two spaces after it, the
     * others aligned at the cap. */
    static const sim_opt_t wide[] = {
        {1, "max-regress", 'm', "METRIC=BOUND", "a bound\nrepeatable"},
        {2, "quiet", 'q', NULL, ""},
        {0},
    };
    h = help_of(wide);
    ck_assert_str_eq(h, "  -m, --max-regress METRIC=BOUND  a bound\n"
                        "                        repeatable\n"
                        "  -q, --quiet           \n");
    free(h);
    static const sim_opt_t none[] = {{1, "hidden", 'x', NULL, NULL}, {0}};
    h = help_of(none);
    ck_assert_str_eq(h, "");
    free(h);
}
END_TEST

START_TEST(test_duplicate_letter_asserts)
{
    static const sim_opt_t dup[] = {
        {1, "out", 'o', "DIR", "a"}, {2, "other", 'o', NULL, "b"}, {0},
    };
    char *argv[] = {"cmd", NULL};
    tests_capture_stderr();
    sim_opts_new(dup, 1, argv);
}
END_TEST

START_TEST(test_duplicate_name_asserts)
{
    static const sim_opt_t dup[] = {
        {1, "out", 'o', "DIR", "a"}, {2, "out", 0, NULL, "b"}, {0},
    };
    char *argv[] = {"cmd", NULL};
    tests_capture_stderr();
    sim_opts_new(dup, 1, argv);
}
END_TEST

Suite *test_opts_suite(void)
{
    Suite *s = suite_create("opts");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_arrays_from_table);
    tcase_add_test(tc, test_parse_by_id);
    tcase_add_test(tc, test_bad_options);
    tcase_add_test(tc, test_help_lines);
    tcase_add_test_raise_signal(tc, test_duplicate_letter_asserts, SIGABRT);
    tcase_add_test_raise_signal(tc, test_duplicate_name_asserts, SIGABRT);
    suite_add_tcase(s, tc);
    return s;
}
