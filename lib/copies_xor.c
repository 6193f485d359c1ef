/* SPDX-License-Identifier: BSD-3-Clause */
/* The XOR scheme of copies (copies_scheme.h): the members form sets of
 * about k (dmesh_copies_group); each member's copy is cut into m - 1 chunks
 * (m the set's size) and each member holds one parity block, the XOR of
 * one chunk of every other member's copy (dmesh_copies_chunk says which).
 * A lost member's copy is the XOR of the others' chunks and parities. Along
 * a line, sets of k in line order; by failure domain, sets dealt over the
 * domain order, one member per set in turn. A set survives the loss of any
 * one of its members; a member's memory is its copy and 1 / (m - 1) of
 * one. */
#include "config.h"

#include <string.h>

#include "copies_mem.h"
#include "copies_scheme.h"
#include "error.h"
#include "fault.h"

/* ---- where the copies go ------------------------------------------------ */

static void place_line(dmesh_copies_plan_t *p)
{
    int at = 0;

    for (int r = 0; r < p->n; r++) {
        int first, m, pos, stride;
        dmesh_copies_line_set(p, r, &first, &m, &pos, &stride);
        if (pos != 0)
            continue; /* filled with its set's first member, which comes first */
        for (int i = 0; i < m; i++) {
            int x = first + i * stride;
            p->set_first[x] = at;
            p->set_size[x] = m;
            p->set_pos[x] = i;
            p->sets[at + i] = x;
        }
        at += m;
    }
}

static void place_domains(dmesh_copies_plan_t *p, const int order[], int largest)
{
    int n = p->n, k = p->k < 2 ? 2 : p->k, nsets = (n + k - 1) / k, at = 0;

    if (nsets < largest)
        nsets = largest; /* one member of each domain per set */
    if (nsets > n / 2)
        nsets = n / 2; /* sets of two at least */
    for (int s = 0; s < nsets; s++) {
        int m = (n - s + nsets - 1) / nsets; /* positions s, s + nsets, ... */
        for (int i = 0; i < m; i++) {
            int x = order[s + i * nsets];
            p->set_first[x] = at;
            p->set_size[x] = m;
            p->set_pos[x] = i;
            p->sets[at + i] = x;
        }
        at += m;
    }
}

/* The other members of r's set, in set order. */
static int partner(const dmesh_copies_plan_t *p, int r, int i)
{
    const int *members;
    int m, pos, j = i;

    dmesh_copies_set(p, r, &members, &m, &pos);
    if (j >= pos)
        j++;
    return m > 1 && j < m ? members[j] : -1;
}

static uint64_t held_for(const dmesh_copies_plan_t *p, const uint64_t ids[], int r)
{
    return dmesh_copies_set_sign(p, ids, r);
}

/* ---- a restore's plan ---------------------------------------------------- */

/* Whether member i of a set still holds its part of version v's parity of
 * that set (its own copy, or none as a member without predecessor, and
 * the set's parity). */
static int holds_part(const dmesh_copies_view_t *w, int i, int64_t v)
{
    return (w->rec[i].own == v || w->rec[i].born) && dmesh_copies_view_holds(w, i, v);
}

static int source(const dmesh_copies_view_t *w, int r, int64_t v, int *from)
{
    const int *members;
    int m, pos;

    *from = -1;
    dmesh_copies_set(w->p, r, &members, &m, &pos);
    if (m < 2)
        return DMESH_COPIES_SRC_LOST;
    for (int i = 0; i < m; i++)
        if (members[i] != r && !holds_part(w, members[i], v))
            return DMESH_COPIES_SRC_LOST;
    return DMESH_COPIES_SRC_PARITY;
}

/* r's set computes its parity again unless every member holds its part. */
static int refresh(const dmesh_copies_view_t *w, int r, int64_t v)
{
    const int *members;
    int m, pos;

    dmesh_copies_set(w->p, r, &members, &m, &pos);
    for (int i = 0; i < m && m > 1; i++)
        if (!holds_part(w, members[i], v))
            return 1;
    return 0;
}

/* ---- open and store ------------------------------------------------------ */

/* This member's set (every member takes the step). */
static int open_scheme(struct dmesh_copies_s *c)
{
    const int *set;
    int m, pos, rc;

    dmesh_copies_set(&c->plan, c->me, &set, &m, &pos);
    rc = MPI_Comm_split(c->comm, set[0], pos, &c->set);
    return rc != MPI_SUCCESS ? dmesh_error_mpi(rc, "dmesh_copies_open: MPI_Comm_split (XOR set)")
                             : DMESH_SUCCESS;
}

static int set_size(const struct dmesh_copies_s *c)
{
    const int *set;
    int m, pos;

    dmesh_copies_set(&c->plan, c->me, &set, &m, &pos);
    return m;
}

/* The longest copy of the set sets the chunk; the parity's memory and the
 * contributions' (m blocks). */
static int store_alloc(struct dmesh_copies_s *c, dmesh_copies_slot_t *n, char **scratch, int err)
{
    int m = set_size(c), rc;
    uint64_t mine = n->own_len, longest = 0;

    *scratch = NULL;
    dmesh_fault_step(); /* test builds: a process may die before the transfers */
    rc = MPI_Allreduce(&mine, &longest, 1, MPI_UINT64_T, MPI_MAX, c->set);
    if (rc != MPI_SUCCESS && !err)
        err = dmesh_error_mpi(rc, "dmesh_copies_store: MPI_Allreduce");
    if (m > 1) {
        n->held_len = dmesh_copies_chunk_size(longest, m);
        n->held_for = dmesh_copies_set_sign(&c->plan, c->ids, c->me);
        n->held = dmesh_copies_alloc_or(n->held_len, &err);
        *scratch = dmesh_copies_alloc_or((size_t)m * n->held_len, &err);
    }
    return err;
}

