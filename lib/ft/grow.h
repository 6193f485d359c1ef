/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): growing a mesh with new processes (grow.c):
 * what the library calls besides the entry point's implementation. */
#ifndef DMESH_FT_GROW_H
#define DMESH_FT_GROW_H

#include <mpi.h>

#include "dmesh.h"

/* dmesh_grow, and dmesh_grow_by_name when name_fn (that call's name) is
 * not NULL: then the dimension is dim_name, resolved where a bad index
 * fails, so that a name that fails is agreed as a bad index is. */
int dmesh_grow_named(dmesh_t mesh, int dim, const char *name_fn, const char *dim_name, int n,
                     const char *command, char *const argv[], MPI_Info info, MPI_Comm *newcomm,
                     dmesh_t *newmesh);

#endif /* DMESH_FT_GROW_H */
