/* fuzz/fuzz.c: see fuzz.h. The temporary directory is
 * mooncake-fuzz-PID-XXXXXX in $FUZZ_TMPDIR, else /dev/shm, else $TMPDIR,
 * else /tmp; its files are removed at exit.
 * Failure paths leak: they abort. */
#include "fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/exp/config.h"
#include "sim/core/jsonx.h"

#define FUZZ_MAX_FILES 8

static char dir[512];
static char paths[FUZZ_MAX_FILES][640];
static int n_paths;

static void cleanup(void)
{
    for (int i = 0; i < n_paths; i++)
        unlink(paths[i]);
    if (dir[0])
        rmdir(dir);
}

static void make_dir(void)
{
    /* Memory-backed when there is one: a disk's file system costs the
     * trace harness three quarters of its speed. */
    const char *base = getenv("FUZZ_TMPDIR");
    if (!base || !*base)
        base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/mooncake-fuzz-%ld-XXXXXX", base && *base ? base : "/tmp",
             (long)getpid());
    if (!mkdtemp(dir)) {
        perror(dir);
        abort();
    }
    atexit(cleanup);
}

const char *fuzz_path(const char *name)
{
    if (!dir[0])
        make_dir();
    char want[640];
    snprintf(want, sizeof want, "%s/%s", dir, name);
    char *p = NULL;
    for (int i = 0; i < n_paths && !p; i++)
        if (strcmp(paths[i], want) == 0)
            p = paths[i];
    if (!p) {
        if (n_paths == FUZZ_MAX_FILES)
            fuzz_fail("fuzz_write: more than 8 file names", name);
        p = paths[n_paths++];
        memcpy(p, want, sizeof want);
    }
    return p;
}

const char *fuzz_write(const char *name, const void *data, size_t size)
{
    const char *p = fuzz_path(name);
    FILE *f = fopen(p, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror(p);
        abort();
    }
    return p;
}

void fuzz_fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz: property violated: %s\n%s\n", what, detail ? detail : "");
    abort();
}

/* j as compact text for a failure message (malloc'd by jansson). */
static char *show(const json_t *j)
{
    return json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
}

int fuzz_strict(void)
{
    static int strict = -1;
    if (strict < 0) {
        const char *e = getenv("FUZZ_STRICT");
        strict = e && strcmp(e, "1") == 0;
    }
    return strict;
}

void fuzz_known(const char *what)
{
    static char seen[4][64];
    for (int i = 0; i < 4; i++) {
        if (strcmp(seen[i], what) == 0)
            return;
        if (!seen[i][0]) {
            snprintf(seen[i], sizeof seen[i], "%s", what);
            fprintf(stderr, "fuzz: known finding (FUZZ_STRICT=1 fails on it): %s\n", what);
            return;
        }
    }
}

void fuzz_config_round_trip(const sim_config_t *cfg)
{
    json_t *a = sim_config_to_json(cfg);
    const char *path = fuzz_path("effective.json");
    FILE *f = fopen(path, "wb");
    if (!f || sim_json_write_exact(f, a) != 0 || fclose(f) != 0)
        fuzz_fail("cannot write the effective config", path);
    sim_config_t *back = malloc(sizeof *back);
    if (!back)
        abort();
    sim_config_defaults(back);
    sim_err_t err;
    if (sim_config_load(back, path, &err) != 0 || sim_config_validate(back, path, &err) != 0) {
        fprintf(stderr, "effective: %s\n", show(a));
        fuzz_fail("the effective config does not load back", err.msg);
    }
    json_t *b = sim_config_to_json(back);
    if (!json_equal(a, b)) {
        fprintf(stderr, "effective: %s\nread back: %s\n", show(a), show(b));
        fuzz_fail("the effective config changes when read back", NULL);
    }
    json_decref(a);
    json_decref(b);
    free(back);
}
