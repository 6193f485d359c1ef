/* SPDX-License-Identifier: BSD-3-Clause */
/* Root creation: dmesh_init, dmesh_create, dmesh_init_hybrid,
 * dmesh_from_comms. The arguments are checked locally (mesh_root_args.c),
 * then every rank, whatever its own outcome, takes part in one agreement
 * over the user's communicator (which also decides the private duplicate
 * of a new communicator), then the device binding and the communicators of
 * the mesh's dims, each followed by an agreement; a failure anywhere frees
 * everything the call made, on every rank. */
#include "config.h"

#include "api_impl.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "create.h"
#include "error.h"
#include "fault.h"
#include "finalize.h"
#include "mesh.h"
#include "mesh_root.h"
#include "mesh_root_args.h"
#include "node.h"
#include "request.h"
#include "text.h"
#include "universe_comms.h"
#include "version.h"

/* What the ranks of a root creation must share: the universe's identity
 * on the private communicator, the device type, the rank map, the layout,
 * the sizes as given (with their zeros), the names and the options. */
static void root_request(const dmesh_root_args_t *a, unsigned long id, dmesh_request_t *r)
{
    char text[DMESH_REQUEST_TEXT];
    int n = a->layout.naxes;

    dmesh_request_part(r, "communicator", "(its mesh number %lu)", id);
    dmesh_request_bytes(r, &id, sizeof(id));
    dmesh_request_part(r, "device type", "\"%s\"", a->cuda ? "cuda" : "cpu");
    dmesh_request_bytes(r, &a->cuda, sizeof(a->cuda));
    dmesh_request_part(r, "shape", "%s", dmesh_ints_text(n, a->given, text, sizeof(text)));
    dmesh_request_bytes(r, a->given, sizeof(a->given));
    dmesh_request_bytes(r, &a->n, sizeof(a->n));
    dmesh_request_layout(r, &a->layout);
    dmesh_request_part(r, "names", "%s", dmesh_names_text(n, a->names, text, sizeof(text)));
    dmesh_request_names(r, n, a->names);
    dmesh_request_options(r, n, &a->opts);
    dmesh_request_part(r, "ranks", "%s", "");
    dmesh_request_bytes(r, &a->local_map, sizeof(a->local_map));
    if (a->rank_map != NULL && !a->local_map) {
        dmesh_request_bytes(r, a->rank_map, (size_t)a->n * sizeof(int));
        dmesh_request_long(r, DMESH_REQUEST_INTS, a->rank_map, (size_t)a->n * sizeof(int));
    }
}

/* The entries of n dims, for dmesh_universe_make. */
static void entries_of(int n, const dmesh_dim_t dim[], dmesh_comm_entry_t *e[])
{
    for (int d = 0; d < n; d++)
        e[d] = dim[d].entry;
}

/* Local, before the agreement: the universe, the mesh handle and the
 * reserved entries of a new root mesh. */
static int root_reserve(dmesh_private_comm_t *p, unsigned long id, const dmesh_root_args_t *a,
                        const char *fn, dmesh_t *out)
{
    dmesh_root_desc_t desc = {.n = a->n,
                              .rank_map = a->rank_map,
                              .local_map = a->local_map,
                              .cuda = a->cuda,
                              .debug = a->opts.debug,
                              .layout = &a->layout,
                              .names = a->names,
                              .node_rule = a->opts.node};
    dmesh_dim_t dim[DMESH_MAX_DIMS];
    dmesh_universe_t *u = NULL;
    int d, err;

    DMESH_TRY(dmesh_universe_new(p, id, &desc, &u));
    err = DMESH_SUCCESS;
    for (d = 0; d < a->layout.naxes && err == DMESH_SUCCESS; d++) {
        dim[d].name = dmesh_universe_root_name(u, d);
        err = dmesh_universe_reserve(u, &a->layout.axes[d], &a->opts.axis[d], a->opts.comm_create,
                                     &dim[d].entry);
    }
    if (err == DMESH_SUCCESS)
        err = dmesh_mesh_new(u, a->layout.naxes, a->names != NULL, 1, dim, fn, out);
    dmesh_universe_release(u); /* the mesh holds it now, or it goes */
    return err;
}

/* The ranks of the communicator that the rank map leaves out, as text:
 * ascending, runs written "a-b", cut short past the buffer. */
