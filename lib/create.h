/* SPDX-License-Identifier: BSD-3-Clause */
/* The creation driver: the one sequence every collective creation call of
 * dmesh runs (root meshes, flatten, unflatten, deserialize, the Cartesian
 * communicator, a lazy NCCL communicator), so that the order of its
 * collective steps, the agreement and the roll-back are written once:
 *
 *   local checks -> join -> reserve -> agree -> make -> (roll back)
 *
 * 1. The caller checks its arguments locally and starts the request hash
 *    (request.h) with what every rank must share; its outcome is err.
 * 2. join (optional): collective steps every rank takes whatever its
 *    outcome, before anything is reserved (completing the private
 *    duplicate of a new communicator).
 * 3. reserve (only where all went well): local; cache entries reserved,
 *    handles made; adds what it found to the request and says whether a
 *    communicator is to be made (creating).
 * 4. agree: one agreement (agree.h) of every rank on the hash and the
 *    outcome; over the universe's communicator unless the call names
 *    another one.
 * 5. make (after a successful agreement): the collective creation; it
 *    agrees its own steps, so that every rank sees the same outcome.
 * 6. rollback (after a failed agreement or make): local and the same on
 *    every rank; the universe is as before the call.
 *
 * With the check off (dmesh_check=false) a rank whose checks failed returns
 * at once, and a call that creates nothing is local: no agreement. */
#ifndef DMESH_CREATE_H
#define DMESH_CREATE_H

#include <stdint.h>

#include "request.h"
#include "universe.h"

typedef struct dmesh_creation dmesh_creation_t;

/* What differs between the creation calls; any hook may be NULL. */
typedef struct {
    int (*join)(dmesh_creation_t *c, int err);
    int (*reserve)(dmesh_creation_t *c);
    int (*agree)(dmesh_creation_t *c, uint64_t hash, int err); /* NULL: over c->u */
    int (*make)(dmesh_creation_t *c);
    void (*rollback)(dmesh_creation_t *c);
} dmesh_creation_ops_t;

struct dmesh_creation {
    const dmesh_creation_ops_t *ops;
    const char *fn;
    dmesh_universe_t *u; /* may be set by reserve (a root creation makes it) */
    dmesh_request_t request;
    int creating;  /* 1 until reserve says that nothing is to be made */
    MPI_Comm over; /* what the agreement ran over (set by an agree hook) */
    void *call;    /* the call's own state, for the hooks */
};

/* Start a creation of the call fn (check: dmesh_check) on u. */
void dmesh_creation_begin(dmesh_creation_t *c, const dmesh_creation_ops_t *ops, const char *fn,
                          dmesh_universe_t *u, int check, void *call);

/* Run it, err being the outcome of the local checks; returns the outcome,
 * the same on every rank. */
int dmesh_creation_run(dmesh_creation_t *c, int err);

#endif /* DMESH_CREATE_H */
