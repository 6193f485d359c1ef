/* SPDX-License-Identifier: BSD-3-Clause */
/* The entry points of dmesh.h: each calls its implementation (the
 * library's own code, api_impl.h), sets its output handles to their nulls
 * when the call failed, and raises the failure on the error handler of
 * the communicator the call concerns (raise.h):
 *   - creation calls: the communicator passed;
 *   - calls on a mesh: the communicator the mesh was made from;
 *   - calls tied to no communicator: MPI_COMM_SELF.
 * Collective calls come back with the outcome their ranks agreed, so every
 * rank raises the same class. This file does not include api_impl.h: the
 * names here are the exported ones. */
#include "config.h"

#include "dmesh.h"
#include "dmesh_layout.h"

#include "api_names.h"
#include "copies.h"
#include "error.h"
#include "mesh_local.h"
#include "raise.h"

DMESH_API_MESH_NAMES(DMESH_API_DECLARE_IMPL)
DMESH_API_PLAIN_NAMES(DMESH_API_DECLARE_IMPL)

/* On failure an output handle is its null, whatever the handler did. */
static int null_mesh(int err, dmesh_t *out)
{
    if (err != DMESH_SUCCESS && out != NULL)
        *out = DMESH_NULL;
    return err;
}

static int null_comm(int err, MPI_Comm *out)
{
    if (err != DMESH_SUCCESS && out != NULL)
        *out = MPI_COMM_NULL;
    return err;
}

int dmesh_init(MPI_Comm comm, const char *device_type, int ndims, const int shape[],
               const char *const dim_names[], MPI_Info info, dmesh_t *mesh)
{
    int err = dmesh_init_impl(comm, device_type, ndims, shape, dim_names, info, mesh);

    return dmesh_raise_outcome_on_comm(null_mesh(err, mesh), comm, __func__);
}

int dmesh_init_hybrid(MPI_Comm comm, const char *device_type, int ndims, const int in_node[],
                      const int across[], const char *const dim_names[], MPI_Info info,
                      dmesh_t *mesh)
{
    int err =
        dmesh_init_hybrid_impl(comm, device_type, ndims, in_node, across, dim_names, info, mesh);

    return dmesh_raise_outcome_on_comm(null_mesh(err, mesh), comm, __func__);
}

int dmesh_create(MPI_Comm comm, const char *device_type, int ndims, const int shape[],
                 const int ranks[], const char *const dim_names[], MPI_Info info, dmesh_t *mesh)
{
    int err = dmesh_create_impl(comm, device_type, ndims, shape, ranks, dim_names, info, mesh);

    return dmesh_raise_outcome_on_comm(null_mesh(err, mesh), comm, __func__);
}

int dmesh_from_comms(MPI_Comm comm, const char *device_type, int ndims, const MPI_Comm dim_comms[],
                     const int shape[], const int ranks[], const char *const dim_names[],
                     dmesh_t *mesh)
{
    int err =
        dmesh_from_comms_impl(comm, device_type, ndims, dim_comms, shape, ranks, dim_names, mesh);

    return dmesh_raise_outcome_on_comm(null_mesh(err, mesh), comm, __func__);
}

int dmesh_deserialize(MPI_Comm comm, const char *text, MPI_Info info, dmesh_t *mesh)
{
    int err = dmesh_deserialize_impl(comm, text, info, mesh);

    return dmesh_raise_outcome_on_comm(null_mesh(err, mesh), comm, __func__);
}

/* dmesh_free fails only before it frees anything, on a handle that is
 * NULL, freed or invalid, or that another thread freed first: each is a
 * call tied to no mesh (MPI_COMM_SELF's handler). Nothing of the mesh is
 * read here: another thread freeing a copy of the handle may free it at
 * any moment (reading its universe beforehand, to raise there, read freed
 * memory). */
int dmesh_free(dmesh_t *mesh)
{
    return dmesh_raise_outcome_on_comm(dmesh_free_impl(mesh), MPI_COMM_NULL, __func__);
}

int dmesh_abort(dmesh_t mesh)
{
    return dmesh_raise_outcome_on_mesh(dmesh_abort_impl(mesh), mesh, __func__);
}

int dmesh_slice(dmesh_t mesh, int n, const char *const dim_names[], dmesh_t *submesh)
{
    int err = dmesh_slice_impl(mesh, n, dim_names, submesh);

    return dmesh_raise_outcome_on_mesh(null_mesh(err, submesh), mesh, __func__);
}

