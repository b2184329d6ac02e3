/* sim/exp/out.c: see out.h. A failure of the system (a mkdir, open, write,
 * fsync or rename that fails: disk full, permission denied) is reported
 * with sim_errf_io, so main exits 1; a target that is not a run's
 * directory, or a path too long, is bad input (exit 2). */
/* fopencookie (glibc, musl): a stream whose sink sees each write(2) and
 * keeps its errno; stdio itself keeps only an error flag. */
#define _GNU_SOURCE
#include "sim/exp/out.h"

#include "sim/core/jsonx.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

/* ---- the signal-cleanup table ---- */

/* The locks held (each with the private directory it guards), for the
 * signal handler: lock-free slots in an array that only sim_out_reserve
 * replaces, before the writing threads start. The handler reads the count
 * first and reserve stores it last, so it never reads past the array. */
typedef _Atomic(sim_out_lock_t *) slot_t;
#define N_SLOTS0 64
static slot_t slots0[N_SLOTS0];
static _Atomic(slot_t *) slots = slots0;
static atomic_int n_slots = N_SLOTS0;
/* dying: a handler is cleaning up; committing: commits between their
 * first rename and their release (signals blocked in their thread). */
static atomic_int dying, committing;
static sim_out_hooks_t hooks;

void sim_out_reserve(int n)
{
    int have = atomic_load(&n_slots);
    if (n <= have)
        return;
    slot_t *old = atomic_load(&slots);
    slot_t *tab = sim_xcalloc((size_t)n, sizeof *tab, "signal-cleanup table");
    for (int i = 0; i < have; i++)
        atomic_store(&tab[i], atomic_load(&old[i]));
    atomic_store(&slots, tab);
    atomic_store(&n_slots, n);
    if (old != slots0)
        sim_free(old);
}

void sim_out_set_hooks(const sim_out_hooks_t *h)
{
    if (h)
        hooks = *h;
    else
        memset(&hooks, 0, sizeof hooks);
}

static void slot_add(sim_out_lock_t *lk)
{
    lk->slot = -1;
    int n = atomic_load(&n_slots);
    slot_t *tab = atomic_load(&slots);
    for (int i = 0; i < n; i++) {
        sim_out_lock_t *none = NULL;
        if (atomic_compare_exchange_strong(&tab[i], &none, lk)) {
            lk->slot = i;
            return;
        }
    }
}

