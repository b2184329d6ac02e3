/* fuzz/fuzz_config.c: the experiment-file loader on arbitrary bytes
 * (sim_config_load over the defaults, then sim_config_validate), with the
 * effective config as an oracle: a config that loads and validates is
 * written as config.json is (sim_config_to_json, sim_json_write_exact),
 * loaded again over fresh defaults, and must load, validate and give the
 * same effective config (json_equal). A result's config.json that does
 * not reproduce its run is a bug even when nothing crashes
 * (fuzz/regress/config holds a number given with 12 digits, which an
 * earlier 10-digit config.json lost). */
#include "fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>

#include "sim/exp/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write("exp.json", data, size);
    sim_config_t *cfg = malloc(sizeof *cfg);
    if (!cfg)
        abort();
    sim_config_defaults(cfg);
    sim_err_t err;
    if (sim_config_load(cfg, path, &err) == 0 && sim_config_validate(cfg, path, &err) == 0)
        fuzz_config_round_trip(cfg);
    free(cfg);
    return 0;
}
