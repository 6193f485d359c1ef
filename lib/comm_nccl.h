/* SPDX-License-Identifier: BSD-3-Clause */
/* NCCL communicators paired with MPI communicators. Built from comm_nccl.c
 * with NCCL, from comm_nccl_none.c (every call DMESH_ERR_BACKEND) without. */
#ifndef DMESH_COMM_NCCL_H
#define DMESH_COMM_NCCL_H

#include <mpi.h>

#include "options.h"

/* Whether the library was built with NCCL. */
int dmesh_nccl_available(void);

/* Collective over comm (an MPI communicator of one axis, MPI_ERRORS_RETURN):
 * the members exchange (host, PCI bus id of device) and fail with
 * DMESH_ERR_NO_DEVICE when two share a GPU; rank 0 of comm calls
 * ncclGetUniqueId, MPI_Bcast of the id on comm, every member calls
 * ncclCommInitRankConfig with its rank in comm and the config from opts,
 * with device (the universe's CUDA device) current on the calling thread
 * for the call and the caller's device restored after it;
 * ncclCommCuDevice must then be device. *nccl_comm receives the ncclComm_t
 * as void *. Every member returns the same class: DMESH_ERR_NCCL / _MPI /
 * _CUDA / _NO_DEVICE with a detail. */
int dmesh_nccl_comm_create(MPI_Comm comm, const dmesh_nccl_options_t *opts, int device,
                           void **nccl_comm);

/* Finalize and destroy one communicator, with device current around the
 * calls (the caller's restored); NULL is accepted. */
int dmesh_nccl_comm_destroy(void *nccl_comm, int device);

/* Abort every communicator of the array inside one ncclGroupStart/End,
 * with device current around the calls. */
int dmesh_nccl_comm_abort_all(int n, void *const nccl_comms[], int device);

#endif /* DMESH_COMM_NCCL_H */
