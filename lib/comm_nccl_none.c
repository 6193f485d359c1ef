/* SPDX-License-Identifier: BSD-3-Clause */
/* NCCL pairing when dmesh is built without NCCL: the backend is unavailable. */
#include "config.h"

#include "api_impl.h"

#include "comm_nccl.h"
#include "error.h"

int dmesh_nccl_available(void)
{
    return 0;
}

int dmesh_nccl_comm_create(MPI_Comm comm, const dmesh_nccl_options_t *opts, int device,
                           void **nccl_comm)
{
    (void)comm;
    (void)opts;
    (void)device;
    (void)nccl_comm;
    return dmesh_error_set(DMESH_ERR_BACKEND, "backend \"nccl\": dmesh was built without NCCL");
}

int dmesh_nccl_comm_destroy(void *nccl_comm, int device)
{
    (void)device;
    return nccl_comm == NULL ? DMESH_SUCCESS : DMESH_ERR_INTERNAL;
}

int dmesh_nccl_comm_abort_all(int n, void *const nccl_comms[], int device)
{
    (void)device;
    (void)nccl_comms;
    return n == 0 ? DMESH_SUCCESS : DMESH_ERR_INTERNAL;
}

int dmesh_nccl_comms_create(MPI_Comm all, int how, void *parent, int roots, int device, int n,
                            dmesh_nccl_request_t req[], dmesh_nccl_stats_t *stats)
{
    (void)all;
    (void)how;
    (void)parent;
    (void)roots;
    (void)device;
    (void)req;
    (void)stats;
    /* the same build on every rank: the same answer without communication */
    return n == 0 ? DMESH_SUCCESS
                  : dmesh_error_set(DMESH_ERR_BACKEND,
                                    "backend \"nccl\": dmesh was built without NCCL");
}

int dmesh_nccl_comm_revoke_all(int n, void *const nccl_comms[], int device, int *kept)
{
    *kept = 0;
    return dmesh_nccl_comm_abort_all(n, nccl_comms, device);
}

int dmesh_nccl_can_shrink(void)
{
    return 0;
}

int dmesh_nccl_comm_shrink(void *parent, int nexclude, const int exclude[], int failed,
                           const dmesh_nccl_options_t *opts, int device, void **nccl_comm,
                           dmesh_nccl_stats_t *stats)
{
    (void)parent;
    (void)nexclude;
    (void)exclude;
    (void)failed;
    (void)opts;
    (void)device;
    (void)nccl_comm;
    (void)stats;
    return dmesh_error_set(DMESH_ERR_BACKEND, "backend \"nccl\": dmesh was built without NCCL");
}
