/* SPDX-License-Identifier: BSD-3-Clause */
/* The one agreement primitive, and the agreement over both sides of an
 * intercommunicator (dmesh_agree_both, at the end).
 *
 * The rule (doc/architecture.md, "The rule of collective paths"): on a
 * collective path, no early return before the agreement. A step that can
 * fail on some ranks only (an MPI or NCCL creation, a device choice, an
 * allocation, a rejected argument) records its error class and goes on to
 * the next dmesh_agree over the communicator that the call is collective
 * over; only after it, when it returns an error, does every rank roll back
 * what it made and return the same class. A rank that returned earlier
 * would leave the others waiting in the next collective.
 *
 * Cost on success: one MPI_Allreduce of 3 x 64 bits (MIN): 63 bits of the
 * hash and their complement to INT64_MAX (min(h) == INT64_MAX - min(INT64_MAX
 * - h) means every rank had the same hash) and the first failure as
 * (rank << 16 | class), INT64_MAX for none. Signed and non-negative on
 * purpose: MPICH 4.0 reduces MPI_UINT64_T with MPI_MIN as if it were signed
 * (UINT64_MAX would win over every failure).
 *
 * With fault tolerance on (ulfm.h: an MPI with ULFM, launched with it), a
 * process may die at any step, and an MPI call may then fail on some ranks
 * and succeed on others. The allreduce's outcome is agreed once more with
 * MPIX_Comm_agree, which completes on every survivor, even on a revoked
 * communicator: a rank that met a failure (its own class
 * DMESH_ERR_PROC_FAILED, or a failed allreduce) revokes comm first, so that
 * a rank still blocked in comm returns, skips the allreduce and takes part
 * in the agreement only. Every survivor then returns DMESH_ERR_PROC_FAILED
 * when any of them met a failure or the MPI knows of a failed process.
 * Without fault tolerance no MPIX_ call is made: the cost is unchanged. */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "agree.h"
#include "error.h"
#include "fault.h"
#include "ulfm.h"

#define AGREE_DETAIL_LEN 480
#define NO_FAILURE INT64_MAX

/* The text this thread's last failed agreement wrote: a rank entering the
 * next agreement with exactly that detail relays it instead of prefixing its
 * own rank again. */
static _Thread_local char agreed_text[AGREE_DETAIL_LEN];

