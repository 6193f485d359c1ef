/* SPDX-License-Identifier: BSD-3-Clause */
/* Built (not run) by the CMake consumer when dmesh has NCCL: a program that
 * includes dmesh_nccl.h and calls NCCL itself compiles and links with the
 * dmesh::nccl target (and with pkg-config's dmesh-nccl). */
#include <stdio.h>

#include <mpi.h>
#include <dmesh_nccl.h>

int main(int argc, char **argv)
{
    int version = 0, shape[1];
    dmesh_t mesh = DMESH_NULL;
    ncclComm_t comm;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &shape[0]);
    ncclGetVersion(&version);
    if (dmesh_init(MPI_COMM_WORLD, "cuda", 1, shape, NULL, MPI_INFO_NULL, &mesh) == DMESH_SUCCESS &&
        dmesh_get_nccl_comm(mesh, 0, &comm) == DMESH_SUCCESS)
        printf("NCCL %d: a communicator of %d ranks\n", version, shape[0]);
    dmesh_free(&mesh);
    MPI_Finalize();
    return 0;
}
