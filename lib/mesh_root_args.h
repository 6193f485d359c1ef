/* SPDX-License-Identifier: BSD-3-Clause */
/* A root creation call's arguments, shared by the call (mesh_root.c) and
 * its local checks (mesh_root_args.c): as the entry point gives them and
 * as the checks leave them. */
#ifndef DMESH_MESH_ROOT_ARGS_H
#define DMESH_MESH_ROOT_ARGS_H

#include <mpi.h>

#include "dmesh.h"
#include "dmesh_layout.h"
#include "options.h"
#include "universe.h"

/* Where the rank map comes from: none (the identity), ranks[], or the
 * group of dim_comms[0] (from_comms of one dim without ranks). */
enum { DMESH_RANKS_IDENTITY, DMESH_RANKS_GIVEN, DMESH_RANKS_FROM_COMM };

/* The validated arguments of a root creation call. */
typedef struct {
    int cuda;
    int n;         /* rank map size: product(shape) */
    int size;      /* size of the user's communicator */
    int *rank_map; /* owned copy, NULL for the identity */
    int local_map; /* rank map differs between ranks */
    dmesh_layout_t layout;
    const char *const *names; /* the caller's, checked; NULL: unnamed */
    dmesh_options_t opts;
    int hybrid_nodes, hybrid_in_node; /* init_hybrid: the products of across and in_node */
    int shape[DMESH_MAX_DIMS];        /* shape (init_hybrid: in_node), zeros filled */
    int across[DMESH_MAX_DIMS];       /* init_hybrid: across, zeros filled */
    int given[2 * DMESH_MAX_DIMS];    /* both as the caller gave them, for the hash */
} dmesh_root_args_t;

/* The arguments of a root creation call (init, create, from_comms). */
typedef struct {
    const char *fn;
    MPI_Comm comm;
    const char *device_type;
    int ndims;
    const int *shape;
    const int *ranks;
    int ranks_mode; /* DMESH_RANKS_* */
    const char *const *names;
    MPI_Info info;
    const MPI_Comm *dim_comms;           /* from_comms only */
    int err;                             /* rejected by the caller: still agreed */
    const int *across;                   /* init_hybrid only: shape is then the in-node factors */
    const dmesh_shrink_source_t *source; /* dmesh_shrink's universe: where it comes from */
} dmesh_root_call_t;

/* The communicator itself, checked at once: a problem with it is the same
 * on every rank (or the ranks passed different communicators), and there
 * is nothing to agree over. *size: its size. */
int dmesh_root_check_comm(MPI_Comm comm, const char *fn, int *size);

/* Local: the checks of c's arguments, leaving them in a (a->size and
 * a->opts.check set by the caller); the caller agrees on the outcome and
 * frees a->rank_map. */
int dmesh_root_validate(const dmesh_root_call_t *c, dmesh_t *mesh, dmesh_root_args_t *a);

#endif /* DMESH_MESH_ROOT_ARGS_H */
