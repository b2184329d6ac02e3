/* fuzz/fuzz_set.c: `--set path=value` on arbitrary bytes. The input is
 * split at NUL and newline bytes into assignments, each applied with
 * sim_config_set to the defaults in order (a refused one leaves the
 * config as it was and the next still applies), then sim_config_validate;
 * a config that validates must survive the effective-config round trip
 * (fuzz_config_round_trip) like a loaded one.
 * fuzz/regress/set holds what this found once: a string that is not
 * UTF-8, which --set took and config.json then lost (now refused), and a
 * number given with 12 digits, which a 10-digit config.json lost. */
#include "fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "sim/exp/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    sim_config_t *cfg = malloc(sizeof *cfg);
    if (!text || !cfg)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    sim_config_defaults(cfg);
    sim_err_t err;
    for (size_t i = 0; i <= size;) {
        size_t n = 0;
        while (i + n < size && text[i + n] != '\0' && text[i + n] != '\n')
            n++;
        text[i + n] = '\0';
        if (n > 0)
            (void)sim_config_set(cfg, text + i, &err);
        i += n + 1;
    }
    if (sim_config_validate(cfg, "--set", &err) == 0)
        fuzz_config_round_trip(cfg);
    free(cfg);
    free(text);
    return 0;
}