static void left_out_text(const dmesh_universe_t *u, char *text, size_t len)
{
    int size = dmesh_universe_comm_size(u), n = dmesh_universe_nranks(u), r, first = -1;
    char *in = calloc((size_t)size, 1);
    size_t k = 0;

    text[0] = '\0';
    if (in == NULL)
        return;
    for (int i = 0; i < n; i++)
        in[dmesh_universe_rank_at(u, i)] = 1;
    for (r = 0; r <= size && k + 32 < len; r++) {
        if (r < size && !in[r] && first < 0)
            first = r;
        if ((r == size || in[r]) && first >= 0) {
            k += (size_t)snprintf(text + k, len - k, first == r - 1 ? "%s%d" : "%s%d-%d",
                                  k ? ", " : "", first, r - 1);
            first = -1;
        }
    }
    if (r <= size)
        snprintf(text + k, len - k, ", ...");
    free(in);
}

static void debug_mesh(const char *what, dmesh_t h)
{
    struct dmesh_mesh *m = dmesh_handle_mesh(h);
    char text[1024];
    int size = dmesh_universe_comm_size(m->u), n = dmesh_universe_nranks(m->u);

    if (!dmesh_universe_debugging(m->u))
        return;
    dmesh_to_string_impl(h, text, sizeof(text), NULL);
    dmesh_universe_debug(m->u, "%s: %s", what, text);
    /* a shape smaller than the communicator leaves ranks out: say which */
    if (n < size && !dmesh_universe_local_map(m->u)) {
        left_out_text(m->u, text, sizeof(text));
        dmesh_universe_debug(m->u,
                             "%s: %d of the communicator's %d ranks are outside the mesh "
                             "(MPI_COMM_NULL communicators, coordinates MPI_UNDEFINED): %s",
                             what, size - n, size, text);
    }
}

/* A root creation for the creation driver (create.h). */
typedef struct {
    const dmesh_root_call_t *c;
    dmesh_root_args_t *a;
    dmesh_private_comm_pending_t *s; /* the private duplicate, begun */
    dmesh_private_comm_t *p;         /* it (s lets go of it at the agreement) */
    unsigned long id;                /* the universe's identity on it */
    dmesh_t m;
} root_state_t;

/* Every rank, whatever its arguments: complete the private duplicate. */
static int root_join(dmesh_creation_t *cr, int err)
{
    root_state_t *r = cr->call;

    return dmesh_private_comm_complete(r->s, err);
}

static int root_reserve_hook(dmesh_creation_t *cr)
{
    root_state_t *r = cr->call;

    if (r->a->opts.order == DMESH_ORDER_NODE)
        return DMESH_SUCCESS; /* the rank map needs the nodes: after the agreement */
    DMESH_TRY(root_reserve(r->p, r->id, r->a, r->c->fn, &r->m));
    cr->u = dmesh_handle_mesh(r->m)->u;
    dmesh_universe_set_source(cr->u, r->c->source);
    return DMESH_SUCCESS;
}

/* Over the user's communicator when the duplicate is new (one agreement
 * decides both), else over the duplicate; then the duplicate is kept or
 * dropped on every rank alike. */
static int root_agree(dmesh_creation_t *cr, uint64_t hash, int err)
{
    root_state_t *r = cr->call;

    cr->over = dmesh_private_comm_agreed_over(r->s);
    err = dmesh_agree(cr->over, hash, err, cr->fn);
    dmesh_private_comm_settle(r->s, err); /* the universe holds its own reference */
    return err;
}

/* dmesh_order=node, once every rank agreed on it: the nodes of the ranks
 * (collective over the private communicator), the rank map by (node, local
 * rank), then the reservations, agreed as in the other orders. */
static int root_reserve_by_node(root_state_t *r, const char *fn)
{
    dmesh_private_comm_t *p = r->p; /* kept by its attribute on the user's communicator */
    MPI_Comm comm = dmesh_private_comm_handle(p);
    int *lows = NULL, err;
    dmesh_node_how_t how;

    DMESH_TRY(dmesh_node_lows(comm, r->a->opts.node, dmesh_private_comm_nodes(p), &lows, &how));
    /* the same lows on every rank: the same outcome, agreed below anyway */
    err = r->c->across == NULL ? DMESH_SUCCESS
                               : dmesh_node_check_uniform(r->a->size, lows, r->a->hybrid_in_node,
                                                          r->a->hybrid_nodes, fn, how.detail);
    if (err == DMESH_SUCCESS &&
        (r->a->rank_map = DMESH_FAULT_MALLOC((size_t)r->a->n * sizeof(int))) == NULL)
        err = dmesh_error_set(DMESH_ERR_NOMEM, "%s: out of memory", fn);
    else if (err == DMESH_SUCCESS)
        err = dmesh_node_order(r->a->size, lows, r->a->n, r->a->rank_map);
    if (err == DMESH_SUCCESS)
        err = root_reserve(p, r->id, r->a, r->c->fn, &r->m);
    if (err == DMESH_SUCCESS) { /* the universe keeps the nodes for dmesh_get_dim_locality */
        dmesh_universe_set_node_lows(dmesh_handle_mesh(r->m)->u, lows, &how);
        dmesh_universe_set_source(dmesh_handle_mesh(r->m)->u, r->c->source);
    } else
        free(lows);
    return dmesh_agree_outcome(comm, err, fn);
}

