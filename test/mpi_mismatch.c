/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Built by test/mpi-mismatch.sh with the other MPI's compiler wrapper and
 * linked against this build's libdmesh (made with the first MPI): the
 * program's MPI symbols then come from the other MPI. dmesh_init must fail
 * with DMESH_ERR_MPI naming both MPIs, instead of crashing inside MPI.
 * Exit 0 when it does.
 */
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "dmesh.h"

int main(int argc, char **argv)
{
    int shape[1] = {1}, err, ok;
    dmesh_t mesh = DMESH_NULL;

    MPI_Init(&argc, &argv);
    /* dmesh raises its failures on these handlers (fatal by default): here
     * they return, and the classes are checked. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    err = dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, NULL, MPI_INFO_NULL, &mesh);
    printf("dmesh_init: %s: %s\n", dmesh_error_string(err), dmesh_last_error());
    ok = err == DMESH_ERR_MPI && strstr(dmesh_last_error(), "dmesh_init: built with ") != NULL &&
         strstr(dmesh_last_error(), ", running under ") != NULL && mesh == DMESH_NULL;
    MPI_Finalize();
    return ok ? 0 : 1;
}
