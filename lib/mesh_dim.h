/* SPDX-License-Identifier: BSD-3-Clause */
/* Dimensions by name on a mesh (mesh_dim.c): dim_name.h's rules with the
 * names of a mesh, read through mesh.h's accessors. */
#ifndef DMESH_MESH_DIM_H
#define DMESH_MESH_DIM_H

#include "dmesh.h"

struct dmesh_mesh;

/* dmesh_dim_find on a mesh. */
int dmesh_mesh_dim_find(const struct dmesh_mesh *m, const char *name);

/* dmesh_dim_by_name on a mesh. */
int dmesh_mesh_dim_by_name(const struct dmesh_mesh *m, const char *name, const char *fn, int *dim);

/* dmesh_dim_of_option on the mesh of a handle (DMESH_ERR_ARG for a handle
 * that is not valid). */
int dmesh_handle_dim_of_option(dmesh_t mesh, const char *key, const char *value, int *dim);

#endif /* DMESH_MESH_DIM_H */
