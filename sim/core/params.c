/* sim/core/params.c: see params.h. */
#include "sim/core/params.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const sim_params_t sim_params_none = {NULL, 0, 0};

const sim_param_t *sim_params_find(const sim_params_t *t, const char *key)
{
    for (size_t i = 0; t && i < t->n; i++)
        if (strcmp(t->p[i].key, key) == 0)
            return &t->p[i];
    return NULL;
}

static void *slot(const sim_param_t *p, void *obj) { return (char *)obj + p->off; }

static int range_err(const sim_param_t *p, double v, const char *where, sim_err_t *err)
{
    if ((v >= p->min && v <= p->max) || (p->has_alt && v == p->alt))
        return 0;
    if (p->has_alt)
        return sim_errf(err, "%s: %g is out of range [%g, %g] (or exactly %g)", where, v, p->min,
                        p->max, p->alt);
    return sim_errf(err, "%s: %g is out of range [%g, %g]", where, v, p->min, p->max);
}

/* Integers are compared as integers: a double would round 2^53 + 1 into
 * range (the table's bounds are exact in a double). */
static int set_int(const sim_param_t *p, void *obj, long long v, const char *where, sim_err_t *err)
{
    if (v < (long long)p->min || v > (long long)p->max)
        return sim_errf(err, "%s: %lld is out of range [%.17g, %.17g]", where, v, p->min, p->max);
    *(int64_t *)slot(p, obj) = (int64_t)v;
    return 0;
}

static int set_num(const sim_param_t *p, void *obj, double v, const char *where, sim_err_t *err)
{
    if (!isfinite(v))
        return sim_errf(err, "%s: expected a finite number", where);
    if (range_err(p, v, where, err))
        return -1;
    *(double *)slot(p, obj) = v;
    return 0;
}

/* Is v one of the '|'-separated values? */
static int allowed(const char *values, const char *v)
{
    size_t n = strlen(v);
    for (const char *s = values; *s;) {
        size_t k = strcspn(s, "|");
        if (k == n && strncmp(s, v, n) == 0)
            return 1;
        s += k + (s[k] == '|');
    }
    return 0;
}

static int set_str(const sim_param_t *p, void *obj, const char *v, const char *where,
                   sim_err_t *err)
{
    size_t n = strlen(v);
    if (n >= p->size)
        return sim_errf(err, "%s: string longer than %zu bytes", where, p->size - 1);
    /* config.json must hold it: JSON strings are UTF-8 */
    json_t *u = json_string(v);
    if (!u)
        return sim_errf(err, "%s: not a UTF-8 string", where);
    json_decref(u);
    if (p->type == SIM_PARAM_ENUM && !allowed(p->values, v)) {
        char list[256];
        size_t o = 0;
        list[0] = '\0';
        for (const char *s = p->values; *s && o + 1 < sizeof list; s++)
            o += (size_t)snprintf(list + o, sizeof list - o, *s == '|' ? ", " : "%c", *s);
        return sim_errf(err, "%s: unknown value '%s' (valid: %s)", where, v, list);
    }
    memcpy(slot(p, obj), v, n + 1);
    return 0;
}

int sim_params_set_text(const sim_param_t *p, void *obj, const char *text, const char *where,
                        sim_err_t *err)
{
    char *end;
    switch (p->type) {
    case SIM_PARAM_INT: {
        errno = 0;
        long long v = strtoll(text, &end, 10);
        if (errno || end == text || *end)
            return sim_errf(err, "%s: expected an integer, got '%s'", where, text);
        return set_int(p, obj, v, where, err);
    }
    case SIM_PARAM_NUM: {
        errno = 0;
        double v = strtod(text, &end);
        if (errno || end == text || *end)
            return sim_errf(err, "%s: expected a number, got '%s'", where, text);
        return set_num(p, obj, v, where, err);
    }
    case SIM_PARAM_STR:
    case SIM_PARAM_ENUM:
        return set_str(p, obj, text, where, err);
    }
    return -1;
}

