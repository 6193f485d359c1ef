/* SPDX-License-Identifier: BSD-3-Clause */
/* The saved form of a mesh (dmesh_serialize / dmesh_deserialize): what the
 * text holds, its printer and its parser. serialize_text.c is pure (no MPI
 * call), so that the parser can be fuzzed on its own. */
#ifndef DMESH_SERIALIZE_TEXT_H
#define DMESH_SERIALIZE_TEXT_H

#include <stddef.h>

#include "dmesh_layout.h"
#include "options.h"

#define DMESH_SAVED_VERSION 1

/* One dimension: of the root mesh, of the mesh, or a name registered by
 * dmesh_flatten (opts unused for root dimensions). */
typedef struct {
    char name[DMESH_MAX_NAME]; /* "" when unnamed */
    dmesh_axis_t axis;         /* canonical */
    dmesh_axis_options_t opts;
} dmesh_saved_dim_t;

typedef struct {
    int cuda;
    int n;         /* rank map size */
    int *rank_map; /* n ranks, NULL for the identity */
    int nroot, root_named;
    dmesh_saved_dim_t root[DMESH_MAX_DIMS];
    int nflat;
    dmesh_saved_dim_t *flat;
    int ndims, named, is_root;
    dmesh_saved_dim_t dims[DMESH_MAX_DIMS];
} dmesh_saved_t;

/* The text of s, with snprintf rules (needed may be NULL). */
void dmesh_saved_print(const dmesh_saved_t *s, char *buf, size_t len, size_t *needed);

/* Parse and check a text: on success *s owns its arrays (dmesh_saved_free);
 * on failure DMESH_ERR_ARG (or DMESH_ERR_NOMEM) with the line, column and
 * byte offset of the error in dmesh_last_error(), and *s holds nothing. */
int dmesh_saved_parse(const char *text, dmesh_saved_t *s);

void dmesh_saved_free(dmesh_saved_t *s);

#endif /* DMESH_SERIALIZE_TEXT_H */
