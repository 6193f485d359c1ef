/* SPDX-License-Identifier: BSD-3-Clause */
/* Version, build description and the check that the MPI library a program
 * runs with is the one dmesh was built with. */
#ifndef DMESH_VERSION_INTERNAL_H
#define DMESH_VERSION_INTERNAL_H

#include <stddef.h>

/* Compare the MPI dmesh was built with (vendor "Open MPI" or "MPICH", major
 * and minor version) with MPI_Get_library_version's text of the running MPI.
 * DMESH_SUCCESS when compatible (or when either side is unknown), else
 * DMESH_ERR_MPI with "fn: built with Open MPI 4.1, running under MPICH
 * 4.0.2" as detail. Pure: no MPI call. */
int dmesh_mpi_identity_compare(const char *fn, const char *built_vendor, int major, int minor,
                               const char *running);

/* The number of processes the launcher started (0: no launcher said so),
 * read with get (getenv) from the variables of the MPI's own launchers
 * first (Open MPI's OMPI_COMM_WORLD_SIZE, the PMI_SIZE of Hydra and of
 * Slurm's pmi2), then from Slurm's step (SLURM_STEP_NUM_TASKS, when
 * SLURM_PROCID says the process is a task of an srun step); *var names
 * the variable. Pure. */
int dmesh_launch_size(const char *(*get)(const char *), const char **var);

/* DMESH_ERR_MPI when world_size is 1 while the launcher started job_size >
 * 1 processes (told by var): the processes could not find each other, so
 * each runs as its own 1-rank MPI job; the detail says what to do. Pure. */
int dmesh_launch_compare(const char *fn, int world_size, int job_size, const char *var);

/* dmesh_mpi_identity_compare of this build against the running MPI, then
 * dmesh_launch_compare of MPI_COMM_WORLD's size against the launcher's
 * (unless DMESH_LAUNCH_CHECK=false); the first success is kept (neither
 * can change). Local: every process of a job loads the same libraries and
 * sees the same launch, so every rank gets the same answer without
 * communicating (which a foreign or a split MPI could not do). */
int dmesh_mpi_identity_check(const char *fn);

/* Whether the running MPI library is the one dmesh was built for (the
 * identity check above, once it passed), without touching the caller's
 * detail. */
int dmesh_mpi_is_ours(void);

#endif /* DMESH_VERSION_INTERNAL_H */
