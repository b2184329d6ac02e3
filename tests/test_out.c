/* tests/test_out.c: result files and directories written as a unit. A
 * run's directory appears whole or not at all: a rerun replaces the
 * earlier run entirely; a target holding other files is refused; an
 * aborted write leaves the target as it was and nothing beside it; a
 * signal removes the private directory and exits with 128 + the signal;
 * two writers of one file never share a temporary; a failed write names
 * the file and the errno of the failing write(2) (never a generic EIO),
 * and a target that is a device is written in place, never replaced. A
 * signal between the commit's renames is delivered after them (the new
 * run in place); a failed fsync of a directory fails the commit; a second
 * lock on a target is refused; the signal handler's table holds every
 * directory reserved for, past 64. */
#include "tests/tests.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/exp/out.h"

static const char *const names[] = {"a.txt", "b.txt", NULL};


static void put(sim_out_dir_t *d, const char *name, const char *text)
{
    sim_out_file_t f;
    sim_err_t err;
    ck_assert_msg(sim_out_dir_open(d, &f, name, &err) == 0, "%s", err.msg);
    fputs(text, f.f);
    ck_assert_msg(sim_out_commit(&f, &err) == 0, "%s", err.msg);
}

static char *read_in(const char *dir, const char *name)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return tests_read_file(p, NULL);
}

START_TEST(test_dir_publish_and_replace)
{
    char parent[512], final[600];
    snprintf(parent, sizeof parent, "%s/pub", tests_tmpdir());
    snprintf(final, sizeof final, "%s/run", parent);
    sim_out_dir_t d;
    sim_err_t err;
    ck_assert_msg(sim_out_dir_begin(&d, final, names, &err) == 0, "%s", err.msg);
    put(&d, "a.txt", "first a\n");
    put(&d, "b.txt", "first b\n");
    struct stat st;
    ck_assert(stat(final, &st) != 0); /* nothing until the commit */
    ck_assert_msg(sim_out_dir_commit(&d, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(tests_n_entries(final), 2);
    ck_assert_int_eq(tests_n_entries(parent), 1); /* no private directory left beside it */
    /* a rerun writing only a.txt replaces the whole earlier run */
    ck_assert(sim_out_dir_begin(&d, final, names, &err) == 0);
    put(&d, "a.txt", "second a\n");
    char *a = read_in(final, "a.txt");
    ck_assert_str_eq(a, "first a\n"); /* the old run until the commit */
    free(a);
    ck_assert(sim_out_dir_commit(&d, &err) == 0);
    a = read_in(final, "a.txt");
    ck_assert_str_eq(a, "second a\n");
    free(a);
    ck_assert_int_eq(tests_n_entries(final), 1);
    ck_assert_int_eq(tests_n_entries(parent), 1);
    /* an aborted write leaves the target and nothing else */
    ck_assert(sim_out_dir_begin(&d, final, names, &err) == 0);
    put(&d, "b.txt", "third b\n");
    sim_out_dir_abort(&d);
    ck_assert_int_eq(tests_n_entries(final), 1);
    ck_assert_int_eq(tests_n_entries(parent), 1);
    /* a target holding anything else is not a run's: refused */
    char other[700];
    snprintf(other, sizeof other, "%s/notes.md", final);
    FILE *f = fopen(other, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    ck_assert_int_eq(sim_out_dir_begin(&d, final, names, &err), -1);
    ck_assert_msg(strstr(err.msg, "holds 'notes.md', which is not a run's output") != NULL, "%s",
                  err.msg);
    ck_assert_int_eq(tests_n_entries(parent), 1);
}
END_TEST

START_TEST(test_dir_signal_cleanup)
{
    char final[600];
    snprintf(final, sizeof final, "%s/sig/run", tests_tmpdir());
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        sim_out_install_signal_cleanup();
        sim_out_dir_t d;
        sim_err_t err;
        if (sim_out_dir_begin(&d, final, names, &err) != 0)
            _exit(99);
        sim_out_file_t f;
        if (sim_out_dir_open(&d, &f, "a.txt", &err) != 0)
            _exit(98);
        fputs("half written", f.f);
        fflush(f.f);
        raise(SIGTERM);
        _exit(97);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 128 + SIGTERM);
    char parent[600];
    snprintf(parent, sizeof parent, "%s/sig", tests_tmpdir());
    ck_assert_int_eq(tests_n_entries(parent), 0); /* the private directory is gone */
}
END_TEST

START_TEST(test_file_temporaries_unique)
{
    sim_out_file_t x, y;
    sim_err_t err;
    const char *dir = tests_tmpdir();
    ck_assert(sim_out_open(&x, dir, "same.csv", &err) == 0);
    ck_assert(sim_out_open(&y, dir, "same.csv", &err) == 0);
    ck_assert_str_ne(x.tmp_path, y.tmp_path);
    fputs("x,x,x\n", x.f);
    fputs("y\n", y.f);
    ck_assert(sim_out_commit(&y, &err) == 0);
    ck_assert(sim_out_commit(&x, &err) == 0);
    char *s = read_in(dir, "same.csv");
    ck_assert_str_eq(s, "x,x,x\n"); /* one writer's file, whole */
    free(s);
}
END_TEST

/* In a child limited to 4 KiB files (SIGXFSZ ignored: the write fails
 * with EFBIG instead): write 64 KiB through sim_out_open (dir_mode 0) or a
 * run's directory (1); commit must fail with an io error naming the file
 * and "File too large". The child's exit status: 0 when it did. */
static void fsize_child(int dir_mode, const char *dir)
{
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {.rlim_cur = 4096, .rlim_max = RLIM_INFINITY};
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
        _exit(90);
    static const char *const one[] = {"big.csv", NULL};
    sim_out_dir_t d;
    sim_out_file_t f;
    sim_err_t err;
    char want[700];
    if (dir_mode) {
        snprintf(want, sizeof want, "%s/run/big.csv: write failed: %s", dir, strerror(EFBIG));
        snprintf(err.msg, sizeof err.msg, "%s/run", dir);
        if (sim_out_dir_begin(&d, err.msg, one, &err) != 0 ||
            sim_out_dir_open(&d, &f, "big.csv", &err) != 0)
            _exit(91);
    } else {
        snprintf(want, sizeof want, "%s/big.csv: write failed: %s", dir, strerror(EFBIG));
        if (sim_out_open(&f, dir, "big.csv", &err) != 0)
            _exit(91);
    }
    for (int i = 0; i < 4096; i++)
        fputs("0123456789abcde\n", f.f);
    if (sim_out_commit(&f, &err) == 0 || !err.io || !strstr(err.msg, want)) {
        fprintf(stderr, "got '%s', want '%s'\n", err.msg, want);
        _exit(92);
    }
    if (dir_mode)
        sim_out_dir_abort(&d);
    _exit(tests_n_entries(dir) == 0 ? 0 : 93); /* nothing left behind */
}

START_TEST(test_write_error_keeps_errno)
{
    for (int dir_mode = 0; dir_mode < 2; dir_mode++) {
        char dir[600];
        snprintf(dir, sizeof dir, "%s/fsize%d", tests_tmpdir(), dir_mode);
        ck_assert_int_eq(mkdir(dir, 0777), 0);
        fflush(NULL);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0)
            fsize_child(dir_mode, dir);
        int status;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "dir_mode %d: status %d",
                      dir_mode, status);
    }
}
END_TEST

