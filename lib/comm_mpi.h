/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI communicator of one mesh axis. */
#ifndef DMESH_COMM_MPI_H
#define DMESH_COMM_MPI_H

#include <mpi.h>

#include "dmesh_layout.h"

/* Collective over comm (every rank of it, members of the mesh or not):
 * *out = the communicator of the caller's group along axis (MPI_Comm_split),
 * ranks ordered by position, MPI_COMM_NULL outside the mesh (my_index < 0).
 * Colour and key come from the axis prepared for the rank map of n ranks
 * (dmesh_prepared_axis_decompose); colour_base is added to the colour (it
 * separates rank maps that differ between ranks). A colour past INT_MAX is
 * DMESH_ERR_SIZE of that rank, which still takes part in the split (in no
 * group), so that no rank is left waiting in it. MPI_ERRORS_RETURN is set on
 * the result. */
int dmesh_comm_mpi_create(MPI_Comm comm, const dmesh_axis_t *axis, int n, int my_index,
                          long long colour_base, MPI_Comm *out);

/* The same with the axis already prepared (the cache entries keep one, so
 * that the split's colour and key cost a few nanoseconds). With by_group,
 * the members call MPI_Comm_create_group on group instead (their group along
 * the axis, from dmesh_comm_mpi_group_prepare; MPI_GROUP_NULL outside the
 * mesh, where nothing is made): only the group's members take part. */
int dmesh_comm_mpi_create_prepared(MPI_Comm comm, const dmesh_prepared_axis_t *prepared,
                                   int my_index, long long colour_base, int by_group,
                                   MPI_Group group, MPI_Comm *out);

/* Local: the caller's group along axis in comm (MPI_GROUP_NULL outside the
 * mesh, my_index < 0), for a group creation. Made before the agreement that
 * precedes the creation, so that a member that fails here fails with the
 * others instead of stranding them in MPI_Comm_create_group. */
int dmesh_comm_mpi_group_prepare(MPI_Comm comm, const dmesh_axis_t *axis, int n,
                                 const int *rank_map, int my_index, MPI_Group *out);

/* MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN) on a communicator the
 * library owns; an MPI error code. */
int dmesh_set_errhandler(MPI_Comm comm);

#endif /* DMESH_COMM_MPI_H */
