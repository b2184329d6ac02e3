/* sim/serve/policy/admit_list.h: the admission registry, one line per policy
 * (its file defines sim_admit_NAME); included with SIM_ADMIT defined, by
 * admit.h for the declarations and by admit.c for the registry. */
SIM_ADMIT(none)
SIM_ADMIT(baseline)
SIM_ADMIT(early)
SIM_ADMIT(predictive)
