/* sim/api/mooncake_sim.h: the simulator as a library, the public API of
 * lib/libmooncake-sim.so and the one header its users include. It does
 * what `mooncake-sim run` does, through the same code: load an experiment
 * (a file or JSON text), apply --set overrides, run it (writing the usual
 * output directory, or none), and hand back summary.json's text and
 * requests.csv's rows. Invariant: a run's results are a function of its
 * configuration and input files only, byte for byte those the command
 * line writes for the same experiment.
 *
 * Names: every symbol starts with mcs_ (types) or MCS_ (macros).
 *
 * Errors: each fallible function returns an mcs_status (MCS_OK, 0, on
 * success) and writes the message the command line would print (located:
 * "file:line:col: message", "file: $.json.path: message", "--set k=v:
 * ...") into the caller's msg buffer of msg_len bytes (msg may be NULL;
 * MCS_MSG_LEN bytes always hold the whole message). The library never
 * prints, never exits; out of memory and internal assertion failures
 * abort the process with a message on stderr, as in the command line.
 *
 * Ownership: x_new / x_free pairs; every free accepts NULL. Strings a
 * result returns belong to the result; strings returned as `char *` are
 * the caller's, released with mcs_free.
 *
 * Threads: no global mutable state enters a run. Distinct handles may be
 * used from any threads at once; one mcs_config may be run by several
 * threads at once (mcs_run only reads it) but not changed while it runs.
 * The library installs no signal handlers: a process killed during a run
 * that writes an output directory leaves its private directory beside it
 * (.NAME.tmp-PID-N) and its lock file (.NAME.lock, whose lock dies with
 * the process); the next run into the same directory removes the one and
 * takes over the other. ${VAR} in config values reads the environment at
 * run time. */
#ifndef MOONCAKE_SIM_H
#define MOONCAKE_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The API's version: a new minor adds functions or flags, a new major
 * changes or removes some. MCS_VERSION is major * 10000 + minor * 100 +
 * patch; mcs_version() gives the library's, to compare with the header's. */
#define MCS_VERSION_MAJOR 1
#define MCS_VERSION_MINOR 0
#define MCS_VERSION_PATCH 0
#define MCS_VERSION (MCS_VERSION_MAJOR * 10000 + MCS_VERSION_MINOR * 100 + MCS_VERSION_PATCH)
#define MCS_VERSION_STRING "1.0.0"

/* MCS_VERSION of the library linked or loaded. */
int mcs_version(void);

/* The simulator's code version, as results record it ($.sim.version of
 * summary.json). Static storage. */
const char *mcs_sim_version(void);

/* Returned codes, those of the command line's exit status where one
 * exists. */
typedef enum mcs_status {
    MCS_OK = 0,
    MCS_ERR_IO = 1,    /* the system failed: an output could not be written */
    MCS_ERR_INPUT = 2, /* bad input: config, override, trace, calibration */
    MCS_ERR_ARG = 3,   /* a bad call: a NULL handle or string where one is needed */
} mcs_status;

/* Bytes that always hold a whole message. */
#define MCS_MSG_LEN 1024

/* ---- configuration ---- */

/* An experiment's configuration: every key at its default until loaded. */
typedef struct mcs_config mcs_config;

/* A new configuration holding every key's default (mcs_config_free). */
mcs_config *mcs_config_new(void);

/* An independent copy of cfg (mcs_config_free): a sweep loads once and
 * copies per point. */
mcs_config *mcs_config_copy(const mcs_config *cfg);

void mcs_config_free(mcs_config *cfg);

/* Read an experiment file over cfg's values, as `mooncake-sim run PATH`
 * does; PATH names later messages about the file's values. Relative paths
 * inside it (trace.path, ...) are resolved against the working directory
 * at run time, as the command line resolves them. */
mcs_status mcs_config_load_file(mcs_config *cfg, const char *path, char *msg, size_t msg_len);

/* The same for an experiment given as JSON text; name (NULL: "config")
 * stands for the file in messages ("name:1:7: ...", "name: $.seed: ..."). */
mcs_status mcs_config_load_json(mcs_config *cfg, const char *json_text, const char *name,
                                char *msg, size_t msg_len);

/* One override "path=value", as --set path=value (every key of `run
 * --help-config`, scheduler.params.KEY and the like included). Later
 * errors about the value blame "--set path=value". */
mcs_status mcs_config_set(mcs_config *cfg, const char *assignment, char *msg, size_t msg_len);

/* The effective configuration as JSON text (mcs_free), the config.json a
 * run writes less its "inputs" record and with input paths as given (a
 * run makes relative ones absolute). */
char *mcs_config_json(const mcs_config *cfg);

/* ---- runs ---- */

/* What a run hands back. */
typedef struct mcs_result mcs_result;

/* mcs_run flags. */
#define MCS_RUN_FORCE 1u    /* overwrite an out_dir holding another experiment (--force) */
#define MCS_RUN_REQUESTS 2u /* keep requests.csv's text in the result */

/* Validate cfg and simulate it to the end. out_dir NULL writes no file;
 * else out_dir receives summary.json, requests.csv, timeseries.csv,
 * config.json and timing.json, published whole, as `run --out out_dir`
 * writes them (refused, MCS_ERR_INPUT, when it holds another experiment's
 * config.json, unless MCS_RUN_FORCE). data_dir is the root holding the
 * built-in data (models/calib/; NULL: the working directory). On success
 * *out is a new result (mcs_result_free); on failure *out is NULL and
 * nothing was left in out_dir. */
mcs_status mcs_run(const mcs_config *cfg, const char *out_dir, const char *data_dir,
                   unsigned flags, mcs_result **out, char *msg, size_t msg_len);

void mcs_result_free(mcs_result *res);

/* summary.json's text, byte for byte what the command line writes. */
const char *mcs_result_summary_json(const mcs_result *res);

/* requests.csv's text (header and one row per request, as the file), or
 * NULL when the run was not asked for it (MCS_RUN_REQUESTS). */
const char *mcs_result_requests_csv(const mcs_result *res);

/* Warnings the command line would print on stderr (an input file that is
 * not the one a config recorded), one a line; "" for none. */
const char *mcs_result_warnings(const mcs_result *res);

/* Events simulated, and the simulation loop's wall seconds (not a result:
 * it varies from run to run). */
uint64_t mcs_result_events(const mcs_result *res);
double mcs_result_wall_s(const mcs_result *res);

/* Release a string the library returned as char * (NULL accepted). */
void mcs_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
