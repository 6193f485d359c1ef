/* SPDX-License-Identifier: BSD-3-Clause */
/* The nccl backend's own figures, for the benchmark's strategy table
 * (dmesh_get_cache_info gives the public part). */
#ifndef DMESH_BACKEND_NCCL_H
#define DMESH_BACKEND_NCCL_H

#include "backend.h"
#include "comm_nccl.h"

/* What NCCL creation cost the calling rank so far in the universe whose
 * nccl state is state (dmesh_universe_backend_state). */
void dmesh_backend_nccl_stats(const dmesh_backend_state_t *state, dmesh_nccl_stats_t *stats);

#endif /* DMESH_BACKEND_NCCL_H */
