/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/) at the mesh level (shrink.c): dmesh_shrink
 * (dmesh_revoke and dmesh_get_failed are failed.h's). The MPI's calls are
 * ulfm.c's; the failure-aware agreement is agree.c's. What follows is the
 * pure part of dmesh_shrink, declared here so that it is tested without a
 * failing process, and what dmesh_respawn shares with it. */
#ifndef DMESH_FT_SHRINK_H
#define DMESH_FT_SHRINK_H

#include <mpi.h>

#include "universe.h"

/* The mesh that dmesh_shrink makes, from the old one's shape[ndims] and
 * mesh tensor ranks[n] (ranks of the old communicator of size) and, per
 * rank of the old communicator, its rank among the survivors
 * (DMESH_SHRINK_FAILED: failed):
 *   - with spares, the survivors outside the old tensor, lowest first, take
 *     the places of the failed ranks in it, lowest failed rank first;
 *   - every index of dim (DMESH_KEEP_SHAPE: none may) whose slice still
 *     holds a failed rank goes.
 * Writes new_shape[ndims] and new_ranks[] (survivors' ranks, row-major;
 * room for n) and *new_n. DMESH_ERR_SIZE when the shape cannot stay or dim
 * would lose every index; the detail says how many failed and spares. */
int dmesh_shrink_plan(int ndims, const int shape[], int n, const int ranks[], int size,
                      const int survivor_rank[], int dim, int spares, int new_shape[],
                      int new_ranks[], int *new_n);

/* A failed rank's entry in survivor_rank[] (dmesh_shrink_survivor_ranks):
 * it has no rank among the survivors. dmesh_respawn starts a newcomer for
 * each; dmesh_shrink drops or fills its place. */
#define DMESH_SHRINK_FAILED (-1)

/* Per rank of the old communicator of size, its rank in survivors
 * (DMESH_SHRINK_FAILED: failed); *out malloc'd. Local. fn: the call the program made, for the
 * detail. */
int dmesh_shrink_survivor_ranks(const char *fn, MPI_Comm old, int size, MPI_Comm survivors,
                                int **out);

/* dmesh_shrink, and dmesh_shrink_by_name when name_fn (that call's name)
 * is not NULL: then the dimension is dim_name, resolved where a bad index
 * fails, so that a name that fails is agreed as a bad index is. */
int dmesh_shrink_named(dmesh_t mesh, int dim, const char *name_fn, const char *dim_name,
                       MPI_Info info, MPI_Comm *survivors, dmesh_t *newmesh);

/* Revoke the universe (here, unless revoke is 0: a call whose own
 * arguments are wrong takes part without revoking the program's mesh) and
 * shrink its private communicator: the survivors' (MPIX_Comm_shrink),
 * collective over them. fn: the call the program made, for the detail. */
int dmesh_shrink_comm(dmesh_universe_t *u, const char *fn, int revoke, MPI_Comm *survivors);

#endif /* DMESH_FT_SHRINK_H */
