/* SPDX-License-Identifier: BSD-3-Clause */
/* Queries on meshes: local arithmetic on the layout and the rank map, no
 * communication. Also value equality, the text form, and the per-thread
 * current-mesh stack. */
#include "config.h"

#include "api_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_dim.h"
#include "error.h"
#include "mesh.h"
#include "mesh_local.h"
#include "text.h"
#include "universe_comms.h"

#define DMESH_STACK_DEPTH 64

static _Thread_local dmesh_t stack[DMESH_STACK_DEPTH];
static _Thread_local int stack_top;

int dmesh_get_ndims_impl(dmesh_t handle, int *ndims)
{
    struct dmesh_mesh *mesh;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_get_ndims", &mesh));
    DMESH_CHECK_PTR_OF("dmesh_get_ndims", ndims);
    *ndims = mesh->ndims;
    return DMESH_SUCCESS;
}

int dmesh_get_shape_impl(dmesh_t handle, int maxdims, int shape[])
{
    struct dmesh_mesh *mesh;
    int d;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_get_shape", &mesh));
    DMESH_CHECK_PTR_OF("dmesh_get_shape", shape);
    if (maxdims < mesh->ndims)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: maxdims %d < ndims %d", "dmesh_get_shape",
                               maxdims, mesh->ndims);
    for (d = 0; d < mesh->ndims; d++)
        DMESH_TRY(dmesh_axis_numel_impl(dmesh_mesh_axis(mesh, d), &shape[d]));
    return DMESH_SUCCESS;
}

int dmesh_get_size_impl(dmesh_t handle, int *size)
{
    struct dmesh_mesh *mesh;
    dmesh_axis_t all;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_get_size", &mesh));
    DMESH_CHECK_PTR_OF("dmesh_get_size", size);
    DMESH_TRY(dmesh_mesh_concat(mesh, &all));
    return dmesh_axis_numel_impl(&all, size);
}

int dmesh_get_dim_name_impl(dmesh_t handle, int dim, const char **name)
{
    struct dmesh_mesh *mesh;

    DMESH_TRY(dmesh_mesh_get(handle, dim, "dmesh_get_dim_name", &mesh));
    DMESH_CHECK_PTR_OF("dmesh_get_dim_name", name);
    *name = mesh->named ? dmesh_mesh_name(mesh, dim) : NULL;
    return DMESH_SUCCESS;
}

int dmesh_get_dim_index_impl(dmesh_t handle, const char *name, int *dim)
{
    struct dmesh_mesh *mesh;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_get_dim_index", &mesh));
    DMESH_CHECK_PTR_OF("dmesh_get_dim_index", name);
    DMESH_CHECK_PTR_OF("dmesh_get_dim_index", dim);
    return dmesh_mesh_dim_by_name(mesh, name, "dmesh_get_dim_index", dim);
}

int dmesh_get_dim_size_impl(dmesh_t handle, int dim, int *size)
{
    struct dmesh_mesh *mesh;

    DMESH_TRY(dmesh_mesh_get(handle, dim, "dmesh_get_dim_size", &mesh));
    DMESH_CHECK_PTR_OF("dmesh_get_dim_size", size);
    return dmesh_axis_numel_impl(dmesh_mesh_axis(mesh, dim), size);
}

int dmesh_get_device_type_impl(dmesh_t handle, const char **device_type)
{
    struct dmesh_mesh *mesh;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_get_device_type", &mesh));
    DMESH_CHECK_PTR_OF("dmesh_get_device_type", device_type);
    *device_type = dmesh_universe_cuda(mesh->u) ? "cuda" : "cpu";
    return DMESH_SUCCESS;
}

static int not_member(const char *func)
{
    return dmesh_error_set(DMESH_ERR_NOT_MEMBER, "%s: the calling rank is not in the mesh", func);
}

int dmesh_get_coordinate_impl(dmesh_t handle, int maxdims, int coords[], int *is_member)
{
    return dmesh_coordinate_inline(handle, maxdims, coords, is_member);
}

int dmesh_get_local_rank_impl(dmesh_t handle, int dim, int *rank)
{
    return dmesh_local_rank_inline(handle, dim, rank);
}

