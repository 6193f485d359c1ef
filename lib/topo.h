/* SPDX-License-Identifier: BSD-3-Clause */
/* Device binding (doc/architecture.md). */
#ifndef DMESH_TOPO_H
#define DMESH_TOPO_H

#include <mpi.h>

#include "node_find.h"
#include "options.h"

/* Collective over comm (the universe's private communicator): choose and set
 * (cudaSetDevice) this rank's CUDA device from opts (forced ordinal,
 * bind=none) or from the node's topology; the node by opts->node with the
 * cache nodes (node_find.h: comm's own, or NULL). The first call in which the
 * process is a member (member != 0) chooses its device for good: later
 * calls keep it (a later forced ordinal that differs is an error, a later
 * plan that differs is reported under DMESH_DEBUG). A rank outside the mesh
 * takes no part in the plan, makes no CUDA call and gets the process's
 * device, or -1. Every rank returns the same error class when any rank has
 * no usable device (DMESH_ERR_NO_DEVICE), so that no rank goes on alone.
 * Without CUDA: DMESH_ERR_NO_DEVICE. */
int dmesh_topo_bind(MPI_Comm comm, const dmesh_options_t *opts, dmesh_node_cache_t *nodes,
                    int member, int *device);

/* Forget the process's device and topology, so that the next
 * dmesh_topo_bind chooses again (for tests of binding only). */
void dmesh_topo_forget(void);

#endif /* DMESH_TOPO_H */
