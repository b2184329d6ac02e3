/* sim/exp/inputs.h: the input files a run reads (trace, cost calibration,
 * network calibration), recorded in its config.json so that a rerun from
 * that file works from any directory and says when an input changed.
 * config.json's "inputs" section holds, per file read: the config value as
 * first given ("given"), the file's absolute path ("file"), its size
 * ("bytes") and its FNV-1a 64-bit hash ("fnv1a64", 16 hex digits). */
#ifndef SIM_INPUTS_H
#define SIM_INPUTS_H

#include <stdint.h>

#include <jansson.h>

#include "sim/core/util.h"

/* The kinds of input file, in config.json's order. */
typedef enum { SIM_INPUT_TRACE, SIM_INPUT_CALIBRATION, SIM_INPUT_TRANSPORT, SIM_INPUT_N } sim_input_kind_t;

/* One input as an earlier config.json recorded it (sim_config_load fills
 * it from $.inputs). value is the config key's value when the file was
 * loaded: the record applies only while the key still holds it (a --set
 * or a sweep axis that names another file drops it). */
typedef struct sim_input_rec {
    int have;
    char given[1024];
    char value[1024];
    int64_t bytes;
    uint64_t fnv1a64;
} sim_input_rec_t;

/* "inputs.trace" and the like: the name in config.json, and the config key
 * whose file it is. */
const char *sim_input_name(sim_input_kind_t k);
const char *sim_input_key(sim_input_kind_t k);

/* The size and FNV-1a 64-bit hash of the file at path. 0, or -1 with err
 * "PATH: cannot read: REASON" (io). */
int sim_input_hash_file(const char *path, int64_t *bytes, uint64_t *hash, sim_err_t *err);

/* path made absolute against the working directory (no link resolved,
 * "./" dropped) into out[len]; a path already absolute is copied. 0, or -1
 * when it does not fit or the working directory is unknown. */
int sim_input_abs_path(const char *path, char *out, size_t len);

/* Parse config.json's $.inputs (obj) into recs[SIM_INPUT_N] (value left
 * empty for the caller). 0, or -1 with "src: $.inputs...: message". */
int sim_input_parse(const json_t *obj, const char *src, sim_input_rec_t *recs, sim_err_t *err);

#endif
