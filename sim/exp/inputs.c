/* sim/exp/inputs.c: see inputs.h. */
#include "sim/exp/inputs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const names[SIM_INPUT_N] = {"trace", "calibration", "transport"};
static const char *const keys[SIM_INPUT_N] = {"trace.path", "cost.calibration",
                                              "network.transport"};

const char *sim_input_name(sim_input_kind_t k) { return names[k]; }
const char *sim_input_key(sim_input_kind_t k) { return keys[k]; }

int sim_input_hash_file(const char *path, int64_t *bytes, uint64_t *hash, sim_err_t *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return sim_errf_io(err, "%s: cannot read: %s", path, strerror(errno));
    uint64_t h = SIM_FNV1A64_BASIS;
    int64_t n = 0;
    unsigned char buf[65536];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        h = sim_fnv1a64(h, buf, got);
        n += (int64_t)got;
    }
    int bad = ferror(f);
    int e = errno;
    fclose(f);
    if (bad)
        return sim_errf_io(err, "%s: cannot read: %s", path, strerror(e));
    *bytes = n;
    *hash = h;
    return 0;
}

int sim_input_abs_path(const char *path, char *out, size_t len)
{
    if (path[0] == '/')
        return snprintf(out, len, "%s", path) < (int)len ? 0 : -1;
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return -1;
    while (path[0] == '.' && path[1] == '/') {
        path += 2;
        while (*path == '/')
            path++;
    }
    int root = strcmp(cwd, "/") == 0;
    return snprintf(out, len, "%s/%s", root ? "" : cwd, path) < (int)len ? 0 : -1;
}

/* One entry of $.inputs (e, at its where) into r. 0 or -1. */
static int parse_one(const json_t *e, const char *where, sim_input_rec_t *r, sim_err_t *err)
{
    if (!json_is_object(e))
        return sim_errf(err, "%s: expected an object", where);
    const char *k;
    json_t *v;
    int seen = 0;
    json_object_foreach((json_t *)e, k, v) {
        if (strcmp(k, "given") == 0 || strcmp(k, "file") == 0) {
            if (!json_is_string(v) || json_string_length(v) >= sizeof r->given)
                return sim_errf(err, "%s.%s: expected a string of at most %zu bytes", where, k,
                                sizeof r->given - 1);
            if (k[0] == 'g')
                snprintf(r->given, sizeof r->given, "%s", json_string_value(v));
            seen |= k[0] == 'g' ? 1 : 2;
        } else if (strcmp(k, "bytes") == 0) {
            if (!json_is_integer(v) || json_integer_value(v) < 0)
                return sim_errf(err, "%s.bytes: expected an integer >= 0", where);
            r->bytes = json_integer_value(v);
            seen |= 4;
        } else if (strcmp(k, "fnv1a64") == 0) {
            const char *s = json_string_value(v);
            char *end = NULL;
            if (s && strlen(s) == 16 && strspn(s, "0123456789abcdef") == 16) {
                errno = 0;
                r->fnv1a64 = strtoull(s, &end, 16);
            }
            if (!end || *end)
                return sim_errf(err, "%s.fnv1a64: expected 16 lowercase hex digits", where);
            seen |= 8;
        } else {
            return sim_errf(err, "%s.%s: unknown key (valid here: given, file, bytes, fnv1a64)",
                            where, k);
        }
    }
    if (seen != 15)
        return sim_errf(err, "%s: needs given, file, bytes and fnv1a64", where);
    r->have = 1;
    return 0;
}

int sim_input_parse(const json_t *obj, const char *src, sim_input_rec_t *recs, sim_err_t *err)
{
    if (!json_is_object(obj))
        return sim_errf(err, "%s: $.inputs: expected an object", src);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v) {
        char where[1200];
        snprintf(where, sizeof where, "%s: $.inputs.%s", src, k);
        int i = 0;
        while (i < SIM_INPUT_N && strcmp(k, names[i]) != 0)
            i++;
        if (i == SIM_INPUT_N)
            return sim_errf(err, "%s: unknown key (valid here: trace, calibration, transport)",
                            where);
        if (parse_one(v, where, &recs[i], err) != 0)
            return -1;
    }
    return 0;
}
