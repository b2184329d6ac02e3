/* sim/core/registry.h: plug-in registries. A registry is an array of pointers
 * to const ops tables whose FIRST member is `const char *name`; lookup is by
 * that name. Invariant: names in one registry are unique (checked by
 * sim_registry_check, which the tests run on every registry). */
#ifndef SIM_REGISTRY_H
#define SIM_REGISTRY_H

#include <stddef.h>

#define SIM_REGISTRY_LEN(reg) (sizeof(reg) / sizeof((reg)[0]))

/* The entry named name, or NULL. O(n). */
const void *sim_registry_find(const void *const *reg, size_t n, const char *name);
/* "a, b, c" into buf (of size len). */
void sim_registry_names(const void *const *reg, size_t n, char *buf, size_t len);
/* 0 when names are unique and non-empty, else -1. */
int sim_registry_check(const void *const *reg, size_t n);

#endif
