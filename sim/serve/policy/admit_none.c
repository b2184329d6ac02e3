/* sim/serve/policy/admit_none.c: admit every request; nothing is rejected for
 * load (requests that can never fit a decode instance are still refused
 * by the cluster). */
#include "sim/serve/admit.h"

const sim_admit_ops_t sim_admit_none = {
    .name = "none",
    .help = "admit everything",
    .init = NULL,
    .free = NULL,
    .at_arrival = sim_admit_always,
    .after_prefill = sim_admit_always,
};
