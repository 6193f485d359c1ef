/* SPDX-License-Identifier: BSD-3-Clause */
/* The backend table: what a backend of mesh dimensions (the value of the
 * dmesh_backend info key) gives the rest of the library.
 *
 * Every dimension has an MPI communicator, made by the universe whatever
 * the backend. A backend other than mpi pairs a communicator of its own
 * with it (nccl: an ncclComm_t bootstrapped over the MPI one) and owns
 * everything about it: its info keys and environment variables, its
 * options per axis and per call (opaque bytes to the rest, options.h), the
 * canonical text of those options (cache key, agreement hash), their saved
 * text form (dmesh_serialize), the creation of the paired communicators,
 * their destruction and abort, its state per universe and its figures in
 * dmesh_get_cache_info. Nothing outside its file and the table names it.
 *
 * Adding a backend: a file lib/backend_<name>.c that defines a
 * dmesh_backend_t (every hook may be NULL but name), and one line in the
 * table of backend.c (doc/architecture.md, "Adding a backend"). */
#ifndef DMESH_BACKEND_H
#define DMESH_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "dmesh.h"
#include "options.h"
#include "text.h"

struct dmesh_universe;
struct dmesh_comm_entry;
struct dmesh_scan;

/* A backend's state in one universe (for nccl, the communicator that
 * splits start from and what creation cost): zero bytes when the universe
 * is made; lives as long as the universe, never freed (entries it points to
 * are the cache's). */
typedef union {
    unsigned char bytes[64];
    double align_double;
    void *align_pointer;
    long long align_long;
} dmesh_backend_state_t;

/* What a universe made by dmesh_shrink keeps of the universe it shrinks,
 * for a backend that can make its communicator over the whole new mesh
 * from the one over the old (nccl: ncclCommShrink): the backend's state in
 * the old universe and, as indices of the old rank map (ascending), the
 * processes the new rank map leaves out; the new rank map is the old one
 * without them, in the same order. failed: some of them failed. state is
 * NULL when the universe is no such shrink (spares took places, or the
 * order changed). */
typedef struct {
    const dmesh_backend_state_t *state;
    int nexclude;
    const int *exclude;
    int failed;
} dmesh_backend_origin_t;

/* What a backend's make gets from the universe: the universe, opaque here
 * and handed back to its services; the backend's state in it; and those
 * services as function pointers (the universe's functions of the same
 * names), so that the backends sit below universe.c and call nothing above
 * them. */
typedef struct {
    struct dmesh_universe *u;
    dmesh_backend_state_t *state;  /* the backend's, writable */
    int self;                      /* the backend's index in the table */
    int device;                    /* the universe's CUDA ordinal, -1 for cpu */
    dmesh_backend_origin_t origin; /* dmesh_shrink's universe: where it comes from */
    /* collective over the universe: the entry of the whole rank map, made */
    int (*whole_entry)(struct dmesh_universe *u, const dmesh_axis_options_t *o,
                       struct dmesh_comm_entry **e);
    /* collective over e's members: e's paired communicator on its own */
    int (*pair_entry)(struct dmesh_universe *u, struct dmesh_comm_entry *e);
    /* local: e holds paired from now on */
    void (*pair_done)(struct dmesh_comm_entry *e, void *paired);
    /* collective over the universe: the one agreement */
    int (*agree)(struct dmesh_universe *u, uint64_t hash, int local_err, const char *what);
    /* a DMESH_DEBUG line on the universe's rank 0 */
    void (*debug)(const struct dmesh_universe *u, const char *fmt, ...) DMESH_PRINTF(2, 3);
} dmesh_backend_ctx_t;

