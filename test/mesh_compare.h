/* SPDX-License-Identifier: BSD-3-Clause */
/* Two meshes compared as a program sees them: for meshes made by two calls
 * that each make a communicator of their own (two shrinks, two grows), which
 * dmesh_equal, asking for one communicator, always calls different. */
#ifndef DMESH_TEST_MESH_COMPARE_H
#define DMESH_TEST_MESH_COMPARE_H

#include <stddef.h>

#include "dmesh.h"

/* 0 when a and b, made on communicators of the same processes in the same
 * order, are the same mesh to the caller: shape, dimension names, the
 * caller's membership and coordinate, and along each dimension the ranks
 * of its group; else 1 and what differs first, in why[len]. Local. */
int mesh_compare(dmesh_t a, dmesh_t b, char *why, size_t len);

#endif
