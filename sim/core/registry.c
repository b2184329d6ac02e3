/* sim/core/registry.c: see registry.h. */
#include "sim/core/registry.h"

#include <string.h>

#include "sim/core/util.h"

/* Every ops table starts with its name, so a pointer to the table is a
 * pointer to that member (C11 6.7.2.1p15). */
static const char *name_of(const void *entry) { return *(const char *const *)entry; }

const void *sim_registry_find(const void *const *reg, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name_of(reg[i]), name) == 0)
            return reg[i];
    return NULL;
}

void sim_registry_names(const void *const *reg, size_t n, char *buf, size_t len)
{
    size_t off = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        sim_names_append(buf, len, &off, name_of(reg[i]));
}

int sim_registry_check(const void *const *reg, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!name_of(reg[i]) || !name_of(reg[i])[0])
            return -1;
        for (size_t j = 0; j < i; j++)
            if (strcmp(name_of(reg[i]), name_of(reg[j])) == 0)
                return -1;
    }
    return 0;
}
