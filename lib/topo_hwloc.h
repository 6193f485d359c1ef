/* SPDX-License-Identifier: BSD-3-Clause */
/* hwloc helpers of device binding: topologies (this machine or XML), device
 * locality by PCI bus id, CPU bindings, real or simulated. Built with hwloc;
 * used by topo_node.c, dmesh-info --plan and the plan tests. */
#ifndef DMESH_TOPO_HWLOC_H
#define DMESH_TOPO_HWLOC_H

#include <hwloc.h>

#include "topo_node.h"

/* Load this machine's topology (xml NULL) or the topology of an XML file
 * (lstopo --of xml), with its PCI devices. Returns DMESH_ERR_HWLOC on failure. */
int dmesh_topo_load(const char *xml, hwloc_topology_t *topo);

/* Locality of the PCI device with bus id busid ("dddd:bb:dd.f", hex, as
 * cudaDeviceGetPCIBusId writes it): a new cpuset, the cpuset of its first
 * non-I/O ancestor; NULL when the topology has no such device. Returns
 * DMESH_ERR_ARG for a malformed bus id, DMESH_ERR_NOMEM. */
int dmesh_topo_locality(hwloc_topology_t topo, const char *busid, hwloc_bitmap_t *locality);

/* The topology's CUDA-capable devices as CUDA numbers them on a node of
 * identical GPUs: NVIDIA (vendor 0x10de) display-class (0x03xx, e.g. 0x0302
 * 3D controller) PCI devices, in bus-id order. Writes at most max bus ids;
 * *n receives the count found. */
int dmesh_topo_gpus(hwloc_topology_t topo, int max, char (*busid)[DMESH_TOPO_BUSID_LEN], int *n);

/* This process's CPU binding as a new cpuset, or NULL when it is not bound
 * (its binding covers every allowed PU, or cannot be read). */
int dmesh_topo_this_binding(hwloc_topology_t topo, hwloc_bitmap_t *binding);

/* The binding a launcher would give local rank r of n: kind "core" or
 * "socket" spreads the n ranks in blocks over the cores or packages (rank r
 * on object r * count / n), "none" gives NULL, as does a binding that covers
 * the whole machine. Returns DMESH_ERR_ARG for another kind. */
int dmesh_topo_simulate_binding(hwloc_topology_t topo, const char *kind, int r, int n,
                                hwloc_bitmap_t *binding);

/* Bitmap <-> words of a dmesh_topo_record_t. pack returns 0 when the set
 * has PUs beyond DMESH_TOPO_CPU_BITS. */
int dmesh_topo_pack(hwloc_const_bitmap_t set, unsigned long words[DMESH_TOPO_CPU_WORDS]);
hwloc_bitmap_t dmesh_topo_unpack(const unsigned long words[DMESH_TOPO_CPU_WORDS]);

#endif /* DMESH_TOPO_HWLOC_H */