int dmesh_flatten(dmesh_t mesh, const char *name, MPI_Info info, dmesh_t *flat)
{
    int err = dmesh_flatten_impl(mesh, name, info, flat);

    return dmesh_raise_outcome_on_mesh(null_mesh(err, flat), mesh, __func__);
}

int dmesh_unflatten(dmesh_t mesh, int dim, int n, const int sizes[], const char *const dim_names[],
                    MPI_Info info, dmesh_t *out)
{
    int err = dmesh_unflatten_impl(mesh, dim, n, sizes, dim_names, info, out);

    return dmesh_raise_outcome_on_mesh(null_mesh(err, out), mesh, __func__);
}

/* On the first mesh's communicator (they share one universe). */
int dmesh_concatenate(int n, const dmesh_t meshes[], dmesh_t *out)
{
    dmesh_t first = n > 0 && meshes != NULL ? meshes[0] : DMESH_NULL;
    int err = dmesh_concatenate_impl(n, meshes, out);

    return dmesh_raise_outcome_on_mesh(null_mesh(err, out), first, __func__);
}

int dmesh_get_ndims(dmesh_t mesh, int *ndims)
{
    return dmesh_raise_outcome_on_mesh(dmesh_get_ndims_impl(mesh, ndims), mesh, __func__);
}

int dmesh_get_shape(dmesh_t mesh, int maxdims, int shape[])
{
    return dmesh_raise_outcome_on_mesh(dmesh_get_shape_impl(mesh, maxdims, shape), mesh, __func__);
}

int dmesh_get_size(dmesh_t mesh, int *size)
{
    return dmesh_raise_outcome_on_mesh(dmesh_get_size_impl(mesh, size), mesh, __func__);
}

int dmesh_get_dim_name(dmesh_t mesh, int dim, const char **name)
{
    return dmesh_raise_outcome_on_mesh(dmesh_get_dim_name_impl(mesh, dim, name), mesh, __func__);
}

int dmesh_get_dim_index(dmesh_t mesh, const char *name, int *dim)
{
    return dmesh_raise_outcome_on_mesh(dmesh_get_dim_index_impl(mesh, name, dim), mesh, __func__);
}

int dmesh_get_device_type(dmesh_t mesh, const char **device_type)
{
    return dmesh_raise_outcome_on_mesh(dmesh_get_device_type_impl(mesh, device_type), mesh,
                                       __func__);
}

/* Hot: the work here, no call when it succeeds (mesh_local.h). */
int dmesh_get_coordinate(dmesh_t mesh, int maxdims, int coords[], int *is_member)
{
    return dmesh_raise_outcome_on_mesh(dmesh_coordinate_inline(mesh, maxdims, coords, is_member),
                                       mesh, __func__);
}

int dmesh_get_local_rank(dmesh_t mesh, int dim, int *rank)
{
    return dmesh_raise_outcome_on_mesh(dmesh_local_rank_inline(mesh, dim, rank), mesh, __func__);
}

int dmesh_get_group_ranks(dmesh_t mesh, int dim, int maxranks, int ranks[], int *nranks)
{
    return dmesh_raise_outcome_on_mesh(
        dmesh_get_group_ranks_impl(mesh, dim, maxranks, ranks, nranks), mesh, __func__);
}

int dmesh_get_ranks(dmesh_t mesh, int maxranks, int ranks[], int *nranks)
{
    return dmesh_raise_outcome_on_mesh(dmesh_get_ranks_impl(mesh, maxranks, ranks, nranks), mesh,
                                       __func__);
}

int dmesh_get_comm(dmesh_t mesh, int dim, MPI_Comm *comm)
{
    int err = dmesh_comm_inline(mesh, dim, comm); /* hot: mesh_local.h */

    return dmesh_raise_outcome_on_mesh(null_comm(err, comm), mesh, __func__);
}

int dmesh_get_device(dmesh_t mesh, int *device)
{
    return dmesh_raise_outcome_on_mesh(dmesh_get_device_impl(mesh, device), mesh, __func__);
}

int dmesh_equal(dmesh_t a, dmesh_t b, int *equal)
{
    return dmesh_raise_outcome_on_mesh(dmesh_equal_impl(a, b, equal), a != DMESH_NULL ? a : b,
                                       __func__);
}

int dmesh_to_string(dmesh_t mesh, char *buf, size_t len, size_t *needed)
{
    return dmesh_raise_outcome_on_mesh(dmesh_to_string_impl(mesh, buf, len, needed), mesh,
                                       __func__);
}

