/* SPDX-License-Identifier: BSD-3-Clause */
/* The device binding plan of one node (doc/architecture.md, doc/gpu.md): a pure
 * function of the devices' CPU localities and the node's ranks' CPU
 * bindings, so that it is unit-tested on hwloc XML topologies without a GPU
 * and shown by dmesh-info --plan. Built with hwloc. */
#ifndef DMESH_TOPO_PLAN_H
#define DMESH_TOPO_PLAN_H

#include <hwloc.h>

/* Most devices the plan weighs by locality; beyond, local rank modulo. */
#define DMESH_TOPO_MAX_DEVICES 64
#define DMESH_TOPO_REASON_LEN 256

/* How the plan chose a rank's device. */
enum dmesh_topo_why {
    DMESH_TOPO_WHY_MODULO = 0,   /* no locality information: local rank mod devices */
    DMESH_TOPO_WHY_LOCAL = 1,    /* local to the rank's CPU binding */
    DMESH_TOPO_WHY_TAKEN = 2,    /* its local devices are used by other ranks */
    DMESH_TOPO_WHY_NO_LOCAL = 3, /* no device is local to its binding */
    DMESH_TOPO_WHY_UNBOUND = 4   /* not bound, while other ranks of the node are */
};

/* The plan's answer for one rank. */
typedef struct {
    int device; /* index into the device list: the CUDA ordinal */
    int why;    /* enum dmesh_topo_why */
    int shared; /* ranks of the node given this device (>= 1) */
    char reason[DMESH_TOPO_REASON_LEN];
} dmesh_topo_choice_t;

/* Choose a device for each of the nranks ranks of a node (given in local
 * rank order) among ndevices devices (in CUDA order).
 * locality[d]: CPU set near device d (cpuset of the first non-I/O ancestor
 * of its PCI device), NULL when unknown. binding[r]: CPU binding of rank r,
 * NULL when the rank is not bound.
 * The result is balanced (device loads differ by at most one, so no two
 * ranks share a device while there are enough), then has as many ranks as
 * possible on a device local to their binding, then spreads each group of
 * like-bound ranks over its devices, in CPU order. Without any binding or
 * locality: local rank modulo ndevices.
 * Returns DMESH_SUCCESS, DMESH_ERR_NO_DEVICE (ndevices < 1), DMESH_ERR_ARG
 * or DMESH_ERR_NOMEM; choice[] (nranks entries) is written on success. */
int dmesh_topo_plan(int ndevices, const hwloc_const_cpuset_t locality[], int nranks,
                    const hwloc_const_cpuset_t binding[], dmesh_topo_choice_t choice[]);

#endif /* DMESH_TOPO_PLAN_H */
