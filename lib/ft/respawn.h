/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): the pure parts of dmesh_respawn, dmesh_grow
 * and dmesh_join (respawn.c, respawn_plan.c): the message the parents send
 * the new processes, the mesh that dmesh_grow makes and the hosts of
 * dmesh_respawn's new processes. No MPI call here, so that they are tested
 * alone. */
#ifndef DMESH_RESPAWN_H
#define DMESH_RESPAWN_H

#include <stdint.h>

#include "serialize.h"

#define DMESH_JOIN_MAGIC 0x646d6a6eu /* "dmjn" */
#define DMESH_JOIN_VERSION 1

/* The message: this header, then nnew int32 ranks (each new process's
 * rank in the new communicator, by its rank among the new processes),
 * then textlen bytes of the mesh's text and keyslen bytes of the dmesh_
 * info keys, each NUL-terminated. status: DMESH_SUCCESS, or the class of
 * the parents' failed call (the new processes then return it). */
typedef struct {
    uint32_t magic, version;
    int32_t reason, status, size, nnew, textlen, keyslen;
} dmesh_join_header_t;

/* The message of h (magic, version and lengths as given), malloc'd. */
int dmesh_join_pack(const dmesh_join_header_t *h, const int place[], const char *text,
                    const char *keys, char **buf, int *len);

/* Check and split a message of len bytes: DMESH_ERR_ARG (naming what is
 * wrong: magic, version, lengths, places) for one that dmesh did not send;
 * on success *place, *text and *keys are malloc'd copies. */
int dmesh_join_unpack(const char *buf, int len, dmesh_join_header_t *h, int **place, char **text,
                      char **keys);

/* dmesh_grow's mesh: s (a root mesh's saved form, rank map over ranks of a
 * communicator of size) with n more indices of dim; the new positions get
 * ranks size, size + 1, ... in row-major order, the old ones keep theirs;
 * the names registered by dmesh_flatten go. *nnew: how many new ranks.
 * DMESH_ERR_ARG for a mesh that is not a root, DMESH_ERR_SIZE when the
 * size overflows. */
int dmesh_grow_plan(dmesh_saved_t *s, int dim, int n, int size, int *nnew);

/* Where dmesh_respawn's new processes go when hosts are named
 * (dmesh_respawn_hosts): the nnew failed ranks of place (ascending) are
 * grouped by the node each was on (node_low[r], the lowest rank of r's
 * node; NULL when the nodes are not known: one group), the groups taken in
 * order of their lowest rank, group g going to host g mod nhosts, so that
 * the replacements of one node stay together on one host. place is
 * reordered host by host (host 0's new processes first, each host's in
 * ascending rank order) and count[h] is how many go to host h (nhosts >= 1
 * entries). DMESH_ERR_NOMEM only. */
int dmesh_respawn_hosts_plan(int nnew, int place[], const int node_low[], int nhosts, int count[]);

#endif /* DMESH_RESPAWN_H */
