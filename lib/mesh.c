/* SPDX-License-Identifier: BSD-3-Clause */
/* Mesh creation, derived meshes and destruction. Validation happens at the
 * API boundary; collective calls then run the agreement check (when on) so
 * that every rank returns the same error class instead of some ranks
 * entering a communicator creation alone. */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_nccl.h"
#include "error.h"
#include "fault.h"
#include "mesh.h"
#include "request.h"
#include "text.h"
#include "topo.h"
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
    const MPI_Comm *dim_comms; /* from_comms only */
    int err;                   /* rejected by the caller: still agreed */
} root_call_t;

/* A derived mesh being assembled (slice, flatten, unflatten, concatenate). */
typedef struct {
    int ndims, named;
    dmesh_dim_t dim[DMESH_MAX_DIMS];
} draft_t;

int dmesh_mesh_check(dmesh_t mesh, long long dim, const char *func)
{
    if (mesh == DMESH_NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: mesh is DMESH_NULL", func);
    if (dim != DMESH_ANY_DIM && (dim < 0 || dim >= mesh->ndims))
        return dmesh_error_set(DMESH_ERR_ARG, "%s: dim %lld out of range [0, %d)", func, dim,
                               mesh->ndims);
    return DMESH_SUCCESS;
}

int dmesh_mesh_new(dmesh_universe_t *u, int ndims, int named, int is_root, const dmesh_dim_t dims[],
                   dmesh_t *out)
{
    dmesh_t m = DMESH_FAULT_MALLOC(sizeof(*m) + (size_t)ndims * sizeof(m->dim[0]));

    if (m == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "mesh handle: out of memory");
    m->u = u;
    m->ndims = ndims;
    m->named = named;
    m->is_root = is_root;
    memcpy(m->dim, dims, (size_t)ndims * sizeof(m->dim[0]));
    __atomic_add_fetch(&u->refcount, 1, __ATOMIC_RELAXED); /* local calls may run concurrently */
    *out = m;
    return DMESH_SUCCESS;
}

/* The axes of n dims joined. */
static int dims_concat(int n, const dmesh_dim_t dim[], dmesh_axis_t *all)
{
    all->natoms = 0;
    for (int d = 0; d < n; d++) {
        const dmesh_axis_t *x = &dim[d].entry->axis;
        if (all->natoms + x->natoms > DMESH_LAYOUT_MAX_ATOMS)
            return dmesh_error_set(DMESH_ERR_SIZE, "more than %d atoms in all axes",
                                   DMESH_LAYOUT_MAX_ATOMS);
        memcpy(&all->atoms[all->natoms], x->atoms, (size_t)x->natoms * sizeof(x->atoms[0]));
        all->natoms += x->natoms;
    }
    return DMESH_SUCCESS;
}

int dmesh_mesh_concat(const struct dmesh_s *m, dmesh_axis_t *all)
{
    return dims_concat(m->ndims, m->dim, all);
}

static int check_device_type(const char *device_type, int *cuda)
{
    if (device_type == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "device type is NULL (use \"cpu\" or \"cuda\")");
    if (strcmp(device_type, "cpu") != 0 && strcmp(device_type, "cuda") != 0)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "device type \"%s\" is not \"cpu\" or \"cuda\" (no device index: "
                               "dmesh binds the device itself)",
                               device_type);
    *cuda = device_type[0] == 'c' && device_type[1] == 'u';
    return DMESH_SUCCESS;
}

