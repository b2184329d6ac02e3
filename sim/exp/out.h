/* sim/exp/out.h: result files written atomically. Each file is written to a
 * hidden temporary beside its final name and renamed into place only on
 * commit, so a failed run leaves nothing half-written. A failed write is
 * reported with its file and the errno of the failing system call. */
#ifndef SIM_OUT_H
#define SIM_OUT_H

#include <stdio.h>

#include <jansson.h>

#include "sim/core/util.h"

struct sim_out_sink;

/* f is a stdio stream over the file; write to it freely, then commit or
 * abort. A stream error is only a flag in stdio, so the sink behind f
 * remembers the errno of the first failing write(2) for commit's message. */
typedef struct sim_out_file {
    FILE *f;
    struct sim_out_sink *sink; /* owned; freed by commit or abort */
    char final_path[4096];
    char tmp_path[4096];   /* empty: written in place (a device or FIFO) */
    char shown_path[4096]; /* the name errors give (the file as published) */
} sim_out_file_t;

/* Create dir and its parents as needed. Sets *created to 1 when the last
 * component did not exist before (so a failed run can remove it). */
int sim_out_mkdirs(const char *dir, int *created, sim_err_t *err);

/* Open dir/name for writing through a temporary. 0 or -1 (err filled).
 * A dir/name that exists and is neither a regular file nor a directory (a
 * device such as /dev/full, a FIFO, or a link to one) is written in place:
 * renaming over it would replace the device with a file. */
int sim_out_open(sim_out_file_t *o, const char *dir, const char *name, sim_err_t *err);
/* sim_out_open for a whole path: its folder (". " when it has none) and name. */
int sim_out_open_path(sim_out_file_t *o, const char *path, sim_err_t *err);
/* Flush, close and rename into place. 0 or -1 (temporary removed; err
 * says "PATH: write failed: REASON", REASON from the failing call). */
int sim_out_commit(sim_out_file_t *o, sim_err_t *err);
/* A write to o failed (a writer saw ferror or an error return): abort it
 * and fill err as commit would ("PATH: write failed: REASON"). -1. */
int sim_out_fail(sim_out_file_t *o, sim_err_t *err);
/* Flush f, a stream not opened here (stdout), and check it: 0, or -1 with
 * err "NAME: write failed: REASON" (io) when a write to it failed. */
int sim_out_flush_stream(FILE *f, const char *name, sim_err_t *err);
/* Close and remove the temporary; safe on a file never opened. */
void sim_out_abort(sim_out_file_t *o);

/* One writer per output directory: an advisory lock (flock) on a hidden
 * file beside the target, PARENT/.NAME.lock, which works before the target
 * exists and is shared by runs and sweeps. The target's last component is
 * resolved through symbolic links first, so a link and its target share
 * one lock. A parent that cannot hold the file (read-only, not the user's)
 * falls back to DIR/.NAME.lock inside an existing target. The file holds
 * the writer's pid and is removed on release. */
typedef struct sim_out_lock {
    int fd; /* -1: not held */
    int slot; /* in the signal-cleanup table; -1: none */
    char path[4096];
    /* the private directory the lock guards, removed by the signal
     * handler (NULL: none), and the names of the files it may hold */
    _Atomic(const char *) dir;
    const char *const *names;
} sim_out_lock_t;

/* Take the lock of target (shown is the name messages give, target when
 * NULL). The parent is created when missing. 0; or -1 with err (io, exit
 * 1): "SHOWN: another mooncake-sim (pid N) is writing it; ..." when another
 * process holds it, or the failing call. */
int sim_out_lock(sim_out_lock_t *lk, const char *target, const char *shown, sim_err_t *err);
/* Remove the lock file and release; safe on a lock never taken. */
void sim_out_unlock(sim_out_lock_t *lk);

/* path with its trailing slashes dropped and its last component resolved
 * through symbolic links (the links of the folders above are left to the
 * kernel): the directory a write to path would replace. A dangling link
 * gives the absent target it names. 0, or -1 (a loop of links, a path too
 * long). */
int sim_out_resolve(const char *path, char *buf, size_t len, sim_err_t *err);

/* Remove leftovers of writers that are no longer alive from dir: hidden
 * entries .BASE.tmp-PID-N and .BASE.old-PID-N (base NULL: any BASE) whose
 * PID no process has (kill(PID, 0) fails with ESRCH). A directory is
 * removed with the files it holds. 0, or -1 with err when one cannot be
 * removed. */
int sim_out_reclaim(const char *dir, const char *base, sim_err_t *err);

/* Remove dir, a run's directory: the files it holds (names and hidden
 * leftovers), then dir. 0, or -1 with err when something remains. */
int sim_out_remove_run(const char *dir, sim_err_t *err);

/* A run's output directory, published as a unit: every file is written
 * into a private directory beside the target, and commit renames that
 * into place (an earlier run there moved aside first and removed after),
 * so a reader sees the old run or the new one, never a mix. The target is
 * locked (sim_out_lock) from begin to commit or abort. Names lists the
 * files the run may write (NULL-terminated); the target must be absent or
 * hold nothing else (hidden leftovers aside), and may not be a mount
 * point (rename cannot replace one). A --out that is a symbolic link is
 * published into the link's target; the link stays. */
typedef struct sim_out_dir {
    char final_path[4096];  /* as given (trailing slashes dropped): messages */
    char target_path[4096]; /* final_path resolved through links: replaced */
    char tmp_path[4096];
    sim_out_lock_t lock; /* lock.names: the names begin was given */
} sim_out_dir_t;

int sim_out_dir_begin(sim_out_dir_t *d, const char *final, const char *const *names,
                      sim_err_t *err);
/* Open one of names in the private directory (commit it with
 * sim_out_commit before the directory). */
int sim_out_dir_open(sim_out_dir_t *d, sim_out_file_t *o, const char *name, sim_err_t *err);
/* fsync, move an earlier run aside, rename into place, remove the earlier
 * run, release the lock, fsync the parent. SIGINT, SIGTERM and SIGHUP are
 * blocked from the first rename to the release: one arriving then is
 * delivered after the commit, so the target is never left empty. 0, or -1
 * with err (the private directory removed, the target as it was; when
 * only the parent's fsync failed, the run is in place and err says so).
 * An fsync that fails with EINVAL (a file system without it) is ignored. */
int sim_out_dir_commit(sim_out_dir_t *d, sim_err_t *err);
/* Remove the private directory and what it holds, release the lock; safe
 * when not begun. */
void sim_out_dir_abort(sim_out_dir_t *d);

/* SIGINT, SIGTERM and SIGHUP remove every private directory being written
 * and the locks held, and exit with 128 + the signal. For programs
 * (main), not the library. */
void sim_out_install_signal_cleanup(void);

/* Room in the signal-cleanup table for n directories or locks held at
 * once (64 without a call). The table is read by the signal handler, so
 * it grows only here: call before starting the threads that write. */
void sim_out_reserve(int n);

/* For tests: between_renames runs in the commit between its two renames
 * (signals blocked); fsync_dir replaces fsync(2) of directories. NULL
 * resets both. */
typedef struct sim_out_hooks {
    void (*between_renames)(void);
    int (*fsync_dir)(int fd);
} sim_out_hooks_t;
void sim_out_set_hooks(const sim_out_hooks_t *h);

/* Write json to path atomically (indent 2, keys in insertion order,
 * trailing newline). 0 or -1. */
int sim_out_write_json(const char *path, const json_t *json, sim_err_t *err);

#endif
