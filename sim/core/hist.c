/* sim/core/hist.c: see hist.h. Bucket index: v < 2048 -> v; else with
 * shift = msb(v) - 10, (shift + 1) * 1024 + (v >> shift) - 1024. */
#include "sim/core/hist.h"

#include <math.h>
#include <string.h>

#include "sim/core/util.h"

#define SUB 1024

/* The bucket of u holds [u >> shift << shift, + 2^shift). */
static int bucket_shift(uint64_t u) { return u < 2 * SUB ? 0 : 63 - __builtin_clzll(u) - 10; }

/* (Below 2 * SUB the shift is 0 and this is u itself.) */
static size_t bucket_at(uint64_t u, int shift)
{
    return (size_t)(shift + 1) * SUB + (size_t)((u >> shift) - SUB);
}

static int64_t bucket_mid(size_t b)
{
    if (b < 2 * SUB)
        return (int64_t)b;
    size_t shift = b / SUB - 1;
    uint64_t low = (uint64_t)(b % SUB + SUB) << shift;
    return (int64_t)(low + (UINT64_C(1) << shift) / 2);
}

void sim_hist_init(sim_hist_t *h) { memset(h, 0, sizeof *h); }

void sim_hist_free(sim_hist_t *h)
{
    for (size_t g = 0; g < SIM_HIST_GROUPS; g++)
        sim_free(h->group[g]);
    memset(h, 0, sizeof *h);
}

/* Group g's counts, allocated (zero): the first value in it. */
__attribute__((noinline)) static uint64_t *group_new(sim_hist_t *h, size_t g)
{
    SIM_ASSERT(g < SIM_HIST_GROUPS);
    h->group[g] = sim_xcalloc(SUB, sizeof *h->group[g], "histogram");
    return h->group[g];
}

/* The counts of bucket b's group, allocated (zero) when new. b's group
 * is below SIM_HIST_GROUPS for any u < 2^63 (see hist.h), which the
 * callers' v >= 0 assures. */
static inline uint64_t *group_of(sim_hist_t *h, size_t b)
{
    uint64_t *g = h->group[b / SUB];
    return g ? g : group_new(h, b / SUB);
}

/* Count n values of u's bucket (shift its bucket_shift). Inline in both
 * adders: a call passing an __int128 costs about as much as the add. */
static inline __attribute__((always_inline)) void add_at(sim_hist_t *h, uint64_t u, int shift,
                                                         uint64_t n, __int128 sum, int64_t mx,
                                                         uint64_t count)
{
    size_t b = bucket_at(u, shift);
    group_of(h, b)[b % SUB] += count * n;
    h->total += count * n;
    h->sum += sum * count;
    h->max = mx > h->max ? mx : h->max;
}

void sim_hist_add(sim_hist_t *h, int64_t v, uint64_t count)
{
    SIM_ASSERT(v >= 0);
    if (count > 0)
        add_at(h, (uint64_t)v, bucket_shift((uint64_t)v), 1, v, v, count);
}

uint64_t sim_hist_bucket_end(int64_t v)
{
    SIM_ASSERT(v >= 0);
    uint64_t u = (uint64_t)v;
    int shift = bucket_shift(u);
    return (u >> shift << shift) + (UINT64_C(1) << shift);
}

void sim_hist_add_run(sim_hist_t *h, int64_t v, uint64_t n, __int128 sum, int64_t mx,
                      uint64_t count)
{
    SIM_ASSERT(v >= 0 && mx >= v);
    uint64_t u = (uint64_t)v;
    int shift = bucket_shift(u);
    SIM_ASSERT((uint64_t)mx >> shift == u >> shift); /* mx in v's bucket */
    if (n > 0 && count > 0)
        add_at(h, u, shift, n, sum, mx, count);
}

int64_t sim_hist_percentile(const sim_hist_t *h, double q)
{
    if (h->total == 0)
        return 0;
    uint64_t rank = (uint64_t)ceil(q * (double)h->total);
    if (rank < 1)
        rank = 1;
    if (rank > h->total)
        rank = h->total;
    uint64_t cum = 0;
    for (size_t g = 0; g < SIM_HIST_GROUPS; g++) {
        if (!h->group[g])
            continue;
        for (size_t k = 0; k < SUB; k++) {
            cum += h->group[g][k];
            if (cum >= rank) {
                int64_t mid = bucket_mid(g * SUB + k);
                return mid > h->max ? h->max : mid;
            }
        }
    }
    return h->max;
}

double sim_hist_mean(const sim_hist_t *h)
{
    return h->total ? (double)h->sum / (double)h->total : 0.0;
}