/* Ranks of the copy of atoms that contains index; outputs only on success. */
static int copy_of(const dmesh_universe_t *u, const dmesh_axis_t *atoms, int index, int max,
                   int ranks[], int *nranks)
{
    int count;

    DMESH_CHECK_PTR(ranks);
    DMESH_CHECK_PTR(nranks);
    DMESH_TRY(dmesh_axis_numel_impl(atoms, &count));
    if (max < count)
        return dmesh_error_set(DMESH_ERR_ARG, "capacity %d is less than the %d ranks", max, count);
    DMESH_TRY(dmesh_axis_group_of_impl(atoms, dmesh_universe_nranks(u), dmesh_universe_rank_map(u),
                                       index, max, ranks, &count));
    *nranks = count;
    return DMESH_SUCCESS;
}

int dmesh_get_group_ranks_impl(dmesh_t handle, int dim, int maxranks, int ranks[], int *nranks)
{
    struct dmesh_mesh *mesh;

    DMESH_TRY(dmesh_mesh_get(handle, dim, "dmesh_get_group_ranks", &mesh));
    if (dmesh_universe_my_index(mesh->u) < 0)
        return not_member("dmesh_get_group_ranks");
    return copy_of(mesh->u, dmesh_mesh_axis(mesh, dim), dmesh_universe_my_index(mesh->u), maxranks,
                   ranks, nranks);
}

int dmesh_get_ranks_impl(dmesh_t handle, int maxranks, int ranks[], int *nranks)
{
    struct dmesh_mesh *mesh;
    dmesh_axis_t all;
    int size, index;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_get_ranks", &mesh));
    DMESH_TRY(dmesh_mesh_concat(mesh, &all));
    DMESH_TRY(dmesh_axis_numel_impl(&all, &size));
    index = dmesh_universe_my_index(mesh->u);
    /* a non-member sees the only copy, if there is one */
    if (index < 0 && (size != dmesh_universe_nranks(mesh->u) || dmesh_universe_local_map(mesh->u)))
        return not_member("dmesh_get_ranks");
    return copy_of(mesh->u, &all, index < 0 ? 0 : index, maxranks, ranks, nranks);
}

int dmesh_get_comm_impl(dmesh_t handle, int dim, MPI_Comm *comm)
{
    return dmesh_comm_inline(handle, dim, comm);
}

int dmesh_get_device_impl(dmesh_t handle, int *device)
{
    struct dmesh_mesh *mesh;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_get_device", &mesh));
    DMESH_CHECK_PTR_OF("dmesh_get_device", device);
    *device = dmesh_universe_device(mesh->u);
    return DMESH_SUCCESS;
}

int dmesh_get_cache_info_impl(dmesh_t handle, dmesh_cache_info_t *info)
{
    struct dmesh_mesh *mesh;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_get_cache_info", &mesh));
    DMESH_CHECK_PTR_OF("dmesh_get_cache_info", info);
    dmesh_universe_cache_info(mesh->u, info);
    return DMESH_SUCCESS;
}

/* Same ranks of the same communicator: universes made on one user
 * communicator share its private duplicate (no MPI call: queries stay
 * MPI-free, so any thread may make them at any thread level). */
static int same_ranks(const dmesh_universe_t *a, const dmesh_universe_t *b)
{
    int i;

    if (a->n != b->n || a->pcomm != b->pcomm)
        return 0;
    for (i = 0; i < a->n; i++)
        if (dmesh_universe_rank_at(a, i) != dmesh_universe_rank_at(b, i))
            return 0;
    return 1;
}

int dmesh_equal_impl(dmesh_t a_handle, dmesh_t b_handle, int *equal)
{
    struct dmesh_mesh *b;
    struct dmesh_mesh *a;
    int d, eq;

    DMESH_TRY(dmesh_mesh_get(a_handle, DMESH_ANY_DIM, "dmesh_equal", &a));
    DMESH_TRY(dmesh_mesh_get(b_handle, DMESH_ANY_DIM, "dmesh_equal", &b));
    DMESH_CHECK_PTR_OF("dmesh_equal", equal);
    eq = dmesh_universe_cuda(a->u) == dmesh_universe_cuda(b->u) && a->named == b->named &&
         a->ndims == b->ndims;
    for (d = 0; eq && d < a->ndims; d++)
        eq = dmesh_axis_equal_impl(dmesh_mesh_axis(a, d), dmesh_mesh_axis(b, d)) &&
             (!a->named || strcmp(dmesh_mesh_name(a, d), dmesh_mesh_name(b, d)) == 0);
    *equal = eq && (a->u == b->u || same_ranks(a->u, b->u));
    return DMESH_SUCCESS;
}

