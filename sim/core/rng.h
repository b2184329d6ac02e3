/* sim/core/rng.h: per-purpose random streams derived from one master seed.
 * Invariant: stream k's seed depends only on (master seed, k), so adding a
 * stream never shifts the numbers another stream draws. */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

/* Stream ids: append new purposes at the end, never renumber. */
enum {
    SIM_RNG_ARRIVALS = 1,
    SIM_RNG_LENGTHS = 2,
    SIM_RNG_SESSIONS = 3,
    SIM_RNG_PLACEMENT = 4,
};

/* The 32-bit mt19937 seed for (master, stream): a splitmix64 mix whose low
 * 32 bits are never 0 (GSL maps seed 0 to 4357, which would alias). */
unsigned long sim_rng_seed(uint64_t master, uint32_t stream);

/* A new mt19937 generator for (master, stream). Caller frees with
 * gsl_rng_free. Never reads the environment. */
gsl_rng *sim_rng_new(uint64_t master, uint32_t stream);

#endif
