/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): owns the pure part of dmesh_respawn
 * (respawn_plan.h): which host each of its new processes goes to. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fault.h"
#include "ft/respawn_plan.h"

int dmesh_respawn_hosts_plan(int nnewcomers, int newcomer_rank[], const int node_low[], int nhosts,
                             int count[])
{
    int *group = DMESH_FAULT_MALLOC((size_t)(nnewcomers > 0 ? nnewcomers : 1) * sizeof(int));
    int *order = DMESH_FAULT_MALLOC((size_t)(nnewcomers > 0 ? nnewcomers : 1) * sizeof(int));
    int i, j, h, k = 0, ngroups = 0;

    if (group == NULL || order == NULL) {
        free(group);
        free(order);
        return dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_respawn: out of memory");
    }
    /* the groups: one per node, in order of their lowest failed rank */
    for (i = 0; i < nnewcomers; i++) {
        group[i] = ngroups;
        for (j = 0; j < i; j++)
            if (node_low == NULL || node_low[newcomer_rank[j]] == node_low[newcomer_rank[i]]) {
                group[i] = group[j];
                break;
            }
        if (group[i] == ngroups)
            ngroups++;
    }
    for (h = 0; h < nhosts; h++) {
        count[h] = 0;
        for (i = 0; i < nnewcomers; i++)
            if (group[i] % nhosts == h) {
                order[k++] = newcomer_rank[i];
                count[h]++;
            }
    }
    memcpy(newcomer_rank, order, (size_t)nnewcomers * sizeof(int));
    free(group);
    free(order);
    return DMESH_SUCCESS;
}
