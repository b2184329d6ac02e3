/* sim/core/params.h: typed parameter tables. A table lists the fields of one C
 * struct (name, type, offset, range or allowed values, default, help); the
 * engine sets them from text (--set) or JSON with located errors, fills
 * defaults, writes them back as JSON and prints their help. The experiment
 * config is one such table; every plug-in (placement, admission) declares
 * its own for the parameters only it reads. Invariant: a value stored
 * through the engine is within its field's range or allowed values. */
#ifndef SIM_PARAMS_H
#define SIM_PARAMS_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "sim/core/util.h"

typedef enum {
    SIM_PARAM_INT,  /* int64_t in [min, max] */
    SIM_PARAM_NUM,  /* finite double in [min, max], or alt when has_alt */
    SIM_PARAM_STR,  /* char[size] */
    SIM_PARAM_ENUM, /* char[size] holding one of values ("a|b|c") */
} sim_param_type_t;

typedef struct sim_param {
    const char *key;    /* name in its table (dotted path in the config's own) */
    sim_param_type_t type;
    size_t off;         /* offset in the owner's struct */
    size_t size;        /* STR, ENUM: buffer bytes */
    double min, max;    /* INT, NUM */
    const char *def;    /* default, as --set would take it */
    const char *values; /* ENUM: the allowed values, '|'-separated */
    const char *help;
    int has_alt;        /* NUM: alt is allowed too, outside [min, max] */
    double alt;         /* a sentinel: -1 = the hardware's, 0 = off */
    /* STR naming a registry entry: writes the valid names ("a, b") into
     * buf for the help (checked later, by the owner); NULL otherwise. */
    void (*names)(char *buf, size_t len);
} sim_param_t;

typedef struct sim_params {
    const sim_param_t *p;
    size_t n;
    size_t size; /* bytes of the owner's struct */
} sim_params_t;

#define SIM_PARAM_MEMBER_SIZE(T, m) sizeof(((T *)0)->m)
#define SIM_PARAM_I(key, T, m, lo, hi, def, help) \
    {key, SIM_PARAM_INT, offsetof(T, m), 0, lo, hi, def, NULL, help, 0, 0, NULL}
#define SIM_PARAM_N(key, T, m, lo, hi, def, help) \
    {key, SIM_PARAM_NUM, offsetof(T, m), 0, lo, hi, def, NULL, help, 0, 0, NULL}
/* A number in [lo, hi] or exactly alt (a sentinel outside the range). */
#define SIM_PARAM_NX(key, T, m, alt, lo, hi, def, help) \
    {key, SIM_PARAM_NUM, offsetof(T, m), 0, lo, hi, def, NULL, help, 1, alt, NULL}
#define SIM_PARAM_S(key, T, m, def, help) \
    {key, SIM_PARAM_STR, offsetof(T, m), SIM_PARAM_MEMBER_SIZE(T, m), 0, 0, def, NULL, help, 0, 0, \
     NULL}
/* A string naming an entry of a registry; names lists them for --help. */
#define SIM_PARAM_SN(key, T, m, def, names, help) \
    {key, SIM_PARAM_STR, offsetof(T, m), SIM_PARAM_MEMBER_SIZE(T, m), 0, 0, def, NULL, help, 0, 0, \
     names}
#define SIM_PARAM_E(key, T, m, values, def, help) \
    {key, SIM_PARAM_ENUM, offsetof(T, m), SIM_PARAM_MEMBER_SIZE(T, m), 0, 0, def, values, help, \
     0, 0, NULL}
/* A table over the array fields describing struct T. */
#define SIM_PARAMS(fields, T) {(fields), sizeof(fields) / sizeof((fields)[0]), sizeof(T)}

/* The empty table, and a plug-in's table or it when the plug-in declares
 * none. */
extern const sim_params_t sim_params_none;
static inline const sim_params_t *sim_plugin_params(const sim_params_t *p)
{
    return p ? p : &sim_params_none;
}

/* The field called key, or NULL. O(n). */
const sim_param_t *sim_params_find(const sim_params_t *t, const char *key);

/* Every field of obj (t->size bytes, zeroed first) to its default. A
 * default outside its own field's range is a bug (assertion). */
void sim_params_defaults(const sim_params_t *t, void *obj);

/* Set one field from text (integers and numbers parsed whole) or from a
 * JSON value (integers for INT, numbers for NUM, strings otherwise). where
 * prefixes errors ("exp.json: $.scheduler.params.x"). 0 or -1. */
int sim_params_set_text(const sim_param_t *p, void *obj, const char *text, const char *where,
                        sim_err_t *err);
int sim_params_set_json(const sim_param_t *p, void *obj, const json_t *v, const char *where,
                        sim_err_t *err);

/* Every INT and NUM field of obj within its range (NUM: finite): 0, or -1
 * with "<where><key>: ... is out of range ..." for the first that is not.
 * For structs set directly, not through the engine. O(n). */
int sim_params_check(const sim_params_t *t, const void *obj, const char *where, sim_err_t *err);

/* The field's value as a new JSON value. */
json_t *sim_params_get_json(const sim_param_t *p, const void *obj);

/* Every field of obj as a new JSON object, in table order. */
json_t *sim_params_to_json(const sim_params_t *t, const void *obj);

/* "a, b, c": the table's keys (t may be NULL: "none"). */
void sim_params_keys(const sim_params_t *t, char *buf, size_t len);

/* One help entry per field: prefix + key, type, default, range (and alt)
 * or values, then the help text. */
void sim_params_print(const sim_params_t *t, const char *prefix, FILE *f);

#endif
