/* SPDX-License-Identifier: BSD-3-Clause */
/* A universe: the shared state of one root mesh and of every mesh derived
 * from it (private communicator, rank map, device, communicator cache,
 * names registered by flatten). Reference counted by its meshes. */
#ifndef DMESH_UNIVERSE_H
#define DMESH_UNIVERSE_H

#include <stdint.h>

#include <mpi.h>

#include "agree.h"
#include "backend.h"
#include "cache.h"
#include "dmesh_layout.h"
#include "error.h"
#include "options.h"
#include "pcomm.h"
#include "rank_map.h"

/* A name registered on the root mesh by dmesh_flatten: the axis is the
 * entry's. */
typedef struct {
    const char *name; /* interned */
    dmesh_comm_entry_t *entry;
} dmesh_flat_name_t;

/* A name interned in a universe: every mesh of the universe points at the
 * one copy, which lives as long as the universe. */
typedef struct dmesh_interned {
    struct dmesh_interned *next;
    char text[];
} dmesh_interned_t;

/* What a root creation call (init, create, from_comms, deserialize) tells
 * the universe it starts. */
typedef struct {
    int n;                        /* rank map size */
    const int *rank_map;          /* n ranks of the communicator (copied); NULL: identity */
    int local_map;                /* rank map differs between ranks (from_comms of a 1-D group) */
    int cuda;                     /* device type "cuda" */
    int debug;                    /* DMESH_DEBUG */
    const dmesh_layout_t *layout; /* the root mesh's axes (copied) */
    const char *const *names;     /* its names, NULL when unnamed (interned) */
    int node_rule;                /* enum dmesh_node_rule (dmesh_node), for finding nodes later */
} dmesh_root_desc_t;

/* What dmesh_shrink tells the universe it makes (dmesh_backend_origin_t,
 * backend.h): the universe it shrinks, and the indices of that one's rank
 * map that the new rank map leaves out. Held during the creation only. */
typedef struct {
    const struct dmesh_universe *from;
    int nexclude;
    const int *exclude;
    int failed;
} dmesh_shrink_source_t;

typedef struct dmesh_universe {
    int refcount; /* atomic: slicing and freeing derived meshes may run on several threads */
    dmesh_private_comm_t *pcomm; /* the private duplicate, shared per user communicator */
    MPI_Comm comm;               /* = pcomm's communicator */
    int rank, size;              /* of the caller in comm */
    int n;                       /* rank map size */
    int *rank_map;               /* n ranks of comm; NULL: the identity */
    int my_index;                /* the caller's rank-map index, -1 outside the mesh */
    int local_map;               /* rank map differs between ranks (from_comms of a 1-D group) */
    int cuda;                    /* device type "cuda" */
    int device;                  /* CUDA ordinal, -1 for cpu */
    int debug;                   /* DMESH_DEBUG on this universe (printing rank only) */
    int aborted;
    int revoked;      /* dmesh_universe_revoke ran here */
    unsigned long id; /* identity: sequence number on the private communicator */
    dmesh_cache_t cache;
    dmesh_layout_t root_layout;             /* of the root mesh: serialized, and its names */
    const char *root_names[DMESH_MAX_DIMS]; /* are no flatten names; NULL when unnamed */
    dmesh_interned_t *names;                /* every name of the universe's meshes */
    dmesh_backend_state_t backend_state[DMESH_BACKEND_MAX]; /* each backend's, backend.h */
    dmesh_flat_name_t *flat;                                /* names registered by flatten */
    int nflat, flat_capacity;
    int *node_lows;            /* per rank of comm, the lowest rank of its node; NULL until known */
    int node_rule;             /* enum dmesh_node_rule: how they are found */
    int nodes_by_host;         /* this rank's node is its host, not the MPI's split */
    MPI_Errhandler errhandler; /* of the user's communicator: its handed-out ones get it */
    const dmesh_shrink_source_t *source; /* dmesh_shrink's, while it makes this universe */
} dmesh_universe_t;

