/* SPDX-License-Identifier: BSD-3-Clause */
/* Copies in memory, their restore and XOR parity (copies_plan.c, pure):
 * the chunks of a set's parity, and which version a restore can give every
 * member. */
#ifndef DMESH_COPIES_PLAN_H
#define DMESH_COPIES_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "copies_place.h"

/* XOR: the chunk of member j that the parity held by member i covers, in a
 * set of m (i != j): a bijection of the others onto 0 .. m - 2 for each j. */
static inline int dmesh_copies_chunk(int i, int j, int m)
{
    return (i - j - 1 + m) % m;
}

/* XOR: the chunk size (a multiple of 8 bytes) for the longest copy of a set
 * of m members. */
size_t dmesh_copies_chunk_size(size_t longest, int m);

/* XOR: the contribution of member me (its copy of len bytes, chunks of c)
 * to parity block i of a set of m (c bytes into out): its chunk for i, or
 * zeros for i == me. */
void dmesh_copies_contribution(const char *copy, size_t len, size_t c, int me, int i, int m,
                               char *out);

/* What each member holds, as a restore gathers it. */
typedef struct {
    int64_t own;       /* version of its own copy, DMESH_COPIES_NONE */
    int64_t held;      /* partner: version of the copy it holds; xor: of its parity */
    int64_t own_len;   /* bytes of its own copy */
    int64_t held_len;  /* partner: bytes of the copy it holds; xor: the chunk size */
    uint64_t id;       /* its identity */
    uint64_t held_for; /* partner: the identity of the copy's owner; xor: its set's sign */
    int64_t born;      /* no predecessor and nothing stored: nothing to give back */
} dmesh_copies_record_t;

enum {
    DMESH_COPIES_SRC_SELF = 0, /* its own copy */
    DMESH_COPIES_SRC_HOLDER,   /* partner: a copy another member keeps for it */
    DMESH_COPIES_SRC_PARITY,   /* xor: rebuilt from its set */
    DMESH_COPIES_SRC_LOST,
    DMESH_COPIES_SRC_NONE /* no predecessor: nothing to give back, buffers untouched */
};

/* A restore's view of the records (made by dmesh_copies_plan_restore, read
 * by the scheme's source and refresh): the members ordered by the identity
 * their held data serves, to find a copy's holders in O(log n), and the
 * identity each member's held data must serve under the plan (the
 * scheme's held_for). */
typedef struct {
    uint64_t held_for;
    int r;
} dmesh_copies_held_t;

typedef struct {
    const dmesh_copies_plan_t *p;
    const dmesh_copies_record_t *rec;
    dmesh_copies_held_t *by_held; /* members by (held_for, member) */
    uint64_t *want;               /* the identity each member's held data must serve */
} dmesh_copies_view_t;

/* The lowest member other than r whose held data of version v serves r's
 * identity (a copy of r's); -1 when none does. */
int dmesh_copies_view_holder(const dmesh_copies_view_t *w, int r, int64_t v);

/* Whether member i holds version v's held data as the plan wants it (of
 * that version, serving the identity the plan gives it). */
static inline int dmesh_copies_view_holds(const dmesh_copies_view_t *w, int i, int64_t v)
{
    return w->rec[i].held == v && w->rec[i].held_for == w->want[i];
}

/* The restore of the n members of p holding rec: *version, the newest that
 * every member with a predecessor can get back (DMESH_COPIES_NONE when none
 * stored any); src[r] how member r gets it; from[r] (partner, src HOLDER)
 * the member that sends it; refresh[r]: partner: r's holder must receive
 * r's copy again; xor: r's set computes its parity again.
 * DMESH_ERR_DATA_LOST when some member can get back no version that the
 * others can (src[] then marks the members without the newest one LOST);
 * DMESH_ERR_NOMEM. */
int dmesh_copies_plan_restore(const dmesh_copies_plan_t *p, const dmesh_copies_record_t rec[],
                              int64_t *version, int src[], int from[], int refresh[]);

#endif /* DMESH_COPIES_PLAN_H */
