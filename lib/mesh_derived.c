/* SPDX-License-Identifier: BSD-3-Clause */
/* Derived meshes: dmesh_slice and dmesh_concatenate (local: they reuse the
 * communicators of their source), dmesh_flatten and dmesh_unflatten
 * (collective over the root communicator when a layout is new: reserve the
 * cache entries, agree, make the communicators, agree; roll back on every
 * rank after a failure). dmesh_get_sub_comm (MPI_Cart_sub's job) makes
 * flatten's communicator without a mesh handle. */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "create.h"
#include "mesh_dim.h"
#include "mesh.h"
#include "mesh_derived.h"
#include "request.h"
#include "text.h"
#include "universe_comms.h"

/* A derived mesh being assembled (slice, flatten, unflatten, concatenate). */
typedef struct {
    int ndims, named;
    dmesh_dim_t dim[DMESH_MAX_DIMS];
} draft_t;

/* A new handle in u with the dims of t, made by the call fn. */
static int mesh_from(dmesh_universe_t *u, const draft_t *t, const char *fn, dmesh_t *out)
{
    return dmesh_mesh_new(u, t->ndims, t->named, 0, t->dim, fn, out);
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

    if (dmesh_dims_concat(t->ndims, t->dim, &all) != DMESH_SUCCESS)
        return dmesh_error_set(DMESH_ERR_LAYOUT, "%s: the dimensions overlap", fn);
    DMESH_TRY(dmesh_axis_is_sorted_impl(&all, &ok));
    for (int d = 0; need_sorted && !ok && d < t->ndims; d++) {
        int own = 1;
        DMESH_TRY(dmesh_axis_is_sorted_impl(&t->dim[d].entry->axis, &own));
        if (!own) /* only a name registered by flatten can be out of order in itself */
            return dmesh_error_set(DMESH_ERR_LAYOUT,
                                   "%s: \"%s\" was registered by dmesh_flatten from dimensions "
                                   "in another order than the root's (a transposed "
                                   "concatenation): a slice of the root keeps the root's order; "
                                   "use the mesh that dmesh_flatten returned",
                                   fn, t->dim[d].name != NULL ? t->dim[d].name : "?");
    }
    if (need_sorted && !ok)
        return dmesh_error_set(DMESH_ERR_LAYOUT,
                               "%s: dimensions are not in descending stride order "
                               "(outer to inner, as in the root mesh)",
                               fn);
    DMESH_TRY(dmesh_axis_is_orthogonal_impl(&all, &ok));
    if (!ok)
        return dmesh_error_set(DMESH_ERR_LAYOUT, "%s: the dimensions overlap", fn);
    return DMESH_SUCCESS;
}

/* Append the dimension called name (of m, or registered on the root) to s. */
static int slice_add(struct dmesh_mesh *m, const char *name, draft_t *s)
{
    const dmesh_flat_name_t *f;
    int d = dmesh_mesh_dim_find(m, name);

    if (d >= 0) {
        s->dim[s->ndims++] = m->dim[d];
    } else if (m->is_root && (f = dmesh_universe_find_flat(m->u, name)) != NULL) {
        s->dim[s->ndims].entry = f->entry;
        s->dim[s->ndims++].name = f->name;
    } else { /* the one resolver's detail: the name and the mesh's names */
        int unused;
        dmesh_mesh_dim_by_name(m, name,
                               m->is_root ? "dmesh_slice (nor a name dmesh_flatten registered)"
                                          : "dmesh_slice",
                               &unused);
        return DMESH_ERR_NAME;
    }
    return DMESH_SUCCESS;
}

int dmesh_slice_impl(dmesh_t handle, int n, const char *const dim_names[], dmesh_t *submesh)
{
    struct dmesh_mesh *mesh;

    draft_t s;
    int i;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_slice", &mesh));
    DMESH_CHECK_PTR_OF("dmesh_slice", dim_names);
    DMESH_CHECK_PTR_OF("dmesh_slice", submesh);
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
    return mesh_from(mesh->u, &s, "dmesh_slice", submesh);
}

/* Options of the new axes of a derived mesh: info applies to them only. */
static int derived_options(struct dmesh_mesh *m, MPI_Info info, int n, const char *const names[],
                           dmesh_options_t *o)
{
    DMESH_TRY(dmesh_options_parse(info, n, names, dmesh_universe_cuda(m->u), o));
    return dmesh_check_backends(n, dmesh_universe_cuda(m->u), o);
}

