/* sim/exp/mpi.c: see mpi.h. Every byte that crosses ranks is text that reads
 * back exactly, moved as MPI_BYTE: a rank's status after loading the spec
 * is a fixed-size record (ok flag, hash in hex, message), and its results
 * one JSON document (its points' summaries, doubles with 17 significant
 * digits, and error texts, valid UTF-8) gathered on rank 0 with
 * MPI_Gatherv. */
#include "sim/exp/mpi.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the spec check, with or without MPI ---- */

/* One rank's outcome of loading the spec: its hash and path, or its
 * error; and its options that must agree. */
typedef struct rank_status {
    int ok;
    uint64_t hash, args_hash;
    char msg[SIM_ERR_LEN];
    char args[SIM_ERR_LEN]; /* for messages; may be cut */
} rank_status_t;

/* 64-bit FNV-1a of a string's bytes. */
static uint64_t str_hash(const char *t) { return sim_fnv1a64(SIM_FNV1A64_BASIS, t, strlen(t)); }

/* The hash covers s->canon, what spec.json records: the spec as given and
 * the base experiment with "set" applied. Its keys keep their order (the
 * order of the axes orders the points), so a reordered spec is another
 * sweep. */
static void status_of(const sim_sweep_spec_t *s, const char *load_err, const char *args,
                      rank_status_t *st)
{
    sim_err_t e; /* sim_errf keeps a cut message valid UTF-8 */
    st->ok = s != NULL;
    st->hash = s ? str_hash(s->canon) : 0;
    sim_errf(&e, "%s", s ? s->file : load_err ? load_err : "cannot load the spec");
    memcpy(st->msg, e.msg, sizeof st->msg);
    st->args_hash = str_hash(args ? args : "");
    sim_errf(&e, "%s", args ? args : "");
    memcpy(st->args, e.msg, sizeof st->args);
}

/* "rank 1" / "ranks 1, 2" for the ranks k >= r whose line is line[r],
 * marking them done; nothing when that is every rank. */
static void rank_list(FILE *f, char *const *line, char *done, int r, int n)
{
    int count = 0, shown = 0;
    for (int k = r; k < n; k++)
        count += line[k] && strcmp(line[k], line[r]) == 0;
    if (count == n) {
        memset(done, 1, (size_t)n);
        return;
    }
    fprintf(f, "rank%s ", count > 1 ? "s" : "");
    for (int k = r; k < n; k++) {
        if (!line[k] || strcmp(line[k], line[r]) != 0)
            continue;
        done[k] = 1;
        if (shown < 8)
            fprintf(f, "%s%d", shown ? ", " : "", k);
        shown++;
    }
    if (shown > 8)
        fprintf(f, " and %d more", shown - 8);
    fputs(": ", f);
}

/* sim_mpi_agree_spec's report from every rank's status (st[n]): when some
 * rank failed to load, each failure; else each rank whose hash, or else
 * whose options, are not rank 0's. Identical lines are grouped. NULL when
 * the ranks agree; else owned by the caller (free()). */
static char *verdict(const rank_status_t *st, int n)
{
    int any_failed = 0;
    for (int r = 0; r < n; r++)
        any_failed |= !st[r].ok;
    char **line = sim_xcalloc((size_t)n, sizeof *line, "mpi report lines");
    char *done = sim_xcalloc((size_t)n, 1, "mpi report done");
    for (int r = 0; r < n; r++) {
        int same_args = st[r].args_hash == st[0].args_hash;
        if (any_failed ? st[r].ok : st[r].hash == st[0].hash && same_args)
            continue;
        size_t len = 2 * SIM_ERR_LEN + 128;
        line[r] = sim_xmalloc(len, "mpi report line");
        if (any_failed)
            snprintf(line[r], len, "%s", st[r].msg);
        else if (st[r].hash != st[0].hash)
            snprintf(line[r], len,
                     "%s: resolves to a different sweep from rank 0's (%s): give every rank the "
                     "same spec and base experiment",
                     st[r].msg, st[0].msg);
        else
            snprintf(line[r], len, "options %s differ from rank 0's (%s): give every rank the same",
                     st[r].args, st[0].args);
    }
    char *out = NULL;
    size_t out_len = 0;
    FILE *f = NULL;
    for (int r = 0; r < n; r++) {
        if (!line[r] || done[r])
            continue;
        if (!f)
            f = open_memstream(&out, &out_len);
        SIM_ASSERT(f != NULL);
        rank_list(f, line, done, r, n);
        fprintf(f, "%s\n", line[r]);
    }
    if (f)
        fclose(f);
    for (int r = 0; r < n; r++)
        sim_free(line[r]);
    sim_free(line);
    sim_free(done);
    return out;
}

#ifdef SIM_HAVE_MPI
#include <mpi.h>

static int started;