/* Members somewhere (from_comms of a group), the device, the communicators. */
static int root_make(dmesh_creation_t *cr)
{
    root_state_t *r = cr->call;
    const dmesh_root_call_t *c = r->c;
    struct dmesh_mesh *m;
    MPI_Comm given[DMESH_MAX_DIMS];
    dmesh_comm_entry_t *e[DMESH_MAX_DIMS];

    if (r->a->opts.order == DMESH_ORDER_NODE)
        DMESH_TRY(root_reserve_by_node(r, c->fn));
    m = dmesh_handle_mesh(r->m);

    if (r->a->local_map)
        DMESH_TRY(dmesh_universe_has_member(m->u, c->fn));
    if (r->a->cuda)
        DMESH_TRY(dmesh_universe_bind(m->u, &r->a->opts));
    for (int d = 0; c->dim_comms != NULL && d < r->a->layout.naxes; d++)
        given[d] = dmesh_universe_my_index(m->u) >= 0 ? c->dim_comms[d] : MPI_COMM_NULL;
    entries_of(m->ndims, m->dim, e);
    return dmesh_universe_make(m->u, m->ndims, e, c->dim_comms ? given : NULL, &r->a->opts);
}

static void root_rollback(dmesh_creation_t *cr)
{
    root_state_t *r = cr->call;

    dmesh_free_impl(&r->m); /* the universe and everything in it */
}

static const dmesh_creation_ops_t root_ops = {.join = root_join,
                                              .reserve = root_reserve_hook,
                                              .agree = root_agree,
                                              .make = root_make,
                                              .rollback = root_rollback};

/* The collective part of a root creation call: the creation driver. */
static int root_build(const dmesh_root_call_t *c, dmesh_root_args_t *a, int err,
                      dmesh_private_comm_pending_t *s, dmesh_t *mesh)
{
    root_state_t r = {.c = c,
                      .a = a,
                      .s = s,
                      .p = s->p,
                      .id = s->p != NULL ? dmesh_private_comm_next_id(s->p) : 0,
                      .m = DMESH_NULL};
    dmesh_creation_t cr;

    dmesh_creation_begin(&cr, &root_ops, c->fn, NULL, a->opts.check, &r);
    root_request(a, r.id, &cr.request); /* while the duplication runs */
    if ((err = dmesh_creation_run(&cr, err)) != DMESH_SUCCESS)
        return err;
    dmesh_universe_set_source(dmesh_handle_mesh(r.m)->u, NULL); /* held while the call made it */
    debug_mesh(c->fn, r.m);
    *mesh = r.m;
    return DMESH_SUCCESS;
}

