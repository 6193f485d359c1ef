/* SPDX-License-Identifier: BSD-3-Clause */
/* The communicator cache of a universe: one entry per distinct
 * (canonical axis layout, backend, backend options). */
#ifndef DMESH_CACHE_H
#define DMESH_CACHE_H

#include <stdint.h>

#include <mpi.h>

#include "dmesh_layout.h"
#include "hash.h"
#include "options.h"

#define DMESH_OPTIONS_KEY_LEN 160

typedef struct dmesh_comm_entry {
    dmesh_axis_t axis;                   /* canonical */
    char options[DMESH_OPTIONS_KEY_LEN]; /* dmesh_axis_options_key(): backend and its options */
    int backend;                         /* index in the backend table (backend.h) */
    uint64_t hash;
    int position; /* the caller's coordinate along the axis (-1 outside the mesh) */
    int group;    /* the caller's group index (MPI_Comm_split colour), -1 outside */
    dmesh_prepared_axis_t prepared; /* axis in the universe's rank map: decompose in ns */
    MPI_Comm comm;                  /* this rank's group along the axis; MPI_COMM_NULL if none */
    void *paired;                   /* the backend's communicator paired with comm (nccl: an
                                     * ncclComm_t); NULL until made, and for mpi */
    int paired_pending;             /* the backend's communicator is still to make (lazy) */
    int reserved;                   /* added by a call that has not made its communicators yet */
    int by_group;                   /* made by MPI_Comm_create_group (chosen when reserved) */
    MPI_Group members; /* the caller's group for that, until made; MPI_GROUP_NULL otherwise */
    dmesh_backend_axis_t backend_options; /* the backend's options of the axis */
    struct dmesh_handout *handout; /* comm as handed to the program (handout.h); NULL until */
    struct dmesh_comm_entry *next; /* hash chain */
} dmesh_comm_entry_t;

typedef struct {
    dmesh_comm_entry_t **buckets;
    int nbuckets;
    dmesh_comm_entry_t **order; /* entries in creation order, for teardown */
    int count, capacity;
    long lookups, hits;
} dmesh_cache_t;

/* The number of entries of backend b with a paired communicator. */
int dmesh_cache_count_paired(const dmesh_cache_t *c, int b);

/* Whether e[i] is also among e[0..i): the dims of size 1 of a mesh share
 * one entry, which is made once. */
int dmesh_cache_listed_before(dmesh_comm_entry_t *const e[], int i);

int dmesh_cache_init(dmesh_cache_t *c);

/* Find the entry of (axis, options key); counts a lookup and, when found, a hit.
 * axis must be canonical. */
dmesh_comm_entry_t *dmesh_cache_find(dmesh_cache_t *c, const dmesh_axis_t *axis,
                                     const char *options);

/* Allocate an empty entry for (axis, options, backend), not yet in the cache. */
int dmesh_cache_entry_new(const dmesh_axis_t *axis, const char *options, int backend,
                          dmesh_comm_entry_t **e);

/* Insert e (which the cache then owns). */
int dmesh_cache_add(dmesh_cache_t *c, dmesh_comm_entry_t *e);

/* Take out and free the entry added last (its creation failed). */
void dmesh_cache_drop_last(dmesh_cache_t *c);

/* Free the table and the entries (their communicators must be freed already). */
void dmesh_cache_destroy(dmesh_cache_t *c);

#endif /* DMESH_CACHE_H */
