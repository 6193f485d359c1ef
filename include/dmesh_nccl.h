/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * \file dmesh_nccl.h
 * \brief dmesh NCCL interface: the NCCL communicator paired with a mesh
 * dimension's MPI communicator. Installed only when dmesh is built with
 * NCCL; include it after (or instead of) dmesh.h.
 */
#ifndef DMESH_NCCL_H
#define DMESH_NCCL_H

#include <nccl.h>

#include "dmesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief NCCL communicator of the caller's group along dimension \p dim.
 *
 * The communicator spans the same ranks, in the same order, as the MPI
 * communicator of dmesh_get_comm(): its NCCL rank is the caller's local rank
 * along \p dim, and it runs on the CUDA device bound to the caller
 * (dmesh_get_device()). It was made with ncclCommInitRankConfig from the
 * `nccl_*` options of that dimension (`nccl_blocking`,
 * `nccl_cga_cluster_size`, `nccl_min_ctas`, `nccl_max_ctas`,
 * `nccl_net_name`, `nccl_split_share`, each also as `<key>.<dim>`).
 *
 * \param[in] mesh a mesh of device type "cuda" whose dimension \p dim has
 *            the nccl backend (the default for "cuda")
 * \param[in] dim dimension index, 0 to ndims - 1
 * \param[out] comm borrowed communicator: do not destroy or abort it; it
 *             stays valid while any mesh of the universe lives and until
 *             dmesh_abort() on that universe; NULL when the call fails
 * \return DMESH_SUCCESS; DMESH_ERR_ARG for a NULL argument or a bad \p dim;
 *         DMESH_ERR_NOT_MEMBER when the caller is not part of the mesh;
 *         DMESH_ERR_BACKEND when the dimension does not use NCCL;
 *         DMESH_ERR_NCCL / DMESH_ERR_MPI when a lazy creation fails (detail in
 *         dmesh_last_error())
 * \note Local when the NCCL communicators were created with the mesh (the
 *       default). With `dmesh_nccl_init=lazy` the first call for a dimension
 *       creates its communicator and is then collective over the caller's
 *       group along \p dim: every member must make that first call, in the
 *       same order with respect to other collective dmesh calls. Later calls
 *       are local. Not thread-safe against a concurrent creating call on the
 *       same universe; other queries may run concurrently.
 */
DMESH_EXPORT int dmesh_get_nccl_comm(dmesh_t mesh, int dim, ncclComm_t *comm);

/**
 * \brief dmesh_get_nccl_comm() of the dimension called \p dim_name.
 * \param[in] mesh a mesh of device type "cuda"
 * \param[in] dim_name a dimension name (not an index, even when it looks
 *            like one)
 * \param[out] comm borrowed communicator (do not destroy or abort it);
 *             NULL when the call fails
 * \return DMESH_SUCCESS, DMESH_ERR_NAME for a name the mesh lacks,
 *         DMESH_ERR_ARG for a bad handle or a NULL argument, or a class of
 *         dmesh_get_nccl_comm()
 * \note As dmesh_get_nccl_comm(): local, except the first call for a
 *       dimension with `dmesh_nccl_init=lazy`, which is collective over the
 *       caller's group along that dimension.
 */
DMESH_EXPORT int dmesh_get_nccl_comm_by_name(dmesh_t mesh, const char *dim_name, ncclComm_t *comm);

#ifdef __cplusplus
}
#endif

#endif /* DMESH_NCCL_H */
