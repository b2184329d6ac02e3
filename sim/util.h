/* sim/util.h: allocation wrapper, always-on assertions and the user-error
 * buffer shared by every module. Invariant: library code never exits on
 * user input; it fills a sim_err_t and returns -1, and only main prints. */
#ifndef SIM_UTIL_H
#define SIM_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Simulated time: integer nanoseconds. */
typedef int64_t sim_time_t;
#define SIM_NS_PER_S INT64_C(1000000000)
#define SIM_NS_PER_MS INT64_C(1000000)

#define SIM_ERR_LEN 512
/* A caller-owned buffer for user-input errors ("file:line: message"). */
typedef struct sim_err {
    char msg[SIM_ERR_LEN];
} sim_err_t;

/* Format an error into err (may be NULL). Always returns -1 so callers can
 * write `return sim_errf(err, ...)`. */
int sim_errf(sim_err_t *err, const char *fmt, ...)
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
char *sim_xstrdup(const char *s, const char *label);
void sim_free(void *p);

/* Live bytes and live allocations through the wrapper (for leak tests). */
size_t sim_alloc_live_bytes(void);
size_t sim_alloc_live_count(void);

/* Grow *arr (element size elem) so it holds at least need elements;
 * *cap is updated. Doubling growth: amortized O(1). */
void sim_grow(void **arr, size_t *cap, size_t need, size_t elem, const char *label);

/* Append ", name" (or "name" first) to buf of size len at *off, for
 * the lists of valid names in error messages; truncates safely. */
void sim_names_append(char *buf, size_t len, size_t *off, const char *name);

#define SIM_MIN(a, b) ((a) < (b) ? (a) : (b))
#define SIM_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
