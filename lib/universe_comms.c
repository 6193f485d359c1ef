/* SPDX-License-Identifier: BSD-3-Clause */
/* A universe's communicators (universe_comms.h): the reservation of a call's
 * cache entries, the creation of their MPI communicators and the backends'
 * pairing, the agreement over the universe, the rollback of a failed call,
 * the communicators handed to the program, and their ends (teardown,
 * dmesh_abort, dmesh_revoke). The universe's other state is universe.c's,
 * which calls this file and is never called by it. */
#include "config.h"

#include "api_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "backend.h"
#include "comm_mpi.h"
#include "error.h"
#include "fault.h"
#include "ulfm.h"
#include "handout.h"
#include "universe.h"
#include "universe_comms.h"

/* The MPI group made for an entry's group creation, once used or not. */
static void members_free(dmesh_comm_entry_t *e)
{
    if (e->members != MPI_GROUP_NULL)
        MPI_Group_free(&e->members);
}

/* A backend's communicator paired with e's, freed by its backend. */
static void paired_free(const dmesh_universe_t *u, dmesh_comm_entry_t *e)
{
    if (e->paired != NULL)
        dmesh_backends[e->backend]->destroy(e->paired, u->device);
    e->paired = NULL;
}

static int end_paired(dmesh_universe_t *u, const char *fn, int revoke, int *err);

void dmesh_universe_free_comms(dmesh_universe_t *u)
{
    int i, err = DMESH_SUCCESS;

    /* revoked ones are aborted: a revoked NCCL communicator may not be
     * finalized (without memory for it, destroy below falls back to abort) */
    if (u->revoked)
        (void)end_paired(u, "freeing a revoked universe", 0, &err);
    for (i = u->cache.count - 1; i >= 0; i--)
        paired_free(u, u->cache.order[i]);
    for (i = u->cache.count - 1; i >= 0; i--) {
        dmesh_comm_entry_t *e = u->cache.order[i];
        dmesh_handout_free(e->handout, &e->comm);
        e->handout = NULL;
        members_free(e);
    }
}

void dmesh_universe_set_entry_comm(dmesh_comm_entry_t *e, MPI_Comm comm)
{
    e->comm = comm;
}

int dmesh_universe_hand_out(dmesh_universe_t *u, dmesh_comm_entry_t *e, const char *fn,
                            MPI_Comm *comm)
{
    char what[96];
    int n;

    DMESH_TRY(dmesh_handout_check(e->handout, fn));
    if (e->comm != MPI_COMM_NULL && e->handout == NULL) {
        n = snprintf(what, sizeof(what), "the communicator that %s handed out (axis ", fn);
        dmesh_axis_to_string_impl(&e->axis, what + n, sizeof(what) - (size_t)n - 1, NULL);
        strcat(what, ")");
        DMESH_TRY(dmesh_handout_attach(&e->handout, e->comm, u->errhandler, what,
                                       dmesh_universe_debugging(u)));
    }
    *comm = e->comm;
    return DMESH_SUCCESS;
}

int dmesh_universe_entry_usable(const dmesh_comm_entry_t *e, const char *fn)
{
    return dmesh_handout_check(e->handout, fn);
}

int dmesh_universe_own_begin(const dmesh_comm_entry_t *e)
{
    return dmesh_handout_own_begin(e->handout, e->comm);
}

int dmesh_universe_own_end(const dmesh_universe_t *u, const dmesh_comm_entry_t *e)
{
    return dmesh_handout_own_end(e->handout, e->comm, u->errhandler);
}