int dmesh_get_cache_info(dmesh_t mesh, dmesh_cache_info_t *info)
{
    return dmesh_raise_outcome_on_mesh(dmesh_get_cache_info_impl(mesh, info), mesh, __func__);
}

int dmesh_push(dmesh_t mesh)
{
    return dmesh_raise_outcome_on_mesh(dmesh_push_impl(mesh), mesh, __func__);
}

int dmesh_pop(dmesh_t *mesh)
{
    int err = dmesh_pop_impl(mesh);

    return dmesh_raise_outcome_on_comm(null_mesh(err, mesh), MPI_COMM_NULL, __func__);
}

int dmesh_get_current(dmesh_t *mesh)
{
    int err = dmesh_get_current_impl(mesh);

    return dmesh_raise_outcome_on_comm(null_mesh(err, mesh), MPI_COMM_NULL, __func__);
}

int dmesh_get_rank_of(dmesh_t mesh, int ndims, const int coords[], int *rank)
{
    return dmesh_raise_outcome_on_mesh(dmesh_get_rank_of_impl(mesh, ndims, coords, rank), mesh,
                                       __func__);
}

int dmesh_get_coordinate_of(dmesh_t mesh, int rank, int maxdims, int coords[], int *is_member)
{
    return dmesh_raise_outcome_on_mesh(
        dmesh_get_coordinate_of_impl(mesh, rank, maxdims, coords, is_member), mesh, __func__);
}

int dmesh_shift(dmesh_t mesh, int dim, int disp, int periodic, int *source, int *dest)
{
    return dmesh_raise_outcome_on_mesh(dmesh_shift_impl(mesh, dim, disp, periodic, source, dest),
                                       mesh, __func__);
}

int dmesh_get_all_groups(dmesh_t mesh, int dim, int maxgroups, int maxranks, int ranks[],
                         int *ngroups, int *size)
{
    return dmesh_raise_outcome_on_mesh(
        dmesh_get_all_groups_impl(mesh, dim, maxgroups, maxranks, ranks, ngroups, size), mesh,
        __func__);
}

int dmesh_get_dim_locality(dmesh_t mesh, int dim, int *kind)
{
    return dmesh_raise_outcome_on_mesh(dmesh_get_dim_locality_impl(mesh, dim, kind), mesh,
                                       __func__);
}

int dmesh_get_cart_comm(dmesh_t mesh, const int periods[], int reorder, MPI_Comm *cart)
{
    int err = dmesh_get_cart_comm_impl(mesh, periods, reorder, cart);

    return dmesh_raise_outcome_on_mesh(null_comm(err, cart), mesh, __func__);
}

int dmesh_get_sub_comm(dmesh_t mesh, const int remain_dims[], MPI_Comm *newcomm)
{
    int err = dmesh_get_sub_comm_impl(mesh, remain_dims, newcomm);

    return dmesh_raise_outcome_on_mesh(null_comm(err, newcomm), mesh, __func__);
}

int dmesh_serialize(dmesh_t mesh, char *buf, size_t len, size_t *needed)
{
    return dmesh_raise_outcome_on_mesh(dmesh_serialize_impl(mesh, buf, len, needed), mesh,
                                       __func__);
}

int dmesh_get_version(int *major, int *minor, int *patch)
{
    return dmesh_raise_outcome_on_comm(dmesh_get_version_impl(major, minor, patch), MPI_COMM_NULL,
                                       __func__);
}

int dmesh_get_build_info(const char **text)
{
    return dmesh_raise_outcome_on_comm(dmesh_get_build_info_impl(text), MPI_COMM_NULL, __func__);
}

int dmesh_revoke(dmesh_t mesh)
{
    return dmesh_raise_outcome_on_mesh(dmesh_revoke_impl(mesh), mesh, __func__);
}

int dmesh_get_failed(dmesh_t mesh, int maxranks, int ranks[], int *nfailed)
{
    return dmesh_raise_outcome_on_mesh(dmesh_get_failed_impl(mesh, maxranks, ranks, nfailed), mesh,
                                       __func__);
}

int dmesh_shrink(dmesh_t mesh, int dim, MPI_Info info, MPI_Comm *survivors, dmesh_t *newmesh)
{
    int err = dmesh_shrink_impl(mesh, dim, info, survivors, newmesh);

    null_comm(err, survivors);
    return dmesh_raise_outcome_on_mesh(null_mesh(err, newmesh), mesh, __func__);
}

