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

/* Index of rank in a rank map of n ranks (NULL: the identity), -1 if
 * absent: O(n), for a rank map given as a list. */
static inline int dmesh_rank_map_index(int n, const int *rank_map, int rank)
{
    if (rank_map == NULL)
        return rank >= 0 && rank < n ? rank : -1;
    for (int i = 0; i < n; i++)
        if (rank_map[i] == rank)
            return i;
    return -1;
}

#endif /* DMESH_RANK_MAP_H */
