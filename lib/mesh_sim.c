/* SPDX-License-Identifier: BSD-3-Clause */
/* The mesh as a whole, from any rank: coordinates of any rank, the rank at
 * any coordinate, Cartesian shifts and every group of a dimension. All of it
 * is local arithmetic on the layout and the rank map (O(atoms) per rank or
 * coordinate), like MPI's Cartesian queries. */
#include "config.h"

#include "api_impl.h"

#include <stdlib.h>

#include "error.h"
#include "mesh.h"
#include "node.h"
#include "universe_comms.h"

/* The rank-map index where the caller's copy of the mesh starts: the
 * caller's index minus the offset of its coordinate. A non-member sees the
 * only copy, if there is one. */
static int copy_base(const struct dmesh_mesh *m, const char *func, int *base)
{
    const dmesh_universe_t *u = m->u;
    dmesh_axis_t all;
    int size, d, at;

    if (dmesh_universe_my_index(u) < 0) {
        DMESH_TRY(dmesh_mesh_concat(m, &all));
        DMESH_TRY(dmesh_axis_numel_impl(&all, &size));
        if (size != dmesh_universe_nranks(u) || dmesh_universe_local_map(u))
            return dmesh_error_set(DMESH_ERR_NOT_MEMBER,
                                   "%s: the calling rank is in no copy of "
                                   "the mesh, which has several",
                                   func);
        *base = 0;
        return DMESH_SUCCESS;
    }
    *base = dmesh_universe_my_index(u);
    for (d = 0; d < m->ndims; d++) {
        DMESH_TRY(
            dmesh_axis_index_impl(dmesh_mesh_axis(m, d), dmesh_mesh_entry(m, d)->position, &at));
        *base -= at;
    }
    return DMESH_SUCCESS;
}

int dmesh_get_rank_of_impl(dmesh_t handle, int ndims, const int coords[], int *rank)
{
    struct dmesh_mesh *mesh;
    int d, base, at, size;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_get_rank_of", &mesh));
    DMESH_CHECK_PTR_OF("dmesh_get_rank_of", coords);
    DMESH_CHECK_PTR_OF("dmesh_get_rank_of", rank);
    if (ndims != mesh->ndims)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: ndims %d, the mesh has %d", "dmesh_get_rank_of",
                               ndims, mesh->ndims);
    for (d = 0; d < ndims; d++) {
        DMESH_TRY(dmesh_axis_numel_impl(dmesh_mesh_axis(mesh, d), &size));
        if (coords[d] < 0 || coords[d] >= size)
            return dmesh_error_set(DMESH_ERR_ARG, "%s: coords[%d] = %d is not in [0, %d)",
                                   "dmesh_get_rank_of", d, coords[d], size);
    }
    DMESH_TRY(copy_base(mesh, "dmesh_get_rank_of", &base));
    for (d = 0; d < ndims; d++) {
        DMESH_TRY(dmesh_axis_index_impl(dmesh_mesh_axis(mesh, d), coords[d], &at));
        base += at;
    }
    *rank = dmesh_universe_rank_at(mesh->u, base);
    return DMESH_SUCCESS;
}

int dmesh_get_coordinate_of_impl(dmesh_t handle, int rank, int maxdims, int coords[],
                                 int *is_member)
{
    struct dmesh_mesh *mesh;
    const dmesh_universe_t *u;
    int c[DMESH_MAX_DIMS], d, index, group;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_get_coordinate_of", &mesh));
    DMESH_CHECK_PTR_OF("dmesh_get_coordinate_of", is_member);
    u = mesh->u;
    if (rank < 0 || rank >= dmesh_universe_comm_size(u))
        return dmesh_error_set(DMESH_ERR_ARG, "%s: rank %d is not in [0, %d)",
                               "dmesh_get_coordinate_of", rank, dmesh_universe_comm_size(u));
    /* the arguments are checked alike for members and non-members: the
     * answer to a too small maxdims must not depend on the rank asked about */
    DMESH_CHECK_PTR_OF("dmesh_get_coordinate_of", coords);
    if (maxdims < mesh->ndims)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: maxdims %d < ndims %d",
                               "dmesh_get_coordinate_of", maxdims, mesh->ndims);
    index = dmesh_rank_map_index(dmesh_universe_nranks(u), dmesh_universe_rank_map(u), rank);
    for (d = 0; d < mesh->ndims; d++)
        c[d] = MPI_UNDEFINED; /* rank outside the mesh */
    for (d = 0; index >= 0 && d < mesh->ndims; d++)
        DMESH_TRY(dmesh_prepared_axis_decompose_impl(&dmesh_mesh_entry(mesh, d)->prepared, index,
                                                     &group, &c[d]));
    for (d = 0; d < mesh->ndims; d++)
        coords[d] = c[d];
    *is_member = index >= 0;
    return DMESH_SUCCESS;
}

/* Coordinate c + disp along a dimension of the given size: wrapped when
 * periodic, MPI_PROC_NULL past an end otherwise. */
static int shifted(int c, long long disp, int size, int periodic)
{
    long long t = c + disp;

    if (periodic)
        return (int)(((t % size) + size) % size);
    return t < 0 || t >= size ? MPI_PROC_NULL : (int)t;
}

int dmesh_shift_impl(dmesh_t handle, int dim, int disp, int periodic, int *source, int *dest)
{
    struct dmesh_mesh *mesh;
    int size, c;

    DMESH_TRY(dmesh_mesh_get(handle, dim, "dmesh_shift", &mesh));
    DMESH_CHECK_PTR_OF("dmesh_shift", source);
    DMESH_CHECK_PTR_OF("dmesh_shift", dest);
    if (dmesh_universe_my_index(mesh->u) < 0)
        return dmesh_error_set(DMESH_ERR_NOT_MEMBER, "%s: the calling rank is not in the mesh",
                               "dmesh_shift");
    DMESH_TRY(dmesh_axis_numel_impl(dmesh_mesh_axis(mesh, dim), &size));
    c = dmesh_mesh_entry(mesh, dim)->position;
    *source = shifted(c, -(long long)disp, size, periodic);
    *dest = shifted(c, disp, size, periodic);
    return DMESH_SUCCESS;
}

