/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): the pure part of dmesh_grow (grow.c,
 * grow_plan.c): the mesh it makes. No MPI call here, so that it is tested
 * alone. */
#ifndef DMESH_FT_GROW_PLAN_H
#define DMESH_FT_GROW_PLAN_H

#include "serialize_text.h"

/* dmesh_grow's mesh: s (a root mesh's saved form, rank map over ranks of a
 * communicator of size) with n more indices of dim; the new positions get
 * ranks size, size + 1, ... in row-major order, the old ones keep theirs;
 * the names registered by dmesh_flatten go. *nnewcomers: how many new ranks.
 * DMESH_ERR_ARG for a mesh that is not a root, DMESH_ERR_SIZE when the
 * size overflows. */
int dmesh_grow_plan(dmesh_saved_t *s, int dim, int n, int size, int *nnewcomers);

#endif /* DMESH_FT_GROW_PLAN_H */
