/* SPDX-License-Identifier: BSD-3-Clause */
/* The nccl backend's own figures, for the benchmark's strategy table
 * (dmesh_get_cache_info gives the public part). */
#ifndef DMESH_BACKEND_NCCL_H
#define DMESH_BACKEND_NCCL_H

#include "comm_nccl.h"

struct dmesh_universe;

/* What NCCL creation cost the calling rank in universe u so far. */
void dmesh_backend_nccl_stats(const struct dmesh_universe *u, dmesh_nccl_stats_t *stats);

#endif /* DMESH_BACKEND_NCCL_H */