static int check_shape(int ndims, const int shape[], int size, int *n)
{
    long long p = 1;
    int i;

    if (ndims < 1 || ndims > DMESH_MAX_DIMS)
        return dmesh_error_set(DMESH_ERR_ARG, "ndims %d out of range [1, %d]", ndims,
                               DMESH_MAX_DIMS);
    if (shape == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "shape is NULL");
    for (i = 0; i < ndims; i++) {
        if (shape[i] < 1)
            return dmesh_error_set(DMESH_ERR_ARG, "shape[%d] = %d: sizes must be >= 1", i,
                                   shape[i]);
        p *= shape[i];
        if (p > INT_MAX)
            return dmesh_error_set(DMESH_ERR_SIZE, "mesh shape product exceeds INT_MAX");
    }
    if (p > size)
        return dmesh_error_set(DMESH_ERR_SIZE,
                               "mesh shape product %lld exceeds communicator size %d", p, size);
    *n = (int)p;
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

/* Every axis's backend must be built in and usable with the device type. */
static int check_backends(int ndims, int cuda, const dmesh_options_t *o)
{
    int d;

    for (d = 0; d < ndims; d++) {
        if (o->axis[d].backend != DMESH_BACKEND_NCCL)
            continue;
        if (!cuda)
            return dmesh_error_set(DMESH_ERR_BACKEND,
                                   "backend \"nccl\" (dim %d) needs device type \"cuda\"", d);
        if (!dmesh_nccl_available())
            return dmesh_error_set(DMESH_ERR_BACKEND,
                                   "backend \"nccl\" (dim %d): dmesh was built without NCCL", d);
    }
    return DMESH_SUCCESS;
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
    DMESH_CHECK_PTR(mesh);
    DMESH_TRY(check_device_type(c->device_type, &a->cuda));
    DMESH_TRY(check_shape(c->ndims, c->shape, a->size, &a->n));
    if (c->names != NULL)
        DMESH_TRY(dmesh_names_check(c->ndims, c->names, c->fn));
    a->names = c->names;
    DMESH_TRY(dmesh_options_parse(c->info, c->ndims, c->names, a->cuda, &a->opts));
    DMESH_TRY(check_backends(c->ndims, a->cuda, &a->opts));
    DMESH_TRY(dmesh_layout_row_major(c->ndims, c->shape, &a->layout));
    if (c->ranks_mode == RANKS_GIVEN)
        DMESH_TRY(check_ranks(a->n, c->ranks, a->size, &a->rank_map));
    if (c->ranks_mode == RANKS_FROM_COMM)
        DMESH_TRY(map_from_comm(c->comm, c->dim_comms[0], c->shape[0], a));
    if (c->dim_comms != NULL)
        DMESH_TRY(check_dim_comms(c->comm, c->ndims, c->dim_comms, a));
    return DMESH_SUCCESS;
}

static uint64_t root_hash(const char *fn, const root_args_t *a, unsigned long id)
{
    dmesh_request_t r;

    dmesh_request_begin(&r, fn, a->opts.check);
    dmesh_request_bytes(&r, &id, sizeof(id));
    dmesh_request_bytes(&r, &a->cuda, sizeof(a->cuda));
    dmesh_request_bytes(&r, &a->n, sizeof(a->n));
    dmesh_request_bytes(&r, &a->local_map, sizeof(a->local_map));
    dmesh_request_layout(&r, &a->layout);
    dmesh_request_names(&r, a->layout.naxes, a->names);
    dmesh_request_options(&r, a->layout.naxes, &a->opts);
    if (a->rank_map != NULL && !a->local_map)
        dmesh_request_bytes(&r, a->rank_map, (size_t)a->n * sizeof(int));
    return dmesh_request_hash(&r);
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
                        dmesh_t *out)
{
    dmesh_root_desc_t desc = {a->n,          a->rank_map, a->local_map, a->cuda,
                              a->opts.debug, &a->layout,  a->names};
    dmesh_dim_t dim[DMESH_MAX_DIMS];
    dmesh_universe_t *u = NULL;
    int d, err;

    DMESH_TRY(dmesh_universe_new(p, id, &desc, &u));
    err = DMESH_SUCCESS;
    for (d = 0; d < a->layout.naxes && err == DMESH_SUCCESS; d++) {
        dim[d].name = u->root_names[d];
        err = dmesh_universe_reserve(u, &a->layout.axes[d], &a->opts.axis[d], a->opts.comm_create,
                                     &dim[d].entry);
    }
    if (err == DMESH_SUCCESS)
        err = dmesh_mesh_new(u, a->layout.naxes, a->names != NULL, 1, dim, out);
    dmesh_universe_release(u); /* the mesh holds it now, or it goes */
    return err;
}

/* from_comms of one dimension without a rank list: some rank must be a
 * member (collective over u->comm, after the agreement). */
static int check_has_member(dmesh_universe_t *u)
{
    int mine = u->my_index >= 0, any = 0,
        rc = MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, u->comm);

    if (rc != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "dmesh_from_comms: MPI_Allreduce");
    if (!any)
        return dmesh_error_set(DMESH_ERR_LAYOUT,
                               "dmesh_from_comms: dim_comms[0] is "
                               "MPI_COMM_NULL on every rank: the mesh has no member");
    return DMESH_SUCCESS;
}

