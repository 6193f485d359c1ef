/* SPDX-License-Identifier: BSD-3-Clause */
/* The copies' messages (copies_move.h): transfers in rounds of chunks, XOR
 * reductions in slices. The schemes' store and restore steps post their
 * transfers here; every failure comes back as a class for the step's
 * agreement, and nothing here agrees or waits for an agreement. */
#include "config.h"

#include <string.h>

#include "copies_mem.h"
#include "copies_move.h"
#include "copies_plan.h"
#include "error.h"

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
#define XFER_MAX DMESH_COPIES_XFER_MAX
#define XFER_ROUND DMESH_COPIES_XFER_ROUND
typedef dmesh_copies_xfer_t xfer_t;

int dmesh_copies_post(xfer_t *q, int send, void *buf, size_t len, int peer, int tag, MPI_Comm comm,
                      int err)
{
    /* a scheme's step posts at most 4 transfers */
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

int dmesh_copies_wait_all(xfer_t *q, int err)
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

void dmesh_copies_drain(xfer_t *q)
{
    for (int i = 0; i < q->nr; i++)
        if (q->r[i] != MPI_REQUEST_NULL) {
            MPI_Cancel(&q->r[i]);
            MPI_Wait(&q->r[i], MPI_STATUS_IGNORE);
        }
    q->nr = 0;
    q->n = 0;
}

void *dmesh_copies_alloc_or(size_t n, int *err)
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

int dmesh_copies_parity(MPI_Comm set, int m, int pos, const char *own, size_t len, size_t c,
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

/* The root receives into tmp and copies back: MPICH 4.0's MPI_Reduce with
 * MPI_IN_PLACE at a root other than 0 of 3 processes writes through a wild
 * pointer (a reproducer without dmesh crashes the same way). */
int dmesh_copies_xor_reduce(char *b, size_t n, int root, int is_root, char *tmp, MPI_Comm set)
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
