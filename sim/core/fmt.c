/* sim/core/fmt.c: exact fixed-point formatting (see sim/core/fmt.h). */
#include "sim/core/fmt.h"

#include <math.h>
#include <string.h>

#include "sim/core/util.h"

__extension__ typedef unsigned __int128 u128;

/* 10^0 .. 10^18 (every number written here is below 10^19). */
static const uint64_t pow10_u64[19] = {UINT64_C(1),
                                        UINT64_C(10),
                                        UINT64_C(100),
                                        UINT64_C(1000),
                                        UINT64_C(10000),
                                        UINT64_C(100000),
                                        UINT64_C(1000000),
                                        UINT64_C(10000000),
                                        UINT64_C(100000000),
                                        UINT64_C(1000000000),
                                        UINT64_C(10000000000),
                                        UINT64_C(100000000000),
                                        UINT64_C(1000000000000),
                                        UINT64_C(10000000000000),
                                        UINT64_C(100000000000000),
                                        UINT64_C(1000000000000000),
                                        UINT64_C(10000000000000000),
                                        UINT64_C(100000000000000000),
                                        UINT64_C(1000000000000000000)};

/* |x| * 10^dec rounded half to even; |x| * 10^dec < 9e18, dec <= 9. */
static uint64_t scaled_round(double ax, int dec)
{
    uint64_t bits;
    memcpy(&bits, &ax, sizeof bits);
    int be = (int)((bits >> 52) & 0x7ff);
    uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
    int e;
    if (be == 0) { /* subnormal (or zero): m x 2^-1074 */
        e = -1074;
    } else {
        m |= UINT64_C(1) << 52;
        e = be - 1075;
    }
    u128 p = (u128)m * pow10_u64[dec]; /* < 2^53 x 2^30 */
    if (e >= 0)
        return (uint64_t)(p << e); /* |x| < 1e12: e <= 0 in practice, exact anyway */
    int s = -e;
    if (s >= 100) /* p < 2^83: far below one half */
        return 0;
    uint64_t q = (uint64_t)(p >> s);
    u128 rem = p & (((u128)1 << s) - 1), half = (u128)1 << (s - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    return q;
}

const char sim_fmt_pairs[201] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";

/* Entry i, for the values with bit length i + 1: K(d) when all have d
 * digits, T(d, 10^d) when 10^d lies among them (d digits below it, d + 1
 * from it). tests/test_fmt.c checks every bit length's edges and every
 * power of ten either side. */
#define K(d) ((uint64_t)(d) << 32)
#define T(d, p10) ((((uint64_t)(d) + 1) << 32) - (p10))
const uint64_t sim_fmt_ndig_tab[32] = {
    K(1), K(1), K(1), T(1, 10),  K(2),        K(2),        T(2, 100),       K(3),
    K(3), T(3, 1000), K(4),      K(4),        K(4),        T(4, 10000),     K(5), K(5),
    T(5, 100000),     K(6),      K(6),        T(6, 1000000), K(7),          K(7), K(7),
    T(7, 10000000),   K(8),      K(8),        T(8, 100000000), K(9),        K(9),
    T(9, 1000000000), K(10),     K(10),
};
#undef K
#undef T

/* How many decimal digits v (below 10^19: what the writers pass) has. */
static int n_digits(uint64_t v)
{
    if (v <= UINT32_MAX)
        return sim_fmt_ndig32((uint32_t)v);
    int n = 10;
    while (n < 19 && v >= pow10_u64[n])
        n++;
    return n;
}

/* v (below 10^n) as exactly n digits at out, zero-padded; written from
 * the end, two digits a division (in 32 bits once v fits). */
static void put_digits(char *out, uint64_t v, int n)
{
    char *p = out + n;
    while (v > UINT32_MAX) {
        p -= 2;
        memcpy(p, sim_fmt_pairs + 2 * (v % 100), 2);
        v /= 100;
    }
    sim_fmt_digits32(out, (uint32_t)v, (int)(p - out));
}

/* v's decimal digits at out. */
static size_t put_u64(char *out, uint64_t v)
{
    int n = n_digits(v);
    put_digits(out, v, n);
    return (size_t)n;
}

/* q = *w x 10^dec + *f with *f < 10^dec, each power a constant, so that
 * the division is a multiplication (a division by a variable power takes
 * tens of cycles, once for every number written). */
static void split_pow10(uint64_t q, int dec, uint64_t *w, uint64_t *f)
{
#define SPLIT(d, p10)                                                                             \
    case d:                                                                                       \
        *w = q / (p10);                                                                           \
        break
    switch (dec) {
        SPLIT(1, 10);
        SPLIT(2, 100);
        SPLIT(3, 1000);
        SPLIT(4, 10000);
        SPLIT(5, 100000);
        SPLIT(6, 1000000);
        SPLIT(7, 10000000);
        SPLIT(8, 100000000);
        SPLIT(9, 1000000000);
    default:
        *w = q;
    }
#undef SPLIT
    *f = q - *w * pow10_u64[dec];
}

size_t sim_fmt_fixed(char *out, double x, int decimals)
{
    SIM_ASSERT(decimals >= 0 && decimals <= 9);
    if (!isfinite(x) || fabs(x) >= 1e12 || fabs(x) * (double)pow10_u64[decimals] >= 9e18)
        return (size_t)snprintf(out, SIM_FMT_NUM, "%.*f", decimals, x);
    size_t n = 0;
    if (signbit(x))
        out[n++] = '-';
    uint64_t q, w, f;
    if (!sim_fmt_round_fast(fabs(x), (double)pow10_u64[decimals], &q))
        q = scaled_round(fabs(x), decimals);
    split_pow10(q, decimals, &w, &f);
    n += put_u64(out + n, w);
    if (decimals > 0) {
        out[n++] = '.';
        if (decimals == 6) /* the CSVs' seconds */
            sim_fmt_frac6_at(out + n, (uint32_t)f);
        else
            put_digits(out + n, f, decimals);
        n += (size_t)decimals;
    }
    out[n] = '\0';
    return n;
}

size_t sim_fmt_i64(char *out, int64_t v)
{
    size_t n = 0;
    uint64_t u = (uint64_t)v;
    if (v < 0) {
        out[n++] = '-';
        u = 0 - u;
    }
    n += put_u64(out + n, u);
    out[n] = '\0';
    return n;
}

size_t sim_fmt_ns_s6(char *out, int64_t ns)
{
    char *e = sim_fmt_ns6_at(out, ns);
    *e = '\0';
    return (size_t)(e - out);
}

int sim_fmt_put(sim_fmt_line_t *l, FILE *f)
{
    size_t n = l->len;
    l->len = 0;
    return fwrite(l->buf, 1, n, f) == n ? 0 : -1;
}

void sim_fmt_line_free(sim_fmt_line_t *l)
{
    sim_free(l->buf);
    *l = (sim_fmt_line_t){0};
}