/* The mesh tensor as nested brackets, or "?" when this rank cannot see it. */
static void put_ranks(dmesh_text_t *t, const struct dmesh_mesh *m, const int shape[])
{
    int size, n, i, d, *ranks;

    if (dmesh_get_size_impl(m->handle, &size) != DMESH_SUCCESS ||
        (ranks = malloc((size_t)size * sizeof(int))) == NULL)
        return;
    if (dmesh_get_ranks_impl(m->handle, size, ranks, &n) != DMESH_SUCCESS) {
        dmesh_text_put(t, "?");
        free(ranks);
        return;
    }
    for (i = 0; i < n; i++) {
        int span = 1, opens = 0, closes = 0;
        for (d = m->ndims - 1; d >= 0; d--) {
            span *= shape[d];
            opens += i % span == 0;
            closes += (i + 1) % span == 0;
        }
        dmesh_text_put(t, "%s%.*s%d%.*s", i ? ", " : "", opens, "[[[[[[[[[[[[[[[[", ranks[i],
                       closes, "]]]]]]]]]]]]]]]]");
    }
    free(ranks);
}

int dmesh_to_string_impl(dmesh_t handle, char *buf, size_t len, size_t *needed)
{
    struct dmesh_mesh *mesh;
    dmesh_text_t t = {buf, len, 0};
    int shape[DMESH_MAX_DIMS], d;
    char axis[256];

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_to_string", &mesh));
    if (buf == NULL && len > 0)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: buf is NULL with len %zu", "dmesh_to_string",
                               len);
    DMESH_TRY(dmesh_get_shape_impl(handle, DMESH_MAX_DIMS, shape));
    dmesh_text_put(&t, "DeviceMesh(%s, (", dmesh_universe_cuda(mesh->u) ? "cuda" : "cpu");
    for (d = 0; d < mesh->ndims; d++)
        dmesh_text_put(&t, "%s%s%s%d", d ? ", " : "", mesh->named ? dmesh_mesh_name(mesh, d) : "",
                       mesh->named ? "=" : "", shape[d]);
    dmesh_text_put(&t, "), layout (");
    for (d = 0; d < mesh->ndims; d++) {
        dmesh_axis_to_string_impl(dmesh_mesh_axis(mesh, d), axis, sizeof(axis), NULL);
        dmesh_text_put(&t, "%s%s", d ? ", " : "", axis);
    }
    dmesh_text_put(&t, "), mesh ");
    put_ranks(&t, mesh, shape);
    /* where the nodes are known and are not the MPI's split (node_find.h) */
    if (dmesh_universe_nodes_by_host(mesh->u))
        dmesh_text_put(&t, ", nodes by host identity");
    dmesh_text_put(&t, ")");
    dmesh_text_finish(&t, needed);
    return DMESH_SUCCESS;
}

int dmesh_push_impl(dmesh_t handle)
{
    struct dmesh_mesh *mesh;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_push", &mesh));
    if (stack_top == DMESH_STACK_DEPTH)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: current-mesh stack is full (%d)", "dmesh_push",
                               DMESH_STACK_DEPTH);
    stack[stack_top++] = handle;
    return DMESH_SUCCESS;
}

int dmesh_pop_impl(dmesh_t *mesh)
{
    if (stack_top == 0)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: current-mesh stack is empty", "dmesh_pop");
    stack_top--;
    if (mesh != NULL)
        *mesh = stack[stack_top];
    return DMESH_SUCCESS;
}

int dmesh_get_current_impl(dmesh_t *mesh)
{
    DMESH_CHECK_PTR_OF("dmesh_get_current", mesh);
    *mesh = stack_top > 0 ? stack[stack_top - 1] : DMESH_NULL;
    return DMESH_SUCCESS;
}