static void debug_mesh(const char *what, dmesh_t m)
{
    char text[1024];

    if (!m->u->debug || m->u->rank != 0)
        return;
    dmesh_to_string(m, text, sizeof(text), NULL);
    dmesh_universe_debug(m->u, "%s: %s", what, text);
}

/* The collective part of a root creation call: every rank takes part
 * whatever its arguments (err), completes the private duplicate begun in s,
 * then agrees (over the user's communicator when the duplicate is new: one
 * agreement decides both), binds, makes communicators. */
static int root_build(const root_call_t *c, root_args_t *a, int err,
                      dmesh_private_comm_pending_t *s, dmesh_t *mesh)
{
    dmesh_t m = DMESH_NULL;
    MPI_Comm given[DMESH_MAX_DIMS];
    dmesh_comm_entry_t *e[DMESH_MAX_DIMS];
    unsigned long id = s->p != NULL ? dmesh_private_comm_next_id(s->p) : 0;
    uint64_t hash = root_hash(c->fn, a, id); /* while the duplication runs */
    int d;

    err = dmesh_private_comm_complete(s, err);
    if (err == DMESH_SUCCESS)
        err = root_reserve(s->p, id, a, &m);
    err = dmesh_agree(dmesh_private_comm_agreed_over(s), hash, err, c->fn);
    dmesh_private_comm_settle(s, err); /* the universe holds its own reference */
    if (err == DMESH_SUCCESS && a->local_map)
        err = check_has_member(m->u);
    if (err == DMESH_SUCCESS && a->cuda)
        err = dmesh_topo_bind(m->u->comm, &a->opts, m->u->my_index >= 0, &m->u->device);
    for (d = 0; c->dim_comms != NULL && d < a->layout.naxes; d++)
        given[d] = err == DMESH_SUCCESS && m->u->my_index >= 0 ? c->dim_comms[d] : MPI_COMM_NULL;
    if (err == DMESH_SUCCESS) {
        entries_of(m->ndims, m->dim, e);
        err = dmesh_universe_make(m->u, m->ndims, e, c->dim_comms ? given : NULL, &a->opts);
    }
    if (err != DMESH_SUCCESS) {
        dmesh_free(&m); /* the universe and everything in it */
        return err;
    }
    debug_mesh(c->fn, m);
    *mesh = m;
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
    /* The first mesh on comm duplicates it while the arguments are checked. */
    dmesh_private_comm_begin(c->comm, &s);
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
    root_call_t c = {"dmesh_init",   comm,      device_type, ndims, shape,        NULL,
                     RANKS_IDENTITY, dim_names, info,        NULL,  DMESH_SUCCESS};

    return root_create(&c, mesh);
}

int dmesh_create(MPI_Comm comm, const char *device_type, int ndims, const int shape[],
                 const int ranks[], const char *const dim_names[], MPI_Info info, dmesh_t *mesh)
{
    root_call_t c = {"dmesh_create", comm,      device_type, ndims, shape,        ranks,
                     RANKS_GIVEN,    dim_names, info,        NULL,  DMESH_SUCCESS};

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
                     DMESH_SUCCESS};

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

