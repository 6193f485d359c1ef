/* SPDX-License-Identifier: BSD-3-Clause */
/* The ground floor of lib/: the MPI's fault tolerance (ULFM) at the MPI
 * boundary: whether the run has it, and the MPIX_ calls dmesh needs, each an
 * MPI error code. Without the extension (configure: DMESH_HAVE_ULFM
 * undefined) the same functions say "off" and return MPI_ERR_OTHER, so that
 * no caller needs an #ifdef. This file calls MPI only: error.c and agree.c
 * sit above it. */
#ifndef DMESH_ULFM_H
#define DMESH_ULFM_H

#include <mpi.h>

/* Whether the library was built with the extension (configure). */
int dmesh_ulfm_built(void);

/* Whether fault tolerance is on for comm's MPI run: built with the
 * extension and the MPI reports it (Open MPI's MPIX_FT attribute, set by
 * mpiexec --with-ft ulfm). Decided once per process, then a load. When it
 * is on, dmesh_ulfm_catch_sigpipe is called: the MPI writes to dead peers
 * (ulfm.c says why). */
int dmesh_ulfm_enabled(MPI_Comm comm);

/* SIGPIPE, if at its default disposition, is caught from then on by a
 * handler that does nothing (SA_RESTART), so that a write to a closed
 * socket or pipe fails with EPIPE instead of ending the process, and the
 * programs it starts get the default again at exec; a handler the program
 * set, or its choice to ignore the signal, is kept. Every build has it (the
 * tests call it); only dmesh_ulfm_enabled calls it in the library. */
void dmesh_ulfm_catch_sigpipe(void);

/* For benchmarks only: with on 0, dmesh_ulfm_enabled says "off" from now
 * on (the plain agreement); with on 1, what the MPI reports again. */
void dmesh_ulfm_set_enabled(int on);

/* Whether the MPI error code mpi_err is of a failure class
 * (MPIX_ERR_PROC_FAILED, MPIX_ERR_PROC_FAILED_PENDING, MPIX_ERR_REVOKED). */
int dmesh_ulfm_is_failure(int mpi_err);

/* MPIX_Comm_revoke, MPIX_Comm_agree (bitwise AND of *flag over the
 * survivors), MPIX_Comm_shrink, MPIX_Comm_is_revoked. */
int dmesh_ulfm_revoke(MPI_Comm comm);
int dmesh_ulfm_agree(MPI_Comm comm, int *flag);
int dmesh_ulfm_shrink(MPI_Comm comm, MPI_Comm *survivors);
int dmesh_ulfm_is_revoked(MPI_Comm comm, int *flag);

/* The group of the failed processes of comm known here
 * (MPIX_Comm_get_failed). */
int dmesh_ulfm_get_failed(MPI_Comm comm, MPI_Group *failed);

/* What the detail of DMESH_ERR_UNSUPPORTED says: how to get fault
 * tolerance with this build. */
const char *dmesh_ulfm_how(void);

#endif /* DMESH_ULFM_H */
