/* SPDX-License-Identifier: BSD-3-Clause */
/* Root creation: dmesh_init, dmesh_create, dmesh_from_comms. The arguments
 * are checked locally, then every rank, whatever its own outcome, takes
 * part in one agreement over the user's communicator (which also decides
 * the private duplicate of a new communicator), then the device binding
 * and the communicators of the mesh's dims, each followed by an agreement;
 * a failure anywhere frees everything the call made, on every rank. */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "agree.h"
#include "create.h"
#include "error.h"
#include "fault.h"
#include "finalize.h"
#include "mesh.h"
#include "node.h"
#include "request.h"
#include "text.h"
#include "universe_comms.h"
#include "version.h"

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
} root_args_t;

/* The arguments of a root creation call (init, create, from_comms). */
typedef struct {
    const char *fn;
    MPI_Comm comm;
    const char *device_type;
    int ndims;
    const int *shape;
    const int *ranks;
    int ranks_mode; /* RANKS_* */
    const char *const *names;
    MPI_Info info;
    const MPI_Comm *dim_comms;           /* from_comms only */
    int err;                             /* rejected by the caller: still agreed */
    const int *across;                   /* init_hybrid only: shape is then the in-node factors */
    const dmesh_shrink_source_t *source; /* dmesh_shrink's universe: where it comes from */
} root_call_t;

/* init_hybrid: each dim's size in_node[d] * across[d] (zeros filled); the
 * products of the across factors (the nodes) in a->hybrid_nodes. */
static int hybrid_sizes(const root_call_t *c, int sizes[], root_args_t *a)
{
    long long nodes = 1;

    for (int d = 0; d < c->ndims; d++) {
        long long s = (long long)a->shape[d] * a->across[d];
        if (s > INT_MAX || (nodes *= a->across[d]) > INT_MAX)
            return dmesh_error_set(DMESH_ERR_SIZE, "%s: sizes exceed INT_MAX", c->fn);
        sizes[d] = (int)s;
    }
    a->hybrid_nodes = (int)nodes;
    return DMESH_SUCCESS;
}

/* One list of sizes as the caller gave it: not NULL, no negative entry
 * (DMESH_ERR_ARG, as before zeros were allowed); the product of its
 * non-zero entries in *given, its zeros counted in *zeros. */
