/* sim/core/fmt.h: fast, exact number formatting for the per-request and
 * time-series CSVs. sim_fmt_fixed writes the very bytes printf("%.*f")
 * would (the exact binary value rounded half to even at the last decimal,
 * as glibc does in the default rounding mode; a '-' for any negative
 * value, -0 included), without printf's multi-precision machinery: the
 * double's 53-bit significand times 10^decimals is exact in 128 bits.
 * Values it cannot do that way (not finite, 1e12 or more, or beyond 9e18
 * once scaled) go through snprintf. A line is built in a sim_fmt_line_t and written whole. */
#ifndef SIM_FMT_H
#define SIM_FMT_H

#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sim/core/util.h"

/* Room for the longest field the writers put on one line (a %.6f of a
 * value below 1e12 is at most 20 bytes; snprintf's fallback for larger
 * ones is bounded by SIM_FMT_NUM). */
#define SIM_FMT_NUM 352

/* x with decimals (0..9) digits after the point, as printf("%.*f") would
 * write it; out holds at least SIM_FMT_NUM bytes. Returns the length
 * (out is NUL-terminated). */
size_t sim_fmt_fixed(char *out, double x, int decimals);
/* v in decimal; out holds at least 21 bytes. Returns the length. */
size_t sim_fmt_i64(char *out, int64_t v);
/* ns nanoseconds as seconds with 6 decimals: the bytes of
 * sim_fmt_fixed(out, (double)ns / 1e9, 6), in integers where that is
 * exact (see sim/core/fmt.c). out holds at least SIM_FMT_NUM bytes. */
size_t sim_fmt_ns_s6(char *out, int64_t ns);

/* ---- writers at a cursor ----
 * For a caller that has made room once for a whole line: each writes its
 * field at p (no NUL) and returns the end. The bytes are those of the
 * functions above; the usual values take an inline path and the rest
 * call those functions, so p needs SIM_FMT_NUM bytes of room for a
 * seconds field and 21 for an integer. */

/* "00" .. "99", and by bit length the digit count's lift (see
 * sim_fmt_ndig32); defined in sim/core/fmt.c. */
extern const char sim_fmt_pairs[201];
extern const uint64_t sim_fmt_ndig_tab[32];

/* How many decimal digits v has (0 has one), without a loop: for the
 * values of one bit length the count is one number, or two either side of
 * a power of ten 10^d, and the table's entry for that length is the
 * count times 2^32, less 10^d where the count steps, so that adding v
 * carries into the upper half exactly when v >= 10^d. */
static inline int sim_fmt_ndig32(uint32_t v)
{
    return (int)((v + sim_fmt_ndig_tab[31 - __builtin_clz(v | 1)]) >> 32);
}

/* v (below 10^n) as exactly n digits at out, zero-padded, two a step. */
static inline void sim_fmt_digits32(char *out, uint32_t v, int n)
{
    char *p = out + n;
    while (p - out >= 2) {
        p -= 2;
        memcpy(p, sim_fmt_pairs + 2 * (v % 100), 2);
        v /= 100;
    }
    if (p > out)
        *--p = (char)('0' + v);
}

/* f (below 10^6) as exactly 6 digits at p: three pairs, no loop. */
static inline char *sim_fmt_frac6_at(char *p, uint32_t f)
{
    uint32_t hi = f / 10000, lo = f - hi * 10000, mid = lo / 100;
    memcpy(p, sim_fmt_pairs + 2 * hi, 2);
    memcpy(p + 2, sim_fmt_pairs + 2 * mid, 2);
    memcpy(p + 4, sim_fmt_pairs + 2 * (lo - mid * 100), 2);
    return p + 6;
}

/* v's digits at p; one and two digits (the usual counts and instance
 * numbers) without the general path. */
static inline char *sim_fmt_u32_at(char *p, uint32_t v)
{
    if (v < 10) {
        *p = (char)('0' + v);
        return p + 1;
    }
    if (v < 100) {
        memcpy(p, sim_fmt_pairs + 2 * v, 2);
        return p + 2;
    }
    int n = sim_fmt_ndig32(v);
    sim_fmt_digits32(p, v, n);
    return p + n;
}

/* sim_fmt_i64's bytes at p. */
static inline char *sim_fmt_i64_at(char *p, int64_t v)
{
    if (v >= 0 && v <= (int64_t)UINT32_MAX)
        return sim_fmt_u32_at(p, (uint32_t)v);
    return p + sim_fmt_i64(p, v);
}

/* Below this, (double)ns / 1e9 at 6 decimals rounds as ns / 1000 does.
 * The double is ns / 1e9 within a relative 2^-53 (ns itself is exact,
 * under 2^53, and the division is correctly rounded), so scaled by 1e6 it
 * is ns / 1000 within ns / 1000 x 2^-53 < 2^50 / 1000 x 2^-53 = 1/8000:
 * less than the 1/1000 that separates ns / 1000 from the nearest half
 * unless ns % 1000 is 500. Those exact ties (the double may fall either
 * side of the half, or on it) and everything from 2^50 ns (13 days) up
 * take the exact path, sim_fmt_fixed. */
