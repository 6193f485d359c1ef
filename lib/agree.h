/* SPDX-License-Identifier: BSD-3-Clause */
/* The one agreement primitive of dmesh's collective paths (doc/architecture.md,
 * "The rule of collective paths"), and its form over both sides of an
 * intercommunicator. */
#ifndef DMESH_AGREE_H
#define DMESH_AGREE_H

#include <stdint.h>

#include <mpi.h>

/* Collective over comm: every rank passes the hash of what the ranks must
 * have in common (the arguments of the call; any constant when only the
 * outcome counts) and its local error class. One MPI_Allreduce decides:
 *   - some rank failed: every rank returns the class of the lowest failing
 *     rank R, with the detail "rank R: <R's own detail>" (one broadcast of
 *     R's text, on this path only);
 *   - else the hashes differ: DMESH_ERR_MISMATCH on every rank ("what" says
 *     which call compared them);
 *   - else DMESH_SUCCESS.
 * A detail that an earlier agreement wrote is passed on as it is, so that a
 * failure agreed in a group and then in the universe names its first rank.
 * Only a failing MPI_Allreduce itself (an MPI that is broken) can make the
 * ranks disagree: DMESH_ERR_MPI where it failed. */
int dmesh_agree(MPI_Comm comm, uint64_t hash, int local_err, const char *what);

/* dmesh_agree with nothing to compare, only the outcome: the same classes
 * and details. With fault tolerance on, its success costs one
 * MPIX_Comm_agree instead of an MPI_Allreduce and an MPIX_Comm_agree;
 * without, it is dmesh_agree. Every rank of comm must call the same one
 * of the two at a given step. */
int dmesh_agree_outcome(MPI_Comm comm, int local_err, const char *what);

/* The agreement over both sides of an intercommunicator (the spawn's, in
 * dmesh_respawn, dmesh_grow and dmesh_join): the same class on every
 * process of both sides of ic, the lowest that any of them has (err: this
 * process's). Every process takes part whatever it met, so none waits for
 * one that left; ic is never revoked. *settled: both steps completed here,
 * so that every process has the outcome. A step that fails (a process
 * died) is DMESH_ERR_PROC_FAILED here, and the caller's agreement over the
 * merged communicator settles it (lib/ft/join_merge.c). fn: the call the program
 * made, for the detail. */
int dmesh_agree_both(MPI_Comm ic, int err, const char *fn, int *settled);

#endif /* DMESH_AGREE_H */
