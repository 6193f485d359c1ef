/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): owns dmesh_grow and dmesh_grow_by_name's
 * implementation (grow.h), the parents' side of a mesh grown with new
 * processes: the grown mesh (grow_plan.c) sent to them through the spawn
 * that dmesh_respawn shares (spawn.c, whose opening comment tells the
 * whole exchange); the new processes' side, dmesh_join, is join.c's. */
#include "config.h"

#include "api_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "error.h"
#include "fault.h"
#include "ft/grow.h"
#include "ft/grow_plan.h"
#include "ft/join_merge.h"
#include "ft/join_message.h"
#include "ft/spawn.h"
#include "hash.h"
#include "mesh.h"
#include "mesh_dim.h"
#include "options.h"
#include "serialize_text.h"

/* dmesh_grow's text: the mesh's with n more indices of dim, the new
 * positions taken by ranks size, size + 1, ... in row-major order. */
static int grown_text(dmesh_t mesh, int dim, int n, int size, char **out, int *nnewcomers)
{
    dmesh_saved_t s;
    char *text = NULL;
    size_t need = 0;
    int err;

    DMESH_TRY(dmesh_spawn_text(mesh, &text));
    err = dmesh_saved_parse(text, &s);
    free(text);
    if (err != DMESH_SUCCESS)
        return err;
    err = dmesh_grow_plan(&s, dim, n, size, nnewcomers);
    if (err == DMESH_SUCCESS) {
        dmesh_saved_print(&s, NULL, 0, &need);
        if ((text = DMESH_FAULT_MALLOC(need + 1)) == NULL)
            err = dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_grow: out of memory");
        else
            dmesh_saved_print(&s, text, need + 1, NULL);
    }
    dmesh_saved_free(&s);
    if (err == DMESH_SUCCESS)
        *out = text;
    return err;
}

int dmesh_grow_impl(dmesh_t handle, int dim, int n, const char *command, char *const argv[],
                    MPI_Info info, MPI_Comm *newcomm, dmesh_t *newmesh)
{
    return dmesh_grow_named(handle, dim, NULL, NULL, n, command, argv, info, newcomm, newmesh);
}

/* Local: the call's arguments and the universe's state; with name_fn,
 * the dimension dim_name's index in *dim, so that a name that fails fails
 * here, where a bad index does (agreed by the caller). */
static int check_grow(struct dmesh_mesh *mesh, const char *name_fn, const char *dim_name, int n,
                      const MPI_Comm *newcomm, const dmesh_t *newmesh, int *dim)
{
    if (newcomm == NULL || newmesh == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: argument '%s' is NULL", "dmesh_grow",
                               newcomm == NULL ? "newcomm" : "newmesh");
    if (name_fn != NULL)
        DMESH_TRY(dmesh_mesh_dim_by_name(mesh, dim_name, name_fn, dim));
    if (*dim < 0 || *dim >= dmesh_mesh_ndims(mesh))
        return dmesh_error_set(DMESH_ERR_ARG, "%s: dim %d out of range [0, %d)", "dmesh_grow", *dim,
                               dmesh_mesh_ndims(mesh));
    if (n < 1)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: n %d: at least 1 index to add", "dmesh_grow", n);
    if (dmesh_universe_revoked(mesh->u))
        return dmesh_error_set(DMESH_ERR_PROC_FAILED, "%s: the universe was revoked", "dmesh_grow");
    return DMESH_SUCCESS;
}

/* Local: the parents' message of a grow of n indices of dim, in a
 * universe of size processes: the grown mesh's text, the call's shared
 * keys, and the new processes' ranks, after the old ones. */
static int grow_message(dmesh_t mesh, int dim, int n, int size, MPI_Info info,
                        dmesh_join_message_t *p)
{
    int i, err = grown_text(mesh, dim, n, size, &p->text, &p->nnewcomers);

    if (err == DMESH_SUCCESS)
        err = dmesh_options_shared_text(info, &p->keys);
    p->size = size + p->nnewcomers;
    if (err == DMESH_SUCCESS &&
        (p->newcomer_rank = DMESH_FAULT_MALLOC((size_t)(p->nnewcomers > 0 ? p->nnewcomers : 1) *
                                               sizeof(int))) == NULL)
        err = dmesh_error_set(DMESH_ERR_NOMEM, "%s: out of memory", "dmesh_grow");
    for (i = 0; err == DMESH_SUCCESS && i < p->nnewcomers; i++)
        p->newcomer_rank[i] = size + i;
    return err;
}

int dmesh_grow_named(dmesh_t handle, int dim, const char *name_fn, const char *dim_name, int n,
                     const char *command, char *const argv[], MPI_Info info, MPI_Comm *newcomm,
                     dmesh_t *newmesh)
{
    struct dmesh_mesh *mesh;
    dmesh_join_message_t p;
    MPI_Comm comm, made = MPI_COMM_NULL;
    uint64_t hash;
    int rank = 0, err;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_grow", &mesh));
    comm = dmesh_universe_comm(mesh->u);
    MPI_Comm_rank(comm, &rank);
    memset(&p, 0, sizeof(p));
    p.reason = DMESH_JOIN_GROW;
    err = check_grow(mesh, name_fn, dim_name, n, newcomm, newmesh, &dim);
    if (err == DMESH_SUCCESS)
        err = grow_message(handle, dim, n, dmesh_universe_comm_size(mesh->u), info, &p);
    hash = dmesh_hash(0, &dim, sizeof(dim));
    hash = dmesh_hash(hash, &n, sizeof(n));
    err = dmesh_agree(comm, hash, err, "dmesh_grow");
    if (err == DMESH_SUCCESS)
        err = dmesh_spawn_join(comm, "dmesh_grow", command, argv, info, NULL, &p, rank, &made);
    if (err == DMESH_SUCCESS)
        err = dmesh_join_make_mesh("dmesh_grow", &p, &made, dmesh_universe_errhandler(mesh->u),
                                   newcomm, newmesh);
    dmesh_join_message_free(&p);
    return err;
}
