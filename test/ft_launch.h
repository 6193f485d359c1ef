/* SPDX-License-Identifier: BSD-3-Clause */
/* Whether the job was launched with fault tolerance (mpiexec --with-ft
 * ulfm): Open MPI sets the predefined attribute MPIX_FT on MPI_COMM_WORLD.
 * For the tests whose expectation depends on the launch; they say which
 * in their header. Needs config.h first. */
#ifndef DMESH_TEST_FT_LAUNCH_H
#define DMESH_TEST_FT_LAUNCH_H

#include <mpi.h>
#if DMESH_HAVE_ULFM
#include <mpi-ext.h>
#endif

static inline int test_launched_ft(void)
{
    int flag = 0, *value = NULL;

#if DMESH_HAVE_ULFM
    if (MPI_Comm_get_attr(MPI_COMM_WORLD, MPIX_FT, &value, &flag) != MPI_SUCCESS)
        flag = 0;
#endif
    return flag && value != NULL && *value != 0;
}

#endif