/* Checks of a derived collective call before its own: a NULL output or an
 * aborted universe is an error of this rank, agreed like the others. */
static int derived_begin(struct dmesh_mesh *m, const void *out, const char *fn)
{
    if (out == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: the output argument is NULL", fn);
    if (dmesh_universe_aborted(m->u))
        return dmesh_error_set(DMESH_ERR_ARG, "%s: universe aborted (dmesh_abort)", fn);
    return DMESH_SUCCESS;
}

/* Local, before the agreement: reserve the entries e[0..n) of axes[0..n)
 * (options o->axis[0..n)). */
static int derived_reserve(struct dmesh_mesh *m, int n, const dmesh_axis_t axes[],
                           const dmesh_options_t *o, int *creating, dmesh_comm_entry_t *e[])
{
    int d, err = DMESH_SUCCESS, before = dmesh_universe_entry_count(m->u);

    for (d = 0; d < n && err == DMESH_SUCCESS; d++)
        err = dmesh_universe_reserve(m->u, &axes[d], &o->axis[d], o->comm_create, &e[d]);
    /* a failed reservation was a miss: communicators were to be made */
    *creating = err != DMESH_SUCCESS || dmesh_universe_entry_count(m->u) != before;
    return err;
}

/* A derived collective call (flatten, unflatten) for the creation driver
 * (create.h): its agreement is over the root communicator, and non-members
 * of the mesh take part too (the splits need every rank). The creation
 * creates something when a reservation missed the cache (the same on every
 * rank: their caches are equal); with the check off and nothing to create,
 * the call is local. */
typedef struct {
    struct dmesh_mesh *mesh;
    draft_t t;
    dmesh_options_t o;
    int nnew;                              /* new axes */
    dmesh_axis_t axes[DMESH_MAX_DIMS];     /* theirs */
    dmesh_comm_entry_t *e[DMESH_MAX_DIMS]; /* their entries */
    dmesh_comm_entry_t *reuse;             /* flatten: the entry registered before */
    int first;                             /* unflatten: the dim replaced */
    dmesh_t out;
} derived_call_t;

/* The request of a derived call: the source mesh's dims. */
static void derived_begin_request(dmesh_creation_t *c, derived_call_t *d)
{
    dmesh_request_part(&c->request, "mesh", "(%d dimensions)", d->mesh->ndims);
    dmesh_request_dims(&c->request, d->mesh->ndims, d->mesh->named, d->mesh->dim);
}

static int derived_make(dmesh_creation_t *c)
{
    derived_call_t *d = c->call;

    return dmesh_universe_make(c->u, d->nnew, d->e, NULL, &d->o);
}

/* After a failed agreement or creation: the handle and the reservations go,
 * on every rank. */
static void derived_rollback(dmesh_creation_t *c)
{
    derived_call_t *d = c->call;

    dmesh_free_impl(&d->out);
    dmesh_universe_unreserve(c->u);
}

/* Default flatten name: the dimension names joined with "_". */
static int join_names(struct dmesh_mesh *m, char out[DMESH_MAX_NAME])
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
static int flatten_check(struct dmesh_mesh *m, const char *name, const dmesh_axis_t *axis,
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
        if (!dmesh_axis_equal_impl(&f->entry->axis, axis))
            return dmesh_error_set(DMESH_ERR_NAME,
                                   "dmesh_flatten: \"%s\" was registered before "
                                   "for another layout",
                                   name);
        *reuse = f->entry;
    }
    return DMESH_SUCCESS;
}

static int flatten_local(struct dmesh_mesh *m, const char *name, MPI_Info info,
                         char flat[DMESH_MAX_NAME], dmesh_axis_t *axis, dmesh_options_t *o,
                         dmesh_comm_entry_t **reuse)
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
    DMESH_TRY(dmesh_axis_canonical_impl(&all, axis));
    DMESH_TRY(derived_options(m, info, 1, names, o));
    return flatten_check(m, flat, axis, reuse);
}

/* Local part of flatten after its checks: the name interned, the entry
 * found (registered before) or reserved, the new handle. */
