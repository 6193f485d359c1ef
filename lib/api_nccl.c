/* SPDX-License-Identifier: BSD-3-Clause */
/* The entry points of dmesh_nccl.h, compiled with NCCL only (lib/gpu.mk):
 * as api.c's, each calls its implementation (mesh_nccl.c, mesh_by_name.c),
 * sets its output to NULL when the call failed and raises the failure on
 * the error handler of the communicator the mesh was made from (raise.h).
 * This file does not include api_impl.h: the names here are the exported
 * ones. */
#include "config.h"

#include "dmesh.h"
#include "dmesh_nccl.h"

#include "api_names.h"
#include "raise.h"

DMESH_API_DECLARE_IMPL(dmesh_get_nccl_comm)

int dmesh_get_nccl_comm(dmesh_t mesh, int dim, ncclComm_t *comm)
{
    int err = dmesh_get_nccl_comm_impl(mesh, dim, comm);

    if (err != DMESH_SUCCESS && comm != NULL)
        *comm = NULL;
    return dmesh_raise_outcome_on_mesh(err, mesh, __func__);
}

DMESH_API_DECLARE_IMPL(dmesh_get_nccl_comm_by_name)

int dmesh_get_nccl_comm_by_name(dmesh_t mesh, const char *dim_name, ncclComm_t *comm)
{
    int err = dmesh_get_nccl_comm_by_name_impl(mesh, dim_name, comm);

    if (err != DMESH_SUCCESS && comm != NULL)
        *comm = NULL;
    return dmesh_raise_outcome_on_mesh(err, mesh, __func__);
}
