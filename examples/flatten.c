/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flatten: a 3-D (dp, cp, tp) mesh; the (dp, cp) slice is flattened into one
 * dimension "dp_cp" (the group over which, say, gradients are reduced when
 * the context-parallel ranks also hold data shards), its communicator is
 * used for an allreduce, and the flattened name is then sliced back from the
 * root mesh, alone and together with tp (PyTorch: mesh["dp", "cp"]._flatten(),
 * then mesh["dp_cp"] and mesh["dp_cp", "tp"]). Exits 1 on a wrong result.
 *
 *   mpiexec -n 8 ./flatten   (8 ranks: (2,2,2); 4: (1,2,2); 2: (1,1,2))
 */
#include <stdio.h>
#include <string.h>

#include <mpi.h>
#include <dmesh.h>

/* No CHECK around the dmesh calls: as with MPI's own calls, a failure goes
 * to the error handler of MPI_COMM_WORLD, fatal by default, which ends the
 * job after dmesh has written what went wrong to stderr. */

int main(int argc, char **argv)
{
    const char *names[3] = {"dp", "cp", "tp"};
    const char *dp_cp[2] = {"dp", "cp"}, *flat_name[1] = {"dp_cp"}, *flat_tp[2] = {"dp_cp", "tp"};
    dmesh_t root, slice, flat, again, two;
    const char *name;
    int rank, size, coords[3], member, sum, expected = 0, equal, ok = 1;
    MPI_Comm comm, comm_again;
    char text[256];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int tp = size % 2 == 0 ? 2 : 1, cp = size / tp % 2 == 0 ? 2 : 1;
    int shape[3] = {size / (tp * cp), cp, tp};

    dmesh_init(MPI_COMM_WORLD, "cpu", 3, shape, names, MPI_INFO_NULL, &root);
    dmesh_get_coordinate(root, 3, coords, &member);

    /* Flatten (dp, cp): the default name joins the names with "_". */
    dmesh_slice(root, 2, dp_cp, &slice);
    dmesh_flatten(slice, NULL, MPI_INFO_NULL, &flat);
    dmesh_get_dim_name(flat, 0, &name);
    if (strcmp(name, "dp_cp") != 0) {
        fprintf(stderr, "rank %d: flattened name %s\n", rank, name);
        ok = 0;
    }

    /* Its group: every rank with my tp coordinate, tp apart. */
    dmesh_get_comm(flat, 0, &comm);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm);
    for (int k = 0; k < shape[0] * cp; k++)
        expected += coords[2] + k * tp;
    if (sum != expected) {
        fprintf(stderr, "rank %d: dp_cp allreduce gave %d, expected %d\n", rank, sum, expected);
        ok = 0;
    }
    printf("rank %d: (dp, cp, tp) = (%d, %d, %d), sum over dp_cp = %d\n", rank, coords[0],
           coords[1], coords[2], sum);

    /* Slice the registered name back from the root: the same mesh and
     * communicator; with tp it gives a 2-D (dp_cp, tp) mesh. */
    dmesh_slice(root, 1, flat_name, &again);
    dmesh_equal(again, flat, &equal);
    dmesh_get_comm(again, 0, &comm_again);
    if (!equal || comm_again != comm) {
        fprintf(stderr, "rank %d: root[\"dp_cp\"] differs from the flattened mesh\n", rank);
        ok = 0;
    }
    dmesh_slice(root, 2, flat_tp, &two);
    dmesh_get_coordinate(two, 3, coords, &member);
    if (coords[0] != rank / tp || coords[1] != rank % tp) {
        fprintf(stderr, "rank %d: (dp_cp, tp) coordinate (%d, %d)\n", rank, coords[0], coords[1]);
        ok = 0;
    }
    dmesh_to_string(two, text, sizeof(text), NULL);
    if (rank == 0)
        printf("root[\"dp_cp\", \"tp\"] = %s\n", text);

    dmesh_free(&two);
    dmesh_free(&again);
    dmesh_free(&flat);
    dmesh_free(&slice);
    dmesh_free(&root);
    MPI_Finalize();
    return ok ? 0 : 1;
}
