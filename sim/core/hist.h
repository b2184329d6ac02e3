/* sim/core/hist.h: a log-linear histogram of non-negative int64 values (ns) for
 * percentiles over millions of samples in bounded memory. Values below
 * 2048 are exact; above, buckets are 1/1024 of their octave wide, so a
 * reported percentile is within 0.1% of the true sample value. Adding is
 * O(1); percentile queries are O(buckets). */
#ifndef SIM_HIST_H
#define SIM_HIST_H

#include <stddef.h>
#include <stdint.h>

/* Buckets come in groups of 1024 (group g holds buckets g * 1024 ..), each
 * allocated when a value first lands in it: a run's values span a few
 * octaves, so only their groups are ever touched. INT64_MAX's bucket is
 * in group 53. */
#define SIM_HIST_GROUPS 54
typedef struct sim_hist {
    uint64_t *group[SIM_HIST_GROUPS];
    uint64_t total;
    __int128 sum;     /* exact sum of values (a GCC extension: 64 bits
                       * overflow at 292 years of summed ns) */
    int64_t max;
} sim_hist_t;

void sim_hist_init(sim_hist_t *h);
void sim_hist_free(sim_hist_t *h);
/* Add value v (>= 0) count times. */
void sim_hist_add(sim_hist_t *h, int64_t v, uint64_t count);
/* The least value above v (>= 0) in another bucket: the values in
 * [v, sim_hist_bucket_end(v)) share v's bucket (2^63 for the last). */
uint64_t sim_hist_bucket_end(int64_t v);
/* n values of v's bucket, summing to sum, the largest mx, each added
 * count times: sim_hist_add(h, x, count) for each of them does the same. */
void sim_hist_add_run(sim_hist_t *h, int64_t v, uint64_t n, __int128 sum, int64_t mx,
                      uint64_t count);
/* Nearest-rank percentile, q in (0, 1]: the bucket holding the
 * ceil(q*total)-th smallest sample, reported at its midpoint (exact below
 * 2048, the max for the top bucket). 0 when empty. */
int64_t sim_hist_percentile(const sim_hist_t *h, double q);
double sim_hist_mean(const sim_hist_t *h);

#endif
