/* SPDX-License-Identifier: BSD-3-Clause */
/* Dimensions by name on a mesh (mesh_dim.h): the mesh's names handed to
 * dim_name.c's rules, so that the rules themselves stay below the meshes
 * (options.c uses them). */
#include "config.h"

#include "api_impl.h"

#include "dim_name.h"
#include "error.h"
#include "mesh.h"
#include "mesh_dim.h"

/* The names of m, or NULL for an unnamed mesh, into names[]. */
static const char *const *mesh_names(const struct dmesh_mesh *m, const char *names[DMESH_MAX_DIMS])
{
    int n = dmesh_mesh_ndims(m);

    for (int d = 0; d < n; d++)
        names[d] = dmesh_mesh_name(m, d);
    return n > 0 && names[0] != NULL ? names : NULL;
}

int dmesh_mesh_dim_find(const struct dmesh_mesh *m, const char *name)
{
    const char *names[DMESH_MAX_DIMS];

    return dmesh_dim_find(dmesh_mesh_ndims(m), mesh_names(m, names), name);
}

int dmesh_mesh_dim_by_name(const struct dmesh_mesh *m, const char *name, const char *fn, int *dim)
{
    const char *names[DMESH_MAX_DIMS];

    return dmesh_dim_by_name(dmesh_mesh_ndims(m), mesh_names(m, names), name, fn, dim);
}

int dmesh_handle_dim_of_option(dmesh_t mesh, const char *key, const char *value, int *dim)
{
    const char *names[DMESH_MAX_DIMS];
    struct dmesh_mesh *m;

    DMESH_TRY(dmesh_mesh_get(mesh, DMESH_ANY_DIM, key, &m));
    return dmesh_dim_of_option(dmesh_mesh_ndims(m), mesh_names(m, names), key, value, dim, NULL);
}
