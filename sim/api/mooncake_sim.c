/* sim/api/mooncake_sim.c: see mooncake_sim.h. A thin shell over the
 * command line's own functions (sim_config_*, sim_run): the library adds
 * handles, returned codes and in-memory outputs, never another code path
 * to a result. Invariant: every message a caller receives is the sim_err_t
 * text the command line would print. */
#include "sim/api/mooncake_sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sim/core/jsonx.h"
#include "sim/core/util.h"
#include "sim/exp/config.h"
#include "sim/exp/run.h"

struct mcs_config {
    sim_config_t cfg;
    char src[SIM_CFG_PATH]; /* what messages call the experiment */
};

struct mcs_result {
    char *summary;  /* summary.json's text */
    char *requests; /* requests.csv's text, or NULL */
    char *warnings; /* "" when none */
    uint64_t events;
    double wall_s;
};

int mcs_version(void) { return MCS_VERSION; }

const char *mcs_sim_version(void) { return sim_version; }

/* err's message into msg (msg_len bytes, cut to fit); the status its kind
 * calls for. */
static mcs_status fail(const sim_err_t *err, char *msg, size_t msg_len)
{
    if (msg && msg_len > 0)
        snprintf(msg, msg_len, "%s", err->msg);
    return err->io ? MCS_ERR_IO : MCS_ERR_INPUT;
}

static mcs_status bad_call(const char *what, char *msg, size_t msg_len)
{
    if (msg && msg_len > 0)
        snprintf(msg, msg_len, "mooncake-sim library: %s", what);
    return MCS_ERR_ARG;
}

/* j as the result files write it (exact: config.json's numbers, else
 * summary.json's), a new string (free), or NULL. */
static char *json_text(const json_t *j, int exact)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int ok = (exact ? sim_json_write_exact(f, j) : sim_json_write(f, j)) == 0;
    if (fclose(f) != 0 || !ok) {
        free(buf);
        return NULL;
    }
    return buf;
}

mcs_config *mcs_config_new(void)
{
    mcs_config *c = sim_xmalloc(sizeof *c, "mcs_config");
    sim_config_defaults(&c->cfg);
    snprintf(c->src, sizeof c->src, "config");
    return c;
}

mcs_config *mcs_config_copy(const mcs_config *cfg)
{
    if (!cfg)
        return NULL;
    mcs_config *c = sim_xmalloc(sizeof *c, "mcs_config");
    memcpy(c, cfg, sizeof *c);
    return c;
}

void mcs_config_free(mcs_config *cfg) { sim_free(cfg); }

mcs_status mcs_config_load_file(mcs_config *cfg, const char *path, char *msg, size_t msg_len)
{
    if (!cfg || !path)
        return bad_call("mcs_config_load_file: a NULL config or path", msg, msg_len);
    sim_err_t err;
    if (sim_config_load(&cfg->cfg, path, &err) != 0)
        return fail(&err, msg, msg_len);
    snprintf(cfg->src, sizeof cfg->src, "%s", path);
    return MCS_OK;
}

mcs_status mcs_config_load_json(mcs_config *cfg, const char *json_text, const char *name,
                                char *msg, size_t msg_len)
{
    if (!cfg || !json_text)
        return bad_call("mcs_config_load_json: a NULL config or text", msg, msg_len);
    sim_err_t err;
    const char *src = name ? name : "config";
    if (sim_config_load_text(&cfg->cfg, json_text, src, &err) != 0)
        return fail(&err, msg, msg_len);
    snprintf(cfg->src, sizeof cfg->src, "%s", src);
    return MCS_OK;
}

mcs_status mcs_config_set(mcs_config *cfg, const char *assignment, char *msg, size_t msg_len)
{
    if (!cfg || !assignment)
        return bad_call("mcs_config_set: a NULL config or assignment", msg, msg_len);
    sim_err_t err;
    if (sim_config_set(&cfg->cfg, assignment, &err) != 0)
        return fail(&err, msg, msg_len);
    return MCS_OK;
}

char *mcs_config_json(const mcs_config *cfg)
{
    if (!cfg)
        return NULL;
    json_t *j = sim_config_to_json(&cfg->cfg);
    char *s = json_text(j, 1);
    json_decref(j);
    return s;
}

