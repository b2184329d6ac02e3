/* sim/pool/evict/evict_list.h: the eviction registry, one line per policy
 * (its file defines sim_evict_NAME). Included with SIM_EVICT defined: by
 * evict.h for the declarations, by evict.c for the registry, in this
 * order (the order --help-config lists them in). */
SIM_EVICT(lru)
SIM_EVICT(lfu)
SIM_EVICT(length_aware)
SIM_EVICT(s3fifo)
