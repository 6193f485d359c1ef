/* Device binding (DESIGN.md section 6). */
#ifndef DMESH_TOPO_H
#define DMESH_TOPO_H

#include <mpi.h>

#include "options.h"

/* Collective over comm (the universe's private communicator): choose and set
 * (cudaSetDevice) this rank's CUDA device from opts (forced ordinal,
 * bind=none) or from the node's topology. Every rank returns the same error
 * class when any rank has no usable device (DMESH_ERR_NO_DEVICE), so that no
 * rank goes on alone. Without CUDA: DMESH_ERR_NO_DEVICE. */
int dmesh_topo_bind(MPI_Comm comm, const dmesh_options_t *opts, int *device);

#endif /* DMESH_TOPO_H */
