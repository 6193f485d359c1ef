/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hello_mesh: a 3-D (dp, pp, tp) mesh over MPI_COMM_WORLD; every rank prints
 * its coordinate, then sums the world ranks of its tp group with an
 * allreduce on the tp communicator. Exits 1 if the sum is wrong.
 *
 *   mpiexec -n 8 ./hello_mesh      (8 ranks: (2,2,2); 2: (1,1,2); 1: (1,1,1))
 */
#include <stdio.h>

#include <mpi.h>
#include <dmesh.h>

int main(int argc, char **argv)
{
    const char *names[3] = {"dp", "pp", "tp"};
    int rank, size, coords[3], member, sum, expected = 0;
    MPI_Comm tp_comm;
    dmesh_t mesh;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int tp = size % 2 == 0 ? 2 : 1, pp = size / tp % 2 == 0 ? 2 : 1;
    int shape[3] = {size / (tp * pp), pp, tp};

    /* No return code to check: as with MPI's own calls, a failure goes to
     * MPI_COMM_WORLD's error handler, fatal by default, which ends the job
     * after dmesh has written what went wrong to stderr. The exception: a
     * program run under another MPI than dmesh was built with gets the
     * class back (DMESH_ERR_MPI) and the detail on stderr, nothing raised. */
    dmesh_init(MPI_COMM_WORLD, "cpu", 3, shape, names, MPI_INFO_NULL, &mesh);
    dmesh_get_coordinate(mesh, 3, coords, &member);
    printf("rank %d: (dp, pp, tp) = (%d, %d, %d)\n", rank, coords[0], coords[1], coords[2]);

    /* tp is the innermost dimension: my group is the tp consecutive ranks
     * around me, and the communicator's rank order is the tp coordinate. */
    dmesh_get_comm(mesh, 2, &tp_comm);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, tp_comm);
    for (int t = 0; t < tp; t++)
        expected += rank - coords[2] + t;

    dmesh_free(&mesh);
    MPI_Finalize();
    if (sum != expected) {
        fprintf(stderr, "rank %d: tp allreduce gave %d, expected %d\n", rank, sum, expected);
        return 1;
    }
    return 0;
}