/* The whole of file dir/name as a new string (free), or NULL. */
static char *read_file(const char *dir, const char *name)
{
    char path[SIM_CFG_PATH + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    char chunk[1 << 16];
    size_t n;
    int ok = m != NULL;
    while (ok && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        ok = fwrite(chunk, 1, n, m) == n;
    ok = ok && !ferror(f);
    fclose(f);
    if (m && fclose(m) != 0)
        ok = 0;
    if (!ok) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* A memory stream's text once closed (free), or NULL when it failed. */
static char *close_text(FILE *f, char **buf)
{
    if (!f)
        return NULL;
    if (fclose(f) != 0) {
        free(*buf);
        *buf = NULL;
    }
    return *buf;
}

mcs_status mcs_run(const mcs_config *cfg, const char *out_dir, const char *data_dir,
                   unsigned flags, mcs_result **out, char *msg, size_t msg_len)
{
    if (!out)
        return bad_call("mcs_run: a NULL result pointer", msg, msg_len);
    *out = NULL;
    if (!cfg)
        return bad_call("mcs_run: a NULL config", msg, msg_len);
    int want_rows = (flags & MCS_RUN_REQUESTS) != 0;
    char *rows_buf = NULL, *warn_buf = NULL, *sum_buf = NULL;
    size_t rows_len = 0, warn_len = 0;
    FILE *rows = want_rows && !out_dir ? open_memstream(&rows_buf, &rows_len) : NULL;
    FILE *warn = open_memstream(&warn_buf, &warn_len);
    sim_err_t err;
    mcs_status st = MCS_OK;
    if (!warn || (want_rows && !out_dir && !rows)) {
        sim_errf_io(&err, "mooncake-sim library: cannot open a memory stream");
        st = fail(&err, msg, msg_len);
        close_text(rows, &rows_buf);
        free(close_text(warn, &warn_buf));
        free(rows_buf);
        return st;
    }
    sim_run_opts_t ro = {.config_src = cfg->src, .out_dir = out_dir,
                         .data_dir = data_dir ? data_dir : ".",
                         .force = (flags & MCS_RUN_FORCE) != 0, .requests = rows, .warn = warn};
    sim_run_result_t rr;
    int rc = sim_run(&cfg->cfg, &ro, &rr, &err);
    close_text(rows, &rows_buf);
    close_text(warn, &warn_buf);
    if (rc != 0) {
        free(rows_buf);
        free(warn_buf);
        return fail(&err, msg, msg_len);
    }
    /* The summary through the function that writes summary.json. */
    if (!(sum_buf = json_text(rr.summary, 0))) {
        sim_errf_io(&err, "mooncake-sim library: cannot write the summary to memory");
        st = fail(&err, msg, msg_len);
    }
    json_decref(rr.summary);
    if (st == MCS_OK && want_rows && out_dir && !(rows_buf = read_file(out_dir, "requests.csv"))) {
        sim_errf_io(&err, "%s/requests.csv: cannot read it back", out_dir);
        st = fail(&err, msg, msg_len);
    }
    if (st != MCS_OK || (want_rows && !rows_buf) || !warn_buf) {
        if (st == MCS_OK) {
            sim_errf_io(&err, "mooncake-sim library: out of memory for a run's outputs");
            st = fail(&err, msg, msg_len);
        }
        free(sum_buf);
        free(rows_buf);
        free(warn_buf);
        return st;
    }
    mcs_result *r = sim_xmalloc(sizeof *r, "mcs_result");
    *r = (mcs_result){.summary = sum_buf, .requests = rows_buf, .warnings = warn_buf,
                      .events = rr.events, .wall_s = rr.wall_s};
    *out = r;
    return MCS_OK;
}

void mcs_result_free(mcs_result *res)
{
    if (!res)
        return;
    free(res->summary);
    free(res->requests);
    free(res->warnings);
    sim_free(res);
}

const char *mcs_result_summary_json(const mcs_result *res) { return res ? res->summary : NULL; }

const char *mcs_result_requests_csv(const mcs_result *res) { return res ? res->requests : NULL; }

const char *mcs_result_warnings(const mcs_result *res) { return res ? res->warnings : NULL; }

uint64_t mcs_result_events(const mcs_result *res) { return res ? res->events : 0; }

double mcs_result_wall_s(const mcs_result *res) { return res ? res->wall_s : 0; }

void mcs_free(void *p) { free(p); }
