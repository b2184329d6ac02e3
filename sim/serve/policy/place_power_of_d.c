/* sim/serve/policy/place_power_of_d.c: the power of d choices (Mitzenmacher,
 * "The Power of Two Choices in Randomized Load Balancing", IEEE TPDS
 * 2001; Sparrow's batch sampling, SOSP'13): sample `choices` distinct
 * prefill instances uniformly at random and take the one with the least
 * predicted queue wait (ties: the first sampled); decode least loaded. It
 * reads d instances' state per request instead of all of them, which is
 * what a scheduler of thousands of instances can afford. With choices = 1
 * it draws exactly as `random` does. */
#include <gsl/gsl_rng.h>

#include "sim/serve/cluster.h"
#include "sim/serve/place.h"
#include "sim/core/rng.h"

typedef struct pod_params {
    int64_t choices;
} pod_params_t;

static const sim_param_t pod_fields[] = {
    SIM_PARAM_I("choices", pod_params_t, choices, 1, 4096, "2",
                "prefill instances sampled per request (more than there are: all of them)"),
};
static const sim_params_t pod_params = SIM_PARAMS(pod_fields, pod_params_t);

typedef struct pod {
    gsl_rng *rng;
    int d;
    int *idx; /* a permutation of the instances, the identity between requests */
    int *swapped;
} pod_t;

static void *pod_init(const sim_cluster_t *c, const void *params)
{
    int n = sim_cluster_n_prefill(c);
    pod_t *s = sim_xmalloc(sizeof *s, "power_of_d");
    s->rng = sim_rng_new(sim_cluster_args(c)->seed, SIM_RNG_PLACEMENT);
    int64_t d = ((const pod_params_t *)params)->choices;
    s->d = d < n ? (int)d : n;
    s->idx = sim_xmalloc(sizeof *s->idx * (size_t)n, "power_of_d permutation");
    s->swapped = sim_xmalloc(sizeof *s->swapped * (size_t)s->d, "power_of_d draws");
    for (int i = 0; i < n; i++)
        s->idx[i] = i;
    return s;
}

static void pod_free(void *st)
{
    pod_t *s = st;
    if (!s)
        return;
    gsl_rng_free(s->rng);
    sim_free(s->idx);
    sim_free(s->swapped);
    sim_free(s);
}

/* Partial Fisher-Yates: the k-th draw picks among the n - k instances not
 * yet sampled; the swaps are undone afterwards, so the work is O(d). */
static int pod_place(void *st, const sim_cluster_t *c, const sim_req_t *r, sim_place_decision_t *out)
{
    pod_t *s = st;
    int n = sim_cluster_n_prefill(c), best = -1;
    sim_time_t best_t = INT64_MAX;
    for (int k = 0; k < s->d; k++) {
        int j = k + (int)gsl_rng_uniform_int(s->rng, (unsigned long)(n - k));
        int t = s->idx[k];
        s->idx[k] = s->idx[j];
        s->idx[j] = t;
        s->swapped[k] = j;
        sim_time_t w = sim_cluster_prefill_wait_ns(c, s->idx[k]);
        if (w < best_t) {
            best_t = w;
            best = s->idx[k];
        }
    }
    for (int k = s->d - 1; k >= 0; k--) {
        int j = s->swapped[k], t = s->idx[k];
        s->idx[k] = s->idx[j];
        s->idx[j] = t;
    }
    sim_place_on(c, r, best, out);
    return SIM_PLACE_OK;
}

const sim_place_ops_t sim_place_power_of_d = {
    .name = "power_of_d",
    .help = "the least predicted queue wait among `choices` prefill instances sampled at random; "
            "decode least loaded",
    .params = &pod_params,
    .init = pod_init,
    .free = pod_free,
    .place = pod_place,
};
