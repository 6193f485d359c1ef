/* SPDX-License-Identifier: BSD-3-Clause */
/* Recovery in one call (lib/ft/): dmesh_start, dmesh_agree_step and
 * dmesh_repair, the loop that every fault-tolerant program would write
 * around dmesh_revoke, dmesh_respawn (or dmesh_shrink) and the copies.
 *
 * The shape they give a program: a process starts (dmesh_start: a first
 * launch's dmesh_init, or a new process's dmesh_join), opens its copies,
 * registers its buffers and restores; each step's outcome is agreed
 * (dmesh_agree_step: the step failed on one process, so it failed on all,
 * and the one that failed revoked first, so that none waits in the step);
 * a failed step, store or restore goes to dmesh_repair, which revokes,
 * brings the processes back, again while processes die during it, moves
 * every copies handle opened on the mesh to the new one (the program's
 * handles stay valid) and restores them. A process that dmesh_repair
 * started runs the start path, whose collective calls (join, open,
 * restore) meet the survivors' (respawn, the move's open, restore) in the
 * same order; a new process whose own open failed has no handle to move:
 * it opens after dmesh_repair, as at its start, and meets the survivors'
 * open there. */
#include "config.h"

#include "api_impl.h"

#include <stdlib.h>
#include <string.h>

#include "copies.h"
#include "error.h"
#include "ft/failed.h"
#include "mesh.h"
#include "mesh_dim.h"
#include "option_value.h"
#include "ulfm.h"
#include "universe_comms.h"

/* ---- dmesh_start ---------------------------------------------------------- */

