/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): owns dmesh_respawn, the parents' side of a
 * mesh that comes back whole after a failure: the survivors (shrink.c's
 * shrink of the universe's communicator) start one new process for each
 * failed one, at its rank, where dmesh_respawn_hosts says (respawn_plan.c),
 * through the spawn that dmesh_grow shares (spawn.c, whose opening comment
 * tells the whole exchange); the new processes' side, dmesh_join, is
 * join.c's. */
#include "config.h"

#include "api_impl.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "error.h"
#include "fault.h"
#include "finalize_bound.h"
#include "ft/failed.h"
#include "ft/shrink.h"
#include "ft/join_merge.h"
#include "ft/join_message.h"
#include "ft/respawn_plan.h"
#include "ft/spawn.h"
#include "ulfm.h"
#include "hash.h"
#include "mesh.h"
#include "options.h"

/* The hosts of the new processes (dmesh_respawn_hosts, checked here, at
 * the call's boundary) and how many go to each: the replacements of one
 * node together, on one host, where the universe knows its nodes (a hybrid
 * or node-ordered mesh, a locality query, the copies); p->newcomer_rank reordered
 * to match (the new processes take their ranks from it). */
static int respawn_where(const struct dmesh_mesh *mesh, MPI_Info info, dmesh_join_message_t *p,
                         dmesh_spawn_where_t *w)
{
    DMESH_TRY(dmesh_options_respawn_hosts(info, w->names, &w->nhosts));
    if (w->nhosts == 0)
        return DMESH_SUCCESS;
    if ((w->count = DMESH_FAULT_MALLOC((size_t)w->nhosts * sizeof(int))) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "%s: out of memory", "dmesh_respawn");
    return dmesh_respawn_hosts_plan(p->nnewcomers, p->newcomer_rank,
                                    dmesh_universe_known_node_lows(mesh->u), w->nhosts, w->count);
}

int dmesh_respawn_impl(dmesh_t handle, const char *command, char *const argv[], MPI_Info info,
                       MPI_Comm *newcomm, dmesh_t *newmesh)
{
    struct dmesh_mesh *mesh;
    dmesh_join_message_t p;
    dmesh_spawn_where_t w;
    MPI_Comm shr = MPI_COMM_NULL, made = MPI_COMM_NULL;
    uint64_t hash;
    int *survivor_rank = NULL, size, r, myrank = 0, err;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_respawn", &mesh));
    if (!dmesh_ulfm_enabled(dmesh_universe_comm(mesh->u)))
        return dmesh_failed_unsupported("dmesh_respawn");
    /* outputs checked before anything is revoked: a call with a NULL one
     * takes part (the others must not wait for it) and revokes nothing */
    DMESH_TRY(
        dmesh_shrink_comm(mesh->u, "dmesh_respawn", newcomm != NULL && newmesh != NULL, &shr));
    /* From here every survivor holds shr: the checks are agreed on it. */
    memset(&p, 0, sizeof(p));
    memset(&w, 0, sizeof(w));
    p.reason = DMESH_JOIN_RESPAWN;
    p.size = size = dmesh_universe_comm_size(mesh->u);
    MPI_Comm_rank(dmesh_universe_comm(mesh->u), &myrank);
    err = newcomm == NULL || newmesh == NULL
              ? dmesh_error_set(DMESH_ERR_ARG, "%s: argument '%s' is NULL", "dmesh_respawn",
                                newcomm == NULL ? "newcomm" : "newmesh")
              : dmesh_shrink_survivor_ranks("dmesh_respawn", dmesh_universe_comm(mesh->u), size,
                                            shr, &survivor_rank);
    if (err == DMESH_SUCCESS &&
        (p.newcomer_rank = DMESH_FAULT_MALLOC((size_t)size * sizeof(int))) == NULL)
        err = dmesh_error_set(DMESH_ERR_NOMEM, "%s: out of memory", "dmesh_respawn");
    for (r = 0; err == DMESH_SUCCESS && r < size; r++)
        if (survivor_rank[r] == DMESH_SHRINK_FAILED)
            p.newcomer_rank[p.nnewcomers++] = r; /* a newcomer for each failed rank, in order */
    if (err == DMESH_SUCCESS)
        err = respawn_where(mesh, info, &p, &w);
    if (err == DMESH_SUCCESS)
        err = dmesh_spawn_text(handle, &p.text);
    if (err == DMESH_SUCCESS)
        err = dmesh_options_shared_text(info, &p.keys);
    free(survivor_rank);
    hash = dmesh_hash(0, &p.nnewcomers, sizeof(p.nnewcomers));
    hash = dmesh_hash(hash, &w.nhosts, sizeof(w.nhosts)); /* all spawn alike, or none */
    err = dmesh_agree(shr, hash, err, "dmesh_respawn");
    if (err == DMESH_SUCCESS && p.nnewcomers == 0) {
        made = shr; /* nothing failed: the survivors are the whole */
        shr = MPI_COMM_NULL;
    } else if (err == DMESH_SUCCESS) {
        err = dmesh_spawn_join(shr, "dmesh_respawn", command, argv, info, &w, &p, myrank, &made);
    }
    free(w.count);
    if (shr != MPI_COMM_NULL)
        MPI_Comm_free(&shr);
    if (err == DMESH_SUCCESS)
        err = dmesh_join_make_mesh("dmesh_respawn", &p, &made, dmesh_universe_errhandler(mesh->u),
                                   newcomm, newmesh);
    if (err == DMESH_SUCCESS)
        dmesh_finalize_bound_arm();
    dmesh_join_message_free(&p);
    return err;
}
