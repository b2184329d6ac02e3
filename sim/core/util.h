/* sim/core/util.h: allocation wrapper, always-on assertions and the user-error
 * buffer shared by every module. Invariant: library code never exits on
 * user input; it fills a sim_err_t and returns -1, and the command drivers
 * print it (sim/cli/main.c's header says who prints what). */
#ifndef SIM_UTIL_H
#define SIM_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Simulated time: integer nanoseconds. */
typedef int64_t sim_time_t;
#define SIM_NS_PER_S INT64_C(1000000000)
#define SIM_NS_PER_MS INT64_C(1000000)
/* The longest duration sim_s_to_ns takes: INT64_MAX / 2 ns (about 146
 * years), so that a time plus one such duration cannot overflow. */
#define SIM_MAX_DURATION_NS (INT64_MAX / 2)

/* Seconds s as *ns, rounded to the nearest ns (llround): 0, or -1 when s is
 * not finite, negative, or longer than SIM_MAX_DURATION_NS (*ns untouched).
 * The one checked conversion for durations a user gives. */
int sim_s_to_ns(double s, sim_time_t *ns);

#define SIM_ERR_LEN 512
/* A caller-owned buffer for user-input errors ("file:line: message"). io
 * tells the system's failures (a write, rename or fsync of results: disk
 * full, permission denied) from bad input, so main can exit 1, not 2. */
typedef struct sim_err {
    char msg[SIM_ERR_LEN];
    int io;
} sim_err_t;

/* Format an error into err (may be NULL), io cleared; sim_errf_io sets
 * it. Both return -1 so callers can write `return sim_errf(err, ...)`.
 * The message is valid UTF-8: a byte that does not begin or continue a
 * well-formed character becomes the four characters \xNN, and a message
 * that no longer fits is cut between whole characters. */
