/* SPDX-License-Identifier: BSD-3-Clause */
/* The one agreement primitive.
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
 * (UINT64_MAX would win over every failure). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "agree.h"
#include "error.h"

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
        snprintf(msg.text, sizeof(msg.text), "%s", dmesh_last_error());
        msg.relayed = agreed_text[0] != '\0' && strcmp(msg.text, agreed_text) == 0;
    }
    rc = MPI_Bcast(&msg, (int)sizeof(msg), MPI_BYTE, root, comm);
    msg.text[AGREE_DETAIL_LEN - 1] = '\0';
    if (rc != MPI_SUCCESS)
        snprintf(msg.text, sizeof(msg.text), "%s (its detail was lost: MPI_Bcast failed)",
                 dmesh_error_string(err));
    if (msg.relayed)
        dmesh_error_set(err, "%s", msg.text);
    else
        dmesh_error_set(err, "rank %d: %s", root, msg.text);
    snprintf(agreed_text, sizeof(agreed_text), "%s", dmesh_last_error());
    return err;
}

int dmesh_agree(MPI_Comm comm, uint64_t hash, int local_err, const char *what)
{
    int64_t in[3], out[3];
    int rank = 0, rc;

    MPI_Comm_rank(comm, &rank);
    in[0] = (int64_t)(hash >> 1);
    in[1] = INT64_MAX - in[0];
    in[2] = local_err != DMESH_SUCCESS ? (int64_t)rank << 16 | (int64_t)local_err : NO_FAILURE;
    rc = MPI_Allreduce(in, out, 3, MPI_INT64_T, MPI_MIN, comm);
    if (rc != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "agreement (MPI_Allreduce)");
    if (out[2] != NO_FAILURE)
        return share_failure(comm, rank, out[2]);
    if (out[0] != INT64_MAX - out[1])
        return dmesh_error_set(DMESH_ERR_MISMATCH,
                               "%s: ranks passed different arguments (compared: universe, shape, "
                               "names, layout, rank map, device type, backends and options)",
                               what);
    return DMESH_SUCCESS;
}
