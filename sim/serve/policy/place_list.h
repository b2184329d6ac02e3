/* sim/serve/policy/place_list.h: the placement registry, one line per policy
 * (its file defines sim_place_NAME). Included with SIM_PLACE defined: by
 * place.h for the declarations, by place.c for the registry, in this
 * order (the order --help-config lists them in). */
SIM_PLACE(round_robin)
SIM_PLACE(least_loaded)
SIM_PLACE(load_balance)
SIM_PLACE(random)
SIM_PLACE(cache_aware)
SIM_PLACE(kvcentric)
SIM_PLACE(power_of_d)
