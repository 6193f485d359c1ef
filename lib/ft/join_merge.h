/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): what both sides of dmesh_respawn,
 * dmesh_grow and dmesh_join do alike once the new processes run
 * (join_merge.c): merge the spawn's intercommunicator in the new order,
 * let go of it, and make the mesh on the merged communicator. The parents
 * (spawn.c, respawn.c, grow.c) and the new processes (join.c) call it;
 * private to lib/ft/. */
#ifndef DMESH_FT_JOIN_MERGE_H
#define DMESH_FT_JOIN_MERGE_H

#include <mpi.h>

#include "dmesh.h"
#include "ft/join_message.h"

/* Seconds a new process waits for its parents' message and either side
 * for the merge, where the call's dmesh_timeout does not say. */
#define DMESH_JOIN_WAIT_DEFAULT 60.0

/* Merge both sides of ic (high: 1 on the new processes' side, 0 on the
 * parents') and order the result by key: *newcomm. Collective over both
 * sides, whatever this process met before (err: its class, which the
 * agreement spreads), so that no side waits in a merge the other left;
 * the same outcome everywhere. The merge is bounded by bound seconds
 * (call_bound.h). fn: the call the program made, for the detail. */
int dmesh_join_merge(MPI_Comm ic, int high, int key, int err, const char *fn, double bound,
                     MPI_Comm *newcomm);

/* Let go of the spawn's intercommunicator (either side), so that no
 * communicator of two launches is left for MPI_Finalize. */
void dmesh_join_leave(MPI_Comm *ic);

/* Both sides: the mesh of the message m on *newcomm (freed on failure;
 * *out on success), after every process met each new one (join_merge.c
 * says why). newcomm gets its error handler eh first, so that
 * the new universe records it and hands it on to every communicator of the
 * mesh, as the old one did. Collective over newcomm. fn: the call the
 * program made, for the detail. */
int dmesh_join_make_mesh(const char *fn, const dmesh_join_message_t *m, MPI_Comm *newcomm,
                         MPI_Errhandler eh, MPI_Comm *out, dmesh_t *newmesh);

#endif /* DMESH_FT_JOIN_MERGE_H */
