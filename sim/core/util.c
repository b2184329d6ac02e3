/* sim/core/util.c: see util.h. The allocator prefixes each block with its size
 * so tests can count live bytes; max_align_t keeps the payload aligned. */
/* mremap and madvise (MADV_HUGEPAGE) for the large blocks are Linux's,
 * outside POSIX. */
#define _GNU_SOURCE
#include "sim/core/util.h"

#include <math.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

typedef union alloc_hdr {
    struct {
        size_t size; /* the caller's bytes */
        size_t map;  /* a large block: bytes of its own mapping; else 0 */
    } h;
    max_align_t align;
} alloc_hdr_t;

/* Per thread: a sweep runs points on several threads at once, and each
 * run allocates and frees on its own thread; the leak tests count on the
 * thread that runs them. */
static _Thread_local size_t live_bytes;
static _Thread_local size_t live_count;

/* The length of the UTF-8 character at s (n bytes left), or 0 when s
 * does not start a whole, well-formed one (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF). */
static size_t utf8_char_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                                                       : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (len == 0 || len > n)
        return 0;
    for (size_t k = 1; k < len; k++)
        if ((s[k] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) || (c == 0xF0 && s[1] < 0x90) ||
        (c == 0xF4 && s[1] > 0x8F))
        return 0;
    return len;
}

/* msg (a sim_err_t's) rewritten as valid UTF-8 in place (sim_errf). */
static void utf8_clean(char *msg)
{
    char out[SIM_ERR_LEN];
    size_t room = sizeof out, o = 0, n = strlen(msg);
    const unsigned char *s = (const unsigned char *)msg;
    for (size_t i = 0; i < n;) {
        size_t len = utf8_char_len(s + i, n - i);
        if (o + (len ? len : 4) >= room)
            break;
        if (len) {
            memcpy(out + o, s + i, len);
            o += len;
            i += len;
        } else {
            snprintf(out + o, 5, "\\x%02x", s[i]);
            o += 4;
            i++;
        }
    }
    out[o] = '\0';
    memcpy(msg, out, o + 1);
}

/* msg from fmt, made valid UTF-8 (utf8_clean): an error may quote
 * bytes of a bad input, and it travels on as JSON (MPI sweeps) and CSV. */
static void err_fill(sim_err_t *err, int io, const char *fmt, va_list ap)
{
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    utf8_clean(err->msg);
    err->io = io;
}

