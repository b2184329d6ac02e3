/* sim/serve/policy/admit_predictive.c: prediction-based early rejection: before
 * prefill, forecast the decode load at the time the request would reach
 * decode (now + its predicted TTFT, or a fixed horizon): requests decoding
 * now leave after a uniform decode time t_d (system level, as the paper;
 * t_d learned as the mean of observed decode durations unless set) or, as
 * the request-level variant, after their real remaining tokens (oracle);
 * requests in prefill join when their predicted prefill ends. Admit when
 * both the prefill load and that forecast are within the threshold. */
#include <math.h>
#include <string.h>

#include "sim/serve/admit.h"
#include "sim/serve/cluster.h"

typedef struct pred_params {
    double threshold;
    double t_d_s;
    double t_d_init_s;
    double horizon_s;
    char predictor[16];
} pred_params_t;

static const sim_param_t pred_fields[] = {
    SIM_ADMIT_THRESHOLD(pred_params_t, threshold),
    SIM_PARAM_N("t_d_s", pred_params_t, t_d_s, 0, 1e6, "0",
                "uniform decode time per request, s (0: the running mean of observed ones)"),
    SIM_PARAM_N("t_d_init_s", pred_params_t, t_d_init_s, 0.001, 1e6, "10",
                "t_d before any request has finished decoding, s"),
    SIM_PARAM_N("horizon_s", pred_params_t, horizon_s, 0, 1e6, "0",
                "forecast this far ahead, s (0: the request's own predicted TTFT)"),
    SIM_PARAM_E("predictor", pred_params_t, predictor, "system|oracle", "system",
                "system (uniform t_d) or oracle (each request's real output length)"),
};
static const sim_params_t pred_params = SIM_PARAMS(pred_fields, pred_params_t);

/* The parameters in the units the forecast takes. */
typedef struct pred_state {
    double threshold;
    sim_time_t t_d_ns;      /* 0: learned */
    sim_time_t t_d_init_ns;
    sim_time_t horizon_ns;  /* 0: the request's own predicted TTFT */
    int oracle;
} pred_state_t;

static void *pred_init(const sim_cluster_t *c, const void *params)
{
    (void)c;
    const pred_params_t *p = params;
    pred_state_t *s = sim_xmalloc(sizeof *s, "predictive admission");
    *s = (pred_state_t){
        .threshold = p->threshold,
        .t_d_ns = (sim_time_t)llround(p->t_d_s * 1e9),
        .t_d_init_ns = (sim_time_t)llround(p->t_d_init_s * 1e9),
        .horizon_ns = (sim_time_t)llround(p->horizon_s * 1e9),
        .oracle = strcmp(p->predictor, "oracle") == 0,
    };
    return s;
}

static int pred_arrival(void *st, const sim_cluster_t *c, const sim_req_t *r)
{
    const pred_state_t *s = st;
    sim_time_t ttft = sim_cluster_best_ttft_ns(c, r);
    if ((double)ttft / (double)sim_cluster_args(c)->slo_ttft_ns > s->threshold)
        return 0;
    sim_time_t now = sim_cluster_now(c), at = now + (s->horizon_ns ? s->horizon_ns : ttft);
    if (at <= now)
        return sim_admit_decode_load_now(c) <= s->threshold;
    sim_time_t t_d = s->t_d_ns ? s->t_d_ns : sim_cluster_mean_decode_ns(c, s->t_d_init_ns);
    return sim_admit_forecast_load(c, at, t_d, s->t_d_ns == 0, s->oracle) <= s->threshold;
}

const sim_admit_ops_t sim_admit_predictive = {
    .name = "predictive",
    .help = "before prefill: prefill load and the decode load forecast for when it reaches decode",
    .params = &pred_params,
    .init = pred_init,
    .free = sim_free,
    .at_arrival = pred_arrival,
    .after_prefill = sim_admit_always,
};