int dmesh_free(dmesh_t *mesh)
{
    DMESH_CHECK_PTR(mesh);
    if (*mesh == DMESH_NULL)
        return DMESH_SUCCESS;
    dmesh_universe_release((*mesh)->u);
    free(*mesh);
    *mesh = DMESH_NULL;
    return DMESH_SUCCESS;
}

/* ---- derived meshes ---- */

/* A new handle in u with the dims of t. */
static int mesh_from(dmesh_universe_t *u, const draft_t *t, dmesh_t *out)
{
    return dmesh_mesh_new(u, t->ndims, t->named, 0, t->dim, out);
}

static int find_dim(const struct dmesh_s *m, const char *name)
{
    int d;

    for (d = 0; m->named && d < m->ndims; d++)
        if (strcmp(m->dim[d].name, name) == 0)
            return d;
    return -1;
}

/* The check of the paths that assemble a mesh from the names of meshes of
 * one universe (slice, unflatten, concatenate): no name twice. The names
 * are interned, so equal names are equal pointers. */
static int check_unique_names(const draft_t *t, const char *fn)
{
    for (int d = 0; t->named && d < t->ndims; d++)
        for (int k = 0; k < d; k++)
            if (t->dim[k].name == t->dim[d].name)
                return dmesh_error_set(DMESH_ERR_NAME, "%s: name \"%s\" is used twice", fn,
                                       t->dim[d].name);
    return DMESH_SUCCESS;
}

/* Axes given in a slice or concatenate must be sorted (slice only) and must
 * not overlap: together they form an orthogonal layout. */
static int check_joined(const draft_t *t, int need_sorted, const char *fn)
{
    dmesh_axis_t all;
    int ok = 0;

    if (dims_concat(t->ndims, t->dim, &all) != DMESH_SUCCESS)
        return dmesh_error_set(DMESH_ERR_LAYOUT, "%s: the dimensions overlap", fn);
    DMESH_TRY(dmesh_axis_is_sorted(&all, &ok));
    if (need_sorted && !ok)
        return dmesh_error_set(DMESH_ERR_LAYOUT,
                               "%s: dimensions are not in ascending stride order "
                               "(outer to inner, as in the root mesh)",
                               fn);
    DMESH_TRY(dmesh_axis_is_orthogonal(&all, &ok));
    if (!ok)
        return dmesh_error_set(DMESH_ERR_LAYOUT, "%s: the dimensions overlap", fn);
    return DMESH_SUCCESS;
}

/* Append the dimension called name (of m, or registered on the root) to s. */
static int slice_add(dmesh_t m, const char *name, draft_t *s)
{
    const dmesh_flat_name_t *f;
    int d = find_dim(m, name);

    if (d >= 0) {
        s->dim[s->ndims++] = m->dim[d];
    } else if (m->is_root && (f = dmesh_universe_find_flat(m->u, name)) != NULL) {
        s->dim[s->ndims].entry = f->entry;
        s->dim[s->ndims++].name = f->name;
    } else {
        return dmesh_error_set(DMESH_ERR_NAME, "dmesh_slice: no dimension \"%s\" in the mesh%s",
                               name, m->is_root ? " (nor registered by dmesh_flatten)" : "");
    }
    return DMESH_SUCCESS;
}

int dmesh_slice(dmesh_t mesh, int n, const char *const dim_names[], dmesh_t *submesh)
{
    draft_t s;
    int i;

    DMESH_TRY(dmesh_mesh_check(mesh, DMESH_ANY_DIM, "dmesh_slice"));
    DMESH_CHECK_PTR(dim_names);
    DMESH_CHECK_PTR(submesh);
    if (!mesh->named)
        return dmesh_error_set(DMESH_ERR_NAME, "dmesh_slice: the mesh has no dimension names");
    if (n < 1 || n > DMESH_MAX_DIMS)
        return dmesh_error_set(DMESH_ERR_ARG, "dmesh_slice: n = %d out of range [1, %d]", n,
                               DMESH_MAX_DIMS);
    s.ndims = 0;
    s.named = 1;
    for (i = 0; i < n; i++) {
        if (dim_names[i] == NULL)
            return dmesh_error_set(DMESH_ERR_NAME, "dmesh_slice: dim_names[%d] is NULL", i);
        DMESH_TRY(slice_add(mesh, dim_names[i], &s));
    }
    DMESH_TRY(check_unique_names(&s, "dmesh_slice"));
    DMESH_TRY(check_joined(&s, 1, "dmesh_slice"));
    return mesh_from(mesh->u, &s, submesh);
}

