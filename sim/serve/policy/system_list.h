/* sim/serve/policy/system_list.h: the system registry, one line per serving
 * system (sim_system_NAME, defined by sim/serve/pd.c for pd and sim/serve/colocated.c
 * for the vLLM-like ones: systems reach into the cluster's internals,
 * unlike the policies in this folder). Included with SIM_SYSTEM defined:
 * by system.h for the declarations, by system.c for the registry, in this
 * order (the order --help-config lists them in). */
SIM_SYSTEM(pd)
SIM_SYSTEM(vllm)
SIM_SYSTEM(vllm_pc)
SIM_SYSTEM(vllm_cp)
