/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): the message that the parents of dmesh_respawn
 * and dmesh_grow send their new processes, described once: the struct
 * below, and its bytes on the wire (join_message.c packs and unpacks it).
 * No MPI call here, so that it is tested alone. */
#ifndef DMESH_FT_JOIN_MESSAGE_H
#define DMESH_FT_JOIN_MESSAGE_H

#define DMESH_JOIN_MAGIC 0x646d6a6eu /* "dmjn" */
#define DMESH_JOIN_VERSION 1
#define DMESH_JOIN_TAG 27749       /* the message's MPI tag */
#define DMESH_JOIN_HEADER_BYTES 32 /* the header on the wire (below) */

/* The message: the plan of the new communicator and of the mesh on it,
 * which both sides follow. On the wire: a header of 32 bytes (uint32
 * magic, uint32 version, then int32 reason, status, size, nnewcomers, textlen,
 * keyslen, in this order, in the processes' byte order), then nnewcomers int32
 * ranks, then textlen bytes of text and keyslen bytes of keys, each
 * NUL-terminated. */
typedef struct {
    int reason;         /* DMESH_JOIN_RESPAWN or DMESH_JOIN_GROW */
    int status;         /* DMESH_SUCCESS, or the class of the parents' failed call
                         * (the new processes then return it and do not merge) */
    int size;           /* the new communicator's size */
    int nnewcomers;     /* how many new processes */
    int *newcomer_rank; /* per new process, its rank in the new communicator */
    char *text;         /* the mesh (dmesh_serialize); NULL is sent as "" */
    char *keys;         /* the options (dmesh_options_shared_text); NULL is sent as "" */
} dmesh_join_message_t;

/* The bytes of m, malloc'd into *buf (*len of them). DMESH_ERR_SIZE past
 * INT_MAX bytes, DMESH_ERR_NOMEM. */
int dmesh_join_pack(const dmesh_join_message_t *m, char **buf, int *len);

/* Check and read a message of len bytes into *m (its newcomer ranks, text and keys
 * malloc'd; on failure all NULL): DMESH_ERR_ARG (naming what is wrong:
 * magic, version, lengths, places) for one that dmesh did not send. */
int dmesh_join_unpack(const char *buf, int len, dmesh_join_message_t *m);

/* Free what dmesh_join_unpack (or the parents) allocated in m; m zeroed. */
void dmesh_join_message_free(dmesh_join_message_t *m);

#endif /* DMESH_FT_JOIN_MESSAGE_H */
