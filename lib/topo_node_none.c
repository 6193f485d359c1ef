/* SPDX-License-Identifier: BSD-3-Clause */
/* The node side of device binding without hwloc: no locality is known, so a
 * rank takes its position among the node's planning ranks modulo the number
 * of devices (doc/gpu.md). */
#include "config.h"

#include "api_impl.h"

#include <stdio.h>

#include "error.h"
#include "topo_node.h"

int dmesh_topo_node_open(int ndev, const char (*busid)[DMESH_TOPO_BUSID_LEN],
                         dmesh_topo_node_t **node)
{
    (void)ndev;
    (void)busid;
    *node = NULL;
    return DMESH_SUCCESS;
}

void dmesh_topo_node_binding(dmesh_topo_node_t *node, dmesh_topo_record_t *rec)
{
    (void)node;
    (void)rec;
}

int dmesh_topo_node_choose(dmesh_topo_node_t *node, int ndev, int n,
                           const dmesh_topo_record_t recs[], int me, int *device, char *reason,
                           size_t len)
{
    (void)node;
    (void)n;
    (void)recs;
    *device = me % ndev;
    snprintf(reason, len, "local rank %d mod %d devices (dmesh was built without hwloc)", me, ndev);
    return DMESH_SUCCESS;
}

void dmesh_topo_node_close(dmesh_topo_node_t *node)
{
    (void)node;
}