START_TEST(test_write_to_device)
{
    /* A link to /dev/full: written in place (ENOSPC at the flush), the
     * link and the device left as they were. */
    char dir[600], link[700];
    snprintf(dir, sizeof dir, "%s/dev", tests_tmpdir());
    snprintf(link, sizeof link, "%s/full", dir);
    ck_assert_int_eq(mkdir(dir, 0777), 0);
    ck_assert_int_eq(symlink("/dev/full", link), 0);
    sim_out_file_t f;
    sim_err_t err;
    ck_assert_msg(sim_out_open_path(&f, link, &err) == 0, "%s", err.msg);
    fputs("x\n", f.f);
    ck_assert_int_eq(sim_out_commit(&f, &err), -1);
    ck_assert(err.io);
    char want[800];
    snprintf(want, sizeof want, "%s: write failed: %s", link, strerror(ENOSPC));
    ck_assert_msg(strstr(err.msg, want) != NULL, "%s", err.msg);
    json_t *j = json_pack("{s:i}", "a", 1);
    ck_assert_int_eq(sim_out_write_json(link, j, &err), -1);
    json_decref(j);
    ck_assert_msg(err.io && strstr(err.msg, want) != NULL, "%s", err.msg);
    struct stat st;
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    ck_assert_int_eq(stat("/dev/full", &st), 0);
    ck_assert(S_ISCHR(st.st_mode));
    ck_assert_int_eq(tests_n_entries(dir), 1); /* no temporary beside it */
}
END_TEST

/* Publish dir/run with a.txt = text; 0 or the exit status for a child. */
static int publish_run(const char *final, const char *text)
{
    sim_out_dir_t d;
    sim_err_t err;
    if (sim_out_dir_begin(&d, final, names, &err) != 0)
        return 99;
    sim_out_file_t f;
    if (sim_out_dir_open(&d, &f, "a.txt", &err) != 0)
        return 98;
    fputs(text, f.f);
    if (sim_out_commit(&f, &err) != 0 || sim_out_dir_commit(&d, &err) != 0)
        return 97;
    return 0;
}

static void raise_term(void)
{
    raise(SIGTERM);
}

