/* SPDX-License-Identifier: BSD-3-Clause */
/* Copies in memory, their placement (copies_place.c, pure): who holds whose
 * copy, the XOR sets, what a member's copies survive, and whose identity
 * each process's copies carry. */
#ifndef DMESH_COPIES_PLACE_H
#define DMESH_COPIES_PLACE_H

#include <stdint.h>

#include "dmesh.h"

struct dmesh_copies_scheme; /* copies_scheme.h */

/* Where the copies go (a plan's dim): along one dimension of the mesh
 * (dmesh_copies_dim, >= 0), along the flattened mesh (the next member), or
 * by failure domain over the whole mesh (the default where the members span
 * more than one domain). DMESH_COPIES_DIM_DEFAULT: not chosen yet. */
enum { DMESH_COPIES_DIM_FLAT = -1, DMESH_COPIES_DIM_DEFAULT = -2, DMESH_COPIES_DIM_DOMAINS = -3 };

/* Where the copies of a mesh's members go: the members in row-major order
 * of the mesh's shape (flat index). Made by dmesh_copies_plan_make, which
 * fills the tables; freed by dmesh_copies_plan_free. */
typedef struct {
    int ndims, shape[DMESH_MAX_DIMS];
    int n;                                    /* members */
    int dim;                                  /* >= 0 or DMESH_COPIES_DIM_* */
    const struct dmesh_copies_scheme *scheme; /* its tables' and partners' */
    int k;                                    /* XOR set size asked for */
    int *holder, *owner; /* partner: who holds r's copy (r: nobody), whose r holds */
    int *set_first;      /* xor: where r's set starts in sets[] */
    int *set_size;       /* xor: its members */
    int *set_pos;        /* xor: r's place in it */
    int *sets;           /* xor: the members, set after set, each ascending */
} dmesh_copies_plan_t;

/* The tables of p (ndims, shape, n, dim, scheme and k set) for members in
 * failure domains domain[] (n values, equal values one domain; NULL: one
 * domain), filled by the scheme. DMESH_COPIES_DIM_DOMAINS orders the
 * members by domain (domains by their lowest member, members ascending in
 * each), and the scheme places every copy (partner), every set member
 * (xor), in another domain than its owner wherever the domains allow it:
 * SCR's rule, each copy held by the member as many places further as the
 * largest domain has members (so no domain of at most half the members
 * holds its own copies); sets dealt over that order so that no set has two
 * members of a domain when every domain has at most as many members as
 * there are sets. DMESH_ERR_NOMEM. */
int dmesh_copies_plan_make(dmesh_copies_plan_t *p, const uint64_t domain[]);
void dmesh_copies_plan_free(dmesh_copies_plan_t *p);

/* The default placement for members in domain[]: DMESH_COPIES_DIM_DOMAINS
 * when they span more than one domain, else DMESH_COPIES_DIM_FLAT. */
int dmesh_copies_pick_dim(int n, const uint64_t domain[]);

/* Along the plan's line (its dimension, or the flattened mesh), for a
 * scheme's place_line: the member by places further than r on its line
 * (cyclic, by may be negative); r's set of about k on its line (sets of k
 * in line order, a last set of the rest, a rest of one joining the last
 * full set): its first member, its size, r's place in it, and the distance
 * between neighbours in flat indices. */
int dmesh_copies_line_moved(const dmesh_copies_plan_t *p, int r, int by);
void dmesh_copies_line_set(const dmesh_copies_plan_t *p, int r, int *first, int *m, int *pos,
                           int *stride);

/* Partner: the member holding r's copy (r itself on a plan of one member),
 * and the member whose copy r holds. */
static inline int dmesh_copies_holder(const dmesh_copies_plan_t *p, int r)
{
    return p->holder[r];
}
static inline int dmesh_copies_owner(const dmesh_copies_plan_t *p, int r)
{
    return p->owner[r];
}

/* XOR: r's set as members (*members points into p), *m of them, and r's
 * place in it. */
void dmesh_copies_set(const dmesh_copies_plan_t *p, int r, const int **members, int *m, int *pos);
#define DMESH_COPIES_MAX_GROUP 512 /* dmesh_copies_group's bound */