static int store_moves(struct dmesh_copies_s *c, dmesh_copies_slot_t *n, char *scratch,
                       dmesh_copies_xfer_t *q)
{
    int m = set_size(c), pos;

    (void)q; /* reductions only */
    if (m < 2)
        return DMESH_SUCCESS;
    MPI_Comm_rank(c->set, &pos);
    dmesh_fault_step(); /* ... or before the parity's reduction */
    return dmesh_copies_parity(c->set, m, pos, n->own, n->own_len, n->held_len, scratch, n->held,
                               DMESH_SUCCESS);
}

static size_t store_scratch(const struct dmesh_copies_s *c, const dmesh_copies_slot_t *s)
{
    return (size_t)set_size(c) * s->held_len;
}

/* ---- restore ------------------------------------------------------------- */

/* The set's chunk, from its members that hold the version's parity of
 * this set (t->held_for): a parity made for another set (before a shrink
 * or a grow dealt the sets again) has that set's chunk, which need not fit
 * this one's copies. */
static size_t set_chunk(const dmesh_copies_restore_t *t)
{
    size_t ch = 0;

    for (int i = 0; i < t->m; i++) {
        const dmesh_copies_record_t *r = &t->rec[t->members[i]];
        if (r->held == t->v && r->held_for == t->held_for && (size_t)r->held_len > ch)
            ch = (size_t)r->held_len;
    }
    return ch;
}

static int restore_alloc(struct dmesh_copies_s *c, dmesh_copies_restore_t *t, int err)
{
    size_t ch;

    dmesh_copies_set(&c->plan, c->me, &t->members, &t->m, &t->pos);
    t->lost = -1;
    if (!t->refresh[c->me])
        return err;
    for (int i = 0; i < t->m; i++)
        if (t->src[t->members[i]] == DMESH_COPIES_SRC_PARITY)
            t->lost = i;
    t->held_for = dmesh_copies_set_sign(&c->plan, c->ids, c->me);
    if ((ch = set_chunk(t)) == 0) { /* no parity of the version: from the copies */
        size_t longest = 0;
        for (int i = 0; i < t->m; i++)
            if ((size_t)t->rec[t->members[i]].own_len > longest)
                longest = (size_t)t->rec[t->members[i]].own_len;
        ch = dmesh_copies_chunk_size(longest, t->m);
    }
    t->held_len = ch;
    t->held = dmesh_copies_alloc_or(ch, &err);
    t->scratch = dmesh_copies_alloc_or((size_t)t->m * ch, &err);
    if (t->lost == t->pos) {
        t->own_len = (size_t)(t->m - 1) * ch;
        t->own = dmesh_copies_alloc_or(t->own_len, &err);
    }
    return err;
}

/* The lost member's copy, then the set's parity anew. */
static int restore_moves(struct dmesh_copies_s *c, dmesh_copies_restore_t *t,
                         dmesh_copies_xfer_t *q)
{
    dmesh_copies_slot_t *s = &c->d->slot;
    size_t ch = t->held_len, len;
    int rc, x = t->lost;
    const char *own;

    (void)q; /* reductions only */
    if (!t->refresh[c->me])
        return DMESH_SUCCESS;
    /* test builds: a process may die before the rebuild */
    dmesh_fault_step();
    if (x >= 0) { /* slot chunk(i, x) of the sum: parity i and the others' chunks */
        char *b = x == t->pos ? t->own : t->scratch;
        memset(b, 0, (size_t)(t->m - 1) * ch);
        for (int i = 0; i < t->m && x != t->pos; i++) {
            char *slot = b + (size_t)dmesh_copies_chunk(i, x, t->m) * ch;
            if (i == t->pos)
                memcpy(slot, s->held, ch);
            else if (i != x)
                dmesh_copies_contribution(s->own, s->own_len, ch, t->pos, i, t->m, slot);
        }
        rc =
            dmesh_copies_xor_reduce(b, (size_t)(t->m - 1) * ch, x, x == t->pos, t->scratch, c->set);
        if (rc != MPI_SUCCESS)
            return dmesh_error_mpi(rc, "dmesh_copies_restore: MPI_Reduce");
    }
    own = t->own != NULL ? t->own : s->own;
    len = t->own != NULL ? t->own_len : s->own_len;
    return dmesh_copies_parity(c->set, t->m, t->pos, own, len, ch, t->scratch, t->held,
                               DMESH_SUCCESS);
}

const dmesh_copies_scheme_t dmesh_copies_xor = {
    .name = "xor",
    .grouped = 1,
    .place_line = place_line,
    .place_domains = place_domains,
    .partner = partner,
    .held_for = held_for,
    .source = source,
    .refresh = refresh,
    .open = open_scheme,
    .store_alloc = store_alloc,
    .store_moves = store_moves,
    .restore_alloc = restore_alloc,
    .restore_moves = restore_moves,
    .store_scratch = store_scratch,
};