START_TEST(test_signal_between_renames)
{
    char parent[600], final[700];
    snprintf(parent, sizeof parent, "%s/mid", tests_tmpdir());
    snprintf(final, sizeof final, "%s/run", parent);
    ck_assert_int_eq(publish_run(final, "first\n"), 0);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        sim_out_install_signal_cleanup();
        sim_out_hooks_t h = {.between_renames = raise_term};
        sim_out_set_hooks(&h);
        _exit(publish_run(final, "second\n") == 0 ? 96 : 95);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM, "status %d", status);
    char *a = read_in(final, "a.txt");
    ck_assert_ptr_nonnull(a); /* never an empty target */
    ck_assert_str_eq(a, "second\n");
    free(a);
    ck_assert_int_eq(tests_n_entries(parent), 1); /* no .old, .tmp or lock left */
}
END_TEST

static int fsync_errno;
static int fake_fsync(int fd)
{
    (void)fd;
    errno = fsync_errno;
    return -1;
}

START_TEST(test_dir_fsync_error)
{
    char parent[600], final[700];
    snprintf(parent, sizeof parent, "%s/sync", tests_tmpdir());
    snprintf(final, sizeof final, "%s/run", parent);
    ck_assert_int_eq(publish_run(final, "first\n"), 0);
    sim_out_hooks_t h = {.fsync_dir = fake_fsync};
    sim_out_set_hooks(&h);
    fsync_errno = EIO;
    sim_out_dir_t d;
    sim_err_t err;
    ck_assert(sim_out_dir_begin(&d, final, names, &err) == 0);
    put(&d, "a.txt", "second\n");
    int rc = sim_out_dir_commit(&d, &err);
    fsync_errno = EINVAL; /* a file system without directory fsync: no failure */
    int rc2 = publish_run(final, "third\n");
    sim_out_set_hooks(NULL);
    ck_assert_int_eq(rc, -1);
    ck_assert(err.io);
    char want[800];
    snprintf(want, sizeof want, "%s: cannot sync to disk: %s", final, strerror(EIO));
    ck_assert_msg(strstr(err.msg, want) != NULL, "%s", err.msg);
    ck_assert_int_eq(rc2, 0);
    char *a = read_in(final, "a.txt");
    ck_assert_str_eq(a, "third\n");
    free(a);
    ck_assert_int_eq(tests_n_entries(parent), 1);
}
END_TEST

START_TEST(test_lock_one_writer)
{
    char parent[600], final[700];
    snprintf(parent, sizeof parent, "%s/lk", tests_tmpdir());
    snprintf(final, sizeof final, "%s/locked", parent);
    sim_out_lock_t a, b;
    sim_err_t err;
    ck_assert_msg(sim_out_lock(&a, final, NULL, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(sim_out_lock(&b, final, "shown", &err), -1);
    ck_assert(err.io);
    char want[200];
    snprintf(want, sizeof want, "shown: another mooncake-sim (pid %ld) is writing it",
             (long)getpid());
    ck_assert_msg(strstr(err.msg, want) != NULL, "%s", err.msg);
    sim_out_dir_t d;
    ck_assert_int_eq(sim_out_dir_begin(&d, final, names, &err), -1);
    ck_assert_msg(strstr(err.msg, "is writing it") != NULL, "%s", err.msg);
    sim_out_unlock(&b); /* never taken: a no-op */
    sim_out_unlock(&a);
    ck_assert_int_eq(tests_n_entries(parent), 0); /* the lock file is gone */
    ck_assert_int_eq(publish_run(final, "x\n"), 0);
}
END_TEST

START_TEST(test_signal_table_grows)
{
    /* 100 directories being written at once, as a sweep on 100 workers
     * has: the signal removes all of them. */
    enum { N = 100 };
    char parent[600];
    snprintf(parent, sizeof parent, "%s/many", tests_tmpdir());
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        sim_out_install_signal_cleanup();
        sim_out_reserve(N);
        static sim_out_dir_t d[N];
        for (int i = 0; i < N; i++) {
            char final[700];
            sim_err_t err;
            snprintf(final, sizeof final, "%s/r%d", parent, i);
            if (sim_out_dir_begin(&d[i], final, names, &err) != 0)
                _exit(99);
        }
        raise(SIGTERM);
        _exit(97);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM, "status %d", status);
    ck_assert_int_eq(tests_n_entries(parent), 0);
}
END_TEST

Suite *test_out_suite(void)
{
    Suite *s = suite_create("out");
    TCase *tc = tcase_create("out");
    tcase_add_test(tc, test_dir_publish_and_replace);
    tcase_add_test(tc, test_dir_signal_cleanup);
    tcase_add_test(tc, test_file_temporaries_unique);
    tcase_add_test(tc, test_write_error_keeps_errno);
    tcase_add_test(tc, test_write_to_device);
    tcase_add_test(tc, test_signal_between_renames);
    tcase_add_test(tc, test_dir_fsync_error);
    tcase_add_test(tc, test_lock_one_writer);
    tcase_add_test(tc, test_signal_table_grows);
    suite_add_tcase(s, tc);
    return s;
}
