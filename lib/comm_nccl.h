/* NCCL communicators paired with MPI communicators. Built from comm_nccl.c
 * with NCCL, from comm_nccl_none.c (every call DMESH_ERR_BACKEND) without. */
#ifndef DMESH_COMM_NCCL_H
#define DMESH_COMM_NCCL_H

#include <mpi.h>

#include "options.h"

/* Whether the library was built with NCCL. */
int dmesh_nccl_available(void);

/* Collective over comm (an MPI communicator of one axis, MPI_ERRORS_RETURN):
 * rank 0 of comm calls ncclGetUniqueId, MPI_Bcast of the id on comm, every
 * member calls ncclCommInitRankConfig with its rank in comm and the config
 * from opts. *nccl_comm receives the ncclComm_t as void *. The CUDA device
 * must be set by the caller. Returns DMESH_ERR_NCCL / _MPI with a detail. */
int dmesh_nccl_comm_create(MPI_Comm comm, const dmesh_nccl_options_t *opts, void **nccl_comm);

/* Destroy (ncclCommDestroy) one communicator; NULL is accepted. */
int dmesh_nccl_comm_destroy(void *nccl_comm);

/* Abort every communicator of the array inside one ncclGroupStart/End. */
int dmesh_nccl_comm_abort_all(int n, void *const nccl_comms[]);

#endif /* DMESH_COMM_NCCL_H */