int sim_errf(sim_err_t *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err_fill(err, 0, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int sim_errf_io(sim_err_t *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err_fill(err, 1, fmt, ap);
        va_end(ap);
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

/* Large blocks (1 MiB and up, such as the pool's entries and its index,
 * and blocks that grow to 256 KiB or more) get mappings of their own, in whole 2 MiB huge pages at 2 MiB
 * boundaries, advised for transparent huge pages. Such a block is touched
 * page by page as it fills, and each first touch of a 4 KiB page is a
 * fault that the kernel serves and zeroes: on a virtual machine, about a
 * third of a replay's CPU time. With THP ("madvise" or "always") a 2 MiB
 * page takes one fault instead of 512. Growing such a block moves its
 * pages into a larger mapping (mremap) rather than copying them, so
 * growth faults nothing that is already filled; a fresh mapping is zero,
 * so sim_xcalloc need not clear it. Where THP is off the advice is
 * ignored; where mappings are not available (not Linux), and under
 * AddressSanitizer (which checks the bounds of what malloc gives), large
 * blocks come from malloc like the rest. Contents, and so results, do not
 * change.
 * An array that doubles its way past BIG_GROW is usually still growing
 * (the pool's entries, its index, the hash maps' slots): in the C
 * library's heap each of its new pages would be a fault of its own, so it
 * moves to a mapping then. Blocks allocated at that size and never grown
 * stay in the heap, which hands out memory other blocks freed, already
 * touched. */
#if defined(MADV_HUGEPAGE) && defined(MREMAP_FIXED) && defined(MAP_ANONYMOUS) && \
    !SIM_UNDER_ASAN
#define BIG_MAPS 1
#define BIG_MIN ((size_t)1 << 20)
#define BIG_GROW ((size_t)256 << 10)
#else
#define BIG_MAPS 0
#define BIG_MIN SIZE_MAX
#define BIG_GROW SIZE_MAX
#endif
#define HUGE_PAGE ((size_t)2 << 20)
/* A large block's bytes start a cache line into its mapping, its header
 * just before them: an array of 64-byte elements then has each element on
 * one cache line, not straddling two. */
#define BIG_OFF ((size_t)64)
_Static_assert(sizeof(alloc_hdr_t) <= BIG_OFF, "a large block's header fits before its line");

/* Bytes of the mapping for a large block of n bytes (its header
 * included), or 0 when that does not fit a size_t. */
static size_t big_len(size_t n)
{
    if (n > SIZE_MAX - BIG_OFF - 2 * HUGE_PAGE)
        return 0;
    return (BIG_OFF + n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

#if BIG_MAPS
/* The mapping that holds large block h. */
static char *big_base(alloc_hdr_t *h) { return (char *)(h + 1) - BIG_OFF; }
#endif

/* The header of a large block in a zeroed mapping of len bytes (a
 * multiple of HUGE_PAGE) at a HUGE_PAGE boundary, advised for huge pages;
 * NULL when the system refuses. */
static alloc_hdr_t *big_map(size_t len)
{
#if BIG_MAPS
    size_t span = len + HUGE_PAGE;
    char *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    char *a = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (a > m)
        munmap(m, (size_t)(a - m));
    if (m + span > a + len)
        munmap(a + len, (size_t)(m + span - (a + len)));
    (void)madvise(a, len, MADV_HUGEPAGE); /* advice: speed only */
    return (alloc_hdr_t *)(a + BIG_OFF) - 1;
#else
    (void)len;
    return NULL;
#endif
}

/* A block of n bytes with its header set; *zeroed tells whether its
 * bytes are known to be zero. */
static void *xalloc(size_t n, size_t big, const char *label, int *zeroed)
{
    if (n > SIZE_MAX - sizeof(alloc_hdr_t))
        oom(n, label);
    alloc_hdr_t *h;
    size_t map = 0;
    if (n >= big) {
        map = big_len(n);
        h = map ? big_map(map) : NULL;
        *zeroed = 1;
    } else {
        h = malloc(sizeof *h + n);
        *zeroed = 0;
    }
    if (!h)
        oom(n, label);
    h->h.size = n;
    h->h.map = map;
    live_bytes += n;
    live_count++;
    return h + 1;
}

void *sim_xmalloc(size_t n, const char *label)
{
    int zeroed;
    return xalloc(n, BIG_MIN, label, &zeroed);
}

static void *xcalloc(size_t n, size_t size, size_t big, const char *label)
{
    if (size && n > SIZE_MAX / size)
        oom(SIZE_MAX, label);
    int zeroed;
    void *p = xalloc(n * size, big, label, &zeroed);
    if (!zeroed)
        memset(p, 0, n * size);
    return p;
}

void *sim_xcalloc(size_t n, size_t size, const char *label)
{
    return xcalloc(n, size, BIG_MIN, label);
}

void *sim_xcalloc_grown(size_t n, size_t size, const char *label)
{
    return xcalloc(n, size, BIG_GROW, label);
}

void *sim_xrealloc(void *p, size_t n, const char *label)
{
    if (!p)
        return sim_xmalloc(n, label);
    if (n > SIZE_MAX - sizeof(alloc_hdr_t))
        oom(n, label);
    alloc_hdr_t *h = (alloc_hdr_t *)p - 1;
    size_t old = h->h.size;
    alloc_hdr_t *nh;
    if (h->h.map && sizeof *h + n <= h->h.map) {
        nh = h; /* fits its mapping (which never shrinks) */
        if (n < old) /* what it gives up is zero again, as the rest of its mapping */
            memset((char *)(h + 1) + n, 0, old - n);
    } else if (h->h.map || n >= BIG_MIN || (n >= BIG_GROW && n > old)) {
        size_t map = big_len(n);
        nh = map ? big_map(map) : NULL;
        if (!nh)
            oom(n, label);
#if BIG_MAPS
        if (h->h.map) { /* move the pages; copy only if the move fails */
            if (mremap(big_base(h), h->h.map, h->h.map, MREMAP_MAYMOVE | MREMAP_FIXED,
                       big_base(nh)) == MAP_FAILED) {
                memcpy(nh, h, sizeof *h + old);
                munmap(big_base(h), h->h.map);
            }
        } else {
            memcpy(nh, h, sizeof *h + old);
            free(h);
        }
#endif
        nh->h.map = map;
    } else {
        nh = realloc(h, sizeof *nh + n);
        if (!nh)
            oom(n, label);
    }
    nh->h.size = n;
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
    live_bytes -= h->h.size;
    live_count--;
#if BIG_MAPS
    if (h->h.map) {
        munmap(big_base(h), h->h.map);
        return;
    }
#endif
    free(h);
}

size_t sim_alloc_live_bytes(void) { return live_bytes; }
size_t sim_alloc_live_count(void) { return live_count; }
int sim_alloc_large_mapped(void) { return BIG_MAPS; }

void sim_grow_to(void **arr, size_t *cap, size_t need, size_t elem, const char *label)
{
    size_t n = *cap ? *cap : 8;
    while (n < need)
        n *= 2;
    *arr = sim_xrealloc(*arr, n * elem, label);
    *cap = n;
}

void sim_grow_zeroed(void **arr, size_t *cap, size_t need, size_t elem, const char *label)
{
    size_t old = *cap;
    if (need <= old)
        return;
    sim_grow_to(arr, cap, need, elem, label);
    /* In a mapping of its own a block's bytes past its size are zero
     * (fresh pages, or given up and cleared by a shrink), so they are
     * left untouched, and cost nothing until used. */
    if (!((alloc_hdr_t *)*arr - 1)->h.map)
        memset((char *)*arr + old * elem, 0, (*cap - old) * elem);
}

/* ---- slab ---- */

/* The first chunk is small (from the C library's heap: a run with a few
 * instances touches no more than it did before); the rest are one huge
 * page each, their header included. */
#define SLAB_FIRST ((size_t)256 << 10)
#define SLAB_CHUNK (HUGE_PAGE - BIG_OFF)
_Static_assert(SIM_SLAB_MAX <= SLAB_CHUNK, "the largest class fits a chunk");

/* The class of a block of n bytes (1 .. SIM_SLAB_MAX): 64 << class >= n. */
static int slab_class(size_t n)
{
    return n <= 64 ? 0 : 64 - __builtin_clzll((unsigned long long)(n - 1)) - 6;
}

static void slab_push(sim_slab_t *s, int c, void *p)
{
    memcpy(p, &s->free[c], sizeof(void *));
    s->free[c] = p;
}

/* A new chunk with at least need bytes; what is left of the old one goes
 * to the free lists in the largest pieces that fit. */
static void slab_refill(sim_slab_t *s, size_t need, const char *label)
{
    while (s->left >= 64) {
        int c = SIM_SLAB_CLASSES - 1;
        while (((size_t)64 << c) > s->left)
            c--;
        slab_push(s, c, s->cur);
        s->cur += (size_t)64 << c;
        s->left -= (size_t)64 << c;
    }
    size_t len = s->n_chunks == 0 && need <= SLAB_FIRST ? SLAB_FIRST : SLAB_CHUNK;
    sim_grow((void **)&s->chunks, &s->cap_chunks, s->n_chunks + 1, sizeof *s->chunks,
             "slab chunks");
    s->cur = sim_xmalloc(len, label);
    s->chunks[s->n_chunks++] = s->cur;
    s->left = len;
}

void *sim_slab_alloc_raw(sim_slab_t *s, size_t n, const char *label)
{
    if (SIM_UNDER_ASAN || n == 0 || n > SIM_SLAB_MAX)
        return sim_xmalloc(n, label);
    int c = slab_class(n);
    size_t sz = (size_t)64 << c;
    void *p = s->free[c];
    if (p) {
        memcpy(&s->free[c], p, sizeof(void *));
    } else {
        if (s->left < sz)
            slab_refill(s, sz, label);
        p = s->cur;
        s->cur += sz;
        s->left -= sz;
    }
    return p;
}

void *sim_slab_alloc(sim_slab_t *s, size_t n, const char *label)
{
    if (SIM_UNDER_ASAN || n == 0 || n > SIM_SLAB_MAX)
        return sim_xcalloc(1, n, label);
    void *p = sim_slab_alloc_raw(s, n, label);
    memset(p, 0, n);
    return p;
}

void sim_slab_release(sim_slab_t *s, void *p, size_t n)
{
    if (!p)
        return;
    if (SIM_UNDER_ASAN || n == 0 || n > SIM_SLAB_MAX)
        sim_free(p);
    else
        slab_push(s, slab_class(n), p);
}

void sim_slab_free(sim_slab_t *s)
{
    for (size_t i = 0; i < s->n_chunks; i++)
        sim_free(s->chunks[i]);
    sim_free(s->chunks);
    memset(s, 0, sizeof *s);
}

void sim_names_append(char *buf, size_t len, size_t *off, const char *name)
{
    if (*off >= len)
        return;
    int n = snprintf(buf + *off, len - *off, "%s%s", *off ? ", " : "", name);
    if (n > 0)
        *off += (size_t)n;
}

uint64_t sim_fnv1a64(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
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

double sim_peak_rss_mib(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)ru.ru_maxrss / 1024.0; /* Linux: KiB */
}

/* glibc serves a block of 128 KiB or more (its default threshold) that
 * the top of its heap cannot hold with a mapping of its own: mapped, its
 * pages faulted in one at a time as they are first written, and unmapped
 * again when freed. A simulator process has a handful of such blocks
 * between the small ones of its heap and the large ones mapped here
 * (BIG_MIN): its output streams' buffers (256 KiB each), the first chunk
 * of its request slab, the trace reader's buffers, arrays on their way to
 * BIG_GROW. From the heap instead, grown 32 MiB at a time (address space;
 * pages are still touched only when used), the 8P + 8D conversation
 * replay took 4% to 6% less CPU time on a 2-core virtual machine (medians
 * of 21 back-to-back pairs on one core), the same at 64P + 64D and 512P +
 * 512D, and a 300k-request slice of the generated day 2.7% less, with
 * 614 page faults instead of 651 and 16 unmappings instead of 24. Most of
 * the time saved was in the copies into and out of the output buffers
 * (fwrite's, and write(2)'s into the page cache), more than 37 faults
 * account for; why a mapped buffer copies slower there was not
 * established. The threshold set here also stops glibc from raising it
 * as mapped blocks are freed, so the choice does not depend on what was
 * freed before. Under AddressSanitizer its own allocator serves malloc,
 * and other C libraries have no such settings. */
void sim_malloc_tune(void)
{
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TOP_PAD) && !SIM_UNDER_ASAN
    (void)mallopt(M_MMAP_THRESHOLD, 4 << 20); /* advice: speed only */
    (void)mallopt(M_TOP_PAD, 32 << 20);
#endif
}

double sim_mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
