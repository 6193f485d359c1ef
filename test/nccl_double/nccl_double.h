/* SPDX-License-Identifier: BSD-3-Clause */
/* A test double of the NCCL calls dmesh makes, for testing the pairing of
 * MPI and NCCL communicators without a GPU, as strict as the real library
 * (see nccl_double.c): initialisation meets all members (MPI point-to-point
 * on MPI_COMM_WORLD), reads the calling thread's device from the CUDA test
 * double (test/gpu/cuda_double.c, linked with it) and refuses two members on
 * one GPU and the config values NCCL refuses; ncclAllReduce reduces host
 * buffers through MPI. Linked only into tests, never shipped. It keeps every
 * communicator (also destroyed ones) so that a test can inspect how dmesh
 * created and tore it down. Not thread-safe: one thread at a time. */
#ifndef NCCL_DOUBLE_H
#define NCCL_DOUBLE_H

#include <mpi.h>
#include <nccl.h>

/* What ncclCommInitRankConfig received, and what became of the comm. */
typedef struct {
    int nranks, rank;
    int id_origin;           /* MPI_COMM_WORLD rank whose ncclGetUniqueId made the id */
    unsigned long id_serial; /* that rank's count of ids when it made it (from 1) */
    ncclConfig_t config;     /* as received; netName, commName point into net_name, comm_name */
    char net_name[64];
    char comm_name[128];
    int device;         /* the caller's current CUDA device at ncclCommInitRankConfig */
    int destroy_device; /* ... at ncclCommDestroy or ncclCommAbort */
    int allreduces;     /* ncclAllReduce calls accepted */
    int finalized, destroyed, aborted;
    int abort_group_depth;  /* ncclGroupStart depth when it was aborted */
    int grouped;            /* made inside ncclGroupStart/End (met the others at ncclGroupEnd) */
    int nids;               /* ncclCommInitRankScalable: how many ids; 0 otherwise */
    int split, split_color; /* made by ncclCommSplit, with that colour */
    int revoked;            /* ncclCommRevoke was called on it */
    int shrunk;             /* made by ncclCommShrink ... */
    int shrink_flags;       /* ... with these flags ... */
    int shrink_excluded;    /* ... leaving out so many ranks of the parent */
} nccl_double_comm_info_t;

/* Make the next call of function fn ("ncclGetUniqueId",
 * "ncclCommInitRankConfig", "ncclCommInitRankScalable", "ncclCommSplit",
 * "ncclCommShrink", "ncclCommRevoke", "ncclCommFinalize", "ncclCommDestroy",
 * "ncclCommAbort", "ncclGroupStart", "ncclGroupEnd") on this process fail
 * with r, once. fn NULL clears it. ncclCommInitRankConfig still meets the
 * other members, then leaves its communicator in the error state r (as a
 * failure after NCCL's bootstrap does). */
void nccl_double_fail_next(const char *fn, ncclResult_t r);

/* Non-blocking emulation: communicators with config.blocking == 0 answer
 * ncclCommInitRankConfig with ncclInProgress, and ncclCommGetAsyncError
 * reports ncclInProgress until the members met and then polls more times;
 * ncclAllReduce and ncclCommFinalize likewise (an allreduce's data is there
 * only once ncclCommGetAsyncError reported success). */
void nccl_double_set_polls(int polls);

/* Copy what the double knows of comm; -1 when comm is not one of its own. */
int nccl_double_comm_info(ncclComm_t comm, nccl_double_comm_info_t *info);

/* Work still pending on comm (0 once ready and idle). */
int nccl_double_pending_polls(ncclComm_t comm);

/* Collective over mpi (the MPI communicator comm was paired with): count
 * the inconsistencies over all its ranks: nranks or rank differing from
 * mpi's size and rank, ids differing between members, an id not made by
 * mpi's rank 0. 0 when the pairing is right. */
int nccl_double_check_pairing(ncclComm_t comm, MPI_Comm mpi);

/* Creation as NCCL does it (2.28):
 *  - inside ncclGroupStart/End, ncclCommInitRankConfig and
 *    ncclCommInitRankScalable only start; the members meet in ncclGroupEnd,
 *    all the group's communicators together (a non-blocking one goes on in
 *    ncclCommGetAsyncError, and ncclGroupEnd answers ncclInProgress);
 *  - ncclCommInitRankScalable meets at the maker of commIds[0]; every member
 *    must pass the same nId ids, else all fail with ncclInvalidUsage;
 *  - ncclCommSplit is collective over every member of the parent (MPI over
 *    the parent's members), groups by colour, orders by (key, parent rank),
 *    gives NULL for NCCL_SPLIT_NOCOLOR, keeps the parent's device, takes the
 *    parent's config when config is NULL; it refuses a parent that is not
 *    ready, and blocks even inside a group. */

/* Revocation and shrinking as NCCL 2.28 has them:
 *  - ncclCommRevoke (flags must be 0) marks the communicator revoked: it
 *    reports ncclInProgress (polls, as a non-blocking one) then success;
 *    collectives and ncclCommFinalize on it fail with ncclInvalidUsage;
 *    ncclCommDestroy, ncclCommAbort, ncclCommSplit and ncclCommShrink
 *    remain (once quiescent);
 *  - ncclCommShrink is collective over the parent's members that are not
 *    in excludeRanksList (MPI over them alone: the excluded ones may be
 *    dead); a caller in the list, a rank out of range, flags other than
 *    NCCL_SHRINK_DEFAULT / _ABORT, or a parent still in progress with
 *    NCCL_SHRINK_DEFAULT are refused; the child keeps the parent's order
 *    and device, and takes the parent's config when config is NULL. */

/* Whether the NCCL headers this test is compiled against declare both
 * (as dmesh does, by the flags macro each header declares with its
 * function: NCCL 2.28.3 has ncclCommShrink but no ncclCommRevoke). Without
 * both, dmesh aborts where it would revoke and bootstraps where it would
 * shrink, whatever the double could do. */
#if defined(NCCL_SHRINK_DEFAULT) && defined(NCCL_REVOKE_DEFAULT)
#define NCCL_DOUBLE_REVOKE_SHRINK 1
#else
#define NCCL_DOUBLE_REVOKE_SHRINK 0
#endif

/* How many times this process called fn (one of the NCCL functions the
 * double defines; 0 for any other name). */
unsigned long nccl_double_calls(const char *fn);

/* Ids made by this process; communicators created and neither destroyed nor
 * aborted; current ncclGroupStart depth. */
unsigned long nccl_double_unique_ids(void);
int nccl_double_live_comms(void);
int nccl_double_group_depth(void);

#endif /* NCCL_DOUBLE_H */
