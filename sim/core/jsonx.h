/* sim/core/jsonx.h: small jansson helpers for reading user JSON files with
 * errors that name the place: "file:line:col: message" for syntax and
 * "file: $.json.path: message" for content. */
#ifndef SIM_JSONX_H
#define SIM_JSONX_H

#include <stdio.h>

#include <jansson.h>

#include "sim/core/util.h"

/* Load path (duplicate keys rejected). *out is a new reference the caller
 * releases with json_decref. 0 or -1. */
int sim_json_load(const char *path, json_t **out, sim_err_t *err);

/* obj[key] as a number / string / array; at is the JSON path of obj ("$",
 * "$.prefill[3]"). -1 with "file: at.key: message" when missing or of the
 * wrong type. */
int sim_json_num(const json_t *obj, const char *key, const char *file, const char *at,
                 double *out, sim_err_t *err);
int sim_json_str(const json_t *obj, const char *key, const char *file, const char *at,
                 const char **out, sim_err_t *err);
int sim_json_arr(const json_t *obj, const char *key, const char *file, const char *at,
                 json_t **out, sim_err_t *err);

/* Write j to f as the project's result files do (indent 2, keys in
 * insertion order, 10 significant digits, trailing newline). 0 or -1. */
int sim_json_write(FILE *f, const json_t *j);

/* The same layout, but every real with the fewest digits (10 to 17) that
 * read back as exactly that double: what config.json needs to reproduce a
 * run. Byte-identical to sim_json_write wherever 10 digits suffice. */
int sim_json_write_exact(FILE *f, const json_t *j);

#endif