int sim_errf(sim_err_t *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int sim_errf_io(sim_err_t *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Bugs: an always-on assertion that prints the expression and file:line,
 * then aborts. Never used for user input. */
#define SIM_ASSERT(e) \
    ((e) ? (void)0 : sim_assert_fail(#e, __FILE__, __LINE__))
_Noreturn void sim_assert_fail(const char *expr, const char *file, int line);

/* All allocation goes through these; on failure they abort with the size
 * and label (out of memory is not a recoverable error here). Memory from
 * them is released with sim_free (which accepts NULL). */
void *sim_xmalloc(size_t n, const char *label);
void *sim_xcalloc(size_t n, size_t size, const char *label);
void *sim_xrealloc(void *p, size_t n, const char *label);
/* sim_xcalloc for the next, larger block of something that grows by
 * replacing its block (a hash map's slots): from the size at which
 * sim_xrealloc moves a growing block to a mapping of its own, so does it. */
void *sim_xcalloc_grown(size_t n, size_t size, const char *label);
char *sim_xstrdup(const char *s, const char *label);
void sim_free(void *p);

/* Live bytes and live allocations through the wrapper on the calling
 * thread (for leak tests). */
size_t sim_alloc_live_bytes(void);
size_t sim_alloc_live_count(void);
/* 1 when blocks of 1 MiB and up get mappings of their own (huge pages,
 * growth by moving pages, bytes starting on a 64-byte cache line); 0 under
 * AddressSanitizer or without the system calls (malloc's alignment). */
int sim_alloc_large_mapped(void);

/* Grow *arr (element size elem) so it holds at least need elements;
 * *cap is updated. Doubling growth: amortized O(1). The test whether it
 * already holds them is inline: hot appends (pool entries, event records)
 * make it on every call and grow a handful of times. sim_grow_to is the
 * growth alone, for need > *cap. */
void sim_grow_to(void **arr, size_t *cap, size_t need, size_t elem, const char *label);
static inline void sim_grow(void **arr, size_t *cap, size_t need, size_t elem, const char *label)
{
    if (need > *cap)
        sim_grow_to(arr, cap, need, elem, label);
}

/* sim_grow whose new elements are zero bytes: written only where the
 * block stays in the C library's heap (past a mapped block's size its
 * mapping is zero already, and stays untouched until used). */
void sim_grow_zeroed(void **arr, size_t *cap, size_t need, size_t elem, const char *label);

/* A slab: zeroed blocks of power-of-two sizes, 64 bytes up to
 * SIM_SLAB_MAX, carved from a few large blocks, for many small arrays
 * that live about as long as the slab (the decode instances' iteration
 * rings): they share huge pages (see sim_alloc_large_mapped) instead of
 * each faulting in its own 4 KiB pages. A released block is kept for the
 * next request of its size class. Larger requests, and every request
 * under AddressSanitizer (so that it still checks their bounds), go to
 * sim_xcalloc and back to sim_free. Zero-initialize; not thread-safe
 * (one per run). */
#define SIM_SLAB_CLASSES 14
#define SIM_SLAB_MAX ((size_t)64 << (SIM_SLAB_CLASSES - 1))
typedef struct sim_slab {
    void *free[SIM_SLAB_CLASSES]; /* released blocks by class, linked through their first word */
    void **chunks;
    size_t n_chunks, cap_chunks;
    char *cur;   /* the newest chunk's bytes not yet carved */
    size_t left;
} sim_slab_t;
/* n bytes, zeroed. */
void *sim_slab_alloc(sim_slab_t *s, size_t n, const char *label);
/* n bytes, not zeroed: for an array its owner writes before it reads
 * (a grown ring, its kept part copied in). Released as sim_slab_alloc's. */
void *sim_slab_alloc_raw(sim_slab_t *s, size_t n, const char *label);
/* Give back p, from sim_slab_alloc(s, n); NULL is ignored. */
void sim_slab_release(sim_slab_t *s, void *p, size_t n);
/* Free the chunks; every block larger than SIM_SLAB_MAX must have been
 * released. s is empty again. */
void sim_slab_free(sim_slab_t *s);

/* Append ", name" (or "name" first) to buf of size len at *off, for
 * the lists of valid names in error messages; truncates safely. */
void sim_names_append(char *buf, size_t len, size_t *off, const char *name);

/* Settle the C library's allocator for a simulator process (a program's
 * first call, before any thread starts): blocks below 4 MiB come from its
 * heap, which grows 32 MiB at a time, never from a mapping of their own
 * (see sim/core/util.c). Speed only; what a run computes does not change. */
void sim_malloc_tune(void);

/* Monotonic wall-clock seconds (for timing runs, never for results). */
double sim_mono_s(void);
/* CPU seconds the calling thread has used (user + system). */
double sim_thread_cpu_s(void);
/* The process's peak resident set, in MiB. */
double sim_peak_rss_mib(void);

/* 64-bit FNV-1a: h (SIM_FNV1A64_BASIS to start) with the n bytes at p
 * folded in. Passing the result back as h hashes a stream in chunks:
 * the same value as one call over the concatenation. */
#define SIM_FNV1A64_BASIS UINT64_C(0xcbf29ce484222325)
uint64_t sim_fnv1a64(uint64_t h, const void *p, size_t n);

/* v as the shortest "%.{15,16,17}g" that reads back as v (into buf). */
void sim_fmt_shortest(double v, char *buf, size_t len);

/* The code version, recorded in every result (generated by the build). */
extern const char sim_version[];

/* SIM_UNDER_ASAN is 1 in an AddressSanitizer build: code that recycles
 * memory itself gives it back to malloc instead there, so the sanitizer
 * still sees a use after the end of an object's life. */
#if defined(__SANITIZE_ADDRESS__) /* gcc */
#define SIM_UNDER_ASAN 1
#elif defined(__has_feature) /* clang */
#if __has_feature(address_sanitizer)
#define SIM_UNDER_ASAN 1
#endif
#endif
#ifndef SIM_UNDER_ASAN
#define SIM_UNDER_ASAN 0
#endif

#define SIM_MIN(a, b) ((a) < (b) ? (a) : (b))
#define SIM_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
