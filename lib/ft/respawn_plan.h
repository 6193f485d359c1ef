/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): the pure part of dmesh_respawn (respawn.c,
 * respawn_plan.c): the hosts of its new processes. No MPI call here, so
 * that it is tested alone. The parents' message is join_message.h's. */
#ifndef DMESH_FT_RESPAWN_PLAN_H
#define DMESH_FT_RESPAWN_PLAN_H

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

#endif /* DMESH_FT_RESPAWN_PLAN_H */
