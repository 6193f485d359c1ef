/* SPDX-License-Identifier: BSD-3-Clause */
/* What the ranks of a collective creation call must have in common, as the
 * one hash that the call's agreement compares (agree.h). Every creation
 * path (root meshes, derived meshes, dmesh_deserialize, the Cartesian
 * communicator) builds its hash here, so that the check flag and the
 * options are hashed in one place and the same way everywhere.
 *
 * With the check off (dmesh_check=false) only the outcome of the call is
 * agreed: the hash is the constant 0 whatever is added. A rank that checks
 * and one that does not therefore differ, and the call fails with
 * DMESH_ERR_MISMATCH on every rank instead of pairing different
 * collectives. */
#ifndef DMESH_REQUEST_H
#define DMESH_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "mesh.h"
#include "options.h"

#define DMESH_REQUEST_PARTS 12 /* arguments told apart in a mismatch's detail */
#define DMESH_REQUEST_TEXT 64  /* the short text of one argument's value */

#define DMESH_REQUEST_LONG 16384 /* the bytes of a long value compared in a mismatch */

/* How a long value is compared when its argument differs: an array of
 * ints (the first differing position), a text (the first differing line). */
enum { DMESH_REQUEST_NONE, DMESH_REQUEST_INTS, DMESH_REQUEST_LINES };

/* One argument of the call: its name, its own hash, its value in short,
 * and its whole value when the short one cannot tell (kind, data, len). */
typedef struct {
    const char *what;
    uint64_t h;
    char text[DMESH_REQUEST_TEXT];
    int kind;
    const void *data;
    size_t len;
} dmesh_request_part_t;

typedef struct {
    uint64_t h;
    int check;
    int nparts;
    dmesh_request_part_t part[DMESH_REQUEST_PARTS];
} dmesh_request_t;

/* A request of the call fn, with the check on or off. */
void dmesh_request_begin(dmesh_request_t *r, const char *fn, int check);

/* Add n bytes, a string (with its end), an axis, a layout, names (NULL:
 * unnamed), the axes and names of n dims. */
void dmesh_request_bytes(dmesh_request_t *r, const void *p, size_t n);
void dmesh_request_string(dmesh_request_t *r, const char *s);
void dmesh_request_axis(dmesh_request_t *r, const dmesh_axis_t *a);
void dmesh_request_layout(dmesh_request_t *r, const dmesh_layout_t *l);
void dmesh_request_names(dmesh_request_t *r, int n, const char *const names[]);
void dmesh_request_dims(dmesh_request_t *r, int n, int named, const dmesh_dim_t dim[]);

/* Add the options every rank must share, those of the call and those of
 * ndims new axes; not the device (a wrapper may force one per rank), not
 * the debug flag. */
void dmesh_request_options(dmesh_request_t *r, int ndims, const dmesh_options_t *o);

/* Start the argument what ("shape", "names", ...): what is added next
 * belongs to it too; fmt (printf) gives its value in short ("" for none). */
void dmesh_request_part(dmesh_request_t *r, const char *what, const char *fmt, ...)
    DMESH_PRINTF(3, 4);

/* The whole value of the argument started last, for the detail of a
 * mismatch only (not hashed: add it as well); data must live until the
 * call's agreement and its explanation are over. */
void dmesh_request_long(dmesh_request_t *r, int kind, const void *data, size_t len);

/* The hash to agree on: 0 when the check is off. */
uint64_t dmesh_request_hash(const dmesh_request_t *r);

/* After an agreement over comm found the ranks' hashes different
 * (DMESH_ERR_MISMATCH on every rank): collective over comm, on that path
 * only (five small collectives, one of them the agreement that a failure
 * on one rank ends the explanation on all; three more for a long value), the
 * detail names the lowest rank whose arguments differ from those of comm's
 * rank 0, the first such argument and both values ("fn: rank 2 passed
 * shape (1, 2), rank 0 (2, 2)"; "fn: rank 2 passed ranks[5] = 7, rank 0
 * ranks[5] = 2"), or both calls when the ranks called different ones
 * ("fn: rank 1 called dmesh_flatten, rank 0 dmesh_get_sub_comm"). Every
 * collective call of the library explains its mismatches here: the call
 * is the first argument of every request (dmesh_request_begin). Returns
 * DMESH_ERR_MISMATCH. */
int dmesh_request_explain(MPI_Comm comm, const dmesh_request_t *r, const char *fn);

#endif /* DMESH_REQUEST_H */
