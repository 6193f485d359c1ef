/* SPDX-License-Identifier: BSD-3-Clause */
/* The local checks of a root creation call (dmesh_init, dmesh_create,
 * dmesh_init_hybrid, dmesh_from_comms, dmesh_shrink's new mesh): the
 * communicator, the device type, the shape (zeros filled as MPI_Dims_create
 * fills them), the hybrid factors, the names, the options, the rank list
 * and the dimension communicators. Nothing here is collective: mesh_root.c
 * agrees on the outcome. */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "fault.h"
#include "mesh.h"
#include "mesh_root_args.h"
#include "node.h"
#include "text.h"

/* init_hybrid: each dim's size in_node[d] * across[d] (zeros filled); the
 * products of the across factors (the nodes) in a->hybrid_nodes. */
static int hybrid_sizes(const dmesh_root_call_t *c, int sizes[], dmesh_root_args_t *a)
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
static int fill_sizes(const dmesh_root_call_t *c, dmesh_root_args_t *a)
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
static int check_dim_comms(MPI_Comm comm, int ndims, const MPI_Comm dim_comms[],
                           dmesh_root_args_t *a)
{
    int rank, me, d, i, count, expect, got[1024], *want, *have, err = DMESH_SUCCESS;

    MPI_Comm_rank(comm, &rank);
    if ((me = dmesh_rank_map_index(a->n, a->rank_map, rank)) < 0)
        return DMESH_SUCCESS;
    for (d = 0; d < ndims && err == DMESH_SUCCESS; d++) {
        DMESH_TRY(dmesh_axis_numel_impl(&a->layout.axes[d], &expect));
        if (dim_comms[d] == MPI_COMM_NULL)
            return dmesh_error_set(DMESH_ERR_LAYOUT,
                                   "dim_comms[%d] is MPI_COMM_NULL on rank %d, "
                                   "a member of the mesh",
                                   d, rank);
        want = expect <= 512 ? got : DMESH_FAULT_MALLOC(2 * (size_t)expect * sizeof(int));
        if (want == NULL)
            return dmesh_error_set(DMESH_ERR_NOMEM, "out of memory");
        have = want + expect;
        err = dmesh_axis_group_of_impl(&a->layout.axes[d], a->n, a->rank_map, me, expect, want,
                                       &count);
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
static int map_from_comm(MPI_Comm comm, MPI_Comm dim, int shape0, dmesh_root_args_t *a)
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

/* The communicator itself: a problem with it is the same on every rank (or
 * the ranks passed different communicators), and there is nothing to agree
 * over, so these return at once. */
int dmesh_root_check_comm(MPI_Comm comm, const char *fn, int *size)
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

int dmesh_root_validate(const dmesh_root_call_t *c, dmesh_t *mesh, dmesh_root_args_t *a)
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
        DMESH_TRY(dmesh_layout_row_major_impl(c->ndims, shape, &a->layout));
    }
    if (a->opts.order == DMESH_ORDER_NODE && c->ranks_mode != DMESH_RANKS_IDENTITY)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "%s: dmesh_order=node orders the ranks of dmesh_init; the ranks "
                               "given here are taken as they are",
                               c->fn);
    if (c->ranks_mode == DMESH_RANKS_GIVEN)
        DMESH_TRY(check_ranks(a->n, c->ranks, a->size, &a->rank_map));
    if (c->ranks_mode == DMESH_RANKS_FROM_COMM)
        DMESH_TRY(map_from_comm(c->comm, c->dim_comms[0], c->shape[0], a));
    if (c->dim_comms != NULL)
        DMESH_TRY(check_dim_comms(c->comm, c->ndims, c->dim_comms, a));
    return DMESH_SUCCESS;
}