/* Options of the new axes of a derived mesh: info applies to them only. */
static int derived_options(dmesh_t m, MPI_Info info, int n, const char *const names[],
                           dmesh_options_t *o)
{
    DMESH_TRY(dmesh_options_parse(info, n, names, m->u->cuda, o));
    return check_backends(n, m->u->cuda, o);
}

/* Agreement for a derived collective call, over the root communicator;
 * non-members of the mesh take part too (the splits need every rank). With
 * the check off only the outcome is agreed, and only when communicators are
 * to be made (creating: the same on every rank, the caches being equal). */
static int derived_agree(dmesh_t m, const char *fn, dmesh_request_t *r, int err, int nnew,
                         const dmesh_options_t *o, int creating)
{
    if (!r->check)
        return creating ? dmesh_universe_agree(m->u, dmesh_request_hash(r), err, fn) : err;
    if (err == DMESH_SUCCESS) /* options of the new axes, parsed only when all went well */
        dmesh_request_options(r, nnew, o);
    dmesh_request_dims(r, m->ndims, m->named, m->dim);
    return dmesh_universe_agree(m->u, dmesh_request_hash(r), err, fn);
}

/* Checks of a derived collective call before its own: a NULL output or an
 * aborted universe is an error of this rank, agreed like the others. */