int sim_mpi_launched(void)
{
    /* Open MPI's mpirun, and PMIx / PMI launchers (Slurm's srun). */
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
}

int sim_mpi_init(int *rank, int *n_ranks)
{
    *rank = 0;
    *n_ranks = 1;
    if (!sim_mpi_launched())
        return 0;
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
        return -1;
    started = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, n_ranks);
    return 0;
}

int sim_mpi_local_ranks(void)
{
    if (!started)
        return 1;
    MPI_Comm local;
    int n = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) ==
        MPI_SUCCESS) {
        MPI_Comm_size(local, &n);
        MPI_Comm_free(&local);
    }
    return n;
}

int sim_mpi_bcast_int(int v)
{
    if (started)
        MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return v;
}

/* A rank_status_t as a fixed-size record: '1' or '0' (ok), the two hashes
 * in 16 hex digits each, the message and the options, each NUL-padded. */
#define REC_HEAD (1 + 2 * 16)
#define REC_LEN (REC_HEAD + 2 * SIM_ERR_LEN)

static void rec_encode(const rank_status_t *st, char *rec)
{
    char hex[2 * 16 + 1];
    snprintf(hex, sizeof hex, "%016" PRIx64 "%016" PRIx64, st->hash, st->args_hash);
    memset(rec, 0, REC_LEN);
    rec[0] = st->ok ? '1' : '0';
    memcpy(rec + 1, hex, 2 * 16);
    memcpy(rec + REC_HEAD, st->msg, strnlen(st->msg, SIM_ERR_LEN - 1));
    memcpy(rec + REC_HEAD + SIM_ERR_LEN, st->args, strnlen(st->args, SIM_ERR_LEN - 1));
}

/* The k-th hash of rec, into *h: 0, or -1 when it is not 16 hex digits. */
static int rec_hash(const char *rec, int k, uint64_t *h)
{
    char hex[17], *end;
    memcpy(hex, rec + 1 + 16 * k, 16);
    hex[16] = 0;
    *h = strtoull(hex, &end, 16);
    return end == hex + 16 ? 0 : -1;
}

/* 0, or -1 when rec is not what rec_encode writes. */
static int rec_decode(const char *rec, rank_status_t *st)
{
    st->ok = rec[0] == '1';
    if ((rec[0] != '0' && rec[0] != '1') || rec_hash(rec, 0, &st->hash) != 0 ||
        rec_hash(rec, 1, &st->args_hash) != 0 || !memchr(rec + REC_HEAD, 0, SIM_ERR_LEN) ||
        !memchr(rec + REC_HEAD + SIM_ERR_LEN, 0, SIM_ERR_LEN))
        return -1;
    memcpy(st->msg, rec + REC_HEAD, SIM_ERR_LEN);
    memcpy(st->args, rec + REC_HEAD + SIM_ERR_LEN, SIM_ERR_LEN);
    return 0;
}

int sim_mpi_agree_spec(const sim_sweep_spec_t *s, const char *load_err, const char *args,
                       char **report)
{
    rank_status_t me;
    status_of(s, load_err, args, &me);
    *report = NULL;
    if (!started) {
        *report = verdict(&me, 1);
        return *report ? -1 : 0;
    }
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    char mine[REC_LEN];
    rec_encode(&me, mine);
    char *all = rank == 0 ? sim_xmalloc((size_t)n * REC_LEN, "mpi statuses") : NULL;
    MPI_Gather(mine, REC_LEN, MPI_BYTE, all, REC_LEN, MPI_BYTE, 0, MPI_COMM_WORLD);
    int bad = 0;
    if (rank == 0) {
        rank_status_t *st = sim_xmalloc((size_t)n * sizeof *st, "mpi statuses");
        for (int r = 0; r < n; r++)
            if (rec_decode(all + (size_t)r * REC_LEN, &st[r]) != 0) {
                st[r].ok = 0;
                snprintf(st[r].msg, sizeof st[r].msg,
                         "its status after loading the spec does not decode");
                st[r].args[0] = 0;
            }
        *report = verdict(st, n);
        bad = *report != NULL;
        sim_free(st);
    }
    sim_free(all);
    return sim_mpi_bcast_int(bad) ? -1 : 0;
}

