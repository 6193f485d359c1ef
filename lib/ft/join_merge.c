/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): owns what both sides of dmesh_respawn,
 * dmesh_grow and dmesh_join do alike once the new processes run
 * (join_merge.h): the merge of the spawn's intercommunicator, in the new
 * order and agreed over both sides (agree.h, dmesh_agree_both), letting go
 * of the intercommunicator, and the mesh on the merged communicator. */
#include "config.h"

#include "api_impl.h"

#include "agree.h"
#include "error.h"
#include "fault.h"
#include "ft/call_bound.h"
#include "ft/shrink.h"
#include "ft/join_merge.h"
#include "ulfm.h"
#include "options.h"

/* The merged communicator is freed here: its processes come from two
 * launches (spawn.c's opening comment). */
int dmesh_join_merge(MPI_Comm ic, int high, int key, int err, const char *fn, double bound,
                     MPI_Comm *newcomm)
{
    MPI_Comm merged = MPI_COMM_NULL, out = MPI_COMM_NULL;
    dmesh_call_bound_t b;
    int rc, settled = 0;

    dmesh_fault_step(); /* test builds: a process may die here (fault.h) */
    /* bounded: where a process of the other side died before or in the
     * merge, Open MPI 5.0.7 never returns from it (call_bound.c) */
    dmesh_call_bound_start(&b, bound,
                           high ? "dmesh_join: MPI_Intercomm_merge with the parents (a parent "
                                  "died before or in the merge: Open MPI 5.0.7 never returns then)"
                                : "MPI_Intercomm_merge with the new processes of dmesh_respawn or "
                                  "dmesh_grow (a new process died before or in the merge: Open "
                                  "MPI 5.0.7 never returns then)");
    rc = MPI_Intercomm_merge(ic, high, &merged);
    dmesh_call_bound_stop(&b);
    if (rc != MPI_SUCCESS && err == DMESH_SUCCESS)
        err = dmesh_error_mpi(rc, "MPI_Intercomm_merge");
    if (rc != MPI_SUCCESS)
        merged = MPI_COMM_NULL;
    else
        MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
    err = dmesh_agree_both(ic, err, fn, &settled);
    if (err == DMESH_SUCCESS && (rc = MPI_Comm_split(merged, 0, key, &out)) != MPI_SUCCESS) {
        err = dmesh_error_mpi(rc, "MPI_Comm_split of the merged communicator");
        settled = 0;
    }
    /* every process that holds the merged communicator agrees on it once,
     * whatever it saw; one that failed where another may be in the split
     * (its agreement over both sides cut short, or the split failed)
     * revokes it first, so that the other returns. A failure that both
     * sides agreed on takes nobody into the split: no revoke, and its
     * class stays (a new process out of memory: DMESH_ERR_NOMEM) */
    if (err != DMESH_SUCCESS && !settled && merged != MPI_COMM_NULL && dmesh_ulfm_enabled(merged))
        dmesh_ulfm_revoke(merged);
    if (merged != MPI_COMM_NULL)
        err = dmesh_agree_outcome(merged, err, fn);
    if (merged != MPI_COMM_NULL)
        MPI_Comm_free(&merged);
    if (err != DMESH_SUCCESS) {
        if (out != MPI_COMM_NULL)
            MPI_Comm_free(&out);
        return err;
    }
    MPI_Comm_set_errhandler(out, MPI_ERRORS_RETURN);
    *newcomm = out;
    return DMESH_SUCCESS;
}

/* MPI_Comm_free, not MPI_Comm_disconnect, which in Open MPI 5.0.7 also
 * disconnects the launches at the PMIx level, after which creating a
 * communicator over both (MPI_Comm_dup of the new one) never completed
 * (measured: every survivor and the new process in ompi_comm_nextcid).
 * Never revoked: a revoked intercommunicator left Open MPI 5.0.7's
 * allocation of communicator ids broken (the kill sweep: a new process's
 * MPI_Finalize crashed in ompi_comm_nextcid, and the survivors' retry
 * hung). */
void dmesh_join_leave(MPI_Comm *ic)
{
    MPI_Comm_free(ic);
}

int dmesh_join_make_mesh(const char *fn, const dmesh_join_message_t *m, MPI_Comm *newcomm,
                         MPI_Errhandler eh, MPI_Comm *out, dmesh_t *newmesh)
{
    MPI_Info info = MPI_INFO_NULL;
    int err = dmesh_options_from_text(m->keys != NULL ? m->keys : "", &info);
    int met = dmesh_shrink_introduce(*newcomm, m->nnewcomers, m->newcomer_rank, fn);

    if (err == DMESH_SUCCESS)
        err = met;

    /* the info is agreed first: a process without it must not leave the
     * others in dmesh_deserialize's collectives */
    err = dmesh_agree_outcome(*newcomm, err, "dmesh_deserialize");
    if (err == DMESH_SUCCESS && eh != MPI_ERRHANDLER_NULL)
        MPI_Comm_set_errhandler(*newcomm, eh);
    if (err == DMESH_SUCCESS)
        err = dmesh_deserialize_impl(*newcomm, m->text, info, newmesh);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    if (err != DMESH_SUCCESS) {
        MPI_Comm_free(newcomm);
        return err;
    }
    *out = *newcomm;
    return DMESH_SUCCESS;
}
