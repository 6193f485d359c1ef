/* SPDX-License-Identifier: BSD-3-Clause */
/* The nodes of a communicator (node.h). */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "agree.h"
#include "dmesh.h"
#include "error.h"
#include "fault.h"
#include "node.h"
#include "node_find.h"

int dmesh_node_lows(MPI_Comm comm, int rule, dmesh_node_cache_t *cache, int **lows,
                    dmesh_node_how_t *how)
{
    dmesh_node_t node;
    int size, low = -1, rc, err = DMESH_SUCCESS;

    *lows = NULL;
    MPI_Comm_size(comm, &size);
    if ((*lows = DMESH_FAULT_MALLOC((size_t)size * sizeof(int))) == NULL)
        err = dmesh_error_set(DMESH_ERR_NOMEM, "nodes: out of memory");
    /* the allocation is agreed with the splits, before the collectives on
     * the node and comm: every rank has its node and takes part in both */
    err = dmesh_node_find(comm, rule, err, cache, &node);
    if (node.agreed) {
        low = node.low;
        /* on every rank, whatever the node gave here */
        rc = MPI_Allgather(&low, 1, MPI_INT, *lows, 1, MPI_INT, comm);
        if (rc != MPI_SUCCESS && err == DMESH_SUCCESS)
            err = dmesh_error_mpi(rc, "nodes: MPI_Allgather of the nodes");
        err = dmesh_agree_outcome(comm, err, "nodes (MPI_Allgather)");
    }
    if (err == DMESH_SUCCESS)
        dmesh_node_keep(cache, rule, &node);
    if (err == DMESH_SUCCESS && how != NULL) {
        how->rule = node.rule;
        snprintf(how->detail, sizeof(how->detail), "%s", node.detail);
    }
    dmesh_node_free(&node);
    if (err != DMESH_SUCCESS) {
        free(*lows);
        *lows = NULL;
    }
    return err;
}

static int by_key(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;

    return x < y ? -1 : x > y;
}

/* Ranks by (node's lowest rank, rank): the key of rank r is lows[r] * size
 * + r, which a long long holds and from which r comes back (thread-safe:
 * qsort gets no context in ISO C, so the keys carry it). */
int dmesh_node_order(int size, const int lows[], int n, int map[])
{
    long long *key = DMESH_FAULT_MALLOC((size_t)size * sizeof(long long));

    if (key == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_order=node: out of memory");
    for (int r = 0; r < size; r++)
        key[r] = (long long)lows[r] * size + r;
    qsort(key, (size_t)size, sizeof(long long), by_key);
    for (int i = 0; i < n; i++)
        map[i] = (int)(key[i] % size);
    free(key);
    return DMESH_SUCCESS;
}

int dmesh_node_check_uniform(int size, const int lows[], int per_node, int nnodes, const char *fn,
                             const char *detail)
{
    char sizes[160] = "";
    size_t at = 0;
    int found = 0, bad = 0, *count = DMESH_FAULT_CALLOC((size_t)size, sizeof(int));

    if (count == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "%s: out of memory", fn);
    for (int q = 0; q < size; q++) /* one pass: ranks per node, at the node's lowest rank */
        count[lows[q]]++;
    for (int r = 0; r < size; r++) {
        if (lows[r] != r)
            continue;
        found++;
        bad |= count[r] != per_node;
        if (at < sizeof(sizes) - 16)
            at += (size_t)snprintf(sizes + at, sizeof(sizes) - at, "%s%d", found > 1 ? ", " : "",
                                   count[r]);
        else if (at < sizeof(sizes) - 4)
            at += (size_t)snprintf(sizes + at, sizeof(sizes) - at, ", ...");
    }
    free(count);
    if (!bad && found == nnodes)
        return DMESH_SUCCESS;
    /* how the nodes were found: the MPI's split or host identity, and why */
    return dmesh_error_set(DMESH_ERR_SIZE,
                           "%s: the communicator has %d node(s) of %s rank(s); in_node multiplies "
                           "to %d and across to %d: every node must hold in_node's product of "
                           "ranks, and across's product must be the number of nodes (this "
                           "rank's node: %s)",
                           fn, found, sizes, per_node, nnodes, detail);
}

int dmesh_hybrid_layout(int ndims, const int in_node[], const int across[], dmesh_layout_t *l)
{
    long long p = 1, sa = 1, si = 1;

    for (int d = 0; d < ndims; d++)
        p *= in_node[d];
    l->naxes = ndims;
    for (int d = ndims - 1; d >= 0; d--) {
        dmesh_axis_t *a = &l->axes[d];
        if (sa * p > INT_MAX || si > INT_MAX)
            return dmesh_error_set(DMESH_ERR_SIZE, "hybrid layout: strides exceed INT_MAX");
        a->natoms = 2;
        a->atoms[0] = (dmesh_atom_t){across[d], (int)(sa * p)};
        a->atoms[1] = (dmesh_atom_t){in_node[d], (int)si};
        DMESH_TRY(dmesh_axis_canonical_impl(a, a));
        sa *= across[d];
        si *= in_node[d];
    }
    return DMESH_SUCCESS;
}

static int by_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return x < y ? -1 : x > y;
}

int dmesh_node_locality(const dmesh_axis_t *a, int n, const int *rank_map, const int lows[],
                        int *kind)
{
    dmesh_prepared_axis_t p;
    int size, group, pos, count, in_node = 1, across = 1, *members, err = DMESH_SUCCESS;

    DMESH_TRY(dmesh_axis_numel_impl(a, &size));
    DMESH_TRY(dmesh_axis_prepare_impl(a, n, &p));
    if ((members = DMESH_FAULT_MALLOC((size_t)size * sizeof(int))) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "dimension locality: out of memory");
    /* each group once, from its member at position 0 */
    for (int i = 0; i < n && err == DMESH_SUCCESS && (in_node || across); i++) {
        if ((err = dmesh_prepared_axis_decompose_impl(&p, i, &group, &pos)) != DMESH_SUCCESS ||
            pos != 0)
            continue;
        if ((err = dmesh_axis_group_of_impl(a, n, rank_map, i, size, members, &count)) !=
            DMESH_SUCCESS)
            break;
        for (int k = 0; k < count; k++)
            members[k] = lows[members[k]];
        qsort(members, (size_t)count, sizeof(int), by_int);
        for (int k = 1; k < count; k++) {
            in_node &= members[k] == members[0];
            across &= members[k] != members[k - 1];
        }
    }
    free(members);
    if (err == DMESH_SUCCESS)
        *kind = in_node  ? DMESH_LOCALITY_NODE
                : across ? DMESH_LOCALITY_ACROSS
                         : DMESH_LOCALITY_MIXED;
    return err;
}