static void slot_del(sim_out_lock_t *lk)
{
    if (lk->slot >= 0)
        atomic_store(&atomic_load(&slots)[lk->slot], NULL);
    lk->slot = -1;
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
    /* A commit in another thread finishes first (its renames and its
     * release); one not yet started sees dying and never starts. */
    atomic_store(&dying, 1);
    while (atomic_load(&committing) > 0)
        ;
    int n = atomic_load(&n_slots);
    slot_t *tab = atomic_load(&slots);
    for (int i = 0; i < n; i++) {
        sim_out_lock_t *lk = atomic_load(&tab[i]);
        if (!lk)
            continue;
        const char *dir = atomic_load(&lk->dir);
        if (dir)
            remove_dir(dir, lk->names);
        unlink(lk->path);
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

/* SIGINT, SIGTERM and SIGHUP into set. */
static void cleanup_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

void sim_out_install_signal_cleanup(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    cleanup_signals(&sa.sa_mask);
    install_unless_ignored(SIGINT, &sa);
    install_unless_ignored(SIGTERM, &sa);
    install_unless_ignored(SIGHUP, &sa);
}

/* ---- paths, locks and leftovers ---- */

static void trim_slashes(char *p)
{
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = '\0';
}

int sim_out_resolve(const char *path, char *buf, size_t len, sim_err_t *err)
{
    if (snprintf(buf, len, "%s", path) >= (int)len)
        return sim_errf(err, "%s: path too long", path);
    trim_slashes(buf);
    for (int hops = 0;; hops++) {
        struct stat st;
        if (lstat(buf, &st) != 0 || !S_ISLNK(st.st_mode))
            return 0;
        if (hops == 40)
            return sim_errf(err, "%s: too many levels of symbolic links", path);
        char l[4096];
        ssize_t n = readlink(buf, l, sizeof l - 1);
        if (n <= 0)
            return sim_errf_io(err, "%s: cannot read the link: %s", path, strerror(errno));
        l[n] = '\0';
        char *slash = strrchr(buf, '/');
        if (l[0] == '/' || !slash) {
            if (snprintf(buf, len, "%s", l) >= (int)len)
                return sim_errf(err, "%s: path too long", path);
        } else {
            /* relative to the link's folder */
            size_t at = (size_t)(slash - buf) + 1;
            if (at + (size_t)n + 1 > len)
                return sim_errf(err, "%s: path too long", path);
            memcpy(buf + at, l, (size_t)n + 1);
        }
        trim_slashes(buf);
    }
}

/* final's parent ("." when none) into buf, and its last component. */
static const char *split(const char *final, char *buf, size_t len)
{
    const char *slash = strrchr(final, '/');
    if (!slash)
        snprintf(buf, len, ".");
    else if (slash == final)
        snprintf(buf, len, "/");
    else
        snprintf(buf, len, "%.*s", (int)(slash - final), final);
    return slash ? slash + 1 : final;
}

/* The hidden name PARENT/.BASE.lock of target's lock, or (inside) one in
 * target itself. 0, or -1 when too long. */
static int lock_name(const char *target, int inside, char *buf, size_t len)
{
    char parent[4096];
    const char *base = split(target, parent, sizeof parent);
    return snprintf(buf, len, "%s/.%s.lock", inside ? target : parent, base) >= (int)len ? -1
                                                                                           : 0;
}

/* Open (creating) lk->path, the lock file of real (its parent: parent):
 * a missing parent is created; a parent this user cannot write moves the
 * file inside real. The fd, or -1 with err filled and lk->path cleared. */
static int lock_open(sim_out_lock_t *lk, const char *real, const char *parent,
                     const char *shown, sim_err_t *err)
{
    int made = 0, inside = 0;
    for (;;) {
        int fd = open(lk->path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0)
            return fd;
        int e = errno;
        struct stat st;
        if (e == ENOENT && !made) {
            made = 1; /* the parent: as the run's directory would be */
            if (sim_out_mkdirs(parent, NULL, err) != 0)
                break;
            continue;
        }
        if ((e == EACCES || e == EPERM || e == EROFS) && !inside && stat(real, &st) == 0 &&
            S_ISDIR(st.st_mode)) {
            inside = 1;
            if (lock_name(real, 1, lk->path, sizeof lk->path) == 0)
                continue;
            e = ENAMETOOLONG;
        }
        sim_errf_io(err, "%s: cannot lock %s: %s", shown, lk->path, strerror(e));
        break;
    }
    lk->path[0] = '\0';
    return -1;
}

/* fd (lk->path, locked) gets this process's pid; 0, or -1 with err (fd
 * closed, the file removed). */
static int lock_mark(sim_out_lock_t *lk, int fd, const char *shown, sim_err_t *err)
{
    char text[32];
    int n = snprintf(text, sizeof text, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) == 0 && pwrite(fd, text, (size_t)n, 0) == n)
        return 0;
    int e = errno;
    unlink(lk->path);
    close(fd);
    sim_errf_io(err, "%s: cannot lock %s: %s", shown, lk->path, strerror(e));
    lk->path[0] = '\0';
    return -1;
}

int sim_out_lock(sim_out_lock_t *lk, const char *target, const char *shown, sim_err_t *err)
{
    char real[4096], parent[4096];
    lk->fd = -1;
    lk->slot = -1;
    lk->path[0] = '\0';
    lk->names = NULL;
    atomic_store(&lk->dir, NULL);
    shown = shown ? shown : target;
    if (sim_out_resolve(target, real, sizeof real, err) != 0)
        return -1;
    split(real, parent, sizeof parent);
    if (lock_name(real, 0, lk->path, sizeof lk->path) != 0)
        return sim_errf(err, "%s: path too long", shown);
    int fd = -1;
    for (int tries = 0; fd < 0; tries++) {
        if ((fd = lock_open(lk, real, parent, shown, err)) < 0)
            return -1;
        struct stat st, now;
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            char text[32] = "";
            ssize_t n = pread(fd, text, sizeof text - 1, 0);
            long pid = n > 0 ? strtol(text, NULL, 10) : 0;
            close(fd);
            if (e != EWOULDBLOCK)
                sim_errf_io(err, "%s: cannot lock %s: %s", shown, lk->path, strerror(e));
            lk->path[0] = '\0';
            if (e != EWOULDBLOCK)
                return -1;
            snprintf(text, sizeof text, " (pid %ld)", pid);
            return sim_errf_io(err, "%s: another mooncake-sim%s is writing it; wait for it to "
                                    "end or choose another --out",
                               shown, pid > 0 ? text : "");
        }
        /* Its holder removes the file before releasing it: a lock on a
         * file no longer at the path is no lock; take the new one. */
        if (fstat(fd, &st) != 0 || stat(lk->path, &now) != 0 || st.st_ino != now.st_ino ||
            st.st_dev != now.st_dev) {
            close(fd);
            fd = -1;
            if (tries == 100) {
                sim_errf_io(err, "%s: cannot lock %s: %s", shown, lk->path, strerror(EAGAIN));
                lk->path[0] = '\0';
                return -1;
            }
        }
    }
    if (lock_mark(lk, fd, shown, err) != 0)
        return -1;
    lk->fd = fd;
    slot_add(lk);
    return 0;
}

