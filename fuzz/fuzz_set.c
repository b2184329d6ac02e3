/* fuzz/fuzz_set.c: `--set path=value` on arbitrary bytes. The input is
 * split at NUL and newline bytes into assignments, each applied with
 * sim_config_set to the defaults in order (a refused one leaves the
 * config as it was and the next still applies), then sim_config_validate;
 * a config that validates must survive the effective-config round trip
 * (fuzz_config_round_trip) like a loaded one.
 * Known finding, not yet fixed (sim/params.c is not this harness's to
 * change): a string value that is not UTF-8 is accepted by --set and then
 * silently left out of the effective config (jansson's json_string
 * refuses it), so config.json does not reproduce the run. Such
 * assignments are skipped here (fuzz_known) unless FUZZ_STRICT=1. And
 * see fuzz_config_round_trip for numbers with more than 10 digits. */
#include "fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "sim/config.h"

/* 1 when s is well-formed UTF-8 (RFC 3629: no overlongs, no surrogates,
 * nothing above U+10FFFF). */
static int utf8_ok(const unsigned char *s)
{
    while (*s) {
        unsigned c = *s++;
        int n = c < 0x80 ? 0 : c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2
              : c >= 0xF0 && c <= 0xF4 ? 3 : -1;
        if (n < 0)
            return 0;
        unsigned lo = 0x80, hi = 0xBF;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
        else if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
        for (int i = 0; i < n; i++, s++, lo = 0x80, hi = 0xBF)
            if (*s < lo || *s > hi)
                return 0;
    }
    return 1;
}

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
        if (n > 0 && !fuzz_strict() && !utf8_ok((const unsigned char *)text + i))
            fuzz_known("--set takes a string that is not UTF-8; config.json drops it");
        else if (n > 0)
            (void)sim_config_set(cfg, text + i, &err);
        i += n + 1;
    }
    if (sim_config_validate(cfg, "--set", &err) == 0)
        fuzz_config_round_trip(cfg);
    free(cfg);
    free(text);
    return 0;
}
