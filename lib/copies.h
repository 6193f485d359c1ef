/* SPDX-License-Identifier: BSD-3-Clause */
/* Copies in memory (dmesh_copies_*): a process's state kept in the memory
 * of other members of a mesh. This header declares copies.c's objects (the
 * process's named copies, the handles that open them on a mesh, the packing
 * of the registered buffers); copies_xfer.c holds the collective store and
 * restore, copies_scheme.h the table of schemes (partner, xor: one file
 * each) it calls, copies_move.h their messages, copies_place.h and
 * copies_plan.h the pure parts (the lines and domain order the schemes
 * place along, the XOR parity's chunks, which version a restore can give
 * every member), copies_mem.h their memory, copies_device.h device
 * buffers. */
#ifndef DMESH_COPIES_H
#define DMESH_COPIES_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "copies_place.h"
#include "dmesh.h"

typedef struct {
    int id;
    void *buf;
    MPI_Count count; /* elements; a sized buffer's room */
    MPI_Datatype type;
    MPI_Count *sized; /* dmesh_copies_add_sized: the elements it holds now; NULL */
    int contiguous;
    int device; /* device memory (a "cuda" mesh's copies): copied with cudaMemcpy */
} dmesh_copies_buf_t;

/* One stored version as this process keeps it. */
typedef struct {
    int64_t version; /* DMESH_COPIES_NONE: nothing */
    char *own;       /* this process's copy (copies.c's packed form) */
    size_t own_len;
    char *held;      /* partner: the copy held for its owner; xor: parity */
    size_t held_len; /* partner: bytes; xor: the chunk size */
    int64_t held_version;
    uint64_t held_for; /* partner: the identity of held's owner; xor: its set's sign */
} dmesh_copies_slot_t;

/* A process's copies of one name (kept by the process). */
typedef struct dmesh_copies_data {
    char name[DMESH_MAX_NAME];
    dmesh_copies_buf_t *bufs; /* ascending ids */
    int nbufs, capbufs;
    dmesh_copies_slot_t slot;
    const struct dmesh_copies_scheme *scheme; /* the plan's */
    int dim, k;  /* the plan's, dim as asked (DMESH_COPIES_DIM_DEFAULT) */
    uint64_t id; /* the owner's identity (0: none yet) */
    int born;    /* id drawn here: no predecessor */
    /* the members at the last open, by flat index, three rows of table_n:
     * their identities, the failure domains the placement was made with,
     * and whether each had nothing stored (its restore gives nothing back;
     * a successful store clears the row) */
    uint64_t *table;
    int table_n;
    int64_t epoch;               /* of that open: one more than the newest table of its members */
    struct dmesh_copies_s *open; /* the handle that has them */
    struct dmesh_copies_data *next;
} dmesh_copies_data_t;

struct dmesh_copies_s {
    uint64_t magic;
    dmesh_copies_data_t *d;   /* NULL once opened again elsewhere */
    MPI_Comm comm;            /* the members, by flat index; MPI_COMM_NULL outside */
    MPI_Comm set;             /* xor: this member's set */
    MPI_Comm raise;           /* MPI_COMM_SELF's duplicate with the handler of the
                                 communicator the mesh was made from: failures
                                 are raised there */
    dmesh_copies_plan_t plan; /* the placement the copies held now were made for */
    /* The placement the members' domains ask for, when it differs from
     * plan's (a replacement on another host keeps the sets it had: a
     * parity serves the set it was made for): the next store makes its
     * copies there and then drops plan. n == 0: none. */
    dmesh_copies_plan_t next;
    MPI_Comm next_set;          /* xor: this member's set in next */
    uint64_t *ids;              /* the members' identities */
    uint64_t *domain;           /* the members' failure domains */
    uint64_t *placed;           /* the domains plan was made with */
    int64_t epoch;              /* the open's (dmesh_copies_data_t's) */
    uint64_t seq;               /* the order of the opens of this process */
    MPI_Info info;              /* the open's (a duplicate), MPI_INFO_NULL */
    uint64_t key;               /* of the mesh opened on (dmesh_copies_mesh_key) */
    dmesh_copies_slot_t remade; /* held copies made anew by the open (version NONE:
                                   none), kept once the open is agreed */
    int cuda;                   /* the mesh is a "cuda" one: buffers may be device memory */
    int me;                     /* flat index */
    int *ranks;                 /* the members as ranks of the mesh's communicator */
    const void *universe;       /* of the mesh opened on (compared, never read) */
    struct dmesh_copies_s *next_live;
};

