/* sim/out.c: see out.h. */
#include "sim/out.h"

#include "sim/jsonx.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sim_out_mkdirs(const char *dir, int *created, sim_err_t *err)
{
    char buf[4096];
    if (created)
        *created = 0;
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
        return sim_errf(err, "%s: path too long", dir);
    size_t n = strlen(buf);
    while (n > 1 && buf[n - 1] == '/')
        buf[--n] = '\0';
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return sim_errf(err, "%s: cannot create directory: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) == 0) {
        if (created)
            *created = 1;
    } else if (errno != EEXIST) {
        return sim_errf(err, "%s: cannot create directory: %s", buf, strerror(errno));
    }
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return sim_errf(err, "%s: not a directory", buf);
    return 0;
}

int sim_out_open(sim_out_file_t *o, const char *dir, const char *name, sim_err_t *err)
{
    o->f = NULL;
    o->tmp_path[0] = '\0';
    if (snprintf(o->final_path, sizeof o->final_path, "%s/%s", dir, name) >=
            (int)sizeof o->final_path ||
        snprintf(o->tmp_path, sizeof o->tmp_path, "%s/.%s.tmp", dir, name) >=
            (int)sizeof o->tmp_path)
        return sim_errf(err, "%s/%s: path too long", dir, name);
    o->f = fopen(o->tmp_path, "w");
    if (!o->f) {
        int e = errno;
        o->tmp_path[0] = '\0';
        return sim_errf(err, "%s: cannot write: %s", o->final_path, strerror(e));
    }
    return 0;
}

int sim_out_commit(sim_out_file_t *o, sim_err_t *err)
{
    SIM_ASSERT(o->f != NULL);
    int bad = ferror(o->f);
    if (fclose(o->f) != 0)
        bad = 1;
    o->f = NULL;
    if (bad) {
        unlink(o->tmp_path);
        o->tmp_path[0] = '\0';
        return sim_errf(err, "%s: write failed", o->final_path);
    }
    if (rename(o->tmp_path, o->final_path) != 0) {
        int e = errno;
        unlink(o->tmp_path);
        o->tmp_path[0] = '\0';
        return sim_errf(err, "%s: cannot rename into place: %s", o->final_path, strerror(e));
    }
    o->tmp_path[0] = '\0';
    return 0;
}

void sim_out_abort(sim_out_file_t *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp_path[0])
        unlink(o->tmp_path);
    o->tmp_path[0] = '\0';
}

int sim_out_open_path(sim_out_file_t *o, const char *path, sim_err_t *err)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else
        snprintf(dir, sizeof dir, ".");
    return sim_out_open(o, slash == path ? "" : dir, slash ? slash + 1 : path, err);
}

int sim_out_write_json(const char *path, const json_t *json, sim_err_t *err)
{
    sim_out_file_t o;
    if (sim_out_open_path(&o, path, err) != 0)
        return -1;
    if (sim_json_write(o.f, json) != 0) {
        sim_out_abort(&o);
        return sim_errf(err, "%s: write failed", path);
    }
    return sim_out_commit(&o, err);
}
