/* SPDX-License-Identifier: BSD-3-Clause */
/* dmesh_copies_store and dmesh_copies_restore: the collective moves of the
 * copies (copies.h). Each follows the rule of collective paths: every step
 * that can fail on some processes (an allocation, a transfer that meets a
 * failed process) is followed by dmesh_agree over the members, and only
 * then does a process change what it keeps. Buffers are allocated and
 * agreed before any transfer, so that no process waits for a peer that
 * could not post its receive. A store keeps the previous version until the
 * agreement after the transfers; a restore computes from every member's
 * versions (one MPI_Allgather) the newest version all can get back, the
 * same plan on every process (copies_plan.c). What differs between schemes
 * (the memory, the moves) is the scheme's, called through its table
 * (copies_scheme.h); the agreements between its steps are here. */
#include "config.h"

#include "api_impl.h"

#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "copies.h"
#include "copies_mem.h"
#include "copies_scheme.h"
#include "error.h"
#include "hash.h"

/* ---- store --------------------------------------------------------------- */

static void settle(struct dmesh_copies_s *c, int moved, int all_stored);

int dmesh_copies_store_impl(dmesh_copies_t h, int version)
{
    struct dmesh_copies_s *c;
    dmesh_copies_slot_t n = {DMESH_COPIES_NONE, NULL, 0, NULL, 0, DMESH_COPIES_NONE, 0};
    dmesh_copies_xfer_t q = {.n = 0};
    int err = DMESH_SUCCESS, moved;
    char *scratch = NULL;
    uint64_t hash;

    DMESH_TRY(dmesh_copies_get(h, "dmesh_copies_store", &c));
    if (c->comm == MPI_COMM_NULL)
        return DMESH_SUCCESS; /* outside the mesh */
    moved = c->next.n > 0;    /* the same on every member */
    if (moved)                /* the store's copies go where the domains ask */
        dmesh_copies_swap_next(c);
    if (version < 0 || version <= c->d->slot.version)
        err = dmesh_error_set(DMESH_ERR_ARG,
                              "%s: version %d is not greater than the last one stored or "
                              "restored (%lld)",
                              "dmesh_copies_store", version, (long long)c->d->slot.version);
    if (!err)
        err = dmesh_copies_pack(c->d, version, &n.own, &n.own_len);
    hash = dmesh_hash(DMESH_HASH_INIT, &version, sizeof(version));
    err = c->plan.scheme->store_alloc(c, &n, &scratch, err);
    if ((err = dmesh_agree(c->comm, hash, err, "dmesh_copies_store")) == DMESH_SUCCESS)
        err = c->plan.scheme->store_moves(c, &n, scratch, &q);
    dmesh_copies_release(scratch);
    err = dmesh_agree_outcome(c->comm, err, "dmesh_copies_store");
    if (err != DMESH_SUCCESS) { /* the previous version stays, and its placement */
        dmesh_copies_drain(&q);
        dmesh_copies_release(n.own);
        dmesh_copies_release(n.held);
        if (moved)
            dmesh_copies_swap_next(c);
        return err;
    }
    n.version = n.held_version = version;
    if (n.held == NULL) {
        n.held_version = DMESH_COPIES_NONE;
        n.held_for = 0;
    }
    dmesh_copies_slot_set(&c->d->slot, &n);
    settle(c, moved, 1);
    return DMESH_SUCCESS;
}

/* After a store (every member then has something stored), a restore, or
 * a restore that moved the copies: the placement given up dropped (moved),
 * and the table the next open reads says where the copies are. */
static void settle(struct dmesh_copies_s *c, int moved, int all_stored)
{
    dmesh_copies_data_t *d = c->d;
    size_t n = (size_t)c->plan.n;

    if (moved) {
        dmesh_copies_drop_next(c);
        memcpy(c->placed, c->domain, n * sizeof(uint64_t));
    }
    if (d->table == NULL || (size_t)d->table_n != n)
        return;
    dmesh_copies_table_rows(&c->plan, c->ids, c->placed, d->table);
    if (all_stored)
        memset(d->table + 2 * n, 0, n * sizeof(uint64_t));
}

/* ---- restore ------------------------------------------------------------- */

typedef dmesh_copies_restore_t restore_t;

/* Every member's versions, and the plan made of them (the same on every
 * member); DMESH_ERR_DATA_LOST names the members that lost the newest. */
static int gather_plan(struct dmesh_copies_s *c, dmesh_copies_record_t *rec, int *src, int *from,
                       int *refresh, int64_t *v, int err)
{
    dmesh_copies_slot_t *s = &c->d->slot;
    dmesh_copies_record_t mine = {s->version,
                                  s->held_version,
                                  (int64_t)s->own_len,
                                  (int64_t)s->held_len,
                                  c->d->id,
                                  s->held_for,
                                  c->d->born && s->version == DMESH_COPIES_NONE};
    int rc = MPI_Allgather(&mine, 7, MPI_INT64_T, rec, 7, MPI_INT64_T, c->comm);

    if (err)
        return err;
    if (rc != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "dmesh_copies_restore: MPI_Allgather");
    if ((err = dmesh_copies_plan_restore(&c->plan, rec, v, src, from, refresh)) ==
        DMESH_ERR_DATA_LOST) {
        int first = -1, count = 0;
        for (int r = 0; r < c->plan.n; r++)
            if (src[r] == DMESH_COPIES_SRC_LOST) {
                first = first < 0 ? r : first;
                count++;
            }
        return dmesh_error_set(DMESH_ERR_DATA_LOST,
                               "dmesh_copies_restore: the copies of %d process%s (the first: "
                               "rank %d) died with every holder of them; nothing restored",
                               count, count == 1 ? "" : "es", first >= 0 ? c->ranks[first] : -1);
    }
    return err;
}

