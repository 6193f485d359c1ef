/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): the pure parts of dmesh_respawn and dmesh_grow
 * (respawn.c, respawn_plan.c): the mesh that dmesh_grow makes and the hosts
 * of dmesh_respawn's new processes. No MPI call here, so that they are
 * tested alone. The parents' message is join_message.h's. */
#ifndef DMESH_RESPAWN_PLAN_H
#define DMESH_RESPAWN_PLAN_H

#include "serialize_text.h"

/* dmesh_grow's mesh: s (a root mesh's saved form, rank map over ranks of a
 * communicator of size) with n more indices of dim; the new positions get
 * ranks size, size + 1, ... in row-major order, the old ones keep theirs;
 * the names registered by dmesh_flatten go. *nnewcomers: how many new ranks.
 * DMESH_ERR_ARG for a mesh that is not a root, DMESH_ERR_SIZE when the
 * size overflows. */
int dmesh_grow_plan(dmesh_saved_t *s, int dim, int n, int size, int *nnewcomers);

/* Where dmesh_respawn's new processes go when hosts are named
 * (dmesh_respawn_hosts): the nnewcomers ranks of newcomer_rank (ascending: the failed ranks) are
 * grouped by the node each was on (node_low[r], the lowest rank of r's
 * node; NULL when the nodes are not known: one group), the groups taken in
 * order of their lowest rank, group g going to host g mod nhosts, so that
 * the replacements of one node stay together on one host. newcomer_rank is
 * reordered host by host (host 0's new processes first, each host's in
 * ascending rank order) and count[h] is how many go to host h (nhosts >= 1
 * entries). DMESH_ERR_NOMEM only. */
int dmesh_respawn_hosts_plan(int nnewcomers, int newcomer_rank[], const int node_low[], int nhosts,
                             int count[]);

#endif /* DMESH_RESPAWN_PLAN_H */
