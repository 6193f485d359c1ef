/* SPDX-License-Identifier: BSD-3-Clause */
/* dmesh_serialize / dmesh_deserialize: a mesh saved as text without its
 * communicators (PyTorch pickles a DeviceMesh the same way) and rebuilt on
 * a communicator. The text is parsed by serialize_text.c; here the saved
 * form is taken from a mesh, and a new universe is built from it. Each
 * collective step that can fail on some ranks only (parsing, the device
 * choice, building communicators) is followed by the agreement (dmesh_universe_agree). */
#include "config.h"

#include "api_impl.h"

#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "create.h"
#include "error.h"
#include "fault.h"
#include "finalize.h"
#include "mesh.h"
#include "request.h"
#include "serialize_text.h"
#include "text.h"
#include "universe_comms.h"
#include "version.h"

static void saved_dim(dmesh_saved_dim_t *d, const char *name, const dmesh_axis_t *axis,
                      const dmesh_comm_entry_t *e)
{
    memset(d, 0, sizeof(*d));
    strcpy(d->name, name);
    d->axis = *axis;
    if (e != NULL) {
        d->opts.backend = e->backend;
        d->opts.opts = e->backend_options;
    }
}

int dmesh_serialize_impl(dmesh_t handle, char *buf, size_t len, size_t *needed)
{
    struct dmesh_mesh *mesh;
    const dmesh_universe_t *u;
    dmesh_saved_t s;
    int i, nflat;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_serialize", &mesh));
    if (buf == NULL && len > 0)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: buf is NULL with len %zu", "dmesh_serialize",
                               len);
    u = mesh->u;
    if (dmesh_universe_local_map(u))
        return dmesh_error_set(DMESH_ERR_ARG,
                               "%s: the mesh was made by dmesh_from_comms without "
                               "ranks: its rank map differs between groups",
                               "dmesh_serialize");
    memset(&s, 0, sizeof(s));
    nflat = dmesh_universe_flat_count(u);
    if (nflat > 0 && (s.flat = DMESH_FAULT_MALLOC((size_t)nflat * sizeof(*s.flat))) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "%s: out of memory", "dmesh_serialize");
    s.cuda = dmesh_universe_cuda(u);
    s.n = dmesh_universe_nranks(u);
    s.rank_map = (int *)dmesh_universe_rank_map(u); /* printed only; only s.flat is freed */
    s.nroot = dmesh_universe_root_layout(u)->naxes;
    s.root_named = s.nroot > 0 && dmesh_universe_root_name(u, 0) != NULL;
    for (i = 0; i < s.nroot; i++)
        saved_dim(&s.root[i], s.root_named ? dmesh_universe_root_name(u, i) : "",
                  &dmesh_universe_root_layout(u)->axes[i], NULL);
    s.nflat = nflat;
    for (i = 0; i < s.nflat; i++) {
        const dmesh_flat_name_t *f = dmesh_universe_flat_at(u, i);
        saved_dim(&s.flat[i], f->name, &f->entry->axis, f->entry);
    }
    s.ndims = dmesh_mesh_ndims(mesh);
    s.named = mesh->named;
    s.is_root = mesh->is_root;
    for (i = 0; i < s.ndims; i++)
        saved_dim(&s.dims[i], mesh->named ? dmesh_mesh_name(mesh, i) : "", dmesh_mesh_axis(mesh, i),
                  dmesh_mesh_entry(mesh, i));
    dmesh_saved_print(&s, buf, len, needed);
    free(s.flat);
    return DMESH_SUCCESS;
}

/* The names check (text.h) of n saved dims, when named. */
static int check_saved_names(int n, const dmesh_saved_dim_t *d, int named)
{
    const char *names[DMESH_MAX_DIMS];
    int i, k, err = DMESH_SUCCESS;

    for (i = 0; named && i < n && err == DMESH_SUCCESS; i += k) {
        for (k = 0; k < DMESH_MAX_DIMS && i + k < n; k++)
            names[k] = d[i + k].name;
        err = dmesh_names_check(k, names, "dmesh_deserialize");
    }
    return err;
}

