/* traces/idmap.c: see trace_int.h. Integer ids at or past 2^53 and string ids
 * become dense ids TRACE_MAPPED_ID_BASE + 0, 1, 2, ... in order of first
 * appearance. Strings are kept (exact: two strings share an id only when
 * equal), chained per 64-bit hash of their bytes. Memory grows with the
 * distinct mapped ids, never with the records. */
#include "traces/trace_int.h"

#include <string.h>

/* One distinct string: its bytes in the pool, the next string of the same
 * hash (index + 1, 0 = none), its dense index. */
typedef struct trace_idmap_str {
    size_t off;
    uint32_t len, next, dense;
} trace_idmap_str_t;

/* FNV-1a over the bytes, then a 64-bit finalizer (splitmix64's). */
static uint64_t str_hash(const char *s, size_t len)
{
    uint64_t h = sim_fnv1a64(SIM_FNV1A64_BASIS, s, len);
    h ^= h >> 30;
    h *= UINT64_C(0xbf58476d1ce4e5b9);
    h ^= h >> 27;
    h *= UINT64_C(0x94d049bb133111eb);
    return h ^ (h >> 31);
}

static int next_dense(trace_idmap_t *m, uint32_t *dense)
{
    if (m->n == UINT32_MAX)
        return -1;
    *dense = m->n++;
    return 0;
}

int trace_idmap_int(trace_idmap_t *m, uint64_t v, uint64_t *id)
{
    uint32_t *d = sim_hmap_get(&m->ints, v);
    uint32_t dense;
    if (!d) {
        if (next_dense(m, &dense) != 0)
            return -1;
        sim_hmap_put(&m->ints, v, dense);
    } else {
        dense = *d;
    }
    *id = TRACE_MAPPED_ID_BASE + dense;
    return 0;
}

int trace_idmap_str(trace_idmap_t *m, const char *s, size_t len, uint64_t *id)
{
    uint64_t h = str_hash(s, len);
    uint32_t *head = sim_hmap_get(&m->strs, h);
    for (uint32_t k = head ? *head : 0; k; k = m->str[k - 1].next) {
        const trace_idmap_str_t *e = &m->str[k - 1];
        if (e->len == len && memcmp(m->pool + e->off, s, len) == 0) {
            *id = TRACE_MAPPED_ID_BASE + e->dense;
            return 0;
        }
    }
    uint32_t dense;
    if (len > UINT32_MAX || next_dense(m, &dense) != 0)
        return -1;
    sim_grow((void **)&m->pool, &m->pool_cap, m->pool_len + len, 1, "trace id strings");
    memcpy(m->pool + m->pool_len, s, len);
    sim_grow((void **)&m->str, &m->str_cap, m->n_str + 1, sizeof *m->str, "trace id strings");
    m->str[m->n_str] = (trace_idmap_str_t){.off = m->pool_len, .len = (uint32_t)len,
                                           .next = head ? *head : 0, .dense = dense};
    m->pool_len += len;
    m->n_str++;
    sim_hmap_put(&m->strs, h, (uint32_t)m->n_str);
    *id = TRACE_MAPPED_ID_BASE + dense;
    return 0;
}

void trace_idmap_free(trace_idmap_t *m)
{
    sim_hmap_free(&m->ints);
    sim_hmap_free(&m->strs);
    sim_free(m->str);
    sim_free(m->pool);
    *m = (trace_idmap_t){0};
}