static int flatten_reserve(dmesh_creation_t *c)
{
    derived_call_t *d = c->call;
    struct dmesh_mesh *m = d->mesh;

    dmesh_request_options(&c->request, 1, &d->o);
    c->creating = 0;
    DMESH_TRY(dmesh_universe_intern(m->u, d->t.dim[0].name, &d->t.dim[0].name));
    d->t.dim[0].entry = d->reuse;
    d->nnew = d->reuse == NULL;
    if (d->reuse == NULL) {
        DMESH_TRY(dmesh_universe_flat_reserve(m->u, 1));
        DMESH_TRY(derived_reserve(m, 1, d->axes, &d->o, &c->creating, d->e));
        d->t.dim[0].entry = d->e[0];
    }
    return mesh_from(m->u, &d->t, c->fn, &d->out);
}

static int flatten_make(dmesh_creation_t *c)
{
    derived_call_t *d = c->call;

    DMESH_TRY(derived_make(c));
    if (d->reuse == NULL) /* room reserved: cannot fail */
        dmesh_universe_register(c->u, d->t.dim[0].name, d->t.dim[0].entry);
    return DMESH_SUCCESS;
}

static const dmesh_creation_ops_t flatten_ops = {
    .reserve = flatten_reserve, .make = flatten_make, .rollback = derived_rollback};

int dmesh_flatten_impl(dmesh_t handle, const char *name, MPI_Info info, dmesh_t *flat)
{
    struct dmesh_mesh *mesh;
    derived_call_t d = {.mesh = NULL, .t = {.ndims = 1, .named = 1}, .out = DMESH_NULL};
    dmesh_creation_t c;
    char text[DMESH_MAX_NAME] = "";
    int err;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_flatten", &mesh));
    d.mesh = mesh;
    dmesh_creation_begin(&c, &flatten_ops, "dmesh_flatten", mesh->u, dmesh_options_check(info), &d);
    err = derived_begin(mesh, flat, "dmesh_flatten");
    if (err == DMESH_SUCCESS)
        err = flatten_local(mesh, name, info, text, &d.axes[0], &d.o, &d.reuse);
    d.t.dim[0].name = text; /* interned by the reservation */
    dmesh_request_part(&c.request, "name", "\"%.40s\"", text);
    dmesh_request_string(&c.request, text);
    derived_begin_request(&c, &d);
    if ((err = dmesh_creation_run(&c, err)) != DMESH_SUCCESS)
        return err;
    *flat = d.out;
    return DMESH_SUCCESS;
}

