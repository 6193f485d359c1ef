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
 * same plan on every process (copies_plan.c). */
#include "config.h"

#include "api_impl.h"

#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "copies.h"
#include "copies_mem.h"
#include "copies_plan.h"
#include "error.h"
#include "fault.h"
#include "hash.h"

/* Bytes per message and elements (uint64) per reduction: MPI counts are
 * ints. A build may set a smaller chunk (CPPFLAGS=-DDMESH_COPIES_XFER_CHUNK=
 * 4096: test/copies.mk's test_copies_chunk) to drive the paths of copies of
 * many chunks with small ones. */
#ifndef DMESH_COPIES_XFER_CHUNK
#define DMESH_COPIES_XFER_CHUNK 1073741824 /* 1 GiB */
#endif
#define XFER_CHUNK ((size_t)(DMESH_COPIES_XFER_CHUNK))
#if DMESH_COPIES_XFER_CHUNK % 8 != 0 || DMESH_COPIES_XFER_CHUNK < 8 ||                             \
    DMESH_COPIES_XFER_CHUNK > 0x7ffffff8
#error "DMESH_COPIES_XFER_CHUNK: a multiple of 8 bytes, from 8 to INT_MAX"
#endif
#define TAG_COPY 7301 /* a store's copy, and a restore's copy to its owner */
#define TAG_HELD 7302 /* a restore's copy to its new holder */

/* The transfers of one step: post() records each (a buffer to or from one
 * peer), wait_all() moves them in rounds of at most XFER_ROUND messages of
 * each, all messages of a round posted before it is waited for. Both ends
 * of a transfer know its length, so a message falls in the same round at
 * both: a round completes once every process has posted it, whatever the
 * size of the copies (no limit to find midway, when a peer already waits). */
#define XFER_MAX 8
#define XFER_ROUND 16
typedef struct {
    struct {
        char *buf;
        size_t len;
        int send, peer, tag;
    } t[XFER_MAX];
    int n;
    MPI_Comm comm;
    MPI_Request r[XFER_MAX * XFER_ROUND];
    int nr; /* requests of the round in progress */
} xfer_t;

static int post_tag(xfer_t *q, int send, void *buf, size_t len, int peer, int tag, MPI_Comm comm,
                    int err)
{
    /* the steps of this file post at most 4 transfers */
    if (q->n == XFER_MAX)
        return err ? err : dmesh_error_set(DMESH_ERR_INTERNAL, "copies: too many transfers");
    q->t[q->n].buf = buf;
    q->t[q->n].len = len;
    q->t[q->n].send = send;
    q->t[q->n].peer = peer;
    q->t[q->n].tag = tag;
    q->comm = comm;
    q->n++;
    return err;
}

static int post(xfer_t *q, int send, void *buf, size_t len, int peer, MPI_Comm comm, int err)
{
    return post_tag(q, send, buf, len, peer, TAG_COPY, comm, err);
}

/* The messages of transfer i (one of 0 bytes for an empty one). */
static size_t messages(const xfer_t *q, int i)
{
    return q->t[i].len == 0 ? 1 : (q->t[i].len + XFER_CHUNK - 1) / XFER_CHUNK;
}

/* Post round k's messages; the first failure's class (the others posted). */
static int post_round(xfer_t *q, size_t k, int err)
{
    for (int i = 0; i < q->n; i++)
        for (size_t j = k * XFER_ROUND; j < messages(q, i) && j < (k + 1) * XFER_ROUND; j++) {
            size_t off = j * XFER_CHUNK;
            int n = (int)(q->t[i].len - off < XFER_CHUNK ? q->t[i].len - off : XFER_CHUNK), rc;
            char *b = q->t[i].buf + off;
            MPI_Request *r = &q->r[q->nr];
            rc = q->t[i].send ? MPI_Isend(b, n, MPI_BYTE, q->t[i].peer, q->t[i].tag, q->comm, r)
                              : MPI_Irecv(b, n, MPI_BYTE, q->t[i].peer, q->t[i].tag, q->comm, r);
            if (rc != MPI_SUCCESS)
                return err ? err : dmesh_error_mpi(rc, "copies: a transfer");
            q->nr++;
        }
    return err;
}