/* What a member's copies survive (dmesh.h DMESH_COPIES_SURVIVES_*): the
 * loss of its failure domain when none of its partners (the scheme's: the
 * member holding its copy, the other members of its set) shares its
 * domain; nothing without partners. */
int dmesh_copies_survives(const dmesh_copies_plan_t *p, const uint64_t domain[], int r);

/* Owners. Every process's copies carry its identity (nonzero): made at its
 * first open from a number it drew, or taken over from its predecessor
 * (the process that held its place, table[r], at the last open) when that
 * identity is no live member's. A held copy is used only for the identity
 * it was made for, a parity only for the set (its members' identities in
 * order, dmesh_copies_set_sign) it was made for.
 *
 * dmesh_copies_adopt: ids[] (n; 0: none yet) completed, from table (tn
 * entries, NULL: none) or drawn[] (n, nonzero); born[r] set where r has
 * nothing to get back: it drew its own (no predecessor), or its
 * predecessor had nothing stored (nothing[r] nonzero; NULL: all had). */
int dmesh_copies_adopt(int n, uint64_t ids[], const uint64_t drawn[], const uint64_t *table,
                       const uint64_t *nothing, int tn, int born[]);

/* The table an open leaves with every member (and a store updates): five
 * rows of the members' count, by flat index: their identities, the domains
 * the placement was made with, whether each had nothing stored, and, for a
 * scheme of sets, the sign of each one's set and its place in it (the sets
 * the held parities were made for, found again by identity after a shrink
 * or a grow). dmesh_copies_table_rows writes all but the third from p, the
 * identities and the domains (placed: NULL, none known). */
#define DMESH_COPIES_TABLE_ROWS 5
void dmesh_copies_table_rows(const dmesh_copies_plan_t *p, const uint64_t ids[],
                             const uint64_t placed[], uint64_t *table);

/* After an open that did not make the held parities again: the sign row
 * says a member's set only where a member of that set holds a parity made
 * for it (held_for: each member's), else 0 (a set that lost a member: its
 * parity serves no set; a later open treats its members as new ones). */
void dmesh_copies_table_signs(const dmesh_copies_plan_t *p, const uint64_t ids[],
                              const uint64_t held_for[], uint64_t *table);

/* The placement an open gives (the same on every member, from what they
 * agreed). p: the template (ndims, shape, n, scheme, k, and dim as asked:
 * DMESH_COPIES_DIM_DEFAULT for the default placement), then the plan; now:
 * the members' domains (NULL: not known); ids: their identities; table,
 * tn: the members' newest table (of tn members, NULL: none); held: the
 * version each member's held copy or parity is of; newest: the newest
 * version a member holds (DMESH_COPIES_NONE: none stored); all_own: every
 * member holds that version's own copy, or has nothing to get back. The held copies were
 * made for the table's placement: for a scheme of sets, its sets found
 * again by identity (the members that left taken out, new ones in sets of
 * their own); for partner, its domains' placement where the members are
 * the table's in its places (a partner copy is found by its owner's
 * identity anywhere: a placement that differs loses none).
 * - nothing stored, or the held copies serve the domains' placement
 *   (made for it, every member holding its part): the domains';
 * - every member holds its own copy: the domains' placement, *remake set
 *   (the open makes the held copies again there before the old ones go);
 * - else the held placement, which the held copies serve, and *next the
 *   domains' (the next store moves there); next->n == 0 when none.
 *   *kept_was: the members are the table's, in its places.
 * DMESH_ERR_NOMEM. */
int dmesh_copies_place_open(dmesh_copies_plan_t *p, dmesh_copies_plan_t *next, const uint64_t now[],
                            const uint64_t ids[], const uint64_t *table, int tn,
                            const int64_t held[], int64_t newest, int all_own, int *remake,
                            int *kept_was);

/* XOR: the sign of r's set: its members' identities in order. */
uint64_t dmesh_copies_set_sign(const dmesh_copies_plan_t *p, const uint64_t ids[], int r);

#endif /* DMESH_COPIES_PLACE_H */
