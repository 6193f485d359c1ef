/* SPDX-License-Identifier: BSD-3-Clause */
/* Mesh objects: handles, their checks and destruction, and the argument
 * checks that root creation (mesh_root.c) and derived meshes
 * (mesh_derived.c) share. Nothing here is collective. */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "error.h"
#include "fault.h"
#include "handle.h"
#include "mesh.h"
#include "universe_comms.h"

/* dmesh_mesh_get's failure: its detail. */
int dmesh_mesh_get_failed(dmesh_t mesh, long long dim, const char *func)
{
    struct dmesh_mesh *x = dmesh_handle_mesh(mesh);

    if (x == NULL)
        return mesh == DMESH_NULL
                   ? dmesh_error_set(DMESH_ERR_ARG, "%s: mesh is DMESH_NULL", func)
                   : dmesh_error_set(DMESH_ERR_ARG, "%s: freed or invalid mesh handle", func);
    return dmesh_error_set(DMESH_ERR_ARG, "%s: dim %lld out of range [0, %d)", func, dim, x->ndims);
}

int dmesh_mesh_new(dmesh_universe_t *u, int ndims, int named, int is_root, const dmesh_dim_t dims[],
                   const char *made_by, dmesh_t *out)
{
    struct dmesh_mesh *m = DMESH_FAULT_MALLOC(sizeof(*m) + (size_t)ndims * sizeof(m->dim[0]));
    int err;

    if (m == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "mesh handle: out of memory");
    err = dmesh_handle_new(m, made_by, &m->handle);
    if (err != DMESH_SUCCESS) {
        free(m);
        return err;
    }
    m->u = u;
    m->ndims = ndims;
    m->named = named;
    m->is_root = is_root;
    memcpy(m->dim, dims, (size_t)ndims * sizeof(m->dim[0]));
    dmesh_universe_retain(u);
    *out = m->handle;
    return DMESH_SUCCESS;
}

int dmesh_dims_concat(int n, const dmesh_dim_t dim[], dmesh_axis_t *all)
{
    all->natoms = 0;
    for (int d = 0; d < n; d++) {
        const dmesh_axis_t *x = &dim[d].entry->axis;
        if (all->natoms + x->natoms > DMESH_LAYOUT_MAX_ATOMS)
            return dmesh_error_set(DMESH_ERR_SIZE, "more than %d atoms in all axes",
                                   DMESH_LAYOUT_MAX_ATOMS);
        memcpy(&all->atoms[all->natoms], x->atoms, (size_t)x->natoms * sizeof(x->atoms[0]));
        all->natoms += x->natoms;
    }
    return DMESH_SUCCESS;
}

int dmesh_mesh_concat(const struct dmesh_mesh *m, dmesh_axis_t *all)
{
    return dmesh_dims_concat(m->ndims, m->dim, all);
}

int dmesh_check_shape(const char *fn, int ndims, const int shape[], int size, int *n)
{
    long long p = 1;
    int i;

    if (ndims < 1 || ndims > DMESH_MAX_DIMS)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: ndims %d out of range [1, %d]", fn, ndims,
                               DMESH_MAX_DIMS);
    if (shape == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: shape is NULL", fn);
    for (i = 0; i < ndims; i++) {
        if (shape[i] < 1)
            return dmesh_error_set(DMESH_ERR_ARG, "%s: shape[%d] = %d: sizes must be >= 1", fn, i,
                                   shape[i]);
        p *= shape[i];
        if (p > INT_MAX)
            return dmesh_error_set(DMESH_ERR_SIZE, "%s: mesh shape product exceeds INT_MAX", fn);
    }
    if (p > size)
        return dmesh_error_set(DMESH_ERR_SIZE,
                               "%s: mesh shape product %lld exceeds communicator size %d", fn, p,
                               size);
    *n = (int)p;
    return DMESH_SUCCESS;
}

int dmesh_check_backends(int ndims, int cuda, const dmesh_options_t *o)
{
    int d;

    for (d = 0; d < ndims; d++)
        DMESH_TRY(dmesh_backend_check(o->axis[d].backend, cuda, "dim %d", d));
    return DMESH_SUCCESS;
}

int dmesh_free_impl(dmesh_t *mesh)
{
    struct dmesh_mesh *m;

    DMESH_CHECK_PTR_OF("dmesh_free", mesh);
    if (*mesh == DMESH_NULL)
        return DMESH_SUCCESS;
    DMESH_TRY(dmesh_mesh_get(*mesh, DMESH_ANY_DIM, "dmesh_free", &m));
    /* of two threads freeing copies of one handle, one frees the mesh; m
     * is not read before that is settled (the other may have freed it:
     * the handle is the caller's copy, not m->handle) */
    if (!dmesh_handle_end(*mesh))
        return dmesh_error_set(DMESH_ERR_ARG, "dmesh_free: freed or invalid mesh handle (another "
                                              "thread freed it)");
    dmesh_universe_release(m->u);
    free(m);
    *mesh = DMESH_NULL;
    return DMESH_SUCCESS;
}

int dmesh_abort_impl(dmesh_t mesh)
{
    struct dmesh_mesh *m;

    DMESH_TRY(dmesh_mesh_get(mesh, DMESH_ANY_DIM, "dmesh_abort", &m));
    return dmesh_universe_abort(m->u);
}
