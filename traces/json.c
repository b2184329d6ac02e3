/* traces/json.c: see trace_int.h. cJSON allocates every value of a record
 * (a 64-byte node per hash id) and frees each again; here a parse's
 * allocations come from its reader's arena, bumped and reset per record,
 * so a record costs no call to malloc or free. cJSON's allocator hooks
 * are process-wide, so they are set once and send each call to the
 * arena that the calling thread is parsing into, or to malloc and free
 * when there is none (every other use of cJSON). Under AddressSanitizer
 * cJSON keeps malloc, so its accesses stay checked. */
#include "traces/trace_int.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include <cJSON.h>

/* The first arena; one that overflowed grows, before the next record, to
 * twice its size or the overflowing record's, whichever is larger. */
#define ARENA_MIN ((size_t)64 << 10)

#if !SIM_UNDER_ASAN
/* The arena the calling thread is parsing into (or releasing from). */
static _Thread_local trace_json_arena_t *cur;

static int in_arena(const trace_json_arena_t *a, const void *p)
{
    uintptr_t u = (uintptr_t)p, b = (uintptr_t)a->buf;
    return u >= b && u - b < a->cap;
}

static void *arena_alloc(size_t n)
{
    trace_json_arena_t *a = cur;
    if (a) {
        size_t need = (n + 15) & ~(size_t)15; /* malloc's alignment */
        if (need >= n && need <= a->cap - a->used) {
            void *p = a->buf + a->used;
            a->used += need;
            return p;
        }
        a->spilled += n;
    }
    return malloc(n);
}

static void arena_free(void *p)
{
    if (cur && in_arena(cur, p))
        return; /* the arena is reset whole */
    free(p);
}

static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

static void hooks_init(void)
{
    cJSON_Hooks h = {.malloc_fn = arena_alloc, .free_fn = arena_free};
    cJSON_InitHooks(&h);
}
#endif

cJSON *trace_json_parse(trace_json_arena_t *a, const char *text, size_t len, const char **end)
{
#if SIM_UNDER_ASAN
    (void)a;
#else
    pthread_once(&hooks_once, hooks_init);
    if (a->spilled || !a->buf) { /* (only between records: nothing lives in it) */
        size_t cap = a->buf ? 2 * a->cap : ARENA_MIN;
        while (cap < a->used + a->spilled) /* the last record's whole size */
            cap *= 2;
        sim_free(a->buf);
        a->buf = sim_xmalloc(cap, "trace record arena");
        a->cap = cap;
    }
    a->used = 0;
    a->spilled = 0;
    cur = a;
#endif
    /* len + 1: cJSON checks for the terminating NUL inside the length. */
    cJSON *obj = cJSON_ParseWithLengthOpts(text, len + 1, end, 1);
#if !SIM_UNDER_ASAN
    cur = NULL;
#endif
    return obj;
}

int trace_json_too_deep(const char *text, const char *end)
{
    if (*end != '[' && *end != '{')
        return 0;
    long depth = 0;
    for (const char *p = text; p < end; p++) {
        if (*p == '"') { /* past the string: its brackets do not count */
            for (p++; p < end && *p != '"'; p++)
                p += *p == '\\' && p + 1 < end;
            continue;
        }
        depth += (*p == '[' || *p == '{') - (*p == ']' || *p == '}');
    }
    return depth >= CJSON_NESTING_LIMIT;
}

void trace_json_release(trace_json_arena_t *a, cJSON *obj)
{
#if SIM_UNDER_ASAN
    (void)a;
    cJSON_Delete(obj);
#else
    if (!obj || !a->spilled)
        return; /* every value is in the arena */
    cur = a; /* the values past the arena go back to malloc */
    cJSON_Delete(obj);
    cur = NULL;
#endif
}

void trace_json_arena_free(trace_json_arena_t *a)
{
    sim_free(a->buf);
    *a = (trace_json_arena_t){0};
}
