/* SPDX-License-Identifier: BSD-3-Clause */
/* The scheme table: what a redundancy scheme of the copies (the value of
 * the dmesh_copies_scheme info key) gives the rest of the copies.
 *
 * A scheme owns everything that differs between ways of keeping a
 * process's copy elsewhere: where the copies go (its tables in the plan,
 * along a line or by failure domain), who holds something of a member's
 * copy (its partners: dmesh_copies_get_partners and what a member's copies
 * survive follow from them), which identity a member's held data serves,
 * how a restore gets a member's copy back and which members must make
 * their held data anew, the communicators it makes at an open, a store's
 * moves and a restore's. The store and the restore (copies_xfer.c) call a
 * scheme through this table only and agree after each of its steps (the
 * memory before the moves, the moves before anything is kept); a scheme
 * posts its messages through copies_move.h and never agrees itself.
 *
 * Adding a scheme: a file lib/copies_<name>.c that defines a
 * dmesh_copies_scheme_t (every hook set), and one line in the table of
 * copies_scheme.c (doc/architecture.md, "Adding a scheme of copies"). */
#ifndef DMESH_COPIES_SCHEME_H
#define DMESH_COPIES_SCHEME_H

#include <stddef.h>
#include <stdint.h>

#include "copies.h"
#include "copies_move.h"
#include "copies_plan.h"

/* What a restore moves to this process, allocated before the transfers
 * (copies_xfer.c fills v, rec, src, from and refresh; the scheme the rest
 * in its restore_alloc). */
typedef struct {
    int64_t v; /* the version restored */
    const dmesh_copies_record_t *rec;
    const int *src, *from, *refresh; /* dmesh_copies_plan_restore's */
    char *own;                       /* the copy received or rebuilt, NULL: its own */
    size_t own_len;
    char *held; /* the copy or parity held anew, NULL: kept */
    size_t held_len;
    uint64_t held_for; /* whose copy, or which set's parity, held is */
    char *scratch;     /* the scheme's working memory (released with own and held) */
    int m, pos, lost;  /* the scheme's: xor's set, this member's place, its rebuilt one */
    const int *members;
} dmesh_copies_restore_t;

typedef struct dmesh_copies_scheme {
    const char *name; /* the value of dmesh_copies_scheme */
    int grouped;      /* takes dmesh_copies_group (the set size k) */

    /* ---- where the copies go (pure) ---- */
    /* the tables of p along its line (p->dim a dimension or
     * DMESH_COPIES_DIM_FLAT: copies_place.h's line services) */
    void (*place_line)(dmesh_copies_plan_t *p);
    /* the tables of p over the members in domain order (order[n], the
     * largest domain's members): none of a member's partners in its domain
     * wherever the domains allow it */
    void (*place_domains)(dmesh_copies_plan_t *p, const int order[], int largest);
    /* the i-th member holding something of r's copy (ascending i from 0),
     * -1 past the last */
    int (*partner)(const dmesh_copies_plan_t *p, int r, int i);
    /* the identity r's held data serves (nonzero) under p, the members'
     * identities ids[] */
    uint64_t (*held_for)(const dmesh_copies_plan_t *p, const uint64_t ids[], int r);

    /* ---- a restore's plan (pure): called for a member r with a
     * predecessor and no own copy of version v ---- */
    /* DMESH_COPIES_SRC_* of r for v; *from: the member that sends it (-1) */
    int (*source)(const dmesh_copies_view_t *w, int r, int64_t v, int *from);
    /* whether the held data serving r must be made anew for v (any r) */
    int (*refresh)(const dmesh_copies_view_t *w, int r, int64_t v);

    /* ---- collective over the members ---- */
    /* at an open, after the plan is agreed: the scheme's communicators
     * (xor: the member's set, c->set); an MPI failure's class */
    int (*open)(struct dmesh_copies_s *c);
    /* a store's first step for the slot n (n->own packed): n->held's
     * memory and what it serves, the working memory *scratch (released by
     * the caller), whatever a peer must tell first; err passed through,
     * every member takes the step */
    int (*store_alloc)(struct dmesh_copies_s *c, dmesh_copies_slot_t *n, char **scratch, int err);
    /* a store's moves into n, once the memory is agreed */
    int (*store_moves)(struct dmesh_copies_s *c, dmesh_copies_slot_t *n, char *scratch,
                       dmesh_copies_xfer_t *q);
    /* a restore's memory for t (err passed through) */
    int (*restore_alloc)(struct dmesh_copies_s *c, dmesh_copies_restore_t *t, int err);
    /* a restore's moves (after the memory is agreed) */
    int (*restore_moves)(struct dmesh_copies_s *c, dmesh_copies_restore_t *t,
                         dmesh_copies_xfer_t *q);
    /* a store's peak working memory in bytes beyond both versions' copies
     * (dmesh-bench's memory figures), for this member's slot s */
    size_t (*store_scratch)(const struct dmesh_copies_s *c, const dmesh_copies_slot_t *s);
} dmesh_copies_scheme_t;

extern const dmesh_copies_scheme_t dmesh_copies_partner, dmesh_copies_xor;

/* The table: the schemes in the order of their codes (a scheme's code, its
 * place here, is what the open's agreement compares; partner first, the
 * default). */
#define DMESH_COPIES_NSCHEMES 2
extern const dmesh_copies_scheme_t *const dmesh_copies_schemes[DMESH_COPIES_NSCHEMES];

/* The code of s (its place in the table). */
int dmesh_copies_scheme_code(const dmesh_copies_scheme_t *s);

#endif /* DMESH_COPIES_SCHEME_H */
