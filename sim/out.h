/* sim/out.h: result files written atomically. Each file is written to a
 * hidden temporary beside its final name and renamed into place only on
 * commit, so a failed run leaves nothing half-written. A failed write is
 * reported with its file and the errno of the failing system call. */
#ifndef SIM_OUT_H
#define SIM_OUT_H

#include <stdio.h>

#include <jansson.h>

#include "sim/util.h"

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

/* A run's output directory, published as a unit: every file is written
 * into a private directory beside the target, and commit renames that
 * into place (an earlier run there moved aside first and removed after),
 * so a reader sees the old run or the new one, never a mix. Names lists
 * the files the run may write (NULL-terminated); the target must be
 * absent or hold nothing else (hidden leftovers aside). */
typedef struct sim_out_dir {
    char final_path[4096];
    char tmp_path[4096];
    const char *const *names;
    int slot; /* in the signal-cleanup table; -1: none */
} sim_out_dir_t;

int sim_out_dir_begin(sim_out_dir_t *d, const char *final, const char *const *names,
                      sim_err_t *err);
/* Open one of names in the private directory (commit it with
 * sim_out_commit before the directory). */
int sim_out_dir_open(sim_out_dir_t *d, sim_out_file_t *o, const char *name, sim_err_t *err);
/* fsync, move an earlier run aside, rename into place, remove the earlier
 * run. 0, or -1 with err (the private directory removed, the target as it
 * was). */
int sim_out_dir_commit(sim_out_dir_t *d, sim_err_t *err);
/* Remove the private directory and what it holds; safe when not begun. */
void sim_out_dir_abort(sim_out_dir_t *d);

/* SIGINT, SIGTERM and SIGHUP remove every private directory being written
 * and exit with 128 + the signal. For programs (main), not the library. */
void sim_out_install_signal_cleanup(void);

/* Write json to path atomically (indent 2, keys in insertion order,
 * trailing newline). 0 or -1. */
int sim_out_write_json(const char *path, const json_t *json, sim_err_t *err);

#endif
