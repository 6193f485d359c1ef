/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): owns dmesh_shrink, what the survivors of a
 * lost process call to recover (shrink.h), and the shrink of the universe's
 * communicator that dmesh_respawn shares; dmesh_revoke and
 * dmesh_get_failed are failed.c's. Fault tolerance needs an MPI with the
 * ULFM extension launched with it (ulfm.h); without it dmesh_shrink
 * returns DMESH_ERR_UNSUPPORTED, saying how to get it (failed.h). */
#include "config.h"

#include "api_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "agree.h"
#include "mesh_dim.h"
#include "error.h"
#include "fault.h"
#include "finalize_bound.h"
#include "ft/failed.h"
#include "ft/shrink.h"
#include "ulfm.h"
#include "hash.h"
#include "mesh.h"
#include "mesh_root.h"
#include "universe_comms.h"

#define SPARES_KEY "dmesh_spares"

/* With fault tolerance on, the universes make their communicators with
 * MPI_Comm_split over the private communicator, never with
 * MPI_Comm_create_group (universe_comms.c, dmesh_universe_reserve): in Open MPI
 * 5.0.7 MPI_Comm_create_group over a group with a dead member blocks for
 * ever (its CID allocation is not interrupted by the failure; measured: the
 * kill sweep of dmesh_init hung there, on the dead process's group mate),
 * where MPI_Comm_split fails, and a revocation of the private communicator
 * reaches every rank still in it. */

/* The spares (survivors outside the tensor, lowest first) take the places
 * of the failed ranks of the tensor, lowest failed rank first; returns how
 * many failed places are left. at[r]: the place of rank r in the tensor, -1. */
static int fill_spares(int tensor[], int size, const int survivor_rank[], const int at[])
{
    int r, spare = 0, left = 0;

    for (r = 0; r < size; r++) {
        if (survivor_rank[r] != DMESH_SHRINK_FAILED || at[r] < 0)
            continue; /* a survivor, or a failed rank outside the tensor */
        while (spare < size && (at[spare] >= 0 || survivor_rank[spare] == DMESH_SHRINK_FAILED))
            spare++;
        if (spare < size)
            tensor[at[r]] = spare++;
        else
            left++;
    }
    return left;
}

