/* sim/mpi.c: see mpi.h. A rank's results travel as one JSON document (its
 * points' summaries, encoded with 17 significant digits so every double
 * reads back exactly), gathered on rank 0 with MPI_Gatherv. */
#include "sim/mpi.h"

#include <stdlib.h>
#include <string.h>

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

static int decode(const char *text, size_t len, sim_sweep_result_t *res, int n_points,
                  sim_err_t *err)
{
    json_error_t je;
    json_t *a = json_loadb(text, len, 0, &je);
    if (!json_is_array(a)) {
        json_decref(a);
        return sim_errf(err, "sweep: a rank's results do not decode: %s", je.text);
    }
    size_t k;
    json_t *e;
    json_array_foreach(a, k, e) {
        json_int_t i = json_integer_value(json_array_get(e, 0));
        json_t *v = json_array_get(e, 1);
        if (!json_is_integer(json_array_get(e, 0)) || i < 0 || i >= n_points ||
            !(json_is_string(v) || json_is_object(v))) {
            json_decref(a);
            return sim_errf(err, "sweep: a rank's result %zu is not [point, summary or error]",
                            k);
        }
        if (json_is_string(v)) {
            res[i].failed = 1;
            snprintf(res[i].error, sizeof res[i].error, "%s", json_string_value(v));
        } else {
            res[i].summary = json_incref(v);
        }
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
    MPI_Gatherv(mine, len, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 1; r < n_ranks && rc == 0; r++)
            rc = decode(all + offs[r], (size_t)lens[r], res, s->n_points, err);
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
