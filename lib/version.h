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

/* dmesh_mpi_identity_compare of this build against the running MPI; the
 * first success is kept (the MPI library cannot change). Local:
 * every process of a job loads the same libraries, so every rank gets the
 * same answer without communicating (which a foreign MPI could not do). */
int dmesh_mpi_identity_check(const char *fn);

#endif /* DMESH_VERSION_INTERNAL_H */