int dmesh_shrink_plan(int ndims, const int shape[], int n, const int ranks[], int size,
                      const int survivor_rank[], int dim, int spares, int new_shape[],
                      int new_ranks[], int *new_n)
{
    int *tensor = malloc((size_t)(n + size) * sizeof(int)), *at, *drop;
    int d, p, r, stride = 1, nfailed = 0, left, ndrop = 0, m = 0, err = DMESH_SUCCESS;

    if (tensor == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_shrink: out of memory");
    at = tensor + n;
    memcpy(tensor, ranks, (size_t)n * sizeof(int));
    for (r = 0; r < size; r++)
        at[r] = -1;
    for (p = 0; p < n; p++) {
        at[ranks[p]] = p;
        nfailed += survivor_rank[ranks[p]] == DMESH_SHRINK_FAILED;
    }
    left = spares ? fill_spares(tensor, size, survivor_rank, at) : nfailed;
    for (d = dim + 1; dim >= 0 && d < ndims; d++)
        stride *= shape[d];
    drop = at; /* the places are no longer needed: per index of dim, whether it goes */
    for (p = 0; dim >= 0 && p < shape[dim]; p++)
        drop[p] = 0;
    for (p = 0; dim >= 0 && p < n; p++)
        if (survivor_rank[tensor[p]] == DMESH_SHRINK_FAILED && !drop[(p / stride) % shape[dim]]) {
            drop[(p / stride) % shape[dim]] = 1;
            ndrop++;
        }
    if (left > 0 && dim < 0)
        err = dmesh_error_set(DMESH_ERR_SIZE,
                              "dmesh_shrink: %d processes of the mesh failed, %d places left "
                              "after the spares: the shape cannot stay (DMESH_KEEP_SHAPE)",
                              nfailed, left);
    else if (dim >= 0 && ndrop == shape[dim])
        err = dmesh_error_set(DMESH_ERR_SIZE,
                              "dmesh_shrink: every index of dim %d (size %d) lost a process", dim,
                              shape[dim]);
    for (p = 0; err == DMESH_SUCCESS && p < n; p++)
        if (dim < 0 || !drop[(p / stride) % shape[dim]])
            new_ranks[m++] = survivor_rank[tensor[p]];
    if (err == DMESH_SUCCESS) {
        for (d = 0; d < ndims; d++)
            new_shape[d] = d == dim ? shape[d] - ndrop : shape[d];
        *new_n = m;
    }
    free(tensor);
    return err;
}

/* info's dmesh_spares (false when absent) and a copy of info without it
 * for dmesh_create (MPI_INFO_NULL when info is). */
static int read_spares(MPI_Info info, int *spares, MPI_Info *rest)
{
    char val[MPI_MAX_INFO_VAL + 1];
    int flag = 0, rc;

    *spares = 0;
    *rest = MPI_INFO_NULL;
    if (info == MPI_INFO_NULL)
        return DMESH_SUCCESS;
    if ((rc = MPI_Info_get(info, SPARES_KEY, MPI_MAX_INFO_VAL, val, &flag)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "dmesh_shrink: MPI_Info_get");
    if (flag && strcasecmp(val, "true") != 0 && strcasecmp(val, "false") != 0)
        return dmesh_error_set(DMESH_ERR_ARG, "dmesh_shrink: %s=%s: not true or false", SPARES_KEY,
                               val);
    *spares = flag && strcasecmp(val, "true") == 0;
    if ((rc = MPI_Info_dup(info, rest)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "dmesh_shrink: MPI_Info_dup");
    if (flag && (rc = MPI_Info_delete(*rest, SPARES_KEY)) != MPI_SUCCESS) {
        MPI_Info_free(rest);
        return dmesh_error_mpi(rc, "dmesh_shrink: MPI_Info_delete");
    }
    return DMESH_SUCCESS;
}

int dmesh_shrink_survivor_ranks(const char *fn, MPI_Comm old, int size, MPI_Comm survivors,
                                int **out)
{
    MPI_Group g_old = MPI_GROUP_NULL, g_new = MPI_GROUP_NULL;
    char what[64];
    int *in = malloc((size_t)size * sizeof(int)), *at = malloc((size_t)size * sizeof(int));
    int r, rc = MPI_ERR_NO_MEM;

    if (in != NULL && at != NULL) {
        for (r = 0; r < size; r++)
            in[r] = r;
        if ((rc = MPI_Comm_group(old, &g_old)) == MPI_SUCCESS &&
            (rc = MPI_Comm_group(survivors, &g_new)) == MPI_SUCCESS)
            rc = MPI_Group_translate_ranks(g_old, size, in, g_new, at);
    }
    if (g_old != MPI_GROUP_NULL)
        MPI_Group_free(&g_old);
    if (g_new != MPI_GROUP_NULL)
        MPI_Group_free(&g_new);
    free(in);
    if (rc != MPI_SUCCESS) {
        free(at);
        if (rc == MPI_ERR_NO_MEM)
            return dmesh_error_set(DMESH_ERR_NOMEM, "%s: out of memory", fn);
        snprintf(what, sizeof(what), "%s: the survivors' group", fn);
        return dmesh_error_mpi(rc, what);
    }
    for (r = 0; r < size; r++)
        if (at[r] == MPI_UNDEFINED)
            at[r] = DMESH_SHRINK_FAILED;
    *out = at;
    return DMESH_SUCCESS;
}

/* What dmesh_shrink hands to dmesh_create. */
typedef struct {
    int ndims, n, spares, new_n;
    int shape[DMESH_MAX_DIMS], new_shape[DMESH_MAX_DIMS];
    int *ranks, *new_ranks;
    int *survivor_rank; /* per rank of the old communicator, its survivor rank, or
                           DMESH_SHRINK_FAILED */
    const char *names[DMESH_MAX_DIMS];
    MPI_Info info;
} shrink_plan_t;

/* Local: the new mesh's shape and ranks (ranks of survivors). */
static int plan(struct dmesh_mesh *mesh, int dim, MPI_Comm survivors, shrink_plan_t *s)
{
    dmesh_universe_t *u = mesh->u;
    int d, got = 0;

    DMESH_TRY(dmesh_get_ndims_impl(mesh->handle, &s->ndims));
    DMESH_TRY(dmesh_get_shape_impl(mesh->handle, DMESH_MAX_DIMS, s->shape));
    DMESH_TRY(dmesh_get_size_impl(mesh->handle, &s->n));
    if (dim != DMESH_KEEP_SHAPE && (dim < 0 || dim >= s->ndims))
        return dmesh_error_set(DMESH_ERR_ARG,
                               "dmesh_shrink: dim %d out of range [0, %d) "
                               "(or DMESH_KEEP_SHAPE)",
                               dim, s->ndims);
    for (d = 0; d < s->ndims; d++)
        s->names[d] = dmesh_mesh_name(mesh, d); /* NULL throughout when unnamed */
    s->ranks = malloc((size_t)s->n * sizeof(int));
    s->new_ranks = malloc((size_t)s->n * sizeof(int));
    if (s->ranks == NULL || s->new_ranks == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_shrink: out of memory");
    DMESH_TRY(dmesh_get_ranks_impl(mesh->handle, s->n, s->ranks, &got));
    DMESH_TRY(dmesh_shrink_survivor_ranks("dmesh_shrink", dmesh_universe_comm(u),
                                          dmesh_universe_comm_size(u), survivors,
                                          &s->survivor_rank));
    return dmesh_shrink_plan(s->ndims, s->shape, s->n, s->ranks, dmesh_universe_comm_size(u),
                             s->survivor_rank, dim, s->spares, s->new_shape, s->new_ranks,
                             &s->new_n);
}

/* Local, the same on every survivor: where the new universe comes from
 * (universe.h), when its rank map is the old universe's without some
 * indices, in the same order (no spare took a place; not a rank map that
 * differs between ranks); src->exclude is malloc'd. src->from is NULL when
 * there is no such source. */
static int source_of(const dmesh_universe_t *u, const shrink_plan_t *s, dmesh_shrink_source_t *src)
{
    int n = dmesh_universe_nranks(u), size = dmesh_universe_comm_size(u), p, i, last = -1, ok = 1;
    int *at, *old_of, *kept, *exclude;

    memset(src, 0, sizeof(*src));
    if (dmesh_universe_local_map(u))
        return DMESH_SUCCESS;
    if ((at = DMESH_FAULT_MALLOC((size_t)(2 * size + n) * sizeof(int))) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_shrink: out of memory");
    old_of = at + size; /* per survivor rank, its old rank */
    kept = old_of + size;
    for (i = 0; i < size; i++)
        at[i] = -1; /* per old rank, its index in the old rank map */
    for (p = 0; p < n; p++) {
        at[dmesh_universe_rank_at(u, p)] = p;
        kept[p] = 0;
        src->failed |= s->survivor_rank[dmesh_universe_rank_at(u, p)] == DMESH_SHRINK_FAILED;
    }
    for (i = 0; i < size; i++)
        if (s->survivor_rank[i] != DMESH_SHRINK_FAILED)
            old_of[s->survivor_rank[i]] = i;
    for (i = 0; ok && i < s->new_n; i++) {
        p = at[old_of[s->new_ranks[i]]];
        ok = p > last;
        if (ok)
            kept[p] = 1;
        last = p;
    }
    exclude = ok ? DMESH_FAULT_MALLOC((size_t)(n > 0 ? n : 1) * sizeof(int)) : NULL;
    for (p = 0; exclude != NULL && p < n; p++)
        if (!kept[p])
            exclude[src->nexclude++] = p;
    free(at);
    if (exclude == NULL) {
        memset(src, 0, sizeof(*src));
        return ok ? dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_shrink: out of memory") : DMESH_SUCCESS;
    }
    src->from = u;
    src->exclude = exclude;
    return DMESH_SUCCESS;
}

int dmesh_shrink_comm(dmesh_universe_t *u, const char *fn, int revoke, MPI_Comm *survivors)
{
    char what[64];
    int rc;

    if (revoke && !dmesh_universe_revoked(u))
        dmesh_universe_revoke(u); /* its failure leaves MPIX_Comm_shrink to decide */
    if ((rc = dmesh_ulfm_shrink(dmesh_universe_comm(u), survivors)) != MPI_SUCCESS) {
        snprintf(what, sizeof(what), "%s: MPIX_Comm_shrink", fn);
        return dmesh_error_mpi(rc, what);
    }
    return DMESH_SUCCESS;
}

int dmesh_shrink_impl(dmesh_t handle, int dim, MPI_Info info, MPI_Comm *survivors, dmesh_t *newmesh)
{
    return dmesh_shrink_named(handle, dim, NULL, NULL, info, survivors, newmesh);
}

int dmesh_shrink_named(dmesh_t handle, int dim, const char *name_fn, const char *dim_name,
                       MPI_Info info, MPI_Comm *survivors, dmesh_t *newmesh)
{
    struct dmesh_mesh *mesh;

    shrink_plan_t s;
    dmesh_shrink_source_t src;
    MPI_Comm comm = MPI_COMM_NULL;
    dmesh_t made = DMESH_NULL;
    uint64_t hash;
    int err;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_shrink", &mesh));
    if (!dmesh_ulfm_enabled(dmesh_universe_comm(mesh->u)))
        return dmesh_failed_unsupported("dmesh_shrink");
    DMESH_TRY(dmesh_shrink_comm(mesh->u, "dmesh_shrink", newmesh != NULL, &comm));
    /* From here every survivor holds comm: the checks are agreed on it. */
    memset(&s, 0, sizeof(s));
    s.info = MPI_INFO_NULL;
    err = newmesh == NULL
              ? dmesh_error_set(DMESH_ERR_ARG, "%s: argument 'newmesh' is NULL", "dmesh_shrink")
              : read_spares(info, &s.spares, &s.info);
    /* a name that fails fails here, where a bad index does: agreed below */
    if (err == DMESH_SUCCESS && name_fn != NULL)
        err = dmesh_mesh_dim_by_name(mesh, dim_name, name_fn, &dim);
    if (err == DMESH_SUCCESS)
        err = plan(mesh, dim, comm, &s);
    /* a "cuda" mesh's NCCL communicators may come from the old ones
     * (ncclCommShrink) instead of a new bootstrap */
    memset(&src, 0, sizeof(src));
    if (err == DMESH_SUCCESS)
        err = source_of(mesh->u, &s, &src);
    hash = dmesh_hash(0, &dim, sizeof(dim));
    hash = dmesh_hash(hash, &s.spares, sizeof(s.spares));
    err = dmesh_agree(comm, hash, err, "dmesh_shrink");
    if (err == DMESH_SUCCESS)
        err = dmesh_create_shrunk(comm, dmesh_universe_cuda(mesh->u) ? "cuda" : "cpu", s.ndims,
                                  s.new_shape, s.new_ranks, s.names[0] != NULL ? s.names : NULL,
                                  s.info, src.from != NULL ? &src : NULL, &made);
    free((void *)src.exclude);
    free(s.ranks);
    free(s.new_ranks);
    free(s.survivor_rank);
    if (s.info != MPI_INFO_NULL)
        MPI_Info_free(&s.info);
    if (err != DMESH_SUCCESS || survivors == NULL)
        MPI_Comm_free(&comm); /* the new mesh's universe holds its own duplicate */
    if (err != DMESH_SUCCESS)
        return err;
    dmesh_finalize_bound_arm();
    /* the program's communicator carries its own error handler, as
     * MPI_Comm_split's result would (the shrunk one has the private one's) */
    if (survivors != NULL && dmesh_universe_errhandler(mesh->u) != MPI_ERRHANDLER_NULL)
        MPI_Comm_set_errhandler(comm, dmesh_universe_errhandler(mesh->u));
    if (survivors != NULL)
        *survivors = comm;
    *newmesh = made;
    return DMESH_SUCCESS;
}
