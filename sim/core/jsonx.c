/* sim/core/jsonx.c: see jsonx.h. */
#include "sim/core/jsonx.h"

#include <stdlib.h>
#include <string.h>

int sim_json_load(const char *path, json_t **out, sim_err_t *err)
{
    json_error_t je;
    FILE *f = fopen(path, "rb");
    if (!f) { /* jansson's own message: "unable to open PATH: reason" */
        *out = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
        if (*out)
            return 0;
        return sim_errf(err, "%s: %s", path, je.text);
    }
    /* A UTF-8 byte-order mark, which some editors write, is skipped
     * (jansson refuses it); columns of line 1 count after it. */
    unsigned char bom[3];
    size_t n = fread(bom, 1, 3, f);
    if (n != 3 || memcmp(bom, "\xEF\xBB\xBF", 3) != 0)
        rewind(f);
    *out = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    fclose(f);
    if (!*out) {
        if (json_error_code(&je) == json_error_stack_overflow)
            return sim_errf(err, "%s:%d:%d: JSON nested deeper than %d levels", path, je.line,
                            je.column, JSON_PARSER_MAX_DEPTH);
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

/* A real as jansson writes it ("%.*g", a ".0" when it would read back as
 * an integer, no '+' or leading zeros in the exponent), at the fewest
 * digits from 10 up that read back as v. */
static void real_text(double v, char *buf, size_t len)
{
    for (int prec = 10; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (!strpbrk(buf, ".eEn")) /* not inf/nan: the config refuses those */
        strncat(buf, ".0", len - strlen(buf) - 1);
    char *e = strchr(buf, 'e');
    if (e) {
        char *start = e + 1 + (e[1] == '-'), *end = start;
        if (*end == '+')
            end++;
        while (end[0] == '0' && end[1])
            end++;
        memmove(start, end, strlen(end) + 1);
    }
}

static int write_exact(FILE *f, const json_t *j, int depth)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        if (json_object_size(j) == 0)
            return fputs("{}", f) < 0 ? -1 : 0;
        fputc('{', f);
        const char *k;
        json_t *v;
        int first = 1;
        json_object_foreach((json_t *)j, k, v) {
            fprintf(f, "%s\n%*s", first ? "" : ",", 2 * (depth + 1), "");
            json_t *key = json_string(k);
            int rc = key ? json_dumpf(key, f, JSON_ENCODE_ANY) : -1;
            json_decref(key);
            if (rc != 0 || fputs(": ", f) < 0 || write_exact(f, v, depth + 1) != 0)
                return -1;
            first = 0;
        }
        fprintf(f, "\n%*s}", 2 * depth, "");
        return 0;
    }
    case JSON_ARRAY: {
        if (json_array_size(j) == 0)
            return fputs("[]", f) < 0 ? -1 : 0;
        fputc('[', f);
        size_t i;
        json_t *v;
        json_array_foreach((json_t *)j, i, v) {
            fprintf(f, "%s\n%*s", i ? "," : "", 2 * (depth + 1), "");
            if (write_exact(f, v, depth + 1) != 0)
                return -1;
        }
        fprintf(f, "\n%*s]", 2 * depth, "");
        return 0;
    }
    case JSON_REAL: {
        char buf[64];
        real_text(json_real_value(j), buf, sizeof buf);
        return fputs(buf, f) < 0 ? -1 : 0;
    }
    default:
        return json_dumpf(j, f, JSON_ENCODE_ANY);
    }
}

int sim_json_write_exact(FILE *f, const json_t *j)
{
    return write_exact(f, j, 0) == 0 && fputc('\n', f) != EOF && !ferror(f) ? 0 : -1;
}
