/* SPDX-License-Identifier: BSD-3-Clause */
/* Dimensions by name: the one place where the library turns a dimension's
 * name, or an option's value that names a dimension, into its index. The
 * _by_name calls (mesh_by_name.c) and every option that names a dimension
 * (dmesh_backend.<dim>, the backends' per-axis keys, dmesh_copies_dim)
 * resolve through it, so that one rule holds everywhere. Pure (no mesh):
 * the same on a mesh is mesh_dim.c's (mesh_dim.h). */
#ifndef DMESH_DIM_NAME_H
#define DMESH_DIM_NAME_H

#include <stddef.h>

#include "dmesh.h"

/* The index of the dimension called name among ndims names (names NULL:
 * an unnamed mesh), or -1. */
int dmesh_dim_find(int ndims, const char *const names[], const char *name);

/* The names of a mesh for a detail, "dp, cp, tp" ("3 unnamed dimensions"
 * for an unnamed mesh), cut to fit len. */
void dmesh_dim_names_text(int ndims, const char *const names[], char *buf, size_t len);

/* The dimension called name, for the public call fn (the prefix of the
 * details): DMESH_ERR_ARG for a NULL name, DMESH_ERR_NAME with a detail
 * that names it and the mesh's names for a name the mesh lacks. */
int dmesh_dim_by_name(int ndims, const char *const names[], const char *name, const char *fn,
                      int *dim);

/* The dimension an option's value names (key: the option, for the detail):
 * a value that is exactly a dimension's name is that dimension (so that a
 * dimension called "1" or "2d" is found by its name), otherwise a decimal
 * index in [0, ndims); anything else is DMESH_ERR_ARG, a bad option value,
 * with a detail naming the value and the mesh's names. *by_name: which of
 * the two forms it was (NULL: not wanted). */
int dmesh_dim_of_option(int ndims, const char *const names[], const char *key, const char *value,
                        int *dim, int *by_name);

#endif /* DMESH_DIM_NAME_H */