static int given_sizes(const char *fn, const char *what, int ndims, const int v[], long long *given,
                       int *zeros)
{
    *given = 1;
    *zeros = 0;
    if (v == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: %s is NULL", fn, what);
    for (int d = 0; d < ndims; d++) {
        if (v[d] < 0)
            return dmesh_error_set(DMESH_ERR_ARG,
                                   "%s: %s[%d] = %d: sizes must be >= 1 (or 0: chosen as by "
                                   "MPI_Dims_create)",
                                   fn, what, d, v[d]);
        if (v[d] == 0)
            (*zeros)++;
        else if ((*given *= v[d]) > INT_MAX)
            return dmesh_error_set(DMESH_ERR_SIZE, "%s: the product of %s exceeds INT_MAX", fn,
                                   what);
    }
    return DMESH_SUCCESS;
}

/* The zeros of v filled by MPI_Dims_create, so that the product of v is
 * total (the given entries kept, the filled ones balanced and
 * non-increasing). The caller made sure that the given product divides
 * total: MPI_Dims_create cannot fail (its errors would go to an error
 * handler that is not the library's). */
static int dims_create(int total, int ndims, int v[])
{
    int rc = MPI_Dims_create(total, ndims, v);

    return rc == MPI_SUCCESS ? DMESH_SUCCESS : dmesh_error_mpi(rc, "MPI_Dims_create");
}

/* A shape entry 0 is chosen as MPI_Dims_create chooses it, the same on
 * every rank: for init and create the zeros of shape are filled so that
 * the product is the communicator's size (create's ranks[] then lists
 * every rank of it); for init_hybrid the zeros of in_node give the ranks
 * per node (size / product(across)), those of across the number of nodes
 * (size / product(in_node)): one of the two lists must be whole, since
 * the nodes are found only after the sizes are agreed. The caller's arrays
 * are read only; a->shape and a->across get the sizes, a->given the
 * entries as given (the agreement hashes them: a rank passing 0 and one
 * passing the size that 0 fills in differ). */
static int fill_sizes(const root_call_t *c, root_args_t *a)
{
    const char *what = c->across != NULL ? "in_node" : "shape";
    long long gs, ga = 1;
    int zs, za = 0, n = c->ndims;
    char ts[256], ta[256];

    if (n < 1 || n > DMESH_MAX_DIMS)
        return dmesh_error_set(DMESH_ERR_ARG, "ndims %d out of range [1, %d]", n, DMESH_MAX_DIMS);
    DMESH_TRY(given_sizes(c->fn, what, n, c->shape, &gs, &zs));
    if (c->across != NULL)
        DMESH_TRY(given_sizes(c->fn, "across", n, c->across, &ga, &za));
    memcpy(a->shape, c->shape, (size_t)n * sizeof(int));
    memcpy(a->given, c->shape, (size_t)n * sizeof(int));
    if (c->across != NULL) {
        memcpy(a->across, c->across, (size_t)n * sizeof(int));
        memcpy(a->given + DMESH_MAX_DIMS, c->across, (size_t)n * sizeof(int));
    }
    if (zs + za == 0)
        return DMESH_SUCCESS;
    dmesh_ints_text(n, c->shape, ts, sizeof(ts));
    if (zs > 0 && za > 0)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "%s: in_node %s and across %s both have entries 0: give one of "
                               "them in full (the ranks per node or the number of nodes)",
                               c->fn, ts, dmesh_ints_text(n, c->across, ta, sizeof(ta)));
    if (a->size % (gs * ga) != 0 && c->across == NULL)
        return dmesh_error_set(DMESH_ERR_SIZE,
                               "%s: shape %s cannot fill a communicator of %d ranks: %d is not "
                               "a multiple of %lld",
                               c->fn, ts, a->size, a->size, gs);
    if (a->size % (gs * ga) != 0)
        return dmesh_error_set(DMESH_ERR_SIZE,
                               "%s: in_node %s and across %s cannot fill a communicator of %d "
                               "ranks: %d is not a multiple of %lld",
                               c->fn, ts, dmesh_ints_text(n, c->across, ta, sizeof(ta)), a->size,
                               a->size, gs * ga);
    if (zs > 0)
        return dims_create((int)(a->size / ga), n, a->shape);
    return dims_create((int)(a->size / gs), n, a->across);
}

static int check_device_type(const char *device_type, int *cuda)
{
    if (device_type == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "device type is NULL (use \"cpu\" or \"cuda\")");
    if (strcasecmp(device_type, "nccl") == 0)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "device type \"%s\" is not \"cpu\" or \"cuda\": NCCL is a "
                               "backend, of device type \"cuda\" (its default there; info "
                               "dmesh_backend=nccl)",
                               device_type);
    if (strchr(device_type, ':') != NULL)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "device type \"%s\" is not \"cpu\" or \"cuda\" (no device index: "
                               "dmesh binds the device itself; dmesh_device forces one)",
                               device_type);
    if (strcmp(device_type, "cpu") != 0 && strcmp(device_type, "cuda") != 0)
        return dmesh_error_set(DMESH_ERR_ARG, "device type \"%s\" is not \"cpu\" or \"cuda\"",
                               device_type);
    *cuda = device_type[0] == 'c' && device_type[1] == 'u';
    return DMESH_SUCCESS;
}

/* A rank list must hold n distinct ranks of the communicator. */
static int check_ranks(int n, const int ranks[], int size, int **copy)
{
    unsigned char *seen;
    int i, err = DMESH_SUCCESS;

    if (ranks == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "ranks is NULL");
    if ((seen = DMESH_FAULT_CALLOC((size_t)size, 1)) == NULL ||
        (*copy = DMESH_FAULT_MALLOC((size_t)n * sizeof(int))) == NULL) {
        free(seen);
        return dmesh_error_set(DMESH_ERR_NOMEM, "rank list of %d: out of memory", n);
    }
    for (i = 0; i < n && err == DMESH_SUCCESS; i++) {
        if (ranks[i] < 0 || ranks[i] >= size)
            err = dmesh_error_set(DMESH_ERR_LAYOUT,
                                  "ranks[%d] = %d is not a rank of the communicator "
                                  "(size %d)",
                                  i, ranks[i], size);
        else if (seen[ranks[i]]++)
            err = dmesh_error_set(DMESH_ERR_LAYOUT, "rank %d appears twice in ranks[]", ranks[i]);
        else
            (*copy)[i] = ranks[i];
    }
    free(seen);
    if (err != DMESH_SUCCESS) {
        free(*copy);
        *copy = NULL;
    }
    return err;
}

