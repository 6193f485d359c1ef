/* SPDX-License-Identifier: BSD-3-Clause */
/* PMPI wrappers that count live communicators (comm_count.h). */
#include "config.h"

#include <mpi.h>

#include "comm_count.h"

#if DMESH_HAVE_ULFM
#include <mpi-ext.h>
#endif

static long live;

static int made(int rc, const MPI_Comm *c)
{
    if (rc == MPI_SUCCESS && *c != MPI_COMM_NULL)
        __atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
    return rc;
}

long comm_count_live(void)
{
    return __atomic_load_n(&live, __ATOMIC_RELAXED);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out)
{
    return made(PMPI_Comm_dup(comm, out), out);
}

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *out, MPI_Request *req)
{
    return made(PMPI_Comm_idup(comm, out, req), out);
}

int MPI_Comm_split(MPI_Comm comm, int colour, int key, MPI_Comm *out)
{
    return made(PMPI_Comm_split(comm, colour, key, out), out);
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out)
{
    return made(PMPI_Comm_split_type(comm, type, key, info, out), out);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *out)
{
    return made(PMPI_Comm_create_group(comm, group, tag, out), out);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *out)
{
    return made(PMPI_Comm_create(comm, group, out), out);
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *out)
{
    return made(PMPI_Cart_create(comm, ndims, dims, periods, reorder, out), out);
}

/* dmesh_respawn and dmesh_grow: the spawn's intercommunicator and the
 * merged one (dmesh frees both) */
int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                   MPI_Comm comm, MPI_Comm *out, int errcodes[])
{
    return made(PMPI_Comm_spawn(command, argv, maxprocs, info, root, comm, out, errcodes), out);
}

int MPI_Intercomm_merge(MPI_Comm inter, int high, MPI_Comm *out)
{
    return made(PMPI_Intercomm_merge(inter, high, out), out);
}

#if DMESH_HAVE_ULFM
int MPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *out)
{
    return made(PMPIX_Comm_shrink(comm, out), out);
}
#endif

#if DMESH_HAVE_MPI_SESSIONS
/* MPI-4: the NCCL test double makes its members' communicators so under ULFM */
int MPI_Comm_create_from_group(MPI_Group group, const char *tag, MPI_Info info,
                               MPI_Errhandler handler, MPI_Comm *out)
{
    return made(PMPI_Comm_create_from_group(group, tag, info, handler, out), out);
}
#endif

int MPI_Comm_free(MPI_Comm *comm)
{
    int was = *comm != MPI_COMM_NULL, rc = PMPI_Comm_free(comm);

    if (rc == MPI_SUCCESS && was)
        __atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
    return rc;
}
