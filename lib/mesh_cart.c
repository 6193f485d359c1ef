/* SPDX-License-Identifier: BSD-3-Clause */
/* dmesh_get_cart_comm: an MPI Cartesian communicator per copy of a mesh,
 * kept in the universe's communicator cache. The entry's key is the
 * canonical concatenation of the mesh's axes (which fixes the map from
 * row-major coordinate index to rank-map index) together with an options
 * text "cart <shape> p<periods> r<reorder>" (which fixes how that index is
 * cut into dimensions), so that equal meshes share the communicator and the
 * universe frees it with the others. */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_mpi.h"
#include "create.h"
#include "error.h"
#include "fault.h"
#include "mesh.h"
#include "request.h"
#include "text.h"
#include "universe_comms.h"

/* The cache key of (layout, periods, reorder): at most 16 sizes whose
 * product fits an int (about 40 characters) and 16 period flags. */
static int cart_key(struct dmesh_mesh *m, const int periods[], int reorder, dmesh_axis_t *axis,
                    int shape[], char key[DMESH_OPTIONS_KEY_LEN])
{
    dmesh_axis_t all;
    size_t used;
    int d;

    DMESH_TRY(dmesh_mesh_concat(m, &all));
    DMESH_TRY(dmesh_axis_canonical_impl(&all, axis));
    used = (size_t)snprintf(key, DMESH_OPTIONS_KEY_LEN, "cart");
    for (d = 0; d < m->ndims; d++) {
        DMESH_TRY(dmesh_axis_numel_impl(dmesh_mesh_axis(m, d), &shape[d]));
        used += (size_t)snprintf(key + used, DMESH_OPTIONS_KEY_LEN - used, "%c%d", d ? 'x' : ' ',
                                 shape[d]);
    }
    used += (size_t)snprintf(key + used, DMESH_OPTIONS_KEY_LEN - used, " p");
    for (d = 0; d < m->ndims; d++)
        used += (size_t)snprintf(key + used, DMESH_OPTIONS_KEY_LEN - used, "%d", periods[d] != 0);
    snprintf(key + used, DMESH_OPTIONS_KEY_LEN - used, " r%d", reorder != 0);
    return DMESH_SUCCESS;
}

/* Collective over dmesh_universe_comm(u): the caller's copy of the mesh as a communicator
 * ranked by row-major coordinate index (the split of the concatenated
 * axis), then MPI_Cart_create on it. Each step that may fail on some ranks
 * is followed by the agreement. */
static int cart_create(dmesh_universe_t *u, const dmesh_axis_t *axis, int ndims, const int shape[],
                       const int periods[], int reorder, uint64_t h, MPI_Comm *cart)
{
    /* a rank map private to each group: its first rank tells them apart */
    long long base = dmesh_universe_colour_base(u);
    MPI_Comm copy = MPI_COMM_NULL;
    int p[DMESH_MAX_DIMS], d, rc, err;

    err = dmesh_comm_mpi_create(dmesh_universe_comm(u), axis, dmesh_universe_nranks(u),
                                dmesh_universe_my_index(u), base, &copy);
    err = dmesh_universe_agree(u, h, err, "dmesh_get_cart_comm (split)");
    if (err != DMESH_SUCCESS) {
        if (copy != MPI_COMM_NULL) /* made here, failed elsewhere */
            MPI_Comm_free(&copy);
        return err;
    }
    for (d = 0; d < ndims; d++)
        p[d] = periods[d] != 0;
    *cart = MPI_COMM_NULL;
    if (copy != MPI_COMM_NULL) {
        rc = MPI_Cart_create(copy, ndims, shape, p, reorder != 0, cart);
        if (rc == MPI_SUCCESS && dmesh_fault(DMESH_FAULT_CART)) {
            MPI_Comm_free(cart);
            rc = MPI_ERR_INTERN;
        }
        if (rc == MPI_SUCCESS && (rc = dmesh_set_errhandler(*cart)) != MPI_SUCCESS)
            MPI_Comm_free(cart);
        if (rc != MPI_SUCCESS)
            err = dmesh_error_mpi(rc, "MPI_Cart_create");
        MPI_Comm_free(&copy);
    }
    err = dmesh_universe_agree(u, h, err, "dmesh_get_cart_comm (MPI_Cart_create)");
    if (err != DMESH_SUCCESS && *cart != MPI_COMM_NULL)
        MPI_Comm_free(cart);
    return err;
}

