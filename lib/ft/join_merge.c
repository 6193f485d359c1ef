/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): owns what both sides of dmesh_respawn,
 * dmesh_grow and dmesh_join do alike once the new processes run
 * (join_merge.h): the merge of the spawn's intercommunicator, in the new
 * order and agreed over both sides (agree.h, dmesh_agree_both), letting go
 * of the intercommunicator, and the mesh on the merged communicator, once
 * every process met each new one there (introduce). */
#include "config.h"

#include "api_impl.h"

#include <stdlib.h>

#include "agree.h"
#include "error.h"
#include "fault.h"
#include "ft/call_bound.h"
#include "ft/join_merge.h"
#include "ulfm.h"
#include "options.h"

#define INTRODUCE_TAG 27750 /* introduce's empty messages */

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

/* On comm, just made by dmesh_respawn, dmesh_grow or dmesh_join, whose
 * new processes have the ranks newcomer_rank[0..nnewcomers-1]: each new
 * process exchanges an empty message with every other process, before
 * anything else is sent on comm, so that every process knows every new
 * one's addresses while it lives. With fault tolerance on only. Collective
 * over comm; a failure is returned (DMESH_ERR_PROC_FAILED, ..., after
 * revoking comm where it was local), for the caller to agree on. fn: the
 * call the program made, for the detail.
 *
 * Open MPI 5.0.7 looks a peer's addresses up (PMIx_Get) at the first
 * message to it. For a process of a spawned job that has since died that
 * lookup never returns (its job's records went with it), and the
 * revocation's reliable broadcast sends to peers that never spoke: a
 * survivor forwarding a revocation to a dead replacement it never talked
 * to blocked there for ever, holding every other survivor in
 * MPIX_Comm_shrink (heat_respawn at 8 ranks, the last rank killed and then
 * its replacement). Introduced while alive, every peer's addresses are
 * known. A local failure revokes comm, so that no peer waits on a message
 * that will not come. */
static int introduce(MPI_Comm comm, int nnewcomers, const int newcomer_rank[], const char *fn)
{
    MPI_Request *req;
    int size, me, i, peer, n = 0, is_new = 0, rc = MPI_SUCCESS;

    if (nnewcomers == 0 || !dmesh_ulfm_enabled(comm))
        return DMESH_SUCCESS;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &me);
    for (i = 0; i < nnewcomers; i++)
        is_new |= newcomer_rank[i] == me;
    if ((req = DMESH_FAULT_MALLOC(2 * (size_t)(is_new ? size : nnewcomers) * sizeof(*req))) ==
        NULL) {
        dmesh_ulfm_revoke(comm);
        return dmesh_error_set(DMESH_ERR_NOMEM, "%s: out of memory", fn);
    }
    /* a new process with every other, the others with each new one */
    for (i = 0; rc == MPI_SUCCESS && i < (is_new ? size : nnewcomers); i++) {
        peer = is_new ? i : newcomer_rank[i];
        if (peer == me)
            continue;
        rc = MPI_Irecv(NULL, 0, MPI_BYTE, peer, INTRODUCE_TAG, comm, &req[n++]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Isend(NULL, 0, MPI_BYTE, peer, INTRODUCE_TAG, comm, &req[n++]);
    }
    if (rc != MPI_SUCCESS)
        dmesh_ulfm_revoke(comm);
    i = MPI_Waitall(rc == MPI_SUCCESS ? n : n - 1, req, MPI_STATUSES_IGNORE);
    if (rc == MPI_SUCCESS)
        rc = i;
    free(req);
    return rc == MPI_SUCCESS ? DMESH_SUCCESS : dmesh_error_mpi(rc, fn);
}

int dmesh_join_make_mesh(const char *fn, const dmesh_join_message_t *m, MPI_Comm *newcomm,
                         MPI_Errhandler eh, MPI_Comm *out, dmesh_t *newmesh)
{
    MPI_Info info = MPI_INFO_NULL;
    int err = dmesh_options_from_text(m->keys != NULL ? m->keys : "", &info);
    int met = introduce(*newcomm, m->nnewcomers, m->newcomer_rank, fn);

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