/* This rank's points as [[i, summary or error string], ...]. */
static char *encode(const sim_sweep_spec_t *s, const sim_sweep_result_t *res, int rank, int n)
{
    json_t *a = json_array();
    for (int i = rank; i < s->n_points; i += n) {
        json_t *e = json_array();
        json_array_append_new(e, json_integer(i));
        if (res[i].failed) {
            /* json_string refuses text that is not UTF-8 (NULL); an error
             * is UTF-8, made so by sim_errf. */
            json_t *msg = json_string(res[i].error);
            SIM_ASSERT(msg != NULL);
            json_array_append_new(e, msg);
        } else {
            json_array_append(e, res[i].summary);
        }
        json_array_append_new(a, e);
    }
    char *text = json_dumps(a, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(a);
    return text;
}

/* Rank r's results (text[len], from encode) into res: exactly its points
 * (i % n_ranks == r), each once. 0 or -1 (err). */
static int decode(const char *text, size_t len, sim_sweep_result_t *res, int n_points, int r,
                  int n_ranks, sim_err_t *err)
{
    json_error_t je;
    json_t *a = json_loadb(text, len, 0, &je);
    if (!json_is_array(a)) {
        json_decref(a);
        return sim_errf(err, "sweep: rank %d's results do not decode: %s", r, je.text);
    }
    size_t k, want = n_points > r ? (size_t)((n_points - r - 1) / n_ranks + 1) : 0;
    json_t *e;
    json_array_foreach(a, k, e) {
        json_int_t i = json_integer_value(json_array_get(e, 0));
        json_t *v = json_array_get(e, 1);
        if (!json_is_integer(json_array_get(e, 0)) || json_array_size(e) != 2 || i < 0 ||
            i >= n_points || i % n_ranks != r || res[i].failed || res[i].summary ||
            !(json_is_string(v) || json_is_object(v))) {
            json_decref(a);
            return sim_errf(err, "sweep: rank %d's result %zu is not [point, summary or error] "
                                 "for a point of its own, once", r, k);
        }
        if (json_is_string(v)) {
            res[i].failed = 1;
            snprintf(res[i].error, sizeof res[i].error, "%s", json_string_value(v));
        } else {
            res[i].summary = json_incref(v);
        }
    }
    if (json_array_size(a) != want) {
        json_decref(a);
        return sim_errf(err, "sweep: rank %d sent %zu results for its %zu points", r,
                        json_array_size(a), want);
    }
    json_decref(a);
    return 0;
}

int sim_mpi_gather(const sim_sweep_spec_t *s, sim_sweep_result_t *res, int rank, int n_ranks,
                   sim_err_t *err)
{
    if (!started || n_ranks <= 1)
        return 0;
    char *mine = encode(s, res, rank, n_ranks);
    size_t ml = mine ? strlen(mine) : 0;
    int len = ml > (size_t)INT32_MAX ? -1 : (int)ml, rc = 0;
    int *lens = rank == 0 ? sim_xcalloc((size_t)n_ranks, sizeof *lens, "mpi lengths") : NULL;
    int *offs = rank == 0 ? sim_xcalloc((size_t)n_ranks, sizeof *offs, "mpi offsets") : NULL;
    MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    char *all = NULL;
    long long total = 0;
    int bad = 0;
    if (rank == 0) {
        for (int r = 0; r < n_ranks; r++) {
            bad |= lens[r] < 0;
            offs[r] = (int)total;
            total += lens[r] > 0 ? lens[r] : 0;
            if (total > INT32_MAX)
                bad = 1;
        }
        all = sim_xmalloc((size_t)total + 1, "mpi results");
    }
    bad = sim_mpi_bcast_int(bad);
    if (bad) {
        rc = sim_errf(err, "sweep: the results of a rank exceed 2 GiB");
        goto done;
    }
    MPI_Gatherv(mine, len, MPI_BYTE, all, lens, offs, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 1; r < n_ranks && rc == 0; r++)
            rc = decode(all + offs[r], (size_t)lens[r], res, s->n_points, r, n_ranks, err);
done:
    free(mine);
    sim_free(all);
    sim_free(lens);
    sim_free(offs);
    return rc;
}

void sim_mpi_finalize(void)
{
    if (started)
        MPI_Finalize();
    started = 0;
}

#else /* no MPI in this build: one rank */

int sim_mpi_agree_spec(const sim_sweep_spec_t *s, const char *load_err, const char *args,
                       char **report)
{
    rank_status_t me;
    status_of(s, load_err, args, &me);
    *report = verdict(&me, 1);
    return *report ? -1 : 0;
}

int sim_mpi_launched(void)
{
    return 0;
}

int sim_mpi_init(int *rank, int *n_ranks)
{
    *rank = 0;
    *n_ranks = 1;
    /* Several copies each running every point would race on the files. */
    const char *n = getenv("OMPI_COMM_WORLD_SIZE");
    if (!n)
        n = getenv("PMI_SIZE");
    return n && atoi(n) > 1 ? -1 : 0;
}

int sim_mpi_local_ranks(void)
{
    return 1;
}

int sim_mpi_bcast_int(int v)
{
    return v;
}

int sim_mpi_gather(const sim_sweep_spec_t *s, sim_sweep_result_t *res, int rank, int n_ranks,
                   sim_err_t *err)
{
    (void)s, (void)res, (void)rank, (void)n_ranks, (void)err;
    return 0;
}

void sim_mpi_finalize(void)
{
}

#endif
