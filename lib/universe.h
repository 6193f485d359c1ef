/* SPDX-License-Identifier: BSD-3-Clause */
/* A universe: the shared state of one root mesh and of every mesh derived
 * from it (private communicator, rank map, device, communicator cache,
 * names registered by flatten). Reference counted by its meshes. This
 * header: the struct, its accessors and universe.c's functions; the
 * communicators' (the cache's creation steps, the agreement, the
 * hand-out, the ends) are universe_comms.h's. */
#ifndef DMESH_UNIVERSE_H
#define DMESH_UNIVERSE_H

#include <mpi.h>

#include "backend.h"
#include "cache.h"
#include "dmesh_layout.h"
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
/* Local: the nodes of u's ranks as lows where u knows them already (a
 * hybrid or node-ordered mesh, a locality query, copies opened), else
 * NULL; never finds them. */
static inline const int *dmesh_universe_known_node_lows(const dmesh_universe_t *u)
{
    return u->node_lows;
}

static inline int dmesh_universe_nodes_by_host(const dmesh_universe_t *u)
{
    return u->node_lows != NULL && u->nodes_by_host;
}

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
static inline long long dmesh_universe_colour_base(const dmesh_universe_t *u)
{
    /* a rank map private to each group: its first rank tells the groups apart */
    return u->local_map && u->my_index >= 0 ? (long long)u->rank_map[0] * u->n : 0;
}

/* The registered name, or NULL. */
const dmesh_flat_name_t *dmesh_universe_find_flat(const dmesh_universe_t *u, const char *name);

#endif /* DMESH_UNIVERSE_H */
