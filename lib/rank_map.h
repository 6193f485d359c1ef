/* SPDX-License-Identifier: BSD-3-Clause */
/* Rank maps: index i of a mesh's row-major rank tensor holds a rank of the
 * root communicator; NULL stands for the identity map. */
#ifndef DMESH_RANK_MAP_H
#define DMESH_RANK_MAP_H

#include <stdint.h>

/* The rank at rank-map index i: the one helper for it. */
static inline int dmesh_rank_map_rank(const int *rank_map, int64_t i)
{
    return rank_map != NULL ? rank_map[i] : (int)i;
}

/* Index of rank in a rank map of n ranks (NULL: the identity), -1 if absent. */
int dmesh_rank_map_index(int n, const int *rank_map, int rank);

#endif /* DMESH_RANK_MAP_H */