/* Wait for the round's requests; the first failure's class. */
static int wait_round(xfer_t *q, int err)
{
    MPI_Status st[XFER_MAX * XFER_ROUND];
    int rc = MPI_Waitall(q->nr, q->r, st);

    if (rc == MPI_ERR_IN_STATUS)
        for (int i = 0; i < q->nr; i++)
            if (st[i].MPI_ERROR != MPI_SUCCESS && st[i].MPI_ERROR != MPI_ERR_PENDING) {
                rc = st[i].MPI_ERROR;
                break;
            }
    q->nr = 0;
    return err                 ? err
           : rc == MPI_SUCCESS ? DMESH_SUCCESS
                               : dmesh_error_mpi(rc, "copies: a transfer");
}

/* Move every transfer posted; the first failure's class. A failed message
 * (a peer that died) ends nothing early: the other peers wait for the
 * rounds after it; a message that cannot be posted (the communicator
 * revoked: every process's next one fails too) ends the rounds. */
static int wait_all(xfer_t *q, int err)
{
    size_t rounds = 0;

    for (int i = 0; i < q->n; i++) {
        size_t k = (messages(q, i) + XFER_ROUND - 1) / XFER_ROUND;
        rounds = k > rounds ? k : rounds;
    }
    for (size_t k = 0; k < rounds; k++) {
        int e = post_round(q, k, DMESH_SUCCESS);
        err = wait_round(q, err ? err : e);
        if (e != DMESH_SUCCESS)
            break;
    }
    q->n = 0;
    return err;
}

/* After a failed agreement: the transfers still pending end (the
 * communicator was revoked) before their buffers go. wait_all leaves none;
 * this stays for a step that fails between a post and its wait. */
static void drain(xfer_t *q)
{
    for (int i = 0; i < q->nr; i++)
        if (q->r[i] != MPI_REQUEST_NULL) {
            MPI_Cancel(&q->r[i]);
            MPI_Wait(&q->r[i], MPI_STATUS_IGNORE);
        }
    q->nr = 0;
    q->n = 0;
}

static void *alloc(size_t n, int *err)
{
    void *p = NULL;

    if (*err == DMESH_SUCCESS && (p = dmesh_copies_alloc(n)) == NULL)
        *err = dmesh_error_set(DMESH_ERR_NOMEM, "copies: no memory for %zu bytes", n);
    return p;
}

/* XOR: the bytes [off, off + n) of member me's contribution to parity
 * block i (dmesh_copies_contribution's, a slice of it) into out. */
static void contribution_slice(const char *own, size_t len, size_t c, int me, int i, int m,
                               size_t off, size_t n, char *out)
{
    size_t from = (size_t)dmesh_copies_chunk(i, me, m) * c + off, k = 0;

    if (i != me && from < len)
        k = len - from < n ? len - from : n;
    if (k > 0)
        memcpy(out, own + from, k);
    memset(out + k, 0, n - k);
}

/* XOR: the parity block of member pos of the set (m members) for its copy
 * own (len bytes), chunks of c; par (c bytes) and contrib (m * c) given.
 * In slices of at most XFER_CHUNK bytes of every block (counts are ints):
 * slice s of the blocks side by side in contrib, reduced and scattered into
 * slice s of each member's parity. */
static int xor_parity(MPI_Comm set, int m, int pos, const char *own, size_t len, size_t c,
                      char *contrib, char *par, int err)
{
    int rc = MPI_SUCCESS;

    if (err)
        return err;
    for (size_t off = 0; off < c && rc == MPI_SUCCESS; off += XFER_CHUNK) {
        size_t n = c - off < XFER_CHUNK ? c - off : XFER_CHUNK;
        for (int i = 0; i < m; i++)
            contribution_slice(own, len, c, pos, i, m, off, n, contrib + (size_t)i * n);
        rc =
            MPI_Reduce_scatter_block(contrib, par + off, (int)(n / 8), MPI_UINT64_T, MPI_BXOR, set);
    }
    return rc == MPI_SUCCESS ? DMESH_SUCCESS
                             : dmesh_error_mpi(rc, "copies: MPI_Reduce_scatter_block");
}

/* ---- store --------------------------------------------------------------- */

