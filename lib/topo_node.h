/* SPDX-License-Identifier: BSD-3-Clause */
/* The node side of device binding, between topo.c (CUDA) and hwloc: what a
 * rank tells the other ranks of its node, and the choice made from that.
 * Built from topo_node.c with hwloc, from topo_node_none.c (local rank
 * modulo device count) without. No hwloc types here. */
#ifndef DMESH_TOPO_NODE_H
#define DMESH_TOPO_NODE_H

#include <limits.h>
#include <stddef.h>

/* Room for a PCI bus id "dddddddd:bb:dd.f" and its NUL. */
#define DMESH_TOPO_BUSID_LEN 32

/* CPU bindings travel as bitmap words; a binding beyond this many PUs is
 * sent as "not bound". */
#define DMESH_TOPO_CPU_BITS 2048
#define DMESH_TOPO_CPU_WORDS (DMESH_TOPO_CPU_BITS / (CHAR_BIT * sizeof(unsigned long)))

enum {
    DMESH_TOPO_REC_PLANNING = 1, /* the rank takes part in the node's plan */
    DMESH_TOPO_REC_BOUND = 2     /* cpus holds its CPU binding */
};

/* One rank's part of the node's exchange: a single MPI_Allgather of
 * DMESH_TOPO_RECORD_WORDS MPI_UNSIGNED_LONGs on the node communicator. */
typedef struct {
    unsigned long flags;   /* DMESH_TOPO_REC_* */
    unsigned long devices; /* hash of the visible devices' bus ids, in CUDA order */
    unsigned long cpus[DMESH_TOPO_CPU_WORDS];
} dmesh_topo_record_t;

#define DMESH_TOPO_RECORD_WORDS ((int)(sizeof(dmesh_topo_record_t) / sizeof(unsigned long)))

typedef struct dmesh_topo_node dmesh_topo_node_t;

/* Load this machine's topology and find the locality of each of the ndev
 * devices (PCI bus ids in CUDA order). Without hwloc *node is NULL. */
int dmesh_topo_node_open(int ndev, const char (*busid)[DMESH_TOPO_BUSID_LEN],
                         dmesh_topo_node_t **node);

/* Record this process's CPU binding in rec (DMESH_TOPO_REC_BOUND and cpus);
 * leaves rec alone when the process is not bound or hwloc is missing. */
void dmesh_topo_node_binding(dmesh_topo_node_t *node, dmesh_topo_record_t *rec);

/* Device (CUDA ordinal < ndev) of recs[me], one of the n ranks of the node
 * that plan over the same devices (in local rank order), and why. */
int dmesh_topo_node_choose(dmesh_topo_node_t *node, int ndev, int n,
                           const dmesh_topo_record_t recs[], int me, int *device, char *reason,
                           size_t len);

/* Free what dmesh_topo_node_open made; NULL is accepted. */
void dmesh_topo_node_close(dmesh_topo_node_t *node);

#endif /* DMESH_TOPO_NODE_H */
