/* SPDX-License-Identifier: BSD-3-Clause */
/* Mesh objects: one small header plus one record per dimension, sized by
 * the number of dimensions. A record points at the cache entry of its axis
 * (which owns the canonical axis and the communicators) and at its name,
 * interned in the universe.
 *
 * This is also the one internal header that tools (dmesh-bench) may
 * include: it brings the universe (universe.h) and the cache (cache.h).
 * Code outside mesh*.c and serialize.c reads a mesh through the accessors
 * below, never through the record layout. */
#ifndef DMESH_MESH_H
#define DMESH_MESH_H

#include "dmesh.h"
#include "dmesh_layout.h"
#include "handle.h"
#include "universe.h"

/* One dimension of a mesh. */
typedef struct {
    dmesh_comm_entry_t *entry; /* its communicators; entry->axis is the axis */
    const char *name;          /* interned in the universe; NULL when unnamed */
} dmesh_dim_t;

/* A mesh; programs hold it through its handle (handle.h), the library
 * through dmesh_mesh_get. */
struct dmesh_mesh {
    dmesh_t handle; /* of this mesh */
    dmesh_universe_t *u;
    int ndims;
    int named;
    int is_root;
    dmesh_dim_t dim[]; /* ndims records */
};

static inline int dmesh_mesh_ndims(const struct dmesh_mesh *m)
{
    return m->ndims;
}

static inline const dmesh_axis_t *dmesh_mesh_axis(const struct dmesh_mesh *m, int d)
{
    return &m->dim[d].entry->axis;
}

static inline dmesh_comm_entry_t *dmesh_mesh_entry(const struct dmesh_mesh *m, int d)
{
    return m->dim[d].entry;
}

/* The name of dim d, NULL when the mesh is unnamed. */
static inline const char *dmesh_mesh_name(const struct dmesh_mesh *m, int d)
{
    return m->dim[d].name;
}

/* The axes of all dims joined, outermost first; of n dims. */
int dmesh_mesh_concat(const struct dmesh_mesh *m, dmesh_axis_t *all);
int dmesh_dims_concat(int n, const dmesh_dim_t dim[], dmesh_axis_t *all);

/* Argument checks that root creation and derived meshes share (fn: the
 * call, the prefix of the details): ndims sizes
 * >= 1 whose product fits an int and the communicator's size (*n: the
 * product); the backend of each of ndims axes built in and usable with the
 * device type. */
int dmesh_check_shape(const char *fn, int ndims, const int shape[], int size, int *n);
int dmesh_check_backends(int ndims, int cuda, const dmesh_options_t *o);

/* Local: a new mesh handle of ndims dims in u (takes one reference on u),
 * made by the public call made_by (a string literal); names in dims must be
 * interned in u (dmesh_universe_intern). */
int dmesh_mesh_new(dmesh_universe_t *u, int ndims, int named, int is_root, const dmesh_dim_t dims[],
                   const char *made_by, dmesh_t *out);

/* Validate a mesh handle and, unless dim is DMESH_ANY_DIM, a dimension index
 * of it; *m: the mesh. A freed handle, a copy of one and a value that was
 * never a handle are DMESH_ERR_ARG "freed or invalid mesh handle", found
 * without reading the memory of any mesh. dim is wider than int so that no
 * int a user passes (INT_MIN included) is taken for the sentinel. */
#define DMESH_ANY_DIM (-9223372036854775807LL - 1)
int dmesh_mesh_get_failed(dmesh_t mesh, long long dim, const char *func);
static inline int dmesh_mesh_get(dmesh_t mesh, long long dim, const char *func,
                                 struct dmesh_mesh **m)
{
    struct dmesh_mesh *x = dmesh_handle_mesh(mesh);

    /* the success path inline: no call (the detail of a failure is one) */
    if (x == NULL || (dim != DMESH_ANY_DIM && (dim < 0 || dim >= x->ndims))) {
        dmesh_mesh_get_failed(mesh, dim, func);
        return DMESH_ERR_ARG;
    }
    *m = x;
    return DMESH_SUCCESS;
}

#endif /* DMESH_MESH_H */
