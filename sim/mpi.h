/* sim/mpi.h: the sweep's use of MPI, behind functions that exist in every
 * build. Built with Open MPI when the build finds mpicc (SIM_HAVE_MPI);
 * otherwise, and whenever the process was not started by mpirun, there is
 * one rank and every call is a no-op. Rank 0 is the only one that writes
 * the sweep's shared files. */
#ifndef SIM_MPI_H
#define SIM_MPI_H

#include "sim/sweep.h"

/* 1 when built with MPI and started by an MPI launcher (mpirun, srun). */
int sim_mpi_launched(void);

/* Start MPI when launched (else rank 0 of 1). Call once, before any other
 * sim_mpi_ call; 0, or -1 when MPI fails to start or, in a build without
 * MPI, when a launcher started several ranks. */
int sim_mpi_init(int *rank, int *n_ranks);

/* Ranks on this machine (1 unless launched). */
int sim_mpi_local_ranks(void);

/* Rank 0's v, on every rank. */
int sim_mpi_bcast_int(int v);

/* Gather every rank's results on rank 0: rank r owns points i with
 * i % n_ranks == r. On rank 0, res then holds every point's result as a
 * single-rank run would. 0 or -1 (err filled). */
int sim_mpi_gather(const sim_sweep_spec_t *s, sim_sweep_result_t *res, int rank, int n_ranks,
                   sim_err_t *err);

void sim_mpi_finalize(void);

#endif