/* Local: a universe with identity id on p (takes a reference on p; NULL:
 * none, for benchmarks without MPI: rank 0 of a communicator of root->n)
 * for the root mesh root (not validated here). */
int dmesh_universe_new(dmesh_private_comm_t *p, unsigned long id, const dmesh_root_desc_t *root,
                       dmesh_universe_t **u);

/* Collective over user_comm: the private duplicate (begun, completed), a
 * new universe on it, and one agreement that decides both; err: the
 * caller's local failure before it (dmesh_private_comm_begin). */
int dmesh_universe_create(MPI_Comm user_comm, int err, const dmesh_root_desc_t *root,
                          dmesh_universe_t **u);

/* Local: the universe's copy of name (made on first use; lives as long as
 * u). Two names of one universe are equal exactly when their copies are the
 * same pointer. */
int dmesh_universe_intern(dmesh_universe_t *u, const char *name, const char **out);

/* Take one reference (a new mesh handle of u); atomic: local calls that
 * make handles may run on several threads. */
void dmesh_universe_retain(dmesh_universe_t *u);

/* Collective over u->comm, for a "cuda" universe: bind the caller's device
 * (topo.h) and keep it as u's; every rank returns the same class. */
int dmesh_universe_bind(dmesh_universe_t *u, const dmesh_options_t *o);

/* Collective over u->comm: DMESH_ERR_LAYOUT on every rank when no rank is
 * a member of the mesh (a dmesh_from_comms mesh whose dim_comms[0] was
 * MPI_COMM_NULL everywhere). */
int dmesh_universe_has_member(dmesh_universe_t *u, const char *fn);

/* The nodes of u's ranks (node.h) as lows: kept from the creation when it
 * found them (dmesh_order=node, dmesh_init_hybrid); otherwise found at the
 * first call, collectively over u->comm (every rank returns the same
 * class). *lows is u's: do not free. */
int dmesh_universe_node_lows(dmesh_universe_t *u, const int **lows);

/* Local: the universe being made by dmesh_shrink comes from source (NULL:
 * forget it, when the creation ends). */
static inline void dmesh_universe_set_source(dmesh_universe_t *u, const dmesh_shrink_source_t *s)
{
    u->source = s;
}

/* Local: u keeps lows (size ints, malloc'd), found by its creation, and
 * whether this rank's node is its host's (not the MPI's split); prints how
 * under DMESH_DEBUG. */
void dmesh_universe_set_node_lows(dmesh_universe_t *u, int *lows, const dmesh_node_how_t *how);

/* Local: this rank's node, once known, is the host grouping that replaced
 * the MPI's shared-memory split (or dmesh_node=host chose it). */
static inline int dmesh_universe_nodes_by_host(const dmesh_universe_t *u)
{
    return u->node_lows != NULL && u->nodes_by_host;
}

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

/* Drop one reference; the last one frees the communicators (the backends'
 * paired ones first, then MPI, each in reverse creation order) and the
 * universe. */
void dmesh_universe_release(dmesh_universe_t *u);

/* Read-only views of a universe for the modules above it: its fields are
 * universe.c's, read and written there only (.ci/run, module-boundaries). */

/* The rank map's size (the ranks of the root mesh). */
static inline int dmesh_universe_nranks(const dmesh_universe_t *u)
{
    return u->n;
}

/* The caller's rank-map index, -1 outside the mesh. */
static inline int dmesh_universe_my_index(const dmesh_universe_t *u)
{
    return u->my_index;
}

/* The rank map: n ranks of the communicator, NULL for the identity. */
static inline const int *dmesh_universe_rank_map(const dmesh_universe_t *u)
{
    return u->rank_map;
}

/* Whether the rank map differs between ranks (from_comms of a 1-D group). */
static inline int dmesh_universe_local_map(const dmesh_universe_t *u)
{
    return u->local_map;
}

/* The universe's private communicator and its size. */
static inline MPI_Comm dmesh_universe_comm(const dmesh_universe_t *u)
{
    return u->comm;
}

static inline int dmesh_universe_comm_size(const dmesh_universe_t *u)
{
    return u->size;
}

