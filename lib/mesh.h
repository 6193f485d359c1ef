/* SPDX-License-Identifier: BSD-3-Clause */
/* Mesh objects: a layout (one canonical axis per dimension), names, and the
 * cache entries of the axes, in a universe. */
#ifndef DMESH_MESH_H
#define DMESH_MESH_H

#include "dmesh.h"
#include "dmesh_layout.h"
#include "universe.h"

struct dmesh_s {
    dmesh_universe_t *u;
    dmesh_layout_t layout;
    char names[DMESH_MAX_DIMS][DMESH_MAX_NAME];
    int named;
    int is_root;
    dmesh_comm_entry_t *entry[DMESH_MAX_DIMS];
};

/* The NCCL communicator of dim (as void *), created first when the universe
 * defers NCCL creation (collective over that dim's group then). */
int dmesh_mesh_get_nccl(dmesh_t mesh, int dim, void **nccl);

/* Validate a mesh handle and, unless dim is DMESH_ANY_DIM, a dimension index
 * of it. dim is wider than int so that no int a user passes (INT_MIN
 * included) is taken for the sentinel. */
#define DMESH_ANY_DIM (-9223372036854775807LL - 1)
int dmesh_mesh_check(dmesh_t mesh, long long dim, const char *func);

/* A new mesh object sharing u (takes one reference on u). */
int dmesh_mesh_alloc(dmesh_universe_t *u, dmesh_t *out);

#endif /* DMESH_MESH_H */