int dmesh_universe_reserve(dmesh_universe_t *u, const dmesh_axis_t *axis,
                           const dmesh_axis_options_t *o, int comm_create, dmesh_comm_entry_t **out)
{
    char key[DMESH_OPTIONS_KEY_LEN], text[256];
    dmesh_comm_entry_t *e;
    int err;

    dmesh_axis_options_key(o, key, sizeof(key));
    text[0] = '\0';
    if (u->debug) /* formatting costs more than the lookup itself */
        dmesh_axis_to_string_impl(axis, text, sizeof(text), NULL);
    if ((e = dmesh_cache_find(&u->cache, axis, key)) != NULL) {
        dmesh_universe_debug(u, "cache hit: axis %s, %s", text, key);
        DMESH_TRY(dmesh_handout_check(e->handout, "reusing a cached communicator"));
        *out = e;
        return DMESH_SUCCESS;
    }
    DMESH_TRY(dmesh_cache_entry_new(axis, key, o->backend, &e));
    e->backend_options = o->opts;
    e->position = -1;
    e->group = -1;
    e->reserved = 1;
    e->paired_pending = dmesh_backends[e->backend]->make != NULL;
    /* prepared once per entry (on every rank, so that all fail alike); the
     * caller's coordinate, once: queries then read it instead of decomposing */
    /* one process: split, as cheap there; MPICH (4.0, 4.2) crashes in
     * MPI_Comm_create_group on a one-process communicator of a session */
    e->by_group = comm_create == DMESH_COMM_CREATE_GROUP && u->size > 1 &&
                  !dmesh_ulfm_enabled(u->comm); /* see ft/shrink.c: a dead member hangs it */
    if ((err = dmesh_axis_prepare_impl(axis, u->n, &e->prepared)) != 0 ||
        (u->my_index >= 0 && (err = dmesh_prepared_axis_decompose_impl(
                                  &e->prepared, u->my_index, &e->group, &e->position)) != 0) ||
        (e->by_group && (err = dmesh_comm_mpi_group_prepare(u->comm, axis, u->n, u->rank_map,
                                                            u->my_index, &e->members)) != 0)) {
        free(e);
        return err;
    }
    if ((err = dmesh_cache_add(&u->cache, e)) != DMESH_SUCCESS) {
        members_free(e);
        free(e);
        return err;
    }
    dmesh_universe_debug(u, "new communicator: axis %s, %s", text, key);
    *out = e;
    return DMESH_SUCCESS;
}

dmesh_comm_entry_t *dmesh_universe_find_entry(dmesh_universe_t *u, const dmesh_axis_t *axis,
                                              const char *key)
{
    return dmesh_cache_find(&u->cache, axis, key);
}

int dmesh_universe_add_entry(dmesh_universe_t *u, const dmesh_axis_t *axis, const char *key,
                             dmesh_comm_entry_t **out)
{
    dmesh_comm_entry_t *e;
    int err;

    DMESH_TRY(dmesh_cache_entry_new(axis, key, DMESH_BACKEND_MPI, &e));
    e->position = -1;
    if ((err = dmesh_cache_add(&u->cache, e)) != DMESH_SUCCESS) {
        free(e); /* a failed add leaves the cache as it was */
        return err;
    }
    *out = e;
    return DMESH_SUCCESS;
}

void dmesh_universe_drop_entry(dmesh_universe_t *u)
{
    dmesh_cache_drop_last(&u->cache);
}

void dmesh_universe_unreserve(dmesh_universe_t *u)
{
    while (u->cache.count > 0 && u->cache.order[u->cache.count - 1]->reserved) {
        dmesh_comm_entry_t *e = u->cache.order[u->cache.count - 1];
        for (int b = 0; b < dmesh_backend_count; b++)
            if (dmesh_backends[b]->forget != NULL)
                dmesh_backends[b]->forget(&u->backend_state[b], e);
        paired_free(u, e);
        if (e->comm != MPI_COMM_NULL)
            MPI_Comm_free(&e->comm);
        members_free(e);
        dmesh_cache_drop_last(&u->cache);
    }
}

/* The MPI communicator of a reserved entry: a split (or group creation), or
 * a duplicate of the user's (given; MPI_COMM_NULL outside the mesh, where
 * nothing is made). */
