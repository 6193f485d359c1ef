/* SPDX-License-Identifier: BSD-3-Clause */
/* A (size/2, 2) mesh on MPI_COMM_WORLD; each rank sums the world ranks of its
 * inner group with an allreduce and checks the result, and checks that the
 * library is the version the CMake package announced. Exit 1 on a mismatch. */
#include <stdio.h>
#include <string.h>

#include <mpi.h>
#include <dmesh.h>

int main(int argc, char **argv)
{
    const char *names[2] = {"dp", "tp"};
    int rank, size, shape[2], coords[2], member, sum = -1, major, minor, patch, bad = 0;
    char version[32];
    MPI_Comm tp;
    dmesh_t mesh = DMESH_NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    shape[1] = size % 2 == 0 ? 2 : 1;
    shape[0] = size / shape[1];
    dmesh_get_version(&major, &minor, &patch);
    snprintf(version, sizeof(version), "%d.%d.%d", major, minor, patch);
    bad |= strcmp(version, DMESH_EXPECTED_VERSION) != 0;
    if (dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, names, MPI_INFO_NULL, &mesh) != DMESH_SUCCESS) {
        fprintf(stderr, "dmesh_init: %s\n", dmesh_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    dmesh_get_coordinate(mesh, 2, coords, &member);
    dmesh_get_comm(mesh, 1, &tp);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, tp);
    /* tp groups are consecutive ranks: rank - coords[1] .. + shape[1] - 1. */
    bad |= sum != shape[1] * (rank - coords[1]) + shape[1] * (shape[1] - 1) / 2;
    printf("rank %d: (dp, tp) = (%d, %d), tp sum %d, dmesh %s%s\n", rank, coords[0], coords[1], sum,
           version, bad ? " WRONG" : "");
    dmesh_free(&mesh);
    MPI_Finalize();
    return bad;
}