/* Partner: the lengths both ways, then (after the agreement) the copies. */
static int store_partner(struct dmesh_copies_s *c, dmesh_copies_slot_t *n, xfer_t *q, int err,
                         uint64_t hash)
{
    int h = dmesh_copies_holder(&c->plan, c->me), o = dmesh_copies_owner(&c->plan, c->me);
    uint64_t mine = n->own_len, theirs = 0;

    dmesh_fault_step(); /* test builds: a process may die before the transfers */
    if (h != c->me) {
        int e = post(q, 0, &theirs, sizeof(theirs), o, c->comm, DMESH_SUCCESS);
        e = post(q, 1, &mine, sizeof(mine), h, c->comm, e);
        err = wait_all(q, e ? e : err);
        q->n = 0;
        n->held_len = theirs;
        n->held_for = c->ids[o];
        if (!err && (n->held = dmesh_copies_alloc(theirs)) == NULL)
            err =
                dmesh_error_set(DMESH_ERR_NOMEM, "copies: no memory for %zu bytes", (size_t)theirs);
    }
    if ((err = dmesh_agree(c->comm, hash, err, "dmesh_copies_store")) != DMESH_SUCCESS ||
        h == c->me)
        return err;
    err = post(q, 0, n->held, n->held_len, o, c->comm, DMESH_SUCCESS);
    dmesh_fault_step(); /* ... with its receive posted, before its send */
    err = post(q, 1, n->own, n->own_len, h, c->comm, err);
    err = wait_all(q, err);
    dmesh_fault_step(); /* ... or once its transfers are done */
    return err;
}

/* XOR: the longest copy of the set sets the chunk; then the parity. */
static int store_xor(struct dmesh_copies_s *c, dmesh_copies_slot_t *n, int err, uint64_t hash)
{
    int m = 1, pos = 0, rc;
    uint64_t mine = n->own_len, longest = 0;
    char *contrib = NULL;

    MPI_Comm_size(c->set, &m);
    MPI_Comm_rank(c->set, &pos);
    dmesh_fault_step(); /* test builds: a process may die before the transfers */
    rc = MPI_Allreduce(&mine, &longest, 1, MPI_UINT64_T, MPI_MAX, c->set);
    if (rc != MPI_SUCCESS && !err)
        err = dmesh_error_mpi(rc, "dmesh_copies_store: MPI_Allreduce");
    if (m > 1) {
        n->held_len = dmesh_copies_chunk_size(longest, m);
        n->held_for = dmesh_copies_set_sign(&c->plan, c->ids, c->me);
        if (!err && (n->held = dmesh_copies_alloc(n->held_len)) == NULL)
            err = dmesh_error_set(DMESH_ERR_NOMEM, "copies: no memory for %zu bytes", n->held_len);
        contrib = alloc((size_t)m * n->held_len, &err);
    }
    if ((err = dmesh_agree(c->comm, hash, err, "dmesh_copies_store")) == DMESH_SUCCESS && m > 1)
        dmesh_fault_step(); /* ... or before the parity's reduction */
    if (err == DMESH_SUCCESS && m > 1)
        err = xor_parity(c->set, m, pos, n->own, n->own_len, n->held_len, contrib, n->held, err);
    dmesh_copies_release(contrib);
    return err;
}

int dmesh_copies_store_impl(dmesh_copies_t h, int version)
{
    struct dmesh_copies_s *c;
    dmesh_copies_slot_t n = {DMESH_COPIES_NONE, NULL, 0, NULL, 0, DMESH_COPIES_NONE, 0};
    xfer_t q = {.n = 0};
    int err = DMESH_SUCCESS;
    uint64_t hash;

    DMESH_TRY(dmesh_copies_get(h, "dmesh_copies_store", &c));
    if (c->comm == MPI_COMM_NULL)
        return DMESH_SUCCESS; /* outside the mesh */
    if (version < 0 || version <= c->d->slot.version)
        err = dmesh_error_set(DMESH_ERR_ARG,
                              "%s: version %d is not greater than the last one stored or "
                              "restored (%lld)",
                              "dmesh_copies_store", version, (long long)c->d->slot.version);
    if (!err)
        err = dmesh_copies_pack(c->d, version, &n.own, &n.own_len);
    hash = dmesh_hash(DMESH_HASH_INIT, &version, sizeof(version));
    if (c->plan.scheme == DMESH_COPIES_PARTNER)
        err = store_partner(c, &n, &q, err, hash);
    else
        err = store_xor(c, &n, err, hash);
    err = dmesh_agree_outcome(c->comm, err, "dmesh_copies_store");
    if (err != DMESH_SUCCESS) { /* the previous version stays */
        drain(&q);
        dmesh_copies_release(n.own);
        dmesh_copies_release(n.held);
        return err;
    }
    n.version = n.held_version = version;
    if (n.held == NULL) {
        n.held_version = DMESH_COPIES_NONE;
        n.held_for = 0;
    }
    dmesh_copies_slot_set(&c->d->slot, &n);
    return DMESH_SUCCESS;
}