static int make_comm(dmesh_universe_t *u, dmesh_comm_entry_t *e, const MPI_Comm *given)
{
    long long base = dmesh_universe_colour_base(u);
    int rc, err;

    if (given == NULL) {
        err = dmesh_comm_mpi_create_prepared(u->comm, &e->prepared, u->my_index, base, e->by_group,
                                             e->members, &e->comm);
        members_free(e);
        return err;
    }
    members_free(e); /* a root made from given communicators reserved its groups too */
    if (*given == MPI_COMM_NULL)
        return DMESH_SUCCESS;
    rc = MPI_Comm_dup(*given, &e->comm);
    if (rc == MPI_SUCCESS && dmesh_fault(DMESH_FAULT_DUP)) {
        MPI_Comm_free(&e->comm);
        rc = MPI_ERR_INTERN;
    }
    if (rc != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "MPI_Comm_dup of a dimension communicator");
    if ((rc = dmesh_set_errhandler(e->comm)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "MPI_Comm_set_errhandler");
    return DMESH_SUCCESS;
}

/* Make one reserved entry's MPI communicator, followed by the agreement
 * over the universe (a member of a group whose split failed must not go on
 * while the others return). */
static int make_entry(dmesh_universe_t *u, dmesh_comm_entry_t *e, const MPI_Comm *given)
{
    int err = make_comm(u, e, given);

    return dmesh_universe_agree_outcome(u, err, "communicator creation");
}

/* Where the reservations at the end of the cache begin (the current
 * call's: a backend adds the whole mesh's entry in front of them). */
static int reserved_from(const dmesh_universe_t *u)
{
    int first = u->cache.count;

    while (first > 0 && u->cache.order[first - 1]->reserved)
        first--;
    return first;
}

/* The context of backend b's make in u (backend.h). */
static void ctx_of(dmesh_universe_t *u, int b, dmesh_backend_ctx_t *ctx)
{
    ctx->u = u;
    ctx->state = &u->backend_state[b];
    ctx->self = b;
    ctx->device = u->device;
    memset(&ctx->origin, 0, sizeof(ctx->origin));
    if (u->source != NULL) {
        ctx->origin.state = &u->source->from->backend_state[b];
        ctx->origin.nexclude = u->source->nexclude;
        ctx->origin.exclude = u->source->exclude;
        ctx->origin.failed = u->source->failed;
    }
    ctx->whole_entry = dmesh_universe_whole_entry;
    ctx->pair_entry = dmesh_universe_pair_entry;
    ctx->pair_done = dmesh_universe_pair_done;
    ctx->agree = dmesh_universe_agree;
    ctx->debug = dmesh_universe_debug;
}

int dmesh_universe_whole_entry(dmesh_universe_t *u, const dmesh_axis_options_t *o,
                               dmesh_comm_entry_t **out)
{
    dmesh_axis_t axis;
    dmesh_comm_entry_t *e = NULL, **order;
    int first, count = u->cache.count, err;

    memset(&axis, 0, sizeof(axis));
    if (u->n > 1) {
        axis.natoms = 1;
        axis.atoms[0].size = u->n;
        axis.atoms[0].stride = 1;
    }
    first = reserved_from(u);
    err = dmesh_universe_reserve(u, &axis, o, DMESH_COMM_CREATE_SPLIT, &e);
    DMESH_TRY(dmesh_universe_agree_outcome(u, err, "reserving the whole mesh's communicator"));
    if (u->cache.count > count) { /* new: in front of the call's reservations, then made */
        order = u->cache.order;
        memmove(&order[first + 1], &order[first], (size_t)(count - first) * sizeof(*order));
        order[first] = e;
        DMESH_TRY(make_entry(u, e, NULL));
    }
    *out = e;
    return DMESH_SUCCESS;
}

static int make_all(dmesh_universe_t *u, int n, dmesh_comm_entry_t *const e[],
                    const MPI_Comm given[], const dmesh_options_t *o)
{
    int i, b, err, made, first, count;

    /* every rank takes part in every creation, whatever failed before it:
     * one agreement after all of them (the groups were made before the
     * agreement on the reservations, so no member skips its group's) */
    for (i = 0, err = DMESH_SUCCESS, made = 0; i < n; i++)
        if (e[i]->reserved && !dmesh_cache_listed_before(e, i)) {
            int one = make_comm(u, e[i], given ? &given[i] : NULL);
            err = err != DMESH_SUCCESS ? err : one;
            made++;
        }
    if (made > 0) /* the same on every rank: the reservations were agreed */
        DMESH_TRY(dmesh_universe_agree_outcome(u, err, "communicator creation"));
    count = u->cache.count;
    first = reserved_from(u);
    for (b = 0; b < dmesh_backend_count; b++) /* then each backend pairs its own */
        if (dmesh_backends[b]->make != NULL) {
            dmesh_backend_ctx_t ctx;
            ctx_of(u, b, &ctx);
            DMESH_TRY(dmesh_backends[b]->make(&ctx, u->comm, &o->call[b], n, e));
        }
    for (i = 0; i < n; i++)
        e[i]->reserved = 0;
    for (i = first; i < first + u->cache.count - count; i++)
        u->cache.order[i]->reserved = 0; /* what the backends added in front (whole_entry) */
    return DMESH_SUCCESS;
}

int dmesh_universe_make(dmesh_universe_t *u, int n, dmesh_comm_entry_t *const e[],
                        const MPI_Comm given[], const dmesh_options_t *o)
{
    int err = make_all(u, n, e, given, o);

    if (err != DMESH_SUCCESS)
        dmesh_universe_unreserve(u); /* the same entries on every rank */
    return err;
}

int dmesh_universe_pair_entry(dmesh_universe_t *u, dmesh_comm_entry_t *e)
{
    dmesh_backend_ctx_t ctx;

    if (!e->paired_pending)
        return DMESH_SUCCESS;
    ctx_of(u, e->backend, &ctx);
    if (e->comm != MPI_COMM_NULL)
        DMESH_TRY(dmesh_backends[e->backend]->make(&ctx, e->comm, NULL, 1, &e));
    e->paired_pending = 0;
    return DMESH_SUCCESS;
}

void dmesh_universe_pair_done(dmesh_comm_entry_t *e, void *paired)
{
    e->paired = paired;
    e->paired_pending = 0;
}

const dmesh_backend_state_t *dmesh_universe_backend_state(const dmesh_universe_t *u,
                                                          const dmesh_backend_t *b)
{
    return &u->backend_state[dmesh_backend_index(b)];
}

void dmesh_universe_cache_info(const dmesh_universe_t *u, dmesh_cache_info_t *info)
{
    memset(info, 0, sizeof(*info));
    info->comms_mpi = u->cache.count;
    info->lookups = u->cache.lookups;
    info->hits = u->cache.hits;
    for (int b = 0; b < dmesh_backend_count; b++)
        if (dmesh_backends[b]->info != NULL)
            dmesh_backends[b]->info(&u->backend_state[b], dmesh_cache_count_paired(&u->cache, b),
                                    info);
}

/* End the backends' paired communicators: abort them (each backend's
 * abort_all), or with revoke, revoke them (revoke_all, where a backend
 * has it), keeping those the backend keeps; returns 0, changing nothing,
 * when there is no memory for it (*err). */
static int end_paired(dmesh_universe_t *u, const char *fn, int revoke, int *err)
{
    void **paired = NULL;
    int b, i, n;

    /* one array for every backend, so that a failed allocation changes nothing */
    if (u->cache.count > 0 && (paired = malloc((size_t)u->cache.count * sizeof(*paired))) == NULL) {
        *err = dmesh_error_set(DMESH_ERR_NOMEM, "%s: out of memory", fn);
        return 0;
    }
    for (b = 0; b < dmesh_backend_count; b++) {
        const dmesh_backend_t *be = dmesh_backends[b];
        int one = DMESH_SUCCESS, kept = 0;
        if (be->abort_all == NULL)
            continue; /* its communicators, if any, are destroyed at the teardown */
        for (i = u->cache.count - 1, n = 0; i >= 0; i--)
            if (u->cache.order[i]->backend == b && u->cache.order[i]->paired != NULL)
                paired[n++] = u->cache.order[i]->paired;
        if (n == 0)
            continue;
        if (revoke && be->revoke_all != NULL)
            one = be->revoke_all(n, paired, u->device, &kept);
        else
            one = be->abort_all(n, paired, u->device);
        for (i = 0; !kept && i < u->cache.count; i++)
            if (u->cache.order[i]->backend == b)
                u->cache.order[i]->paired = NULL;
        *err = *err != DMESH_SUCCESS ? *err : one;
    }
    free(paired);
    return 1;
}

int dmesh_universe_abort(dmesh_universe_t *u)
{
    int err = DMESH_SUCCESS;

    if (!end_paired(u, "dmesh_abort", 0, &err))
        return err;
    dmesh_universe_free_comms(u);
    u->aborted = 1;
    return err;
}

int dmesh_universe_revoke(dmesh_universe_t *u)
{
    int i, rc, err = DMESH_SUCCESS;

    /* once: a revoked NCCL communicator is not revoked again */
    if (!u->revoked && !end_paired(u, "dmesh_revoke", 1, &err))
        return err;
    for (i = u->cache.count - 1; i >= 0; i--) {
        dmesh_comm_entry_t *e = u->cache.order[i];
        if (e->comm == MPI_COMM_NULL || dmesh_handout_freed(e->handout))
            continue; /* none here, or the program freed it: not a handle any more */
        if ((rc = dmesh_ulfm_revoke(e->comm)) != MPI_SUCCESS && err == DMESH_SUCCESS)
            err = dmesh_error_mpi(rc, "MPIX_Comm_revoke of a dimension's communicator");
    }
    if (u->comm != MPI_COMM_NULL && (rc = dmesh_ulfm_revoke(u->comm)) != MPI_SUCCESS &&
        err == DMESH_SUCCESS)
        err = dmesh_error_mpi(rc, "MPIX_Comm_revoke of the private communicator");
    /* The user's communicator itself is not revoked: its next mesh gets a
     * private duplicate of its own (this one stays with its universes). */
    if (u->pcomm != NULL)
        dmesh_private_comm_detach(u->pcomm);
    dmesh_universe_notify(u, DMESH_UNIVERSE_REVOKED);
    u->revoked = 1;
    return err;
}

/* This rank's class before a universe agreement. Revoked here: no call
 * succeeds; a failure met here: the universe is revoked, so that the ranks
 * blocked in any of its communicators return. */
static int universe_local_err(dmesh_universe_t *u, int local_err, const char *what)
{
    if (u->revoked && local_err == DMESH_SUCCESS)
        local_err = dmesh_error_set(DMESH_ERR_PROC_FAILED, "%s: universe revoked", what);
    else if (local_err == DMESH_ERR_PROC_FAILED && !u->revoked)
        dmesh_universe_revoke(u);
    return local_err;
}

int dmesh_universe_agree(dmesh_universe_t *u, uint64_t hash, int local_err, const char *what)
{
    local_err = universe_local_err(u, local_err, what);
    /* the universe's identity: a mesh of another universe on one rank differs */
    return dmesh_agree(u->comm, dmesh_hash(hash, &u->id, sizeof(u->id)), local_err, what);
}

int dmesh_universe_agree_outcome(dmesh_universe_t *u, int local_err, const char *what)
{
    local_err = universe_local_err(u, local_err, what);
    return dmesh_agree_outcome(u->comm, local_err, what);
}

void dmesh_universe_debug(const dmesh_universe_t *u, const char *fmt, ...)
{
    va_list ap;

    if (!u->debug || u->rank != 0)
        return;
    va_start(ap, fmt);
    fprintf(stderr, "dmesh: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

static dmesh_universe_watcher_t watcher;

void dmesh_universe_watch(dmesh_universe_watcher_t w)
{
    __atomic_store_n(&watcher, w, __ATOMIC_RELEASE);
}

void dmesh_universe_notify(const void *u, int event)
{
    dmesh_universe_watcher_t w = __atomic_load_n(&watcher, __ATOMIC_ACQUIRE);

    if (w != NULL)
        w(u, event);
}
