/* sim/core/hmap.h: an open-addressing hash map from uint64 keys to uint32
 * values (linear probing, backward-shift deletion, so no tombstones).
 * Every key is allowed. get/put/del are expected O(1); the load factor is
 * kept at or below 1/2 by doubling. */
#ifndef SIM_HMAP_H
#define SIM_HMAP_H

#include <stddef.h>
#include <stdint.h>

/* One slot: key, value and occupancy share a cache line. */
typedef struct sim_hmap_slot {
    uint64_t key;
    uint32_t val;
    uint32_t used;
} sim_hmap_slot_t;

typedef struct sim_hmap {
    sim_hmap_slot_t *slots;
    size_t cap; /* 0 or a power of two */
    size_t n;
} sim_hmap_t;

void sim_hmap_init(sim_hmap_t *m);
void sim_hmap_free(sim_hmap_t *m);
/* Pointer to the value of key, or NULL; valid until the next put/del. */
uint32_t *sim_hmap_get(const sim_hmap_t *m, uint64_t key);
/* Insert or overwrite. */
void sim_hmap_put(sim_hmap_t *m, uint64_t key, uint32_t val);
/* Pointer to key's value, inserting it with val first when absent
 * (*inserted tells which; may be NULL). Valid until the next put/del. */
uint32_t *sim_hmap_upsert(sim_hmap_t *m, uint64_t key, uint32_t val, int *inserted);
/* Remove key; 1 if it was present. */
int sim_hmap_del(sim_hmap_t *m, uint64_t key);
/* Iterate: start with *it = 0; 1 with the next (key, value), 0 at the end.
 * Order depends only on the operations done, so it is deterministic. */
int sim_hmap_next(const sim_hmap_t *m, size_t *it, uint64_t *key, uint32_t *val);

#endif
