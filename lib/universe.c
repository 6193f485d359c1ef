/* SPDX-License-Identifier: BSD-3-Clause */
/* Universes (universe.h): the rank map, the root's description and names,
 * the names registered by flatten, the device, the nodes and the
 * universe's release. Its communicators (the cache with its creation
 * steps, the agreement over the universe, the hand-out, the teardown,
 * dmesh_abort and dmesh_revoke) are universe_comms.c's, which this file
 * calls and which never calls it; the private communicator is pcomm.c's,
 * the agreement primitive agree.c's. */
#include "config.h"

#include "api_impl.h"

#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "backend.h"
#include "error.h"
#include "fault.h"
#include "node.h"
#include "topo.h"
#include "universe.h"
#include "universe_comms.h"

/* The universe's copy of the root description. */
static int set_root(dmesh_universe_t *u, const dmesh_root_desc_t *root)
{
    int d;

    u->local_map = root->local_map;
    u->debug = root->debug;
    u->node_rule = root->node_rule;
    if (root->layout != NULL)
        u->root_layout = *root->layout;
    for (d = 0; root->names != NULL && d < u->root_layout.naxes; d++)
        DMESH_TRY(dmesh_universe_intern(u, root->names[d], &u->root_names[d]));
    if (root->rank_map == NULL)
        return DMESH_SUCCESS;
    if ((u->rank_map = DMESH_FAULT_MALLOC((size_t)root->n * sizeof(int))) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "rank map of %d ranks: out of memory", root->n);
    memcpy(u->rank_map, root->rank_map, (size_t)root->n * sizeof(int));
    return DMESH_SUCCESS;
}

/* Where the universe stands in its communicator (none: rank 0 of n). */
static void attach(dmesh_universe_t *u, dmesh_private_comm_t *p)
{
    u->rank = 0;
    u->size = u->n;
    u->comm = MPI_COMM_NULL;
    if (p != NULL) {
        dmesh_private_comm_retain(p);
        u->pcomm = p;
        u->comm = dmesh_private_comm_handle(p);
        MPI_Comm_rank(u->comm, &u->rank);
        MPI_Comm_size(u->comm, &u->size);
    }
    u->my_index = dmesh_rank_map_index(u->n, u->rank_map, u->rank);
}

static void free_names(dmesh_universe_t *u)
{
    dmesh_interned_t *x;

    while ((x = u->names) != NULL) {
        u->names = x->next;
        free(x);
    }
}

int dmesh_universe_new(dmesh_private_comm_t *p, unsigned long id, const dmesh_root_desc_t *root,
                       dmesh_universe_t **out)
{
    dmesh_universe_t *u = DMESH_FAULT_CALLOC(1, sizeof(*u));
    int err, rc;

    if (u == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "universe: out of memory");
    u->refcount = 1;
    u->n = root->n;
    u->cuda = root->cuda;
    u->device = -1;
    u->id = id;
    u->errhandler = MPI_ERRHANDLER_NULL;
    err = dmesh_cache_init(&u->cache);
    if (err == DMESH_SUCCESS)
        err = set_root(u, root);
    /* the user communicator's error handler now, for the communicators
     * handed out later (as MPI_Comm_split's result takes its parent's) */
    if (err == DMESH_SUCCESS && p != NULL &&
        (rc = MPI_Comm_get_errhandler(dmesh_private_comm_user(p), &u->errhandler)) != 0) {
        u->errhandler = MPI_ERRHANDLER_NULL;
        err = dmesh_error_mpi(rc, "MPI_Comm_get_errhandler of the user's communicator");
    }
    if (err != DMESH_SUCCESS) {
        dmesh_cache_destroy(&u->cache);
        free_names(u);
        free(u->rank_map);
        free(u);
        return err;
    }
    attach(u, p);
    *out = u;
    return DMESH_SUCCESS;
}

int dmesh_universe_create(MPI_Comm user_comm, int err, const dmesh_root_desc_t *root,
                          dmesh_universe_t **out)
{
    dmesh_private_comm_pending_t s;
    dmesh_universe_t *u = NULL;

    /* one agreement decides a new private duplicate and the universe */
    dmesh_private_comm_begin(user_comm, err, &s);
    err = dmesh_private_comm_complete(&s, DMESH_SUCCESS);
    if (err == DMESH_SUCCESS)
        err = dmesh_universe_new(s.p, dmesh_private_comm_next_id(s.p), root, &u);
    err = dmesh_agree_outcome(dmesh_private_comm_agreed_over(&s), err, "universe creation");
    dmesh_private_comm_settle(&s, err); /* the universe holds its own reference */
    if (err != DMESH_SUCCESS) {
        if (u != NULL)
            dmesh_universe_release(u);
        return err;
    }
    if (dmesh_universe_debugging(u))
        dmesh_private_comm_debug(u->pcomm);
    *out = u;
    return DMESH_SUCCESS;
}

