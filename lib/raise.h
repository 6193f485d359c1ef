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

/* An entry point's return: the outcome of call, raised by raise
 * (dmesh_raise_on_comm or dmesh_raise_on_mesh) on target unless it
 * succeeded with no binding's rejection pending (one load then). One
 * statement per call that writes through a pointer. */
#define DMESH_RAISE_RETURN(raise, target, call)                                                    \
    do {                                                                                           \
        int err_ = (call);                                                                         \
        if (err_ == DMESH_SUCCESS && !dmesh_error_any_rejected())                                  \
            return err_;                                                                           \
        return raise(err_, (target), __func__);                                                    \
    } while (0)

#endif /* DMESH_RAISE_H */