void sim_out_unlock(sim_out_lock_t *lk)
{
    if (!lk->path[0])
        return;
    slot_del(lk);
    unlink(lk->path); /* before the release: see sim_out_lock */
    close(lk->fd);
    lk->fd = -1;
    lk->path[0] = '\0';
}

/* Remove dir's entries (files, hidden ones too), then dir. 0, or -1 with
 * errno (something remains). */
static int remove_tree(const char *dir)
{
    DIR *dh = opendir(dir);
    if (!dh)
        return errno == ENOENT ? 0 : -1;
    struct dirent *e;
    char p[8192];
    while ((e = readdir(dh)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            join(p, sizeof p, dir, e->d_name) == 0)
            unlink(p);
    closedir(dh);
    return rmdir(dir);
}

int sim_out_remove_run(const char *dir, sim_err_t *err)
{
    if (remove_tree(dir) != 0)
        return sim_errf_io(err, "%s: cannot remove: %s", dir, strerror(errno));
    return 0;
}

/* The pid of a leftover .BASE.tmp-PID-N or .BASE.old-PID-N (base NULL:
 * any BASE); -1 when name is none. */
static long leftover_pid(const char *name, const char *base)
{
    const char *p = NULL;
    if (name[0] != '.')
        return -1;
    if (base) {
        size_t n = strlen(base);
        if (strncmp(name + 1, base, n) != 0 || name[1 + n] != '.')
            return -1;
        p = name + 2 + n;
    } else {
        for (const char *q = name + 1; (q = strchr(q, '.')) != NULL; q++)
            if (strncmp(q + 1, "tmp-", 4) == 0 || strncmp(q + 1, "old-", 4) == 0)
                p = q + 1;
        if (!p)
            return -1;
    }
    if (strncmp(p, "tmp-", 4) != 0 && strncmp(p, "old-", 4) != 0)
        return -1;
    char *end;
    long pid = strtol(p + 4, &end, 10);
    if (end == p + 4 || *end != '-' || !end[1] || strspn(end + 1, "0123456789") != strlen(end + 1))
        return -1;
    return pid > 0 ? pid : -1;
}

int sim_out_reclaim(const char *dir, const char *base, sim_err_t *err)
{
    DIR *dh = opendir(dir);
    if (!dh)
        return 0;
    struct dirent *e;
    char p[8192];
    int rc = 0;
    while ((e = readdir(dh)) != NULL) {
        long pid = leftover_pid(e->d_name, base);
        if (pid < 0 || join(p, sizeof p, dir, e->d_name) != 0)
            continue;
        /* A pid alive may be its writer still (or another process that
         * took the number): kept. */
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        struct stat st;
        if (lstat(p, &st) != 0)
            continue;
        if ((S_ISDIR(st.st_mode) ? remove_tree(p) : unlink(p)) != 0 && errno != ENOENT && !rc)
            rc = sim_errf_io(err, "%s: cannot remove a dead writer's leftover: %s", p,
                             strerror(errno));
    }
    closedir(dh);
    return rc;
}

/* ---- a run's directory, published as a unit ---- */

static int is_known(const char *const *names, const char *n)
{
    for (size_t i = 0; names[i]; i++)
        if (strcmp(names[i], n) == 0)
            return 1;
    return 0;
}

/* target is absent, or a directory holding nothing but names (a run's
 * earlier output) and hidden leftovers of interrupted writes; shown is
 * its name in messages. */
static int check_replaceable(const char *target, const char *shown, const char *const *names,
                             sim_err_t *err)
{
    struct stat st;
    if (stat(target, &st) != 0)
        return errno == ENOENT ? 0 : sim_errf_io(err, "%s: %s", shown, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return sim_errf(err, "%s: not a directory", shown);
    DIR *dh = opendir(target);
    if (!dh)
        return sim_errf_io(err, "%s: cannot read: %s", shown, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(dh)) != NULL)
        if (e->d_name[0] != '.' && !is_known(names, e->d_name))
            rc = sim_errf(err, "%s: holds '%s', which is not a run's output; choose a new or "
                               "empty --out",
                          shown, e->d_name);
    closedir(dh);
    return rc;
}

/* 1 when dir is the root of a mount (a bind mount too, where statx says
 * so): rename can neither move it aside nor replace it. */
static int is_mount_point(const char *dir)
{
#ifdef STATX_ATTR_MOUNT_ROOT
    struct statx sx;
    if (statx(AT_FDCWD, dir, 0, 0, &sx) == 0 && (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
        return (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
#endif
    char up[8192];
    struct stat a, b;
    if (join(up, sizeof up, dir, "..") != 0 || stat(dir, &a) != 0 || stat(up, &b) != 0)
        return 0;
    return a.st_dev != b.st_dev || a.st_ino == b.st_ino;
}

/* target's parent and a hidden sibling name for it, unique to this
 * process: .BASE.TAG-PID-N (what sim_out_reclaim recognizes). */
static int sibling(const char *target, const char *tag, char *buf, size_t len)
{
    char parent[4096];
    const char *base = split(target, parent, sizeof parent);
    if (strcmp(parent, "/") == 0)
        parent[0] = '\0';
    return snprintf(buf, len, "%s/.%s.%s-%ld-%u", parent, base, tag, (long)getpid(),
                    atomic_fetch_add(&tmp_seq, 1u)) >= (int)len
               ? -1
               : 0;
}

int sim_out_dir_begin(sim_out_dir_t *d, const char *final, const char *const *names,
                      sim_err_t *err)
{
    memset(d, 0, sizeof *d);
    d->lock.fd = -1;
    d->lock.slot = -1;
    if (!final[0])
        return sim_errf(err, "an empty output directory: name one (--out DIR)");
    if (snprintf(d->final_path, sizeof d->final_path, "%s", final) >= (int)sizeof d->final_path)
        return sim_errf(err, "%s: path too long", final);
    /* DIR/ names DIR: its private sibling is DIR's, not one inside it. */
    trim_slashes(d->final_path);
    const char *shown = d->final_path;
    /* A link is followed: the run replaces its target, the link stays. */
    if (sim_out_resolve(d->final_path, d->target_path, sizeof d->target_path, err) != 0)
        return -1;
    char tmp[sizeof d->tmp_path], parent[sizeof d->target_path];
    if (sibling(d->target_path, "tmp", tmp, sizeof tmp) != 0)
        return sim_errf(err, "%s: path too long", final);
    if (sim_out_lock(&d->lock, d->target_path, shown, err) != 0)
        return -1;
    const char *base = split(d->target_path, parent, sizeof parent);
    struct stat st;
    if (sim_out_reclaim(parent, base, err) != 0)
        goto fail;
    if (stat(d->target_path, &st) == 0 && S_ISDIR(st.st_mode) &&
        is_mount_point(d->target_path)) {
        sim_errf(err, "%s: a mount point, which a run's directory cannot be (it is published "
                      "by renaming a new directory into its place); choose a directory inside "
                      "it (--out %s/NAME)",
                 shown, shown);
        goto fail;
    }
    if (check_replaceable(d->target_path, shown, names, err) != 0)
        goto fail;
    memcpy(d->tmp_path, tmp, sizeof tmp);
    d->lock.names = names;
    atomic_store(&d->lock.dir, d->tmp_path);
    if (mkdir(d->tmp_path, 0777) != 0) {
        int e = errno;
        atomic_store(&d->lock.dir, NULL);
        d->tmp_path[0] = '\0';
        sim_errf_io(err, "%s: cannot create a directory beside it: %s", shown, strerror(e));
        goto fail;
    }
    return 0;
fail:
    sim_out_unlock(&d->lock);
    return -1;
}

int sim_out_dir_open(sim_out_dir_t *d, sim_out_file_t *o, const char *name, sim_err_t *err)
{
    SIM_ASSERT(d->lock.names && is_known(d->lock.names, name));
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

/* fsync(2) of dir: 0, or the errno. EINVAL, a file system that cannot
 * sync a directory, is no failure. */
static int sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int e = (hooks.fsync_dir ? hooks.fsync_dir(fd) : fsync(fd)) != 0 ? errno : 0;
    close(fd);
    return e == EINVAL ? 0 : e;
}

/* The renames of the commit, signals blocked by the caller: the earlier
 * run aside (into old), the private directory into place. 0, or -1 with
 * err (the earlier run back in place). */
static int publish(sim_out_dir_t *d, char *old, size_t len, sim_err_t *err)
{
    static const char *const why_mount =
        "; a mount point cannot be a run's directory: choose a directory inside it";
    struct stat st;
    old[0] = '\0';
    if (lstat(d->target_path, &st) == 0) {
        /* Aside first: rename cannot replace a directory that holds files. */
        if (sibling(d->target_path, "old", old, len) != 0) {
            old[0] = '\0';
            return sim_errf(err, "%s: path too long", d->final_path);
        }
        if (rename(d->target_path, old) != 0) {
            int e = errno;
            old[0] = '\0';
            return sim_errf_io(err, "%s: cannot move the earlier run aside: %s%s",
                               d->final_path, strerror(e), e == EBUSY ? why_mount : "");
        }
    }
    if (hooks.between_renames)
        hooks.between_renames();
    if (rename(d->tmp_path, d->target_path) != 0) {
        int e = errno;
        if (old[0])
            rename(old, d->target_path);
        old[0] = '\0';
        return sim_errf_io(err, "%s: cannot publish: %s%s", d->final_path, strerror(e),
                           e == EBUSY ? why_mount : "");
    }
    return 0;
}

int sim_out_dir_commit(sim_out_dir_t *d, sim_err_t *err)
{
    char old[sizeof d->tmp_path];
    int e = sync_dir(d->tmp_path);
    if (e) {
        sim_out_dir_abort(d);
        return sim_errf_io(err, "%s: cannot sync to disk: %s", d->final_path, strerror(e));
    }
    /* From the first rename to the release, a signal waits: delivered
     * between the renames it would leave no run at the target. */
    sigset_t block, prev;
    cleanup_signals(&block);
    pthread_sigmask(SIG_BLOCK, &block, &prev);
    atomic_fetch_add(&committing, 1);
    if (atomic_load(&dying)) {
        /* another thread's handler is cleaning up and will exit */
        atomic_fetch_sub(&committing, 1);
        for (;;)
            pause();
    }
    int rc = publish(d, old, sizeof old, err);
    if (rc == 0) {
        atomic_store(&d->lock.dir, NULL);
        d->tmp_path[0] = '\0';
        if (old[0])
            remove_tree(old);
    }
    sim_out_dir_abort(d); /* the private directory if not published; the lock */
    atomic_fetch_sub(&committing, 1);
    pthread_sigmask(SIG_SETMASK, &prev, NULL);
    if (rc != 0)
        return -1;
    char parent[sizeof d->target_path];
    split(d->target_path, parent, sizeof parent);
    if ((e = sync_dir(parent)) != 0)
        return sim_errf_io(err, "%s: published, but its folder %s could not be synced to disk: "
                                "%s",
                           d->final_path, parent, strerror(e));
    return 0;
}

void sim_out_dir_abort(sim_out_dir_t *d)
{
    if (d->tmp_path[0]) {
        atomic_store(&d->lock.dir, NULL);
        remove_tree(d->tmp_path);
        d->tmp_path[0] = '\0';
    }
    sim_out_unlock(&d->lock);
}
