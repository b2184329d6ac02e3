/* tests/test_fmt.c: sim/core/fmt's fixed-point and integer formatting against
 * printf, byte for byte: random seconds from nanoseconds (what the CSVs
 * write), random bit patterns, dyadic values (exact ties at the last
 * decimal, which round half to even), values just past a tie, signed
 * zeros, subnormals, and the snprintf fallback's range; and the line
 * builder. */
#include "tests/tests.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/fmt.h"

static uint64_t st = 88172645463325252ull;
static uint64_t rnd(void)
{
    st ^= st << 13;
    st ^= st >> 7;
    st ^= st << 17;
    return st;
}

static double sample(long i, int d)
{
    double x;
    uint64_t bits;
    switch (i % 6) {
    case 0: /* seconds from int64 ns */
        return (double)(int64_t)(rnd() % 4000000000000ull) / 1e9;
    case 1: /* any finite double below the fallback's bound */
        bits = rnd();
        memcpy(&x, &bits, sizeof x);
        return isfinite(x) && fabs(x) < 1e13 ? x : 1.5;
    case 2: /* dyadic: exact ties */
        return ldexp((double)(rnd() % 1000000), -(int)(rnd() % 40));
    case 3:
        return (double)(rnd() % 100000) / 128.0 * ((rnd() & 1) ? 1 : -1);
    case 4: /* a half at the last decimal, as near as a double gets */
        return ((double)(rnd() % 2000001) + 0.5) / pow(10, d);
    default:
        return (double)(rnd() % 1000000) / 1e6 * pow(10, (int)(rnd() % 12));
    }
}

START_TEST(test_fixed_matches_printf)
{
    char a[SIM_FMT_NUM], b[SIM_FMT_NUM];
    for (long i = 0; i < 600000; i++) {
        int d = (int)(rnd() % 10);
        double x = sample(i, d);
        sim_fmt_fixed(a, x, d);
        snprintf(b, sizeof b, "%.*f", d, x);
        if (strcmp(a, b) != 0) /* asserted only when it fails: Check records each pass */
            ck_abort_msg("%a with %d decimals: %s, printf %s", x, d, a, b);
    }
    const double sp[] = {0.0,      -0.0,   1e-300, -1e-300, 5e-324, 0.0078125, 0.5,     1.5,
                         2.5,      -2.5,   999999999999.9999, 1e12, -1e12,     9.2e9,   1e300,
                         NAN,      INFINITY, -INFINITY};
    for (size_t k = 0; k < sizeof sp / sizeof sp[0]; k++)
        for (int d = 0; d <= 9; d++) {
            sim_fmt_fixed(a, sp[k], d);
            snprintf(b, sizeof b, "%.*f", d, sp[k]);
            ck_assert_msg(strcmp(a, b) == 0, "%g with %d decimals: %s, printf %s", sp[k], d, a, b);
        }
}
END_TEST

/* A random ns count of one of six kinds: 0 any below 4e15; 1 a tie at
 * the microsecond or next to one; 2 below a second or just past it;
 * 3 around the integer path's bound (2^50) and 1e15; 4 below 1e11;
 * 5 around 2^50 .. 2^53, either sign. */
static int64_t rand_ns(int kind)
{
    int64_t ns;
    switch (kind) {
    case 0:
        return (int64_t)(rnd() % 4000000000000000ull);
    case 1:
        return (int64_t)(rnd() % 100000000000000ull) / 1000 * 1000 + 499 + (int64_t)(rnd() % 3);
    case 2:
        return (int64_t)(rnd() % 1000001000ull);
    case 3:
        return ((rnd() & 1) ? (int64_t)1 << 50 : 1000000000000000) - 3000 + (int64_t)(rnd() % 6000);
    case 4:
        return (int64_t)(rnd() % 100000000000ull);
    default:
        ns = ((int64_t)1 << (50 + (int)(rnd() % 4))) - 2000 + (int64_t)(rnd() % 4000);
        return (rnd() & 1) ? -ns : ns;
    }
}

/* Seconds from ns through integers: the bytes of printf("%.6f") of the
 * double ns / 1e9 for random ns, exact ties at the microsecond (which
 * take the double's path), their neighbours, and both sides of the fast
 * path's bound. */
