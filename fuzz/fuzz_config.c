/* fuzz/fuzz_config.c: the experiment-file loader on arbitrary bytes
 * (sim_config_load over the defaults, then sim_config_validate), with the
 * effective config as an oracle: a config that loads and validates is
 * written as config.json is (sim_config_to_json, sim_json_write), loaded
 * again over fresh defaults, and must load, validate and give the same
 * effective config (json_equal). A result's config.json that does not
 * reproduce its run is a bug even when nothing crashes. Known finding,
 * not yet fixed (sim/jsonx.c and sim/config.c are not this harness's to
 * change): sim_json_write keeps 10 significant digits, so a number given
 * with more ("mfu": 0.199254740991) reads back different; reported and
 * tolerated unless FUZZ_STRICT=1 (fuzz/regress/config holds an input). */
#include "fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>

#include "sim/config.h"

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
