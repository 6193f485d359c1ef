/* SPDX-License-Identifier: BSD-3-Clause */
/* A universe's communicators (universe_comms.c): the reservation of a
 * call's cache entries, the creation of their MPI communicators and the
 * backends' pairing, the agreement over the universe, the rollback of a
 * failed call, the communicators handed to the program, and their ends
 * (teardown, dmesh_abort, dmesh_revoke); the DMESH_DEBUG printer that
 * both files of the universe use. The universe itself is universe.h's. */
#ifndef DMESH_UNIVERSE_COMMS_H
#define DMESH_UNIVERSE_COMMS_H

#include <stdint.h>

#include <mpi.h>

#include "backend.h"
#include "cache.h"
#include "dmesh.h"
#include "error.h"
#include "options.h"
#include "universe.h"

/* Local: e (added by dmesh_universe_add_entry) holds comm from now on; the
 * universe frees it with the others. */
void dmesh_universe_set_entry_comm(dmesh_comm_entry_t *e, MPI_Comm comm);

/* Local: e's communicator as the program gets it (dmesh_get_comm,
 * dmesh_get_cart_comm; fn names the call): at the first hand-out it gets
 * the error handler of the user's communicator and dmesh starts watching
 * for the program freeing it (handout.h). DMESH_ERR_ARG when the program
 * freed it before. */
int dmesh_universe_hand_out(dmesh_universe_t *u, dmesh_comm_entry_t *e, const char *fn,
                            MPI_Comm *comm);

/* Local: DMESH_ERR_ARG when the program freed e's communicator, which a
 * call of fn needs (a cache hit, a lazy pairing). */
int dmesh_universe_entry_usable(const dmesh_comm_entry_t *e, const char *fn);

/* Local: around dmesh's own calls on e's communicator once the program may
 * have it: MPI_ERRORS_RETURN, then the program's handler again. */
int dmesh_universe_own_begin(const dmesh_comm_entry_t *e);
int dmesh_universe_own_end(const dmesh_universe_t *u, const dmesh_comm_entry_t *e);

/* Free the communicators of u's cache: the backends' first, then MPI, each
 * in reverse creation order (a paired communicator may use its MPI one);
 * a communicator the program freed is only forgotten (handout.h). */
void dmesh_universe_free_comms(dmesh_universe_t *u);

/* dmesh_agree (agree.h) over u->comm, with the universe's identity in the
 * hash: every rank returns the same class. */
int dmesh_universe_agree(dmesh_universe_t *u, uint64_t hash, int local_err, const char *what);

/* dmesh_agree_outcome over u->comm: a step after the call's arguments and
 * universe were agreed, whose outcome alone counts (agree.h). */
int dmesh_universe_agree_outcome(dmesh_universe_t *u, int local_err, const char *what);

/* Local: the cache entry of a canonical axis with the given options, or a
 * new one reserved at the end of the cache (e->reserved: no communicator
 * yet), to be made by split or, as comm_create says, by group creation
 * (e->by_group; the caller's group is made here). Collective calls reserve
 * every entry they need before their agreement, so that a failure on one
 * rank (an allocation, the group) is agreed too. */
int dmesh_universe_reserve(dmesh_universe_t *u, const dmesh_axis_t *axis,
                           const dmesh_axis_options_t *o, int comm_create, dmesh_comm_entry_t **e);

/* Local: the entry of (axis, options key), or NULL. For a communicator that
 * the caller makes itself (mesh_cart.c), with the next two. */
dmesh_comm_entry_t *dmesh_universe_find_entry(dmesh_universe_t *u, const dmesh_axis_t *axis,
                                              const char *key);

/* Local: a new MPI entry of (axis, key) at the end of the cache, with no
 * communicator yet (the caller makes e->comm). */
int dmesh_universe_add_entry(dmesh_universe_t *u, const dmesh_axis_t *axis, const char *key,
                             dmesh_comm_entry_t **e);

