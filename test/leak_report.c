/* SPDX-License-Identifier: BSD-3-Clause */
/* leak_report MODE: meshes a program never frees (test/leak-report.sh runs
 * it under DMESH_DEBUG=1, which reports them at MPI_Finalize):
 *   keep  a root (dmesh_init) and a slice of it (dmesh_slice) are kept, a
 *         flattened mesh is freed;
 *   free  everything is freed: no report. */
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "dmesh.h"

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "keep";
    const char *names[2] = {"a", "b"};
    dmesh_t root = DMESH_NULL, sub = DMESH_NULL, flat = DMESH_NULL;
    int size;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dmesh_init(MPI_COMM_WORLD, "cpu", 2, (int[]){1, size}, names, MPI_INFO_NULL, &root);
    dmesh_slice(root, 1, &names[1], &sub);
    dmesh_flatten(root, NULL, MPI_INFO_NULL, &flat);
    dmesh_free(&flat);
    if (strcmp(mode, "free") == 0) {
        dmesh_free(&sub);
        dmesh_free(&root);
    }
    MPI_Finalize();
    return 0;
}
