/* sim/core/hmap.c: see hmap.h. */
#include "sim/core/hmap.h"

#include <string.h>

#include "sim/core/util.h"

static size_t slot_of(uint64_t k, size_t mask)
{
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    k ^= k >> 33;
    k *= UINT64_C(0xc4ceb9fe1a85ec53);
    k ^= k >> 33;
    return (size_t)k & mask;
}

void sim_hmap_init(sim_hmap_t *m) { memset(m, 0, sizeof *m); }

void sim_hmap_free(sim_hmap_t *m)
{
    sim_free(m->slots);
    memset(m, 0, sizeof *m);
}

static size_t find(const sim_hmap_t *m, uint64_t key)
{
    size_t mask = m->cap - 1;
    size_t i = slot_of(key, mask);
    while (m->slots[i].used && m->slots[i].key != key)
        i = (i + 1) & mask;
    return i;
}

uint32_t *sim_hmap_get(const sim_hmap_t *m, uint64_t key)
{
    if (!m->cap)
        return NULL;
    size_t i = find(m, key);
    return m->slots[i].used ? &m->slots[i].val : NULL;
}

static void grow(sim_hmap_t *m)
{
    sim_hmap_t old = *m;
    size_t cap = old.cap ? old.cap * 2 : 64;
    m->slots = sim_xcalloc_grown(cap, sizeof *m->slots, "hmap slots");
    m->cap = cap;
    for (size_t i = 0; i < old.cap; i++)
        if (old.slots[i].used)
            m->slots[find(m, old.slots[i].key)] = old.slots[i];
    sim_free(old.slots);
}

uint32_t *sim_hmap_upsert(sim_hmap_t *m, uint64_t key, uint32_t val, int *inserted)
{
    if ((m->n + 1) * 2 > m->cap)
        grow(m);
    size_t i = find(m, key);
    int fresh = !m->slots[i].used;
    if (fresh) {
        m->slots[i] = (sim_hmap_slot_t){.key = key, .val = val, .used = 1};
        m->n++;
    }
    if (inserted)
        *inserted = fresh;
    return &m->slots[i].val;
}

void sim_hmap_put(sim_hmap_t *m, uint64_t key, uint32_t val)
{
    *sim_hmap_upsert(m, key, val, NULL) = val;
}

int sim_hmap_del(sim_hmap_t *m, uint64_t key)
{
    if (!m->cap)
        return 0;
    size_t mask = m->cap - 1, i = find(m, key);
    if (!m->slots[i].used)
        return 0;
    /* Backward shift: pull later entries of the probe run into the hole
     * unless they already sit at or after their home slot. */
    for (size_t j = (i + 1) & mask; m->slots[j].used; j = (j + 1) & mask) {
        size_t home = slot_of(m->slots[j].key, mask);
        int movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
        if (movable) {
            m->slots[i] = m->slots[j];
            i = j;
        }
    }
    m->slots[i].used = 0;
    m->n--;
    return 1;
}

int sim_hmap_next(const sim_hmap_t *m, size_t *it, uint64_t *key, uint32_t *val)
{
    for (; *it < m->cap; (*it)++)
        if (m->slots[*it].used) {
            *key = m->slots[*it].key;
            *val = m->slots[*it].val;
            (*it)++;
            return 1;
        }
    return 0;
}
