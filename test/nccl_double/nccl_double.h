/* A test double of the NCCL calls dmesh makes, for testing the pairing of
 * MPI and NCCL communicators without a GPU. Linked only into tests, never
 * shipped. It keeps every communicator (also destroyed ones) so that a test
 * can inspect how dmesh created and tore it down. Not thread-safe. */
#ifndef NCCL_DOUBLE_H
#define NCCL_DOUBLE_H

#include <mpi.h>
#include <nccl.h>

/* What ncclCommInitRankConfig received, and what became of the comm. */
typedef struct {
    int nranks, rank;
    int id_origin;           /* MPI_COMM_WORLD rank whose ncclGetUniqueId made the id */
    unsigned long id_serial; /* that rank's count of ids when it made it (from 1) */
    ncclConfig_t config;     /* as received; netName points into net_name */
    char net_name[64];
    int finalized, destroyed, aborted;
    int abort_group_depth; /* ncclGroupStart depth when it was aborted */
} nccl_double_comm_info_t;

/* Make the next call of function fn ("ncclGetUniqueId",
 * "ncclCommInitRankConfig", "ncclCommFinalize", "ncclCommDestroy",
 * "ncclCommAbort", "ncclGroupStart", "ncclGroupEnd") on this process fail
 * with r, once. fn NULL clears it. */
void nccl_double_fail_next(const char *fn, ncclResult_t r);

/* Non-blocking emulation: communicators with config.blocking == 0 answer
 * ncclCommInitRankConfig and ncclCommFinalize with ncclInProgress, and
 * ncclCommGetAsyncError reports ncclInProgress polls times before success. */
void nccl_double_set_polls(int polls);

/* Copy what the double knows of comm; -1 when comm is not one of its own. */
int nccl_double_comm_info(ncclComm_t comm, nccl_double_comm_info_t *info);

/* Polls still pending on comm (0 once ready). */
int nccl_double_pending_polls(ncclComm_t comm);

/* Collective over mpi (the MPI communicator comm was paired with): count
 * the inconsistencies over all its ranks: nranks or rank differing from
 * mpi's size and rank, ids differing between members, an id not made by
 * mpi's rank 0. 0 when the pairing is right. */
int nccl_double_check_pairing(ncclComm_t comm, MPI_Comm mpi);

/* Ids made by this process; communicators created and neither destroyed nor
 * aborted; current ncclGroupStart depth. */
unsigned long nccl_double_unique_ids(void);
int nccl_double_live_comms(void);
int nccl_double_group_depth(void);

#endif /* NCCL_DOUBLE_H */
