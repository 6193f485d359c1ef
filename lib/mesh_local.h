/* SPDX-License-Identifier: BSD-3-Clause */
/* The bodies of the hottest local queries, inline: the implementations
 * (mesh_query.c) and the entry points (api.c) both expand them, so that a
 * program's call does its work in the entry point and calls nothing else
 * when it succeeds (a failure's detail is one call). */
#ifndef DMESH_MESH_LOCAL_H
#define DMESH_MESH_LOCAL_H

#include "error.h"
#include "handout.h"
#include "mesh.h"
#include "universe_comms.h"

static inline int dmesh_local_rank_inline(dmesh_t handle, int dim, int *rank)
{
    const char *fn = "dmesh_get_local_rank";
    struct dmesh_mesh *mesh;

    DMESH_TRY(dmesh_mesh_get(handle, dim, fn, &mesh));
    if (rank == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: argument 'rank' is NULL", fn);
    if (dmesh_universe_my_index(mesh->u) < 0)
        return dmesh_error_set(DMESH_ERR_NOT_MEMBER, "%s: the calling rank is not in the mesh", fn);
    *rank = dmesh_mesh_entry(mesh, dim)->position;
    return DMESH_SUCCESS;
}

/* Outside the mesh: MPI_UNDEFINED, as MPI marks "no such rank/colour". */
static inline int dmesh_coordinate_inline(dmesh_t handle, int maxdims, int coords[], int *is_member)
{
    const char *fn = "dmesh_get_coordinate";
    struct dmesh_mesh *mesh;
    int d, member;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, fn, &mesh));
    if (is_member == NULL || coords == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: argument '%s' is NULL", fn,
                               is_member == NULL ? "is_member" : "coords");
    if (maxdims < mesh->ndims)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: maxdims %d < ndims %d", fn, maxdims,
                               mesh->ndims);
    member = dmesh_universe_my_index(mesh->u) >= 0;
    for (d = 0; d < mesh->ndims; d++)
        coords[d] = member ? dmesh_mesh_entry(mesh, d)->position : MPI_UNDEFINED;
    *is_member = member;
    return DMESH_SUCCESS;
}

/* A communicator handed out before and not freed by the program: here;
 * the first hand-out, a non-member's MPI_COMM_NULL and a freed one: in
 * dmesh_universe_hand_out. */
static inline int dmesh_comm_inline(dmesh_t handle, int dim, MPI_Comm *comm)
{
    const char *fn = "dmesh_get_comm";
    struct dmesh_mesh *mesh;
    dmesh_comm_entry_t *e;

    DMESH_TRY(dmesh_mesh_get(handle, dim, fn, &mesh));
    if (comm == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: argument 'comm' is NULL", fn);
    e = dmesh_mesh_entry(mesh, dim);
    if (e->handout != NULL && !dmesh_handout_freed(e->handout)) {
        *comm = e->comm;
        return DMESH_SUCCESS;
    }
    return dmesh_universe_hand_out(mesh->u, e, fn, comm);
}

#endif /* DMESH_MESH_LOCAL_H */
