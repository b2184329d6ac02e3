/* sim/util.c: see util.h. The allocator prefixes each block with its size
 * so tests can count live bytes; max_align_t keeps the payload aligned. */
#include "sim/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/resource.h>
#include <time.h>

typedef union alloc_hdr {
    size_t size;
    max_align_t align;
} alloc_hdr_t;

/* Per thread: a sweep runs points on several threads at once, and each
 * run allocates and frees on its own thread; the leak tests count on the
 * thread that runs them. */
static _Thread_local size_t live_bytes;
static _Thread_local size_t live_count;

int sim_errf(sim_err_t *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->io = 0;
    }
    return -1;
}

int sim_errf_io(sim_err_t *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->io = 1;
    }
    return -1;
}

int sim_s_to_ns(double s, sim_time_t *ns)
{
    /* 2^62 ns: INT64_MAX / 2 rounds up to it as a double, and llround of
     * any double up to it fits an int64. */
    if (!isfinite(s) || s < 0 || s * 1e9 > (double)SIM_MAX_DURATION_NS)
        return -1;
    *ns = (sim_time_t)llround(s * 1e9);
    return 0;
}

void sim_assert_fail(const char *expr, const char *file, int line)
{
    fprintf(stderr, "mooncake-sim: internal error: assertion '%s' failed at %s:%d\n",
            expr, file, line);
    abort();
}

static _Noreturn void oom(size_t n, const char *label)
{
    fprintf(stderr, "mooncake-sim: out of memory allocating %zu bytes for %s\n", n,
            label ? label : "?");
    abort();
}

void *sim_xmalloc(size_t n, const char *label)
{
    if (n > SIZE_MAX - sizeof(alloc_hdr_t))
        oom(n, label);
    alloc_hdr_t *h = malloc(sizeof *h + n);
    if (!h)
        oom(n, label);
    h->size = n;
    live_bytes += n;
    live_count++;
    return h + 1;
}

void *sim_xcalloc(size_t n, size_t size, const char *label)
{
    if (size && n > SIZE_MAX / size)
        oom(SIZE_MAX, label);
    void *p = sim_xmalloc(n * size, label);
    memset(p, 0, n * size);
    return p;
}

void *sim_xrealloc(void *p, size_t n, const char *label)
{
    if (!p)
        return sim_xmalloc(n, label);
    if (n > SIZE_MAX - sizeof(alloc_hdr_t))
        oom(n, label);
    alloc_hdr_t *h = (alloc_hdr_t *)p - 1;
    size_t old = h->size;
    alloc_hdr_t *nh = realloc(h, sizeof *nh + n);
    if (!nh)
        oom(n, label);
    nh->size = n;
    live_bytes = live_bytes - old + n;
    return nh + 1;
}

char *sim_xstrdup(const char *s, const char *label)
{
    size_t n = strlen(s) + 1;
    char *d = sim_xmalloc(n, label);
    memcpy(d, s, n);
    return d;
}

void sim_free(void *p)
{
    if (!p)
        return;
    alloc_hdr_t *h = (alloc_hdr_t *)p - 1;
    live_bytes -= h->size;
    live_count--;
    free(h);
}

size_t sim_alloc_live_bytes(void) { return live_bytes; }
size_t sim_alloc_live_count(void) { return live_count; }

void sim_grow(void **arr, size_t *cap, size_t need, size_t elem, const char *label)
{
    if (need <= *cap)
        return;
    size_t n = *cap ? *cap : 8;
    while (n < need)
        n *= 2;
    *arr = sim_xrealloc(*arr, n * elem, label);
    *cap = n;
}

void sim_names_append(char *buf, size_t len, size_t *off, const char *name)
{
    if (*off >= len)
        return;
    int n = snprintf(buf + *off, len - *off, "%s%s", *off ? ", " : "", name);
    if (n > 0)
        *off += (size_t)n;
}

void sim_fmt_shortest(double v, char *buf, size_t len)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

double sim_thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int sim_env_flag(const char *name)
{
    const char *e = getenv(name);
    return e && e[0] && strcmp(e, "0") != 0;
}

double sim_peak_rss_mib(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)ru.ru_maxrss / 1024.0; /* Linux: KiB */
}

double sim_mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