/* Ranks of comm that the members of sub are, in sub's rank order. */
static int translate_members(MPI_Comm sub, MPI_Comm comm, int max, int out[], int *count)
{
    MPI_Group gs = MPI_GROUP_NULL, gc = MPI_GROUP_NULL;
    int size, i, rc, *idx = NULL, err = DMESH_SUCCESS;

    if ((rc = MPI_Comm_size(sub, &size)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "MPI_Comm_size of a dimension communicator");
    if (size > max)
        return dmesh_error_set(DMESH_ERR_LAYOUT, "dimension communicator has %d ranks, expected %d",
                               size, max);
    if ((idx = DMESH_FAULT_MALLOC((size_t)size * sizeof(int))) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "out of memory");
    for (i = 0; i < size; i++)
        idx[i] = i;
    if ((rc = MPI_Comm_group(sub, &gs)) != MPI_SUCCESS ||
        (rc = MPI_Comm_group(comm, &gc)) != MPI_SUCCESS ||
        (rc = MPI_Group_translate_ranks(gs, size, idx, gc, out)) != MPI_SUCCESS)
        err = dmesh_error_mpi(rc, "translating a dimension communicator's ranks");
    if (gs != MPI_GROUP_NULL)
        MPI_Group_free(&gs);
    if (gc != MPI_GROUP_NULL)
        MPI_Group_free(&gc);
    free(idx);
    *count = size;
    return err;
}

/* Each given dimension communicator must hold exactly the caller's group
 * along its dimension, in local-rank order. */
static int check_dim_comms(MPI_Comm comm, int ndims, const MPI_Comm dim_comms[], root_args_t *a)
{
    int rank, me, d, i, count, expect, got[1024], *want, *have, err = DMESH_SUCCESS;

    MPI_Comm_rank(comm, &rank);
    if ((me = dmesh_rank_map_index(a->n, a->rank_map, rank)) < 0)
        return DMESH_SUCCESS;
    for (d = 0; d < ndims && err == DMESH_SUCCESS; d++) {
        DMESH_TRY(dmesh_axis_numel(&a->layout.axes[d], &expect));
        if (dim_comms[d] == MPI_COMM_NULL)
            return dmesh_error_set(DMESH_ERR_LAYOUT,
                                   "dim_comms[%d] is MPI_COMM_NULL on rank %d, "
                                   "a member of the mesh",
                                   d, rank);
        want = expect <= 512 ? got : DMESH_FAULT_MALLOC(2 * (size_t)expect * sizeof(int));
        if (want == NULL)
            return dmesh_error_set(DMESH_ERR_NOMEM, "out of memory");
        have = want + expect;
        err = dmesh_axis_group_of(&a->layout.axes[d], a->n, a->rank_map, me, expect, want, &count);
        if (err == DMESH_SUCCESS)
            err = translate_members(dim_comms[d], comm, expect, have, &count);
        for (i = 0; err == DMESH_SUCCESS && i < expect; i++)
            if (count != expect || have[i] != want[i])
                err = dmesh_error_set(DMESH_ERR_LAYOUT,
                                      "dim_comms[%d] on rank %d: member %d is "
                                      "rank %d, the mesh expects rank %d (group of %d)",
                                      d, rank, i, i < count ? have[i] : -1, want[i], expect);
        if (want != got)
            free(want);
    }
    return err;
}

/* from_comms of one dimension without a rank list: the mesh is the group of
 * dim_comms[0], which differs between groups (PyTorch's from_group). */
static int map_from_comm(MPI_Comm comm, MPI_Comm dim, int shape0, root_args_t *a)
{
    int count, i;

    a->local_map = 1;
    if ((a->rank_map = DMESH_FAULT_MALLOC((size_t)shape0 * sizeof(int))) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "out of memory");
    for (i = 0; i < shape0; i++)
        a->rank_map[i] = -1;
    if (dim == MPI_COMM_NULL)
        return DMESH_SUCCESS;
    DMESH_TRY(translate_members(dim, comm, shape0, a->rank_map, &count));
    if (count != shape0)
        return dmesh_error_set(DMESH_ERR_LAYOUT, "dim_comms[0] has %d ranks, shape[0] is %d", count,
                               shape0);
    for (i = 0; i < shape0; i++)
        if (a->rank_map[i] == MPI_UNDEFINED)
            return dmesh_error_set(DMESH_ERR_LAYOUT,
                                   "dim_comms[0]: its rank %d is not in the "
                                   "communicator",
                                   i);
    return DMESH_SUCCESS;
}

enum { RANKS_IDENTITY, RANKS_GIVEN, RANKS_FROM_COMM };

/* The communicator itself: a problem with it is the same on every rank (or
 * the ranks passed different communicators), and there is nothing to agree
 * over, so these return at once. */
static int check_comm(MPI_Comm comm, const char *fn, int *size)
{
    int rc, inter = 0;

    if (comm == MPI_COMM_NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: communicator is MPI_COMM_NULL", fn);
    if ((rc = MPI_Comm_test_inter(comm, &inter)) != MPI_SUCCESS ||
        (rc = MPI_Comm_size(comm, size)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "the user's communicator");
    if (inter)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "%s: an intercommunicator (a mesh needs an "
                               "intracommunicator)",
                               fn);
    return DMESH_SUCCESS;
}

static int root_validate(const root_call_t *c, dmesh_t *mesh, root_args_t *a)
{
    int sizes[DMESH_MAX_DIMS];
    const int *shape = c->shape; /* from_comms: as given (its communicators have sizes) */

    DMESH_CHECK_PTR(mesh);
    DMESH_TRY(check_device_type(c->device_type, &a->cuda));
    if (c->dim_comms == NULL) {
        DMESH_TRY(fill_sizes(c, a));
        shape = a->shape;
    }
    if (c->across != NULL)
        DMESH_TRY(hybrid_sizes(c, sizes, a));
    DMESH_TRY(
        dmesh_check_shape(c->fn, c->ndims, c->across != NULL ? sizes : shape, a->size, &a->n));
    if (c->names != NULL)
        DMESH_TRY(dmesh_names_check(c->ndims, c->names, c->fn));
    a->names = c->names;
    DMESH_TRY(dmesh_options_parse(c->info, c->ndims, c->names, a->cuda, &a->opts));
    DMESH_TRY(dmesh_check_backends(c->ndims, a->cuda, &a->opts));
    if (c->across != NULL) {
        if (a->n != a->size)
            return dmesh_error_set(DMESH_ERR_SIZE,
                                   "%s: the mesh has %d ranks, the communicator %d: a hybrid mesh "
                                   "spans every rank",
                                   c->fn, a->n, a->size);
        DMESH_TRY(dmesh_hybrid_layout(c->ndims, a->shape, a->across, &a->layout));
        a->opts.order = DMESH_ORDER_NODE; /* its rank map is by node */
        a->hybrid_in_node = a->n / a->hybrid_nodes;
    } else {
        DMESH_TRY(dmesh_layout_row_major(c->ndims, shape, &a->layout));
    }
    if (a->opts.order == DMESH_ORDER_NODE && c->ranks_mode != RANKS_IDENTITY)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "%s: dmesh_order=node orders the ranks of dmesh_init; the ranks "
                               "given here are taken as they are",
                               c->fn);
    if (c->ranks_mode == RANKS_GIVEN)
        DMESH_TRY(check_ranks(a->n, c->ranks, a->size, &a->rank_map));
    if (c->ranks_mode == RANKS_FROM_COMM)
        DMESH_TRY(map_from_comm(c->comm, c->dim_comms[0], c->shape[0], a));
    if (c->dim_comms != NULL)
        DMESH_TRY(check_dim_comms(c->comm, c->ndims, c->dim_comms, a));
    return DMESH_SUCCESS;
}

/* What the ranks of a root creation must share: the universe's identity
 * on the private communicator, the device type, the rank map, the layout,
 * the sizes as given (with their zeros), the names and the options. */
static void root_request(const root_args_t *a, unsigned long id, dmesh_request_t *r)
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
static int root_reserve(dmesh_private_comm_t *p, unsigned long id, const root_args_t *a,
                        const char *fn, dmesh_t *out)
{
    dmesh_root_desc_t desc = {a->n,          a->rank_map, a->local_map, a->cuda,
                              a->opts.debug, &a->layout,  a->names,     a->opts.node};
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
    dmesh_to_string(h, text, sizeof(text), NULL);
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
    const root_call_t *c;
    root_args_t *a;
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
    return dmesh_agree(comm, 0, err, fn);
}

/* Members somewhere (from_comms of a group), the device, the communicators. */
static int root_make(dmesh_creation_t *cr)
{
    root_state_t *r = cr->call;
    const root_call_t *c = r->c;
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

    dmesh_free(&r->m); /* the universe and everything in it */
}

static const dmesh_creation_ops_t root_ops = {.join = root_join,
                                              .reserve = root_reserve_hook,
                                              .agree = root_agree,
                                              .make = root_make,
                                              .rollback = root_rollback};

/* The collective part of a root creation call: the creation driver. */
static int root_build(const root_call_t *c, root_args_t *a, int err,
                      dmesh_private_comm_pending_t *s, dmesh_t *mesh)
{
    root_state_t r = {c,         a, s, s->p, s->p != NULL ? dmesh_private_comm_next_id(s->p) : 0,
                      DMESH_NULL};
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

static int root_create(const root_call_t *c, dmesh_t *mesh)
{
    dmesh_private_comm_pending_t s;
    root_args_t a;
    int err, check;

    if (c->comm == MPI_COMM_NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: communicator is MPI_COMM_NULL", c->fn);
    /* Before any call that passes a handle: a foreign MPI would crash on it. */
    DMESH_TRY(dmesh_mpi_identity_check(c->fn));
    check = dmesh_options_check(c->info);
    memset(&a, 0, sizeof(a));
    DMESH_TRY(check_comm(c->comm, c->fn, &a.size));
    a.opts.check = check;
    /* The first mesh on comm duplicates it while the arguments are checked;
     * a failed finalize hook is agreed as the duplication's failure. */
    dmesh_private_comm_begin(c->comm, dmesh_finalize_hook(), &s);
    err = c->err != DMESH_SUCCESS ? c->err : root_validate(c, mesh, &a);
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

int dmesh_init(MPI_Comm comm, const char *device_type, int ndims, const int shape[],
               const char *const dim_names[], MPI_Info info, dmesh_t *mesh)
{
    root_call_t c = {"dmesh_init", comm, device_type, ndims,         shape, NULL, RANKS_IDENTITY,
                     dim_names,    info, NULL,        DMESH_SUCCESS, NULL,  NULL};

    return root_create(&c, mesh);
}

int dmesh_create(MPI_Comm comm, const char *device_type, int ndims, const int shape[],
                 const int ranks[], const char *const dim_names[], MPI_Info info, dmesh_t *mesh)
{
    root_call_t c = {"dmesh_create", comm, device_type, ndims,         shape, ranks, RANKS_GIVEN,
                     dim_names,      info, NULL,        DMESH_SUCCESS, NULL,  NULL};

    return root_create(&c, mesh);
}

int dmesh_create_shrunk(MPI_Comm comm, const char *device_type, int ndims, const int shape[],
                        const int ranks[], const char *const dim_names[], MPI_Info info,
                        const dmesh_shrink_source_t *source, dmesh_t *mesh)
{
    root_call_t c = {"dmesh_shrink", comm, device_type, ndims,         shape, ranks, RANKS_GIVEN,
                     dim_names,      info, NULL,        DMESH_SUCCESS, NULL,  source};

    return root_create(&c, mesh);
}

int dmesh_init_hybrid(MPI_Comm comm, const char *device_type, int ndims, const int in_node[],
                      const int across[], const char *const dim_names[], MPI_Info info,
                      dmesh_t *mesh)
{
    root_call_t c = {
        "dmesh_init_hybrid", comm, device_type, ndims,         in_node, NULL, RANKS_IDENTITY,
        dim_names,           info, NULL,        DMESH_SUCCESS, across,  NULL};

    /* rejected here, this still takes part in the agreement (root_create) */
    if (in_node == NULL || across == NULL)
        c.err = dmesh_error_set(DMESH_ERR_ARG, "dmesh_init_hybrid: %s is NULL",
                                in_node == NULL ? "in_node" : "across");
    return root_create(&c, mesh);
}

int dmesh_from_comms(MPI_Comm comm, const char *device_type, int ndims, const MPI_Comm dim_comms[],
                     const int shape[], const int ranks[], const char *const dim_names[],
                     dmesh_t *mesh)
{
    root_call_t c = {"dmesh_from_comms",
                     comm,
                     device_type,
                     ndims,
                     shape,
                     ranks,
                     ranks != NULL ? RANKS_GIVEN : RANKS_FROM_COMM,
                     dim_names,
                     MPI_INFO_NULL,
                     dim_comms,
                     DMESH_SUCCESS,
                     NULL,
                     NULL};

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
