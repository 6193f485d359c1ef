/* SPDX-License-Identifier: BSD-3-Clause */
/* Copies in memory, their messages (copies_move.c): the transfers of one
 * step of a store or a restore in rounds of chunks, and the XOR reductions
 * in slices. MPI counts are ints: every message and reduction here is at
 * most one chunk (DMESH_COPIES_XFER_CHUNK), so copies of any size move. */
#ifndef DMESH_COPIES_MOVE_H
#define DMESH_COPIES_MOVE_H

#include <stddef.h>

#include <mpi.h>

#define DMESH_COPIES_TAG_COPY 7301 /* a store's copy, and a restore's copy to its owner */
#define DMESH_COPIES_TAG_HELD 7302 /* a restore's copy to its new holder */

/* The transfers of one step: dmesh_copies_post records each (a buffer to
 * or from one peer), dmesh_copies_wait_all moves them in rounds of at most
 * DMESH_COPIES_XFER_ROUND messages of each, all messages of a round posted
 * before it is waited for. Both ends of a transfer know its length, so a
 * message falls in the same round at both: a round completes once every
 * process has posted it, whatever the size of the copies (no limit to find
 * midway, when a peer already waits). */
#define DMESH_COPIES_XFER_MAX 8
#define DMESH_COPIES_XFER_ROUND 16
typedef struct {
    struct {
        char *buf;
        size_t len;
        int send, peer, tag;
    } t[DMESH_COPIES_XFER_MAX];
    int n;
    MPI_Comm comm;
    MPI_Request r[DMESH_COPIES_XFER_MAX * DMESH_COPIES_XFER_ROUND];
    int nr; /* requests of the round in progress */
} dmesh_copies_xfer_t;

/* Record a transfer (send: 1, receive: 0) of len bytes of buf with peer on
 * comm, tag DMESH_COPIES_TAG_*; err passed through (the first failure's
 * class). */
int dmesh_copies_post(dmesh_copies_xfer_t *q, int send, void *buf, size_t len, int peer, int tag,
                      MPI_Comm comm, int err);

/* Move every transfer posted; the first failure's class (err first). A
 * failed message (a peer that died) ends nothing early: the other peers
 * wait for the rounds after it; a message that cannot be posted (the
 * communicator revoked: every process's next one fails too) ends the
 * rounds. */
int dmesh_copies_wait_all(dmesh_copies_xfer_t *q, int err);

/* After a failed agreement: the transfers still pending end (the
 * communicator was revoked) before their buffers go. */
void dmesh_copies_drain(dmesh_copies_xfer_t *q);

/* n bytes from dmesh_copies_alloc when *err is DMESH_SUCCESS (NULL and
 * *err DMESH_ERR_NOMEM when there is no memory); NULL otherwise. */
void *dmesh_copies_alloc_or(size_t n, int *err);

/* XOR: the parity block of member pos of set (m members) for its copy own
 * (len bytes), chunks of c; par (c bytes) and contrib (m * c) given. In
 * slices of at most one transfer chunk of every block: slice s of the
 * blocks side by side in contrib, reduced and scattered into slice s of
 * each member's parity. err passed through (nothing done then). */
int dmesh_copies_parity(MPI_Comm set, int m, int pos, const char *own, size_t len, size_t c,
                        char *contrib, char *par, int err);

/* XOR: the sum of b (n bytes, a multiple of 8) over set at member root, in
 * slices of at most one transfer chunk; the root receives into tmp (n
 * bytes at least) and copies back. An MPI error code. */
int dmesh_copies_xor_reduce(char *b, size_t n, int root, int is_root, char *tmp, MPI_Comm set);

#endif /* DMESH_COPIES_MOVE_H */
