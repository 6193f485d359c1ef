/* SPDX-License-Identifier: BSD-3-Clause */
/* The private duplicate of a user's communicator (pcomm.c): made once per
 * user communicator, kept as an attribute on it, shared by the universes
 * made on it (reference counted). */
#ifndef DMESH_PCOMM_H
#define DMESH_PCOMM_H

#include <mpi.h>

typedef struct dmesh_private_comm dmesh_private_comm_t;

/* Collective over user: the private duplicate of user (made on first use,
 * its creation agreed over user, then taken from user's attribute), with a
 * reference for the caller. Returns the same class on every rank. */
int dmesh_private_comm_get(MPI_Comm user, dmesh_private_comm_t **p);
void dmesh_private_comm_release(dmesh_private_comm_t *p);
MPI_Comm dmesh_private_comm_handle(const dmesh_private_comm_t *p);

/* The identity of the next universe on p: every rank of the communicator
 * takes one per root creation call, whatever else failed, so that the
 * numbers stay the same on every rank. */
unsigned long dmesh_private_comm_next_id(dmesh_private_comm_t *p);

/* One more reference on p (local). */
void dmesh_private_comm_retain(dmesh_private_comm_t *p);

#endif /* DMESH_PCOMM_H */
