/* sim/core/rng.c: see rng.h. */
#include "sim/core/rng.h"

#include "sim/core/util.h"

static uint64_t splitmix64(uint64_t x)
{
    x += UINT64_C(0x9E3779B97F4A7C15);
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

unsigned long sim_rng_seed(uint64_t master, uint32_t stream)
{
    uint64_t m = splitmix64(splitmix64(master) ^ ((uint64_t)stream * UINT64_C(0xD1B54A32D192ED03)));
    uint32_t lo = (uint32_t)(m ^ (m >> 32));
    return lo ? lo : 1u;
}

gsl_rng *sim_rng_new(uint64_t master, uint32_t stream)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    SIM_ASSERT(r != NULL);
    gsl_rng_set(r, sim_rng_seed(master, stream));
    return r;
}