int dmesh_get_all_groups_impl(dmesh_t handle, int dim, int maxgroups, int maxranks, int ranks[],
                              int *ngroups, int *size)
{
    struct dmesh_mesh *mesh;
    const dmesh_universe_t *u;
    const dmesh_axis_t *a;
    dmesh_axis_t c;
    int ng, gs, k, i, *all;

    DMESH_TRY(dmesh_mesh_get(handle, dim, "dmesh_get_all_groups", &mesh));
    DMESH_CHECK_PTR_OF("dmesh_get_all_groups", ngroups);
    DMESH_CHECK_PTR_OF("dmesh_get_all_groups", size);
    u = mesh->u;
    a = dmesh_mesh_axis(mesh, dim);
    if (dmesh_universe_local_map(u) && dmesh_universe_my_index(u) < 0)
        return dmesh_error_set(DMESH_ERR_NOT_MEMBER,
                               "%s: the mesh's rank map is private to each "
                               "group and the calling rank is in none",
                               "dmesh_get_all_groups");
    DMESH_TRY(dmesh_axis_numel_impl(a, &gs));
    DMESH_TRY(dmesh_axis_complement_impl(a, dmesh_universe_nranks(u), &c));
    DMESH_TRY(dmesh_axis_numel_impl(&c, &ng));
    if (maxgroups == 0 && ranks == NULL) {
        *ngroups = ng;
        *size = gs;
        return DMESH_SUCCESS;
    }
    DMESH_CHECK_PTR_OF("dmesh_get_all_groups", ranks);
    if (maxgroups < ng || maxranks < gs)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "%s: room for %d groups of %d ranks, dim %d has %d "
                               "groups of %d",
                               "dmesh_get_all_groups", maxgroups, maxranks, dim, ng, gs);
    if ((all = malloc((size_t)dmesh_universe_nranks(u) * sizeof(int))) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "%s: out of memory", "dmesh_get_all_groups");
    k = dmesh_axis_groups_impl(a, dmesh_universe_nranks(u), dmesh_universe_rank_map(u),
                               dmesh_universe_nranks(u), all, &ng, &gs);
    for (i = 0; k == DMESH_SUCCESS && i < ng * gs; i++)
        ranks[(size_t)(i / gs) * (size_t)maxranks + (size_t)(i % gs)] = all[i];
    free(all);
    DMESH_TRY(k);
    *ngroups = ng;
    *size = gs;
    return DMESH_SUCCESS;
}

/* Under DMESH_DEBUG: when the innermost dimension of a rank-order mesh
 * leaves its nodes but node order would keep it in one, say so (rank 0). */
static void hint_node_order(const struct dmesh_mesh *mesh, int dim, const int lows[], int kind)
{
    dmesh_universe_t *u = mesh->u;
    int *map, better = 0;

    if (!dmesh_universe_debugging(u) || kind == DMESH_LOCALITY_NODE || dim != mesh->ndims - 1 ||
        dmesh_universe_rank_map(u) != NULL)
        return;
    if ((map = malloc((size_t)dmesh_universe_nranks(u) * sizeof(int))) == NULL)
        return;
    if (dmesh_node_order(dmesh_universe_comm_size(u), lows, dmesh_universe_nranks(u), map) ==
            DMESH_SUCCESS &&
        dmesh_node_locality(dmesh_mesh_axis(mesh, dim), dmesh_universe_nranks(u), map, lows,
                            &better) == DMESH_SUCCESS &&
        better == DMESH_LOCALITY_NODE)
        dmesh_universe_debug(u,
                             "dim %d (%s) is %s across nodes; dmesh_order=node (or "
                             "dmesh_init_hybrid) would keep each of its groups in one node",
                             dim, mesh->named ? dmesh_mesh_name(mesh, dim) : "unnamed",
                             kind == DMESH_LOCALITY_ACROSS ? "spread" : "mixed");
    free(map);
}

int dmesh_get_dim_locality_impl(dmesh_t handle, int dim, int *kind)
{
    struct dmesh_mesh *mesh;
    const int *lows = NULL;
    int err;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_get_dim_locality", &mesh));
    if (dmesh_universe_local_map(mesh->u)) /* the same on every rank */
        return dmesh_error_set(DMESH_ERR_ARG,
                               "%s: a mesh of dmesh_from_comms without ranks has a rank map "
                               "private to each group",
                               "dmesh_get_dim_locality");
    /* finding the nodes may be collective over the universe, whatever the
     * dim: a bad dim or a NULL kind on one rank still takes part */
    err = dmesh_universe_node_lows(mesh->u, &lows);
    if (err == DMESH_SUCCESS)
        err = dmesh_mesh_get(handle, dim, "dmesh_get_dim_locality", &mesh);
    if (err == DMESH_SUCCESS && kind == NULL)
        err =
            dmesh_error_set(DMESH_ERR_ARG, "%s: argument 'kind' is NULL", "dmesh_get_dim_locality");
    if (err == DMESH_SUCCESS)
        err = dmesh_node_locality(dmesh_mesh_axis(mesh, dim), dmesh_universe_nranks(mesh->u),
                                  dmesh_universe_rank_map(mesh->u), lows, kind);
    if (err == DMESH_SUCCESS)
        hint_node_order(mesh, dim, lows, *kind);
    return err;
}