int dmesh_respawn(dmesh_t mesh, const char *command, char *const argv[], MPI_Info info,
                  MPI_Comm *newcomm, dmesh_t *newmesh)
{
    int err = dmesh_respawn_impl(mesh, command, argv, info, newcomm, newmesh);

    null_comm(err, newcomm);
    return dmesh_raise_outcome_on_mesh(null_mesh(err, newmesh), mesh, __func__);
}

int dmesh_join(MPI_Info info, int *reason, MPI_Comm *newcomm, dmesh_t *newmesh)
{
    int err = dmesh_join_impl(info, reason, newcomm, newmesh);

    null_comm(err, newcomm);
    return dmesh_raise_outcome_on_comm(null_mesh(err, newmesh), MPI_COMM_NULL, __func__);
}

int dmesh_start(MPI_Comm comm, const char *device_type, int ndims, const int shape[],
                const char *const dim_names[], MPI_Info info, MPI_Comm *newcomm, dmesh_t *mesh)
{
    int err = dmesh_start_impl(comm, device_type, ndims, shape, dim_names, info, newcomm, mesh);

    null_comm(err, newcomm);
    return dmesh_raise_outcome_on_comm(null_mesh(err, mesh), comm, __func__);
}

int dmesh_agree_step(dmesh_t mesh, int *ok)
{
    return dmesh_raise_outcome_on_mesh(dmesh_agree_step_impl(mesh, ok), mesh, __func__);
}

int dmesh_repair(dmesh_t *mesh, MPI_Comm *comm, MPI_Info info, int *version)
{
    int err = dmesh_repair_impl(mesh, comm, info, version);

    return mesh != NULL ? dmesh_raise_outcome_on_mesh(err, *mesh, __func__)
                        : dmesh_raise_outcome_on_comm(err, MPI_COMM_NULL, __func__);
}

int dmesh_grow(dmesh_t mesh, int dim, int n, const char *command, char *const argv[], MPI_Info info,
               MPI_Comm *newcomm, dmesh_t *newmesh)
{
    int err = dmesh_grow_impl(mesh, dim, n, command, argv, info, newcomm, newmesh);

    null_comm(err, newcomm);
    return dmesh_raise_outcome_on_mesh(null_mesh(err, newmesh), mesh, __func__);
}

int dmesh_get_dim_size(dmesh_t mesh, int dim, int *size)
{
    return dmesh_raise_outcome_on_mesh(dmesh_get_dim_size_impl(mesh, dim, size), mesh, __func__);
}

/* The _by_name twins: as their index forms (mesh_by_name.c). */
int dmesh_get_dim_size_by_name(dmesh_t mesh, const char *dim_name, int *size)
{
    return dmesh_raise_outcome_on_mesh(dmesh_get_dim_size_by_name_impl(mesh, dim_name, size), mesh,
                                       __func__);
}

int dmesh_get_local_rank_by_name(dmesh_t mesh, const char *dim_name, int *rank)
{
    return dmesh_raise_outcome_on_mesh(dmesh_get_local_rank_by_name_impl(mesh, dim_name, rank),
                                       mesh, __func__);
}

int dmesh_get_group_ranks_by_name(dmesh_t mesh, const char *dim_name, int maxranks, int ranks[],
                                  int *nranks)
{
    return dmesh_raise_outcome_on_mesh(
        dmesh_get_group_ranks_by_name_impl(mesh, dim_name, maxranks, ranks, nranks), mesh,
        __func__);
}

int dmesh_get_comm_by_name(dmesh_t mesh, const char *dim_name, MPI_Comm *comm)
{
    int err = dmesh_get_comm_by_name_impl(mesh, dim_name, comm);

    return dmesh_raise_outcome_on_mesh(null_comm(err, comm), mesh, __func__);
}

int dmesh_shift_by_name(dmesh_t mesh, const char *dim_name, int disp, int periodic, int *source,
                        int *dest)
{
    return dmesh_raise_outcome_on_mesh(
        dmesh_shift_by_name_impl(mesh, dim_name, disp, periodic, source, dest), mesh, __func__);
}

int dmesh_get_all_groups_by_name(dmesh_t mesh, const char *dim_name, int maxgroups, int maxranks,
                                 int ranks[], int *ngroups, int *size)
{
    return dmesh_raise_outcome_on_mesh(dmesh_get_all_groups_by_name_impl(mesh, dim_name, maxgroups,
                                                                         maxranks, ranks, ngroups,
                                                                         size),
                                       mesh, __func__);
}

