/* sim/policy/admit_predictive.c: prediction-based early rejection: before
 * prefill, forecast the decode load at the time the request would reach
 * decode (now + its predicted TTFT, or a fixed horizon): requests decoding
 * now leave after a uniform decode time t_d (system level, as the paper;
 * t_d learned as the mean of observed decode durations unless set) or, as
 * the request-level variant, after their real remaining tokens (oracle);
 * requests in prefill join when their predicted prefill ends. Admit when
 * both the prefill load and that forecast are within the threshold. */
#include "sim/admit.h"
#include "sim/cluster.h"

static int pred_arrival(void *st, const sim_cluster_t *c, const sim_req_t *r)
{
    (void)st;
    const sim_cluster_args_t *a = sim_cluster_args(c);
    sim_time_t ttft = sim_cluster_best_ttft_ns(c, r);
    if ((double)ttft / (double)a->slo_ttft_ns > a->admit_threshold)
        return 0;
    sim_time_t at = sim_cluster_now(c) + (a->admit_horizon_ns ? a->admit_horizon_ns : ttft);
    return sim_admit_decode_load(c, at) <= a->admit_threshold;
}

const sim_admit_ops_t sim_admit_predictive = {
    .name = "predictive",
    .help = "before prefill: prefill load and the decode load forecast for when it reaches decode",
    .init = NULL,
    .free = NULL,
    .at_arrival = pred_arrival,
    .after_prefill = sim_admit_always,
};
