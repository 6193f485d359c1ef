/* SPDX-License-Identifier: BSD-3-Clause */
/* dmesh_get_nccl_comm (include/dmesh_nccl.h): the NCCL communicator of a
 * mesh dimension. Here, not in comm_nccl.c, so that the NCCL module knows
 * communicators and nothing of meshes. Built only --with-nccl. */
#include "config.h"

#include "dmesh_nccl.h"
#include "error.h"
#include "mesh.h"

/* The NCCL communicator of dim, created first when the universe defers
 * NCCL creation (collective over that dim's group then). */
static int mesh_get_nccl(dmesh_t mesh, int dim, void **nccl)
{
    dmesh_comm_entry_t *e = dmesh_mesh_entry(mesh, dim);

    if (e->backend != DMESH_BACKEND_NCCL)
        return dmesh_error_set(DMESH_ERR_BACKEND, "dim %d uses the MPI backend, not NCCL", dim);
    if (mesh->u->my_index < 0)
        return dmesh_error_set(DMESH_ERR_NOT_MEMBER, "the calling rank is not in the mesh");
    DMESH_TRY(dmesh_universe_nccl_entry(mesh->u, e));
    *nccl = e->nccl;
    return DMESH_SUCCESS;
}

int dmesh_get_nccl_comm(dmesh_t mesh, int dim, ncclComm_t *comm)
{
    void *nccl = NULL;

    DMESH_CHECK_PTR(comm);
    DMESH_TRY(dmesh_mesh_check(mesh, dim, __func__));
    DMESH_TRY(mesh_get_nccl(mesh, dim, &nccl));
    *comm = (ncclComm_t)nccl;
    return DMESH_SUCCESS;
}
