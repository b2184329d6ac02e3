/* sim/out.c: see out.h. A failure of the system (a mkdir, open, write,
 * fsync or rename that fails: disk full, permission denied) is reported
 * with sim_errf_io, so main exits 1; a target that is not a run's
 * directory, or a path too long, is bad input (exit 2). */
/* fopencookie (glibc, musl): a stream whose sink sees each write(2) and
 * keeps its errno; stdio itself keeps only an error flag. */
#define _GNU_SOURCE
#include "sim/out.h"

#include "sim/jsonx.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static atomic_uint tmp_seq;

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
            return sim_errf_io(err, "%s: cannot create directory: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) == 0) {
        if (created)
            *created = 1;
    } else if (errno != EEXIST) {
        return sim_errf_io(err, "%s: cannot create directory: %s", buf, strerror(errno));
    }
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return sim_errf(err, "%s: not a directory", buf);
    return 0;
}

/* ---- one file: a stream over a sink that remembers its errno ---- */

struct sim_out_sink {
    int fd;
    int err;   /* errno of the first failed write or close; 0: none */
    char *buf; /* the stream's buffer (stdio's own would be BUFSIZ) */
};

/* A stream's buffer. With stdio's 8 KiB, the write(2) calls' own costs
 * were about 4% of the 8P+8D conversation replay's CPU time and 5% to 9%
 * of a 300k-request day slice's. Below sim_xmalloc's large-block size,
 * so that only the pages used are touched (a large block would clear a
 * 2 MiB huge page per file opened). */
#define SINK_BUF_BYTES ((size_t)256 << 10)

static void sink_free(struct sim_out_sink *s)
{
    if (s)
        sim_free(s->buf);
    sim_free(s);
}

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
    struct sim_out_sink *s = cookie;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(s->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (!s->err)
                s->err = w < 0 ? errno : EIO;
            errno = s->err;
            return -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)done;
}

static int sink_close(void *cookie)
{
    struct sim_out_sink *s = cookie;
    int rc = close(s->fd);
    if (rc != 0 && !s->err)
        s->err = errno;
    s->fd = -1;
    return rc;
}

/* o->f over fd (owned from here on: closed on failure). 0, or -1 with
 * errno. */
static int stream_open(sim_out_file_t *o, int fd)
{
    o->sink = sim_xmalloc(sizeof *o->sink, "output sink");
    o->sink->fd = fd;
    o->sink->err = 0;
    o->sink->buf = sim_xmalloc(SINK_BUF_BYTES, "output buffer");
    cookie_io_functions_t io = {.write = sink_write, .close = sink_close};
    o->f = fopencookie(o->sink, "w", io);
    if (!o->f || setvbuf(o->f, o->sink->buf, _IOFBF, SINK_BUF_BYTES) != 0) {
        int e = o->f ? EIO : errno;
        if (o->f)
            fclose(o->f); /* closes fd */
        else
            close(fd);
        o->f = NULL;
        sink_free(o->sink);
        o->sink = NULL;
        errno = e;
        return -1;
    }
    return 0;
}

/* Flush (then fdatasync when sync) and close o's stream, freeing its
 * sink: 0, or the errno of the first call that failed. */
static int stream_close(sim_out_file_t *o, int sync)
{
    int e = 0;
    if (fflush(o->f) != 0 || ferror(o->f))
        e = o->sink->err ? o->sink->err : EIO;
    else if (sync && fdatasync(o->sink->fd) != 0)
        e = errno;
    if (fclose(o->f) != 0 && !e)
        e = o->sink->err ? o->sink->err : EIO;
    o->f = NULL;
    sink_free(o->sink);
    o->sink = NULL;
    return e;
}

/* The write of o failed with errno e: remove the temporary, fill err. */
static int write_failed(sim_out_file_t *o, int e, sim_err_t *err)
{
    if (o->tmp_path[0])
        unlink(o->tmp_path);
    o->tmp_path[0] = '\0';
    return sim_errf_io(err, "%s: write failed: %s", o->shown_path, strerror(e));
}

