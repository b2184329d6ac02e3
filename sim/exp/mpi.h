/* sim/exp/mpi.h: the sweep's use of MPI, behind functions that exist in every
 * build. Built with Open MPI when the build finds mpicc (SIM_HAVE_MPI);
 * otherwise, and whenever the process was not started by mpirun, there is
 * one rank and every call is a no-op. Rank 0 is the only one that writes
 * the sweep's shared files. */
#ifndef SIM_MPI_H
#define SIM_MPI_H

#include "sim/exp/sweep.h"

/* 1 when built with MPI and started by an MPI launcher (mpirun, srun). */
int sim_mpi_launched(void);

/* Start MPI when launched (else rank 0 of 1). Call once, before any other
 * sim_mpi_ call; 0, or -1 when MPI fails to start or, in a build without
 * MPI, when a launcher started several ranks. */
int sim_mpi_init(int *rank, int *n_ranks);

/* Ranks on this machine (1 unless launched). */
int sim_mpi_local_ranks(void);

/* Whether every rank loaded the same sweep spec: the first collective of a
 * sweep, so a rank whose load failed never leaves the others waiting in
 * another. s is this rank's spec, or NULL when its load failed with
 * load_err; args, the options that must be the same on every rank (as
 * text). Rank 0 gathers each rank's outcome (ok with a 64-bit FNV-1a of
 * s->canon and the spec's path, or its error text, and args) and checks
 * that all loaded, that every hash is rank 0's and then that every args
 * is rank 0's. Returns, on every rank, 0 when
 * they agree, else -1 with *report (rank 0 only; NULL elsewhere; the
 * caller frees it with free()) one line per message, each ending in '\n':
 * "rank R: MESSAGE" or "ranks R, S: MESSAGE", or MESSAGE alone when every
 * rank gave it. Without MPI: 0, or -1 with load_err as the report. */
int sim_mpi_agree_spec(const sim_sweep_spec_t *s, const char *load_err, const char *args,
                       char **report);

/* Rank 0's v, on every rank. */
int sim_mpi_bcast_int(int v);

/* Gather every rank's results on rank 0: rank r owns points i with
 * i % n_ranks == r. On rank 0, res then holds every point's result as a
 * single-rank run would. 0 or -1 (err filled). */
int sim_mpi_gather(const sim_sweep_spec_t *s, sim_sweep_result_t *res, int rank, int n_ranks,
                   sim_err_t *err);

void sim_mpi_finalize(void);

#endif