typedef struct dmesh_backend {
    const char *name;       /* the dmesh_backend value, the word of the saved text form and
                             * the start of the cache key */
    const char *library;    /* what it needs built in, for messages ("NCCL"); NULL: nothing */
    int needs_cuda;         /* usable with device type "cuda" only (and the default there) */
    int (*available)(void); /* built in; NULL: always */

    /* Names: its dmesh_* info keys and DMESH_* environment variables
     * (NULL-terminated; a trailing '*' matches any rest). They are known
     * names for dmesh_strict; the variables without '*' are read once per
     * process, like the library's own, and given to call_option before the
     * info keys (an info key overrides its variable). */
    const char *const *names;
    /* Per-axis info keys "<axis_prefix><field>" and "<axis_prefix><field>.<dim>"
     * (by name or index, as dmesh_backend.<dim>); NULL: none. */
    const char *axis_prefix;

    /* Options, local. call_defaults sets the defaults of the call's
     * options (NULL: zero bytes). The parsers set *known = 0 for a key that is not its own
     * and returns DMESH_ERR_ARG with a detail for a bad value. */
    void (*call_defaults)(dmesh_backend_call_t *call);
    int (*call_option)(const char *key, const char *val, dmesh_backend_call_t *call, int *known);
    int (*axis_option)(const char *key, const char *field, const char *val,
                       dmesh_backend_axis_t *axis, int *known);
    /* The options of dim, on an axis of this backend, complete: refuse
     * what the library underneath would refuse (DMESH_ERR_ARG); label
     * ("<dim names>/<dim name>") and timeout (dmesh_timeout, 0: none) are
     * the call's, for the backend to keep. */
    int (*axis_finish)(int dim, const char *label, double timeout, dmesh_backend_axis_t *axis);
    /* Canonical text of the axis options, after the name and a blank in the
     * cache key; equal options give equal text (NULL: the name alone). */
    void (*axis_key)(const dmesh_backend_axis_t *axis, char *buf, size_t len);
    /* The saved text form after the name: print, and scan back exactly
     * what print wrote (scan.h's scanner; NULL: nothing follows). */
    void (*axis_print)(dmesh_text_t *t, const dmesh_backend_axis_t *axis);
    int (*axis_scan)(struct dmesh_scan *s, dmesh_backend_axis_t *axis);

    /* Collective over all (every rank of it calls, with the same n and
     * entries): pair a communicator with each entry of e[0..n) whose
     * backend this is (ctx->self), which is still pending and which the
     * call reserved (e->reserved: the same on every rank; an entry found
     * in the cache may have been made lazily in some of its groups only,
     * and stays to its lazy creation), then agree (ctx->pair_done records
     * one made); every rank returns the same class and a failure leaves
     * nothing made. call is the call's options; NULL when one entry is
     * made on its own, over its MPI communicator (the lazy creation of
     * dmesh_get_nccl_comm). NULL hook: nothing is paired. */
    int (*make)(const dmesh_backend_ctx_t *ctx, MPI_Comm all, const dmesh_backend_call_t *call,
                int n, struct dmesh_comm_entry *const e[]);
    /* Local: free one paired communicator (the universe's teardown), and
     * abort several at once (dmesh_abort, and the teardown of a revoked
     * universe), with the universe's device. */
    int (*destroy)(void *paired, int device);
    int (*abort_all)(int n, void *const paired[], int device);
    /* Local (dmesh_revoke): stop what is in flight on several at once, so
     * that a process blocked in one returns; *kept = 1 when they stay,
     * revoked, for a later shrink or abort, 0 when they were aborted (then
     * they are gone). NULL: abort_all. */
    int (*revoke_all)(int n, void *const paired[], int device, int *kept);
    /* Local: e leaves the cache (a failed call's rollback): forget it. */
    void (*forget)(dmesh_backend_state_t *state, const struct dmesh_comm_entry *e);
    /* Local: its figures in dmesh_get_cache_info; paired: how many entries
     * of the cache hold a communicator of this backend. */
    void (*info)(const dmesh_backend_state_t *state, int paired, dmesh_cache_info_t *info);
} dmesh_backend_t;

/* The table: entry 0 is mpi. */
extern const dmesh_backend_t *const dmesh_backends[];
extern const int dmesh_backend_count;

/* The backends of the table's lines, each defined in its own file. */
extern const dmesh_backend_t dmesh_backend_mpi;
extern const dmesh_backend_t dmesh_backend_nccl;

/* The index of the backend named name (exactly), or -1. */
int dmesh_backend_find(const char *name);

/* The index of b in the table (b is one of its entries). */
int dmesh_backend_index(const dmesh_backend_t *b);

/* The default backend of every axis: the first built-in backend that needs
 * a device on a "cuda" mesh (nccl), mpi otherwise. */
int dmesh_backend_default(int cuda);

/* DMESH_ERR_BACKEND when backend index b is not built in, or needs device
 * type "cuda" and cuda is 0, with a detail naming what fmt (printf) says:
 * a dim, a saved name. */
int dmesh_backend_check(int b, int cuda, const char *fmt, ...) DMESH_PRINTF(3, 4);

/* "mpi, nccl": the names of the table, for messages. */
void dmesh_backend_names(char *buf, size_t len);

#endif /* DMESH_BACKEND_H */
