/* SPDX-License-Identifier: BSD-3-Clause */
/* NCCL communicators paired with MPI communicators. Built from comm_nccl.c
 * with NCCL, from comm_nccl_none.c (every call DMESH_ERR_BACKEND) without. */
#ifndef DMESH_COMM_NCCL_H
#define DMESH_COMM_NCCL_H

#include <mpi.h>

/* How NCCL communicators are made (dmesh_nccl_create; doc/gpu.md). */
enum dmesh_nccl_create {
    DMESH_NCCL_CREATE_INIT = 0,
    DMESH_NCCL_CREATE_SPLIT = 1,
    DMESH_NCCL_CREATE_SCALABLE = 2
};

/* ncclConfig_t fields an axis may set; a field is used only when its bit is
 * in set_mask. Plain values, so that this header needs no NCCL. */
enum {
    DMESH_NCCL_OPT_BLOCKING = 1 << 0,
    DMESH_NCCL_OPT_CGA_CLUSTER_SIZE = 1 << 1,
    DMESH_NCCL_OPT_MIN_CTAS = 1 << 2,
    DMESH_NCCL_OPT_MAX_CTAS = 1 << 3,
    DMESH_NCCL_OPT_NET_NAME = 1 << 4,
    DMESH_NCCL_OPT_SPLIT_SHARE = 1 << 5
};

/* The nccl backend's options of one axis (backend_nccl.c keeps them in
 * the axis's backend bytes). */
typedef struct {
    unsigned set_mask;
    int blocking;
    int cga_cluster_size;
    int min_ctas;
    int max_ctas;
    int split_share;
    char net_name[64];
    /* ncclConfig_t.commName, "<mesh dim names>/<dim name>", so that NCCL's
     * logs name the mesh; not part of the cache key (the first mesh to
     * create a communicator names it). */
    char comm_name[128];
    double timeout; /* dmesh_timeout: bound of the wait for a non-blocking init, 0: none */
} dmesh_nccl_options_t;

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

/* One NCCL communicator to make with dmesh_nccl_comms_create. */
typedef struct {
    MPI_Comm comm;                    /* its group's MPI communicator; MPI_COMM_NULL: none here */
    const dmesh_nccl_options_t *opts; /* its ncclConfig_t */
    int color, key;                   /* split: comm's MPI_Comm_split colour and key */
    void *nccl;                       /* out: the ncclComm_t, NULL where comm is MPI_COMM_NULL */
} dmesh_nccl_request_t;

/* What creation cost this rank; dmesh_nccl_comms_create adds to it. */
typedef struct {
    long bootstraps; /* communicators bootstrapped from one broadcast unique id (init) */
    long splits;     /* ncclCommSplit calls that made a communicator */
    long scalable;   /* ncclCommInitRankScalable calls */
    long id_calls;   /* MPI calls that moved unique ids */
    long id_bytes;   /* bytes of unique ids this rank received */
    long shrinks;    /* ncclCommShrink calls that made a communicator (dmesh_shrink) */
} dmesh_nccl_stats_t;

/* Collective over all (every rank of it calls, also ranks with no
 * communicator to make): the n communicators of req, made together inside
 * one ncclGroupStart/End after every unique id was exchanged, then one
 * agreement over all. how (enum dmesh_nccl_create):
 *   init      per request, rank 0 of comm makes a unique id, MPI_Bcast over
 *             comm, ncclCommInitRankConfig;
 *   scalable  per request, roots ranks of comm (0: one per 128) make ids,
 *             one MPI_Allgatherv over comm, ncclCommInitRankScalable;
 *   split     ncclCommSplit of parent (this rank's communicator over the
 *             whole mesh, NULL on ranks outside it) with (color, key), or
 *             NCCL_SPLIT_NOCOLOR where comm is MPI_COMM_NULL.
 * init and scalable first check that no two members of comm share a GPU.
 * Every rank returns the same class; on failure nothing is left allocated.
 * stats may be NULL. */
int dmesh_nccl_comms_create(MPI_Comm all, int how, void *parent, int roots, int device, int n,
                            dmesh_nccl_request_t req[], dmesh_nccl_stats_t *stats);

/* Finalize and destroy one communicator, with device current around the
 * calls (the caller's restored); NULL is accepted. */
int dmesh_nccl_comm_destroy(void *nccl_comm, int device);

/* Abort every communicator of the array inside one ncclGroupStart/End,
 * with device current around the calls. */
int dmesh_nccl_comm_abort_all(int n, void *const nccl_comms[], int device);

/* Local (dmesh_revoke): stop the operations in flight on every
 * communicator of the array, so that a member blocked in one returns.
 * With ncclCommRevoke (NCCL 2.28) they are revoked and kept (*kept = 1),
 * to be shrunk or aborted later, never finalized; without it they are
 * aborted (dmesh_nccl_comm_abort_all) and gone (*kept = 0). */
int dmesh_nccl_comm_revoke_all(int n, void *const nccl_comms[], int device, int *kept);

/* Whether dmesh_nccl_comm_shrink can run here: NCCL loaded, with
 * ncclCommShrink (2.27) and ncclCommRevoke (2.28, without which
 * dmesh_nccl_comm_revoke_all aborts what would be shrunk). */
int dmesh_nccl_can_shrink(void);

/* Collective over the members of parent not in exclude[0..nexclude)
 * (ascending ranks of parent; the excluded do not call): the parent, once
 * quiescent, shrunk by ncclCommShrink (NCCL_SHRINK_ABORT when failed, some
 * excluded member failed; else NCCL_SHRINK_DEFAULT) with the config of
 * opts, on device; its ranks are the parent's without the excluded, in
 * order. *nccl_comm receives it; nothing is left on failure (DMESH_ERR_NCCL
 * / _CUDA / _TIMEOUT / _BACKEND when NCCL cannot shrink). Not agreed: the
 * caller agrees. stats may be NULL. */
int dmesh_nccl_comm_shrink(void *parent, int nexclude, const int exclude[], int failed,
                           const dmesh_nccl_options_t *opts, int device, void **nccl_comm,
                           dmesh_nccl_stats_t *stats);

#endif /* DMESH_COMM_NCCL_H */