/* Device type "cuda" (1) or "cpu" (0). */
static inline int dmesh_universe_cuda(const dmesh_universe_t *u)
{
    return u->cuda;
}

/* Whether this rank prints DMESH_DEBUG lines (the universe's rank 0). */
static inline int dmesh_universe_debugging(const dmesh_universe_t *u)
{
    return u->debug && u->rank == 0;
}

/* Whether dmesh_abort ended the universe. */
static inline int dmesh_universe_aborted(const dmesh_universe_t *u)
{
    return u->aborted;
}

/* Whether the universe was revoked here (dmesh_revoke, or a process
 * failure met by a call): its collective calls fail. */
static inline int dmesh_universe_revoked(const dmesh_universe_t *u)
{
    return u->revoked;
}

/* The cache's entries, in creation order. */
static inline int dmesh_universe_entry_count(const dmesh_universe_t *u)
{
    return u->cache.count;
}

static inline dmesh_comm_entry_t *dmesh_universe_entry_at(const dmesh_universe_t *u, int i)
{
    return u->cache.order[i];
}

/* The root mesh's layout and its dim names (NULL when unnamed). */
static inline const dmesh_layout_t *dmesh_universe_root_layout(const dmesh_universe_t *u)
{
    return &u->root_layout;
}

static inline const char *dmesh_universe_root_name(const dmesh_universe_t *u, int d)
{
    return u->root_names[d];
}

/* The names registered by dmesh_flatten, in registration order. */
static inline int dmesh_universe_flat_count(const dmesh_universe_t *u)
{
    return u->nflat;
}

static inline const dmesh_flat_name_t *dmesh_universe_flat_at(const dmesh_universe_t *u, int i)
{
    return &u->flat[i];
}

/* Bytes the universe holds (its struct, cache, rank map, registered and
 * interned names), for the benchmarks' memory figures. */
size_t dmesh_universe_bytes(const dmesh_universe_t *u);

/* Rank of the root communicator at rank-map index i. */
static inline int dmesh_universe_rank_at(const dmesh_universe_t *u, int i)
{
    return dmesh_rank_map_rank(u->rank_map, i);
}

/* dmesh_agree (agree.h) over u->comm, with the universe's identity in the
 * hash: every rank returns the same class. */
int dmesh_universe_agree(dmesh_universe_t *u, uint64_t hash, int local_err, const char *what);

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

/* The error handler of the user's communicator (MPI_ERRHANDLER_NULL when
 * not known), for a communicator handed to the program. */
static inline MPI_Errhandler dmesh_universe_errhandler(const dmesh_universe_t *u)
{
    return u->errhandler;
}

/* The communicator the program made the universe on, while the program
 * has it (raise.c raises there), else MPI_COMM_NULL. */
static inline MPI_Comm dmesh_universe_user_comm(const dmesh_universe_t *u)
{
    return u->pcomm != NULL ? dmesh_private_comm_user_alive(u->pcomm) : MPI_COMM_NULL;
}

/* The CUDA ordinal the universe's ranks use, -1 for cpu. */
static inline int dmesh_universe_device(const dmesh_universe_t *u)
{
    return u->device;
}

/* Room for n more registered names (before the agreement of a call that
 * registers them, so that registering cannot fail after it). */
int dmesh_universe_flat_reserve(dmesh_universe_t *u, int n);

/* Register a flattened name (interned) on the root. */
int dmesh_universe_register(dmesh_universe_t *u, const char *name, dmesh_comm_entry_t *e);

/* Whether name is a dimension name of the root mesh. */
int dmesh_universe_is_root_name(const dmesh_universe_t *u, const char *name);

/* The first rank-map index of the caller's group times n: the colour base
 * that tells groups apart when the rank map is local (0 otherwise). */
long long dmesh_universe_colour_base(const dmesh_universe_t *u);

/* The registered name, or NULL. */
const dmesh_flat_name_t *dmesh_universe_find_flat(const dmesh_universe_t *u, const char *name);

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

#endif /* DMESH_UNIVERSE_H */