int sim_out_open(sim_out_file_t *o, const char *dir, const char *name, sim_err_t *err)
{
    o->f = NULL;
    o->sink = NULL;
    o->tmp_path[0] = '\0';
    if (snprintf(o->final_path, sizeof o->final_path, "%s/%s", dir, name) >=
            (int)sizeof o->final_path ||
        snprintf(o->tmp_path, sizeof o->tmp_path, "%s/.%s.tmp-%ld-%u", dir, name, (long)getpid(),
                 atomic_fetch_add(&tmp_seq, 1u)) >= (int)sizeof o->tmp_path)
        return sim_errf(err, "%s/%s: path too long", dir, name);
    memcpy(o->shown_path, o->final_path, sizeof o->shown_path);
    struct stat st;
    int fd;
    if (stat(o->final_path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        /* A device or FIFO: written in place, there is nothing to publish. */
        o->tmp_path[0] = '\0';
        fd = open(o->final_path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    } else {
        /* A unique name (process, then a counter over its threads): two
         * writers of the same file never share a temporary. The mode is
         * the umask's. */
        fd = open(o->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    }
    if (fd < 0 || stream_open(o, fd) != 0) {
        int e = errno;
        if (fd >= 0 && o->tmp_path[0])
            unlink(o->tmp_path);
        o->tmp_path[0] = '\0';
        return sim_errf_io(err, "%s: cannot write: %s", o->final_path, strerror(e));
    }
    return 0;
}

int sim_out_commit(sim_out_file_t *o, sim_err_t *err)
{
    SIM_ASSERT(o->f != NULL);
    /* Flushed and on disk before it gets its name: a crash leaves the old
     * file or the new one. A device written in place is not synced. */
    int in_place = !o->tmp_path[0];
    int e = stream_close(o, !in_place);
    if (e)
        return write_failed(o, e, err);
    if (in_place)
        return 0;
    if (rename(o->tmp_path, o->final_path) != 0) {
        e = errno;
        unlink(o->tmp_path);
        o->tmp_path[0] = '\0';
        return sim_errf_io(err, "%s: cannot rename into place: %s", o->shown_path, strerror(e));
    }
    o->tmp_path[0] = '\0';
    return 0;
}

int sim_out_fail(sim_out_file_t *o, sim_err_t *err)
{
    int e = o->f ? stream_close(o, 0) : 0;
    return write_failed(o, e ? e : EIO, err);
}

int sim_out_flush_stream(FILE *f, const char *name, sim_err_t *err)
{
    /* The flush that fails leaves its errno; an error flag from an earlier
     * write whose data stdio dropped has no errno left to give. */
    int e = fflush(f) != 0 ? errno : 0;
    if (!e && !ferror(f))
        return 0;
    if (e)
        return sim_errf_io(err, "%s: write failed: %s", name, strerror(e));
    return sim_errf_io(err, "%s: write failed", name);
}

void sim_out_abort(sim_out_file_t *o)
{
    if (o->f) {
        fclose(o->f);
        sink_free(o->sink);
    }
    o->f = NULL;
    o->sink = NULL;
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
    if (sim_json_write(o.f, json) != 0)
        return sim_out_fail(&o, err);
    return sim_out_commit(&o, err);
}

/* ---- a run's directory, published as a unit ---- */

/* Directories being written, for the signal handler (lock-free slots). */
#define N_SLOTS 64
static _Atomic(sim_out_dir_t *) slots[N_SLOTS];

static void slot_add(sim_out_dir_t *d)
{
    d->slot = -1;
    for (int i = 0; i < N_SLOTS; i++) {
        sim_out_dir_t *none = NULL;
        if (atomic_compare_exchange_strong(&slots[i], &none, d)) {
            d->slot = i;
            return;
        }
    }
}

static void slot_del(sim_out_dir_t *d)
{
    if (d->slot >= 0)
        atomic_store(&slots[d->slot], NULL);
    d->slot = -1;
}

/* dir/name into buf without stdio (the signal handler uses it too). */
static int join(char *buf, size_t len, const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    if (a + 1 + b + 1 > len)
        return -1;
    memcpy(buf, dir, a);
    buf[a] = '/';
    memcpy(buf + a + 1, name, b + 1);
    return 0;
}

/* Remove dir's files among names, then dir. Async-signal-safe. */
static void remove_dir(const char *dir, const char *const *names)
{
    char p[8192];
    for (size_t i = 0; names && names[i]; i++)
        if (join(p, sizeof p, dir, names[i]) == 0)
            unlink(p);
    rmdir(dir);
}

static void on_signal(int sig)
{
    for (int i = 0; i < N_SLOTS; i++) {
        sim_out_dir_t *d = atomic_load(&slots[i]);
        if (d)
            remove_dir(d->tmp_path, d->names);
    }
    _exit(128 + sig);
}

/* sig's handler becomes sa's, unless sig was ignored when the process
 * started (nohup, trap '' INT): that choice of the caller is kept, and the
 * run goes on as it asked. */
static void install_unless_ignored(int sig, const struct sigaction *sa)
{
    struct sigaction old;
    if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        return;
    sigaction(sig, sa, NULL);
}

void sim_out_install_signal_cleanup(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    install_unless_ignored(SIGINT, &sa);
    install_unless_ignored(SIGTERM, &sa);
    install_unless_ignored(SIGHUP, &sa);
}

static int is_known(const char *const *names, const char *n)
{
    for (size_t i = 0; names[i]; i++)
        if (strcmp(names[i], n) == 0)
            return 1;
    return 0;
}

/* final is absent, or a directory holding nothing but names (a run's
 * earlier output) and hidden leftovers of interrupted writes. */
static int check_replaceable(const char *final, const char *const *names, sim_err_t *err)
{
    struct stat st;
    if (stat(final, &st) != 0)
        return errno == ENOENT ? 0 : sim_errf_io(err, "%s: %s", final, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return sim_errf(err, "%s: not a directory", final);
    DIR *dh = opendir(final);
    if (!dh)
        return sim_errf_io(err, "%s: cannot read: %s", final, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(dh)) != NULL)
        if (e->d_name[0] != '.' && !is_known(names, e->d_name))
            rc = sim_errf(err, "%s: holds '%s', which is not a run's output; choose a new or "
                               "empty --out",
                          final, e->d_name);
    closedir(dh);
    return rc;
}

/* final's parent ("." when none) and a hidden sibling name for it. */
static int sibling(const char *final, const char *tag, char *buf, size_t len)
{
    const char *slash = strrchr(final, '/');
    const char *base = slash ? slash + 1 : final;
    int n = slash ? (int)(slash - final) : 1;
    const char *parent = slash ? final : ".";
    if (slash == final)
        n = 0;
    return snprintf(buf, len, "%.*s/.%s.%s-%ld-%u", n, parent, base, tag, (long)getpid(),
                    atomic_fetch_add(&tmp_seq, 1u)) >= (int)len
               ? -1
               : 0;
}

int sim_out_dir_begin(sim_out_dir_t *d, const char *final, const char *const *names,
                      sim_err_t *err)
{
    memset(d, 0, sizeof *d);
    d->slot = -1;
    d->names = names;
    if (!final[0])
        return sim_errf(err, "an empty output directory: name one (--out DIR)");
    if (snprintf(d->final_path, sizeof d->final_path, "%s", final) >= (int)sizeof d->final_path)
        return sim_errf(err, "%s: path too long", final);
    /* DIR/ names DIR: its private sibling is DIR's, not one inside it. */
    size_t n = strlen(d->final_path);
    while (n > 1 && d->final_path[n - 1] == '/')
        d->final_path[--n] = '\0';
    if (sibling(d->final_path, "tmp", d->tmp_path, sizeof d->tmp_path) != 0)
        return sim_errf(err, "%s: path too long", final);
    if (check_replaceable(d->final_path, names, err) != 0)
        return -1;
    char parent[sizeof d->final_path];
    snprintf(parent, sizeof parent, "%s", d->final_path);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = '\0';
        if (sim_out_mkdirs(parent, NULL, err) != 0)
            return -1;
    }
    slot_add(d);
    if (mkdir(d->tmp_path, 0777) != 0) {
        int e = errno;
        slot_del(d);
        d->tmp_path[0] = '\0';
        return sim_errf_io(err, "%s: cannot create a directory beside it: %s", final, strerror(e));
    }
    return 0;
}

int sim_out_dir_open(sim_out_dir_t *d, sim_out_file_t *o, const char *name, sim_err_t *err)
{
    SIM_ASSERT(is_known(d->names, name));
    /* Under its own name: the directory is private, and the signal handler
     * knows what to remove. Commit's rename is then a no-op. */
    o->f = NULL;
    o->sink = NULL;
    if (join(o->final_path, sizeof o->final_path, d->tmp_path, name) != 0 ||
        join(o->shown_path, sizeof o->shown_path, d->final_path, name) != 0)
        return sim_errf(err, "%s/%s: path too long", d->final_path, name);
    memcpy(o->tmp_path, o->final_path, sizeof o->tmp_path);
    int fd = open(o->tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0 || stream_open(o, fd) != 0) {
        int e = errno;
        unlink(o->tmp_path);
        o->tmp_path[0] = '\0';
        return sim_errf_io(err, "%s: cannot write: %s", o->shown_path, strerror(e));
    }
    return 0;
}

static void fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

int sim_out_dir_commit(sim_out_dir_t *d, sim_err_t *err)
{
    char old[sizeof d->tmp_path] = "";
    struct stat st;
    fsync_dir(d->tmp_path);
    if (stat(d->final_path, &st) == 0) {
        /* Aside first: rename cannot replace a directory that holds files. */
        if (sibling(d->final_path, "old", old, sizeof old) != 0 || rename(d->final_path, old) != 0) {
            int e = errno;
            sim_out_dir_abort(d);
            return sim_errf_io(err, "%s: cannot move the earlier run aside: %s", d->final_path,
                            strerror(e));
        }
    }
    if (rename(d->tmp_path, d->final_path) != 0) {
        int e = errno;
        if (old[0])
            rename(old, d->final_path);
        sim_out_dir_abort(d);
        return sim_errf_io(err, "%s: cannot publish: %s", d->final_path, strerror(e));
    }
    slot_del(d);
    if (old[0]) {
        remove_dir(old, d->names);
        /* hidden leftovers of interrupted writes in the old run */
        DIR *dh = opendir(old);
        struct dirent *e;
        char p[8192];
        while (dh && (e = readdir(dh)) != NULL)
            if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
                join(p, sizeof p, old, e->d_name) == 0)
                unlink(p);
        if (dh)
            closedir(dh);
        rmdir(old);
    }
    char parent[sizeof d->final_path];
    snprintf(parent, sizeof parent, "%s", d->final_path);
    char *slash = strrchr(parent, '/');
    if (slash)
        *slash = '\0';
    fsync_dir(slash ? (parent[0] ? parent : "/") : ".");
    d->tmp_path[0] = '\0';
    return 0;
}

void sim_out_dir_abort(sim_out_dir_t *d)
{
    if (!d->tmp_path[0])
        return;
    slot_del(d);
    DIR *dh = opendir(d->tmp_path);
    struct dirent *e;
    char p[8192];
    while (dh && (e = readdir(dh)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            join(p, sizeof p, d->tmp_path, e->d_name) == 0)
            unlink(p);
    if (dh)
        closedir(dh);
    rmdir(d->tmp_path);
    d->tmp_path[0] = '\0';
}
