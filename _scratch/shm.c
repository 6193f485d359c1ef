#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, ssize, len, hsize = -1;
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm shm, hw;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(name, &len);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    MPI_Comm_size(shm, &ssize);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &hw);
    if (hw != MPI_COMM_NULL) MPI_Comm_size(hw, &hsize);
    printf("rank %d/%d on %s: shared %d, hw_guided(shared_memory) %d, PMI_process_mapping=%s\n", rank, size, name, ssize, hsize,
           getenv("PMI_process_mapping") ? getenv("PMI_process_mapping") : "-");
    MPI_Finalize();
    return 0;
}