/* Local checks of a parsed text against the communicator and the info. */
static int check_saved(const dmesh_saved_t *s, int size, MPI_Info info, dmesh_options_t *o)
{
    const char *names[DMESH_MAX_DIMS];
    int i, top = s->n - 1;

    DMESH_TRY(check_saved_names(s->ndims, s->dims, s->named));
    DMESH_TRY(check_saved_names(s->nroot, s->root, s->root_named));
    DMESH_TRY(check_saved_names(s->nflat, s->flat, 1));

    for (i = 0; s->rank_map != NULL && i < s->n; i++)
        top = s->rank_map[i] > top ? s->rank_map[i] : top;
    if (top >= size)
        return dmesh_error_set(DMESH_ERR_SIZE,
                               "dmesh_deserialize: the mesh needs rank %d, the "
                               "communicator has %d ranks",
                               top, size);
    for (i = 0; i < s->ndims; i++)
        names[i] = s->dims[i].name;
    DMESH_TRY(dmesh_options_parse(info, s->ndims, s->named ? names : NULL, s->cuda, o));
    for (i = 0; i < s->ndims + s->nflat; i++) {
        const dmesh_saved_dim_t *d = i < s->ndims ? &s->dims[i] : &s->flat[i - s->ndims];
        DMESH_TRY(
            dmesh_backend_check(d->opts.backend, s->cuda, "dmesh_deserialize, \"%s\"", d->name));
    }
    return DMESH_SUCCESS;
}

/* Local, before the agreement: the mesh of s in u, its cache entries
 * reserved, its names and the flattened ones interned, room for the
 * flattened names. */
static int build_reserve(dmesh_universe_t *u, const dmesh_saved_t *s, int comm_create,
                         dmesh_flat_name_t *flat, dmesh_t *out)
{
    dmesh_dim_t dim[DMESH_MAX_DIMS];
    int i;

    for (i = 0; i < s->ndims; i++) {
        dim[i].name = NULL;
        if (s->named)
            DMESH_TRY(dmesh_universe_intern(u, s->dims[i].name, &dim[i].name));
        DMESH_TRY(dmesh_universe_reserve(u, &s->dims[i].axis, &s->dims[i].opts, comm_create,
                                         &dim[i].entry));
    }
    for (i = 0; i < s->nflat; i++) {
        DMESH_TRY(dmesh_universe_intern(u, s->flat[i].name, &flat[i].name));
        DMESH_TRY(dmesh_universe_reserve(u, &s->flat[i].axis, &s->flat[i].opts, comm_create,
                                         &flat[i].entry));
    }
    DMESH_TRY(dmesh_universe_flat_reserve(u, s->nflat));
    return dmesh_mesh_new(u, s->ndims, s->named, s->is_root, dim, "dmesh_deserialize", out);
}

/* A deserialization for the creation driver (create.h), once the universe
 * is made: the mesh and the flattened names reserved, one agreement on the
 * text, the options and the outcome, then the device and the
 * communicators; the flattened names are registered again. */
typedef struct {
    const dmesh_saved_t *s;
    dmesh_options_t *o;
    dmesh_flat_name_t *flat;
    dmesh_comm_entry_t **fe;
    dmesh_t m;
} saved_call_t;

static int saved_reserve(dmesh_creation_t *c)
{
    saved_call_t *x = c->call;
    size_t n = (size_t)x->s->nflat;

    if (n > 0 && ((x->flat = DMESH_FAULT_CALLOC(n, sizeof(*x->flat))) == NULL ||
                  (x->fe = DMESH_FAULT_MALLOC(n * sizeof(*x->fe))) == NULL))
        return dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_deserialize: out of memory");
    return build_reserve(c->u, x->s, x->o->comm_create, x->flat, &x->m);
}

static int saved_make(dmesh_creation_t *c)
{
    saved_call_t *x = c->call;
    const dmesh_saved_t *s = x->s;
    dmesh_comm_entry_t *e[DMESH_MAX_DIMS];
    int i;

    if (s->cuda) /* agreed inside, over the universe's communicator */
        DMESH_TRY(dmesh_universe_bind(c->u, x->o));
    for (i = 0; i < s->ndims; i++)
        e[i] = dmesh_mesh_entry(dmesh_handle_mesh(x->m), i);
    for (i = 0; i < s->nflat; i++)
        x->fe[i] = x->flat[i].entry;
    DMESH_TRY(dmesh_universe_make(c->u, s->ndims, e, NULL, x->o));
    DMESH_TRY(dmesh_universe_make(c->u, s->nflat, x->fe, NULL, x->o));
    for (i = 0; i < s->nflat; i++) /* room reserved: cannot fail */
        dmesh_universe_register(c->u, x->flat[i].name, x->flat[i].entry);
    return DMESH_SUCCESS;
}