START_TEST(test_ns_seconds_match_printf)
{
    char a[SIM_FMT_NUM], b[SIM_FMT_NUM];
    static const int kinds[4] = {0, 1, 2, 5};
    for (long i = 0; i < 600000; i++) {
        int64_t ns = rand_ns(kinds[i % 4]);
        sim_fmt_ns_s6(a, ns);
        snprintf(b, sizeof b, "%.6f", (double)ns / 1e9);
        if (strcmp(a, b) != 0) /* asserted only when it fails: Check records each pass */
            ck_abort_msg("%lld ns: %s, printf %s", (long long)ns, a, b);
    }
    const int64_t sp[] = {0, 1, 499, 500, 501, 999, 1000, 1500, 999999500, 1000000000,
                          INT64_MAX, INT64_MIN + 1, -500};
    for (size_t k = 0; k < sizeof sp / sizeof sp[0]; k++) {
        sim_fmt_ns_s6(a, sp[k]);
        snprintf(b, sizeof b, "%.6f", (double)sp[k] / 1e9);
        ck_assert_msg(strcmp(a, b) == 0, "%lld ns: %s, printf %s", (long long)sp[k], a, b);
    }
    sim_fmt_line_t l = {0};
    sim_fmt_ns_sec6(&l, 1234567890);
    sim_fmt_char(&l, ',');
    sim_fmt_ns_sec6(&l, 2400);
    l.buf[l.len] = '\0';
    ck_assert_str_eq(l.buf, "1.234568,0.000002");
    sim_fmt_line_free(&l);
}
END_TEST

START_TEST(test_int_and_line)
{
    const int64_t v[] = {0,  1,     -1,   INT64_MAX, INT64_MIN, 1234567890123LL, 9, 10, 99, 100,
                         -10, -99, 999999999999999999LL, 1000000000000000000LL, 9999999999LL,
                         10000000000LL};
    char a[32], b[32];
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
        sim_fmt_i64(a, v[k]);
        snprintf(b, sizeof b, "%lld", (long long)v[k]);
        ck_assert_str_eq(a, b);
    }
    for (int e = 0; e < 19; e++) { /* each digit count's edges */
        int64_t p = 1;
        for (int k = 0; k < e; k++)
            p *= 10;
        for (int64_t w = p - 1; w <= p + 1; w++) {
            sim_fmt_i64(a, w);
            snprintf(b, sizeof b, "%lld", (long long)w);
            ck_assert_str_eq(a, b);
        }
    }
    sim_fmt_line_t l = {0};
    for (int i = 0; i < 1000; i++) { /* grows past any first size */
        sim_fmt_int(&l, i);
        sim_fmt_char(&l, ',');
        sim_fmt_fix(&l, i / 7.0, 4);
        sim_fmt_str(&l, ";");
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_int_eq(sim_fmt_put(&l, f), 0);
    fclose(f);
    ck_assert_uint_eq(l.len, 0);
    ck_assert(strncmp(text, "0,0.0000;1,0.1429;2,0.2857;", 27) == 0);
    free(text);
    sim_fmt_line_free(&l);
}
END_TEST

/* The writers at a cursor against printf: integers at every digit
 * count's edges and every bit length's, seconds from ns (random, ties at
 * ...500 ns and their neighbours, each power of ten's edges, 0, the
 * integer path's bound, negatives), and seconds from doubles that are
 * some (double)ns / 1e9 and ones that are not (-0 included). */
static void cursor_check(const char *what, const char *got, const char *end, const char *want)
{
    size_t n = (size_t)(end - got);
    if (n != strlen(want) || memcmp(got, want, n) != 0)
        ck_abort_msg("%s: %.*s, printf %s", what, (int)n, got, want);
}