static int derived_begin(dmesh_t m, const void *out, const char *fn)
{
    if (out == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: the output argument is NULL", fn);
    if (m->u->aborted)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: universe aborted (dmesh_abort)", fn);
    return DMESH_SUCCESS;
}

/* Local, before the agreement: reserve the entries e[0..n) of axes[0..n)
 * (options o->axis[0..n)). */
static int derived_reserve(dmesh_t m, int n, const dmesh_axis_t axes[], const dmesh_options_t *o,
                           int *creating, dmesh_comm_entry_t *e[])
{
    int d, err = DMESH_SUCCESS, before = m->u->cache.count;

    for (d = 0; d < n && err == DMESH_SUCCESS; d++)
        err = dmesh_universe_reserve(m->u, &axes[d], &o->axis[d], o->comm_create, &e[d]);
    /* a failed reservation was a miss: communicators were to be made */
    *creating = err != DMESH_SUCCESS || m->u->cache.count != before;
    return err;
}

/* After a failed agreement or creation: the handle and the reservations go,
 * on every rank. */
static int derived_fail(dmesh_t m, dmesh_t *out, int err)
{
    dmesh_free(out);
    dmesh_universe_unreserve(m->u);
    return err;
}

/* Default flatten name: the dimension names joined with "_". */
static int join_names(dmesh_t m, char out[DMESH_MAX_NAME])
{
    size_t len = 0, k;
    int d;

    if (!m->named)
        return dmesh_error_set(DMESH_ERR_NAME, "dmesh_flatten: an unnamed mesh needs a name");
    for (d = 0; d < m->ndims; d++) {
        k = strlen(m->dim[d].name);
        if (len + k + (d > 0) >= DMESH_MAX_NAME)
            return dmesh_error_set(DMESH_ERR_NAME,
                                   "dmesh_flatten: joined name is longer than %d "
                                   "bytes",
                                   DMESH_MAX_NAME - 1);
        if (d > 0)
            out[len++] = '_';
        memcpy(out + len, m->dim[d].name, k + 1);
        len += k;
    }
    return DMESH_SUCCESS;
}

/* Local checks of flatten; *reuse is the registered entry to return again. */
static int flatten_check(dmesh_t m, const char *name, const dmesh_axis_t *axis,
                         dmesh_comm_entry_t **reuse)
{
    const dmesh_flat_name_t *f;

    *reuse = NULL;
    if (m->ndims == 1 && m->named && strcmp(m->dim[0].name, name) == 0) {
        *reuse = m->dim[0].entry;
        return DMESH_SUCCESS;
    }
    if (dmesh_universe_is_root_name(m->u, name))
        return dmesh_error_set(DMESH_ERR_NAME,
                               "dmesh_flatten: \"%s\" is a dimension of the "
                               "root mesh",
                               name);
    if ((f = dmesh_universe_find_flat(m->u, name)) != NULL) {
        if (!dmesh_axis_equal(&f->entry->axis, axis))
            return dmesh_error_set(DMESH_ERR_NAME,
                                   "dmesh_flatten: \"%s\" was registered before "
                                   "for another layout",
                                   name);
        *reuse = f->entry;
    }
    return DMESH_SUCCESS;
}

static int flatten_local(dmesh_t m, const char *name, MPI_Info info, char flat[DMESH_MAX_NAME],
                         dmesh_axis_t *axis, dmesh_options_t *o, dmesh_comm_entry_t **reuse)
{
    dmesh_axis_t all;
    const char *names[1] = {flat};

    if (name == NULL)
        DMESH_TRY(join_names(m, flat));
    else {
        DMESH_TRY(dmesh_names_check(1, &name, "dmesh_flatten"));
        strcpy(flat, name);
    }
    DMESH_TRY(dmesh_mesh_concat(m, &all));
    DMESH_TRY(dmesh_axis_canonical(&all, axis));
    DMESH_TRY(derived_options(m, info, 1, names, o));
    return flatten_check(m, flat, axis, reuse);
}

/* Local part of flatten after its checks: the name interned, the entry
 * found (e) or reserved, the new handle. */
static int flatten_reserve(dmesh_t m, const char *text, const dmesh_axis_t *axis,
                           const dmesh_options_t *o, dmesh_comm_entry_t *e, int *creating,
                           draft_t *t, dmesh_t *out)
{
    DMESH_TRY(dmesh_universe_intern(m->u, text, &t->dim[0].name));
    t->dim[0].entry = e;
    if (e == NULL) {
        DMESH_TRY(dmesh_universe_flat_reserve(m->u, 1));
        DMESH_TRY(derived_reserve(m, 1, axis, o, creating, &t->dim[0].entry));
    }
    return mesh_from(m->u, t, out);
}

int dmesh_flatten(dmesh_t mesh, const char *name, MPI_Info info, dmesh_t *flat)
{
    draft_t t = {.ndims = 1, .named = 1};
    dmesh_axis_t axis;
    dmesh_options_t o;
    dmesh_comm_entry_t *e = NULL;
    dmesh_t out = DMESH_NULL;
    char text[DMESH_MAX_NAME] = "";
    dmesh_request_t r;
    int err, check = dmesh_options_check(info), creating = 0;

    DMESH_TRY(dmesh_mesh_check(mesh, DMESH_ANY_DIM, "dmesh_flatten"));
    err = derived_begin(mesh, flat, "dmesh_flatten");
    if (err == DMESH_SUCCESS)
        err = flatten_local(mesh, name, info, text, &axis, &o, &e);
    if (err != DMESH_SUCCESS && !check)
        return err;
    if (err == DMESH_SUCCESS)
        err = flatten_reserve(mesh, text, &axis, &o, e, &creating, &t, &out);
    dmesh_request_begin(&r, "dmesh_flatten", check);
    dmesh_request_string(&r, text);
    err = derived_agree(mesh, "dmesh_flatten", &r, err, 1, &o, creating);
    if (err == DMESH_SUCCESS)
        err = dmesh_universe_make(mesh->u, 1, &t.dim[0].entry, NULL, &o);
    if (err != DMESH_SUCCESS)
        return derived_fail(mesh, &out, err);
    if (e == NULL) /* room reserved above: cannot fail */
        dmesh_universe_register(mesh->u, t.dim[0].name, t.dim[0].entry);
    *flat = out;
    return DMESH_SUCCESS;
}

/* The checks of unflatten's arguments. */
static int unflatten_check(dmesh_t m, int dim, int n, const int sizes[], const char *const names[])
{
    int size, d;

    DMESH_TRY(dmesh_mesh_check(m, dim, "dmesh_unflatten"));
    if (n < 1 || n > DMESH_MAX_DIMS || m->ndims - 1 + n > DMESH_MAX_DIMS)
        return dmesh_error_set(DMESH_ERR_ARG, "dmesh_unflatten: %d new dims make more than %d", n,
                               DMESH_MAX_DIMS);
    DMESH_CHECK_PTR(sizes);
    DMESH_TRY(check_shape(n, sizes, INT_MAX, &size));
    DMESH_TRY(dmesh_axis_numel(dmesh_mesh_axis(m, dim), &d));
    if (size != d)
        return dmesh_error_set(DMESH_ERR_SIZE,
                               "dmesh_unflatten: sizes multiply to %d, dim %d has "
                               "size %d",
                               size, dim, d);
    if (m->named != (names != NULL))
        return dmesh_error_set(DMESH_ERR_NAME, "dmesh_unflatten: %s",
                               m->named ? "a named mesh needs names for the new dims"
                                        : "the mesh is unnamed: pass no names");
    return names != NULL ? dmesh_names_check(n, names, "dmesh_unflatten") : DMESH_SUCCESS;
}

/* Local part of unflatten: the new axes of dim in parts[0..n), the dims of
 * the new mesh in t (the entries of the new ones still to reserve). */
static int unflatten_local(dmesh_t m, int dim, int n, const int sizes[], const char *const names[],
                           dmesh_axis_t parts[], draft_t *t)
{
    int strides[DMESH_MAX_DIMS], size, d;

    DMESH_TRY(unflatten_check(m, dim, n, sizes, names));
    for (d = n - 1, size = 1; d >= 0; size *= sizes[d--])
        strides[d] = size;
    DMESH_TRY(dmesh_axis_compose_modes(dmesh_mesh_axis(m, dim), n, sizes, strides, parts));
    for (d = 0; d < n; d++)
        DMESH_TRY(dmesh_axis_canonical(&parts[d], &parts[d]));
    t->named = m->named;
    t->ndims = m->ndims - 1 + n;
    for (d = 0; d < t->ndims; d++) {
        if (d >= dim && d < dim + n) {
            t->dim[d].entry = NULL;
            t->dim[d].name = NULL;
            if (names != NULL)
                DMESH_TRY(dmesh_universe_intern(m->u, names[d - dim], &t->dim[d].name));
        } else {
            t->dim[d] = m->dim[d < dim ? d : d - n + 1];
        }
    }
    return check_unique_names(t, "dmesh_unflatten");
}

/* What the ranks must agree on: dim, the new dims' axes and all names. */
static void unflatten_request(int dim, int n, const dmesh_axis_t parts[], const draft_t *t,
                              dmesh_request_t *r)
{
    const char *names[DMESH_MAX_DIMS];
    int d;

    dmesh_request_bytes(r, &dim, sizeof(dim));
    dmesh_request_bytes(r, &n, sizeof(n));
    for (d = 0; d < n; d++)
        dmesh_request_axis(r, &parts[d]);
    for (d = 0; d < t->ndims; d++)
        names[d] = t->dim[d].name != NULL ? t->dim[d].name : "";
    dmesh_request_names(r, t->ndims, t->named ? names : NULL);
}

int dmesh_unflatten(dmesh_t mesh, int dim, int n, const int sizes[], const char *const dim_names[],
                    MPI_Info info, dmesh_t *out)
{
    draft_t t = {.ndims = 0};
    dmesh_axis_t parts[DMESH_MAX_DIMS];
    dmesh_comm_entry_t *fresh[DMESH_MAX_DIMS];
    dmesh_options_t o;
    dmesh_t m = DMESH_NULL;
    dmesh_request_t r;
    int d, err, check = dmesh_options_check(info), creating = 0;

    DMESH_TRY(dmesh_mesh_check(mesh, DMESH_ANY_DIM, "dmesh_unflatten"));
    err = derived_begin(mesh, out, "dmesh_unflatten");
    if (err == DMESH_SUCCESS)
        err = unflatten_local(mesh, dim, n, sizes, dim_names, parts, &t);
    if (err == DMESH_SUCCESS)
        err = derived_options(mesh, info, n, dim_names, &o);
    if (err != DMESH_SUCCESS && !check)
        return err;
    if (err == DMESH_SUCCESS)
        err = derived_reserve(mesh, n, parts, &o, &creating, fresh);
    for (d = 0; err == DMESH_SUCCESS && d < n; d++)
        t.dim[dim + d].entry = fresh[d];
    if (err == DMESH_SUCCESS)
        err = mesh_from(mesh->u, &t, &m);
    dmesh_request_begin(&r, "dmesh_unflatten", check);
    if (err == DMESH_SUCCESS)
        unflatten_request(dim, n, parts, &t, &r);
    err = derived_agree(mesh, "dmesh_unflatten", &r, err, n, &o, creating);
    if (err == DMESH_SUCCESS)
        err = dmesh_universe_make(mesh->u, n, fresh, NULL, &o);
    if (err != DMESH_SUCCESS)
        return derived_fail(mesh, &m, err);
    *out = m;
    return DMESH_SUCCESS;
}

/* Append the dims of meshes[i] to t. */
static int concat_add(int i, const dmesh_t meshes[], draft_t *t)
{
    dmesh_t m = meshes[i];

    DMESH_TRY(dmesh_mesh_check(m, DMESH_ANY_DIM, "dmesh_concatenate"));
    if (m->u != meshes[0]->u)
        return dmesh_error_set(DMESH_ERR_LAYOUT,
                               "dmesh_concatenate: meshes[%d] comes from "
                               "another root mesh than meshes[0]",
                               i);
    if (m->named != meshes[0]->named)
        return dmesh_error_set(DMESH_ERR_NAME, "dmesh_concatenate: named and unnamed meshes");
    if (t->ndims + m->ndims > DMESH_MAX_DIMS)
        return dmesh_error_set(DMESH_ERR_ARG, "dmesh_concatenate: more than %d dims",
                               DMESH_MAX_DIMS);
    memcpy(&t->dim[t->ndims], m->dim, (size_t)m->ndims * sizeof(m->dim[0]));
    t->ndims += m->ndims;
    return DMESH_SUCCESS;
}

int dmesh_concatenate(int n, const dmesh_t meshes[], dmesh_t *out)
{
    draft_t t = {.ndims = 0};
    int i, k;

    DMESH_CHECK_PTR(meshes);
    DMESH_CHECK_PTR(out);
    if (n < 1)
        return dmesh_error_set(DMESH_ERR_ARG, "dmesh_concatenate: n = %d, need at least 1", n);
    for (i = 0; i < n; i++)
        DMESH_TRY(concat_add(i, meshes, &t));
    t.named = meshes[0]->named;
    /* the overlap first (as PyTorch): a mesh given twice overlaps itself,
     * even where its dimensions have size 1 */
    for (i = 0; i < n; i++)
        for (k = 0; k < i; k++)
            if (meshes[i] == meshes[k])
                return dmesh_error_set(DMESH_ERR_LAYOUT,
                                       "dmesh_concatenate: meshes[%d] is "
                                       "meshes[%d]: the dimensions overlap",
                                       i, k);
    DMESH_TRY(check_joined(&t, 0, "dmesh_concatenate"));
    DMESH_TRY(check_unique_names(&t, "dmesh_concatenate"));
    return mesh_from(meshes[0]->u, &t, out);
}

int dmesh_abort(dmesh_t mesh)
{
    DMESH_TRY(dmesh_mesh_check(mesh, DMESH_ANY_DIM, "dmesh_abort"));
    return dmesh_universe_abort(mesh->u);
}