/* The checks of unflatten's arguments. */
static int unflatten_check(dmesh_t m_handle, int dim, int n, const int sizes[],
                           const char *const names[])
{
    struct dmesh_mesh *m;
    int size, d;

    DMESH_TRY(dmesh_mesh_get(m_handle, dim, "dmesh_unflatten", &m));
    if (n < 1 || n > DMESH_MAX_DIMS || m->ndims - 1 + n > DMESH_MAX_DIMS)
        return dmesh_error_set(DMESH_ERR_ARG, "dmesh_unflatten: %d new dims make more than %d", n,
                               DMESH_MAX_DIMS);
    DMESH_CHECK_PTR(sizes);
    DMESH_TRY(dmesh_check_shape("dmesh_unflatten", n, sizes, INT_MAX, &size));
    DMESH_TRY(dmesh_axis_numel_impl(dmesh_mesh_axis(m, dim), &d));
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
static int unflatten_local(struct dmesh_mesh *m, int dim, int n, const int sizes[],
                           const char *const names[], dmesh_axis_t parts[], draft_t *t)
{
    int strides[DMESH_MAX_DIMS], size, d;

    DMESH_TRY(unflatten_check(m->handle, dim, n, sizes, names));
    for (d = n - 1, size = 1; d >= 0; size *= sizes[d--])
        strides[d] = size;
    DMESH_TRY(dmesh_axis_compose_modes_impl(dmesh_mesh_axis(m, dim), n, sizes, strides, parts));
    for (d = 0; d < n; d++)
        DMESH_TRY(dmesh_axis_canonical_impl(&parts[d], &parts[d]));
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

/* "(2, 4)": the sizes of n axes (-1 where one has none), for a detail
 * message. */
static const char *sizes_text(int n, const dmesh_axis_t axes[], char *buf, size_t len)
{
    int sizes[DMESH_MAX_DIMS];

    for (int d = 0; d < n; d++)
        if (dmesh_axis_numel_impl(&axes[d], &sizes[d]) != DMESH_SUCCESS)
            sizes[d] = -1;
    return dmesh_ints_text(n, sizes, buf, len);
}

/* What the ranks must agree on: dim, the new dims' axes and all names. */
static void unflatten_request(int dim, int n, const dmesh_axis_t parts[], const draft_t *t,
                              dmesh_request_t *r)
{
    const char *names[DMESH_MAX_DIMS];
    char text[DMESH_REQUEST_TEXT];
    int d;

    dmesh_request_part(r, "dim", "%d", dim);
    dmesh_request_bytes(r, &dim, sizeof(dim));
    dmesh_request_part(r, "sizes", "%s", sizes_text(n, parts, text, sizeof(text)));
    dmesh_request_bytes(r, &n, sizeof(n));
    for (d = 0; d < n; d++)
        dmesh_request_axis(r, &parts[d]);
    for (d = 0; d < t->ndims; d++)
        names[d] = t->dim[d].name != NULL ? t->dim[d].name : "";
    dmesh_request_part(r, "names", "%s",
                       dmesh_names_text(t->ndims, t->named ? names : NULL, text, sizeof(text)));
    dmesh_request_names(r, t->ndims, t->named ? names : NULL);
}

static int unflatten_reserve(dmesh_creation_t *c)
{
    derived_call_t *d = c->call;

    dmesh_request_options(&c->request, d->nnew, &d->o);
    unflatten_request(d->first, d->nnew, d->axes, &d->t, &c->request);
    DMESH_TRY(derived_reserve(d->mesh, d->nnew, d->axes, &d->o, &c->creating, d->e));
    for (int k = 0; k < d->nnew; k++)
        d->t.dim[d->first + k].entry = d->e[k];
    return mesh_from(c->u, &d->t, c->fn, &d->out);
}

static const dmesh_creation_ops_t unflatten_ops = {
    .reserve = unflatten_reserve, .make = derived_make, .rollback = derived_rollback};

int dmesh_unflatten_impl(dmesh_t handle, int dim, int n, const int sizes[],
                         const char *const dim_names[], MPI_Info info, dmesh_t *out)
{
    return dmesh_unflatten_named(handle, dim, NULL, NULL, n, sizes, dim_names, info, out);
}

int dmesh_unflatten_named(dmesh_t handle, int dim, const char *name_fn, const char *dim_name, int n,
                          const int sizes[], const char *const dim_names[], MPI_Info info,
                          dmesh_t *out)
{
    struct dmesh_mesh *mesh;

    derived_call_t d = {
        .mesh = NULL, .t = {.ndims = 0}, .nnew = n, .first = dim, .out = DMESH_NULL};
    dmesh_creation_t c;
    int err;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_unflatten", &mesh));
    d.mesh = mesh;
    dmesh_creation_begin(&c, &unflatten_ops, "dmesh_unflatten", mesh->u, dmesh_options_check(info),
                         &d);
    err = derived_begin(mesh, out, "dmesh_unflatten");
    /* a name that fails fails here, where a bad index does: agreed below */
    if (err == DMESH_SUCCESS && name_fn != NULL)
        err = dmesh_mesh_dim_by_name(mesh, dim_name, name_fn, &dim);
    d.first = dim;
    if (err == DMESH_SUCCESS)
        err = unflatten_local(mesh, dim, n, sizes, dim_names, d.axes, &d.t);
    if (err == DMESH_SUCCESS)
        err = derived_options(mesh, info, n, dim_names, &d.o);
    derived_begin_request(&c, &d);
    if ((err = dmesh_creation_run(&c, err)) != DMESH_SUCCESS)
        return err;
    *out = d.out;
    return DMESH_SUCCESS;
}

/* Append the dims of meshes[i] to t. */
static int concat_add(int i, const dmesh_t meshes[], draft_t *t)
{
    struct dmesh_mesh *m;
    struct dmesh_mesh *first;

    DMESH_TRY(dmesh_mesh_get(meshes[i], DMESH_ANY_DIM, "dmesh_concatenate", &m));
    first = dmesh_handle_mesh(meshes[0]); /* checked at i = 0 */
    if (m->u != first->u)
        return dmesh_error_set(DMESH_ERR_LAYOUT,
                               "dmesh_concatenate: meshes[%d] comes from "
                               "another root mesh than meshes[0]",
                               i);
    if (m->named != first->named)
        return dmesh_error_set(DMESH_ERR_NAME, "dmesh_concatenate: named and unnamed meshes");
    if (t->ndims + m->ndims > DMESH_MAX_DIMS)
        return dmesh_error_set(DMESH_ERR_ARG, "dmesh_concatenate: more than %d dims",
                               DMESH_MAX_DIMS);
    memcpy(&t->dim[t->ndims], m->dim, (size_t)m->ndims * sizeof(m->dim[0]));
    t->ndims += m->ndims;
    return DMESH_SUCCESS;
}

int dmesh_concatenate_impl(int n, const dmesh_t meshes[], dmesh_t *out)
{
    draft_t t = {.ndims = 0};
    int i, k;

    DMESH_CHECK_PTR_OF("dmesh_concatenate", meshes);
    DMESH_CHECK_PTR_OF("dmesh_concatenate", out);
    if (n < 1)
        return dmesh_error_set(DMESH_ERR_ARG, "dmesh_concatenate: n = %d, need at least 1", n);
    for (i = 0; i < n; i++)
        DMESH_TRY(concat_add(i, meshes, &t));
    t.named = dmesh_handle_mesh(meshes[0])->named;
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
    return mesh_from(dmesh_handle_mesh(meshes[0])->u, &t, "dmesh_concatenate", out);
}

/* dmesh_get_sub_comm: MPI_Cart_sub's job. The kept dimensions, joined in
 * the mesh's order, are the axis that dmesh_flatten of their slice makes,
 * and the options are flatten's without info: the cache entry is the same,
 * so both hand out one communicator, which the universe owns. No handle
 * and no registered name: a mesh need not be named for it. */
static int sub_local(struct dmesh_mesh *m, const int remain_dims[], derived_call_t *d)
{
    const char *fn = "dmesh_get_sub_comm";
    draft_t kept = {.ndims = 0};
    dmesh_axis_t all;

    if (remain_dims == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: remain_dims is NULL", fn);
    for (int k = 0; k < m->ndims; k++)
        if (remain_dims[k])
            kept.dim[kept.ndims++] = m->dim[k];
    DMESH_TRY(dmesh_dims_concat(kept.ndims, kept.dim, &all));
    DMESH_TRY(dmesh_axis_canonical_impl(&all, &d->axes[0]));
    return derived_options(m, MPI_INFO_NULL, 1, NULL, &d->o);
}

/* What the ranks must agree on besides the mesh's dims: which are kept. */
static void sub_request(struct dmesh_mesh *m, const int remain_dims[], dmesh_request_t *r)
{
    int keep[DMESH_MAX_DIMS] = {0};
    char text[DMESH_REQUEST_TEXT] = "NULL";

    for (int k = 0; remain_dims != NULL && k < m->ndims; k++)
        keep[k] = remain_dims[k] != 0;
    if (remain_dims != NULL)
        dmesh_ints_text(m->ndims, keep, text, sizeof(text));
    dmesh_request_part(r, "remain_dims", "%s", text);
    dmesh_request_string(r, "sub");
    dmesh_request_bytes(r, keep, sizeof(keep));
}

static int sub_reserve(dmesh_creation_t *c)
{
    derived_call_t *d = c->call;

    dmesh_request_options(&c->request, 1, &d->o);
    return derived_reserve(d->mesh, 1, d->axes, &d->o, &c->creating, d->e);
}

static const dmesh_creation_ops_t sub_ops = {
    .reserve = sub_reserve, .make = derived_make, .rollback = derived_rollback};

int dmesh_get_sub_comm_impl(dmesh_t handle, const int remain_dims[], MPI_Comm *newcomm)
{
    struct dmesh_mesh *mesh;
    derived_call_t d = {.mesh = NULL, .nnew = 1, .out = DMESH_NULL};
    dmesh_creation_t c;
    int err;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_get_sub_comm", &mesh));
    d.mesh = mesh;
    dmesh_creation_begin(&c, &sub_ops, "dmesh_get_sub_comm", mesh->u,
                         dmesh_options_check(MPI_INFO_NULL), &d);
    err = derived_begin(mesh, newcomm, "dmesh_get_sub_comm");
    if (err == DMESH_SUCCESS)
        err = sub_local(mesh, remain_dims, &d);
    derived_begin_request(&c, &d);
    sub_request(mesh, remain_dims, &c.request);
    DMESH_TRY(dmesh_creation_run(&c, err));
    return dmesh_universe_hand_out(mesh->u, d.e[0], "dmesh_get_sub_comm", newcomm);
}