static int root_create(const dmesh_root_call_t *c, dmesh_t *mesh)
{
    dmesh_private_comm_pending_t s;
    dmesh_root_args_t a;
    int err, check;

    if (c->comm == MPI_COMM_NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: communicator is MPI_COMM_NULL", c->fn);
    /* Before any call that passes a handle: a foreign MPI would crash on it. */
    DMESH_TRY(dmesh_mpi_identity_check(c->fn));
    check = dmesh_options_check(c->info);
    memset(&a, 0, sizeof(a));
    DMESH_TRY(dmesh_root_check_comm(c->comm, c->fn, &a.size));
    a.opts.check = check;
    /* The first mesh on comm duplicates it while the arguments are checked;
     * a failed finalize hook is agreed as the duplication's failure. */
    dmesh_private_comm_begin(c->comm, dmesh_finalize_hook(), &s);
    err = c->err != DMESH_SUCCESS ? c->err : dmesh_root_validate(c, mesh, &a);
    if (err != DMESH_SUCCESS)
        a.opts.check = check;          /* what a partial parse left there is not the call's */
    if (err == DMESH_SUCCESS || check) /* with the check off, a rejecting rank returns */
        err = root_build(c, &a, err, &s, mesh);
    else {
        err = dmesh_private_comm_complete(&s, err);
        dmesh_private_comm_settle(&s, err); /* drops a new duplicate */
    }
    free(a.rank_map);
    return err;
}

int dmesh_init_impl(MPI_Comm comm, const char *device_type, int ndims, const int shape[],
                    const char *const dim_names[], MPI_Info info, dmesh_t *mesh)
{
    dmesh_root_call_t c = {.fn = "dmesh_init",
                           .comm = comm,
                           .device_type = device_type,
                           .ndims = ndims,
                           .shape = shape,
                           .ranks_mode = DMESH_RANKS_IDENTITY,
                           .names = dim_names,
                           .info = info,
                           .err = DMESH_SUCCESS};

    return root_create(&c, mesh);
}

int dmesh_create_impl(MPI_Comm comm, const char *device_type, int ndims, const int shape[],
                      const int ranks[], const char *const dim_names[], MPI_Info info,
                      dmesh_t *mesh)
{
    dmesh_root_call_t c = {.fn = "dmesh_create",
                           .comm = comm,
                           .device_type = device_type,
                           .ndims = ndims,
                           .shape = shape,
                           .ranks = ranks,
                           .ranks_mode = DMESH_RANKS_GIVEN,
                           .names = dim_names,
                           .info = info,
                           .err = DMESH_SUCCESS};

    return root_create(&c, mesh);
}

int dmesh_create_shrunk(MPI_Comm comm, const char *device_type, int ndims, const int shape[],
                        const int ranks[], const char *const dim_names[], MPI_Info info,
                        const dmesh_shrink_source_t *source, dmesh_t *mesh)
{
    dmesh_root_call_t c = {.fn = "dmesh_shrink",
                           .comm = comm,
                           .device_type = device_type,
                           .ndims = ndims,
                           .shape = shape,
                           .ranks = ranks,
                           .ranks_mode = DMESH_RANKS_GIVEN,
                           .names = dim_names,
                           .info = info,
                           .err = DMESH_SUCCESS,
                           .source = source};

    return root_create(&c, mesh);
}

int dmesh_init_hybrid_impl(MPI_Comm comm, const char *device_type, int ndims, const int in_node[],
                           const int across[], const char *const dim_names[], MPI_Info info,
                           dmesh_t *mesh)
{
    dmesh_root_call_t c = {.fn = "dmesh_init_hybrid",
                           .comm = comm,
                           .device_type = device_type,
                           .ndims = ndims,
                           .shape = in_node,
                           .ranks_mode = DMESH_RANKS_IDENTITY,
                           .names = dim_names,
                           .info = info,
                           .err = DMESH_SUCCESS,
                           .across = across};

    /* rejected here, this still takes part in the agreement (root_create) */
    if (in_node == NULL || across == NULL)
        c.err = dmesh_error_set(DMESH_ERR_ARG, "dmesh_init_hybrid: %s is NULL",
                                in_node == NULL ? "in_node" : "across");
    return root_create(&c, mesh);
}

int dmesh_from_comms_impl(MPI_Comm comm, const char *device_type, int ndims,
                          const MPI_Comm dim_comms[], const int shape[], const int ranks[],
                          const char *const dim_names[], dmesh_t *mesh)
{
    dmesh_root_call_t c = {.fn = "dmesh_from_comms",
                           .comm = comm,
                           .device_type = device_type,
                           .ndims = ndims,
                           .shape = shape,
                           .ranks = ranks,
                           .ranks_mode = ranks != NULL ? DMESH_RANKS_GIVEN : DMESH_RANKS_FROM_COMM,
                           .names = dim_names,
                           .info = MPI_INFO_NULL,
                           .dim_comms = dim_comms,
                           .err = DMESH_SUCCESS};

    /* rejected here, these still take part in the agreement (root_create) */
    if (dim_comms == NULL)
        c.err = dmesh_error_set(DMESH_ERR_ARG, "dmesh_from_comms: dim_comms is NULL");
    else if (ranks == NULL && ndims != 1)
        c.err = dmesh_error_set(DMESH_ERR_ARG,
                                "dmesh_from_comms: ranks may be NULL only when "
                                "ndims == 1 (ndims is %d)",
                                ndims);
    return root_create(&c, mesh);
}
