/* SPDX-License-Identifier: BSD-3-Clause */
/* Creation of the MPI communicator of one axis, by MPI_Comm_split (every
 * rank of the communicator computes its own colour, the group index, and
 * key, the position, from the layout) or by MPI_Comm_create_group (only the
 * group's members, from the group built at reservation). Nothing is
 * enumerated over the world and nothing is exchanged but the creation call
 * itself. */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <stdlib.h>

#include "comm_mpi.h"
#include "error.h"
#include "fault.h"

/* Tag of MPI_Comm_create_group; groups of one axis are disjoint. */
#define DMESH_CREATE_GROUP_TAG 0x6d65

static int create_by_split(MPI_Comm comm, const dmesh_prepared_axis_t *axis, int my_index,
                           long long colour_base, MPI_Comm *out)
{
    int colour = MPI_UNDEFINED, key = 0, rc, err = DMESH_SUCCESS;

    /* even a rank whose decomposition failed, or whose colour does not fit
     * an int, takes part, so that none hangs */
    if (my_index >= 0 &&
        (err = dmesh_prepared_axis_decompose_impl(axis, my_index, &colour, &key)) != 0)
        colour = MPI_UNDEFINED;
    else if (my_index >= 0 &&
             (colour_base > INT_MAX - (long long)colour || dmesh_fault(DMESH_FAULT_COLOUR))) {
        err = dmesh_error_set(DMESH_ERR_SIZE,
                              "MPI_Comm_split colour %lld exceeds INT_MAX (the groups of a "
                              "dmesh_from_comms mesh without ranks are told apart by their "
                              "first rank times the mesh size; dmesh_comm_create=group has "
                              "no colours)",
                              colour_base + colour);
        colour = MPI_UNDEFINED;
    } else if (my_index >= 0)
        colour += (int)colour_base;
    rc = MPI_Comm_split(comm, colour, key, out);
    if (rc == MPI_SUCCESS && dmesh_fault(DMESH_FAULT_SPLIT)) {
        if (*out != MPI_COMM_NULL)
            MPI_Comm_free(out);
        rc = MPI_ERR_INTERN;
    }
    if (rc != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "MPI_Comm_split");
    if (err != DMESH_SUCCESS && *out != MPI_COMM_NULL)
        MPI_Comm_free(out);
    return err;
}

/* Only the members of a group take part in its creation, so none of them
 * may fail alone on the way to it: the group is made before the agreement
 * that precedes the creation (dmesh_comm_mpi_group_prepare), and its member
 * list is on the stack up to this size, on the heap above (from 3 ranks in
 * a fault-injection build, so that its tests reach the heap path). */
#ifdef DMESH_FAULT_INJECTION
#define GROUP_STACK 2
#else
#define GROUP_STACK 512
#endif

int dmesh_comm_mpi_group_prepare(MPI_Comm comm, const dmesh_axis_t *axis, int n,
                                 const int *rank_map, int my_index, MPI_Group *out)
{
    int size, count, rc, stack[GROUP_STACK], *members = stack, err;
    MPI_Group all = MPI_GROUP_NULL;

    *out = MPI_GROUP_NULL;
    if (my_index < 0)
        return DMESH_SUCCESS;
    DMESH_TRY(dmesh_axis_numel_impl(axis, &size));
    if (size > GROUP_STACK && (members = DMESH_FAULT_MALLOC((size_t)size * sizeof(int))) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "the group of an axis (%d ranks): out of memory",
                               size);
    err = dmesh_axis_group_of_impl(axis, n, rank_map, my_index, size, members, &count);
    rc = err == DMESH_SUCCESS ? MPI_Comm_group(comm, &all) : MPI_SUCCESS;
    if (err == DMESH_SUCCESS && rc == MPI_SUCCESS)
        rc = MPI_Group_incl(all, count, members, out);
    if (err == DMESH_SUCCESS && rc == MPI_SUCCESS && dmesh_fault(DMESH_FAULT_GROUP)) {
        MPI_Group_free(out);
        rc = MPI_ERR_INTERN;
    }
    if (all != MPI_GROUP_NULL)
        MPI_Group_free(&all);
    if (members != stack)
        free(members);
    if (err == DMESH_SUCCESS && rc != MPI_SUCCESS) {
        *out = MPI_GROUP_NULL;
        err = dmesh_error_mpi(rc, "the group of an axis (MPI_Comm_group, MPI_Group_incl)");
    }
    return err;
}

/* Collective over the members of group (none outside the mesh). */
static int create_by_group(MPI_Comm comm, MPI_Group group, MPI_Comm *out)
{
    int rc;

    *out = MPI_COMM_NULL;
    if (group == MPI_GROUP_NULL)
        return DMESH_SUCCESS;
    if ((rc = MPI_Comm_create_group(comm, group, DMESH_CREATE_GROUP_TAG, out)) != MPI_SUCCESS) {
        *out = MPI_COMM_NULL;
        return dmesh_error_mpi(rc, "MPI_Comm_create_group");
    }
    if (dmesh_fault(DMESH_FAULT_CREATE_GROUP)) {
        MPI_Comm_free(out);
        return dmesh_error_mpi(MPI_ERR_INTERN, "MPI_Comm_create_group");
    }
    return DMESH_SUCCESS;
}

int dmesh_set_errhandler(MPI_Comm comm)
{
    int rc = MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

    return rc == MPI_SUCCESS && dmesh_fault(DMESH_FAULT_ERRHANDLER) ? MPI_ERR_INTERN : rc;
}

int dmesh_comm_mpi_create_prepared(MPI_Comm comm, const dmesh_prepared_axis_t *prepared,
                                   int my_index, long long colour_base, int by_group,
                                   MPI_Group group, MPI_Comm *out)
{
    MPI_Comm c = MPI_COMM_NULL;
    int rc;

    if (by_group)
        DMESH_TRY(create_by_group(comm, group, &c));
    else
        DMESH_TRY(create_by_split(comm, prepared, my_index, colour_base, &c));
    if (c != MPI_COMM_NULL && (rc = dmesh_set_errhandler(c)) != MPI_SUCCESS) {
        MPI_Comm_free(&c);
        return dmesh_error_mpi(rc, "MPI_Comm_set_errhandler");
    }
    *out = c;
    return DMESH_SUCCESS;
}

int dmesh_comm_mpi_create(MPI_Comm comm, const dmesh_axis_t *axis, int n, int my_index,
                          long long colour_base, MPI_Comm *out)
{
    dmesh_prepared_axis_t prepared;
    MPI_Comm none = MPI_COMM_NULL;
    int err = dmesh_axis_prepare_impl(axis, n, &prepared);

    if (err == DMESH_SUCCESS)
        return dmesh_comm_mpi_create_prepared(comm, &prepared, my_index, colour_base, 0,
                                              MPI_GROUP_NULL, out);
    /* the others may split: take part, in no group (my_index -1 reads no axis) */
    DMESH_TRY(create_by_split(comm, NULL, -1, 0, &none));
    return err;
}
