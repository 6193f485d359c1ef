/* SPDX-License-Identifier: BSD-3-Clause */
/* The nodes of a communicator, for dmesh_order=node: which ranks share a
 * node (node_find.h), and the rank map that
 * lists ranks by (node, local rank), nodes by their lowest rank, so that
 * the inner dimensions of a mesh stay inside a node whatever the placement
 * of the ranks (block, cyclic, uneven). Knows communicators, not meshes. */
#ifndef DMESH_NODE_H
#define DMESH_NODE_H

#include <stddef.h>

#include <mpi.h>

#include "dmesh_layout.h"
#include "node_find.h"

/* Collective over comm: *lows (size ints, the caller frees it) holds, for
 * every rank of comm, the lowest rank of comm on its node, the nodes found
 * by rule with cache (node_find.h: NULL, or comm's own); how (NULL: not
 * wanted) says how this rank's was found. Every rank returns the same class; *lows is NULL after a
 * failure. O(size) memory: the placement is arbitrary. */
int dmesh_node_lows(MPI_Comm comm, int rule, dmesh_node_cache_t *cache, int **lows,
                    dmesh_node_how_t *how);

/* Pure: the first n ranks of comm (size ranks) in node order: map[i] is
 * the i-th rank by (lows[rank], rank). n <= size. Returns DMESH_ERR_NOMEM
 * when its scratch cannot be allocated. */
int dmesh_node_order(int size, const int lows[], int n, int map[]);

/* Pure: DMESH_ERR_SIZE (naming fn, the ranks per node and detail: how
 * rank 0's node was found) unless the size ranks of lows sit on exactly
 * nnodes nodes of per_node ranks each; O(size), DMESH_ERR_NOMEM when its
 * count cannot be allocated. */
int dmesh_node_check_uniform(int size, const int lows[], int per_node, int nnodes, const char *fn,
                             const char *detail);

/* Pure: the layout of a hybrid mesh over a node-ordered rank map (index =
 * node * P + local rank, P = product of in_node): dim d has the atoms
 * across[d] : (product of across[d+1..]) * P and in_node[d] : (product of
 * in_node[d+1..]), the in-node factor inner, each axis canonical. */
int dmesh_hybrid_layout(int ndims, const int in_node[], const int across[], dmesh_layout_t *l);

/* Pure: the locality (DMESH_LOCALITY_*) of axis a over a rank map of n
 * (NULL: identity), the nodes given as lows: NODE when every group sits in
 * one node (a dimension of size 1 included), ACROSS when no group has two
 * ranks on a node, else MIXED. */
int dmesh_node_locality(const dmesh_axis_t *a, int n, const int *rank_map, const int lows[],
                        int *kind);

#endif /* DMESH_NODE_H */
