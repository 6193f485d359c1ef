/* A universe: the shared state of one root mesh and of every mesh derived
 * from it (private communicator, rank map, device, communicator cache,
 * names registered by flatten). Reference counted by its meshes. */
#ifndef DMESH_UNIVERSE_H
#define DMESH_UNIVERSE_H

#include <stdint.h>

#include <mpi.h>

#include "agree.h"
#include "cache.h"
#include "comm_nccl.h"
#include "dmesh_layout.h"
#include "error.h"
#include "options.h"

typedef struct dmesh_private_comm dmesh_private_comm_t;

/* A name registered on the root mesh by dmesh_flatten. */
typedef struct {
    char name[DMESH_MAX_NAME];
    dmesh_axis_t axis; /* canonical */
    dmesh_comm_entry_t *entry;
} dmesh_flat_name_t;

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
    unsigned long id;            /* identity: sequence number on the private communicator */
    dmesh_cache_t cache;
    dmesh_layout_t root_layout;
    char root_names[DMESH_MAX_DIMS][DMESH_MAX_NAME];
    int root_named;
    dmesh_comm_entry_t *nccl_root; /* split: the entry over the whole mesh, parent of the rest */
    dmesh_nccl_stats_t nccl_stats; /* what NCCL creation cost this rank (dmesh_get_cache_info) */
    dmesh_flat_name_t *flat; /* names registered by flatten */
    int nflat, flat_capacity;
} dmesh_universe_t;

/* Collective over user_comm: a universe on the private duplicate of
 * user_comm (made on first use, then taken from user_comm's attribute). The
 * rank map (copied; NULL: identity over [0, n)) is not validated here. */
int dmesh_universe_create(MPI_Comm user_comm, int n, const int *rank_map, int cuda,
                          dmesh_universe_t **u);

/* Drop one reference; the last one frees the communicators (NCCL first,
 * then MPI, each in reverse creation order) and the universe. */
void dmesh_universe_release(dmesh_universe_t *u);

/* Index of rank in a rank map of n ranks (NULL: the identity), -1 if absent. */
int dmesh_rank_map_index(int n, const int *rank_map, int rank);

/* Rank of the root communicator at rank-map index i. */
static inline int dmesh_universe_rank_at(const dmesh_universe_t *u, int i)
{
    return u->rank_map ? u->rank_map[i] : i;
}

/* dmesh_agree (agree.h) over u->comm, with the universe's identity in the
 * hash: every rank returns the same class. */
int dmesh_universe_agree(dmesh_universe_t *u, uint64_t hash, int local_err, const char *what);

/* Collective over u->comm: the cache entry of a canonical axis with the
 * given options, created (MPI communicator, and NCCL when its backend says
 * so) when missing. */
int dmesh_universe_get_entry(dmesh_universe_t *u, const dmesh_axis_t *axis,
                             const dmesh_axis_options_t *o, int comm_create, int nccl_lazy,
                             dmesh_comm_entry_t **e);

/* Collective over u->comm: the cache entries of n canonical axes (the dims
 * of one new mesh) with their options o[], made where missing: each MPI
 * communicator by split (given NULL) or as a duplicate of given[i]
 * (MPI_COMM_NULL outside the mesh); then, unless opts->nccl_lazy, every new
 * NCCL communicator together, as opts->nccl_create says (split first makes
 * the universe's root NCCL communicator when it has none), and one
 * agreement. On failure no new entry stays on any rank. */
int dmesh_universe_get_entries(dmesh_universe_t *u, int n, const dmesh_axis_t axes[],
                               const dmesh_axis_options_t o[], const dmesh_options_t *opts,
                               const MPI_Comm given[], dmesh_comm_entry_t *out[]);

/* Create the pending NCCL communicator of e (collective over e->comm). */
int dmesh_universe_nccl_entry(dmesh_universe_t *u, dmesh_comm_entry_t *e);

/* Register a flattened name on the root. */
int dmesh_universe_register(dmesh_universe_t *u, const char *name, const dmesh_axis_t *axis,
                            dmesh_comm_entry_t *e);

/* The registered name, or NULL. */
const dmesh_flat_name_t *dmesh_universe_find_flat(const dmesh_universe_t *u, const char *name);

/* Print a DMESH_DEBUG line on the universe's rank 0. */
void dmesh_universe_debug(const dmesh_universe_t *u, const char *fmt, ...) DMESH_PRINTF(2, 3);

/* Abort the NCCL communicators and free the MPI ones (dmesh_abort). */
int dmesh_universe_abort(dmesh_universe_t *u);

#endif /* DMESH_UNIVERSE_H */