int dmesh_get_dim_locality_by_name(dmesh_t mesh, const char *dim_name, int *kind)
{
    return dmesh_raise_outcome_on_mesh(dmesh_get_dim_locality_by_name_impl(mesh, dim_name, kind),
                                       mesh, __func__);
}

int dmesh_unflatten_by_name(dmesh_t mesh, const char *dim_name, int n, const int sizes[],
                            const char *const dim_names[], MPI_Info info, dmesh_t *out)
{
    int err = dmesh_unflatten_by_name_impl(mesh, dim_name, n, sizes, dim_names, info, out);

    return dmesh_raise_outcome_on_mesh(null_mesh(err, out), mesh, __func__);
}

int dmesh_shrink_by_name(dmesh_t mesh, const char *dim_name, MPI_Info info, MPI_Comm *survivors,
                         dmesh_t *newmesh)
{
    int err = dmesh_shrink_by_name_impl(mesh, dim_name, info, survivors, newmesh);

    null_comm(err, survivors);
    return dmesh_raise_outcome_on_mesh(null_mesh(err, newmesh), mesh, __func__);
}

int dmesh_grow_by_name(dmesh_t mesh, const char *dim_name, int n, const char *command,
                       char *const argv[], MPI_Info info, MPI_Comm *newcomm, dmesh_t *newmesh)
{
    int err = dmesh_grow_by_name_impl(mesh, dim_name, n, command, argv, info, newcomm, newmesh);

    null_comm(err, newcomm);
    return dmesh_raise_outcome_on_mesh(null_mesh(err, newmesh), mesh, __func__);
}

/* Calls on copies raise on the handler of the communicator their mesh was
 * made from (copies.h); dmesh_copies_free, and a handle that is not valid,
 * on MPI_COMM_SELF's. That communicator is looked up after the call, and
 * only when it failed. */
static inline int raise_on_copies(int err, dmesh_copies_t copies, const char *fn)
{
    if (err == DMESH_SUCCESS && !dmesh_error_any_rejected())
        return err;
    return dmesh_raise_on_comm(err, dmesh_copies_raise_comm(copies), fn);
}

static int null_copies(int err, dmesh_copies_t *out)
{
    if (err != DMESH_SUCCESS && out != NULL)
        *out = DMESH_COPIES_NULL;
    return err;
}

int dmesh_copies_open(dmesh_t mesh, const char *name, MPI_Info info, dmesh_copies_t *copies)
{
    return dmesh_raise_outcome_on_mesh(
        null_copies(dmesh_copies_open_impl(mesh, name, info, copies), copies), mesh, __func__);
}

int dmesh_copies_add(dmesh_copies_t copies, int id, void *buf, MPI_Count count, MPI_Datatype type)
{
    return raise_on_copies(dmesh_copies_add_impl(copies, id, buf, count, type), copies, __func__);
}

int dmesh_copies_add_sized(dmesh_copies_t copies, int id, void *buf, MPI_Count room,
                           MPI_Count *count, MPI_Datatype type)
{
    return raise_on_copies(dmesh_copies_add_sized_impl(copies, id, buf, room, count, type), copies,
                           __func__);
}

int dmesh_copies_store(dmesh_copies_t copies, int version)
{
    return raise_on_copies(dmesh_copies_store_impl(copies, version), copies, __func__);
}

int dmesh_copies_restore(dmesh_copies_t copies, int *version)
{
    return raise_on_copies(dmesh_copies_restore_impl(copies, version), copies, __func__);
}

int dmesh_copies_get_partners(dmesh_copies_t copies, int maxranks, int ranks[], int *n)
{
    return raise_on_copies(dmesh_copies_get_partners_impl(copies, maxranks, ranks, n), copies,
                           __func__);
}

int dmesh_copies_get_survival(dmesh_copies_t copies, int *kind)
{
    return raise_on_copies(dmesh_copies_get_survival_impl(copies, kind), copies, __func__);
}

int dmesh_copies_free(dmesh_copies_t *copies)
{
    return dmesh_raise_outcome_on_comm(dmesh_copies_free_impl(copies), MPI_COMM_NULL, __func__);
}

const char *dmesh_error_string(int err)
{
    return dmesh_error_string_impl(err);
}

const char *dmesh_last_error(void)
{
    return dmesh_last_error_impl();
}

int dmesh_error_class(int errorcode, int *errorclass)
{
    return dmesh_error_class_impl(errorcode, errorclass);
}
