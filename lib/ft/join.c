/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): owns dmesh_join, the new processes' side of
 * dmesh_respawn and dmesh_grow. A new process waits for its parents'
 * message (join_message.h), and once it has taken one of dmesh's off, it
 * merges with the parents whatever else fails, carrying its class into
 * the merge's agreement (join_merge.h), so that no parent waits in a merge
 * it left; then it makes the mesh of the message, as the parents do
 * (spawn.c's opening comment tells the whole exchange). */
#include "config.h"

#include "api_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "fault.h"
#include "finalize_bound.h"
#include "ft/join_merge.h"
#include "ft/join_message.h"
#include "options.h"

/* Whether a message of len bytes begins with dmesh's magic number: from
 * there the parents wait in the merge, so this process goes there too,
 * whatever else is wrong. */
static int is_dmesh_message(const char *buf, int len)
{
    uint32_t magic = 0;

    if (len < (int)sizeof(magic))
        return 0;
    memcpy(&magic, buf, sizeof(magic));
    return magic == DMESH_JOIN_MAGIC;
}

/* The new processes' wait for the parents' message: until it comes, the
 * bound passes (DMESH_ERR_TIMEOUT: the parents are late, or not dmesh's),
 * or another message comes first (DMESH_ERR_ARG: not dmesh's parent).
 * *taken: a message of dmesh's was taken off, from which point the parents
 * wait for this process in the merge, so it goes there whatever else fails
 * here: no memory for the message (it is received all the same, cut to
 * its header, so that the parents' send completes), a receive that
 * failed. *buf malloc'd when the class is DMESH_SUCCESS. */
static int receive_plan(MPI_Comm parent, double wait, char **buf, int *len, int *taken)
{
    MPI_Status st;
    struct timespec t0, t, pause = {0, 1000000}; /* 1 ms between probes */
    char head[DMESH_JOIN_HEADER_BYTES];
    int flag = 0, rc, n = 0;
    char *b;

    *taken = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        if ((rc = MPI_Iprobe(0, MPI_ANY_TAG, parent, &flag, &st)) != MPI_SUCCESS)
            return dmesh_error_mpi(rc, "dmesh_join: MPI_Iprobe on the parent communicator");
        if (flag)
            break;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) > wait)
            return dmesh_error_set(DMESH_ERR_TIMEOUT,
                                   "dmesh_join: no message from the parents in %.0f s "
                                   "(dmesh_timeout): they were not dmesh_respawn or "
                                   "dmesh_grow, or are late",
                                   wait);
        nanosleep(&pause, NULL);
    }
    if (st.MPI_TAG != DMESH_JOIN_TAG || MPI_Get_count(&st, MPI_BYTE, &n) != MPI_SUCCESS ||
        n < DMESH_JOIN_HEADER_BYTES)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "dmesh_join: the parent sent a message that is not dmesh's "
                               "(tag %d, %d bytes): this process was not started by "
                               "dmesh_respawn or dmesh_grow",
                               st.MPI_TAG, n);
    if ((b = DMESH_FAULT_MALLOC((size_t)n + 1)) == NULL) {
        memset(head, 0, sizeof(head)); /* MPI_ERR_TRUNCATE past the header */
        MPI_Recv(head, (int)sizeof(head), MPI_BYTE, 0, DMESH_JOIN_TAG, parent, MPI_STATUS_IGNORE);
        *taken = is_dmesh_message(head, (int)sizeof(head));
        return dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_join: out of memory (%d bytes)", n + 1);
    }
    if ((rc = MPI_Recv(b, n, MPI_BYTE, 0, DMESH_JOIN_TAG, parent, MPI_STATUS_IGNORE)) !=
        MPI_SUCCESS) {
        free(b);
        *taken = 1; /* dmesh's tag and size: the parents may be in the merge */
        return dmesh_error_mpi(rc, "dmesh_join: receiving the parents' message");
    }
    if (!is_dmesh_message(b, n)) {
        free(b);
        return dmesh_error_set(DMESH_ERR_ARG, "dmesh_join: the parent's message is not dmesh's: "
                                              "this process was not started by dmesh_respawn "
                                              "or dmesh_grow");
    }
    *taken = 1;
    *buf = b;
    *len = n;
    return DMESH_SUCCESS;
}