/* ---- restore ------------------------------------------------------------- */

/* What a restore moves to this process, allocated before the transfers. */
typedef struct {
    int64_t v; /* the version restored */
    const dmesh_copies_record_t *rec;
    const int *src, *from, *refresh;
    char *own; /* the copy received or rebuilt, NULL: its own */
    size_t own_len;
    char *held; /* the copy or parity held anew, NULL: kept */
    size_t held_len;
    uint64_t held_for; /* whose copy, or which set's parity, held is */
    char *scratch;     /* xor: the rebuild's and the parity's */
    int m, pos, lost;  /* xor: the set, this member's place, its rebuilt one (-1) */
    const int *members;
} restore_t;

/* Partner: who sends r's copy (its own, or the member holding it) to r's
 * holder, and its length. */
static int refresh_sender(const restore_t *t, int r, size_t *len)
{
    int x = t->src[r] == DMESH_COPIES_SRC_SELF ? r : t->from[r];

    *len = (size_t)(x == r ? t->rec[r].own_len : t->rec[x].held_len);
    return x;
}

static int partner_alloc(struct dmesh_copies_s *c, restore_t *t, int err)
{
    int o = dmesh_copies_owner(&c->plan, c->me);

    if (t->src[c->me] == DMESH_COPIES_SRC_HOLDER) {
        t->own_len = (size_t)t->rec[t->from[c->me]].held_len;
        t->own = alloc(t->own_len, &err);
    }
    if (o != c->me && t->refresh[o]) {
        refresh_sender(t, o, &t->held_len);
        t->held_for = c->ids[o];
        t->held = alloc(t->held_len, &err);
    }
    return err;
}

/* Partner: a member that was not given its copy back by itself gets it from
 * the member holding it; a holder that lacks its owner's copy of the
 * version gets it from the owner, or from the member holding it. */
static int partner_moves(struct dmesh_copies_s *c, restore_t *t, xfer_t *q)
{
    dmesh_copies_slot_t *s = &c->d->slot;
    int err = DMESH_SUCCESS, o = dmesh_copies_owner(&c->plan, c->me);
    size_t len;

    if (t->own != NULL)
        err = post(q, 0, t->own, t->own_len, t->from[c->me], c->comm, err);
    if (t->held != NULL)
        err = post_tag(q, 0, t->held, t->held_len, refresh_sender(t, o, &len), TAG_HELD, c->comm,
                       err);
    dmesh_fault_step(); /* test builds: a process may die before its transfers */
    for (int r = 0; r < c->plan.n; r++) {
        if (t->src[r] == DMESH_COPIES_SRC_HOLDER && t->from[r] == c->me)
            err = post(q, 1, s->held, (size_t)t->rec[c->me].held_len, r, c->comm, err);
        if (t->refresh[r] && refresh_sender(t, r, &len) == c->me)
            err = post_tag(q, 1, r == c->me ? s->own : s->held, len,
                           dmesh_copies_holder(&c->plan, r), TAG_HELD, c->comm, err);
    }
    return wait_all(q, err);
}

/* XOR: the set's chunk (from its members that hold the version's parity). */
static size_t xor_chunk(const restore_t *t)
{
    size_t ch = 0;

    for (int i = 0; i < t->m; i++)
        if (t->rec[t->members[i]].held == t->v && (size_t)t->rec[t->members[i]].held_len > ch)
            ch = (size_t)t->rec[t->members[i]].held_len;
    return ch;
}

