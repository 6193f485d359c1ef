/* SPDX-License-Identifier: BSD-3-Clause */
/* Derived meshes (mesh_derived.c): what the library calls besides the
 * entry points' implementations. */
#ifndef DMESH_MESH_DERIVED_H
#define DMESH_MESH_DERIVED_H

#include <mpi.h>

#include "dmesh.h"

/* dmesh_unflatten, and dmesh_unflatten_by_name when name_fn (that call's
 * name) is not NULL: then the dimension is dim_name, resolved where a bad
 * index fails, so that a name that fails is agreed as a bad index is. */
int dmesh_unflatten_named(dmesh_t mesh, int dim, const char *name_fn, const char *dim_name, int n,
                          const int sizes[], const char *const dim_names[], MPI_Info info,
                          dmesh_t *out);

#endif /* DMESH_MESH_DERIVED_H */
