/* SPDX-License-Identifier: BSD-3-Clause */
/* The _by_name twins of the calls that take a dimension index: the name
 * resolved by the library's one rule (dim_name.h), then the index form's
 * implementation, so that both behave alike. The collective ones resolve
 * inside their call (dmesh_unflatten_named, dmesh_shrink_named,
 * dmesh_grow_named), where a bad index fails, before the ranks agree. */
#include "config.h"

#include "api_impl.h"

#include "mesh_dim.h"
#include "error.h"
#include "ft/grow.h"
#include "ft/shrink.h"
#include "mesh.h"
#include "mesh_derived.h"
#include "mesh_local.h"

/* The index of dim_name in the mesh of handle, for the call fn. */
static int dim_of(dmesh_t handle, const char *dim_name, const char *fn, int *dim)
{
    struct dmesh_mesh *mesh;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, fn, &mesh));
    return dmesh_mesh_dim_by_name(mesh, dim_name, fn, dim);
}

int dmesh_get_dim_size_by_name_impl(dmesh_t mesh, const char *dim_name, int *size)
{
    int dim;

    DMESH_TRY(dim_of(mesh, dim_name, "dmesh_get_dim_size_by_name", &dim));
    return dmesh_get_dim_size_impl(mesh, dim, size);
}

int dmesh_get_local_rank_by_name_impl(dmesh_t mesh, const char *dim_name, int *rank)
{
    int dim;

    DMESH_TRY(dim_of(mesh, dim_name, "dmesh_get_local_rank_by_name", &dim));
    return dmesh_local_rank_inline(mesh, dim, rank);
}

int dmesh_get_group_ranks_by_name_impl(dmesh_t mesh, const char *dim_name, int maxranks,
                                       int ranks[], int *nranks)
{
    int dim;

    DMESH_TRY(dim_of(mesh, dim_name, "dmesh_get_group_ranks_by_name", &dim));
    return dmesh_get_group_ranks_impl(mesh, dim, maxranks, ranks, nranks);
}

int dmesh_get_comm_by_name_impl(dmesh_t mesh, const char *dim_name, MPI_Comm *comm)
{
    int dim;

    DMESH_TRY(dim_of(mesh, dim_name, "dmesh_get_comm_by_name", &dim));
    return dmesh_comm_inline(mesh, dim, comm);
}

int dmesh_shift_by_name_impl(dmesh_t mesh, const char *dim_name, int disp, int periodic,
                             int *source, int *dest)
{
    int dim;

    DMESH_TRY(dim_of(mesh, dim_name, "dmesh_shift_by_name", &dim));
    return dmesh_shift_impl(mesh, dim, disp, periodic, source, dest);
}

int dmesh_get_all_groups_by_name_impl(dmesh_t mesh, const char *dim_name, int maxgroups,
                                      int maxranks, int ranks[], int *ngroups, int *size)
{
    int dim;

    DMESH_TRY(dim_of(mesh, dim_name, "dmesh_get_all_groups_by_name", &dim));
    return dmesh_get_all_groups_impl(mesh, dim, maxgroups, maxranks, ranks, ngroups, size);
}

int dmesh_get_dim_locality_by_name_impl(dmesh_t mesh, const char *dim_name, int *kind)
{
    int dim;

    DMESH_TRY(dim_of(mesh, dim_name, "dmesh_get_dim_locality_by_name", &dim));
    return dmesh_get_dim_locality_impl(mesh, dim, kind);
}

int dmesh_unflatten_by_name_impl(dmesh_t mesh, const char *dim_name, int n, const int sizes[],
                                 const char *const dim_names[], MPI_Info info, dmesh_t *out)
{
    return dmesh_unflatten_named(mesh, 0, "dmesh_unflatten_by_name", dim_name, n, sizes, dim_names,
                                 info, out);
}

int dmesh_shrink_by_name_impl(dmesh_t mesh, const char *dim_name, MPI_Info info,
                              MPI_Comm *survivors, dmesh_t *newmesh)
{
    return dmesh_shrink_named(mesh, 0, "dmesh_shrink_by_name", dim_name, info, survivors, newmesh);
}

int dmesh_grow_by_name_impl(dmesh_t mesh, const char *dim_name, int n, const char *command,
                            char *const argv[], MPI_Info info, MPI_Comm *newcomm, dmesh_t *newmesh)
{
    return dmesh_grow_named(mesh, 0, "dmesh_grow_by_name", dim_name, n, command, argv, info,
                            newcomm, newmesh);
}