static int xor_alloc(struct dmesh_copies_s *c, restore_t *t, int err)
{
    size_t ch;

    dmesh_copies_set(&c->plan, c->me, &t->members, &t->m, &t->pos);
    t->lost = -1;
    if (!t->refresh[c->me])
        return err;
    for (int i = 0; i < t->m; i++)
        if (t->src[t->members[i]] == DMESH_COPIES_SRC_PARITY)
            t->lost = i;
    if ((ch = xor_chunk(t)) == 0) { /* no parity of the version: from the copies */
        size_t longest = 0;
        for (int i = 0; i < t->m; i++)
            if ((size_t)t->rec[t->members[i]].own_len > longest)
                longest = (size_t)t->rec[t->members[i]].own_len;
        ch = dmesh_copies_chunk_size(longest, t->m);
    }
    t->held_len = ch;
    t->held_for = dmesh_copies_set_sign(&c->plan, c->ids, c->me);
    t->held = alloc(ch, &err);
    t->scratch = alloc((size_t)t->m * ch, &err);
    if (t->lost == t->pos) {
        t->own_len = (size_t)(t->m - 1) * ch;
        t->own = alloc(t->own_len, &err);
    }
    return err;
}

/* XOR: the sum of b (n bytes) over the set at member root, in slices of
 * at most XFER_CHUNK bytes (counts are ints); the root receives into tmp
 * (n bytes at least) and copies back: MPICH 4.0's MPI_Reduce with
 * MPI_IN_PLACE at a root other than 0 of 3 processes writes through a
 * wild pointer (a reproducer without dmesh crashes the same way). */
static int xor_reduce(char *b, size_t n, int root, int is_root, char *tmp, MPI_Comm set)
{
    int rc = MPI_SUCCESS;

    for (size_t off = 0; off < n && rc == MPI_SUCCESS; off += XFER_CHUNK) {
        size_t len = n - off < XFER_CHUNK ? n - off : XFER_CHUNK;
        int count = (int)(len / 8);
        rc = MPI_Reduce(b + off, is_root ? tmp + off : NULL, count, MPI_UINT64_T, MPI_BXOR, root,
                        set);
        if (rc == MPI_SUCCESS && is_root)
            memcpy(b + off, tmp + off, len);
    }
    return rc;
}

/* XOR: the lost member's copy, then the set's parity anew. */
static int xor_moves(struct dmesh_copies_s *c, restore_t *t)
{
    dmesh_copies_slot_t *s = &c->d->slot;
    size_t ch = t->held_len, len;
    int err = DMESH_SUCCESS, rc, x = t->lost;
    const char *own;

    if (!t->refresh[c->me])
        return err;
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
        rc = xor_reduce(b, (size_t)(t->m - 1) * ch, x, x == t->pos, t->scratch, c->set);
        if (rc != MPI_SUCCESS)
            return dmesh_error_mpi(rc, "dmesh_copies_restore: MPI_Reduce");
    }
    own = t->own != NULL ? t->own : s->own;
    len = t->own != NULL ? t->own_len : s->own_len;
    return xor_parity(c->set, t->m, t->pos, own, len, ch, t->scratch, t->held, err);
}

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
    xfer_t q = {.n = 0};
    int xor = c->plan.scheme == DMESH_COPIES_XOR;

    t->src = src;
    t->from = from;
    t->refresh = refresh;
    if ((err = dmesh_agree_outcome(c->comm, err, "dmesh_copies_restore")) != DMESH_SUCCESS)
        return err; /* every member has its records' memory before the allgather */
    err = gather_plan(c, (dmesh_copies_record_t *)t->rec, src, from, refresh, &t->v, err);
    if (!err && t->v != DMESH_COPIES_NONE)
        err = xor? xor_alloc(c, t, err) : partner_alloc(c, t, err);
    if ((err = dmesh_agree_outcome(c->comm, err, "dmesh_copies_restore")) != DMESH_SUCCESS ||
        t->v == DMESH_COPIES_NONE)
        return err;
    err = xor? xor_moves(c, t) : partner_moves(c, t, &q);
    err = check_own(c, t, err);
    if ((err = dmesh_agree_outcome(c->comm, err, "dmesh_copies_restore")) != DMESH_SUCCESS) {
        drain(&q);
        return err;
    }
    err = commit(c, t);
    return dmesh_agree_outcome(c->comm, err, "dmesh_copies_restore");
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
    dmesh_copies_release(t.own);
    dmesh_copies_release(t.held);
    dmesh_copies_release(t.scratch);
    if (err == DMESH_SUCCESS)
        *version = src[c->me] == DMESH_COPIES_SRC_NONE ? DMESH_COPIES_NONE : (int)t.v;
    free(rec);
    free(src);
    return err;
}