#define SIM_FMT_NS_FAST_MAX ((int64_t)1 << 50)

/* sim_fmt_ns_s6's bytes at p. On the fast path the whole seconds are
 * below 2^50 / 1e9 < 2^21, so every step is in 32 bits after the two
 * divisions by constants. */
static inline __attribute__((always_inline)) char *sim_fmt_ns6_at(char *p, int64_t ns)
{
    uint64_t u = (uint64_t)ns, q = u / 1000, r = u - q * 1000;
    if (u >= (uint64_t)SIM_FMT_NS_FAST_MAX || r == 500) /* (a negative ns is a large u) */
        return p + sim_fmt_fixed(p, (double)ns / 1e9, 6);
    uint64_t us = q + (r > 500);
    if (us < 1000000) { /* below a second: the usual durations */
        memcpy(p, "0.", 2);
        return sim_fmt_frac6_at(p + 2, (uint32_t)us);
    }
    uint32_t w = (uint32_t)(us / 1000000);
    p = sim_fmt_u32_at(p, w);
    *p++ = '.';
    return sim_fmt_frac6_at(p, (uint32_t)(us - (uint64_t)w * 1000000));
}

/* |x| x 10^dec rounded half to even into *q, without 128-bit
 * arithmetic where that is exact: 1, or 0 for the caller's exact path.
 * y = |x| x 10^dec is the correctly rounded product (10^dec is a double
 * exactly), so below 2^31 it is within 2^-23 of the true product t. Its
 * integer part q and fraction y - q are exact (Sterbenz), and when the
 * fraction is more than 2^-22 from one half, t rounds as y does: to q
 * below the half (t within 2^-23 of [q, q + 1/2)), to q + 1 above it.
 * fl(y - q - 1/2) compared with the double 2^-22 errs only towards the
 * exact path (rounding is monotone). NaN fails y < 2^31. */
static inline int sim_fmt_round_fast(double ax, double pow10, uint64_t *q)
{
    double y = ax * pow10;
    if (!(y < 0x1p31))
        return 0;
    uint32_t i = (uint32_t)y;
    double d = (y - (double)i) - 0.5;
    if (!(d > 0x1p-22 || d < -0x1p-22))
        return 0;
    *q = i + (d > 0);
    return 1;
}

/* sim_fmt_fixed(p, x, 6)'s bytes at p: for x >= 0 (not -0) rounded by
 * sim_fmt_round_fast, its digits as sim_fmt_fixed writes them (the whole
 * part, the point, six digits); anything else through sim_fmt_fixed. */
static inline char *sim_fmt_sec6_at(char *p, double x)
{
    uint64_t q;
    if (x >= 0 && !signbit(x) && sim_fmt_round_fast(x, 1e6, &q)) {
        uint32_t w = (uint32_t)(q / 1000000);
        p = sim_fmt_u32_at(p, w);
        *p++ = '.';
        return sim_fmt_frac6_at(p, (uint32_t)(q - (uint64_t)w * 1000000));
    }
    return p + sim_fmt_fixed(p, x, 6);
}

/* A line under construction: fields appended, then written with one
 * fwrite. Grows as needed (a time-series row has one column per instance). */
typedef struct sim_fmt_line {
    char *buf;
    size_t len, cap;
} sim_fmt_line_t;

/* The appenders, inline: a requests.csv row is some fifty of them. */
static inline char *sim_fmt_room(sim_fmt_line_t *l, size_t need)
{
    if (l->len + need + 1 > l->cap)
        sim_grow((void **)&l->buf, &l->cap, l->len + need + 1, 1, "csv line");
    return l->buf + l->len;
}

static inline void sim_fmt_fix(sim_fmt_line_t *l, double x, int decimals)
{
    l->len += sim_fmt_fixed(sim_fmt_room(l, SIM_FMT_NUM), x, decimals);
}

static inline void sim_fmt_int(sim_fmt_line_t *l, int64_t v)
{
    l->len += sim_fmt_i64(sim_fmt_room(l, 24), v);
}

static inline void sim_fmt_ns_sec6(sim_fmt_line_t *l, int64_t ns)
{
    l->len += sim_fmt_ns_s6(sim_fmt_room(l, SIM_FMT_NUM), ns);
}

static inline void sim_fmt_char(sim_fmt_line_t *l, char ch)
{
    *sim_fmt_room(l, 1) = ch;
    l->len++;
}

static inline void sim_fmt_str(sim_fmt_line_t *l, const char *s)
{
    size_t n = strlen(s);
    memcpy(sim_fmt_room(l, n), s, n);
    l->len += n;
}

/* Write the line to f and empty it (the buffer is kept). 0, or -1 when
 * fwrite wrote less (the stream's error flag says why). */
int sim_fmt_put(sim_fmt_line_t *l, FILE *f);
void sim_fmt_line_free(sim_fmt_line_t *l);

#endif