int dmesh_universe_intern(dmesh_universe_t *u, const char *name, const char **out)
{
    dmesh_interned_t *x;
    size_t len = strlen(name) + 1;

    for (x = u->names; x != NULL; x = x->next)
        if (strcmp(x->text, name) == 0) {
            *out = x->text;
            return DMESH_SUCCESS;
        }
    if ((x = DMESH_FAULT_MALLOC(sizeof(*x) + len)) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "dimension name: out of memory");
    memcpy(x->text, name, len);
    x->next = u->names;
    u->names = x;
    *out = x->text;
    return DMESH_SUCCESS;
}

void dmesh_universe_retain(dmesh_universe_t *u)
{
    __atomic_add_fetch(&u->refcount, 1, __ATOMIC_RELAXED);
}

int dmesh_universe_bind(dmesh_universe_t *u, const dmesh_options_t *o)
{
    return dmesh_topo_bind(u->comm, o, dmesh_private_comm_nodes(u->pcomm), u->my_index >= 0,
                           &u->device);
}

int dmesh_universe_has_member(dmesh_universe_t *u, const char *fn)
{
    int mine = u->my_index >= 0, any = 0,
        rc = MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, u->comm);

    if (rc != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "MPI_Allreduce: does the mesh have a member");
    if (!any)
        return dmesh_error_set(DMESH_ERR_LAYOUT,
                               "%s: dim_comms[0] is MPI_COMM_NULL on every rank: the mesh has "
                               "no member",
                               fn);
    return DMESH_SUCCESS;
}

void dmesh_universe_release(dmesh_universe_t *u)
{
    if (__atomic_sub_fetch(&u->refcount, 1, __ATOMIC_ACQ_REL) > 0)
        return;
    dmesh_universe_free_comms(u);
    dmesh_universe_notify(u, DMESH_UNIVERSE_GONE);
    dmesh_cache_destroy(&u->cache);
    if (u->pcomm != NULL)
        dmesh_private_comm_release(u->pcomm);
    free_names(u);
    free(u->flat);
    free(u->rank_map);
    free(u->node_lows);
    if (u->errhandler != MPI_ERRHANDLER_NULL)
        MPI_Errhandler_free(&u->errhandler);
    free(u);
}

int dmesh_universe_node_lows(dmesh_universe_t *u, const int **lows)
{
    int *found = NULL;
    dmesh_node_how_t how;

    if (u->node_lows == NULL) {
        DMESH_TRY(dmesh_node_lows(u->comm, u->node_rule, dmesh_private_comm_nodes(u->pcomm), &found,
                                  &how));
        dmesh_universe_set_node_lows(u, found, &how);
    }
    *lows = u->node_lows;
    return DMESH_SUCCESS;
}

void dmesh_universe_set_node_lows(dmesh_universe_t *u, int *lows, const dmesh_node_how_t *how)
{
    free(u->node_lows);
    u->node_lows = lows;
    u->nodes_by_host = how->rule == DMESH_NODE_HOST;
    if (dmesh_universe_debugging(u))
        dmesh_universe_debug(u, "nodes: %s", how->detail);
}

int dmesh_universe_flat_reserve(dmesh_universe_t *u, int n)
{
    dmesh_flat_name_t *f;
    int cap = u->flat_capacity ? u->flat_capacity : 4;

    if (u->nflat + n <= u->flat_capacity)
        return DMESH_SUCCESS;
    while (cap < u->nflat + n)
        cap *= 2;
    if ((f = DMESH_FAULT_REALLOC(u->flat, (size_t)cap * sizeof(*f))) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "flatten registry: out of memory");
    u->flat = f;
    u->flat_capacity = cap;
    return DMESH_SUCCESS;
}

int dmesh_universe_register(dmesh_universe_t *u, const char *name, dmesh_comm_entry_t *e)
{
    dmesh_flat_name_t *f;

    DMESH_TRY(dmesh_universe_flat_reserve(u, 1));
    f = &u->flat[u->nflat++];
    f->name = name;
    f->entry = e;
    return DMESH_SUCCESS;
}

const dmesh_flat_name_t *dmesh_universe_find_flat(const dmesh_universe_t *u, const char *name)
{
    int i;

    for (i = 0; i < u->nflat; i++)
        if (strcmp(u->flat[i].name, name) == 0)
            return &u->flat[i];
    return NULL;
}

int dmesh_universe_is_root_name(const dmesh_universe_t *u, const char *name)
{
    int d;

    for (d = 0; d < u->root_layout.naxes; d++)
        if (u->root_names[d] != NULL && strcmp(u->root_names[d], name) == 0)
            return 1;
    return 0;
}

size_t dmesh_universe_bytes(const dmesh_universe_t *u)
{
    const dmesh_cache_t *k = &u->cache;
    size_t b = sizeof(*u) + (size_t)k->nbuckets * sizeof(*k->buckets) +
               (size_t)k->capacity * sizeof(*k->order) +
               (size_t)k->count * sizeof(dmesh_comm_entry_t) +
               (u->rank_map ? (size_t)u->n * sizeof(int) : 0) +
               (size_t)u->flat_capacity * sizeof(*u->flat);

    for (const dmesh_interned_t *x = u->names; x != NULL; x = x->next)
        b += sizeof(*x) + strlen(x->text) + 1;
    return b;
}
