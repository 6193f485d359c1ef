/* SPDX-License-Identifier: BSD-3-Clause */
/* Root meshes (mesh_root.c): what the library calls besides the entry
 * points' implementations. */
#ifndef DMESH_MESH_ROOT_H
#define DMESH_MESH_ROOT_H

#include <mpi.h>

#include "dmesh.h"
#include "universe.h"

/* dmesh_create for dmesh_shrink: the new universe comes from source
 * (universe.h; NULL: none) while it is made, so that a backend may make its
 * communicator over the whole mesh from the old universe's. */
int dmesh_create_shrunk(MPI_Comm comm, const char *device_type, int ndims, const int shape[],
                        const int ranks[], const char *const dim_names[], MPI_Info info,
                        const dmesh_shrink_source_t *source, dmesh_t *mesh);

#endif /* DMESH_MESH_ROOT_H */
