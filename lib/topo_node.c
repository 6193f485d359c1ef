/* SPDX-License-Identifier: BSD-3-Clause */
/* The node side of device binding with hwloc: localities of this machine's
 * devices, this process's binding, and the plan over the node's ranks. */
#include "config.h"

#include "api_impl.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "topo_hwloc.h"
#include "topo_node.h"
#include "topo_plan.h"

struct dmesh_topo_node {
    hwloc_topology_t topo;
    int loaded;
    int ndev;
    hwloc_bitmap_t *locality; /* ndev cpusets, NULL where hwloc has no such device */
};

int dmesh_topo_node_open(int ndev, const char (*busid)[DMESH_TOPO_BUSID_LEN],
                         dmesh_topo_node_t **node)
{
    dmesh_topo_node_t *n = calloc(1, sizeof(*n));
    int err = DMESH_SUCCESS;

    if (n == NULL || (n->locality = calloc(ndev, sizeof(*n->locality))) == NULL) {
        free(n);
        return dmesh_error_set(DMESH_ERR_NOMEM, "device binding: out of memory");
    }
    n->ndev = ndev;
    err = dmesh_topo_load(NULL, &n->topo);
    n->loaded = err == DMESH_SUCCESS;
    for (int d = 0; d < ndev && err == DMESH_SUCCESS; d++)
        err = dmesh_topo_locality(n->topo, busid[d], &n->locality[d]);
    if (err != DMESH_SUCCESS) {
        dmesh_topo_node_close(n);
        return err;
    }
    *node = n;
    return DMESH_SUCCESS;
}

void dmesh_topo_node_binding(dmesh_topo_node_t *node, dmesh_topo_record_t *rec)
{
    hwloc_bitmap_t b = NULL;

    /* A binding that cannot be read or sent counts as none: the plan then
     * treats the rank as unbound rather than failing the mesh. */
    if (node == NULL || dmesh_topo_this_binding(node->topo, &b) != DMESH_SUCCESS || b == NULL)
        return;
    if (dmesh_topo_pack(b, rec->cpus))
        rec->flags |= DMESH_TOPO_REC_BOUND;
    hwloc_bitmap_free(b);
}

static int unpack_bindings(int n, const dmesh_topo_record_t recs[], hwloc_bitmap_t bind[])
{
    for (int i = 0; i < n; i++) {
        if (!(recs[i].flags & DMESH_TOPO_REC_BOUND))
            continue;
        bind[i] = dmesh_topo_unpack(recs[i].cpus);
        if (bind[i] == NULL)
            return dmesh_error_set(DMESH_ERR_NOMEM, "device binding: out of memory");
    }
    return DMESH_SUCCESS;
}

int dmesh_topo_node_choose(dmesh_topo_node_t *node, int ndev, int n,
                           const dmesh_topo_record_t recs[], int me, int *device, char *reason,
                           size_t len)
{
    hwloc_bitmap_t *bind = calloc(n, sizeof(*bind));
    dmesh_topo_choice_t *choice = calloc(n, sizeof(*choice));
    int err;

    assert(node != NULL && node->ndev == ndev && me >= 0 && me < n);
    err = bind && choice ? unpack_bindings(n, recs, bind)
                         : dmesh_error_set(DMESH_ERR_NOMEM, "device binding: out of memory");
    if (err == DMESH_SUCCESS)
        err = dmesh_topo_plan(ndev, (const hwloc_const_cpuset_t *)node->locality, n,
                              (const hwloc_const_cpuset_t *)bind, choice);
    if (err == DMESH_SUCCESS) {
        *device = choice[me].device;
        snprintf(reason, len, "%s", choice[me].reason);
    }
    for (int i = 0; bind != NULL && i < n; i++)
        hwloc_bitmap_free(bind[i]);
    free(choice);
    free(bind);
    return err;
}

void dmesh_topo_node_close(dmesh_topo_node_t *node)
{
    if (node == NULL)
        return;
    for (int d = 0; d < node->ndev; d++)
        hwloc_bitmap_free(node->locality[d]);
    free(node->locality);
    if (node->loaded)
        hwloc_topology_destroy(node->topo);
    free(node);
}
