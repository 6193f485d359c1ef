/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI communicator of one mesh axis. */
#ifndef DMESH_COMM_MPI_H
#define DMESH_COMM_MPI_H

#include <mpi.h>

#include "dmesh_layout.h"

/* Collective over comm (every rank of it, members of the mesh or not):
 * *out = the communicator of the caller's group along axis, ranks ordered
 * by position, MPI_COMM_NULL outside the mesh (my_index < 0). Colour and key
 * come from the prepared axis (dmesh_prepared_axis_decompose); colour_base is added to the
 * colour (it separates rank maps that differ between ranks). With use_group, members call
 * MPI_Comm_create_group on their group instead of MPI_Comm_split (only the
 * group's members then take part). MPI_ERRORS_RETURN is set on the result. */
int dmesh_comm_mpi_create(MPI_Comm comm, const dmesh_axis_t *axis, int n, const int *rank_map,
                          int my_index, int colour_base, int use_group, MPI_Comm *out);

/* The same with the axis already prepared for the rank map (prepared->n is
 * its size): the cache entries keep one, so that the split's colour and key
 * cost a few nanoseconds. */
int dmesh_comm_mpi_create_prepared(MPI_Comm comm, const dmesh_axis_t *axis,
                                   const dmesh_prepared_axis_t *prepared, const int *rank_map,
                                   int my_index, int colour_base, int use_group, MPI_Comm *out);

/* MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN) on a communicator the
 * library owns; an MPI error code. */
int dmesh_set_errhandler(MPI_Comm comm);

#endif /* DMESH_COMM_MPI_H */