int sim_params_set_json(const sim_param_t *p, void *obj, const json_t *v, const char *where,
                        sim_err_t *err)
{
    switch (p->type) {
    case SIM_PARAM_INT:
        if (!json_is_integer(v))
            return sim_errf(err, "%s: expected an integer", where);
        return set_int(p, obj, (long long)json_integer_value(v), where, err);
    case SIM_PARAM_NUM:
        if (!json_is_number(v))
            return sim_errf(err, "%s: expected a number", where);
        return set_num(p, obj, json_number_value(v), where, err);
    case SIM_PARAM_STR:
    case SIM_PARAM_ENUM:
        if (!json_is_string(v))
            return sim_errf(err, "%s: expected a string", where);
        return set_str(p, obj, json_string_value(v), where, err);
    }
    return -1;
}

int sim_params_check(const sim_params_t *t, const void *obj, const char *where, sim_err_t *err)
{
    for (size_t i = 0; t && i < t->n; i++) {
        const sim_param_t *p = &t->p[i];
        const void *v = (const char *)obj + p->off;
        char at[600];
        snprintf(at, sizeof at, "%s%s", where, p->key);
        if (p->type == SIM_PARAM_INT) {
            long long x = (long long)*(const int64_t *)v;
            if (x < (long long)p->min || x > (long long)p->max)
                return sim_errf(err, "%s: %lld is out of range [%.17g, %.17g]", at, x, p->min,
                                p->max);
        } else if (p->type == SIM_PARAM_NUM) {
            double x = *(const double *)v;
            if (!isfinite(x))
                return sim_errf(err, "%s: expected a finite number", at);
            if (range_err(p, x, at, err) != 0)
                return -1;
        }
    }
    return 0;
}

void sim_params_defaults(const sim_params_t *t, void *obj)
{
    memset(obj, 0, t->size);
    for (size_t i = 0; i < t->n; i++) {
        sim_err_t e;
        SIM_ASSERT(sim_params_set_text(&t->p[i], obj, t->p[i].def, t->p[i].key, &e) == 0);
    }
}

json_t *sim_params_get_json(const sim_param_t *p, const void *obj)
{
    const void *v = (const char *)obj + p->off;
    switch (p->type) {
    case SIM_PARAM_INT: return json_integer((json_int_t) * (const int64_t *)v);
    case SIM_PARAM_NUM: return json_real(*(const double *)v);
    case SIM_PARAM_STR:
    case SIM_PARAM_ENUM: return json_string((const char *)v);
    }
    return json_null();
}

json_t *sim_params_to_json(const sim_params_t *t, const void *obj)
{
    json_t *o = json_object();
    for (size_t i = 0; t && i < t->n; i++)
        json_object_set_new(o, t->p[i].key, sim_params_get_json(&t->p[i], obj));
    return o;
}

void sim_params_keys(const sim_params_t *t, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; t && i < t->n; i++)
        sim_names_append(buf, len, &off, t->p[i].key);
    if (!off)
        snprintf(buf, len, "none");
}

void sim_params_print(const sim_params_t *t, const char *prefix, FILE *f)
{
    static const char *const tn[] = {"int", "number", "string", "enum"};
    for (size_t i = 0; t && i < t->n; i++) {
        const sim_param_t *p = &t->p[i];
        char name[160];
        snprintf(name, sizeof name, "%s%s", prefix, p->key);
        fprintf(f, "  %-36s %-6s default %s", name, tn[p->type], p->def[0] ? p->def : "\"\"");
        if (p->type == SIM_PARAM_INT) /* integer bounds as integers: 2^53, not 9.0072e+15 */
            fprintf(f, "  [%lld, %lld]%s", (long long)p->min, (long long)p->max,
                    p->has_alt ? " or" : "");
        else if (p->type == SIM_PARAM_NUM)
            fprintf(f, "  [%g, %g]%s", p->min, p->max, p->has_alt ? " or" : "");
        if (p->has_alt)
            fprintf(f, " %g", p->alt);
        if (p->type == SIM_PARAM_ENUM)
            fprintf(f, "  {%s}", p->values);
        if (p->names) { /* "a, b, c" printed as an enum's "{a|b|c}" */
            char buf[512];
            p->names(buf, sizeof buf);
            fprintf(f, "  {");
            for (const char *c = buf; *c; c++) {
                if (c[0] == ',' && c[1] == ' ') {
                    fputc('|', f);
                    c++;
                } else {
                    fputc(*c, f);
                }
            }
            fprintf(f, "}");
        }
        fprintf(f, "\n      %s\n", p->help);
    }
}
