/* SPDX-License-Identifier: BSD-3-Clause */
/* Device binding without the CUDA runtime: no device can be bound. */
#include "config.h"

#include "api_impl.h"

#include "error.h"
#include "topo.h"

int dmesh_topo_bind(MPI_Comm comm, const dmesh_options_t *opts, dmesh_node_cache_t *nodes,
                    int member, int *device)
{
    (void)comm;
    (void)nodes;
    (void)opts;
    (void)member;
    (void)device;
    return dmesh_error_set(DMESH_ERR_NO_DEVICE,
                           "device type \"cuda\": dmesh was built without the CUDA runtime");
}

void dmesh_topo_forget(void) {}
