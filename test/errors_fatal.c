/* SPDX-License-Identifier: BSD-3-Clause */
/* errors_fatal MODE: a program that keeps MPI's default error handlers and
 * checks no class, as MPI programs do (test/errors-fatal.sh runs it):
 *   fatal   dmesh_init with a shape that cannot fill the communicator: the
 *           job must end there, dmesh's detail on stderr, and "after the
 *           call" must never be printed;
 *   some    dmesh_init where rank 0's arguments are good and the other
 *           ranks' are not: the job ends as in "fatal", its detail found
 *           on rank 1 (the lowest that failed);
 *   self    dmesh_get_ndims of DMESH_NULL (tied to no communicator): the
 *           same on MPI_COMM_SELF's handler;
 *   return  the fatal call again, under DMESH_ERRORS=return: the class
 *           comes back ("returned DMESH_ERR_SIZE").
 * In every mode a layout function fails before MPI_Init and after
 * MPI_Finalize: its class is returned, nothing is raised. */
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "dmesh.h"
#include "dmesh_layout.h"

static int outside_mpi(const char *when)
{
    dmesh_axis_t a = {1, {{4, 1}}};
    int index = 0, rc = dmesh_axis_index(&a, 9, &index);

    if (rc != DMESH_ERR_ARG) {
        printf("errors_fatal: dmesh_axis_index %s gave %d, want DMESH_ERR_ARG\n", when, rc);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "fatal";
    int size, rank, shape[2] = {3, 0}, n = 0, rc, bad = outside_mpi("before MPI_Init");
    dmesh_t mesh = DMESH_NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (size % 3 == 0)
        shape[0] = size + 1; /* cannot fill it either */
    if (strcmp(mode, "some") == 0 && rank == 0) {
        shape[0] = 1;
        shape[1] = size;
    }
    if (strcmp(mode, "self") == 0)
        rc = dmesh_get_ndims(DMESH_NULL, &n);
    else
        rc = dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, NULL, MPI_INFO_NULL, &mesh);
    printf("errors_fatal: rank %d: after the call: returned %s\n", rank, dmesh_error_string(rc));
    fflush(stdout);
    if (mesh != DMESH_NULL)
        bad = 1;
    MPI_Finalize();
    bad |= outside_mpi("after MPI_Finalize");
    return bad || strcmp(mode, "return") != 0 || rc != DMESH_ERR_SIZE;
}
