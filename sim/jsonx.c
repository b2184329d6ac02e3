/* sim/jsonx.c: see jsonx.h. */
#include "sim/jsonx.h"

int sim_json_load(const char *path, json_t **out, sim_err_t *err)
{
    json_error_t je;
    *out = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!*out) {
        if (je.line <= 0)
            return sim_errf(err, "%s: %s", path, je.text);
        return sim_errf(err, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    }
    return 0;
}

static json_t *get(const json_t *obj, const char *key, const char *file, const char *at,
                   sim_err_t *err)
{
    json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
    if (!v)
        sim_errf(err, "%s: %s.%s: missing", file, at, key);
    return v;
}

int sim_json_num(const json_t *obj, const char *key, const char *file, const char *at,
                 double *out, sim_err_t *err)
{
    json_t *v = get(obj, key, file, at, err);
    if (!v)
        return -1;
    if (!json_is_number(v))
        return sim_errf(err, "%s: %s.%s: expected a number", file, at, key);
    *out = json_number_value(v);
    return 0;
}

int sim_json_str(const json_t *obj, const char *key, const char *file, const char *at,
                 const char **out, sim_err_t *err)
{
    json_t *v = get(obj, key, file, at, err);
    if (!v)
        return -1;
    if (!json_is_string(v))
        return sim_errf(err, "%s: %s.%s: expected a string", file, at, key);
    *out = json_string_value(v);
    return 0;
}

int sim_json_arr(const json_t *obj, const char *key, const char *file, const char *at,
                 json_t **out, sim_err_t *err)
{
    json_t *v = get(obj, key, file, at, err);
    if (!v)
        return -1;
    if (!json_is_array(v))
        return sim_errf(err, "%s: %s.%s: expected an array", file, at, key);
    *out = v;
    return 0;
}

int sim_json_write(FILE *f, const json_t *j)
{
    size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10);
    return json_dumpf(j, f, flags) == 0 && fputc('\n', f) != EOF ? 0 : -1;
}