static void saved_rollback(dmesh_creation_t *c)
{
    saved_call_t *x = c->call;

    dmesh_free_impl(&x->m);
    dmesh_universe_unreserve(c->u);
}

static const dmesh_creation_ops_t saved_ops = {
    .reserve = saved_reserve, .make = saved_make, .rollback = saved_rollback};

/* The root description of a parsed text (nothing of it when err). */
static void saved_root(const dmesh_saved_t *s, int err, const dmesh_options_t *o, dmesh_layout_t *l,
                       const char *names[], dmesh_root_desc_t *root)
{
    int i;

    memset(root, 0, sizeof(*root));
    l->naxes = err ? 0 : s->nroot;
    for (i = 0; i < l->naxes; i++) {
        l->axes[i] = s->root[i].axis;
        names[i] = s->root[i].name;
    }
    root->n = err ? 0 : s->n;
    root->rank_map = err ? NULL : s->rank_map;
    root->cuda = s->cuda;
    root->node_rule = o->node;
    root->debug = o->debug;
    root->layout = l;
    root->names = s->root_named && !err ? names : NULL;
}

/* The request the ranks agree on: the text, the options and the check
 * flag (request.h), so that ranks given different options (a different
 * dmesh_comm_create would send them into different creation calls) or a
 * different dmesh_check fail with DMESH_ERR_MISMATCH. */
static void saved_request(const char *text, const dmesh_saved_t *s, const dmesh_options_t *o,
                          int err, dmesh_request_t *r)
{
    dmesh_request_part(r, "text", "%s", "");
    if (text != NULL) {
        dmesh_request_string(r, text);
        dmesh_request_long(r, DMESH_REQUEST_LINES, text, strlen(text));
    }
    if (err == DMESH_SUCCESS) /* the options, parsed only when all went well */
        dmesh_request_options(r, s->ndims, o);
}

int dmesh_deserialize_impl(MPI_Comm comm, const char *text, MPI_Info info, dmesh_t *mesh)
{
    dmesh_universe_t *u = NULL;
    dmesh_saved_t s;
    dmesh_options_t o;
    saved_call_t x = {&s, &o, NULL, NULL, DMESH_NULL};
    dmesh_creation_t c;
    dmesh_root_desc_t root;
    dmesh_layout_t root_layout;
    const char *root_names[DMESH_MAX_DIMS];
    int size, rc, err, check;

    if (comm == MPI_COMM_NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: communicator is MPI_COMM_NULL",
                               "dmesh_deserialize");
    /* as every creation call, before any call that passes a handle */
    DMESH_TRY(dmesh_mpi_identity_check("dmesh_deserialize"));
    if ((rc = MPI_Comm_size(comm, &size)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "MPI_Comm_size of the user's communicator");
    check = dmesh_options_check(info);
    memset(&s, 0, sizeof(s));
    memset(&o, 0, sizeof(o));
    err = mesh == NULL
              ? dmesh_error_set(DMESH_ERR_ARG, "%s: argument 'mesh' is NULL", "dmesh_deserialize")
              : dmesh_saved_parse(text, &s);
    if (err == DMESH_SUCCESS)
        err = check_saved(&s, size, info, &o);
    o.check = check;                      /* what a partial parse left there is not the call's */
    if (err != DMESH_SUCCESS && !check) { /* with the check off, a rejecting rank returns */
        dmesh_saved_free(&s);
        return err;
    }
    saved_root(&s, err, &o, &root_layout, root_names, &root);
    rc = dmesh_universe_create(comm, dmesh_finalize_hook(), &root, &u);
    if (rc != DMESH_SUCCESS) {
        dmesh_saved_free(&s);
        return rc;
    }
    /* the agreement always, the check on or off: the same text and options
     * on every rank, each parsed and checked (only the outcome with the
     * check off) */
    dmesh_creation_begin(&c, &saved_ops, "dmesh_deserialize", u, check, &x);
    saved_request(text, &s, &o, err, &c.request);
    err = dmesh_creation_run(&c, err);
    free(x.fe);
    free(x.flat);
    dmesh_universe_release(u);
    dmesh_saved_free(&s);
    if (err == DMESH_SUCCESS)
        *mesh = x.m;
    return err;
}