/* The request (request.h): the mesh's axes and the key. */
static void cart_request(struct dmesh_mesh *m, const int periods[], int reorder, const char *key,
                         dmesh_request_t *r)
{
    char text[DMESH_REQUEST_TEXT] = "NULL";
    int flags[DMESH_MAX_DIMS] = {0}, d, r01 = reorder != 0;

    dmesh_request_part(r, "mesh", "(%d dimensions)", m->ndims);
    dmesh_request_bytes(r, &m->ndims, sizeof(int));
    for (d = 0; d < m->ndims; d++)
        dmesh_request_axis(r, dmesh_mesh_axis(m, d));
    for (d = 0; periods != NULL && d < m->ndims; d++)
        flags[d] = periods[d] != 0;
    if (periods != NULL)
        dmesh_ints_text(m->ndims, flags, text, sizeof(text));
    dmesh_request_part(r, "periods", "%s", text);
    dmesh_request_bytes(r, flags, sizeof(flags));
    dmesh_request_part(r, "reorder", "%d", r01);
    dmesh_request_bytes(r, &r01, sizeof(r01));
    dmesh_request_string(r, key);
}

/* A Cartesian communicator for the creation driver (create.h): the entry
 * found in the cache or added (the same on every rank: their caches are
 * equal), one agreement, the communicator made when it was added. */
typedef struct {
    struct dmesh_mesh *mesh;
    const int *periods;
    int reorder;
    dmesh_axis_t axis;
    int shape[DMESH_MAX_DIMS];
    char key[DMESH_OPTIONS_KEY_LEN];
    dmesh_comm_entry_t *e;
    int added;
} cart_call_t;

static int cart_reserve(dmesh_creation_t *c)
{
    cart_call_t *x = c->call;

    if ((x->e = dmesh_universe_find_entry(c->u, &x->axis, x->key)) != NULL)
        return dmesh_universe_entry_usable(x->e, "dmesh_get_cart_comm");
    DMESH_TRY(dmesh_universe_add_entry(c->u, &x->axis, x->key, &x->e));
    x->added = 1;
    return DMESH_SUCCESS;
}

static int cart_make(dmesh_creation_t *c)
{
    cart_call_t *x = c->call;
    MPI_Comm made = MPI_COMM_NULL;

    if (!x->added)
        return DMESH_SUCCESS;
    DMESH_TRY(cart_create(c->u, &x->axis, x->mesh->ndims, x->shape, x->periods, x->reorder,
                          dmesh_request_hash(&c->request), &made));
    dmesh_universe_set_entry_comm(x->e, made);
    return DMESH_SUCCESS;
}

static void cart_rollback(dmesh_creation_t *c)
{
    cart_call_t *x = c->call;

    if (x->added) /* made here, failed somewhere: this rank's entry goes again */
        dmesh_universe_drop_entry(c->u);
}

static const dmesh_creation_ops_t cart_ops = {
    .reserve = cart_reserve, .make = cart_make, .rollback = cart_rollback};

int dmesh_get_cart_comm_impl(dmesh_t handle, const int periods[], int reorder, MPI_Comm *cart)
{
    struct dmesh_mesh *mesh;
    cart_call_t x = {.mesh = NULL, .periods = periods, .reorder = reorder};
    dmesh_creation_t c;
    int err;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_get_cart_comm", &mesh));
    x.mesh = mesh;
    /* no info: the check is always on. A rejected rank still takes part. */
    dmesh_creation_begin(&c, &cart_ops, "dmesh_get_cart_comm", mesh->u, 1, &x);
    if (cart == NULL || periods == NULL)
        err = dmesh_error_set(DMESH_ERR_ARG, "%s: %s is NULL", "dmesh_get_cart_comm",
                              cart == NULL ? "cart" : "periods");
    else if (dmesh_universe_aborted(mesh->u))
        err = dmesh_error_set(DMESH_ERR_ARG, "%s: universe aborted (dmesh_abort)",
                              "dmesh_get_cart_comm");
    else
        err = cart_key(mesh, periods, reorder, &x.axis, x.shape, x.key);
    cart_request(mesh, periods, reorder, x.key, &c.request);
    DMESH_TRY(dmesh_creation_run(&c, err));
    return dmesh_universe_hand_out(mesh->u, x.e, "dmesh_get_cart_comm", cart);
}