/* Every rank learns the first failing rank's detail from it. */
static int share_failure(MPI_Comm comm, int rank, int64_t first)
{
    int root = (int)(first >> 16), err = (int)(first & 0xffff), rc;
    struct {
        char text[AGREE_DETAIL_LEN];
        int relayed;
    } msg;

    memset(&msg, 0, sizeof(msg));
    if (rank == root) {
        snprintf(msg.text, sizeof(msg.text), "%s", dmesh_last_error_impl());
        msg.relayed = agreed_text[0] != '\0' && strcmp(msg.text, agreed_text) == 0;
    }
    rc = MPI_Bcast(&msg, (int)sizeof(msg), MPI_BYTE, root, comm);
    if (dmesh_ulfm_enabled(comm)) {
        /* No rank returns before every rank has the detail: the root's
         * broadcast returns at once, and its next call may revoke comm
         * (dmesh_shrink, dmesh_respawn do first), which would cut the
         * broadcast short on the others (measured: the detail lost on 2 or
         * 3 of 4 ranks, 4 runs of 6, after a failed dmesh_grow_by_name).
         * The failure path only; the outcome is settled already. A rank
         * whose broadcast failed revokes first, so that a rank still
         * waiting for it returns. */
        int done = rc == MPI_SUCCESS;
        if (!done)
            dmesh_ulfm_revoke(comm);
        dmesh_ulfm_agree(comm, &done);
    }
    msg.text[AGREE_DETAIL_LEN - 1] = '\0';
    if (rc != MPI_SUCCESS) {
        char why[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        if (MPI_Error_string(rc, why, &len) != MPI_SUCCESS)
            snprintf(why, sizeof(why), "error %d", rc);
        snprintf(msg.text, sizeof(msg.text), "%s (its detail was lost: MPI_Bcast failed: %s)",
                 dmesh_error_string_impl(err), why);
    }
    if (msg.relayed)
        dmesh_error_set(err, "%s", msg.text);
    else
        dmesh_error_set(err, "rank %d: %s", root, msg.text);
    snprintf(agreed_text, sizeof(agreed_text), "%s", dmesh_last_error_impl());
    return dmesh_error_agreed(err, rank == root); /* the lowest rank that failed */
}

#define AGREE_NO_PROC_FAILED 1 /* bits of the failure-aware agreement's flag */
#define AGREE_ALLREDUCE_DONE 2
#define AGREE_ALL_SUCCEEDED 4 /* dmesh_agree_outcome's: no rank had an error */

/* With fault tolerance on: the outcome of the allreduce (rc) agreed by the
 * survivors. failed: this rank met a process failure or a revoked
 * communicator (before the agreement, or in its allreduce). */
static int agree_survivors(MPI_Comm comm, int rc, int failed, const char *what)
{
    char mine[AGREE_DETAIL_LEN];
    int flag = 0, arc;

    snprintf(mine, sizeof(mine), "%s", failed ? dmesh_last_error_impl() : "");
    if (rc != MPI_SUCCESS && dmesh_ulfm_is_failure(rc)) {
        dmesh_error_mpi(rc, "agreement (MPI_Allreduce)");
        snprintf(mine, sizeof(mine), "%s", dmesh_last_error_impl());
        failed = 1;
    }
    if (failed || rc != MPI_SUCCESS)
        dmesh_ulfm_revoke(comm); /* the ranks blocked in comm return */
    flag = (failed ? 0 : AGREE_NO_PROC_FAILED) | (rc == MPI_SUCCESS ? AGREE_ALLREDUCE_DONE : 0);
    arc = dmesh_ulfm_agree(comm, &flag);
    if (arc != MPI_SUCCESS || !(flag & AGREE_NO_PROC_FAILED))
        return dmesh_error_set(DMESH_ERR_PROC_FAILED,
                               "%s: a process of the communicator failed or it was revoked%s%s",
                               what, mine[0] != '\0' ? "; here: " : "", mine);
    if (!(flag & AGREE_ALLREDUCE_DONE))
        return rc != MPI_SUCCESS ? dmesh_error_mpi(rc, "agreement (MPI_Allreduce)")
                                 : dmesh_error_set(DMESH_ERR_MPI,
                                                   "%s: agreement (MPI_Allreduce) failed on "
                                                   "another rank",
                                                   what);
    return DMESH_SUCCESS;
}

int dmesh_agree(MPI_Comm comm, uint64_t hash, int local_err, const char *what)
{
    int64_t in[3], out[3];
    int rank = 0, rc = MPI_ERR_OTHER, ft = dmesh_ulfm_enabled(comm), err;

    dmesh_fault_step(); /* test builds: a process may die here (fault.h) */
    MPI_Comm_rank(comm, &rank);
    in[0] = (int64_t)(hash >> 1);
    in[1] = INT64_MAX - in[0];
    in[2] = local_err != DMESH_SUCCESS ? (int64_t)rank << 16 | (int64_t)local_err : NO_FAILURE;
    if (!ft || local_err != DMESH_ERR_PROC_FAILED)
        rc = MPI_Allreduce(in, out, 3, MPI_INT64_T, MPI_MIN, comm);
    dmesh_fault_step(); /* ... or once the others may have the outcome */
    if (ft && (err = agree_survivors(comm, rc, local_err == DMESH_ERR_PROC_FAILED, what)) !=
                  DMESH_SUCCESS)
        return err;
    if (rc != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "agreement (MPI_Allreduce)");
    if (out[2] != NO_FAILURE)
        return share_failure(comm, rank, out[2]);
    if (out[0] != INT64_MAX - out[1])
        return dmesh_error_agreed(
            dmesh_error_set(DMESH_ERR_MISMATCH,
                            "%s: ranks passed different arguments (compared: universe, shape, "
                            "names, layout, rank map, device type, backends and options)",
                            what),
            rank == 0);
    return DMESH_SUCCESS;
}

/* With fault tolerance on, the outcome alone takes one MPIX_Comm_agree, not
 * an allreduce and an agreement: the flag carries "no process failure
 * here" and "no error here", and the agreement is uniform over the
 * survivors. Only when some rank failed (its class and detail are wanted)
 * does the full agreement follow, on every rank alike (the flag says so to
 * all). Whether a rank takes this path is the same on every rank: it
 * depends on the call site (dmesh_agree_outcome, not dmesh_agree) and on
 * the MPI's fault tolerance, never on a value a rank computed. A rank
 * whose own class is DMESH_ERR_PROC_FAILED takes dmesh_agree's path, which
 * makes the same single MPIX_Comm_agree after revoking comm. */
int dmesh_agree_outcome(MPI_Comm comm, int local_err, const char *what)
{
    int flag, arc;

    if (!dmesh_ulfm_enabled(comm) || local_err == DMESH_ERR_PROC_FAILED)
        return dmesh_agree(comm, 0, local_err, what);
    /* test builds: a process may die here, before the consensus, as at
     * dmesh_agree's two steps under fault tolerance. A death just after a
     * consensus is met by the next step: an MPI call fails there; an NCCL
     * creation with the dead process waits for it (the NCCL test double
     * blocks as NCCL does), a non-blocking one only until the MPI knows of
     * the failure (comm_nccl.c, which has the kill step before NCCL's
     * creation). */
    dmesh_fault_step();
    flag = AGREE_NO_PROC_FAILED | (local_err == DMESH_SUCCESS ? AGREE_ALL_SUCCEEDED : 0);
    arc = dmesh_ulfm_agree(comm, &flag);
    if (arc != MPI_SUCCESS || !(flag & AGREE_NO_PROC_FAILED))
        return dmesh_error_set(DMESH_ERR_PROC_FAILED,
                               "%s: a process of the communicator failed or it was revoked", what);
    if (flag & AGREE_ALL_SUCCEEDED)
        return DMESH_SUCCESS;
    return dmesh_agree(comm, 0, local_err, what); /* the lowest failing rank's class and detail */
}

/* Two MPI_Allreduce over ic: the first gives each side the other side's
 * lowest, the second the whole. Not MPIX_Comm_agree: on an
 * intercommunicator it leaves Open MPI 5.0.7 unable to make a communicator
 * over both sides afterwards (measured without dmesh: MPI_Comm_dup of the
 * merged and split communicator never returned, 2 runs of 2; without the
 * agreement on ic, 2 of 2 returned). ic is never revoked: see
 * dmesh_join_leave (lib/ft/join_merge.c). */
int dmesh_agree_both(MPI_Comm ic, int err, const char *fn, int *settled)
{
    int rc, in, mid = INT_MAX, out = INT_MAX;

    in = err != DMESH_SUCCESS ? err : INT_MAX;
    rc = MPI_Allreduce(&in, &mid, 1, MPI_INT, MPI_MIN, ic);
    in = in < mid ? in : mid;
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, ic);
    out = in < out ? in : out;
    *settled = rc == MPI_SUCCESS;
    if (err != DMESH_SUCCESS && out == err)
        return err;
    if (rc != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "agreement of both sides (MPI_Allreduce)");
    if (out == INT_MAX)
        return DMESH_SUCCESS;
    return dmesh_error_set(out, "%s: another process failed (%s)", fn,
                           dmesh_error_string_impl(out));
}