/* The handle h checked (a freed or foreign one is DMESH_ERR_ARG, found
 * without reading it), with its copies; fn: the call. */
int dmesh_copies_get(dmesh_copies_t h, const char *fn, struct dmesh_copies_s **c);

/* Where the entry points raise a failure of a call on h: its private
 * communicator with the user's handler, MPI_COMM_NULL (MPI_COMM_SELF) for a
 * handle that is not valid. */
MPI_Comm dmesh_copies_raise_comm(dmesh_copies_t h);

/* Pack the registered buffers (with their ids and sizes) into a new
 * malloc'd copy; *len its bytes. */
int dmesh_copies_pack(dmesh_copies_data_t *d, int64_t version, char **copy, size_t *len);

/* DMESH_ERR_MISMATCH unless copy (of len bytes at least, maybe padded)
 * holds the registered ids and sizes; *len_out: its own length. */
int dmesh_copies_check(const dmesh_copies_data_t *d, const char *copy, size_t len, size_t *len_out);

/* Copy a checked copy into the registered buffers (a copy made by
 * dmesh_copies_pack from them). */
int dmesh_copies_unpack(const dmesh_copies_data_t *d, const char *copy);

/* The held copies (partner) or parities (xor) of version v made again
 * under c's placement from every member's own copy in s (a member with
 * nothing stored gives an empty one), into *out's held part (out->held
 * NULL: none here); s is not changed. Collective over the members: every
 * member takes the step with err and returns the agreed class; on failure
 * *out holds nothing. */
int dmesh_copies_remake(struct dmesh_copies_s *c, const dmesh_copies_slot_t *s, int64_t v,
                        dmesh_copies_slot_t *out, int err);

/* Swap c's placement and its next one (with their communicators), under
 * the lock that revocations take. */
void dmesh_copies_swap_next(struct dmesh_copies_s *c);

/* Drop c's next placement (after a swap: the placement given up). */
void dmesh_copies_drop_next(struct dmesh_copies_s *c);

/* ---- repairs (lib/ft/repair.c) ---- */

/* A key of a mesh's shape and ranks: the copies opened on it are the ones a
 * repair of an equal mesh moves. */
uint64_t dmesh_copies_mesh_key(dmesh_t mesh);

/* The live handles opened on meshes equal to mesh, of its universe, in
 * the order this process opened them: *out (malloc'd, n). */
int dmesh_copies_of_mesh(dmesh_t mesh, struct dmesh_copies_s ***out, int *n);

/* dmesh_copies_open, but a failure leaves the copies with the handle that
 * has them (the repair that reopens them keeps that handle). */
int dmesh_copies_reopen(dmesh_t mesh, const char *name, MPI_Info info, dmesh_copies_t *copies);

/* Handle h becomes the handle n that opened h's copies again (the program
 * keeps its handle across a repair); n, with h's old parts, is freed. */
void dmesh_copies_take_over(struct dmesh_copies_s *h, struct dmesh_copies_s *n);

/* Replace the slot by a new one (the old one freed). */
void dmesh_copies_slot_set(dmesh_copies_slot_t *s, const dmesh_copies_slot_t *n);

void dmesh_copies_slot_free(dmesh_copies_slot_t *s);

/* The held part of s (copy or parity, its version and whom it serves)
 * replaced by *from's, which gives it up (its held NULL). */
void dmesh_copies_slot_take_held(dmesh_copies_slot_t *s, dmesh_copies_slot_t *from);

#endif /* DMESH_COPIES_H */