int dmesh_start_impl(MPI_Comm comm, const char *device_type, int ndims, const int shape[],
                     const char *const dim_names[], MPI_Info info, MPI_Comm *newcomm, dmesh_t *mesh)
{
    MPI_Comm parent = MPI_COMM_NULL, dup = MPI_COMM_NULL;
    int rc, err;

    if ((rc = MPI_Comm_get_parent(&parent)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "dmesh_start: MPI_Comm_get_parent");
    if (parent != MPI_COMM_NULL) /* started by dmesh_respawn or dmesh_grow */
        return dmesh_join_impl(info, NULL, newcomm, mesh); /* its own checks, agreed */
    if (comm == MPI_COMM_NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "dmesh_start: argument 'comm' is MPI_COMM_NULL");
    if ((rc = MPI_Comm_dup(comm, &dup)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "dmesh_start: MPI_Comm_dup");
    /* a NULL output takes part: dmesh_init agrees its refusal on every process */
    err = dmesh_init_impl(dup, device_type, ndims, shape, dim_names, info,
                          newcomm != NULL ? mesh : NULL);
    if (err != DMESH_SUCCESS) { /* agreed: every process frees its duplicate */
        MPI_Comm_free(&dup);
        if (newcomm == NULL)
            dmesh_error_set(err, "dmesh_start: argument 'newcomm' is NULL");
        return err;
    }
    *newcomm = dup;
    return DMESH_SUCCESS;
}

/* ---- dmesh_agree_step ------------------------------------------------------ */

/* A failure seen here, made seen everywhere: the mesh's universe (its
 * communicators and its copies) and the program's communicator (comm, or
 * MPI_COMM_NULL: the one the universe was made on, while the universe
 * knows it: a revocation lets it go) revoked, so that a process blocked
 * in the step on either returns. */
static void revoke_all(struct dmesh_mesh *m, MPI_Comm comm)
{
    MPI_Comm user = comm != MPI_COMM_NULL ? comm : dmesh_universe_user_comm(m->u);

    dmesh_universe_revoke(m->u);
    if (user != MPI_COMM_NULL)
        dmesh_ulfm_revoke(user);
}

int dmesh_agree_step_impl(dmesh_t mesh, int *ok)
{
    struct dmesh_mesh *m;
    MPI_Comm u;
    int flag;

    DMESH_TRY(dmesh_mesh_get(mesh, DMESH_ANY_DIM, "dmesh_agree_step", &m));
    u = dmesh_universe_comm(m->u);
    if (!dmesh_ulfm_enabled(u)) {
        DMESH_CHECK_PTR_OF("dmesh_agree_step", ok);
        return DMESH_SUCCESS; /* no process fails alone: the local outcome */
    }
    flag = ok != NULL && *ok != 0; /* a NULL ok takes part, as a failed step */
    if (!flag)
        revoke_all(m, MPI_COMM_NULL);
    /* the agreement works on a revoked communicator and gives every
     * survivor the same flag and the same return: a failed process is a
     * failed step */
    if (dmesh_ulfm_agree(u, &flag) != MPI_SUCCESS)
        flag = 0;
    DMESH_CHECK_PTR_OF("dmesh_agree_step", ok);
    *ok = flag;
    return DMESH_SUCCESS;
}

/* ---- dmesh_repair --------------------------------------------------------- */

enum { REPAIR_RESPAWN, REPAIR_SHRINK, REPAIR_SPARES };

typedef struct {
    int how;       /* REPAIR_* (info dmesh_repair) */
    int dim;       /* shrink: the dimension (info dmesh_repair_dim) */
    MPI_Info info; /* what the call passes on: the caller's, or a copy with spares */
} repair_args_t;

/* The info the repair's dmesh_respawn or dmesh_shrink gets: the caller's
 * without dmesh_repair's own keys (the new processes' mesh would take
 * them for keys of its creation), with dmesh_spares for spares. */
static int pass_on(MPI_Info info, int named, repair_args_t *a)
{
    int rc, flag = 0;
    char val[8];

    if (!named && a->how != REPAIR_SPARES)
        return DMESH_SUCCESS;
    rc = info == MPI_INFO_NULL ? MPI_Info_create(&a->info) : MPI_Info_dup(info, &a->info);
    for (int i = 0; rc == MPI_SUCCESS && i < 2; i++) {
        const char *key = i == 0 ? "dmesh_repair" : "dmesh_repair_dim";
        if ((rc = MPI_Info_get(a->info, key, 1, val, &flag)) == MPI_SUCCESS && flag)
            rc = MPI_Info_delete(a->info, key);
    }
    if (rc == MPI_SUCCESS && a->how == REPAIR_SPARES)
        rc = MPI_Info_set(a->info, "dmesh_spares", "true");
    if (rc == MPI_SUCCESS)
        return DMESH_SUCCESS;
    if (a->info != info && a->info != MPI_INFO_NULL)
        MPI_Info_free(&a->info);
    a->info = info;
    return dmesh_error_mpi(rc, "dmesh_repair: MPI_Info_set");
}

static int repair_args(dmesh_t mesh, MPI_Info info, repair_args_t *a)
{
    static const char *const ways[] = {"respawn", "shrink", "spares"};
    char val[MPI_MAX_INFO_VAL + 1];
    int how = 0, dim = 0;

    a->how = REPAIR_RESPAWN;
    a->dim = 0;
    a->info = info;
    DMESH_TRY(dmesh_option_get(info, "dmesh_repair", "dmesh_repair", val, &how));
    if (how)
        DMESH_TRY(dmesh_option_choices("dmesh_repair", val, 3, ways, &a->how));
    DMESH_TRY(dmesh_option_get(info, "dmesh_repair_dim", "dmesh_repair", val, &dim));
    if (dim)
        DMESH_TRY(dmesh_handle_dim_of_option(mesh, "dmesh_repair_dim", val, &a->dim));
    if (a->how == REPAIR_SPARES)
        a->dim = DMESH_KEEP_SHAPE; /* the lost places filled from processes outside the mesh */
    return pass_on(info, how || dim, a);
}

/* The copies handles h[n] (those opened on the mesh the repair began
 * with, in the order this process opened them) opened again on `to` (the
 * program's handles stay the same: a handle that an earlier round moved,
 * or did not reach, is moved from where it is) and each restored right
 * after its open, as a new process opens and restores; *version: the
 * first one's. */
static int move_copies(struct dmesh_copies_s **h, int n, dmesh_t to, int *version)
{
    int err = DMESH_SUCCESS;

    *version = DMESH_COPIES_NONE;
    for (int i = 0; !err && i < n; i++) {
        dmesh_copies_t again = DMESH_COPIES_NULL;
        int v = DMESH_COPIES_NONE;
        err = dmesh_copies_reopen(to, h[i]->d->name, h[i]->info, &again);
        if (err != DMESH_SUCCESS)
            break; /* agreed: the copies stay with h[i] for the next try */
        dmesh_copies_take_over(h[i], again);
        err = dmesh_copies_restore_impl(h[i], &v);
        if (i == 0)
            *version = v;
    }
    return err;
}

/* One round: the processes back (the mesh and communicator replaced in
 * the program's variables), then the copies. */
static int round_of(dmesh_t *mesh, MPI_Comm *comm, const repair_args_t *a,
                    struct dmesh_copies_s **h, int n, int *version)
{
    MPI_Comm nc = MPI_COMM_NULL;
    dmesh_t nm = DMESH_NULL;
    struct dmesh_mesh *m;
    int err;

    DMESH_TRY(dmesh_mesh_get(*mesh, DMESH_ANY_DIM, "dmesh_repair", &m));
    revoke_all(m, *comm);
    if (a->how == REPAIR_RESPAWN)
        err = dmesh_respawn_impl(*mesh, NULL, NULL, a->info, &nc, &nm);
    else
        err = dmesh_shrink_impl(*mesh, a->dim, a->info, &nc, &nm);
    if (err != DMESH_SUCCESS)
        return err; /* agreed; the mesh stays (DMESH_ERR_PROC_FAILED: again) */
    err = move_copies(h, n, nm, version);
    dmesh_free_impl(mesh);
    MPI_Comm_free(comm);
    *mesh = nm;
    *comm = nc;
    return err;
}

static int checked(struct dmesh_mesh *m, MPI_Comm *comm, int *version)
{
    MPI_Comm user;

    DMESH_CHECK_PTR_OF("dmesh_repair", comm);
    DMESH_CHECK_PTR_OF("dmesh_repair", version);
    user = dmesh_universe_user_comm(m->u); /* known until the universe is revoked */
    if (*comm == MPI_COMM_NULL || (user != MPI_COMM_NULL && *comm != user))
        return dmesh_error_set(DMESH_ERR_ARG,
                               "dmesh_repair: argument 'comm' is not the communicator the mesh "
                               "was made from (the one dmesh_start, dmesh_join or a repair gave)");
    return DMESH_SUCCESS;
}

/* The arguments' checks agreed before anything is revoked or started, on
 * the universe's communicator, revoked or not (the failure-aware
 * agreement works on both). */
static int agreed(struct dmesh_mesh *m, int err)
{
    int flag = err == DMESH_SUCCESS;

    dmesh_ulfm_agree(dmesh_universe_comm(m->u), &flag); /* the flag is agreed whatever it returns */
    if (flag || err != DMESH_SUCCESS)
        return err;
    return dmesh_error_set(DMESH_ERR_ARG,
                           "dmesh_repair: another process's arguments were refused (its "
                           "dmesh_last_error says why)");
}

int dmesh_repair_impl(dmesh_t *mesh, MPI_Comm *comm, MPI_Info info, int *version)
{
    struct dmesh_mesh *m;
    struct dmesh_copies_s **h = NULL;
    repair_args_t a;
    int err, v = DMESH_COPIES_NONE, n = 0;

    DMESH_CHECK_PTR_OF("dmesh_repair", mesh);
    DMESH_TRY(dmesh_mesh_get(*mesh, DMESH_ANY_DIM, "dmesh_repair", &m));
    if (!dmesh_ulfm_enabled(dmesh_universe_comm(m->u)))
        return dmesh_failed_unsupported("dmesh_repair");
    a.info = info;
    if ((err = checked(m, comm, version)) == DMESH_SUCCESS)
        err = repair_args(*mesh, info, &a);
    if (err == DMESH_SUCCESS) /* the handles to move, kept across the rounds */
        err = dmesh_copies_of_mesh(*mesh, &h, &n);
    if ((err = agreed(m, err)) != DMESH_SUCCESS) {
        free(h);
        if (a.info != info)
            MPI_Info_free(&a.info);
        return err;
    }
    do /* a process that dies during the repair: the repair again */
        err = round_of(mesh, comm, &a, h, n, &v);
    while (err == DMESH_ERR_PROC_FAILED);
    free(h);
    if (a.info != info)
        MPI_Info_free(&a.info);
    if (err == DMESH_SUCCESS)
        *version = v;
    return err;
}