/* After the moves: this member's copy of the version checked against the
 * registered buffers (*len: its length). */
static int check_own(struct dmesh_copies_s *c, restore_t *t, int err)
{
    size_t len = 0;

    if (err || t->src[c->me] == DMESH_COPIES_SRC_NONE)
        return err; /* no predecessor: nothing to give back */
    if (t->own != NULL) {
        err = dmesh_copies_check(c->d, t->own, t->own_len, &len);
        t->own_len = len;
        return err;
    }
    return dmesh_copies_check(c->d, c->d->slot.own, c->d->slot.own_len, &len);
}

/* The agreed outcome: keep the version's copies, roll the buffers back. */
static int commit(struct dmesh_copies_s *c, restore_t *t)
{
    dmesh_copies_slot_t n = c->d->slot;

    if (t->own != NULL) {
        n.own = t->own;
        n.own_len = t->own_len;
    }
    if (t->held != NULL) {
        n.held = t->held;
        n.held_len = t->held_len;
        n.held_version = t->v;
        n.held_for = t->held_for;
    }
    if (t->src[c->me] != DMESH_COPIES_SRC_NONE)
        n.version = t->v;
    dmesh_copies_slot_set(&c->d->slot, &n);
    t->own = t->held = NULL;
    if (t->src[c->me] == DMESH_COPIES_SRC_NONE)
        return DMESH_SUCCESS; /* its buffers stay as they are */
    return dmesh_copies_unpack(c->d, c->d->slot.own);
}

static int restore_steps(struct dmesh_copies_s *c, restore_t *t, int *src, int *from, int *refresh,
                         int err)
{
    dmesh_copies_xfer_t q = {.n = 0};

    t->src = src;
    t->from = from;
    t->refresh = refresh;
    if ((err = dmesh_agree_outcome(c->comm, err, "dmesh_copies_restore")) != DMESH_SUCCESS)
        return err; /* every member has its records' memory before the allgather */
    err = gather_plan(c, (dmesh_copies_record_t *)t->rec, src, from, refresh, &t->v, err);
    if (!err && t->v != DMESH_COPIES_NONE)
        err = c->plan.scheme->restore_alloc(c, t, err);
    if ((err = dmesh_agree_outcome(c->comm, err, "dmesh_copies_restore")) != DMESH_SUCCESS ||
        t->v == DMESH_COPIES_NONE)
        return err;
    err = c->plan.scheme->restore_moves(c, t, &q);
    err = check_own(c, t, err);
    if ((err = dmesh_agree_outcome(c->comm, err, "dmesh_copies_restore")) != DMESH_SUCCESS) {
        dmesh_copies_drain(&q);
        return err;
    }
    err = commit(c, t);
    settle(c, 0, 0); /* redundancy whole: as placed */
    return dmesh_agree_outcome(c->comm, err, "dmesh_copies_restore");
}

/* After a restore of version v with a placement waiting (c->next, the
 * domains'): every member holds its own copy again, so the held copies are
 * made there and the old placement goes, redundancy whole where the
 * domains ask (a set of one that a shrink left gets partners). Every
 * member takes the step; a failure leaves the old placement (agreed). */
static int place_anew(struct dmesh_copies_s *c, int64_t v)
{
    dmesh_copies_slot_t out = {DMESH_COPIES_NONE, NULL, 0, NULL, 0, DMESH_COPIES_NONE, 0};
    dmesh_copies_slot_t *s = &c->d->slot;
    int err;

    dmesh_copies_swap_next(c);
    if ((err = dmesh_copies_remake(c, s, v, &out, DMESH_SUCCESS)) != DMESH_SUCCESS) {
        dmesh_copies_swap_next(c);
        return err;
    }
    dmesh_copies_slot_take_held(s, &out);
    settle(c, 1, 0);
    return DMESH_SUCCESS;
}

int dmesh_copies_restore_impl(dmesh_copies_t h, int *version)
{
    struct dmesh_copies_s *c;
    restore_t t;
    dmesh_copies_record_t *rec;
    int *src, *from, *refresh, err = DMESH_SUCCESS;

    DMESH_TRY(dmesh_copies_get(h, "dmesh_copies_restore", &c));
    if (c->comm == MPI_COMM_NULL) { /* outside the mesh */
        if (version != NULL)
            *version = DMESH_COPIES_NONE;
        return DMESH_SUCCESS;
    }
    memset(&t, 0, sizeof(t));
    rec = malloc((size_t)c->plan.n * sizeof(*rec));
    src = malloc(3 * (size_t)c->plan.n * sizeof(int));
    from = src != NULL ? src + c->plan.n : NULL;
    refresh = src != NULL ? src + 2 * c->plan.n : NULL;
    if (version == NULL)
        err = dmesh_error_set(DMESH_ERR_ARG, "%s: argument 'version' is NULL",
                              "dmesh_copies_restore");
    else if (rec == NULL || src == NULL)
        err = dmesh_error_set(DMESH_ERR_NOMEM, "%s: no memory for %d records",
                              "dmesh_copies_restore", c->plan.n);
    t.rec = rec;
    err = restore_steps(c, &t, src, from, refresh, err);
    if (err == DMESH_SUCCESS && t.v != DMESH_COPIES_NONE && c->next.n > 0)
        err = place_anew(c, t.v); /* the buffers hold the version: a failure says repair */
    dmesh_copies_release(t.own);
    dmesh_copies_release(t.held);
    dmesh_copies_release(t.scratch);
    if (err == DMESH_SUCCESS)
        *version = src[c->me] == DMESH_COPIES_SRC_NONE ? DMESH_COPIES_NONE : (int)t.v;
    free(rec);
    free(src);
    return err;
}