START_TEST(test_cursor_writers_match_printf)
{
    char a[SIM_FMT_NUM], b[SIM_FMT_NUM], what[64];
    for (int i = 0; i < 64; i++) { /* each bit length's edges */
        uint64_t lo = (uint64_t)1 << i, hi = lo + (lo - 1);
        const uint64_t v[] = {lo, hi, lo - 1};
        for (size_t k = 0; k < 3; k++) {
            int64_t x = (int64_t)v[k];
            snprintf(b, sizeof b, "%lld", (long long)x);
            snprintf(what, sizeof what, "i64 %lld", (long long)x);
            cursor_check(what, a, sim_fmt_i64_at(a, x), b);
            if (v[k] <= UINT32_MAX) {
                ck_assert_int_eq(sim_fmt_ndig32((uint32_t)v[k]), (int)strlen(b));
                cursor_check(what, a, sim_fmt_u32_at(a, (uint32_t)v[k]), b);
            }
        }
    }
    int64_t p10 = 1;
    for (int e = 0; e < 19; e++, p10 = e < 19 ? p10 * 10 : p10) /* each power of ten's edges */
        for (int64_t x = p10 - 2; x <= p10 + 1; x++) {
            const int64_t v[] = {x, -x};
            for (size_t k = 0; k < 2; k++) {
                snprintf(b, sizeof b, "%lld", (long long)v[k]);
                snprintf(what, sizeof what, "i64 %lld", (long long)v[k]);
                cursor_check(what, a, sim_fmt_i64_at(a, v[k]), b);
                snprintf(b, sizeof b, "%.6f", (double)v[k] / 1e9);
                snprintf(what, sizeof what, "ns6 %lld", (long long)v[k]);
                cursor_check(what, a, sim_fmt_ns6_at(a, v[k]), b);
                double d = (double)v[k] / 1e9;
                snprintf(what, sizeof what, "sec6 %a", d);
                cursor_check(what, a, sim_fmt_sec6_at(a, d), b);
            }
        }
    for (long i = 0; i < 600000; i++) {
        int64_t ns = rand_ns((int)(i % 5));
        if (i % 97 == 0)
            ns = -ns;
        double d = (double)ns / 1e9;
        snprintf(b, sizeof b, "%.6f", d);
        snprintf(what, sizeof what, "ns6 %lld", (long long)ns);
        cursor_check(what, a, sim_fmt_ns6_at(a, ns), b);
        snprintf(what, sizeof what, "sec6 %a", d);
        cursor_check(what, a, sim_fmt_sec6_at(a, d), b);
        /* doubles near d, and a mean's quotient: mostly no (double)ns / 1e9 */
        const double x[] = {nextafter(d, 0), nextafter(d, 1e300), d / 3.0, d * 0.999,
                            (double)ns / (double)(1 + rnd() % 1000) / 1e9};
        for (size_t k = 0; k < sizeof x / sizeof x[0]; k++) {
            snprintf(b, sizeof b, "%.6f", x[k]);
            snprintf(what, sizeof what, "sec6 %a", x[k]);
            cursor_check(what, a, sim_fmt_sec6_at(a, x[k]), b);
        }
    }
    /* Around the margin of sim_fmt_round_fast: a fraction of the scaled
     * value 2^-21 .. 2^-24 from one half, and the bound 2^31 of it. */
    for (long i = 0; i < 200000; i++) {
        int d = (int)(rnd() % 10);
        double k = (double)(rnd() % ((uint64_t)1 << (1 + (int)(rnd() % 31))));
        double off = ldexp((rnd() & 1) ? 1.0 : -1.0, -21 - (int)(rnd() % 4));
        double x = (k + 0.5 + off) / pow(10, d);
        if (i % 50 == 0)
            x = (0x1p31 + (double)((int)(rnd() % 5) - 2)) / pow(10, d);
        sim_fmt_fixed(a, x, d);
        snprintf(b, sizeof b, "%.*f", d, x);
        if (strcmp(a, b) != 0)
            ck_abort_msg("%a with %d decimals: %s, printf %s", x, d, a, b);
        snprintf(b, sizeof b, "%.6f", x);
        snprintf(what, sizeof what, "sec6 %a", x);
        cursor_check(what, a, sim_fmt_sec6_at(a, x), b);
    }
    const double sp[] = {0.0, -0.0, 5e-324, 0.0000005, 0.0000015, 999999.9999995, 1e6,
                         1e6 - 1e-9, 1e12, 1e300, NAN, INFINITY, -INFINITY, -1e-9};
    for (size_t k = 0; k < sizeof sp / sizeof sp[0]; k++) {
        snprintf(b, sizeof b, "%.6f", sp[k]);
        snprintf(what, sizeof what, "sec6 %a", sp[k]);
        cursor_check(what, a, sim_fmt_sec6_at(a, sp[k]), b);
    }
}
END_TEST

Suite *test_fmt_suite(void)
{
    Suite *s = suite_create("fmt");
    TCase *tc = tcase_create("fmt");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_fixed_matches_printf);
    tcase_add_test(tc, test_ns_seconds_match_printf);
    tcase_add_test(tc, test_int_and_line);
    tcase_add_test(tc, test_cursor_writers_match_printf);
    suite_add_tcase(s, tc);
    return s;
}