/* Take out the entry added last (its communicator was not made). */
void dmesh_universe_drop_entry(dmesh_universe_t *u);

/* Take out the reserved entries at the end of the cache (on every rank,
 * after a failed agreement), freeing what was made of them. */
void dmesh_universe_unreserve(dmesh_universe_t *u);

/* Collective over u->comm, after the agreement on the reservations: make
 * the reserved entries among e[0..n) in order (split, or group creation as
 * chosen when reserved; or a duplicate of given[i], MPI_COMM_NULL outside
 * the mesh, when given is not NULL), every rank taking part in each whatever
 * failed before, then one agreement; then each backend of the table pairs
 * its communicators with theirs (its make hook, with the call's options
 * o->call[b]: nccl defers them under dmesh_nccl_init=lazy). On failure
 * every rank unreserves and returns the same class. */
int dmesh_universe_make(dmesh_universe_t *u, int n, dmesh_comm_entry_t *const e[],
                        const MPI_Comm given[], const dmesh_options_t *o);

/* Collective over u->comm, for a backend's make: the entry of the axis
 * that holds the whole rank map, with the options o, its MPI communicator
 * made. When the call has to add it, it is reserved in front of the call's
 * own reservations (so that the teardown and a rollback treat it as
 * theirs) and agreed; every rank returns the same class. */
int dmesh_universe_whole_entry(dmesh_universe_t *u, const dmesh_axis_options_t *o,
                               dmesh_comm_entry_t **e);

/* Collective over the members of e->comm: make e's pending paired
 * communicator on its own (its backend's make, without call options); the
 * callers refuse an aborted universe first (its communicators are gone). */
int dmesh_universe_pair_entry(dmesh_universe_t *u, dmesh_comm_entry_t *e);

/* Local, for a backend: e holds paired from now on (no longer pending); the
 * universe frees it with its backend's destroy. */
void dmesh_universe_pair_done(dmesh_comm_entry_t *e, void *paired);

/* Local: backend b's state in u (read-only; b's make gets it writable). */
const dmesh_backend_state_t *dmesh_universe_backend_state(const dmesh_universe_t *u,
                                                          const dmesh_backend_t *b);

/* Local: the figures of dmesh_get_cache_info (the backends add theirs). */
void dmesh_universe_cache_info(const dmesh_universe_t *u, dmesh_cache_info_t *info);

/* Print a DMESH_DEBUG line on the universe's rank 0. */
void dmesh_universe_debug(const dmesh_universe_t *u, const char *fmt, ...) DMESH_PRINTF(2, 3);

/* Abort the backends' paired communicators (each backend's abort_all) and
 * free the MPI ones (dmesh_abort); later collective calls and NCCL queries
 * on u are DMESH_ERR_ARG "universe aborted". */
int dmesh_universe_abort(dmesh_universe_t *u);

/* Local, with fault tolerance on: revoke u's communicators (the private
 * one and every entry's, MPIX_Comm_revoke) and abort the backends' paired
 * ones, so that every process blocked in any of them returns; u stays
 * until freed, and its collective calls return DMESH_ERR_PROC_FAILED. */
int dmesh_universe_revoke(dmesh_universe_t *u);

/* What happens to a universe that a module above the meshes keeps
 * something of (the copies in memory, copies.c): it learns it through the
 * one watcher it installs, so that the universe never calls up. */
enum { DMESH_UNIVERSE_REVOKED, DMESH_UNIVERSE_GONE };
typedef void (*dmesh_universe_watcher_t)(const void *u, int event);

/* Install the watcher (the same one every time; local). */
void dmesh_universe_watch(dmesh_universe_watcher_t watcher);

/* Tell the watcher, if one is installed, that event happened to u. */
void dmesh_universe_notify(const void *u, int event);

#endif /* DMESH_UNIVERSE_COMMS_H */