/* The plan in a message whose magic number is dmesh's, with this process's
 * key (its rank in the new communicator); the parents' status (*cancelled:
 * their spawn failed, they do not merge), or what is wrong with the
 * message or with the call's outputs. */
static int read_plan(const char *buf, int len, int outputs_ok, dmesh_join_message_t *p, int *key,
                     int *cancelled)
{
    int wrank = 0, err;

    *key = 0;
    *cancelled = 0;
    if ((err = dmesh_join_unpack(buf, len, p)) != DMESH_SUCCESS)
        return err;
    *cancelled = p->status != DMESH_SUCCESS;
    if (p->status != DMESH_SUCCESS)
        return dmesh_error_set(p->status, "dmesh_join: the parents' call failed (%s)",
                               dmesh_error_string_impl(p->status));
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (wrank >= p->nnewcomers)
        return dmesh_error_set(DMESH_ERR_INTERNAL,
                               "dmesh_join: %d new processes planned, this is number %d",
                               p->nnewcomers, wrank);
    *key = p->newcomer_rank[wrank];
    if (!outputs_ok)
        return dmesh_error_set(DMESH_ERR_ARG, "dmesh_join: argument 'newcomm' or 'newmesh' is "
                                              "NULL");
    return DMESH_SUCCESS;
}

int dmesh_join_impl(MPI_Info info, int *reason, MPI_Comm *newcomm, dmesh_t *newmesh)
{
    dmesh_join_message_t p;
    MPI_Comm parent = MPI_COMM_NULL, made = MPI_COMM_NULL;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    char *buf = NULL;
    double wait = 0;
    int len = 0, rc, err, key = 0, cancelled = 0, taken = 0, bad_wait;

    if ((rc = MPI_Comm_get_parent(&parent)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "dmesh_join: MPI_Comm_get_parent");
    if (parent == MPI_COMM_NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "dmesh_join: this process has no parent "
                                              "(MPI_Comm_get_parent is MPI_COMM_NULL): it "
                                              "was not started by dmesh_respawn or dmesh_grow");
    MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
    memset(&p, 0, sizeof(p));
    /* a bad dmesh_timeout waits the default and goes into the merge as
     * this process's class: returning here would leave the parents there */
    bad_wait = dmesh_options_timeout(info, &wait);
    err = receive_plan(parent, wait > 0 ? wait : DMESH_JOIN_WAIT_DEFAULT, &buf, &len, &taken);
    if (!taken)
        return err;
    /* from here the parents are in the merge: this process merges too,
     * carrying whatever it met (a receive that failed, a cancel, a bad
     * message, a NULL output) */
    if (err == DMESH_SUCCESS)
        err = read_plan(buf, len, newcomm != NULL && newmesh != NULL, &p, &key, &cancelled);
    free(buf);
    if (err == DMESH_SUCCESS && bad_wait != DMESH_SUCCESS)
        err = dmesh_options_timeout(info, &wait); /* its detail again */
    if (!cancelled) /* a message this library cannot read (another version) included */
        err = dmesh_join_merge(parent, 1, key, err, "dmesh_join",
                               wait > 0 ? wait : DMESH_JOIN_WAIT_DEFAULT, &made);
    dmesh_join_leave(&parent);
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    if (err == DMESH_SUCCESS)
        err = dmesh_join_make_mesh("dmesh_join", &p, &made, eh, newcomm, newmesh);
    if (eh != MPI_ERRHANDLER_NULL)
        MPI_Errhandler_free(&eh);
    if (err == DMESH_SUCCESS && reason != NULL)
        *reason = p.reason;
    if (err == DMESH_SUCCESS && p.reason == DMESH_JOIN_RESPAWN)
        dmesh_finalize_bound_arm();
    dmesh_join_message_free(&p);
    return err;
}
