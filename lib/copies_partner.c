/* SPDX-License-Identifier: BSD-3-Clause */
/* The partner scheme of copies (copies_scheme.h): every member's copy is
 * held whole by one other member, its holder; a member holds the copy of
 * one other, its owner. Along a line the holder is the next member; by
 * failure domain, SCR's PARTNER rule: the members in domain order, each
 * copy held as many places further as the largest domain has members. A
 * member's copy survives the loss of any one process (its own or its
 * holder's, not both); its memory is two copies. */
#include "config.h"

#include "copies_scheme.h"
#include "error.h"
#include "fault.h"

/* ---- where the copies go ------------------------------------------------ */

static void place_line(dmesh_copies_plan_t *p)
{
    for (int r = 0; r < p->n; r++) {
        p->holder[r] = dmesh_copies_line_moved(p, r, 1);
        p->owner[r] = dmesh_copies_line_moved(p, r, -1);
    }
}

static void place_domains(dmesh_copies_plan_t *p, const int order[], int largest)
{
    for (int i = 0; i < p->n; i++) {
        p->holder[order[i]] = order[(i + largest) % p->n];
        p->owner[order[(i + largest) % p->n]] = order[i];
    }
}

static int partner(const dmesh_copies_plan_t *p, int r, int i)
{
    return i == 0 && p->holder[r] != r ? p->holder[r] : -1;
}

static uint64_t held_for(const dmesh_copies_plan_t *p, const uint64_t ids[], int r)
{
    return ids[dmesh_copies_owner(p, r)];
}

/* ---- a restore's plan ---------------------------------------------------- */

static int source(const dmesh_copies_view_t *w, int r, int64_t v, int *from)
{
    *from = dmesh_copies_view_holder(w, r, v);
    return *from >= 0 ? DMESH_COPIES_SRC_HOLDER : DMESH_COPIES_SRC_LOST;
}

/* r's holder must receive r's copy of v again unless it holds it. */
static int refresh(const dmesh_copies_view_t *w, int r, int64_t v)
{
    int h = dmesh_copies_holder(w->p, r);

    return !w->rec[r].born && h != r && !dmesh_copies_view_holds(w, h, v);
}

/* ---- store --------------------------------------------------------------- */

static int open_scheme(struct dmesh_copies_s *c)
{
    (void)c; /* the members' communicator is all it needs */
    return DMESH_SUCCESS;
}

/* The lengths both ways, and the memory for the owner's copy. */
static int store_alloc(struct dmesh_copies_s *c, dmesh_copies_slot_t *n, char **scratch, int err)
{
    int h = dmesh_copies_holder(&c->plan, c->me), o = dmesh_copies_owner(&c->plan, c->me);
    uint64_t mine = n->own_len, theirs = 0;
    dmesh_copies_xfer_t q = {.n = 0};

    *scratch = NULL;
    dmesh_fault_step(); /* test builds: a process may die before the transfers */
    if (h == c->me)
        return err;
    int e = dmesh_copies_post(&q, 0, &theirs, sizeof(theirs), o, DMESH_COPIES_TAG_COPY, c->comm,
                              DMESH_SUCCESS);
    e = dmesh_copies_post(&q, 1, &mine, sizeof(mine), h, DMESH_COPIES_TAG_COPY, c->comm, e);
    err = dmesh_copies_wait_all(&q, e ? e : err);
    n->held_len = theirs;
    n->held_for = c->ids[o];
    n->held = dmesh_copies_alloc_or(theirs, &err);
    return err;
}

/* This member's copy to its holder, its owner's into held. */
static int store_moves(struct dmesh_copies_s *c, dmesh_copies_slot_t *n, char *scratch,
                       dmesh_copies_xfer_t *q)
{
    int h = dmesh_copies_holder(&c->plan, c->me), o = dmesh_copies_owner(&c->plan, c->me), err;

    (void)scratch;
    if (h == c->me)
        return DMESH_SUCCESS;
    err = dmesh_copies_post(q, 0, n->held, n->held_len, o, DMESH_COPIES_TAG_COPY, c->comm,
                            DMESH_SUCCESS);
    dmesh_fault_step(); /* ... with its receive posted, before its send */
    err = dmesh_copies_post(q, 1, n->own, n->own_len, h, DMESH_COPIES_TAG_COPY, c->comm, err);
    err = dmesh_copies_wait_all(q, err);
    dmesh_fault_step(); /* ... or once its transfers are done */
    return err;
}

static size_t store_scratch(const struct dmesh_copies_s *c, const dmesh_copies_slot_t *s)
{
    (void)c;
    (void)s;
    return 0;
}

/* ---- restore ------------------------------------------------------------- */

/* Who sends r's copy (its own, or the member holding it) to r's holder, and
 * its length. */
static int refresh_sender(const dmesh_copies_restore_t *t, int r, size_t *len)
{
    int x = t->src[r] == DMESH_COPIES_SRC_SELF ? r : t->from[r];

    *len = (size_t)(x == r ? t->rec[r].own_len : t->rec[x].held_len);
    return x;
}

static int restore_alloc(struct dmesh_copies_s *c, dmesh_copies_restore_t *t, int err)
{
    int o = dmesh_copies_owner(&c->plan, c->me);

    if (t->src[c->me] == DMESH_COPIES_SRC_HOLDER) {
        t->own_len = (size_t)t->rec[t->from[c->me]].held_len;
        t->own = dmesh_copies_alloc_or(t->own_len, &err);
    }
    if (o != c->me && t->refresh[o]) {
        refresh_sender(t, o, &t->held_len);
        t->held_for = c->ids[o];
        t->held = dmesh_copies_alloc_or(t->held_len, &err);
    }
    return err;
}

/* A member that was not given its copy back by itself gets it from the
 * member holding it; a holder that lacks its owner's copy of the version
 * gets it from the owner, or from the member holding it. */
static int restore_moves(struct dmesh_copies_s *c, dmesh_copies_restore_t *t,
                         dmesh_copies_xfer_t *q)
{
    dmesh_copies_slot_t *s = &c->d->slot;
    int err = DMESH_SUCCESS, o = dmesh_copies_owner(&c->plan, c->me);
    size_t len;

    if (t->own != NULL)
        err = dmesh_copies_post(q, 0, t->own, t->own_len, t->from[c->me], DMESH_COPIES_TAG_COPY,
                                c->comm, err);
    if (t->held != NULL)
        err = dmesh_copies_post(q, 0, t->held, t->held_len, refresh_sender(t, o, &len),
                                DMESH_COPIES_TAG_HELD, c->comm, err);
    dmesh_fault_step(); /* test builds: a process may die before its transfers */
    for (int r = 0; r < c->plan.n; r++) {
        if (t->src[r] == DMESH_COPIES_SRC_HOLDER && t->from[r] == c->me)
            err = dmesh_copies_post(q, 1, s->held, (size_t)t->rec[c->me].held_len, r,
                                    DMESH_COPIES_TAG_COPY, c->comm, err);
        if (t->refresh[r] && refresh_sender(t, r, &len) == c->me)
            err = dmesh_copies_post(q, 1, r == c->me ? s->own : s->held, len,
                                    dmesh_copies_holder(&c->plan, r), DMESH_COPIES_TAG_HELD,
                                    c->comm, err);
    }
    return dmesh_copies_wait_all(q, err);
}

const dmesh_copies_scheme_t dmesh_copies_partner = {
    .name = "partner",
    .grouped = 0,
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
