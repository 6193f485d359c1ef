/* SPDX-License-Identifier: BSD-3-Clause */
/* The private duplicate of a user's communicator (pcomm.c): made once per
 * user communicator, kept as an attribute on it, shared by the universes
 * made on it (reference counted). */
#ifndef DMESH_PCOMM_H
#define DMESH_PCOMM_H

#include <mpi.h>

#include "node_find.h"

typedef struct dmesh_private_comm dmesh_private_comm_t;

/* The private duplicate of a user communicator while a creation call
 * obtains it: found on the communicator, or new, its MPI_Comm_idup in
 * flight so that the call's local work overlaps the duplication. Fields are
 * pcomm.c's. */
typedef struct {
    dmesh_private_comm_t *p; /* with a reference for the caller until settled */
    MPI_Comm user;
    MPI_Comm comm;   /* a new duplicate not yet owned by p */
    MPI_Request req; /* its MPI_Comm_idup */
    int fresh;       /* user had none: this call duplicates it */
    int attached;    /* the new one is user's attribute */
    int err;         /* the duplication's local class */
} dmesh_private_comm_pending_t;

/* Collective over user when it has no private duplicate yet (every rank
 * then posts MPI_Comm_idup, whatever failed before); local otherwise. A
 * failure is kept in s until dmesh_private_comm_complete; err: the
 * caller's local failure before it (the finalize hook, finalize.h), kept
 * as one of its own. Whether a duplicate exists is the same on every
 * rank: its creation is agreed. */
void dmesh_private_comm_begin(MPI_Comm user, int err, dmesh_private_comm_pending_t *s);

/* Local: completes the duplication (on every path), attaches a new
 * duplicate to user and returns err, or else the duplication's local
 * class. The duplicate is usable afterwards where it returns
 * DMESH_SUCCESS, but kept only after the agreement below. */
int dmesh_private_comm_complete(dmesh_private_comm_pending_t *s, int err);

/* What the call's agreement runs over: user for a new duplicate (which may
 * be missing on some ranks, so the agreement decides its outcome too),
 * else the duplicate. */
MPI_Comm dmesh_private_comm_agreed_over(const dmesh_private_comm_pending_t *s);

/* Local, after that agreement, with its class: ends the caller's use of
 * the duplicate (its reference goes; a universe made on it holds its own).
 * On failure a new duplicate is dropped on every rank (references held
 * elsewhere, such as a universe made before the agreement, keep it until
 * they go). */
void dmesh_private_comm_settle(dmesh_private_comm_pending_t *s, int agreed);

void dmesh_private_comm_release(dmesh_private_comm_t *p);
MPI_Comm dmesh_private_comm_handle(const dmesh_private_comm_t *p);

/* The user's communicator p duplicates (valid while the program has not
 * freed it: during a creation call on it). */
MPI_Comm dmesh_private_comm_user(const dmesh_private_comm_t *p);

/* The user's communicator while it still carries p (the program has not
 * freed it, nor was p detached), else MPI_COMM_NULL. Local. */
MPI_Comm dmesh_private_comm_user_alive(const dmesh_private_comm_t *p);

/* Local: p is no longer the private duplicate of its user communicator
 * (revoked: the next mesh on that communicator makes a new one); the
 * universes holding p keep it until they go. */
void dmesh_private_comm_detach(dmesh_private_comm_t *p);

/* The identity of the next universe on p: every rank of the communicator
 * takes one per root creation call, whatever else failed, so that the
 * numbers stay the same on every rank. */
unsigned long dmesh_private_comm_next_id(dmesh_private_comm_t *p);

/* Local: p says on stderr when it is released (DMESH_DEBUG, printing
 * rank). */
void dmesh_private_comm_debug(dmesh_private_comm_t *p);

/* Local: the nodes of p's communicator, found once (node_find.h), freed
 * with p; NULL for p NULL. */
dmesh_node_cache_t *dmesh_private_comm_nodes(dmesh_private_comm_t *p);

/* At MPI_Finalize (finalize.c): release every private duplicate still
 * cached on a user communicator (the attribute's reference: universes
 * still alive keep theirs), then the attribute's keyval. 0 when the MPI
 * refused the calls that needs (it counts itself finalised already): the
 * duplicates are only forgotten, and the keyvals stay. */
int dmesh_private_comm_release_attached(void);

/* One more reference on p (local). */
void dmesh_private_comm_retain(dmesh_private_comm_t *p);

#endif /* DMESH_PCOMM_H */
