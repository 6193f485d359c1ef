/* SPDX-License-Identifier: BSD-3-Clause */
/* Errors raised the MPI way (raise.c): a failing call of a program raises
 * its class, as an MPI error code registered with the MPI, on the error
 * handler of the communicator it concerns (MPI_Comm_call_errhandler), as
 * MPI's own calls do. Only the entry points (api.c, api_layout.c) raise,
 * once per failing call, after its outcome is agreed; everything else
 * returns classes. */
#ifndef DMESH_RAISE_H
#define DMESH_RAISE_H

#include <mpi.h>

#include "dmesh.h"
#include "error.h"

/* Raise err (when not DMESH_SUCCESS) on comm's handler (MPI_COMM_NULL:
 * MPI_COMM_SELF's), fn being the public call; returns err. */
int dmesh_raise_on_comm(int err, MPI_Comm comm, const char *fn);

/* The same for a call on mesh: on the handler of the communicator the
 * mesh was made from (DMESH_NULL: MPI_COMM_SELF's). */
int dmesh_raise_on_mesh(int err, dmesh_t mesh, const char *fn);

/* An entry point's return: err, the outcome of its call, raised on comm's
 * (or mesh's) handler unless it succeeded with no binding's rejection
 * pending (one load then). fn: the entry point (__func__). An entry point
 * returns it: `return dmesh_raise_outcome_on_mesh(dmesh_x_impl(mesh), mesh,
 * __func__);` (the target a value the call does not write). */
static inline int dmesh_raise_outcome_on_comm(int err, MPI_Comm comm, const char *fn)
{
    if (err == DMESH_SUCCESS && !dmesh_error_any_rejected())
        return err;
    return dmesh_raise_on_comm(err, comm, fn);
}

static inline int dmesh_raise_outcome_on_mesh(int err, dmesh_t mesh, const char *fn)
{
    if (err == DMESH_SUCCESS && !dmesh_error_any_rejected())
        return err;
    return dmesh_raise_on_mesh(err, mesh, fn);
}

#endif /* DMESH_RAISE_H */
