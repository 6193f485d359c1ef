/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): the parents' spawn (spawn.c), which
 * dmesh_respawn (respawn.c) and dmesh_grow (grow.c) share: the new
 * processes started, sent the parents' message, merged with the parents. */
#ifndef DMESH_FT_SPAWN_H
#define DMESH_FT_SPAWN_H

#include <mpi.h>

#include "dmesh.h"
#include "ft/join_message.h"

/* Where dmesh_respawn's new processes go (dmesh_respawn_hosts): nhosts
 * host names, one after the other in names, count[h] new processes on
 * host h; nhosts 0: where MPI_Comm_spawn puts them (its info's host key,
 * or the launcher's choice). */
typedef struct {
    int nhosts;
    int *count;
    char names[MPI_MAX_INFO_VAL + 1];
} dmesh_spawn_where_t;

/* The mesh's text, which the new processes get in the parents' message
 * (dmesh_serialize's; *out malloc'd). Local. */
int dmesh_spawn_text(dmesh_t mesh, char **out);

/* Parents, collective over comm: start p->nnewcomers processes, send them the
 * plan, merge in order (key: this process's rank in the new communicator).
 * The message is packed before the spawn is agreed, so that once the
 * spawn succeeded every living new process gets it and merges; from there
 * both sides always merge, and a failure is agreed over both sides. The
 * same class on every parent. w: where the new processes go (NULL: where
 * MPI_Comm_spawn puts them); fn: the call the program made, for the detail. */
int dmesh_spawn_join(MPI_Comm comm, const char *fn, const char *command, char *const argv[],
                     MPI_Info info, const dmesh_spawn_where_t *w, const dmesh_join_message_t *p,
                     int key, MPI_Comm *newcomm);

#endif /* DMESH_FT_SPAWN_H */
