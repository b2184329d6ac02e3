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
